//! The licensed-game profile (`COMPLIANCE_PROFILE=licensed_game`) through HTTP on both
//! engines: no guest and no play before real-name verification through a fake of the
//! NPPA system, minors only 20:00-21:00 Beijing time on Fridays, Saturdays, Sundays and
//! the statutory holidays staff keep, and verified players' logins and logouts reported
//! in the background.

use chrono::{DateTime, NaiveDate, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use tests::apple::AppleFake;
use tests::nppa::{Answer, NppaFake, id_number};
use tests::{Engine, Resp, Service, TestApp, both_engines_raw};

both_engines_raw!(
    nothing_is_served_before_real_name_verification,
    minors_play_only_in_the_notice_s_hours,
    a_limit_used_up_in_a_window_opens_at_the_next_window,
    a_pending_verification_finishes_on_a_later_look,
    logins_and_logouts_are_reported_and_retried,
);

const TRACK: &str = "world-geography";

struct Licensed {
    app: TestApp,
    nppa: NppaFake,
    apple: AppleFake,
}

/// A licensed-game deployment with the demo content, NPPA and Apple faked; the clock
/// starts at `start` (`QUIZ_CLOCK_START`), a Beijing wall-clock time.
async fn licensed(engine: Engine, start: &str) -> Licensed {
    licensed_with(engine, start, &[]).await
}

/// `licensed` with more configuration.
async fn licensed_with(engine: Engine, start: &str, extra: &[(&'static str, &str)]) -> Licensed {
    let nppa = NppaFake::start().await;
    let apple = AppleFake::start("k1").await;
    let mut vars = nppa.vars();
    vars.extend(apple.vars());
    vars.push(("DEMO_CONTENT", "true".into()));
    vars.push(("QUIZ_CLOCK_START", beijing(start).to_rfc3339()));
    vars.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    let app = TestApp::spawn_with(engine, &vars).await;
    Licensed { app, nppa, apple }
}

fn beijing(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(&format!("{s}+08:00"))
        .unwrap()
        .with_timezone(&Utc)
}

impl Licensed {
    /// Signs `sub` in with Apple: (player id, access token, refresh token).
    async fn sign_in(&self, sub: &str) -> (String, String, String) {
        let r = self
            .app
            .post(
                "/v1/auth/apple",
                json!({ "identityToken": self.apple.token(sub) }),
                None,
            )
            .await;
        let data = r.ok();
        (
            data["user"]["id"].as_str().unwrap().into(),
            data["tokens"]["accessToken"].as_str().unwrap().into(),
            data["tokens"]["refreshToken"].as_str().unwrap().into(),
        )
    }

    async fn verify(&self, token: &str, name: &str, id: &str) -> Resp {
        self.app
            .post(
                "/v1/users/me/real-name",
                json!({"name": name, "idNumber": id}),
                Some(token),
            )
            .await
    }

    async fn next(&self, token: &str) -> Resp {
        self.app
            .get(&format!("/v1/challenges/next?trackId={TRACK}"), Some(token))
            .await
    }

    async fn answer(&self, token: &str, challenge: &Value, index: usize) -> Resp {
        let session = challenge["challengeId"].as_str().unwrap();
        let question = challenge["questions"][index]["question"]["id"]
            .as_str()
            .unwrap();
        let correct = self
            .app
            .text(
                "SELECT correct_option_id FROM challenge_session_questions WHERE session_id = $1 AND question_id = $2",
                &[session, question],
            )
            .await;
        self.app
            .post(
                "/v1/challenges/answer",
                json!({"challengeId": session, "questionId": question, "selectedOptionId": correct, "timeMs": 3000, "comboCount": 0}),
                Some(token),
            )
            .await
    }

    async fn ad(&self, token: &str, crid: &str) -> Resp {
        self.app
            .post(
                "/v1/rewards/ad-recovery/session",
                json!({"type": "hearts", "clientRequestId": crid, "platform": "android", "adProvider": "mock"}),
                Some(token),
            )
            .await
    }
}

fn window_refusal(resp: &Resp) -> DateTime<Utc> {
    resp.assert_error(403, "MINOR_PROTECTION");
    assert_eq!(
        resp.body["error"]["details"]["reason"], "window",
        "{}",
        resp.body
    );
    resp.body["error"]["details"]["nextAllowedAt"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

async fn nothing_is_served_before_real_name_verification(engine: Engine) {
    // Wednesday 23:00: an adult has no hours
    let l = licensed(engine, "2026-11-18T23:00:00").await;
    let app = &l.app;
    app.post("/v1/auth/guest", json!({"deviceId": "d1"}), None)
        .await
        .assert_error(403, "REAL_NAME_REQUIRED");
    let (id, token, _) = l.sign_in("adult-1").await;
    l.next(&token).await.assert_error(403, "REAL_NAME_REQUIRED");
    l.ad(&token, "c1")
        .await
        .assert_error(403, "REAL_NAME_REQUIRED");
    let state = app.get("/v1/users/me/real-name", Some(&token)).await;
    assert_eq!(
        state.ok().clone(),
        json!({"status": "unverified", "adult": null, "birthYear": null, "required": true})
    );
    // checked here first: the check digit, then a malformed name
    let adult_id = id_number(date(1990, 12, 31), 7);
    let mut wrong_digit = adult_id.clone().into_bytes();
    wrong_digit[17] = if wrong_digit[17] == b'0' { b'1' } else { b'0' };
    l.verify(&token, "张三", &String::from_utf8(wrong_digit).unwrap())
        .await
        .assert_error(400, "VALIDATION_ERROR");
    l.verify(&token, "", &adult_id)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // a person NPPA does not know fails
    l.verify(&token, "张三", &adult_id)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let state = app.get("/v1/users/me/real-name", Some(&token)).await;
    assert_eq!(state.ok()["status"], "failed");
    l.next(&token).await.assert_error(403, "REAL_NAME_REQUIRED");
    // the person NPPA knows is verified: an adult, born 1990
    l.nppa.person("张三", &adult_id, Answer::Verified);
    let verified = l.verify(&token, "张三", &adult_id).await;
    assert_eq!(
        verified.ok().clone(),
        json!({"status": "verified", "adult": true, "birthYear": 1990, "required": true})
    );
    l.verify(&token, "张三", &adult_id)
        .await
        .assert_error(409, "CONFLICT");
    // the same access token plays now, at 23:00: an adult has no curfew
    let challenge = l.next(&token).await.ok().clone();
    l.answer(&token, &challenge, 0).await.ok();
    l.ad(&token, "c2").await.ok();
    // the name and the number reached NPPA, and nothing of the service keeps them
    assert!(l.nppa.bodies().iter().any(|b| b.contains(&adult_id)));
    let copy = app.get("/v1/users/me/export", Some(&token)).await;
    let text = copy.body.to_string();
    assert!(
        copy.status == 200 && text.contains("real_name_pi"),
        "{text}"
    );
    assert!(!text.contains(&adult_id) && !text.contains("张三"));
    // staff see the outcome only
    let (admin, _, _) = app.admin_login().await;
    let record = app
        .admin_get(&format!("/v1/admin/users/{id}"), Some(&admin))
        .await;
    assert_eq!(
        record.ok()["protection"],
        json!({"declaredAgeBand": null, "minorMode": false, "ageBand": "adult", "realName": "verified", "adult": true})
    );
    // deleting the account forgets the verification
    app.call(
        Service::Player,
        Method::DELETE,
        "/v1/users/me",
        None,
        Some(&token),
    )
    .await
    .ok();
    let kept = app
        .scalar(
            "SELECT count(*) FROM players WHERE id = $1 AND (real_name_pi IS NOT NULL OR real_name_ai IS NOT NULL OR real_name_birth_year IS NOT NULL)",
            &[&id],
        )
        .await;
    assert_eq!(kept, 0);
    // five checks a day per player: a sixth is refused before it reaches NPPA
    let (_, guesser, _) = l.sign_in("guesser").await;
    for sequence in 0..5 {
        l.verify(
            &guesser,
            "张三",
            &id_number(date(1990, 12, 31), 100 + sequence),
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
    }
    let sent = l.nppa.bodies().len();
    let sixth = l
        .verify(&guesser, "张三", &id_number(date(1990, 12, 31), 200))
        .await;
    sixth.assert_error(429, "RATE_LIMITED");
    assert!(sixth.headers.contains_key("retry-after"));
    assert_eq!(l.nppa.bodies().len(), sent);
}

async fn minors_play_only_in_the_notice_s_hours(engine: Engine) {
    // Wednesday 2026-11-18, 20:30 Beijing
    let l = licensed(engine, "2026-11-18T20:30:00").await;
    let app = &l.app;
    let minor_id = id_number(date(2012, 5, 1), 21);
    l.nppa.person("李四", &minor_id, Answer::Verified);
    let (id, token, _) = l.sign_in("minor-1").await;
    let verified = l.verify(&token, "李四", &minor_id).await;
    assert_eq!(verified.ok()["adult"], false);
    assert_eq!(verified.ok()["birthYear"], 2012);
    // an ordinary Wednesday: closed until Friday 20:00
    let friday = beijing("2026-11-20T20:00:00");
    assert_eq!(window_refusal(&l.next(&token).await), friday);
    let summary = app.get("/v1/progress/summary", Some(&token)).await;
    assert_eq!(summary.ok()["minorMode"]["ageBand"], "12to16");
    assert_eq!(
        summary.ok()["minorMode"]["nextAllowedAt"],
        json!(friday.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    );
    // staff make today a statutory holiday: a holiday Wednesday is open
    let (admin, _, _) = app.admin_login().await;
    let holiday = app
        .call(
            Service::Admin,
            Method::PUT,
            "/v1/admin/holidays/2026-11-18",
            Some(json!({"name": "测试节"})),
            Some(&admin),
        )
        .await;
    assert_eq!(holiday.ok()["day"], "2026-11-18");
    let audited = app
        .scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'holiday.put' AND target_id = $1",
            &["2026-11-18"],
        )
        .await;
    assert_eq!(audited, 1);
    let list = app.admin_get("/v1/admin/holidays", Some(&admin)).await;
    assert_eq!(list.ok()[0]["name"], "测试节");
    let challenge = l.next(&token).await.ok().clone();
    // no rewarded ads for a minor, even in the hour
    let ad = l.ad(&token, "c1").await;
    ad.assert_error(403, "MINOR_PROTECTION");
    assert_eq!(ad.body["error"]["details"]["reason"], "ads_unavailable");
    // 20:59:59 allowed; 21:00:00 the challenge in progress ends
    app.clock.set(beijing("2026-11-18T20:59:59"));
    l.answer(&token, &challenge, 0).await.ok();
    app.clock.set(beijing("2026-11-18T21:00:00"));
    assert_eq!(
        window_refusal(&l.answer(&token, &challenge, 1).await),
        friday
    );
    assert_eq!(window_refusal(&l.next(&token).await), friday);
    // an ordinary Thursday refused, at 20:30 too
    app.clock.set(beijing("2026-11-19T20:30:00"));
    let (_, token, _) = l.sign_in("minor-1").await;
    assert_eq!(window_refusal(&l.next(&token).await), friday);
    // Friday 20:00:00: open; the challenge goes on where it stopped
    app.clock.set(friday);
    let (_, token, _) = l.sign_in("minor-1").await;
    let resumed = l.next(&token).await.ok().clone();
    assert_eq!(resumed["challengeId"], challenge["challengeId"]);
    l.answer(&token, &resumed, 1).await.ok();
    // removing the holiday is audited
    let (admin, _, _) = app.admin_login().await;
    app.call(
        Service::Admin,
        Method::DELETE,
        "/v1/admin/holidays/2026-11-18",
        None,
        Some(&admin),
    )
    .await
    .ok();
    app.call(
        Service::Admin,
        Method::DELETE,
        "/v1/admin/holidays/2026-11-18",
        None,
        Some(&admin),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    app.call(
        Service::Admin,
        Method::PUT,
        "/v1/admin/holidays/2026-13-01",
        Some(json!({"name": "x"})),
        Some(&admin),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let audited = app
        .scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'holiday.remove' AND target_id = $1",
            &["2026-11-18"],
        )
        .await;
    assert_eq!(audited, 1);
    // staff see the minor's state without any identifier
    let record = app
        .admin_get(&format!("/v1/admin/users/{id}"), Some(&admin))
        .await;
    assert_eq!(
        record.ok()["protection"],
        json!({"declaredAgeBand": null, "minorMode": true, "ageBand": "12to16", "realName": "verified", "adult": false})
    );
}

async fn a_limit_used_up_in_a_window_opens_at_the_next_window(engine: Engine) {
    // Friday 2026-11-20, 20:00 Beijing; a 2-minute limit for 12 to 16, gaps capped at 60 s
    let l = licensed_with(
        engine,
        "2026-11-20T20:00:00",
        &[
            ("MINOR_LIMIT_12TO16_MINUTES", "2"),
            ("MINOR_ACTIVITY_GAP_SECONDS", "60"),
        ],
    )
    .await;
    let app = &l.app;
    let minor_id = id_number(date(2012, 5, 1), 33);
    l.nppa.person("王五", &minor_id, Answer::Verified);
    let (_, token, _) = l.sign_in("minor-limit").await;
    assert_eq!(
        l.verify(&token, "王五", &minor_id).await.ok()["adult"],
        false
    );
    let challenge = l.next(&token).await.ok().clone();
    app.clock.advance(chrono::Duration::seconds(60));
    l.answer(&token, &challenge, 0).await.ok();
    app.clock.advance(chrono::Duration::seconds(60));
    l.answer(&token, &challenge, 1).await.ok();
    // 120 s played at 20:02, inside the window: the limit, not the window, refuses, and
    // play opens at the next window (Saturday 20:00), not at 06:00 tomorrow
    let saturday = beijing("2026-11-21T20:00:00");
    let refused = l.answer(&token, &challenge, 2).await;
    refused.assert_error(403, "MINOR_PROTECTION");
    assert_eq!(refused.body["error"]["details"]["reason"], "daily_limit");
    let next_allowed: DateTime<Utc> = refused.body["error"]["details"]["nextAllowedAt"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(next_allowed, saturday);
    let summary = app.get("/v1/progress/summary", Some(&token)).await;
    assert_eq!(summary.ok()["minorMode"]["minutesLeftToday"], 0);
    assert_eq!(
        summary.ok()["minorMode"]["nextAllowedAt"],
        json!(saturday.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    );
    // Saturday 06:00 is a new day but outside the window
    app.clock.set(beijing("2026-11-21T06:00:00"));
    let (_, token, _) = l.sign_in("minor-limit").await;
    assert_eq!(window_refusal(&l.next(&token).await), saturday);
    // Saturday 20:00: a new day's limit, and the challenge goes on
    app.clock.set(saturday);
    let (_, token, _) = l.sign_in("minor-limit").await;
    let resumed = l.next(&token).await.ok().clone();
    assert_eq!(resumed["challengeId"], challenge["challengeId"]);
    l.answer(&token, &resumed, 2).await.ok();
}

async fn a_pending_verification_finishes_on_a_later_look(engine: Engine) {
    let l = licensed(engine, "2026-11-21T20:10:00").await;
    let adult_id = id_number(date(1985, 3, 3), 5);
    l.nppa.person("王五", &adult_id, Answer::Pending);
    let (_, token, _) = l.sign_in("pending-1").await;
    let pending = l.verify(&token, "王五", &adult_id).await;
    assert_eq!(pending.ok()["status"], "pending");
    l.next(&token).await.assert_error(403, "REAL_NAME_REQUIRED");
    let state = l.app.get("/v1/users/me/real-name", Some(&token)).await;
    assert_eq!(state.ok()["status"], "pending");
    l.nppa.finish_pending(&adult_id);
    // NPPA is asked again at most every 10 s per player
    let state = l.app.get("/v1/users/me/real-name", Some(&token)).await;
    assert_eq!(state.ok()["status"], "pending");
    l.app.clock.advance(chrono::Duration::seconds(10));
    let state = l.app.get("/v1/users/me/real-name", Some(&token)).await;
    assert_eq!(state.ok()["status"], "verified");
    assert_eq!(state.ok()["birthYear"], 1985);
    l.next(&token).await.ok();
}

async fn logins_and_logouts_are_reported_and_retried(engine: Engine) {
    let l = licensed(engine, "2026-11-21T10:00:00").await;
    let app = &l.app;
    let adult_id = id_number(date(1980, 1, 2), 3);
    l.nppa.person("赵六", &adult_id, Answer::Verified);
    // a sign-in left idle (3 h) when the player verifies is not reported: neither a
    // login then nor its logout later
    let (_, _, idle_refresh) = l.sign_in("reports-1").await;
    app.clock.advance(chrono::Duration::hours(3));
    // the sign-in in use when the player verifies gets its login report then, once for
    // two verifications at once (one records the outcome; the other finds it recorded)
    let (_, token, first_refresh) = l.sign_in("reports-1").await;
    let both = futures::future::join(
        l.verify(&token, "赵六", &adult_id),
        l.verify(&token, "赵六", &adult_id),
    )
    .await;
    for verified in [both.0, both.1] {
        assert!([200, 409].contains(&verified.status), "{}", verified.body);
    }
    app.post(
        "/v1/auth/logout",
        json!({"refreshToken": idle_refresh}),
        Some(&token),
    )
    .await
    .ok();
    // a verified player's sign-in and its logout are queued, never sent on the request
    let (_, token, refresh) = l.sign_in("reports-1").await;
    app.post(
        "/v1/auth/logout",
        json!({"refreshToken": refresh}),
        Some(&token),
    )
    .await
    .ok();
    assert!(l.nppa.reports().is_empty());
    // NPPA refuses the first call: nothing is lost, the job tries again later
    l.nppa.refuse_reports(1);
    let first = shared::services::nppa_reports::send_reports(&app.ctx)
        .await
        .unwrap();
    assert_eq!((first.sent, first.retried), (0, 3));
    let early = shared::services::nppa_reports::send_reports(&app.ctx)
        .await
        .unwrap();
    assert_eq!(
        (early.sent, early.retried),
        (0, 0),
        "not before its retry time"
    );
    app.clock.advance(chrono::Duration::seconds(31));
    let second = shared::services::nppa_reports::send_reports(&app.ctx)
        .await
        .unwrap();
    assert_eq!((second.sent, second.retried), (3, 0));
    let reports = l.nppa.reports();
    assert_eq!(reports.len(), 3);
    let session = |refresh: &str| {
        shared::services::nppa_reports::session_id(&shared::tokens::hash_token(refresh))
    };
    let of = |si: &str| -> Vec<Value> {
        reports
            .iter()
            .filter(|r| r["si"] == si)
            .map(|r| r["bt"].clone())
            .collect()
    };
    assert_eq!(of(&session(&first_refresh)), vec![json!(1)], "{reports:?}");
    assert!(of(&session(&idle_refresh)).is_empty(), "{reports:?}");
    assert_eq!(
        of(&session(&refresh)),
        vec![json!(1), json!(0)],
        "one sign-in, one session id, its login first: {reports:?}"
    );
    for report in &reports {
        assert_eq!(report["ct"], 0);
        assert_eq!(report["pi"], json!(tests::nppa::pi_of(&adult_id)));
    }
    // verifying again changes nothing and queues nothing
    l.verify(&token, "赵六", &adult_id)
        .await
        .assert_error(409, "CONFLICT");
    // sent reports are not sent again
    let third = shared::services::nppa_reports::send_reports(&app.ctx)
        .await
        .unwrap();
    assert_eq!((third.sent, third.retried), (0, 0));
    assert_eq!(l.nppa.reports().len(), 3);
    // a report NPPA keeps refusing is given up a day after it happened, and kept
    let (_, _, _) = l.sign_in("reports-1").await;
    l.nppa.refuse_reports(1000);
    let refused = shared::services::nppa_reports::send_reports(&app.ctx)
        .await
        .unwrap();
    assert_eq!((refused.sent, refused.retried), (0, 1));
    // (aged by the database's clock too: the event is moved back, not the clock on)
    app.exec(
        "UPDATE nppa_reports SET occurred_at = occurred_at - 82800000 WHERE sent_at IS NULL",
        &[],
    )
    .await;
    let refused = shared::services::nppa_reports::send_reports(&app.ctx)
        .await
        .unwrap();
    assert_eq!(refused.given_up, 0, "a day is not over yet");
    app.exec(
        "UPDATE nppa_reports SET occurred_at = occurred_at - 3600000 WHERE sent_at IS NULL",
        &[],
    )
    .await;
    let last = shared::services::nppa_reports::send_reports(&app.ctx)
        .await
        .unwrap();
    assert_eq!((last.sent, last.retried, last.given_up), (0, 0, 1));
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM nppa_reports WHERE given_up AND sent_at IS NOT NULL",
            &[]
        )
        .await,
        1
    );
    assert_eq!(l.nppa.reports().len(), 3);
    // the education profile reports nothing: a guest of the demo signs in as before
    let education = TestApp::spawn(engine).await;
    education.guest("edu").await;
}
