//! An unreachable database: every request that meets it is 503 SERVICE_UNAVAILABLE with
//! `Retry-After` (never a 500, never a dropped connection, never a long wait), `GET
//! /ready` says so for load balancers, and nothing acknowledged is lost. The outage test
//! runs a PostgreSQL server of its own ([`tests::pg_cluster`]) and stops it under a load
//! of players answering, cleanly and then as a crash.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::RETRY_AFTER;
use serde_json::{Value, json};
use shared::db::PG_ACQUIRE_TIMEOUT;
use shared::error::DB_RETRY_AFTER_SECS;
use tests::pg_cluster::{Cluster, Stop};
use tests::{Engine, Service, TestApp, TestDatabase, both_engines};
use tokio::sync::Mutex;

both_engines!(ready_answers_200_while_the_database_answers);

async fn ready_answers_200_while_the_database_answers(app: TestApp) {
    for service in [Service::Player, Service::Admin] {
        let r = app
            .call(service, reqwest::Method::GET, "/ready", None, None)
            .await;
        assert_eq!(r.ok()["status"], "ready", "{service:?}");
        // Documented with its 503, as is the outage answer of every route that
        // reaches the database (the liveness probe never does).
        let doc = match service {
            Service::Player => "/v1/openapi.json",
            Service::Admin => "/v1/admin/openapi.json",
        };
        let doc = app
            .call(service, reqwest::Method::GET, doc, None, None)
            .await
            .body;
        let ready = &doc["paths"]["/ready"]["get"]["responses"];
        assert!(ready["200"].is_object(), "{ready}");
        assert!(
            ready["503"]["headers"]["Retry-After"].is_object(),
            "{ready}"
        );
        assert!(doc["paths"]["/health"]["get"]["responses"]["503"].is_null());
        let some_route = match service {
            Service::Player => &doc["paths"]["/v1/progress/summary"]["get"],
            Service::Admin => &doc["paths"]["/v1/admin/stats"]["get"],
        };
        assert!(
            some_route["responses"]["503"]["headers"]["Retry-After"].is_object(),
            "{some_route}"
        );
        assert_eq!(
            some_route["responses"]["503"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ErrorEnvelope"
        );
        assert!(doc["components"]["schemas"]["ErrorEnvelope"].is_object());
    }
}

const PLAYERS: usize = 8;
const TRACKS: [&str; 3] = ["world-geography", "science-basics", "history-culture"];
/// How long each outage lasts: longer than [`refusal_limit`], so a request that waited
/// for the database rather than being refused would show.
const DOWN_FOR: Duration = Duration::from_secs(6);
/// Answers acknowledged in each stretch of normal service before the next outage.
const ACKS_BETWEEN: usize = 40;
/// The longest any request may take, answered or refused: the pool's acquire timeout
/// and a margin for a busy test machine.
fn refusal_limit() -> Duration {
    PG_ACQUIRE_TIMEOUT + Duration::from_secs(2)
}

/// Where the load is: answers refused in each phase are counted there.
const UP: u8 = 0;
const DOWN_FAST: u8 = 1;
const DOWN_CRASH: u8 = 2;

/// What the load saw.
#[derive(Default)]
struct Seen {
    /// (session, question) → XP of every acknowledged answer.
    acked: HashMap<(String, String), i64>,
    /// Anything but a 200 or a proper 503.
    violations: Vec<String>,
}

struct Load {
    app: Arc<TestApp>,
    phase: AtomicU8,
    stop: AtomicBool,
    acks: AtomicUsize,
    /// 503s per phase the request was sent in.
    refused: [AtomicUsize; 3],
    seen: Mutex<Seen>,
}

impl Load {
    /// Sends the request `make` builds until it is answered 200 (a client retrying
    /// 503s, as `Retry-After` asks, after a short while here), checking every refusal;
    /// the body of the 200, or None after an answer that breaks the rule.
    async fn until_ok(
        &self,
        what: &str,
        make: impl Fn() -> reqwest::RequestBuilder,
    ) -> Option<Value> {
        loop {
            let phase = self.phase.load(Ordering::SeqCst);
            let started = Instant::now();
            let sent = make().timeout(Duration::from_secs(30)).send().await;
            let elapsed = started.elapsed();
            let resp = match sent {
                Ok(resp) => resp,
                Err(e) => {
                    self.violation(format!("{what}: transport error after {elapsed:?}: {e}"))
                        .await;
                    return None;
                }
            };
            let status = resp.status().as_u16();
            let retry_after = resp
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            let body: Value = resp.json().await.unwrap_or(Value::Null);
            let refused = status == 503
                && body["error"]["code"] == "SERVICE_UNAVAILABLE"
                && retry_after == Some(DB_RETRY_AFTER_SECS);
            if (status != 200 && !refused) || elapsed > refusal_limit() {
                self.violation(format!(
                    "{what}: {status} after {elapsed:?} (Retry-After {retry_after:?}): {body}"
                ))
                .await;
                return None;
            }
            if status == 200 {
                return Some(body);
            }
            self.refused[usize::from(phase)].fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn violation(&self, v: String) {
        let mut seen = self.seen.lock().await;
        if seen.violations.len() < 20 {
            seen.violations.push(v);
        }
    }

    /// One player answering challenge after challenge until told to stop.
    async fn play(&self, p: usize, token: String) {
        let client = &self.app.client;
        let mut n = 0usize;
        'play: for track in TRACKS.iter().cycle() {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            let url = self.app.url(
                Service::Player,
                &format!("/v1/challenges/next?trackId={track}"),
            );
            let Some(c) = self
                .until_ok("next challenge", || client.get(&url).bearer_auth(&token))
                .await
            else {
                return;
            };
            let c = &c["data"];
            let session = c["challengeId"].as_str().unwrap().to_string();
            let answered: Vec<&str> = c["answeredQuestionIds"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .collect();
            for q in c["questions"].as_array().unwrap() {
                if self.stop.load(Ordering::SeqCst) {
                    break 'play;
                }
                let question = q["question"]["id"].as_str().unwrap();
                if answered.contains(&question) {
                    continue;
                }
                let options = q["question"]["options"].as_array().unwrap();
                n += 1;
                let body = json!({
                    "challengeId": session,
                    "questionId": question,
                    "selectedOptionId": options[(p + n) % options.len()]["id"],
                    "submitRequestId": format!("outage-{p}-{n}"),
                });
                let url = self.app.url(Service::Player, "/v1/challenges/answer");
                let Some(a) = self
                    .until_ok("answer", || {
                        client.post(&url).bearer_auth(&token).json(&body)
                    })
                    .await
                else {
                    return;
                };
                let xp = a["data"]["xpDelta"].as_i64().unwrap();
                self.seen
                    .lock()
                    .await
                    .acked
                    .insert((session.clone(), question.to_string()), xp);
                self.acks.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }

    /// Waits until `more` answers beyond `from` are acknowledged.
    async fn wait_acks(&self, from: usize, more: usize) -> usize {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let acks = self.acks.load(Ordering::SeqCst);
            if acks >= from + more {
                return acks;
            }
            let violations = &self.seen.lock().await.violations;
            // a player stops at its first violation: no use waiting for it
            assert!(violations.is_empty(), "{violations:#?}");
            assert!(
                Instant::now() < deadline,
                "only {} answers acknowledged",
                acks - from
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// `GET /ready` of one app: its status and whether it came with `Retry-After`, checked
/// to answer within the readiness bound.
async fn ready_of(app: &TestApp, service: Service) -> (u16, bool) {
    let started = Instant::now();
    let r = app
        .client
        .get(app.url(service, "/ready"))
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .unwrap();
    assert!(
        started.elapsed() <= shared::http::READY_TIMEOUT + Duration::from_secs(2),
        "/ready took {:?}",
        started.elapsed()
    );
    (r.status().as_u16(), r.headers().contains_key(RETRY_AFTER))
}

/// `GET /ready` of both apps at once.
async fn ready(app: &TestApp) -> [(u16, bool); 2] {
    let (player, admin) = tokio::join!(
        ready_of(app, Service::Player),
        ready_of(app, Service::Admin)
    );
    [player, admin]
}

/// A player whose challenge this process remembers (see `shared::answer_cache`), so
/// its next answer is judged from memory: one write, no read.
struct Remembered {
    token: String,
    body: Value,
}

impl Remembered {
    /// Opens a challenge and answers its first question.
    async fn new(app: &TestApp) -> Self {
        let (_, token, _) = app.guest("outage-remembered").await;
        let c = app
            .get(
                &format!("/v1/challenges/next?trackId={}", TRACKS[0]),
                Some(&token),
            )
            .await
            .ok()
            .clone();
        let answer = |i: usize| {
            let q = &c["questions"][i]["question"];
            json!({
                "challengeId": c["challengeId"],
                "questionId": q["id"],
                "selectedOptionId": q["options"][0]["id"],
                "submitRequestId": format!("outage-remembered-{i}"),
            })
        };
        app.post("/v1/challenges/answer", answer(0), Some(&token))
            .await
            .ok();
        Self {
            token,
            body: answer(1),
        }
    }

    /// Its next answer once the pool holds no connection to hand out, so the write waits
    /// for one: refused after one acquire timeout, not after a second one for the read
    /// an answer judged from memory falls back to.
    async fn answer_while_down(&self, app: &TestApp) {
        let deadline = Instant::now() + DOWN_FOR;
        while app.ctx.db.pool_stats().iter().any(|(_, _, idle)| *idle > 0) {
            assert!(Instant::now() < deadline, "the pool kept idle connections");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let started = Instant::now();
        let r = app
            .post(
                "/v1/challenges/answer",
                self.body.clone(),
                Some(&self.token),
            )
            .await;
        r.assert_error(503, "SERVICE_UNAVAILABLE");
        assert!(
            started.elapsed() < PG_ACQUIRE_TIMEOUT + Duration::from_secs(1),
            "an answer judged from memory was refused after {:?}",
            started.elapsed()
        );
    }

    /// The same answer once the database is back: accepted.
    async fn answer_again(&self, app: &TestApp) {
        app.post(
            "/v1/challenges/answer",
            self.body.clone(),
            Some(&self.token),
        )
        .await
        .ok();
    }
}

/// While the database is down: `/ready` is 503 with `Retry-After`, the console's pages
/// too, and an answer judged from memory is refused in time; the outage lasts
/// [`DOWN_FOR`] from `since`.
async fn while_down(
    app: &TestApp,
    console: &mut tests::console::Console,
    remembered: &Remembered,
    since: Instant,
) {
    // `/ready` answers from a check of the last second (one check serves every caller)
    let ready_after_reuse = async {
        tokio::time::sleep(shared::http::READY_REUSE + Duration::from_millis(100)).await;
        ready(app).await
    };
    let (ready, page, ()) = tokio::join!(
        ready_after_reuse,
        console.get("/console/questions"),
        remembered.answer_while_down(app)
    );
    for (status, retry_after) in ready {
        assert_eq!((status, retry_after), (503, true), "/ready while down");
    }
    page.assert_status(503);
    assert_eq!(
        page.header("retry-after"),
        Some(DB_RETRY_AFTER_SECS.to_string().as_str())
    );
    page.assert_contains("SERVICE_UNAVAILABLE");
    let left = DOWN_FOR.saturating_sub(since.elapsed());
    tokio::time::sleep(left).await;
}

/// Once the server is back: `/ready` turns 200 on both apps within a few seconds.
async fn until_ready(app: &TestApp) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if ready(app).await.iter().all(|(status, _)| *status == 200) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "/ready stayed 503 after the restart"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs a `pg_ctl` call off the runtime's threads (the load keeps running).
async fn blocking(f: impl FnOnce() + Send + 'static) {
    tokio::task::spawn_blocking(f).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_outages_answer_503_and_lose_nothing() {
    // Declared first, so dropped last (after the apps), also when the test fails.
    let cluster = Arc::new(Cluster::start_new());
    let database = TestDatabase::existing(Engine::Postgres, cluster.url());
    let app = Arc::new(
        TestApp::spawn_on(
            database,
            &[
                ("DEMO_CONTENT", "true".to_string()),
                // so that no answer is refused for want of hearts or attempts
                ("RULE_MAX_HEARTS", "1000000".to_string()),
                ("RULE_DAILY_ATTEMPTS", "1000000".to_string()),
            ],
        )
        .await,
    );
    let mut console = app.console();
    console
        .sign_in(&app.admin_username, &app.admin_password)
        .await;
    console.get("/console/questions").await.assert_status(200);

    let mut remembered = Vec::new();
    for _ in 0..2 {
        remembered.push(Remembered::new(&app).await);
    }
    let mut players = Vec::new();
    for p in 0..PLAYERS {
        players.push(app.guest(&format!("outage-{p}")).await);
    }
    let load = Arc::new(Load {
        app: Arc::clone(&app),
        phase: AtomicU8::new(UP),
        stop: AtomicBool::new(false),
        acks: AtomicUsize::new(0),
        refused: Default::default(),
        seen: Mutex::new(Seen::default()),
    });
    let mut workers = tokio::task::JoinSet::new();
    for (p, (_, token, _)) in players.iter().enumerate() {
        let (load, token) = (Arc::clone(&load), token.clone());
        workers.spawn(async move { load.play(p, token).await });
    }

    // a clean stop, then a crash, each under load and each followed by normal service
    let mut acks = load.wait_acks(0, ACKS_BETWEEN).await;
    let outages = [(Stop::Fast, DOWN_FAST), (Stop::Immediate, DOWN_CRASH)];
    for ((stop, phase), remembered) in outages.into_iter().zip(&remembered) {
        let since = Instant::now();
        load.phase.store(phase, Ordering::SeqCst);
        let c = Arc::clone(&cluster);
        blocking(move || c.stop(stop)).await;
        while_down(&app, &mut console, remembered, since).await;
        let c = Arc::clone(&cluster);
        blocking(move || c.start()).await;
        until_ready(&app).await;
        remembered.answer_again(&app).await;
        load.phase.store(UP, Ordering::SeqCst);
        acks = load.wait_acks(acks, ACKS_BETWEEN).await;
    }
    load.stop.store(true, Ordering::SeqCst);
    while let Some(done) = workers.join_next().await {
        done.unwrap();
    }

    let seen = load.seen.lock().await;
    eprintln!(
        "outage test: {} answers acknowledged; 503s while up {}, during the fast stop {}, during the crash {}",
        seen.acked.len(),
        load.refused[usize::from(UP)].load(Ordering::SeqCst),
        load.refused[usize::from(DOWN_FAST)].load(Ordering::SeqCst),
        load.refused[usize::from(DOWN_CRASH)].load(Ordering::SeqCst),
    );
    assert!(seen.violations.is_empty(), "{:#?}", seen.violations);
    for (phase, name) in [(DOWN_FAST, "fast stop"), (DOWN_CRASH, "crash")] {
        let refused = load.refused[usize::from(phase)].load(Ordering::SeqCst);
        assert!(refused > 0, "no request met the {name}");
    }

    // every acknowledged answer is stored as it was answered
    for ((session, question), xp) in &seen.acked {
        let stored = app
            .scalar(
                "SELECT CAST(xp_delta AS BIGINT) FROM challenge_answers WHERE session_id = $1 AND question_id = $2",
                &[session.as_str(), question.as_str()],
            )
            .await;
        assert_eq!(stored, *xp, "answer {session}:{question}");
    }
    // and each player's records agree: one ledger row per answer, the XP of the
    // progress row, the answers, the ledger and the weekly board, the sessions'
    // counters
    for (id, token, _) in &players {
        let arg = [id.as_str()];
        let of = |sql: &'static str| app.scalar(sql, &arg);
        let answers = of("SELECT count(*) FROM challenge_answers WHERE player_id = $1").await;
        assert_eq!(
            answers,
            of("SELECT count(*) FROM reward_ledger WHERE player_id = $1").await,
            "{id}: one ledger row per answer"
        );
        let xp = of("SELECT CAST(xp AS BIGINT) FROM player_progress WHERE player_id = $1").await;
        for sql in [
            "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM challenge_answers WHERE player_id = $1",
            "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
            "SELECT CAST(COALESCE(SUM(xp), 0) AS BIGINT) FROM weekly_xp WHERE player_id = $1 AND board = 'topic:all'",
        ] {
            assert_eq!(xp, of(sql).await, "{id}: XP against {sql}");
        }
        assert_eq!(
            of("SELECT count(*) FROM challenge_sessions s WHERE s.player_id = $1 AND (
                   s.answered_count <> (SELECT count(*) FROM challenge_answers a WHERE a.session_id = s.id)
                OR s.correct_count <> (SELECT count(*) FROM challenge_answers a WHERE a.session_id = s.id AND a.is_correct = TRUE))")
            .await,
            0,
            "{id}: session counters against the answers"
        );
        // served normally again, and the API agrees with the ledger
        let summary = app.get("/v1/progress/summary", Some(token)).await;
        assert_eq!(summary.ok()["xp"], xp, "{id}");
    }
    assert!(seen.acked.len() >= 3 * ACKS_BETWEEN);
}
