//! Fair play through HTTP: the server times each answer (from when the challenge was
//! served, again when it is returned, or from the last answer), raises `too_fast`,
//! `time_claim_impossible` and `fast_perfect`, scores the week and holds a player past
//! `FAIRPLAY_HOLD_SCORE`: on no board others see (pages, totals, ranks, the Redis index),
//! seen by themselves at the rank they would have; staff clear, hold or ban from the
//! queue, audited.

use chrono::Duration;
use jsonwebtoken::Algorithm;
use rsa::pkcs1::EncodeRsaPrivateKey;
use serde_json::{Value, json};
use shared::ids::PlayerId;
use shared::providers::oidc::testing::{TestKey, jwks};
use tests::{Engine, Resp, TestApp, both_engines_raw};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

both_engines_raw!(
    answers_are_timed_by_the_server,
    a_held_player_is_seen_by_nobody_but_themselves,
    staff_decide_from_the_queue,
    the_console_shows_the_queue_and_decides,
    a_held_player_stays_hidden_when_moving_or_merging,
    farmed_guests_do_not_set_the_too_fast_bar,
);

mod without_memory {
    use super::*;
    both_engines_raw!(answers_are_timed_by_the_server_without_memory);

    async fn answers_are_timed_by_the_server_without_memory(engine: Engine) {
        answers_are_timed(engine, &[("ANSWER_MEMORY", "false".into())]).await;
    }
}

mod with_redis {
    use super::*;
    both_engines_raw!(a_held_player_is_not_in_the_rank_index);
}

const TRACK: &str = "world-geography";

/// A player of the tests, with their token.
pub struct Player<'a> {
    pub app: &'a TestApp,
    pub id: String,
    pub token: String,
}

impl<'a> Player<'a> {
    pub async fn new(app: &'a TestApp, device: &str, region: Option<&str>) -> Self {
        let (id, token, _) = app.guest(device).await;
        if let Some(code) = region {
            app.call(
                tests::Service::Player,
                reqwest::Method::PATCH,
                "/v1/users/me/region",
                Some(json!({ "regionCode": code })),
                Some(&token),
            )
            .await
            .ok();
        }
        Self { app, id, token }
    }

    pub async fn get(&self, path: &str) -> Resp {
        self.app.get(path, Some(&self.token)).await
    }

    pub async fn next(&self) -> Value {
        self.get(&format!("/v1/challenges/next?trackId={TRACK}"))
            .await
            .ok()
            .clone()
    }

    /// Answers question `index` of `challenge`, right or wrong, claiming `time_ms`.
    pub async fn answer(
        &self,
        challenge: &Value,
        index: usize,
        correct: bool,
        time_ms: i64,
    ) -> Resp {
        let session = challenge["challengeId"].as_str().unwrap();
        let question = challenge["questions"][index]["question"]["id"]
            .as_str()
            .unwrap();
        let right = self
            .app
            .text(
                "SELECT correct_option_id FROM challenge_session_questions
                 WHERE session_id = $1 AND question_id = $2",
                &[session, question],
            )
            .await;
        let option = if correct {
            right
        } else {
            challenge["questions"][index]["question"]["options"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].as_str().unwrap().to_string())
                .find(|id| *id != right)
                .unwrap()
        };
        self.app
            .post(
                "/v1/challenges/answer",
                json!({
                    "challengeId": session,
                    "questionId": question,
                    "selectedOptionId": option,
                    "timeMs": time_ms,
                }),
                Some(&self.token),
            )
            .await
    }

    /// Plays a whole challenge right, each answer `pause` after the last (as a person
    /// reads), claiming the time that passed.
    pub async fn play_fairly(&self, pause: Duration) {
        let c = self.next().await;
        for i in 0..5 {
            self.app.clock.advance(pause);
            self.answer(&c, i, true, pause.num_milliseconds() - 100)
                .await
                .ok();
        }
    }

    /// Plays a whole challenge right at once, as a script does.
    pub async fn play_scripted(&self) {
        let c = self.next().await;
        for i in 0..5 {
            self.answer(&c, i, true, 0).await.ok();
        }
    }

    /// The signals and server times of the player's answers, oldest first.
    pub async fn answers(&self) -> Vec<(i64, i64)> {
        shared::read!(&self.app.ctx.db, |ex| {
            sqlx::query_as::<_, (i64, i64)>(
                // answers in the same instant (the test clock stands still) in the
                // order of their questions
                "SELECT a.signals, a.server_elapsed_ms FROM challenge_answers a
                 WHERE a.player_id = $1
                 ORDER BY a.created_at,
                     (SELECT q.position FROM challenge_session_questions q
                      WHERE q.session_id = a.session_id AND q.question_id = a.question_id)",
            )
            .bind(&self.id)
            .fetch_all(ex)
            .await
            .unwrap()
        })
    }
}

