//! Question versions through HTTP: every content edit (the question's fields or its
//! card, by either route) records the next version, readable in full; a revert restores
//! one as the next; concurrent edits never share a number; and a challenge keeps
//! serving, judging and explaining the version it was made with.

use futures::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use tests::{Engine, Resp, Service, TestApp, both_engines, both_engines_with};

both_engines!(
    content_edits_record_versions_readable_in_full,
    status_moves_and_unchanged_content_record_no_version,
    imports_record_version_one,
    a_revert_restores_a_version_as_the_next,
    a_revert_recreates_or_removes_the_card,
    version_routes_refuse_unknown_and_malformed_versions,
    concurrent_edits_never_share_a_version,
    a_challenge_serves_the_version_it_was_made_with,
);

/// As behind a round-robin balancer: every answer judged on a read.
async fn without_answer_memory(engine: Engine) -> TestApp {
    TestApp::spawn_with(engine, &[("ANSWER_MEMORY", "false".to_string())]).await
}

both_engines_with!(demo_content; reloading_the_demo_content_keeps_staff_edits);

async fn demo_content(engine: Engine) -> TestApp {
    TestApp::spawn_with(engine, &[("DEMO_CONTENT", "true".to_string())]).await
}

mod without_memory {
    use super::*;

    both_engines_with!(
        without_answer_memory;
        a_challenge_serves_the_version_it_was_made_with,
    );
}

/// Two categories, a one-node track on the first, and the admin's token.
async fn setup(app: &TestApp) -> String {
    for id in ["cat-a", "cat-b"] {
        app.exec(
            "INSERT INTO categories (id, name, slug, created_at, updated_at) VALUES ($1, $1, $1, 0, 0)",
            &[id],
        )
        .await;
    }
    app.exec(
        "INSERT INTO skill_nodes (id, category_id, title, created_at, updated_at) VALUES ('cat-a-1', 'cat-a', 'One', 0, 0)",
        &[],
    )
    .await;
    app.admin_login().await.0
}

fn item(stem: &str) -> Value {
    json!({
        "stem": {"text": stem},
        "contentType": "text",
        "correctAnswer": "right",
        "distractors": ["wrong 1", "wrong 2"],
        "categoryId": "cat-a",
        "difficulty": 2,
        "knowledgeCard": {"summary": "because", "deepDive": "deeper", "sourceRef": "book"}
    })
}

async fn create(app: &TestApp, token: &str, body: Value) -> String {
    let r = app
        .admin_post("/v1/admin/questions", body, Some(token))
        .await;
    r.ok()["id"].as_str().unwrap().to_string()
}

async fn put(app: &TestApp, token: &str, path: &str, body: Value) -> Resp {
    app.call(Service::Admin, Method::PUT, path, Some(body), Some(token))
        .await
}

async fn question(app: &TestApp, token: &str, id: &str) -> Value {
    app.admin_get(&format!("/v1/admin/questions/{id}"), Some(token))
        .await
        .ok()
        .clone()
}

async fn versions(app: &TestApp, token: &str, id: &str) -> Vec<Value> {
    app.admin_get(&format!("/v1/admin/questions/{id}/versions"), Some(token))
        .await
        .ok()
        .as_array()
        .unwrap()
        .clone()
}

async fn version(app: &TestApp, token: &str, id: &str, v: i64) -> Value {
    app.admin_get(
        &format!("/v1/admin/questions/{id}/versions/{v}"),
        Some(token),
    )
    .await
    .ok()
    .clone()
}

async fn revert(app: &TestApp, token: &str, id: &str, v: i64) -> Resp {
    app.admin_post(
        &format!("/v1/admin/questions/{id}/versions/{v}/revert"),
        json!({}),
        Some(token),
    )
    .await
}

/// The content fields of an admin question or a version, for comparing the two.
fn content(v: &Value) -> Value {
    let card = &v["knowledgeCard"];
    json!({
        "stem": v["stem"],
        "contentType": v["contentType"],
        "correctAnswer": v["correctAnswer"],
        "distractors": v["distractors"],
        "categoryId": v["categoryId"],
        "difficulty": v["difficulty"],
        "knowledgeCard": if card.is_null() { Value::Null } else {
            json!({
                "id": card["id"], "title": card["title"], "summary": card["summary"],
                "deepDive": card["deepDive"], "sourceRef": card["sourceRef"]
            })
        },
    })
}

