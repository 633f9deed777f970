//! Floods (issue 28), through HTTP: feedback is limited per player and per client
//! address in a clock hour, counted in the database (two processes on one database
//! share the counts, and concurrent requests never pass the limit together), refused
//! with 429 RATE_LIMITED and `Retry-After`; old feedback goes with the retention job;
//! a player holds at most three open ad-recovery sessions, under concurrency too.

use chrono::Duration;
use futures::future::join_all;
use serde_json::{Value, json};
use shared::metrics::Metrics;
use shared::services::jobs;
use tests::{Resp, TestApp, TestDatabase, both_engines};

both_engines!(
    feedback_is_limited_per_player_and_address,
    feedback_limits_hold_under_concurrency_and_across_processes,
    old_feedback_goes_with_the_retention_job,
    a_player_holds_at_most_three_open_ad_sessions,
    every_write_of_the_player_api_is_listed_with_its_limit,
);
tests::both_engines_raw!(a_tokens_writes_are_bounded);

async fn send(app: &TestApp, token: &str, content: &str) -> Resp {
    app.post("/v1/feedback", json!({ "content": content }), Some(token))
        .await
}

async fn feedback_of(app: &TestApp, player: &str) -> i64 {
    app.scalar(
        "SELECT count(*) FROM feedback WHERE player_id = $1",
        &[player],
    )
    .await
}

#[track_caller]
fn assert_limited(r: &Resp) {
    r.assert_error(429, "RATE_LIMITED");
    let wait: u64 = r
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no Retry-After: {:?}", r.headers));
    assert!((1..=3600).contains(&wait), "{wait}");
}

async fn feedback_is_limited_per_player_and_address(app: TestApp) {
    let (a, a_token, _) = app.guest("fb-a").await;
    for i in 0..10 {
        send(&app, &a_token, &format!("note {i}")).await.ok();
    }
    let r = send(&app, &a_token, "one too many").await;
    assert_limited(&r);
    assert_eq!(feedback_of(&app, &a).await, 10);
    // bad input is refused as such, and takes no place
    app.post(
        "/v1/feedback",
        json!({ "content": "x".repeat(2001) }),
        Some(&a_token),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // every player behind one address: 30 an hour together
    let (b, b_token, _) = app.guest("fb-b").await;
    let (_, c_token, _) = app.guest("fb-c").await;
    for token in [&b_token, &c_token] {
        for _ in 0..10 {
            send(&app, token, "from the same café").await.ok();
        }
    }
    let (d, d_token, _) = app.guest("fb-d").await;
    assert_limited(&send(&app, &d_token, "first of mine").await);
    assert_eq!(feedback_of(&app, &d).await, 0);
    assert_eq!(feedback_of(&app, &b).await, 10);
    // the next hour counts afresh
    app.clock.advance(Duration::hours(1));
    send(&app, &a_token, "an hour later").await.ok();
    send(&app, &d_token, "my turn").await.ok();
    send(&app, &d_token, &"y".repeat(2000)).await.ok();
    assert_eq!(feedback_of(&app, &d).await, 2);
}

async fn feedback_limits_hold_under_concurrency_and_across_processes(app: TestApp) {
    let (p, token, _) = app.guest("fb-race").await;
    for i in 0..9 {
        send(&app, &token, &format!("note {i}")).await.ok();
    }
    // two at once for the tenth place: one passes
    let (x, y) = tokio::join!(send(&app, &token, "x"), send(&app, &token, "y"));
    let passed = [&x, &y].iter().filter(|r| r.status == 200).count();
    assert_eq!(passed, 1, "{} {}", x.body, y.body);
    for r in [&x, &y].into_iter().filter(|r| r.status != 200) {
        assert_limited(r);
    }
    assert_eq!(feedback_of(&app, &p).await, 10);
    // twenty at once from a new player: ten
    let (q, q_token, _) = app.guest("fb-burst").await;
    let all =
        join_all((0..20).map(|i| send(&app, &q_token, if i % 2 == 0 { "a" } else { "b" }))).await;
    assert_eq!(all.iter().filter(|r| r.status == 200).count(), 10);
    assert!(all.iter().all(|r| r.status == 200 || r.status == 429));
    assert_eq!(feedback_of(&app, &q).await, 10);
    // another process on the same database counts the same places
    let other = TestApp::spawn_on(
        TestDatabase::existing(app.engine, app.database.url.clone()),
        &[],
    )
    .await;
    let (r, r_token, _) = app.guest("fb-two-processes").await;
    for i in 0..10 {
        let via = if i % 2 == 0 { &app } else { &other };
        send(via, &r_token, "alternating").await.ok();
    }
    assert_limited(&send(&other, &r_token, "eleventh").await);
    assert_limited(&send(&app, &r_token, "twelfth").await);
    assert_eq!(feedback_of(&app, &r).await, 10);
}

async fn old_feedback_goes_with_the_retention_job(app: TestApp) {
    let (p, token, _) = app.guest("fb-old").await;
    send(&app, &token, "fresh").await.ok();
    // a note from years ago, and an hour's counter that ended long ago
    app.exec(
        "INSERT INTO feedback (id, player_id, content, created_at)
         VALUES ('ancient-feedback', $1, 'old', 1000)",
        &[&p],
    )
    .await;
    app.exec(
        "INSERT INTO request_counters (scope_key, window_start, expires_at, requests)
         VALUES ('feedback:player:gone', 0, 1000, 3)",
        &[],
    )
    .await;
    let metrics = Metrics::new(app.ctx.db.clone());
    jobs::purge(&app.ctx, &metrics.jobs()).await.unwrap();
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM feedback WHERE id = 'ancient-feedback'",
            &[]
        )
        .await,
        0
    );
    assert_eq!(feedback_of(&app, &p).await, 1, "this year's stays");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM request_counters WHERE scope_key = 'feedback:player:gone'",
            &[]
        )
        .await,
        0
    );
    let text = metrics.render();
    assert!(
        text.contains("retention_purged_rows_total{table=\"feedback\"} 1"),
        "{text}"
    );
    // the admin inbox lists what is kept
    let (admin, _, _) = app.admin_login().await;
    let inbox = app.admin_get("/v1/admin/feedback", Some(&admin)).await;
    assert_eq!(inbox.ok().as_array().unwrap().len(), 1);
}

