//! The admin question bank through HTTP: listing, reading, creating and editing, the
//! status workflow (PATCH, DELETE, batches), JSON and CSV imports, and authentication.

use reqwest::Method;
use serde_json::{Value, json};
use tests::{Resp, Service, TestApp, both_engines};

both_engines!(
    admin_questions_need_an_admin_token,
    admin_questions_create_get_and_update,
    admin_questions_put_status_follows_the_table,
    admin_questions_patch_status_all_sixteen_pairs,
    admin_questions_delete_archives,
    admin_questions_batch_publish_mixed_ids,
    admin_questions_batch_archive_mixed_ids,
    admin_questions_batch_delete_mixed_ids,
    admin_questions_batch_rejects_bad_requests,
    admin_questions_json_import_is_all_or_nothing,
    admin_questions_csv_import_quoting_and_columns,
    admin_questions_csv_import_is_all_or_nothing,
    admin_questions_csv_import_rejects_bad_input,
    admin_questions_list_filters_sort_and_pages,
    admin_questions_published_questions_reach_challenges,
);

const STATUSES: [&str; 4] = ["draft", "reviewing", "published", "archived"];

const CSV_HEADER: &str = "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef";

async fn seed_categories(app: &TestApp) {
    app.exec(
        "INSERT INTO categories (id, name, slug, created_at, updated_at) VALUES ('cat-a', 'Cat A', 'cat-a', 0, 0)",
        &[],
    )
    .await;
    app.exec(
        "INSERT INTO categories (id, name, slug, created_at, updated_at) VALUES ('cat-b', 'Cat B', 'cat-b', 0, 0)",
        &[],
    )
    .await;
}

/// Seeds two categories and signs the admin in.
async fn setup(app: &TestApp) -> String {
    seed_categories(app).await;
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
    let data = r.ok();
    assert_eq!(data["status"], "draft");
    data["id"].as_str().unwrap().to_string()
}

async fn force_status(app: &TestApp, id: &str, status: &str) {
    assert_eq!(
        app.exec(
            "UPDATE questions SET status = $1 WHERE id = $2",
            &[status, id]
        )
        .await,
        1
    );
}

async fn status_of(app: &TestApp, id: &str) -> String {
    app.text("SELECT status FROM questions WHERE id = $1", &[id])
        .await
}

async fn patch_status(app: &TestApp, token: &str, id: &str, status: &str) -> Resp {
    app.call(
        Service::Admin,
        Method::PATCH,
        &format!("/v1/admin/questions/{id}/status"),
        Some(json!({ "status": status })),
        Some(token),
    )
    .await
}

async fn put(app: &TestApp, token: &str, id: &str, body: Value) -> Resp {
    app.call(
        Service::Admin,
        Method::PUT,
        &format!("/v1/admin/questions/{id}"),
        Some(body),
        Some(token),
    )
    .await
}

async fn delete(app: &TestApp, token: &str, id: &str) -> Resp {
    app.call(
        Service::Admin,
        Method::DELETE,
        &format!("/v1/admin/questions/{id}"),
        None,
        Some(token),
    )
    .await
}

async fn post_csv(app: &TestApp, token: &str, content_type: &str, csv: String) -> Resp {
    let resp = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/questions/import-csv"))
        .bearer_auth(token)
        .header("content-type", content_type)
        .body(csv)
        .send()
        .await
        .unwrap();
    TestApp::read(resp).await
}

async fn question_count(app: &TestApp) -> i64 {
    app.scalar("SELECT count(*) FROM questions", &[]).await
}

