//! Picking a challenge's questions (domain::pick): in a pool no larger than the window
//! the rule is exactly the old one (every question the player has not answered
//! correctly comes before any they have); in a larger pool the pick reads a window of
//! consecutive keys and still gives the unanswered ones of it first.

use std::collections::HashSet;

use serde_json::Value;
use tests::{TestApp, both_engines_demo};

both_engines_demo!(
    a_small_pool_gives_the_unanswered_questions_first,
    a_large_pool_gives_the_unanswered_questions_of_its_window,
    the_pick_reads_its_candidates_from_the_index_alone,
    a_large_pool_serves_the_questions_near_the_players_target,
    the_near_read_reads_its_candidates_from_the_band_index_alone,
    the_band_the_database_computes_is_the_domains
);

async fn ids(app: &TestApp, sql: &'static str, arg: &str) -> Vec<String> {
    shared::read!(&app.ctx.db, |ex| {
        sqlx::query_scalar::<_, String>(sql)
            .bind(arg.to_string())
            .fetch_all(ex)
            .await
            .unwrap()
    })
}

/// A category `id` (named after it) with one skill node, `{id}-node`.
async fn category_with_one_node(app: &TestApp, id: &str) {
    app.exec(
        "INSERT INTO categories (id, name, slug, created_at, updated_at)
         VALUES ($1, $1, $1, 0, 0)",
        &[id],
    )
    .await;
    app.exec(
        "INSERT INTO skill_nodes (id, category_id, title, created_at, updated_at)
         VALUES ($2, $1, 'All', 0, 0)",
        &[id, &format!("{id}-node")],
    )
    .await;
}

/// Records right answers of `player` to `questions` (in a finished challenge).
async fn answered_correctly(app: &TestApp, player: &str, track: &str, questions: &[String]) {
    let session = format!(
        "done-{player}-{}",
        questions.first().map_or("none", String::as_str)
    );
    app.exec(
        "INSERT INTO challenge_sessions (id, player_id, track_id, node_id, status, created_at)
         VALUES ($1, $2, $3, 'any-node', 'finished', 0)",
        &[&session, player, track],
    )
    .await;
    for q in questions {
        app.exec(
            "INSERT INTO challenge_answers (id, session_id, player_id, question_id,
                                            selected_option_id, is_correct, xp_delta,
                                            hearts_delta, created_at)
             VALUES ($1, $2, $3, $4, 'o', TRUE, 10, 0, 0)",
            &[&format!("{session}-{q}"), &session, player, q],
        )
        .await;
    }
}

/// The questions of a new challenge on `track` (the player's unfinished one removed
/// first, so each call picks anew).
async fn pick(app: &TestApp, player: &str, token: &str, track: &str) -> Vec<String> {
    app.exec(
        "DELETE FROM challenge_session_questions WHERE session_id IN
         (SELECT id FROM challenge_sessions WHERE player_id = $1 AND status = 'pending')",
        &[player],
    )
    .await;
    app.exec(
        "DELETE FROM challenge_sessions WHERE player_id = $1 AND status = 'pending'",
        &[player],
    )
    .await;
    let c: Value = app
        .get(&format!("/v1/challenges/next?trackId={track}"), Some(token))
        .await
        .ok()
        .clone();
    let picked: Vec<String> = c["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["question"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        picked.iter().collect::<HashSet<_>>().len(),
        picked.len(),
        "{picked:?}"
    );
    picked
}

