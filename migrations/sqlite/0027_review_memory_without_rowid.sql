-- Spaced review (issue 31): `review_memory` kept in its primary key's B-tree (WITHOUT
-- ROWID). As a rowid table every answer's upsert wrote three B-trees (the rows, the key's
-- index and the review index), each page of them another WAL frame; now it writes two.
-- Phase: expand (same columns and names: an older binary reads and writes it alike).

CREATE TABLE review_memory_by_key (
    player_id         TEXT NOT NULL,
    question_id       TEXT NOT NULL,
    track_id          TEXT NOT NULL,
    stability         REAL NOT NULL,
    difficulty        REAL NOT NULL,
    reviews           INTEGER NOT NULL,
    lapses            INTEGER NOT NULL,
    last_correct      BOOLEAN NOT NULL,
    last_answered_at  INTEGER NOT NULL,
    due_at            INTEGER NOT NULL,
    review_at         INTEGER NOT NULL,
    PRIMARY KEY (question_id, player_id)
) WITHOUT ROWID;
INSERT INTO review_memory_by_key (player_id, question_id, track_id, stability, difficulty,
    reviews, lapses, last_correct, last_answered_at, due_at, review_at)
SELECT player_id, question_id, track_id, stability, difficulty, reviews, lapses,
    last_correct, last_answered_at, due_at, review_at
FROM review_memory;
DROP TABLE review_memory;
ALTER TABLE review_memory_by_key RENAME TO review_memory;
CREATE INDEX review_memory_review ON review_memory (player_id, review_at);
