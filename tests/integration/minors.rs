//! Minor mode (age bands, the guardian PIN, the daily limit, the night curfew, no
//! rewarded ads) and a player's copy of their data, through HTTP on both engines.

use chrono::{DateTime, Duration, Utc};
use futures::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use tests::{Engine, Resp, Service, TestApp, both_engines_demo, both_engines_with};

const TRACK: &str = "world-geography";

/// A 2-minute limit for 8 to 12 and a one-minute gap cap, so a test plays a day out.
async fn short_limits(engine: Engine) -> TestApp {
    TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("MINOR_LIMIT_8TO12_MINUTES", "2".to_string()),
            ("MINOR_ACTIVITY_GAP_SECONDS", "60".to_string()),
        ],
    )
    .await
}

/// The clock started by `QUIZ_CLOCK_START` at 21:59:59 Beijing time, one second before
/// the curfew.
async fn a_second_before_curfew(engine: Engine) -> TestApp {
    TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("QUIZ_CLOCK_START", "2026-11-18T13:59:59Z".to_string()),
        ],
    )
    .await
}

both_engines_with!(short_limits; play_time_counts_from_activity_and_ends_the_day,);
tests::both_engines_raw!(merges_into_and_deletion_of_a_protected_account_need_the_pin);
both_engines_with!(a_second_before_curfew; the_curfew_runs_from_22_to_06_beijing,);
both_engines_demo!(
    the_guardian_pin_guards_every_change,
    minor_mode_changes_are_limited_per_player,
    minors_get_no_rewarded_ads,
    the_copy_holds_the_players_data_once_a_day,
    every_table_with_player_rows_is_exported_or_left_out_with_a_reason,
);

fn beijing(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(&format!("{s}+08:00"))
        .unwrap()
        .with_timezone(&Utc)
}

async fn put(app: &TestApp, path: &str, body: Value, token: &str) -> Resp {
    app.call(Service::Player, Method::PUT, path, Some(body), Some(token))
        .await
}

async fn set_band(app: &TestApp, token: &str, body: Value) -> Resp {
    put(app, "/v1/users/me/minor-mode", body, token).await
}

fn refusal(resp: &Resp, reason: &str) -> Value {
    resp.assert_error(403, "MINOR_PROTECTION");
    let details = resp.body["error"]["details"].clone();
    assert_eq!(details["reason"], reason, "{}", resp.body);
    details["nextAllowedAt"].clone()
}

