//! The admin catalog through HTTP: categories, knowledge cards and the skill tree, and
//! what players see of them.

use reqwest::Method;
use serde_json::{Value, json};
use tests::{Resp, Service, TestApp, both_engines_demo};

both_engines_demo!(
    category_create_update_archive_round_trip,
    category_duplicates_and_bad_input_are_refused,
    category_cycles_are_refused,
    admin_lists_check_page_and_limit,
    archived_category_leaves_player_tracks_at_once,
    knowledge_cards_list_by_question_and_update,
    card_title_shows_in_player_answer,
    skill_tree_lists_with_and_without_category,
    skill_tree_create_update_and_refusals,
    skill_tree_order_after_the_largest_stays_there,
    skill_tree_delete_reparents_children,
    new_node_shows_in_player_track,
    every_route_needs_an_admin_token,
);

const GEO: &str = "world-geography";

async fn put(app: &TestApp, path: &str, body: Value, token: &str) -> Resp {
    app.call(Service::Admin, Method::PUT, path, Some(body), Some(token))
        .await
}

async fn delete(app: &TestApp, path: &str, token: &str) -> Resp {
    app.call(Service::Admin, Method::DELETE, path, None, Some(token))
        .await
}

async fn audits(app: &TestApp, action: &str, target: &str) -> i64 {
    app.scalar(
        "SELECT count(*) FROM audit_log WHERE action = $1 AND target_id = $2",
        &[action, target],
    )
    .await
}

/// Every category through the admin list (all pages).
async fn all_categories(app: &TestApp, token: &str) -> Vec<Value> {
    app.admin_get("/v1/admin/categories?limit=50", Some(token))
        .await
        .ok()
        .as_array()
        .unwrap()
        .clone()
}

