-- The too-fast bar of a question (issue 53): the median of the times the server
-- measured, over the first answer of each player who is neither held, banned nor
-- flagged, answers that raised no signal. The question_stats job keeps the histogram
-- and derives the median and how many players made it; a median counts for fair play
-- only from FAIRPLAY_PACE_MIN_PLAYERS players. The client's claimed times
-- (question_answer_times) stay the staff's median time and feed no rule.
-- Phase: expand (a new table, defaulted and nullable columns).
CREATE TABLE question_pace (
    question_id  TEXT NOT NULL,
    version      BIGINT NOT NULL,
    elapsed_ms   BIGINT NOT NULL,
    answers      BIGINT NOT NULL,
    PRIMARY KEY (question_id, version, elapsed_ms)
);
ALTER TABLE question_stats ADD COLUMN pace_players BIGINT NOT NULL DEFAULT 0;
ALTER TABLE question_stats ADD COLUMN pace_ms BIGINT;
