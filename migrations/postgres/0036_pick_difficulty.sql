-- The pick reads everything it needs of a candidate from its index (issue 54 §6): the
-- difficulty the pick reads (`pick_difficulty`, kept by the calibration job beside
-- `question_difficulty`; NULL while no answer has moved it, when the author's 1-5 in
-- `difficulty` stands), the number of options (the guessing floor) and whether a fit
-- calibrated it. The candidates are then one index-only range scan, whatever the bank.
-- Phase: expand (nullable and defaulted columns, a backfill, an index replaced by a wider
-- one on the same key: the previous release's reads keep their plan's order).
ALTER TABLE questions ADD COLUMN pick_difficulty DOUBLE PRECISION;
ALTER TABLE questions ADD COLUMN option_count INTEGER;
ALTER TABLE questions ADD COLUMN calibrated BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE questions SET pick_difficulty = d.difficulty
FROM question_difficulty d WHERE d.question_id = questions.id;
UPDATE questions SET calibrated = TRUE
WHERE id IN (SELECT question_id FROM question_calibrations);
UPDATE questions SET option_count = 1 + (
    SELECT count(*) FROM json_array_elements_text(distractors::json) AS e(value)
    WHERE btrim(e.value) <> '');
CREATE INDEX questions_pick_covering ON questions (category_id, status, pick_key, id)
    INCLUDE (difficulty, pick_difficulty, option_count, calibrated);
DROP INDEX questions_pick;
