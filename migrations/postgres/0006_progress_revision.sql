-- A counter every change to a progress row advances. A challenge answer is judged on a
-- read and written only if the row still carries the revision it read (the write
-- fails otherwise, and the answer is judged again on a fresh read).
ALTER TABLE player_progress ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
