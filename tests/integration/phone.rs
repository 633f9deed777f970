//! Phone sign-in: every row of the spec's phone error table, the resend window, the
//! daily abuse limits and the guess limit, with the console provider and with a fake of
//! Alibaba Cloud's verification service.

use chrono::Duration;
use futures::future::join_all;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tests::{Engine, Resp, TestApp};
use wiremock::matchers::{method, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

macro_rules! phone_tests {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() { super::$name(tests::Engine::Sqlite).await }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() { super::$name(tests::Engine::Postgres).await }
            }
        )*
    };
}

phone_tests!(
    console_sign_in_creates_then_finds_the_player,
    send_code_error_rows,
    sign_in_error_rows,
    resend_window_holds_under_concurrency,
    five_wrong_codes_kill_the_pending_code,
    daily_limits_per_number_and_per_address,
    unconfigured_sms_is_503,
    aliyun_sign_in_through_the_fake_service,
    aliyun_refusals_map_to_the_spec,
);

async fn console_app(engine: Engine, extra: &[(&str, String)]) -> TestApp {
    let mut vars = vec![("SMS_PROVIDER", "console".to_string())];
    vars.extend(extra.iter().cloned());
    TestApp::spawn_with(engine, &vars).await
}

async fn send(app: &TestApp, phone: &str) -> Resp {
    app.post(
        "/v1/auth/phone/send-code",
        json!({ "phoneNumber": phone }),
        None,
    )
    .await
}

async fn verify(app: &TestApp, phone: &str, code: &str) -> Resp {
    app.post(
        "/v1/auth/phone",
        json!({ "phoneNumber": phone, "verifyCode": code }),
        None,
    )
    .await
}

