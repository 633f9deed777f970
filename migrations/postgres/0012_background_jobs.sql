-- Background jobs (statistics, retention) run in one process at a time across the
-- deployment: the process holding a job's lease runs it and renews the lease each run;
-- when it dies, the lease runs out and another process takes the job over.
CREATE TABLE job_leases (
    job         TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    expires_at  BIGINT NOT NULL,
    -- how far the job got (for a job working in batches), and when it last finished
    progress    TEXT,
    last_run_at BIGINT
);

-- The dashboard's statistics, computed once per interval for every process.
CREATE TABLE admin_stats_snapshot (
    id                   BIGINT PRIMARY KEY,
    total_users          BIGINT NOT NULL,
    active_users         BIGINT NOT NULL,
    total_questions      BIGINT NOT NULL,
    published_questions  BIGINT NOT NULL,
    xp_sum               BIGINT NOT NULL,
    computed_at          BIGINT NOT NULL
);

-- what the retention job purges, found by index (see db::retention)
CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at);
CREATE INDEX sms_codes_expiry ON sms_codes (expires_at);
CREATE INDEX sms_sends_created ON sms_sends (created_at);
CREATE INDEX sms_daily_counters_day ON sms_daily_counters (day);
CREATE INDEX idempotency_records_created ON idempotency_records (created_at);
CREATE INDEX ad_sessions_created ON ad_sessions (created_at);