async fn a_small_pool_gives_the_unanswered_questions_first(app: TestApp) {
    let track = app
        .text(
            "SELECT id FROM categories WHERE slug = $1",
            &["world-geography"],
        )
        .await;
    let pool = ids(
        &app,
        "SELECT id FROM questions WHERE category_id = $1 AND status = 'published' ORDER BY id",
        &track,
    )
    .await;
    assert!((10..=64).contains(&pool.len()), "{}", pool.len());
    let (player, token, _) = app.guest("pick-small").await;
    let (answered, fresh) = pool.split_at(pool.len() - 5);
    answered_correctly(&app, &player, &track, answered).await;
    let fresh: HashSet<&String> = fresh.iter().collect();
    for _ in 0..8 {
        let picked = pick(&app, &player, &token, &track).await;
        assert_eq!(picked.iter().collect::<HashSet<_>>(), fresh);
    }
    // with fewer unanswered than a challenge holds, answered ones fill it up
    let mut fresh: Vec<String> = fresh.into_iter().cloned().collect();
    fresh.sort();
    answered_correctly(&app, &player, &track, &fresh[..3]).await;
    let picked: HashSet<String> = pick(&app, &player, &token, &track)
        .await
        .into_iter()
        .collect();
    assert_eq!(picked.len(), 5);
    assert!(fresh[3..].iter().all(|q| picked.contains(q)), "{picked:?}");
}

async fn a_large_pool_gives_the_unanswered_questions_of_its_window(app: TestApp) {
    category_with_one_node(&app, "pick-big").await;
    // 300 questions on evenly spaced keys; the even ones answered: any window of 64
    // consecutive keys holds 32 unanswered
    let mut answered = Vec::new();
    for i in 0..300 {
        let id = format!("big-{i:03}");
        app.exec(
            "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer,
                                    distractors, status, pick_key, created_at, updated_at)
             VALUES ($1, 'pick-big', $1, 'text', 'yes', '[\"no\", \"maybe\"]', 'published',
                     CAST($2 AS BIGINT) * 7000000, 0, 0)",
            &[&id, &i.to_string()],
        )
        .await;
        if i % 2 == 0 {
            answered.push(id);
        }
    }
    app.version_raw_questions().await;
    let (player, token, _) = app.guest("pick-big").await;
    answered_correctly(&app, &player, "pick-big", &answered).await;
    let answered: HashSet<String> = answered.into_iter().collect();
    let mut seen = HashSet::new();
    for _ in 0..20 {
        let picked = pick(&app, &player, &token, "pick-big").await;
        assert_eq!(picked.len(), 5);
        assert!(picked.iter().all(|q| !answered.contains(q)), "{picked:?}");
        seen.extend(picked);
    }
    // random starts reach different parts of the pool
    assert!(seen.len() > 20, "{}", seen.len());
}

/// The plan of `sql` (its binds written in), as lines. On PostgreSQL with every way of
/// reading a table but an index-only scan turned off: a test's tables are small enough
/// to be read whole, and without a VACUUM an index-only scan is costed as visiting the
/// heap, so a plan that needs a question's row has to show a disabled scan of
/// `questions`.
async fn plan_of(app: &TestApp, sql: &str) -> String {
    use sqlx::Row;
    let postgres = app.engine.is_postgres();
    let explain = if postgres {
        format!("EXPLAIN {sql}")
    } else {
        format!("EXPLAIN QUERY PLAN {sql}")
    };
    let mut tx = app.ctx.db.begin().await.unwrap();
    let plan: Vec<String> = shared::in_tx!(&mut tx, |ex| {
        if postgres {
            for off in ["enable_seqscan", "enable_indexscan", "enable_bitmapscan"] {
                sqlx::query(sqlx::AssertSqlSafe(format!("SET LOCAL {off} = off")))
                    .execute(&mut *ex)
                    .await
                    .unwrap();
            }
        }
        sqlx::query(sqlx::AssertSqlSafe(explain.clone()))
            .fetch_all(&mut *ex)
            .await
            .unwrap()
            .iter()
            .map(|row| {
                row.try_get::<String, _>(if postgres { "QUERY PLAN" } else { "detail" })
                    .unwrap()
            })
            .collect()
    });
    drop(tx); // rolls back
    plan.join("\n")
}