/// The console provider logs the code and stores only its hash; recover the code from
/// the hash (a million candidates) so the test goes through the real send path.
async fn console_code(app: &TestApp, phone: &str) -> String {
    let hash: String = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_scalar::<_, String>("SELECT code_hash FROM sms_codes WHERE phone = $1")
            .bind(phone)
            .fetch_one(ex)
            .await
            .unwrap()
    });
    let want: Vec<u8> = (0..hash.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hash[i..i + 2], 16).unwrap())
        .collect();
    let prefix = format!("{phone}:");
    tokio::task::spawn_blocking(move || {
        let mut code = *b"000000";
        for n in 0..1_000_000u32 {
            let mut v = n;
            for i in (0..6).rev() {
                code[i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
            if Sha256::new()
                .chain_update(prefix.as_bytes())
                .chain_update(code)
                .finalize()[..]
                == want[..]
            {
                return String::from_utf8(code.to_vec()).unwrap();
            }
        }
        panic!("the stored hash is not of a 6-digit code")
    })
    .await
    .unwrap()
}

async fn console_sign_in_creates_then_finds_the_player(engine: Engine) {
    let app = console_app(engine, &[]).await;
    let phone = "13800138000";
    assert!(send(&app, phone).await.ok().is_null());
    let code = console_code(&app, phone).await;
    let r = verify(&app, phone, &code).await;
    let first = r.ok()["user"]["id"].as_str().unwrap().to_string();
    // a used code does not work twice
    verify(&app, phone, &code)
        .await
        .assert_error(401, "INVALID_VERIFY_CODE");
    // later codes find the same player, which is a formal account
    app.clock.advance(Duration::seconds(61));
    send(&app, phone).await.ok();
    let code = console_code(&app, phone).await;
    let r = verify(&app, phone, &code).await;
    let data = r.ok();
    assert_eq!(data["user"]["id"], first.as_str());
    let token = data["tokens"]["accessToken"].as_str().unwrap();
    app.get("/v1/auth/me", Some(token)).await.ok();
    assert_eq!(
        app.scalar("SELECT count(*) FROM players WHERE is_guest = FALSE", &[])
            .await,
        1
    );
}

async fn send_code_error_rows(app_engine: Engine) {
    let app = console_app(app_engine, &[]).await;
    for bad in [
        "",
        "1380013800",
        "23800138000",
        "1380013800x",
        "+8613800138000",
    ] {
        send(&app, bad).await.assert_error(400, "VALIDATION_ERROR");
    }
    app.post("/v1/auth/phone/send-code", json!({}), None)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    send(&app, "13900139000").await.ok();
    app.clock.advance(Duration::seconds(30));
    let r = send(&app, "13900139000").await;
    r.assert_error(429, "RATE_LIMITED");
    let retry: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((29..=31).contains(&retry), "{retry}");
    app.clock.advance(Duration::seconds(31));
    send(&app, "13900139000").await.ok();
}

async fn sign_in_error_rows(engine: Engine) {
    let app = console_app(engine, &[]).await;
    let phone = "13700137000";
    verify(&app, "123", "123456")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    for bad_code in ["123", "123456789", "12ab56", ""] {
        verify(&app, phone, bad_code)
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    // no code sent yet
    verify(&app, phone, "123456")
        .await
        .assert_error(401, "INVALID_VERIFY_CODE");
    send(&app, phone).await.ok();
    let code = console_code(&app, phone).await;
    let wrong = if code == "000000" { "000001" } else { "000000" };
    verify(&app, phone, wrong)
        .await
        .assert_error(401, "INVALID_VERIFY_CODE");
    // expired after 5 minutes
    app.clock.advance(Duration::seconds(301));
    verify(&app, phone, &code)
        .await
        .assert_error(401, "INVALID_VERIFY_CODE");
}

async fn resend_window_holds_under_concurrency(engine: Engine) {
    let app = console_app(engine, &[]).await;
    let results = join_all((0..20).map(|_| send(&app, "13600136000"))).await;
    let sent = results.iter().filter(|r| r.status == 200).count();
    let limited = results.iter().filter(|r| r.status == 429).count();
    assert_eq!((sent, limited), (1, 19));
    assert_eq!(app.scalar("SELECT count(*) FROM sms_sends", &[]).await, 1);
}

async fn five_wrong_codes_kill_the_pending_code(engine: Engine) {
    let app = console_app(engine, &[]).await;
    let phone = "13500135000";
    send(&app, phone).await.ok();
    let code = console_code(&app, phone).await;
    let wrong = if code == "999999" { "999998" } else { "999999" };
    for _ in 0..5 {
        verify(&app, phone, wrong)
            .await
            .assert_error(401, "INVALID_VERIFY_CODE");
    }
    // the right code no longer works
    verify(&app, phone, &code)
        .await
        .assert_error(401, "INVALID_VERIFY_CODE");
    // a new code does
    app.clock.advance(Duration::seconds(61));
    send(&app, phone).await.ok();
    let code = console_code(&app, phone).await;
    verify(&app, phone, &code).await.ok();
}

async fn daily_limits_per_number_and_per_address(engine: Engine) {
    let app = console_app(engine, &[("TRUST_FORWARDED_FOR", "true".into())]).await;
    let send_from = |phone: &'static str, ip: &'static str| {
        let app = &app;
        async move {
            let r = app
                .client
                .post(format!("{}/v1/auth/phone/send-code", app.player_url))
                .header("x-forwarded-for", ip)
                .json(&json!({ "phoneNumber": phone }))
                .send()
                .await
                .unwrap();
            TestApp::read(r).await
        }
    };
    // per number: 10 a Beijing day, whatever the address
    for i in 0..10 {
        let ip = ["198.51.100.1", "198.51.100.2"][i % 2];
        send_from("13400134000", ip).await.ok();
        app.clock.advance(Duration::seconds(61));
    }
    let r = send_from("13400134000", "198.51.100.3").await;
    r.assert_error(429, "RATE_LIMITED");
    assert!(r.headers.contains_key("retry-after"));
    // per address: 20 a day, across numbers
    let phones: Vec<String> = (0..21).map(|i| format!("1330013{i:04}")).collect();
    for phone in &phones[..20] {
        let phone: &'static str = Box::leak(phone.clone().into_boxed_str());
        send_from(phone, "203.0.113.9").await.ok();
    }
    let last: &'static str = Box::leak(phones[20].clone().into_boxed_str());
    send_from(last, "203.0.113.9")
        .await
        .assert_error(429, "RATE_LIMITED");
    // a client-written entry left of the proxy's changes nothing
    send_from(last, "198.18.0.1, 203.0.113.9")
        .await
        .assert_error(429, "RATE_LIMITED");
    send_from(last, "203.0.113.10").await.ok();
    // IPv6 addresses count per /64: twenty addresses of one network share the limit
    for i in 0..20 {
        let phone: &'static str = Box::leak(format!("1550015{i:04}").into_boxed_str());
        let ip: &'static str = Box::leak(format!("2001:db8:7:7::{:x}", i + 1).into_boxed_str());
        send_from(phone, ip).await.ok();
    }
    send_from("15900159000", "2001:db8:7:7:ffff::9")
        .await
        .assert_error(429, "RATE_LIMITED");
    send_from("15900159000", "2001:db8:7:8::1").await.ok();
    // the next Beijing day starts afresh
    app.clock.advance(Duration::days(1));
    send_from("13400134000", "198.51.100.3").await.ok();
}

async fn unconfigured_sms_is_503(engine: Engine) {
    let app = TestApp::spawn(engine).await;
    send(&app, "13800138000")
        .await
        .assert_error(503, "SERVICE_UNAVAILABLE");
    verify(&app, "13800138000", "123456")
        .await
        .assert_error(503, "SERVICE_UNAVAILABLE");
    let r = app.get("/v1/auth/providers?platform=ios", None).await;
    let phone = r.ok()["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "phone_sms")
        .cloned()
        .unwrap();
    assert_eq!(phone["enabled"], false);
}

fn aliyun_vars(server: &MockServer) -> Vec<(&'static str, String)> {
    vec![
        ("SMS_PROVIDER", "aliyun".into()),
        ("ALIYUN_ACCESS_KEY_ID", "test-key-id".into()),
        ("ALIYUN_ACCESS_KEY_SECRET", "test-key-secret".into()),
        ("ALIYUN_SMS_SIGN_NAME", "QuizGame".into()),
        ("ALIYUN_SMS_TEMPLATE_CODE", "SMS_000001".into()),
        ("ALIYUN_DYPNS_ENDPOINT", server.uri()),
    ]
}

fn aliyun_ok(model: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "Code": "OK", "Message": "OK", "RequestId": "req-1", "Success": true, "Model": model
    }))
}

