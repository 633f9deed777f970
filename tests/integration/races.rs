//! Races: 200 concurrent duplicates of every granting or deducting request (a first
//! answer, a knowledge-card view, an ad completion, a link replay, a check-in) grant or
//! deduct exactly once, and the reward ledger still balances the player's resources.
//!
//! What the ledger covers (`services::progress::record`): every answer, card view and ad
//! recovery writes one row with its XP, heart, attempt and coin deltas and resource
//! snapshots before and after. Heart regeneration and the daily attempt reset are not
//! ledger rows, and check-ins write none (they change no resource the ledger tracks). So
//! within one Beijing day and before any heart regenerates (a test runs in well under
//! the 30-minute interval on a clock that only moves in real time), for a player that
//! was never merged into:
//! `xp = Σ xp_delta`, `hearts = maxHearts + Σ hearts_delta`,
//! `dailyAttemptsLeft = dailyAttemptsMax + Σ attempts_delta`, `coins = Σ coins_delta`,
//! and every row's deltas are the difference of its snapshots. `xp = Σ xp_delta` holds
//! for every account at all times, merges included (docs/decisions.md, "Merge").

use futures::future::join_all;
use serde_json::{Value, json};
use tests::apple::AppleFake;
use tests::{Engine, Resp, TestApp, both_engines_raw, both_engines_with};

/// Concurrent duplicates per race.
const RACE: usize = 200;
const TRACK: &str = "world-geography";

/// The demo, with the per-token write bucket out of the way: each race sends hundreds of
/// one token's requests at once, which the bucket (tested in `floods`) would otherwise
/// mostly refuse before they race.
async fn racing(engine: Engine) -> TestApp {
    TestApp::spawn_with(engine, &racing_vars()).await
}

fn racing_vars() -> Vec<(&'static str, String)> {
    vec![
        ("DEMO_CONTENT", "true".to_string()),
        ("RATE_LIMIT_PLAYER_WRITES_PER_MINUTE", "1000000".to_string()),
    ]
}

both_engines_with!(with_pgbouncer; racing;
    first_answers_deduct_one_attempt,
    answers_keep_concurrent_rewards,
    card_views_grant_once,
    ad_completions_grant_once,
    check_ins_count_once,
);
both_engines_raw!(with_pgbouncer; link_replays_merge_once);

struct Player<'a> {
    app: &'a TestApp,
    id: String,
    token: String,
}

impl<'a> Player<'a> {
    async fn guest(app: &'a TestApp, device: &str) -> Self {
        let (id, token, _) = app.guest(device).await;
        Self { app, id, token }
    }
    async fn post(&self, path: &str, body: Value) -> Resp {
        self.app.post(path, body, Some(&self.token)).await
    }
    async fn summary(&self) -> Value {
        self.app
            .get("/v1/progress/summary", Some(&self.token))
            .await
            .ok()
            .clone()
    }
    async fn next(&self, track: &str) -> Value {
        self.app
            .get(
                &format!("/v1/challenges/next?trackId={track}"),
                Some(&self.token),
            )
            .await
            .ok()
            .clone()
    }
    /// The correct option id of question `i` (from the database: the API never tells).
    async fn correct(&self, c: &Value, i: usize) -> String {
        self.app
            .text(
                "SELECT correct_option_id FROM challenge_session_questions WHERE session_id = $1 AND question_id = $2",
                &[c["challengeId"].as_str().unwrap(), c["questions"][i]["question"]["id"].as_str().unwrap()],
            )
            .await
    }
    async fn wrong(&self, c: &Value, i: usize) -> String {
        let correct = self.correct(c, i).await;
        c["questions"][i]["question"]["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .find(|id| *id != correct)
            .unwrap()
    }
    async fn answer(&self, c: &Value, i: usize, correct: bool) -> Value {
        let option = if correct {
            self.correct(c, i).await
        } else {
            self.wrong(c, i).await
        };
        self.post("/v1/challenges/answer", answer_body(c, i, &option))
            .await
            .ok()
            .clone()
    }
}

fn answer_body(c: &Value, i: usize, option: &str) -> Value {
    json!({
        "challengeId": c["challengeId"],
        "questionId": c["questions"][i]["question"]["id"],
        "selectedOptionId": option,
    })
}

/// Fires `RACE` copies of one request at once and returns every answer.
async fn race<F, Fut>(make: F) -> Vec<Resp>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Resp>,
{
    join_all((0..RACE).map(make)).await
}

#[track_caller]
fn all_ok(results: &[Resp]) -> Vec<Value> {
    let bad: Vec<String> = results
        .iter()
        .filter(|r| r.status != 200)
        .map(|r| format!("{} {}", r.status, r.body))
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {} failed: {bad:?}",
        bad.len(),
        results.len()
    );
    results.iter().map(|r| r.ok().clone()).collect()
}

