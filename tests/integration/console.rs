//! The HTML console's foundation and question workflow through HTTP, as a browser
//! without JavaScript (forms and redirects) and as htmx (fragments): sessions, CSRF,
//! the question bank, status moves, batches and the CSV import.

use admin_console::console::{assets, urls};
use sha2::{Digest, Sha256};
use tests::console::Page;
use tests::{TestApp, both_engines, both_engines_demo};

both_engines!(
    sign_in_sets_a_strict_http_only_cookie_and_sign_out_ends_it,
    wrong_credentials_show_the_reason,
    sessions_live_in_the_database,
    deactivating_an_admin_ends_their_console_session,
    every_form_refuses_a_missing_or_wrong_csrf_token,
    unknown_pages_and_assets,
    every_named_route_is_served,
    assets_are_served_under_content_hashed_urls,
);

both_engines_demo!(
    question_list_filters_sorts_and_pages,
    question_editor_creates_edits_and_refuses_bad_input,
    status_moves_follow_the_transition_table,
    batch_actions_show_per_id_failures,
    csv_preview_shows_failing_rows_and_writes_nothing,
    csv_import_is_all_or_nothing_and_template_downloads,
);

const GEO: &str = "world-geography";

async fn question_count(app: &TestApp) -> i64 {
    app.scalar("SELECT count(*) FROM questions", &[]).await
}

fn rows(page: &Page) -> usize {
    page.body.matches("<tr data-id=").count()
}

async fn sign_in_sets_a_strict_http_only_cookie_and_sign_out_ends_it(app: TestApp) {
    let mut browser = app.console();
    let first = browser.get("/console").await;
    first.assert_status(303);
    assert_eq!(first.location(), Some("/console/login"));

    browser.get("/console/login").await.assert_status(200);
    let signed_in = browser
        .post(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", &app.admin_password),
            ],
        )
        .await;
    signed_in.assert_status(303);
    let cookie = signed_in.header("set-cookie").unwrap().to_string();
    assert!(cookie.starts_with("quiz_console="), "{cookie}");
    for part in ["HttpOnly", "SameSite=Strict", "Path=/console"] {
        assert!(cookie.contains(part), "{part} missing from {cookie}");
    }
    assert!(
        !cookie.contains("Secure"),
        "plain HTTP in development: {cookie}"
    );

    let home = browser.get("/console").await;
    home.assert_status(200)
        .assert_contains(&app.admin_username)
        .assert_contains("super_admin")
        .assert_contains("stat-total-questions");
    // Signed in, the sign-in page sends to the dashboard.
    assert_eq!(browser.get("/console/login").await.status, 303);

    let out = browser.post("/console/logout", &[]).await;
    out.assert_status(303);
    // The message rides in the query: signing out stores no new session for it.
    assert_eq!(out.location(), Some("/console/login?signed-out"));
    browser
        .follow(&out)
        .await
        .assert_status(200)
        .assert_contains("Signed out.");
    assert_eq!(
        app.scalar("SELECT count(*) FROM console_sessions", &[])
            .await,
        0
    );
    assert_eq!(browser.get("/console").await.status, 303);
}

async fn wrong_credentials_show_the_reason(app: TestApp) {
    let mut browser = app.console();
    browser.get("/console/login").await;
    let page = browser
        .post(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", "wrong-password"),
            ],
        )
        .await;
    page.assert_status(401)
        .assert_contains("wrong username or password")
        .assert_contains(&app.admin_username);
    let page = browser
        .post(
            "/console/login",
            &[("username", "x"), ("password", "short")],
        )
        .await;
    page.assert_status(400)
        .assert_contains("at least 8 characters");
    assert_eq!(browser.get("/console").await.status, 303);
}

async fn sessions_live_in_the_database(app: TestApp) {
    let browser = app.console_signed_in().await;
    let sessions = app
        .scalar("SELECT count(*) FROM console_sessions", &[])
        .await;
    assert!(sessions >= 1);
    // Another process reading the same table sees the session: deleting the row (as
    // another process's sign-out would) ends it here too.
    let mut browser = browser;
    browser.get("/console").await.assert_status(200);
    app.exec("DELETE FROM console_sessions", &[]).await;
    assert_eq!(browser.get("/console").await.status, 303);
}

