-- The adaptive pick's second read (issue 54 §4): besides the random window, the questions
-- near the difficulty the player should meet, read by band of difficulty from an index
-- that carries everything the pick needs. `pick_band` is ⌊b / 0.5⌋ of the difficulty the
-- pick reads (`pick_difficulty`, or the author's 1-5 mapped to −2…+2 while no answer
-- moved it), b clamped to ±60: `domain::pick::band`, which a test holds equal to this.
-- Kept by the database, so every writer of either difficulty (this release's and the
-- previous one's) keeps it right: on PostgreSQL a generated column; here a plain column
-- that triggers keep, since SQLite cannot add a stored generated column to a table, and
-- does not read an index on a virtual one as covering (the read would visit every row).
-- The offset makes the truncating CAST a floor (the clamped b + 64 is positive).
-- Phase: expand (a defaulted column, a backfill, triggers and an index).
ALTER TABLE questions ADD COLUMN pick_band INTEGER NOT NULL DEFAULT 0;
UPDATE questions SET pick_band =
    CAST((MIN(MAX(COALESCE(pick_difficulty, MIN(MAX(difficulty, 1), 5) - 3), -60.0), 60.0)
          + 64.0) * 2 AS INTEGER) - 128;
CREATE TRIGGER questions_pick_band_insert AFTER INSERT ON questions BEGIN
    UPDATE questions SET pick_band =
        CAST((MIN(MAX(COALESCE(pick_difficulty, MIN(MAX(difficulty, 1), 5) - 3), -60.0), 60.0)
              + 64.0) * 2 AS INTEGER) - 128
    WHERE id = NEW.id;
END;
CREATE TRIGGER questions_pick_band_update AFTER UPDATE OF pick_difficulty, difficulty
ON questions BEGIN
    UPDATE questions SET pick_band =
        CAST((MIN(MAX(COALESCE(pick_difficulty, MIN(MAX(difficulty, 1), 5) - 3), -60.0), 60.0)
              + 64.0) * 2 AS INTEGER) - 128
    WHERE id = NEW.id;
END;
CREATE INDEX questions_pick_band ON questions (category_id, status, pick_band, pick_key, id,
    difficulty, pick_difficulty, option_count, calibrated);
