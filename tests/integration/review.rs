//! Spaced review through HTTP: every judged answer writes the player's FSRS memory of the
//! question (the published FSRS-6 initial states on a first answer); `mode=review` serves
//! mistakes and due questions, lowest recall first, with no heart and no attempt, review
//! XP within the day's allowance through the ledger and a heart back for a good round;
//! the summary and the bootstrap count what is due; an answer judged from memory on a
//! stale memory row is judged again; deletion takes the rows.

use serde_json::Value;
use tests::{Engine, TestApp, both_engines_with};

use crate::learning::{
    OTHER_TRACK, Question, TRACK, all_questions, answer, five_questions, next, play_track,
    skill_row,
};

both_engines_with!(
    review_app;
    answers_write_memory_and_review_serves_mistakes_then_due_questions,
    a_memory_row_changed_meanwhile_is_judged_again_on_a_read,
    review_refuses_bad_input_and_deletion_takes_the_memory
);
both_engines_with!(
    fit_app;
    the_fitting_job_fits_a_players_parameters_and_answers_use_them,
    a_fit_no_better_than_the_defaults_on_later_answers_is_not_adopted
);
both_engines_with!(
    review_app;
    the_question_forgotten_fastest_is_flagged_for_the_staff,
    an_unpublished_questions_memory_leaves_the_reviews_until_it_is_back,
    an_answer_in_a_review_opened_before_its_question_was_withdrawn_keeps_it_parked,
    a_review_looks_among_the_players_most_overdue_questions_only,
    an_all_track_review_moves_each_questions_own_track_skill
);

const DAY_MS: i64 = 86_400_000;

/// The demo content, no background jobs (the tests run them), and `extra`.
async fn app_with(engine: Engine, extra: &[(&str, &str)]) -> TestApp {
    let mut vars = vec![
        ("DEMO_CONTENT", "true".to_string()),
        ("RATE_LIMIT_AUTH_PER_MINUTE", "100000".to_string()),
        ("RULE_MAX_HEARTS", "20".to_string()),
        ("JOBS_ENABLED", "false".to_string()),
    ];
    vars.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    TestApp::spawn_with(engine, &vars).await
}

async fn review_app(engine: Engine) -> TestApp {
    app_with(
        engine,
        &[
            // hearts come back only by the review's reward in these tests
            ("RULE_HEART_REGEN_MINUTES", "1000000"),
            ("REVIEW_XP", "5"),
            ("REVIEW_XP_DAILY", "12"),
        ],
    )
    .await
}

async fn fit_app(engine: Engine) -> TestApp {
    app_with(
        engine,
        &[
            ("FSRS_MIN_REVIEWS", "50"),
            // ten weeks of one player's answers in seconds: past the write bucket
            ("RATE_LIMIT_PLAYER_WRITES_PER_MINUTE", "100000"),
        ],
    )
    .await
}

/// Signs in again with `refresh` (the clock moved past the access token's life): the new
/// access and refresh tokens.
async fn refreshed(app: &TestApp, refresh: &str) -> (String, String) {
    let r = app
        .post(
            "/v1/auth/refresh",
            serde_json::json!({ "refreshToken": refresh }),
            None,
        )
        .await;
    (
        r.ok()["accessToken"].as_str().unwrap().to_string(),
        r.ok()["refreshToken"].as_str().unwrap().to_string(),
    )
}

/// `(stability, difficulty, reviews, lapses, last_correct, last_answered_at, due_at,
/// review_at)` of the player's memory of a question.
type MemoryRow = (f64, f64, i64, i64, bool, i64, i64, i64);

fn as_memory(r: MemoryRow) -> shared::domain::memory::Memory {
    shared::domain::memory::Memory {
        stability: r.0,
        difficulty: r.1,
        reviews: r.2,
        lapses: r.3,
        last_correct: r.4,
        last_answered_at: r.5,
        due_at: r.6,
        review_at: r.7,
    }
}

async fn memory(app: &TestApp, player: &str, question: &str) -> Option<MemoryRow> {
    shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as::<_, MemoryRow>(
            "SELECT stability, difficulty, reviews, lapses, last_correct, last_answered_at,
                    due_at, review_at
             FROM review_memory WHERE player_id = $1 AND question_id = $2",
        )
        .bind(player)
        .bind(question)
        .fetch_optional(ex)
        .await
        .unwrap()
    })
}

