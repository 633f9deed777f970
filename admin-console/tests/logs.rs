//! No secret in any log line: the real `admin-console` binary with known secrets and the
//! most verbose filter, in both log formats, through API and console sign-ins (right and
//! wrong passwords), account creation, password reset and change, refresh, the static
//! token and garbage bearers; its whole standard output and error are then searched for
//! the configured secrets, every password and token it was sent or issued, the console
//! session cookie and CSRF token.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use tests::capture::start_captured;
use tests::console::Console;
use tests::process::free_port;
use tests::{Engine, TestDatabase, both_engines_raw};

const EXE: &str = env!("CARGO_BIN_EXE_admin-console");

both_engines_raw!(no_secret_reaches_the_log, request_ids_reach_the_log_clean);

async fn request_ids_reach_the_log_clean(engine: Engine) {
    tests::capture::request_ids_reach_the_log_clean(EXE, "ADMIN_CONSOLE_ADDR", engine).await;
}

const JWT_SECRET: &str = "player-jwt-secret-which-must-never-be-logged-51";
const ADMIN_JWT_SECRET: &str = "admin-jwt-secret-which-must-never-be-logged-52";
const BOOTSTRAP_PASSWORD: &str = "Bootstrap-Password-Never-Logged-53";
const STATIC_TOKEN: &str = "static-admin-token-never-logged-54";
const WRONG_STATIC_TOKEN: &str = "static-admin-guess-never-logged-55";
const WRONG_PASSWORD: &str = "Wrong-Password-Never-Logged-56";
const EDITOR_PASSWORD: &str = "Editor-Password-Never-Logged-57";
const NEW_PASSWORD: &str = "Changed-Password-Never-Logged-58";
const GARBAGE_BEARER: &str = "garbage-admin-bearer-never-logged-59";

struct Api {
    http: reqwest::Client,
    base: String,
}

impl Api {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> (u16, Value) {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            req = req.json(&body);
        }
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        let r = req.send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }
    async fn post(&self, path: &str, body: Value, token: Option<&str>) -> (u16, Value) {
        self.call(reqwest::Method::POST, path, Some(body), token)
            .await
    }
}

fn tokens(data: &Value, into: &mut Vec<String>) {
    for holder in [data, &data["tokens"]] {
        for key in ["accessToken", "refreshToken"] {
            if let Some(t) = holder[key].as_str() {
                into.push(t.to_string());
            }
        }
    }
}

/// The value of the `quiz_console` cookie a response sets, if any.
fn session_cookie(set_cookie: Option<&str>) -> Option<String> {
    let value = set_cookie?.strip_prefix("quiz_console=")?;
    Some(value.split(';').next().unwrap_or_default().to_string())
}

