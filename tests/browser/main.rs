//! End-to-end tests of the HTML console in headless Chromium (Debian's `chromium` and
//! `chromium-driver`), driven over WebDriver with fantoccini, on SQLite and PostgreSQL.
//! A content editor's day: sign in, import a CSV, review and publish its questions,
//! build a track's skill tree, ban a player; then a super_admin turns MFA on (the QR
//! code page, the recovery codes) and signs in again with a code. The day runs once in
//! English (SQLite) and once in Chinese (PostgreSQL), every expected text read from the
//! catalogues in the browser's language; a screenshot of every step is saved under
//! `tests/artifacts/e2e/<engine>-<language>/`. No page may report a
//! Content-Security-Policy violation along the way.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod driver;

use std::time::Duration;

use driver::Browser;
use shared::i18n::Lang;
use shared::message::msg;
use tests::{Engine, TestApp};

const GEO: &str = "world-geography";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editor_workflow_sqlite_in_english() {
    editor_workflow(Engine::Sqlite, Lang::En).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editor_workflow_postgres_in_chinese() {
    editor_workflow(Engine::Postgres, Lang::ZhCn).await;
}

async fn editor_workflow(engine: Engine, lang: Lang) {
    let app = TestApp::spawn_demo(engine).await;
    let name = match engine {
        Engine::Sqlite => "sqlite",
        Engine::Postgres | Engine::Pooled => "postgres",
    };
    let b = Browser::start(
        &app.admin_url,
        &format!("{name}-{}", lang.tag()),
        lang.tag(),
    )
    .await;

    sign_in(&b, &app, lang).await;
    csp_violations_are_seen(&b).await;
    page_scripts(&b, lang).await;
    let imported = import_csv(&b, &app, lang).await;
    review_and_publish(&b, &app, &imported, lang).await;
    build_skill_tree(&b, &app, lang).await;
    ban_player(&b, &app, lang).await;
    question_quality(&b, &app, lang).await;
    mfa(&b, &app, lang).await;

    let violations = b.csp_violations().await;
    assert!(
        violations.is_empty(),
        "the console's pages broke their Content-Security-Policy: {violations:#?}"
    );
    b.finish().await;
}

/// The violation recorder works: an inline script added to the page is refused and
/// recorded (then forgotten, so the workflow starts with none).
async fn csp_violations_are_seen(b: &Browser) {
    b.clear_csp_violations().await;
    b.client
        .execute(
            "const s = document.createElement('script'); s.textContent = 'window.inlineRan = 1;'; document.head.appendChild(s);",
            vec![],
        )
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let seen = loop {
        let seen = b.csp_violations().await;
        if !seen.is_empty() || std::time::Instant::now() > deadline {
            break seen;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        seen.len() == 1 && seen[0].contains("script-src"),
        "an inline script was not reported: {seen:?}"
    );
    let ran = b
        .client
        .execute("return window.inlineRan === 1;", vec![])
        .await;
    assert_eq!(
        ran.unwrap(),
        serde_json::Value::Bool(false),
        "the inline script ran"
    );
    b.clear_csp_violations().await;
}

/// What inline handlers did before the policy, now `static/js/console.js`: the language
/// menu submits itself when changed, and the error page's "go back" link goes back.
async fn page_scripts(b: &Browser, lang: Lang) {
    b.select_and_wait("#language", lang.tag()).await;
    let chosen = b
        .client
        .execute("return document.querySelector('#language').value;", vec![])
        .await
        .unwrap();
    assert_eq!(chosen, serde_json::Value::from(lang.tag()));
    b.select_and_wait("#language", "").await;
    b.wait_text("#whoami", "").await;

    b.open("/console/questions").await;
    b.wait_for("#filters").await;
    b.open("/console/no-such-page").await;
    b.wait_for("#go-back").await;
    b.shot("error-page").await;
    b.submit("#go-back").await;
    assert_eq!(b.path().await, "/console/questions");
}

/// Message `id` in `lang` with its arguments.
fn ta(lang: Lang, id: &str, args: &[(&str, &str)]) -> String {
    let args: Vec<(&str, String)> = args.iter().map(|(k, v)| (*k, v.to_string())).collect();
    lang.t_args(id, &args)
}

/// The longest fixed part of message `id` with variables `vars`: what a page shows of
/// it whatever their values.
fn fixed(lang: Lang, id: &str, vars: &[&str]) -> String {
    let marker = "\u{1}";
    let args: Vec<(&str, &str)> = vars.iter().map(|v| (*v, marker)).collect();
    let text = ta(lang, id, &args);
    let longest = text
        .split(marker)
        .max_by_key(|part| part.chars().count())
        .unwrap_or_default()
        .to_string();
    assert!(longest.chars().count() >= 3, "{id}: {text:?}");
    longest
}

async fn sign_in(b: &Browser, app: &TestApp, lang: Lang) {
    b.open("/console").await;
    // Not signed in: the sign-in page.
    b.wait_for("#login-form").await;
    b.shot("sign-in-form").await;
    b.type_into("#username", &app.admin_username).await;
    b.type_into("#password", "not-the-password").await;
    b.submit("#sign-in").await;
    b.wait_text(
        ".flash.error",
        &msg::WRONG_USERNAME_OR_PASSWORD.render(lang),
    )
    .await;
    b.type_into("#password", &app.admin_password).await;
    b.submit("#sign-in").await;
    b.wait_text("#whoami", &app.admin_username).await;
    b.shot("dashboard").await;
}

/// Uploads a CSV with a bad row (refused in the preview), then the fixed file; returns
/// the stems imported.
async fn import_csv(b: &Browser, app: &TestApp, lang: Lang) -> Vec<String> {
    let before = app.scalar("SELECT count(*) FROM questions", &[]).await;
    b.click_link(&lang.t("nav-import")).await;
    b.wait_for("#upload-form").await;
    let header = "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef";
    let bad = format!(
        "{header}\n{GEO},text,2,Which ocean is the largest?,Pacific,Atlantic,Indian,,,,The Pacific covers a third of the Earth.,,\nnowhere,text,2,Broken row?,A,B,C,,,,,,\n"
    );
    let good = format!(
        "{header}\n{GEO},text,2,Which ocean is the largest?,Pacific,Atlantic,Indian,,,,The Pacific covers a third of the Earth.,,\n{GEO},text,3,\"Which desert is the largest, poles aside?\",Sahara,Gobi,Kalahari,,,,Hot deserts only.,,\n"
    );
    let bad_path = b.write_file("bad.csv", &bad);
    let good_path = b.write_file("good.csv", &good);

    b.upload("#csv-file", &bad_path).await;
    b.submit("#check-file").await;
    b.wait_text(
        "#preview-failed",
        &ta(lang, "import-some-fail", &[("failed", "1"), ("total", "2")]),
    )
    .await;
    b.wait_text(
        "#preview",
        &fixed(lang, "err-category-id-cat-does-not-exist", &["cat"]),
    )
    .await;
    b.shot("csv-preview-refused").await;
    assert_eq!(
        app.scalar("SELECT count(*) FROM questions", &[]).await,
        before,
        "a preview writes nothing"
    );

    b.upload("#csv-file", &good_path).await;
    b.submit("#check-file").await;
    b.wait_text(
        "#preview-ok",
        &ta(lang, "import-all-pass", &[("count", "2")]),
    )
    .await;
    b.shot("csv-preview-ok").await;
    b.submit("#import-now").await;
    b.wait_text("#flash", &ta(lang, "import-done", &[("count", "2")]))
        .await;
    b.shot("csv-imported").await;
    assert_eq!(
        app.scalar("SELECT count(*) FROM questions", &[]).await,
        before + 2
    );
    vec![
        "Which ocean is the largest?".to_string(),
        "Which desert is the largest, poles aside?".to_string(),
    ]
}

/// One question through the editor's status buttons (htmx fragments), the other by a
/// batch publish from the list.
async fn review_and_publish(b: &Browser, app: &TestApp, stems: &[String], lang: Lang) {
    let status_of = |stem: &str| {
        let stem = stem.to_string();
        async move {
            app.text(
                "SELECT status FROM questions WHERE stem_text = $1",
                &[&stem],
            )
            .await
        }
    };
    // The first: submit for review, then publish, on its page.
    b.open("/console/questions?status=draft").await;
    b.click_link(&stems[0]).await;
    b.wait_for("#question-form").await;
    assert!(
        b.missing("#move-published").await,
        "a draft cannot be published"
    );
    b.click("#move-reviewing").await;
    b.wait_text("#question-status", &lang.t("status-reviewing"))
        .await;
    b.shot("question-in-review").await;
    b.click("#move-published").await;
    b.wait_text("#question-status", &lang.t("status-published"))
        .await;
    b.shot("question-published").await;
    assert_eq!(status_of(&stems[0]).await, "published");

    // The second: to review, then a batch publish with a draft in the selection.
    b.open("/console/questions?status=draft").await;
    b.click_link(&stems[1]).await;
    b.click("#move-reviewing").await;
    b.wait_text("#question-status", &lang.t("status-reviewing"))
        .await;
    let draft_stem = "A draft left behind?";
    b.open("/console/questions/new").await;
    b.type_into("#stem", draft_stem).await;
    b.type_into("#correct-answer", "Yes").await;
    b.type_into("#distractors", "No\nMaybe").await;
    b.submit("#save-question").await;
    b.wait_text("#flash", &lang.t("q-created")).await;

    b.open("/console/questions?sortBy=updatedAt&sortOrder=desc")
        .await;
    b.check_row(&stems[1]).await;
    b.check_row(draft_stem).await;
    b.click("#batch-publish").await;
    let publish = lang.t("q-batch-publish");
    b.wait_text(
        "#batch-result",
        &ta(
            lang,
            "q-batch-summary",
            &[("action", &publish), ("succeeded", "1"), ("total", "2")],
        ),
    )
    .await;
    b.wait_for("#batch-failures").await;
    b.shot("batch-publish-with-failure").await;
    assert_eq!(status_of(&stems[1]).await, "published");
    assert_eq!(status_of(draft_stem).await, "draft");
}

/// A new chapter under the first demo node, a sibling to reorder it against, an edit,
/// a move up, and a delete.
async fn build_skill_tree(b: &Browser, app: &TestApp, lang: Lang) {
    let nodes_of = |title: &str| {
        let title = title.to_string();
        async move {
            app.scalar(
                "SELECT count(*) FROM skill_nodes WHERE title = $1",
                &[&title],
            )
            .await
        }
    };
    b.click_link(&lang.t("nav-skill-tree")).await;
    b.select("#category-select", GEO).await;
    b.submit("#pick-category").await;
    b.wait_for("#skill-tree").await;
    let root = app
        .text(
            "SELECT id FROM skill_nodes WHERE category_id = $1 AND parent_id IS NULL ORDER BY sort_order LIMIT 1",
            &[GEO],
        )
        .await;

    for (title, order) in [("Oceans and seas", "10"), ("Deserts", "11")] {
        b.type_into("#node-title", title).await;
        b.select("#node-parent", &root).await;
        b.type_into("#node-sort-order", order).await;
        b.submit("#add-node").await;
        b.wait_text("#skill-tree", title).await;
    }
    b.shot("skill-tree-nodes-added").await;
    let oceans = app
        .text(
            "SELECT id FROM skill_nodes WHERE title = 'Oceans and seas'",
            &[],
        )
        .await;
    let deserts = app
        .text("SELECT id FROM skill_nodes WHERE title = 'Deserts'", &[])
        .await;

    // Edit: rename a chapter.
    b.submit(&format!("#edit-node-{oceans}")).await;
    b.type_into("#edit-node-title", "Oceans").await;
    b.submit("#save-node").await;
    b.wait_text(&format!("#node-title-{oceans}"), "Oceans")
        .await;
    assert_eq!(nodes_of("Oceans").await, 1);

    // Reorder: deserts before oceans.
    b.submit(&format!("#move-up-{deserts}")).await;
    let order = |id: String| async move {
        app.scalar("SELECT sort_order FROM skill_nodes WHERE id = $1", &[&id])
            .await
    };
    eventually("deserts moved above oceans", || async {
        order(deserts.clone()).await < order(oceans.clone()).await
    })
    .await;
    b.wait_for(&format!("#node-{deserts}")).await;
    b.shot("skill-tree-reordered").await;

    // Delete.
    b.submit(&format!("#delete-node-{deserts}")).await;
    eventually("the node is deleted", || async {
        nodes_of("Deserts").await == 0
    })
    .await;
    b.wait_for(&format!("#node-{oceans}")).await;
    assert!(b.missing(&format!("#node-{deserts}")).await);
    b.shot("skill-tree-node-deleted").await;
}

/// Finds a player, bans them (the player API then refuses their token), unbans.
async fn ban_player(b: &Browser, app: &TestApp, lang: Lang) {
    let (player_id, token, _) = app.guest("e2e-player-device").await;
    app.get("/v1/auth/me", Some(&token)).await.ok();
    b.click_link(&lang.t("nav-players")).await;
    b.type_into("#player-search", &player_id).await;
    b.click_link_containing(&format!("/console/players/{player_id}"))
        .await;
    b.wait_for("#ban-form").await;
    b.type_into("#ban-reason", "Answer sharing").await;
    b.click("#ban-player").await;
    b.wait_text("#ban-status", &lang.t("people-banned")).await;
    b.shot("player-banned").await;
    app.get("/v1/auth/me", Some(&token))
        .await
        .assert_error(403, "FORBIDDEN");

    b.click("#unban-player").await;
    b.wait_text("#ban-status", &lang.t("people-not-banned"))
        .await;
    b.shot("player-unbanned").await;
    app.get("/v1/auth/me", Some(&token)).await.ok();
}

/// A published question edited once (version 2), then answered 60 times with a
/// distractor ahead of the key; after the statistics job: the dashboard's charts, the
/// "Needs attention" screen, the question's page (bars, line, flags in words, the diff of
/// its two versions), a revert, and the bulk "send to review".
async fn question_quality(b: &Browser, app: &TestApp, lang: Lang) {
    let (admin, _, _) = app.admin_login().await;
    let track = app
        .text("SELECT id FROM categories WHERE slug = $1", &[GEO])
        .await;
    let question = app
        .text(
            "SELECT id FROM questions WHERE category_id = $1 AND status = 'published' ORDER BY id LIMIT 1",
            &[&track],
        )
        .await;
    let q = app
        .admin_get(&format!("/v1/admin/questions/{question}"), Some(&admin))
        .await
        .ok()
        .clone();
    let stem = format!("{} (reworded)", q["stem"]["text"].as_str().unwrap());
    app.call(
        tests::Service::Admin,
        reqwest::Method::PUT,
        &format!("/v1/admin/questions/{question}"),
        Some(serde_json::json!({ "stem": { "text": stem } })),
        Some(&admin),
    )
    .await
    .ok();
    let answer = q["correctAnswer"].as_str().unwrap().to_string();
    let distractors: Vec<String> = q["distractors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().to_string())
        .collect();
    let (player, _, _) = app.guest("e2e-quality-player").await;
    let options = serde_json::json!(
        std::iter::once(&answer)
            .chain(&distractors)
            .enumerate()
            .map(|(i, text)| serde_json::json!({ "id": format!("o{i}"), "text": text }))
            .collect::<Vec<_>>()
    )
    .to_string();
    // older than the statistics job's settle window, so its next run reads them
    let at = app.ctx.clock.now_ms() - 10 * 60_000;
    let mut tx = app.ctx.db.begin().await.unwrap();
    for i in 0..60_i64 {
        let session = format!("e2e-quality-{i}");
        // 35 pick the first distractor, 25 the answer
        let picked = if i < 35 { "o1" } else { "o0" };
        shared::in_tx!(&mut tx, |ex| {
            sqlx::query(
                "INSERT INTO challenge_sessions (id, player_id, track_id, node_id, status, created_at)
                 VALUES ($1, $2, $3, 'e2e-node', 'finished', $4)",
            )
            .bind(&session)
            .bind(&player)
            .bind(&track)
            .bind(at)
            .execute(&mut *ex)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO challenge_session_questions (session_id, position, question_id, options,
                                                          correct_option_id, question_version)
                 VALUES ($1, 0, $2, $3, 'o0', 2)",
            )
            .bind(&session)
            .bind(&question)
            .bind(&options)
            .execute(&mut *ex)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO challenge_answers (id, session_id, player_id, question_id, question_version,
                                                selected_option_id, is_correct, xp_delta, hearts_delta,
                                                time_ms, created_at)
                 VALUES ($1, $1, $2, $3, 2, $4, $5, 0, 0, $6, $7)",
            )
            .bind(&session)
            .bind(&player)
            .bind(&question)
            .bind(picked)
            .bind(picked == "o0")
            .bind(3000 + i * 50)
            .bind(at)
            .execute(&mut *ex)
            .await
            .unwrap();
        });
    }
    tx.commit().await.unwrap();
    let metrics = shared::metrics::Metrics::new(app.ctx.db.clone());
    assert!(
        shared::services::jobs::run(
            &app.ctx,
            "e2e",
            shared::services::jobs::Job::QuestionStats,
            &metrics.jobs()
        )
        .await
    );

    b.open("/console").await;
    b.wait_for("#daily-charts svg").await;
    b.shot("dashboard-30-days").await;

    b.click("#attention-link").await;
    b.wait_for("#attention-table").await;
    let miskeyed = fixed(
        lang,
        "quality-flag-likely-miskeyed",
        &["top", "answer", "top_rate", "answer_rate"],
    );
    b.wait_text("#attention-table", &miskeyed).await;
    b.shot("needs-attention").await;

    b.click_link(&stem).await;
    b.wait_for("#question-picks svg").await;
    b.wait_text("#question-flags", &miskeyed).await;
    b.wait_text("#version-diff", "reworded").await;
    b.shot("question-statistics-and-versions").await;

    // the bulk move: the flagged question goes back to review
    b.open("/console/attention").await;
    b.check_row(&stem).await;
    b.click("#send-to-review").await;
    b.wait_text(
        ".flash",
        &ta(lang, "quality-review-sent", &[("count", "1")]),
    )
    .await;
    b.shot("sent-to-review").await;
    assert_eq!(
        app.text("SELECT status FROM questions WHERE id = $1", &[&question])
            .await,
        "reviewing"
    );

    // a revert makes version 3 with version 1's content, and fresh numbers
    b.open(&format!("/console/questions/{question}/stats"))
        .await;
    b.click("#revert-1").await;
    b.wait_text(
        ".flash",
        &ta(lang, "quality-reverted", &[("new", "3"), ("version", "1")]),
    )
    .await;
    b.shot("question-reverted").await;
    assert_eq!(
        app.text(
            "SELECT stem_text FROM questions WHERE id = $1",
            &[&question]
        )
        .await,
        q["stem"]["text"].as_str().unwrap()
    );
}

/// The TOTP code of `secret` at the instant `at` (Unix seconds).
fn totp_code(secret: &str, at: i64) -> String {
    let totp = totp_rs::Builder::new()
        .with_secret(totp_rs::Secret::try_from_base32(secret).unwrap())
        .build()
        .unwrap();
    totp.generate(u64::try_from(at).unwrap()).to_string()
}

/// The MFA page from the header: set-up shows an inline SVG QR code and the secret, a
/// code turns MFA on and shows the recovery codes once; after signing out, sign-in needs
/// the next code.
async fn mfa(b: &Browser, app: &TestApp, lang: Lang) {
    // A step with at least 20 s left, so this step's code and the next stay valid.
    let into = chrono::Utc::now().timestamp_millis().rem_euclid(30_000);
    if into > 10_000 {
        tokio::time::sleep(Duration::from_millis(
            u64::try_from(30_000 - into + 200).unwrap(),
        ))
        .await;
    }
    let t0 = chrono::Utc::now().timestamp();
    b.click("#mfa-link").await;
    b.wait_text("#mfa-state", &lang.t("mfa-off-badge")).await;
    // a session alone sets up nothing: the password is typed again
    b.type_into("#mfa-setup-password", &app.admin_password)
        .await;
    b.submit("#mfa-setup").await;
    b.wait_for("#mfa-qr-code").await;
    b.shot("mfa-qr-code").await;
    let secret = b.wait_for("#mfa-secret").await.text().await.unwrap();
    b.type_into("#mfa-enable-code", &totp_code(secret.trim(), t0))
        .await;
    b.type_into("#mfa-enable-password", &app.admin_password)
        .await;
    b.submit("#mfa-enable").await;
    b.wait_for("#recovery-codes").await;
    b.shot("mfa-recovery-codes").await;
    assert_eq!(
        app.scalar("SELECT count(*) FROM admin_recovery_codes", &[])
            .await,
        10
    );
    b.submit("#sign-out").await;
    b.wait_text(".flash", &lang.t("sign-in-signed-out")).await;
    b.type_into("#username", &app.admin_username).await;
    b.type_into("#password", &app.admin_password).await;
    b.submit("#sign-in").await;
    b.wait_text(".flash.error", &lang.t("sign-in-mfa-needed"))
        .await;
    b.shot("sign-in-asks-for-the-code").await;
    b.type_into("#password", &app.admin_password).await;
    b.type_into("#mfa-code", &totp_code(secret.trim(), t0 + 30))
        .await;
    b.submit("#sign-in").await;
    b.wait_text("#whoami", &app.admin_username).await;
    // the sign-in lists what changed on the account since the last one
    let changes = b.wait_for(".flash.error").await.text().await.unwrap();
    assert!(changes.contains(&app.admin_username), "{changes}");
    b.shot("signed-in-with-a-code").await;
}

/// Polls `check` (a database condition behind a page load) for up to 15 seconds.
async fn eventually<F, Fut>(what: &str, check: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while !check().await {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
