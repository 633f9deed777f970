//! Statement budgets: the database round trips each hot request makes, counted by
//! `tests::statements` (every statement sqlx sends, plus the `BEGIN`s and SQLite
//! `COMMIT`s it does not log), on SQLite and on PostgreSQL.
//!
//! A budget is exact: a change that adds a round trip to a hot request fails here until
//! the budget is raised on purpose (the reason in the commit), and one that saves a
//! round trip lowers it, so the numbers stay the ones `BENCHMARKS.md` explains.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reqwest::Method;
use serde_json::{Value, json};
use tests::{Engine, Resp, TestApp};

/// Round trips of one request on each engine.
#[derive(Clone, Copy, Debug)]
struct Budget {
    sqlite: usize,
    postgres: usize,
}

impl Budget {
    const fn same(n: usize) -> Self {
        Self {
            sqlite: n,
            postgres: n,
        }
    }

    fn on(self, engine: Engine) -> usize {
        match engine {
            Engine::Sqlite => self.sqlite,
            Engine::Postgres | Engine::Pooled => self.postgres,
        }
    }
}

/// `POST /v1/auth/guest` for a new device: the identity lookup, then one write (the
/// player, identity, progress, wallet, subscription and refresh token).
const GUEST_NEW_DEVICE: Budget = Budget::same(2);
/// `GET /v1/progress/summary`: the progress row with the ban and deletion columns.
const SUMMARY: Budget = Budget::same(1);
/// `GET /v1/challenges/next` opening a new challenge: the player's account row, the
/// track, its nodes, the player's finished nodes, their unfinished session, the track's
/// categories, the pick's candidates (one category here), the picked questions with
/// their cards; then the session and its questions in one write.
const NEXT_NEW: Budget = Budget::same(9);
/// `GET /v1/challenges/next` returning the open one served moments ago: the same five
/// reads up to the unfinished session, its questions read; nothing written (a client
/// asking again and again makes no write).
const NEXT_OPEN: Budget = Budget::same(6);
/// `GET /v1/challenges/next` returning the open one served 10 s ago or more: its served
/// time written too (the answers' times run from now).
const NEXT_SERVED_AGAIN: Budget = Budget::same(7);
/// `POST /v1/challenges/answer` judged from the process's memory: one guarded write
/// (the progress row, the answer, the session, the ledger, the weekly XP and the
/// fair-play score together).
const ANSWER_FROM_MEMORY: Budget = Budget::same(1);
/// The week's first right answer, judged on a read (the player's first answer): the
/// read, the write, then the league join: what the player's cohorts and tier are, and
/// the place in the open cohort taken in one write.
const ANSWER_FIRST_XP: Budget = Budget::same(4);
/// `POST /v1/challenges/answer` judged on a read (no answer memory): a read, a write.
const ANSWER_ON_A_READ: Budget = Budget::same(2);
/// `GET /v1/leaderboards`, the page and the board's size not remembered yet: the
/// player's region state, the page, the size (this week's board is live: no settlement
/// to look up).
const BOARD_PAGE_COLD: Budget = Budget::same(3);
/// `GET /v1/leaderboards` again within a second: page and size from memory.
const BOARD_PAGE_WARM: Budget = Budget::same(1);
/// `GET /v1/leaderboards/me`: the region state with the own row and its rank.
const OWN_RANK: Budget = Budget::same(1);

/// A request sent with an `x-request-id` of its own, and the statements it made.
async fn counted(
    app: &TestApp,
    method: Method,
    path: &str,
    body: Option<Value>,
    token: Option<&str>,
) -> (Resp, Vec<String>) {
    let request_id = uuid::Uuid::new_v4().simple().to_string();
    let mut req = app
        .client
        .request(method, format!("{}{path}", app.player_url))
        .header("x-request-id", &request_id);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(body) = body {
        req = req.json(&body);
    }
    let resp = TestApp::read(req.send().await.unwrap()).await;
    (resp, tests::statements::statements_of(&request_id).await)
}