async fn run(engine: Engine, format: &str) {
    let database = TestDatabase::create(engine).await;
    let port = free_port();
    let (mut proc, log) = start_captured(
        EXE,
        &[
            ("DATABASE_URL", database.url.clone()),
            ("ADMIN_CONSOLE_ADDR", format!("127.0.0.1:{port}")),
            ("LOG_FORMAT", format.into()),
            ("RUST_LOG", "trace".into()),
            ("JWT_SECRET", JWT_SECRET.into()),
            ("ADMIN_JWT_SECRET", ADMIN_JWT_SECRET.into()),
            ("ADMIN_BOOTSTRAP_USERNAME", "root".into()),
            ("ADMIN_BOOTSTRAP_PASSWORD", BOOTSTRAP_PASSWORD.into()),
            ("ADMIN_STATIC_TOKEN", STATIC_TOKEN.into()),
        ],
        port,
    )
    .await;
    let api = Api {
        http: reqwest::Client::new(),
        base: proc.base_url.clone(),
    };
    let mut secrets: Vec<String> = [
        JWT_SECRET,
        ADMIN_JWT_SECRET,
        BOOTSTRAP_PASSWORD,
        STATIC_TOKEN,
        WRONG_STATIC_TOKEN,
        WRONG_PASSWORD,
        EDITOR_PASSWORD,
        NEW_PASSWORD,
        GARBAGE_BEARER,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();

    // API sign-in: wrong, then right
    let (status, _) = api
        .post(
            "/v1/admin/login",
            json!({"username": "root", "password": WRONG_PASSWORD}),
            None,
        )
        .await;
    assert_eq!(status, 401);
    let (status, login) = api
        .post(
            "/v1/admin/login",
            json!({"username": "root", "password": BOOTSTRAP_PASSWORD}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{login}");
    tokens(&login["data"], &mut secrets);
    let root = login["data"]["accessToken"].as_str().unwrap().to_string();
    let root_id = login["data"]["admin"]["id"].as_str().unwrap().to_string();

    // an account with a password, its reset, its sign-in
    let (status, created) = api
        .post(
            "/v1/admin/admins",
            json!({"username": "log-editor", "password": EDITOR_PASSWORD, "role": "admin"}),
            Some(&root),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let editor_id = created["data"]["id"].as_str().unwrap().to_string();
    let (status, reset) = api
        .post(
            &format!("/v1/admin/admins/{editor_id}/reset-password"),
            json!({}),
            Some(&root),
        )
        .await;
    assert_eq!(status, 200, "{reset}");
    let generated = reset["data"]["plainPassword"].as_str().unwrap().to_string();
    secrets.push(generated.clone());
    let (status, editor) = api
        .post(
            "/v1/admin/login",
            json!({"username": "log-editor", "password": generated}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{editor}");
    tokens(&editor["data"], &mut secrets);

    // the root's own password change, then a refresh with the fresh tokens
    let (status, changed) = api
        .call(
            reqwest::Method::PUT,
            "/v1/admin/change-password",
            Some(json!({"currentPassword": BOOTSTRAP_PASSWORD, "newPassword": NEW_PASSWORD})),
            Some(&root),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    tokens(&changed["data"], &mut secrets);
    let refresh = changed["data"]["tokens"]["refreshToken"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, renewed) = api
        .post("/v1/admin/refresh", json!({"refreshToken": refresh}), None)
        .await;
    assert_eq!(status, 200, "{renewed}");
    tokens(&renewed["data"], &mut secrets);
    let fresh = renewed["data"]["accessToken"].as_str().unwrap().to_string();
    let (status, _) = api
        .call(
            reqwest::Method::GET,
            &format!("/v1/admin/admins/{root_id}"),
            None,
            Some(&fresh),
        )
        .await;
    assert_eq!(status, 200);
    // MFA: the secret, its URI, the enabling code and the recovery codes; a sign-in with
    // a recovery code
    let (status, setup) = api
        .post(
            "/v1/admin/mfa/setup",
            json!({"currentPassword": NEW_PASSWORD}),
            Some(&fresh),
        )
        .await;
    assert_eq!(status, 200, "{setup}");
    let mfa_secret = setup["data"]["secret"].as_str().unwrap().to_string();
    secrets.push(mfa_secret.clone());
    secrets.push(setup["data"]["otpauthUri"].as_str().unwrap().to_string());
    let totp = totp_rs::Builder::new()
        .with_secret(totp_rs::Secret::try_from_base32(&mfa_secret).unwrap())
        .build()
        .unwrap();
    let code = totp.generate_current().to_string();
    let (status, enabled) = api
        .post(
            "/v1/admin/mfa/enable",
            json!({"code": code, "currentPassword": NEW_PASSWORD}),
            Some(&fresh),
        )
        .await;
    assert_eq!(status, 200, "{enabled}");
    let recovery: Vec<String> = enabled["data"]["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    secrets.extend(recovery.iter().cloned());
    let (status, with_code) = api
        .post(
            "/v1/admin/login",
            json!({"username": "root", "password": NEW_PASSWORD, "recoveryCode": recovery[0]}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{with_code}");
    tokens(&with_code["data"], &mut secrets);

    // the old token, a garbage bearer, the static token (right and wrong)
    for bad in [root.as_str(), GARBAGE_BEARER, STATIC_TOKEN] {
        let (status, _) = api
            .call(reqwest::Method::GET, "/v1/admin/stats", None, Some(bad))
            .await;
        assert_eq!(status, 401);
    }
    let (status, _) = api
        .post("/v1/admin/auth", json!({"token": STATIC_TOKEN}), None)
        .await;
    assert_eq!(status, 200);
    let (status, _) = api
        .post("/v1/admin/auth", json!({"token": WRONG_STATIC_TOKEN}), None)
        .await;
    assert_eq!(status, 401);

    // the HTML console: a wrong password, then a sign-in; its cookies and CSRF tokens
    let mut console = Console::new(&proc.base_url);
    let page = console.get("/console/login").await;
    secrets.extend(session_cookie(page.header("set-cookie")));
    secrets.push(console.csrf.clone());
    let page = console
        .post(
            "/console/login",
            &[("username", "root"), ("password", WRONG_PASSWORD)],
        )
        .await;
    assert!(page.status >= 400, "{}", page.status);
    let page = console
        .post(
            "/console/login",
            &[
                ("username", "root"),
                ("password", NEW_PASSWORD),
                ("code", &recovery[1]),
            ],
        )
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    let cookie = session_cookie(page.header("set-cookie")).expect("a new session cookie");
    secrets.push(cookie);
    console.get("/console").await.assert_status(200);
    secrets.push(console.csrf.clone());

    proc.signal("TERM");
    assert_eq!(proc.wait_exit(Duration::from_secs(15)).code(), Some(0));
    let text = log.finish();
    // the capture works
    assert!(text.contains("/v1/admin/login"), "{text}");
    let signatures: Vec<String> = secrets
        .iter()
        .filter(|s| s.matches('.').count() == 2)
        .filter_map(|s| s.rsplit('.').next().map(str::to_string))
        .filter(|sig| sig.len() >= 16)
        .collect();
    for secret in secrets.iter().chain(&signatures).filter(|s| s.len() >= 8) {
        if let Some(line) = text.lines().find(|l| l.contains(secret.as_str())) {
            panic!("{format} log line holds a secret ({secret}): {line}");
        }
    }
}

async fn no_secret_reaches_the_log(engine: Engine) {
    run(engine, "pretty").await;
    run(engine, "json").await;
}
