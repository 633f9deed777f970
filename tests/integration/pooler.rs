//! Behind PgBouncer in transaction mode: many client connections share a few server
//! ones, statement after statement lands on whichever is free, and every request still
//! succeeds. (The gameplay, race and league suites also run through a pooler: their
//! `::pgbouncer` tests.)

use futures::future::join_all;
use sqlx::Connection as _;
use tests::pgbouncer::SERVER_CONNECTIONS;
use tests::{Engine, TestApp};

use crate::fair_play::{Player, demo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_client_connections_share_a_few_server_ones() {
    let app = demo(Engine::Pooled, &[]).await;
    let devices: Vec<String> = (0..24).map(|i| format!("pooled-{i}")).collect();
    let players = join_all(devices.iter().map(|d| Player::new(&app, d, None))).await;
    // Everyone plays a whole challenge at once: 24 × (1 + 5) requests, most of them
    // transactions, through 16 client connections onto 3 server ones.
    join_all(players.iter().map(|p| p.play_scripted())).await;
    // Each of them answered five right: the same XP for all, none lost or doubled.
    let mut xp = Vec::new();
    for p in &players {
        xp.push(
            p.get("/v1/progress/summary").await.ok()["xp"]
                .as_i64()
                .unwrap(),
        );
    }
    assert!(xp[0] >= 50 && xp.iter().all(|x| *x == xp[0]), "{xp:?}");

    let (_, opened, _) = app.ctx.db.pool_stats()[0];
    assert!(
        opened > SERVER_CONNECTIONS,
        "the service opened {opened} client connections"
    );
    assert!(
        server_connections(&app).await <= i64::from(SERVER_CONNECTIONS),
        "PgBouncer opened more server connections than its pool holds"
    );
}

/// Server connections to the test's database, other than the one asking.
async fn server_connections(app: &TestApp) -> i64 {
    let direct = app.database.direct_url.as_deref().unwrap();
    let mut conn = sqlx::PgConnection::connect(direct).await.unwrap();
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap()
}
