//! The real `player-api` binary: start-up, graceful shutdown (with connections open,
//! its job leases handed back), refused configurations, `/metrics` on its own listener.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use shared::config::DatabaseUrl;
use shared::db::{self, Db};
use shared::services::jobs::Job;
use tests::process::{Proc, free_port, run_to_exit};
use tests::{Engine, TestDatabase, both_engines_raw};

const EXE: &str = env!("CARGO_BIN_EXE_player-api");

both_engines_raw!(
    serves_and_stops_gracefully_on_sigterm,
    serves_metrics_on_metrics_addr_only,
    sigterm_hands_the_job_leases_back,
    sigterm_frees_the_leases_at_once_and_the_grace_bounds_the_drain,
    stops_gracefully_with_connections_open
);

async fn stops_gracefully_with_connections_open(engine: Engine) {
    tests::process::stops_gracefully_with_connections_open(
        EXE,
        "PLAYER_API_ADDR",
        engine,
        "/v1/auth/guest",
        r#"{"deviceId":"a-device-whose-request-is-in-flight"}"#,
    )
    .await;
}

async fn serves_metrics_on_metrics_addr_only(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let (port, metrics_port) = (free_port(), free_port());
    let mut proc = Proc::start(
        EXE,
        &[
            ("DATABASE_URL", database.url.clone()),
            ("PLAYER_API_ADDR", format!("127.0.0.1:{port}")),
            ("METRICS_ADDR", format!("127.0.0.1:{metrics_port}")),
        ],
        port,
    )
    .await;
    let regions = reqwest::get(format!("{}/v1/app/regions", proc.base_url))
        .await
        .unwrap();
    assert_eq!(regions.status(), 200);
    let public = reqwest::get(format!("{}/metrics", proc.base_url))
        .await
        .unwrap();
    assert_eq!(public.status(), 404);
    let body: serde_json::Value = public.json().await.unwrap();
    assert_eq!(body["error"]["code"], "NOT_FOUND", "{body}");
    let text = reqwest::get(format!("http://127.0.0.1:{metrics_port}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains(
            r#"http_requests_total{method="GET",route="/v1/app/regions",status="200"} 1"#
        ),
        "{text}"
    );
    proc.signal("TERM");
    let status = proc.wait_exit(Duration::from_secs(15));
    assert_eq!(status.code(), Some(0), "{}", proc.stderr());
}

#[tokio::test]
async fn a_metrics_addr_in_use_stops_the_process() {
    let database = TestDatabase::create(Engine::Sqlite).await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap();
    let (code, output) = run_to_exit(
        EXE,
        &[
            ("DATABASE_URL", database.url.clone()),
            ("PLAYER_API_ADDR", format!("127.0.0.1:{}", free_port())),
            ("METRICS_ADDR", taken.to_string()),
        ],
    );
    assert_eq!(code, Some(1), "{output}");
    assert!(
        output.contains(&format!("cannot listen on METRICS_ADDR={taken}")),
        "{output}"
    );
}

