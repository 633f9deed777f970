//! Start-up: migrations, shared secrets, the bootstrap admin and demo content, including
//! two processes' worth of start-ups at once on one database.

use std::sync::Arc;

use shared::clock::Clock;
use shared::context::AppContext;
use shared::db::Db;
use shared::services::admin_auth;
use shared::tokens::{Audience, TokenType};
use tests::{Engine, TestApp, TestDatabase, both_engines, both_engines_raw, settings_with};

both_engines_raw!(
    concurrent_migrations_apply_once,
    players_banned_before_the_upgrade_leave_the_boards,
    generated_secrets_are_shared_by_every_process,
    concurrent_bootstrap_creates_one_admin,
    demo_content_loads_idempotently,
    a_process_of_the_previous_release_starts_on_a_newer_schema,
);
both_engines!(bootstrap_admin_can_sign_in);

/// A rolling deploy: the new release has migrated, a process of the previous one (which
/// knows every migration but the newest) starts on that schema, as the binaries'
/// migrator is set to; one that refused unknown applied migrations would not.
async fn a_process_of_the_previous_release_starts_on_a_newer_schema(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let url = shared::config::DatabaseUrl::parse(&database.url).unwrap();
    let db = Db::connect(&url).await.unwrap();
    db.migrate().await.unwrap();
    let mut previous = db.migrator();
    let known = previous.migrations.len() - 1;
    previous.migrations = previous.migrations[..known].to_vec().into();
    let run = |m: sqlx::migrate::Migrator| {
        let db = db.clone();
        async move {
            match &db {
                Db::Sqlite(s) => m.run(&s.writer).await,
                Db::Postgres(p) => m.run(p).await,
            }
        }
    };
    let strict = {
        let mut strict = db.migrator();
        strict.migrations = previous.migrations.clone();
        strict.set_ignore_missing(false);
        strict
    };
    run(previous).await.unwrap();
    assert!(matches!(
        run(strict).await,
        Err(sqlx::migrate::MigrateError::VersionMissing(_))
    ));
}

/// Every migration of both engines says which phase it is (`migrations/PHASES.md`), and
/// none since the rule is breaking.
#[test]
fn every_migration_is_an_expand_or_a_contract() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
    let phases: std::collections::HashMap<String, String> =
        std::fs::read_to_string(root.join("PHASES.md"))
            .unwrap()
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                (cells.len() > 3 && cells[1].chars().next().is_some_and(|c| c.is_ascii_digit()))
                    .then(|| (cells[1].to_string(), cells[2].to_string()))
            })
            .collect();
    for engine in ["sqlite", "postgres"] {
        for file in std::fs::read_dir(root.join(engine)).unwrap() {
            let name = file.unwrap().file_name().into_string().unwrap();
            let Some(migration) = name.strip_suffix(".sql") else {
                continue;
            };
            let phase = phases
                .get(migration)
                .unwrap_or_else(|| panic!("{engine}/{name} is not in migrations/PHASES.md"));
            let number: u32 = migration[..4].parse().unwrap();
            match phase.as_str() {
                "expand" | "contract" => {}
                "breaking" => assert!(number <= 28, "{migration} is breaking"),
                other => panic!("{migration}: unknown phase {other}"),
            }
        }
    }
}

async fn concurrent_migrations_apply_once(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let url = shared::config::DatabaseUrl::parse(&database.url).unwrap();
    let (a, b) = tokio::join!(
        async { Db::connect(&url).await.unwrap().migrate().await },
        async { Db::connect(&url).await.unwrap().migrate().await },
    );
    a.unwrap();
    b.unwrap();
    let db = Db::connect(&url).await.unwrap();
    db.migrate().await.unwrap(); // and again later: nothing to do
    let applied: i64 = shared::read!(&db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations")
            .fetch_one(ex)
            .await
            .unwrap()
    });
    let (sqlite, _) = shared::db::migration_versions();
    assert_eq!(applied as usize, sqlite.len());
    let regions: i64 = shared::read!(&db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM regions")
            .fetch_one(ex)
            .await
            .unwrap()
    });
    assert_eq!(regions, 31);
}

async fn start(database: &TestDatabase, extra: &[(&str, String)]) -> Arc<AppContext> {
    let mut vars = vec![
        ("DATABASE_URL", database.url.clone()),
        // the demo's flags go to the database's own folder
        (
            "MEDIA_FS_DIR",
            database.media_dir.join("store").display().to_string(),
        ),
    ];
    vars.extend(extra.iter().cloned());
    AppContext::start(settings_with(&vars), Clock::system())
        .await
        .unwrap()
}

async fn generated_secrets_are_shared_by_every_process(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let (a, b) = tokio::join!(start(&database, &[]), start(&database, &[]));
    let now = a.clock.now_ms();
    let pair = a.tokens.issue_pair(Audience::Player, "p1", 0, now).unwrap();
    assert!(
        b.tokens
            .verify(Audience::Player, TokenType::Access, &pair.access_token, now)
            .is_ok()
    );
    let admin = b.tokens.issue_pair(Audience::Admin, "a1", 0, now).unwrap();
    assert!(
        a.tokens
            .verify(Audience::Admin, TokenType::Access, &admin.access_token, now)
            .is_ok()
    );
    // and a restart keeps them
    let c = start(&database, &[]).await;
    assert!(
        c.tokens
            .verify(Audience::Player, TokenType::Access, &pair.access_token, now)
            .is_ok()
    );
    // the two audiences got different secrets
    assert!(
        c.tokens
            .verify(Audience::Admin, TokenType::Access, &pair.access_token, now)
            .is_err()
    );
}

