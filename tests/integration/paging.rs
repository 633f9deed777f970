//! The long admin lists page the same whichever end a page is read from (pages nearer
//! the end are read backwards, db::paging), and their totals, kept by triggers in
//! `row_counts`, stay equal to a count of the table through inserts, deletions and merges.

use reqwest::Method;
use serde_json::json;
use tests::{Service, TestApp, both_engines_demo};

both_engines_demo!(
    every_page_holds_the_rows_of_the_order,
    totals_follow_every_write
);

/// The ids of a list in its order, straight from the database (the oracle).
async fn ids(app: &TestApp, sql: &'static str) -> Vec<String> {
    shared::read!(&app.ctx.db, |ex| {
        sqlx::query_scalar::<_, String>(sql)
            .fetch_all(ex)
            .await
            .unwrap()
    })
}

/// Every page of `path` at several limits holds the oracle's rows for it, and the total.
async fn pages_match(app: &TestApp, token: &str, path: &str, expected: &[String]) {
    let sep = if path.contains('?') { '&' } else { '?' };
    for limit in [1_usize, 3, 7, 50] {
        let pages = expected.len().div_ceil(limit) + 1;
        for page in 1..=pages {
            let r = app
                .admin_get(
                    &format!("{path}{sep}page={page}&limit={limit}"),
                    Some(token),
                )
                .await;
            let got: Vec<String> = r
                .ok()
                .as_array()
                .unwrap()
                .iter()
                .map(|item| item["id"].as_str().unwrap().to_string())
                .collect();
            let from = ((page - 1) * limit).min(expected.len());
            let to = (page * limit).min(expected.len());
            assert_eq!(got, expected[from..to], "{path} page {page} limit {limit}");
            assert_eq!(r.body["pagination"]["total"], expected.len(), "{path}");
        }
    }
}

async fn every_page_holds_the_rows_of_the_order(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let mut players = Vec::new();
    for i in 0..9 {
        let (id, access, _) = app.guest(&format!("paging-{i}")).await;
        app.post(
            "/v1/feedback",
            json!({"content": format!("note {i}")}),
            Some(&access),
        )
        .await
        .ok();
        players.push(id);
    }
    // audit rows: a ban and an unban each
    for id in &players[..4] {
        for action in ["ban", "unban"] {
            app.call(
                Service::Admin,
                Method::PUT,
                &format!("/v1/admin/users/{id}/{action}"),
                None,
                Some(&token),
            )
            .await
            .ok();
        }
    }
    let lists: [(&str, &'static str); 7] = [
        (
            "/v1/admin/feedback",
            "SELECT id FROM feedback ORDER BY created_at DESC, id DESC",
        ),
        (
            "/v1/admin/audit-log",
            "SELECT id FROM audit_log ORDER BY created_at DESC, id DESC",
        ),
        (
            "/v1/admin/users",
            "SELECT id FROM players WHERE deleted_at IS NULL AND merged_into IS NULL
             ORDER BY created_at DESC, id",
        ),
        (
            "/v1/admin/questions",
            "SELECT id FROM questions ORDER BY created_at DESC, id DESC",
        ),
        (
            "/v1/admin/questions?sortBy=difficulty&sortOrder=asc",
            "SELECT id FROM questions ORDER BY difficulty, id",
        ),
        (
            "/v1/admin/questions?status=published&sortBy=updatedAt",
            "SELECT id FROM questions WHERE status = 'published' ORDER BY updated_at DESC, id DESC",
        ),
        (
            "/v1/admin/knowledge-cards",
            "SELECT id FROM knowledge_cards ORDER BY created_at DESC, id DESC",
        ),
    ];
    for (path, oracle) in lists {
        let expected = ids(&app, oracle).await;
        assert!(expected.len() >= 8, "{path}: {}", expected.len());
        pages_match(&app, &token, path, &expected).await;
    }
}

/// Each kept total equals a count of its table.
async fn assert_totals(app: &TestApp) {
    for (name, count) in [
        ("audit_log", "SELECT count(*) FROM audit_log"),
        ("feedback", "SELECT count(*) FROM feedback"),
        ("knowledge_cards", "SELECT count(*) FROM knowledge_cards"),
        ("questions", "SELECT count(*) FROM questions"),
        (
            "live_players",
            "SELECT count(*) FROM players WHERE deleted_at IS NULL AND merged_into IS NULL",
        ),
    ] {
        let kept = app
            .scalar(
                "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM row_counts WHERE name = $1",
                &[name],
            )
            .await;
        assert_eq!(kept, app.scalar(count, &[]).await, "{name}");
    }
}

async fn totals_follow_every_write(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    assert_totals(&app).await;
    let (_, gone, _) = app.guest("paging-gone").await;
    app.guest("paging-stays").await;
    let before = app.admin_get("/v1/admin/users", Some(&token)).await.body["pagination"]["total"]
        .as_i64()
        .unwrap();
    app.call(
        Service::Player,
        Method::DELETE,
        "/v1/users/me",
        None,
        Some(&gone),
    )
    .await
    .ok();
    assert_totals(&app).await;
    let after = app.admin_get("/v1/admin/users", Some(&token)).await.body["pagination"]["total"]
        .as_i64()
        .unwrap();
    assert_eq!(after, before - 1);
    // a merge ends the guest: the players total loses it
    app.exec(
        "UPDATE players SET merged_into = 'someone' WHERE id IN
         (SELECT player_id FROM player_identities WHERE subject = 'paging-stays')",
        &[],
    )
    .await;
    assert_totals(&app).await;
    app.exec("DELETE FROM feedback", &[]).await;
    app.exec("DELETE FROM audit_log", &[]).await;
    assert_totals(&app).await;
    assert_eq!(
        app.admin_get("/v1/admin/feedback", Some(&token)).await.body["pagination"]["total"],
        0
    );
}
