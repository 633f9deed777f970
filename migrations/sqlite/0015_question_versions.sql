-- Question versions: every change of a question's content (its own columns or its
-- knowledge card) is a new numbered snapshot, so a challenge keeps serving, judging and
-- explaining the question as it was when the challenge was made, and statistics can
-- tell answers to one wording from answers to another. Snapshots rather than diffs: the
-- answer reads one version with one primary-key lookup, and a version never changes.
ALTER TABLE questions ADD COLUMN version BIGINT NOT NULL DEFAULT 1;   -- the current version

CREATE TABLE question_versions (
    question_id      TEXT NOT NULL,
    version          BIGINT NOT NULL,
    category_id      TEXT NOT NULL,
    content_type     TEXT NOT NULL,
    stem_text        TEXT NOT NULL,
    correct_answer   TEXT NOT NULL,
    distractors      TEXT NOT NULL,     -- JSON array of strings
    difficulty       BIGINT NOT NULL,
    card_id          TEXT,              -- the card columns are null without a card
    card_title       TEXT,
    card_summary     TEXT,
    card_deep_dive   TEXT,
    card_source_ref  TEXT,
    edited_by        TEXT NOT NULL,     -- admin username, or 'system'
    edited_at        BIGINT NOT NULL,
    changed_fields   TEXT NOT NULL,     -- JSON array of API field names
    -- two edits that read the same version cannot both write the next one
    PRIMARY KEY (question_id, version)
);

-- Every existing question is its version 1, as it is now.
INSERT INTO question_versions (question_id, version, category_id, content_type, stem_text,
                               correct_answer, distractors, difficulty, card_id, card_title,
                               card_summary, card_deep_dive, card_source_ref, edited_by,
                               edited_at, changed_fields)
SELECT q.id, 1, q.category_id, q.content_type, q.stem_text, q.correct_answer, q.distractors,
       q.difficulty, k.id, k.title, k.summary, k.deep_dive, k.source_ref, 'system',
       q.updated_at, '[]'
FROM questions q LEFT JOIN knowledge_cards k ON k.question_id = q.id;

-- The version a challenge serves (read with the question's content when it is made) and
-- the version an answer was judged on; sessions and answers from before are version 1.
ALTER TABLE challenge_session_questions ADD COLUMN question_version BIGINT NOT NULL DEFAULT 1;
ALTER TABLE challenge_answers ADD COLUMN question_version BIGINT NOT NULL DEFAULT 1;