async fn review(app: &TestApp, token: &str, scope: &str) -> Value {
    app.get(
        &format!("/v1/challenges/next?mode=review{scope}"),
        Some(token),
    )
    .await
    .ok()
    .clone()
}

fn served_ids(c: &Value) -> Vec<String> {
    c["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["question"]["id"].as_str().unwrap().to_string())
        .collect()
}

async fn summary(app: &TestApp, token: &str) -> Value {
    app.get("/v1/progress/summary", Some(token))
        .await
        .ok()
        .clone()
}

/// Plays one challenge of the track, answering wrong the questions in `wrong`.
async fn play(app: &TestApp, token: &str, questions: &[Question], wrong: &[&str]) -> Value {
    let c = next(app, token).await;
    for id in served_ids(&c) {
        answer(
            app,
            token,
            &c,
            &id,
            !wrong.contains(&id.as_str()),
            questions,
        )
        .await;
    }
    c
}

async fn answers_write_memory_and_review_serves_mistakes_then_due_questions(app: TestApp) {
    let (_, questions) = five_questions(&app).await;
    let (player, token, refresh) = app.guest("review-player").await;
    // nothing answered yet: nothing to review
    assert_eq!(review(&app, &token, "").await, Value::Null);
    assert_eq!(summary(&app, &token).await["reviewsDue"], 0);
    let mistake = questions[0].id.as_str();
    play(&app, &token, &questions, &[mistake]).await;
    let start = app.clock.now_ms();

    // the first answers' states are FSRS-6's published initial ones
    let wrong = memory(&app, &player, mistake).await.expect("a memory row");
    assert!(
        (wrong.0 - 0.212).abs() < 1e-4 && (wrong.1 - 6.4133).abs() < 1e-4,
        "{wrong:?}"
    );
    assert_eq!((wrong.2, wrong.3, wrong.4), (1, 0, false));
    assert_eq!(
        wrong.7,
        wrong.5 + 600_000,
        "a mistake joins the reviews ten minutes on"
    );
    let right = memory(&app, &player, &questions[1].id).await.unwrap();
    assert!(
        (right.0 - 2.3065).abs() < 1e-4 && (right.1 - 2.1181).abs() < 1e-3,
        "{right:?}"
    );
    let due_days = (right.6 - right.5) as f64 / DAY_MS as f64;
    assert!((due_days - 2.3065).abs() < 1e-3, "{due_days}");
    assert_eq!(right.7, right.6, "a right answer is reviewed when due");

    // the summary and the bootstrap count the mistake, ten minutes on
    assert_eq!(summary(&app, &token).await["reviewsDue"], 0);
    assert_eq!(review(&app, &token, "").await, Value::Null);
    app.clock.advance(chrono::Duration::minutes(10));
    assert_eq!(summary(&app, &token).await["reviewsDue"], 1);
    let boot = app.get("/v1/app/bootstrap", Some(&token)).await;
    assert_eq!(boot.ok()["progress"]["reviewsDue"], 1);

    // the review serves only the mistake, and serves it again unchanged until finished
    let before = summary(&app, &token).await;
    let r1 = review(&app, &token, &format!("&trackId={TRACK}")).await;
    assert_eq!(served_ids(&r1), [mistake]);
    assert_eq!(r1["totalQuestions"], 1);
    // one unfinished review whatever the scope: the same one again
    assert_eq!(
        review(&app, &token, "").await["challengeId"],
        r1["challengeId"]
    );
    assert_eq!(
        review(&app, &token, &format!("&trackId={TRACK}")).await["challengeId"],
        r1["challengeId"]
    );
    // wrong again in the review: no heart lost, no attempt spent, no XP
    let judged = answer(&app, &token, &r1, mistake, false, &questions).await;
    assert_eq!(judged["answerState"], "wrong");
    assert_eq!(judged["xpDelta"], 0);
    assert_eq!(judged["progress"]["hearts"], before["hearts"]);
    assert_eq!(
        judged["progress"]["dailyAttemptsLeft"],
        before["dailyAttemptsLeft"]
    );
    let lapsed = memory(&app, &player, mistake).await.unwrap();
    assert_eq!((lapsed.2, lapsed.3, lapsed.4), (2, 1, false));
    // not straight back with its answer just shown: ten minutes on
    assert_eq!(review(&app, &token, "").await, Value::Null);
    app.clock.advance(chrono::Duration::minutes(10));
    let again = review(&app, &token, "").await;
    assert_eq!(served_ids(&again), [mistake]);
    let judged = answer(&app, &token, &again, mistake, true, &questions).await;
    assert_eq!(judged["xpDelta"], 5);
    assert_eq!(judged["progress"]["xp"], before["xp"].as_i64().unwrap() + 5);
    let relearned = memory(&app, &player, mistake).await.unwrap();
    assert_eq!((relearned.2, relearned.4), (3, true));
    assert!(relearned.7 > app.clock.now_ms(), "due again later");
    assert_eq!(
        review(&app, &token, "").await,
        Value::Null,
        "nothing due now"
    );
    assert_eq!(summary(&app, &token).await["reviewsDue"], 0);
    // the staff see the player's review: due count, recall, the default parameters
    let (admin, _, _) = app.admin_login().await;
    let record = app
        .admin_get(&format!("/v1/admin/users/{player}"), Some(&admin))
        .await;
    let staff = &record.ok()["review"];
    assert_eq!(staff["dueCount"], 0);
    assert_eq!(staff["remembered"], 5);
    assert_eq!(staff["parameters"], "default");
    assert_eq!(staff["parametersFittedAt"], Value::Null);
    let recall = staff["averageRecall"].as_f64().unwrap();
    assert!(recall > 0.9 && recall <= 1.0, "{recall}");
    let mut console = app.console_signed_in().await;
    console
        .get(&format!("/console/players/{player}"))
        .await
        .assert_contains("id=\"player-review\"")
        .assert_contains("0 due")
        .assert_contains("default FSRS parameters");

    // weeks on, every question is due: lowest predicted recall first, all five
    app.clock.advance(chrono::Duration::days(20));
    let (token, _) = refreshed(&app, &refresh).await;
    assert_eq!(summary(&app, &token).await["reviewsDue"], 5);
    let month = summary(&app, &token).await;
    let r2 = review(&app, &token, "").await;
    let order = served_ids(&r2);
    assert_eq!(order.len(), 5);
    // four right: review XP 5, 5, then 2 (the allowance of 12), then none; a heart back
    let mut xp = Vec::new();
    let mut last = Value::Null;
    for (i, id) in order.iter().enumerate() {
        last = answer(&app, &token, &r2, id, i != 2, &questions).await;
        xp.push(last["xpDelta"].as_i64().unwrap());
    }
    assert_eq!(xp, [5, 5, 0, 2, 0]);
    assert_eq!(
        last["progress"]["hearts"],
        month["hearts"].as_i64().unwrap() + 1,
        "four right answers give a heart back"
    );
    assert_eq!(
        last["progress"]["dailyAttemptsLeft"],
        month["dailyAttemptsLeft"]
    );

    // through the ledger: the review XP is in the week's board rows
    let review_xp = app
        .scalar(
            "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger
             WHERE player_id = $1 AND source = 'review_answer'",
            &[&player],
        )
        .await;
    assert_eq!(review_xp, 5 + 12);
    let ledger_xp = app
        .scalar(
            "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
            &[&player],
        )
        .await;
    assert_eq!(ledger_xp, last["progress"]["xp"].as_i64().unwrap());
    let all_players = shared::domain::board::BoardKey::all_players();
    let weekly = app
        .scalar(
            "SELECT xp FROM weekly_xp WHERE player_id = $1 AND board = $2
             ORDER BY week_start DESC LIMIT 1",
            &[&player, all_players.as_str()],
        )
        .await;
    assert_eq!(weekly, 12, "this week's board holds this week's review XP");
    assert!(app.clock.now_ms() > start);
}

/// A normal challenge remembered the memory of its questions when it opened; a review
/// answers one of them first: the challenge's answer to it, judged from memory on the
/// stale row, fails the write's guard and is judged again on a read, so no answer of
/// the question is lost from its memory.
async fn a_memory_row_changed_meanwhile_is_judged_again_on_a_read(app: TestApp) {
    let (_, questions) = five_questions(&app).await;
    let (player, token, _) = app.guest("review-race").await;
    let mistake = questions[0].id.as_str();
    play(&app, &token, &questions, &[mistake]).await;
    // the second challenge holds every question, with their memory as of now
    let c2 = next(&app, &token).await;
    assert!(served_ids(&c2).iter().any(|id| id == mistake));
    app.clock.advance(chrono::Duration::minutes(10));
    let r = review(&app, &token, "").await;
    answer(&app, &token, &r, mistake, true, &questions).await;
    assert_eq!(memory(&app, &player, mistake).await.unwrap().2, 2);
    let judged = answer(&app, &token, &c2, mistake, true, &questions).await;
    assert_eq!(judged["answerState"], "correct");
    let row = memory(&app, &player, mistake).await.unwrap();
    assert_eq!(
        (row.2, row.3, row.4),
        (3, 0, true),
        "every answer counted: {row:?}"
    );
}

async fn review_refuses_bad_input_and_deletion_takes_the_memory(app: TestApp) {
    let (_, questions) = five_questions(&app).await;
    let (player, token, _) = app.guest("review-input").await;
    app.get("/v1/challenges/next?mode=practice", Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.get(
        "/v1/challenges/next?mode=review&trackId=no-such-track",
        Some(&token),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    app.get("/v1/challenges/next?mode=review&trackId=%20", Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.get("/v1/challenges/next", Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.get("/v1/challenges/next?mode=review", None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    // a review answer is idempotent like any answer
    play(&app, &token, &questions, &[&questions[0].id]).await;
    app.clock.advance(chrono::Duration::minutes(10));
    let r = review(&app, &token, "").await;
    let first = answer(&app, &token, &r, &questions[0].id, true, &questions).await;
    let replay = answer(&app, &token, &r, &questions[0].id, true, &questions).await;
    assert_eq!(first["xpDelta"], replay["xpDelta"]);
    assert_eq!(first["progress"]["xp"], replay["progress"]["xp"]);
    assert_eq!(memory(&app, &player, &questions[0].id).await.unwrap().2, 2);

    app.call(
        tests::Service::Player,
        reqwest::Method::DELETE,
        "/v1/users/me",
        None,
        Some(&token),
    )
    .await
    .ok();
    assert_eq!(
        app.scalar(
            "SELECT COUNT(*) FROM review_memory WHERE player_id = $1",
            &[&player],
        )
        .await,
        0
    );
}

/// Ten weeks of a challenge a day on each of two tracks and the day's review, played by
/// a new guest `name`: a first answer wrong now and then, a later one as
/// `right(day, days since the question's last answer)` says. The guest's id and
/// their last access token.
async fn play_days(
    app: &TestApp,
    name: &str,
    questions: &[Question],
    right: impl Fn(usize, usize) -> bool,
) -> (String, String) {
    let (player, mut token, mut refresh) = app.guest(name).await;
    let mut last_day: std::collections::HashMap<String, usize> = Default::default();
    for day in 0..70 {
        for path in [
            format!("/v1/challenges/next?trackId={TRACK}"),
            format!("/v1/challenges/next?trackId={OTHER_TRACK}"),
            "/v1/challenges/next?mode=review".to_string(),
        ] {
            let c = app.get(&path, Some(&token)).await.ok().clone();
            if c.is_null() {
                continue;
            }
            for (i, id) in served_ids(&c).iter().enumerate() {
                let is_right = match last_day.insert(id.clone(), day) {
                    None => (i + day) % 4 != 0,
                    Some(before) => right(day, day - before),
                };
                answer(app, &token, &c, id, is_right, questions).await;
            }
        }
        app.clock.advance(chrono::Duration::hours(26));
        (token, refresh) = refreshed(app, &refresh).await;
    }
    (player, token)
}

/// A fit is adopted only where it predicts the player's own later answers better than
/// the defaults (`domain::memory::fit_checked`): a player forgetful for eight weeks who
/// then remembers everything (the held-out last fifth) keeps the defaults, and the
/// staff see them as such.
async fn a_fit_no_better_than_the_defaults_on_later_answers_is_not_adopted(app: TestApp) {
    use shared::metrics::Metrics;
    use shared::services::jobs::{self, Job};

    let questions = all_questions(&app).await;
    let (player, _) = play_days(&app, "review-unfit", &questions, |day, gap| {
        day >= 56 || gap < 7
    })
    .await;
    let metrics = Metrics::new(app.ctx.db.clone());
    assert!(jobs::run(&app.ctx, "process-a", Job::ReviewFit, &metrics.jobs()).await);
    let stored: Option<String> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_scalar("SELECT parameters FROM review_parameters WHERE player_id = $1")
            .bind(&player)
            .fetch_one(ex)
            .await
            .unwrap()
    });
    assert_eq!(stored, None, "tried, and kept the defaults");
    let (admin, _, _) = app.admin_login().await;
    let record = app
        .admin_get(&format!("/v1/admin/users/{player}"), Some(&admin))
        .await;
    assert_eq!(record.ok()["review"]["parameters"], "default");
    assert!(record.ok()["review"]["parametersFittedAt"].is_null());
}

/// A player with `FSRS_MIN_REVIEWS` answers over ten weeks gets their own parameters from
/// the `review_fit` job (the staff see them fitted, with the date); their next answer's
/// memory follows those parameters, not the defaults; a second run leaves a fresh fit.
async fn the_fitting_job_fits_a_players_parameters_and_answers_use_them(app: TestApp) {
    use shared::domain::memory::Schedule;
    use shared::metrics::Metrics;
    use shared::services::jobs::{self, Job};

    let questions = all_questions(&app).await;
    // the optimizer needs many questions (it sets aside the rarest first intervals)
    // and 64 later-day answers to train on, and the fit is adopted only where it
    // predicts the player's later answers better than the defaults, which expect a
    // question remembered for days: a forgetful player, right within a week only
    let (player, token) = play_days(&app, "review-fit", &questions, |_, gap| gap < 7).await;
    let metrics = Metrics::new(app.ctx.db.clone());
    assert!(jobs::run(&app.ctx, "process-a", Job::ReviewFit, &metrics.jobs()).await);
    let (json, fitted_at): (String, i64) = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as("SELECT parameters, fitted_at FROM review_parameters WHERE player_id = $1")
            .bind(&player)
            .fetch_one(ex)
            .await
            .unwrap()
    });
    let parameters: Vec<f32> = serde_json::from_str(&json).unwrap();
    assert_eq!(parameters.len(), 21);
    assert_ne!(
        parameters,
        shared::domain::memory::default_parameters(),
        "fitted to the player's answers"
    );
    let (admin, _, _) = app.admin_login().await;
    let record = app
        .admin_get(&format!("/v1/admin/users/{player}"), Some(&admin))
        .await;
    assert_eq!(record.ok()["review"]["parameters"], "fitted");
    assert!(record.ok()["review"]["parametersFittedAt"].is_string());

    // the next answer is scheduled with the player's own parameters
    let fitted = Schedule::new(&parameters, 0.9).unwrap();
    let c = next(&app, &token).await;
    // a question whose next state the fit changes: one answered before, on an earlier
    // day, moves by the fitted growth; one never answered (the challenge may serve only
    // such) starts from the fitted initial stability
    let at = app.clock.now_ms();
    let mut candidates = Vec::new();
    for id in served_ids(&c) {
        let prior = memory(&app, &player, &id).await.map(as_memory);
        let by_default = Schedule::with_defaults(0.9).review(prior.as_ref(), true, at);
        if (fitted.review(prior.as_ref(), true, at).stability - by_default.stability).abs() > 1e-3 {
            candidates.push((id, prior));
        }
    }
    // the fitted growth of a memory first; a first answer only when none was served
    candidates.sort_by_key(|(_, prior)| prior.is_none());
    let (id, prior) = candidates
        .into_iter()
        .next()
        .expect("a served question the fit schedules differently");
    answer(&app, &token, &c, &id, true, &questions).await;
    let after = memory(&app, &player, &id).await.unwrap();
    let expected = fitted.review(prior.as_ref(), true, after.5);
    assert!(
        (after.0 - expected.stability).abs() < 1e-3,
        "{after:?} {expected:?}"
    );
    assert!(
        (after.1 - expected.difficulty).abs() < 1e-3,
        "{after:?} {expected:?}"
    );
    assert!(fitted_at <= app.clock.now_ms());
}

/// Thirty players get one question wrong and the others right: the review job's pass
/// over the questions finds that question's players remember it least (mean stability
/// 0.212 days against 2.3065), and it alone is `quickly_forgotten` (the worst tenth of
/// five questions with 30 players is one), in the admin API and on the console's page.
async fn the_question_forgotten_fastest_is_flagged_for_the_staff(app: TestApp) {
    use shared::metrics::Metrics;
    use shared::services::jobs::{self, Job};

    let (_, questions) = five_questions(&app).await;
    let forgotten = questions[2].id.as_str();
    for i in 0..30 {
        let (_, token, _) = app.guest(&format!("review-forget-{i}")).await;
        play(&app, &token, &questions, &[forgotten]).await;
    }
    let metrics = Metrics::new(app.ctx.db.clone());
    assert!(jobs::run(&app.ctx, "process-a", Job::ReviewFit, &metrics.jobs()).await);
    let (admin, _, _) = app.admin_login().await;
    for q in &questions {
        let stats = app
            .admin_get(&format!("/v1/admin/questions/{}/stats", q.id), Some(&admin))
            .await;
        let memory = &stats.ok()["memory"];
        assert_eq!(memory["players"], 30, "{memory}");
        let stability = memory["averageStability"].as_f64().unwrap();
        let worst = q.id == forgotten;
        let expected = if worst { 0.212 } else { 2.3065 };
        assert!((stability - expected).abs() < 1e-3, "{stability}");
        assert_eq!(memory["quicklyForgotten"], worst, "{}", q.id);
    }
    let mut console = app.console_signed_in().await;
    console
        .get(&format!("/console/questions/{forgotten}/stats"))
        .await
        .assert_contains("Quickly forgotten");
    let other = &questions[0].id;
    let page = console
        .get(&format!("/console/questions/{other}/stats"))
        .await;
    assert!(!page.contains("Quickly forgotten"));
    page.assert_contains("2.3 days on average");
}

/// Runs the review job's passes until `done` holds (a pass looks at 100 questions).
async fn run_review_job_until(app: &TestApp, token: &str, due: i64) {
    use shared::metrics::Metrics;
    use shared::services::jobs::{self, Job};
    let metrics = Metrics::new(app.ctx.db.clone());
    for _ in 0..6 {
        assert!(jobs::run(&app.ctx, "process-a", Job::ReviewFit, &metrics.jobs()).await);
        if summary(app, token).await["reviewsDue"] == due {
            return;
        }
    }
    panic!("reviewsDue never became {due}");
}

/// Archived, a question's memory rows are parked out of the reviews and the due count
/// by the review job; published again, they come back.
async fn an_unpublished_questions_memory_leaves_the_reviews_until_it_is_back(app: TestApp) {
    let (_, questions) = five_questions(&app).await;
    let (_, token, _) = app.guest("review-parked").await;
    let (kept, archived) = (questions[0].id.as_str(), questions[1].id.as_str());
    play(&app, &token, &questions, &[kept, archived]).await;
    app.clock.advance(chrono::Duration::minutes(10));
    assert_eq!(summary(&app, &token).await["reviewsDue"], 2);
    app.exec(
        "UPDATE questions SET status = 'archived' WHERE id = $1",
        &[archived],
    )
    .await;
    run_review_job_until(&app, &token, 1).await;
    assert_eq!(served_ids(&review(&app, &token, "").await), [kept]);
    app.exec(
        "UPDATE questions SET status = 'published' WHERE id = $1",
        &[archived],
    )
    .await;
    run_review_job_until(&app, &token, 2).await;
}

/// A review opened before its question was archived still takes the question's answer,
/// but the answer leaves the parked memory row parked: the question stays out of the
/// reviews and the due count until it is published again.
async fn an_answer_in_a_review_opened_before_its_question_was_withdrawn_keeps_it_parked(
    app: TestApp,
) {
    let (_, questions) = five_questions(&app).await;
    let (player, token, _) = app.guest("review-parked-answer").await;
    let (kept, archived) = (questions[0].id.as_str(), questions[1].id.as_str());
    play(&app, &token, &questions, &[kept, archived]).await;
    app.clock.advance(chrono::Duration::minutes(10));
    let r = review(&app, &token, "").await;
    let mut served = served_ids(&r);
    served.sort();
    let mut both = vec![kept.to_string(), archived.to_string()];
    both.sort();
    assert_eq!(served, both);
    app.exec(
        "UPDATE questions SET status = 'archived' WHERE id = $1",
        &[archived],
    )
    .await;
    run_review_job_until(&app, &token, 1).await;

    answer(&app, &token, &r, archived, false, &questions).await;
    app.clock.advance(chrono::Duration::minutes(10));
    let row = memory(&app, &player, archived).await.expect("a memory row");
    assert_eq!((row.2, row.7), (2, shared::db::review::PARKED_AT));
    assert_eq!(summary(&app, &token).await["reviewsDue"], 1);
    answer(&app, &token, &r, kept, true, &questions).await;
    assert_eq!(summary(&app, &token).await["reviewsDue"], 0);

    app.exec(
        "UPDATE questions SET status = 'published' WHERE id = $1",
        &[archived],
    )
    .await;
    run_review_job_until(&app, &token, 1).await;
    assert_eq!(served_ids(&review(&app, &token, "").await), [archived]);
}

/// A review of one track looks among the player's `REVIEW_WINDOW` most overdue questions
/// at most, whatever their backlog on other tracks: bounded work when the track has
/// nothing due.
async fn a_review_looks_among_the_players_most_overdue_questions_only(app: TestApp) {
    use shared::db::review::REVIEW_WINDOW;
    assert_eq!(REVIEW_WINDOW, 1000, "the backlog below is one window");
    let (_, questions) = five_questions(&app).await;
    let (player, token, _) = app.guest("review-window").await;
    let mistake = questions[0].id.as_str();
    play(&app, &token, &questions, &[mistake]).await;
    app.clock.advance(chrono::Duration::minutes(10));
    // a backlog on another track, every row more overdue than the mistake
    app.exec(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
         INSERT INTO review_memory (player_id, question_id, track_id, stability, difficulty,
             reviews, lapses, last_correct, last_answered_at, due_at, review_at)
         SELECT $1, 'backlog-' || i, 'another-track', 1.0, 5.0, 1, 0, FALSE, 0, 0, i FROM n",
        &[&player],
    )
    .await;
    let scope = format!("&trackId={TRACK}");
    assert_eq!(review(&app, &token, &scope).await, Value::Null);
    app.exec(
        "DELETE FROM review_memory WHERE player_id = $1 AND question_id = 'backlog-1000'",
        &[&player],
    )
    .await;
    assert_eq!(served_ids(&review(&app, &token, &scope).await), [mistake]);
}

/// A review across every track moves, with each answer, the skill of its question's own
/// track, not the track the review was opened on (one answer is judged from memory, the
/// other, of the track the process last saw no answer on, on a read).
async fn an_all_track_review_moves_each_questions_own_track_skill(app: TestApp) {
    let questions = all_questions(&app).await;
    let (player, token, _) = app.guest("review-tracks").await;
    play_track(&app, &token, TRACK, &questions, |i| i != 0).await;
    play_track(&app, &token, OTHER_TRACK, &questions, |i| i != 0).await;
    let first = app
        .text("SELECT id FROM categories WHERE slug = $1", &[TRACK])
        .await;
    let other = app
        .text("SELECT id FROM categories WHERE slug = $1", &[OTHER_TRACK])
        .await;
    let row = |track: String| {
        let (app, player) = (&app, &player);
        async move { skill_row(app, player, &track).await.expect("a skill row") }
    };
    let before = (row(first.clone()).await, row(other.clone()).await);
    assert_eq!((before.0.1, before.1.1), (5, 5));

    app.clock.advance(chrono::Duration::minutes(10));
    let r = review(&app, &token, "").await;
    let served = served_ids(&r);
    assert_eq!(served.len(), 2, "one mistake of each track: {served:?}");
    for id in &served {
        answer(&app, &token, &r, id, false, &questions).await;
    }
    let after = (row(first).await, row(other).await);
    // each review answer is counted on its own question's track, and moves no skill:
    // a review is free, so wrong answers there would push it down without bound
    assert_eq!((after.0.1, after.1.1), (6, 6));
    assert_eq!((after.0.0, after.1.0), (before.0.0, before.1.0));
}