async fn deactivating_an_admin_ends_their_console_session(app: TestApp) {
    let mut editor = app.console_as_plain_admin().await;
    editor.get("/console").await.assert_status(200);
    let (token, _, _) = app.admin_login().await;
    let username = app
        .text(
            "SELECT username FROM admins WHERE role = 'admin' LIMIT 1",
            &[],
        )
        .await;
    let id = app
        .text("SELECT id FROM admins WHERE username = $1", &[&username])
        .await;
    let r = app
        .call(
            tests::Service::Admin,
            reqwest::Method::PUT,
            &format!("/v1/admin/admins/{id}"),
            Some(serde_json::json!({ "isActive": 0 })),
            Some(&token),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let page = editor.get("/console/questions").await;
    assert_eq!(page.status, 303);
    assert_eq!(page.location(), Some("/console/login"));
    // htmx is told to navigate instead of swapping the sign-in page into a fragment.
    let page = editor.htmx_get("/console/questions").await;
    assert_eq!(page.header("hx-redirect"), Some("/console/login"));
}

async fn every_form_refuses_a_missing_or_wrong_csrf_token(app: TestApp) {
    // The sign-in form too: a fresh browser without the form's token.
    let mut stranger = app.console();
    let page = stranger
        .post_raw(
            "/console/login",
            &[
                ("username", &app.admin_username),
                ("password", &app.admin_password),
            ],
        )
        .await;
    page.assert_status(403).assert_contains("security token");

    let mut browser = app.console_signed_in().await;
    for (path, fields) in [
        (
            "/console/questions/batch",
            vec![
                ("action", "delete"),
                ("ids", "00000000-0000-0000-0000-000000000000"),
            ],
        ),
        ("/console/questions/new", vec![("stem", "x")]),
        ("/console/import", vec![("csv", "x")]),
        ("/console/logout", vec![]),
    ] {
        let page = browser.post_raw(path, &fields).await;
        page.assert_status(403);
        let mut with_wrong = fields.clone();
        with_wrong.push(("_csrf", "not-the-token"));
        browser.post_raw(path, &with_wrong).await.assert_status(403);
    }
    // Still signed in: the refused sign-out did nothing.
    browser.get("/console").await.assert_status(200);
    // htmx without the header is refused as well.
    let resp = browser
        .client
        .post(format!("{}/console/questions/batch", browser.base))
        .header("HX-Request", "true")
        .form(&[("action", "delete")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    assert_eq!(
        resp.headers().get("hx-retarget").unwrap().to_str().unwrap(),
        "#flash"
    );
}

async fn unknown_pages_and_assets(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    browser
        .get("/console/no-such-page")
        .await
        .assert_status(404)
        .assert_contains("no such console page");
    browser
        .get("/console/questions/00000000-0000-0000-0000-000000000000")
        .await
        .assert_status(404)
        .assert_contains("NOT_FOUND");
    let css = browser.get("/console-assets/css/console.css").await;
    css.assert_status(200);
    assert_eq!(css.header("content-type"), Some("text/css"));
    let js = browser
        .get("/console-assets/vendor/htmx-2.0.11.min.js")
        .await;
    js.assert_status(200);
    assert!(js.header("content-type").unwrap().contains("javascript"));
    assert!(js.header("set-cookie").is_none());
    browser
        .get("/console-assets/../Cargo.toml")
        .await
        .assert_status(404);
    // The JSON API keeps its envelope for unknown routes.
    let api = app.admin_get("/v1/admin/nope", None).await;
    assert_eq!(api.status, 404);
    assert_eq!(api.body["error"]["code"], "NOT_FOUND");
}

/// Every pattern `urls::ROUTES` names is routed: requested (GET, a placeholder for its
/// id) by a signed-in super_admin, none gets the console's page for unknown paths (a
/// POST-only route answers 405, an unknown id its own 404). The other half — routers
/// register no path that is not named there — is the unit test
/// `urls::tests::routers_and_templates_take_their_paths_from_here`.
async fn every_named_route_is_served(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let unrouted = "no such console page";
    for pattern in urls::ROUTES {
        if *pattern == urls::UNKNOWN {
            continue;
        }
        let path = pattern
            .replace("{id}", "00000000-0000-0000-0000-000000000000")
            .replace("{*path}", urls::STYLESHEET);
        let page = browser.get(&path).await;
        assert!(
            !page.contains(unrouted),
            "{pattern} ({path}) is named in urls.rs but not routed"
        );
        assert!(page.status < 500, "{path}: {}", page.status);
    }
    // The fallback itself is routed too.
    let unknown = urls::UNKNOWN.replace("{*rest}", "no/such/page");
    browser
        .get(&unknown)
        .await
        .assert_status(404)
        .assert_contains(unrouted);
}

/// Pages link to assets by content-hashed URLs, served with a year of immutable caching
/// and the content's SHA-256 as ETag; `If-None-Match` is 304; the plain URL still serves
/// (five minutes, same ETag); a hash that is not the content's is 404, never cached.
async fn assets_are_served_under_content_hashed_urls(app: TestApp) {
    let css_url = urls::asset(urls::STYLESHEET);
    let htmx_url = urls::asset(urls::HTMX);
    assert!(
        css_url.starts_with("/console-assets/css/console.") && css_url.ends_with(".css"),
        "{css_url}"
    );
    assert_ne!(css_url, "/console-assets/css/console.css");

    // Every kind of page links to them: the sign-in page, signed-in pages, error pages.
    let mut browser = app.console();
    browser
        .get("/console/login")
        .await
        .assert_contains(&format!("href=\"{css_url}\""));
    let mut browser = app.console_signed_in().await;
    browser
        .get("/console")
        .await
        .assert_contains(&format!("href=\"{css_url}\""))
        .assert_contains(&format!("src=\"{htmx_url}\""));
    browser
        .get("/console/no-such-page")
        .await
        .assert_status(404)
        .assert_contains(&format!("href=\"{css_url}\""));

    for url in [&css_url, &htmx_url] {
        let asset = browser.get(url).await;
        asset.assert_status(200);
        assert_eq!(asset.header("cache-control"), Some(assets::IMMUTABLE));
        assert!(asset.header("set-cookie").is_none());
        let digest = format!("{:x}", Sha256::digest(asset.body.as_bytes()));
        let etag = format!("\"{digest}\"");
        assert_eq!(asset.header("etag"), Some(etag.as_str()), "{url}");
        assert!(
            url.contains(&format!(".{}.", &digest[..assets::HASH_LEN])),
            "{url}"
        );

        // Revalidation: 304 without a body, with the validators.
        for tag in [
            etag.clone(),
            format!("W/{etag}"),
            format!("\"other\", {etag}"),
        ] {
            let resp = browser
                .client
                .get(format!("{}{url}", browser.base))
                .header("If-None-Match", tag)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), 304, "{url}");
            assert_eq!(resp.headers()["etag"].to_str().unwrap(), etag);
            assert_eq!(
                resp.headers()["cache-control"].to_str().unwrap(),
                assets::IMMUTABLE
            );
            assert!(resp.bytes().await.unwrap().is_empty());
        }
        let changed = browser
            .client
            .get(format!("{}{url}", browser.base))
            .header("If-None-Match", "\"not-this\"")
            .send()
            .await
            .unwrap();
        assert_eq!(changed.status(), 200);

        // Another hash (an older or newer deploy's) is not this content.
        let short = &digest[..assets::HASH_LEN];
        let other = if short == "00000000" {
            "11111111"
        } else {
            "00000000"
        };
        let stale = browser.get(&url.replace(short, other)).await;
        stale.assert_status(404);
        assert_eq!(stale.header("cache-control"), Some("no-store"));
    }

    // The plain URL: short caching, the same ETag, 304 as well; HEAD without a body.
    let plain = browser.get("/console-assets/css/console.css").await;
    plain.assert_status(200);
    assert_eq!(plain.header("cache-control"), Some(assets::PLAIN));
    let etag = plain.header("etag").unwrap().to_string();
    assert_eq!(
        Some(etag.as_str()),
        browser.get(&css_url).await.header("etag")
    );
    let resp = browser
        .client
        .get(format!("{}/console-assets/css/console.css", browser.base))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 304);
    let head = browser
        .client
        .head(format!("{}{css_url}", browser.base))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers()["etag"].to_str().unwrap(), etag);
    assert!(head.bytes().await.unwrap().is_empty());
}

