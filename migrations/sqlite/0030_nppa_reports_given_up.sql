-- An NPPA login or logout report still refused or unanswered a day after it happened
-- is given up: it leaves the queue (sent_at records when) with given_up set, so a
-- report NPPA refuses for good is not retried without end, and the waiting rows the
-- job reads stay few.
-- Phase: expand (a defaulted column; older binaries ignore it).
ALTER TABLE nppa_reports ADD COLUMN given_up BOOLEAN NOT NULL DEFAULT FALSE;

-- The job takes the waiting reports in the order they happened, a session's login
-- before its logout in the same millisecond: the index follows that order.
CREATE INDEX nppa_reports_due ON nppa_reports (occurred_at, behaviour DESC, id) WHERE sent_at IS NULL;
DROP INDEX nppa_reports_waiting;
