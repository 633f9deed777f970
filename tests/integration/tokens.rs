//! Tokens: guest sessions, rotation, audiences, expiry, bans; admin sign-in.

use chrono::Duration;
use futures::future::join_all;
use serde_json::json;
use tests::{TestApp, both_engines};

both_engines!(
    guest_sign_in_is_stable_per_device,
    current_user_has_every_field,
    missing_and_garbage_tokens_are_401,
    player_and_admin_tokens_never_pass_for_each_other,
    refresh_rotates_and_a_used_token_is_refused,
    concurrent_refreshes_of_one_token_succeed_once,
    access_tokens_expire_on_the_service_clock,
    banned_players_are_refused_everywhere,
    admin_login_refresh_and_static_token,
);

async fn guest_sign_in_is_stable_per_device(app: TestApp) {
    let (a, token_a, refresh_a) = app.guest("device-a").await;
    let (again, token_again, _) = app.guest("device-a").await;
    let (b, _, _) = app.guest("device-b").await;
    assert_eq!(a, again);
    assert_ne!(a, b);
    assert_ne!(token_a, token_again);
    assert_ne!(token_a, refresh_a);
    let r = app
        .post("/v1/auth/guest", json!({"deviceId": "device-a"}), None)
        .await;
    let user = &r.ok()["user"];
    assert_eq!(user["tier"], "free");
    assert!(user["nickname"].as_str().is_some());
    assert!(user["avatarUrl"].is_null());
    // 20 concurrent first sign-ins of one new device create one player
    let calls =
        (0..20).map(|_| app.post("/v1/auth/guest", json!({"deviceId": "device-race"}), None));
    let ids: Vec<String> = join_all(calls)
        .await
        .iter()
        .map(|r| r.ok()["user"]["id"].as_str().unwrap().to_string())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM player_identities WHERE subject = $1",
            &["device-race"]
        )
        .await,
        1
    );
    assert_eq!(app.scalar("SELECT count(*) FROM players", &[]).await, 3);
}

async fn current_user_has_every_field(app: TestApp) {
    let (id, token, _) = app.guest("device-me").await;
    let r = app.get("/v1/auth/me", Some(&token)).await;
    let me = r.ok();
    assert_eq!(me["id"], id.as_str());
    assert_eq!(me["tier"], "free");
    assert_eq!(me["xpTotal"], 0);
    assert_eq!(me["streakDays"], 0);
    assert_eq!(me["heartsRemaining"], 5);
    assert_eq!(me["dailyXpEarned"], 0);
    assert_eq!(me["dailyXpGoal"], 50);
    assert!(me.get("nickname").is_some() && me.get("avatarUrl").is_some());
}