#[track_caller]
fn all_equal(values: &[Value]) {
    if let Some(first) = values.first() {
        for v in values {
            assert_eq!(v, first);
        }
    }
}

/// One ledger row: (key, xp, hearts, attempts, coins, before, after).
type LedgerRow = (String, i64, i64, i64, i64, Option<String>, Option<String>);

async fn ledger(app: &TestApp, player: &str) -> Vec<LedgerRow> {
    shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as::<_, LedgerRow>(
            "SELECT idempotency_key, CAST(xp_delta AS BIGINT), CAST(hearts_delta AS BIGINT),
                    CAST(attempts_delta AS BIGINT), CAST(coins_delta AS BIGINT),
                    before_snapshot, after_snapshot
             FROM reward_ledger WHERE player_id = $1",
        )
        .bind(player)
        .fetch_all(ex)
        .await
        .unwrap()
    })
}

/// XP = Σ xp_delta (every account, merged or not).
async fn assert_xp_balances(app: &TestApp, player: &str) {
    let rows = ledger(app, player).await;
    let xp: i64 = rows.iter().map(|r| r.1).sum();
    assert_eq!(
        app.scalar(
            "SELECT CAST(xp AS BIGINT) FROM player_progress WHERE player_id = $1",
            &[player]
        )
        .await,
        xp,
        "XP against the ledger of {player}"
    );
}

/// Every resource the ledger records balances (see the module comment), and the week's
/// all-players board holds the XP; `summary` is the player's current `/progress/summary`.
async fn assert_ledger_balances(app: &TestApp, player: &str, summary: &Value) {
    assert_xp_balances(app, player).await;
    let rows = ledger(app, player).await;
    let xp: i64 = rows.iter().map(|r| r.1).sum();
    let weekly = app
        .scalar(
            "SELECT CAST(COALESCE(SUM(xp), 0) AS BIGINT) FROM weekly_xp WHERE player_id = $1 AND board = 'topic:all'",
            &[player],
        )
        .await;
    assert_eq!(weekly, xp, "weekly XP against the ledger of {player}");
    let sum = |f: fn(&LedgerRow) -> i64| rows.iter().map(f).sum::<i64>();
    assert_eq!(summary["xp"], sum(|r| r.1), "{summary}");
    assert_eq!(
        summary["hearts"].as_i64().unwrap(),
        summary["maxHearts"].as_i64().unwrap() + sum(|r| r.2),
        "hearts against the ledger: {summary}"
    );
    assert_eq!(
        summary["dailyAttemptsLeft"].as_i64().unwrap(),
        summary["dailyAttemptsMax"].as_i64().unwrap() + sum(|r| r.3),
        "attempts against the ledger: {summary}"
    );
    let coins = app
        .scalar(
            "SELECT CAST(coins_balance AS BIGINT) FROM wallets WHERE player_id = $1",
            &[player],
        )
        .await;
    assert_eq!(coins, sum(|r| r.4), "coins against the ledger");
    for (key, xp, hearts, attempts, _, before, after) in &rows {
        let before: Value = serde_json::from_str(before.as_deref().unwrap()).unwrap();
        let after: Value = serde_json::from_str(after.as_deref().unwrap()).unwrap();
        let delta = |f: &str| after[f].as_i64().unwrap() - before[f].as_i64().unwrap();
        assert_eq!(
            (delta("xp"), delta("hearts"), delta("attemptsLeft")),
            (*xp, *hearts, *attempts),
            "{key}: snapshots {before} → {after}"
        );
    }
}

