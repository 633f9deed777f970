//! Admin sign-in hardening through the JSON API: failure throttling per username and
//! per client address (in the database, under concurrency), and TOTP MFA (enrolment,
//! sign-in with codes, replay, recovery codes, ADMIN_REQUIRE_MFA, super_admin reset).

use futures::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use tests::{Engine, Resp, Service, TestApp, both_engines, both_engines_raw, both_engines_with};

both_engines!(
    secrets_are_never_kept_by_caches,
    turning_mfa_on_ends_every_other_session,
    ten_wrong_codes_lock_the_codes_for_an_hour,
    a_super_admins_reset_lifts_a_lock_audited,
    totp_secrets_are_sealed_and_older_plain_ones_sealed_at_start,
    sixth_failure_of_a_username_is_throttled_even_with_the_right_password,
    successes_never_count_and_clear_the_usernames_failures,
    concurrent_wrong_guesses_judge_at_most_five,
    mfa_enrolment_sign_in_replay_recovery_and_disable,
    concurrent_sign_ins_with_one_code_succeed_once,
    super_admin_resets_another_admins_mfa_audited,
    a_stolen_session_alone_turns_mfa_neither_on_nor_off,
);

both_engines_with!(forwarded; eleven_failures_from_one_address_are_throttled_across_usernames);

both_engines_raw!(
    a_flood_of_attempts_is_refused_before_the_database,
    a_secrets_key_that_does_not_open_the_secrets_stops_the_console,
);

both_engines_with!(forwarded; sign_ins_are_audited_with_the_client_address_and_bounded);

both_engines_with!(require_mfa; require_mfa_holds_super_admins_to_the_setup_routes);

async fn forwarded(engine: Engine) -> TestApp {
    TestApp::spawn_with(engine, &[("TRUST_FORWARDED_FOR", "true".to_string())]).await
}

async fn require_mfa(engine: Engine) -> TestApp {
    TestApp::spawn_with(engine, &[("ADMIN_REQUIRE_MFA", "true".to_string())]).await
}

async fn login(app: &TestApp, body: Value) -> Resp {
    app.admin_post("/v1/admin/login", body, None).await
}

async fn login_from(app: &TestApp, address: &str, username: &str, password: &str) -> Resp {
    let resp = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/login"))
        .header("x-forwarded-for", address)
        .json(&json!({"username": username, "password": password}))
        .send()
        .await
        .unwrap();
    TestApp::read(resp).await
}

#[track_caller]
fn assert_throttled(r: &Resp, max_secs: u64) {
    r.assert_error(429, "RATE_LIMITED");
    let secs: u64 = r
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=max_secs).contains(&secs), "Retry-After {secs}");
}