async fn missing_and_garbage_tokens_are_401(app: TestApp) {
    app.get("/v1/auth/me", None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.get("/v1/auth/me", Some("not-a-jwt"))
        .await
        .assert_error(401, "UNAUTHORIZED");
    let r = app
        .client
        .get(format!("{}/v1/auth/me", app.player_url))
        .header("authorization", "Basic abc")
        .send()
        .await
        .unwrap();
    TestApp::read(r).await.assert_error(401, "UNAUTHORIZED");
    app.admin_get("/v1/admin/admins/x", None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.admin_get("/v1/admin/admins/x", Some("garbage"))
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn player_and_admin_tokens_never_pass_for_each_other(app: TestApp) {
    let (_, player_access, player_refresh) = app.guest("device-x").await;
    let (admin_access, admin_refresh, admin_id) = app.admin_login().await;
    // each works where it belongs
    app.get("/v1/auth/me", Some(&player_access)).await.ok();
    app.admin_get(&format!("/v1/admin/admins/{admin_id}"), Some(&admin_access))
        .await
        .ok();
    // and nowhere else
    app.admin_get(
        &format!("/v1/admin/admins/{admin_id}"),
        Some(&player_access),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    app.get("/v1/auth/me", Some(&admin_access))
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.post(
        "/v1/auth/refresh",
        json!({"refreshToken": admin_refresh}),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    app.admin_post(
        "/v1/admin/refresh",
        json!({"refreshToken": player_refresh}),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    // a refresh token is not an access token
    app.get("/v1/auth/me", Some(&player_refresh))
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn refresh_rotates_and_a_used_token_is_refused(app: TestApp) {
    let (_, _, refresh) = app.guest("device-r").await;
    let r = app
        .post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await;
    let data = r.ok().clone();
    let (access2, refresh2) = (
        data["accessToken"].as_str().unwrap().to_string(),
        data["refreshToken"].as_str().unwrap().to_string(),
    );
    assert_ne!(refresh, refresh2);
    app.get("/v1/auth/me", Some(&access2)).await.ok();
    // the new one works once
    let r = app
        .post("/v1/auth/refresh", json!({"refreshToken": refresh2}), None)
        .await;
    let (access3, refresh3) = (
        r.ok()["accessToken"].as_str().unwrap().to_string(),
        r.ok()["refreshToken"].as_str().unwrap().to_string(),
    );
    app.get("/v1/auth/me", Some(&access3)).await.ok();
    // A used one presented again is a copy in other hands (RFC 9700 §4.14): refused, and
    // every token of that sign-in dies with it, the refresh tokens issued after it and
    // the access tokens, so the thief and the player both sign in again.
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh3}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    for access in [&access2, &access3] {
        app.get("/v1/auth/me", Some(access))
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    // signing in again starts afresh
    let (_, access4, refresh4) = app.guest("device-r").await;
    app.get("/v1/auth/me", Some(&access4)).await.ok();
    // the old token shown again (say, from a leaked log) is refused, and ends nothing
    // more: only its first reuse ended that sign-in
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.get("/v1/auth/me", Some(&access4)).await.ok();
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh4}), None)
        .await
        .ok();
    // refresh tokens are stored hashed, never as issued
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM refresh_tokens WHERE token_hash = $1",
            &[&refresh]
        )
        .await,
        0
    );
}

async fn concurrent_refreshes_of_one_token_succeed_once(app: TestApp) {
    let (_, _, refresh) = app.guest("device-rr").await;
    let calls =
        (0..20).map(|_| app.post("/v1/auth/refresh", json!({"refreshToken": refresh}), None));
    let results = join_all(calls).await;
    let ok = results.iter().filter(|r| r.status == 200).count();
    let refused = results.iter().filter(|r| r.status == 401).count();
    assert_eq!(
        (ok, refused),
        (1, 19),
        "{:?}",
        results.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
}

async fn access_tokens_expire_on_the_service_clock(app: TestApp) {
    let (_, access, refresh) = app.guest("device-t").await;
    let (admin_access, _, admin_id) = app.admin_login().await;
    app.clock.advance(Duration::minutes(59));
    app.get("/v1/auth/me", Some(&access)).await.ok();
    app.admin_get(&format!("/v1/admin/admins/{admin_id}"), Some(&admin_access))
        .await
        .ok();
    app.clock.advance(Duration::minutes(2)); // admin access: 1 hour
    app.admin_get(&format!("/v1/admin/admins/{admin_id}"), Some(&admin_access))
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.get("/v1/auth/me", Some(&access)).await.ok();
    app.clock.advance(Duration::minutes(60)); // player access: 2 hours
    app.get("/v1/auth/me", Some(&access))
        .await
        .assert_error(401, "UNAUTHORIZED");
    // the 30-day refresh token still works, then expires
    let r = app
        .post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await;
    let refresh2 = r.ok()["refreshToken"].as_str().unwrap().to_string();
    app.clock.advance(Duration::days(30) + Duration::hours(3));
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh2}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn banned_players_are_refused_everywhere(app: TestApp) {
    let (id, access, refresh) = app.guest("device-ban").await;
    app.exec("UPDATE players SET is_banned = TRUE WHERE id = $1", &[&id])
        .await;
    app.get("/v1/auth/me", Some(&access))
        .await
        .assert_error(403, "FORBIDDEN");
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await
        .assert_error(403, "FORBIDDEN");
    app.post("/v1/auth/guest", json!({"deviceId": "device-ban"}), None)
        .await
        .assert_error(403, "FORBIDDEN");
    // a ban with an expiry ends by itself
    let until = (app.clock.now() + Duration::hours(1))
        .timestamp_millis()
        .to_string();
    app.exec(
        "UPDATE players SET banned_until = CAST($1 AS BIGINT) WHERE id = $2",
        &[&until, &id],
    )
    .await;
    app.get("/v1/auth/me", Some(&access))
        .await
        .assert_error(403, "FORBIDDEN");
    app.clock.advance(Duration::minutes(61));
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await
        .ok();
}

async fn admin_login_refresh_and_static_token(app: TestApp) {
    // wrong password and unknown user: 401; too short: 400
    app.admin_post(
        "/v1/admin/login",
        json!({"username": app.admin_username, "password": "wrong-password"}),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    app.admin_post(
        "/v1/admin/login",
        json!({"username": "nobody", "password": "whatever-123"}),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    app.admin_post(
        "/v1/admin/login",
        json!({"username": app.admin_username, "password": "short"}),
        None,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let (access, refresh, id) = app.admin_login().await;
    let r = app
        .admin_get(&format!("/v1/admin/admins/{id}"), Some(&access))
        .await;
    let account = r.ok();
    assert_eq!(account["username"], app.admin_username.as_str());
    assert_eq!(account["role"], "super_admin");
    assert_eq!(account["isActive"], 1);
    assert!(account["lastLoginAt"].as_str().is_some());
    app.admin_get("/v1/admin/admins/no-such-admin", Some(&access))
        .await
        .assert_error(404, "NOT_FOUND");
    // rotation
    let r = app
        .admin_post("/v1/admin/refresh", json!({"refreshToken": refresh}), None)
        .await;
    let new_access = r.ok()["accessToken"].as_str().unwrap().to_string();
    let new_refresh = r.ok()["refreshToken"].as_str().unwrap().to_string();
    app.admin_get(&format!("/v1/admin/admins/{id}"), Some(&new_access))
        .await
        .ok();
    // a reused refresh token ends that sign-in: its later tokens die with it
    app.admin_post("/v1/admin/refresh", json!({"refreshToken": refresh}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.admin_get(&format!("/v1/admin/admins/{id}"), Some(&new_access))
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.admin_post(
        "/v1/admin/refresh",
        json!({"refreshToken": new_refresh}),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let (new_access, _, _) = app.admin_login().await;
    // a deactivated admin's tokens stop working at once
    app.exec("UPDATE admins SET is_active = FALSE WHERE id = $1", &[&id])
        .await;
    app.admin_get(&format!("/v1/admin/admins/{id}"), Some(&new_access))
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.exec("UPDATE admins SET is_active = TRUE WHERE id = $1", &[&id])
        .await;
    // the static token answers /admin/auth only
    let r = app
        .admin_post(
            "/v1/admin/auth",
            json!({"token": "static-admin-token-for-tests"}),
            None,
        )
        .await;
    assert_eq!(r.ok()["authenticated"], true);
    app.admin_post(
        "/v1/admin/auth",
        json!({"token": "static-admin-token-for-test"}),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    app.admin_get(
        &format!("/v1/admin/admins/{id}"),
        Some("static-admin-token-for-tests"),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
}