async fn question_list_filters_sorts_and_pages(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let page = browser.get("/console/questions").await;
    page.assert_status(200).assert_contains("162 questions");
    assert_eq!(rows(&page), 20);
    assert!(page.contains("id=\"next-page\""));

    let page = browser.get("/console/questions?page=9").await;
    assert_eq!(rows(&page), 2);
    assert!(!page.contains("id=\"next-page\""));

    let page = browser
        .get(&format!(
            "/console/questions?categoryId={GEO}&status=published&sortBy=difficulty&sortOrder=asc"
        ))
        .await;
    page.assert_status(200).assert_contains("30 questions");
    assert!(page.contains(&format!("option value=\"{GEO}\" selected")));

    let page = browser.get("/console/questions?status=draft").await;
    page.assert_contains("0 questions")
        .assert_contains("No question matches");

    let stem = app
        .text(
            "SELECT stem_text FROM questions WHERE category_id = $1 ORDER BY id LIMIT 1",
            &[GEO],
        )
        .await;
    let word = stem.split_whitespace().max_by_key(|w| w.len()).unwrap();
    let word: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
    let page = browser
        .get(&format!("/console/questions?keyword={word}"))
        .await;
    page.assert_status(200);
    assert!(rows(&page) >= 1);

    // htmx asks for the table only.
    let fragment = browser
        .htmx_get("/console/questions?status=published")
        .await;
    fragment
        .assert_status(200)
        .assert_contains("id=\"batch-form\"");
    assert!(!fragment.contains("<html"));

    browser
        .get("/console/questions?difficulty=hard")
        .await
        .assert_status(400)
        .assert_contains("difficulty must be a whole number");
    browser
        .get("/console/questions?status=lost")
        .await
        .assert_status(400)
        .assert_contains("VALIDATION_ERROR");
}

