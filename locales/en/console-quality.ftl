# The dashboard (dash-*), a question's statistics page and "Needs attention" (quality-*),
# and the words inside their SVG charts (chart-*).

## Dashboard

dash-title = Dashboard
dash-players = Players
dash-active-players = Active in the last 7 days
dash-questions = Questions
dash-published-questions = Published questions
dash-average-xp = Average XP
dash-last-30-days = The last 30 days
dash-link-attention = Questions that need attention
dash-link-reviewing = Questions waiting for review
dash-link-import = Import a CSV
dash-chart-active-players = Players who answered
dash-chart-answers = Answers
dash-chart-new-players = New players
dash-chart-accuracy = Accuracy

## A question's statistics and versions

quality-stats-title = Statistics
quality-stats-heading = What players make of it
quality-edit-question = Edit the question
quality-stats-version = Version { $version }
quality-stats-version-current = Version { $version } (current)
quality-computed = computed
quality-not-computed = no answers counted yet
quality-attempts = Attempts
quality-accuracy = Accuracy
quality-median-time = Median time
quality-seconds = { $seconds } s
quality-discrimination = Discrimination
quality-calibrated-difficulty = Calibrated difficulty
quality-calibrated-difficulty-value = { $difficulty } ± { $error } (the author said { $authored } of 5)
quality-uncalibrated = Not calibrated yet (the author said { $authored } of 5)
quality-card-views = Card views
quality-card-views-value = { $views } ({ $rate })
quality-flags = Flags
quality-no-flags = No flag: nothing in the answers points at a problem.
quality-no-flags-few = No flag: nothing in the answers points at a problem (flags need at least { $min } attempts).
quality-picks = Which options players pick
quality-daily = Accuracy per day (last 30 days)
quality-versions = Versions
quality-col-version = Version
quality-col-edited-by = Edited by
quality-col-when = When
quality-col-changed = Changed
quality-col-statistics = Statistics
quality-version-current = { $version } (current)
quality-version-created = created
quality-version-link = version { $version }
quality-revert = Revert to this version
quality-compare-version = Compare version
quality-with-version = with version
quality-compare = Compare
quality-diff-caption = Version { $from } → version { $to }
quality-field-stem = Stem
quality-field-answer = Answer
quality-field-distractors = Distractors
quality-field-category = Category
quality-field-difficulty = Difficulty
quality-field-content-type = Content type
quality-field-card-title = Card title
quality-field-card-summary = Card summary
quality-field-card-deep-dive = Card deep dive
quality-field-card-source = Card source
quality-quoted = “{ $text }”
quality-revert-unchanged = Version { $version } is the current content already: nothing changed.
quality-reverted = Version { $new } now holds the content of version { $version }.

## The flags in words

quality-flag-likely-miskeyed = Players pick “{ $top }” more often than the answer “{ $answer }” ({ $top_rate } against { $answer_rate }): is the key right?
quality-flag-negative-discrimination = The strongest players get it wrong more often than the weakest (discrimination { $discrimination }): the wording or the key may mislead.
quality-flag-too-hard = Only { $accuracy } of the answers are right: too hard, or unclear?
quality-flag-too-easy = { $accuracy } of the answers are right: it may be too easy to teach anything.
quality-flag-dead-distractor = Almost nobody picks { $options }: a likelier wrong answer would teach more.
quality-average-stability = Memory
quality-average-stability-value = players remember it { $days } days on average (stability, { $players } players)
quality-flag-quickly-forgotten = Quickly forgotten: its players forget it faster than nine questions in ten. Does its knowledge card help them remember?
quality-flag-difficulty-mismatch = The answers put it at { $band } of 5, the author at { $authored }: two bands or more apart. Is the author's difficulty right?

## Needs attention

quality-attention-lede = Questions whose answers point at a problem, the most serious first.
quality-attention-lede-some = Questions whose answers point at a problem, the most serious first ({ $shown } of { $total } shown).
quality-attention-review-note = Sending a question to review takes it out of the challenges until someone publishes it again.
quality-attention-empty = Nothing is flagged: no question has answers that point at a problem.
quality-col-select = Select
quality-col-question = Question
quality-col-status = Status
quality-col-attempts = Attempts
quality-col-accuracy = Accuracy
quality-col-why = Why
quality-send-to-review = Send the selected to review
quality-review-none-selected = Select the questions to send to review first.
quality-review-sent = { $count } sent to review.
quality-review-sent-some = { $count } sent to review. Not moved: { $failed }.
quality-review-failure = { $id }: { $reason }
quality-review-failure-sep = { "; " }
quality-review-not-found = not found
quality-review-cannot-move = cannot move a question from { $from } to { $to }

## Inside the charts (summaries for screen readers, tooltips, empty charts)

chart-option = { $option }: { $value }
chart-correct-option = { $option } (correct): { $value }
chart-option-rate = { $rate } of answers, { $picks } picks
chart-option-no-answers = no answers
chart-picks-summary = Pick rate per option. { $options }
chart-list-sep = { "; " }
chart-picks-empty-summary = Pick rate per option: no answers yet
chart-no-answers = No answers yet
chart-daily-values = Daily values
chart-range = from { $from } to { $to }
chart-range-day = on { $day }
chart-summary = { $what } { $range }: { $detail }
chart-summary-no-range = { $what }: { $detail }
chart-detail = latest { $latest } ({ $day }), highest { $max }, lowest { $min }
chart-detail-gaps = { $detail }, { $gaps }
chart-gap-day = no data on { $days } day
chart-gap-days = no data on { $days } days
chart-detail-none = no data yet
chart-no-data = No data yet
chart-max = max { $value }
chart-point = { $day }: { $value }
chart-wright-summary = Wright map: skills of { $players } players (median { $playerMedian }) and difficulties of { $questions } questions (median { $questionMedian }) on one logit scale
chart-wright-players = Players ({ $count })
chart-wright-questions = Questions ({ $count })
chart-wright-player-column = Players of skill { $range }: { $count }
chart-wright-question-column = Questions of difficulty { $range }: { $count }
chart-wright-range = from { $from } to { $to }
chart-wright-low = ← weaker players, easier questions
chart-wright-high = stronger players, harder questions →
