//! Requests dropped mid-flight (the client went away): a transaction being opened when
//! its request is dropped must not stay open on a pooled connection, where the next
//! request's writes would join it and never be committed. The same holds for SQLite's
//! transaction scripts (`SqliteDb::write_script`), dropped or stopped by an error.

use std::time::Duration;

use shared::db::Db;
use tests::{Engine, TestDatabase, both_engines_raw};

both_engines_raw!(a_dropped_begin_leaves_no_transaction_open);

async fn a_dropped_begin_leaves_no_transaction_open(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let app_name = format!("cancel-{}", uuid::Uuid::new_v4().simple());
    let url = match engine {
        // Names this test's connections, to find them in pg_stat_activity.
        Engine::Postgres | Engine::Pooled => {
            format!("{}&application_name={app_name}", database.url)
        }
        Engine::Sqlite => database.url.clone(),
    };
    let db = Db::connect(&shared::config::DatabaseUrl::parse(&url).unwrap())
        .await
        .unwrap();
    db.migrate().await.unwrap();
    // Dropped after more and more polls, so that some drops land while the BEGIN is
    // on the wire (after the pool's checks, before the answer).
    for polls in 1..=60 {
        db.begin().await.unwrap().commit().await.unwrap();
        let dropped = !poll_then_drop(db.begin(), polls).await;
        if dropped && engine.is_postgres() {
            // Before anything else begins on that connection (a later BEGIN would
            // join the leaked transaction and its COMMIT end it, hiding the leak).
            assert_eq!(
                leaked_transactions(&app_name).await,
                0,
                "a pooled connection was left inside a transaction"
            );
        }
    }
    // (on SQLite a leaked `BEGIN IMMEDIATE` would hold the one writer forever)
    assert_begins_promptly(&db).await;
    db.close().await;
}

/// The pool still opens and commits a transaction promptly.
async fn assert_begins_promptly(db: &Db) {
    let tx = tokio::time::timeout(Duration::from_secs(5), db.begin())
        .await
        .expect("a new transaction begins")
        .unwrap();
    tx.commit().await.unwrap();
}

/// A script that stops at a failing statement is rolled back whole, and one whose caller
/// is dropped midway still ends its transaction: the one writer stays free.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_write_scripts_never_leave_the_writer_in_a_transaction() {
    let database = TestDatabase::create(Engine::Sqlite).await;
    let db = Db::connect(&shared::config::DatabaseUrl::parse(&database.url).unwrap())
        .await
        .unwrap();
    let Db::Sqlite(sqlite) = &db else {
        unreachable!("an SQLite URL")
    };
    sqlx::query("CREATE TABLE script_rows (id BIGINT PRIMARY KEY)")
        .execute(&sqlite.writer)
        .await
        .unwrap();
    let rows = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM script_rows")
            .fetch_one(&sqlite.reader)
            .await
            .unwrap()
    };

    // the second insert fails on the key: nothing of the script stays
    let failed = sqlite
        .write_script(
            sqlx::query(
                "BEGIN IMMEDIATE;
                 INSERT INTO script_rows VALUES ($1);
                 INSERT INTO script_rows VALUES ($1);
                 COMMIT",
            )
            .bind(1_i64),
        )
        .await
        .unwrap_err();
    assert!(shared::db::is_unique_violation(&failed), "{failed}");
    assert_eq!(rows().await, 0);

    // dropped after more and more polls: each script commits whole or not at all
    for polls in 1..=60 {
        poll_then_drop(
            sqlite.write_script(
                sqlx::query(
                    "BEGIN IMMEDIATE;
                     INSERT INTO script_rows VALUES ($1);
                     INSERT INTO script_rows VALUES ($1 + 1000);
                     COMMIT",
                )
                .bind(polls),
            ),
            polls as usize,
        )
        .await;
    }
    // every script runs to its end in its own task, caller dropped or not
    let counts = || async {
        sqlx::query_as::<_, (i64, i64)>(
            "SELECT count(*) FILTER (WHERE id < 1000), count(*) FILTER (WHERE id > 1000)
             FROM script_rows",
        )
        .fetch_one(&sqlite.reader)
        .await
        .unwrap()
    };
    let mut seen = counts().await;
    for _ in 0..100 {
        if seen.0 == 60 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        seen = counts().await;
    }
    assert_eq!(seen, (60, 60), "every script committed whole");
    // and the writer is free
    assert_begins_promptly(&db).await;
    db.close().await;
}

/// Backends of `app_name` idle inside a transaction, once the dropped BEGIN settled.
async fn leaked_transactions(app_name: &str) -> i64 {
    let mut observer =
        <sqlx::PgConnection as sqlx::Connection>::connect(&tests::postgres_base_url())
            .await
            .unwrap();
    let mut leaked = 0;
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        leaked = sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM pg_stat_activity
             WHERE application_name = $1 AND state LIKE 'idle in transaction%'",
        )
        .bind(app_name)
        .fetch_one(&mut observer)
        .await
        .unwrap();
        if leaked == 0 {
            break;
        }
    }
    leaked
}

/// Polls `fut` up to `polls` times, yielding in between; true when it completed.
async fn poll_then_drop<F: Future>(fut: F, polls: usize) -> bool {
    let mut fut = std::pin::pin!(fut);
    for _ in 0..polls {
        if futures::poll!(fut.as_mut()).is_ready() {
            return true;
        }
        tokio::task::yield_now().await;
    }
    false
}