async fn admin_questions_need_an_admin_token(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("Q")).await;
    let (_player_id, player_token, _) = app.guest("device-q").await;
    for bad in [None, Some(player_token.as_str()), Some("not-a-token")] {
        app.admin_get("/v1/admin/questions", bad)
            .await
            .assert_error(401, "UNAUTHORIZED");
        app.admin_get(&format!("/v1/admin/questions/{id}"), bad)
            .await
            .assert_error(401, "UNAUTHORIZED");
        app.admin_post("/v1/admin/questions", item("x"), bad)
            .await
            .assert_error(401, "UNAUTHORIZED");
        app.call(
            Service::Admin,
            Method::PATCH,
            &format!("/v1/admin/questions/{id}/status"),
            Some(json!({"status": "reviewing"})),
            bad,
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
        app.admin_post(
            "/v1/admin/questions/batch-publish",
            json!({"ids": [id]}),
            bad,
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
        app.admin_post(
            "/v1/admin/questions/import",
            json!({"questions": [item("y")]}),
            bad,
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
    }
    let r = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/questions/import-csv"))
        .header("content-type", "text/csv")
        .body(format!("{CSV_HEADER}\n"))
        .send()
        .await
        .unwrap();
    TestApp::read(r).await.assert_error(401, "UNAUTHORIZED");
    assert_eq!(status_of(&app, &id).await, "draft");
    assert_eq!(question_count(&app).await, 1);
}

async fn admin_questions_create_get_and_update(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("What is right?")).await;
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'question.create' AND target_id = $1",
            &[&id]
        )
        .await,
        1
    );
    let q = app
        .admin_get(&format!("/v1/admin/questions/{id}"), Some(&token))
        .await;
    let q = q.ok();
    assert_eq!(q["id"], id.as_str());
    assert_eq!(q["stem"]["text"], "What is right?");
    assert_eq!(q["contentType"], "text");
    assert_eq!(q["correctAnswer"], "right");
    assert_eq!(q["distractors"], json!(["wrong 1", "wrong 2"]));
    assert_eq!(q["categoryId"], "cat-a");
    assert_eq!(q["difficulty"], 2);
    assert_eq!(q["status"], "draft");
    assert_eq!(q["source"], "system");
    assert_eq!(q["knowledgeCard"]["summary"], "because");
    assert_eq!(q["knowledgeCard"]["deepDive"], "deeper");
    assert_eq!(q["knowledgeCard"]["sourceRef"], "book");
    assert!(q["knowledgeCard"]["title"].is_null());
    assert!(q["knowledgeCard"]["id"].is_string());
    assert!(
        q["createdAt"]
            .as_str()
            .unwrap()
            .starts_with("2026-11-18T04:")
    );

    // missing question
    app.admin_get(
        "/v1/admin/questions/00000000-0000-4000-8000-000000000000",
        Some(&token),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    put(
        &app,
        &token,
        "00000000-0000-4000-8000-000000000000",
        json!({"difficulty": 3}),
    )
    .await
    .assert_error(404, "NOT_FOUND");

    // create checks the item rules
    let mut bad = item("bad");
    bad["distractors"] = json!(["only one"]);
    app.admin_post("/v1/admin/questions", bad, Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let mut bad = item("bad");
    bad["categoryId"] = json!("no-such-category");
    app.admin_post("/v1/admin/questions", bad, Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let mut bad = item("bad");
    bad["knowledgeCard"] = json!({"deepDive": "no summary"});
    app.admin_post("/v1/admin/questions", bad, Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    assert_eq!(question_count(&app).await, 1);

    // a question without card, then PUT creates the card
    let mut plain = item("Plain");
    plain.as_object_mut().unwrap().remove("knowledgeCard");
    plain.as_object_mut().unwrap().remove("difficulty");
    let plain_id = create(&app, &token, plain).await;
    let q = app
        .admin_get(&format!("/v1/admin/questions/{plain_id}"), Some(&token))
        .await;
    assert!(q.ok()["knowledgeCard"].is_null());
    assert_eq!(q.ok()["difficulty"], 1);
    put(
        &app,
        &token,
        &plain_id,
        json!({"knowledgeCard": {"deepDive": "no summary"}}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    app.clock.advance(chrono::Duration::seconds(5));
    let r = put(
        &app,
        &token,
        &plain_id,
        json!({
            "stem": {"text": "Plain, edited"},
            "distractors": ["a", "b", "c"],
            "categoryId": "cat-b",
            "difficulty": 5,
            "contentType": "image",
            "correctAnswer": "z",
            "knowledgeCard": {"summary": "new card", "title": "T"}
        }),
    )
    .await;
    let q = r.ok();
    assert_eq!(q["stem"]["text"], "Plain, edited");
    assert_eq!(q["distractors"], json!(["a", "b", "c"]));
    assert_eq!(q["categoryId"], "cat-b");
    assert_eq!(q["difficulty"], 5);
    assert_eq!(q["contentType"], "image");
    assert_eq!(q["correctAnswer"], "z");
    assert_eq!(q["status"], "draft");
    assert_eq!(q["knowledgeCard"]["summary"], "new card");
    assert_eq!(q["knowledgeCard"]["title"], "T");
    assert_ne!(q["updatedAt"], q["createdAt"]);

    // PUT updates an existing card, keeping the fields not given
    let r = put(
        &app,
        &token,
        &id,
        json!({"knowledgeCard": {"deepDive": "deepest"}}),
    )
    .await;
    let q = r.ok();
    assert_eq!(q["knowledgeCard"]["summary"], "because");
    assert_eq!(q["knowledgeCard"]["deepDive"], "deepest");
    assert_eq!(q["knowledgeCard"]["sourceRef"], "book");
    assert_eq!(q["stem"]["text"], "What is right?");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM knowledge_cards WHERE question_id = $1",
            &[&id]
        )
        .await,
        1
    );

    // PUT checks its fields
    for body in [
        json!({"difficulty": 0}),
        json!({"difficulty": 6}),
        json!({"contentType": "pdf"}),
        json!({"distractors": ["one"]}),
        json!({"stem": {"text": "  "}}),
        json!({"correctAnswer": ""}),
        json!({"categoryId": "nope"}),
        json!({"status": "gone"}),
        json!({"knowledgeCard": {"summary": ""}}),
    ] {
        put(&app, &token, &id, body.clone())
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'question.update'",
            &[]
        )
        .await,
        2
    );
}

async fn admin_questions_put_status_follows_the_table(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("Q")).await;
    put(
        &app,
        &token,
        &id,
        json!({"status": "published", "difficulty": 4}),
    )
    .await
    .assert_error(400, "INVALID_STATUS_TRANSITION");
    // nothing of a refused PUT is applied
    let q = app
        .admin_get(&format!("/v1/admin/questions/{id}"), Some(&token))
        .await;
    assert_eq!(q.ok()["difficulty"], 2);
    let r = put(
        &app,
        &token,
        &id,
        json!({"status": "reviewing", "difficulty": 4}),
    )
    .await;
    assert_eq!(r.ok()["status"], "reviewing");
    assert_eq!(r.ok()["difficulty"], 4);
    put(&app, &token, &id, json!({"status": "reviewing"}))
        .await
        .assert_error(400, "INVALID_STATUS_TRANSITION");
}

async fn admin_questions_patch_status_all_sixteen_pairs(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("Q")).await;
    let allowed = [
        ("draft", "reviewing"),
        ("draft", "archived"),
        ("reviewing", "published"),
        ("reviewing", "draft"),
        ("reviewing", "archived"),
        ("published", "archived"),
        ("archived", "draft"),
    ];
    let mut pairs = 0;
    for from in STATUSES {
        for to in STATUSES {
            pairs += 1;
            force_status(&app, &id, from).await;
            let r = patch_status(&app, &token, &id, to).await;
            if allowed.contains(&(from, to)) {
                let q = r.ok();
                assert_eq!(q["status"], to, "{from} -> {to}");
                assert_eq!(q["id"], id.as_str());
                assert_eq!(status_of(&app, &id).await, to, "{from} -> {to}");
            } else {
                r.assert_error(400, "INVALID_STATUS_TRANSITION");
                let message = r.body["error"]["message"].as_str().unwrap();
                assert!(message.contains(from) && message.contains(to), "{message}");
                assert_eq!(status_of(&app, &id).await, from, "{from} -> {to}");
            }
        }
    }
    assert_eq!(pairs, 16);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'question.status'",
            &[]
        )
        .await,
        7
    );
    // unknown status, unknown question
    patch_status(&app, &token, &id, "deleted")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    patch_status(
        &app,
        &token,
        "00000000-0000-4000-8000-000000000000",
        "draft",
    )
    .await
    .assert_error(404, "NOT_FOUND");
}

