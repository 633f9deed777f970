//! Forged and stale tokens on both audiences: `alg: none`, another key, another HMAC
//! algorithm, the other audience's claim or secret, a refresh token as access token,
//! expiry on the service clock, unknown, deleted and banned subjects. Every one is
//! refused in the envelope: 401 UNAUTHORIZED, or 403 FORBIDDEN for a banned player
//! (operations.md §5, §8). `tokens.rs` covers real tokens of the other audience, real
//! expiry and bans on the sign-in routes; this file forges the tokens itself, with the
//! servers' own secrets, so only the checks under test can refuse them.

use chrono::Duration;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::Method;
use serde_json::{Value, json};
use tests::{Engine, Resp, Service, TestApp, both_engines_raw};

both_engines_raw!(
    forged_player_tokens_are_refused,
    forged_admin_tokens_are_refused,
    deleted_and_banned_players_are_refused_on_every_route_kind,
    deleted_and_stale_admins_are_refused,
);

const PLAYER_SECRET: &str = "player-secret-for-security-tests-0123456789";
const ADMIN_SECRET: &str = "admin-secret-for-security-tests-0123456789ab";

async fn spawn(engine: Engine) -> TestApp {
    TestApp::spawn_with(
        engine,
        &[
            ("JWT_SECRET", PLAYER_SECRET.into()),
            ("ADMIN_JWT_SECRET", ADMIN_SECRET.into()),
        ],
    )
    .await
}

/// base64url without padding (the JWT alphabet).
fn b64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// An unsigned token: header `{"alg": alg}`, empty signature.
fn unsigned(alg: &str, claims: &Value) -> String {
    let header = json!({ "alg": alg, "typ": "JWT" }).to_string();
    format!(
        "{}.{}.",
        b64(header.as_bytes()),
        b64(claims.to_string().as_bytes())
    )
}

