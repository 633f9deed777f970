-- Bulk data of the scale benchmark (bench/scale.sh), one text for both engines: the
-- script replaces the @NAMES@ and runs it with psql or sqlite3 on a migrated, empty
-- database. `generate_series(CAST(1 AS BIGINT), n) AS value` names its column `value` on
-- both engines; every "random" value is arithmetic on it, so both engines get the same rows.
--
-- Players sp-1 … sp-@PLAYERS@ (guest identities scale-dev-N, region 110000); the first
-- @HEAVY@ have @HEAVY_ANSWERS@ answers each, the rest share the remaining answers. The
-- track scale-track holds @QUESTIONS@ published questions under one chapter node, each with
-- a difficulty (half calibrated); every player has a skill on the track (the adaptive pick).

INSERT INTO categories (id, name, slug, parent_id, icon, sort_order, status, created_at, updated_at)
VALUES ('scale-track', 'Scale track', 'scale-track', NULL, 'book', 0, 'active', @NOW@, @NOW@);
INSERT INTO skill_nodes (id, category_id, title, parent_id, sort_order, questions_required,
                         pass_threshold, created_at, updated_at)
VALUES ('scale-node', 'scale-track', 'Everything', NULL, 0, 5, 3, @NOW@, @NOW@);

-- each with the summary of its statistics (below); one in 50 flagged likely_miskeyed
INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer, distractors,
                       difficulty, status, source, pick_key, created_at, updated_at,
                       stats_attempts, stats_correct, stats_accuracy_key, stats_flags,
                       stats_severity, pick_difficulty, option_count, calibrated)
SELECT 'sq-' || value, 'scale-track',
       'Scale question ' || value || ' about topic ' || ((value * 7919) % 997),
       'text', 'Answer ' || value,
       '["Alpha ' || value || '", "Beta ' || value || '", "Gamma ' || value || '"]',
       1 + value % 5, 'published', 'system', (value * 2654435761) % 2147483647,
       @NOW@ - value * 1000, @NOW@ - value * 1000,
       200, 20 + value % 150, (20 + value % 150) / 200.0,
       CASE WHEN value % 50 = 0 THEN 'likely_miskeyed' END,
       CASE WHEN value % 50 = 0 THEN 16 ELSE 0 END,
       -- the pick's copy of the learning engine's rows below
       ((value * 37) % 81 - 40) / 10.0, 4, value % 2 = 0
FROM generate_series(CAST(1 AS BIGINT), @QUESTIONS@) AS value;
-- the statistics job's rows for every question: counts, picks, one day
-- (derived, as the job leaves them: nothing due)
INSERT INTO question_stats (question_id, version, attempts, correct, players, card_views,
                            median_time_ms, discrimination, flags, computed_at, derive_due,
                            players_read_attempts, players_read_at)
SELECT 'sq-' || value, 1, 200, 20 + value % 150, 180, 40, 2000 + value % 3000, 0.25,
       CASE WHEN value % 50 = 0 THEN 'likely_miskeyed' END, @NOW@, 0, 200, @NOW@
FROM generate_series(CAST(1 AS BIGINT), @QUESTIONS@) AS value;
INSERT INTO question_option_picks (question_id, version, option_text, picks)
SELECT 'sq-' || value, 1, 'Answer ' || value, 20 + value % 150
FROM generate_series(CAST(1 AS BIGINT), @QUESTIONS@) AS value;
INSERT INTO question_option_picks (question_id, version, option_text, picks)
SELECT 'sq-' || value, 1, 'Alpha ' || value, 180 - value % 150
FROM generate_series(CAST(1 AS BIGINT), @QUESTIONS@) AS value;
INSERT INTO question_daily_stats (question_id, version, day, attempts, correct)
SELECT 'sq-' || value, 1, '@TODAY@', 200, 20 + value % 150
FROM generate_series(CAST(1 AS BIGINT), @QUESTIONS@) AS value;
-- their version 1 (a challenge serves a question's version, not its row); no cards
INSERT INTO question_versions (question_id, version, category_id, content_type, stem_text,
                               correct_answer, distractors, difficulty, edited_by, edited_at,
                               changed_fields)
SELECT id, 1, category_id, content_type, stem_text, correct_answer, distractors, difficulty,
       'system', created_at, '[]'
FROM questions WHERE category_id = 'scale-track';

-- the learning engine's rows: every question has a difficulty (Elo's, or a fit's: every
-- second one calibrated), every player a skill on the track
INSERT INTO question_difficulty (question_id, difficulty, answers, updated_at)
SELECT 'sq-' || value, ((value * 37) % 81 - 40) / 10.0, 30 + value % 200, @NOW@
FROM generate_series(CAST(1 AS BIGINT), @QUESTIONS@) AS value;
INSERT INTO question_calibrations (question_id, category_id, model, difficulty, discrimination,
                                   guessing, standard_error, answers, computed_at)
