//! How much text a question and its card may hold (`domain::question_limits`), through
//! every door content comes in by: create, update, the JSON and CSV imports (per row),
//! the knowledge-card route, and the console's forms. Lengths are characters: a Chinese
//! character counts one.

use reqwest::Method;
use serde_json::{Value, json};
use tests::{Resp, Service, TestApp, both_engines};

both_engines!(
    create_and_update_refuse_over_long_fields_by_name,
    imports_refuse_over_long_fields_per_row,
    knowledge_card_route_refuses_over_long_fields,
    console_forms_show_the_field_limits,
);

const CSV_HEADER: &str = "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef";

async fn setup(app: &TestApp) -> String {
    app.exec(
        "INSERT INTO categories (id, name, slug, created_at, updated_at) VALUES ('cat-a', 'Cat A', 'cat-a', 0, 0)",
        &[],
    )
    .await;
    app.admin_login().await.0
}

/// `n` characters: Chinese, three bytes each in UTF-8, so a byte count would refuse
/// what the limit allows.
fn chars(n: usize) -> String {
    "题".repeat(n)
}

/// A question with every field exactly at its limit.
fn at_the_limits() -> Value {
    json!({
        "stem": {"text": chars(1_000)},
        "contentType": "text",
        "correctAnswer": chars(200),
        "distractors": [chars(200), chars(200), chars(200), chars(200), chars(200)],
        "categoryId": "cat-a",
        "knowledgeCard": {
            "title": chars(200),
            "summary": chars(500),
            "deepDive": chars(5_000),
            "sourceRef": chars(500),
        },
    })
}

/// Each field one character over its limit (a JSON pointer into [`at_the_limits`] and
/// its value), with the name the refusal gives it.
fn one_over() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "/stem/text",
            json!(chars(1_001)),
            "stem.text must be at most 1000 characters",
        ),
        (
            "/correctAnswer",
            json!(chars(201)),
            "correctAnswer must be at most 200 characters",
        ),
        (
            "/distractors/3",
            json!(chars(201)),
            "distractors[3] must be at most 200 characters",
        ),
        (
            "/distractors",
            json!(["a", "b", "c", "d", "e", "f"]),
            "distractors must hold at most 5 entries",
        ),
        (
            "/knowledgeCard/title",
            json!(chars(201)),
            "knowledgeCard.title must be at most 200 characters",
        ),
        (
            "/knowledgeCard/summary",
            json!(chars(501)),
            "knowledgeCard.summary must be at most 500 characters",
        ),
        (
            "/knowledgeCard/deepDive",
            json!(chars(5_001)),
            "knowledgeCard.deepDive must be at most 5000 characters",
        ),
        (
            "/knowledgeCard/sourceRef",
            json!(chars(501)),
            "knowledgeCard.sourceRef must be at most 500 characters",
        ),
    ]
}

/// An update of the one field at `pointer` (a distractor: the whole list, with it).
fn patch_of(pointer: &str, value: Value) -> Value {
    match pointer {
        "/stem/text" => json!({"stem": {"text": value}}),
        "/correctAnswer" => json!({"correctAnswer": value}),
        "/distractors/3" => json!({"distractors": ["x", "y", "z", value]}),
        "/distractors" => json!({"distractors": value}),
        _ => {
            let field = pointer.trim_start_matches("/knowledgeCard/");
            let mut card = json!({});
            card[field] = value;
            json!({"knowledgeCard": card})
        }
    }
}

fn with(mut body: Value, pointer: &str, value: Value) -> Value {
    *body.pointer_mut(pointer).unwrap() = value;
    body
}

async fn put(app: &TestApp, token: &str, path: &str, body: Value) -> Resp {
    app.call(Service::Admin, Method::PUT, path, Some(body), Some(token))
        .await
}

async fn count(app: &TestApp) -> i64 {
    app.scalar("SELECT count(*) FROM questions", &[]).await
}

