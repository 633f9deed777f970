-- A track's players in id order (ids are random), so a console page reads a bounded,
-- unbiased sample of their skills (the Wright map) without counting the track. Only an
-- answer that opens a new (player, track) row writes it: skill updates leave it alone.
CREATE INDEX player_skills_track ON player_skills (track_id, player_id);