async fn create_draft(app: &TestApp, browser: &mut tests::console::Console, stem: &str) -> String {
    browser
        .get("/console/questions/new")
        .await
        .assert_status(200);
    let page = browser
        .post(
            "/console/questions/new",
            &[
                ("stem", stem),
                ("contentType", "text"),
                ("correctAnswer", "Paris"),
                ("distractors", "Lyon\nMarseille\n\n"),
                ("categoryId", GEO),
                ("difficulty", "2"),
                ("cardSummary", "Paris is the capital."),
                ("cardTitle", ""),
                ("cardDeepDive", ""),
                ("cardSourceRef", ""),
            ],
        )
        .await;
    page.assert_status(303);
    let location = page.location().unwrap().to_string();
    let id = location.rsplit('/').next().unwrap().to_string();
    assert_eq!(
        app.text("SELECT status FROM questions WHERE id = $1", &[&id])
            .await,
        "draft"
    );
    id
}

async fn question_editor_creates_edits_and_refuses_bad_input(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let id = create_draft(&app, &mut browser, "Capital of France?").await;
    let editor = browser.get(&format!("/console/questions/{id}")).await;
    editor
        .assert_status(200)
        .assert_contains("Question created as a draft.")
        .assert_contains("Capital of France?")
        .assert_contains("Lyon\nMarseille")
        .assert_contains("Paris is the capital.");

    let saved = browser
        .post(
            &format!("/console/questions/{id}"),
            &[
                ("stem", "Capital city of France?"),
                ("contentType", "text"),
                ("correctAnswer", "Paris"),
                ("distractors", "Lyon\nNice"),
                ("categoryId", GEO),
                ("difficulty", "3"),
                ("cardSummary", "Paris, on the Seine."),
                ("cardDeepDive", "Since 987."),
            ],
        )
        .await;
    saved.assert_status(303);
    let q = app
        .admin_get(
            &format!("/v1/admin/questions/{id}"),
            Some(&app.admin_login().await.0),
        )
        .await;
    assert_eq!(q.body["data"]["stem"]["text"], "Capital city of France?");
    assert_eq!(q.body["data"]["difficulty"], 3);
    assert_eq!(
        q.body["data"]["distractors"],
        serde_json::json!(["Lyon", "Nice"])
    );
    assert_eq!(q.body["data"]["knowledgeCard"]["deepDive"], "Since 987.");

    // One wrong answer only: refused with the rule, the typed text kept.
    let bad = browser
        .post(
            &format!("/console/questions/{id}"),
            &[
                ("stem", "Changed?"),
                ("contentType", "text"),
                ("correctAnswer", "Paris"),
                ("distractors", "Lyon"),
                ("categoryId", GEO),
                ("difficulty", "3"),
            ],
        )
        .await;
    bad.assert_status(400)
        .assert_contains("id=\"form-error\"")
        .assert_contains("Changed?");
    assert_eq!(
        app.text("SELECT stem_text FROM questions WHERE id = $1", &[&id])
            .await,
        "Capital city of France?"
    );
    let before = question_count(&app).await;
    let bad_new = browser
        .post(
            "/console/questions/new",
            &[
                ("stem", ""),
                ("contentType", "pdf"),
                ("categoryId", "nowhere"),
            ],
        )
        .await;
    bad_new
        .assert_status(400)
        .assert_contains("id=\"form-error\"");
    assert_eq!(question_count(&app).await, before);
}