/// Fails unless `statements` are exactly `budget`'s on the app's engine, listing them.
#[track_caller]
fn assert_budget(app: &TestApp, what: &str, statements: &[String], budget: Budget) {
    let allowed = budget.on(app.engine);
    if std::env::var_os("BUDGETS_PRINT").is_some() {
        // to see every request's statements at once: `BUDGETS_PRINT=1 … --nocapture`
        eprintln!(
            "{what} on {:?}: {} round trips (budget {allowed}):\n  {}",
            app.engine,
            statements.len(),
            statements.join("\n  ")
        );
        return;
    }
    assert_eq!(
        statements.len(),
        allowed,
        "{what} on {:?} made {} round trips, its budget is {allowed}:\n  {}",
        app.engine,
        statements.len(),
        statements.join("\n  ")
    );
}

async fn spawn(engine: Engine, memory: bool) -> TestApp {
    tests::statements::install();
    TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("ANSWER_MEMORY", memory.to_string()),
        ],
    )
    .await
}

/// A new guest with the first enabled region selected (so the region board is theirs).
async fn player(app: &TestApp, device: &str) -> String {
    let (_, token, _) = app.guest(device).await;
    let regions = app.get("/v1/app/regions", None).await;
    let code = regions.ok()["regions"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();
    app.call(
        tests::Service::Player,
        Method::PATCH,
        "/v1/users/me/region",
        Some(json!({ "regionCode": code })),
        Some(&token),
    )
    .await
    .ok();
    token
}

/// The right option of question `index` of `challenge` (read from the database).
async fn right_option(app: &TestApp, challenge: &Value, index: usize) -> String {
    app.text(
        "SELECT correct_option_id FROM challenge_session_questions
         WHERE session_id = $1 AND question_id = $2",
        &[
            challenge["challengeId"].as_str().unwrap(),
            challenge["questions"][index]["question"]["id"]
                .as_str()
                .unwrap(),
        ],
    )
    .await
}

fn answer_body(challenge: &Value, index: usize, option: &str) -> Value {
    json!({
        "challengeId": challenge["challengeId"],
        "questionId": challenge["questions"][index]["question"]["id"],
        "selectedOptionId": option,
        "timeMs": 4200,
        "comboCount": 1,
        "submitRequestId": uuid::Uuid::new_v4().to_string(),
    })
}

/// Guest sign-in, summary, next challenge, the answers and both boards, with the
/// answer memory on (as behind sticky balancing).
async fn hot_requests(engine: Engine) {
    let app = spawn(engine, true).await;
    let (resp, statements) = counted(
        &app,
        Method::POST,
        "/v1/auth/guest",
        Some(json!({ "deviceId": "budget-new-device" })),
        None,
    )
    .await;
    resp.ok();
    assert_budget(
        &app,
        "guest sign-in (new device)",
        &statements,
        GUEST_NEW_DEVICE,
    );

    let token = player(&app, "budget-player").await;
    let t = Some(token.as_str());
    let (resp, statements) = counted(&app, Method::GET, "/v1/progress/summary", None, t).await;
    resp.ok();
    assert_budget(&app, "progress summary", &statements, SUMMARY);

    let next = "/v1/challenges/next?trackId=world-geography";
    let (resp, statements) = counted(&app, Method::GET, next, None, t).await;
    let challenge = resp.ok().clone();
    assert_budget(&app, "next challenge (new)", &statements, NEXT_NEW);
    let (resp, statements) = counted(&app, Method::GET, next, None, t).await;
    resp.ok();
    assert_budget(&app, "next challenge (open)", &statements, NEXT_OPEN);
    assert!(
        statements
            .iter()
            .all(|s| !s.contains("UPDATE") && !s.contains("INSERT")),
        "a challenge served moments ago is served as it is: {statements:?}"
    );
    app.clock.advance(chrono::Duration::seconds(10));
    let (resp, statements) = counted(&app, Method::GET, next, None, t).await;
    resp.ok();
    assert_budget(
        &app,
        "next challenge (served again)",
        &statements,
        NEXT_SERVED_AGAIN,
    );

    // the week's first XP: the answer and the league join
    let right = right_option(&app, &challenge, 0).await;
    let (resp, statements) = counted(
        &app,
        Method::POST,
        "/v1/challenges/answer",
        Some(answer_body(&challenge, 0, &right)),
        t,
    )
    .await;
    assert_eq!(resp.ok()["answerState"], "correct");
    assert_budget(
        &app,
        "answer (week's first XP)",
        &statements,
        ANSWER_FIRST_XP,
    );

    let right = right_option(&app, &challenge, 1).await;
    let (resp, statements) = counted(
        &app,
        Method::POST,
        "/v1/challenges/answer",
        Some(answer_body(&challenge, 1, &right)),
        t,
    )
    .await;
    assert_eq!(resp.ok()["answerState"], "correct");
    assert_budget(
        &app,
        "answer (from memory)",
        &statements,
        ANSWER_FROM_MEMORY,
    );

    let (resp, statements) = counted(&app, Method::GET, "/v1/leaderboards", None, t).await;
    assert!(!resp.ok().is_null());
    assert_budget(
        &app,
        "leaderboard page (cold)",
        &statements,
        BOARD_PAGE_COLD,
    );
    let (resp, statements) = counted(&app, Method::GET, "/v1/leaderboards", None, t).await;
    assert!(!resp.ok().is_null());
    assert_budget(
        &app,
        "leaderboard page (warm)",
        &statements,
        BOARD_PAGE_WARM,
    );

    let (resp, statements) = counted(&app, Method::GET, "/v1/leaderboards/me", None, t).await;
    assert!(!resp.ok().is_null());
    assert_budget(&app, "own rank", &statements, OWN_RANK);
}

/// The answer as behind a round-robin balancer: judged on a read.
async fn answer_without_memory(engine: Engine) {
    let app = spawn(engine, false).await;
    let token = player(&app, "budget-round-robin").await;
    let t = Some(token.as_str());
    let challenge = app
        .get("/v1/challenges/next?trackId=world-geography", t)
        .await
        .ok()
        .clone();
    for index in 0..2 {
        let right = right_option(&app, &challenge, index).await;
        let (resp, statements) = counted(
            &app,
            Method::POST,
            "/v1/challenges/answer",
            Some(answer_body(&challenge, index, &right)),
            t,
        )
        .await;
        assert_eq!(resp.ok()["answerState"], "correct");
        if index == 1 {
            assert_budget(&app, "answer (on a read)", &statements, ANSWER_ON_A_READ);
        }
    }
}

macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name(tests::Engine::Sqlite).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name(tests::Engine::Postgres).await
                }
            }
        )*
    };
}

/// Refused feedback (the player's hour is full): a read of the counter, and nothing
/// written: a flood of refusals opens no transaction.
const FEEDBACK_REFUSED: Budget = Budget::same(2);

async fn refused_feedback_writes_nothing(engine: Engine) {
    tests::statements::install();
    let app = TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("FEEDBACK_PER_HOUR", "1".to_string()),
        ],
    )
    .await;
    let token = player(&app, "budget-feedback").await;
    let t = Some(token.as_str());
    let body = || Some(json!({ "content": "more maps please" }));
    let (resp, _) = counted(&app, Method::POST, "/v1/feedback", body(), t).await;
    resp.ok();
    let (resp, statements) = counted(&app, Method::POST, "/v1/feedback", body(), t).await;
    resp.assert_error(429, "RATE_LIMITED");
    // the account's row, then the counter: no BEGIN, no write
    assert_budget(&app, "feedback refused", &statements, FEEDBACK_REFUSED);
    assert!(
        statements
            .iter()
            .all(|s| !s.contains("BEGIN") && !s.contains("INSERT") && !s.contains("UPDATE")),
        "{statements:?}"
    );
}

on_both_engines!(
    hot_requests,
    answer_without_memory,
    refused_feedback_writes_nothing
);
