//! The real `player-api` binary killed with SIGKILL while answers are in flight, then
//! restarted on the same database: every acknowledged answer is there, no answer is
//! half-applied (answer rows, session counters, attempts, hearts, XP, weekly XP, node
//! completions and ledger rows agree), and the ledger still balances.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use shared::db::Db;
use tests::process::{Proc, free_port};
use tests::{Engine, TestDatabase, both_engines_raw};
use tokio::sync::Notify;

const EXE: &str = env!("CARGO_BIN_EXE_player-api");

both_engines_raw!(sigkill_mid_answers_loses_nothing_acknowledged);

const PLAYERS: usize = 12;
const TRACKS: [&str; 3] = ["world-geography", "science-basics", "history-culture"];
/// Acknowledged answers after which the process is killed (of 180 sent at once; each
/// player's answers run one after another, so most are still queued then).
const KILL_AFTER: usize = 40;

fn vars(database: &TestDatabase, port: u16) -> Vec<(&'static str, String)> {
    vec![
        ("DATABASE_URL", database.url.clone()),
        ("PLAYER_API_ADDR", format!("127.0.0.1:{port}")),
        ("DEMO_CONTENT", "true".into()),
        ("QUIZ_CLOCK_START", "2026-11-18T04:00:00Z".into()),
        ("RATE_LIMIT_AUTH_PER_MINUTE", "100000".into()),
        ("LOG_FORMAT", "json".into()),
    ]
}

async fn scalar(db: &Db, sql: &'static str, args: &[&str]) -> i64 {
    shared::read!(db, |ex| {
        let mut q = sqlx::query_scalar::<_, i64>(sql);
        for a in args {
            q = q.bind(a.to_string());
        }
        q.fetch_one(ex).await.unwrap()
    })
}

async fn of_player(db: &Db, sql: &'static str, player: &str) -> i64 {
    scalar(db, sql, &[player]).await
}

/// One answer to send: its player's token and the request body.
#[derive(Clone)]
struct Planned {
    player: usize,
    body: Value,
}