async fn ledger_rows_with_key(app: &TestApp, key: &str) -> i64 {
    app.scalar(
        "SELECT count(*) FROM reward_ledger WHERE idempotency_key = $1",
        &[key],
    )
    .await
}

async fn first_answers_deduct_one_attempt(app: TestApp) {
    let p = Player::guest(&app, "race-answer").await;
    // 200 identical first answers of a fresh session: judged once, one attempt
    let c = p.next(TRACK).await;
    let wrong = p.wrong(&c, 0).await;
    let body = answer_body(&c, 0, &wrong);
    let answers = all_ok(&race(|_| p.post("/v1/challenges/answer", body.clone())).await);
    let judged: Vec<Value> = answers
        .iter()
        .map(|a| json!([a["answerState"], a["xpDelta"], a["correctOptionId"]]))
        .collect();
    all_equal(&judged);
    assert_eq!(answers[0]["answerState"], "wrong");
    let s = p.summary().await;
    assert_eq!(
        (s["dailyAttemptsLeft"].clone(), s["hearts"].clone()),
        (json!(9), json!(4))
    );
    let session = c["challengeId"].as_str().unwrap();
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM challenge_answers WHERE session_id = $1",
            &[session]
        )
        .await,
        1
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM reward_ledger WHERE player_id = $1",
            &[&p.id]
        )
        .await,
        1
    );
    assert_ledger_balances(&app, &p.id, &s).await;

    // 200 racing answers spread over the five questions of a fresh session of a player
    // with every heart (up to five may be judged wrong), with the right and a wrong
    // option mixed and one submitRequestId per question: one attempt for the session,
    // one judgement per question, each answer the first
    let p = Player::guest(&app, "race-answer-spread").await;
    let c = p.next("science-basics").await;
    let mut options = Vec::new();
    for i in 0..5 {
        options.push((p.correct(&c, i).await, p.wrong(&c, i).await));
    }
    let results = race(|n| {
        let q = n % 5;
        let option = if n % 2 == 0 {
            &options[q].0
        } else {
            &options[q].1
        };
        let mut body = answer_body(&c, q, option);
        body["submitRequestId"] = json!(format!("race-{q}"));
        p.post("/v1/challenges/answer", body)
    })
    .await;
    let answers = all_ok(&results);
    let mut wrong_judged = 0;
    let mut xp = 0;
    for q in 0..5 {
        let of_q: Vec<Value> = answers
            .iter()
            .enumerate()
            .filter(|(n, _)| n % 5 == q)
            .map(|(_, a)| json!([a["answerState"], a["xpDelta"]]))
            .collect();
        all_equal(&of_q);
        if of_q[0][0] == "wrong" {
            wrong_judged += 1;
        }
        xp += of_q[0][1].as_i64().unwrap();
    }
    let session = c["challengeId"].as_str().unwrap();
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM challenge_answers WHERE session_id = $1",
            &[session]
        )
        .await,
        5
    );
    assert_eq!(
        app.scalar(
            "SELECT CAST(answered_count AS BIGINT) FROM challenge_sessions WHERE id = $1",
            &[session]
        )
        .await,
        5
    );
    let s = p.summary().await;
    assert_eq!(s["dailyAttemptsLeft"], 9, "one attempt per session");
    assert_eq!(s["hearts"], 5 - wrong_judged);
    assert_eq!(s["xp"], xp);
    assert_ledger_balances(&app, &p.id, &s).await;
}

