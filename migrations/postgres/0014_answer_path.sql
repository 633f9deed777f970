-- The answer's write checks no foreign keys. Each checked key costs a query and a row
-- lock per inserted row (five per right answer: the answer's session and player, the
-- ledger's player, two weekly rows' player), about a third of the answer's database
-- work. None of them guards anything: players and challenge sessions are never deleted
-- (an account is closed by marking it), and every row these tables gain is written by
-- the statement that first updates the player's progress row (db::progress::write),
-- which exists only for an existing player, and its session in the same statement.
ALTER TABLE challenge_answers DROP CONSTRAINT IF EXISTS challenge_answers_session_id_fkey;
ALTER TABLE challenge_answers DROP CONSTRAINT IF EXISTS challenge_answers_player_id_fkey;
ALTER TABLE reward_ledger DROP CONSTRAINT IF EXISTS reward_ledger_player_id_fkey;
ALTER TABLE weekly_xp DROP CONSTRAINT IF EXISTS weekly_xp_player_id_fkey;