SELECT 'sq-' || value, 'scale-track', '2pl', ((value * 37) % 81 - 40) / 10.0, 1.0, 0.25, 0.2,
       200, @NOW@
FROM generate_series(CAST(1 AS BIGINT), @QUESTIONS@) AS value WHERE value % 2 = 0;

INSERT INTO players (id, nickname, avatar_url, is_guest, region_code, region_selected_at,
                     is_banned, created_at, updated_at)
SELECT 'sp-' || value, 'Player ' || value, NULL, TRUE, '110000', @NOW@ - value * 1000,
       FALSE, @NOW@ - value * 1000, @NOW@ - value * 1000
FROM generate_series(CAST(1 AS BIGINT), @PLAYERS@) AS value;
INSERT INTO player_identities (provider, subject, player_id, created_at)
SELECT 'device', 'scale-dev-' || value, 'sp-' || value, @NOW@ - value * 1000
FROM generate_series(CAST(1 AS BIGINT), @PLAYERS@) AS value;
-- a phone identity on every tenth player, for the admin search
INSERT INTO player_identities (provider, subject, player_id, created_at)
SELECT 'phone', '+86139' || (10000000 + value), 'sp-' || value, @NOW@ - value * 1000
FROM generate_series(CAST(1 AS BIGINT), @PLAYERS@) AS value WHERE value % 10 = 0;
-- active (played within the week) for a third of the players
INSERT INTO player_progress (player_id, hearts, xp, streak_days, updated_at)
SELECT 'sp-' || value, 5, (value * 7919) % 20000, value % 30,
       CASE WHEN value % 3 = 0 THEN @NOW@ - (value % 86400) * 1000
            ELSE @NOW@ - 2592000000 END
FROM generate_series(CAST(1 AS BIGINT), @PLAYERS@) AS value;
INSERT INTO wallets (player_id, coins_balance, updated_at)
SELECT 'sp-' || value, 0, @NOW@ FROM generate_series(CAST(1 AS BIGINT), @PLAYERS@) AS value;
INSERT INTO subscriptions (player_id, status, tier, updated_at)
SELECT 'sp-' || value, 'none', 'free', @NOW@ FROM generate_series(CAST(1 AS BIGINT), @PLAYERS@) AS value;

INSERT INTO player_skills (player_id, track_id, skill, answers, updated_at)
SELECT 'sp-' || value, 'scale-track', ((value * 53) % 61 - 30) / 10.0, value % 500, @NOW@
FROM generate_series(CAST(1 AS BIGINT), @PLAYERS@) AS value;

-- this week's region board: the first @WEEKLY@ players
INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at)
SELECT '@WEEK_START@', 'region:110000', 'sp-' || value, 1 + (value * 7919) % 5000,
       @NOW@ - (value % 86400) * 1000
FROM generate_series(CAST(1 AS BIGINT), @WEEKLY@) AS value;
-- … and everyone's board, where their league cohorts read them: cohorts of 30 of
-- bronze, in the players' order
INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at)
SELECT '@WEEK_START@', 'topic:all', 'sp-' || value, 1 + (value * 7919) % 5000,
       @NOW@ - (value % 86400) * 1000
FROM generate_series(CAST(1 AS BIGINT), @WEEKLY@) AS value;
INSERT INTO league_members (week_start, player_id, cohort_id, tier, joined_at)
SELECT '@WEEK_START@', 'sp-' || value, '@WEEK_START@:bronze:' || (1 + (value - 1) / 30), 0, @NOW@
FROM generate_series(CAST(1 AS BIGINT), @WEEKLY@) AS value;
INSERT INTO league_open (week_start, tier, cohort_seq, size)
VALUES ('@WEEK_START@', 0, (@WEEKLY@ + 29) / 30, @WEEKLY@ - 30 * ((@WEEKLY@ + 29) / 30 - 1));

-- Last week, settled: the region board's frozen standings
INSERT INTO board_results (week_start, board, player_id, shown, rank, xp, last_earned_at)
SELECT '@PREV_WEEK_START@', 'region:110000', 'sp-' || value, TRUE, value, @WEEKLY@ + 1 - value,
       @NOW@ - 604800000
FROM generate_series(CAST(1 AS BIGINT), @WEEKLY@) AS value;
INSERT INTO board_settlements (week_start, board, players, settled_at)
VALUES ('@PREV_WEEK_START@', 'region:110000', @WEEKLY@, @NOW@);
INSERT INTO week_settlements (week_start, finished_at) VALUES ('@PREV_WEEK_START@', @NOW@);

-- The fair-play queue: one player in a thousand flagged, one in ten thousand held
INSERT INTO fairplay_players (player_id, state, week_start, week_score, too_fast, impossible,
                              fast_perfect, last_signal_at, queue_key)
SELECT 'sp-' || value, CASE WHEN value % 10000 = 0 THEN 'held' ELSE 'flagged' END,
       '@WEEK_START@', value % 40, value % 40, 0, 0, @NOW@,
       CASE WHEN value % 10000 = 0 THEN 2000000000000 ELSE 1000000000000 END + value % 40
