//! The end-to-end test harness: both routers served on port 0 against a fresh database
//! per test, on SQLite (a temporary file) or PostgreSQL (a fresh schema in
//! `TEST_DATABASE_URL`, default `postgres://postgres@127.0.0.1:5432/test`).
//!
//! Every data test is written once as `async fn(TestApp)` and run on both engines by
//! [`both_engines!`].
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod apple;
pub mod capture;
pub mod console;
pub mod learning_sim;
pub mod memory_sim;
pub mod nppa;
pub mod pg_cluster;
pub mod pgbouncer;
pub mod pick_sim;
pub mod process;
pub mod raw_http;
pub mod s3;
pub mod statements;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use reqwest::Method;
use serde_json::Value;
use shared::clock::Clock;
use shared::config::Settings;
use shared::context::AppContext;
use shared::metrics::Metrics;
use sqlx::Connection;
use tokio::sync::oneshot;

/// The engines every data test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
    /// PostgreSQL through a PgBouncer of the test's own in transaction mode, on a
    /// database of the test's own (PgBouncer cannot pass the schema-selecting
    /// `search_path` on to the server connections it shares).
    Pooled,
}

impl Engine {
    /// PostgreSQL, directly or through the pooler.
    pub fn is_postgres(self) -> bool {
        matches!(self, Self::Postgres | Self::Pooled)
    }
}

/// The PostgreSQL server tests use.
pub fn postgres_base_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

/// A fresh, empty database; removed again when dropped.
pub struct TestDatabase {
    pub engine: Engine,
    /// The `DATABASE_URL` that reaches it.
    pub url: String,
    /// The `DATABASE_DIRECT_URL` past the pooler ([`Engine::Pooled`]).
    pub direct_url: Option<String>,
    /// `MEDIA_FS_DIR` of apps on it: a folder of its own, removed with it.
    pub media_dir: PathBuf,
    cleanup: Cleanup,
}

enum Cleanup {
    Dir(PathBuf),
    Schema {
        base_url: String,
        schema: String,
    },
    /// A database of its own (behind a PgBouncer of its own, for [`Engine::Pooled`]).
    Database {
        base_url: String,
        name: String,
        bouncer: Option<pgbouncer::Bouncer>,
    },
    /// Someone else's (a [`pg_cluster::Cluster`] removes itself).
    None,
}

impl TestDatabase {
    /// A database that `url` reaches and that its owner removes.
    pub fn existing(engine: Engine, url: String) -> Self {
        Self {
            engine,
            url,
            direct_url: None,
            media_dir: fresh_media_dir(),
            cleanup: Cleanup::None,
        }
    }

    pub async fn create(engine: Engine) -> Self {
        let tag = uuid::Uuid::new_v4().simple().to_string();
        match engine {
            Engine::Sqlite => {
                let dir = std::env::temp_dir().join(format!("quiz-test-{tag}"));
                std::fs::create_dir_all(&dir).unwrap();
                let url = format!("sqlite://{}", dir.join("quiz.db").display());
                Self {
                    engine,
                    url,
                    direct_url: None,
                    media_dir: fresh_media_dir(),
                    cleanup: Cleanup::Dir(dir),
                }
            }
            Engine::Postgres => {
                let base_url = postgres_base_url();
                let schema = format!("t_{tag}");
                let mut conn = sqlx::PgConnection::connect(&base_url)
                    .await
                    .unwrap_or_else(|e| {
                        panic!(
                            "PostgreSQL is not reachable at {base_url} ({e}); start it \
                         (see README) or set TEST_DATABASE_URL"
                        )
                    });
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
                    .execute(&mut conn)
                    .await
                    .unwrap();
                let sep = if base_url.contains('?') { '&' } else { '?' };
                let url = format!("{base_url}{sep}options=-c%20search_path%3D{schema}");
                Self {
                    engine,
                    url,
                    direct_url: None,
                    media_dir: fresh_media_dir(),
                    cleanup: Cleanup::Schema { base_url, schema },
                }
            }
            Engine::Pooled => {
                let (base_url, name) = create_postgres_database(&tag).await;
                let options: sqlx::postgres::PgConnectOptions = base_url.parse().unwrap();
                let (host, port, user) = (
                    options.get_host().to_string(),
                    options.get_port(),
                    options.get_username().to_string(),
                );
                let bouncer = pgbouncer::Bouncer::start(&host, port, &user);
                Self {
                    engine,
                    url: format!("postgres://{user}@127.0.0.1:{}/{name}", bouncer.port),
                    direct_url: Some(format!("postgres://{user}@{host}:{port}/{name}")),
                    media_dir: fresh_media_dir(),
                    cleanup: Cleanup::Database {
                        base_url,
                        name,
                        bouncer: Some(bouncer),
                    },
                }
            }
        }
    }