async fn category_create_update_archive_round_trip(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let created = app
        .admin_post(
            "/v1/admin/categories",
            json!({"id": "space-2", "name": "  Space  ", "slug": "space", "parentId": "science-basics", "sortOrder": 7}),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    assert_eq!(
        created,
        json!({"id": "space-2", "name": "Space", "slug": "space", "parentId": "science-basics",
               "sortOrder": 7, "status": "active", "questionCount": 0, "icon": "book"})
    );
    assert_eq!(audits(&app, "category.create", "space-2").await, 1);

    // listed in (sortOrder, id) order, with question counts of non-archived questions
    let list = all_categories(&app, &token).await;
    let ids: Vec<&str> = list.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "world-geography",
            "science-basics",
            "history-culture",
            "china-geography",
            "science-common-sense",
            "world-flags",
            "space-2"
        ]
    );
    assert_eq!(list[0]["questionCount"], 30);
    app.exec(
        "UPDATE questions SET status = 'archived' WHERE id IN
           (SELECT id FROM questions WHERE category_id = $1 ORDER BY id LIMIT 2)",
        &[GEO],
    )
    .await;
    app.exec(
        "UPDATE questions SET status = 'draft' WHERE id IN
           (SELECT id FROM questions WHERE category_id = $1 AND status = 'published' ORDER BY id LIMIT 1)",
        &[GEO],
    )
    .await;
    assert_eq!(all_categories(&app, &token).await[0]["questionCount"], 28);

    // partial update: absent fields are kept, null parentId clears it
    let updated = put(
        &app,
        "/v1/admin/categories/space-2",
        json!({"name": "Outer Space", "icon": "rocket"}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(updated["name"], "Outer Space");
    assert_eq!(updated["icon"], "rocket");
    assert_eq!(updated["parentId"], "science-basics");
    assert_eq!(updated["slug"], "space");
    let updated = put(
        &app,
        "/v1/admin/categories/space-2",
        json!({"parentId": null, "slug": "outer-space", "sortOrder": 0, "status": "inactive"}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(updated["parentId"], Value::Null);
    assert_eq!(updated["slug"], "outer-space");
    assert_eq!(updated["sortOrder"], 0);
    assert_eq!(updated["status"], "inactive");
    assert_eq!(updated["name"], "Outer Space");
    let updated = put(
        &app,
        "/v1/admin/categories/space-2",
        json!({"status": "active"}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(updated["status"], "active");
    assert_eq!(audits(&app, "category.update", "space-2").await, 3);

    // DELETE archives: status inactive, the row stays
    let archived = delete(&app, "/v1/admin/categories/space-2", &token)
        .await
        .ok()
        .clone();
    assert_eq!(archived["status"], "inactive");
    assert_eq!(archived["id"], "space-2");
    assert_eq!(audits(&app, "category.archive", "space-2").await, 1);
    let listed = all_categories(&app, &token).await;
    let row = listed.iter().find(|c| c["id"] == "space-2").unwrap();
    assert_eq!(row["status"], "inactive");

    // unknown ids
    put(
        &app,
        "/v1/admin/categories/nope",
        json!({"name": "x"}),
        &token,
    )
    .await
    .assert_error(404, "NOT_FOUND");
    delete(&app, "/v1/admin/categories/nope", &token)
        .await
        .assert_error(404, "NOT_FOUND");
}

async fn category_duplicates_and_bad_input_are_refused(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let post = |body: Value| {
        let token = token.clone();
        let app = &app;
        async move {
            app.admin_post("/v1/admin/categories", body, Some(&token))
                .await
        }
    };
    // duplicate id, duplicate slug
    post(json!({"id": GEO, "name": "Again", "slug": "again"}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    post(json!({"id": "again", "name": "Again", "slug": GEO}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // bad ids, slugs, names, parents, types
    for body in [
        json!({"id": "", "name": "A", "slug": "a"}),
        json!({"id": "Upper", "name": "A", "slug": "a"}),
        json!({"id": "has space", "name": "A", "slug": "a"}),
        json!({"id": "a".repeat(65), "name": "A", "slug": "a"}),
        json!({"id": "a", "name": "A", "slug": "Bad/Slug"}),
        json!({"id": "a", "name": "   ", "slug": "a"}),
        json!({"id": "a", "name": "n".repeat(101), "slug": "a"}),
        json!({"id": "a", "name": "A", "slug": "a", "parentId": "missing"}),
        json!({"id": "a", "name": "A", "slug": "a", "sortOrder": "first"}),
        json!({"name": "A", "slug": "a"}),
    ] {
        post(body).await.assert_error(400, "VALIDATION_ERROR");
    }
    assert_eq!(app.scalar("SELECT count(*) FROM categories", &[]).await, 6);
    // 64 characters is fine
    let long = "a".repeat(64);
    post(json!({"id": long, "name": "A", "slug": long}))
        .await
        .ok();

    // update: duplicate slug, bad status, unknown parent
    for body in [
        json!({"slug": "science-basics"}),
        json!({"status": "archived"}),
        json!({"parentId": "missing"}),
        json!({"name": ""}),
    ] {
        put(&app, "/v1/admin/categories/world-geography", body, &token)
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    // keeping its own slug is no duplicate
    put(
        &app,
        "/v1/admin/categories/world-geography",
        json!({"slug": GEO}),
        &token,
    )
    .await
    .ok();
}

async fn category_cycles_are_refused(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    // a <- b <- c
    for (id, parent) in [("a", None), ("b", Some("a")), ("c", Some("b"))] {
        app.admin_post(
            "/v1/admin/categories",
            json!({"id": id, "name": id, "slug": id, "parentId": parent}),
            Some(&token),
        )
        .await
        .ok();
    }
    for (id, parent) in [("a", "a"), ("a", "b"), ("a", "c"), ("b", "c")] {
        put(
            &app,
            &format!("/v1/admin/categories/{id}"),
            json!({"parentId": parent}),
            &token,
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
    }
    // moving c under a, then a under another branch, is fine
    put(
        &app,
        "/v1/admin/categories/c",
        json!({"parentId": "a"}),
        &token,
    )
    .await
    .ok();
    let a = put(
        &app,
        "/v1/admin/categories/a",
        json!({"parentId": GEO}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(a["parentId"], GEO);
    put(
        &app,
        "/v1/admin/categories/world-geography",
        json!({"parentId": "c"}),
        &token,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
}

async fn admin_lists_check_page_and_limit(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    for list in ["/v1/admin/categories", "/v1/admin/knowledge-cards"] {
        for query in ["limit=0", "limit=51", "page=0", "page=-1", "limit=abc"] {
            app.admin_get(&format!("{list}?{query}"), Some(&token))
                .await
                .assert_error(400, "VALIDATION_ERROR");
        }
    }
    // categories: 6, two per page
    let r = app
        .admin_get("/v1/admin/categories?page=3&limit=2", Some(&token))
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 2);
    assert_eq!(r.ok()[0]["id"], "science-common-sense");
    assert_eq!(r.ok()[1]["id"], "world-flags");
    assert_eq!(
        r.body["pagination"],
        json!({"total": 6, "page": 3, "limit": 2})
    );
    let r = app.admin_get("/v1/admin/categories", Some(&token)).await;
    assert_eq!(
        r.body["pagination"],
        json!({"total": 6, "page": 1, "limit": 20})
    );

    // cards: 162, default 20 per page, 50 at most
    let r = app
        .admin_get("/v1/admin/knowledge-cards", Some(&token))
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 20);
    assert_eq!(
        r.body["pagination"],
        json!({"total": 162, "page": 1, "limit": 20})
    );
    let r = app
        .admin_get("/v1/admin/knowledge-cards?page=3&limit=50", Some(&token))
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 50);
    let r = app
        .admin_get("/v1/admin/knowledge-cards?page=3&limit=50", Some(&token))
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 50);
    assert_eq!(r.body["pagination"]["total"], 162);
}

async fn archived_category_leaves_player_tracks_at_once(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let (_, player, _) = app.guest("d-archive").await;
    let ids = |r: &Resp| -> Vec<String> {
        r.ok()
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect()
    };
    let before = ids(&app.get("/v1/tracks", Some(&player)).await);
    assert!(before.contains(&GEO.to_string()));
    delete(&app, "/v1/admin/categories/world-geography", &token)
        .await
        .ok();
    let after = ids(&app.get("/v1/tracks", Some(&player)).await);
    assert!(!after.contains(&GEO.to_string()), "{after:?}");
    assert_eq!(after.len(), before.len() - 1);
    let one = app.get("/v1/tracks/world-geography", Some(&player)).await;
    assert!(one.ok().is_null());
    // and back
    put(
        &app,
        "/v1/admin/categories/world-geography",
        json!({"status": "active"}),
        &token,
    )
    .await
    .ok();
    let again = ids(&app.get("/v1/tracks", Some(&player)).await);
    assert_eq!(again, before);
}

async fn knowledge_cards_list_by_question_and_update(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let first = app
        .admin_get("/v1/admin/knowledge-cards?limit=50", Some(&token))
        .await
        .ok()
        .as_array()
        .unwrap()
        .clone();
    // newest first
    let created: Vec<chrono::DateTime<chrono::Utc>> = first
        .iter()
        .map(|c| c["createdAt"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "{created:?}");
    let card = first[0].clone();
    for key in [
        "id",
        "questionId",
        "title",
        "summary",
        "deepDive",
        "sourceRef",
        "createdAt",
        "updatedAt",
    ] {
        assert!(card.get(key).is_some(), "{key} missing in {card}");
    }
    let question = card["questionId"].as_str().unwrap();
    let by_question = app
        .admin_get(
            &format!("/v1/admin/knowledge-cards/by-question/{question}"),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    assert_eq!(by_question, card);

    // 404: unknown question, and a question without a card
    app.admin_get("/v1/admin/knowledge-cards/by-question/nope", Some(&token))
        .await
        .assert_error(404, "NOT_FOUND");
    app.exec(
        "DELETE FROM knowledge_cards WHERE id = $1",
        &[first[1]["id"].as_str().unwrap()],
    )
    .await;
    app.admin_get(
        &format!(
            "/v1/admin/knowledge-cards/by-question/{}",
            first[1]["questionId"].as_str().unwrap()
        ),
        Some(&token),
    )
    .await
    .assert_error(404, "NOT_FOUND");

    // update: at least one field, summary not empty
    let path = format!("/v1/admin/knowledge-cards/{}", card["id"].as_str().unwrap());
    for body in [
        json!({}),
        json!({"summary": ""}),
        json!({"summary": "   "}),
        json!({"summary": null}),
        json!({"title": "t".repeat(201)}),
    ] {
        put(&app, &path, body, &token)
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    put(
        &app,
        "/v1/admin/knowledge-cards/nope",
        json!({"summary": "x"}),
        &token,
    )
    .await
    .assert_error(404, "NOT_FOUND");

    let updated = put(
        &app,
        &path,
        json!({"summary": "A new summary", "sourceRef": "Atlas, p. 12"}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(updated["summary"], "A new summary");
    assert_eq!(updated["sourceRef"], "Atlas, p. 12");
    assert_eq!(updated["deepDive"], card["deepDive"]);
    assert_eq!(updated["title"], card["title"]);
    assert_eq!(updated["createdAt"], card["createdAt"]);
    let updated = put(
        &app,
        &path,
        json!({"title": "Capitals", "deepDive": null}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(updated["title"], "Capitals");
    assert_eq!(updated["deepDive"], Value::Null);
    assert_eq!(updated["summary"], "A new summary");
    let again = app
        .admin_get(
            &format!("/v1/admin/knowledge-cards/by-question/{question}"),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    assert_eq!(again, updated);
    assert_eq!(
        audits(&app, "knowledge_card.update", card["id"].as_str().unwrap()).await,
        2
    );
}

async fn card_title_shows_in_player_answer(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let (_, player, _) = app.guest("d-card-title").await;
    // A challenge shows the cards as they were when it was made (question versions), so
    // the cards are edited first, and the track keeps five questions, so the challenge
    // holds the two edited.
    app.exec(
        "UPDATE questions SET status = 'archived' WHERE category_id = $1 AND id NOT IN
             (SELECT id FROM questions WHERE category_id = $1 ORDER BY id LIMIT 5)",
        &[GEO],
    )
    .await;
    let q0 = app
        .text(
            "SELECT id FROM questions WHERE category_id = $1 ORDER BY id LIMIT 1",
            &[GEO],
        )
        .await;
    let q1 = app
        .text(
            "SELECT id FROM questions WHERE category_id = $1 ORDER BY id LIMIT 1 OFFSET 1",
            &[GEO],
        )
        .await;
    let card0 = app
        .admin_get(
            &format!("/v1/admin/knowledge-cards/by-question/{q0}"),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    put(
        &app,
        &format!(
            "/v1/admin/knowledge-cards/{}",
            card0["id"].as_str().unwrap()
        ),
        json!({"title": "Capital Cities 101"}),
        &token,
    )
    .await
    .ok();
    // an empty title clears it: the player sees the category name
    let card1 = app
        .admin_get(
            &format!("/v1/admin/knowledge-cards/by-question/{q1}"),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    let cleared = put(
        &app,
        &format!(
            "/v1/admin/knowledge-cards/{}",
            card1["id"].as_str().unwrap()
        ),
        json!({"title": "", "summary": "Edited summary"}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(cleared["title"], Value::Null);

    let challenge = app
        .get(&format!("/v1/challenges/next?trackId={GEO}"), Some(&player))
        .await
        .ok()
        .clone();
    let session = challenge["challengeId"].as_str().unwrap().to_string();
    let answer = |question: String| {
        let (app, player, session) = (&app, player.clone(), session.clone());
        async move {
            let option = app
                .text(
                    "SELECT correct_option_id FROM challenge_session_questions WHERE session_id = $1 AND question_id = $2",
                    &[&session, &question],
                )
                .await;
            app.post(
                "/v1/challenges/answer",
                json!({"challengeId": session, "questionId": question, "selectedOptionId": option}),
                Some(&player),
            )
            .await
            .ok()
            .clone()
        }
    };
    let a0 = answer(q0.clone()).await;
    assert_eq!(a0["knowledgeCard"]["id"], card0["id"]);
    assert_eq!(a0["knowledgeCard"]["title"], "Capital Cities 101");
    let a1 = answer(q1.clone()).await;
    assert_eq!(a1["knowledgeCard"]["title"], "World Geography");
    assert_eq!(a1["knowledgeCard"]["summary"], "Edited summary");
}

async fn nodes(app: &TestApp, token: &str, query: &str) -> Vec<Value> {
    app.admin_get(&format!("/v1/admin/skill-tree{query}"), Some(token))
        .await
        .ok()
        .as_array()
        .unwrap()
        .clone()
}

async fn skill_tree_lists_with_and_without_category(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let all = nodes(&app, &token, "").await;
    assert_eq!(all.len(), 22);
    let categories: Vec<&str> = all
        .iter()
        .map(|n| n["categoryId"].as_str().unwrap())
        .collect();
    assert_eq!(&categories[..4], [GEO; 4]);
    assert_eq!(&categories[4..8], ["science-basics"; 4]);
    assert_eq!(&categories[8..12], ["history-culture"; 4]);
    assert_eq!(&categories[12..16], ["china-geography"; 4]);
    assert_eq!(&categories[16..20], ["science-common-sense"; 4]);
    assert_eq!(&categories[20..], ["world-flags"; 2]);
    let geo = nodes(&app, &token, "?categoryId=world-geography").await;
    assert_eq!(geo, all[..4].to_vec());
    let orders: Vec<i64> = geo
        .iter()
        .map(|n| n["sortOrder"].as_i64().unwrap())
        .collect();
    assert!(orders.windows(2).all(|w| w[0] <= w[1]));
    let n = &geo[0];
    for key in [
        "id",
        "categoryId",
        "title",
        "parentId",
        "sortOrder",
        "questionsRequired",
        "passThreshold",
    ] {
        assert!(n.get(key).is_some(), "{key} missing in {n}");
    }
    // node ids are the chapter ids players see
    let (_, player, _) = app.guest("d-nodes").await;
    let track = app
        .get("/v1/tracks/world-geography", Some(&player))
        .await
        .ok()
        .clone();
    let track_ids: Vec<&Value> = track["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["id"])
        .collect();
    let node_ids: Vec<&Value> = geo.iter().map(|n| &n["id"]).collect();
    assert_eq!(track_ids, node_ids);
    // empty or unknown category
    assert_eq!(nodes(&app, &token, "?categoryId=").await.len(), 22);
    assert!(nodes(&app, &token, "?categoryId=nope").await.is_empty());
}

/// A node may sit at sortOrder `i64::MAX`; a node added after it without a sortOrder
/// goes there too (it was a 500 on PostgreSQL: `MAX(sort_order) + 1` overflowed).
async fn skill_tree_order_after_the_largest_stays_there(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    for (title, sort_order) in [("Last", json!(i64::MAX)), ("After", Value::Null)] {
        let node = app
            .admin_post(
                "/v1/admin/skill-tree",
                json!({"categoryId": GEO, "title": title, "sortOrder": sort_order}),
                Some(&token),
            )
            .await
            .ok()
            .clone();
        assert_eq!(node["sortOrder"], i64::MAX, "{title}");
    }
}

async fn skill_tree_create_update_and_refusals(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let geo = nodes(&app, &token, "?categoryId=world-geography").await;
    let science = nodes(&app, &token, "?categoryId=science-basics").await;
    let created = app
        .admin_post(
            "/v1/admin/skill-tree",
            json!({"categoryId": GEO, "title": "  Flags  "}),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    let id = created["id"].as_str().unwrap().to_string();
    assert!(!id.is_empty());
    assert_eq!(created["title"], "Flags");
    assert_eq!(created["categoryId"], GEO);
    assert_eq!(created["parentId"], Value::Null);
    assert_eq!(created["questionsRequired"], 5);
    assert_eq!(created["passThreshold"], 3);
    let last = geo
        .iter()
        .map(|n| n["sortOrder"].as_i64().unwrap())
        .max()
        .unwrap();
    assert_eq!(created["sortOrder"], last + 1);
    assert_eq!(audits(&app, "skill_node.create", &id).await, 1);

    let child = app
        .admin_post(
            "/v1/admin/skill-tree",
            json!({"categoryId": GEO, "title": "Flags II", "parentId": id, "sortOrder": 9,
                   "questionsRequired": 2}),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    assert_eq!(child["parentId"], id.as_str());
    assert_eq!(child["questionsRequired"], 2);
    assert_eq!(child["passThreshold"], 2);
    let child_id = child["id"].as_str().unwrap().to_string();

    // refusals on create
    for body in [
        json!({"categoryId": "nope", "title": "T"}),
        json!({"categoryId": GEO, "title": ""}),
        json!({"categoryId": GEO, "title": "t".repeat(101)}),
        json!({"categoryId": GEO, "title": "T", "parentId": "nope"}),
        json!({"categoryId": GEO, "title": "T", "parentId": science[0]["id"]}),
        json!({"categoryId": GEO, "title": "T", "questionsRequired": 0}),
        json!({"categoryId": GEO, "title": "T", "questionsRequired": 21}),
        json!({"categoryId": GEO, "title": "T", "passThreshold": 0}),
        json!({"categoryId": GEO, "title": "T", "passThreshold": 6}),
        json!({"categoryId": GEO, "title": "T", "questionsRequired": 4, "passThreshold": 5}),
        json!({"title": "T"}),
    ] {
        app.admin_post("/v1/admin/skill-tree", body, Some(&token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }

    // update
    let path = format!("/v1/admin/skill-tree/{id}");
    let updated = put(
        &app,
        &path,
        json!({"title": "Flags of the World", "questionsRequired": 10, "passThreshold": 8,
               "parentId": geo[0]["id"], "sortOrder": 20}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(updated["title"], "Flags of the World");
    assert_eq!(updated["questionsRequired"], 10);
    assert_eq!(updated["passThreshold"], 8);
    assert_eq!(updated["parentId"], geo[0]["id"]);
    assert_eq!(updated["sortOrder"], 20);
    // lowering questionsRequired lowers a higher passThreshold with it
    let updated = put(&app, &path, json!({"questionsRequired": 4}), &token)
        .await
        .ok()
        .clone();
    assert_eq!(updated["questionsRequired"], 4);
    assert_eq!(updated["passThreshold"], 4);
    let updated = put(&app, &path, json!({"parentId": null}), &token)
        .await
        .ok()
        .clone();
    assert_eq!(updated["parentId"], Value::Null);
    assert_eq!(updated["title"], "Flags of the World");

    // cycles: itself, its descendant
    put(&app, &path, json!({"parentId": id}), &token)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    put(&app, &path, json!({"parentId": child_id}), &token)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // other refusals
    for body in [
        json!({"parentId": "nope"}),
        json!({"parentId": science[0]["id"]}),
        json!({"passThreshold": 5}),
        json!({"questionsRequired": 21}),
        json!({"title": ""}),
        json!({"categoryId": "nope"}),
        // it has a child
        json!({"categoryId": "science-basics"}),
    ] {
        put(&app, &path, body, &token)
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    put(
        &app,
        "/v1/admin/skill-tree/nope",
        json!({"title": "x"}),
        &token,
    )
    .await
    .assert_error(404, "NOT_FOUND");
    delete(&app, "/v1/admin/skill-tree/nope", &token)
        .await
        .assert_error(404, "NOT_FOUND");

    // a leaf moves to another category with a parent of that category
    let moved = put(
        &app,
        &format!("/v1/admin/skill-tree/{child_id}"),
        json!({"categoryId": "science-basics", "parentId": science[0]["id"]}),
        &token,
    )
    .await
    .ok()
    .clone();
    assert_eq!(moved["categoryId"], "science-basics");
    assert_eq!(moved["parentId"], science[0]["id"]);
    assert_eq!(audits(&app, "skill_node.update", &id).await, 3);
}

async fn skill_tree_delete_reparents_children(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let post = |title: &str, parent: Option<&str>| {
        let body = json!({"categoryId": GEO, "title": title, "parentId": parent});
        let token = token.clone();
        let app = &app;
        async move {
            app.admin_post("/v1/admin/skill-tree", body, Some(&token))
                .await
                .ok()["id"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    // root <- middle <- (leaf1, leaf2)
    let root = post("Root", None).await;
    let middle = post("Middle", Some(&root)).await;
    let leaf1 = post("Leaf 1", Some(&middle)).await;
    let leaf2 = post("Leaf 2", Some(&middle)).await;

    let r = delete(&app, &format!("/v1/admin/skill-tree/{middle}"), &token).await;
    assert!(r.ok().is_null());
    assert_eq!(audits(&app, "skill_node.delete", &middle).await, 1);
    let geo = nodes(&app, &token, "?categoryId=world-geography").await;
    assert!(geo.iter().all(|n| n["id"] != middle.as_str()));
    for leaf in [&leaf1, &leaf2] {
        let n = geo.iter().find(|n| n["id"] == leaf.as_str()).unwrap();
        assert_eq!(n["parentId"], root.as_str());
    }
    // deleting a root makes its children roots
    delete(&app, &format!("/v1/admin/skill-tree/{root}"), &token)
        .await
        .ok();
    let geo = nodes(&app, &token, "?categoryId=world-geography").await;
    for leaf in [&leaf1, &leaf2] {
        let n = geo.iter().find(|n| n["id"] == leaf.as_str()).unwrap();
        assert_eq!(n["parentId"], Value::Null);
    }
    delete(&app, &format!("/v1/admin/skill-tree/{root}"), &token)
        .await
        .assert_error(404, "NOT_FOUND");
}

async fn new_node_shows_in_player_track(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let (_, player, _) = app.guest("d-new-node").await;
    let before = app
        .get("/v1/tracks/world-geography", Some(&player))
        .await
        .ok()["nodes"]
        .as_array()
        .unwrap()
        .len();
    let node = app
        .admin_post(
            "/v1/admin/skill-tree",
            json!({"categoryId": GEO, "title": "Time Zones", "questionsRequired": 6}),
            Some(&token),
        )
        .await
        .ok()
        .clone();
    let track = app
        .get("/v1/tracks/world-geography", Some(&player))
        .await
        .ok()
        .clone();
    let track_nodes = track["nodes"].as_array().unwrap();
    assert_eq!(track_nodes.len(), before + 1);
    let last = track_nodes.last().unwrap();
    assert_eq!(last["id"], node["id"]);
    assert_eq!(last["title"], "Time Zones");
    assert_eq!(last["questionCount"], 6);

    // a category with its first node becomes a track
    app.admin_post(
        "/v1/admin/categories",
        json!({"id": "music", "name": "Music", "slug": "music", "icon": "note"}),
        Some(&token),
    )
    .await
    .ok();
    assert!(
        app.get("/v1/tracks/music", Some(&player))
            .await
            .ok()
            .is_null()
    );
    app.admin_post(
        "/v1/admin/skill-tree",
        json!({"categoryId": "music", "title": "Instruments"}),
        Some(&token),
    )
    .await
    .ok();
    let music = app
        .get("/v1/tracks/music", Some(&player))
        .await
        .ok()
        .clone();
    assert_eq!(music["name"], "Music");
    assert_eq!(music["nodes"][0]["title"], "Instruments");
}

async fn every_route_needs_an_admin_token(app: TestApp) {
    let (_, player, _) = app.guest("d-not-admin").await;
    let body = || Some(json!({"name": "x"}));
    let routes: [(Method, &str, Option<Value>); 11] = [
        (Method::GET, "/v1/admin/categories", None),
        (
            Method::POST,
            "/v1/admin/categories",
            Some(json!({"id": "x", "name": "x", "slug": "x"})),
        ),
        (Method::PUT, "/v1/admin/categories/world-geography", body()),
        (Method::DELETE, "/v1/admin/categories/world-geography", None),
        (Method::GET, "/v1/admin/knowledge-cards", None),
        (Method::GET, "/v1/admin/knowledge-cards/by-question/x", None),
        (
            Method::PUT,
            "/v1/admin/knowledge-cards/x",
            Some(json!({"summary": "x"})),
        ),
        (Method::GET, "/v1/admin/skill-tree", None),
        (
            Method::POST,
            "/v1/admin/skill-tree",
            Some(json!({"categoryId": GEO, "title": "x"})),
        ),
        (
            Method::PUT,
            "/v1/admin/skill-tree/x",
            Some(json!({"title": "x"})),
        ),
        (Method::DELETE, "/v1/admin/skill-tree/x", None),
    ];
    for (method, path, body) in routes {
        for token in [None, Some(player.as_str()), Some("not-a-token")] {
            app.call(Service::Admin, method.clone(), path, body.clone(), token)
                .await
                .assert_error(401, "UNAUTHORIZED");
        }
    }
    // nothing was written
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM categories WHERE status = 'active'",
            &[]
        )
        .await,
        6
    );
    assert_eq!(app.scalar("SELECT count(*) FROM audit_log", &[]).await, 0);
}