async fn open_ad(app: &TestApp, token: &str, crid: &str) -> Value {
    app.post(
        "/v1/rewards/ad-recovery/session",
        json!({"type": "hearts", "clientRequestId": crid, "platform": "android", "adProvider": "mock"}),
        Some(token),
    )
    .await
    .ok()
    .clone()
}

async fn a_player_holds_at_most_three_open_ad_sessions(app: TestApp) {
    let (_, token, _) = app.guest("ads-cap").await;
    let mut open = Vec::new();
    for crid in ["ad-1", "ad-2", "ad-3"] {
        let s = open_ad(&app, &token, crid).await;
        assert_eq!(s["eligible"], true, "{s}");
        open.push(s);
    }
    // a fourth is ineligible, with a reason and when a place frees (the first expiry)
    let fourth = open_ad(&app, &token, "ad-4").await;
    assert_eq!(fourth["eligible"], false, "{fourth}");
    assert_eq!(fourth["reason"], "too_many_open_sessions");
    assert_eq!(fourth["sessionId"], Value::Null);
    assert_eq!(fourth["nextAvailableAt"], open[0]["expiresAt"]);
    // a repeat of an open one still answers it
    assert_eq!(
        open_ad(&app, &token, "ad-2").await["sessionId"],
        open[1]["sessionId"]
    );
    // completing one frees its place
    app.post(
        "/v1/rewards/ad-recovery/complete",
        json!({"sessionId": open[0]["sessionId"], "clientRequestId": "done", "adProvider": "mock", "completedAt": "2026-11-18T04:01:00Z"}),
        Some(&token),
    )
    .await
    .ok();
    assert_eq!(open_ad(&app, &token, "ad-4").await["eligible"], true);
    assert_eq!(open_ad(&app, &token, "ad-5").await["eligible"], false);
    // so does expiring
    app.clock.advance(Duration::minutes(11));
    assert_eq!(open_ad(&app, &token, "ad-5").await["eligible"], true);

    // ten at once from a new player: three open
    let (_, burst, _) = app.guest("ads-burst").await;
    let crids: Vec<String> = (0..10).map(|i| format!("burst-{i}")).collect();
    let answers = join_all(crids.iter().map(|c| open_ad(&app, &burst, c))).await;
    assert_eq!(
        answers.iter().filter(|a| a["eligible"] == true).count(),
        3,
        "{answers:?}"
    );
    assert!(
        answers
            .iter()
            .filter(|a| a["eligible"] == false)
            .all(|a| a["reason"] == "too_many_open_sessions")
    );
}

