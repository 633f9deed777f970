//! The question export through HTTP: the list's filters, the imports' formats (the CSV's
//! quoting, the JSON import body), a bank that round-trips into an empty app through
//! each import, keyset batches that lose and repeat nothing, refusals, and the console's
//! download.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock};

use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use shared::services::questions::{CSV_HEADER, EXPORT_BATCH};
use tests::{Service, TestApp, both_engines};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

both_engines!(
    export_returns_exactly_the_filtered_questions,
    export_csv_quoting_survives,
    export_round_trips_through_the_csv_import,
    export_round_trips_through_the_json_import,
    export_larger_than_a_batch_is_complete_without_duplicates,
    export_failing_after_the_first_byte_ends_the_body_early_and_is_logged,
    export_refuses_bad_requests_like_the_list,
    console_export_buttons_carry_the_filters_and_download,
    export_formula_cells_are_quoted_and_import_back,
    exports_are_audited_with_their_format_and_filters,
);

async fn seed_categories(app: &TestApp) {
    for (id, name) in [("cat-a", "Cat A"), ("cat-b", "Cat B")] {
        app.exec(
            "INSERT INTO categories (id, name, slug, created_at, updated_at) VALUES ($1, $2, $1, 0, 0)",
            &[id, name],
        )
        .await;
    }
}

async fn create(app: &TestApp, token: &str, body: Value) -> String {
    let r = app
        .admin_post("/v1/admin/questions", body, Some(token))
        .await;
    r.ok()["id"].as_str().unwrap().to_string()
}

/// One export: status, headers and the body as text.
async fn export(app: &TestApp, token: Option<&str>, query: &str) -> (u16, HeaderMap, String) {
    let mut req = app.client.get(app.url(
        Service::Admin,
        &format!("/v1/admin/questions/export?{query}"),
    ));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    (status, headers, resp.text().await.unwrap())
}

/// The CSV export of `filters`, checked for its headers and first line; the data rows.
async fn export_csv(app: &TestApp, token: &str, filters: &str) -> Vec<Vec<String>> {
    let (status, headers, body) = export(app, Some(token), &format!("format=csv&{filters}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert_eq!(
        headers["content-disposition"],
        "attachment; filename=\"questions.csv\""
    );
    csv_records(&body)
}

/// Every record of a CSV export, after checking its first is the import's header.
fn csv_records(body: &str) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(body.as_bytes());
    let mut records = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect::<Vec<_>>());
    assert_eq!(records.next().unwrap(), CSV_HEADER, "{body}");
    assert!(
        body.starts_with(&format!("{}\r\n", CSV_HEADER.join(","))),
        "{body}"
    );
    records.collect()
}

