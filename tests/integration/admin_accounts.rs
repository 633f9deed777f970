//! The admin JSON API for accounts and moderation: roles, the last-super_admin rule,
//! passwords, bans seen by the player API, statistics, feedback, provider toggles and the
//! audit log.

use futures::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use tests::{Resp, Service, TestApp, both_engines};

both_engines!(
    accounts_crud_and_one_time_passwords,
    writes_need_super_admin_reads_do_not,
    the_last_super_admin_stays,
    concurrent_demotions_keep_one_super_admin,
    change_password_ends_other_tokens,
    a_wrong_current_password_counts_as_a_failed_sign_in,
    bans_reach_the_player_api_at_once,
    stats_feedback_providers_and_audit_log,
);

async fn call(app: &TestApp, method: Method, path: &str, body: Option<Value>, token: &str) -> Resp {
    app.call(Service::Admin, method, path, body, Some(token))
        .await
}

async fn login(app: &TestApp, username: &str, password: &str) -> Resp {
    app.admin_post(
        "/v1/admin/login",
        json!({"username": username, "password": password}),
        None,
    )
    .await
}

async fn create(app: &TestApp, token: &str, body: Value) -> Resp {
    call(app, Method::POST, "/v1/admin/admins", Some(body), token).await
}

async fn accounts_crud_and_one_time_passwords(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    // with a password: echoed once
    let r = create(
        &app,
        &token,
        json!({"username": "editor-1", "password": "editor-pass-1", "role": "admin"}),
    )
    .await;
    let a = r.ok().clone();
    assert_eq!(
        (
            a["username"].clone(),
            a["role"].clone(),
            a["isActive"].clone()
        ),
        (json!("editor-1"), json!("admin"), json!(1))
    );
    assert_eq!(a["plainPassword"], "editor-pass-1");
    login(&app, "editor-1", "editor-pass-1").await.ok();
    // without: generated (12 characters of every class)
    let r = create(
        &app,
        &token,
        json!({"username": "editor-2", "role": "admin"}),
    )
    .await;
    let generated = r.ok()["plainPassword"].as_str().unwrap().to_string();
    assert_eq!(generated.chars().count(), 12);
    login(&app, "editor-2", &generated).await.ok();
    // the stored hash is argon2, never the password
    let hash = app
        .text(
            "SELECT password_hash FROM admins WHERE username = 'editor-2'",
            &[],
        )
        .await;
    assert!(hash.starts_with("$argon2id$") && !hash.contains(&generated));
    // bad input
    create(
        &app,
        &token,
        json!({"username": "editor-1", "role": "admin"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    create(&app, &token, json!({"username": "ab", "role": "admin"}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    create(
        &app,
        &token,
        json!({"username": "editor-3", "password": "short", "role": "admin"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    create(
        &app,
        &token,
        json!({"username": "editor-3", "role": "root"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // list with filters and limits
    let r = app
        .admin_get("/v1/admin/admins?role=admin", Some(&token))
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 2);
    assert_eq!(
        r.body["pagination"],
        json!({"total": 2, "page": 1, "limit": 20})
    );
    let r = app
        .admin_get("/v1/admin/admins?limit=1&page=2", Some(&token))
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 1);
    assert_eq!(r.body["pagination"]["total"], 3);
    for bad in ["limit=0", "limit=51", "page=0", "isActive=2", "role=root"] {
        app.admin_get(&format!("/v1/admin/admins?{bad}"), Some(&token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    // update, then soft delete: the account can no longer sign in, its tokens end
    let id = a["id"].as_str().unwrap();
    let (editor_token, _) = {
        let r = login(&app, "editor-1", "editor-pass-1").await;
        (r.ok()["accessToken"].as_str().unwrap().to_string(), ())
    };
    let r = call(
        &app,
        Method::PUT,
        &format!("/v1/admin/admins/{id}"),
        Some(json!({"username": "editor-one"})),
        &token,
    )
    .await;
    assert_eq!(r.ok()["username"], "editor-one");
    call(
        &app,
        Method::PUT,
        &format!("/v1/admin/admins/{id}"),
        Some(json!({"username": "editor-2"})),
        &token,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let r = call(
        &app,
        Method::DELETE,
        &format!("/v1/admin/admins/{id}"),
        None,
        &token,
    )
    .await;
    assert_eq!(r.ok()["isActive"], 0);
    login(&app, "editor-one", "editor-pass-1")
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.admin_get("/v1/admin/admins", Some(&editor_token))
        .await
        .assert_error(401, "UNAUTHORIZED");
    // reset-password: the old one stops working, the new one (shown once) works
    let id2 = app
        .text("SELECT id FROM admins WHERE username = 'editor-2'", &[])
        .await;
    let r = call(
        &app,
        Method::POST,
        &format!("/v1/admin/admins/{id2}/reset-password"),
        None,
        &token,
    )
    .await;
    let reset = r.ok().clone();
    assert_eq!(reset["adminId"], id2.as_str());
    let new_password = reset["plainPassword"].as_str().unwrap();
    assert_eq!(new_password.chars().count(), 12);
    assert!(
        new_password.chars().any(|c| c.is_ascii_uppercase())
            && new_password.chars().any(|c| c.is_ascii_lowercase())
    );
    assert!(
        new_password.chars().any(|c| c.is_ascii_digit())
            && new_password.chars().any(|c| !c.is_ascii_alphanumeric())
    );
    login(&app, "editor-2", &generated)
        .await
        .assert_error(401, "UNAUTHORIZED");
    login(&app, "editor-2", new_password).await.ok();
    call(
        &app,
        Method::POST,
        "/v1/admin/admins/nope/reset-password",
        None,
        &token,
    )
    .await
    .assert_error(404, "NOT_FOUND");
}

async fn writes_need_super_admin_reads_do_not(app: TestApp) {
    let (token, _, super_id) = app.admin_login().await;
    create(
        &app,
        &token,
        json!({"username": "plain", "password": "plain-pass-1", "role": "admin"}),
    )
    .await
    .ok();
    let plain = login(&app, "plain", "plain-pass-1").await.ok()["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    app.admin_get("/v1/admin/admins", Some(&plain)).await.ok();
    app.admin_get(&format!("/v1/admin/admins/{super_id}"), Some(&plain))
        .await
        .ok();
    let writes = [
        (
            Method::POST,
            "/v1/admin/admins".to_string(),
            Some(json!({"username": "x-admin", "role": "admin"})),
        ),
        (
            Method::PUT,
            format!("/v1/admin/admins/{super_id}"),
            Some(json!({"role": "admin"})),
        ),
        (Method::DELETE, format!("/v1/admin/admins/{super_id}"), None),
        (
            Method::POST,
            format!("/v1/admin/admins/{super_id}/reset-password"),
            None,
        ),
    ];
    for (method, path, body) in writes {
        call(&app, method.clone(), &path, body.clone(), &plain)
            .await
            .assert_error(403, "FORBIDDEN");
        // and without a token, or with a player's token: 401
        app.call(Service::Admin, method.clone(), &path, body.clone(), None)
            .await
            .assert_error(401, "UNAUTHORIZED");
        let (_, player, _) = app.guest("d-role").await;
        app.call(Service::Admin, method, &path, body, Some(&player))
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    // nothing changed
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM admins WHERE role = 'super_admin' AND is_active = TRUE",
            &[]
        )
        .await,
        1
    );
}

async fn the_last_super_admin_stays(app: TestApp) {
    let (token, _, me) = app.admin_login().await;
    for (method, body) in [
        (Method::DELETE, None),
        (Method::PUT, Some(json!({"role": "admin"}))),
        (Method::PUT, Some(json!({"isActive": 0}))),
    ] {
        call(
            &app,
            method,
            &format!("/v1/admin/admins/{me}"),
            body,
            &token,
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
    }
    // with a second super_admin, one may step down; then the other is the last
    let r = create(
        &app,
        &token,
        json!({"username": "second", "password": "second-pass", "role": "super_admin"}),
    )
    .await;
    let second = r.ok()["id"].as_str().unwrap().to_string();
    let r = call(
        &app,
        Method::PUT,
        &format!("/v1/admin/admins/{me}"),
        Some(json!({"role": "admin"})),
        &token,
    )
    .await;
    assert_eq!(r.ok()["role"], "admin");
    let second_token = login(&app, "second", "second-pass").await.ok()["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    call(
        &app,
        Method::DELETE,
        &format!("/v1/admin/admins/{second}"),
        None,
        &second_token,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // the demoted admin lost its write rights at once
    create(&app, &token, json!({"username": "third", "role": "admin"}))
        .await
        .assert_error(403, "FORBIDDEN");
}

async fn concurrent_demotions_keep_one_super_admin(app: TestApp) {
    let (token, _, me) = app.admin_login().await;
    let r = create(
        &app,
        &token,
        json!({"username": "other-super", "password": "other-pass", "role": "super_admin"}),
    )
    .await;
    let other = r.ok()["id"].as_str().unwrap().to_string();
    let other_token = login(&app, "other-super", "other-pass").await.ok()["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    // each demotes the other at the same moment
    let results = join_all([
        call(
            &app,
            Method::PUT,
            &format!("/v1/admin/admins/{other}"),
            Some(json!({"role": "admin"})),
            &token,
        ),
        call(
            &app,
            Method::PUT,
            &format!("/v1/admin/admins/{me}"),
            Some(json!({"role": "admin"})),
            &other_token,
        ),
    ])
    .await;
    let ok = results.iter().filter(|r| r.status == 200).count();
    assert!(
        ok >= 1,
        "{:?}",
        results.iter().map(|r| r.body.clone()).collect::<Vec<_>>()
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM admins WHERE role = 'super_admin' AND is_active = TRUE",
            &[]
        )
        .await,
        1
    );
}

async fn change_password_ends_other_tokens(app: TestApp) {
    let (token, refresh, _) = app.admin_login().await;
    let (other_session, _, _) = app.admin_login().await;
    let body = json!({"currentPassword": "wrong-password", "newPassword": "brand-new-pass"});
    call(
        &app,
        Method::PUT,
        "/v1/admin/change-password",
        Some(body),
        &token,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let body = json!({"currentPassword": app.admin_password, "newPassword": "short"});
    call(
        &app,
        Method::PUT,
        "/v1/admin/change-password",
        Some(body),
        &token,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let body = json!({"currentPassword": app.admin_password, "newPassword": "brand-new-pass"});
    let r = call(
        &app,
        Method::PUT,
        "/v1/admin/change-password",
        Some(body),
        &token,
    )
    .await;
    let data = r.ok().clone();
    assert!(data["message"].as_str().is_some());
    let fresh = data["tokens"]["accessToken"].as_str().unwrap();
    app.admin_get("/v1/admin/admins", Some(fresh)).await.ok();
    for old in [&token, &other_session] {
        app.admin_get("/v1/admin/admins", Some(old))
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    app.admin_post("/v1/admin/refresh", json!({"refreshToken": refresh}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    login(&app, &app.admin_username, &app.admin_password)
        .await
        .assert_error(401, "UNAUTHORIZED");
    login(&app, &app.admin_username, "brand-new-pass")
        .await
        .ok();
}

async fn a_wrong_current_password_counts_as_a_failed_sign_in(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    async fn change_with(app: &TestApp, current: &str, token: &str) -> Resp {
        let body = json!({"currentPassword": current, "newPassword": "brand-new-pass"});
        call(
            app,
            Method::PUT,
            "/v1/admin/change-password",
            Some(body),
            token,
        )
        .await
    }
    let change = |current: &str, token: &str| {
        let (current, token) = (current.to_string(), token.to_string());
        let app = &app;
        async move { change_with(app, &current, &token).await }
    };
    // Four wrong current passwords and a wrong sign-in fill the username's minute ...
    for _ in 0..4 {
        change("wrong-password", &token)
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    login(&app, &app.admin_username, "wrong-password")
        .await
        .assert_error(401, "UNAUTHORIZED");
    // ... so the next try is refused before the password is looked at, even the right one.
    let r = change(&app.admin_password, &token).await;
    r.assert_error(429, "RATE_LIMITED");
    let secs: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&secs), "Retry-After {secs}");
    login(&app, &app.admin_username, &app.admin_password)
        .await
        .assert_error(429, "RATE_LIMITED");
    // A minute on: nothing was changed, and a right current password takes no place.
    app.clock.advance(chrono::Duration::seconds(61));
    for _ in 0..4 {
        change("wrong-password", &token)
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    let changed = change(&app.admin_password, &token).await;
    let fresh = changed.ok()["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    change("wrong-password", &fresh)
        .await
        .assert_error(401, "UNAUTHORIZED");
    login(&app, &app.admin_username, "brand-new-pass")
        .await
        .assert_error(429, "RATE_LIMITED");
    // Ten minutes on, the address's window (ten failures from it) has ended too.
    app.clock.advance(chrono::Duration::seconds(601));
    login(&app, &app.admin_username, "brand-new-pass")
        .await
        .ok();
}

async fn bans_reach_the_player_api_at_once(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let (player, player_token, _) = app.guest("d-banned").await;
    let nickname = app
        .text("SELECT nickname FROM players WHERE id = $1", &[&player])
        .await;
    // search by nickname, by part of the id
    let r = app
        .admin_get(
            &format!("/v1/admin/users?search={}", nickname.to_lowercase()),
            Some(&token),
        )
        .await;
    assert_eq!(r.ok()[0]["id"], player.as_str());
    let r = app
        .admin_get(
            &format!("/v1/admin/users?search={}", &player[..8]),
            Some(&token),
        )
        .await;
    assert_eq!(r.body["pagination"]["total"], 1);
    // a guest's device id is its only credential: no search matches it
    let r = app
        .admin_get("/v1/admin/users?search=d-banned", Some(&token))
        .await;
    assert_eq!(r.body["pagination"]["total"], 0, "{}", r.body);
    // `%` and `_` are matched literally, not as wildcards
    for wild in ["%25", "_", "%25_%25"] {
        let r = app
            .admin_get(&format!("/v1/admin/users?search={wild}"), Some(&token))
            .await;
        assert_eq!(r.body["pagination"]["total"], 0, "{wild}: {}", r.body);
    }
    app.exec(
        "UPDATE players SET nickname = 'odd_100%' WHERE id = $1",
        &[&player],
    )
    .await;
    let r = app
        .admin_get("/v1/admin/users?search=d_100%25", Some(&token))
        .await;
    assert_eq!(r.body["pagination"]["total"], 1, "{}", r.body);
    let r = app
        .admin_get(&format!("/v1/admin/users/{player}"), Some(&token))
        .await;
    let record = r.ok().clone();
    assert_eq!(
        (record["isBanned"].clone(), record["isGuest"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(record["signInMethods"], json!(["device"]));
    // a ban without a body lasts until unban and is seen by the very next request
    call(
        &app,
        Method::PUT,
        &format!("/v1/admin/users/{player}/ban"),
        None,
        &token,
    )
    .await
    .ok();
    app.get("/v1/auth/me", Some(&player_token))
        .await
        .assert_error(403, "FORBIDDEN");
    let r = call(
        &app,
        Method::PUT,
        &format!("/v1/admin/users/{player}/unban"),
        None,
        &token,
    )
    .await;
    assert_eq!(r.ok()["isBanned"], false);
    app.get("/v1/auth/me", Some(&player_token)).await.ok();
    // a ban with a reason and an end
    let until = (app.clock.now() + chrono::Duration::hours(1)).to_rfc3339();
    let r = call(
        &app,
        Method::PUT,
        &format!("/v1/admin/users/{player}/ban"),
        Some(json!({"reason": "cheating", "until": until})),
        &token,
    )
    .await;
    let banned = r.ok().clone();
    assert_eq!(
        (banned["isBanned"].clone(), banned["banReason"].clone()),
        (json!(true), json!("cheating"))
    );
    assert!(banned["bannedUntil"].as_str().is_some());
    app.get("/v1/auth/me", Some(&player_token))
        .await
        .assert_error(403, "FORBIDDEN");
    app.clock.advance(chrono::Duration::minutes(61));
    let player_token = app.guest("d-banned").await.1;
    app.get("/v1/auth/me", Some(&player_token)).await.ok();
    let (token, _, _) = app.admin_login().await; // admin access tokens last an hour
    assert_eq!(
        app.admin_get(&format!("/v1/admin/users/{player}"), Some(&token))
            .await
            .ok()["isBanned"],
        false
    );
    // bad input
    let past = (app.clock.now() - chrono::Duration::hours(1)).to_rfc3339();
    call(
        &app,
        Method::PUT,
        &format!("/v1/admin/users/{player}/ban"),
        Some(json!({"until": past})),
        &token,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    call(
        &app,
        Method::PUT,
        "/v1/admin/users/nobody/ban",
        None,
        &token,
    )
    .await
    .assert_error(404, "NOT_FOUND");
    app.admin_get("/v1/admin/users/nobody", Some(&token))
        .await
        .assert_error(404, "NOT_FOUND");
    app.admin_get("/v1/admin/users?limit=51", Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

async fn stats_feedback_providers_and_audit_log(app: TestApp) {
    let (token, _, admin_id) = app.admin_login().await;
    let (_, p1) = {
        let (id, t, _) = app.guest("d-s1").await;
        (id, t)
    };
    app.guest("d-s2").await;
    app.post(
        "/v1/feedback",
        json!({"content": "More history please", "contact": "me@example.com"}),
        Some(&p1),
    )
    .await
    .ok();
    let s = app
        .admin_get("/v1/admin/stats", Some(&token))
        .await
        .ok()
        .clone();
    assert_eq!(
        (s["totalUsers"].clone(), s["activeUsers"].clone()),
        (json!(2), json!(2))
    );
    assert!(
        s["totalQuestions"].is_number()
            && s["publishedQuestions"].is_number()
            && s["averageXp"].is_number()
    );
    let f = app.admin_get("/v1/admin/feedback", Some(&token)).await;
    assert_eq!(f.ok()[0]["content"], "More history please");
    assert_eq!(f.body["pagination"]["total"], 1);
    // providers: read, toggle a third party, refuse the rest
    let list = app
        .admin_get("/v1/admin/auth-providers", Some(&token))
        .await
        .ok()
        .clone();
    let wechat = list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "wechat")
        .unwrap()
        .clone();
    assert_eq!(wechat["platforms"], json!(["ios", "android", "harmony"]));
    assert_eq!(wechat["type"], "third_party");
    let r = call(
        &app,
        Method::PUT,
        "/v1/admin/auth-providers",
        Some(json!({"providers": [{"id": "wechat", "enabled": false}]})),
        &token,
    )
    .await;
    let after = r.ok()["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "wechat")
        .unwrap()["enabled"]
        .clone();
    assert_eq!(after, false);
    let player_list = app
        .get("/v1/auth/providers?platform=ios", None)
        .await
        .ok()
        .clone();
    let shown = player_list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "wechat")
        .unwrap()["enabled"]
        .clone();
    assert_eq!(shown, false, "the player API shows the toggle at once");
    for bad in [
        json!({"providers": [{"id": "phone_sms", "enabled": false}]}),
        json!({"providers": [{"id": "myspace", "enabled": true}]}),
        json!({"providers": []}),
    ] {
        call(
            &app,
            Method::PUT,
            "/v1/admin/auth-providers",
            Some(bad),
            &token,
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
    }
    // the audit log has every write, newest first, with actor and states
    let (player_id, _, _) = app.guest("d-audit").await;
    call(
        &app,
        Method::PUT,
        &format!("/v1/admin/users/{player_id}/ban"),
        Some(json!({"reason": "spam"})),
        &token,
    )
    .await
    .ok();
    let log = app.admin_get("/v1/admin/audit-log", Some(&token)).await;
    let entries = log.ok().as_array().unwrap().clone();
    assert_eq!(entries[0]["action"], "player.ban");
    assert_eq!(entries[0]["targetType"], "player");
    assert_eq!(entries[0]["targetId"], player_id.as_str());
    assert_eq!(entries[0]["actorId"], admin_id.as_str());
    assert_eq!(entries[0]["actorUsername"], app.admin_username.as_str());
    assert_eq!(entries[0]["before"]["isBanned"], false);
    assert_eq!(entries[0]["after"]["isBanned"], true);
    assert!(entries[0]["createdAt"].as_str().is_some());
    assert_eq!(entries[1]["action"], "auth_providers.update");
    // the sign-in that made `token` is there too, with its address
    assert_eq!(entries[2]["action"], "admin.login");
    assert_eq!(entries[2]["targetId"], admin_id.as_str());
    assert_eq!(entries[2]["after"]["channel"], "api");
    assert_eq!(entries[2]["after"]["clientAddress"], "127.0.0.1");
    assert_eq!(log.body["pagination"]["total"], 3);
    app.admin_get("/v1/admin/audit-log?limit=51", Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
}
