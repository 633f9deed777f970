//! Question statistics through HTTP: sixty players play a track of exactly five
//! questions with scripted picks, times and card views (300 answers); after the
//! `question_stats` job every number and flag of `/v1/admin/questions/{id}/stats` and of
//! the dashboard's days is checked exactly. Also: a run counts every answer once (again,
//! later, racing), answers still settling wait for the next run, and
//! `QUESTION_AUTO_REVIEW` sends a newly miskeyed question back to review, audited.

use serde_json::{Value, json};
use shared::metrics::Metrics;
use shared::services::jobs::{self, Job};
use shared::services::question_stats::SETTLE_MS;
use tests::apple::AppleFake;
use tests::{Engine, TestApp, both_engines_raw, both_engines_with};

both_engines_with!(
    demo;
    every_number_and_flag_is_exact,
    each_answer_counts_once,
    a_run_that_dies_after_counting_is_derived_by_the_next
);
both_engines_raw!(a_merged_guests_answers_count_for_the_account);
both_engines_with!(auto_review; a_miskeyed_question_goes_back_to_review);

const TRACK: &str = "world-geography";
const PLAYERS: usize = 60;

async fn demo(engine: Engine) -> TestApp {
    TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("RATE_LIMIT_AUTH_PER_MINUTE", "100000".to_string()),
        ],
    )
    .await
}

async fn auto_review(engine: Engine) -> TestApp {
    TestApp::spawn_with(
        engine,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("RATE_LIMIT_AUTH_PER_MINUTE", "100000".to_string()),
            ("QUESTION_AUTO_REVIEW", "true".to_string()),
        ],
    )
    .await
}

/// A published question of the track: its id, answer and distractors.
struct Question {
    id: String,
    answer: String,
    distractors: Vec<String>,
}

/// Leaves exactly five published questions (of the track, each with three or more
/// distractors), so every challenge serves all five; the first is the one under study.
async fn five_questions(app: &TestApp) -> Vec<Question> {
    let track = app
        .text("SELECT id FROM categories WHERE slug = $1", &[TRACK])
        .await;
    let rows: Vec<(String, String, String)> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as(
            "SELECT id, correct_answer, distractors FROM questions
             WHERE category_id = $1 AND status = 'published' ORDER BY id",
        )
        .bind(&track)
        .fetch_all(ex)
        .await
        .unwrap()
    });
    let chosen: Vec<Question> = rows
        .into_iter()
        .map(|(id, answer, d)| Question {
            id,
            answer,
            distractors: serde_json::from_str(&d).unwrap(),
        })
        .filter(|q| q.distractors.len() >= 3)
        .take(5)
        .collect();
    assert_eq!(chosen.len(), 5);
    let keep: Vec<&str> = chosen.iter().map(|q| q.id.as_str()).collect();
    app.exec(
        "UPDATE questions SET status = 'archived'
         WHERE status = 'published' AND id NOT IN ($1, $2, $3, $4, $5)",
        &keep,
    )
    .await;
    chosen
}

/// What player `i` picks on question `q` (the first question is the one under study).
fn pick(i: usize, studied: bool, q: &Question) -> &str {
    if studied {
        match i {
            0..20 => &q.answer,
            20..45 => &q.distractors[0],
            45..59 => &q.distractors[1],
            _ => &q.distractors[2],
        }
    } else if i >= 20 {
        &q.answer
    } else {
        &q.distractors[0]
    }
}

/// Player `i` (device `prefix-i`) plays one challenge of the five questions; the first
/// ten open the studied question's card.
async fn play(app: &TestApp, prefix: &str, i: usize, questions: &[Question]) {
    let (_, token, _) = app.guest(&format!("{prefix}-{i}")).await;
    play_as(app, &token, i, questions).await;
}

