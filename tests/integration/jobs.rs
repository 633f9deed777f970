//! Background jobs: the dashboard's statistics computed once per interval for every
//! process, a job's lease held by one process at a time (and taken over when its holder
//! stops renewing it), and the retention purge removing, in batches, only what is kept
//! no longer. A process whose clock runs ahead (started with `QUIZ_CLOCK_START` in the
//! future) on the same database holds no job longer than the takeover time, purges
//! nothing still live and settles no week still being played; a week under way is read
//! live wherever it was settled.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use shared::clock::beijing;
use shared::context::AppContext;
use shared::db;
use shared::metrics::Metrics;
use shared::services::jobs::{self, Job};
use shared::services::settlement::{self, Settled};
use tests::{Engine, TestApp, both_engines, both_engines_raw, both_engines_with};

use crate::fair_play::{Player, demo};

both_engines!(
    stats_are_computed_once_per_interval,
    a_job_runs_in_one_process_at_a_time
);
both_engines_with!(small_batches; retention_purges_old_rows_in_batches_and_keeps_the_record);
both_engines_raw!(
    a_process_ahead_holds_no_job_and_purges_or_settles_nothing_live,
    a_week_under_way_is_read_live_though_a_process_ahead_settled_it,
);

const MINUTE_MS: i64 = 60_000;

async fn small_batches(engine: Engine) -> TestApp {
    TestApp::spawn_with(engine, &[("PURGE_BATCH", "2".to_string())]).await
}

/// Moves every lease's expiry `ms` earlier: that much time passes for the leases, which
/// run by the database's clock (not the test's service clock).
async fn age_leases(app: &TestApp, ms: i64) {
    let ms = ms.to_string();
    app.exec(
        "UPDATE job_leases SET expires_at = expires_at - CAST($1 AS BIGINT)",
        &[&ms],
    )
    .await;
}

/// Another process on `app`'s database whose service clock starts at `start` (as
/// `QUIZ_CLOCK_START` sets it).
async fn process_at(app: &TestApp, start: DateTime<Utc>) -> Arc<AppContext> {
    let settings = tests::settings_with(&[
        ("DATABASE_URL", app.database.url.clone()),
        ("QUIZ_CLOCK_START", start.to_rfc3339()),
    ]);
    let clock = AppContext::clock_for(&settings);
    AppContext::start(settings, clock).await.unwrap()
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
    app.exec(
        "UPDATE admin_stats_snapshot SET computed_at = computed_at - 121000",
        &[],
    )
    .await;
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
    age_leases(&app, MINUTE_MS).await;
    assert!(jobs::run(&app.ctx, holder, Job::Stats, &m).await);
    assert!(!jobs::run(&app.ctx, other, Job::Stats, &m).await);
    // a service clock moved on does not end a lease: the database's clock does
    app.clock.advance(Duration::days(30));
    assert!(!jobs::run(&app.ctx, other, Job::Stats, &m).await);
    // the holder stops (no renewal for three intervals and a half minute): taken over
    assert_eq!(Job::Stats.lease_ms(&app.ctx), 3 * MINUTE_MS + 30_000);
    age_leases(&app, 3 * MINUTE_MS + 30_001).await;
    assert!(jobs::run(&app.ctx, other, Job::Stats, &m).await);
    assert!(!jobs::run(&app.ctx, holder, Job::Stats, &m).await);
    // other jobs have leases of their own
    assert!(jobs::run(&app.ctx, holder, Job::Retention, &m).await);
    let text = metrics.render();
    for line in [
        "background_job_runs_total{job=\"admin_stats\",outcome=\"ran\"} 3",
        "background_job_runs_total{job=\"admin_stats\",outcome=\"skipped\"} 4",
        "background_job_runs_total{job=\"retention\",outcome=\"ran\"} 1",
    ] {
        assert!(text.contains(line), "{line} missing from\n{text}");
    }
    let lease = shared::db::jobs::lease(&app.ctx.db, Job::Stats.name())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease.holder, other);
    let database_now = db::jobs::database_now_ms(&app.ctx.db).await.unwrap();
    assert!(lease.last_run_at.is_some_and(|at| at <= database_now));
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

