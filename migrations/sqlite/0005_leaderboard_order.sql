-- Leaderboard order: XP descending, then the earliest last earning, then player id
-- descending (how Redis orders equal scores). The covering index serves pages and the
-- own-rank count in that order.
DROP INDEX weekly_xp_rank;
CREATE INDEX weekly_xp_rank ON weekly_xp (week_start, board, xp DESC, last_earned_at, player_id DESC);
