//! Background jobs: the dashboard's statistics computed once per interval for every
//! process, a job's lease held by one process at a time (and taken over when its holder
//! stops renewing it), and the retention purge removing, in batches, only what is kept
//! no longer.

use serde_json::Value;
use shared::metrics::Metrics;
use shared::services::jobs::{self, Job};
use tests::{Engine, TestApp, both_engines, both_engines_with};

both_engines!(
    stats_are_computed_once_per_interval,
    a_job_runs_in_one_process_at_a_time
);
both_engines_with!(small_batches; retention_purges_old_rows_in_batches_and_keeps_the_record);

const MINUTE_MS: i64 = 60_000;

async fn small_batches(engine: Engine) -> TestApp {
    TestApp::spawn_with(engine, &[("PURGE_BATCH", "2".to_string())]).await
}

async fn total_users(app: &TestApp, token: &str) -> Value {
    app.admin_get("/v1/admin/stats", Some(token)).await.ok()["totalUsers"].clone()
}

async fn stats_are_computed_once_per_interval(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    app.guest("jobs-d1").await;
    // nothing computed yet: the first request computes and stores them
    assert_eq!(total_users(&app, &token).await, 1);
    app.guest("jobs-d2").await;
    // within the interval every request reads what was stored
    assert_eq!(total_users(&app, &token).await, 1);
    let metrics = Metrics::new(app.ctx.db.clone());
    assert!(jobs::run(&app.ctx, "process-a", Job::Stats, &metrics.jobs()).await);
    assert_eq!(total_users(&app, &token).await, 2);
    // no process refreshed them for two intervals (no job runs): computed on request
    app.guest("jobs-d3").await;
    app.clock.advance(chrono::Duration::seconds(121));
    assert_eq!(total_users(&app, &token).await, 3);
}

async fn a_job_runs_in_one_process_at_a_time(app: TestApp) {
    let metrics = Metrics::new(app.ctx.db.clone());
    let m = metrics.jobs();
    let (a, b) = tokio::join!(
        jobs::run(&app.ctx, "process-a", Job::Stats, &m),
        jobs::run(&app.ctx, "process-b", Job::Stats, &m),
    );
    assert!(
        a != b,
        "exactly one of two racing processes runs the job ({a}, {b})"
    );
    let (holder, other) = if a {
        ("process-a", "process-b")
    } else {
        ("process-b", "process-a")
    };
    // the holder renews its lease on every run; the other keeps out
    app.clock.advance(chrono::Duration::seconds(60));
    assert!(jobs::run(&app.ctx, holder, Job::Stats, &m).await);
    assert!(!jobs::run(&app.ctx, other, Job::Stats, &m).await);
    // the holder stops (no renewal for three intervals and a half minute): taken over
    app.clock
        .advance(chrono::Duration::milliseconds(3 * MINUTE_MS + 30_001));
    assert!(jobs::run(&app.ctx, other, Job::Stats, &m).await);
    assert!(!jobs::run(&app.ctx, holder, Job::Stats, &m).await);
    // other jobs have leases of their own
    assert!(jobs::run(&app.ctx, holder, Job::Retention, &m).await);
    let text = metrics.render();
    for line in [
        "background_job_runs_total{job=\"admin_stats\",outcome=\"ran\"} 3",
        "background_job_runs_total{job=\"admin_stats\",outcome=\"skipped\"} 3",
        "background_job_runs_total{job=\"retention\",outcome=\"ran\"} 1",
    ] {
        assert!(text.contains(line), "{line} missing from\n{text}");
    }
    let lease = shared::db::jobs::lease(&app.ctx.db, Job::Stats.name())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease.holder, other);
    assert!(lease.last_run_at.is_some_and(|at| at <= app.clock.now_ms()));
}