async fn version_count(app: &TestApp, id: &str) -> i64 {
    app.scalar(
        "SELECT count(*) FROM question_versions WHERE question_id = $1",
        &[id],
    )
    .await
}

async fn content_edits_record_versions_readable_in_full(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("What is right?")).await;
    let q = question(&app, &token, &id).await;
    assert_eq!(q["version"], 1);
    let list = versions(&app, &token, &id).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["version"], 1);
    assert_eq!(list[0]["editedBy"], "root-admin");
    assert_eq!(list[0]["changedFields"], json!([]));
    assert!(
        list[0]["editedAt"]
            .as_str()
            .unwrap()
            .starts_with("2026-11-18T04:")
    );
    let v1 = version(&app, &token, &id, 1).await;
    assert_eq!(content(&v1), content(&q));
    assert_eq!(v1["version"], 1);
    let card_id = q["knowledgeCard"]["id"].as_str().unwrap().to_string();
    let card_path = format!("/v1/admin/knowledge-cards/{card_id}");
    let question_path = format!("/v1/admin/questions/{id}");

    // each content field, through PUT /questions/{id} and PUT /knowledge-cards/{id}
    let edits: Vec<(&str, Value, Value)> = vec![
        (
            &question_path,
            json!({"stem": {"text": "What is correct?"}}),
            json!(["stem"]),
        ),
        (
            &question_path,
            json!({"contentType": "image"}),
            json!(["contentType"]),
        ),
        (
            &question_path,
            json!({"correctAnswer": "correct"}),
            json!(["correctAnswer"]),
        ),
        (
            &question_path,
            json!({"distractors": ["no", "nope", "never"]}),
            json!(["distractors"]),
        ),
        (
            &question_path,
            json!({"categoryId": "cat-b"}),
            json!(["categoryId"]),
        ),
        (
            &question_path,
            json!({"difficulty": 4}),
            json!(["difficulty"]),
        ),
        (
            &question_path,
            json!({"knowledgeCard": {"title": "A title", "summary": "since"}}),
            json!(["knowledgeCard.title", "knowledgeCard.summary"]),
        ),
        (
            &card_path,
            json!({"deepDive": "deepest"}),
            json!(["knowledgeCard.deepDive"]),
        ),
        (
            &card_path,
            json!({"sourceRef": null}),
            json!(["knowledgeCard.sourceRef"]),
        ),
        (
            &question_path,
            json!({
                "stem": {"text": "Which is correct?"},
                "distractors": ["no", "nope"],
                "knowledgeCard": {"summary": "because of that"}
            }),
            json!(["stem", "distractors", "knowledgeCard.summary"]),
        ),
    ];
    let mut contents = vec![content(&q)];
    for (n, (path, body, changed)) in edits.into_iter().enumerate() {
        app.clock.advance(chrono::Duration::seconds(1));
        put(&app, &token, path, body.clone()).await.ok();
        let expected_version = n as i64 + 2;
        let now = question(&app, &token, &id).await;
        assert_eq!(now["version"], expected_version, "{body}");
        let list = versions(&app, &token, &id).await;
        assert_eq!(list.len() as i64, expected_version);
        assert_eq!(list[0]["version"], expected_version);
        assert_eq!(list[0]["changedFields"], changed, "{body}");
        assert_eq!(list[0]["editedBy"], "root-admin");
        assert!(list[0]["editedAt"].as_str().unwrap().ends_with('Z'));
        let stored = version(&app, &token, &id, expected_version).await;
        assert_eq!(stored["changedFields"], changed);
        assert_eq!(content(&stored), content(&now), "{body}");
        contents.push(content(&now));
    }
    // newest first, and every version still reads as it was
    let list = versions(&app, &token, &id).await;
    let numbers: Vec<i64> = list
        .iter()
        .map(|v| v["version"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, (1..=11).rev().collect::<Vec<_>>());
    for (n, expected) in contents.iter().enumerate() {
        let stored = version(&app, &token, &id, n as i64 + 1).await;
        assert_eq!(&content(&stored), expected, "version {}", n + 1);
    }
    let v2 = version(&app, &token, &id, 2).await;
    assert_eq!(v2["stem"]["text"], "What is correct?");
    assert_eq!(v2["contentType"], "text");
    assert_eq!(v2["knowledgeCard"]["summary"], "because");
    assert_eq!(v2["knowledgeCard"]["id"], card_id.as_str());
    let v10 = version(&app, &token, &id, 10).await;
    assert_eq!(v10["knowledgeCard"]["sourceRef"], Value::Null);
    assert_eq!(v10["knowledgeCard"]["deepDive"], "deepest");
    assert_eq!(v10["categoryId"], "cat-b");

    // a card created by PUT is part of the question's next version
    let mut plain = item("Plain");
    plain.as_object_mut().unwrap().remove("knowledgeCard");
    let plain_id = create(&app, &token, plain).await;
    assert!(version(&app, &token, &plain_id, 1).await["knowledgeCard"].is_null());
    let q = put(
        &app,
        &token,
        &format!("/v1/admin/questions/{plain_id}"),
        json!({"knowledgeCard": {"summary": "new card", "sourceRef": "atlas"}}),
    )
    .await
    .ok()
    .clone();
    assert_eq!(q["version"], 2);
    let v2 = version(&app, &token, &plain_id, 2).await;
    assert_eq!(
        v2["changedFields"],
        json!(["knowledgeCard.summary", "knowledgeCard.sourceRef"])
    );
    assert_eq!(v2["knowledgeCard"]["summary"], "new card");
    assert_eq!(content(&v2), content(&q));
}

