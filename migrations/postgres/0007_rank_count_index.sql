-- The own-rank count of the players with more XP (`db::leaderboard::viewer_row_and_rank`)
-- runs over this narrow index: PostgreSQL stores its entries of equal XP once (B-tree
-- deduplication), so counting a few hundred players ahead reads a few entries; over the
-- board index, where every entry is distinct, it read them all, and on small tables the
-- planner chose a scan of the whole table instead.
CREATE INDEX weekly_xp_xp ON weekly_xp (week_start, board, xp);
