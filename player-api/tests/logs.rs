//! No secret in any log line: the real `player-api` binary with known secrets and the
//! most verbose filter, in both log formats, through every kind of sign-in, refresh,
//! refusal and account change; its whole standard output and error are then searched
//! for the configured secrets, every token it issued or was shown, the credentials it
//! was sent and the full phone number. (The console SMS provider logs its codes by
//! design, in development only: that code is the one value not searched for.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use jsonwebtoken::Algorithm;
use rsa::pkcs1::EncodeRsaPrivateKey;
use serde_json::{Value, json};
use shared::providers::oidc::testing::{TestKey, jwks};
use tests::capture::{Captured, start_captured};
use tests::process::free_port;
use tests::{Engine, TestDatabase, both_engines_raw};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const EXE: &str = env!("CARGO_BIN_EXE_player-api");

both_engines_raw!(no_secret_reaches_the_log, request_ids_reach_the_log_clean);

async fn request_ids_reach_the_log_clean(engine: Engine) {
    tests::capture::request_ids_reach_the_log_clean(EXE, "PLAYER_API_ADDR", engine).await;
}

const JWT_SECRET: &str = "player-jwt-secret-which-must-never-be-logged-41";
const ADMIN_JWT_SECRET: &str = "admin-jwt-secret-which-must-never-be-logged-42";
const HUAWEI_SECRET: &str = "huawei-client-secret-never-logged-43";
const HUAWEI_CODE: &str = "huawei-authorization-code-never-logged-44";
const GARBAGE_BEARER: &str = "garbage-bearer-token-never-logged-45";
const PHONE: &str = "13800138000";
const APPLE_CLIENT: &str = "com.example.quiz";
const APPLE_ISSUER: &str = "https://appleid.apple.com";

