//! The console's sign-in hardening through HTTP: no session before sign-in (a signed
//! double-submit cookie guards the form), a signed-out session stays deleted, the shared
//! sign-in throttle, and the MFA page (enrolment with an inline SVG QR code, sign-in
//! with a code, ADMIN_REQUIRE_MFA, a super_admin's reset).

use std::str::FromStr;

use admin_console::console::session_store::DbSessionStore;
use serde_json::json;
use tests::console::Console;
use tests::{Engine, TestApp, both_engines, both_engines_with};
use tower_sessions::SessionStore;
use tower_sessions::session::Id;

use crate::admin_sign_in::{enrol, fresh_totp_step, totp_code};

both_engines!(
    anonymous_sign_in_pages_store_no_session,
    sign_in_needs_the_signed_csrf_cookie_and_field,
    a_deleted_session_stays_deleted_when_a_request_in_flight_saves,
    console_sign_in_is_throttled_with_the_api,
    mfa_page_enrols_with_an_inline_qr_code_and_sign_in_needs_the_code,
    super_admin_resets_mfa_from_the_admins_screen,
    turning_mfa_on_in_the_console_keeps_this_session_only,
    a_dump_of_the_console_sessions_signs_nobody_in,
    the_change_password_form_is_throttled_with_sign_in,
);

both_engines_with!(require_mfa; require_mfa_sends_a_super_admin_to_the_mfa_page);

async fn require_mfa(engine: Engine) -> TestApp {
    TestApp::spawn_with(engine, &[("ADMIN_REQUIRE_MFA", "true".to_string())]).await
}

async fn sessions(app: &TestApp) -> i64 {
    app.scalar("SELECT count(*) FROM console_sessions", &[])
        .await
}

/// The session id in a browser's cookie jar, read from a response's `Set-Cookie`.
fn session_cookie(set_cookie: &str) -> String {
    let pair = set_cookie.split(';').next().unwrap();
    pair.trim_start_matches("quiz_console=").to_string()
}

async fn anonymous_sign_in_pages_store_no_session(app: TestApp) {
    let mut same = app.console();
    for _ in 0..20 {
        same.get("/console/login").await.assert_status(200);
        app.console().get("/console/login").await.assert_status(200);
    }
    // Pages behind sign-in send an anonymous visitor away without storing anything.
    assert_eq!(app.console().get("/console").await.status, 303);
    // A refused sign-in stores nothing either.
    same.post(
        "/console/login",
        &[("username", "nobody"), ("password", "wrong-password")],
    )
    .await
    .assert_status(401);
    assert_eq!(sessions(&app).await, 0);
    // Only a sign-in does, and its sign-out removes it again.
    let mut browser = app.console_signed_in().await;
    assert_eq!(sessions(&app).await, 1);
    let out = browser.post("/console/logout", &[]).await;
    out.assert_status(303);
    assert_eq!(sessions(&app).await, 0);
}