async fn status_moves_and_unchanged_content_record_no_version(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("Still")).await;
    let path = format!("/v1/admin/questions/{id}");
    // a status move, by PATCH and by PUT, makes no version
    app.call(
        Service::Admin,
        Method::PATCH,
        &format!("{path}/status"),
        Some(json!({"status": "reviewing"})),
        Some(&token),
    )
    .await
    .ok();
    let q = put(&app, &token, &path, json!({"status": "draft"}))
        .await
        .ok()
        .clone();
    assert_eq!(
        (q["status"].as_str(), q["version"].as_i64()),
        (Some("draft"), Some(1))
    );
    // a PUT repeating the stored content (as the console's editor sends every field)
    let same = item("Still");
    let q = put(&app, &token, &path, same).await.ok().clone();
    assert_eq!(q["version"], 1);
    let card = q["knowledgeCard"]["id"].as_str().unwrap().to_string();
    let q = put(
        &app,
        &token,
        &path,
        json!({"stem": {"text": "  Still  "}, "knowledgeCard": {"summary": "because"}}),
    )
    .await
    .ok()
    .clone();
    assert_eq!(q["version"], 1, "trimmed, the stem is the same");
    put(
        &app,
        &token,
        &format!("/v1/admin/knowledge-cards/{card}"),
        json!({"summary": "because", "deepDive": "deeper"}),
    )
    .await
    .ok();
    // archiving (DELETE) and a batch move make none either
    app.call(Service::Admin, Method::DELETE, &path, None, Some(&token))
        .await
        .ok();
    assert_eq!(question(&app, &token, &id).await["status"], "archived");
    assert_eq!(version_count(&app, &id).await, 1);
    assert_eq!(question(&app, &token, &id).await["version"], 1);
    // an edit of an archived question's content is a version like any other
    let q = put(&app, &token, &path, json!({"difficulty": 5}))
        .await
        .ok()
        .clone();
    assert_eq!(q["version"], 2);
    assert_eq!(version_count(&app, &id).await, 2);
}

