-- A first answer records what its surprise needs (issue 54): the answerer's track skill
-- when they answered and the question's guessing floor, so the calibration job's fold
-- takes each surprise against the difficulty as the answers before it left it
-- (sequential Elo), however many answers a fold takes. `surprise` stays written (the
-- previous release's fold reads it) and is what the fold uses for older answers.
-- Phase: expand (nullable columns).
ALTER TABLE challenge_answers ADD COLUMN answer_skill REAL;
ALTER TABLE challenge_answers ADD COLUMN guess_floor REAL;
