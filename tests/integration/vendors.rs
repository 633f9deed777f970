//! HUAWEI ID and Sign in with Apple against local fakes of their token and key
//! endpoints, and linking a guest to Apple (upgrade, merge, replay, conflicts).

use futures::future::join_all;
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use shared::providers::oidc::testing::{TestKey, jwks};
use tests::{Engine, TestApp};
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

macro_rules! engine_tests {
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

engine_tests!(
    huawei_sign_in_and_refusals,
    huawei_unknown_kid_is_refetched,
    huawei_unreachable_is_503,
    apple_sign_in_and_refusals,
    link_upgrades_a_new_identity_in_place,
    link_merges_into_the_existing_account,
    concurrent_replays_merge_once,
    migration_ids_are_each_guests_own,
);

const HUAWEI_CLIENT: &str = "huawei-app-123";
const HUAWEI_ISSUER: &str = "https://accounts.huawei.com";
const APPLE_CLIENT: &str = tests::apple::CLIENT;
const APPLE_ISSUER: &str = tests::apple::ISSUER;
use tests::apple::rsa_key as key;

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn claims(iss: &str, aud: &str, sub: &str, exp: i64) -> Value {
    json!({ "iss": iss, "aud": aud, "sub": sub, "iat": now(), "exp": exp })
}

struct Fakes {
    server: MockServer,
}

impl Fakes {
    async fn start() -> Self {
        Self {
            server: MockServer::start().await,
        }
    }
    async fn serve_keys(&self, route: &str, keys: &[&TestKey]) {
        Mock::given(method("GET"))
            .and(path(route.to_string()))
            .respond_with(ResponseTemplate::new(200).set_body_json(jwks(keys)))
            .mount(&self.server)
            .await;
    }
    /// HUAWEI's token endpoint answering `code` with `id_token`.
    async fn huawei_code(&self, code: &str, id_token: &str) {
        Mock::given(method("POST"))
            .and(path("/oauth2/v3/token"))
            .and(body_string_contains(format!("code={code}")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "access_token": "at", "expires_in": 3600, "token_type": "Bearer", "id_token": id_token
            })))
            .mount(&self.server)
            .await;
    }
    fn vars(&self) -> Vec<(&'static str, String)> {
        let uri = self.server.uri();
        vec![
            ("HUAWEI_CLIENT_ID", HUAWEI_CLIENT.into()),
            ("HUAWEI_CLIENT_SECRET", "huawei-secret".into()),
            ("HUAWEI_TOKEN_URL", format!("{uri}/oauth2/v3/token")),
            ("HUAWEI_JWKS_URL", format!("{uri}/oauth2/v3/certs")),
            ("HUAWEI_ISSUER", HUAWEI_ISSUER.into()),
            ("APPLE_CLIENT_ID", APPLE_CLIENT.into()),
            ("APPLE_JWKS_URL", format!("{uri}/auth/keys")),
            ("APPLE_ISSUER", APPLE_ISSUER.into()),
        ]
    }
}

async fn huawei(app: &TestApp, code: &str) -> tests::Resp {
    app.post(
        "/v1/auth/android_vendor",
        json!({ "authorizationCode": code }),
        None,
    )
    .await
}

