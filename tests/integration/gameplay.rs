//! The game through HTTP on the demo content: tracks, challenges, judged answers,
//! knowledge cards, hearts, attempts, XP, levels, streaks and check-ins.

use chrono::Duration;
use futures::future::join_all;
use serde_json::{Value, json};
use tests::{Engine, Resp, TestApp, both_engines_demo, both_engines_with};

/// As behind a round-robin balancer: no answer judged from memory.
async fn without_answer_memory(engine: Engine) -> TestApp {
    TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("ANSWER_MEMORY", "false".to_string()),
        ],
    )
    .await
}

/// A wrong answer costs two hearts (`RULE_WRONG_ANSWER_HEARTS`).
async fn two_hearts_a_wrong_answer(engine: Engine) -> TestApp {
    TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("RULE_WRONG_ANSWER_HEARTS", "2".to_string()),
        ],
    )
    .await
}

both_engines_with!(with_pgbouncer; two_hearts_a_wrong_answer; a_wrong_answer_costs_the_configured_hearts,);

mod without_memory {
    use super::*;

    both_engines_with!(with_pgbouncer;
        without_answer_memory;
        full_play_through_with_exact_resources,
        answers_are_idempotent_sequentially_and_concurrently,
        zero_hearts_refuse_wrong_answers_only,
    );
}

both_engines_demo!(with_pgbouncer;
    tracks_show_nodes_and_progress,
    full_play_through_with_exact_resources,
    unfinished_session_is_returned_again,
    answers_are_idempotent_sequentially_and_concurrently,
    concurrent_first_answers_deduct_one_attempt,
    card_views_grant_once,
    zero_hearts_refuse_wrong_answers_only,
    zero_hearts_options_sent_at_once_are_judged_in_one_order,
    hearts_regenerate_over_time,
    attempts_reset_at_beijing_midnight,
    check_in_counts_once_per_beijing_day,
    streaks_follow_beijing_days,
    only_published_questions_are_served,
    other_players_challenges_are_not_found,
    preferences_set_the_active_track,
    answers_write_the_boards_the_node_and_the_ledger,
    answers_judged_from_memory_follow_the_database,
);

const TRACK: &str = "world-geography";

struct Player<'a> {
    app: &'a TestApp,
    device: String,
    id: String,
    token: String,
}

