-- A guardian PIN takes five wrong tries a Beijing day, then locks until the next
-- midnight (issue 53): when the last wrong try was, so the day's count starts afresh.
-- Phase: expand (a nullable column; the previous release keeps its own lock rule).
ALTER TABLE players ADD COLUMN guardian_pin_failed_at BIGINT;