async fn huawei_sign_in_and_refusals(engine: Engine) {
    let fakes = Fakes::start().await;
    let good = key("hw-1");
    let other = key("hw-1"); // same kid, another key: a forged signature
    fakes.serve_keys("/oauth2/v3/certs", &[&good]).await;
    let exp = now() + 3600;
    fakes
        .huawei_code(
            "good",
            &good.sign(
                Algorithm::RS256,
                &claims(HUAWEI_ISSUER, HUAWEI_CLIENT, "hw-user-1", exp),
            ),
        )
        .await;
    // a token answer without an id_token (the app asked without the openid scope)
    Mock::given(method("POST"))
        .and(path("/oauth2/v3/token"))
        .and(body_string_contains("code=no-openid"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "access_token": "at", "expires_in": 3600, "token_type": "Bearer"
        })))
        .mount(&fakes.server)
        .await;
    fakes
        .huawei_code(
            "pss",
            &good.sign(
                Algorithm::PS256,
                &claims(HUAWEI_ISSUER, HUAWEI_CLIENT, "hw-user-1", exp),
            ),
        )
        .await;
    fakes
        .huawei_code(
            "forged",
            &other.sign(
                Algorithm::RS256,
                &claims(HUAWEI_ISSUER, HUAWEI_CLIENT, "hw-user-1", exp),
            ),
        )
        .await;
    fakes
        .huawei_code(
            "aud",
            &good.sign(
                Algorithm::RS256,
                &claims(HUAWEI_ISSUER, "another-app", "hw-user-1", exp),
            ),
        )
        .await;
    fakes
        .huawei_code(
            "expired",
            &good.sign(
                Algorithm::RS256,
                &claims(HUAWEI_ISSUER, HUAWEI_CLIENT, "hw-user-1", now() - 3600),
            ),
        )
        .await;
    Mock::given(method("POST"))
        .and(path("/oauth2/v3/token"))
        .and(body_string_contains("code=refused"))
        .respond_with(
            ResponseTemplate::new(400).set_body_json(
                json!({"error": "invalid_grant", "error_description": "code expired"}),
            ),
        )
        .mount(&fakes.server)
        .await;
    let app = TestApp::spawn_with(engine, &fakes.vars()).await;

    let r = huawei(&app, "good").await;
    let first = r.ok()["user"]["id"].as_str().unwrap().to_string();
    // the alias, and a PS256 id_token, find the same account
    let r = app
        .post(
            "/v1/auth/huawei",
            json!({ "authorizationCode": "pss" }),
            None,
        )
        .await;
    assert_eq!(r.ok()["user"]["id"], first.as_str());
    for bad in ["refused", "forged", "aud", "expired", "no-openid"] {
        huawei(&app, bad).await.assert_error(401, "UNAUTHORIZED");
    }
    huawei(&app, "  ")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // the token endpoint got the code exchange form
    let requests = fakes.server.received_requests().await.unwrap();
    let exchange = requests
        .iter()
        .find(|r| r.method.as_str() == "POST")
        .unwrap();
    let form = String::from_utf8_lossy(&exchange.body);
    for field in [
        "grant_type=authorization_code",
        "code=good",
        "client_id=huawei-app-123",
        "client_secret=huawei-secret",
    ] {
        assert!(form.contains(field), "{form}");
    }
    // a banned player is refused at sign-in
    app.exec(
        "UPDATE players SET is_banned = TRUE WHERE id = $1",
        &[&first],
    )
    .await;
    huawei(&app, "good").await.assert_error(403, "FORBIDDEN");
    app.exec(
        "UPDATE players SET is_banned = FALSE WHERE id = $1",
        &[&first],
    )
    .await;
    // the provider list now shows HUAWEI and Apple enabled
    let list = app
        .get("/v1/auth/providers?platform=android", None)
        .await
        .ok()
        .clone();
    let hw = list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "huawei")
        .unwrap()
        .clone();
    assert_eq!(hw["enabled"], true);
}

async fn huawei_unknown_kid_is_refetched(engine: Engine) {
    let fakes = Fakes::start().await;
    let a = key("kid-a");
    let b = key("kid-b");
    // first answer: only A; afterwards A and B (a key rotation)
    Mock::given(method("GET"))
        .and(path("/oauth2/v3/certs"))
        .respond_with(ResponseTemplate::new(200).set_body_json(jwks(&[&a])))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&fakes.server)
        .await;
    fakes.serve_keys("/oauth2/v3/certs", &[&a, &b]).await;
    let exp = now() + 3600;
    fakes
        .huawei_code(
            "with-a",
            &a.sign(
                Algorithm::RS256,
                &claims(HUAWEI_ISSUER, HUAWEI_CLIENT, "u-a", exp),
            ),
        )
        .await;
    fakes
        .huawei_code(
            "with-b",
            &b.sign(
                Algorithm::RS256,
                &claims(HUAWEI_ISSUER, HUAWEI_CLIENT, "u-b", exp),
            ),
        )
        .await;
    let app = TestApp::spawn_with(engine, &fakes.vars()).await;
    huawei(&app, "with-a").await.ok();
    huawei(&app, "with-a").await.ok(); // cached: no refetch
    huawei(&app, "with-b").await.ok(); // unknown kid: one refetch
    let fetches = fakes
        .server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/oauth2/v3/certs")
        .count();
    assert_eq!(fetches, 2);
}

