-- Fair play, weekly settlement and leagues (issue 19).

-- Server-side answer timing: when the session's questions were served (again when an
-- unfinished session is returned), when its last answer came, and each question's
-- median answer time when the session was made (from its version's statistics).
ALTER TABLE challenge_sessions ADD COLUMN served_at BIGINT;
ALTER TABLE challenge_sessions ADD COLUMN last_answered_at BIGINT;
-- Right answers that were too fast: all of them on a finished session is fast_perfect.
ALTER TABLE challenge_sessions ADD COLUMN fast_correct_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE challenge_session_questions ADD COLUMN median_ms BIGINT;
-- Beside the client's time_ms: what the server measured, and the signals it raised
-- (a bit set: 1 too_fast, 2 time_claim_impossible, 4 fast_perfect).
ALTER TABLE challenge_answers ADD COLUMN server_elapsed_ms BIGINT;
ALTER TABLE challenge_answers ADD COLUMN signals BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS challenge_answers_signals ON challenge_answers (player_id, created_at)
    WHERE signals <> 0;

-- A held player is on no board others see; their new weekly rows are hidden as written.
ALTER TABLE players ADD COLUMN fairplay_held BOOLEAN NOT NULL DEFAULT FALSE;

-- Every player with a signal: the week's suspicion score and the staff's decision.
-- queue_key orders the review queue (held first, then by score); 0 when off it.
CREATE TABLE fairplay_players (
    player_id       TEXT PRIMARY KEY,
    state           TEXT NOT NULL,              -- flagged, held, cleared, banned
    week_start      TEXT NOT NULL,              -- the week of week_score
    week_score      BIGINT NOT NULL DEFAULT 0,
    cleared_score   BIGINT NOT NULL DEFAULT 0,  -- week_score when cleared in that week
    too_fast        BIGINT NOT NULL DEFAULT 0,  -- signals of every week
    impossible      BIGINT NOT NULL DEFAULT 0,
    fast_perfect    BIGINT NOT NULL DEFAULT 0,
    last_signal_at  BIGINT NOT NULL,
    queue_key       BIGINT NOT NULL DEFAULT 0,
    decided_by      TEXT,
    decided_at      BIGINT,
    reason          TEXT
);
CREATE INDEX IF NOT EXISTS fairplay_queue ON fairplay_players (queue_key, player_id)
    WHERE queue_key > 0;

-- The frozen standings of an ended week, per board: every row, ranked; rows of held
-- and banned players are kept unshown with the rank they would have had.
CREATE TABLE board_results (
    week_start      TEXT NOT NULL,
    board           TEXT NOT NULL,
    player_id       TEXT NOT NULL,
    shown           BOOLEAN NOT NULL,
    rank            BIGINT NOT NULL,
    xp              BIGINT NOT NULL,
    last_earned_at  BIGINT NOT NULL,
    PRIMARY KEY (week_start, board, player_id)
);
CREATE INDEX IF NOT EXISTS board_results_rank ON board_results (week_start, board, shown, rank);
-- A board settled (its results written with it, in one transaction): exactly once.
CREATE TABLE board_settlements (
    week_start  TEXT NOT NULL,
    board       TEXT NOT NULL,
    players     BIGINT NOT NULL,
    settled_at  BIGINT NOT NULL,
    PRIMARY KEY (week_start, board)
);
-- A week whose every board and cohort is settled.
CREATE TABLE week_settlements (
    week_start   TEXT PRIMARY KEY,
    finished_at  BIGINT NOT NULL
);

-- Leagues: each player's tier (0 bronze … 9 diamond; none: bronze), the open cohort
-- of each week and tier (filled in arrival order: one row, one atomic upsert), and
-- the cohort each player joined with their first XP of a week.
CREATE TABLE league_players (
    player_id   TEXT PRIMARY KEY,
    tier        BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE TABLE league_open (
    week_start  TEXT NOT NULL,
    tier        BIGINT NOT NULL,
    cohort_seq  BIGINT NOT NULL,
    size        BIGINT NOT NULL,
    PRIMARY KEY (week_start, tier)
);
CREATE TABLE league_members (
    week_start  TEXT NOT NULL,
    player_id   TEXT NOT NULL,
    cohort_id   TEXT NOT NULL,
    tier        BIGINT NOT NULL,
    joined_at   BIGINT NOT NULL,
    PRIMARY KEY (week_start, player_id)
);
CREATE INDEX IF NOT EXISTS league_members_cohort ON league_members (cohort_id);

-- The admin list's flagged filter (and Needs attention, issue 18): the flagged questions
-- alone, in severity order, so its page and its count read the flagged rows, not the bank.
CREATE INDEX IF NOT EXISTS questions_flagged ON questions (stats_severity, id)
    WHERE stats_flags IS NOT NULL;