async fn retention_purges_old_rows_in_batches_and_keeps_the_record(app: TestApp) {
    let now = app.clock.now_ms();
    let (player_id, _, _) = app.guest("jobs-keeper").await;
    let old = (now - 31 * 86_400_000).to_string();
    let expired = (now - 1).to_string();
    let fresh = (now + 60_000).to_string();
    for i in 0..3 {
        let token = format!("old-token-{i}");
        app.exec(
            "INSERT INTO refresh_tokens (token_hash, audience, subject_id, expires_at, created_at)
             VALUES ($1, 'player', $2, CAST($3 AS BIGINT), 0)",
            &[&token, &player_id, &expired],
        )
        .await;
    }
    for (id, expires) in [("old-console", &expired), ("live-console", &fresh)] {
        app.exec(
            "INSERT INTO console_sessions (id, data, expires_at) VALUES ($1, '{}', CAST($2 AS BIGINT))",
            &[id, expires],
        )
        .await;
    }
    for (id, created) in [("old-send", &old), ("new-send", &now.to_string())] {
        app.exec(
            "INSERT INTO sms_sends (id, phone, client_ip, day, created_at)
             VALUES ($1, '+8613800000000', '127.0.0.1', '2026-11-18', CAST($2 AS BIGINT))",
            &[id, created],
        )
        .await;
    }
    for day in ["2026-11-01", "2026-11-18"] {
        app.exec(
            "INSERT INTO sms_daily_counters (counter_key, day, count) VALUES ('phone:+8613800000000', $1, 1)",
            &[day],
        )
        .await;
    }
    for day in ["2026-11-01", "2026-11-18"] {
        app.exec(
            "INSERT INTO daily_players (day, player_id) VALUES ($1, 'someone')",
            &[day],
        )
        .await;
    }
    for (key, created) in [("old-key", &old), ("new-key", &now.to_string())] {
        app.exec(
            "INSERT INTO idempotency_records (scope, key, owner_id, response, created_at)
             VALUES ('link', $1, $2, '{}', CAST($3 AS BIGINT))",
            &[key, &player_id, created],
        )
        .await;
    }
    app.exec(
        "INSERT INTO audit_log (id, actor_id, actor_username, action, target_type, created_at)
         VALUES ('ancient-audit', 'a', 'a', 'question.update', 'question', 0)",
        &[],
    )
    .await;
    let live_tokens = app
        .scalar(
            "SELECT count(*) FROM refresh_tokens WHERE token_hash NOT LIKE 'old-token-%'",
            &[],
        )
        .await;
    assert!(live_tokens >= 1);

    let metrics = Metrics::new(app.ctx.db.clone());
    let removed = jobs::purge(&app.ctx, &metrics.jobs()).await.unwrap();
    assert_eq!(removed, 3 + 1 + 1 + 1 + 1 + 1);

    for (sql, left) in [
        (
            "SELECT count(*) FROM refresh_tokens WHERE token_hash LIKE 'old-token-%'",
            0,
        ),
        (
            "SELECT count(*) FROM console_sessions WHERE id = 'live-console'",
            1,
        ),
        (
            "SELECT count(*) FROM console_sessions WHERE id = 'old-console'",
            0,
        ),
        ("SELECT count(*) FROM sms_sends WHERE id = 'new-send'", 1),
        ("SELECT count(*) FROM sms_sends WHERE id = 'old-send'", 0),
        (
            "SELECT count(*) FROM sms_daily_counters WHERE day = '2026-11-18'",
            1,
        ),
        (
            "SELECT count(*) FROM sms_daily_counters WHERE day = '2026-11-01'",
            0,
        ),
        (
            "SELECT count(*) FROM daily_players WHERE day = '2026-11-18'",
            1,
        ),
        (
            "SELECT count(*) FROM daily_players WHERE day = '2026-11-01'",
            0,
        ),
        (
            "SELECT count(*) FROM idempotency_records WHERE key = 'new-key'",
            1,
        ),
        (
            "SELECT count(*) FROM idempotency_records WHERE key = 'old-key'",
            0,
        ),
        (
            "SELECT count(*) FROM audit_log WHERE id = 'ancient-audit'",
            1,
        ),
    ] {
        assert_eq!(app.scalar(sql, &[]).await, left, "{sql}");
    }
    assert_eq!(
        app.scalar("SELECT count(*) FROM refresh_tokens", &[]).await,
        live_tokens
    );
    let text = metrics.render();
    assert!(
        text.contains("retention_purged_rows_total{table=\"refresh_tokens\"} 3"),
        "{text}"
    );
    // a second run finds nothing more
    assert_eq!(jobs::purge(&app.ctx, &metrics.jobs()).await.unwrap(), 0);
}