/// An answer is judged on a read and written only if the player's progress is still as
/// read: card views granting XP to the same player at the same time are neither lost
/// under the answers' writes nor granted twice, and the ledger balances.
async fn answers_keep_concurrent_rewards(app: TestApp) {
    let p = Player::guest(&app, "race-answer-rewards").await;
    let c = p.next("science-basics").await;
    let mut options = Vec::new();
    for i in 0..5 {
        options.push(if i % 2 == 0 {
            p.correct(&c, i).await
        } else {
            p.wrong(&c, i).await
        });
    }
    let cards: Vec<String> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_scalar::<_, String>("SELECT id FROM knowledge_cards ORDER BY id LIMIT 60")
            .fetch_all(ex)
            .await
            .unwrap()
    });
    assert_eq!(cards.len(), 60, "the demo content has the cards");
    // only cards shown to the player pay: their questions are in a challenge of theirs
    app.exec(
        "INSERT INTO challenge_sessions (id, player_id, track_id, node_id, status, created_at)
         VALUES ('race-cards', $1, 'science-basics', 'race-cards-node', 'pending', 0)",
        &[&p.id],
    )
    .await;
    app.exec(
        "INSERT INTO challenge_session_questions (session_id, position, question_id, options, correct_option_id)
         SELECT 'race-cards', ROW_NUMBER() OVER (ORDER BY id), question_id, '[]', 'x'
         FROM (SELECT id, question_id FROM knowledge_cards ORDER BY id LIMIT 60) k",
        &[],
    )
    .await;
    let views: Vec<String> = cards
        .iter()
        .map(|card| format!("/v1/challenges/knowledge-cards/{card}/view"))
        .collect();
    // five answers and sixty first views of distinct cards, all at once
    let results = join_all((0..65).map(|n| {
        if n < 5 {
            p.post("/v1/challenges/answer", answer_body(&c, n, &options[n]))
        } else {
            p.post(&views[n - 5], json!({}))
        }
    }))
    .await;
    let answers = all_ok(&results);
    let answered_xp: i64 = answers[..5]
        .iter()
        .map(|a| a["xpDelta"].as_i64().unwrap())
        .sum();
    assert_eq!(answered_xp, 3 * 10, "three right answers");
    let s = p.summary().await;
    // 60 first card views of 3 XP each, the first ever view's 15 once
    assert_eq!(s["xp"], answered_xp + 60 * 3 + 15, "{s}");
    assert_eq!(s["hearts"], 5 - 2, "two wrong answers");
    assert_eq!(s["dailyAttemptsLeft"], 9, "one attempt per session");
    assert_ledger_balances(&app, &p.id, &s).await;
}

