-- Rules an attacker could bend, closed (docs/decisions.md, "Hardening").

-- A wrong answer refused for zero hearts marks its session question: until the player
-- has a heart again, every answer to it is refused, so no option is tried for free.
ALTER TABLE challenge_session_questions ADD COLUMN zero_heart_refused BOOLEAN NOT NULL DEFAULT FALSE;

-- The refresh tokens descended from one sign-in are a family: a used one presented
-- again revokes them all (RFC 9700 §4.14). Older rows have none and stand alone.
ALTER TABLE refresh_tokens ADD COLUMN family_id TEXT;
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id) WHERE family_id IS NOT NULL;

-- Player access tokens carry this version (`ver`); a refresh-token reuse advances it,
-- ending every access token of the player at once.
ALTER TABLE players ADD COLUMN token_version BIGINT NOT NULL DEFAULT 0;

-- A banned player's weekly rows are on no board until this instant (the ban's end, or
-- the largest instant for a ban without one); NULL: shown. Boards read the shown rows
-- over the board index (hidden_until is in it, so pages stay index-only), and own
-- ranks and totals subtract the hidden rows, which the small partial index finds.
ALTER TABLE weekly_xp ADD COLUMN hidden_until BIGINT;
DROP INDEX weekly_xp_rank;
CREATE INDEX weekly_xp_rank ON weekly_xp (week_start, board, xp DESC, last_earned_at, player_id DESC, hidden_until);
CREATE INDEX weekly_xp_hidden ON weekly_xp (week_start, board, xp, last_earned_at, player_id)
    WHERE hidden_until IS NOT NULL;

-- Players banned before this version leave the boards too. (Redis sets built before it
-- are rebuilt at their next read: their markers hold 1, an instant long past.)
UPDATE weekly_xp SET hidden_until = (
    SELECT COALESCE(p.banned_until, 9223372036854775807) FROM players p
    WHERE p.id = weekly_xp.player_id)
WHERE player_id IN (SELECT id FROM players WHERE is_banned);