async fn admin_questions_delete_archives(app: TestApp) {
    let token = setup(&app).await;
    for from in ["draft", "reviewing", "published"] {
        let id = create(&app, &token, item(from)).await;
        force_status(&app, &id, from).await;
        let r = delete(&app, &token, &id).await;
        assert!(r.ok().is_null());
        assert_eq!(status_of(&app, &id).await, "archived");
        // still there: a soft delete
        app.admin_get(&format!("/v1/admin/questions/{id}"), Some(&token))
            .await
            .ok();
        // a second DELETE: already archived
        let again = delete(&app, &token, &id).await;
        again.assert_error(400, "INVALID_STATUS_TRANSITION");
        assert!(
            again.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("archived")
        );
    }
    delete(&app, &token, "00000000-0000-4000-8000-000000000000")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'question.delete'",
            &[]
        )
        .await,
        3
    );
}

const MISSING: &str = "11111111-1111-4111-8111-111111111111";

/// One question in each status; returns their ids in [`STATUSES`] order.
async fn one_of_each(app: &TestApp, token: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for status in STATUSES {
        let id = create(app, token, item(status)).await;
        force_status(app, &id, status).await;
        ids.push(id);
    }
    ids
}

/// Runs a batch over reviewing, draft, published, archived and a missing id; checks the
/// ids that `moves` names end in `to`, and the rest are failures with their reason.
async fn check_batch(app: &TestApp, route: &str, moves: &[&str], to: &str) {
    let token = setup(app).await;
    let ids = one_of_each(app, &token).await;
    let by_status = |s: &str| ids[STATUSES.iter().position(|x| *x == s).unwrap()].clone();
    let request = vec![
        by_status("reviewing"),
        by_status("draft"),
        by_status("published"),
        by_status("archived"),
        MISSING.to_string(),
    ];
    let r = app
        .admin_post(
            &format!("/v1/admin/questions/{route}"),
            json!({ "ids": request }),
            Some(&token),
        )
        .await;
    let data = r.ok();
    assert_eq!(data["total"], 5);
    assert_eq!(data["succeeded"], moves.len());
    let failed = data["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 5 - moves.len());
    for status in STATUSES {
        let id = by_status(status);
        let failure = failed.iter().find(|f| f["id"] == id.as_str());
        if moves.contains(&status) {
            assert!(failure.is_none(), "{route}: {status} should move");
            assert_eq!(status_of(app, &id).await, to, "{route}: {status}");
        } else {
            let reason = failure.unwrap()["reason"].as_str().unwrap();
            assert!(
                reason.contains(status) && reason.contains(to),
                "{route}: {reason}"
            );
            assert_eq!(status_of(app, &id).await, status, "{route}: {status}");
        }
    }
    let missing = failed.iter().find(|f| f["id"] == MISSING).unwrap();
    assert_eq!(missing["reason"], "not found");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action LIKE 'question.batch_%'",
            &[]
        )
        .await,
        1
    );
}