async fn huawei_unreachable_is_503(engine: Engine) {
    let mut vars = Fakes::start().await.vars();
    for (k, v) in vars.iter_mut() {
        if k.starts_with("HUAWEI_") && k.ends_with("_URL") {
            *v = "http://127.0.0.1:9/unreachable".into();
        }
    }
    let app = TestApp::spawn_with(engine, &vars).await;
    huawei(&app, "any")
        .await
        .assert_error(503, "SERVICE_UNAVAILABLE");
}

async fn apple(app: &TestApp, token: &str) -> tests::Resp {
    app.post(
        "/v1/auth/ios_vendor",
        json!({ "identityToken": token }),
        None,
    )
    .await
}

async fn apple_sign_in_and_refusals(engine: Engine) {
    let fakes = Fakes::start().await;
    let k = key("apple-1");
    let forger = key("apple-1");
    fakes.serve_keys("/auth/keys", &[&k]).await;
    let app = TestApp::spawn_with(engine, &fakes.vars()).await;
    let exp = now() + 600;
    let r = apple(
        &app,
        &k.sign(
            Algorithm::RS256,
            &claims(APPLE_ISSUER, APPLE_CLIENT, "apple-1", exp),
        ),
    )
    .await;
    let id = r.ok()["user"]["id"].as_str().unwrap().to_string();
    let r = app
        .post("/v1/auth/apple", json!({ "identityToken": k.sign(Algorithm::RS256, &claims(APPLE_ISSUER, APPLE_CLIENT, "apple-1", exp)), "authorizationCode": "c" }), None)
        .await;
    assert_eq!(r.ok()["user"]["id"], id.as_str());
    for bad in [
        forger.sign(
            Algorithm::RS256,
            &claims(APPLE_ISSUER, APPLE_CLIENT, "apple-1", exp),
        ),
        k.sign(
            Algorithm::RS256,
            &claims(APPLE_ISSUER, "com.other.app", "apple-1", exp),
        ),
        k.sign(
            Algorithm::RS256,
            &claims("https://evil.example", APPLE_CLIENT, "apple-1", exp),
        ),
        k.sign(
            Algorithm::RS256,
            &claims(APPLE_ISSUER, APPLE_CLIENT, "apple-1", now() - 600),
        ),
        key("unknown-kid").sign(
            Algorithm::RS256,
            &claims(APPLE_ISSUER, APPLE_CLIENT, "apple-1", exp),
        ),
        "not.a.jwt".to_string(),
    ] {
        apple(&app, &bad).await.assert_error(401, "UNAUTHORIZED");
    }
    // keys unreachable (nothing listens on port 9)
    let mut vars = fakes.vars();
    for (k, v) in vars.iter_mut() {
        if *k == "APPLE_JWKS_URL" {
            *v = "http://127.0.0.1:9/auth/keys".into();
        }
    }
    let offline = TestApp::spawn_with(engine, &vars).await;
    let token = k.sign(
        Algorithm::RS256,
        &claims(APPLE_ISSUER, APPLE_CLIENT, "apple-2", exp),
    );
    apple(&offline, &token)
        .await
        .assert_error(503, "SERVICE_UNAVAILABLE");
}

fn link_body(token: &str, migration_id: &str) -> Value {
    json!({
        "provider": "ios_vendor",
        "credential": { "identityToken": token },
        "mergePolicy": "server_account_first",
        "clientMigrationId": migration_id,
    })
}