async fn sign_in_needs_the_signed_csrf_cookie_and_field(app: TestApp) {
    let creds = [
        ("username", app.admin_username.as_str()),
        ("password", app.admin_password.as_str()),
    ];
    // The form's field without its cookie (another browser's page).
    let mut other = app.console();
    let page = other.get("/console/login").await;
    let cookie = page.header("set-cookie").unwrap().to_string();
    assert!(cookie.starts_with("quiz_console_login="), "{cookie}");
    for part in ["HttpOnly", "SameSite=Strict", "Path=/console/login"] {
        assert!(cookie.contains(part), "{part} missing from {cookie}");
    }
    let token = page.csrf().unwrap();
    let mut stranger = app.console();
    let mut fields = creds.to_vec();
    fields.push(("_csrf", &token));
    stranger
        .post_raw("/console/login", &fields)
        .await
        .assert_status(403)
        .assert_contains("security token");
    // The cookie with a wrong field, and with no field.
    let mut browser = app.console();
    browser.get("/console/login").await;
    let mut wrong = creds.to_vec();
    wrong.push(("_csrf", "not-the-token"));
    browser
        .post_raw("/console/login", &wrong)
        .await
        .assert_status(403);
    browser
        .post_raw("/console/login", &creds)
        .await
        .assert_status(403);
    // Another browser's (valid) token in the field: cookie and field differ.
    browser
        .post_raw("/console/login", &fields)
        .await
        .assert_status(403);
    // A value the client made up, the same in cookie and field, is not signed here.
    let forged = format!("{}.{}", "ab".repeat(16), "cd".repeat(32));
    let resp = app
        .client
        .post(format!("{}/console/login", app.admin_url))
        .header("cookie", format!("quiz_console_login={forged}"))
        .form(&[
            ("username", app.admin_username.as_str()),
            ("password", app.admin_password.as_str()),
            ("_csrf", forged.as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    assert_eq!(sessions(&app).await, 0);
    // The page's own token and cookie sign in.
    browser.get("/console/login").await;
    let done = browser.post("/console/login", &creds).await;
    done.assert_status(303);
    assert_eq!(done.location(), Some("/console"));
    browser.get("/console").await.assert_status(200);
}

async fn a_deleted_session_stays_deleted_when_a_request_in_flight_saves(app: TestApp) {
    let mut browser = app.console();
    browser.get("/console/login").await;
    let signed_in = browser
        .post(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", &app.admin_password),
            ],
        )
        .await;
    let id = session_cookie(signed_in.header("set-cookie").unwrap());
    let id = Id::from_str(&id).unwrap();
    // A request in flight on this session has loaded it …
    let store = DbSessionStore::new(std::sync::Arc::clone(&app.ctx));
    let in_flight = store
        .load(&id)
        .await
        .unwrap()
        .expect("the session's record");
    // … the admin signs out meanwhile …
    browser.get("/console").await.assert_status(200);
    browser
        .post("/console/logout", &[])
        .await
        .assert_status(303);
    assert_eq!(sessions(&app).await, 0);
    // … and the request saves on its way out: the row does not come back.
    store.save(&in_flight).await.unwrap();
    assert_eq!(sessions(&app).await, 0);
    assert!(store.load(&id).await.unwrap().is_none());
    // The old cookie no longer works (a client that does not follow the redirect).
    let resp = app
        .console()
        .client
        .get(format!("{}/console", app.admin_url))
        .header("cookie", format!("quiz_console={id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    assert_eq!(sessions(&app).await, 0);
}

async fn console_sign_in_is_throttled_with_the_api(app: TestApp) {
    let mut browser = app.console();
    browser.get("/console/login").await;
    for _ in 0..5 {
        browser
            .post(
                "/console/login",
                &[
                    ("username", &app.admin_username),
                    ("password", "wrong-password"),
                ],
            )
            .await
            .assert_status(401);
    }
    let page = browser
        .post(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", &app.admin_password),
            ],
        )
        .await;
    page.assert_status(429).assert_contains("RATE_LIMITED");
    let secs: u64 = page.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&secs));
    // The counters are shared with the JSON API.
    let r = app
        .admin_post(
            "/v1/admin/login",
            json!({"username": app.admin_username, "password": app.admin_password}),
            None,
        )
        .await;
    r.assert_error(429, "RATE_LIMITED");
    app.clock.advance(chrono::Duration::seconds(61));
    browser.get("/console/login").await;
    let done = browser
        .post(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", &app.admin_password),
            ],
        )
        .await;
    done.assert_status(303);
}

/// The text between `id="{id}">` and the next `<`.
fn text_of(page: &tests::console::Page, id: &str) -> String {
    let marker = format!("id=\"{id}\">");
    let start = page.body.find(&marker).unwrap() + marker.len();
    let end = page.body[start..].find('<').unwrap();
    page.body[start..start + end].to_string()
}

async fn sign_in_with_code(app: &TestApp, code: &str) -> (Console, tests::console::Page) {
    let mut browser = app.console();
    browser.get("/console/login").await;
    let page = browser
        .post(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", &app.admin_password),
                ("code", code),
            ],
        )
        .await;
    (browser, page)
}

