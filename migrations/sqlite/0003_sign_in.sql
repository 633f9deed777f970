-- Sign-in additions.

-- Daily SMS send counters per phone number and per client address. A conditional
-- increment (ON CONFLICT ... WHERE count < limit) enforces the limit atomically across
-- processes on both engines.
CREATE TABLE sms_daily_counters (
    counter_key  TEXT NOT NULL,         -- 'phone:{number}' or 'ip:{address}'
    day          TEXT NOT NULL,         -- Beijing day
    count        INTEGER NOT NULL,
    PRIMARY KEY (counter_key, day)
);

-- A guest merged into an existing formal account points at it (audit; the idempotency
-- record carries the answer replays return).
ALTER TABLE players ADD COLUMN merged_into TEXT;
