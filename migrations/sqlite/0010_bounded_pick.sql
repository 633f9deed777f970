-- Picking a challenge reads a bounded window of a track's pool: each question carries a
-- random key fixed at creation, and a pick starts at a random point of that key.
ALTER TABLE questions ADD COLUMN pick_key INTEGER NOT NULL DEFAULT 0;
UPDATE questions SET pick_key = abs(random() % 2147483647);
CREATE INDEX questions_pick ON questions (category_id, status, pick_key, id);
-- whether a player has answered a question (right), without visiting the table: the
-- player's answers by question gain the verdict
DROP INDEX challenge_answers_player_question;
CREATE INDEX challenge_answers_player_question ON challenge_answers (player_id, question_id, is_correct);
DROP INDEX questions_pool;
