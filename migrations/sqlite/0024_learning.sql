-- The learning engine (issue 30): online Elo estimates written by every judged answer,
-- and the item response theory fits of the calibration job.

-- A player's overall skill θ, on the row every answer writes anyway.
ALTER TABLE player_progress ADD COLUMN skill REAL NOT NULL DEFAULT 0;
ALTER TABLE player_progress ADD COLUMN skill_answers INTEGER NOT NULL DEFAULT 0;

-- A player's skill θ on one track (the track a challenge was served from).
CREATE TABLE player_skills (
    player_id   TEXT NOT NULL,
    track_id    TEXT NOT NULL,
    skill       REAL NOT NULL,
    answers     INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (player_id, track_id)
);

-- A question's difficulty b: Elo from the players' first answers, or the calibrated b once
-- a fit replaced it (Elo goes on from there). No row: the author's 1-5, mapped.
CREATE TABLE question_difficulty (
    question_id  TEXT PRIMARY KEY,
    difficulty   REAL NOT NULL,
    answers      INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);

-- What a session question was served with: the difficulty then, and whether it was the
-- player's first sight of the question (only a first answer moves its difficulty).
ALTER TABLE challenge_session_questions ADD COLUMN difficulty REAL;
ALTER TABLE challenge_session_questions ADD COLUMN difficulty_answers INTEGER NOT NULL DEFAULT 0;
ALTER TABLE challenge_session_questions ADD COLUMN first_answer BOOLEAN NOT NULL DEFAULT FALSE;

-- Each player's first answer to each question, folded from the answers by the calibration
-- job (its cursor in stats_cursors): what a fit reads, by question, players in id order.
CREATE TABLE first_answers (
    question_id  TEXT NOT NULL,
    player_id    TEXT NOT NULL,
    correct      BOOLEAN NOT NULL,
    answered_at  INTEGER NOT NULL,
    PRIMARY KEY (question_id, player_id)
);
CREATE INDEX first_answers_player ON first_answers (player_id);

-- A category's last fit.
CREATE TABLE calibrations (
    category_id     TEXT PRIMARY KEY,
    model           TEXT NOT NULL,
    guessing        TEXT NOT NULL,
    log_likelihood  REAL NOT NULL,
    examinees       INTEGER NOT NULL,
    iterations      INTEGER NOT NULL,
    converged       BOOLEAN NOT NULL,
    computed_at     INTEGER NOT NULL
);

-- A question's calibrated parameters (the last fit of its category that had enough of
-- its first answers).
CREATE TABLE question_calibrations (
    question_id     TEXT PRIMARY KEY,
    category_id     TEXT NOT NULL,
    model           TEXT NOT NULL,
    difficulty      REAL NOT NULL,
    discrimination  REAL NOT NULL,
    guessing        REAL NOT NULL,
    standard_error  REAL,
    answers         INTEGER NOT NULL,
    computed_at     INTEGER NOT NULL
);
CREATE INDEX question_calibrations_category ON question_calibrations (category_id, question_id);