async fn mfa_page_enrols_with_an_inline_qr_code_and_sign_in_needs_the_code(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let mut browser = app.console_signed_in().await;
    browser
        .get("/console")
        .await
        .assert_contains("href=\"/console/mfa\"");
    browser
        .get("/console/mfa")
        .await
        .assert_status(200)
        .assert_contains("MFA is off")
        .assert_contains("id=\"mfa-setup-password\"");
    // a session alone sets nothing up: the password is typed again (issue 53)
    browser
        .post(
            "/console/mfa/setup",
            &[("current_password", "not-my-password")],
        )
        .await
        .assert_status(401)
        .assert_contains("current password is wrong");
    let started = browser
        .post(
            "/console/mfa/setup",
            &[("current_password", &app.admin_password)],
        )
        .await;
    let page = browser.follow(&started).await;
    page.assert_status(200)
        .assert_contains("<svg")
        .assert_contains("id=\"mfa-qr-code\"")
        .assert_contains("otpauth://totp/QuizGame:");
    // Drawn here: nothing on the page comes from another host.
    assert!(!page.body.contains("src=\"http") && !page.body.contains("href=\"http"));
    assert!(!page.body.contains("<?xml"));
    let secret = text_of(&page, "mfa-secret");
    assert_eq!(secret.len(), 32);
    // A wrong code re-renders the page with the reason; the right one shows the codes.
    let wrong = if totp_code(&secret, t0, 0) == "000000" {
        "111111"
    } else {
        "000000"
    };
    browser
        .post(
            "/console/mfa/enable",
            &[("code", wrong), ("current_password", &app.admin_password)],
        )
        .await
        .assert_status(400)
        .assert_contains("does not match")
        .assert_contains("<svg");
    let enabled = browser
        .post(
            "/console/mfa/enable",
            &[
                ("code", &totp_code(&secret, t0, 0)),
                ("current_password", &app.admin_password),
            ],
        )
        .await;
    enabled.assert_status(200).assert_contains("recovery-codes");
    let codes: Vec<String> = enabled
        .body
        .split("<li><code>")
        .skip(1)
        .map(|rest| rest[..rest.find('<').unwrap()].to_string())
        .collect();
    assert_eq!(codes.len(), 10);
    browser
        .get("/console/mfa")
        .await
        .assert_contains("MFA is on")
        .assert_contains("id=\"recovery-codes-left\">10<");
    browser.post("/console/logout", &[]).await;

    // Sign-in without the code: the form asks for it (the password was right).
    let (_, page) = sign_in_with_code(&app, "").await;
    page.assert_status(401).assert_contains("MFA on");
    let (_, page) = sign_in_with_code(&app, wrong).await;
    page.assert_status(401);
    let (mut browser, page) = sign_in_with_code(&app, &totp_code(&secret, t0, 1)).await;
    page.assert_status(303);
    assert_eq!(page.location(), Some("/console"));
    browser.get("/console").await.assert_status(200);
    // The same code again: refused.
    let (_, page) = sign_in_with_code(&app, &totp_code(&secret, t0, 1)).await;
    page.assert_status(401);
    // A recovery code in the same field works once.
    let (_, page) = sign_in_with_code(&app, &codes[0]).await;
    page.assert_status(303);
    let (_, page) = sign_in_with_code(&app, &codes[0]).await;
    page.assert_status(401);
    // Turning MFA off from the page.
    browser
        .post(
            "/console/mfa/disable",
            &[
                ("code", "wrong-code-here"),
                ("current_password", &app.admin_password),
            ],
        )
        .await
        .assert_status(400);
    let off = browser
        .post(
            "/console/mfa/disable",
            &[
                ("code", &codes[1]),
                ("current_password", &app.admin_password),
            ],
        )
        .await;
    browser.follow(&off).await.assert_contains("MFA is off");
    let (_, page) = sign_in_with_code(&app, "").await;
    page.assert_status(303);
}

async fn require_mfa_sends_a_super_admin_to_the_mfa_page(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let mut browser = app.console();
    browser.get("/console/login").await;
    let page = browser
        .post(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", &app.admin_password),
            ],
        )
        .await;
    page.assert_status(303);
    assert_eq!(page.location(), Some("/console/mfa"));
    let home = browser.get("/console/questions").await;
    assert_eq!(home.location(), Some("/console/mfa"));
    let htmx = browser.htmx_get("/console/questions").await;
    assert_eq!(htmx.header("hx-redirect"), Some("/console/mfa"));
    browser
        .get("/console/mfa")
        .await
        .assert_status(200)
        .assert_contains("id=\"mfa-required\"");
    let started = browser
        .post(
            "/console/mfa/setup",
            &[("current_password", &app.admin_password)],
        )
        .await;
    let page = browser.follow(&started).await;
    let secret = text_of(&page, "mfa-secret");
    browser
        .post(
            "/console/mfa/enable",
            &[
                ("code", &totp_code(&secret, t0, 0)),
                ("current_password", &app.admin_password),
            ],
        )
        .await
        .assert_status(200);
    browser.get("/console/questions").await.assert_status(200);
}