impl<'a> Player<'a> {
    async fn new(app: &'a TestApp, device: &str) -> Self {
        let (id, token, _) = app.guest(device).await;
        Self {
            app,
            device: device.to_string(),
            id,
            token,
        }
    }
    /// Moves the service clock and signs in again (access tokens last 2 hours).
    async fn travel_to(&mut self, instant: &str) {
        self.app.clock.set(instant.parse().unwrap());
        let (id, token, _) = self.app.guest(&self.device).await;
        assert_eq!(id, self.id);
        self.token = token;
    }
    async fn get(&self, path: &str) -> Resp {
        self.app.get(path, Some(&self.token)).await
    }
    async fn post(&self, path: &str, body: Value) -> Resp {
        self.app.post(path, body, Some(&self.token)).await
    }
    async fn next(&self, track: &str) -> Value {
        self.get(&format!("/v1/challenges/next?trackId={track}"))
            .await
            .ok()
            .clone()
    }
    async fn summary(&self) -> Value {
        self.get("/v1/progress/summary").await.ok().clone()
    }
    /// The correct option of a question of a challenge (read from the database: the
    /// API never tells before the answer).
    async fn correct(&self, challenge: &Value, index: usize) -> String {
        let session = challenge["challengeId"].as_str().unwrap();
        let question = challenge["questions"][index]["question"]["id"]
            .as_str()
            .unwrap();
        self.app
            .text(
                "SELECT correct_option_id FROM challenge_session_questions WHERE session_id = $1 AND question_id = $2",
                &[session, question],
            )
            .await
    }
    async fn wrong(&self, challenge: &Value, index: usize) -> String {
        let correct = self.correct(challenge, index).await;
        challenge["questions"][index]["question"]["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .find(|id| *id != correct)
            .unwrap()
    }
    fn body(challenge: &Value, index: usize, option: &str) -> Value {
        json!({
            "challengeId": challenge["challengeId"],
            "questionId": challenge["questions"][index]["question"]["id"],
            "selectedOptionId": option,
            "timeMs": 4200,
            "comboCount": 1,
        })
    }
    async fn answer(&self, challenge: &Value, index: usize, correct: bool) -> Resp {
        let option = if correct {
            self.correct(challenge, index).await
        } else {
            self.wrong(challenge, index).await
        };
        self.post(
            "/v1/challenges/answer",
            Self::body(challenge, index, &option),
        )
        .await
    }
    async fn ledger_xp(&self) -> i64 {
        self.app
            .scalar("SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1", &[&self.id])
            .await
    }
}

async fn tracks_show_nodes_and_progress(app: TestApp) {
    let p = Player::new(&app, "d-tracks").await;
    let r = p.get("/v1/tracks").await;
    let tracks = r.ok().as_array().unwrap().clone();
    let ids: Vec<&str> = tracks.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "world-geography",
            "science-basics",
            "history-culture",
            "china-geography",
            "science-common-sense",
            "world-flags"
        ]
    );
    for t in &tracks {
        assert_eq!(t["progress"], 0.0);
        assert!(t["icon"].as_str().is_some() && t["name"].as_str().is_some());
        let nodes = t["nodes"].as_array().unwrap();
        // the flags' 12 questions make 2 chapters
        let chapters = if t["id"] == "world-flags" { 2 } else { 4 };
        assert_eq!(nodes.len(), chapters);
        for n in nodes {
            assert_eq!(n["status"], "current");
            assert_eq!(n["reward"], "+50 XP");
            assert_eq!(n["questionCount"], 5);
            assert_eq!(n["id"].as_str().unwrap().len(), 36);
        }
    }
    let by_slug = p.get("/v1/tracks/world-geography").await.ok().clone();
    assert_eq!(by_slug["id"], "world-geography");
    assert_eq!(by_slug["nodes"], tracks[0]["nodes"]);
    assert!(p.get("/v1/tracks/no-such-track").await.ok().is_null());
    app.get("/v1/tracks", None)
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn full_play_through_with_exact_resources(app: TestApp) {
    let p = Player::new(&app, "d-play").await;
    let c = p.next(TRACK).await;
    assert_eq!(c["totalQuestions"], 5);
    assert_eq!(c["highRewardEligible"], false);
    assert_eq!(c["answeredQuestionIds"], json!([]));
    let first_node = p.get("/v1/tracks/world-geography").await.ok()["nodes"][0]["id"].clone();
    assert_eq!(c["nodeId"], first_node);
    let questions = c["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 5);
    for q in questions {
        assert_eq!(q["challengeId"], c["challengeId"]);
        let options = q["question"]["options"].as_array().unwrap();
        assert_eq!(options.len(), 4);
        for o in options {
            let keys: Vec<&String> = o.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["id", "text"], "no correctness marker");
        }
    }
    // 3 correct, 2 wrong
    let mut seen_cards = Vec::new();
    for (i, correct) in [true, false, true, false, true].into_iter().enumerate() {
        let r = p.answer(&c, i, correct).await;
        let d = r.ok();
        assert_eq!(d["answerState"], if correct { "correct" } else { "wrong" });
        assert_eq!(d["xpDelta"], if correct { 10 } else { 0 });
        assert_eq!(d["correctOptionId"], p.correct(&c, i).await.as_str());
        assert_eq!(d["rewards"].as_array().unwrap().len(), usize::from(correct));
        let card = &d["knowledgeCard"];
        assert!(card["title"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(card["summary"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(card["fact"].as_str().is_some());
        seen_cards.push(card["id"].as_str().unwrap().to_string());
        if i == 0 {
            assert_eq!(d["progress"]["dailyAttemptsLeft"], 9);
        }
    }
    let s = p.summary().await;
    assert_eq!(s["xp"], 30);
    assert_eq!(s["hearts"], 3);
    assert_eq!(s["maxHearts"], 5);
    assert_eq!(s["dailyAttemptsLeft"], 9);
    assert_eq!(s["dailyAttemptsMax"], 10);
    assert_eq!(s["level"], 1);
    assert_eq!(s["xpToNextLevel"], 70);
    assert_eq!(s["streakDays"], 1);
    assert_eq!(s["highRewardSessionsLeft"], 0);
    assert_eq!(s["isSubscribed"], false);
    assert_eq!(s["nextAttemptResetAt"], "2026-11-18T16:00:00Z");
    assert!(s["nextHeartRestoreAt"].as_str().is_some());
    // passing (3 of 5) marks the node done; the next challenge is on node 2
    let t = p.get("/v1/tracks/world-geography").await.ok().clone();
    assert_eq!(t["nodes"][0]["status"], "done");
    assert_eq!(t["nodes"][1]["status"], "current");
    assert_eq!(t["progress"], 0.25);
    let c2 = p.next(TRACK).await;
    assert_eq!(c2["nodeId"], t["nodes"][1]["id"]);
    assert_ne!(c2["challengeId"], c["challengeId"]);
    // card views: +3 and the one-time +15, then +3 for another card
    let r = p
        .post(
            &format!("/v1/challenges/knowledge-cards/{}/view", seen_cards[0]),
            json!({}),
        )
        .await;
    let rewards = r.ok()["rewards"].as_array().unwrap().clone();
    assert_eq!(rewards.len(), 2);
    assert_eq!(rewards[0]["amount"], 3);
    assert_eq!(rewards[0]["source"], "review_explanation");
    assert_eq!(rewards[1]["amount"], 15);
    assert_eq!(rewards[1]["source"], "first_knowledge_card");
    assert_eq!(r.ok()["progress"]["xp"], 48);
    let r = p
        .post(
            &format!("/v1/challenges/knowledge-cards/{}/view", seen_cards[1]),
            json!({}),
        )
        .await;
    assert_eq!(r.ok()["rewards"].as_array().unwrap().len(), 1);
    assert_eq!(r.ok()["progress"]["xp"], 51);
    // the ledger sums to the XP; the weekly board has it all
    assert_eq!(p.ledger_xp().await, 51);
    assert_eq!(
        app.scalar(
            "SELECT xp FROM weekly_xp WHERE player_id = $1 AND board = 'topic:all'",
            &[&p.id]
        )
        .await,
        51
    );
    // /auth/me agrees
    let me = p.get("/v1/auth/me").await.ok().clone();
    assert_eq!(
        (
            me["xpTotal"].clone(),
            me["heartsRemaining"].clone(),
            me["dailyXpEarned"].clone()
        ),
        (json!(51), json!(3), json!(51))
    );
}

async fn unfinished_session_is_returned_again(app: TestApp) {
    let p = Player::new(&app, "d-unfinished").await;
    let c = p.next(TRACK).await;
    let again = p.next("world-geography").await;
    assert_eq!(again["challengeId"], c["challengeId"]);
    assert_eq!(again["questions"], c["questions"]);
    p.answer(&c, 0, true).await.ok();
    let after_one = p.next(TRACK).await;
    assert_eq!(after_one["challengeId"], c["challengeId"]);
    assert_eq!(
        after_one["answeredQuestionIds"],
        json!([c["questions"][0]["question"]["id"]])
    );
    // two racing requests of a new player get one session
    let q = Player::new(&app, "d-race-next").await;
    let results =
        join_all((0..10).map(|_| q.get("/v1/challenges/next?trackId=world-geography"))).await;
    let ids: Vec<Value> = results
        .iter()
        .map(|r| r.ok()["challengeId"].clone())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM challenge_sessions WHERE player_id = $1",
            &[&q.id]
        )
        .await,
        1
    );
    // bad input
    p.get("/v1/challenges/next")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    p.get("/v1/challenges/next?trackId=nope")
        .await
        .assert_error(404, "NOT_FOUND");
}

async fn answers_are_idempotent_sequentially_and_concurrently(app: TestApp) {
    let p = Player::new(&app, "d-idem").await;
    let c = p.next(TRACK).await;
    let wrong = p.wrong(&c, 0).await;
    let first = p
        .post("/v1/challenges/answer", Player::body(&c, 0, &wrong))
        .await
        .ok()
        .clone();
    assert_eq!(first["answerState"], "wrong");
    // the same question again, even with the right option: the first judgement
    let right = p.correct(&c, 0).await;
    let replay = p
        .post("/v1/challenges/answer", Player::body(&c, 0, &right))
        .await
        .ok()
        .clone();
    assert_eq!(replay["answerState"], "wrong");
    assert_eq!(replay["progress"], first["progress"]);
    let s = p.summary().await;
    assert_eq!(
        (s["hearts"].clone(), s["dailyAttemptsLeft"].clone()),
        (json!(4), json!(9))
    );
    // by submitRequestId: replays return the first judgement
    let mut body = Player::body(&c, 1, &p.correct(&c, 1).await);
    body["submitRequestId"] = json!("req-1");
    let r1 = p
        .post("/v1/challenges/answer", body.clone())
        .await
        .ok()
        .clone();
    body["selectedOptionId"] = json!(p.wrong(&c, 1).await);
    let r2 = p.post("/v1/challenges/answer", body).await.ok().clone();
    assert_eq!(r1["answerState"], "correct");
    assert_eq!(r2["answerState"], "correct");
    assert_eq!(r2["xpDelta"], 10);
    // 20 identical concurrent answers: judged once
    let body = Player::body(&c, 2, &p.wrong(&c, 2).await);
    let results = join_all((0..20).map(|_| p.post("/v1/challenges/answer", body.clone()))).await;
    assert!(
        results.iter().all(|r| r.status == 200),
        "{:?}",
        results.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert!(
        results
            .iter()
            .all(|r| r.body["data"]["answerState"] == "wrong")
    );
    let s = p.summary().await;
    assert_eq!(
        (
            s["hearts"].clone(),
            s["xp"].clone(),
            s["dailyAttemptsLeft"].clone()
        ),
        (json!(3), json!(10), json!(9))
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM challenge_answers WHERE player_id = $1",
            &[&p.id]
        )
        .await,
        3
    );
    assert_eq!(p.ledger_xp().await, 10);
}

async fn concurrent_first_answers_deduct_one_attempt(app: TestApp) {
    let p = Player::new(&app, "d-first").await;
    let c = p.next(TRACK).await;
    let mut bodies = Vec::new();
    for i in 0..5 {
        bodies.push(Player::body(&c, i, &p.correct(&c, i).await));
    }
    let results = join_all(
        bodies
            .into_iter()
            .map(|b| p.post("/v1/challenges/answer", b)),
    )
    .await;
    assert!(results.iter().all(|r| r.status == 200));
    let s = p.summary().await;
    assert_eq!(s["dailyAttemptsLeft"], 9);
    assert_eq!(s["xp"], 50);
    assert_eq!(p.ledger_xp().await, 50);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM node_completions WHERE player_id = $1",
            &[&p.id]
        )
        .await,
        1
    );
}

