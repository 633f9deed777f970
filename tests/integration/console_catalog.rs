//! The console's catalog screens through HTTP, as a browser without JavaScript (forms
//! and redirects) and as htmx: categories, knowledge cards and the skill tree. The
//! rules are the services' (see `admin_catalog.rs` for the JSON API over the same
//! services); these tests check that the pages show them and write through them.

use reqwest::Method;
use serde_json::json;
use shared::services::audit::PageQuery;
use shared::services::catalog::{self, AdminKnowledgeCard, Category, SkillNode, SkillTreeQuery};
use tests::console::{Console, Page};
use tests::{Service, TestApp, both_engines_demo};

both_engines_demo!(
    signed_out_catalog_pages_redirect_to_sign_in,
    category_list_create_edit_archive_round_trip,
    category_bad_input_shows_the_reason,
    category_forms_need_the_csrf_token,
    card_list_pages_and_links_to_questions,
    card_editor_saves_clears_and_refuses_bad_input,
    card_form_needs_the_csrf_token,
    card_source_is_a_link_only_over_http,
    skill_tree_shows_the_nested_nodes_of_one_category,
    skill_tree_add_edit_reorder_delete_round_trip,
    skill_tree_bad_input_shows_the_reason,
    skill_tree_forms_need_the_csrf_token,
);

const GEO: &str = "world-geography";
const SCIENCE: &str = "science-basics";

// ---------------------------------------------------------------------------------------
// Helpers

async fn categories(app: &TestApp) -> Vec<Category> {
    catalog::all_categories(&app.ctx).await.unwrap()
}

async fn category(app: &TestApp, id: &str) -> Category {
    categories(app)
        .await
        .into_iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no category {id}"))
}

async fn nodes_of(app: &TestApp, category_id: &str) -> Vec<SkillNode> {
    catalog::list_nodes(
        &app.ctx,
        &SkillTreeQuery {
            category_id: Some(category_id.to_string()),
        },
    )
    .await
    .unwrap()
}

async fn node(app: &TestApp, id: &str) -> Option<SkillNode> {
    catalog::list_nodes(&app.ctx, &SkillTreeQuery::default())
        .await
        .unwrap()
        .into_iter()
        .find(|n| n.id == id)
}

async fn node_by_title(app: &TestApp, category_id: &str, title: &str) -> SkillNode {
    nodes_of(app, category_id)
        .await
        .into_iter()
        .find(|n| n.title == title)
        .unwrap_or_else(|| panic!("no node {title}"))
}

async fn node_count(app: &TestApp) -> i64 {
    app.scalar("SELECT count(*) FROM skill_nodes", &[]).await
}

async fn first_cards(app: &TestApp) -> Vec<AdminKnowledgeCard> {
    catalog::list_cards(
        &app.ctx,
        &PageQuery {
            page: Some(1),
            limit: Some(20),
        },
    )
    .await
    .unwrap()
    .0
}

async fn card(app: &TestApp, id: &str) -> AdminKnowledgeCard {
    catalog::get_card(&app.ctx, id).await.unwrap()
}

async fn audits(app: &TestApp, action: &str, target: &str) -> i64 {
    app.scalar(
        "SELECT count(*) FROM audit_log WHERE action = $1 AND target_id = $2",
        &[action, target],
    )
    .await
}

fn tree_href(category_id: &str) -> String {
    format!("/console/skill-tree?categoryId={category_id}")
}

/// Where `needle` is in the page (panics when it is missing).
fn at(page: &Page, needle: &str) -> usize {
    page.body
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} missing from the page:\n{}", page.body))
}

/// How deep node `id` is nested in the rendered tree (1 = a root).
fn depth(page: &Page, id: &str) -> usize {
    let start = at(page, "id=\"skill-tree\"");
    let end = at(page, &format!("<li id=\"node-{id}\""));
    assert!(start < end, "node {id} is outside the tree");
    let between = &page.body[start..end];
    1 + between.matches("<ul>").count() - between.matches("</ul>").count()
}

/// Adds a node through the form; answers the redirect.
async fn add_node(browser: &mut Console, fields: &[(&str, &str)]) -> Page {
    browser.post("/console/skill-tree/nodes", fields).await
}

// ---------------------------------------------------------------------------------------
// Sign-in

async fn signed_out_catalog_pages_redirect_to_sign_in(app: TestApp) {
    let card_id = first_cards(&app).await[0].id.clone();
    let node_id = nodes_of(&app, GEO).await[0].id.clone();
    let mut stranger = app.console();
    for path in [
        "/console/categories".to_string(),
        format!("/console/categories/{GEO}"),
        "/console/cards".to_string(),
        format!("/console/cards/{card_id}"),
        "/console/skill-tree".to_string(),
        tree_href(SCIENCE),
        format!("/console/skill-tree/nodes/{node_id}"),
    ] {
        let page = stranger.get(&path).await;
        page.assert_status(303);
        assert_eq!(page.location(), Some("/console/login"), "{path}");
    }
    // Posts too, and they write nothing.
    for path in [
        "/console/categories".to_string(),
        format!("/console/categories/{GEO}/archive"),
        format!("/console/cards/{card_id}"),
        "/console/skill-tree/nodes".to_string(),
        format!("/console/skill-tree/nodes/{node_id}/delete"),
    ] {
        let page = stranger
            .post_raw(&path, &[("id", "x"), ("title", "x"), ("summary", "x")])
            .await;
        page.assert_status(303);
        assert_eq!(page.location(), Some("/console/login"), "{path}");
    }
    assert_eq!(category(&app, GEO).await.status, "active");
    assert_eq!(node_count(&app).await, 22);
}

