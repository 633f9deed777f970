-- Spaced review (issue 31): the FSRS memory state of each question a player has answered,
-- written by every judged answer of it in the answer's own statement.
-- Phase: expand (new table and columns only).

CREATE TABLE review_memory (
    player_id         TEXT NOT NULL,
    question_id       TEXT NOT NULL,
    -- The track the question was first answered from: `mode=review&trackId=` filters by it.
    track_id          TEXT NOT NULL,
    stability         DOUBLE PRECISION NOT NULL,
    difficulty        DOUBLE PRECISION NOT NULL,
    -- Answers judged so far; the answer's write is guarded by the count it read (a row
    -- changed meanwhile fails the write, which is judged again on a fresh read).
    reviews           BIGINT NOT NULL,
    lapses            BIGINT NOT NULL,
    last_correct      BOOLEAN NOT NULL,
    last_answered_at  BIGINT NOT NULL,
    -- When predicted recall falls to REVIEW_RETENTION.
    due_at            BIGINT NOT NULL,
    -- When the question joins the player's reviews: its due time, or ten minutes after a
    -- wrong answer. The review pick and the due count read by it.
    review_at         BIGINT NOT NULL,
    -- By question first: the staff's view of a question reads its players by this key;
    -- an answer's read and write match both columns.
    PRIMARY KEY (question_id, player_id)
);
CREATE INDEX review_memory_review ON review_memory (player_id, review_at);

-- A player's own FSRS parameters, fitted by the review job once they have enough reviews
-- (NULL: the last try found too little to fit; tried again a week later).
CREATE TABLE review_parameters (
    player_id    TEXT PRIMARY KEY,
    parameters   TEXT,
    reviews      BIGINT NOT NULL,
    fitted_at    BIGINT NOT NULL
);

-- How fast a question's players forget it: the mean stability over (a sample of) its
-- memory rows, refreshed by the review job; `quickly_forgotten` marks the worst tenth of
-- the questions with enough players. An unpublished question's row says its memory
-- rows are parked.
CREATE TABLE question_memory (
    question_id        TEXT PRIMARY KEY,
    players            BIGINT NOT NULL,
    average_stability  DOUBLE PRECISION NOT NULL,
    quickly_forgotten  BOOLEAN NOT NULL DEFAULT FALSE,
    -- The question is unpublished and its memory rows are parked (review_at far in the
    -- future): out of every player's reviews and due count until it is published again.
    parked             BOOLEAN NOT NULL DEFAULT FALSE,
    computed_at        BIGINT NOT NULL
);

-- Review challenges: no heart, no attempt, their own XP.
ALTER TABLE challenge_sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'challenge';
-- Review XP earned today (reset with daily_xp at Beijing midnight), capped by REVIEW_XP_DAILY.
ALTER TABLE player_progress ADD COLUMN review_xp BIGINT NOT NULL DEFAULT 0;
-- Hearts review challenges gave back today (reset with it), capped by REVIEW_HEARTS_DAILY.
ALTER TABLE player_progress ADD COLUMN review_hearts BIGINT NOT NULL DEFAULT 0;