async fn create_and_update_refuse_over_long_fields_by_name(app: TestApp) {
    let token = setup(&app).await;
    // exactly at every limit: taken, and stored whole
    let r = app
        .admin_post("/v1/admin/questions", at_the_limits(), Some(&token))
        .await;
    let id = r.ok()["id"].as_str().unwrap().to_string();
    let stored = app
        .admin_get(&format!("/v1/admin/questions/{id}"), Some(&token))
        .await;
    assert_eq!(
        stored.ok()["stem"]["text"]
            .as_str()
            .unwrap()
            .chars()
            .count(),
        1_000
    );
    assert_eq!(
        stored.ok()["knowledgeCard"]["deepDive"]
            .as_str()
            .unwrap()
            .chars()
            .count(),
        5_000
    );
    // surrounding spaces are trimmed before counting, as before storing
    let padded = with(
        at_the_limits(),
        "/stem/text",
        json!(format!("  {}  ", chars(1_000))),
    );
    app.admin_post("/v1/admin/questions", padded, Some(&token))
        .await
        .ok();
    let before = count(&app).await;

    for (pointer, value, message) in one_over() {
        // create: 400 naming the field, nothing written
        let r = app
            .admin_post(
                "/v1/admin/questions",
                with(at_the_limits(), pointer, value.clone()),
                Some(&token),
            )
            .await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["error"]["message"], message, "{pointer}");
        assert_eq!(count(&app).await, before);

        // update: the field alone, refused the same way
        let r = put(
            &app,
            &token,
            &format!("/v1/admin/questions/{id}"),
            patch_of(pointer, value),
        )
        .await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["error"]["message"], message, "{pointer}");
    }
    // nothing changed by the refused updates
    let after = app
        .admin_get(&format!("/v1/admin/questions/{id}"), Some(&token))
        .await;
    assert_eq!(after.ok()["version"], 1);
}

async fn imports_refuse_over_long_fields_per_row(app: TestApp) {
    let token = setup(&app).await;
    // JSON: one good item, then one item per limit
    let mut items = vec![at_the_limits()];
    let over = one_over();
    items.extend(
        over.iter()
            .map(|(pointer, value, _)| with(at_the_limits(), pointer, value.clone())),
    );
    let r = app
        .admin_post(
            "/v1/admin/questions/import",
            json!({ "questions": items }),
            Some(&token),
        )
        .await;
    r.assert_error(400, "VALIDATION_FAILED");
    let details = r.body["error"]["details"].as_array().unwrap();
    assert_eq!(details.len(), over.len(), "{}", r.body);
    for (i, (detail, (pointer, _, message))) in details.iter().zip(&over).enumerate() {
        assert_eq!(detail["index"], i + 1, "{pointer}");
        assert_eq!(detail["errors"], json!([message]), "{pointer}");
    }
    assert_eq!(count(&app).await, 0);

    // CSV: the same rules per data row (five distractor columns: no count to exceed)
    let row = |stem: &str, answer: &str, summary: &str, deep: &str, source: &str| {
        format!("cat-a,text,1,{stem},{answer},b,c,d,e,f,{summary},{deep},{source}")
    };
    let csv = [
        CSV_HEADER.to_string(),
        row(
            &chars(1_000),
            &chars(200),
            &chars(500),
            &chars(5_000),
            &chars(500),
        ),
        row(&chars(1_001), "a", "s", "", ""),
        row("q", &chars(201), "s", "", ""),
        row("q", "a", &chars(501), &chars(5_001), &chars(501)),
        format!("cat-a,text,1,q,a,b,{},d,,,,,", chars(201)),
    ]
    .join("\r\n");
    let send = |csv: String| {
        app.client
            .post(app.url(Service::Admin, "/v1/admin/questions/import-csv"))
            .bearer_auth(&token)
            .header("content-type", "text/csv")
            .body(csv)
            .send()
    };
    let r = TestApp::read(send(csv).await.unwrap()).await;
    r.assert_error(400, "VALIDATION_FAILED");
    assert_eq!(
        r.body["error"]["details"],
        json!([
            {"index": 1, "errors": ["stem.text must be at most 1000 characters"]},
            {"index": 2, "errors": ["correctAnswer must be at most 200 characters"]},
            {"index": 3, "errors": [
                "knowledgeCard.summary must be at most 500 characters",
                "knowledgeCard.deepDive must be at most 5000 characters",
                "knowledgeCard.sourceRef must be at most 500 characters",
            ]},
            {"index": 4, "errors": ["distractors[1] must be at most 200 characters"]},
        ]),
        "{}",
        r.body
    );
    assert_eq!(count(&app).await, 0);
    // the good row alone imports
    let good = format!(
        "{CSV_HEADER}\r\n{}\r\n",
        row(
            &chars(1_000),
            &chars(200),
            &chars(500),
            &chars(5_000),
            &chars(500)
        )
    );
    let r = TestApp::read(send(good).await.unwrap()).await;
    assert_eq!(r.ok()["succeeded"], 1);
}