FROM generate_series(CAST(1 AS BIGINT), @PLAYERS@) AS value WHERE value % 1000 = 0;

-- Finished challenges, five answers each. Heavy players: @HEAVY_SESSIONS@ sessions each;
-- the others: the sessions left, round robin.
INSERT INTO challenge_sessions (id, player_id, track_id, node_id, status, attempt_consumed,
                                answered_count, correct_count, created_at, finished_at)
SELECT 'ss-' || value,
       CASE WHEN value <= @HEAVY@ * @HEAVY_SESSIONS@
            THEN 'sp-' || (1 + (value - 1) / @HEAVY_SESSIONS@)
            ELSE 'sp-' || (@HEAVY@ + 1 + (value - 1) % (@PLAYERS@ - @HEAVY@)) END,
       'scale-track', 'scale-node', 'finished', TRUE, 5, 3,
       @NOW@ - 86400000 - value, @NOW@ - 86400000 - value
FROM generate_series(CAST(1 AS BIGINT), @SESSIONS@) AS value;
INSERT INTO challenge_answers (id, session_id, player_id, question_id, selected_option_id,
                               is_correct, xp_delta, hearts_delta, time_ms, created_at)
SELECT 'sa-' || s.id || '-' || p.value, s.id, s.player_id,
       'sq-' || (1 + (CAST(SUBSTR(s.id, 4) AS BIGINT) * 5 + p.value) % @QUESTIONS@),
       'o' || p.value, p.value % 3 <> 0, CASE WHEN p.value % 3 <> 0 THEN 10 ELSE 0 END,
       CASE WHEN p.value % 3 <> 0 THEN 0 ELSE -1 END, 3000, s.created_at
FROM challenge_sessions s CROSS JOIN (SELECT value FROM generate_series(CAST(1 AS BIGINT), 5) AS value) AS p
WHERE s.id LIKE 'ss-%';

-- Spaced review's memory: a row per player and question answered (what the answers'
-- writes leave), half of them in the players' reviews now (due, or answered wrong). In
-- primary-key order, the review index built after (20M rows on PostgreSQL: inserted
-- into both B-trees at random they took most of the seeding's time).
DROP INDEX review_memory_review;
INSERT INTO review_memory (player_id, question_id, track_id, stability, difficulty, reviews,
                           lapses, last_correct, last_answered_at, due_at, review_at)
SELECT player_id, question_id, 'scale-track', 1.0 + COUNT(*) % 30, 5.0, COUNT(*), 0, TRUE,
       MAX(created_at), MAX(created_at) + 86400000 * (1 + COUNT(*) % 30),
       CASE WHEN (COUNT(*) + CAST(SUBSTR(question_id, 4) AS BIGINT)) % 2 = 0 THEN MAX(created_at)
            ELSE MAX(created_at) + 2592000000 END
FROM challenge_answers GROUP BY question_id, player_id ORDER BY question_id, player_id;
CREATE INDEX review_memory_review ON review_memory (player_id, review_at);

INSERT INTO audit_log (id, actor_id, actor_username, action, target_type, target_id,
                       before_state, after_state, created_at)
SELECT 'al-' || value, 'scale-admin', 'scale', 'question.update', 'question',
       'sq-' || (1 + value % @QUESTIONS@), NULL, '{"status":"published"}', @NOW@ - value * 1000
FROM generate_series(CAST(1 AS BIGINT), @LOGS@) AS value;
INSERT INTO feedback (id, player_id, content, contact, page_context, created_at)
SELECT 'fb-' || value, 'sp-' || (1 + value % @PLAYERS@), 'Feedback number ' || value, NULL,
       NULL, @NOW@ - value * 1000
FROM generate_series(CAST(1 AS BIGINT), @LOGS@) AS value;

-- The statistics job has counted everything seeded (its steady state): its cursors
-- stand after the last answer and the last first card view. So has the calibration job:
-- its fold's cursor stands after the last answer, and the track was fitted just now (a
-- job folding 20M answers meanwhile would time itself, not the requests).
INSERT INTO stats_cursors (name, created_at, id)
SELECT 'answers', created_at, id FROM challenge_answers ORDER BY created_at DESC, id DESC LIMIT 1;
INSERT INTO stats_cursors (name, created_at, id)
SELECT 'first_answers', created_at, id FROM challenge_answers
ORDER BY created_at DESC, id DESC LIMIT 1;
INSERT INTO calibrations (category_id, model, guessing, log_likelihood, examinees, iterations,
                          converged, computed_at)
VALUES ('scale-track', '2pl', 'options', -1.0, @PLAYERS@, 20, TRUE, @NOW@);
INSERT INTO stats_cursors (name, created_at, id)
SELECT 'card_views', created_at, id FROM reward_ledger WHERE source = 'review_explanation'
ORDER BY created_at DESC, id DESC LIMIT 1;
