# The console's content screens: CSV import, skill tree, categories, knowledge cards.

## Shared by these screens

content-id = Id
content-edit = Edit
content-save = Save
content-delete = Delete
content-top-level = (top level)
content-sort-order = Sort order
content-name = Name
content-title = Title
content-category = Category
content-question = Question

## CSV import

import-title = CSV import
import-heading = Import questions from CSV
import-intro-lead = Every row becomes a{ " " }
import-intro-draft = draft
import-intro-rest = { " " }question. The file is checked first: nothing is written until every row passes, and then all rows are imported together. Up to 200 rows per file.
import-download-template = Download the CSV template
import-columns = { " " }(columns: { $columns }).
import-file = CSV file
import-check = Check the file
import-preview = Preview
import-preview-of = Preview of { $file }
import-all-pass = All { $count } rows pass the checks.
import-now = Import { $count } questions
import-some-fail = { $failed } of { $total } rows fail; fix them and upload the file again. Nothing was imported.
import-col-row = Row
import-col-question = Question
import-col-result = Result
import-row-ok = ok
import-done = Imported { $count } questions as drafts. Submit them for review, then publish.

## Skill tree

tree-title = Skill tree
tree-show = Show
tree-intro-lead = The chapters of{ " " }
tree-intro-rest = { " " }in the order players meet them (by sortOrder within each parent). Deleting a node moves its children up to its parent.
tree-empty = This category has no node yet.
tree-node-meta = order { $order } · { $questions } questions, pass with { $pass }
tree-move-up = Move up
tree-move-down = Move down
tree-add-heading = Add a node
tree-parent = Parent
tree-sort-order-add = Sort order (empty: after the last node)
tree-questions-add = Questions per challenge (1-{ $max }, empty: 5)
tree-pass-add = Correct answers to pass (empty: 3)
tree-add = Add node
tree-no-categories-lead = There is no category yet.{ " " }
tree-no-categories-link = Create one
tree-no-categories-rest = { " " }first.
tree-edit-title = Edit node
tree-back = ← Skill tree
tree-edit-heading = Edit node { $title }
tree-node-category = category
tree-edit-category = Category (only a node without children can move; choose top level as parent)
tree-questions = Questions per challenge (1-{ $max })
tree-pass = Correct answers to pass
tree-delete-help = Its children move up to its parent.
tree-delete-node = Delete this node
tree-added = Added node { $title }.
tree-saved = Saved node { $title }.
tree-moved-up = Moved { $title } up.
tree-moved-down = Moved { $title } down.
tree-deleted = Deleted node { $title }; its children moved up to its parent.

## Categories

cat-title = Categories
cat-intro = Each active category is a track in the app. Archiving makes it inactive: it leaves the app at once and its questions are no longer served; set it active again in its editor.
cat-slug = Slug
cat-parent = Parent
cat-order = Order
cat-status = Status
cat-questions = Questions
cat-icon = Icon
cat-empty = No category yet.
cat-new-heading = New category
cat-id-help = Id (a-z, 0-9, - and _; cannot change later)
cat-slug-help = Slug (a-z, 0-9, - and _; unique)
cat-create = Create category
cat-archive = Archive
cat-edit-title = Edit category
cat-back = ← Categories
cat-edit-heading = Edit category { $name }
cat-live-questions = { $count } questions not archived
cat-its-questions = its questions
cat-its-tree = its skill tree
cat-archive-help = The category leaves the app at once; its questions stay in the bank.
cat-archive-this = Archive this category
cat-created = Created category { $name } ({ $id }).
cat-saved = Saved category { $name } ({ $id }).
cat-archived = Archived category { $name } ({ $id }): it is no longer a track.
cat-learning = Skills and difficulties
cat-learning-help = The players' skills on the track { $track } and this category's questions' difficulties on one scale: a question sits where a player of that skill answers it right about half the time (above the guessing floor). Samples of at most { $players } players and { $questions } questions.
cat-learning-no-track = This category is in no track yet (no skill tree above it): only its questions' difficulties are drawn.
cat-last-fit = Last calibration: { $model } fit of { $examinees } players, log-likelihood { $logLikelihood }, { $when }.
cat-no-fit = Not calibrated yet: the calibration job fits a category once its questions have enough first answers.
# A category's stored status (i18n::term("cat-status", …)): the English names are the stored values
cat-status-active = active
cat-status-inactive = inactive

## Knowledge cards

card-list-title = Knowledge cards
card-intro = The card a player reads after answering a question, newest first. Players see the question's category name when a card has no title.
card-summary = Summary
card-col-updated = Updated
card-no-title = (category name)
card-empty = No knowledge card on this page.
card-page-info = Page { $page } · { $total } cards
card-edit-title = Edit knowledge card
card-back = ← Knowledge cards
card-its-question = its question
card-created = created { $at }
card-updated = updated { $at }
card-title-help = Title (optional, up to 200 characters; empty: players see the category name)
card-deep-dive = Deep dive (optional)
card-source = Source (optional)
card-source-open = Open the source
card-saved = Knowledge card saved.

# the media library (issue 32)
media-title = Media library
media-intro = Pictures, sounds and clips for image, audio and video questions. A file no question uses can be deleted; unused files are removed automatically after a while.
media-upload-file = File (or drop it here)
media-upload = Upload
media-uploaded = { $kind } stored in the library.
media-deleted = { $kind } deleted from the library.
media-delete = Delete
media-filter-type = Type
media-filter-any = any
media-filter-unused = unused only
media-filter-apply = Filter
media-col-file = File
media-col-type = Type
media-col-details = Format, size
media-col-used-by = Used by
media-col-uploaded = Uploaded
media-used-by = { $count } question(s)
media-empty = No files yet.
