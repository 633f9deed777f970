//! Provider list and toggles, rate limits, logout and account deletion.

use futures::future::join_all;
use serde_json::{Value, json};
use tests::{Engine, TestApp, both_engines};

both_engines!(
    provider_list_per_platform,
    a_stored_toggle_shows_at_once_and_closes_the_route,
    logout_revokes_the_presented_refresh_token,
    account_deletion_kills_tokens_and_starts_fresh,
    banned_players_may_still_delete_their_account,
);

macro_rules! raw_engine_tests {
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
raw_engine_tests!(rate_limits_per_route_and_address);

fn ids(list: &Value) -> Vec<String> {
    list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

fn entry<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap()
}

async fn provider_list_per_platform(app: TestApp) {
    let ios = app
        .get("/v1/auth/providers?platform=ios", None)
        .await
        .ok()
        .clone();
    assert_eq!(ids(&ios), ["phone_sms", "apple", "wechat", "qq"]);
    let android = app
        .get("/v1/auth/providers?platform=android", None)
        .await
        .ok()
        .clone();
    assert_eq!(ids(&android), ["phone_sms", "huawei", "wechat", "qq"]);
    let harmony = app
        .get("/v1/auth/providers?platform=harmony", None)
        .await
        .ok()
        .clone();
    assert_eq!(ids(&harmony), ["phone_sms", "huawei", "wechat", "qq"]);
    // the phone entry is secondary and has no iconKey; third parties carry one
    let phone = entry(&ios, "phone_sms");
    assert_eq!(phone["type"], "secondary");
    assert!(phone.get("iconKey").is_none());
    let apple = entry(&ios, "apple");
    assert_eq!(apple["type"], "third_party");
    assert_eq!(apple["iconKey"], "apple");
    assert!(apple["name"].as_str().is_some());
    // nothing is configured in the default test app: the server-performed ones are off,
    // the SDK-flow ones follow the stored flag
    assert_eq!(apple["enabled"], false);
    assert_eq!(entry(&android, "huawei")["enabled"], false);
    assert_eq!(entry(&ios, "wechat")["enabled"], true);
    assert_eq!(entry(&ios, "qq")["enabled"], true);
    app.get("/v1/auth/providers", None)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.get("/v1/auth/providers?platform=web", None)
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

async fn a_stored_toggle_shows_at_once_and_closes_the_route(app: TestApp) {
    let list = app
        .get("/v1/auth/providers?platform=ios", None)
        .await
        .ok()
        .clone();
    assert_eq!(entry(&list, "wechat")["enabled"], true);
    app.exec("UPDATE auth_providers SET enabled = FALSE WHERE id IN ('wechat', 'apple', 'huawei', 'phone_sms')", &[]).await;
    let list = app
        .get("/v1/auth/providers?platform=ios", None)
        .await
        .ok()
        .clone();
    assert_eq!(entry(&list, "wechat")["enabled"], false);
    // a disabled provider's sign-in routes answer 403, before any configuration check
    app.post("/v1/auth/apple", json!({"identityToken": "x"}), None)
        .await
        .assert_error(403, "FORBIDDEN");
    app.post("/v1/auth/ios_vendor", json!({"identityToken": "x"}), None)
        .await
        .assert_error(403, "FORBIDDEN");
    app.post("/v1/auth/huawei", json!({"authorizationCode": "x"}), None)
        .await
        .assert_error(403, "FORBIDDEN");
    app.post(
        "/v1/auth/android_vendor",
        json!({"authorizationCode": "x"}),
        None,
    )
    .await
    .assert_error(403, "FORBIDDEN");
    app.post(
        "/v1/auth/phone/send-code",
        json!({"phoneNumber": "13800138000"}),
        None,
    )
    .await
    .assert_error(403, "FORBIDDEN");
    app.exec("UPDATE auth_providers SET enabled = TRUE", &[])
        .await;
    // enabled again but not configured here: 503
    app.post("/v1/auth/apple", json!({"identityToken": "x"}), None)
        .await
        .assert_error(503, "SERVICE_UNAVAILABLE");
    app.post("/v1/auth/huawei", json!({"authorizationCode": "x"}), None)
        .await
        .assert_error(503, "SERVICE_UNAVAILABLE");
}

async fn rate_limits_per_route_and_address(engine: Engine) {
    let app = TestApp::spawn_with(
        engine,
        &[
            ("RATE_LIMIT_AUTH_PER_MINUTE", "10".into()),
            ("RATE_LIMIT_SEND_CODE_PER_MINUTE", "5".into()),
            ("TRUST_FORWARDED_FOR", "true".into()),
            ("SMS_PROVIDER", "console".into()),
        ],
    )
    .await;
    let post_from = |path: &'static str, body: Value, ip: &'static str| {
        let app = &app;
        async move {
            let r = app
                .client
                .post(format!("{}{path}", app.player_url))
                .header("x-forwarded-for", ip)
                .json(&body)
                .send()
                .await
                .unwrap();
            TestApp::read(r).await
        }
    };
    // 10 a minute on guest sign-in from one address, the 11th is 429 with Retry-After
    let results = join_all((0..10).map(|i| {
        post_from(
            "/v1/auth/guest",
            json!({"deviceId": format!("rl-{i}")}),
            "192.0.2.1",
        )
    }))
    .await;
    assert!(results.iter().all(|r| r.status == 200));
    let r = post_from("/v1/auth/guest", json!({"deviceId": "rl-x"}), "192.0.2.1").await;
    r.assert_error(429, "RATE_LIMITED");
    let retry: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    // Entries left of the one the trusted proxy appended are written by the client:
    // a new one each time opens no new bucket.
    for i in 0..3 {
        let spoofed: &'static str = Box::leak(format!("10.9.9.{i}, 192.0.2.1").into_boxed_str());
        post_from("/v1/auth/guest", json!({"deviceId": "rl-s"}), spoofed)
            .await
            .assert_error(429, "RATE_LIMITED");
    }
    // IPv6 addresses share one bucket per /64.
    for i in 1..=10 {
        let ip: &'static str = Box::leak(format!("2001:db8:aa:1::{i:x}").into_boxed_str());
        post_from(
            "/v1/auth/guest",
            json!({"deviceId": format!("rl6-{i}")}),
            ip,
        )
        .await
        .ok();
    }
    post_from(
        "/v1/auth/guest",
        json!({"deviceId": "rl6-x"}),
        "2001:db8:aa:1:ffff:ffff:ffff:1",
    )
    .await
    .assert_error(429, "RATE_LIMITED");
    post_from(
        "/v1/auth/guest",
        json!({"deviceId": "rl6-y"}),
        "2001:db8:aa:2::1",
    )
    .await
    .ok();
    // another address has its own bucket; another route too
    post_from("/v1/auth/guest", json!({"deviceId": "rl-y"}), "192.0.2.2")
        .await
        .ok();
    post_from(
        "/v1/auth/refresh",
        json!({"refreshToken": "bad"}),
        "192.0.2.1",
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    // the aliases of one route share a bucket
    for _ in 0..5 {
        post_from(
            "/v1/auth/huawei",
            json!({"authorizationCode": "c"}),
            "192.0.2.5",
        )
        .await;
        post_from(
            "/v1/auth/android_vendor",
            json!({"authorizationCode": "c"}),
            "192.0.2.5",
        )
        .await;
    }
    post_from(
        "/v1/auth/huawei",
        json!({"authorizationCode": "c"}),
        "192.0.2.5",
    )
    .await
    .assert_error(429, "RATE_LIMITED");
    // 5 a minute on send-code (different numbers, so the SMS window is not what refuses)
    for i in 0..5 {
        let phone: &'static str = Box::leak(format!("1380000000{i}").into_boxed_str());
        post_from(
            "/v1/auth/phone/send-code",
            json!({"phoneNumber": phone}),
            "192.0.2.3",
        )
        .await
        .ok();
    }
    post_from(
        "/v1/auth/phone/send-code",
        json!({"phoneNumber": "13800000009"}),
        "192.0.2.3",
    )
    .await
    .assert_error(429, "RATE_LIMITED");
    // without TRUST_FORWARDED_FOR the header is ignored (covered by the unit tests of
    // shared::client_addr); /auth/me is not rate-limited
    let (_, token, _) = app.guest("rl-free").await;
    for _ in 0..15 {
        app.get("/v1/auth/me", Some(&token)).await.ok();
    }
}

async fn logout_revokes_the_presented_refresh_token(app: TestApp) {
    let (_, access, refresh) = app.guest("device-lo").await;
    let r = app
        .post(
            "/v1/auth/logout",
            json!({"refreshToken": refresh}),
            Some(&access),
        )
        .await;
    assert_eq!(r.ok()["loggedOut"], true);
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    // logging out again, or with a stranger's token, is harmless
    app.post(
        "/v1/auth/logout",
        json!({"refreshToken": refresh}),
        Some(&access),
    )
    .await
    .ok();
    let (_, _, other_refresh) = app.guest("device-lo-2").await;
    app.post(
        "/v1/auth/logout",
        json!({"refreshToken": other_refresh}),
        Some(&access),
    )
    .await
    .ok();
    app.post(
        "/v1/auth/refresh",
        json!({"refreshToken": other_refresh}),
        None,
    )
    .await
    .ok();
    app.post("/v1/auth/logout", json!({"refreshToken": "x"}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn account_deletion_kills_tokens_and_starts_fresh(app: TestApp) {
    let (id, access, refresh) = app.guest("device-del").await;
    // some history that must stay, anonymised
    app.exec(
        "INSERT INTO reward_ledger (id, player_id, idempotency_key, source, xp_delta, created_at)
         VALUES ('l1', $1, 'test:1', 'test', 10, 0)",
        &[&id],
    )
    .await;
    app.exec(
        "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at) VALUES ('2026-11-16', 'topic:all', $1, 10, 0)",
        &[&id],
    )
    .await;
    let r = app
        .call(
            tests::Service::Player,
            reqwest::Method::DELETE,
            "/v1/users/me",
            None,
            Some(&access),
        )
        .await;
    assert_eq!(r.ok()["deleted"], true);
    // every token dead at once
    app.get("/v1/auth/me", Some(&access))
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.post("/v1/auth/refresh", json!({"refreshToken": refresh}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    // repeating it is harmless
    let again = app
        .call(
            tests::Service::Player,
            reqwest::Method::DELETE,
            "/v1/users/me",
            None,
            Some(&access),
        )
        .await;
    assert_eq!(again.ok()["deleted"], true);
    // the same device starts a new player
    let (new_id, _, _) = app.guest("device-del").await;
    assert_ne!(new_id, id);
    // personal data and identities gone; ledger kept; leaderboards left
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM player_identities WHERE player_id = $1",
            &[&id]
        )
        .await,
        0
    );
    assert_eq!(app.scalar("SELECT count(*) FROM players WHERE id = $1 AND nickname IS NULL AND deleted_at IS NOT NULL", &[&id]).await, 1);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM reward_ledger WHERE player_id = $1",
            &[&id]
        )
        .await,
        1
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM weekly_xp WHERE player_id = $1",
            &[&id]
        )
        .await,
        0
    );
    // no token without a bearer
    app.call(
        tests::Service::Player,
        reqwest::Method::DELETE,
        "/v1/users/me",
        None,
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
}

async fn banned_players_may_still_delete_their_account(app: TestApp) {
    let (id, access, _) = app.guest("device-banned-del").await;
    app.exec("UPDATE players SET is_banned = TRUE WHERE id = $1", &[&id])
        .await;
    app.get("/v1/auth/me", Some(&access))
        .await
        .assert_error(403, "FORBIDDEN");
    let r = app
        .call(
            tests::Service::Player,
            reqwest::Method::DELETE,
            "/v1/users/me",
            None,
            Some(&access),
        )
        .await;
    assert_eq!(r.ok()["deleted"], true);
    // a phone-number account is forgotten too
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM player_identities WHERE player_id = $1",
            &[&id]
        )
        .await,
        0
    );
}