// ---------------------------------------------------------------------------------------
// Categories

async fn category_list_create_edit_archive_round_trip(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let list = browser.get("/console/categories").await;
    list.assert_status(200)
        .assert_contains("<title>Categories · Quiz console</title>")
        .assert_contains("href=\"/console/categories\" aria-current=\"page\"")
        .assert_contains("id=\"category-world-geography\"")
        .assert_contains("World Geography")
        .assert_contains("id=\"category-science-basics\"")
        .assert_contains("id=\"new-category-form\"")
        .assert_contains("id=\"edit-category-world-geography\"")
        .assert_contains("id=\"archive-category-world-geography\"");
    // in (sortOrder, id) order, with question counts
    assert!(
        at(&list, "id=\"category-world-geography\"") < at(&list, "id=\"category-science-basics\"")
    );
    assert!(
        at(&list, "id=\"category-science-basics\"") < at(&list, "id=\"category-history-culture\"")
    );
    assert!(list.contains("<td>30</td>"));

    // create: names are trimmed, an empty icon is the default
    let created = browser
        .post(
            "/console/categories",
            &[
                ("id", "space-2"),
                ("name", "  Space  "),
                ("slug", "space"),
                ("parentId", SCIENCE),
                ("sortOrder", "7"),
                ("icon", ""),
            ],
        )
        .await;
    created.assert_status(303);
    assert_eq!(created.location(), Some("/console/categories"));
    let list = browser.follow(&created).await;
    list.assert_status(200)
        .assert_contains("Created category Space (space-2).")
        .assert_contains("id=\"category-space-2\"");
    let space = category(&app, "space-2").await;
    assert_eq!(space.name, "Space");
    assert_eq!(space.slug, "space");
    assert_eq!(space.parent_id.as_deref(), Some(SCIENCE));
    assert_eq!(space.sort_order, 7);
    assert_eq!(space.icon, "book");
    assert_eq!(space.status, "active");
    assert_eq!(audits(&app, "category.create", "space-2").await, 1);
    // the flash shows once
    assert!(
        !browser
            .get("/console/categories")
            .await
            .contains("Created category")
    );

    // the editor shows the stored values
    let editor = browser.get("/console/categories/space-2").await;
    editor
        .assert_status(200)
        .assert_contains("id=\"edit-category-form\"")
        .assert_contains("value=\"Space\"")
        .assert_contains("value=\"space\"")
        .assert_contains(&format!("<option value=\"{SCIENCE}\" selected>"))
        .assert_contains("value=\"7\"")
        .assert_contains("<option value=\"active\" selected>");
    assert!(
        !editor.contains("<option value=\"space-2\""),
        "not its own parent"
    );

    // edit every field; an empty parent makes it top-level
    let saved = browser
        .post(
            "/console/categories/space-2",
            &[
                ("name", "Outer Space"),
                ("slug", "outer-space"),
                ("parentId", ""),
                ("sortOrder", "0"),
                ("status", "inactive"),
                ("icon", "rocket"),
            ],
        )
        .await;
    saved.assert_status(303);
    let list = browser.follow(&saved).await;
    list.assert_contains("Saved category Outer Space (space-2).")
        .assert_contains("Outer Space");
    let space = category(&app, "space-2").await;
    assert_eq!(space.name, "Outer Space");
    assert_eq!(space.slug, "outer-space");
    assert_eq!(space.parent_id, None);
    assert_eq!(space.sort_order, 0);
    assert_eq!(space.status, "inactive");
    assert_eq!(space.icon, "rocket");
    // inactive: no archive button, the editor offers active again
    assert!(!list.contains("id=\"archive-category-space-2\""));
    browser
        .get("/console/categories/space-2")
        .await
        .assert_contains("<option value=\"inactive\" selected>");
    let saved = browser
        .post(
            "/console/categories/space-2",
            &[
                ("name", "Outer Space"),
                ("slug", "outer-space"),
                ("parentId", GEO),
                ("sortOrder", "0"),
                ("status", "active"),
                ("icon", "rocket"),
            ],
        )
        .await;
    saved.assert_status(303);
    let space = category(&app, "space-2").await;
    assert_eq!(space.status, "active");
    assert_eq!(space.parent_id.as_deref(), Some(GEO));
    assert_eq!(audits(&app, "category.update", "space-2").await, 2);

    // archive without JavaScript: redirect and flash
    let archived = browser
        .post("/console/categories/space-2/archive", &[])
        .await;
    archived.assert_status(303);
    assert_eq!(archived.location(), Some("/console/categories"));
    browser
        .follow(&archived)
        .await
        .assert_contains("Archived category Outer Space (space-2): it is no longer a track.");
    assert_eq!(category(&app, "space-2").await.status, "inactive");
    assert_eq!(audits(&app, "category.archive", "space-2").await, 1);

    // archive with htmx: the row comes back, now inactive
    browser.get("/console/categories").await;
    let row = browser
        .htmx_post(&format!("/console/categories/{GEO}/archive"), &[])
        .await;
    row.assert_status(200)
        .assert_contains("<tr id=\"category-world-geography\"")
        .assert_contains("id=\"category-status-world-geography\">inactive<");
    assert!(!row.contains("<html"), "a fragment, not a page");
    assert!(!row.contains("id=\"archive-category-world-geography\""));
    assert_eq!(category(&app, GEO).await.status, "inactive");
    // and the player API no longer lists the track
    let (_, player, _) = app.guest("d-console-archive").await;
    let tracks = app.get("/v1/tracks", Some(&player)).await;
    assert!(
        !tracks
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"] == GEO),
        "{:?}",
        tracks.body
    );

    // unknown ids are 404 pages
    browser
        .get("/console/categories/nope")
        .await
        .assert_status(404)
        .assert_contains("category not found");
    browser
        .post(
            "/console/categories/nope",
            &[
                ("name", "x"),
                ("slug", "x"),
                ("sortOrder", "0"),
                ("status", "active"),
                ("icon", "x"),
            ],
        )
        .await
        .assert_status(404);
    browser
        .post("/console/categories/nope/archive", &[])
        .await
        .assert_status(404);
    let htmx = browser
        .htmx_post("/console/categories/nope/archive", &[])
        .await;
    htmx.assert_status(404);
    assert_eq!(htmx.header("hx-retarget"), Some("#flash"));

    // any admin may edit the catalog
    let mut editor = app.console_as_plain_admin().await;
    editor.get("/console/categories").await.assert_status(200);
    let created = editor
        .post(
            "/console/categories",
            &[
                ("id", "by-editor"),
                ("name", "By editor"),
                ("slug", "by-editor"),
            ],
        )
        .await;
    created.assert_status(303);
    assert_eq!(category(&app, "by-editor").await.sort_order, 0);
}

