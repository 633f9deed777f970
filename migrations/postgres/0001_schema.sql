-- The whole schema of the quiz game, PostgreSQL flavour. The SQLite file of the same
-- version holds the same tables, columns and indexes.
--
-- Conventions shared by both engines, so one SQL text and one Rust type serve both:
--   * ids are TEXT made by the application (uuids, or admin-chosen category ids);
--   * instants are BIGINT Unix milliseconds bound from the service clock, never now(),
--     so the clock can be moved in tests and comparisons are plain integer compares;
--   * Beijing calendar days are TEXT 'YYYY-MM-DD' (they sort as dates);
--   * every integer is BIGINT (decoded as i64 on both engines); JSON is TEXT.

-- Secrets generated outside production (JWT keys), shared by every process.
CREATE TABLE server_secrets (
    name        TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE regions (
    code        TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    short_name  TEXT NOT NULL,
    parent_code TEXT REFERENCES regions (code),
    level       BIGINT NOT NULL,
    sort_order  BIGINT NOT NULL,
    enabled     BOOLEAN NOT NULL DEFAULT TRUE,
    updated_at  BIGINT NOT NULL
);

-- Players. A deleted player keeps a row without personal data (deleted_at set) so the
-- anonymised ledger and answer records still point somewhere.
CREATE TABLE players (
    id                      TEXT PRIMARY KEY,
    nickname                TEXT,
    avatar_url              TEXT,
    is_guest                BOOLEAN NOT NULL,
    tier                    TEXT NOT NULL DEFAULT 'free',
    region_code             TEXT REFERENCES regions (code),
    region_selected_at      BIGINT,
    region_next_change_at   BIGINT,
    is_banned               BOOLEAN NOT NULL DEFAULT FALSE,
    ban_reason              TEXT,
    banned_until            BIGINT,
    linked_at               BIGINT,
    deleted_at              BIGINT,
    created_at              BIGINT NOT NULL,
    updated_at              BIGINT NOT NULL
);
CREATE INDEX players_created_at ON players (created_at);
CREATE INDEX players_nickname ON players (nickname);

-- How a player signs in: provider 'device' (guest deviceId), 'phone', 'huawei', 'apple'.
-- The same subject at two providers is two identities.
CREATE TABLE player_identities (
    provider    TEXT NOT NULL,
    subject     TEXT NOT NULL,
    player_id   TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (provider, subject)
);
CREATE INDEX player_identities_player ON player_identities (player_id);

-- Refresh tokens of players and admins, stored as SHA-256 hashes. A token works once:
-- rotation sets used_at with a conditional update.
CREATE TABLE refresh_tokens (
    token_hash  TEXT PRIMARY KEY,
    audience    TEXT NOT NULL,          -- 'player' or 'admin'
    subject_id  TEXT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT,
    revoked_at  BIGINT,
    created_at  BIGINT NOT NULL
);
CREATE INDEX refresh_tokens_subject ON refresh_tokens (audience, subject_id);

-- Game resources of a player, one row each; changed only inside transactions.
CREATE TABLE player_progress (
    player_id                 TEXT PRIMARY KEY REFERENCES players (id) ON DELETE CASCADE,
    hearts                    BIGINT NOT NULL,
    -- while below max, hearts regenerate from this instant on
    hearts_regen_from         BIGINT,
    attempts_day              TEXT,
    attempts_used             BIGINT NOT NULL DEFAULT 0,
    bonus_attempts            BIGINT NOT NULL DEFAULT 0,
    xp                        BIGINT NOT NULL DEFAULT 0,
    daily_xp_day              TEXT,
    daily_xp                  BIGINT NOT NULL DEFAULT 0,
    streak_days               BIGINT NOT NULL DEFAULT 0,
    streak_last_day           TEXT,
    streak_protected_until    BIGINT,
    streak_protection_at      BIGINT,
    check_in_days             BIGINT NOT NULL DEFAULT 0,
    last_check_in_day         TEXT,
    active_track_id           TEXT,
    updated_at                BIGINT NOT NULL
);

CREATE TABLE player_check_ins (
    player_id   TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    day         TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (player_id, day)
);

-- Wallet, inventory and subscription: read by bootstrap, written from the next version.
CREATE TABLE wallets (
    player_id      TEXT PRIMARY KEY REFERENCES players (id) ON DELETE CASCADE,
    coins_balance  BIGINT NOT NULL DEFAULT 0,
    updated_at     BIGINT NOT NULL
);
CREATE TABLE inventory_items (
    player_id     TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    item_id       TEXT NOT NULL,
    quantity      BIGINT NOT NULL DEFAULT 0,
    active_until  BIGINT,
    metadata      TEXT,
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (player_id, item_id)
);
CREATE TABLE subscriptions (
    player_id   TEXT PRIMARY KEY REFERENCES players (id) ON DELETE CASCADE,
    status      TEXT NOT NULL,          -- none, active, expired, cancelled
    tier        TEXT NOT NULL,          -- free, pro, proplus
    expires_at  BIGINT,
    auto_renew  BOOLEAN NOT NULL DEFAULT FALSE,
    platform    TEXT,
    updated_at  BIGINT NOT NULL
);

CREATE TABLE categories (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL UNIQUE,
    parent_id   TEXT REFERENCES categories (id),
    icon        TEXT NOT NULL DEFAULT 'book',
    sort_order  BIGINT NOT NULL DEFAULT 0,
    status      TEXT NOT NULL DEFAULT 'active',
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX categories_parent ON categories (parent_id);
CREATE INDEX categories_order ON categories (status, sort_order);

-- Chapter nodes of a track's skill tree.
CREATE TABLE skill_nodes (
    id                  TEXT PRIMARY KEY,
    category_id         TEXT NOT NULL REFERENCES categories (id),
    title               TEXT NOT NULL,
    parent_id           TEXT REFERENCES skill_nodes (id),
    sort_order          BIGINT NOT NULL DEFAULT 0,
    questions_required  BIGINT NOT NULL DEFAULT 5,
    pass_threshold      BIGINT NOT NULL DEFAULT 3,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);
CREATE INDEX skill_nodes_category ON skill_nodes (category_id, sort_order);

CREATE TABLE questions (
    id              TEXT PRIMARY KEY,
    category_id     TEXT NOT NULL REFERENCES categories (id),
    stem_text       TEXT NOT NULL,
    content_type    TEXT NOT NULL,
    correct_answer  TEXT NOT NULL,
    distractors     TEXT NOT NULL,      -- JSON array of strings
    difficulty      BIGINT NOT NULL DEFAULT 1,
    status          TEXT NOT NULL DEFAULT 'draft',
    source          TEXT NOT NULL DEFAULT 'system',
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
-- challenge pools read published questions by category
CREATE INDEX questions_pool ON questions (category_id, status);
CREATE INDEX questions_status_created ON questions (status, created_at);
CREATE INDEX questions_created ON questions (created_at);
CREATE INDEX questions_updated ON questions (updated_at);

CREATE TABLE knowledge_cards (
    id           TEXT PRIMARY KEY,
    question_id  TEXT NOT NULL UNIQUE REFERENCES questions (id),
    title        TEXT,
    summary      TEXT NOT NULL,
    deep_dive    TEXT,
    source_ref   TEXT,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE INDEX knowledge_cards_created ON knowledge_cards (created_at);

-- A challenge: 5 questions of one node. At most one unfinished session per player and
-- node, which the partial unique index enforces even when two requests race.
CREATE TABLE challenge_sessions (
    id                TEXT PRIMARY KEY,
    player_id         TEXT NOT NULL REFERENCES players (id),
    track_id          TEXT NOT NULL REFERENCES categories (id),
    node_id           TEXT NOT NULL,
    status            TEXT NOT NULL,    -- pending, in_progress, finished
    attempt_consumed  BOOLEAN NOT NULL DEFAULT FALSE,
    answered_count    BIGINT NOT NULL DEFAULT 0,
    correct_count     BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT NOT NULL,
    finished_at       BIGINT
);
CREATE UNIQUE INDEX challenge_sessions_unfinished ON challenge_sessions (player_id, node_id)
    WHERE status IN ('pending', 'in_progress');
CREATE INDEX challenge_sessions_player ON challenge_sessions (player_id, status);

-- The questions of a session with their shuffled options; option ids are random per
-- session so they reveal nothing about correctness.
CREATE TABLE challenge_session_questions (
    session_id         TEXT NOT NULL REFERENCES challenge_sessions (id) ON DELETE CASCADE,
    position           BIGINT NOT NULL,
    question_id        TEXT NOT NULL REFERENCES questions (id),
    options            TEXT NOT NULL,   -- JSON [{id, text}]
    correct_option_id  TEXT NOT NULL,
    PRIMARY KEY (session_id, position)
);

-- One judged answer per session question; submit_request_id makes client retries idempotent.
CREATE TABLE challenge_answers (
    id                  TEXT PRIMARY KEY,
    session_id          TEXT NOT NULL REFERENCES challenge_sessions (id),
    player_id           TEXT NOT NULL REFERENCES players (id),
    question_id         TEXT NOT NULL,
    selected_option_id  TEXT NOT NULL,
    is_correct          BOOLEAN NOT NULL,
    xp_delta            BIGINT NOT NULL,
    hearts_delta        BIGINT NOT NULL,
    time_ms             BIGINT NOT NULL DEFAULT 0,
    combo_count         BIGINT NOT NULL DEFAULT 0,
    submit_request_id   TEXT,
    created_at          BIGINT NOT NULL,
    UNIQUE (session_id, question_id)
);
CREATE UNIQUE INDEX challenge_answers_request ON challenge_answers (player_id, submit_request_id)
    WHERE submit_request_id IS NOT NULL;
-- "questions the player has not answered correctly" when picking a challenge
CREATE INDEX challenge_answers_player_question ON challenge_answers (player_id, question_id);

CREATE TABLE node_completions (
    player_id     TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    node_id       TEXT NOT NULL,
    completed_at  BIGINT NOT NULL,
    PRIMARY KEY (player_id, node_id)
);

-- Every reward and paid-for deduction, once: the unique idempotency key is the guard.
CREATE TABLE reward_ledger (
    id               TEXT PRIMARY KEY,
    player_id        TEXT NOT NULL REFERENCES players (id),
    idempotency_key  TEXT NOT NULL UNIQUE,
    source           TEXT NOT NULL,
    xp_delta         BIGINT NOT NULL DEFAULT 0,
    hearts_delta     BIGINT NOT NULL DEFAULT 0,
    attempts_delta   BIGINT NOT NULL DEFAULT 0,
    coins_delta      BIGINT NOT NULL DEFAULT 0,
    before_snapshot  TEXT,              -- JSON resources before
    after_snapshot   TEXT,              -- JSON resources after
    created_at       BIGINT NOT NULL
);
CREATE INDEX reward_ledger_player ON reward_ledger (player_id, created_at);

-- Weekly XP per leaderboard: board is 'region:{code}' or 'topic:all'. The covering index
-- serves pages and own-rank counts.
CREATE TABLE weekly_xp (
    week_start      TEXT NOT NULL,
    board           TEXT NOT NULL,
    player_id       TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    xp              BIGINT NOT NULL,
    last_earned_at  BIGINT NOT NULL,
    PRIMARY KEY (week_start, board, player_id)
);
CREATE INDEX weekly_xp_rank ON weekly_xp (week_start, board, xp DESC, last_earned_at, player_id);

CREATE TABLE admins (
    id             TEXT PRIMARY KEY,
    username       TEXT NOT NULL UNIQUE,
    password_hash  TEXT NOT NULL,
    role           TEXT NOT NULL,       -- super_admin, admin
    is_active      BOOLEAN NOT NULL DEFAULT TRUE,
    -- bumped on password change and deactivation: older access tokens stop working
    token_version  BIGINT NOT NULL DEFAULT 0,
    last_login_at  BIGINT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE TABLE auth_providers (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,          -- secondary, third_party
    icon_key    TEXT,
    platforms   TEXT NOT NULL,          -- comma-separated: ios,android,harmony
    enabled     BOOLEAN NOT NULL DEFAULT TRUE,
    sort_order  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);

-- The pending SMS code per phone number; the conditional upsert on sent_at enforces the
-- resend window across processes.
CREATE TABLE sms_codes (
    phone            TEXT PRIMARY KEY,
    code_hash        TEXT,              -- console provider only; Aliyun checks its own codes
    sent_at          BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    failed_attempts  BIGINT NOT NULL DEFAULT 0,
    consumed_at      BIGINT
);
CREATE TABLE sms_sends (
    id          TEXT PRIMARY KEY,
    phone       TEXT NOT NULL,
    client_ip   TEXT NOT NULL,
    day         TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX sms_sends_phone_day ON sms_sends (phone, day);
CREATE INDEX sms_sends_ip_day ON sms_sends (client_ip, day);

CREATE TABLE ad_sessions (
    id                 TEXT PRIMARY KEY,
    player_id          TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    type               TEXT NOT NULL,   -- hearts, bonusAttempts, streakProtection
    client_request_id  TEXT NOT NULL,
    platform           TEXT NOT NULL,
    ad_provider        TEXT NOT NULL,
    ad_placement_id    TEXT NOT NULL,
    status             TEXT NOT NULL,   -- created, completed, failed
    day                TEXT NOT NULL,
    result             TEXT,            -- JSON of the first completion answer
    created_at         BIGINT NOT NULL,
    expires_at         BIGINT NOT NULL,
    completed_at       BIGINT,
    UNIQUE (player_id, client_request_id)
);
CREATE INDEX ad_sessions_daily ON ad_sessions (player_id, type, status, day);

CREATE TABLE feedback (
    id            TEXT PRIMARY KEY,
    player_id     TEXT REFERENCES players (id) ON DELETE SET NULL,
    content       TEXT NOT NULL,
    contact       TEXT,
    page_context  TEXT,
    created_at    BIGINT NOT NULL
);
CREATE INDEX feedback_created ON feedback (created_at);

-- Stored answers of idempotent operations (e.g. a link's clientMigrationId).
CREATE TABLE idempotency_records (
    scope       TEXT NOT NULL,
    key         TEXT NOT NULL,
    owner_id    TEXT NOT NULL,
    response    TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (scope, key)
);

CREATE TABLE audit_log (
    id              TEXT PRIMARY KEY,
    actor_id        TEXT NOT NULL,
    actor_username  TEXT NOT NULL,
    action          TEXT NOT NULL,
    target_type     TEXT NOT NULL,
    target_id       TEXT,
    before_state    TEXT,
    after_state     TEXT,
    created_at      BIGINT NOT NULL
);
CREATE INDEX audit_log_created ON audit_log (created_at);

-- Console sessions, shared by every admin-console process.
CREATE TABLE console_sessions (
    id          TEXT PRIMARY KEY,
    data        TEXT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