/// The JSON export of `filters`, checked for its headers and shape; its items.
async fn export_json(app: &TestApp, token: &str, filters: &str) -> Vec<Value> {
    let (status, headers, body) = export(app, Some(token), &format!("format=json&{filters}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(
        headers["content-disposition"],
        "attachment; filename=\"questions.json\""
    );
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(doc.as_object().unwrap().len(), 1, "only `questions`");
    doc["questions"].as_array().unwrap().clone()
}

/// What an import carries of a question (an admin question or an export item: the same
/// keys), to compare field by field. `title`: the CSV has no column for it.
fn portable(q: &Value, title: bool) -> Value {
    let card = &q["knowledgeCard"];
    let card = if card.is_null() {
        Value::Null
    } else {
        json!({
            "title": if title { card["title"].clone() } else { Value::Null },
            "summary": card["summary"],
            "deepDive": card["deepDive"],
            "sourceRef": card["sourceRef"],
        })
    };
    json!({
        "stem": q["stem"]["text"],
        "contentType": q["contentType"],
        "correctAnswer": q["correctAnswer"],
        "distractors": q["distractors"],
        "categoryId": q["categoryId"],
        "difficulty": q["difficulty"],
        "knowledgeCard": card,
    })
}

/// A CSV data row as [`portable`] (empty distractor and card columns are absent).
fn portable_row(r: &[String]) -> Value {
    assert_eq!(r.len(), 13, "{r:?}");
    let opt = |s: &str| {
        if s.is_empty() { Value::Null } else { json!(s) }
    };
    let distractors: Vec<&String> = r[5..10].iter().filter(|d| !d.is_empty()).collect();
    let card = if r[10].is_empty() {
        Value::Null
    } else {
        json!({"title": null, "summary": r[10], "deepDive": opt(&r[11]), "sourceRef": opt(&r[12])})
    };
    json!({
        "stem": r[3],
        "contentType": r[1],
        "correctAnswer": r[4],
        "distractors": distractors,
        "categoryId": r[0],
        "difficulty": r[2].parse::<i64>().unwrap(),
        "knowledgeCard": card,
    })
}

/// The list's questions for `filters` (up to 50), oldest first.
async fn listed(app: &TestApp, token: &str, filters: &str) -> Vec<Value> {
    let r = app
        .admin_get(
            &format!("/v1/admin/questions?limit=50&sortBy=createdAt&sortOrder=asc&{filters}"),
            Some(token),
        )
        .await;
    r.ok().as_array().unwrap().clone()
}

fn sorted(mut v: Vec<Value>) -> Vec<Value> {
    v.sort_by_key(|q| q.to_string());
    v
}

async fn export_returns_exactly_the_filtered_questions(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    let specs = [
        ("cat-a", 1, "A needle in the stem?", "draft"),
        ("cat-a", 3, "Plain A?", "published"),
        ("cat-b", 3, "Plain B?", "published"),
        ("cat-b", 5, "Another B?", "reviewing"),
        ("cat-a", 2, "Hay only?", "archived"),
        ("cat-b", 3, "B with a NEEDLE?", "draft"),
    ];
    let mut ids = Vec::new();
    for (i, (category, difficulty, stem, status)) in specs.into_iter().enumerate() {
        app.clock.advance(chrono::Duration::seconds(1));
        let mut body = json!({
            "stem": {"text": stem},
            "contentType": if i % 2 == 0 { "text" } else { "image" },
            "correctAnswer": format!("right {i}"),
            "distractors": ["wrong 1", "wrong 2", format!("wrong {i}")],
            "categoryId": category,
            "difficulty": difficulty,
        });
        if i % 2 == 1 {
            body["knowledgeCard"] =
                json!({"title": format!("T{i}"), "summary": format!("S{i}"), "sourceRef": "R"});
        }
        let id = create(&app, &token, body).await;
        app.exec(
            "UPDATE questions SET status = $1 WHERE id = $2",
            &[status, &id],
        )
        .await;
        ids.push(id);
    }
    app.exec(
        "UPDATE questions SET source = 'ugc' WHERE id = $1",
        &[&ids[2]],
    )
    .await;

    for (filters, expected) in [
        ("", 6),
        ("categoryId=cat-a", 3),
        ("status=published", 2),
        ("keyword=needle", 2),
        ("categoryId=cat-b&difficulty=3", 2),
        ("source=ugc", 1),
        ("source=system&status=draft&keyword=NEEDLE", 2),
        ("categoryId=no-such-category", 0),
    ] {
        let list = listed(&app, &token, filters).await;
        assert_eq!(list.len(), expected, "{filters}");
        let want: Vec<Value> = list.iter().map(|q| portable(q, true)).collect();

        // JSON: every field, oldest first, as the list has them
        let items = export_json(&app, &token, filters).await;
        let got: Vec<Value> = items.iter().map(|q| portable(q, true)).collect();
        assert_eq!(got, want, "{filters}");
        for item in &items {
            for absent in ["id", "status", "source", "createdAt"] {
                assert!(item.get(absent).is_none(), "{filters}: {item}");
            }
        }

        // CSV: the same, without card titles
        let rows = export_csv(&app, &token, filters).await;
        let got: Vec<Value> = rows.iter().map(|r| portable_row(r)).collect();
        let want: Vec<Value> = list.iter().map(|q| portable(q, false)).collect();
        assert_eq!(got, want, "{filters}");
    }
}

async fn export_csv_quoting_survives(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    let stems = [
        "Commas, commas, commas?",
        "She said \"yes\", then \"no\"?",
        "Line one\nline two",
        "Windows\r\nline break",
        "\"Quoted at both ends\"",
        "=SUM(A1:A2) stays as typed",
        "中文，逗号，“引号”？",
        "Tab\tinside; semicolon",
    ];
    for (i, stem) in stems.iter().enumerate() {
        app.clock.advance(chrono::Duration::seconds(1));
        create(
            &app,
            &token,
            json!({
                "stem": {"text": stem},
                "contentType": "text",
                "correctAnswer": format!("A, \"{i}\""),
                "distractors": ["x, y", "line\nbreak", "\"q\""],
                "categoryId": "cat-a",
                "knowledgeCard": {"summary": format!("Summary, {stem}"), "deepDive": "a\r\nb"},
            }),
        )
        .await;
    }
    let rows = export_csv(&app, &token, "").await;
    assert_eq!(rows.len(), stems.len());
    for (row, stem) in rows.iter().zip(stems) {
        // a formula is written quoted (export_formula_cells_are_quoted_and_import_back)
        let written = if stem.starts_with('=') {
            format!("'{stem}")
        } else {
            stem.to_string()
        };
        assert_eq!(row[3], written);
        assert_eq!(row[5..8], ["x, y", "line\nbreak", "\"q\""]);
        assert_eq!(row[8..10], ["", ""]);
        assert_eq!(row[10], format!("Summary, {stem}"));
        assert_eq!(row[11], "a\r\nb");
    }
    let items = export_json(&app, &token, "").await;
    let json_stems: Vec<&str> = items
        .iter()
        .map(|q| q["stem"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(json_stems, stems);
}

/// A bank of 30 questions with cards, of every shape the import takes: 2-5 distractors,
/// each content type and difficulty, cards whole, partial or absent, text that needs
/// quoting; in several statuses.
async fn make_bank(app: &TestApp, token: &str) {
    for i in 0..30usize {
        let stem = match i % 5 {
            0 => format!("Q{i}: plain?"),
            1 => format!("Q{i}: with, commas and \"quotes\"?"),
            2 => format!("Q{i}: line one\nline two\r\nline three"),
            3 => format!("Q{i}: 中文题目，逗号？"),
            _ => format!("Q{i}: =1+1 ; semicolons"),
        };
        let distractors: Vec<String> = (0..2 + i % 4)
            .map(|d| {
                format!(
                    "wrong {i}.{d}{}",
                    if d == 1 { ", with a comma" } else { "" }
                )
            })
            .collect();
        let content_type = ["text", "image", "video", "audio"][i % 4];
        let mut body = json!({
            "stem": {"text": stem},
            "contentType": content_type,
            "correctAnswer": format!("right \"{i}\""),
            "distractors": distractors,
            "categoryId": if i % 3 == 0 { "cat-b" } else { "cat-a" },
            "difficulty": 1 + i % 5,
        });
        match i % 3 {
            0 => {}
            1 => {
                body["knowledgeCard"] = json!({
                    "title": format!("Title {i}"),
                    "summary": format!("Summary {i}, \"quoted\""),
                    "deepDive": format!("Deep\ndive {i}"),
                    "sourceRef": format!("Ref {i}"),
                })
            }
            _ => body["knowledgeCard"] = json!({"summary": format!("Summary {i}")}),
        }
        app.clock.advance(chrono::Duration::milliseconds(10));
        let id = create(app, token, body).await;
        let status = ["draft", "reviewing", "published", "archived"][i % 4];
        app.exec(
            "UPDATE questions SET status = $1 WHERE id = $2",
            &[status, &id],
        )
        .await;
    }
}

/// A second app on a fresh database of the same engine, with the same categories.
async fn empty_app(app: &TestApp) -> (TestApp, String) {
    let fresh = TestApp::spawn(app.engine).await;
    seed_categories(&fresh).await;
    assert_eq!(fresh.scalar("SELECT count(*) FROM questions", &[]).await, 0);
    let token = fresh.admin_login().await.0;
    (fresh, token)
}

async fn export_round_trips_through_the_csv_import(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    make_bank(&app, &token).await;
    let (_, _, csv) = export(&app, Some(&token), "format=csv").await;

    let (fresh, fresh_token) = empty_app(&app).await;
    let resp = fresh
        .client
        .post(fresh.url(Service::Admin, "/v1/admin/questions/import-csv"))
        .bearer_auth(&fresh_token)
        .header("content-type", "text/csv")
        .body(csv)
        .send()
        .await
        .unwrap();
    let imported = TestApp::read(resp).await;
    assert_eq!(imported.ok()["succeeded"], 30);

    let before: Vec<Value> = listed(&app, &token, "").await;
    let after: Vec<Value> = listed(&fresh, &fresh_token, "").await;
    assert_eq!(before.len(), 30);
    assert!(after.iter().all(|q| q["status"] == "draft"));
    assert_eq!(
        sorted(after.iter().map(|q| portable(q, false)).collect()),
        sorted(before.iter().map(|q| portable(q, false)).collect()),
    );
    // The CSV has no title column: titles stay behind.
    assert!(after.iter().all(|q| q["knowledgeCard"]["title"].is_null()));
}

async fn export_round_trips_through_the_json_import(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    make_bank(&app, &token).await;
    let (_, _, json_body) = export(&app, Some(&token), "format=json").await;

    let (fresh, fresh_token) = empty_app(&app).await;
    // The body as it came, posted as it is.
    let resp = fresh
        .client
        .post(fresh.url(Service::Admin, "/v1/admin/questions/import"))
        .bearer_auth(&fresh_token)
        .header("content-type", "application/json")
        .body(json_body)
        .send()
        .await
        .unwrap();
    let imported = TestApp::read(resp).await;
    assert_eq!(imported.ok()["succeeded"], 30);

    let before: Vec<Value> = listed(&app, &token, "").await;
    let after: Vec<Value> = listed(&fresh, &fresh_token, "").await;
    assert!(after.iter().all(|q| q["status"] == "draft"));
    assert_eq!(
        sorted(after.iter().map(|q| portable(q, true)).collect()),
        sorted(before.iter().map(|q| portable(q, true)).collect()),
    );
}

/// More rows than one batch, with runs of equal `created_at` across batch boundaries
/// (the id breaks the tie): every export holds each matching row once, oldest first.
async fn export_larger_than_a_batch_is_complete_without_duplicates(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    const N: i64 = 1234;
    const { assert!(N > 2 * EXPORT_BATCH) };
    // i = 1..1234: id and stem carry 10000 + i; created_at = i / 7; published up to
    // i = 1000 (exactly two batches: the third read finds nothing).
    app.exec(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1234)
         INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer,
                                distractors, difficulty, status, source, pick_key,
                                created_at, updated_at)
         SELECT 'bulk-' || CAST(10000 + i AS TEXT),
                CASE WHEN i % 2 = 0 THEN 'cat-a' ELSE 'cat-b' END,
                'Bulk question ' || CAST(10000 + i AS TEXT), 'text', 'right',
                '[\"wrong 1\",\"wrong 2\"]', 1 + i % 5,
                CASE WHEN i <= 1000 THEN 'published' ELSE 'draft' END, 'system', i,
                i / 7, i / 7
         FROM n",
        &[],
    )
    .await;
    app.exec(
        "INSERT INTO knowledge_cards (id, question_id, summary, created_at, updated_at)
         SELECT 'card-' || id, id, 'Summary of ' || id, 0, 0 FROM questions",
        &[],
    )
    .await;
    assert_eq!(app.scalar("SELECT count(*) FROM questions", &[]).await, N);

    let number = |stem: &str| -> i64 {
        stem.strip_prefix("Bulk question ")
            .unwrap()
            .parse::<i64>()
            .unwrap()
            - 10000
    };
    let check = |numbers: Vec<i64>, expected: Vec<i64>, what: &str| {
        let unique: BTreeSet<i64> = numbers.iter().copied().collect();
        assert_eq!(unique.len(), numbers.len(), "{what}: a row repeats");
        assert_eq!(
            unique,
            expected.iter().copied().collect::<BTreeSet<i64>>(),
            "{what}"
        );
        let keys: Vec<i64> = numbers.iter().map(|i| i / 7).collect();
        assert!(keys.is_sorted(), "{what}: not oldest first");
    };
    let all: Vec<i64> = (1..=N).collect();
    for (filters, expected) in [
        ("", all.clone()),
        (
            "categoryId=cat-a",
            all.iter().copied().filter(|i| i % 2 == 0).collect(),
        ),
        (
            "status=published",
            all.iter().copied().filter(|i| *i <= 1000).collect(),
        ),
        ("keyword=question", all.clone()),
        (
            "difficulty=3",
            all.iter().copied().filter(|i| 1 + i % 5 == 3).collect(),
        ),
    ] {
        let rows = export_csv(&app, &token, filters).await;
        assert!(rows.iter().all(|r| r[10].starts_with("Summary of bulk-")));
        check(
            rows.iter().map(|r| number(&r[3])).collect(),
            expected.clone(),
            &format!("csv {filters}"),
        );
        let items = export_json(&app, &token, filters).await;
        check(
            items
                .iter()
                .map(|q| number(q["stem"]["text"].as_str().unwrap()))
                .collect(),
            expected,
            &format!("json {filters}"),
        );
    }
}

/// ERROR lines of this test binary, from the moment the first test asks for them (a
/// global subscriber: the servers' tasks run on other threads).
fn error_log() -> Arc<Mutex<Vec<u8>>> {
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    Arc::clone(LOG.get_or_init(|| {
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&log);
        // ERROR events, and the request spans (INFO, in shared::http) that carry the id.
        let _ = tracing_subscriber::registry()
            .with(tracing_subscriber::EnvFilter::new(
                "error,shared::http=info",
            ))
            .with(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(move || LogWriter(Arc::clone(&sink))),
            )
            .try_init();
        log
    }))
}

struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A database failure after the answer started cannot become an error envelope: the
/// body stops without its final chunk (the client sees a failed transfer, never a
/// complete-looking file) and the failure is logged with the request's id. The bank is
/// far larger than the socket buffers, so the server waits for this client between
/// batches; the table a batch reads is renamed away meanwhile.
async fn export_failing_after_the_first_byte_ends_the_body_early_and_is_logged(app: TestApp) {
    let log = error_log();
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    const ROWS: i64 = 12_000;
    let deep_dive = "x".repeat(5_000);
    app.exec(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
         INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer,
                                distractors, difficulty, status, source, pick_key,
                                created_at, updated_at)
         SELECT 'big-' || CAST(100000 + i AS TEXT), 'cat-a', 'Big ' || CAST(i AS TEXT), 'text',
                'right', '[\"wrong 1\",\"wrong 2\"]', 1, 'draft', 'system', i, i, i
         FROM n",
        &[],
    )
    .await;
    app.exec(
        "INSERT INTO knowledge_cards (id, question_id, summary, deep_dive, created_at, updated_at)
         SELECT 'card-' || id, id, 'Summary', $1, 0, 0 FROM questions",
        &[&deep_dive],
    )
    .await;
    let full_size = usize::try_from(ROWS).unwrap() * deep_dive.len();

    let request_id = format!("export-cut-{:?}", app.engine);
    let mut resp = app
        .client
        .get(app.url(Service::Admin, "/v1/admin/questions/export?format=csv"))
        .bearer_auth(&token)
        .header("x-request-id", &request_id)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut received = resp.chunk().await.unwrap().unwrap().len();
    app.exec(
        "ALTER TABLE knowledge_cards RENAME TO knowledge_cards_gone",
        &[],
    )
    .await;
    let ended = loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => received += chunk.len(),
            Ok(None) => break "complete",
            Err(_) => break "cut short",
        }
    };
    assert_eq!(ended, "cut short", "after {received} bytes");
    assert!(received < full_size, "{received} of {full_size} bytes");

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let text = String::from_utf8_lossy(&log.lock().unwrap()).to_string();
        if text
            .lines()
            .any(|l| l.contains("question export cut short") && l.contains(&request_id))
        {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not logged:\n{text}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

async fn export_refuses_bad_requests_like_the_list(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    let envelope = |status: u16, body: &str| -> Value {
        let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        assert_eq!(v["success"], false, "{status}: {body}");
        assert!(v["data"].is_null(), "{body}");
        v["error"]["code"].clone()
    };
    for query in [
        "",
        "format=",
        "format=xml",
        "format=CSV",
        "format=csv&difficulty=9",
        "format=csv&difficulty=abc",
        "format=json&status=gone",
        "format=json&source=players",
    ] {
        let (status, headers, body) = export(&app, Some(&token), query).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        assert_eq!(envelope(status, &body), "VALIDATION_ERROR", "{query}");
    }
    // the list refuses the same filter values
    for filters in ["difficulty=9", "status=gone", "source=players"] {
        app.admin_get(&format!("/v1/admin/questions?{filters}"), Some(&token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    // `export` is no question id: without a format it is refused, not looked up
    app.admin_get("/v1/admin/questions/export", Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let (_, player_token, _) = app.guest("device-export").await;
    for bad in [None, Some(player_token.as_str()), Some("not-a-token")] {
        let (status, _, body) = export(&app, bad, "format=csv").await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(envelope(status, &body), "UNAUTHORIZED");
    }
}

async fn console_export_buttons_carry_the_filters_and_download(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    for (category, stem) in [
        ("cat-a", "Alpha, first?"),
        ("cat-a", "Alpha second?"),
        ("cat-b", "Beta?"),
    ] {
        app.clock.advance(chrono::Duration::seconds(1));
        create(
            &app,
            &token,
            json!({
                "stem": {"text": stem},
                "contentType": "text",
                "correctAnswer": "right",
                "distractors": ["wrong 1", "wrong 2"],
                "categoryId": category,
                "knowledgeCard": {"summary": "because"},
            }),
        )
        .await;
    }
    let mut browser = app.console_signed_in().await;
    // as askama escapes `&` in an attribute
    let csv_href = "/console/questions/export?format=csv&#38;categoryId=cat-a&#38;keyword=alpha";
    let json_href = "/console/questions/export?format=json&#38;categoryId=cat-a&#38;keyword=alpha";
    browser
        .get("/console/questions?categoryId=cat-a&keyword=alpha&sortBy=updatedAt")
        .await
        .assert_status(200)
        .assert_contains("id=\"export-csv\"")
        .assert_contains(&format!("href=\"{csv_href}\""))
        .assert_contains(&format!("href=\"{json_href}\""));
    // htmx swaps the table only: the buttons come with it, so they follow the filters
    browser
        .htmx_get("/console/questions?categoryId=cat-b")
        .await
        .assert_status(200)
        .assert_contains("href=\"/console/questions/export?format=csv&#38;categoryId=cat-b\"");

    let download = browser.get(&csv_href.replace("&#38;", "&")).await;
    download.assert_status(200);
    assert_eq!(
        download.header("content-type"),
        Some("text/csv; charset=utf-8")
    );
    assert_eq!(
        download.header("content-disposition"),
        Some("attachment; filename=\"questions.csv\"")
    );
    let rows = csv_records(&download.body);
    let stems: Vec<&str> = rows.iter().map(|r| r[3].as_str()).collect();
    assert_eq!(stems, ["Alpha, first?", "Alpha second?"]);

    let download = browser.get(&json_href.replace("&#38;", "&")).await;
    download.assert_status(200);
    assert_eq!(download.header("content-type"), Some("application/json"));
    let doc: Value = serde_json::from_str(&download.body).unwrap();
    assert_eq!(doc["questions"].as_array().unwrap().len(), 2);

    browser
        .get("/console/questions/export?format=pdf")
        .await
        .assert_status(400);
    // signed out: the sign-in page, no download
    let page = app
        .console()
        .get("/console/questions/export?format=csv")
        .await;
    page.assert_status(303);
    assert_eq!(page.location(), Some("/console/login"));
}

/// OWASP CSV injection: a cell a spreadsheet would run as a formula is written with a
/// leading `'`, and the CSV import takes exactly that quote away again, so the bank comes
/// back as it was: a negative number answer, a text that itself starts with `'=`, and
/// a quote elsewhere too.
async fn export_formula_cells_are_quoted_and_import_back(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    let questions = [
        (
            "=1+1 is?",
            "2",
            ["+1", "@two"],
            Some(("=HYPERLINK(\"http://x\")", "-deep", "@src")),
        ),
        ("Below zero?", "-5", ["5", "-4"], None),
        (
            "'=A1 is typed so?",
            "'-5",
            ["''=x", "'plain"],
            Some(("+sum", "'", "''")),
        ),
        ("@everyone?", "a-b", ["=", "+"], None),
        ("Plain question?", "it's fine", ["a = b", "5-3"], None),
    ];
    for (stem, answer, distractors, card) in questions {
        app.clock.advance(chrono::Duration::seconds(1));
        let mut body = json!({
            "stem": {"text": stem},
            "contentType": "text",
            "correctAnswer": answer,
            "distractors": distractors,
            "categoryId": "cat-a",
        });
        if let Some((summary, deep_dive, source)) = card {
            body["knowledgeCard"] =
                json!({"summary": summary, "deepDive": deep_dive, "sourceRef": source});
        }
        create(&app, &token, body).await;
    }
    let (status, _, csv) = export(&app, Some(&token), "format=csv").await;
    assert_eq!(status, 200, "{csv}");
    let rows = csv_records(&csv);
    assert_eq!(rows.len(), questions.len());
    // no cell of the file begins a formula
    for cell in rows.iter().flatten() {
        assert!(
            !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
            "{cell:?} in {csv}"
        );
    }
    assert_eq!(rows[0][3], "'=1+1 is?");
    assert_eq!(rows[0][5..7], ["'+1", "'@two"]);
    assert_eq!(
        rows[0][10..13],
        ["'=HYPERLINK(\"http://x\")", "'-deep", "'@src"]
    );
    assert_eq!(rows[1][4], "'-5", "a negative number answer is quoted");
    assert_eq!(rows[1][6], "'-4");
    // a text that begins with quotes before a formula character gets one more
    assert_eq!(rows[2][3], "''=A1 is typed so?");
    assert_eq!(rows[2][4], "''-5");
    assert_eq!(rows[2][5..7], ["'''=x", "'plain"]);
    assert_eq!(rows[2][10..13], ["'+sum", "'", "''"]);
    assert_eq!(rows[3][3], "'@everyone?");
    assert_eq!(rows[3][4..7], ["a-b", "'=", "'+"]);
    assert_eq!(rows[4][4..7], ["it's fine", "a = b", "5-3"]);

    // imported into an empty bank: every text as it was
    let (fresh, fresh_token) = empty_app(&app).await;
    let resp = fresh
        .client
        .post(fresh.url(Service::Admin, "/v1/admin/questions/import-csv"))
        .bearer_auth(&fresh_token)
        .header("content-type", "text/csv")
        .body(csv)
        .send()
        .await
        .unwrap();
    assert_eq!(TestApp::read(resp).await.ok()["succeeded"], 5);
    let before: Vec<Value> = listed(&app, &token, "").await;
    let after: Vec<Value> = listed(&fresh, &fresh_token, "").await;
    // (imported at one instant: compared as sets)
    assert_eq!(
        sorted(after.iter().map(|q| portable(q, false)).collect()),
        sorted(before.iter().map(|q| portable(q, false)).collect()),
    );
    let imported = |stem: &str| -> Value {
        after
            .iter()
            .find(|q| q["stem"]["text"] == stem)
            .unwrap_or_else(|| panic!("{stem} not imported"))
            .clone()
    };
    assert_eq!(imported("Below zero?")["correctAnswer"], "-5");
    let quoted = imported("'=A1 is typed so?");
    assert_eq!(quoted["correctAnswer"], "'-5");
    assert_eq!(quoted["distractors"], json!(["''=x", "'plain"]));
    assert_eq!(
        imported("=1+1 is?")["knowledgeCard"]["summary"],
        "=HYPERLINK(\"http://x\")"
    );
    // the JSON export is no spreadsheet: written as stored
    let items = export_json(&app, &token, "").await;
    assert_eq!(items[0]["stem"]["text"], "=1+1 is?");
    assert_eq!(items[1]["correctAnswer"], "-5");
}

/// The audit entries of question exports, newest first: (actor, after, when).
async fn export_audits(app: &TestApp, token: &str) -> Vec<(String, Value, String)> {
    let log = app
        .admin_get("/v1/admin/audit-log?limit=50", Some(token))
        .await;
    log.ok()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "question.export")
        .map(|e| {
            assert_eq!(e["targetType"], "question", "{e}");
            assert!(e["targetId"].is_null(), "{e}");
            assert!(e["before"].is_null(), "{e}");
            (
                e["actorUsername"].as_str().unwrap().to_string(),
                e["after"].clone(),
                e["createdAt"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every export, from the API or the console's buttons, leaves an audit entry: who,
/// when, the format and the filters. A refused request exports nothing and leaves none.
async fn exports_are_audited_with_their_format_and_filters(app: TestApp) {
    seed_categories(&app).await;
    let token = app.admin_login().await.0;
    create(
        &app,
        &token,
        json!({
            "stem": {"text": "Alpha?"},
            "contentType": "text",
            "correctAnswer": "right",
            "distractors": ["wrong 1", "wrong 2"],
            "categoryId": "cat-a",
            "difficulty": 2,
        }),
    )
    .await;
    assert!(export_audits(&app, &token).await.is_empty());

    let (status, _, _) = export(
        &app,
        Some(&token),
        "format=csv&categoryId=cat-a&keyword=alp&difficulty=2&flagged=false",
    )
    .await;
    assert_eq!(status, 200);
    let entries = export_audits(&app, &token).await;
    assert_eq!(entries.len(), 1);
    let (actor, after, at) = &entries[0];
    assert_eq!(actor, &app.admin_username);
    assert_eq!(
        *after,
        json!({"format": "csv", "categoryId": "cat-a", "keyword": "alp", "difficulty": 2, "flagged": false})
    );
    let at = chrono::DateTime::parse_from_rfc3339(at).unwrap().to_utc();
    assert!(
        (app.clock.now() - at).num_seconds().abs() < 5,
        "{at} against {}",
        app.clock.now()
    );

    // refused requests leave no entry
    for query in [
        "format=xml",
        "format=csv&difficulty=9",
        "format=json&status=gone",
    ] {
        let (status, _, _) = export(&app, Some(&token), query).await;
        assert_eq!(status, 400, "{query}");
    }
    let (status, _, _) = export(&app, None, "format=csv").await;
    assert_eq!(status, 401);
    assert_eq!(export_audits(&app, &token).await.len(), 1);

    // the console's button, by another admin
    app.clock.advance(chrono::Duration::seconds(10));
    let mut browser = app.console_as_plain_admin().await;
    browser
        .get("/console/questions/export?format=json&status=draft")
        .await
        .assert_status(200);
    let entries = export_audits(&app, &token).await;
    assert_eq!(entries.len(), 2);
    let (actor, after, _) = &entries[0];
    assert!(actor.starts_with("editor"), "{actor}");
    assert_eq!(*after, json!({"format": "json", "status": "draft"}));
    // and the console's audit log names the action
    app.console_signed_in()
        .await
        .get("/console/audit")
        .await
        .assert_status(200)
        .assert_contains("title=\"question.export\"");
}