async fn imports_record_version_one(app: TestApp) {
    let token = setup(&app).await;
    let r = app
        .admin_post(
            "/v1/admin/questions/import",
            json!({"questions": [item("One"), item("Two")]}),
            Some(&token),
        )
        .await;
    let mut ids: Vec<String> = r.ok()["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let csv = "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef\n\
               cat-b,text,3,From CSV,yes,no,maybe,,,,Why,,\n";
    let resp = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/questions/import-csv"))
        .bearer_auth(&token)
        .header("content-type", "text/csv")
        .body(csv)
        .send()
        .await
        .unwrap();
    let r = TestApp::read(resp).await;
    ids.extend(
        r.ok()["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string()),
    );
    assert_eq!(ids.len(), 3);
    for id in &ids {
        let q = question(&app, &token, id).await;
        assert_eq!(q["version"], 1);
        let list = versions(&app, &token, id).await;
        assert_eq!(list.len(), 1);
        assert_eq!(list[0]["editedBy"], "root-admin");
        assert_eq!(content(&version(&app, &token, id, 1).await), content(&q));
    }
    let csv_version = version(&app, &token, &ids[2], 1).await;
    assert_eq!(csv_version["stem"]["text"], "From CSV");
    assert_eq!(csv_version["distractors"], json!(["no", "maybe"]));
    assert_eq!(csv_version["knowledgeCard"]["summary"], "Why");
}

async fn a_revert_restores_a_version_as_the_next(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("Original stem")).await;
    let path = format!("/v1/admin/questions/{id}");
    app.call(
        Service::Admin,
        Method::PATCH,
        &format!("{path}/status"),
        Some(json!({"status": "reviewing"})),
        Some(&token),
    )
    .await
    .ok();
    let original = question(&app, &token, &id).await;
    put(
        &app,
        &token,
        &path,
        json!({"stem": {"text": "Edited stem"}, "difficulty": 5,
               "knowledgeCard": {"summary": "edited summary", "title": "T"}}),
    )
    .await
    .ok();
    put(&app, &token, &path, json!({"correctAnswer": "also right"}))
        .await
        .ok();
    app.clock.advance(chrono::Duration::seconds(3));

    let reverted = revert(&app, &token, &id, 1).await.ok().clone();
    assert_eq!(reverted["version"], 4);
    assert_eq!(reverted["status"], "reviewing", "a revert keeps the status");
    assert_eq!(content(&reverted), content(&original));
    assert_eq!(
        content(&question(&app, &token, &id).await),
        content(&original)
    );
    let v4 = version(&app, &token, &id, 4).await;
    assert_eq!(content(&v4), content(&version(&app, &token, &id, 1).await));
    assert_eq!(
        v4["changedFields"],
        json!([
            "stem",
            "correctAnswer",
            "difficulty",
            "knowledgeCard.title",
            "knowledgeCard.summary"
        ])
    );
    assert_eq!(v4["editedBy"], "root-admin");
    let edited_at =
        |v: &Value| chrono::DateTime::parse_from_rfc3339(v["editedAt"].as_str().unwrap()).unwrap();
    let v3 = version(&app, &token, &id, 3).await;
    assert!(edited_at(&v4) - edited_at(&v3) >= chrono::Duration::seconds(3));
    // audited like an update: the question before and after
    let (before, after) = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as::<_, (String, String)>(
            "SELECT before_state, after_state FROM audit_log
             WHERE action = 'question.revert' AND target_id = $1",
        )
        .bind(id.clone())
        .fetch_one(ex)
        .await
        .unwrap()
    });
    let (before, after): (Value, Value) = (
        serde_json::from_str(&before).unwrap(),
        serde_json::from_str(&after).unwrap(),
    );
    assert_eq!(before["version"], 3);
    assert_eq!(before["stem"]["text"], "Edited stem");
    assert_eq!(after["version"], 4);
    assert_eq!(after["stem"]["text"], "Original stem");
    assert_eq!(after["revertedTo"], 1);

    // the content held already: 200 with the question as it is, no version, no entry
    let again = revert(&app, &token, &id, 1).await.ok().clone();
    assert_eq!(again["version"], 4);
    assert_eq!(version_count(&app, &id).await, 4);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'question.revert'",
            &[]
        )
        .await,
        1
    );
    // forward again, to a later version
    let forward = revert(&app, &token, &id, 3).await.ok().clone();
    assert_eq!(forward["version"], 5);
    assert_eq!(forward["correctAnswer"], "also right");
    assert_eq!(forward["knowledgeCard"]["title"], "T");
    assert_eq!(
        content(&forward),
        content(&version(&app, &token, &id, 3).await)
    );
}

