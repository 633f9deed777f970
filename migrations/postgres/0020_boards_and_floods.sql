-- Hardening, third round (issue 28, part 1): frozen standings that follow bans and holds,
-- feedback limits, and a cap on open ad-recovery sessions.

-- Frozen standings hide a banned or held player as live boards do: `place` is the row's
-- 1-based place among every row of its board in the boards' order, `hidden_until` the
-- live rows' column (NULL: shown). A shown rank is the place less the hidden rows ahead,
-- which the partial index finds; pages read by place over the board index. `shown` and
-- `rank` keep what the week's league moves were computed on (a withdrawn promotion
-- clears `shown`), no longer what boards show.
ALTER TABLE board_results ADD COLUMN place BIGINT NOT NULL DEFAULT 0;
ALTER TABLE board_results ADD COLUMN hidden_until BIGINT;
UPDATE board_results SET place = r.place
FROM (SELECT week_start, board, player_id,
             ROW_NUMBER() OVER (PARTITION BY week_start, board
                                ORDER BY xp DESC, last_earned_at, player_id DESC) AS place
      FROM board_results) r
WHERE board_results.week_start = r.week_start AND board_results.board = r.board
  AND board_results.player_id = r.player_id;
-- Settled weeks follow today's bans and holds (an unbanned player shows again).
UPDATE board_results SET hidden_until = (
    SELECT CASE WHEN p.fairplay_held THEN 9223372036854775807
                ELSE COALESCE(p.banned_until, 9223372036854775807) END
    FROM players p WHERE p.id = board_results.player_id)
WHERE player_id IN (SELECT id FROM players WHERE fairplay_held OR is_banned);
CREATE INDEX IF NOT EXISTS board_results_place ON board_results (week_start, board, place, hidden_until);
CREATE INDEX IF NOT EXISTS board_results_hidden ON board_results (week_start, board, place, hidden_until)
    WHERE hidden_until IS NOT NULL;
DROP INDEX IF EXISTS board_results_rank;

-- Requests counted per key and fixed window across processes (feedback per player and
-- per client address): a place is taken by one conditional upsert, so concurrent
-- requests never pass a limit together. Ended windows go with the retention job.
CREATE TABLE request_counters (
    scope_key     TEXT NOT NULL,
    window_start  BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,
    requests      BIGINT NOT NULL,
    PRIMARY KEY (scope_key, window_start)
);
CREATE INDEX IF NOT EXISTS request_counters_expiry ON request_counters (expires_at);

-- A player's open ad-recovery sessions (at most 3), counted without reading the
-- completed ones.
CREATE INDEX IF NOT EXISTS ad_sessions_open ON ad_sessions (player_id, expires_at)
    WHERE status = 'created';