async fn category_bad_input_shows_the_reason(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    browser.get("/console/categories").await;
    for (fields, message) in [
        (
            vec![("id", GEO), ("name", "Again"), ("slug", "again")],
            "a category with this id already exists",
        ),
        (
            vec![("id", "again"), ("name", "Again"), ("slug", SCIENCE)],
            "a category with this slug already exists",
        ),
        (
            vec![("id", "Upper"), ("name", "Again"), ("slug", "again")],
            "id must be 1-64 characters of a-z, 0-9, - and _",
        ),
        (
            vec![("id", "again"), ("name", "Again"), ("slug", "Bad/Slug")],
            "slug must be 1-64 characters of a-z, 0-9, - and _",
        ),
        (
            vec![("id", "again"), ("name", "   "), ("slug", "again")],
            "name must be 1-100 characters",
        ),
        (
            vec![
                ("id", "again"),
                ("name", "Again"),
                ("slug", "again"),
                ("parentId", "missing"),
            ],
            "parentId: no such category",
        ),
        (
            vec![
                ("id", "again"),
                ("name", "Again"),
                ("slug", "again"),
                ("sortOrder", "first"),
            ],
            "sortOrder must be a whole number",
        ),
    ] {
        let page = browser.post("/console/categories", &fields).await;
        page.assert_status(400)
            .assert_contains("id=\"form-error\"")
            .assert_contains(message)
            // the typed values stay in the form, the list is still there
            .assert_contains("id=\"new-category-form\"")
            .assert_contains("id=\"category-world-geography\"");
        assert!(
            page.contains(&format!("value=\"{}\"", fields[0].1)),
            "{message}"
        );
    }
    assert_eq!(categories(&app).await.len(), 6);

    // the editor: a child to make a cycle with
    browser
        .post(
            "/console/categories",
            &[
                ("id", "geo-child"),
                ("name", "Geo child"),
                ("slug", "geo-child"),
                ("parentId", GEO),
            ],
        )
        .await
        .assert_status(303);
    let geo_before = category(&app, GEO).await;
    let edit = |name: &'static str,
                slug: &'static str,
                parent: &'static str,
                sort: &'static str,
                status: &'static str,
                icon: &'static str| {
        vec![
            ("name", name),
            ("slug", slug),
            ("parentId", parent),
            ("sortOrder", sort),
            ("status", status),
            ("icon", icon),
        ]
    };
    for (fields, message) in [
        (
            edit("Geo", SCIENCE, "", "0", "active", "globe"),
            "a category with this slug already exists",
        ),
        (
            edit("Geo", GEO, "", "0", "archived", "globe"),
            "status must be active or inactive",
        ),
        (
            edit("Geo", GEO, "missing", "0", "active", "globe"),
            "parentId: no such category",
        ),
        (
            edit("Geo", GEO, "geo-child", "0", "active", "globe"),
            "parentId would make the category its own ancestor",
        ),
        (
            edit("Geo", GEO, GEO, "0", "active", "globe"),
            "a category cannot be its own parent",
        ),
        (
            edit("", GEO, "", "0", "active", "globe"),
            "name must be 1-100 characters",
        ),
        (
            edit("Geo", GEO, "", "0", "active", ""),
            "icon must be 1-64 characters",
        ),
        (
            edit("Geo", GEO, "", "1.5", "active", "globe"),
            "sortOrder must be a whole number",
        ),
    ] {
        let page = browser
            .post(&format!("/console/categories/{GEO}"), &fields)
            .await;
        page.assert_status(400)
            .assert_contains("id=\"form-error\"")
            .assert_contains(message)
            .assert_contains("id=\"edit-category-form\"");
    }
    let geo_after = category(&app, GEO).await;
    assert_eq!(geo_after.name, geo_before.name);
    assert_eq!(geo_after.slug, geo_before.slug);
    assert_eq!(geo_after.parent_id, None);
    assert_eq!(geo_after.icon, geo_before.icon);
    assert_eq!(audits(&app, "category.update", GEO).await, 0);
}