async fn sixth_failure_of_a_username_is_throttled_even_with_the_right_password(app: TestApp) {
    let user = app.admin_username.clone();
    for _ in 0..5 {
        login(
            &app,
            json!({"username": user, "password": "wrong-password"}),
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
    }
    let r = login(
        &app,
        json!({"username": user, "password": "wrong-password"}),
    )
    .await;
    assert_throttled(&r, 60);
    let r = login(
        &app,
        json!({"username": user, "password": app.admin_password}),
    )
    .await;
    assert_throttled(&r, 60);
    // The username is normalised as usernames are (trimmed).
    let r = login(
        &app,
        json!({"username": format!("  {user} "), "password": app.admin_password}),
    )
    .await;
    assert_throttled(&r, 60);
    // Another username from the same address is unaffected (the address is at 5 of 10).
    login(
        &app,
        json!({"username": "someone-else", "password": "wrong-password"}),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    // The window is on the service clock: a minute on, the right password works.
    app.clock.advance(chrono::Duration::seconds(61));
    login(
        &app,
        json!({"username": user, "password": app.admin_password}),
    )
    .await
    .ok();
    // Ended windows are swept on the next attempt: the table stays bounded.
    app.clock.advance(chrono::Duration::minutes(11));
    login(
        &app,
        json!({"username": "x-user", "password": "wrong-password"}),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let rows = app
        .scalar("SELECT count(*) FROM admin_sign_in_failures", &[])
        .await;
    assert_eq!(
        rows, 2,
        "only the last attempt's username and address windows"
    );
}

async fn successes_never_count_and_clear_the_usernames_failures(app: TestApp) {
    let user = app.admin_username.clone();
    for _ in 0..8 {
        login(
            &app,
            json!({"username": user, "password": app.admin_password}),
        )
        .await
        .ok();
    }
    // A success clears the username's failures (documented): 4 + success + 4 stay 401.
    for round in 0..2 {
        for _ in 0..4 {
            login(
                &app,
                json!({"username": user, "password": "wrong-password"}),
            )
            .await
            .assert_error(401, "UNAUTHORIZED");
        }
        if round == 0 {
            login(
                &app,
                json!({"username": user, "password": app.admin_password}),
            )
            .await
            .ok();
        }
    }
    // Input refused before any check (too short) costs nothing and counts nothing.
    for _ in 0..10 {
        login(&app, json!({"username": user, "password": "short"}))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    login(
        &app,
        json!({"username": user, "password": "wrong-password"}),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let r = login(
        &app,
        json!({"username": user, "password": "wrong-password"}),
    )
    .await;
    assert_throttled(&r, 60);
}

async fn eleven_failures_from_one_address_are_throttled_across_usernames(app: TestApp) {
    let attacker = "203.0.113.7";
    for i in 0..10 {
        login_from(&app, attacker, &format!("guess-{i}"), "wrong-password")
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    let r = login_from(&app, attacker, "guess-10", "wrong-password").await;
    assert_throttled(&r, 600);
    // Even the right password of a real admin, from that address.
    let r = login_from(&app, attacker, &app.admin_username, &app.admin_password).await;
    assert_throttled(&r, 600);
    // The address is what the trusted proxy appended: a client-written entry changes
    // nothing.
    let r = login_from(
        &app,
        &format!("198.51.100.9, {attacker}"),
        "guess-11",
        "wrong-password",
    )
    .await;
    assert_throttled(&r, 600);
    // Another address is unaffected.
    login_from(
        &app,
        "198.51.100.1",
        &app.admin_username,
        &app.admin_password,
    )
    .await
    .ok();
    // IPv6 counts per /64: ten failures spread over one /64 fill its counter.
    for i in 0..10 {
        login_from(
            &app,
            &format!("2001:db8:1:2::{i:x}"),
            &format!("v6-{i}"),
            "wrong-password",
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
    }
    let r = login_from(&app, "2001:db8:1:2:ffff::1", "v6-x", "wrong-password").await;
    assert_throttled(&r, 600);
    login_from(&app, "2001:db8:1:3::1", "v6-x", "wrong-password")
        .await
        .assert_error(401, "UNAUTHORIZED");
    // Unknown usernames are throttled the same, and per username across addresses.
    for i in 1..=5 {
        login_from(&app, &format!("192.0.2.{i}"), "ghost", "wrong-password")
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    let r = login_from(&app, "192.0.2.6", "ghost", "wrong-password").await;
    assert_throttled(&r, 60);
    // Ten minutes on (service clock), the address may try again.
    app.clock.advance(chrono::Duration::minutes(10));
    login_from(&app, attacker, &app.admin_username, &app.admin_password)
        .await
        .ok();
}

async fn concurrent_wrong_guesses_judge_at_most_five(app: TestApp) {
    let user = app.admin_username.clone();
    let guesses = (0..30).map(|i| {
        let body = json!({"username": user, "password": format!("wrong-password-{i}")});
        login(&app, body)
    });
    let answers = join_all(guesses).await;
    let judged = answers.iter().filter(|r| r.status == 401).count();
    let throttled = answers.iter().filter(|r| r.status == 429).count();
    assert_eq!(
        (judged, throttled),
        (5, 25),
        "statuses: {:?}",
        answers.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    let stored = app
        .scalar("SELECT max(failures) FROM admin_sign_in_failures", &[])
        .await;
    assert_eq!(stored, 5);
}

// ---------------------------------------------------------------------------------------
// MFA

/// The TOTP code of `secret` `steps` steps after the instant `t0` (Unix seconds): what
/// an authenticator app shows then.
pub fn totp_code(secret: &str, t0: i64, steps: i64) -> String {
    let totp = totp_rs::Builder::new()
        .with_secret(totp_rs::Secret::try_from_base32(secret).unwrap())
        .build()
        .unwrap();
    totp.generate(u64::try_from(t0 + steps * 30).unwrap())
        .to_string()
}

/// Waits until the current TOTP step has at least 20 s left and returns now (Unix
/// seconds): codes of this step and the next, taken from it, stay valid for at least
/// 50 s (one step of skew either way), whatever the test's pace.
pub async fn fresh_totp_step() -> i64 {
    let into = chrono::Utc::now().timestamp_millis().rem_euclid(30_000);
    if into > 10_000 {
        tokio::time::sleep(std::time::Duration::from_millis(
            u64::try_from(30_000 - into + 200).unwrap(),
        ))
        .await;
    }
    chrono::Utc::now().timestamp()
}

async fn call(app: &TestApp, method: Method, path: &str, body: Option<Value>, token: &str) -> Resp {
    app.call(Service::Admin, method, path, body, Some(token))
        .await
}

/// Enrols `token`'s admin (of `password`: set-up, then enable with the code of `t0`'s step, which is
/// then spent); returns the secret, the recovery codes and the fresh access token the
/// enabling answered (`token` has ended with every other session of the admin).
pub async fn enrol(
    app: &TestApp,
    token: &str,
    password: &str,
    t0: i64,
) -> (String, Vec<String>, String) {
    let setup = call(
        app,
        Method::POST,
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": password})),
        token,
    )
    .await;
    let secret = setup.ok()["secret"].as_str().unwrap().to_string();
    let enabled = call(
        app,
        Method::POST,
        "/v1/admin/mfa/enable",
        Some(json!({"code": totp_code(&secret, t0, 0), "currentPassword": password})),
        token,
    )
    .await;
    let codes = enabled.ok()["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let fresh = enabled.ok()["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    (secret, codes, fresh)
}

async fn mfa_enrolment_sign_in_replay_recovery_and_disable(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let user = app.admin_username.clone();
    let pass = app.admin_password.clone();
    let (token, _, admin_id) = app.admin_login().await;
    let status = call(&app, Method::GET, "/v1/admin/mfa", None, &token).await;
    assert_eq!(status.ok()["mfaEnabled"], false);
    // Set-up: a base32 secret and its otpauth URI; again before enabling replaces it.
    let first = call(
        &app,
        Method::POST,
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": app.admin_password})),
        &token,
    )
    .await;
    let first_secret = first.ok()["secret"].as_str().unwrap().to_string();
    let uri = first.ok()["otpauthUri"].as_str().unwrap();
    assert!(
        uri.starts_with(&format!("otpauth://totp/QuizGame:{user}?")),
        "{uri}"
    );
    assert!(uri.contains(&format!("secret={first_secret}")) && uri.contains("issuer=QuizGame"));
    let second = call(
        &app,
        Method::POST,
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": app.admin_password})),
        &token,
    )
    .await;
    let secret = second.ok()["secret"].as_str().unwrap().to_string();
    assert_ne!(secret, first_secret);
    assert_eq!(
        call(&app, Method::GET, "/v1/admin/mfa", None, &token)
            .await
            .ok()["pending"],
        true
    );
    // Enable: a wrong code, then the replaced secret's code, then the right one.
    let enable = |code: String| {
        call(
            &app,
            Method::POST,
            "/v1/admin/mfa/enable",
            Some(json!({"code": code, "currentPassword": app.admin_password})),
            &token,
        )
    };
    let wrong = if totp_code(&secret, t0, 0) == "000000" {
        "111111"
    } else {
        "000000"
    };
    enable(wrong.to_string())
        .await
        .assert_error(400, "VALIDATION_ERROR");
    if totp_code(&first_secret, t0, 0) != totp_code(&secret, t0, 0) {
        enable(totp_code(&first_secret, t0, 0))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    let enabled = enable(totp_code(&secret, t0, 0)).await;
    let codes: Vec<String> = enabled.ok()["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes.len(), 10);
    // The session that turned MFA on carries on with the answer's fresh tokens.
    let token = enabled.ok()["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    // Stored hashed, never as given; the secret is nowhere but in admin_mfa.
    let stored = app
        .text("SELECT code_hash FROM admin_recovery_codes LIMIT 1", &[])
        .await;
    assert!(stored.len() == 64 && !codes.contains(&stored));
    // While on: set-up and enable are 409.
    call(
        &app,
        Method::POST,
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": app.admin_password})),
        &token,
    )
    .await
    .assert_error(409, "CONFLICT");
    call(
        &app,
        Method::POST,
        "/v1/admin/mfa/enable",
        Some(json!({"code": totp_code(&secret, t0, 0), "currentPassword": app.admin_password})),
        &token,
    )
    .await
    .assert_error(409, "CONFLICT");
    let account = call(
        &app,
        Method::GET,
        &format!("/v1/admin/admins/{admin_id}"),
        None,
        &token,
    )
    .await;
    assert_eq!(account.ok()["mfaEnabled"], true);

    // Sign-in: no code after a right password → MFA_REQUIRED; a wrong password never
    // says whether MFA is on.
    login(&app, json!({"username": user, "password": pass}))
        .await
        .assert_error(401, "MFA_REQUIRED");
    login(
        &app,
        json!({"username": user, "password": "wrong-password"}),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    login(&app, json!({"username": user, "password": "wrong-password", "totpCode": totp_code(&secret, t0, 1)}))
        .await
        .assert_error(401, "UNAUTHORIZED");
    login(
        &app,
        json!({"username": user, "password": pass, "totpCode": wrong}),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    // The enabling code's step is spent; the next step's code signs in, once.
    login(
        &app,
        json!({"username": user, "password": pass, "totpCode": totp_code(&secret, t0, 0)}),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let next = totp_code(&secret, t0, 1);
    let signed_in = login(
        &app,
        json!({"username": user, "password": pass, "totpCode": next}),
    )
    .await;
    let fresh = signed_in.ok()["accessToken"].as_str().unwrap().to_string();
    login(
        &app,
        json!({"username": user, "password": pass, "totpCode": next}),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    // A recovery code works once (typed loosely).
    let loose = codes[0].to_uppercase().replace('-', " ");
    login(
        &app,
        json!({"username": user, "password": pass, "recoveryCode": loose}),
    )
    .await
    .ok();
    login(
        &app,
        json!({"username": user, "password": pass, "recoveryCode": codes[0]}),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let status = call(&app, Method::GET, "/v1/admin/mfa", None, &fresh).await;
    assert_eq!(status.ok()["recoveryCodesLeft"], 9);
    // Admin refresh keeps working for a signed-in admin.
    let refresh = signed_in.ok()["refreshToken"].as_str().unwrap();
    app.admin_post("/v1/admin/refresh", json!({"refreshToken": refresh}), None)
        .await
        .ok();

    // Disable: a wrong code is refused, a recovery code works; then the password alone.
    let disable = |code: String| {
        call(
            &app,
            Method::POST,
            "/v1/admin/mfa/disable",
            Some(json!({"code": code, "currentPassword": app.admin_password})),
            &fresh,
        )
    };
    disable("nope-nope-nope".into())
        .await
        .assert_error(400, "VALIDATION_ERROR");
    disable(codes[0].clone())
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let off = disable(codes[1].clone()).await;
    assert_eq!(off.ok()["mfaEnabled"], false);
    disable(codes[2].clone())
        .await
        .assert_error(409, "CONFLICT");
    assert_eq!(
        app.scalar("SELECT count(*) FROM admin_recovery_codes", &[])
            .await,
        0
    );
    login(&app, json!({"username": user, "password": pass}))
        .await
        .ok();
    // Enable and disable are audited.
    let log = call(
        &app,
        Method::GET,
        "/v1/admin/audit-log?limit=50",
        None,
        &fresh,
    )
    .await;
    let actions: Vec<&str> = log
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert!(
        actions.contains(&"admin.mfa_enable") && actions.contains(&"admin.mfa_disable"),
        "{actions:?}"
    );
}

async fn concurrent_sign_ins_with_one_code_succeed_once(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (token, _, _) = app.admin_login().await;
    let (secret, _, _) = enrol(&app, &token, &app.admin_password, t0).await;
    let code = totp_code(&secret, t0, 1);
    let body =
        json!({"username": app.admin_username, "password": app.admin_password, "totpCode": code});
    let answers = join_all((0..5).map(|_| login(&app, body.clone()))).await;
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 401),
        "{statuses:?}"
    );
}

async fn require_mfa_holds_super_admins_to_the_setup_routes(app: TestApp) {
    let t0 = fresh_totp_step().await;
    // A super_admin without MFA signs in and refreshes, and reaches only the MFA set-up.
    let (token, refresh, _) = app.admin_login().await;
    let r = app.admin_get("/v1/admin/admins", Some(&token)).await;
    r.assert_error(403, "FORBIDDEN");
    assert!(
        r.body["error"]["message"].as_str().unwrap().contains("MFA"),
        "{}",
        r.body
    );
    app.admin_get("/v1/admin/questions", Some(&token))
        .await
        .assert_error(403, "FORBIDDEN");
    let pair = app
        .admin_post("/v1/admin/refresh", json!({"refreshToken": refresh}), None)
        .await;
    let token = pair.ok()["accessToken"].as_str().unwrap().to_string();
    app.admin_get("/v1/admin/mfa", Some(&token)).await.ok();
    let (secret, _, token) = enrol(&app, &token, &app.admin_password, t0).await;
    // With MFA on, the enabling session's fresh token reaches everything.
    app.admin_get("/v1/admin/admins", Some(&token)).await.ok();
    // A plain admin is not held back.
    let created = call(
        &app,
        Method::POST,
        "/v1/admin/admins",
        Some(json!({"username": "editor-1", "password": "editor-pass-1", "role": "admin"})),
        &token,
    )
    .await;
    created.ok();
    let editor = login(
        &app,
        json!({"username": "editor-1", "password": "editor-pass-1"}),
    )
    .await;
    let editor_token = editor.ok()["accessToken"].as_str().unwrap().to_string();
    app.admin_get("/v1/admin/admins", Some(&editor_token))
        .await
        .ok();
    // Sign-in now needs the code.
    login(
        &app,
        json!({"username": app.admin_username, "password": app.admin_password}),
    )
    .await
    .assert_error(401, "MFA_REQUIRED");
    login(
        &app,
        json!({"username": app.admin_username, "password": app.admin_password, "totpCode": totp_code(&secret, t0, 1)}),
    )
    .await
    .ok();
}

async fn super_admin_resets_another_admins_mfa_audited(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (token, _, _) = app.admin_login().await;
    let created = call(
        &app,
        Method::POST,
        "/v1/admin/admins",
        Some(json!({"username": "editor-1", "password": "editor-pass-1", "role": "admin"})),
        &token,
    )
    .await;
    let editor_id = created.ok()["id"].as_str().unwrap().to_string();
    let editor = login(
        &app,
        json!({"username": "editor-1", "password": "editor-pass-1"}),
    )
    .await;
    let editor_token = editor.ok()["accessToken"].as_str().unwrap().to_string();
    let (_, _, editor_token) = enrol(&app, &editor_token, "editor-pass-1", t0).await;
    app.admin_get("/v1/admin/stats", Some(&editor_token))
        .await
        .ok();
    login(
        &app,
        json!({"username": "editor-1", "password": "editor-pass-1"}),
    )
    .await
    .assert_error(401, "MFA_REQUIRED");
    // Only a super_admin resets.
    let root_id = app
        .text(
            "SELECT id FROM admins WHERE username = $1",
            &[&app.admin_username],
        )
        .await;
    call(
        &app,
        Method::DELETE,
        &format!("/v1/admin/admins/{root_id}/mfa"),
        None,
        &editor_token,
    )
    .await
    .assert_error(403, "FORBIDDEN");
    call(
        &app,
        Method::DELETE,
        "/v1/admin/admins/nobody/mfa",
        None,
        &token,
    )
    .await
    .assert_error(404, "NOT_FOUND");
    let reset = call(
        &app,
        Method::DELETE,
        &format!("/v1/admin/admins/{editor_id}/mfa"),
        None,
        &token,
    )
    .await;
    assert_eq!(reset.ok()["mfaEnabled"], false);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM admin_recovery_codes WHERE admin_id = $1",
            &[&editor_id]
        )
        .await,
        0
    );
    // whoever was signed in with the old factor signs in again
    app.admin_get("/v1/admin/stats", Some(&editor_token))
        .await
        .assert_error(401, "UNAUTHORIZED");
    // one's own MFA goes only with a code of it (`disable`), never by a reset
    call(
        &app,
        Method::DELETE,
        &format!("/v1/admin/admins/{root_id}/mfa"),
        None,
        &token,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    login(
        &app,
        json!({"username": "editor-1", "password": "editor-pass-1"}),
    )
    .await
    .ok();
    let log = call(
        &app,
        Method::GET,
        "/v1/admin/audit-log?limit=50",
        None,
        &token,
    )
    .await;
    let entry = log
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "admin.mfa_reset")
        .cloned()
        .expect("an admin.mfa_reset entry");
    assert_eq!(entry["targetId"], editor_id.as_str());
    assert_eq!(entry["actorUsername"], app.admin_username.as_str());
    assert_eq!(entry["before"]["mfaEnabled"], true);
    assert_eq!(entry["after"]["mfaEnabled"], false);
}

/// A flood of attempts from one address is refused in the process, before any write to
/// the database's counters (`RATE_LIMIT_AUTH_PER_MINUTE`, as on the player API's
/// sign-in routes): only the first few attempts reach them.
async fn a_flood_of_attempts_is_refused_before_the_database(engine: Engine) {
    let app = TestApp::spawn_with(
        engine,
        &[
            ("TRUST_FORWARDED_FOR", "true".to_string()),
            ("RATE_LIMIT_AUTH_PER_MINUTE", "3".to_string()),
        ],
    )
    .await;
    for i in 0..3 {
        login_from(
            &app,
            "198.51.100.40",
            &format!("nobody-{i}"),
            "wrong-password",
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
    }
    let counters = app
        .scalar("SELECT count(*) FROM admin_sign_in_failures", &[])
        .await;
    for i in 0..20 {
        let r = login_from(
            &app,
            "198.51.100.40",
            &format!("flood-{i}"),
            "wrong-password",
        )
        .await;
        r.assert_error(429, "RATE_LIMITED");
        assert!(r.headers.contains_key("retry-after"));
    }
    assert_eq!(
        app.scalar("SELECT count(*) FROM admin_sign_in_failures", &[])
            .await,
        counters,
        "refused attempts wrote nothing"
    );
    // another address is not affected
    login_from(
        &app,
        "198.51.100.41",
        &app.admin_username,
        &app.admin_password,
    )
    .await
    .ok();
}

/// Answers that carry tokens, TOTP secrets or a signed-in page say `no-store`; the
/// console's static assets stay cacheable.
async fn secrets_are_never_kept_by_caches(app: TestApp) {
    let login = app
        .admin_post(
            "/v1/admin/login",
            json!({"username": app.admin_username, "password": app.admin_password}),
            None,
        )
        .await;
    assert_eq!(login.headers["cache-control"], "no-store");
    let token = login.ok()["accessToken"].as_str().unwrap().to_string();
    let setup = call(
        &app,
        Method::POST,
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": app.admin_password})),
        &token,
    )
    .await;
    assert!(setup.ok()["secret"].is_string());
    assert_eq!(setup.headers["cache-control"], "no-store");
    let page = app
        .client
        .get(app.url(Service::Admin, "/console/login"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.headers()["cache-control"], "no-store");
    let css = app
        .client
        .get(app.url(Service::Admin, "/console-assets/css/console.css"))
        .send()
        .await
        .unwrap();
    assert_eq!(css.status(), 200);
    assert_ne!(
        css.headers()
            .get("cache-control")
            .map(|v| v.to_str().unwrap()),
        Some("no-store")
    );
}

// ---------------------------------------------------------------------------------------
// Issue 28: sessions after MFA, the wrong-code lock, sealed secrets, audited sign-ins

/// A 6-digit code that is none of the secret's codes around `t0` (a wrong guess).
fn wrong_code(secret: &str, t0: i64) -> String {
    let near: Vec<String> = (-1..=2).map(|k| totp_code(secret, t0, k)).collect();
    (0..)
        .map(|n| format!("{n:06}"))
        .find(|c| !near.contains(c))
        .unwrap()
}

/// A sign-in body with a second factor (`totpCode` or `recoveryCode`).
fn with_factor(username: &str, password: &str, field: &str, code: &str) -> Value {
    let mut body = json!({"username": username, "password": password});
    body[field] = json!(code);
    body
}

/// The audit entries of `action` (newest first).
async fn audited(app: &TestApp, token: &str, action: &str) -> Vec<Value> {
    let log = call(
        app,
        Method::GET,
        "/v1/admin/audit-log?limit=50",
        None,
        token,
    )
    .await;
    log.ok()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == action)
        .cloned()
        .collect()
}

async fn turning_mfa_on_ends_every_other_session(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (token, refresh, _) = app.admin_login().await;
    let (other, other_refresh, _) = app.admin_login().await;
    let mut browser = app.console_signed_in().await;
    let setup = call(
        &app,
        Method::POST,
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": app.admin_password})),
        &token,
    )
    .await;
    let secret = setup.ok()["secret"].as_str().unwrap().to_string();
    // Setting up changes nothing yet.
    app.admin_get("/v1/admin/mfa", Some(&other)).await.ok();
    browser.get("/console").await.assert_status(200);
    let enabled = call(
        &app,
        Method::POST,
        "/v1/admin/mfa/enable",
        Some(json!({"code": totp_code(&secret, t0, 0), "currentPassword": app.admin_password})),
        &token,
    )
    .await;
    let fresh = enabled.ok()["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    let fresh_refresh = enabled.ok()["tokens"]["refreshToken"]
        .as_str()
        .unwrap()
        .to_string();
    // Every session made with the password alone has ended: access and refresh tokens,
    // the console session.
    for old in [&token, &other] {
        app.admin_get("/v1/admin/mfa", Some(old))
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    for old in [&refresh, &other_refresh] {
        app.admin_post("/v1/admin/refresh", json!({"refreshToken": old}), None)
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    let gone = browser.get("/console").await;
    gone.assert_status(303);
    assert_eq!(gone.location(), Some("/console/login"));
    // The caller carries on with the answer's pair.
    let status = app.admin_get("/v1/admin/mfa", Some(&fresh)).await;
    assert_eq!(status.ok()["mfaEnabled"], true);
    app.admin_post(
        "/v1/admin/refresh",
        json!({"refreshToken": fresh_refresh}),
        None,
    )
    .await
    .ok();
}

/// Ten minutes and a second of the service clock: both sign-in throttle windows (per
/// username a minute, per address ten) have ended, the wrong-code run's hour has not.
fn next_throttle_windows(app: &TestApp) {
    app.clock.advance(chrono::Duration::seconds(601));
}

/// Sends `n` wrong codes through the sign-in, five per window of the sign-in throttle
/// (which they fill), each refused as a wrong code; the windows move on after the last.
async fn send_wrong_codes(app: &TestApp, username: &str, password: &str, code: &str, n: usize) {
    for i in 0..n {
        if i > 0 && i % 5 == 0 {
            next_throttle_windows(app);
        }
        login(app, with_factor(username, password, "totpCode", code))
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    next_throttle_windows(app);
}

#[track_caller]
fn assert_codes_locked(r: &Resp) {
    r.assert_error(429, "RATE_LIMITED");
    assert!(
        r.body["error"]["message"].as_str().unwrap().contains("MFA"),
        "{}",
        r.body
    );
    let secs: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    // what is left of the lock's hour, not a throttle window (at most ten minutes)
    assert!((1200..=3600).contains(&secs), "Retry-After {secs}");
}

async fn ten_wrong_codes_lock_the_codes_for_an_hour(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (token, _, root_id) = app.admin_login().await;
    let (secret, codes, token) = enrol(&app, &token, &app.admin_password, t0).await;
    let (user, pass) = (app.admin_username.clone(), app.admin_password.clone());
    let wrong = wrong_code(&secret, t0);
    // Nine wrong codes: eight at sign-in, one turning MFA off (it counts too) ...
    send_wrong_codes(&app, &user, &pass, &wrong, 8).await;
    call(
        &app,
        Method::POST,
        "/v1/admin/mfa/disable",
        Some(json!({"code": wrong, "currentPassword": app.admin_password})),
        &token,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // ... and a wrong recovery code, the tenth within the hour: judged, then locked.
    login(
        &app,
        with_factor(&user, &pass, "recoveryCode", "aaaa-bbbb-cccc-dddd"),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    next_throttle_windows(&app);
    // Now even the right code, a recovery code, and turning MFA off are refused.
    let r = login(
        &app,
        with_factor(&user, &pass, "totpCode", &totp_code(&secret, t0, 1)),
    )
    .await;
    assert_codes_locked(&r);
    let r = login(&app, with_factor(&user, &pass, "recoveryCode", &codes[0])).await;
    assert_codes_locked(&r);
    let r = call(
        &app,
        Method::POST,
        "/v1/admin/mfa/disable",
        Some(json!({"code": codes[1], "currentPassword": app.admin_password})),
        &token,
    )
    .await;
    assert_codes_locked(&r);
    // The lock is audited once, by the service, on the admin.
    let locks = audited(&app, &token, "admin.mfa_lock").await;
    assert_eq!(locks.len(), 1, "{locks:?}");
    assert_eq!(locks[0]["targetId"], root_id.as_str());
    assert_eq!(locks[0]["actorUsername"], "system");
    assert_eq!(locks[0]["after"]["wrongCodes"], 10);
    let failed = audited(&app, &token, "admin.login_failed").await;
    let reasons = |reason: &str| {
        failed
            .iter()
            .filter(|e| e["after"]["reason"] == reason)
            .count()
    };
    assert_eq!((reasons("mfa_code"), reasons("mfa_locked")), (9, 2));
    // The locked attempts spent nothing: an hour on, the same codes sign in.
    app.clock.advance(chrono::Duration::minutes(60));
    let signed_in = login(
        &app,
        with_factor(&user, &pass, "totpCode", &totp_code(&secret, t0, 1)),
    )
    .await;
    let fresh = signed_in.ok()["accessToken"].as_str().unwrap().to_string();
    login(&app, with_factor(&user, &pass, "recoveryCode", &codes[0]))
        .await
        .ok();
    let status = app.admin_get("/v1/admin/mfa", Some(&fresh)).await;
    assert_eq!(status.ok()["recoveryCodesLeft"], 9);
    // and a new run of wrong codes starts from one
    login(&app, with_factor(&user, &pass, "totpCode", &wrong))
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn a_super_admins_reset_lifts_a_lock_audited(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (token, _, _) = app.admin_login().await;
    let created = call(
        &app,
        Method::POST,
        "/v1/admin/admins",
        Some(json!({"username": "editor-1", "password": "editor-pass-1", "role": "admin"})),
        &token,
    )
    .await;
    let editor_id = created.ok()["id"].as_str().unwrap().to_string();
    let editor = login(
        &app,
        json!({"username": "editor-1", "password": "editor-pass-1"}),
    )
    .await;
    let editor_token = editor.ok()["accessToken"].as_str().unwrap().to_string();
    let (secret, _, _) = enrol(&app, &editor_token, "editor-pass-1", t0).await;
    send_wrong_codes(
        &app,
        "editor-1",
        "editor-pass-1",
        &wrong_code(&secret, t0),
        10,
    )
    .await;
    let r = login(
        &app,
        with_factor(
            "editor-1",
            "editor-pass-1",
            "totpCode",
            &totp_code(&secret, t0, 1),
        ),
    )
    .await;
    assert_codes_locked(&r);
    // A super_admin's reset lifts the lock with the factor: the password signs in.
    call(
        &app,
        Method::DELETE,
        &format!("/v1/admin/admins/{editor_id}/mfa"),
        None,
        &token,
    )
    .await
    .ok();
    login(
        &app,
        json!({"username": "editor-1", "password": "editor-pass-1"}),
    )
    .await
    .ok();
    let resets = audited(&app, &token, "admin.mfa_reset").await;
    assert_eq!(resets.len(), 1);
    assert_eq!(resets[0]["targetId"], editor_id.as_str());
    assert!(
        resets[0]["before"]["mfaCodesLockedUntil"].is_string(),
        "{}",
        resets[0]
    );
    assert_eq!(audited(&app, &token, "admin.mfa_lock").await.len(), 1);
}

async fn totp_secrets_are_sealed_and_older_plain_ones_sealed_at_start(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (token, _, admin_id) = app.admin_login().await;
    let setup = call(
        &app,
        Method::POST,
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": app.admin_password})),
        &token,
    )
    .await;
    let secret = setup.ok()["secret"].as_str().unwrap().to_string();
    let stored = |column: &'static str| {
        let sql = match column {
            "pending" => "SELECT pending_secret FROM admin_mfa",
            _ => "SELECT secret FROM admin_mfa",
        };
        app.text(sql, &[])
    };
    // The pending secret is sealed already; the set-up page still shows it.
    let pending = stored("pending").await;
    assert!(
        pending.starts_with("v1.") && !pending.contains(&secret),
        "{pending}"
    );
    let again = call(&app, Method::GET, "/v1/admin/mfa", None, &token).await;
    assert_eq!(again.ok()["pending"], true);
    let enabled = call(
        &app,
        Method::POST,
        "/v1/admin/mfa/enable",
        Some(json!({"code": totp_code(&secret, t0, 0), "currentPassword": app.admin_password})),
        &token,
    )
    .await;
    enabled.ok();
    let sealed = stored("confirmed").await;
    assert!(
        sealed.starts_with("v1.") && !sealed.contains(&secret),
        "{sealed}"
    );
    // A secret stored before sealing (as an older version wrote it) still signs in ...
    app.exec(
        "UPDATE admin_mfa SET secret = $1, last_used_step = 0 WHERE admin_id = $2",
        &[&secret, &admin_id],
    )
    .await;
    let (user, pass) = (app.admin_username.clone(), app.admin_password.clone());
    login(
        &app,
        with_factor(&user, &pass, "totpCode", &totp_code(&secret, t0, 0)),
    )
    .await
    .ok();
    // ... and the console's start seals it, once, in place.
    admin_console::bootstrap_admin(&app.ctx).await.unwrap();
    let resealed = stored("confirmed").await;
    assert!(
        resealed.starts_with("v1.") && !resealed.contains(&secret),
        "{resealed}"
    );
    admin_console::bootstrap_admin(&app.ctx).await.unwrap();
    assert_eq!(stored("confirmed").await, resealed);
    login(
        &app,
        with_factor(&user, &pass, "totpCode", &totp_code(&secret, t0, 1)),
    )
    .await
    .ok();
}

async fn a_secrets_key_that_does_not_open_the_secrets_stops_the_console(engine: Engine) {
    const KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    const OTHER_KEY: &str = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA=";
    let app = TestApp::spawn_with(engine, &[("SECRETS_KEY", KEY.to_string())]).await;
    let t0 = fresh_totp_step().await;
    let (token, _, _) = app.admin_login().await;
    enrol(&app, &token, &app.admin_password, t0).await;
    let start = |key: &'static str| {
        let url = app.database.url.clone();
        async move {
            let settings =
                tests::settings_with(&[("DATABASE_URL", url), ("SECRETS_KEY", key.to_string())]);
            let ctx = shared::context::AppContext::start(settings, shared::clock::Clock::system())
                .await
                .unwrap();
            admin_console::bootstrap_admin(&ctx).await
        }
    };
    let refused = start(OTHER_KEY).await.unwrap_err().to_string();
    assert!(
        refused.contains("SECRETS_KEY does not open the stored TOTP secrets of 1 admin"),
        "{refused}"
    );
    assert!(!refused.contains(OTHER_KEY) && !refused.contains(KEY));
    start(KEY).await.unwrap();
}

async fn sign_ins_are_audited_with_the_client_address_and_bounded(app: TestApp) {
    let (user, pass) = (app.admin_username.clone(), app.admin_password.clone());
    let ok = login_from(&app, "203.0.113.9", &user, &pass).await;
    let token = ok.ok()["accessToken"].as_str().unwrap().to_string();
    let root_id = ok.ok()["admin"]["id"].as_str().unwrap().to_string();
    login_from(&app, "198.51.100.7", &user, "wrong-password")
        .await
        .assert_error(401, "UNAUTHORIZED");
    // A password typed into the username field is never stored.
    login_from(
        &app,
        "2001:db8:1:2::7",
        "Hunter2-typed-here",
        "wrong-password",
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    // Refused before judging (malformed): not audited.
    login_from(&app, "198.51.100.7", &user, "short")
        .await
        .assert_error(400, "VALIDATION_ERROR");

    let signed_in = audited(&app, &token, "admin.login").await;
    assert_eq!(signed_in.len(), 1, "{signed_in:?}");
    assert_eq!(signed_in[0]["targetId"], root_id.as_str());
    assert_eq!(signed_in[0]["actorUsername"], user.as_str());
    assert_eq!(
        signed_in[0]["after"],
        json!({"channel": "api", "clientAddress": "203.0.113.9"})
    );
    let failed = audited(&app, &token, "admin.login_failed").await;
    assert_eq!(failed.len(), 2, "{failed:?}");
    // newest first: the unknown username (the whole IPv6 address), then the wrong password
    assert!(failed[0]["targetId"].is_null());
    assert_eq!(failed[0]["actorUsername"], "anonymous");
    assert_eq!(failed[0]["after"]["clientAddress"], "2001:db8:1:2::7");
    assert_eq!(failed[1]["targetId"], root_id.as_str());
    assert_eq!(
        failed[1]["after"],
        json!({"channel": "api", "clientAddress": "198.51.100.7", "reason": "password"})
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE actor_username LIKE '%Hunter2%'
                OR after_state LIKE '%Hunter2%' OR COALESCE(target_id, '') LIKE '%Hunter2%'",
            &[],
        )
        .await,
        0
    );
    // The console's sign-in is audited the same, as its channel.
    let mut browser = app.console();
    browser.sign_in(&user, &pass).await;
    let signed_in = audited(&app, &token, "admin.login").await;
    assert_eq!(signed_in[0]["after"]["channel"], "console");
    assert_eq!(signed_in[0]["after"]["clientAddress"], "127.0.0.1");

    // A flood from one address adds no more entries than the throttle judges: 10.
    let flood = "192.0.2.50";
    for i in 0..30 {
        let r = login_from(&app, flood, &format!("guess-{i}"), "wrong-password").await;
        assert!(matches!(r.status, 401 | 429), "{}", r.status);
    }
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log
             WHERE action = 'admin.login_failed' AND after_state LIKE '%192.0.2.50%'",
            &[],
        )
        .await,
        10
    );
}

/// Issue 53: with an admin's access token alone (a stolen session), MFA can be neither
/// set up, turned on nor off: each takes the password typed again, a wrong one counts
/// as a failed sign-in (the sixth within the minute is throttled, as at a password
/// change), and every change is audited and listed at the admin's next sign-in.
async fn a_stolen_session_alone_turns_mfa_neither_on_nor_off(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (user, pass) = (app.admin_username.clone(), app.admin_password.clone());
    let (stolen, _, admin_id) = app.admin_login().await;
    let post = |path: &'static str, body: Option<Value>| {
        let (app, stolen) = (&app, stolen.clone());
        async move { call(app, Method::POST, path, body, &stolen).await }
    };
    // no password: refused before anything is judged
    post("/v1/admin/mfa/setup", None)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    post("/v1/admin/mfa/setup", Some(json!({})))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // a wrong one: 401, counted with the sign-ins; the sixth in the minute is throttled
    for _ in 0..5 {
        post(
            "/v1/admin/mfa/setup",
            Some(json!({"currentPassword": "not-the-password"})),
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
    }
    let throttled = post(
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": pass})),
    )
    .await;
    throttled.assert_error(429, "RATE_LIMITED");
    assert!(throttled.headers.contains_key("retry-after"));
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM admin_mfa WHERE pending_secret IS NOT NULL",
            &[]
        )
        .await,
        0,
        "nothing was set up"
    );
    next_throttle_windows(&app);
    // the owner, with the password: set up, then on (the password again with the code)
    let setup = post(
        "/v1/admin/mfa/setup",
        Some(json!({"currentPassword": pass})),
    )
    .await;
    let secret = setup.ok()["secret"].as_str().unwrap().to_string();
    post(
        "/v1/admin/mfa/enable",
        Some(json!({"code": totp_code(&secret, t0, 0)})),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    post(
        "/v1/admin/mfa/enable",
        Some(json!({"code": totp_code(&secret, t0, 0), "currentPassword": "wrong"})),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let enabled = post(
        "/v1/admin/mfa/enable",
        Some(json!({"code": totp_code(&secret, t0, 0), "currentPassword": pass})),
    )
    .await;
    let fresh = enabled.ok()["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    // off: a right code is not enough without the password
    call(
        &app,
        Method::POST,
        "/v1/admin/mfa/disable",
        Some(json!({"code": totp_code(&secret, t0, 1), "currentPassword": "wrong"})),
        &fresh,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    assert_eq!(
        call(&app, Method::GET, "/v1/admin/mfa", None, &fresh)
            .await
            .ok()["mfaEnabled"],
        true
    );
    // every change is audited ...
    for action in ["admin.mfa_setup", "admin.mfa_enable"] {
        let entries = audited(&app, &fresh, action).await;
        assert_eq!(entries.len(), 1, "{action}");
        assert_eq!(entries[0]["targetId"], admin_id.as_str());
    }
    // ... and listed at the next sign-in, the latest first
    next_throttle_windows(&app);
    let signed_in = login(
        &app,
        with_factor(&user, &pass, "totpCode", &totp_code(&secret, t0, 1)),
    )
    .await;
    let changes: Vec<String> = signed_in.ok()["securityChanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(changes, ["admin.mfa_enable", "admin.mfa_setup"]);
    assert_eq!(signed_in.ok()["securityChanges"][0]["by"], user.as_str());
    // still listed at the next sign-in (whoever signed in between: 14 days at least),
    // then no more
    let recovery = |i: usize| {
        enabled.ok()["recoveryCodes"][i]
            .as_str()
            .unwrap()
            .to_string()
    };
    let again = login(
        &app,
        with_factor(&user, &pass, "recoveryCode", &recovery(0)),
    )
    .await;
    assert_eq!(again.ok()["securityChanges"].as_array().unwrap().len(), 2);
    app.clock.advance(chrono::Duration::days(15));
    let later = login(
        &app,
        with_factor(&user, &pass, "recoveryCode", &recovery(1)),
    )
    .await;
    assert_eq!(later.ok()["securityChanges"], json!([]));
}
