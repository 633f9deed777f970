//! The real `admin-console` binary: the generated bootstrap password, graceful shutdown
//! (with connections open), `/metrics` on its own listener.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use tests::process::{Proc, free_port};
use tests::{Engine, TestDatabase, both_engines_raw};

const EXE: &str = env!("CARGO_BIN_EXE_admin-console");

both_engines_raw!(
    prints_a_generated_admin_password_once_and_stops_on_sigterm,
    serves_metrics_on_metrics_addr_only,
    stops_gracefully_with_connections_open
);

async fn stops_gracefully_with_connections_open(engine: Engine) {
    tests::process::stops_gracefully_with_connections_open(
        EXE,
        "ADMIN_CONSOLE_ADDR",
        engine,
        "/v1/admin/login",
        r#"{"username":"admin","password":"not-the-password-in-flight"}"#,
    )
    .await;
}

async fn serves_metrics_on_metrics_addr_only(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let (port, metrics_port) = (free_port(), free_port());
    let vars = [
        ("DATABASE_URL", database.url.clone()),
        ("ADMIN_CONSOLE_ADDR", format!("127.0.0.1:{port}")),
        ("METRICS_ADDR", format!("127.0.0.1:{metrics_port}")),
    ];
    let mut proc = Proc::start(EXE, &vars, port).await;
    let console = reqwest::get(format!("{}/console/login", proc.base_url))
        .await
        .unwrap();
    assert_eq!(console.status(), 200);
    let public = reqwest::get(format!("{}/metrics", proc.base_url))
        .await
        .unwrap();
    assert_eq!(public.status(), 404);
    let text = reqwest::get(format!("http://127.0.0.1:{metrics_port}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains(r#"route="/console/login""#), "{text}");
    proc.signal("TERM");
    assert_eq!(proc.wait_exit(Duration::from_secs(15)).code(), Some(0));
}

async fn prints_a_generated_admin_password_once_and_stops_on_sigterm(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let port = free_port();
    let vars = [
        ("DATABASE_URL", database.url.clone()),
        ("ADMIN_CONSOLE_ADDR", format!("127.0.0.1:{port}")),
    ];
    let mut proc = Proc::start(EXE, &vars, port).await;
    proc.signal("INT");
    assert_eq!(proc.wait_exit(Duration::from_secs(15)).code(), Some(0));
    let stderr = proc.stderr();
    let password = stderr
        .lines()
        .find_map(|l| l.split("generated password: ").nth(1))
        .unwrap_or_else(|| panic!("no password printed: {stderr}"))
        .trim()
        .to_string();

    // A restart prints nothing new, and the printed password signs in.
    let mut again = Proc::start(EXE, &vars, port).await;
    let r: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/v1/admin/login", again.base_url))
        .json(&serde_json::json!({"username": "admin", "password": password}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["data"]["admin"]["role"], "super_admin", "{r}");
    again.signal("TERM");
    assert_eq!(again.wait_exit(Duration::from_secs(15)).code(), Some(0));
    assert!(!again.stderr().contains("generated password"));
}