async fn concurrent_bootstrap_creates_one_admin(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let (a, b) = tokio::join!(start(&database, &[]), start(&database, &[]));
    let (pa, pb) = tokio::join!(admin_auth::bootstrap(&a), admin_auth::bootstrap(&b));
    let generated: Vec<String> = [pa.unwrap(), pb.unwrap()].into_iter().flatten().collect();
    assert_eq!(
        generated.len(),
        1,
        "exactly one process created (and printed) a password"
    );
    let count: i64 = shared::read!(&a.db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM admins")
            .fetch_one(ex)
            .await
            .unwrap()
    });
    assert_eq!(count, 1);
    // the printed password signs in
    let sign_in = admin_auth::SignIn {
        username: "admin".into(),
        password: generated[0].clone(),
        ..Default::default()
    };
    let origin = admin_auth::Origin {
        channel: admin_auth::Channel::Api,
        address: [127, 0, 0, 1].into(),
    };
    let login = admin_auth::login(&a, &sign_in, origin).await.unwrap();
    assert_eq!(login.admin.username, "admin");
    // a later start creates nothing
    assert!(admin_auth::bootstrap(&a).await.unwrap().is_none());
}

async fn demo_content_loads_idempotently(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let demo = [("DEMO_CONTENT", "true".to_string())];
    let (a, _b) = tokio::join!(start(&database, &demo), start(&database, &demo));
    let _c = start(&database, &demo).await;
    let count = |sql: &'static str| {
        let db = a.db.clone();
        async move {
            shared::read!(&db, |ex| sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(ex)
                .await
                .unwrap())
        }
    };
    assert_eq!(count("SELECT count(*) FROM categories").await, 6);
    assert_eq!(count("SELECT count(*) FROM skill_nodes").await, 22);
    assert_eq!(
        count("SELECT count(*) FROM questions WHERE status = 'published'").await,
        162
    );
    assert_eq!(count("SELECT count(*) FROM knowledge_cards").await, 162);
    // the flags, once each however many processes loaded them
    assert_eq!(count("SELECT count(*) FROM media").await, 12);
    for track in [
        "world-geography",
        "science-basics",
        "history-culture",
        "china-geography",
        "science-common-sense",
    ] {
        let n = shared::db::content::published_question_count(&a.db, track)
            .await
            .unwrap();
        assert!(n >= 25, "{track}: {n}");
    }
}

async fn bootstrap_admin_can_sign_in(app: TestApp) {
    let (_, _, id) = app.admin_login().await;
    assert!(!id.is_empty());
}

/// A database from before weekly rows could be hidden (migrations up to 0008), with a
/// banned and an unbanned player on a board: the upgrade hides the banned player's rows
/// (until the ban's end, or for good), and leaves the others shown.
async fn players_banned_before_the_upgrade_leave_the_boards(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let url = shared::config::DatabaseUrl::parse(&database.url).unwrap();
    let db = Db::connect(&url).await.unwrap();
    let folder = match engine {
        Engine::Sqlite => "sqlite",
        Engine::Postgres | Engine::Pooled => "postgres",
    };
    let dir = format!("{}/../migrations/{folder}", env!("CARGO_MANIFEST_DIR"));
    let mut before = sqlx::migrate::Migrator::new(std::path::Path::new(&dir))
        .await
        .unwrap();
    before.migrations = before
        .migrations
        .iter()
        .filter(|m| m.version <= 8)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    match &db {
        Db::Sqlite(s) => before.run(&s.writer).await.unwrap(),
        Db::Postgres(p) => before.run(p).await.unwrap(),
    }
    let mut tx = db.begin().await.unwrap();
    shared::in_tx!(&mut tx, |ex| {
        for (id, banned, until) in [
            ("banned-for-good", true, None),
            ("banned-for-a-day", true, Some(1_900_000_000_000_i64)),
            ("ban-over", false, None),
        ] {
            sqlx::query(
                "INSERT INTO players (id, is_guest, is_banned, banned_until, created_at, updated_at)
                 VALUES ($1, TRUE, $2, $3, 0, 0)",
            )
            .bind(id)
            .bind(banned)
            .bind(until)
            .execute(&mut *ex)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at)
                 VALUES ('2026-11-16', 'topic:all', $1, 50, 0)",
            )
            .bind(id)
            .execute(&mut *ex)
            .await
            .unwrap();
        }
    });
    tx.commit().await.unwrap();
    db.migrate().await.unwrap();
    for (id, hidden_until) in [
        ("banned-for-good", Some(i64::MAX)),
        ("banned-for-a-day", Some(1_900_000_000_000)),
        ("ban-over", None),
    ] {
        let stored: Option<i64> = shared::read!(&db, |ex| {
            sqlx::query_scalar("SELECT hidden_until FROM weekly_xp WHERE player_id = $1")
                .bind(id)
                .fetch_one(ex)
                .await
                .unwrap()
        });
        assert_eq!(stored, hidden_until, "{id}");
    }
}