async fn card_views_grant_once(app: TestApp) {
    let p = Player::guest(&app, "race-card").await;
    let c = p.next(TRACK).await;
    let card = p.answer(&c, 0, true).await["knowledgeCard"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/v1/challenges/knowledge-cards/{card}/view");
    let views = all_ok(&race(|_| p.post(&path, json!({ "challengeId": c["challengeId"] }))).await);
    let granted: Vec<&Value> = views
        .iter()
        .flat_map(|v| v["rewards"].as_array().unwrap())
        .collect();
    let amounts: Vec<i64> = granted
        .iter()
        .map(|r| r["amount"].as_i64().unwrap())
        .collect();
    assert_eq!(amounts.len(), 2, "{granted:?}");
    assert_eq!(amounts.iter().sum::<i64>(), 3 + 15);
    assert!(
        views
            .iter()
            .filter(|v| !v["rewards"].as_array().unwrap().is_empty())
            .count()
            == 1,
        "both rewards in one answer"
    );
    assert_eq!(
        ledger_rows_with_key(&app, &format!("kcview:{}:{card}", p.id)).await,
        1
    );
    assert_eq!(
        ledger_rows_with_key(&app, &format!("kcfirst:{}", p.id)).await,
        1
    );
    // another card concurrently with repeats of the first: the 3 XP of the second once
    let c2 = p.next(TRACK).await;
    let card2 = p.answer(&c2, 1, true).await["knowledgeCard"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path2 = format!("/v1/challenges/knowledge-cards/{card2}/view");
    let views = all_ok(
        &race(|n| {
            let path = if n % 2 == 0 { &path } else { &path2 };
            p.post(path, json!({}))
        })
        .await,
    );
    let granted: i64 = views
        .iter()
        .flat_map(|v| v["rewards"].as_array().unwrap())
        .map(|r| r["amount"].as_i64().unwrap())
        .sum();
    assert_eq!(granted, 3);
    let s = p.summary().await;
    assert_eq!(s["xp"], 10 + 18 + 10 + 3);
    assert_ledger_balances(&app, &p.id, &s).await;
}

async fn open_ad(p: &Player<'_>, kind: &str, crid: &str) -> Resp {
    p.post(
        "/v1/rewards/ad-recovery/session",
        json!({"type": kind, "clientRequestId": crid, "platform": "android", "adProvider": "mock"}),
    )
    .await
}

async fn complete_ad(p: &Player<'_>, session: &str) -> Resp {
    p.post(
        "/v1/rewards/ad-recovery/complete",
        json!({"sessionId": session, "clientRequestId": "done", "adProvider": "mock", "completedAt": "2026-11-18T04:01:00Z"}),
    )
    .await
}

async fn ad_completions_grant_once(app: TestApp) {
    let p = Player::guest(&app, "race-ads").await;
    // two hearts lost through the game, so the ledger holds every change
    let c = p.next(TRACK).await;
    p.answer(&c, 0, false).await;
    p.answer(&c, 1, false).await;
    assert_eq!(p.summary().await["hearts"], 3);

    // 200 concurrent opens with one clientRequestId: one session
    let opened = all_ok(&race(|_| open_ad(&p, "hearts", "race-open")).await);
    all_equal(&opened);
    let session = opened[0]["sessionId"].as_str().unwrap().to_string();
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM ad_sessions WHERE player_id = $1",
            &[&p.id]
        )
        .await,
        1
    );
    // 200 concurrent completions: one heart, every answer the first
    let done = all_ok(&race(|_| complete_ad(&p, &session)).await);
    all_equal(&done);
    assert_eq!(done[0]["status"], "completed");
    assert_eq!(done[0]["reward"]["heartsDelta"], 1);
    assert_eq!(
        ledger_rows_with_key(&app, &format!("ad_recovery:{session}")).await,
        1
    );
    let s = p.summary().await;
    assert_eq!(s["hearts"], 4);
    assert_ledger_balances(&app, &p.id, &s).await;

    // a bonus attempt: one
    let bonus = open_ad(&p, "bonusAttempts", "race-bonus")
        .await
        .ok()
        .clone();
    let bonus = bonus["sessionId"].as_str().unwrap().to_string();
    let done = all_ok(&race(|_| complete_ad(&p, &bonus)).await);
    all_equal(&done);
    assert_eq!(done[0]["reward"]["dailyAttemptsDelta"], 1);
    let s = p.summary().await;
    assert_eq!(s["dailyAttemptsLeft"], 10 - 1 + 1);
    assert_ledger_balances(&app, &p.id, &s).await;

    // two different sessions of one kind completed at once, 100 copies each: two grants
    let a = open_ad(&p, "hearts", "race-a").await.ok()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let b = open_ad(&p, "hearts", "race-b").await.ok()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let done = all_ok(&race(|n| complete_ad(&p, if n % 2 == 0 { &a } else { &b })).await);
    assert!(done.iter().all(|d| d["status"] == "completed"));
    let s = p.summary().await;
    assert_eq!(s["hearts"], 5, "4 + one heart, capped at max by the second");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM ad_sessions WHERE player_id = $1 AND type = 'hearts' AND status = 'completed'",
            &[&p.id]
        )
        .await,
        3
    );
    assert_ledger_balances(&app, &p.id, &s).await;
}

async fn check_ins_count_once(app: TestApp) {
    let p = Player::guest(&app, "race-checkin").await;
    let answers = all_ok(&race(|_| p.post("/v1/progress/check-in", json!({}))).await);
    assert!(answers.iter().all(|a| a["checkInDays"] == 1), "{answers:?}");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM player_check_ins WHERE player_id = $1",
            &[&p.id]
        )
        .await,
        1
    );
    let s = p.summary().await;
    assert_eq!(s["checkInDays"], 1);
    // check-ins write no ledger row; everything else still balances
    assert_eq!(ledger(&app, &p.id).await.len(), 0);
    assert_ledger_balances(&app, &p.id, &s).await;
    // the next Beijing day counts once more, racing or not
    app.clock.set("2026-11-18T16:00:00Z".parse().unwrap());
    let (_, token, _) = app.guest("race-checkin").await;
    let p = Player { token, ..p };
    let answers = all_ok(&race(|_| p.post("/v1/progress/check-in", json!({}))).await);
    assert!(answers.iter().all(|a| a["checkInDays"] == 2));
    assert_eq!(p.summary().await["checkInDays"], 2);
}