async fn link_upgrades_a_new_identity_in_place(engine: Engine) {
    let fakes = Fakes::start().await;
    let k = key("apple-1");
    fakes.serve_keys("/auth/keys", &[&k]).await;
    let app = TestApp::spawn_with(engine, &fakes.vars()).await;
    let token = k.sign(
        Algorithm::RS256,
        &claims(APPLE_ISSUER, APPLE_CLIENT, "fresh-apple", now() + 600),
    );
    let (guest_id, guest_token, _) = app.guest("device-up").await;

    // bad input first
    app.post(
        "/v1/auth/link",
        link_body("garbage", "m-0"),
        Some(&guest_token),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let mut wrong_policy = link_body(&token, "m-0");
    wrong_policy["mergePolicy"] = json!("guest_first");
    app.post("/v1/auth/link", wrong_policy, Some(&guest_token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let mut wrong_provider = link_body(&token, "m-0");
    wrong_provider["provider"] = json!("android_vendor");
    app.post("/v1/auth/link", wrong_provider, Some(&guest_token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.post(
        "/v1/auth/link",
        json!({"provider": "ios_vendor", "credential": {"identityToken": token}}),
        Some(&guest_token),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    app.post("/v1/auth/link", link_body(&token, "m-1"), None)
        .await
        .assert_error(401, "UNAUTHORIZED");

    let r = app
        .post(
            "/v1/auth/link",
            link_body(&token, "m-1"),
            Some(&guest_token),
        )
        .await;
    let data = r.ok().clone();
    assert_eq!(data["session"]["user"]["id"], guest_id.as_str());
    assert!(data["bootstrap"].is_null());
    assert_eq!(data["migrationSummary"]["policy"], "server_account_first");
    assert_eq!(data["migrationSummary"]["imported"], json!({}));
    assert_eq!(data["migrationSummary"]["conflicts"], json!([]));
    let new_token = data["session"]["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    app.get("/v1/auth/me", Some(&new_token)).await.ok();
    // the account is formal now; Apple sign-in finds it
    let r = apple(&app, &token).await;
    assert_eq!(r.ok()["user"]["id"], guest_id.as_str());
    // replay: same answer, nothing done again
    let r = app
        .post(
            "/v1/auth/link",
            link_body(&token, "m-1"),
            Some(&guest_token),
        )
        .await;
    assert_eq!(r.ok()["session"]["user"]["id"], guest_id.as_str());
    // a second link with another id is a conflict
    app.post(
        "/v1/auth/link",
        link_body(&token, "m-2"),
        Some(&guest_token),
    )
    .await
    .assert_error(409, "CONFLICT");
    // the device id no longer opens the formal account: it gets a new guest
    let (fresh_guest, _, _) = app.guest("device-up").await;
    assert_ne!(fresh_guest, guest_id);
}

/// Gives `player` some history: a finished session with two answers, rewards (granted
/// at the test's start) and that week's XP.
async fn give_history(app: &TestApp, player: &str, tag: &str, keys: &[(&str, i64)]) {
    app.exec(
        "INSERT INTO categories (id, name, slug, created_at, updated_at) VALUES ('cat-m', 'Merge', 'merge', 0, 0)
         ON CONFLICT DO NOTHING",
        &[],
    )
    .await;
    let session = format!("s-{tag}");
    app.exec(
        "INSERT INTO challenge_sessions (id, player_id, track_id, node_id, status, created_at) VALUES ($1, $2, 'cat-m', 'n1', 'finished', 0)",
        &[&session, player],
    )
    .await;
    for q in ["q1", "q2"] {
        let id = format!("a-{tag}-{q}");
        app.exec(
            "INSERT INTO challenge_answers (id, session_id, player_id, question_id, selected_option_id, is_correct, xp_delta, hearts_delta, created_at)
             VALUES ($1, $2, $3, $4, 'o', TRUE, 10, 0, 0)",
            &[&id, &session, player, q],
        )
        .await;
    }
    let mut total = 0;
    for (key_template, xp) in keys {
        let key = key_template.replace("{id}", player);
        let id = format!("l-{tag}-{key}");
        let sql: &'static str = match xp {
            10 => {
                "INSERT INTO reward_ledger (id, player_id, idempotency_key, source, xp_delta, created_at) VALUES ($1, $2, $3, 'test', 10, 1794974400000)"
            }
            15 => {
                "INSERT INTO reward_ledger (id, player_id, idempotency_key, source, xp_delta, created_at) VALUES ($1, $2, $3, 'test', 15, 1794974400000)"
            }
            _ => {
                "INSERT INTO reward_ledger (id, player_id, idempotency_key, source, xp_delta, created_at) VALUES ($1, $2, $3, 'test', 3, 1794974400000)"
            }
        };
        app.exec(sql, &[&id, player, &key]).await;
        total += xp;
    }
    let total = total.to_string();
    app.exec(
        "UPDATE player_progress SET xp = CAST($2 AS BIGINT) WHERE player_id = $1",
        &[player, &total],
    )
    .await;
    app.exec(
        "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at) VALUES ('2026-11-16', 'topic:all', $1, CAST($2 AS BIGINT), 1794974400000)",
        &[player, &total],
    )
    .await;
}

async fn ledger_sum(app: &TestApp, player: &str) -> i64 {
    app.scalar(
        "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
        &[player],
    )
    .await
}

async fn xp_of(app: &TestApp, player: &str) -> i64 {
    app.scalar(
        "SELECT xp FROM player_progress WHERE player_id = $1",
        &[player],
    )
    .await
}

async fn formal_account(app: &TestApp, k: &TestKey, sub: &str) -> (String, String) {
    let token = k.sign(
        Algorithm::RS256,
        &claims(APPLE_ISSUER, APPLE_CLIENT, sub, now() + 600),
    );
    let r = apple(app, &token).await;
    let data = r.ok();
    (
        data["user"]["id"].as_str().unwrap().to_string(),
        data["tokens"]["accessToken"].as_str().unwrap().to_string(),
    )
}

async fn link_merges_into_the_existing_account(engine: Engine) {
    let fakes = Fakes::start().await;
    let k = key("apple-1");
    fakes.serve_keys("/auth/keys", &[&k]).await;
    let app = TestApp::spawn_with(engine, &fakes.vars()).await;
    let (account, account_token) = formal_account(&app, &k, "existing-apple").await;
    // the account: streak 4, 100 coins, its own first-card reward
    give_history(&app, &account, "acc", &[("kcfirst:{id}", 15)]).await;
    app.exec("UPDATE player_progress SET streak_days = 4, streak_last_day = '2026-11-18' WHERE player_id = $1", &[&account]).await;
    app.exec(
        "UPDATE wallets SET coins_balance = 100 WHERE player_id = $1",
        &[&account],
    )
    .await;
    // the guest: a first-card reward (a conflict), a card view and an answer reward
    let (guest, guest_token, guest_refresh) = app.guest("device-merge").await;
    give_history(
        &app,
        &guest,
        "g",
        &[
            ("kcfirst:{id}", 15),
            ("kcview:{id}:card-1", 3),
            ("answer:{id}:s-g:q1", 10),
        ],
    )
    .await;
    app.exec("UPDATE player_progress SET streak_days = 9, streak_last_day = '2026-11-18' WHERE player_id = $1", &[&guest]).await;
    app.exec(
        "UPDATE wallets SET coins_balance = 7 WHERE player_id = $1",
        &[&guest],
    )
    .await;

    // a formal account cannot link
    let token = k.sign(
        Algorithm::RS256,
        &claims(APPLE_ISSUER, APPLE_CLIENT, "existing-apple", now() + 600),
    );
    app.post(
        "/v1/auth/link",
        link_body(&token, "m-formal"),
        Some(&account_token),
    )
    .await
    .assert_error(403, "FORBIDDEN");

    let r = app
        .post(
            "/v1/auth/link",
            link_body(&token, "m-merge"),
            Some(&guest_token),
        )
        .await;
    let data = r.ok().clone();
    assert_eq!(data["session"]["user"]["id"], account.as_str());
    let summary = &data["migrationSummary"];
    assert_eq!(summary["imported"]["answers"], 2);
    assert_eq!(summary["imported"]["sessions"], 1);
    assert_eq!(summary["imported"]["rewards"], 2);
    assert_eq!(summary["imported"]["xp"], 13);
    assert_eq!(summary["skipped"]["rewards"], 1);
    assert_eq!(summary["skipped"]["coins"], 7);
    assert_eq!(summary["skipped"]["streakDays"], 9);
    assert_eq!(summary["conflicts"].as_array().unwrap().len(), 1);
    assert_eq!(summary["conflicts"][0]["key"], format!("kcfirst:{account}"));
    assert_eq!(summary["conflicts"][0]["type"], "reward");

    // the account's streak and balance are untouched; XP follows the moved rewards
    assert_eq!(
        app.scalar(
            "SELECT streak_days FROM player_progress WHERE player_id = $1",
            &[&account]
        )
        .await,
        4
    );
    assert_eq!(
        app.scalar(
            "SELECT coins_balance FROM wallets WHERE player_id = $1",
            &[&account]
        )
        .await,
        100
    );
    assert_eq!(xp_of(&app, &account).await, 15 + 13);
    assert_eq!(
        ledger_sum(&app, &account).await,
        xp_of(&app, &account).await
    );
    assert_eq!(ledger_sum(&app, &guest).await, xp_of(&app, &guest).await);
    // moved rewards live in the account's key space, so they cannot be granted again
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM reward_ledger WHERE idempotency_key = $1",
            &[&format!("kcview:{account}:card-1")]
        )
        .await,
        1
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM challenge_answers WHERE player_id = $1",
            &[&account]
        )
        .await,
        4
    );
    // the week's row gains what the ledger gained (not the guest's 28, whose first-card
    // 15 XP stayed behind)
    assert_eq!(
        app.scalar(
            "SELECT xp FROM weekly_xp WHERE player_id = $1 AND board = 'topic:all'",
            &[&account]
        )
        .await,
        15 + 13
    );

    // The merged-away guest is gone: each of its tokens is refused at once.
    app.get("/v1/auth/me", Some(&guest_token))
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.post(
        "/v1/auth/refresh",
        json!({"refreshToken": guest_refresh}),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    app.get("/v1/progress/summary", Some(&guest_token))
        .await
        .assert_error(401, "UNAUTHORIZED");
    // Its link replays only for the identity it went to: a stolen guest token with a
    // bad identity token, or one of another Apple account, is refused as a first link
    // of this (linked) guest would be.
    app.post(
        "/v1/auth/link",
        link_body("garbage", "m-merge"),
        Some(&guest_token),
    )
    .await
    .assert_error(409, "CONFLICT");
    let stranger = k.sign(
        Algorithm::RS256,
        &claims(APPLE_ISSUER, APPLE_CLIENT, "someone-else", now() + 600),
    );
    app.post(
        "/v1/auth/link",
        link_body(&stranger, "m-merge"),
        Some(&guest_token),
    )
    .await
    .assert_error(409, "CONFLICT");
    // replay with the account's identity token: the stored answer, merged once
    let again = app
        .post(
            "/v1/auth/link",
            link_body(&token, "m-merge"),
            Some(&guest_token),
        )
        .await;
    assert_eq!(again.ok()["migrationSummary"], *summary);
    assert_eq!(xp_of(&app, &account).await, 28);
    // the same guest cannot link again under another id
    app.post(
        "/v1/auth/link",
        link_body(&token, "m-other"),
        Some(&guest_token),
    )
    .await
    .assert_error(409, "CONFLICT");
    // another guest's equal migration id is its own: no replay of this guest's link, no
    // conflict, but its own merge into the account
    let (other_guest, other_guest_token, _) = app.guest("device-other").await;
    let other = app
        .post(
            "/v1/auth/link",
            link_body(&token, "m-merge"),
            Some(&other_guest_token),
        )
        .await;
    assert_eq!(other.ok()["session"]["user"]["id"], account.as_str());
    assert_ne!(other.ok()["migrationSummary"], *summary);
    assert_eq!(xp_of(&app, &account).await, 28);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM idempotency_records WHERE key = 'm-merge' AND owner_id = $1",
            &[&other_guest]
        )
        .await,
        1
    );
}

/// `clientMigrationId` is scoped to the guest that sent it: two guests sending the same
/// id (clients that number their migrations, or one that guesses another's) each link
/// their own identity, and each replay answers its own guest.
async fn migration_ids_are_each_guests_own(engine: Engine) {
    let fakes = Fakes::start().await;
    let k = key("apple-1");
    fakes.serve_keys("/auth/keys", &[&k]).await;
    let app = TestApp::spawn_with(engine, &fakes.vars()).await;
    let mut guests = Vec::new();
    for (device, sub) in [("device-one", "apple-one"), ("device-two", "apple-two")] {
        let (id, guest_token, _) = app.guest(device).await;
        let identity = k.sign(
            Algorithm::RS256,
            &claims(APPLE_ISSUER, APPLE_CLIENT, sub, now() + 600),
        );
        guests.push((id, guest_token, identity));
    }
    for (id, guest_token, identity) in &guests {
        let r = app
            .post(
                "/v1/auth/link",
                link_body(identity, "migration-1"),
                Some(guest_token),
            )
            .await;
        // each guest upgraded in place to its own identity
        assert_eq!(r.ok()["session"]["user"]["id"], id.as_str());
    }
    for (id, _, identity) in &guests {
        assert_eq!(apple(&app, identity).await.ok()["user"]["id"], id.as_str());
    }
    // each replay is its own guest's
    for (id, guest_token, identity) in &guests {
        let again = app
            .post(
                "/v1/auth/link",
                link_body(identity, "migration-1"),
                Some(guest_token),
            )
            .await;
        assert_eq!(again.ok()["session"]["user"]["id"], id.as_str());
    }
    // one guest's identity token does not replay the other guest's link
    app.post(
        "/v1/auth/link",
        link_body(&guests[1].2, "migration-1"),
        Some(&guests[0].1),
    )
    .await
    .assert_error(409, "CONFLICT");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM idempotency_records WHERE key = 'migration-1'",
            &[]
        )
        .await,
        2
    );
}