pub async fn demo(engine: Engine, extra: &[(&str, String)]) -> TestApp {
    let mut vars = vec![
        ("DEMO_CONTENT", "true".to_string()),
        ("RATE_LIMIT_AUTH_PER_MINUTE", "100000".to_string()),
        ("JOBS_ENABLED", "false".to_string()),
    ];
    vars.extend(extra.iter().cloned());
    TestApp::spawn_with(engine, &vars).await
}

const TOO_FAST: i64 = 1;
const IMPOSSIBLE: i64 = 2;
const FAST_PERFECT: i64 = 4;

async fn answers_are_timed_by_the_server(engine: Engine) {
    answers_are_timed(engine, &[]).await;
}

async fn answers_are_timed(engine: Engine, extra: &[(&str, String)]) {
    let app = demo(engine, extra).await;
    let p = Player::new(&app, "fp-timed", None).await;
    let c = p.next().await;
    // 3 s after serving: a person's pace
    app.clock.advance(Duration::seconds(3));
    p.answer(&c, 0, true, 2500).await.ok();
    // at once after it: too fast (the time runs from the last answer)
    p.answer(&c, 1, true, 0).await.ok();
    // 2 s later, claiming a minute: an impossible claim
    app.clock.advance(Duration::seconds(2));
    p.answer(&c, 2, false, 60_000).await.ok();
    // returned unfinished after a pause, then answered at once: too fast again (the
    // time runs from when it was served again)
    app.clock.advance(Duration::seconds(30));
    let again = p.next().await;
    assert_eq!(again["challengeId"], c["challengeId"]);
    p.answer(&c, 3, true, 100).await.ok();
    // its median says people take 8 s: 1.5 s is under a quarter of it
    let next_question = c["questions"][4]["question"]["id"].as_str().unwrap();
    app.exec(
        "UPDATE challenge_session_questions SET median_ms = 8000
         WHERE session_id = $1 AND question_id = $2",
        &[c["challengeId"].as_str().unwrap(), next_question],
    )
    .await;
    app.clock.advance(Duration::milliseconds(1500));
    // (this process remembers the challenge with the median it was made with: forget
    // the player, so the answer is judged on a read of the session's stored one)
    app.ctx
        .answer_cache
        .forget_player(&PlayerId::from_trusted(p.id.as_str()));
    p.answer(&c, 4, true, 1400).await.ok();
    let answers = p.answers().await;
    let signals: Vec<i64> = answers.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        signals,
        [0, TOO_FAST, IMPOSSIBLE, TOO_FAST, TOO_FAST],
        "{answers:?}"
    );
    let elapsed: Vec<i64> = answers.iter().map(|(_, e)| *e).collect();
    assert!((3000..3500).contains(&elapsed[0]), "{elapsed:?}");
    assert!(elapsed[1] < 800, "{elapsed:?}");
    assert!((2000..2500).contains(&elapsed[2]), "{elapsed:?}");
    assert!(elapsed[3] < 800, "{elapsed:?}");
    assert!((1500..2000).contains(&elapsed[4]), "{elapsed:?}");

    // a whole challenge right at once: every answer too fast, the last one also
    // fast_perfect; a challenge with one wrong answer is not perfect
    let q = Player::new(&app, "fp-script", None).await;
    q.play_scripted().await;
    let signals: Vec<i64> = q.answers().await.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        signals,
        [
            TOO_FAST,
            TOO_FAST,
            TOO_FAST,
            TOO_FAST,
            TOO_FAST | FAST_PERFECT
        ]
    );
    let r = Player::new(&app, "fp-almost", None).await;
    let c = r.next().await;
    for i in 0..5 {
        r.answer(&c, i, i != 2, 0).await.ok();
    }
    let signals: Vec<i64> = r.answers().await.iter().map(|(s, _)| *s).collect();
    assert_eq!(signals, [TOO_FAST; 5]);
    // the week's score: 5 × 1 + 10, and 5 × 1
    assert_eq!(
        app.scalar(
            "SELECT week_score FROM fairplay_players WHERE player_id = $1",
            &[&q.id]
        )
        .await,
        15
    );
    assert_eq!(
        app.scalar(
            "SELECT week_score FROM fairplay_players WHERE player_id = $1",
            &[&r.id]
        )
        .await,
        5
    );
}