/// Waits until every job has run once (each lease has a last run).
async fn every_job_ran(app: &TestApp) {
    for _ in 0..300 {
        let ran = app
            .scalar(
                "SELECT count(*) FROM job_leases WHERE last_run_at IS NOT NULL",
                &[],
            )
            .await;
        if ran == Job::ALL.len() as i64 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the jobs did not all run within 30 s");
}

/// The weekly XP of `player` on `board` in `week`, as stored.
async fn weekly_xp(app: &TestApp, week: &str, board: &str, player: &str) -> i64 {
    app.scalar(
        "SELECT xp FROM weekly_xp WHERE week_start = $1 AND board = $2 AND player_id = $3",
        &[week, board, player],
    )
    .await
}

/// The XP a board page shows for `player`.
fn xp_on_page(page: &Value, player: &str) -> Option<i64> {
    page.as_array()?
        .iter()
        .find(|e| e["userId"] == player)
        .and_then(|e| e["xp"].as_i64())
}

async fn a_process_ahead_holds_no_job_and_purges_or_settles_nothing_live(engine: Engine) {
    let app = demo(engine, &[]).await;
    // this process keeps real time, as the database does
    app.clock.set(Utc::now());
    let week = beijing::day_key(beijing::week_start(app.clock.now()));
    let first = Player::new(&app, "ahead-0", Some("110000")).await;
    let second = Player::new(&app, "ahead-1", Some("110000")).await;
    first.play_fairly(Duration::seconds(2)).await;
    second.play_fairly(Duration::seconds(3)).await;
    let (_, _, refresh) = app.guest("ahead-keeper").await;

    // a process started 31 days ahead runs every job once (all four leases are its),
    // then dies without handing them back
    let ahead = process_at(&app, Utc::now() + Duration::days(31)).await;
    let ahead_metrics = Metrics::new(ahead.db.clone());
    let ahead_jobs = jobs::spawn(Arc::clone(&ahead), ahead_metrics.jobs()).unwrap();
    every_job_ran(&app).await;
    drop(ahead_jobs);
    // it left the answers of the last two minutes (by the database's clock) to settle
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM stats_cursors WHERE name = 'answers'",
            &[]
        )
        .await,
        0
    );

    // its leases end within the takeover time of the database's clock …
    let database_now = db::jobs::database_now_ms(&app.ctx.db).await.unwrap();
    let mut takeover = 0;
    for job in Job::ALL {
        let lease = db::jobs::lease(&app.ctx.db, job.name())
            .await
            .unwrap()
            .unwrap();
        assert!(
            lease.expires_at <= database_now + job.lease_ms(&ahead),
            "{} held until {} (now {database_now})",
            job.name(),
            lease.expires_at
        );
        takeover = takeover.max(job.lease_ms(&ahead));
    }
    // … after which this process runs every job
    app.guest("ahead-late").await;
    age_leases(&app, takeover).await;
    let metrics = Metrics::new(app.ctx.db.clone());
    for job in Job::ALL {
        assert!(
            jobs::run(&app.ctx, "on-time", job, &metrics.jobs()).await,
            "{} not taken over",
            job.name()
        );
    }
    // the dashboard's statistics follow again: everyone, the late guest too
    let (admin, _, _) = app.admin_login().await;
    let stats = app.admin_get("/v1/admin/stats", Some(&admin)).await;
    assert_eq!(stats.ok()["totalUsers"], 4);

    // its purge aged rows by the database's clock: a refresh token 31 days from its
    // expiry by that process's clock, but valid, still refreshes
    app.post("/v1/auth/refresh", json!({ "refreshToken": refresh }), None)
        .await
        .ok();

    // it settled nothing of this week, not even asked to outright
    settlement::settle_week(&ahead, &week, &mut Settled::default())
        .await
        .unwrap();
    for sql in [
        "SELECT count(*) FROM board_settlements",
        "SELECT count(*) FROM board_results",
        "SELECT count(*) FROM week_settlements",
    ] {
        assert_eq!(app.scalar(sql, &[]).await, 0, "{sql}");
    }
    // this week's boards stay live here
    first.play_fairly(Duration::seconds(2)).await;
    let live = weekly_xp(&app, &week, "topic:all", &first.id).await;
    for scope in ["topic", "region", "league"] {
        let page = second.get(&format!("/v1/leaderboards?scope={scope}")).await;
        assert_eq!(xp_on_page(page.ok(), &first.id), Some(live), "{scope}");
    }
}

/// Monday 00:00:30 in Beijing after [`tests::TEST_START`]'s week (2026-11-16).
const NEXT_MONDAY: &str = "2026-11-22T16:00:30Z";

async fn a_week_under_way_is_read_live_though_a_process_ahead_settled_it(engine: Engine) {
    let app = demo(engine, &[]).await;
    let week = beijing::day_key(beijing::week_start(app.clock.now()));
    let first = Player::new(&app, "settled-ahead-0", Some("110000")).await;
    let second = Player::new(&app, "settled-ahead-1", Some("110000")).await;
    first.play_fairly(Duration::seconds(2)).await;
    second.play_fairly(Duration::seconds(3)).await;
    // a process whose clock reads next Monday settles the week (over by the database's
    // clock too): its boards and the league cohort
    let ahead = process_at(&app, NEXT_MONDAY.parse().unwrap()).await;
    let done = settlement::settle(&ahead).await.unwrap();
    assert_eq!((done.boards, done.cohorts, done.weeks), (2, 1, 1));
    let frozen = weekly_xp(&app, &week, "topic:all", &first.id).await;

    // here the week goes on, and its boards are read live
    first.play_fairly(Duration::seconds(2)).await;
    let live = weekly_xp(&app, &week, "topic:all", &first.id).await;
    assert!(live > frozen);
    for scope in ["topic", "region", "league"] {
        let page = second.get(&format!("/v1/leaderboards?scope={scope}")).await;
        assert_eq!(xp_on_page(page.ok(), &first.id), Some(live), "{scope}");
        let me = first
            .get(&format!("/v1/leaderboards/me?scope={scope}"))
            .await;
        assert_eq!(me.ok()["xp"], live, "{scope}");
        assert_eq!(me.body["meta"]["weekStart"], week.as_str());
    }
    // and it has no final standings here yet
    let (admin, _, _) = app.admin_login().await;
    app.admin_get(
        &format!("/v1/admin/leaderboards/history?board=topic:all&weekStart={week}"),
        Some(&admin),
    )
    .await
    .assert_error(404, "NOT_FOUND");

    // once it has ended here too, its final standings are what the settlement froze
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    let second = Player::new(&app, "settled-ahead-1", None).await;
    let page = second
        .get("/v1/leaderboards?scope=topic&week=previous")
        .await;
    assert_eq!(xp_on_page(page.ok(), &first.id), Some(frozen));
}