/// Issue 53: every request of the player API that writes (each operation with a method
/// but GET, and the GETs that write) is listed with its limits in
/// `player_api::rate_limit::PLAYER_WRITES`, and nothing is listed that the API lacks: a
/// new write route without a limit fails here.
async fn every_write_of_the_player_api_is_listed_with_its_limit(app: TestApp) {
    let document = app.get("/v1/openapi.json", None).await.body.clone();
    let listed: std::collections::BTreeSet<(String, String)> =
        player_api::rate_limit::PLAYER_WRITES
            .iter()
            .map(|(m, p, _)| (m.to_string(), p.to_string()))
            .collect();
    let mut writes = std::collections::BTreeSet::new();
    for (path, operations) in document["paths"].as_object().unwrap() {
        for method in operations.as_object().unwrap().keys() {
            let method = method.to_uppercase();
            let get_listed = listed.contains(&(method.clone(), path.clone()));
            if method != "GET" || get_listed {
                writes.insert((method, path.clone()));
            }
        }
    }
    assert_eq!(
        writes, listed,
        "writes of the API document against PLAYER_WRITES"
    );
    for (method, path, limit) in player_api::rate_limit::PLAYER_WRITES {
        assert!(!limit.is_empty(), "{method} {path} has no limit");
    }
    // and the GETs listed do write: a new challenge is one
    assert!(listed.contains(&("GET".into(), "/v1/challenges/next".into())));
}

/// Issue 53: a player's writes take places in one bucket (here 5 a minute), whichever
/// of their tokens and however the header is written: the sixth is 429 with
/// Retry-After, whatever route, by GET or HEAD; their reads and other players go on.
async fn a_tokens_writes_are_bounded(engine: tests::Engine) {
    let app = TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("RATE_LIMIT_PLAYER_WRITES_PER_MINUTE", "5".to_string()),
        ],
    )
    .await;
    let (_, token, _) = app.guest("writes-bucket").await;
    let next = "/v1/challenges/next?trackId=world-geography";
    for _ in 0..3 {
        app.get(next, Some(&token)).await.ok();
    }
    // the header written another way is the same player's bucket
    let odd = app
        .client
        .post(app.url(tests::Service::Player, "/v1/feedback"))
        .header("authorization", format!("bearer   {token} "))
        .json(&json!({ "content": "one more" }))
        .send()
        .await
        .unwrap();
    assert_eq!(odd.status().as_u16(), 200);
    // and so is a HEAD of a GET that writes
    let head = app
        .client
        .head(app.url(tests::Service::Player, next))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(head.status().as_u16(), 200);
    let refused = app.get(next, Some(&token)).await;
    assert_limited(&refused);
    assert_limited(&send(&app, &token, "and another").await);
    // a second token of the same player shares the bucket
    let (_, again, _) = app.guest("writes-bucket").await;
    assert_ne!(again, token);
    assert_limited(&app.get(next, Some(&again)).await);
    // reads go on, and so does another player
    app.get("/v1/progress/summary", Some(&token)).await.ok();
    let (_, other, _) = app.guest("writes-bucket-other").await;
    app.get(next, Some(&other)).await.ok();
    // a made-up token is no bucket of anyone's: its route refuses it
    app.get(next, Some("not-a-token"))
        .await
        .assert_error(401, "UNAUTHORIZED");
}