fn at(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

async fn next(app: &TestApp, token: &str) -> Resp {
    app.get(&format!("/v1/challenges/next?trackId={TRACK}"), Some(token))
        .await
}

/// Answers question `index` of `challenge` (right).
async fn answer(app: &TestApp, token: &str, challenge: &Value, index: usize) -> Resp {
    let session = challenge["challengeId"].as_str().unwrap();
    let question = challenge["questions"][index]["question"]["id"]
        .as_str()
        .unwrap();
    let correct = app
        .text(
            "SELECT correct_option_id FROM challenge_session_questions WHERE session_id = $1 AND question_id = $2",
            &[session, question],
        )
        .await;
    app.post(
        "/v1/challenges/answer",
        json!({"challengeId": session, "questionId": question, "selectedOptionId": correct, "timeMs": 3000, "comboCount": 0}),
        Some(token),
    )
    .await
}

async fn play_time_counts_from_activity_and_ends_the_day(app: TestApp) {
    let (_, token, _) = app.guest("minor-day").await;
    // an adult (no band declared) sees minor mode off, on the summary and the bootstrap
    let summary = app.get("/v1/progress/summary", Some(&token)).await;
    assert_eq!(
        summary.ok()["minorMode"],
        json!({"ageBand": "adult", "minutesLeftToday": null, "nextAllowedAt": null})
    );
    let mode = set_band(&app, &token, json!({"ageBand": "8to12", "pin": "2580"})).await;
    assert_eq!(mode.ok()["ageBand"], "8to12");
    assert_eq!(mode.ok()["minutesLeftToday"], 2);
    let challenge = next(&app, &token).await.ok().clone();
    // serving starts the count; each activity adds the gap since, capped at 60 s
    app.clock.advance(Duration::seconds(50));
    answer(&app, &token, &challenge, 0).await.ok();
    app.clock.advance(Duration::minutes(30));
    // asking for the challenge again counts the time before it too
    let again = next(&app, &token).await.ok().clone();
    assert_eq!(again["challengeId"], challenge["challengeId"]);
    answer(&app, &token, &challenge, 1).await.ok();
    let summary = app.get("/v1/progress/summary", Some(&token)).await;
    // 50 s + 60 s (the 30 minutes away count as the cap) = 110 s: 0 whole minutes left
    assert_eq!(summary.ok()["minorMode"]["minutesLeftToday"], 0);
    assert_eq!(summary.ok()["minorMode"]["nextAllowedAt"], Value::Null);
    app.clock.advance(Duration::seconds(10));
    let answered = answer(&app, &token, &challenge, 2).await.ok().clone();
    let card = answered["knowledgeCard"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // 120 s: the day's limit is used up, for answers and for new challenges
    let refused = answer(&app, &token, &challenge, 3).await;
    let next_allowed = refusal(&refused, "daily_limit");
    let tomorrow_morning = beijing("2026-11-19T06:00:00");
    assert_eq!(at(&next_allowed), tomorrow_morning);
    let refused = next(&app, &token).await;
    assert_eq!(at(&refusal(&refused, "daily_limit")), tomorrow_morning);
    // a card's XP is play too
    let viewed = app
        .post(
            &format!("/v1/challenges/knowledge-cards/{card}/view"),
            json!({}),
            Some(&token),
        )
        .await;
    refusal(&viewed, "daily_limit");
    let bootstrap = app.get("/v1/app/bootstrap", Some(&token)).await;
    assert_eq!(
        bootstrap.ok()["progress"]["minorMode"],
        json!({"ageBand": "8to12", "minutesLeftToday": 0, "nextAllowedAt": "2026-11-18T22:00:00Z"})
    );
    // an answer refused is not counted, and a refusal changes no progress
    let played: i64 = app
        .scalar("SELECT played_ms FROM minor_play WHERE player_id = (SELECT player_id FROM player_identities WHERE subject = $1)", &["minor-day"])
        .await;
    // (the clock runs on in real time between the test's steps)
    assert!((120_000..125_000).contains(&played), "{played}");
    // the next Beijing morning the day starts afresh
    app.clock.set(tomorrow_morning);
    let (_, token, _) = app.guest("minor-day").await;
    let resumed = next(&app, &token).await.ok().clone();
    assert_eq!(resumed["challengeId"], challenge["challengeId"]);
    answer(&app, &token, &resumed, 3).await.ok();
    // a few milliseconds played: 1 whole minute left of 2 (rounded down)
    let summary = app.get("/v1/progress/summary", Some(&token)).await;
    let left = summary.ok()["minorMode"]["minutesLeftToday"]
        .as_i64()
        .unwrap();
    assert!((1..=2).contains(&left), "{left}");
}

async fn the_curfew_runs_from_22_to_06_beijing(app: TestApp) {
    let (_, token, _) = app.guest("minor-night").await;
    set_band(&app, &token, json!({"ageBand": "16to18", "pin": "0000"}))
        .await
        .ok();
    // 21:59:59 (the process clock started there; set again, as starting took time):
    // allowed
    app.clock.set(beijing("2026-11-18T21:59:59"));
    let challenge = next(&app, &token).await.ok().clone();
    // 22:00:00: refused until 06:00 the next morning, answers too
    app.clock.set(beijing("2026-11-18T22:00:00"));
    let morning = beijing("2026-11-19T06:00:00");
    assert_eq!(at(&refusal(&next(&app, &token).await, "curfew")), morning);
    assert_eq!(
        at(&refusal(
            &answer(&app, &token, &challenge, 0).await,
            "curfew"
        )),
        morning
    );
    let summary = app.get("/v1/progress/summary", Some(&token)).await;
    assert_eq!(at(&summary.ok()["minorMode"]["nextAllowedAt"]), morning);
    // 05:59:59: still refused; 06:00:00: allowed
    app.clock.set(beijing("2026-11-19T05:59:59"));
    let (_, token, _) = app.guest("minor-night").await;
    assert_eq!(at(&refusal(&next(&app, &token).await, "curfew")), morning);
    app.clock.set(morning);
    answer(&app, &token, &challenge, 0).await.ok();
    // an adult plays at night
    app.clock.set(beijing("2026-11-19T23:30:00"));
    let (_, adult, _) = app.guest("adult-night").await;
    next(&app, &adult).await.ok();
}

async fn the_guardian_pin_guards_every_change(app: TestApp) {
    let (_, token, _) = app.guest("guardian").await;
    let body = |band: &str, pin: Option<&str>| json!({"ageBand": band, "pin": pin});
    set_band(&app, &token, body("teen", Some("1234")))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // a minor's band needs a PIN of 4 digits
    set_band(&app, &token, body("under8", None))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    set_band(&app, &token, body("under8", Some("12345")))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    set_band(&app, &token, body("under8", Some("1234")))
        .await
        .ok();
    let hash = app
        .text(
            "SELECT guardian_pin_hash FROM players WHERE id = (SELECT player_id FROM player_identities WHERE subject = $1)",
            &["guardian"],
        )
        .await;
    assert!(
        hash.starts_with("$argon2"),
        "the PIN is stored as an argon2 hash"
    );
    // changing the band or turning minor mode off needs the PIN
    set_band(&app, &token, body("adult", None))
        .await
        .assert_error(403, "FORBIDDEN");
    set_band(&app, &token, body("12to16", Some("9999")))
        .await
        .assert_error(403, "FORBIDDEN");
    let changed = set_band(&app, &token, body("12to16", Some("1234"))).await;
    assert_eq!(changed.ok()["ageBand"], "12to16");
    // a new PIN replaces the old one
    set_band(
        &app,
        &token,
        json!({"ageBand": "12to16", "pin": "1234", "newPin": "4321"}),
    )
    .await
    .ok();
    // five wrong tries (sent at once: each is counted) lock the PIN, the right one too
    let tries = join_all((0..5).map(|_| set_band(&app, &token, body("adult", Some("0000"))))).await;
    for t in &tries {
        t.assert_error(403, "FORBIDDEN");
    }
    let locked = set_band(&app, &token, body("adult", Some("4321"))).await;
    locked.assert_error(429, "RATE_LIMITED");
    let retry: i64 = locked.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    // locked until the next Beijing midnight, as the guardian sees it
    let midnight = shared::clock::beijing::next_midnight(app.clock.now());
    assert_eq!(retry, (midnight - app.clock.now()).num_seconds() + 1);
    let mode = app.get("/v1/users/me/minor-mode", Some(&token)).await;
    assert_eq!(mode.ok()["ageBand"], "12to16");
    assert_eq!(mode.ok()["guardianPin"]["triesLeftToday"], 0);
    assert_eq!(
        mode.ok()["guardianPin"]["lockedUntil"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        midnight
    );
    // still locked an hour later; the next day the right PIN turns minor mode off
    app.clock.advance(Duration::hours(1));
    set_band(&app, &token, body("adult", Some("4321")))
        .await
        .assert_error(429, "RATE_LIMITED");
    app.clock.set(midnight + Duration::seconds(1));
    // (signed in again: the access token has expired meanwhile)
    let (_, token, _) = app.guest("guardian").await;
    let mode = app.get("/v1/users/me/minor-mode", Some(&token)).await;
    assert_eq!(
        mode.ok()["guardianPin"],
        json!({"triesLeftToday": 5, "lockedUntil": null})
    );
    let off = set_band(&app, &token, body("adult", Some("4321"))).await;
    assert_eq!(
        off.ok().clone(),
        json!({"ageBand": "adult", "minutesLeftToday": null, "nextAllowedAt": null})
    );
    // with no guardian any more, minor mode goes on again with a new PIN
    set_band(&app, &token, body("16to18", Some("1111")))
        .await
        .ok();
    // two first settings at once: one PIN is the guardian's, the other is refused
    let (_, other, _) = app.guest("guardian-race").await;
    let both =
        join_all(["1111", "2222"].map(|pin| set_band(&app, &other, body("under8", Some(pin)))))
            .await;
    let statuses: Vec<u16> = both.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| [200, 403, 409].contains(s)),
        "{statuses:?}"
    );
}

async fn minor_mode_changes_are_limited_per_player(app: TestApp) {
    // each change that hashes or checks a PIN takes a place: 20 an hour per player,
    // then 429 until the hour is over
    let (_, token, _) = app.guest("minor-mode-changes").await;
    let on = json!({"ageBand": "under8", "pin": "1234"});
    let off = json!({"ageBand": "adult", "pin": "1234"});
    for _ in 0..10 {
        set_band(&app, &token, on.clone()).await.ok();
        set_band(&app, &token, off.clone()).await.ok();
    }
    let refused = set_band(&app, &token, on.clone()).await;
    refused.assert_error(429, "RATE_LIMITED");
    let retry: i64 = refused.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3600).contains(&retry), "{retry}");
    // a change that hashes nothing is not held back, nor is another player
    set_band(&app, &token, json!({"ageBand": "adult"}))
        .await
        .ok();
    let (_, other, _) = app.guest("minor-mode-other").await;
    set_band(&app, &other, on.clone()).await.ok();
    app.clock.advance(Duration::seconds(retry));
    set_band(&app, &token, on).await.ok();
}