async fn category_forms_need_the_csrf_token(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    browser.get("/console/categories").await;
    let create = [
        ("id", "no-token"),
        ("name", "No token"),
        ("slug", "no-token"),
    ];
    let edit = [
        ("name", "Renamed"),
        ("slug", GEO),
        ("parentId", ""),
        ("sortOrder", "0"),
        ("status", "active"),
        ("icon", "globe"),
    ];
    for (path, fields) in [
        ("/console/categories".to_string(), create.to_vec()),
        (format!("/console/categories/{GEO}"), edit.to_vec()),
        (format!("/console/categories/{GEO}/archive"), vec![]),
    ] {
        browser
            .post_raw(&path, &fields)
            .await
            .assert_status(403)
            .assert_contains("security token");
        let mut wrong = fields.clone();
        wrong.push(("_csrf", "not-the-token"));
        browser.post_raw(&path, &wrong).await.assert_status(403);
    }
    assert_eq!(categories(&app).await.len(), 6);
    let geo = category(&app, GEO).await;
    assert_eq!(geo.name, "World Geography");
    assert_eq!(geo.status, "active");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE target_type = 'category'",
            &[]
        )
        .await,
        0
    );
}

// ---------------------------------------------------------------------------------------
// Knowledge cards

async fn card_list_pages_and_links_to_questions(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let cards = first_cards(&app).await;
    let list = browser.get("/console/cards").await;
    list.assert_status(200)
        .assert_contains("href=\"/console/cards\" aria-current=\"page\"")
        .assert_contains("id=\"cards\"")
        .assert_contains("Page 1 · 162 cards")
        .assert_contains("href=\"/console/cards?page=2\" id=\"next-page\"");
    assert!(!list.contains("id=\"prev-page\""));
    assert_eq!(list.body.matches("<tr id=\"card-").count(), 20);
    // newest first, as the service lists them, each with its question and editor
    let mut last = 0;
    for c in &cards {
        let pos = at(&list, &format!("<tr id=\"card-{}\"", c.id));
        assert!(pos > last, "cards out of order");
        last = pos;
        list.assert_contains(&format!(
            "href=\"/console/questions/{}\" id=\"card-question-{}\"",
            c.question_id, c.id
        ))
        .assert_contains(&format!(
            "href=\"/console/cards/{}\" id=\"edit-card-{}\"",
            c.id, c.id
        ));
    }

    let second = browser.get("/console/cards?page=2").await;
    second
        .assert_status(200)
        .assert_contains("Page 2 · 162 cards")
        .assert_contains("href=\"/console/cards\" id=\"prev-page\"")
        .assert_contains("href=\"/console/cards?page=3\" id=\"next-page\"");
    assert!(!second.contains(&format!("<tr id=\"card-{}\"", cards[0].id)));
    let last_page = browser.get("/console/cards?page=9").await;
    last_page.assert_status(200);
    assert_eq!(last_page.body.matches("<tr id=\"card-").count(), 2);
    assert!(!last_page.contains("id=\"next-page\""));
    let beyond = browser.get("/console/cards?page=10").await;
    beyond
        .assert_status(200)
        .assert_contains("No knowledge card on this page.");

    for (query, message) in [
        ("page=0", "page must be at least 1"),
        ("page=-1", "page must be at least 1"),
        ("page=abc", "page must be a whole number"),
    ] {
        browser
            .get(&format!("/console/cards?{query}"))
            .await
            .assert_status(400)
            .assert_contains(message);
    }

    // the question link leads to the question's editor with the same card
    let question = browser
        .get(&format!("/console/questions/{}", cards[0].question_id))
        .await;
    question
        .assert_status(200)
        .assert_contains("id=\"question-form\"");
}

async fn card_editor_saves_clears_and_refuses_bad_input(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let original = first_cards(&app).await[0].clone();
    let path = format!("/console/cards/{}", original.id);
    let editor = browser.get(&path).await;
    editor
        .assert_status(200)
        .assert_contains("href=\"/console/cards\" aria-current=\"page\"")
        .assert_contains("id=\"card-form\"")
        .assert_contains(&format!(
            "href=\"/console/questions/{}\" id=\"card-question\"",
            original.question_id
        ))
        .assert_contains(&format!("action=\"/console/cards/{}\"", original.id));

    let saved = browser
        .post(
            &path,
            &[
                ("title", "Capitals"),
                ("summary", "A new summary"),
                ("deepDive", ""),
                ("sourceRef", "Atlas, p. 12"),
            ],
        )
        .await;
    saved.assert_status(303);
    assert_eq!(saved.location(), Some(path.as_str()));
    browser
        .follow(&saved)
        .await
        .assert_status(200)
        .assert_contains("Knowledge card saved.")
        .assert_contains("value=\"Capitals\"")
        .assert_contains(">A new summary</textarea>")
        .assert_contains("value=\"Atlas, p. 12\"");
    let stored = card(&app, &original.id).await;
    assert_eq!(stored.title.as_deref(), Some("Capitals"));
    assert_eq!(stored.summary, "A new summary");
    assert_eq!(stored.deep_dive, None);
    assert_eq!(stored.source_ref.as_deref(), Some("Atlas, p. 12"));
    assert_eq!(stored.question_id, original.question_id);
    assert_eq!(stored.created_at, original.created_at);
    // the list shows the new title
    browser
        .get("/console/cards")
        .await
        .assert_contains("Capitals");

    // an empty title clears it: players see the category name
    browser
        .post(
            &path,
            &[
                ("title", "  "),
                ("summary", "A new summary"),
                ("deepDive", "Since 1901."),
                ("sourceRef", ""),
            ],
        )
        .await
        .assert_status(303);
    let stored = card(&app, &original.id).await;
    assert_eq!(stored.title, None);
    assert_eq!(stored.deep_dive.as_deref(), Some("Since 1901."));
    assert_eq!(stored.source_ref, None);

    // refused: the reason, the status, the typed text kept, nothing written
    let long_title = "t".repeat(201);
    for (fields, message) in [
        (
            vec![("title", "Kept title"), ("summary", "   ")],
            "summary must not be empty",
        ),
        (
            vec![("title", long_title.as_str()), ("summary", "Fine")],
            "title must be at most 200 characters",
        ),
    ] {
        let page = browser.post(&path, &fields).await;
        page.assert_status(400)
            .assert_contains("id=\"form-error\"")
            .assert_contains(message)
            .assert_contains(&format!("value=\"{}\"", fields[0].1));
    }
    let after = card(&app, &original.id).await;
    assert_eq!(after.summary, "A new summary");
    assert_eq!(after.title, None);
    assert_eq!(audits(&app, "knowledge_card.update", &original.id).await, 2);

    // unknown cards
    browser
        .get("/console/cards/nope")
        .await
        .assert_status(404)
        .assert_contains("knowledge card not found");
    browser
        .post("/console/cards/nope", &[("summary", "x")])
        .await
        .assert_status(404);
}