    /// Like [`TestDatabase::create`], on PostgreSQL a database of its own rather than a
    /// schema (what `pg_dump` of a database takes whole, extensions included).
    pub async fn create_own(engine: Engine) -> Self {
        if engine != Engine::Postgres {
            return Self::create(engine).await;
        }
        let tag = uuid::Uuid::new_v4().simple().to_string();
        let (base_url, name) = create_postgres_database(&tag).await;
        let options: sqlx::postgres::PgConnectOptions = base_url.parse().unwrap();
        let url = format!(
            "postgres://{}@{}:{}/{name}",
            options.get_username(),
            options.get_host(),
            options.get_port()
        );
        Self {
            engine,
            url,
            direct_url: None,
            media_dir: fresh_media_dir(),
            cleanup: Cleanup::Database {
                base_url,
                name,
                bouncer: None,
            },
        }
    }
}

/// Creates the database `t_{tag}` on the tests' PostgreSQL server; answers the server's
/// base URL and the name.
async fn create_postgres_database(tag: &str) -> (String, String) {
    let base_url = postgres_base_url();
    let name = format!("t_{tag}");
    let mut conn = sqlx::PgConnection::connect(&base_url).await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .unwrap();
    (base_url, name)
}

/// A new folder for a test's media store.
fn fresh_media_dir() -> PathBuf {
    std::env::temp_dir().join(format!("quiz-test-media-{}", uuid::Uuid::new_v4().simple()))
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.media_dir);
        match &mut self.cleanup {
            Cleanup::None => {}
            Cleanup::Dir(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Cleanup::Database {
                base_url,
                name,
                bouncer,
            } => {
                // The pooler's server connections go with it; FORCE ends any left.
                drop(bouncer.take());
                run_on_own_runtime(
                    base_url.clone(),
                    format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                );
            }
            Cleanup::Schema { base_url, schema } => run_on_own_runtime(
                base_url.clone(),
                format!("DROP SCHEMA IF EXISTS {schema} CASCADE"),
            ),
        }
    }
}

/// Runs `sql` on `base_url`, ignoring failure. Drop runs inside the test's runtime, so
/// this uses a thread with its own.
fn run_on_own_runtime(base_url: String, sql: String) {
    let _ = std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async {
            if let Ok(mut conn) = sqlx::PgConnection::connect(&base_url).await {
                let _ = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .execute(&mut conn)
                    .await;
            }
        });
    })
    .join();
}

/// Builds settings for a test from variables (nothing is read from the real environment).
pub fn settings_with(vars: &[(&str, String)]) -> Settings {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    Settings::from_lookup(&move |name: &str| map.get(name).cloned())
        .unwrap_or_else(|e| panic!("test settings: {e}"))
}

/// Which binary a request goes to.
#[derive(Clone, Copy, Debug)]
pub enum Service {
    Player,
    Admin,
}

/// An answer: status, headers and the parsed JSON body (Null when not JSON).
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Resp {
    /// Asserts a success envelope and returns `data`.
    #[track_caller]
    pub fn ok(&self) -> &Value {
        assert_eq!(
            self.status, 200,
            "expected 200, got {}: {}",
            self.status, self.body
        );
        assert_eq!(self.body["success"], true, "{}", self.body);
        assert!(self.body["error"].is_null(), "{}", self.body);
        &self.body["data"]
    }

    /// Asserts an error envelope with `status` and `code`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(
            self.status, status,
            "expected {status} {code}, got: {}",
            self.body
        );
        assert_eq!(self.body["success"], false, "{}", self.body);
        assert!(self.body["data"].is_null(), "{}", self.body);
        assert_eq!(self.body["error"]["code"], code, "{}", self.body);
        assert!(
            self.body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{}",
            self.body
        );
    }
}

/// Both binaries served on port 0 over one fresh database, each with its metrics
/// listener on a port of its own.
pub struct TestApp {
    pub engine: Engine,
    pub player_url: String,
    pub admin_url: String,
    /// `GET /metrics` of the player app (its own listener, as `METRICS_ADDR`).
    pub player_metrics_url: String,
    /// `GET /metrics` of the admin app.
    pub admin_metrics_url: String,
    pub ctx: Arc<AppContext>,
    pub clock: Clock,
    /// Sends `Accept-Language: en`, so tests read the messages the code writes; the
    /// language tests send their own header with [`TestApp::client_in`].
    pub client: reqwest::Client,
    /// Username and password of the bootstrap super_admin.
    pub admin_username: String,
    pub admin_password: String,
    shutdown: Vec<oneshot::Sender<()>>,
    /// Kept last so the database outlives the servers.
    pub database: TestDatabase,
}