async fn aliyun_sign_in_through_the_fake_service(engine: Engine) {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(query_param("Action", "SendSmsVerifyCode"))
        .and(query_param("PhoneNumber", "13800138000"))
        .respond_with(aliyun_ok(json!({ "BizId": "biz-1" })))
        .expect(2)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(query_param("Action", "CheckSmsVerifyCode"))
        .and(query_param("VerifyCode", "246810"))
        .respond_with(aliyun_ok(json!({ "VerifyResult": "PASS" })))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(query_param("Action", "CheckSmsVerifyCode"))
        .respond_with(aliyun_ok(json!({ "VerifyResult": "UNKNOWN" })))
        .mount(&server)
        .await;
    let app = TestApp::spawn_with(engine, &aliyun_vars(&server)).await;
    send(&app, "13800138000").await.ok();
    // the service's own resend window is enforced here too
    send(&app, "13800138000")
        .await
        .assert_error(429, "RATE_LIMITED");
    verify(&app, "13800138000", "135790")
        .await
        .assert_error(401, "INVALID_VERIFY_CODE");
    let r = verify(&app, "13800138000", "246810").await;
    let id = r.ok()["user"]["id"].as_str().unwrap().to_string();
    app.clock.advance(Duration::seconds(61));
    send(&app, "13800138000").await.ok();
    let r = verify(&app, "13800138000", "246810").await;
    assert_eq!(r.ok()["user"]["id"], id.as_str());
    // every request to the service was signed
    for req in server.received_requests().await.unwrap() {
        let query = req.url.query().unwrap_or_default();
        assert!(query.contains("Signature="), "{query}");
        assert!(query.contains("AccessKeyId=test-key-id"), "{query}");
        assert!(!query.contains("test-key-secret"), "{query}");
    }
}

async fn aliyun_refusals_map_to_the_spec(engine: Engine) {
    let server = MockServer::start().await;
    let refuse = |code: &str| {
        ResponseTemplate::new(200).set_body_json(json!({
            "Code": code, "Message": "refused", "RequestId": "req-2", "Success": false
        }))
    };
    Mock::given(query_param("PhoneNumber", "13100131000"))
        .respond_with(refuse("isv.MOBILE_NUMBER_ILLEGAL"))
        .mount(&server)
        .await;
    Mock::given(query_param("PhoneNumber", "13200132000"))
        .respond_with(refuse("isv.BUSINESS_LIMIT_CONTROL"))
        .mount(&server)
        .await;
    Mock::given(query_param("PhoneNumber", "13300133000"))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream broke"))
        .mount(&server)
        .await;
    let app = TestApp::spawn_with(engine, &aliyun_vars(&server)).await;
    send(&app, "13100131000")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    send(&app, "13200132000")
        .await
        .assert_error(429, "RATE_LIMITED");
    send(&app, "13300133000")
        .await
        .assert_error(503, "SMS_PROVIDER_ERROR");
    // a failed send does not hold the resend window
    send(&app, "13300133000")
        .await
        .assert_error(503, "SMS_PROVIDER_ERROR");
    assert_eq!(app.scalar("SELECT count(*) FROM sms_sends", &[]).await, 0);
    // the service unreachable (nothing listens on port 9)
    let mut vars = aliyun_vars(&server);
    for (k, v) in vars.iter_mut() {
        if *k == "ALIYUN_DYPNS_ENDPOINT" {
            *v = "http://127.0.0.1:9".into();
        }
    }
    let offline = TestApp::spawn_with(engine, &vars).await;
    send(&offline, "13300133000")
        .await
        .assert_error(503, "SMS_PROVIDER_ERROR");
}
