//! Read replicas, on a streaming replica the test makes (`pg_basebackup -R` of a
//! primary it starts): board pages and own ranks reach the replica (its
//! `pg_stat_statements` counts them) while a player's own progress stays on the primary;
//! a replica that stops or falls behind `REPLICA_MAX_LAG_MS` is skipped for the primary
//! without a failed request, and read again once it has caught up.

use std::time::{Duration, Instant};

use sqlx::Connection as _;
use tests::pg_cluster::{Cluster, Stop};
use tests::{Engine, TestApp, TestDatabase};

use crate::fair_play::Player;

/// Statements run on `cluster` whose text contains `needle` (its
/// `pg_stat_statements`).
async fn calls(cluster: &Cluster, needle: &str) -> i64 {
    let mut conn = sqlx::PgConnection::connect(&cluster.url()).await.unwrap();
    sqlx::query_scalar(
        "SELECT CAST(COALESCE(SUM(calls), 0) AS BIGINT) FROM pg_stat_statements
         WHERE query LIKE '%' || $1 || '%' AND query NOT LIKE '%pg_stat_statements%'",
    )
    .bind(needle)
    .fetch_one(&mut conn)
    .await
    .unwrap()
}

/// The board page statement (its weekly rows, ordered for a page).
const PAGE: &str = "FROM weekly_xp x";
/// The progress row a player's summary reads.
const PROGRESS: &str = "FROM player_progress";

/// `n` board pages, each of another size so that the page cache (1 s) never answers:
/// every one is a read; none may fail.
async fn read_boards(player: &Player<'_>, n: usize, first_limit: usize) {
    for i in 0..n {
        let limit = first_limit + i % 40 + 1;
        let r = player
            .get(&format!("/v1/leaderboards?scope=topic&limit={limit}"))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let me = player.get("/v1/leaderboards/me?scope=topic").await;
        assert_eq!(me.status, 200, "{}", me.body);
    }
}

/// Waits until board reads reach `replica` (the watcher has found it fresh).
async fn until_read_from(replica: &Cluster, player: &Player<'_>) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let before = calls(replica, PAGE).await;
    while calls(replica, PAGE).await == before {
        assert!(
            Instant::now() < deadline,
            "no board read reached the replica"
        );
        read_boards(player, 2, 0).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lag_tolerant_reads_go_to_a_fresh_replica_and_never_fail_for_it() {
    let primary = Cluster::start_new_primary();
    {
        let mut conn = sqlx::PgConnection::connect(&primary.url()).await.unwrap();
        sqlx::query("CREATE EXTENSION pg_stat_statements")
            .execute(&mut conn)
            .await
            .unwrap();
    }
    let replica = Cluster::replica_of(&primary);
    let app = TestApp::spawn_on(
        TestDatabase::existing(Engine::Postgres, primary.url()),
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("JOBS_ENABLED", "false".to_string()),
            ("DATABASE_REPLICA_URL", replica.url()),
            ("REPLICA_MAX_LAG_MS", "1000".to_string()),
        ],
    )
    .await;
    let players = [
        Player::new(&app, "replica-reader-1", None).await,
        Player::new(&app, "replica-reader-2", None).await,
    ];
    for p in &players {
        p.play_fairly(chrono::Duration::seconds(5)).await;
    }

    // reads that tolerate lag reach the replica; a player's own progress does not
    until_read_from(&replica, &players[0]).await;
    let (pages, progress) = (calls(&replica, PAGE).await, calls(&replica, PROGRESS).await);
    read_boards(&players[0], 20, 0).await;
    let mut own_xp = Vec::new();
    for p in &players {
        let summary = p.get("/v1/progress/summary").await;
        own_xp.push(summary.ok()["xp"].as_i64().unwrap());
    }
    assert!(own_xp[0] > 0, "{own_xp:?}");
    assert!(
        calls(&replica, PAGE).await >= pages + 15,
        "board pages stayed on the primary"
    );
    assert_eq!(
        calls(&replica, PROGRESS).await,
        progress,
        "progress was read from the replica"
    );
    // and what the replica serves is what the primary holds
    let board = players[1]
        .get("/v1/leaderboards?scope=topic&limit=50")
        .await;
    let xp: Vec<i64> = board
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["xp"].as_i64().unwrap())
        .collect();
    own_xp.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(xp, own_xp, "{}", board.body);

    // a replica that stops costs no request
    let r = replica;
    let stopper = tokio::task::spawn_blocking(move || {
        r.stop(Stop::Immediate);
        r
    });
    read_boards(&players[0], 30, 0).await;
    let replica = stopper.await.unwrap();
    read_boards(&players[0], 30, 0).await;

    // back, it is read again once fresh
    replica.start();
    until_read_from(&replica, &players[0]).await;

    // a replica that falls behind is skipped until it catches up
    {
        let mut conn = sqlx::PgConnection::connect(&replica.url()).await.unwrap();
        sqlx::query("SELECT pg_wal_replay_pause()")
            .execute(&mut conn)
            .await
            .unwrap();
    }
    // the primary moves on (answers), the replica stands still for longer than allowed
    players[1].play_fairly(chrono::Duration::seconds(5)).await;
    tokio::time::sleep(Duration::from_millis(1800)).await;
    let paused = calls(&replica, PAGE).await;
    read_boards(&players[0], 20, 0).await;
    assert_eq!(
        calls(&replica, PAGE).await,
        paused,
        "a lagging replica was read"
    );
    // the primary's board already has the new answers
    let now = players[1].get("/v1/progress/summary").await.ok()["xp"].clone();
    let board = players[0]
        .get("/v1/leaderboards?scope=topic&limit=49")
        .await;
    assert_eq!(board.ok()[0]["xp"], now, "{}", board.body);
    {
        let mut conn = sqlx::PgConnection::connect(&replica.url()).await.unwrap();
        sqlx::query("SELECT pg_wal_replay_resume()")
            .execute(&mut conn)
            .await
            .unwrap();
    }
    until_read_from(&replica, &players[0]).await;
    drop(app);
}
