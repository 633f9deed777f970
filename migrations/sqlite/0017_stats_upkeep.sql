-- Question statistics upkeep (issue 18 review): what the question_stats job still has
-- to derive survives a run that dies, and a popular version is not re-read every run.

-- Counting answers (or a card view) adds 1; deriving takes back what it saw, so a run
-- that counted and died leaves the version due, and the next run derives it. New rows
-- start due (the column default), and every existing row is derived once more.
ALTER TABLE question_stats ADD COLUMN derive_due BIGINT NOT NULL DEFAULT 1;
-- The attempts and the instant of the last read of the version's players (the
-- discrimination index and card views): read again after 10 % more attempts or an hour.
ALTER TABLE question_stats ADD COLUMN players_read_attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE question_stats ADD COLUMN players_read_at BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS question_stats_due ON question_stats (question_id, version) WHERE derive_due > 0;
