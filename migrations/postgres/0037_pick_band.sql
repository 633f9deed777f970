-- The adaptive pick's second read (issue 54 §4): besides the random window, the questions
-- near the difficulty the player should meet, read by band of difficulty from an index
-- that carries everything the pick needs. `pick_band` is ⌊b / 0.5⌋ of the difficulty the
-- pick reads (`pick_difficulty`, or the author's 1-5 mapped to −2…+2 while no answer
-- moved it), b clamped to ±60: `domain::pick::band`, which a test holds equal to this.
-- Computed by the database, so every writer of either difficulty keeps it right.
-- Phase: expand (a stored generated column and an index).
ALTER TABLE questions ADD COLUMN pick_band INTEGER GENERATED ALWAYS AS (
    floor(LEAST(GREATEST(COALESCE(pick_difficulty,
        (LEAST(GREATEST(difficulty, 1), 5) - 3)::double precision), -60.0), 60.0) * 2)::integer
) STORED;
CREATE INDEX questions_pick_band ON questions (category_id, status, pick_band, pick_key, id)
    INCLUDE (difficulty, pick_difficulty, option_count, calibrated);