/// Issue 54 §6: the candidates' difficulty, options and calibration ride in the pick's
/// index, so the plan reads no question's row: on PostgreSQL both sides of the window are
/// index-only scans of `questions_pick_covering` and nothing else scans `questions`; on
/// SQLite both use it as a covering index. And the copy the pick reads follows the
/// calibration job: a fold or a fit writes it, an edit its options.
async fn the_pick_reads_its_candidates_from_the_index_alone(app: TestApp) {
    let sql = shared::db::gameplay::pick_candidates_sql(64)
        .replace("$1", "'player'")
        .replace("$2", "'category'")
        .replace("$3", "12345")
        .replace("$4", "'track'");
    let postgres = app.engine.is_postgres();
    let plan = plan_of(&app, &sql).await;
    let on_questions: Vec<&str> = plan
        .lines()
        .filter(|l| {
            l.contains(" questions ") || l.contains(" on questions") || l.ends_with(" questions")
        })
        .collect();
    if postgres {
        assert_eq!(
            plan.matches("Index Only Scan using questions_pick_covering on questions")
                .count(),
            2,
            "{plan}"
        );
        assert!(
            on_questions
                .iter()
                .all(|l| l.contains("Index Only Scan using questions_pick_covering")),
            "{plan}"
        );
    } else {
        assert_eq!(
            plan.matches("USING COVERING INDEX questions_pick_covering")
                .count(),
            2,
            "{plan}"
        );
        // both sides read `questions` as q: no other read of it
        assert!(
            plan.lines()
                .filter(|l| l.contains("SEARCH q ") || l.contains("SCAN q "))
                .all(|l| l.contains("COVERING INDEX questions_pick_covering")),
            "{plan}"
        );
        assert!(on_questions.is_empty(), "{plan}");
    }

    // what the index carries follows the job and the editors
    let id = app
        .text(
            "SELECT id FROM questions WHERE status = 'published' ORDER BY id LIMIT 1",
            &[],
        )
        .await;
    let carried = |sql: &'static str| {
        let app = &app;
        let id = id.clone();
        async move { app.text(sql, &[&id]).await }
    };
    let distractors = carried("SELECT distractors FROM questions WHERE id = $1").await;
    assert_eq!(
        carried("SELECT CAST(option_count AS TEXT) FROM questions WHERE id = $1").await,
        shared::domain::skill::option_count(&distractors).to_string()
    );
    let mut tx = app.ctx.db.begin().await.unwrap();
    shared::db::learning::store_difficulties(
        &mut tx,
        &[(
            id.clone(),
            shared::domain::skill::Estimate {
                value: 1.25,
                answers: 40,
            },
        )],
        0,
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(
        carried("SELECT CAST(pick_difficulty AS TEXT) FROM questions WHERE id = $1").await,
        "1.25"
    );
}

/// A category of 300 questions: 10 at the difficulty a new player should meet
/// (three in four right: b = −ln 2), the rest far too hard. A window of 64 random keys
/// holds about two of the ten; the adaptive pick's read by band of difficulty brings
/// them all, so every challenge is made of them (issue 54 §4). Fails when the near read
/// is left out or reads the wrong bands.
async fn a_large_pool_serves_the_questions_near_the_players_target(app: TestApp) {
    category_with_one_node(&app, "pick-near").await;
    let mut near = HashSet::new();
    for i in 0..300 {
        let id = format!("near-{i:03}");
        // the near ones spread over the keys, so no one window holds them
        let difficulty = if i % 30 == 0 { "-0.7" } else { "3.0" };
        if i % 30 == 0 {
            near.insert(id.clone());
        }
        app.exec(
            "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer,
                                    distractors, status, pick_key, pick_difficulty,
                                    option_count, calibrated, created_at, updated_at)
             VALUES ($1, 'pick-near', $1, 'text', 'yes', '[\"no\", \"maybe\", \"never\"]',
                     'published', CAST($2 AS BIGINT) * 7000000, CAST($3 AS DOUBLE PRECISION), 4, TRUE,
                     0, 0)",
            &[&id, &i.to_string(), difficulty],
        )
        .await;
    }
    app.version_raw_questions().await;
    let (player, token, _) = app.guest("pick-near").await;
    for _ in 0..6 {
        let picked = pick(&app, &player, &token, "pick-near").await;
        assert_eq!(picked.len(), 5);
        assert!(picked.iter().all(|q| near.contains(q)), "{picked:?}");
    }
}

