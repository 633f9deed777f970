//! Statements and the connections they run on (issue 53 §0): a statement whose
//! arguments do not fit its placeholders is refused before it reaches either engine
//! (PostgreSQL would fail it on the connection's cached statement, and keep failing
//! there; SQLite would bind NULL or drop the extra one silently); a statement that goes
//! stale on a PostgreSQL connection leaves that connection usable for the next borrower;
//! merges and deletions with every kind of per-player row present answer 200 on both
//! engines, one after another on the same few connections, and a statement refused for
//! its arguments is a 500, never the 503 of an outage.

use chrono::Duration;
use serde_json::json;
use shared::config::{DatabasePool, DatabaseUrl};
use shared::db::Db;
use tests::apple::AppleFake;
use tests::{Engine, Service, TestApp, TestDatabase, both_engines_raw};

use crate::fair_play::{Player, demo};

both_engines_raw!(
    a_statement_whose_arguments_do_not_fit_is_refused,
    merges_and_deletions_with_every_kind_of_row_succeed,
);

async fn open(database: &TestDatabase, connections: u32) -> Db {
    let pool = DatabasePool {
        max_connections: connections,
        ..DatabasePool::default()
    };
    Db::connect_with(&DatabaseUrl::parse(&database.url).unwrap(), &pool)
        .await
        .unwrap()
}

async fn a_statement_whose_arguments_do_not_fit_is_refused(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    // one connection: every statement below runs on it
    let db = open(&database, 1).await;
    let refused = |e: sqlx::Error| {
        assert!(
            matches!(&e, sqlx::Error::InvalidArgument(m) if m.contains("binds")),
            "{e:?}"
        );
        assert!(!shared::error::is_database_unreachable(&e));
    };
    for _ in 0..3 {
        // one argument too many, one too few, one never used, in reads and in writes
        let extra = shared::read!(&db, |ex| sqlx::query_scalar::<_, i64>("SELECT $1")
            .bind(1_i64)
            .bind(2_i64)
            .fetch_one(ex)
            .await);
        refused(extra.unwrap_err());
        let missing = shared::read!(&db, |ex| sqlx::query_scalar::<_, i64>(
            "SELECT CAST($1 AS BIGINT) + CAST($2 AS BIGINT)"
        )
        .bind(1_i64)
        .fetch_one(ex)
        .await);
        refused(missing.unwrap_err());
        let mut tx = db.begin().await.unwrap();
        let unused = shared::in_tx!(&mut tx, |ex| sqlx::query_scalar::<_, i64>(
            "SELECT CAST($2 AS BIGINT)"
        )
        .bind(1_i64)
        .bind(2_i64)
        .fetch_one(ex)
        .await);
        refused(unused.unwrap_err());
        // the same texts, bound right, on the same connection
        let fits = shared::in_tx!(&mut tx, |ex| sqlx::query_scalar::<_, i64>("SELECT $1")
            .bind(7_i64)
            .fetch_one(ex)
            .await);
        assert_eq!(fits.unwrap(), 7);
        tx.commit().await.unwrap();
        let fits = shared::read!(&db, |ex| sqlx::query_scalar::<_, i64>(
            "SELECT CAST($1 AS BIGINT) + CAST($2 AS BIGINT)"
        )
        .bind(1_i64)
        .bind(2_i64)
        .fetch_one(ex)
        .await);
        assert_eq!(fits.unwrap(), 3);
    }
    db.close().await;
}

/// A statement cached on a connection goes stale when its table changes under it
/// (PostgreSQL: "cached plan must not change result type", SQLSTATE 0A000). The one
/// request that meets it fails; the connection it ran on is cleaned (in a transaction)
/// or closed (a read on the pool), so the next statement there is prepared again and
/// runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_statement_leaves_the_connection_usable() {
    let database = TestDatabase::create(Engine::Postgres).await;
    let db = open(&database, 1).await;
    let other = open(&database, 1).await;
    let ddl = |sql: &'static str| {
        let other = other.clone();
        async move {
            let mut tx = other.begin().await.unwrap();
            shared::in_tx!(&mut tx, |ex| sqlx::query(sql)
                .execute(ex)
                .await
                .map(drop)
                .unwrap());
            tx.commit().await.unwrap();
        }
    };
    ddl("CREATE TABLE stale_probe (a BIGINT)").await;
    ddl("INSERT INTO stale_probe VALUES (1)").await;
    let read = || async {
        shared::read!(&db, |ex| sqlx::query(
            "SELECT * FROM stale_probe WHERE a = $1"
        )
        .bind(1_i64)
        .fetch_all(ex)
        .await
        .map(|rows| rows.len()))
    };
    let in_tx = || async {
        let mut tx = db.begin().await.unwrap();
        let rows = shared::in_tx!(&mut tx, |ex| sqlx::query(
            "SELECT * FROM stale_probe WHERE a <> $1"
        )
        .bind(0_i64)
        .fetch_all(ex)
        .await
        .map(|rows| rows.len()));
        if rows.is_ok() {
            tx.commit().await.unwrap();
        }
        rows
    };
    assert_eq!(read().await.unwrap(), 1);
    assert_eq!(in_tx().await.unwrap(), 1);
    let is_stale = |e: &sqlx::Error| {
        assert!(
            matches!(e, sqlx::Error::Database(d) if d.code().as_deref() == Some("0A000")),
            "{e:?}"
        );
        assert!(!shared::error::is_database_unreachable(e));
    };
    // a transaction's statement: the one that meets it fails, the connection's cache is
    // cleared, and the next statements are prepared again
    ddl("ALTER TABLE stale_probe ADD COLUMN b BIGINT").await;
    is_stale(&in_tx().await.unwrap_err());
    assert_eq!(in_tx().await.unwrap(), 1);
    assert_eq!(read().await.unwrap(), 1);
    // a read on the pool: the one that meets it fails, its connection is closed
    ddl("ALTER TABLE stale_probe ADD COLUMN c BIGINT").await;
    is_stale(&read().await.unwrap_err());
    assert_eq!(read().await.unwrap(), 1);
    assert_eq!(in_tx().await.unwrap(), 1);
    db.close().await;
    other.close().await;
}