async fn link_replays_merge_once(engine: Engine) {
    let apple = AppleFake::start("apple-race").await;
    let mut vars = racing_vars();
    vars.extend(apple.vars());
    let app = TestApp::spawn_with(engine, &vars).await;
    let identity = apple.token("apple-race-sub");
    // the account: one correct answer and a card view (its first-card reward)
    let r = app
        .post(
            "/v1/auth/ios_vendor",
            json!({ "identityToken": identity }),
            None,
        )
        .await;
    let account = Player {
        app: &app,
        id: r.ok()["user"]["id"].as_str().unwrap().to_string(),
        token: r.ok()["tokens"]["accessToken"]
            .as_str()
            .unwrap()
            .to_string(),
    };
    let c = account.next(TRACK).await;
    let card = account.answer(&c, 0, true).await["knowledgeCard"]["id"].clone();
    account
        .post(
            &format!(
                "/v1/challenges/knowledge-cards/{}/view",
                card.as_str().unwrap()
            ),
            json!({}),
        )
        .await
        .ok();
    let account_xp = account.summary().await["xp"].as_i64().unwrap();
    assert_eq!(account_xp, 10 + 3 + 15);
    // the guest: two answers (one right) and a card view, so its first-card reward
    // conflicts with the account's
    let guest = Player::guest(&app, "race-link-guest").await;
    let c = guest.next("history-culture").await;
    let card = guest.answer(&c, 0, true).await["knowledgeCard"]["id"].clone();
    guest.answer(&c, 1, false).await;
    guest
        .post(
            &format!(
                "/v1/challenges/knowledge-cards/{}/view",
                card.as_str().unwrap()
            ),
            json!({}),
        )
        .await
        .ok();
    assert_eq!(guest.summary().await["xp"], 10 + 3 + 15);

    let body = json!({
        "provider": "ios_vendor",
        "credential": { "identityToken": identity },
        "mergePolicy": "server_account_first",
        "clientMigrationId": "race-migration",
    });
    let linked = all_ok(&race(|_| guest.post("/v1/auth/link", body.clone())).await);
    let summaries: Vec<Value> = linked
        .iter()
        .map(|l| l["migrationSummary"].clone())
        .collect();
    all_equal(&summaries);
    assert!(
        linked
            .iter()
            .all(|l| l["session"]["user"]["id"] == account.id.as_str())
    );
    let summary = &summaries[0];
    assert_eq!(summary["imported"]["answers"], 2, "{summary}");
    assert_eq!(summary["imported"]["rewards"], 3, "{summary}");
    assert_eq!(summary["imported"]["xp"], 10 + 3, "{summary}");
    assert_eq!(summary["skipped"]["rewards"], 1, "{summary}");
    assert_eq!(
        summary["conflicts"].as_array().unwrap().len(),
        1,
        "{summary}"
    );
    // merged once: the account holds its own and the guest's moved XP, exactly
    assert_eq!(
        app.scalar(
            "SELECT CAST(xp AS BIGINT) FROM player_progress WHERE player_id = $1",
            &[&account.id]
        )
        .await,
        account_xp + 13
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM challenge_answers WHERE player_id = $1",
            &[&account.id]
        )
        .await,
        3
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM idempotency_records WHERE key = $1",
            &["race-migration"]
        )
        .await,
        1
    );
    assert_xp_balances(&app, &account.id).await;
    assert_xp_balances(&app, &guest.id).await;
    // every session handed out works
    let token = linked[RACE - 1]["session"]["tokens"]["accessToken"]
        .as_str()
        .unwrap();
    assert_eq!(
        app.get("/v1/progress/summary", Some(token)).await.ok()["xp"],
        account_xp + 13
    );
}