async fn serves_and_stops_gracefully_on_sigterm(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let mut proc = start_player_api(&database, &[("LOG_FORMAT", "json".to_string())]).await;
    let body: serde_json::Value = reqwest::get(format!("{}/v1/app/regions", proc.base_url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["data"]["regions"].as_array().unwrap().len(), 31);
    proc.signal("TERM");
    let status = proc.wait_exit(Duration::from_secs(15));
    assert_eq!(status.code(), Some(0), "{}", proc.stderr());
}

/// A process stopped with SIGTERM ends its job leases as it exits: another process
/// takes each job at once, not after the takeover time (minutes).
async fn sigterm_hands_the_job_leases_back(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let mut proc = start_player_api(&database, &[]).await;
    let db = Db::connect(&DatabaseUrl::parse(&database.url).unwrap())
        .await
        .unwrap();
    every_lease_is_taken(&db).await;
    proc.signal("TERM");
    let status = proc.wait_exit(Duration::from_secs(15));
    assert_eq!(status.code(), Some(0), "{}", proc.stderr());
    for job in Job::ALL {
        assert!(
            db::jobs::take_lease(&db, job.name(), "next-process", 60_000)
                .await
                .unwrap(),
            "{} still held after SIGTERM",
            job.name()
        );
    }
    db.close().await;
}

/// Waits until the process's job loop has run every job (it does at once when it
/// starts), taking every lease, and checks that no other holder gets one.
async fn every_lease_is_taken(db: &Db) {
    let mut ran = 0;
    for _ in 0..300 {
        ran = shared::read!(db, |ex| {
            sqlx::query_scalar::<_, i64>(
                "SELECT count(*) FROM job_leases WHERE last_run_at IS NOT NULL",
            )
            .fetch_one(ex)
            .await
            .unwrap()
        });
        if ran == Job::ALL.len() as i64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ran, Job::ALL.len() as i64, "every job ran");
    for job in Job::ALL {
        assert!(
            !db::jobs::take_lease(db, job.name(), "next-process", 60_000)
                .await
                .unwrap(),
            "{} is the process's while it runs",
            job.name()
        );
    }
}

/// The leases go back as soon as SIGTERM arrives, while a request is still under way,
/// not after it; and a request that does not finish within `SHUTDOWN_GRACE_SECONDS`
/// does not hold the exit (here its body never comes: the body timeout is a minute).
async fn sigterm_frees_the_leases_at_once_and_the_grace_bounds_the_drain(engine: Engine) {
    use tests::raw_http::{connect, until_closed};
    use tokio::io::AsyncWriteExt as _;

    let database = TestDatabase::create(engine).await;
    let mut proc = start_player_api(
        &database,
        &[
            ("SHUTDOWN_GRACE_SECONDS", "3".to_string()),
            ("HTTP_BODY_TIMEOUT_SECONDS", "60".to_string()),
        ],
    )
    .await;
    let db = Db::connect(&DatabaseUrl::parse(&database.url).unwrap())
        .await
        .unwrap();
    every_lease_is_taken(&db).await;
    let mut in_flight = connect(&proc.base_url).await;
    in_flight
        .write_all(
            b"POST /v1/auth/guest HTTP/1.1\r\nHost: localhost\r\n\
              Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"deviceId\"",
        )
        .await
        .unwrap();
    // the request has reached its handler, which waits for the rest of the body
    tokio::time::sleep(Duration::from_millis(300)).await;

    proc.signal("TERM");
    let signalled = std::time::Instant::now();
    for job in Job::ALL {
        let mut taken = false;
        while !taken && signalled.elapsed() < Duration::from_secs(2) {
            taken = db::jobs::take_lease(&db, job.name(), "next-process", 60_000)
                .await
                .unwrap();
            if !taken {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        assert!(taken, "{} still held 2 s after SIGTERM", job.name());
    }
    assert!(
        proc.child.try_wait().unwrap().is_none(),
        "exited before the grace was over: {}",
        proc.stderr()
    );

    let status = proc.wait_exit(Duration::from_secs(15));
    let stopped_after = signalled.elapsed();
    assert_eq!(status.code(), Some(0), "{}", proc.stderr());
    assert!(
        stopped_after >= Duration::from_secs(3) && stopped_after < Duration::from_secs(10),
        "stopped {stopped_after:?} after SIGTERM, with a grace of 3 s"
    );
    let log = proc.stdout();
    assert!(log.contains("shutdown grace over"), "{log}");
    let (_, closed) = until_closed(&mut in_flight, Duration::from_secs(5)).await;
    assert!(
        closed.is_some(),
        "the unfinished request's connection is open"
    );
    db.close().await;
}

#[test]
fn production_refuses_to_start_without_secrets_or_with_dev_features() {
    let (code, stderr) = run_to_exit(EXE, &[("APP_ENV", "production".into())]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("JWT_SECRET is required"), "{stderr}");
    assert!(stderr.contains("ADMIN_JWT_SECRET is required"), "{stderr}");
    assert!(
        stderr.contains("SECRETS_KEY is required when APP_ENV=production"),
        "{stderr}"
    );
    let (code, stderr) = run_to_exit(
        EXE,
        &[
            ("APP_ENV", "production".into()),
            ("JWT_SECRET", "p".repeat(40)),
            ("ADMIN_JWT_SECRET", "a".repeat(40)),
            ("SMS_PROVIDER", "console".into()),
            ("QUIZ_CLOCK_START", "2026-01-01T00:00:00Z".into()),
        ],
    );
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("SMS_PROVIDER=console is refused"),
        "{stderr}"
    );
    assert!(stderr.contains("QUIZ_CLOCK_START is refused"), "{stderr}");
    // and no secret is echoed back
    assert!(!stderr.contains(&"p".repeat(40)), "{stderr}");
}

#[test]
fn a_bad_variable_is_named_at_start() {
    let (code, stderr) = run_to_exit(EXE, &[("PLAYER_API_ADDR", "not-an-address".into())]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("PLAYER_API_ADDR"), "{stderr}");
    let (code, stderr) = run_to_exit(EXE, &[("METRICS_ADDR", "localhost:9464".into())]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("METRICS_ADDR=\"localhost:9464\""),
        "{stderr}"
    );
}

#[test]
fn production_refuses_provider_urls_over_plain_http() {
    let (code, stderr) = run_to_exit(
        EXE,
        &[
            ("APP_ENV", "production".into()),
            ("JWT_SECRET", "p".repeat(40)),
            ("ADMIN_JWT_SECRET", "a".repeat(40)),
            ("APPLE_CLIENT_ID", "com.example.quiz".into()),
            ("APPLE_JWKS_URL", "http://keys.example.com/auth/keys".into()),
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("APPLE_JWKS_URL must be an https:// URL when APP_ENV=production"),
        "{stderr}"
    );
}

/// The player-api binary on `database` and a free port, with `extra` settings.
async fn start_player_api(database: &TestDatabase, extra: &[(&str, String)]) -> Proc {
    let port = free_port();
    let mut env = vec![
        ("DATABASE_URL", database.url.clone()),
        ("PLAYER_API_ADDR", format!("127.0.0.1:{port}")),
    ];
    env.extend(extra.iter().cloned());
    Proc::start(EXE, &env, port).await
}