async fn card_form_needs_the_csrf_token(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let original = first_cards(&app).await[0].clone();
    let path = format!("/console/cards/{}", original.id);
    browser.get(&path).await.assert_status(200);
    let fields = [("title", "Sneaky"), ("summary", "Sneaky summary")];
    browser
        .post_raw(&path, &fields)
        .await
        .assert_status(403)
        .assert_contains("security token");
    let mut wrong = fields.to_vec();
    wrong.push(("_csrf", "not-the-token"));
    browser.post_raw(&path, &wrong).await.assert_status(403);
    let after = card(&app, &original.id).await;
    assert_eq!(after.summary, original.summary);
    assert_eq!(after.title, original.title);
    assert_eq!(audits(&app, "knowledge_card.update", &original.id).await, 0);
}

// ---------------------------------------------------------------------------------------
// The skill tree

async fn skill_tree_shows_the_nested_nodes_of_one_category(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let geo = nodes_of(&app, GEO).await;
    let science = nodes_of(&app, SCIENCE).await;
    assert_eq!(geo.len(), 4);

    // without a choice: the first category
    let page = browser.get("/console/skill-tree").await;
    page.assert_status(200)
        .assert_contains("href=\"/console/skill-tree\" aria-current=\"page\"")
        .assert_contains("id=\"category-picker\"")
        .assert_contains(&format!("<option value=\"{GEO}\" selected>"))
        .assert_contains("<ul class=\"tree\" id=\"skill-tree\"")
        .assert_contains("id=\"add-node-form\"")
        .assert_contains(&format!("name=\"categoryId\" value=\"{GEO}\""))
        .assert_contains("Capitals &#38; Countries");
    for n in &science {
        assert!(!page.contains(&format!("id=\"node-{}\"", n.id)));
    }
    // the demo chain: each node is the child of the one before
    for (i, n) in geo.iter().enumerate() {
        assert_eq!(depth(&page, &n.id), i + 1, "{}", n.title);
        // the only child of its parent: nothing to move
        page.assert_contains(&format!("id=\"move-up-{}\" disabled", n.id))
            .assert_contains(&format!("id=\"move-down-{}\" disabled", n.id))
            .assert_contains(&format!("id=\"delete-node-{}\"", n.id))
            .assert_contains(&format!(
                "href=\"/console/skill-tree/nodes/{}\" id=\"edit-node-{}\"",
                n.id, n.id
            ));
    }
    // every list opened is closed
    let tree = &page.body[at(&page, "id=\"skill-tree\"")..at(&page, "id=\"add-node-form\"")];
    assert_eq!(
        tree.matches("<ul>").count() + 1,
        tree.matches("</ul>").count()
    );
    assert_eq!(tree.matches("<li ").count(), tree.matches("</li>").count());

    // another category
    let page = browser.get(&tree_href(SCIENCE)).await;
    page.assert_status(200)
        .assert_contains(&format!("<option value=\"{SCIENCE}\" selected>"))
        .assert_contains(&format!("name=\"categoryId\" value=\"{SCIENCE}\""));
    for n in &science {
        page.assert_contains(&format!("<li id=\"node-{}\"", n.id));
    }
    for n in &geo {
        assert!(!page.contains(&format!("id=\"node-{}\"", n.id)));
    }

    // a category without nodes shows an empty tree and the add form
    browser
        .post(
            "/console/categories",
            &[("id", "empty"), ("name", "Empty"), ("slug", "empty")],
        )
        .await
        .assert_status(303);
    browser
        .get(&tree_href("empty"))
        .await
        .assert_status(200)
        .assert_contains("id=\"empty-tree\"")
        .assert_contains("id=\"add-node-form\"");

    // an unknown category is a 404 page
    browser
        .get(&tree_href("nope"))
        .await
        .assert_status(404)
        .assert_contains("category not found");
    browser
        .get("/console/skill-tree/nodes/nope")
        .await
        .assert_status(404)
        .assert_contains("skill-tree node not found");
}