async fn minors_get_no_rewarded_ads(app: TestApp) {
    let (_, token, _) = app.guest("minor-ads").await;
    let open = |crid: &'static str, token: String| {
        let app = &app;
        async move {
            app.post(
                "/v1/rewards/ad-recovery/session",
                json!({"type": "hearts", "clientRequestId": crid, "platform": "android", "adProvider": "mock"}),
                Some(&token),
            )
            .await
        }
    };
    let session = open("before", token.clone()).await.ok().clone();
    set_band(&app, &token, json!({"ageBand": "8to12", "pin": "2468"}))
        .await
        .ok();
    let refused = open("after", token.clone()).await;
    assert_eq!(refusal(&refused, "ads_unavailable"), Value::Null);
    // a session opened before minor mode went on pays nothing either
    let completed = app
        .post(
            "/v1/rewards/ad-recovery/complete",
            json!({"sessionId": session["sessionId"], "clientRequestId": "before", "adProvider": "mock", "completedAt": "2026-11-18T04:01:00Z"}),
            Some(&token),
        )
        .await;
    refusal(&completed, "ads_unavailable");
}

async fn the_copy_holds_the_players_data_once_a_day(app: TestApp) {
    let (id, token, _) = app.guest("exporter-device-1").await;
    let challenge = next(&app, &token).await.ok().clone();
    answer(&app, &token, &challenge, 0).await.ok();
    app.post(
        "/v1/feedback",
        json!({"content": "more maps please", "contact": "me@example.com"}),
        Some(&token),
    )
    .await
    .ok();
    set_band(&app, &token, json!({"ageBand": "16to18", "pin": "1357"}))
        .await
        .ok();
    // two requests at once: one copy, the other 429
    let copies = join_all((0..2).map(|_| app.get("/v1/users/me/export", Some(&token)))).await;
    let statuses: Vec<u16> = copies.iter().map(|c| c.status).collect();
    assert!(
        statuses.contains(&200) && statuses.contains(&429),
        "{statuses:?}"
    );
    let copy = copies.iter().find(|c| c.status == 200).unwrap();
    assert!(
        copy.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let data = copy.ok();
    assert_eq!(data["playerId"], id.as_str());
    let tables = &data["tables"];
    assert_eq!(tables["players"][0]["id"], id.as_str());
    assert_eq!(tables["players"][0]["age_band"], "16to18");
    assert!(tables["players"][0].get("guardian_pin_hash").is_none());
    assert!(tables["players"][0].get("token_version").is_none());
    assert!(tables["challenge_answers"][0].get("signals").is_none());
    // the anti-cheat's state is no part of the copy (issue 53): the hold, the marks it
    // leaves on the boards, the review's row, the wrong-PIN count
    for column in [
        "fairplay_held",
        "guardian_pin_failures",
        "guardian_pin_failed_at",
        "guardian_pin_locked_until",
    ] {
        assert!(tables["players"][0].get(column).is_none(), "{column}");
    }
    assert!(tables["weekly_xp"][0].get("hidden_until").is_none());
    assert!(tables.get("fairplay_players").is_none());
    assert!(
        data["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["table"] == "fairplay_players")
    );
    // sign-in identifiers are masked
    let subject = tables["player_identities"][0]["subject"].as_str().unwrap();
    assert_eq!(subject, "exp************-1");
    assert_eq!(tables["challenge_answers"].as_array().unwrap().len(), 1);
    assert_eq!(tables["challenge_answers"][0]["is_correct"], true);
    assert_eq!(tables["challenge_sessions"].as_array().unwrap().len(), 1);
    assert!(!tables["reward_ledger"].as_array().unwrap().is_empty());
    assert_eq!(tables["feedback"][0]["content"], "more maps please");
    assert!(!tables["weekly_xp"].as_array().unwrap().is_empty());
    assert_eq!(
        tables["player_progress"][0]["xp"],
        tables["weekly_xp"][0]["xp"]
    );
    assert!(
        data["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["table"] == "refresh_tokens")
    );
    // the copy is in the audit log
    let audited = app
        .scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'player.export' AND target_id = $1",
            &[&id],
        )
        .await;
    assert_eq!(audited, 1);
    // one a day
    let again = app.get("/v1/users/me/export", Some(&token)).await;
    again.assert_error(429, "RATE_LIMITED");
    let retry: i64 = again.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((86_000..=86_401).contains(&retry), "{retry}");
    app.clock.advance(Duration::hours(24));
    let (_, token, _) = app.guest("exporter-device-1").await;
    app.get("/v1/users/me/export", Some(&token)).await.ok();
    // another player's copy is their own
    let (other, other_token, _) = app.guest("exporter-device-2").await;
    let theirs = app.get("/v1/users/me/export", Some(&other_token)).await;
    assert_eq!(theirs.ok()["playerId"], other.as_str());
    assert_eq!(theirs.ok()["tables"]["challenge_answers"], json!([]));
    app.get("/v1/users/me/export", None)
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn every_table_with_player_rows_is_exported_or_left_out_with_a_reason(app: TestApp) {
    let tables = shared::db::export::tables_with_player_columns(&app.ctx.db)
        .await
        .unwrap();
    assert!(
        tables.contains(&"challenge_answers".to_string()),
        "{tables:?}"
    );
    let exported: Vec<&str> = shared::db::export::SECTIONS
        .iter()
        .map(|s| s.table)
        .collect();
    let forgotten: Vec<&String> = tables
        .iter()
        .filter(|t| {
            !exported.contains(&t.as_str())
                && !shared::db::export::LEFT_OUT.iter().any(|(l, _)| l == t)
        })
        .collect();
    assert!(
        forgotten.is_empty(),
        "tables with player rows in neither db::export::SECTIONS nor LEFT_OUT: {forgotten:?}"
    );
    // and every exported table exists (a left-out one may be of one engine only)
    for table in &exported {
        assert!(
            tables.iter().any(|t| t == table),
            "{table} is not in the schema"
        );
    }
}

/// Issue 53: a guest that played outside a minor's limits joins the protected account
/// only with the guardian's PIN, and the account goes only with it; wrong PINs count
/// with the day's five; staff reset a forgotten PIN at the guardian's request (audited,
/// the new PIN shown once).
async fn merges_into_and_deletion_of_a_protected_account_need_the_pin(engine: Engine) {
    let apple = tests::apple::AppleFake::start("minor-apple").await;
    let app = crate::fair_play::demo(engine, &apple.vars()).await;
    let signed_in = app
        .post(
            "/v1/auth/ios_vendor",
            json!({ "identityToken": apple.token("minor-account") }),
            None,
        )
        .await;
    let account = signed_in.ok()["user"]["id"].as_str().unwrap().to_string();
    let token = signed_in.ok()["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    set_band(&app, &token, json!({"ageBand": "12to16", "pin": "1357"}))
        .await
        .ok();
    let link = |guest_token: String, pin: Option<&'static str>, id: &'static str| {
        let (app, apple) = (&app, &apple);
        async move {
            let mut body = json!({
                "provider": "ios_vendor",
                "credential": { "identityToken": apple.token("minor-account") },
                "mergePolicy": "server_account_first",
                "clientMigrationId": id,
            });
            if let Some(pin) = pin {
                body["guardianPin"] = json!(pin);
            }
            app.post("/v1/auth/link", body, Some(&guest_token)).await
        }
    };
    // a guest plays, then tries to join the protected account
    let (_, guest, _) = app.guest("minor-merge-guest").await;
    let c = next(&app, &guest).await.ok().clone();
    answer(&app, &guest, &c, 0).await.ok();
    link(guest.clone(), None, "m-1")
        .await
        .assert_error(403, "FORBIDDEN");
    link(guest.clone(), Some("0000"), "m-2")
        .await
        .assert_error(403, "FORBIDDEN");
    let mode = app.get("/v1/users/me/minor-mode", Some(&token)).await;
    assert_eq!(mode.ok()["guardianPin"]["triesLeftToday"], 4);
    let linked = link(guest.clone(), Some("1357"), "m-3").await;
    assert_eq!(linked.ok()["session"]["user"]["id"], account.as_str());
    let token = linked.ok()["session"]["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    // the right PIN cleared the day's wrong try
    let mode = app.get("/v1/users/me/minor-mode", Some(&token)).await;
    assert_eq!(mode.ok()["guardianPin"]["triesLeftToday"], 5);

    // deletion: without the PIN, with a wrong one, then locked after the fifth
    let delete = |body: Option<Value>| {
        let (app, token) = (&app, token.clone());
        async move {
            app.call(
                Service::Player,
                Method::DELETE,
                "/v1/users/me",
                body,
                Some(&token),
            )
            .await
        }
    };
    delete(None).await.assert_error(403, "FORBIDDEN");
    for _ in 0..5 {
        delete(Some(json!({"guardianPin": "2468"})))
            .await
            .assert_error(403, "FORBIDDEN");
    }
    delete(Some(json!({"guardianPin": "1357"})))
        .await
        .assert_error(429, "RATE_LIMITED");
    assert_eq!(
        app.get("/v1/auth/me", Some(&token)).await.status,
        200,
        "not deleted"
    );
    // the guardian forgot the PIN: staff reset it, once, audited without it
    let (admin, _, _) = app.admin_login().await;
    let reset = app
        .admin_post(
            &format!("/v1/admin/users/{account}/guardian-pin/reset"),
            json!({}),
            Some(&admin),
        )
        .await;
    let pin = reset.ok()["guardianPin"].as_str().unwrap().to_string();
    assert!(
        pin.len() == 4 && pin.bytes().all(|b| b.is_ascii_digit()),
        "{pin}"
    );
    let audit = app
        .admin_get("/v1/admin/audit-log?limit=20", Some(&admin))
        .await;
    let entry = audit
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "player.guardian_pin_reset")
        .cloned()
        .unwrap();
    assert_eq!(entry["targetId"], account.as_str());
    assert!(!entry.to_string().contains(&format!("\"{pin}\"")));
    // a player without minor mode has no PIN to reset
    let (plain, _, _) = app.guest("minor-plain").await;
    app.admin_post(
        &format!("/v1/admin/users/{plain}/guardian-pin/reset"),
        json!({}),
        Some(&admin),
    )
    .await
    .assert_error(409, "CONFLICT");
    // the new PIN, unlocked, deletes the account
    let gone = delete(Some(json!({"guardianPin": pin}))).await;
    assert_eq!(gone.ok()["deleted"], true);

    // a guest in minor mode does not leave its protection behind in an account without
    // it: refused until its guardian turns minor mode off
    app.post(
        "/v1/auth/ios_vendor",
        json!({ "identityToken": apple.token("minor-free-account") }),
        None,
    )
    .await
    .ok();
    let (_, protected, _) = app.guest("minor-protected-guest").await;
    set_band(&app, &protected, json!({"ageBand": "8to12", "pin": "9753"}))
        .await
        .ok();
    let body = |pin: Option<&str>| {
        let mut body = json!({
            "provider": "ios_vendor",
            "credential": { "identityToken": apple.token("minor-free-account") },
            "mergePolicy": "server_account_first",
            "clientMigrationId": "free-1",
        });
        if let Some(pin) = pin {
            body["guardianPin"] = json!(pin);
        }
        body
    };
    for pin in [None, Some("9753")] {
        let refused = app.post("/v1/auth/link", body(pin), Some(&protected)).await;
        refused.assert_error(403, "FORBIDDEN");
        assert!(
            refused.body.to_string().contains("minor mode"),
            "{}",
            refused.body
        );
    }
    set_band(&app, &protected, json!({"ageBand": "adult", "pin": "9753"}))
        .await
        .ok();
    let joined = app
        .post("/v1/auth/link", body(None), Some(&protected))
        .await;
    joined.ok();
}