pub const TEST_START: &str = "2026-11-18T04:00:00Z";

impl TestApp {
    /// A client sending `Accept-Language: {accept}` with every request (none when empty).
    pub fn client_in(accept: &str) -> reqwest::Client {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Ok(value) = reqwest::header::HeaderValue::from_str(accept)
            && !accept.is_empty()
        {
            headers.insert(reqwest::header::ACCEPT_LANGUAGE, value);
        }
        reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap_or_default()
    }

    /// Starts both apps on `engine` with the defaults (clock at [`TEST_START`]).
    pub async fn spawn(engine: Engine) -> Self {
        Self::spawn_with(engine, &[]).await
    }

    /// Starts both apps with extra configuration variables.
    pub async fn spawn_with(engine: Engine, extra: &[(&str, String)]) -> Self {
        Self::spawn_on(TestDatabase::create(engine).await, extra).await
    }

    /// Starts both apps on `database` with extra configuration variables.
    pub async fn spawn_on(database: TestDatabase, extra: &[(&str, String)]) -> Self {
        let engine = database.engine;
        let admin_password = format!("Pw-{}", uuid::Uuid::new_v4().simple());
        let mut vars = vec![
            ("DATABASE_URL", database.url.clone()),
            (
                "MEDIA_FS_DIR",
                database.media_dir.join("store").display().to_string(),
            ),
            (
                "MEDIA_SPOOL_DIR",
                database.media_dir.join("spool").display().to_string(),
            ),
            ("ADMIN_BOOTSTRAP_USERNAME", "root-admin".to_string()),
            ("ADMIN_BOOTSTRAP_PASSWORD", admin_password.clone()),
            (
                "ADMIN_STATIC_TOKEN",
                "static-admin-token-for-tests".to_string(),
            ),
            // Tests sign in far more often than a player; the rate-limit tests set their own.
            ("RATE_LIMIT_AUTH_PER_MINUTE", "100000".to_string()),
            ("RATE_LIMIT_SEND_CODE_PER_MINUTE", "100000".to_string()),
            ("JWKS_MIN_REFETCH_SECONDS", "0".to_string()),
        ];
        if let Some(direct_url) = &database.direct_url {
            vars.push(("DATABASE_DIRECT_URL", direct_url.clone()));
        }
        vars.extend(extra.iter().cloned());
        let settings = settings_with(&vars);
        // `QUIZ_CLOCK_START` where a test sets it, as the binaries read it
        let clock = Clock::starting_at(settings.clock_start.unwrap_or_else(|| {
            chrono::DateTime::parse_from_rfc3339(TEST_START)
                .unwrap()
                .to_utc()
        }));
        let ctx = AppContext::start(settings, clock.clone()).await.unwrap();
        admin_console::bootstrap_admin(&ctx).await.unwrap();

        let mut shutdown = Vec::new();
        let limits = ctx.settings.connections;
        let player_metrics = Metrics::with_answers(ctx.db.clone(), ctx.answer_cache.judged.clone());
        let admin_metrics = Metrics::new(ctx.db.clone());
        let player_url = serve(
            player_api::app(
                player_api::AppState::new(Arc::clone(&ctx)),
                Arc::clone(&player_metrics),
            ),
            limits,
            &mut shutdown,
        )
        .await;
        let admin_url = serve(
            admin_console::app(
                admin_console::AppState {
                    ctx: Arc::clone(&ctx),
                },
                Arc::clone(&admin_metrics),
            ),
            limits,
            &mut shutdown,
        )
        .await;
        let player_metrics_url = format!(
            "{}/metrics",
            serve(
                shared::http::metrics_router(player_metrics),
                limits,
                &mut shutdown
            )
            .await
        );
        let admin_metrics_url = format!(
            "{}/metrics",
            serve(
                shared::http::metrics_router(admin_metrics),
                limits,
                &mut shutdown
            )
            .await
        );
        Self {
            engine,
            player_url,
            admin_url,
            player_metrics_url,
            admin_metrics_url,
            ctx,
            clock,
            client: Self::client_in("en"),
            admin_username: "root-admin".to_string(),
            admin_password,
            shutdown,
            database,
        }
    }

    pub fn url(&self, service: Service, path: &str) -> String {
        match service {
            Service::Player => format!("{}{path}", self.player_url),
            Service::Admin => format!("{}{path}", self.admin_url),
        }
    }