async fn skill_tree_add_edit_reorder_delete_round_trip(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    browser.get(&tree_href(GEO)).await.assert_status(200);
    let before = nodes_of(&app, GEO).await;
    let last_order = before.iter().map(|n| n.sort_order).max().unwrap();

    // add a root
    let added = add_node(
        &mut browser,
        &[
            ("categoryId", GEO),
            ("title", "  Deserts  "),
            ("parentId", ""),
            ("sortOrder", ""),
            ("questionsRequired", "4"),
            ("passThreshold", "2"),
        ],
    )
    .await;
    added.assert_status(303);
    assert_eq!(added.location(), Some(tree_href(GEO).as_str()));
    let deserts = node_by_title(&app, GEO, "Deserts").await;
    assert_eq!(deserts.parent_id, None);
    assert_eq!(deserts.sort_order, last_order + 1);
    assert_eq!(deserts.questions_required, 4);
    assert_eq!(deserts.pass_threshold, 2);
    let page = browser.follow(&added).await;
    page.assert_contains("Added node Deserts.")
        .assert_contains(&format!("id=\"node-title-{}\">Deserts<", deserts.id));
    assert_eq!(depth(&page, &deserts.id), 1);
    assert_eq!(audits(&app, "skill_node.create", &deserts.id).await, 1);

    // add two children under it (defaults: 5 questions, pass with 3)
    for title in ["Sahara", "Gobi"] {
        add_node(
            &mut browser,
            &[
                ("categoryId", GEO),
                ("title", title),
                ("parentId", deserts.id.as_str()),
            ],
        )
        .await
        .assert_status(303);
    }
    let sahara = node_by_title(&app, GEO, "Sahara").await;
    let gobi = node_by_title(&app, GEO, "Gobi").await;
    assert_eq!(sahara.parent_id.as_deref(), Some(deserts.id.as_str()));
    assert_eq!((sahara.questions_required, sahara.pass_threshold), (5, 3));
    assert!(sahara.sort_order < gobi.sort_order);
    let page = browser.get(&tree_href(GEO)).await;
    assert_eq!(depth(&page, &sahara.id), 2);
    assert_eq!(depth(&page, &gobi.id), 2);
    assert!(
        at(&page, &format!("id=\"node-{}\"", sahara.id))
            < at(&page, &format!("id=\"node-{}\"", gobi.id))
    );
    // the parent picker lists the nodes indented
    page.assert_contains(&format!(
        "<option value=\"{}\" >— Sahara</option>",
        sahara.id
    ));
    // first and last of the siblings
    page.assert_contains(&format!("id=\"move-up-{}\" disabled", sahara.id))
        .assert_contains(&format!("id=\"move-down-{}\" >", sahara.id))
        .assert_contains(&format!("id=\"move-up-{}\" >", gobi.id))
        .assert_contains(&format!("id=\"move-down-{}\" disabled", gobi.id));

    // reorder: Gobi up swaps sortOrder with Sahara
    let moved = browser
        .post(
            &format!("/console/skill-tree/nodes/{}/move", gobi.id),
            &[("direction", "up")],
        )
        .await;
    moved.assert_status(303);
    assert_eq!(moved.location(), Some(tree_href(GEO).as_str()));
    let page = browser.follow(&moved).await;
    page.assert_contains("Moved Gobi up.");
    assert!(
        at(&page, &format!("id=\"node-{}\"", gobi.id))
            < at(&page, &format!("id=\"node-{}\"", sahara.id))
    );
    assert_eq!(
        node(&app, &gobi.id).await.unwrap().sort_order,
        sahara.sort_order
    );
    assert_eq!(
        node(&app, &sahara.id).await.unwrap().sort_order,
        gobi.sort_order
    );
    // and down again
    browser
        .post(
            &format!("/console/skill-tree/nodes/{}/move", gobi.id),
            &[("direction", "down")],
        )
        .await
        .assert_status(303);
    let page = browser.get(&tree_href(GEO)).await;
    assert!(
        at(&page, &format!("id=\"node-{}\"", sahara.id))
            < at(&page, &format!("id=\"node-{}\"", gobi.id))
    );
    assert_eq!(
        node(&app, &gobi.id).await.unwrap().sort_order,
        gobi.sort_order
    );
    // nothing before the first, nothing after the last; unknown directions
    for (id, direction, message) in [
        (
            &sahara.id,
            "up",
            "Sahara is already the first of its siblings",
        ),
        (&gobi.id, "down", "Gobi is already the last of its siblings"),
        (&gobi.id, "sideways", "direction must be up or down"),
    ] {
        browser
            .post(
                &format!("/console/skill-tree/nodes/{id}/move"),
                &[("direction", direction)],
            )
            .await
            .assert_status(400)
            .assert_contains(message);
    }
    // siblings sharing one sortOrder: the moved one goes just before its neighbour
    let (token, _, _) = app.admin_login().await;
    let tie = app
        .call(
            Service::Admin,
            Method::PUT,
            &format!("/v1/admin/skill-tree/{}", gobi.id),
            Some(json!({"sortOrder": sahara.sort_order})),
            Some(&token),
        )
        .await;
    assert_eq!(tie.status, 200, "{:?}", tie.body);
    let page = browser.get(&tree_href(GEO)).await;
    let (first, second) = if at(&page, &format!("id=\"node-{}\"", sahara.id))
        < at(&page, &format!("id=\"node-{}\"", gobi.id))
    {
        (&sahara, &gobi)
    } else {
        (&gobi, &sahara)
    };
    browser
        .post(
            &format!("/console/skill-tree/nodes/{}/move", second.id),
            &[("direction", "up")],
        )
        .await
        .assert_status(303);
    let page = browser.get(&tree_href(GEO)).await;
    assert!(
        at(&page, &format!("id=\"node-{}\"", second.id))
            < at(&page, &format!("id=\"node-{}\"", first.id))
    );
    assert_eq!(
        node(&app, &second.id).await.unwrap().sort_order,
        sahara.sort_order - 1
    );

    // edit: the editor shows the stored values
    let editor = browser
        .get(&format!("/console/skill-tree/nodes/{}", sahara.id))
        .await;
    editor
        .assert_status(200)
        .assert_contains("href=\"/console/skill-tree\" aria-current=\"page\"")
        .assert_contains("id=\"edit-node-form\"")
        .assert_contains("id=\"edit-node-title\" value=\"Sahara\"")
        .assert_contains(&format!("<option value=\"{}\" selected>", deserts.id))
        .assert_contains(&format!("<option value=\"{GEO}\" selected>"));
    assert!(
        !editor.contains(&format!("<option value=\"{}\"", sahara.id)),
        "not its own parent"
    );
    let saved = browser
        .post(
            &format!("/console/skill-tree/nodes/{}", sahara.id),
            &[
                ("categoryId", GEO),
                ("title", "Sahara Desert"),
                ("parentId", ""),
                ("sortOrder", "99"),
                ("questionsRequired", "6"),
                ("passThreshold", "4"),
            ],
        )
        .await;
    saved.assert_status(303);
    assert_eq!(saved.location(), Some(tree_href(GEO).as_str()));
    let page = browser.follow(&saved).await;
    page.assert_contains("Saved node Sahara Desert.");
    assert_eq!(depth(&page, &sahara.id), 1);
    let stored = node(&app, &sahara.id).await.unwrap();
    assert_eq!(stored.title, "Sahara Desert");
    assert_eq!(stored.parent_id, None);
    assert_eq!(stored.sort_order, 99);
    assert_eq!((stored.questions_required, stored.pass_threshold), (6, 4));
    assert!(audits(&app, "skill_node.update", &sahara.id).await >= 2);

    // a leaf moves to another category (top level there)
    browser
        .post(
            &format!("/console/skill-tree/nodes/{}", sahara.id),
            &[
                ("categoryId", SCIENCE),
                ("title", "Sahara Desert"),
                ("parentId", ""),
                ("sortOrder", "99"),
                ("questionsRequired", "6"),
                ("passThreshold", "4"),
            ],
        )
        .await
        .assert_status(303);
    assert_eq!(node(&app, &sahara.id).await.unwrap().category_id, SCIENCE);
    browser
        .get(&tree_href(SCIENCE))
        .await
        .assert_contains(&format!("<li id=\"node-{}\"", sahara.id));

    // delete: Gobi moves up to Deserts' parent (none: a root)
    let deleted = browser
        .post(
            &format!("/console/skill-tree/nodes/{}/delete", deserts.id),
            &[],
        )
        .await;
    deleted.assert_status(303);
    assert_eq!(deleted.location(), Some(tree_href(GEO).as_str()));
    let page = browser.follow(&deleted).await;
    page.assert_contains("Deleted node Deserts; its children moved up to its parent.");
    assert!(!page.contains(&format!("id=\"node-{}\"", deserts.id)));
    assert_eq!(depth(&page, &gobi.id), 1);
    assert!(node(&app, &deserts.id).await.is_none());
    assert_eq!(node(&app, &gobi.id).await.unwrap().parent_id, None);
    assert_eq!(audits(&app, "skill_node.delete", &deserts.id).await, 1);

    // delete a middle node of the demo chain: its child moves up to its parent
    browser
        .post(
            &format!("/console/skill-tree/nodes/{}/delete", before[1].id),
            &[],
        )
        .await
        .assert_status(303);
    assert_eq!(
        node(&app, &before[2].id)
            .await
            .unwrap()
            .parent_id
            .as_deref(),
        Some(before[0].id.as_str())
    );
    let page = browser.get(&tree_href(GEO)).await;
    assert_eq!(depth(&page, &before[2].id), 2);

    // unknown nodes
    for path in [
        "/console/skill-tree/nodes/nope/delete",
        "/console/skill-tree/nodes/nope/move",
    ] {
        browser
            .post(path, &[("direction", "up")])
            .await
            .assert_status(404)
            .assert_contains("skill-tree node not found");
    }
    browser
        .post(
            "/console/skill-tree/nodes/nope",
            &[("title", "x"), ("categoryId", GEO)],
        )
        .await
        .assert_status(404);
}