async fn a_revert_recreates_or_removes_the_card(app: TestApp) {
    let token = setup(&app).await;
    let mut plain = item("Cardless");
    plain.as_object_mut().unwrap().remove("knowledgeCard");
    let id = create(&app, &token, plain).await;
    let path = format!("/v1/admin/questions/{id}");
    let with_card = put(
        &app,
        &token,
        &path,
        json!({"knowledgeCard": {"summary": "a card", "deepDive": "more"}}),
    )
    .await
    .ok()
    .clone();
    let card_id = with_card["knowledgeCard"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // version 1 had no card: the revert removes it
    let removed = revert(&app, &token, &id, 1).await.ok().clone();
    assert_eq!(removed["version"], 3);
    assert!(removed["knowledgeCard"].is_null());
    assert_eq!(
        version(&app, &token, &id, 3).await["changedFields"],
        json!(["knowledgeCard.summary", "knowledgeCard.deepDive"])
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM knowledge_cards WHERE question_id = $1",
            &[&id]
        )
        .await,
        0
    );
    // version 2 had one: recreated under its old id
    let back = revert(&app, &token, &id, 2).await.ok().clone();
    assert_eq!(back["version"], 4);
    assert_eq!(back["knowledgeCard"]["id"], card_id.as_str());
    assert_eq!(back["knowledgeCard"]["summary"], "a card");
    assert_eq!(content(&back), content(&with_card));
    // and a card present is updated in place
    put(
        &app,
        &token,
        &format!("/v1/admin/knowledge-cards/{card_id}"),
        json!({"summary": "changed"}),
    )
    .await
    .ok();
    let restored = revert(&app, &token, &id, 2).await.ok().clone();
    assert_eq!(restored["version"], 6);
    assert_eq!(restored["knowledgeCard"]["summary"], "a card");
    assert_eq!(restored["knowledgeCard"]["id"], card_id.as_str());
}