/// The near read, like the window, reads no question's row: on PostgreSQL every read of
/// `questions` is an index-only scan of `questions_pick_band`, two per band; on SQLite
/// each uses it as a covering index.
async fn the_near_read_reads_its_candidates_from_the_band_index_alone(app: TestApp) {
    let bands = 2 * shared::domain::pick::NEAR_BANDS + 1;
    let sql = shared::db::gameplay::pick_near_candidates_sql(bands, shared::domain::pick::PER_BAND)
        .replace("$1", "'player'")
        .replace("$2", "'category'")
        .replace("$3", "12345")
        .replace("$4", "'track'")
        .replace("$5", "-3");
    let plan = plan_of(&app, &sql).await;
    let scans = 2 * usize::try_from(bands).unwrap();
    if app.engine.is_postgres() {
        assert_eq!(
            plan.matches("Index Only Scan using questions_pick_band on questions")
                .count(),
            scans,
            "{plan}"
        );
        assert!(
            plan.lines()
                .filter(|l| l.contains(" on questions"))
                .all(|l| l.contains("Index Only Scan using questions_pick_band")),
            "{plan}"
        );
    } else {
        assert_eq!(
            plan.matches("USING COVERING INDEX questions_pick_band")
                .count(),
            scans,
            "{plan}"
        );
        assert!(
            plan.lines()
                .filter(|l| l.contains("SEARCH q ") || l.contains("SCAN q "))
                .all(|l| l.contains("COVERING INDEX questions_pick_band")),
            "{plan}"
        );
    }
}

/// `questions.pick_band`, computed by each engine from the difficulty the pick reads
/// (or the author's 1-5 while it has none), is `domain::pick::band` of what the pick
/// reads, at band edges, past the clamp and for every authored value.
async fn the_band_the_database_computes_is_the_domains(app: TestApp) {
    let id = app
        .text(
            "SELECT id FROM questions WHERE status = 'published' ORDER BY id LIMIT 1",
            &[],
        )
        .await;
    let band = |pick: Option<f64>, authored: i64| {
        shared::domain::pick::band(
            shared::domain::skill::Estimate::stored_or_authored(pick, None, authored).value,
        )
    };
    let stored = || async {
        app.text(
            "SELECT CAST(pick_band AS TEXT) FROM questions WHERE id = $1",
            &[&id],
        )
        .await
    };
    for authored in [-1i64, 0, 1, 2, 3, 4, 5, 6, 9] {
        app.exec(
            "UPDATE questions SET pick_difficulty = NULL, difficulty = CAST($2 AS BIGINT)
             WHERE id = $1",
            &[&id, &authored.to_string()],
        )
        .await;
        assert_eq!(
            stored().await,
            band(None, authored).to_string(),
            "authored {authored}"
        );
    }
    for b in [
        -100.0, -60.0, -2.2, -1.0, -0.75, -0.5, -0.25, -1e-9, 0.0, 1e-9, 0.25, 0.49999, 0.5, 0.7,
        1.0, 2.75, 59.9, 100.0,
    ] {
        app.exec(
            "UPDATE questions SET pick_difficulty = CAST($2 AS DOUBLE PRECISION) WHERE id = $1",
            &[&id, &b.to_string()],
        )
        .await;
        assert_eq!(stored().await, band(Some(b), 3).to_string(), "b = {b}");
    }
}