/// Four honest players and a script in one region; the script's week score passes the
/// hold score with its first challenge.
pub async fn held_board(app: &TestApp) -> (Vec<Player<'_>>, Player<'_>) {
    let mut honest = Vec::new();
    for (i, correct) in [4usize, 3, 2, 1].into_iter().enumerate() {
        let p = Player::new(app, &format!("fp-honest-{i}"), Some("310000")).await;
        let c = p.next().await;
        for q in 0..5 {
            app.clock.advance(Duration::seconds(3));
            p.answer(&c, q, q < correct, 2000).await.ok();
        }
        honest.push(p);
    }
    let script = Player::new(app, "fp-cheater", Some("310000")).await;
    script.play_scripted().await;
    (honest, script)
}

fn entries(r: &Resp) -> Vec<(String, i64, i64)> {
    r.ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["userId"].as_str().unwrap().to_string(),
                e["rank"].as_i64().unwrap(),
                e["xp"].as_i64().unwrap(),
            )
        })
        .collect()
}

async fn a_held_player_is_seen_by_nobody_but_themselves(engine: Engine) {
    let app = demo(engine, &[("FAIRPLAY_HOLD_SCORE", "15".into())]).await;
    let (honest, script) = held_board(&app).await;
    let ids: Vec<&str> = honest.iter().map(|p| p.id.as_str()).collect();
    // the script's 50 XP would top the board; others see the four honest players only
    for scope in ["region", "topic"] {
        let r = honest[1]
            .get(&format!("/v1/leaderboards?scope={scope}"))
            .await;
        assert_eq!(
            entries(&r),
            vec![
                (ids[0].to_string(), 1, 40),
                (ids[1].to_string(), 2, 30),
                (ids[2].to_string(), 3, 20),
                (ids[3].to_string(), 4, 10),
            ],
            "{scope}"
        );
        assert_eq!(r.body["pagination"]["total"], 4);
        let me = honest[1]
            .get(&format!("/v1/leaderboards/me?scope={scope}"))
            .await;
        assert_eq!(me.ok()["rank"], 2);
        // the script sees itself where it would be: first, one more on the board
        let r = script.get(&format!("/v1/leaderboards?scope={scope}")).await;
        let seen = entries(&r);
        assert_eq!(seen[0], (script.id.clone(), 1, 50), "{scope}");
        assert_eq!(seen[1], (ids[0].to_string(), 2, 40));
        assert_eq!(seen.len(), 5);
        assert_eq!(r.body["pagination"]["total"], 5);
        assert_eq!(r.ok()[0]["isMe"], true);
        let me = script
            .get(&format!("/v1/leaderboards/me?scope={scope}"))
            .await;
        assert_eq!(me.ok()["rank"], 1);
        assert_eq!(me.ok()["xp"], 50);
        // its second page of two starts after it
        let r = script
            .get(&format!("/v1/leaderboards?scope={scope}&page=2&limit=2"))
            .await;
        assert_eq!(
            entries(&r),
            vec![(ids[1].to_string(), 3, 30), (ids[2].to_string(), 4, 20)]
        );
    }
    // more XP while held stays hidden (the rows it writes are hidden as written)
    script.play_scripted().await;
    let r = honest[0].get("/v1/leaderboards?scope=topic").await;
    assert_eq!(r.body["pagination"]["total"], 4);
    let me = script.get("/v1/leaderboards/me?scope=topic").await;
    assert_eq!(
        (me.ok()["rank"].clone(), me.ok()["xp"].clone()),
        (json!(1), json!(100))
    );
    // held by the service itself, audited as such
    let (admin, _, _) = app.admin_login().await;
    let log = app
        .admin_get("/v1/admin/audit-log?limit=50", Some(&admin))
        .await;
    let holds: Vec<&Value> = log
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "player.fair_play_hold")
        .collect();
    assert_eq!(holds.len(), 1);
    assert_eq!(holds[0]["actorUsername"], "system");
    assert_eq!(holds[0]["targetId"], script.id.as_str());
    let record = app
        .admin_get(&format!("/v1/admin/users/{}", script.id), Some(&admin))
        .await;
    assert_eq!(record.ok()["fairPlayState"], "held");
    assert_eq!(record.ok()["fairPlayHeld"], true);
    // nothing else changes for it: it still plays and earns
    assert_eq!(script.get("/v1/progress/summary").await.ok()["xp"], 100);
}

