# The question bank: the list with its filters and batch actions, the editor, status moves.

## The list

q-title = Questions
q-new-question = New question
q-import-csv = Import a CSV
q-filter-status = Status
q-filter-category = Category
q-filter-keyword = Keyword
q-filter-keyword-placeholder = in stem or answers
q-filter-difficulty = Difficulty
q-filter-source = Source
q-filter-any = any
q-filter-flagged = Flagged only
q-filter-sort-by = Sort by
q-filter-order = Order
q-filter-apply = Filter
q-sort-createdAt = Date created
q-sort-updatedAt = Last updated
q-sort-difficulty = Difficulty
q-sort-accuracy = Accuracy
q-sort-attempts = Attempts
q-sort-severity = Severity
q-order-desc = Descending
q-order-asc = Ascending

## The table

q-export-intro = Export the { $total } questions of these filters (every page):
q-export-zip = ZIP (with media)
q-batch-intro = With the selected:
q-batch-publish = Publish
q-batch-archive = Archive
q-batch-delete = Delete
q-col-question = Question
q-col-status = Status
q-col-category = Category
q-col-difficulty = Difficulty
q-col-source = Source
q-col-attempts = Attempts
q-col-flags = Flags
q-col-updated = Updated
q-select-row = select
q-no-match = No question matches these filters.
q-page-info = Page { $page } · { $total } questions
q-batch-summary = { $action }: { $succeeded } of { $total } moved.
q-reason-separator = :{ " " }
q-batch-not-found = not found
q-batch-cannot-move = cannot move a question from { $from } to { $to }

## Status moves

q-status-label = Status:{ " " }
q-no-move = No move is possible from this status.
q-move-draft = Back to draft
q-move-reviewing = Submit for review
q-move-published = Publish
q-move-archived = Archive
q-status-now = Status is now { $status }.

## The editor

q-created = Question created as a draft.
q-saved = Question saved.
q-edit-title = Edit question
q-back = ← Questions
q-edit-id = Id
q-edit-meta = source { $source } · created { $created } · version { $version }
q-edit-stats-link = Statistics and versions
q-edit-flagged = flagged: { $flags }
q-new-help = A new question starts as a draft.
q-legend-question = Question
q-field-stem = Question text
q-field-correct = Correct answer
q-field-distractors = Wrong answers (one per line, at least 2)
q-field-category = Category
q-field-content-type = Content type
q-field-difficulty = Difficulty
q-legend-card = Knowledge card
q-field-card-title = Title (optional)
q-field-card-summary = Summary
q-field-card-deep-dive = Deep dive
q-field-card-source = Source
q-legend-media = Media
q-field-media-alt = Alternative text (what a screen reader says; required for an image)
q-media-alt-help = Describe what the picture shows without giving the answer away.
q-field-media-file = Upload a file (or drop it here)
q-media-file-help = PNG, JPEG or WebP images up to 4096 × 4096; MP3, AAC, M4A or Ogg audio; MP4 or WebM video. Saving stores the file in the media library; a JPEG's metadata (EXIF, GPS) is removed.
q-media-remove = Remove the media from this question
q-media-none = No media: a text question, or upload a picture, sound or clip below.
q-media-missing = The media this question named is no longer in the library; upload it again.
q-save = Save
q-create-draft = Create draft