async fn super_admin_resets_mfa_from_the_admins_screen(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (token, _, _) = app.admin_login().await;
    let created = app
        .admin_post(
            "/v1/admin/admins",
            json!({"username": "editor-1", "password": "editor-pass-1", "role": "admin"}),
            Some(&token),
        )
        .await;
    let id = created.ok()["id"].as_str().unwrap().to_string();
    let editor = app
        .admin_post(
            "/v1/admin/login",
            json!({"username": "editor-1", "password": "editor-pass-1"}),
            None,
        )
        .await;
    let editor_token = editor.ok()["accessToken"].as_str().unwrap().to_string();
    enrol(&app, &editor_token, "editor-pass-1", t0).await;
    let mut browser = app.console_signed_in().await;
    browser
        .get("/console/admins")
        .await
        .assert_contains("id=\"my-mfa-link\"");
    let page = browser.get(&format!("/console/admins/{id}")).await;
    page.assert_contains("id=\"reset-mfa\"")
        .assert_contains("id=\"admin-mfa\"><span class=\"badge active\">on");
    let done = browser
        .post(&format!("/console/admins/{id}/reset-mfa"), &[])
        .await;
    browser
        .follow(&done)
        .await
        .assert_contains("MFA of editor-1 is off");
    let r = app
        .admin_post(
            "/v1/admin/login",
            json!({"username": "editor-1", "password": "editor-pass-1"}),
            None,
        )
        .await;
    assert_eq!(r.ok()["admin"]["username"], "editor-1");
    // A plain admin's reset is refused.
    let mut plain = app.console_as_plain_admin().await;
    let root_id = app
        .text(
            "SELECT id FROM admins WHERE username = $1",
            &[&app.admin_username],
        )
        .await;
    plain
        .post(&format!("/console/admins/{root_id}/reset-mfa"), &[])
        .await
        .assert_status(403);
}

async fn turning_mfa_on_in_the_console_keeps_this_session_only(app: TestApp) {
    let t0 = fresh_totp_step().await;
    let (token, _, _) = app.admin_login().await;
    let mut other = app.console_signed_in().await;
    let mut browser = app.console_signed_in().await;
    let started = browser
        .post(
            "/console/mfa/setup",
            &[("current_password", &app.admin_password)],
        )
        .await;
    let page = browser.follow(&started).await;
    let secret = text_of(&page, "mfa-secret");
    browser
        .post(
            "/console/mfa/enable",
            &[
                ("code", &totp_code(&secret, t0, 0)),
                ("current_password", &app.admin_password),
            ],
        )
        .await
        .assert_status(200)
        .assert_contains("recovery-codes");
    // This browser carries on, forms included ...
    browser.get("/console").await.assert_status(200);
    browser.get("/console/providers").await;
    browser
        .post(
            "/console/providers/toggle",
            &[("id", "wechat"), ("enabled", "false")],
        )
        .await
        .assert_status(303);
    // ... every other session of the admin has ended.
    let gone = other.get("/console").await;
    gone.assert_status(303);
    assert_eq!(gone.location(), Some("/console/login"));
    app.admin_get("/v1/admin/mfa", Some(&token))
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn a_dump_of_the_console_sessions_signs_nobody_in(app: TestApp) {
    let mut browser = app.console();
    browser.get("/console/login").await;
    let signed_in = browser
        .post(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", &app.admin_password),
            ],
        )
        .await;
    signed_in.assert_status(303);
    let id = session_cookie(signed_in.header("set-cookie").unwrap());
    // Stored under its SHA-256, never as the cookie carries it.
    let stored = app.text("SELECT id FROM console_sessions", &[]).await;
    assert_ne!(stored, id);
    assert_eq!(stored, shared::tokens::hash_token(&id));
    let with_cookie = |value: String| {
        app.console()
            .client
            .get(format!("{}/console", app.admin_url))
            .header("cookie", format!("quiz_console={value}"))
            .send()
    };
    // What a dump shows signs nobody in; the cookie does.
    let dumped = with_cookie(stored).await.unwrap();
    assert_eq!(dumped.status(), 303);
    assert_eq!(dumped.headers()["location"], "/console/login");
    assert_eq!(with_cookie(id).await.unwrap().status(), 200);
    assert_eq!(sessions(&app).await, 1);
}

async fn the_change_password_form_is_throttled_with_sign_in(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    browser.get("/console/admins/password").await;
    for _ in 0..5 {
        browser
            .post(
                "/console/admins/password",
                &[
                    ("currentPassword", "not-the-password"),
                    ("newPassword", "Brand-new-pass-1"),
                    ("confirmPassword", "Brand-new-pass-1"),
                ],
            )
            .await
            .assert_status(400)
            .assert_contains("current password is wrong");
    }
    let page = browser
        .post(
            "/console/admins/password",
            &[
                ("currentPassword", &app.admin_password),
                ("newPassword", "Brand-new-pass-1"),
                ("confirmPassword", "Brand-new-pass-1"),
            ],
        )
        .await;
    page.assert_status(429).assert_contains("RATE_LIMITED");
    let secs: u64 = page.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&secs));
    // The counters are the sign-in's: the API refuses the right password too.
    app.admin_post(
        "/v1/admin/login",
        json!({"username": app.admin_username, "password": app.admin_password}),
        None,
    )
    .await
    .assert_error(429, "RATE_LIMITED");
    // Nothing changed: a minute on, the old password signs in.
    app.clock.advance(chrono::Duration::seconds(61));
    app.admin_login().await;
}