async fn a_held_player_is_not_in_the_rank_index(engine: Engine) {
    let prefix = format!("test-{}", uuid::Uuid::new_v4().simple());
    let app = demo(
        engine,
        &[
            ("FAIRPLAY_HOLD_SCORE", "15".into()),
            ("REDIS_URL", "redis://127.0.0.1:6379".into()),
            ("REDIS_KEY_PREFIX", prefix),
        ],
    )
    .await;
    assert!(app.ctx.ranks.is_some());
    let (honest, script) = held_board(&app).await;
    for (i, p) in honest.iter().enumerate() {
        let me = p.get("/v1/leaderboards/me?scope=topic").await;
        assert_eq!(me.ok()["rank"], i as i64 + 1, "the script is not ahead");
    }
    let me = script.get("/v1/leaderboards/me?scope=topic").await;
    assert_eq!(me.ok()["rank"], 1);
    let week = "2026-11-16";
    let ranks = app.ctx.ranks.as_ref().unwrap();
    let indexed = ranks
        .rank(
            &app.ctx.db,
            week,
            "topic:all",
            &PlayerId::from_trusted(script.id.as_str()),
            app.clock.now_ms(),
        )
        .await
        .unwrap();
    assert_eq!(indexed, None, "not in the index");
}

async fn staff_decide_from_the_queue(engine: Engine) {
    let app = demo(engine, &[("FAIRPLAY_HOLD_SCORE", "15".into())]).await;
    let (honest, script) = held_board(&app).await;
    // a fast human: flagged, not held
    let quick = Player::new(&app, "fp-quick", Some("310000")).await;
    let c = quick.next().await;
    for i in 0..5 {
        quick.answer(&c, i, i != 2, 0).await.ok();
    }
    // one stray fast answer puts nobody on the queue
    let stray = Player::new(&app, "fp-stray", Some("310000")).await;
    let c = stray.next().await;
    stray.answer(&c, 0, true, 0).await.ok();
    let (admin, _, _) = app.admin_login().await;
    let queue = app.admin_get("/v1/admin/fair-play", Some(&admin)).await;
    let items = queue.ok().as_array().unwrap().clone();
    assert_eq!(queue.body["pagination"]["total"], 2);
    assert_eq!(items[0]["userId"], script.id.as_str(), "held first");
    assert_eq!(items[0]["state"], "held");
    assert_eq!(items[0]["held"], true);
    assert_eq!(items[0]["weekScore"], 15);
    assert_eq!(items[0]["holdScore"], 15);
    assert_eq!(
        items[0]["signals"],
        json!({"tooFast": 5, "timeClaimImpossible": 0, "fastPerfect": 1, "merges": 0})
    );
    let examples = items[0]["examples"].as_array().unwrap();
    assert_eq!(examples.len(), 3);
    assert_eq!(examples[0]["signals"], json!(["too_fast", "fast_perfect"]));
    assert!(examples[0]["serverElapsedMs"].as_i64().unwrap() < 800);
    assert_eq!(items[1]["userId"], quick.id.as_str());
    assert_eq!(items[1]["state"], "flagged");
    assert_eq!(items[1]["weekScore"], 5);
    // bad input
    for bad in [
        json!({"decision": "pardon"}),
        json!({"decision": "clear", "reason": "x".repeat(501)}),
    ] {
        app.call(
            tests::Service::Admin,
            reqwest::Method::PUT,
            &format!("/v1/admin/users/{}/fair-play", script.id),
            Some(bad),
            Some(&admin),
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
    }
    let decide = |id: String, decision: &'static str| {
        let app = &app;
        let admin = admin.clone();
        async move {
            app.call(
                tests::Service::Admin,
                reqwest::Method::PUT,
                &format!("/v1/admin/users/{id}/fair-play"),
                Some(json!({"decision": decision, "reason": "checked"})),
                Some(&admin),
            )
            .await
        }
    };
    decide("no-such-player".into(), "clear")
        .await
        .assert_error(404, "NOT_FOUND");
    // cleared: back on the boards, off the queue
    let r = decide(script.id.clone(), "clear").await;
    assert_eq!(r.ok()["state"], "cleared");
    assert_eq!(r.ok()["held"], false);
    assert_eq!(r.ok()["decidedBy"], "root-admin");
    let board = honest[0].get("/v1/leaderboards?scope=region").await;
    assert_eq!(board.body["pagination"]["total"], 7);
    assert_eq!(board.ok()[0]["userId"], script.id.as_str());
    let queue = app.admin_get("/v1/admin/fair-play", Some(&admin)).await;
    assert_eq!(queue.body["pagination"]["total"], 1);
    // a cleared score does not hold again; new signals past the threshold do
    script.play_scripted().await;
    let record = app
        .admin_get(&format!("/v1/admin/users/{}", script.id), Some(&admin))
        .await;
    assert_eq!(record.ok()["fairPlayHeld"], true);
    let board = honest[0].get("/v1/leaderboards?scope=region").await;
    assert_eq!(board.body["pagination"]["total"], 6);
    // held by staff, then banned: 403 for it, off the queue
    let r = decide(quick.id.clone(), "hold").await;
    assert_eq!(r.ok()["state"], "held");
    let board = honest[0].get("/v1/leaderboards?scope=region").await;
    assert_eq!(board.body["pagination"]["total"], 5);
    let r = decide(script.id.clone(), "ban").await;
    assert_eq!(r.ok()["state"], "banned");
    script
        .get("/v1/leaderboards/me")
        .await
        .assert_error(403, "FORBIDDEN");
    let record = app
        .admin_get(&format!("/v1/admin/users/{}", script.id), Some(&admin))
        .await;
    assert_eq!(record.ok()["isBanned"], true);
    assert_eq!(record.ok()["fairPlayState"], "banned");
    // unbanned, it is still held (staff held it, nobody cleared it)
    app.call(
        tests::Service::Admin,
        reqwest::Method::PUT,
        &format!("/v1/admin/users/{}/unban", script.id),
        None,
        Some(&admin),
    )
    .await
    .ok();
    let board = honest[0].get("/v1/leaderboards?scope=region").await;
    assert_eq!(board.body["pagination"]["total"], 5);
    // every decision audited
    let log = app
        .admin_get("/v1/admin/audit-log?limit=50", Some(&admin))
        .await;
    let decisions = log
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "player.fair_play")
        .count();
    assert_eq!(decisions, 3);
    // the ban decision wrote its ban in the same transaction: one ban row, then the unban
    let mut bans: Vec<_> = log
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["targetId"] == script.id.as_str())
        .filter_map(|e| e["action"].as_str())
        .filter(|a| a.starts_with("player.ban") || *a == "player.unban")
        .collect();
    bans.sort_unstable();
    assert_eq!(bans, ["player.ban", "player.unban"]);
    // a player token cannot use the admin routes
    app.admin_get("/v1/admin/fair-play", Some(&honest[0].token))
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn the_console_shows_the_queue_and_decides(engine: Engine) {
    let app = demo(engine, &[("FAIRPLAY_HOLD_SCORE", "15".into())]).await;
    let (honest, script) = held_board(&app).await;
    let mut console = app.console_signed_in().await;
    let page = console.get("/console/fair-play").await;
    page.assert_status(200)
        .assert_contains("id=\"fair-play\"")
        .assert_contains(&format!("data-id=\"{}\"", script.id))
        .assert_contains("held (held)")
        .assert_contains("15 / 15")
        .assert_contains("too_fast, fast_perfect");
    // the player's page says it too
    console
        .get(&format!("/console/players/{}", script.id))
        .await
        .assert_contains("id=\"player-fair-play\"")
        .assert_contains("held: on no board others see");
    // a post without the security token writes nothing
    let path = format!("/console/players/{}/fair-play", script.id);
    console
        .post_raw(&path, &[("decision", "clear")])
        .await
        .assert_status(403);
    let done = console
        .post(&path, &[("decision", "clear"), ("reason", "a fast reader")])
        .await;
    done.assert_status(303);
    assert_eq!(done.location(), Some("/console/fair-play"));
    console
        .follow(&done)
        .await
        .assert_contains("is cleared: back on the boards")
        .assert_contains("Nobody is flagged.");
    let board = honest[0].get("/v1/leaderboards?scope=region").await;
    assert_eq!(board.body["pagination"]["total"], 5);
    // a bad decision is shown, nothing written
    let page = console.post(&path, &[("decision", "pardon")]).await;
    page.assert_status(400)
        .assert_contains("decision must be clear, hold or ban");
}