async fn knowledge_card_route_refuses_over_long_fields(app: TestApp) {
    let token = setup(&app).await;
    let mut body = at_the_limits();
    body["knowledgeCard"] = json!({"summary": "short"});
    let r = app
        .admin_post("/v1/admin/questions", body, Some(&token))
        .await;
    let id = r.ok()["id"].as_str().unwrap().to_string();
    let card = app
        .admin_get(
            &format!("/v1/admin/knowledge-cards/by-question/{id}"),
            Some(&token),
        )
        .await;
    let path = format!(
        "/v1/admin/knowledge-cards/{}",
        card.ok()["id"].as_str().unwrap()
    );
    for (field, max) in [
        ("title", 200),
        ("summary", 500),
        ("deepDive", 5_000),
        ("sourceRef", 500),
    ] {
        let mut over = json!({});
        over[field] = json!(chars(max + 1));
        let r = put(&app, &token, &path, over).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(
            r.body["error"]["message"],
            format!("{field} must be at most {max} characters")
        );
        let mut at = json!({});
        at[field] = json!(chars(max));
        let r = put(&app, &token, &path, at).await;
        assert_eq!(r.ok()[field].as_str().unwrap().chars().count(), max);
    }
}

async fn console_forms_show_the_field_limits(app: TestApp) {
    let token = setup(&app).await;
    let mut browser = app.console_signed_in().await;
    browser
        .get("/console/questions/new")
        .await
        .assert_status(200);
    let long_stem = chars(1_001);
    let page = browser
        .post(
            "/console/questions/new",
            &[
                ("stem", long_stem.as_str()),
                ("contentType", "text"),
                ("correctAnswer", "right"),
                ("distractors", "a\nb\nc\nd\ne\nf"),
                ("categoryId", "cat-a"),
                ("difficulty", "1"),
                ("cardSummary", ""),
                ("cardTitle", ""),
                ("cardDeepDive", ""),
                ("cardSourceRef", ""),
            ],
        )
        .await;
    page.assert_status(400)
        .assert_contains("id=\"form-error\"")
        .assert_contains("stem.text must be at most 1000 characters")
        .assert_contains("distractors must hold at most 5 entries");
    assert_eq!(count(&app).await, 0);

    // the card editor
    let mut body = at_the_limits();
    body["knowledgeCard"] = json!({"summary": "short"});
    let r = app
        .admin_post("/v1/admin/questions", body, Some(&token))
        .await;
    let id = r.ok()["id"].as_str().unwrap().to_string();
    let card_id = app
        .text(
            "SELECT id FROM knowledge_cards WHERE question_id = $1",
            &[&id],
        )
        .await;
    let path = format!("/console/cards/{card_id}");
    browser.get(&path).await.assert_status(200);
    let long_summary = chars(501);
    browser
        .post(
            &path,
            &[
                ("title", ""),
                ("summary", long_summary.as_str()),
                ("deepDive", ""),
                ("sourceRef", ""),
            ],
        )
        .await
        .assert_status(400)
        .assert_contains("id=\"form-error\"")
        .assert_contains("summary must be at most 500 characters");
    assert_eq!(
        app.text(
            "SELECT summary FROM knowledge_cards WHERE id = $1",
            &[&card_id]
        )
        .await,
        "short"
    );
}
