-- Question statistics (issue 18), kept by the question_stats job from the answers it has
-- not read yet (its cursor in stats_cursors), never computed on a request.

-- How far a statistics job has read an ordered source: its last row's (created_at, id).
CREATE TABLE stats_cursors (
    name        TEXT PRIMARY KEY,
    created_at  BIGINT NOT NULL,
    id          TEXT NOT NULL
);

-- One row per question version: counts, and what the job derives from them.
CREATE TABLE question_stats (
    question_id     TEXT NOT NULL,
    version         BIGINT NOT NULL,
    attempts        BIGINT NOT NULL DEFAULT 0,
    correct         BIGINT NOT NULL DEFAULT 0,
    players         BIGINT NOT NULL DEFAULT 0,
    card_views      BIGINT NOT NULL DEFAULT 0,
    median_time_ms  BIGINT,
    discrimination  REAL,
    flags           TEXT,
    computed_at     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (question_id, version)
);

-- Picks per option text of a version.
CREATE TABLE question_option_picks (
    question_id  TEXT NOT NULL,
    version      BIGINT NOT NULL,
    option_text  TEXT NOT NULL,
    picks        BIGINT NOT NULL,
    PRIMARY KEY (question_id, version, option_text)
);

-- How many answers took each time (ms, at most ten minutes): the median's histogram.
CREATE TABLE question_answer_times (
    question_id  TEXT NOT NULL,
    version      BIGINT NOT NULL,
    time_ms      BIGINT NOT NULL,
    answers      BIGINT NOT NULL,
    PRIMARY KEY (question_id, version, time_ms)
);

-- Attempts and right answers per Beijing day.
CREATE TABLE question_daily_stats (
    question_id  TEXT NOT NULL,
    version      BIGINT NOT NULL,
    day          TEXT NOT NULL,
    attempts     BIGINT NOT NULL,
    correct      BIGINT NOT NULL,
    PRIMARY KEY (question_id, version, day)
);

-- Each player's answers to a version: the discrimination index and card views.
CREATE TABLE question_players (
    question_id  TEXT NOT NULL,
    version      BIGINT NOT NULL,
    player_id    TEXT NOT NULL,
    attempts     BIGINT NOT NULL,
    correct      BIGINT NOT NULL,
    PRIMARY KEY (question_id, version, player_id)
);

-- Each player's answers over every question: the ranking of the discrimination index.
CREATE TABLE player_accuracy (
    player_id  TEXT PRIMARY KEY,
    attempts   BIGINT NOT NULL,
    correct    BIGINT NOT NULL
);

-- The dashboard's days (Beijing): answers, right answers, players who answered, signups.
CREATE TABLE daily_activity (
    day             TEXT PRIMARY KEY,
    answers         BIGINT NOT NULL DEFAULT 0,
    correct         BIGINT NOT NULL DEFAULT 0,
    active_players  BIGINT NOT NULL DEFAULT 0,
    new_players     BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE daily_players (
    day        TEXT NOT NULL,
    player_id  TEXT NOT NULL,
    PRIMARY KEY (day, player_id)
);

-- The current version's summary on the question itself, so the admin list filters and
-- sorts by it over an index. accuracy_key is the accuracy, or -1 without attempts (one
-- order on both engines, which sort NULLs differently).
ALTER TABLE questions ADD COLUMN stats_attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE questions ADD COLUMN stats_correct BIGINT NOT NULL DEFAULT 0;
ALTER TABLE questions ADD COLUMN stats_accuracy_key REAL NOT NULL DEFAULT -1;
ALTER TABLE questions ADD COLUMN stats_flags TEXT;
ALTER TABLE questions ADD COLUMN stats_severity BIGINT NOT NULL DEFAULT 0;
CREATE INDEX questions_accuracy_order ON questions (stats_accuracy_key, id);
CREATE INDEX questions_attempts_order ON questions (stats_attempts, id);
CREATE INDEX questions_severity_order ON questions (stats_severity, id);

-- The job's sources, read in (created_at, id) order: every answer, and first card views.
CREATE INDEX challenge_answers_created ON challenge_answers (created_at, id);
CREATE INDEX reward_ledger_card_views ON reward_ledger (created_at, id)
    WHERE source = 'review_explanation';
