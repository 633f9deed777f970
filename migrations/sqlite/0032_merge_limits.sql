-- Merges into an account are limited (issue 53): how many guests an account took in
-- recently is counted from when each was merged, and an unusual number of them is a
-- fair-play signal of the account's.
-- Phase: expand (a nullable column, its index, a defaulted column, a backfill).
ALTER TABLE players ADD COLUMN merged_at BIGINT;
UPDATE players SET merged_at = updated_at WHERE merged_into IS NOT NULL;
CREATE INDEX players_merged ON players (merged_into, merged_at) WHERE merged_into IS NOT NULL;
ALTER TABLE fairplay_players ADD COLUMN merges BIGINT NOT NULL DEFAULT 0;