async fn concurrent_replays_merge_once(engine: Engine) {
    let fakes = Fakes::start().await;
    let k = key("apple-1");
    fakes.serve_keys("/auth/keys", &[&k]).await;
    let app = TestApp::spawn_with(engine, &fakes.vars()).await;
    let (account, _) = formal_account(&app, &k, "race-apple").await;
    let (guest, guest_token, _) = app.guest("device-race-link").await;
    give_history(
        &app,
        &guest,
        "race",
        &[("kcview:{id}:card-9", 3), ("answer:{id}:x", 10)],
    )
    .await;
    let token = k.sign(
        Algorithm::RS256,
        &claims(APPLE_ISSUER, APPLE_CLIENT, "race-apple", now() + 600),
    );
    let results = join_all((0..20).map(|_| {
        app.post(
            "/v1/auth/link",
            link_body(&token, "m-race"),
            Some(&guest_token),
        )
    }))
    .await;
    let summaries: Vec<Value> = results
        .iter()
        .map(|r| r.ok()["migrationSummary"].clone())
        .collect();
    assert!(summaries.windows(2).all(|w| w[0] == w[1]), "{summaries:?}");
    assert!(
        results
            .iter()
            .all(|r| r.body["data"]["session"]["user"]["id"] == account.as_str())
    );
    assert_eq!(summaries[0]["imported"]["xp"], 13);
    assert_eq!(xp_of(&app, &account).await, 13);
    assert_eq!(ledger_sum(&app, &account).await, 13);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM challenge_answers WHERE player_id = $1",
            &[&account]
        )
        .await,
        2
    );
}