async fn version_routes_refuse_unknown_and_malformed_versions(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("Q")).await;
    let unknown = "00000000-0000-4000-8000-000000000000";
    app.admin_get(
        &format!("/v1/admin/questions/{unknown}/versions"),
        Some(&token),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    for path in [
        format!("/v1/admin/questions/{unknown}/versions/1"),
        format!("/v1/admin/questions/{id}/versions/2"),
        format!("/v1/admin/questions/{id}/versions/9223372036854775807"),
    ] {
        app.admin_get(&path, Some(&token))
            .await
            .assert_error(404, "NOT_FOUND");
        app.admin_post(&format!("{path}/revert"), json!({}), Some(&token))
            .await
            .assert_error(404, "NOT_FOUND");
    }
    for bad in ["abc", "-1", "0", "1.5", "99999999999999999999", "%20"] {
        let path = format!("/v1/admin/questions/{id}/versions/{bad}");
        app.admin_get(&path, Some(&token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
        app.admin_post(&format!("{path}/revert"), json!({}), Some(&token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    // admins only
    let (_, player, _) = app.guest("d-versions").await;
    for token in [None, Some(player.as_str())] {
        app.admin_get(&format!("/v1/admin/questions/{id}/versions"), token)
            .await
            .assert_error(401, "UNAUTHORIZED");
        app.admin_get(&format!("/v1/admin/questions/{id}/versions/1"), token)
            .await
            .assert_error(401, "UNAUTHORIZED");
        app.admin_post(
            &format!("/v1/admin/questions/{id}/versions/1/revert"),
            json!({}),
            token,
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
    }
    assert_eq!(version_count(&app, &id).await, 1);
}

/// Two admins edit one question at once, again and again: each edit is a version of
/// its own (or refused with 409), numbered without gaps or repeats, each holding the
/// content its edit wrote, and the question holds its newest.
async fn concurrent_edits_never_share_a_version(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("Race")).await;
    let card = question(&app, &token, &id).await["knowledgeCard"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let question_path = format!("/v1/admin/questions/{id}");
    let card_path = format!("/v1/admin/knowledge-cards/{card}");
    let mut written = 0;
    let mut refused = 0;
    for round in 0..8 {
        let edits = [
            (
                question_path.clone(),
                json!({"stem": {"text": format!("Stem A{round}")}}),
            ),
            (
                question_path.clone(),
                json!({"stem": {"text": format!("Stem B{round}")}, "difficulty": 1 + round % 5}),
            ),
            (
                card_path.clone(),
                json!({"summary": format!("Summary C{round}")}),
            ),
        ];
        let results = join_all(
            edits
                .iter()
                .map(|(path, body)| put(&app, &token, path, body.clone())),
        )
        .await;
        for r in &results {
            match r.status {
                200 => written += 1,
                409 => {
                    r.assert_error(409, "CONFLICT");
                    refused += 1;
                }
                _ => panic!("unexpected answer: {}", r.body),
            }
        }
    }
    assert!(written >= 8, "{written} written, {refused} refused");
    let list = versions(&app, &token, &id).await;
    let numbers: Vec<i64> = list
        .iter()
        .map(|v| v["version"].as_i64().unwrap())
        .collect();
    let expected: Vec<i64> = (1..=written + 1).rev().collect();
    assert_eq!(
        numbers, expected,
        "one version per edit written, no gap, no repeat"
    );
    let q = question(&app, &token, &id).await;
    assert_eq!(q["version"], written + 1);
    assert_eq!(
        content(&version(&app, &token, &id, written + 1).await),
        content(&q),
        "the newest version is what the question holds"
    );
    // every snapshot is one edit's result: each changes what its edit changed
    for v in 2..=written + 1 {
        let changed = version(&app, &token, &id, v).await["changedFields"].clone();
        let changed: Vec<&str> = changed
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        assert!(
            [
                vec!["stem"],
                vec!["stem", "difficulty"],
                vec!["knowledgeCard.summary"]
            ]
            .contains(&changed),
            "version {v}: {changed:?}"
        );
    }
}

/// The correct option of a question of a challenge (from the database: the API never
/// tells before the answer).
async fn correct_option(app: &TestApp, challenge: &Value, question: &str) -> String {
    app.text(
        "SELECT correct_option_id FROM challenge_session_questions WHERE session_id = $1 AND question_id = $2",
        &[challenge["challengeId"].as_str().unwrap(), question],
    )
    .await
}

async fn answer(app: &TestApp, player: &str, challenge: &Value, question: &str) -> Value {
    let option = correct_option(app, challenge, question).await;
    app.post(
        "/v1/challenges/answer",
        json!({
            "challengeId": challenge["challengeId"],
            "questionId": question,
            "selectedOptionId": option,
            "submitRequestId": format!("{}-{question}", challenge["challengeId"].as_str().unwrap()),
        }),
        Some(player),
    )
    .await
    .ok()
    .clone()
}

fn prompt_of(challenge: &Value, question: &str) -> Value {
    challenge["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["question"]["id"] == question)
        .map(|q| q["question"].clone())
        .unwrap()
}

fn question_ids(challenge: &Value) -> Vec<String> {
    challenge["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["question"]["id"].as_str().unwrap().to_string())
        .collect()
}

/// A player opens a challenge; an admin then rewrites a question of it (stem, options,
/// card); the player resumes and is served, judged and shown the card of the version
/// the challenge was made with, which the answer records. The next challenge serves
/// the new version.
async fn a_challenge_serves_the_version_it_was_made_with(app: TestApp) {
    let token = setup(&app).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(create(&app, &token, item(&format!("Old stem {i}"))).await);
    }
    for id in &ids {
        app.call(
            Service::Admin,
            Method::PATCH,
            &format!("/v1/admin/questions/{id}/status"),
            Some(json!({"status": "reviewing"})),
            Some(&token),
        )
        .await
        .ok();
    }
    let r = app
        .admin_post(
            "/v1/admin/questions/batch-publish",
            json!({"ids": ids}),
            Some(&token),
        )
        .await;
    assert_eq!(r.ok()["succeeded"], 5);
    let (_, player, _) = app.guest("d-served-version").await;
    let challenge = app
        .get("/v1/challenges/next?trackId=cat-a", Some(&player))
        .await
        .ok()
        .clone();
    let order = question_ids(&challenge);
    assert_eq!(order.len(), 5);
    // the edited question is answered second, so with the answer memory on its answer is
    // judged from memory (the first answer made the process remember the player)
    let (first, edited) = (order[0].clone(), order[1].clone());
    let served = prompt_of(&challenge, &edited);
    assert_eq!(
        served["prompt"],
        format!(
            "Old stem {}",
            ids.iter().position(|i| *i == edited).unwrap()
        )
    );
    answer(&app, &player, &challenge, &first).await;

    // the admin rewrites it: stem, answer, options and card, in one edit
    let card = question(&app, &token, &edited).await["knowledgeCard"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let q = put(
        &app,
        &token,
        &format!("/v1/admin/questions/{edited}"),
        json!({
            "stem": {"text": "New stem"},
            "correctAnswer": "new right",
            "distractors": ["new wrong 1", "new wrong 2", "new wrong 3"],
            "knowledgeCard": {"summary": "new summary", "title": "New title"}
        }),
    )
    .await
    .ok()
    .clone();
    assert_eq!(q["version"], 2);

    // resumed: the same challenge, the old stem and options
    let resumed = app
        .get("/v1/challenges/next?trackId=cat-a", Some(&player))
        .await
        .ok()
        .clone();
    assert_eq!(resumed["challengeId"], challenge["challengeId"]);
    assert_eq!(prompt_of(&resumed, &edited), served);
    let texts: Vec<&str> = served["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["text"].as_str().unwrap())
        .collect();
    assert!(
        texts.contains(&"right") && texts.contains(&"wrong 1"),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.starts_with("new")), "{texts:?}");

    // judged on the old options, shown the old card
    let a = answer(&app, &player, &resumed, &edited).await;
    assert_eq!(a["answerState"], "correct");
    assert_eq!(a["knowledgeCard"]["id"], card.as_str());
    assert_eq!(a["knowledgeCard"]["summary"], "because");
    assert_eq!(
        a["knowledgeCard"]["title"], "cat-a",
        "no title then: the category's name"
    );
    assert_eq!(a["knowledgeCard"]["fact"], "deeper");
    // a replay answers the same
    let replay = answer(&app, &player, &resumed, &edited).await;
    assert_eq!(replay["knowledgeCard"], a["knowledgeCard"]);
    let session = challenge["challengeId"].as_str().unwrap();
    assert_eq!(
        app.scalar(
            "SELECT question_version FROM challenge_answers WHERE session_id = $1 AND question_id = $2",
            &[session, &edited],
        )
        .await,
        1
    );
    assert_eq!(
        app.scalar(
            "SELECT question_version FROM challenge_session_questions WHERE session_id = $1 AND question_id = $2",
            &[session, &edited],
        )
        .await,
        1
    );
    // the card of the served version is shown to the player, so its view pays
    let view = app
        .post(
            &format!("/v1/challenges/knowledge-cards/{card}/view"),
            json!({}),
            Some(&player),
        )
        .await;
    assert!(!view.ok()["rewards"].as_array().unwrap().is_empty());
    for q in &order[2..] {
        answer(&app, &player, &resumed, q).await;
    }

    // a challenge made after the edit serves version 2
    let next = app
        .get("/v1/challenges/next?trackId=cat-a", Some(&player))
        .await
        .ok()
        .clone();
    assert_ne!(next["challengeId"], challenge["challengeId"]);
    let new = prompt_of(&next, &edited);
    assert_eq!(new["prompt"], "New stem");
    let texts: Vec<&str> = new["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 4);
    assert!(texts.contains(&"new right"), "{texts:?}");
    let a = answer(&app, &player, &next, &edited).await;
    assert_eq!(a["answerState"], "correct");
    assert_eq!(a["knowledgeCard"]["summary"], "new summary");
    assert_eq!(a["knowledgeCard"]["title"], "New title");
    assert_eq!(
        app.scalar(
            "SELECT question_version FROM challenge_answers WHERE session_id = $1 AND question_id = $2",
            &[next["challengeId"].as_str().unwrap(), &edited],
        )
        .await,
        2
    );
}

/// Every start loads the demo content again: a question staff have changed since (here
/// its card is gone, as a revert to a cardless version leaves it) stays as they left it.
async fn reloading_the_demo_content_keeps_staff_edits(app: TestApp) {
    let id = app
        .text(
            "SELECT question_id FROM knowledge_cards WHERE question_id IS NOT NULL
             ORDER BY question_id LIMIT 1",
            &[],
        )
        .await;
    app.exec("DELETE FROM knowledge_cards WHERE question_id = $1", &[&id])
        .await;
    let versions = version_count(&app, &id).await;
    let again = shared::services::demo::load(&app.ctx.db, &app.ctx.clock, &app.ctx.media)
        .await
        .unwrap();
    assert_eq!(again, shared::services::demo::DemoLoad::default());
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM knowledge_cards WHERE question_id = $1",
            &[&id]
        )
        .await,
        0
    );
    assert_eq!(version_count(&app, &id).await, versions);
}
