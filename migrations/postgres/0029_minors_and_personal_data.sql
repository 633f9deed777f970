-- Minor mode, the licensed-game profile's real-name verification, and a player's copy
-- of their data (issue 35).
-- Phase: expand (nullable columns, a new table, indexes; older binaries ignore them).

-- Minor mode: the declared age band (NULL or 'adult': off), read with every
-- authenticated request beside the ban; the guardian PIN (argon2) and its throttle.
ALTER TABLE players ADD COLUMN age_band TEXT;
ALTER TABLE players ADD COLUMN guardian_pin_hash TEXT;
ALTER TABLE players ADD COLUMN guardian_pin_failures BIGINT NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN guardian_pin_locked_until BIGINT;
-- When the player last took a copy of their data (one a day).
ALTER TABLE players ADD COLUMN last_export_at BIGINT;

-- Real-name verification (COMPLIANCE_PROFILE=licensed_game) keeps its outcome only:
-- the state (NULL: none; pending, verified, failed), the verification id this service
-- sent (ai), NPPA's id of the person (pi, which the login/logout reports need and
-- which begins with the birth date) and the birth year. Never a name or an ID number.
ALTER TABLE players ADD COLUMN real_name_status TEXT;
ALTER TABLE players ADD COLUMN real_name_ai TEXT;
ALTER TABLE players ADD COLUMN real_name_pi TEXT;
ALTER TABLE players ADD COLUMN real_name_birth_year BIGINT;
ALTER TABLE players ADD COLUMN real_name_at BIGINT;

-- The statutory holidays on which minors may play (the licensed-game profile), kept
-- by staff.
CREATE TABLE statutory_holidays (
    day         TEXT PRIMARY KEY,    -- YYYY-MM-DD, Beijing
    name        TEXT NOT NULL,
    created_by  TEXT NOT NULL,       -- admin username
    created_at  BIGINT NOT NULL
);

-- Logins and logouts of verified players waiting to be reported to NPPA, and those
-- reported (sent_at), retried by a background job until they are.
CREATE TABLE nppa_reports (
    id               TEXT PRIMARY KEY,
    player_id        TEXT NOT NULL,
    session_id       TEXT NOT NULL,  -- si: 32 hex digits, one per sign-in
    behaviour        BIGINT NOT NULL,  -- bt: 1 login, 0 logout
    occurred_at      BIGINT NOT NULL,  -- Unix milliseconds
    pi               TEXT NOT NULL,
    attempts         BIGINT NOT NULL DEFAULT 0,
    next_attempt_at  BIGINT NOT NULL,
    sent_at          BIGINT,
    created_at       BIGINT NOT NULL
);
CREATE INDEX nppa_reports_waiting ON nppa_reports (occurred_at, id) WHERE sent_at IS NULL;
CREATE INDEX nppa_reports_player ON nppa_reports (player_id);
CREATE INDEX nppa_reports_sent ON nppa_reports (sent_at) WHERE sent_at IS NOT NULL;

-- A minor's counted play on one Beijing day: one row per player, reset on the first
-- activity of a new day, so it never grows with time.
CREATE TABLE minor_play (
    player_id         TEXT PRIMARY KEY REFERENCES players (id) ON DELETE CASCADE,
    day               TEXT NOT NULL,     -- YYYY-MM-DD, Beijing
    played_ms         BIGINT NOT NULL,
    last_activity_at  BIGINT NOT NULL
);

-- The copy of a player's data reads every table by its player: the tables whose keys
-- do not start with the player get an index that does.
CREATE INDEX board_results_player ON board_results (player_id);
CREATE INDEX daily_players_player ON daily_players (player_id);
CREATE INDEX feedback_player ON feedback (player_id);
CREATE INDEX league_members_player ON league_members (player_id);
CREATE INDEX question_players_player ON question_players (player_id);
CREATE INDEX weekly_xp_player ON weekly_xp (player_id);