async fn status_moves_follow_the_transition_table(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let id = create_draft(&app, &mut browser, "Longest river?").await;
    let editor = browser.get(&format!("/console/questions/{id}")).await;
    // From draft: review or archive, never publish.
    editor
        .assert_contains("id=\"move-reviewing\"")
        .assert_contains("id=\"move-archived\"");
    assert!(!editor.contains("id=\"move-published\""));

    // Publishing a draft anyway is refused with the API's code.
    let refused = browser
        .post(
            &format!("/console/questions/{id}/status"),
            &[("status", "published")],
        )
        .await;
    refused
        .assert_status(400)
        .assert_contains("INVALID_STATUS_TRANSITION");

    // No-JS: a redirect back with the message.
    let moved = browser
        .post(
            &format!("/console/questions/{id}/status"),
            &[("status", "reviewing")],
        )
        .await;
    let editor = browser.follow(&moved).await;
    editor
        .assert_contains("Status is now reviewing.")
        .assert_contains("id=\"move-published\"")
        .assert_contains("id=\"move-draft\"");

    // htmx: the status panel fragment.
    let fragment = browser
        .htmx_post(
            &format!("/console/questions/{id}/status"),
            &[("status", "published")],
        )
        .await;
    fragment
        .assert_status(200)
        .assert_contains("Status is now published.")
        .assert_contains("id=\"move-archived\"");
    assert!(!fragment.contains("<html"));
    assert_eq!(
        app.text("SELECT status FROM questions WHERE id = $1", &[&id])
            .await,
        "published"
    );
    let audited = app
        .scalar(
            "SELECT count(*) FROM audit_log WHERE target_id = $1",
            &[&id],
        )
        .await;
    assert!(audited >= 3, "create and two moves are audited");

    // htmx refusal: the message goes to the flash area.
    let refused = browser
        .htmx_post(
            &format!("/console/questions/{id}/status"),
            &[("status", "reviewing")],
        )
        .await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.header("hx-retarget"), Some("#flash"));
    refused.assert_contains("flash error");
    assert!(!refused.contains("<html"));
    // every refusal answers htmx so, a record that is not there as well; a plain
    // browser gets the error page
    let gone = browser
        .htmx_get("/console/questions/no-such-question")
        .await;
    assert_eq!(gone.status, 404);
    assert_eq!(gone.header("hx-retarget"), Some("#flash"));
    gone.assert_contains("flash error");
    assert!(!gone.contains("<html"));
    let page = browser.get("/console/questions/no-such-question").await;
    page.assert_status(404).assert_contains("<html");
}

async fn batch_actions_show_per_id_failures(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let draft = create_draft(&app, &mut browser, "Batch draft?").await;
    let reviewing = create_draft(&app, &mut browser, "Batch reviewing?").await;
    browser
        .post(
            &format!("/console/questions/{reviewing}/status"),
            &[("status", "reviewing")],
        )
        .await
        .assert_status(303);

    // No-JS: a redirect to the list with a summary naming the refused id.
    let page = browser
        .post(
            "/console/questions/batch",
            &[
                ("action", "publish"),
                ("ids", &draft),
                ("ids", &reviewing),
                ("return_to", "/console/questions?status=reviewing"),
            ],
        )
        .await;
    assert_eq!(page.location(), Some("/console/questions?status=reviewing"));
    let list = browser.follow(&page).await;
    list.assert_contains("Publish: 1 of 2 moved.")
        .assert_contains(&draft);
    assert_eq!(
        app.text("SELECT status FROM questions WHERE id = $1", &[&reviewing])
            .await,
        "published"
    );

    // htmx: the refreshed table with the failures listed.
    let fragment = browser
        .htmx_post(
            "/console/questions/batch",
            &[
                ("action", "archive"),
                ("ids", &draft),
                ("ids", "00000000-0000-0000-0000-000000000000"),
                ("return_to", "/console/questions?status=archived"),
            ],
        )
        .await;
    fragment
        .assert_status(200)
        .assert_contains("id=\"batch-failures\"")
        .assert_contains("Archive: 1 of 2 moved.")
        .assert_contains("00000000-0000-0000-0000-000000000000");
    assert_eq!(
        rows(&fragment),
        1,
        "the archived filter now lists the draft"
    );

    // Nothing selected, or an unknown action: a clear message.
    browser
        .post("/console/questions/batch", &[("action", "publish")])
        .await
        .assert_status(400)
        .assert_contains("select at least one question");
    browser
        .post(
            "/console/questions/batch",
            &[("action", "explode"), ("ids", &draft)],
        )
        .await
        .assert_status(400);
    // A foreign return address is not followed.
    let page = browser
        .post(
            "/console/questions/batch",
            &[
                ("action", "delete"),
                ("ids", &draft),
                ("return_to", "https://evil.example/"),
            ],
        )
        .await;
    assert_eq!(page.location(), Some("/console/questions"));
}