async fn admin_questions_batch_publish_mixed_ids(app: TestApp) {
    check_batch(&app, "batch-publish", &["reviewing"], "published").await;
}

async fn admin_questions_batch_archive_mixed_ids(app: TestApp) {
    check_batch(&app, "batch-archive", &["draft", "published"], "archived").await;
}

async fn admin_questions_batch_delete_mixed_ids(app: TestApp) {
    check_batch(
        &app,
        "batch-delete",
        &["draft", "reviewing", "published"],
        "archived",
    )
    .await;
}

async fn admin_questions_batch_rejects_bad_requests(app: TestApp) {
    let token = setup(&app).await;
    let id = create(&app, &token, item("Q")).await;
    force_status(&app, &id, "reviewing").await;
    let too_many: Vec<String> = (0..201).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    for route in ["batch-publish", "batch-archive", "batch-delete"] {
        let path = format!("/v1/admin/questions/{route}");
        for body in [
            json!({"ids": []}),
            json!({"ids": [id, "not-a-uuid"]}),
            json!({"ids": too_many}),
            json!({}),
            json!({"ids": "x"}),
        ] {
            app.admin_post(&path, body, Some(&token))
                .await
                .assert_error(400, "VALIDATION_ERROR");
        }
    }
    assert_eq!(status_of(&app, &id).await, "reviewing");
    // exactly 200 is fine; duplicates count once
    let mut ids: Vec<String> = too_many[..199].to_vec();
    ids.push(id.clone());
    let r = app
        .admin_post(
            "/v1/admin/questions/batch-publish",
            json!({ "ids": ids }),
            Some(&token),
        )
        .await;
    assert_eq!(r.ok()["total"], 200);
    assert_eq!(r.ok()["succeeded"], 1);
    assert_eq!(status_of(&app, &id).await, "published");
    let r = app
        .admin_post(
            "/v1/admin/questions/batch-archive",
            json!({ "ids": [id, id] }),
            Some(&token),
        )
        .await;
    assert_eq!(r.ok()["total"], 1);
    assert_eq!(r.ok()["succeeded"], 1);
}

