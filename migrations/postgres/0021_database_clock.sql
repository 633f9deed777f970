-- The database's clock in Unix milliseconds (issue 28), what the background jobs' leases
-- and ages go by: a process's own clock may run ahead (a broken NTP, QUIZ_CLOCK_START),
-- the shared database's is one for every process. A view, so the statements that read
-- it are written once for both engines; now() is the transaction's start, one instant
-- for every statement of it.
CREATE VIEW db_clock (now_ms) AS
SELECT CAST(floor(EXTRACT(EPOCH FROM now()) * 1000) AS BIGINT);