async fn skill_tree_bad_input_shows_the_reason(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    browser.get(&tree_href(GEO)).await;
    let science_root = nodes_of(&app, SCIENCE).await[0].id.clone();
    for (fields, message) in [
        (vec![("title", "   ")], "title must be 1-100 characters"),
        (
            vec![("title", "Too many"), ("questionsRequired", "21")],
            "questionsRequired must be 1-20",
        ),
        (
            vec![
                ("title", "High bar"),
                ("questionsRequired", "5"),
                ("passThreshold", "6"),
            ],
            "passThreshold must be 1-5 (questionsRequired)",
        ),
        (
            vec![("title", "Odd order"), ("sortOrder", "x")],
            "sortOrder must be a whole number",
        ),
        (
            vec![("title", "Elsewhere"), ("parentId", science_root.as_str())],
            "parentId must be a node of the same category",
        ),
        (
            vec![("title", "Orphan"), ("parentId", "missing")],
            "parentId: no such skill-tree node",
        ),
    ] {
        let mut all = fields.clone();
        all.push(("categoryId", GEO));
        let page = add_node(&mut browser, &all).await;
        page.assert_status(400)
            .assert_contains("id=\"form-error\"")
            .assert_contains(message)
            // the tree and the typed title are still there
            .assert_contains("id=\"skill-tree\"")
            .assert_contains(&format!("id=\"node-title\" value=\"{}\"", fields[0].1));
    }
    // no tree for an unknown category: the reason on an error page
    add_node(&mut browser, &[("categoryId", "nope"), ("title", "Lost")])
        .await
        .assert_status(400)
        .assert_contains("categoryId: no such category");
    assert_eq!(node_count(&app).await, 22);

    // the editor
    let chain = nodes_of(&app, GEO).await;
    let (root, child) = (&chain[0], &chain[1]);
    let edit = |title: &'static str,
                category: &'static str,
                parent: String,
                qr: &'static str,
                pass: &'static str| {
        vec![
            ("title", title.to_string()),
            ("categoryId", category.to_string()),
            ("parentId", parent),
            ("sortOrder", "0".to_string()),
            ("questionsRequired", qr.to_string()),
            ("passThreshold", pass.to_string()),
        ]
    };
    for (fields, message) in [
        (
            edit("Root", GEO, root.id.clone(), "5", "3"),
            "a node cannot be its own parent",
        ),
        (
            edit("Root", GEO, chain[3].id.clone(), "5", "3"),
            "parentId would make the node its own ancestor",
        ),
        (
            edit("", GEO, String::new(), "5", "3"),
            "title must be 1-100 characters",
        ),
        (
            edit("Root", GEO, String::new(), "0", "3"),
            "questionsRequired must be 1-20",
        ),
        (
            edit("Root", GEO, String::new(), "2", "3"),
            "passThreshold must be 1-2 (questionsRequired)",
        ),
        (
            edit("Root", SCIENCE, String::new(), "5", "3"),
            "a node with children cannot move to another category",
        ),
        (
            edit("Root", "nope", String::new(), "5", "3"),
            "categoryId: no such category",
        ),
        (
            edit("Root", GEO, String::new(), "five", "3"),
            "questionsRequired must be a whole number",
        ),
    ] {
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let page = browser
            .post(&format!("/console/skill-tree/nodes/{}", root.id), &fields)
            .await;
        page.assert_status(400)
            .assert_contains("id=\"form-error\"")
            .assert_contains(message)
            .assert_contains("id=\"edit-node-form\"");
    }
    // a child of this category cannot take a parent of another
    let page = browser
        .post(
            &format!("/console/skill-tree/nodes/{}", child.id),
            &[
                ("title", "Child"),
                ("categoryId", GEO),
                ("parentId", &science_root),
                ("sortOrder", "0"),
                ("questionsRequired", "5"),
                ("passThreshold", "3"),
            ],
        )
        .await;
    page.assert_status(400)
        .assert_contains("parentId must be a node of the same category");
    let after = nodes_of(&app, GEO).await;
    assert_eq!(after.len(), 4);
    for (a, b) in after.iter().zip(chain.iter()) {
        assert_eq!(a.title, b.title);
        assert_eq!(a.parent_id, b.parent_id);
        assert_eq!(a.sort_order, b.sort_order);
    }
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE target_type = 'skill_node'",
            &[]
        )
        .await,
        0
    );
}