async fn admin_questions_json_import_is_all_or_nothing(app: TestApp) {
    let token = setup(&app).await;
    let mut second = item("Second");
    second.as_object_mut().unwrap().remove("knowledgeCard");
    second.as_object_mut().unwrap().remove("difficulty");
    second["categoryId"] = json!("cat-b");
    let r = app
        .admin_post(
            "/v1/admin/questions/import",
            json!({"questions": [item("First"), second]}),
            Some(&token),
        )
        .await;
    let data = r.ok();
    assert_eq!(data["total"], 2);
    assert_eq!(data["succeeded"], 2);
    let ids: Vec<String> = data["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2);
    let first = app
        .admin_get(&format!("/v1/admin/questions/{}", ids[0]), Some(&token))
        .await;
    assert_eq!(first.ok()["stem"]["text"], "First");
    assert_eq!(first.ok()["status"], "draft");
    assert_eq!(first.ok()["source"], "system");
    assert_eq!(first.ok()["knowledgeCard"]["summary"], "because");
    let second = app
        .admin_get(&format!("/v1/admin/questions/{}", ids[1]), Some(&token))
        .await;
    assert_eq!(second.ok()["difficulty"], 1);
    assert!(second.ok()["knowledgeCard"].is_null());
    assert_eq!(question_count(&app).await, 2);

    // one bad item among good ones: nothing inserted, its index reported
    let mut bad = item("Bad");
    bad["distractors"] = json!(["only one"]);
    bad["difficulty"] = json!(9);
    let mut unknown_cat = item("Unknown category");
    unknown_cat["categoryId"] = json!("no-such");
    let r = app
        .admin_post(
            "/v1/admin/questions/import",
            json!({"questions": [item("ok 0"), bad, item("ok 2"), unknown_cat, {"stem": "text"}, 7]}),
            Some(&token),
        )
        .await;
    r.assert_error(400, "VALIDATION_FAILED");
    let details = r.body["error"]["details"].as_array().unwrap();
    let indexes: Vec<u64> = details
        .iter()
        .map(|d| d["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, [1, 3, 4, 5]);
    assert_eq!(details[0]["errors"].as_array().unwrap().len(), 2);
    assert!(
        details[1]["errors"][0]
            .as_str()
            .unwrap()
            .contains("no-such")
    );
    assert_eq!(question_count(&app).await, 2);

    // every rule of an item
    let cases = [
        json!({"contentType": "text", "correctAnswer": "a", "distractors": ["b", "c"], "categoryId": "cat-a"}),
        json!({"stem": {"text": ""}, "contentType": "text", "correctAnswer": "a", "distractors": ["b", "c"], "categoryId": "cat-a"}),
        json!({"stem": {"text": "q"}, "contentType": "pdf", "correctAnswer": "a", "distractors": ["b", "c"], "categoryId": "cat-a"}),
        json!({"stem": {"text": "q"}, "contentType": "text", "correctAnswer": "", "distractors": ["b", "c"], "categoryId": "cat-a"}),
        json!({"stem": {"text": "q"}, "contentType": "text", "correctAnswer": "a", "distractors": ["b"], "categoryId": "cat-a"}),
        json!({"stem": {"text": "q"}, "contentType": "text", "correctAnswer": "a", "distractors": ["b", "c"]}),
        json!({"stem": {"text": "q"}, "contentType": "text", "correctAnswer": "a", "distractors": ["b", "c"], "categoryId": "cat-a", "difficulty": 0}),
        json!({"stem": {"text": "q"}, "contentType": "text", "correctAnswer": "a", "distractors": ["b", "c"], "categoryId": "cat-a", "knowledgeCard": {"deepDive": "x"}}),
    ];
    for case in cases {
        let r = app
            .admin_post(
                "/v1/admin/questions/import",
                json!({ "questions": [case.clone()] }),
                Some(&token),
            )
            .await;
        r.assert_error(400, "VALIDATION_FAILED");
        assert_eq!(r.body["error"]["details"][0]["index"], 0, "{case}");
    }
    // sizes
    app.admin_post(
        "/v1/admin/questions/import",
        json!({"questions": []}),
        Some(&token),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let many: Vec<Value> = (0..201).map(|i| item(&format!("q{i}"))).collect();
    app.admin_post(
        "/v1/admin/questions/import",
        json!({ "questions": many }),
        Some(&token),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // 200 is fine (and over the 64 KiB limit of other routes)
    let many: Vec<Value> = (0..200)
        .map(|i| {
            let mut q = item(&format!("q{i} {}", "long text ".repeat(40)));
            q["categoryId"] = json!("cat-b");
            q
        })
        .collect();
    let r = app
        .admin_post(
            "/v1/admin/questions/import",
            json!({ "questions": many }),
            Some(&token),
        )
        .await;
    assert_eq!(r.ok()["succeeded"], 200);
    assert_eq!(question_count(&app).await, 202);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'question.import'",
            &[]
        )
        .await,
        2
    );
}

async fn admin_questions_csv_import_quoting_and_columns(app: TestApp) {
    let token = setup(&app).await;
    let csv = format!(
        "{CSV_HEADER}\n\
         cat-a,text,3,\"Which city, in fact,\nis \"\"the\"\" capital?\",Paris,Lyon,,Nice,,Lille,\"Paris is the capital, \"\"obviously\"\".\",\"Line 1\nLine 2\",wiki\n\
         cat-b,image,,Plain stem,Yes,No,Maybe,,,,,,\n"
    );
    let r = post_csv(&app, &token, "text/csv; charset=utf-8", csv).await;
    let data = r.ok();
    assert_eq!(data["total"], 2);
    assert_eq!(data["succeeded"], 2);
    let first_id = data["ids"][0].as_str().unwrap().to_string();
    let second_id = data["ids"][1].as_str().unwrap().to_string();
    let q = app
        .admin_get(&format!("/v1/admin/questions/{first_id}"), Some(&token))
        .await;
    let q = q.ok();
    assert_eq!(
        q["stem"]["text"],
        "Which city, in fact,\nis \"the\" capital?"
    );
    assert_eq!(q["correctAnswer"], "Paris");
    assert_eq!(q["distractors"], json!(["Lyon", "Nice", "Lille"]));
    assert_eq!(q["difficulty"], 3);
    assert_eq!(q["status"], "draft");
    assert_eq!(
        q["knowledgeCard"]["summary"],
        "Paris is the capital, \"obviously\"."
    );
    assert_eq!(q["knowledgeCard"]["deepDive"], "Line 1\nLine 2");
    assert_eq!(q["knowledgeCard"]["sourceRef"], "wiki");
    let q = app
        .admin_get(&format!("/v1/admin/questions/{second_id}"), Some(&token))
        .await;
    let q = q.ok();
    assert_eq!(q["contentType"], "image");
    assert_eq!(q["categoryId"], "cat-b");
    assert_eq!(q["difficulty"], 1);
    assert_eq!(q["distractors"], json!(["No", "Maybe"]));
    assert!(q["knowledgeCard"].is_null());
    // text/plain is accepted too
    let r = post_csv(
        &app,
        &token,
        "text/plain",
        format!("{CSV_HEADER}\ncat-a,text,1,Q,A,B,C,,,,,,\n"),
    )
    .await;
    assert_eq!(r.ok()["succeeded"], 1);
    assert_eq!(question_count(&app).await, 3);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'question.import_csv'",
            &[]
        )
        .await,
        2
    );
}

async fn admin_questions_csv_import_is_all_or_nothing(app: TestApp) {
    let token = setup(&app).await;
    let csv = format!(
        "{CSV_HEADER}\n\
         cat-a,text,1,Good,A,B,C,,,,,,\n\
         cat-a,text,1,One distractor,A,B,,,,,,,\n\
         cat-a,text,1,Good too,A,B,C,,,,,,\n\
         no-such,movie,x,,,B,C,,,,,,\n"
    );
    let r = post_csv(&app, &token, "text/csv", csv).await;
    r.assert_error(400, "VALIDATION_FAILED");
    let details = r.body["error"]["details"].as_array().unwrap();
    assert_eq!(details.len(), 2);
    assert_eq!(details[0]["index"], 1);
    assert_eq!(details[1]["index"], 3);
    // unparsable difficulty is reported alone (the row is not checked further)
    assert!(!details[1]["errors"].as_array().unwrap().is_empty());
    assert_eq!(question_count(&app).await, 0);
    let csv = format!(
        "{CSV_HEADER}\n\
         cat-a,text,1,Good,A,B,C,,,,,,\n\
         no-such,movie,9,,,B,C,,,,,,\n"
    );
    let r = post_csv(&app, &token, "text/csv", csv).await;
    r.assert_error(400, "VALIDATION_FAILED");
    let details = r.body["error"]["details"].as_array().unwrap();
    assert_eq!(details.len(), 1);
    assert_eq!(details[0]["index"], 1);
    // category, content type, difficulty, stem, answer
    assert_eq!(details[0]["errors"].as_array().unwrap().len(), 5);
    assert_eq!(question_count(&app).await, 0);
}

async fn admin_questions_csv_import_rejects_bad_input(app: TestApp) {
    let token = setup(&app).await;
    let row = "cat-a,text,1,Q,A,B,C,,,,,,";
    // header of another width, other names, other order
    for header in [
        "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2",
        "category,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef",
        "contentType,categoryId,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef",
    ] {
        post_csv(&app, &token, "text/csv", format!("{header}\n{row}\n"))
            .await
            .assert_error(400, "CSV_PARSE_ERROR");
    }
    // a row of another width, an unterminated quote
    post_csv(
        &app,
        &token,
        "text/csv",
        format!("{CSV_HEADER}\n{row}\ncat-a,text,1,Q,A,B,C\n"),
    )
    .await
    .assert_error(400, "CSV_PARSE_ERROR");
    post_csv(
        &app,
        &token,
        "text/csv",
        format!("{CSV_HEADER}\ncat-a,text,1,\"Q,A,B,C,,,,,,\n"),
    )
    .await
    .assert_error(400, "CSV_PARSE_ERROR");
    // no rows, 201 rows
    post_csv(&app, &token, "text/csv", format!("{CSV_HEADER}\n"))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    post_csv(&app, &token, "text/csv", String::new())
        .await
        .assert_error(400, "CSV_PARSE_ERROR");
    let rows = vec![row; 201].join("\n");
    post_csv(&app, &token, "text/csv", format!("{CSV_HEADER}\n{rows}\n"))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // another content type
    post_csv(
        &app,
        &token,
        "application/json",
        format!("{CSV_HEADER}\n{row}\n"),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    assert_eq!(question_count(&app).await, 0);
    // exactly 200 rows is fine
    let rows = vec![row; 200].join("\n");
    let r = post_csv(&app, &token, "text/csv", format!("{CSV_HEADER}\n{rows}\n")).await;
    assert_eq!(r.ok()["succeeded"], 200);
    assert_eq!(question_count(&app).await, 200);
}

fn ids_of(r: &Resp) -> Vec<String> {
    r.ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_str().unwrap().to_string())
        .collect()
}

async fn admin_questions_list_filters_sort_and_pages(app: TestApp) {
    let token = setup(&app).await;
    // five questions, one second apart, with distinct difficulties
    let mut ids = Vec::new();
    for (i, (stem, cat, status)) in [
        ("Capital of France", "cat-a", "draft"),
        ("Largest ocean", "cat-a", "reviewing"),
        ("Boiling point", "cat-b", "published"),
        ("Speed of light", "cat-b", "archived"),
        ("Longest river", "cat-a", "published"),
    ]
    .iter()
    .enumerate()
    {
        let mut body = item(stem);
        body["categoryId"] = json!(cat);
        body["difficulty"] = json!(5 - i);
        if i == 1 {
            body["distractors"] = json!(["Atlantic PARISH", "Indian"]);
        }
        let id = create(&app, &token, body).await;
        force_status(&app, &id, status).await;
        ids.push(id);
        app.clock.advance(chrono::Duration::seconds(1));
    }
    app.exec(
        "UPDATE questions SET source = 'ugc' WHERE id = $1",
        &[&ids[2]],
    )
    .await;
    let list = |query: &str| {
        let path = format!("/v1/admin/questions{query}");
        let token = token.clone();
        let app = &app;
        async move { app.admin_get(&path, Some(&token)).await }
    };

    // default: newest first, page 1, limit 20
    let r = list("").await;
    let mut newest_first = ids.clone();
    newest_first.reverse();
    assert_eq!(ids_of(&r), newest_first);
    assert_eq!(
        r.body["pagination"],
        json!({"total": 5, "page": 1, "limit": 20})
    );
    assert!(r.ok()[0]["knowledgeCard"]["summary"].is_string());

    // filters
    let r = list("?status=published").await;
    assert_eq!(ids_of(&r), [ids[4].clone(), ids[2].clone()]);
    assert_eq!(r.body["pagination"]["total"], 2);
    let r = list("?categoryId=cat-b").await;
    assert_eq!(ids_of(&r), [ids[3].clone(), ids[2].clone()]);
    let r = list("?difficulty=4").await;
    assert_eq!(ids_of(&r), [ids[1].clone()]);
    let r = list("?source=ugc").await;
    assert_eq!(ids_of(&r), [ids[2].clone()]);
    let r = list("?source=system&categoryId=cat-a&status=published").await;
    assert_eq!(ids_of(&r), [ids[4].clone()]);
    // keyword: stem or distractors, any case
    let r = list("?keyword=LONGEST").await;
    assert_eq!(ids_of(&r), [ids[4].clone()]);
    let r = list("?keyword=paris").await;
    assert_eq!(ids_of(&r), [ids[1].clone()]);
    let r = list("?keyword=o&sortBy=createdAt&sortOrder=asc").await;
    assert_eq!(r.body["pagination"]["total"], 5);
    let r = list("?keyword=nothing-like-this").await;
    assert!(ids_of(&r).is_empty());
    assert_eq!(r.body["pagination"]["total"], 0);
    // `%` and `_` are matched literally, not as wildcards
    for wild in ["%25", "_"] {
        let r = list(&format!("?keyword={wild}")).await;
        assert_eq!(r.body["pagination"]["total"], 0, "{wild}");
    }
    app.exec(
        "UPDATE questions SET stem_text = 'What is 100% of 2_000?' WHERE id = $1",
        &[&ids[0]],
    )
    .await;
    let r = list("?keyword=100%25%20of%202_").await;
    assert_eq!(ids_of(&r), [ids[0].clone()]);

    // sorting
    let r = list("?sortOrder=asc").await;
    assert_eq!(ids_of(&r), ids);
    let r = list("?sortBy=difficulty&sortOrder=asc").await;
    assert_eq!(ids_of(&r), newest_first);
    let r = list("?sortBy=difficulty").await;
    assert_eq!(ids_of(&r), ids);
    app.clock.advance(chrono::Duration::seconds(1));
    put(&app, &token, &ids[0], json!({"difficulty": 5}))
        .await
        .ok();
    let r = list("?sortBy=updatedAt&sortOrder=desc&limit=1").await;
    assert_eq!(ids_of(&r), [ids[0].clone()]);

    // pages
    let r = list("?limit=2&page=2&sortOrder=asc").await;
    assert_eq!(ids_of(&r), [ids[2].clone(), ids[3].clone()]);
    assert_eq!(
        r.body["pagination"],
        json!({"total": 5, "page": 2, "limit": 2})
    );
    let r = list("?limit=2&page=4").await;
    assert!(ids_of(&r).is_empty());
    let r = list("?limit=50").await;
    assert_eq!(ids_of(&r).len(), 5);

    // out of range
    for bad in [
        "?limit=0",
        "?limit=51",
        "?page=0",
        "?page=-1",
        "?limit=x",
        "?status=gone",
        "?difficulty=0",
        "?difficulty=6",
        "?difficulty=two",
        "?source=user",
        "?sortBy=stem",
        "?sortOrder=up",
    ] {
        list(bad).await.assert_error(400, "VALIDATION_ERROR");
    }
}

async fn admin_questions_published_questions_reach_challenges(app: TestApp) {
    let token = setup(&app).await;
    app.exec(
        "INSERT INTO skill_nodes (id, category_id, title, created_at, updated_at) VALUES ('cat-a-1', 'cat-a', 'One', 0, 0)",
        &[],
    )
    .await;
    let questions: Vec<Value> = (0..6).map(|i| item(&format!("Served {i}"))).collect();
    let r = app
        .admin_post(
            "/v1/admin/questions/import",
            json!({ "questions": questions }),
            Some(&token),
        )
        .await;
    let ids: Vec<String> = r.ok()["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let (_player, player_token, _) = app.guest("device-served").await;
    // drafts are never served
    let next = app
        .get("/v1/challenges/next?trackId=cat-a", Some(&player_token))
        .await;
    assert!(next.ok().is_null());
    for id in &ids {
        patch_status(&app, &token, id, "reviewing").await.ok();
    }
    let r = app
        .admin_post(
            "/v1/admin/questions/batch-publish",
            json!({ "ids": ids[..5] }),
            Some(&token),
        )
        .await;
    assert_eq!(r.ok()["succeeded"], 5);
    let next = app
        .get("/v1/challenges/next?trackId=cat-a", Some(&player_token))
        .await;
    let mut served: Vec<String> = next.ok()["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["question"]["id"].as_str().unwrap().to_string())
        .collect();
    served.sort();
    let mut expected = ids[..5].to_vec();
    expected.sort();
    assert_eq!(served, expected);
}