/// Plays a challenge on `track` at a person's pace (every answer writes review memory,
/// the first ones the track's skill) and views its cards.
async fn play_track(p: &Player<'_>, track: &str) {
    let c = p
        .get(&format!("/v1/challenges/next?trackId={track}"))
        .await
        .ok()
        .clone();
    let mut cards = Vec::new();
    for i in 0..5 {
        p.app.clock.advance(Duration::seconds(4));
        let r = p.answer(&c, i, i % 2 == 0, 3500).await;
        if let Some(card) = r.ok()["knowledgeCard"]["id"].as_str() {
            cards.push(card.to_string());
        }
    }
    for card in cards {
        p.app
            .post(
                &format!("/v1/challenges/knowledge-cards/{card}/view"),
                json!({}),
                Some(&p.token),
            )
            .await
            .ok();
    }
}

async fn delete_me(app: &TestApp, token: &str) -> serde_json::Value {
    app.call(
        Service::Player,
        reqwest::Method::DELETE,
        "/v1/users/me",
        None,
        Some(token),
    )
    .await
    .ok()
    .clone()
}

/// The seed's link rule 2 as a new user meets it on PostgreSQL: an account with XP on
/// one track, a guest with XP, cards, skills, review memory and a region on another,
/// merged; then deletions (of a banned guest that never played, of the account) on the
/// same processes, whose pool holds two connections so that they reuse what the merges
/// prepared.
async fn merges_and_deletions_with_every_kind_of_row_succeed(engine: Engine) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter("error")
        .try_init();
    let apple = AppleFake::start("rows-apple").await;
    let mut vars = apple.vars().to_vec();
    vars.push(("DATABASE_MAX_CONNECTIONS", "2".into()));
    let app = demo(engine, &vars).await;
    let (admin, _, _) = app.admin_login().await;
    for round in 0..3 {
        let identity = apple.token(&format!("rows-account-{round}"));
        let signed_in = app
            .post(
                "/v1/auth/ios_vendor",
                json!({ "identityToken": identity }),
                None,
            )
            .await;
        let account = Player {
            app: &app,
            id: signed_in.ok()["user"]["id"].as_str().unwrap().to_string(),
            token: signed_in.ok()["tokens"]["accessToken"]
                .as_str()
                .unwrap()
                .to_string(),
        };
        play_track(&account, "world-geography").await;
        let guest = Player::new(&app, &format!("rows-guest-{round}"), Some("310000")).await;
        play_track(&guest, "science-basics").await;
        play_track(&guest, "world-geography").await;
        let linked = app
            .post(
                "/v1/auth/link",
                json!({
                    "provider": "ios_vendor",
                    "credential": { "identityToken": identity },
                    "mergePolicy": "server_account_first",
                    "clientMigrationId": format!("rows-{round}"),
                }),
                Some(&guest.token),
            )
            .await;
        assert_eq!(linked.ok()["session"]["user"]["id"], account.id.as_str());
        let summary = &linked.ok()["migrationSummary"];
        assert!(summary["imported"]["xp"].as_i64().unwrap() > 0, "{summary}");
        let token = linked.ok()["session"]["tokens"]["accessToken"]
            .as_str()
            .unwrap()
            .to_string();
        // the account holds both tracks' skills now
        let skills = app.get("/v1/progress/skills", Some(&token)).await;
        assert_eq!(skills.status, 200, "{}", skills.body);
        // a banned guest that never played deletes itself
        let (banned, banned_token, _) = app.guest(&format!("rows-banned-{round}")).await;
        app.call(
            Service::Admin,
            reqwest::Method::PUT,
            &format!("/v1/admin/users/{banned}/ban"),
            None,
            Some(&admin),
        )
        .await
        .ok();
        assert_eq!(delete_me(&app, &banned_token).await["deleted"], true);
        // and so does the merged account, with every kind of row
        assert_eq!(delete_me(&app, &token).await["deleted"], true);
        for sql in [
            "SELECT count(*) FROM player_skills WHERE player_id = $1",
            "SELECT count(*) FROM review_memory WHERE player_id = $1",
            "SELECT count(*) FROM weekly_xp WHERE player_id = $1",
            "SELECT count(*) FROM player_identities WHERE player_id = $1",
        ] {
            assert_eq!(app.scalar(sql, &[&account.id]).await, 0, "{sql}");
        }
    }
}