async fn card_views_grant_once(app: TestApp) {
    let p = Player::new(&app, "d-cards").await;
    let c = p.next(TRACK).await;
    let card = p.answer(&c, 0, true).await.ok()["knowledgeCard"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/v1/challenges/knowledge-cards/{card}/view");
    let results =
        join_all((0..20).map(|_| p.post(&path, json!({ "challengeId": c["challengeId"] })))).await;
    let granted: usize = results
        .iter()
        .map(|r| r.ok()["rewards"].as_array().unwrap().len())
        .sum();
    assert_eq!(granted, 2, "3 XP and the first-card 15 XP, once");
    assert_eq!(p.summary().await["xp"], 10 + 18);
    // no body at all is fine too; a repeat grants nothing and shows fresh progress
    let r = TestApp::read(
        app.client
            .post(format!("{}{path}", app.player_url))
            .bearer_auth(&p.token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.ok()["rewards"], json!([]));
    assert_eq!(r.ok()["progress"]["xp"], 28);
    assert_eq!(p.ledger_xp().await, 28);
    // a card the player was never shown pays nothing: 404, like an unknown id
    let session = c["challengeId"].as_str().unwrap();
    let unseen = app
        .text(
            "SELECT id FROM knowledge_cards WHERE question_id NOT IN
                 (SELECT question_id FROM challenge_session_questions WHERE session_id = $1)
             ORDER BY id LIMIT 1",
            &[session],
        )
        .await;
    p.post(
        &format!("/v1/challenges/knowledge-cards/{unseen}/view"),
        json!({}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    app.exec(
        "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer, distractors, status, created_at, updated_at)
         VALUES ('no-card', 'world-geography', 'Cardless?', 'text', 'yes', '[\"no\",\"maybe\"]', 'published', 0, 0)",
        &[],
    )
    .await;
    p.post(
        "/v1/challenges/knowledge-cards/fallback-no-card/view",
        json!({}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    // a question of the player's challenge without a card shows a fallback card, with
    // its own key space (shown with the challenge, so it pays before its answer too)
    let q1 = c["questions"][1]["question"]["id"].as_str().unwrap();
    app.exec("DELETE FROM knowledge_cards WHERE question_id = $1", &[q1])
        .await;
    let r = p
        .post(
            &format!("/v1/challenges/knowledge-cards/fallback-{q1}/view"),
            json!({}),
        )
        .await;
    assert_eq!(r.ok()["rewards"].as_array().unwrap().len(), 1);
    assert_eq!(r.ok()["rewards"][0]["amount"], 3);
    // not for a question that has a card: no second view reward for the same card
    let qid = c["questions"][0]["question"]["id"].as_str().unwrap();
    p.post(
        &format!("/v1/challenges/knowledge-cards/fallback-{qid}/view"),
        json!({}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    p.post(
        "/v1/challenges/knowledge-cards/no-such-card/view",
        json!({}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    p.post(
        "/v1/challenges/knowledge-cards/fallback-nope/view",
        json!({}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    // another player was shown none of these
    let other = Player::new(&app, "d-cards-other").await;
    other
        .post(&path, json!({}))
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(p.ledger_xp().await, 31);
}

async fn zero_hearts_refuse_wrong_answers_only(app: TestApp) {
    let p = Player::new(&app, "d-hearts").await;
    let c = p.next(TRACK).await;
    for i in 0..5 {
        p.answer(&c, i, false).await.ok();
    }
    assert_eq!(p.summary().await["hearts"], 0);
    let c2 = p.next(TRACK).await;
    assert_ne!(c2["challengeId"], c["challengeId"]);
    p.answer(&c2, 0, false)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // nothing recorded: no answer, no attempt
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM challenge_answers WHERE session_id = $1",
            &[c2["challengeId"].as_str().unwrap()]
        )
        .await,
        0
    );
    assert_eq!(p.summary().await["dailyAttemptsLeft"], 9);
    // that question takes no other option now, not even the right one: otherwise each
    // option would be tried for free until the right one is accepted
    for option in c2["questions"][0]["question"]["options"]
        .as_array()
        .unwrap()
    {
        p.post(
            "/v1/challenges/answer",
            Player::body(&c2, 0, option["id"].as_str().unwrap()),
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
    }
    // another question's correct answer is accepted at zero hearts; the closed question
    // stays closed after it (this process now remembers the player again)
    p.answer(&c2, 1, true).await.ok();
    p.answer(&c2, 0, true)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let s = p.summary().await;
    assert_eq!(
        (
            s["hearts"].clone(),
            s["dailyAttemptsLeft"].clone(),
            s["xp"].clone()
        ),
        (json!(0), json!(8), json!(10))
    );
    // with a heart again, the question is judged anew
    app.clock.advance(Duration::minutes(31));
    let r = p.answer(&c2, 0, true).await;
    assert_eq!(r.ok()["answerState"], "correct");
    assert_eq!(r.ok()["progress"]["xp"], 20);
    assert_eq!(p.ledger_xp().await, 20);
}

/// At two hearts a wrong answer: the fifth heart pays for two wrong answers, the third is
/// refused with one heart left and closes its question to every option (judged from
/// memory or on a read alike), until a heart comes back.
async fn a_wrong_answer_costs_the_configured_hearts(app: TestApp) {
    let p = Player::new(&app, "d-two-hearts").await;
    let c = p.next(TRACK).await;
    for i in 0..2 {
        let r = p.answer(&c, i, false).await;
        assert_eq!(r.ok()["progress"]["hearts"], 3 - 2 * i as i64);
    }
    p.answer(&c, 2, false)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    assert_eq!(p.summary().await["hearts"], 1);
    // one heart is not enough for a wrong answer, so the question is closed to the
    // right option too; another question still takes its right answer
    p.answer(&c, 2, true)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    p.answer(&c, 3, true).await.ok();
    p.answer(&c, 2, true)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // a heart back: two, enough for a wrong answer, so the question opens again
    app.clock.advance(Duration::minutes(31));
    let r = p.answer(&c, 2, true).await;
    assert_eq!(r.ok()["answerState"], "correct");
    assert_eq!(r.ok()["progress"]["hearts"], 2);
}

/// Every option of a question sent at once at zero hearts: the answers are judged as
/// if one after another. Either a wrong one came first (refused, and with it every
/// other option) or the right one did (accepted, and the others replay it); never a
/// refused wrong option and an accepted right one.
async fn zero_hearts_options_sent_at_once_are_judged_in_one_order(app: TestApp) {
    let p = Player::new(&app, "d-hearts-race").await;
    let c = p.next(TRACK).await;
    for i in 0..5 {
        p.answer(&c, i, false).await.ok();
    }
    let c2 = p.next(TRACK).await;
    let mut accepted = 0;
    for i in 0..5 {
        let options: Vec<String> = c2["questions"][i]["question"]["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .collect();
        let results = join_all(
            options
                .iter()
                .map(|o| p.post("/v1/challenges/answer", Player::body(&c2, i, o))),
        )
        .await;
        let refused = results.iter().filter(|r| r.status == 400).count();
        let correct = results
            .iter()
            .filter(|r| r.status == 200 && r.body["data"]["answerState"] == "correct")
            .count();
        assert!(
            refused == options.len() || correct == options.len(),
            "question {i}: {:?}",
            results.iter().map(|r| &r.body).collect::<Vec<_>>()
        );
        accepted += usize::from(correct > 0);
    }
    let s = p.summary().await;
    assert_eq!(s["hearts"], 0);
    assert_eq!(s["xp"], json!(10 * accepted));
    assert_eq!(p.ledger_xp().await, 10 * accepted as i64);
}

/// The process that opened a challenge judges its answers from memory (the player's row
/// as its last answer left it); what changed beside that memory wins: a refusal judged
/// from memory is judged again on the row as it is, and a write judged on a stale
/// memory writes nothing and is judged again.
async fn answers_judged_from_memory_follow_the_database(app: TestApp) {
    let p = Player::new(&app, "d-memory").await;
    let c = p.next(TRACK).await;
    for i in 0..5 {
        p.answer(&c, i, false).await.ok();
    }
    // remembered with no hearts; five come back beside this process (as an ad reward on
    // another process would give them)
    app.exec(
        "UPDATE player_progress SET hearts = 5, hearts_regen_from = NULL, revision = revision + 1 WHERE player_id = $1",
        &[&p.id],
    )
    .await;
    let c2 = p.next(TRACK).await;
    let r = p.answer(&c2, 0, false).await;
    assert_eq!(
        r.ok()["progress"]["hearts"],
        4,
        "judged on the row as it is"
    );
    // the XP changes beside this process: the next answer adds to it, not to the memory
    app.exec(
        "UPDATE player_progress SET xp = xp + 100, revision = revision + 1 WHERE player_id = $1",
        &[&p.id],
    )
    .await;
    let r = p.answer(&c2, 1, true).await;
    assert_eq!(r.ok()["progress"]["xp"], 110);
    assert_eq!(p.summary().await["xp"], 110);
    assert_eq!(
        app.scalar(
            "SELECT answered_count FROM challenge_sessions WHERE id = $1",
            &[c2["challengeId"].as_str().unwrap()]
        )
        .await,
        2
    );
}

async fn hearts_regenerate_over_time(app: TestApp) {
    let p = Player::new(&app, "d-regen").await;
    let c = p.next(TRACK).await;
    p.answer(&c, 0, false).await.ok();
    let lost_at = app.clock.now();
    app.clock.advance(Duration::minutes(10));
    p.answer(&c, 1, false).await.ok();
    let s = p.summary().await;
    assert_eq!(s["hearts"], 3);
    let next: chrono::DateTime<chrono::Utc> =
        s["nextHeartRestoreAt"].as_str().unwrap().parse().unwrap();
    assert!(
        (next - (lost_at + Duration::minutes(30)))
            .num_seconds()
            .abs()
            <= 1,
        "{next}"
    );
    app.clock.advance(Duration::minutes(21));
    assert_eq!(p.summary().await["hearts"], 4);
    app.clock.advance(Duration::minutes(30));
    let s = p.summary().await;
    assert_eq!(s["hearts"], 5);
    assert!(s["nextHeartRestoreAt"].is_null());
}

async fn attempts_reset_at_beijing_midnight(app: TestApp) {
    let mut p = Player::new(&app, "d-attempts").await;
    // 10 sessions' first answers use the 10 attempts (answers alternate tracks' nodes)
    app.exec("UPDATE player_progress SET attempts_used = 10, attempts_day = '2026-11-18' WHERE player_id = $1", &[&p.id]).await;
    let c = p.next(TRACK).await;
    p.answer(&c, 0, true)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    assert_eq!(p.summary().await["dailyAttemptsLeft"], 0);
    // 2026-11-18T15:59:59Z is still the 18th in Beijing
    p.travel_to("2026-11-18T15:59:59Z").await;
    p.answer(&c, 0, true)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    p.travel_to("2026-11-18T16:00:00Z").await;
    let s = p.summary().await;
    assert_eq!(s["dailyAttemptsLeft"], 10);
    assert_eq!(s["nextAttemptResetAt"], "2026-11-19T16:00:00Z");
    p.answer(&c, 0, true).await.ok();
    assert_eq!(p.summary().await["dailyAttemptsLeft"], 9);
}

async fn check_in_counts_once_per_beijing_day(app: TestApp) {
    let mut p = Player::new(&app, "d-checkin").await;
    let url = format!("{}/v1/progress/check-in", app.player_url);
    // no body, no Content-Type
    let r = TestApp::read(
        app.client
            .post(&url)
            .bearer_auth(&p.token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.ok()["checkInDays"], 1);
    // {} on the same day: not counted again
    assert_eq!(
        p.post("/v1/progress/check-in", json!({})).await.ok()["checkInDays"],
        1
    );
    // Content-Type JSON with an empty body: refused
    let r = TestApp::read(
        app.client
            .post(&url)
            .bearer_auth(&p.token)
            .header("content-type", "application/json")
            .send()
            .await
            .unwrap(),
    )
    .await;
    r.assert_error(400, "VALIDATION_ERROR");
    // concurrent check-ins count once
    let results = join_all((0..20).map(|_| p.post("/v1/progress/check-in", json!({})))).await;
    assert!(results.iter().all(|r| r.body["data"]["checkInDays"] == 1));
    p.travel_to("2026-11-18T16:00:00Z").await;
    assert_eq!(
        p.post("/v1/progress/check-in", json!({})).await.ok()["checkInDays"],
        2
    );
}

async fn streaks_follow_beijing_days(app: TestApp) {
    let mut p = Player::new(&app, "d-streak").await;
    let c = p.next(TRACK).await;
    p.answer(&c, 0, true).await.ok();
    assert_eq!(p.summary().await["streakDays"], 1);
    // the next Beijing day (just after 16:00 UTC)
    p.travel_to("2026-11-18T16:00:05Z").await;
    assert_eq!(
        p.summary().await["streakDays"],
        1,
        "kept until the day ends"
    );
    p.answer(&c, 1, true).await.ok();
    assert_eq!(p.summary().await["streakDays"], 2);
    // a missed day breaks it
    p.travel_to("2026-11-20T17:00:00Z").await;
    assert_eq!(p.summary().await["streakDays"], 0);
    p.answer(&c, 2, true).await.ok();
    assert_eq!(p.summary().await["streakDays"], 1);
}

async fn only_published_questions_are_served(app: TestApp) {
    // a track with 4 published and several unpublished questions: not enough
    app.exec("INSERT INTO categories (id, name, slug, sort_order, created_at, updated_at) VALUES ('tiny', 'Tiny', 'tiny', 9, 0, 0)", &[]).await;
    app.exec("INSERT INTO skill_nodes (id, category_id, title, created_at, updated_at) VALUES ('tiny-1', 'tiny', 'One', 0, 0)", &[]).await;
    for (i, status) in [
        "published",
        "published",
        "published",
        "published",
        "draft",
        "reviewing",
        "archived",
        "draft",
    ]
    .iter()
    .enumerate()
    {
        let id = format!("tq-{i}");
        let sql: &'static str = match *status {
            "published" => {
                "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer, distractors, status, created_at, updated_at) VALUES ($1, 'tiny', $1, 'text', 'yes', '[\"no\",\"maybe\"]', 'published', 0, 0)"
            }
            "draft" => {
                "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer, distractors, status, created_at, updated_at) VALUES ($1, 'tiny', $1, 'text', 'yes', '[\"no\",\"maybe\"]', 'draft', 0, 0)"
            }
            "reviewing" => {
                "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer, distractors, status, created_at, updated_at) VALUES ($1, 'tiny', $1, 'text', 'yes', '[\"no\",\"maybe\"]', 'reviewing', 0, 0)"
            }
            _ => {
                "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer, distractors, status, created_at, updated_at) VALUES ($1, 'tiny', $1, 'text', 'yes', '[\"no\",\"maybe\"]', 'archived', 0, 0)"
            }
        };
        app.exec(sql, &[&id]).await;
    }
    app.version_raw_questions().await;
    let p = Player::new(&app, "d-pool").await;
    assert!(p.next("tiny").await.is_null());
    // a fifth published question, in a sub-category: now a challenge, of published ones only
    app.exec("INSERT INTO categories (id, name, slug, parent_id, created_at, updated_at) VALUES ('tiny-sub', 'Sub', 'tiny-sub', 'tiny', 0, 0)", &[]).await;
    app.exec("INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer, distractors, status, created_at, updated_at) VALUES ('tq-sub', 'tiny-sub', 'sub?', 'text', 'yes', '[\"no\",\"maybe\"]', 'published', 0, 0)", &[]).await;
    app.version_raw_questions().await;
    let c = p.next("tiny").await;
    let mut ids: Vec<String> = c["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["question"]["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, ["tq-0", "tq-1", "tq-2", "tq-3", "tq-sub"]);
    // an inactive category is no track
    app.exec(
        "UPDATE categories SET status = 'inactive' WHERE id = 'tiny'",
        &[],
    )
    .await;
    assert!(p.get("/v1/tracks/tiny").await.ok().is_null());
}

async fn other_players_challenges_are_not_found(app: TestApp) {
    let a = Player::new(&app, "d-a").await;
    let b = Player::new(&app, "d-b").await;
    let c = a.next(TRACK).await;
    let option = a.correct(&c, 0).await;
    b.post("/v1/challenges/answer", Player::body(&c, 0, &option))
        .await
        .assert_error(404, "NOT_FOUND");
    // once A answered, B still cannot read A's judgement as a "replay"
    let a_correct = a.correct(&c, 1).await;
    a.post("/v1/challenges/answer", Player::body(&c, 1, &a_correct))
        .await
        .ok();
    b.post("/v1/challenges/answer", Player::body(&c, 1, "x"))
        .await
        .assert_error(404, "NOT_FOUND");
    let mut bad = Player::body(&c, 0, "not-an-option");
    a.post("/v1/challenges/answer", bad.clone())
        .await
        .assert_error(400, "VALIDATION_ERROR");
    bad["questionId"] = json!("not-in-this-challenge");
    a.post("/v1/challenges/answer", bad.clone())
        .await
        .assert_error(400, "VALIDATION_ERROR");
    bad["challengeId"] = json!("no-such-challenge");
    a.post("/v1/challenges/answer", bad)
        .await
        .assert_error(404, "NOT_FOUND");
    let mut negative = Player::body(&c, 0, &option);
    negative["timeMs"] = json!(-1);
    a.post("/v1/challenges/answer", negative)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    a.post(
        "/v1/challenges/answer",
        json!({"challengeId": c["challengeId"]}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // nothing happened to either player
    assert_eq!(a.summary().await["dailyAttemptsLeft"], 9);
    assert_eq!(b.summary().await["dailyAttemptsLeft"], 10);
}

async fn preferences_set_the_active_track(app: TestApp) {
    let p = Player::new(&app, "d-prefs").await;
    assert!(p.summary().await["activeTrackId"].is_null());
    let r = app
        .call(
            tests::Service::Player,
            reqwest::Method::PATCH,
            "/v1/progress/preferences",
            Some(json!({"activeTrackId": "science-basics"})),
            Some(&p.token),
        )
        .await;
    assert_eq!(r.ok()["activeTrackId"], "science-basics");
    assert_eq!(p.summary().await["activeTrackId"], "science-basics");
    app.call(
        tests::Service::Player,
        reqwest::Method::PATCH,
        "/v1/progress/preferences",
        Some(json!({"activeTrackId": "nope"})),
        Some(&p.token),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
}

/// What one answer writes beside itself: the weekly boards (all-players, and the
/// region's only for a player with a region; whole seconds), the node only on a passed
/// challenge's last answer, one ledger row; and the progress it answers with is the
/// stored one.
async fn answers_write_the_boards_the_node_and_the_ledger(app: TestApp) {
    // every right answer within one second (the boards keep whole seconds), however
    // slowly this runs: the clock is put back before each answer
    let pin = || app.clock.set("2026-11-18T05:00:07.345Z".parse().unwrap());
    pin();
    let earned_at = "2026-11-18T05:00:07Z"
        .parse::<chrono::DateTime<chrono::Utc>>()
        .unwrap()
        .timestamp_millis();
    let boards = |id: String| {
        let app = &app;
        async move {
            let mut rows = Vec::new();
            for board in ["topic:all", "region:310000"] {
                let n = app
                    .scalar(
                        "SELECT count(*) FROM weekly_xp WHERE player_id = $1 AND board = $2 AND week_start = '2026-11-16'",
                        &[&id, board],
                    )
                    .await;
                if n == 1 {
                    let xp = app
                        .scalar(
                            "SELECT xp FROM weekly_xp WHERE player_id = $1 AND board = $2",
                            &[&id, board],
                        )
                        .await;
                    let at = app
                        .scalar(
                            "SELECT last_earned_at FROM weekly_xp WHERE player_id = $1 AND board = $2",
                            &[&id, board],
                        )
                        .await;
                    rows.push((board, xp, at));
                }
            }
            let all = app
                .scalar(
                    "SELECT count(*) FROM weekly_xp WHERE player_id = $1",
                    &[&id],
                )
                .await;
            assert_eq!(all as usize, rows.len());
            rows
        }
    };
    let nodes_done = |id: String| {
        let app = &app;
        async move {
            app.scalar(
                "SELECT count(*) FROM node_completions WHERE player_id = $1",
                &[&id],
            )
            .await
        }
    };

    // no region: the all-players board only; 2 of 5 right fails the node
    let p = Player::new(&app, "d-boards-none").await;
    let c = p.next(TRACK).await;
    for (i, correct) in [true, false, false, true, false].into_iter().enumerate() {
        pin();
        let d = p.answer(&c, i, correct).await.ok().clone();
        let s = p.summary().await;
        for k in ["hearts", "dailyAttemptsLeft", "xp", "streakDays"] {
            assert_eq!(d["progress"][k], s[k], "{k} after answer {i}");
        }
        if i == 0 {
            assert_eq!(boards(p.id.clone()).await, [("topic:all", 10, earned_at)]);
        }
    }
    assert_eq!(boards(p.id.clone()).await, [("topic:all", 20, earned_at)]);
    assert_eq!(nodes_done(p.id.clone()).await, 0);
    let t = p.get("/v1/tracks/world-geography").await.ok().clone();
    assert_eq!(t["nodes"][0]["status"], "current");
    // one ledger row per answer, under the answer's key, XP only on right ones
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM reward_ledger WHERE player_id = $1 AND source = 'challenge_answer'",
            &[&p.id]
        )
        .await,
        5
    );
    let key = format!(
        "answer:{}:{}",
        c["challengeId"].as_str().unwrap(),
        c["questions"][1]["question"]["id"].as_str().unwrap()
    );
    assert_eq!(
        app.text(
            "SELECT before_snapshot FROM reward_ledger WHERE idempotency_key = $1",
            &[&key]
        )
        .await
        .parse::<Value>()
        .unwrap(),
        json!({"hearts": 5, "attemptsLeft": 9, "xp": 10, "streakDays": 1})
    );
    assert_eq!(
        app.text(
            "SELECT after_snapshot FROM reward_ledger WHERE idempotency_key = $1",
            &[&key]
        )
        .await
        .parse::<Value>()
        .unwrap(),
        json!({"hearts": 4, "attemptsLeft": 9, "xp": 10, "streakDays": 1})
    );
    assert_eq!(
        app.scalar(
            "SELECT hearts_delta * 100 + xp_delta FROM reward_ledger WHERE idempotency_key = $1",
            &[&key]
        )
        .await,
        -100
    );
    assert_eq!(p.ledger_xp().await, 20);

    // with a region: both boards; 3 of 5 right passes the node on the last answer
    let r = Player::new(&app, "d-boards-region").await;
    app.call(
        tests::Service::Player,
        reqwest::Method::PATCH,
        "/v1/users/me/region",
        Some(json!({"regionCode": "310000"})),
        Some(&r.token),
    )
    .await
    .ok();
    let c = r.next(TRACK).await;
    for (i, correct) in [true, true, false, true, false].into_iter().enumerate() {
        pin();
        r.answer(&c, i, correct).await.ok();
        if i == 0 {
            assert_eq!(
                boards(r.id.clone()).await,
                [
                    ("topic:all", 10, earned_at),
                    ("region:310000", 10, earned_at)
                ]
            );
        }
        assert_eq!(nodes_done(r.id.clone()).await, i64::from(i == 4));
    }
    assert_eq!(
        boards(r.id.clone()).await,
        [
            ("topic:all", 30, earned_at),
            ("region:310000", 30, earned_at)
        ]
    );
    let t = r.get("/v1/tracks/world-geography").await.ok().clone();
    assert_eq!(t["nodes"][0]["status"], "done");
    assert_eq!(r.ledger_xp().await, 30);

    // a first answer whose ledger key is taken by something else (never so in play: a
    // fresh read finds the answer that took it) is refused whole, with nothing written
    let q = Player::new(&app, "d-boards-taken").await;
    let c = q.next(TRACK).await;
    let key = format!(
        "answer:{}:{}",
        c["challengeId"].as_str().unwrap(),
        c["questions"][0]["question"]["id"].as_str().unwrap()
    );
    app.exec(
        "INSERT INTO reward_ledger (id, player_id, idempotency_key, source, created_at) VALUES ('taken', $1, $2, 'test', 0)",
        &[&q.id, &key],
    )
    .await;
    q.answer(&c, 0, true).await.assert_error(409, "CONFLICT");
    let written = |sql: &'static str| {
        let (app, id) = (&app, q.id.clone());
        async move { app.scalar(sql, &[&id]).await }
    };
    assert_eq!(
        written("SELECT count(*) FROM challenge_answers WHERE player_id = $1").await,
        0
    );
    assert_eq!(
        written("SELECT count(*) FROM weekly_xp WHERE player_id = $1").await,
        0
    );
    assert_eq!(
        written("SELECT answered_count FROM challenge_sessions WHERE player_id = $1").await,
        0
    );
    let s = q.summary().await;
    assert_eq!(
        (s["xp"].clone(), s["dailyAttemptsLeft"].clone()),
        (json!(0), json!(10))
    );
    app.exec("DELETE FROM reward_ledger WHERE id = 'taken'", &[])
        .await;
    pin();
    assert_eq!(q.answer(&c, 0, true).await.ok()["progress"]["xp"], 10);
    assert_eq!(boards(q.id.clone()).await, [("topic:all", 10, earned_at)]);
}