/// A held player's XP stays hidden when they move region, and when the held guest links
/// to an account: the account is held with it.
async fn a_held_player_stays_hidden_when_moving_or_merging(engine: Engine) {
    let server = MockServer::start().await;
    let private = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048).unwrap();
    let der = private.to_pkcs1_der().unwrap();
    let key = TestKey::from_pkcs1_der("fp-apple", der.as_bytes()).unwrap();
    Mock::given(method("GET"))
        .and(path("/auth/keys"))
        .respond_with(ResponseTemplate::new(200).set_body_json(jwks(&[&key])))
        .mount(&server)
        .await;
    let app = demo(
        engine,
        &[
            ("FAIRPLAY_HOLD_SCORE", "15".into()),
            ("APPLE_CLIENT_ID", "com.example.quiz".into()),
            ("APPLE_JWKS_URL", format!("{}/auth/keys", server.uri())),
            ("APPLE_ISSUER", "https://appleid.apple.com".into()),
        ],
    )
    .await;
    let (honest, script) = held_board(&app).await;
    // a script without a region, held, then choosing one: its XP goes there, hidden
    let roamer = Player::new(&app, "fp-roamer", None).await;
    roamer.play_scripted().await;
    app.call(
        tests::Service::Player,
        reqwest::Method::PATCH,
        "/v1/users/me/region",
        Some(json!({ "regionCode": "440000" })),
        Some(&roamer.token),
    )
    .await
    .ok();
    let elsewhere = Player::new(&app, "fp-elsewhere", Some("440000")).await;
    let r = elsewhere.get("/v1/leaderboards?scope=region").await;
    assert_eq!(r.ok(), &json!([]), "the moved row is hidden");
    let r = roamer.get("/v1/leaderboards?scope=region").await;
    assert_eq!(r.ok()[0]["userId"], roamer.id.as_str());
    assert_eq!(r.body["pagination"]["total"], 1);

    // an account with XP of its own, then the held guest links to it
    let now = chrono::Utc::now().timestamp();
    let identity = key.sign(
        Algorithm::RS256,
        &json!({ "iss": "https://appleid.apple.com", "aud": "com.example.quiz",
                 "sub": "fp-merge", "iat": now, "exp": now + 600 }),
    );
    let signed_in = app
        .post(
            "/v1/auth/ios_vendor",
            json!({ "identityToken": identity }),
            None,
        )
        .await;
    let account = signed_in.ok()["user"]["id"].as_str().unwrap().to_string();
    let account_token = signed_in.ok()["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    let account_player = Player {
        app: &app,
        id: account.clone(),
        token: account_token,
    };
    let c = account_player.next().await;
    app.clock.advance(Duration::seconds(3));
    account_player.answer(&c, 0, true, 2000).await.ok();
    let r = honest[0].get("/v1/leaderboards?scope=topic").await;
    assert!(
        r.ok()
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["userId"] == account.as_str())
    );
    app.post(
        "/v1/auth/link",
        json!({
            "provider": "ios_vendor",
            "credential": { "identityToken": identity },
            "mergePolicy": "server_account_first",
            "clientMigrationId": "fp-merge",
        }),
        Some(&script.token),
    )
    .await
    .ok();
    let (admin, _, _) = app.admin_login().await;
    let record = app
        .admin_get(&format!("/v1/admin/users/{account}"), Some(&admin))
        .await;
    assert_eq!(record.ok()["fairPlayHeld"], true);
    assert_eq!(record.ok()["fairPlayState"], "held");
    let r = honest[0].get("/v1/leaderboards?scope=topic").await;
    assert!(
        r.ok()
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["userId"] != account.as_str()),
        "the account holding the script's XP is hidden too: {}",
        r.body
    );
    assert_eq!(r.body["pagination"]["total"], 4);
}