const HEADER: &str = "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef\n";

async fn csv_preview_shows_failing_rows_and_writes_nothing(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    browser.get("/console/import").await.assert_status(200);
    let before = question_count(&app).await;
    let csv = format!(
        "{HEADER}{GEO},text,2,Good row?,A,B,C,,,,Card,,\n\
         nowhere,text,2,Unknown category?,A,B,C,,,,,,\n\
         {GEO},pdf,9,Bad type?,A,B,,,,,,,\n"
    );
    let page = browser
        .upload("/console/import/preview", "mixed.csv", csv.into_bytes())
        .await;
    page.assert_status(400)
        .assert_contains("2 of 3 rows fail")
        .assert_contains("categoryId &#39;nowhere&#39; does not exist")
        .assert_contains("Good row?");
    assert!(!page.contains("id=\"import-now\""));
    assert_eq!(question_count(&app).await, before);

    let page = browser
        .upload("/console/import/preview", "bad.csv", b"a,b\n1,2\n".to_vec())
        .await;
    page.assert_status(400)
        .assert_contains("the header must be exactly");

    // The upload form needs the CSRF token too.
    browser.csrf = "stale".into();
    let page = browser
        .upload(
            "/console/import/preview",
            "x.csv",
            HEADER.as_bytes().to_vec(),
        )
        .await;
    page.assert_status(403);
    assert_eq!(question_count(&app).await, before);
}

async fn csv_import_is_all_or_nothing_and_template_downloads(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let template = browser.get("/console/import/template.csv").await;
    template.assert_status(200);
    assert!(
        template
            .header("content-type")
            .unwrap()
            .starts_with("text/csv")
    );
    assert!(
        template
            .header("content-disposition")
            .unwrap()
            .contains("attachment")
    );
    assert_eq!(template.body.trim_end(), HEADER.trim_end());

    browser.get("/console/import").await;
    let before = question_count(&app).await;
    let csv = format!(
        "{HEADER}{GEO},text,2,\"Quoted, with comma?\",A,B,C,,,,Card one,,\n\
         {GEO},text,3,Second?,A,B,C,D,,,Card two,Deep,Atlas\n"
    );
    let preview = browser
        .upload(
            "/console/import/preview",
            "good.csv",
            csv.clone().into_bytes(),
        )
        .await;
    preview
        .assert_status(200)
        .assert_contains("All 2 rows pass the checks.")
        .assert_contains("id=\"import-now\"");
    assert_eq!(
        question_count(&app).await,
        before,
        "a preview writes nothing"
    );

    let done = browser.post("/console/import", &[("csv", &csv)]).await;
    let list = browser.follow(&done).await;
    list.assert_contains("Imported 2 questions as drafts.")
        .assert_contains("Quoted, with comma?");
    assert_eq!(question_count(&app).await, before + 2);

    // The bank changed between preview and import: nothing is written.
    let stale =
        format!("{HEADER}{GEO},text,2,Fine?,A,B,C,,,,,,\nnowhere,text,2,Gone?,A,B,C,,,,,,\n");
    let page = browser.post("/console/import", &[("csv", &stale)]).await;
    page.assert_status(400)
        .assert_contains("failed validation")
        .assert_contains("does not exist");
    assert_eq!(question_count(&app).await, before + 2);
}