/// The player of `token` plays as player `i` would.
async fn play_as(app: &TestApp, token: &str, i: usize, questions: &[Question]) {
    let token = token.to_string();
    let c: Value = app
        .get(
            &format!("/v1/challenges/next?trackId={TRACK}"),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    let served = c["questions"].as_array().unwrap();
    assert_eq!(served.len(), 5);
    for s in served {
        let id = s["question"]["id"].as_str().unwrap();
        let q = questions.iter().find(|q| q.id == id).unwrap();
        let studied = q.id == questions[0].id;
        let text = pick(i, studied, q);
        let option = s["question"]["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["text"] == text)
            .unwrap_or_else(|| panic!("no option {text} in {s}"));
        let time_ms = if studied { 1000 + 10 * i as i64 } else { 2000 };
        // at a reader's pace: an answer that raises a fair-play signal counts in no
        // statistic
        app.clock.advance(chrono::Duration::seconds(1));
        let answer = app
            .post(
                "/v1/challenges/answer",
                json!({
                    "challengeId": c["challengeId"],
                    "questionId": id,
                    "selectedOptionId": option["id"],
                    "timeMs": time_ms,
                }),
                Some(&token),
            )
            .await;
        let card = answer.ok()["knowledgeCard"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        if studied && i < 10 {
            app.post(
                &format!("/v1/challenges/knowledge-cards/{card}/view"),
                json!({}),
                Some(&token),
            )
            .await
            .ok();
        }
    }
}

/// Runs the statistics job once the answers have settled.
async fn run_job(app: &TestApp, process: &str) -> bool {
    app.clock
        .advance(chrono::Duration::milliseconds(SETTLE_MS + 1000));
    let metrics = Metrics::new(app.ctx.db.clone());
    jobs::run(&app.ctx, process, Job::QuestionStats, &metrics.jobs()).await
}

async fn stats(app: &TestApp, token: &str, id: &str) -> Value {
    app.admin_get(&format!("/v1/admin/questions/{id}/stats"), Some(token))
        .await
        .ok()
        .clone()
}

fn close(v: &Value, expected: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"));
    assert!((got - expected).abs() < 1e-9, "{got} != {expected}");
}

async fn every_number_and_flag_is_exact(app: TestApp) {
    let (admin, _, _) = app.admin_login().await;
    let questions = five_questions(&app).await;
    let studied = &questions[0];
    // before any answer: zeros, nulls, every option listed
    let s = stats(&app, &admin, &studied.id).await;
    assert_eq!(s["attempts"], 0);
    assert_eq!(s["accuracy"], Value::Null);
    assert_eq!(s["computedAt"], Value::Null);
    assert_eq!(
        s["options"].as_array().unwrap().len(),
        1 + studied.distractors.len()
    );
    for i in 0..PLAYERS {
        play(&app, "stats", i, &questions).await;
    }
    assert!(run_job(&app, "process-a").await);

    let s = stats(&app, &admin, &studied.id).await;
    assert_eq!(s["questionId"], studied.id.as_str());
    assert_eq!(s["version"], 1);
    assert_eq!(s["attempts"], 60);
    assert_eq!(s["correct"], 20);
    close(&s["accuracy"], 20.0 / 60.0);
    // 1000, 1010 … 1590: the middle two are 1290 and 1300
    assert_eq!(s["medianTimeMs"], 1295);
    let options = s["options"].as_array().unwrap();
    let expected = [
        (&studied.answer, true, 20),
        (&studied.distractors[0], false, 25),
        (&studied.distractors[1], false, 14),
        (&studied.distractors[2], false, 1),
    ];
    for (o, (text, is_correct, picks)) in options.iter().zip(expected) {
        assert_eq!(o["text"], text.as_str());
        assert_eq!(o["isCorrect"], is_correct);
        assert_eq!(o["picks"], picks);
        close(&o["pickRate"], f64::from(picks) / 60.0);
    }
    for extra in &options[4..] {
        assert_eq!(extra["picks"], 0);
    }
    // the 16 best players (27 % of 60) all missed it, the 16 weakest all got it
    close(&s["discrimination"], -1.0);
    assert_eq!(s["cardViews"], 10);
    close(&s["cardViewRate"], 10.0 / 60.0);
    assert_eq!(
        s["flags"],
        json!([
            "likely_miskeyed",
            "negative_discrimination",
            "dead_distractor"
        ])
    );
    assert!(s["computedAt"].is_string());
    let daily = s["daily"].as_array().unwrap();
    assert_eq!(daily.len(), 30);
    let today = daily.last().unwrap();
    assert_eq!(
        (today["attempts"].clone(), today["correct"].clone()),
        (json!(60), json!(20))
    );
    assert!(
        daily[..29]
            .iter()
            .all(|d| d["attempts"] == 0 && d["accuracy"].is_null())
    );
    // not asked to: the question stays published
    let q = app
        .admin_get(&format!("/v1/admin/questions/{}", studied.id), Some(&admin))
        .await;
    assert_eq!(q.ok()["status"], "published");

    // the other four: 40 of 60 right, the strong players right, one distractor dead
    for other in &questions[1..] {
        let s = stats(&app, &admin, &other.id).await;
        assert_eq!(
            (s["attempts"].clone(), s["correct"].clone()),
            (json!(60), json!(40))
        );
        assert_eq!(s["medianTimeMs"], 2000);
        close(&s["discrimination"], 1.0);
        assert_eq!(s["flags"], json!(["dead_distractor"]));
        assert_eq!(s["options"][1]["picks"], 20);
        assert_eq!(s["cardViews"], 0);
    }

    // the dashboard's day
    let days = app
        .admin_get("/v1/admin/stats/daily", Some(&admin))
        .await
        .ok()
        .clone();
    let days = days.as_array().unwrap();
    assert_eq!(days.len(), 30);
    let today = days.last().unwrap();
    assert_eq!(today["answers"], 300);
    assert_eq!(today["correct"], 20 + 4 * 40);
    close(&today["accuracy"], 180.0 / 300.0);
    assert_eq!(today["activePlayers"], 60);
    let signups = app.scalar("SELECT count(*) FROM players", &[]).await;
    assert_eq!(today["newPlayers"], signups);

    // errors
    app.admin_get(
        &format!("/v1/admin/questions/{}/stats?version=2", studied.id),
        Some(&admin),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    for bad in ["0", "-1", "x", "1.5"] {
        app.admin_get(
            &format!("/v1/admin/questions/{}/stats?version={bad}", studied.id),
            Some(&admin),
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
    }
    app.admin_get("/v1/admin/questions/no-such-question/stats", Some(&admin))
        .await
        .assert_error(404, "NOT_FOUND");
    app.admin_get(&format!("/v1/admin/questions/{}/stats", studied.id), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    let (_, player, _) = app.guest("stats-not-admin").await;
    app.admin_get(
        &format!("/v1/admin/questions/{}/stats", studied.id),
        Some(&player),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
}

async fn each_answer_counts_once(app: TestApp) {
    let (admin, _, _) = app.admin_login().await;
    let questions = five_questions(&app).await;
    let studied = &questions[0].id;
    for i in 0..10 {
        play(&app, "once", i, &questions).await;
    }
    // still settling: not read yet
    let metrics = Metrics::new(app.ctx.db.clone());
    assert!(jobs::run(&app.ctx, "process-a", Job::QuestionStats, &metrics.jobs()).await);
    assert_eq!(stats(&app, &admin, studied).await["attempts"], 0);
    // settled: read once, however often the job runs and whoever races for it
    let m = metrics.jobs();
    for _ in 0..2 {
        app.clock
            .advance(chrono::Duration::milliseconds(SETTLE_MS + 1000));
        assert!(jobs::run(&app.ctx, "process-a", Job::QuestionStats, &m).await);
    }
    assert_eq!(stats(&app, &admin, studied).await["attempts"], 10);
    for i in 10..25 {
        play(&app, "once", i, &questions).await;
    }
    app.clock
        .advance(chrono::Duration::milliseconds(SETTLE_MS + 1000));
    let (a, b) = tokio::join!(
        jobs::run(&app.ctx, "process-a", Job::QuestionStats, &m),
        jobs::run(&app.ctx, "process-b", Job::QuestionStats, &m),
    );
    assert!(a || b);
    let s = stats(&app, &admin, studied).await;
    assert_eq!(s["attempts"], 25);
    assert_eq!(s["correct"], 20);
    let days = app.admin_get("/v1/admin/stats/daily", Some(&admin)).await;
    assert_eq!(days.ok()[29]["answers"], 125);
    assert_eq!(days.ok()[29]["activePlayers"], 25);
    // under 30 attempts: no flag, no discrimination
    assert_eq!(s["flags"], json!([]));
    assert_eq!(s["discrimination"], Value::Null);
    let text = metrics.render();
    assert!(
        text.contains("question_stats_read_rows_total{table=\"challenge_answers\"} 125"),
        "{text}"
    );
}

async fn a_miskeyed_question_goes_back_to_review(app: TestApp) {
    let (admin, _, _) = app.admin_login().await;
    let questions = five_questions(&app).await;
    for i in 0..PLAYERS {
        play(&app, "review", i, &questions).await;
    }
    assert!(run_job(&app, "process-a").await);
    let status = |id: String| {
        let app = &app;
        let admin = admin.clone();
        async move {
            app.admin_get(&format!("/v1/admin/questions/{id}"), Some(&admin))
                .await
                .ok()["status"]
                .clone()
        }
    };
    assert_eq!(status(questions[0].id.clone()).await, "reviewing");
    // flagged, but not miskeyed: stays
    assert_eq!(status(questions[1].id.clone()).await, "published");
    let audit = app
        .admin_get("/v1/admin/audit-log?limit=50", Some(&admin))
        .await
        .ok()
        .clone();
    let entries: Vec<&Value> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "question.auto_review")
        .collect();
    assert_eq!(entries.len(), 1, "{audit}");
    assert_eq!(entries[0]["targetId"], questions[0].id.as_str());
    assert_eq!(entries[0]["actorUsername"], "system");
    // a later run finds it flagged already: nothing more happens
    assert!(run_job(&app, "process-a").await);
    let audit = app
        .admin_get("/v1/admin/audit-log?limit=50", Some(&admin))
        .await;
    let again = audit
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "question.auto_review")
        .count();
    assert_eq!(again, 1);
}

/// A run that counted answers and died before deriving them (here: the versions table
/// is away) leaves them due; the next run derives them though no answer is new.
async fn a_run_that_dies_after_counting_is_derived_by_the_next(app: TestApp) {
    let (admin, _, _) = app.admin_login().await;
    let questions = five_questions(&app).await;
    let studied = &questions[0];
    for i in 0..PLAYERS {
        play(&app, "dies", i, &questions).await;
    }
    app.exec(
        "ALTER TABLE question_versions RENAME TO question_versions_away",
        &[],
    )
    .await;
    assert!(
        !run_job(&app, "process-a").await,
        "the run fails after counting"
    );
    app.exec(
        "ALTER TABLE question_versions_away RENAME TO question_versions",
        &[],
    )
    .await;
    let s = stats(&app, &admin, &studied.id).await;
    assert_eq!(s["attempts"], 60, "counted");
    assert_eq!(s["computedAt"], Value::Null, "not derived");
    assert_eq!(s["flags"], json!([]));

    // (its lease is still the failed run's process's)
    assert!(run_job(&app, "process-a").await);
    let s = stats(&app, &admin, &studied.id).await;
    assert_eq!(s["attempts"], 60, "counted once");
    assert!(s["computedAt"].is_string());
    assert_eq!(s["medianTimeMs"], 1295);
    close(&s["discrimination"], -1.0);
    assert_eq!(
        s["flags"],
        json!([
            "likely_miskeyed",
            "negative_discrimination",
            "dead_distractor"
        ])
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM question_stats WHERE derive_due > 0",
            &[]
        )
        .await,
        0
    );
}

/// A guest whose answers were counted links to an account: the counted answers follow
/// them (the account's overall accuracy, one player per version), as the answers do.
async fn a_merged_guests_answers_count_for_the_account(engine: Engine) {
    let apple = AppleFake::start("stats-apple").await;
    let mut vars = vec![("DEMO_CONTENT", "true".to_string())];
    vars.extend(apple.vars());
    let app = TestApp::spawn_with(engine, &vars).await;
    let questions = five_questions(&app).await;
    let studied = &questions[0].id;
    let identity = apple.token("stats-merge-sub");
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
    // the account misses the studied question and gets the other four; the guest the
    // reverse
    play_as(&app, &account_token, 30, &questions).await;
    let (guest, guest_token, _) = app.guest("stats-merge-guest").await;
    play_as(&app, &guest_token, 5, &questions).await;
    assert!(run_job(&app, "process-a").await);
    let players = || async {
        app.scalar(
            "SELECT players FROM question_stats WHERE question_id = $1",
            &[studied],
        )
        .await
    };
    assert_eq!(players().await, 2);

    let linked = app
        .post(
            "/v1/auth/link",
            json!({
                "provider": "ios_vendor",
                "credential": { "identityToken": identity },
                "mergePolicy": "server_account_first",
                "clientMigrationId": "stats-merge",
            }),
            Some(&guest_token),
        )
        .await;
    assert_eq!(linked.ok()["session"]["user"]["id"], account.as_str());
    let accuracy = |player: String| {
        let app = &app;
        async move {
            shared::read!(&app.ctx.db, |ex| {
                sqlx::query_as::<_, (i64, i64)>(
                    "SELECT attempts, correct FROM player_accuracy WHERE player_id = $1",
                )
                .bind(&player)
                .fetch_optional(ex)
                .await
                .unwrap()
            })
        }
    };
    assert_eq!(accuracy(guest.clone()).await, None);
    assert_eq!(accuracy(account.clone()).await, Some((10, 5)));
    let rows: Vec<(String, i64, i64)> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as(
            "SELECT player_id, attempts, correct FROM question_players WHERE question_id = $1",
        )
        .bind(studied)
        .fetch_all(ex)
        .await
        .unwrap()
    });
    assert_eq!(rows, vec![(account.clone(), 2, 1)]);
    // the next run derives the versions the merge touched: one player now
    assert!(run_job(&app, "process-a").await);
    assert_eq!(players().await, 1);
}