/// What the server acknowledged for one answer.
struct Acked {
    session: String,
    question: String,
    correct: bool,
    xp: i64,
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let mut req = client.post(url).json(body);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn sigkill_mid_answers_loses_nothing_acknowledged(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let port = free_port();
    let mut proc = Proc::start(EXE, &vars(&database, port), port).await;
    let base = proc.base_url.clone();
    let db = Db::connect(&shared::config::DatabaseUrl::parse(&database.url).unwrap())
        .await
        .unwrap();
    let client = reqwest::Client::new();

    // players with a challenge on each track; every fifth answer of a player wrong, so
    // no answer is refused for want of hearts (5) or attempts (3 of 10 used)
    let mut players: Vec<(String, String)> = Vec::new();
    let mut plan = Vec::new();
    for p in 0..PLAYERS {
        let (status, body) = post(
            &client,
            &format!("{base}/v1/auth/guest"),
            None,
            &json!({"deviceId": format!("crash-{p}")}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let id = body["data"]["user"]["id"].as_str().unwrap().to_string();
        let token = body["data"]["tokens"]["accessToken"]
            .as_str()
            .unwrap()
            .to_string();
        for (t, track) in TRACKS.iter().enumerate() {
            let c: Value = client
                .get(format!("{base}/v1/challenges/next?trackId={track}"))
                .bearer_auth(&token)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let session = c["data"]["challengeId"].as_str().unwrap().to_string();
            let rows: Vec<(String, String, String)> = shared::read!(&db, |ex| {
                sqlx::query_as(
                    "SELECT question_id, correct_option_id, options FROM challenge_session_questions WHERE session_id = $1",
                )
                .bind(&session)
                .fetch_all(ex)
                .await
                .unwrap()
            });
            assert_eq!(rows.len(), 5);
            for (q, (question, correct, options)) in rows.into_iter().enumerate() {
                let option = if (t * 5 + q) % 3 == 2 {
                    let options: Vec<Value> = serde_json::from_str(&options).unwrap();
                    options
                        .iter()
                        .map(|o| o["id"].as_str().unwrap().to_string())
                        .find(|o| *o != correct)
                        .unwrap()
                } else {
                    correct
                };
                plan.push(Planned {
                    player: p,
                    body: json!({
                        "challengeId": session,
                        "questionId": question,
                        "selectedOptionId": option,
                        "submitRequestId": format!("crash-{p}-{t}-{q}"),
                    }),
                });
            }
        }
        players.push((id, token));
    }
    let total = plan.len();

    // every answer at once; SIGKILL once KILL_AFTER are acknowledged
    let players = Arc::new(players);
    let acked_count = Arc::new(AtomicUsize::new(0));
    let enough = Arc::new(Notify::new());
    let url = format!("{base}/v1/challenges/answer");
    let mut tasks = tokio::task::JoinSet::new();
    for planned in plan.clone() {
        let (client, url, players) = (client.clone(), url.clone(), Arc::clone(&players));
        let (acked_count, enough) = (Arc::clone(&acked_count), Arc::clone(&enough));
        tasks.spawn(async move {
            let token = &players[planned.player].1;
            let sent = client
                .post(&url)
                .bearer_auth(token)
                .json(&planned.body)
                .send()
                .await;
            let Ok(r) = sent else { return None };
            let status = r.status().as_u16();
            let Ok(body) = r.json::<Value>().await else {
                return None; // killed while answering
            };
            assert_eq!(
                status, 200,
                "before the kill every answer is accepted: {body}"
            );
            if acked_count.fetch_add(1, Ordering::SeqCst) + 1 >= KILL_AFTER {
                enough.notify_one();
            }
            Some(Acked {
                session: planned.body["challengeId"].as_str().unwrap().to_string(),
                question: planned.body["questionId"].as_str().unwrap().to_string(),
                correct: body["data"]["answerState"] == "correct",
                xp: body["data"]["xpDelta"].as_i64().unwrap(),
            })
        });
    }
    tokio::time::timeout(Duration::from_secs(300), enough.notified())
        .await
        .expect("answers were acknowledged");
    proc.signal("KILL");
    let status = proc.wait_exit(Duration::from_secs(15));
    assert_eq!(status.code(), None, "killed by a signal");
    let mut acked = Vec::new();
    while let Some(result) = tasks.join_next().await {
        if let Some(a) = result.unwrap() {
            acked.push(a);
        }
    }
    assert!(acked.len() >= KILL_AFTER, "{} acknowledged", acked.len());
    assert!(
        acked.len() < total,
        "the kill came while answers were in flight"
    );

    // restart on the same database
    let port = free_port();
    let mut restarted = Proc::start(EXE, &vars(&database, port), port).await;
    let base = restarted.base_url.clone();

    // every acknowledged answer is stored as it was judged
    for a in &acked {
        let stored = scalar(
            &db,
            "SELECT CAST(xp_delta AS BIGINT) FROM challenge_answers WHERE session_id = $1 AND question_id = $2",
            &[&a.session, &a.question],
        )
        .await;
        assert_eq!(stored, a.xp, "answer {}:{}", a.session, a.question);
        let correct = scalar(
            &db,
            "SELECT count(*) FROM challenge_answers WHERE session_id = $1 AND question_id = $2 AND is_correct = TRUE",
            &[&a.session, &a.question],
        )
        .await;
        assert_eq!(correct == 1, a.correct);
    }
    let stored_before_replay = scalar(&db, "SELECT count(*) FROM challenge_answers", &[]).await;
    assert!(stored_before_replay as usize >= acked.len());
    for (id, _) in players.iter() {
        assert_consistent(&db, id).await;
    }

    // the restarted process replays what was stored and accepts the rest
    let url = format!("{base}/v1/challenges/answer");
    let acked_keys: HashMap<(String, String), (bool, i64)> = acked
        .iter()
        .map(|a| ((a.session.clone(), a.question.clone()), (a.correct, a.xp)))
        .collect();
    for planned in &plan {
        let token = Some(players[planned.player].1.as_str());
        let (status, body) = post(&client, &url, token, &planned.body).await;
        assert_eq!(status, 200, "{body}");
        let key = (
            planned.body["challengeId"].as_str().unwrap().to_string(),
            planned.body["questionId"].as_str().unwrap().to_string(),
        );
        if let Some((correct, xp)) = acked_keys.get(&key) {
            assert_eq!(body["data"]["answerState"] == "correct", *correct, "{body}");
            assert_eq!(body["data"]["xpDelta"], *xp, "{body}");
        }
    }
    assert_eq!(
        scalar(&db, "SELECT count(*) FROM challenge_answers", &[]).await as usize,
        total
    );
    for (id, token) in players.iter() {
        assert_consistent(&db, id).await;
        // every session finished, one attempt each, and the API agrees with the ledger
        let s: Value = client
            .get(format!("{base}/v1/progress/summary"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(s["data"]["dailyAttemptsLeft"], 10 - 3, "{s}");
        assert_eq!(
            s["data"]["xp"],
            scalar(
                &db,
                "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
                &[id]
            )
            .await
        );
    }
    restarted.signal("TERM");
    let status = restarted.wait_exit(Duration::from_secs(15));
    assert_eq!(status.code(), Some(0), "{}", restarted.stderr());
    db.close().await;
}

/// Nothing of `player` is half-applied: each stored answer has its ledger row and is
/// counted on its session; attempts, hearts, XP and weekly XP equal what the answers and
/// the ledger say; node completions follow the finished sessions.
async fn assert_consistent(db: &Db, player: &str) {
    let q = |sql: &'static str| of_player(db, sql, player);
    let answers = q("SELECT count(*) FROM challenge_answers WHERE player_id = $1").await;
    let ledger_rows = q("SELECT count(*) FROM reward_ledger WHERE player_id = $1").await;
    assert_eq!(answers, ledger_rows, "{player}: one ledger row per answer");
    assert_eq!(
        q(
            "SELECT count(*) FROM challenge_answers a WHERE a.player_id = $1 AND NOT EXISTS (
               SELECT 1 FROM reward_ledger l
               WHERE l.idempotency_key = 'answer:' || a.session_id || ':' || a.question_id
                 AND l.player_id = a.player_id
                 AND l.xp_delta = a.xp_delta AND l.hearts_delta = a.hearts_delta)"
        )
        .await,
        0,
        "{player}: every answer's ledger row, with its deltas"
    );
    // session counters
    assert_eq!(
        q("SELECT count(*) FROM challenge_sessions s WHERE s.player_id = $1 AND (
               s.answered_count <> (SELECT count(*) FROM challenge_answers a WHERE a.session_id = s.id)
            OR s.correct_count <> (SELECT count(*) FROM challenge_answers a WHERE a.session_id = s.id AND a.is_correct = TRUE)
            OR (s.status = 'finished') <> (s.answered_count = 5)
            OR s.attempt_consumed <> (s.answered_count > 0))")
        .await,
        0,
        "{player}: session counters against the answers"
    );
    // attempts
    let sessions_started =
        q("SELECT count(DISTINCT session_id) FROM challenge_answers WHERE player_id = $1").await;
    assert_eq!(
        q("SELECT CAST(attempts_used AS BIGINT) FROM player_progress WHERE player_id = $1").await,
        sessions_started,
        "{player}: attempts used"
    );
    assert_eq!(
        q("SELECT CAST(COALESCE(SUM(attempts_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1")
            .await,
        -sessions_started,
        "{player}: attempts in the ledger"
    );
    // hearts (no heart regenerates in the seconds this test runs)
    let hearts = q("SELECT CAST(hearts AS BIGINT) FROM player_progress WHERE player_id = $1").await;
    assert_eq!(
        hearts,
        5 + q("SELECT CAST(COALESCE(SUM(hearts_delta), 0) AS BIGINT) FROM challenge_answers WHERE player_id = $1").await,
        "{player}: hearts against the answers"
    );
    assert_eq!(
        hearts,
        5 + q("SELECT CAST(COALESCE(SUM(hearts_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1").await,
        "{player}: hearts against the ledger"
    );
    // XP: progress, answers, ledger and the weekly board agree
    let xp = q("SELECT CAST(xp AS BIGINT) FROM player_progress WHERE player_id = $1").await;
    for (what, sql) in [
        (
            "answers",
            "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM challenge_answers WHERE player_id = $1",
        ),
        (
            "ledger",
            "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
        ),
        (
            "weekly board",
            "SELECT CAST(COALESCE(SUM(xp), 0) AS BIGINT) FROM weekly_xp WHERE player_id = $1 AND board = 'topic:all'",
        ),
    ] {
        assert_eq!(xp, q(sql).await, "{player}: XP against the {what}");
    }
    // node completions: exactly the nodes of finished, passed sessions
    assert_eq!(
        q("SELECT count(*) FROM challenge_sessions s JOIN skill_nodes n ON n.id = s.node_id
           WHERE s.player_id = $1 AND s.status = 'finished' AND s.correct_count >= n.pass_threshold
             AND NOT EXISTS (SELECT 1 FROM node_completions c WHERE c.player_id = s.player_id AND c.node_id = s.node_id)")
        .await,
        0,
        "{player}: a passed session without its completion"
    );
    assert_eq!(
        q(
            "SELECT count(*) FROM node_completions c WHERE c.player_id = $1 AND NOT EXISTS (
               SELECT 1 FROM challenge_sessions s JOIN skill_nodes n ON n.id = s.node_id
               WHERE s.player_id = c.player_id AND s.node_id = c.node_id
                 AND s.status = 'finished' AND s.correct_count >= n.pass_threshold)"
        )
        .await,
        0,
        "{player}: a completion without its passed session"
    );
}