fn signed(alg: Algorithm, secret: &str, claims: &Value) -> String {
    jsonwebtoken::encode(
        &Header::new(alg),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

/// The claims the server itself issues, at the service clock's `now`.
fn claims(app: &TestApp, aud: &str, sub: &str, typ: &str, ver: i64) -> Value {
    let now = app.clock.now().timestamp();
    json!({
        "sub": sub, "aud": aud, "iss": "quiz-game", "iat": now, "exp": now + 600,
        "typ": typ, "jti": uuid::Uuid::new_v4().simple().to_string(), "ver": ver,
    })
}

/// The ways of forging a token for `sub` on the audience signed by `secret`, whose
/// claim is `aud`; `other_*` are the other audience's.
fn forgeries(
    app: &TestApp,
    sub: &str,
    (aud, secret): (&str, &str),
    (other_aud, other_secret): (&str, &str),
) -> Vec<(&'static str, String)> {
    let good = claims(app, aud, sub, "access", 0);
    let with = |key: &str, value: Value| {
        let mut c = good.clone();
        c[key] = value;
        c
    };
    let without = |key: &str| {
        let mut c = good.clone();
        c.as_object_mut().unwrap().remove(key);
        c
    };
    let now = app.clock.now().timestamp();
    let genuine = signed(Algorithm::HS256, secret, &good);
    let (head, rest) = genuine.split_once('.').unwrap();
    let (_, signature) = rest.split_once('.').unwrap();
    vec![
        ("alg none", unsigned("none", &good)),
        ("alg None", unsigned("None", &good)),
        ("alg NONE", unsigned("NONE", &good)),
        (
            "alg none with a signature",
            format!("{}{signature}", unsigned("none", &good)),
        ),
        (
            "signature stripped",
            format!("{head}.{}.", b64(good.to_string().as_bytes())),
        ),
        (
            "payload swapped under a genuine signature",
            format!(
                "{head}.{}.{signature}",
                b64(with("sub", json!("someone-else")).to_string().as_bytes())
            ),
        ),
        (
            "another key",
            signed(
                Algorithm::HS256,
                "an-attackers-secret-0123456789abcdef",
                &good,
            ),
        ),
        ("empty key", signed(Algorithm::HS256, "", &good)),
        (
            "HS384 with the right secret",
            signed(Algorithm::HS384, secret, &good),
        ),
        (
            "HS512 with the right secret",
            signed(Algorithm::HS512, secret, &good),
        ),
        (
            "the other audience's claim",
            signed(Algorithm::HS256, secret, &with("aud", json!(other_aud))),
        ),
        (
            "the other audience's secret",
            signed(Algorithm::HS256, other_secret, &good),
        ),
        (
            "the other audience's secret and claim",
            signed(
                Algorithm::HS256,
                other_secret,
                &with("aud", json!(other_aud)),
            ),
        ),
        (
            "both audiences",
            signed(
                Algorithm::HS256,
                secret,
                &with("aud", json!([aud, other_aud])),
            ),
        ),
        (
            "a refresh token",
            signed(Algorithm::HS256, secret, &with("typ", json!("refresh"))),
        ),
        (
            "another issuer",
            signed(Algorithm::HS256, secret, &with("iss", json!("evil"))),
        ),
        ("no exp", signed(Algorithm::HS256, secret, &without("exp"))),
        ("no aud", signed(Algorithm::HS256, secret, &without("aud"))),
        ("no typ", signed(Algorithm::HS256, secret, &without("typ"))),
        (
            "expired a second ago",
            signed(Algorithm::HS256, secret, &with("exp", json!(now - 1))),
        ),
        (
            "an unknown subject",
            signed(
                Algorithm::HS256,
                secret,
                &with("sub", json!("no-such-subject")),
            ),
        ),
    ]
}

/// A read, writes of each method, and (with `delete`) account deletion, with `token`.
async fn player_routes_with(app: &TestApp, token: &str, delete: bool) -> Vec<(String, Resp)> {
    let mut out = Vec::new();
    for (method, path, body) in [
        (Method::GET, "/v1/auth/me", None),
        (Method::GET, "/v1/progress/summary", None),
        (Method::POST, "/v1/progress/check-in", Some(json!({}))),
        (
            Method::POST,
            "/v1/feedback",
            Some(json!({"content": "forged?"})),
        ),
        (
            Method::PATCH,
            "/v1/users/me/region",
            Some(json!({"regionCode": "110000"})),
        ),
        (Method::DELETE, "/v1/users/me", None),
    ] {
        if method == Method::DELETE && !delete {
            continue;
        }
        let r = app
            .call(Service::Player, method.clone(), path, body, Some(token))
            .await;
        out.push((format!("{method} {path}"), r));
    }
    out
}

async fn player_routes(app: &TestApp, token: &str) -> Vec<(String, Resp)> {
    player_routes_with(app, token, true).await
}

async fn admin_routes(app: &TestApp, token: &str, admin_id: &str) -> Vec<(String, Resp)> {
    let mut out = Vec::new();
    for (method, path, body) in [
        (Method::GET, format!("/v1/admin/admins/{admin_id}"), None),
        (Method::GET, "/v1/admin/stats".to_string(), None),
        (Method::GET, "/v1/admin/users".to_string(), None),
        (
            Method::POST,
            "/v1/admin/categories".to_string(),
            Some(json!({"id": "forged", "name": "Forged", "slug": "forged"})),
        ),
        (
            Method::PUT,
            "/v1/admin/change-password".to_string(),
            Some(json!({"currentPassword": "x".repeat(8), "newPassword": "y".repeat(12)})),
        ),
    ] {
        let r = app
            .call(Service::Admin, method.clone(), &path, body, Some(token))
            .await;
        out.push((format!("{method} {path}"), r));
    }
    out
}

#[track_caller]
fn assert_all_refused(what: &str, results: &[(String, Resp)], status: u16, code: &str) {
    for (route, r) in results {
        assert_eq!(
            (r.status, r.body["error"]["code"].as_str()),
            (status, Some(code)),
            "{what} on {route}: {}",
            r.body
        );
        r.assert_error(status, code);
    }
}

async fn forged_player_tokens_are_refused(engine: Engine) {
    let app = spawn(engine).await;
    let (id, _, _) = app.guest("sec-player").await;
    // the forging is right: a token made like the server's is accepted
    let control = signed(
        Algorithm::HS256,
        PLAYER_SECRET,
        &claims(&app, "quiz-player", &id, "access", 0),
    );
    app.get("/v1/auth/me", Some(&control)).await.ok();
    for (what, token) in forgeries(
        &app,
        &id,
        ("quiz-player", PLAYER_SECRET),
        ("quiz-admin", ADMIN_SECRET),
    ) {
        let results = player_routes(&app, &token).await;
        assert_all_refused(what, &results, 401, "UNAUTHORIZED");
        // a forged refresh token is refused by the refresh route too
        app.post("/v1/auth/refresh", json!({ "refreshToken": token }), None)
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    // nothing was written by any refused request
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM player_check_ins WHERE player_id = $1",
            &[&id]
        )
        .await,
        0
    );
    assert_eq!(app.scalar("SELECT count(*) FROM feedback", &[]).await, 0);
    // a forged refresh token with the right secret is not a stored one
    let refresh = signed(
        Algorithm::HS256,
        PLAYER_SECRET,
        &claims(&app, "quiz-player", &id, "refresh", 0),
    );
    app.post("/v1/auth/refresh", json!({ "refreshToken": refresh }), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    // the server's own token expires on the service clock, on every route
    let (_, access, _) = app.guest("sec-expiry").await;
    app.clock.advance(Duration::hours(2) + Duration::seconds(1));
    assert_all_refused(
        "an expired access token",
        &player_routes(&app, &access).await,
        401,
        "UNAUTHORIZED",
    );
    // and the control token, issued 2 hours ago with a 10-minute life, too
    app.get("/v1/auth/me", Some(&control))
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn forged_admin_tokens_are_refused(engine: Engine) {
    let app = spawn(engine).await;
    let (_, _, admin_id) = app.admin_login().await;
    let control = signed(
        Algorithm::HS256,
        ADMIN_SECRET,
        &claims(&app, "quiz-admin", &admin_id, "access", 0),
    );
    app.admin_get(&format!("/v1/admin/admins/{admin_id}"), Some(&control))
        .await
        .ok();
    for (what, token) in forgeries(
        &app,
        &admin_id,
        ("quiz-admin", ADMIN_SECRET),
        ("quiz-player", PLAYER_SECRET),
    ) {
        let results = admin_routes(&app, &token, &admin_id).await;
        assert_all_refused(what, &results, 401, "UNAUTHORIZED");
        app.admin_post("/v1/admin/refresh", json!({ "refreshToken": token }), None)
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    assert_eq!(
        app.scalar("SELECT count(*) FROM categories WHERE id = 'forged'", &[])
            .await,
        0
    );
    // a player's real token and a player-audience token for the admin's id
    let (player, player_access, _) = app.guest("sec-cross").await;
    assert_all_refused(
        "a player token",
        &admin_routes(&app, &player_access, &admin_id).await,
        401,
        "UNAUTHORIZED",
    );
    let as_player = signed(
        Algorithm::HS256,
        PLAYER_SECRET,
        &claims(&app, "quiz-player", &admin_id, "access", 0),
    );
    assert_all_refused(
        "a player-audience token naming the admin",
        &admin_routes(&app, &as_player, &admin_id).await,
        401,
        "UNAUTHORIZED",
    );
    // and an admin-audience token naming a player on the player routes
    let as_admin = signed(
        Algorithm::HS256,
        ADMIN_SECRET,
        &claims(&app, "quiz-admin", &player, "access", 0),
    );
    assert_all_refused(
        "an admin-audience token naming a player",
        &player_routes(&app, &as_admin).await,
        401,
        "UNAUTHORIZED",
    );
    // the static admin token is no bearer token
    assert_all_refused(
        "the static admin token",
        &admin_routes(&app, "static-admin-token-for-tests", &admin_id).await,
        401,
        "UNAUTHORIZED",
    );
    // a real admin token expires after an hour on the service clock
    let (access, _, _) = app.admin_login().await;
    app.clock.advance(Duration::hours(1) + Duration::seconds(1));
    assert_all_refused(
        "an expired admin token",
        &admin_routes(&app, &access, &admin_id).await,
        401,
        "UNAUTHORIZED",
    );
}

async fn deleted_and_banned_players_are_refused_on_every_route_kind(engine: Engine) {
    let app = spawn(engine).await;
    let (admin, _, _) = app.admin_login().await;
    // banned through the admin API: 403 on every player route but account deletion
    let (banned, banned_access, banned_refresh) = app.guest("sec-banned").await;
    let r = app
        .call(
            Service::Admin,
            Method::PUT,
            &format!("/v1/admin/users/{banned}/ban"),
            Some(json!({"reason": "cheating"})),
            Some(&admin),
        )
        .await;
    r.ok();
    // (DELETE /users/me is allowed to a banned player: tested in accounts.rs)
    let results = player_routes_with(&app, &banned_access, false).await;
    assert_all_refused("a banned player's token", &results, 403, "FORBIDDEN");
    for (method, path, body) in [
        (Method::GET, "/v1/tracks", None),
        (Method::GET, "/v1/leaderboards", None),
        (Method::GET, "/v1/app/bootstrap", None),
        (
            Method::GET,
            "/v1/challenges/next?trackId=world-geography",
            None,
        ),
        (
            Method::POST,
            "/v1/challenges/answer",
            Some(json!({"challengeId": "c", "questionId": "q", "selectedOptionId": "o"})),
        ),
        (
            Method::POST,
            "/v1/rewards/ad-recovery/session",
            Some(
                json!({"type": "hearts", "clientRequestId": "x", "platform": "ios", "adProvider": "mock"}),
            ),
        ),
        (
            Method::POST,
            "/v1/auth/logout",
            Some(json!({"refreshToken": banned_refresh})),
        ),
    ] {
        app.call(Service::Player, method, path, body, Some(&banned_access))
            .await
            .assert_error(403, "FORBIDDEN");
    }
    // a freshly forged token of the banned player is refused the same way
    let forged = signed(
        Algorithm::HS256,
        PLAYER_SECRET,
        &claims(&app, "quiz-player", &banned, "access", 0),
    );
    app.get("/v1/auth/me", Some(&forged))
        .await
        .assert_error(403, "FORBIDDEN");
    // unbanned: the same token works again
    app.call(
        Service::Admin,
        Method::PUT,
        &format!("/v1/admin/users/{banned}/unban"),
        None,
        Some(&admin),
    )
    .await
    .ok();
    app.get("/v1/auth/me", Some(&banned_access)).await.ok();

    // deleted: 401 everywhere, including tokens issued after the deletion
    let (deleted, deleted_access, deleted_refresh) = app.guest("sec-deleted").await;
    app.call(
        Service::Player,
        Method::DELETE,
        "/v1/users/me",
        None,
        Some(&deleted_access),
    )
    .await
    .ok();
    // (DELETE /users/me again answers `{deleted: true}`: tested in accounts.rs)
    let results = player_routes_with(&app, &deleted_access, false).await;
    assert_all_refused("a deleted player's token", &results, 401, "UNAUTHORIZED");
    let forged = signed(
        Algorithm::HS256,
        PLAYER_SECRET,
        &claims(&app, "quiz-player", &deleted, "access", 0),
    );
    let results = player_routes_with(&app, &forged, false).await;
    assert_all_refused(
        "a token forged for a deleted player",
        &results,
        401,
        "UNAUTHORIZED",
    );
    app.post(
        "/v1/auth/refresh",
        json!({ "refreshToken": deleted_refresh }),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    // nothing of theirs was written after the deletion
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM player_check_ins WHERE player_id = $1",
            &[&deleted]
        )
        .await,
        0
    );
}

async fn deleted_and_stale_admins_are_refused(engine: Engine) {
    let app = spawn(engine).await;
    let (root, _, root_id) = app.admin_login().await;
    let r = app
        .admin_post(
            "/v1/admin/admins",
            json!({"username": "sec-editor", "password": "Editor-pass-123", "role": "admin"}),
            Some(&root),
        )
        .await;
    let editor_id = r.ok()["id"].as_str().unwrap().to_string();
    let login = |password: &'static str| {
        let app = &app;
        async move {
            app.admin_post(
                "/v1/admin/login",
                json!({"username": "sec-editor", "password": password}),
                None,
            )
            .await
        }
    };
    let editor = login("Editor-pass-123").await.ok()["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    app.admin_get("/v1/admin/stats", Some(&editor)).await.ok();
    // a password reset bumps the version: the old token and one forged with the old
    // version end at once
    let r = app
        .admin_post(
            &format!("/v1/admin/admins/{editor_id}/reset-password"),
            json!({}),
            Some(&root),
        )
        .await;
    r.ok();
    let stale = signed(
        Algorithm::HS256,
        ADMIN_SECRET,
        &claims(&app, "quiz-admin", &editor_id, "access", 0),
    );
    for token in [&editor, &stale] {
        assert_all_refused(
            "a token of an older version",
            &admin_routes(&app, token, &root_id).await,
            401,
            "UNAUTHORIZED",
        );
    }
    // deleted: a token forged at the current version is refused too
    let version = app
        .scalar(
            "SELECT CAST(token_version AS BIGINT) FROM admins WHERE id = $1",
            &[&editor_id],
        )
        .await;
    let current = signed(
        Algorithm::HS256,
        ADMIN_SECRET,
        &claims(&app, "quiz-admin", &editor_id, "access", version),
    );
    app.admin_get("/v1/admin/stats", Some(&current)).await.ok();
    app.call(
        Service::Admin,
        Method::DELETE,
        &format!("/v1/admin/admins/{editor_id}"),
        None,
        Some(&root),
    )
    .await
    .ok();
    assert_all_refused(
        "a deleted admin's token",
        &admin_routes(&app, &current, &root_id).await,
        401,
        "UNAUTHORIZED",
    );
}