    /// Sends a request with an optional JSON body and bearer token.
    pub async fn call(
        &self,
        service: Service,
        method: Method,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> Resp {
        let mut req = self.client.request(method, self.url(service, path));
        if let Some(body) = body {
            req = req.json(&body);
        }
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        Self::read(req.send().await.unwrap()).await
    }

    pub async fn read(resp: reqwest::Response) -> Resp {
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let bytes = resp.bytes().await.unwrap();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Resp {
        self.call(Service::Player, Method::GET, path, None, token)
            .await
    }
    pub async fn post(&self, path: &str, body: Value, token: Option<&str>) -> Resp {
        self.call(Service::Player, Method::POST, path, Some(body), token)
            .await
    }
    pub async fn admin_get(&self, path: &str, token: Option<&str>) -> Resp {
        self.call(Service::Admin, Method::GET, path, None, token)
            .await
    }
    pub async fn admin_post(&self, path: &str, body: Value, token: Option<&str>) -> Resp {
        self.call(Service::Admin, Method::POST, path, Some(body), token)
            .await
    }

    /// Signs in a guest for `device_id`; returns (user id, access token, refresh token).
    pub async fn guest(&self, device_id: &str) -> (String, String, String) {
        let r = self
            .post(
                "/v1/auth/guest",
                serde_json::json!({ "deviceId": device_id }),
                None,
            )
            .await;
        let data = r.ok();
        (
            data["user"]["id"].as_str().unwrap().to_string(),
            data["tokens"]["accessToken"].as_str().unwrap().to_string(),
            data["tokens"]["refreshToken"].as_str().unwrap().to_string(),
        )
    }

    /// Signs the bootstrap super_admin in; returns (access token, refresh token, admin id).
    pub async fn admin_login(&self) -> (String, String, String) {
        let r = self
            .admin_post(
                "/v1/admin/login",
                serde_json::json!({ "username": self.admin_username, "password": self.admin_password }),
                None,
            )
            .await;
        let data = r.ok();
        (
            data["accessToken"].as_str().unwrap().to_string(),
            data["refreshToken"].as_str().unwrap().to_string(),
            data["admin"]["id"].as_str().unwrap().to_string(),
        )
    }

    /// Runs one statement directly on the database (test set-up only), binding `args` as
    /// text in order.
    pub async fn exec(&self, sql: &'static str, args: &[&str]) -> u64 {
        let mut tx = self.ctx.db.begin().await.unwrap();
        let n = shared::in_tx!(&mut tx, |ex| {
            let mut q = sqlx::query(sql);
            for a in args {
                q = q.bind(a.to_string());
            }
            q.execute(ex).await.unwrap().rows_affected()
        });
        tx.commit().await.unwrap();
        n
    }

    /// One text value from the database (test oracles only).
    pub async fn text(&self, sql: &'static str, args: &[&str]) -> String {
        shared::read!(&self.ctx.db, |ex| {
            let mut q = sqlx::query_scalar::<_, String>(sql);
            for a in args {
                q = q.bind(a.to_string());
            }
            q.fetch_one(ex).await.unwrap()
        })
    }

    /// Gives every question inserted with plain SQL (test set-up) its version 1, as the
    /// migration that brought versions gave the questions that existed then: challenges
    /// serve a question's versions, never its row.
    pub async fn version_raw_questions(&self) -> u64 {
        self.exec(
            "INSERT INTO question_versions (question_id, version, category_id, content_type,
                 stem_text, correct_answer, distractors, difficulty, card_id, card_title,
                 card_summary, card_deep_dive, card_source_ref, edited_by, edited_at,
                 changed_fields)
             SELECT q.id, q.version, q.category_id, q.content_type, q.stem_text,
                    q.correct_answer, q.distractors, q.difficulty, k.id, k.title, k.summary,
                    k.deep_dive, k.source_ref, 'system', q.updated_at, '[]'
             FROM questions q LEFT JOIN knowledge_cards k ON k.question_id = q.id
             WHERE NOT EXISTS (SELECT 1 FROM question_versions v WHERE v.question_id = q.id)",
            &[],
        )
        .await
    }

    /// Starts both apps with the demo content loaded.
    pub async fn spawn_demo(engine: Engine) -> Self {
        Self::spawn_with(engine, &[("DEMO_CONTENT", "true".to_string())]).await
    }

    /// One integer from the database (test assertions only).
    pub async fn scalar(&self, sql: &'static str, args: &[&str]) -> i64 {
        shared::read!(&self.ctx.db, |ex| {
            let mut q = sqlx::query_scalar::<_, i64>(sql);
            for a in args {
                q = q.bind(a.to_string());
            }
            q.fetch_one(ex).await.unwrap()
        })
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        for tx in self.shutdown.drain(..) {
            let _ = tx.send(());
        }
    }
}

async fn serve(
    router: axum::Router,
    limits: shared::config::ConnectionLimits,
    shutdown: &mut Vec<oneshot::Sender<()>>,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    shutdown.push(tx);
    tokio::spawn(shared::http::serve(listener, router, limits, async move {
        let _ = rx.await;
    }));
    format!("http://{addr}")
}

/// Makes `mod $name` with one test per engine listed (`test_fn => Variant`), each
/// running `$call` with `$engine` bound to that engine: what the macros below expand to.
#[doc(hidden)]
#[macro_export]
macro_rules! engine_tests {
    ([$($test:ident => $variant:ident),*] $name:ident, |$engine:ident| $call:expr) => {
        mod $name {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    let $engine = $crate::Engine::$variant;
                    $call
                }
            )*
        }
    };
}