/// The 6-digit code the console SMS provider logged, waiting for the line to arrive.
async fn logged_code(log: &Captured) -> String {
    for _ in 0..200 {
        let text = log.now();
        if let Some(line) = text.lines().find(|l| l.contains("console SMS provider")) {
            let line = strip_ansi(line);
            // `code=123456` (pretty) or `"code":"123456"` (JSON)
            let at = line
                .find("code=")
                .or_else(|| line.find("\"code\":"))
                .unwrap_or_else(|| panic!("{line}"));
            let after = &line[at..];
            let digits: String = after
                .chars()
                .skip_while(|c| !c.is_ascii_digit())
                .take_while(char::is_ascii_digit)
                .collect();
            assert_eq!(digits.len(), 6, "{line}");
            return digits;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the console SMS provider logged no code: {}", log.now());
}

/// `line` without terminal colour sequences (`ESC [ … letter`).
fn strip_ansi(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn apple_key() -> TestKey {
    let private = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048).unwrap();
    TestKey::from_pkcs1_der("apple-log", private.to_pkcs1_der().unwrap().as_bytes()).unwrap()
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
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

/// Access and refresh token of a session answer (`data.tokens`, or `data` itself).
fn tokens(data: &Value, into: &mut Vec<String>) {
    for holder in [&data["tokens"], &data["session"]["tokens"], data] {
        for key in ["accessToken", "refreshToken"] {
            if let Some(t) = holder[key].as_str() {
                into.push(t.to_string());
            }
        }
    }
}

async fn run(engine: Engine, format: &str) {
    let fakes = MockServer::start().await;
    let key = apple_key();
    Mock::given(method("GET"))
        .and(path("/auth/keys"))
        .respond_with(ResponseTemplate::new(200).set_body_json(jwks(&[&key])))
        .mount(&fakes)
        .await;
    Mock::given(method("POST"))
        .and(path("/oauth2/v3/token"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": "invalid_grant"})))
        .mount(&fakes)
        .await;
    let database = TestDatabase::create(engine).await;
    let port = free_port();
    let uri = fakes.uri();
    let (mut proc, log) = start_captured(
        EXE,
        &[
            ("DATABASE_URL", database.url.clone()),
            ("PLAYER_API_ADDR", format!("127.0.0.1:{port}")),
            ("LOG_FORMAT", format.into()),
            ("RUST_LOG", "trace".into()),
            ("JWT_SECRET", JWT_SECRET.into()),
            ("ADMIN_JWT_SECRET", ADMIN_JWT_SECRET.into()),
            ("SMS_PROVIDER", "console".into()),
            ("HUAWEI_CLIENT_ID", "huawei-app".into()),
            ("HUAWEI_CLIENT_SECRET", HUAWEI_SECRET.into()),
            ("HUAWEI_TOKEN_URL", format!("{uri}/oauth2/v3/token")),
            ("HUAWEI_JWKS_URL", format!("{uri}/oauth2/v3/certs")),
            ("APPLE_CLIENT_ID", APPLE_CLIENT.into()),
            ("APPLE_JWKS_URL", format!("{uri}/auth/keys")),
            ("APPLE_ISSUER", APPLE_ISSUER.into()),
        ],
        port,
    )
    .await;
    let api = Client {
        http: reqwest::Client::new(),
        base: proc.base_url.clone(),
    };
    let mut secrets: Vec<String> = [
        JWT_SECRET,
        ADMIN_JWT_SECRET,
        HUAWEI_SECRET,
        HUAWEI_CODE,
        GARBAGE_BEARER,
        PHONE,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();

    // guest, me, refresh, a used refresh token, garbage and forged bearers
    let (status, guest) = api
        .post("/v1/auth/guest", json!({"deviceId": "log-device"}), None)
        .await;
    assert_eq!(status, 200, "{guest}");
    tokens(&guest["data"], &mut secrets);
    let access = guest["data"]["tokens"]["accessToken"].as_str().unwrap();
    let refresh = guest["data"]["tokens"]["refreshToken"].as_str().unwrap();
    assert_eq!(
        api.call(reqwest::Method::GET, "/v1/auth/me", None, Some(access))
            .await
            .0,
        200
    );
    let (status, renewed) = api
        .post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await;
    assert_eq!(status, 200, "{renewed}");
    tokens(&renewed["data"], &mut secrets);
    let (status, _) = api
        .post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await;
    assert_eq!(status, 401);
    // that reuse ended the sign-in: sign in again
    let (status, again) = api
        .post("/v1/auth/guest", json!({"deviceId": "log-device"}), None)
        .await;
    assert_eq!(status, 200, "{again}");
    tokens(&again["data"], &mut secrets);
    let guest_access = again["data"]["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    let forged = format!("{}x", &guest_access[..guest_access.len() - 1]);
    secrets.push(forged.clone());
    for bad in [GARBAGE_BEARER, forged.as_str()] {
        let (status, _) = api
            .call(reqwest::Method::GET, "/v1/auth/me", None, Some(bad))
            .await;
        assert_eq!(status, 401);
    }

    // phone: a wrong code, then the logged one
    let (status, sent) = api
        .post(
            "/v1/auth/phone/send-code",
            json!({"phoneNumber": PHONE}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{sent}");
    let code = logged_code(&log).await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let (status, _) = api
        .post(
            "/v1/auth/phone",
            json!({"phoneNumber": PHONE, "verifyCode": wrong}),
            None,
        )
        .await;
    assert_eq!(status, 401);
    let (status, phone) = api
        .post(
            "/v1/auth/phone",
            json!({"phoneNumber": PHONE, "verifyCode": code}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{phone}");
    tokens(&phone["data"], &mut secrets);
    let phone_access = phone["data"]["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();

    // HUAWEI: the token endpoint refuses the code
    let (status, _) = api
        .post(
            "/v1/auth/huawei",
            json!({"authorizationCode": HUAWEI_CODE}),
            None,
        )
        .await;
    assert_eq!(status, 401);

    // Apple sign-in and linking the guest with another Apple identity
    let now = chrono_now();
    let identity = |sub: &str| {
        key.sign(
            Algorithm::RS256,
            &json!({"iss": APPLE_ISSUER, "aud": APPLE_CLIENT, "sub": sub, "iat": now, "exp": now + 600}),
        )
    };
    let (apple_token, link_token) = (identity("apple-a"), identity("apple-b"));
    secrets.extend([apple_token.clone(), link_token.clone()]);
    let (status, apple) = api
        .post(
            "/v1/auth/ios_vendor",
            json!({"identityToken": apple_token}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{apple}");
    tokens(&apple["data"], &mut secrets);
    let (status, linked) = api
        .post(
            "/v1/auth/link",
            json!({"provider": "ios_vendor", "credential": {"identityToken": link_token}, "clientMigrationId": "log-link"}),
            Some(&guest_access),
        )
        .await;
    assert_eq!(status, 200, "{linked}");
    tokens(&linked["data"], &mut secrets);
    let linked_access = linked["data"]["session"]["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    let linked_refresh = linked["data"]["session"]["tokens"]["refreshToken"]
        .as_str()
        .unwrap()
        .to_string();

    // logout, deletion
    let (status, _) = api
        .post(
            "/v1/auth/logout",
            json!({"refreshToken": linked_refresh}),
            Some(&linked_access),
        )
        .await;
    assert_eq!(status, 200);
    let (status, _) = api
        .call(
            reqwest::Method::DELETE,
            "/v1/users/me",
            None,
            Some(&phone_access),
        )
        .await;
    assert_eq!(status, 200);

    proc.signal("TERM");
    assert_eq!(proc.wait_exit(Duration::from_secs(15)).code(), Some(0));
    let text = log.finish();
    // the capture works: requests and the SMS code were logged
    assert!(text.contains("console SMS provider"), "{text}");
    assert!(text.contains("/v1/auth/refresh"), "{text}");
    // each JWT's signature alone must not appear either
    let signatures: Vec<String> = secrets
        .iter()
        .filter(|s| s.matches('.').count() == 2)
        .filter_map(|s| s.rsplit('.').next().map(str::to_string))
        .filter(|sig| sig.len() >= 16)
        .collect();
    for secret in secrets.iter().chain(&signatures) {
        if let Some(line) = text.lines().find(|l| l.contains(secret.as_str())) {
            panic!("{format} log line holds a secret ({secret}): {line}");
        }
    }
}

fn chrono_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

async fn no_secret_reaches_the_log(engine: Engine) {
    run(engine, "pretty").await;
    run(engine, "json").await;
}