/// The attack of issue 53: free guests answer a track's questions to set its too-fast
/// bar. Some claim 20 s while answering in 1 s (their answers raise `too_fast` and add
/// nothing to the bar), others wait 20 s on the server's clock and claim 0 s (the bar
/// is the server's time of each player's first answer: 20 s). Then an honest player
/// answering right in 3 s raises nothing (a pace alone sets a floor of at most 2 s),
/// while a script answering in 1.5 s still does (the bar is live).
async fn farmed_guests_do_not_set_the_too_fast_bar(engine: Engine) {
    let app = demo(engine, &[("FAIRPLAY_PACE_MIN_PLAYERS", "1".into())]).await;
    for i in 0..20 {
        let liar = Player::new(&app, &format!("farm-claim-{i}"), None).await;
        play(&liar, Duration::seconds(1), 20_000).await;
        assert!(
            liar.answers()
                .await
                .iter()
                .all(|(s, _)| s & IMPOSSIBLE != 0),
            "a claim of 20 s after 1 s is impossible"
        );
    }
    let mut patient = Vec::new();
    for i in 0..20 {
        let p = Player::new(&app, &format!("farm-wait-{i}"), None).await;
        play(&p, Duration::seconds(20), 0).await;
        patient.push(p.id.clone());
    }
    run_stats(&app).await;
    // every pace is of the patient guests' server times, one per player: the liars'
    // answers (signalled) are in none
    let answered: Vec<(String, String)> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as("SELECT DISTINCT question_id, player_id FROM challenge_answers")
            .fetch_all(ex)
            .await
            .unwrap()
    });
    let paces: Vec<(String, i64, Option<i64>)> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as(
            "SELECT question_id, pace_players, pace_ms FROM question_stats WHERE attempts > 0",
        )
        .fetch_all(ex)
        .await
        .unwrap()
    });
    assert!(!paces.is_empty());
    // the liars' signalled answers are in no statistic either: the attempts counted are
    // the patient guests' 100
    let counted = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_scalar::<_, i64>(
            "SELECT CAST(COALESCE(SUM(attempts), 0) AS BIGINT) FROM question_stats",
        )
        .fetch_one(ex)
        .await
        .unwrap()
    });
    assert_eq!(counted, 20 * 5);
    for (question, players, pace) in &paces {
        let patient_players = answered
            .iter()
            .filter(|(q, p)| q == question && patient.contains(p))
            .count() as i64;
        assert_eq!(
            *players, patient_players,
            "one first answer per patient guest"
        );
        if patient_players > 0 {
            assert_eq!(*pace, Some(20_000), "the server's time, not the claim");
        }
    }

    let honest = Player::new(&app, "fp-honest-quick", None).await;
    for _ in 0..2 {
        play(&honest, Duration::seconds(3), 2_900).await;
    }
    assert_eq!(honest.answers().await.len(), 10);
    assert!(
        honest.answers().await.iter().all(|(s, _)| *s == 0),
        "an honest 3 s reader raises nothing: {:?}",
        honest.answers().await
    );
    let (admin, _, _) = app.admin_login().await;
    let record = app
        .admin_get(&format!("/v1/admin/users/{}", honest.id), Some(&admin))
        .await;
    assert_eq!(record.ok()["fairPlayHeld"], false);
    let board = honest.get("/v1/leaderboards?scope=topic").await;
    assert!(
        board
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["userId"] == honest.id.as_str())
    );
    // the bar is live: a script's 1.5 s answers to questions with a pace are too fast
    let script = Player::new(&app, "fp-script-quick", None).await;
    play(&script, Duration::milliseconds(1500), 1_400).await;
    assert!(
        script
            .answers()
            .await
            .iter()
            .any(|(s, _)| s & TOO_FAST != 0),
        "{:?}",
        script.answers().await
    );
}

/// Plays a challenge right, each answer `wait` after the last, claiming `claim` ms.
async fn play(p: &Player<'_>, wait: Duration, claim: i64) {
    let c = p.next().await;
    for i in 0..5 {
        p.app.clock.advance(wait);
        p.answer(&c, i, true, claim).await.ok();
    }
}

/// Runs the question statistics job once the answers have settled.
async fn run_stats(app: &TestApp) {
    app.clock.advance(Duration::milliseconds(
        shared::services::question_stats::SETTLE_MS + 1000,
    ));
    let metrics = shared::metrics::Metrics::new(app.ctx.db.clone());
    assert!(
        shared::services::jobs::run(
            &app.ctx,
            "fp-stats",
            shared::services::jobs::Job::QuestionStats,
            &metrics.jobs()
        )
        .await
    );
}