/// Runs each `async fn(TestApp)` named as a test on SQLite and on PostgreSQL:
/// `both_engines!(guest_sign_in)` makes `guest_sign_in::sqlite` and
/// `guest_sign_in::postgres`. Each of these macros takes a leading `with_pgbouncer;` to
/// add a third, `::pgbouncer`, on [`Engine::Pooled`].
#[macro_export]
macro_rules! both_engines {
    (with_pgbouncer; $($name:ident),* $(,)?) => {
        $($crate::engine_tests!([sqlite => Sqlite, postgres => Postgres, pgbouncer => Pooled]
            $name, |engine| super::$name($crate::TestApp::spawn(engine).await).await);)*
    };
    ($($name:ident),* $(,)?) => {
        $($crate::engine_tests!([sqlite => Sqlite, postgres => Postgres]
            $name, |engine| super::$name($crate::TestApp::spawn(engine).await).await);)*
    };
}

/// Like [`both_engines!`], with the demo content loaded.
#[macro_export]
macro_rules! both_engines_demo {
    (with_pgbouncer; $($name:ident),* $(,)?) => {
        $($crate::engine_tests!([sqlite => Sqlite, postgres => Postgres, pgbouncer => Pooled]
            $name, |engine| super::$name($crate::TestApp::spawn_demo(engine).await).await);)*
    };
    ($($name:ident),* $(,)?) => {
        $($crate::engine_tests!([sqlite => Sqlite, postgres => Postgres]
            $name, |engine| super::$name($crate::TestApp::spawn_demo(engine).await).await);)*
    };
}

/// Runs each `async fn(Engine)` as a test on SQLite and on PostgreSQL, for tests that
/// set up their own database and processes.
#[macro_export]
macro_rules! both_engines_raw {
    (with_pgbouncer; $($name:ident),* $(,)?) => {
        $($crate::engine_tests!([sqlite => Sqlite, postgres => Postgres, pgbouncer => Pooled]
            $name, |engine| super::$name(engine).await);)*
    };
    ($($name:ident),* $(,)?) => {
        $($crate::engine_tests!([sqlite => Sqlite, postgres => Postgres]
            $name, |engine| super::$name(engine).await);)*
    };
}

/// Like [`both_engines!`], each app made by `$spawn` (an `async fn(Engine) -> TestApp`,
/// for tests that need configuration of their own): `both_engines_with!(forwarded;
/// name)` makes `name::sqlite` and `name::postgres` running `name(forwarded(engine))`.
#[macro_export]
macro_rules! both_engines_with {
    (with_pgbouncer; $spawn:ident; $($name:ident),* $(,)?) => {
        $($crate::engine_tests!([sqlite => Sqlite, postgres => Postgres, pgbouncer => Pooled]
            $name, |engine| super::$name(super::$spawn(engine).await).await);)*
    };
    ($spawn:ident; $($name:ident),* $(,)?) => {
        $($crate::engine_tests!([sqlite => Sqlite, postgres => Postgres]
            $name, |engine| super::$name(super::$spawn(engine).await).await);)*
    };
}

/// `(userId, entry[field])` of each entry of a board's JSON array (a page, a
/// `meta.around`, a history), as a `Vec` in order or a map.
pub fn ids_with<C: FromIterator<(String, i64)>>(entries: &serde_json::Value, field: &str) -> C {
    entries
        .as_array()
        .expect("an array of entries")
        .iter()
        .map(|e| {
            let id = e["userId"].as_str().expect("a userId").to_string();
            (id, e[field].as_i64().expect("a number"))
        })
        .collect()
}