async fn skill_tree_forms_need_the_csrf_token(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    browser.get(&tree_href(GEO)).await.assert_status(200);
    let chain = nodes_of(&app, GEO).await;
    let id = chain[1].id.clone();
    for (path, fields) in [
        (
            "/console/skill-tree/nodes".to_string(),
            vec![("categoryId", GEO), ("title", "No token")],
        ),
        (
            format!("/console/skill-tree/nodes/{id}"),
            vec![("categoryId", GEO), ("title", "Renamed"), ("parentId", "")],
        ),
        (
            format!("/console/skill-tree/nodes/{id}/move"),
            vec![("direction", "up")],
        ),
        (format!("/console/skill-tree/nodes/{id}/delete"), vec![]),
    ] {
        browser
            .post_raw(&path, &fields)
            .await
            .assert_status(403)
            .assert_contains("security token");
        let mut wrong = fields.clone();
        wrong.push(("_csrf", "not-the-token"));
        browser.post_raw(&path, &wrong).await.assert_status(403);
    }
    assert_eq!(node_count(&app).await, 22);
    let after = node(&app, &id).await.unwrap();
    assert_eq!(after.title, chain[1].title);
    assert_eq!(after.parent_id, chain[1].parent_id);
    assert_eq!(after.sort_order, chain[1].sort_order);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE target_type = 'skill_node'",
            &[]
        )
        .await,
        0
    );
}

/// A card's stored source becomes an "open" link on its editor only when it is an
/// `http(s)` URL; a `javascript:` or `data:` source (any admin, or an import, can write
/// one) stays text in the form's field.
async fn card_source_is_a_link_only_over_http(app: TestApp) {
    let mut browser = app.console_signed_in().await;
    let original = first_cards(&app).await[0].clone();
    let path = format!("/console/cards/{}", original.id);
    for (source, link) in [
        (
            "https://en.wikipedia.org/wiki/Ottawa",
            Some("https://en.wikipedia.org/wiki/Ottawa"),
        ),
        ("javascript:alert(document.cookie)", None),
        ("data:text/html,<script>alert(1)</script>", None),
        ("Atlas of the World, p. 12", None),
    ] {
        browser
            .post(
                &path,
                &[
                    ("title", ""),
                    ("summary", "A summary"),
                    ("deepDive", ""),
                    ("sourceRef", source),
                ],
            )
            .await
            .assert_status(303);
        assert_eq!(
            card(&app, &original.id).await.source_ref.as_deref(),
            Some(source)
        );
        let page = browser.get(&path).await;
        page.assert_status(200);
        match link {
            Some(href) => {
                page.assert_contains(&format!(
                    "<a href=\"{href}\" rel=\"noreferrer noopener\" target=\"_blank\" id=\"card-source-link\">"
                ));
            }
            None => {
                assert!(!page.contains("card-source-link"), "{source}");
                assert!(!page.contains("href=\"javascript:"), "{source}");
                assert!(!page.contains("href=\"data:"), "{source}");
            }
        }
    }
}
