//! The role extractors over HTTP, on probe routes served with the real state.

use std::sync::Arc;

use axum::Router;
use axum::routing::get;
use serde_json::json;
use shared::envelope::ok;
use tests::{TestApp, both_engines};

both_engines!(super_admin_and_guest_extractors_answer_403);

async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(shared::http::serve(
        listener,
        router,
        shared::config::ConnectionLimits::default(),
        std::future::pending(),
    ));
    format!("http://{addr}")
}

async fn status_of(app: &TestApp, url: String, token: &str) -> tests::Resp {
    TestApp::read(app.client.get(url).bearer_auth(token).send().await.unwrap()).await
}

async fn super_admin_and_guest_extractors_answer_403(app: TestApp) {
    let admin_probe = serve(
        Router::new()
            .route(
                "/super",
                get(|admin_console::extract::SuperAdmin(a): admin_console::extract::SuperAdmin| async move {
                    ok(json!({ "id": a.id }))
                }),
            )
            .with_state(admin_console::AppState { ctx: Arc::clone(&app.ctx) }),
    )
    .await;
    let player_probe = serve(
        Router::new()
            .route(
                "/guest",
                get(|player_api::extract::GuestPlayer(p): player_api::extract::GuestPlayer| async move {
                    ok(json!({ "id": p.id }))
                }),
            )
            .with_state(player_api::AppState::new(Arc::clone(&app.ctx))),
    )
    .await;

    // super_admin passes; an admin with role admin is 403
    let (super_token, _, _) = app.admin_login().await;
    status_of(&app, format!("{admin_probe}/super"), &super_token)
        .await
        .ok();
    let hash = shared::password::hash("plain-admin-pw".into())
        .await
        .unwrap();
    app.exec(
        "INSERT INTO admins (id, username, password_hash, role, is_active, token_version, created_at, updated_at)
         VALUES ($1, $2, $3, 'admin', TRUE, 0, 0, 0)",
        &["plain-admin", "plain-admin", &hash],
    )
    .await;
    let r = app
        .admin_post(
            "/v1/admin/login",
            json!({"username": "plain-admin", "password": "plain-admin-pw"}),
            None,
        )
        .await;
    let plain_token = r.ok()["accessToken"].as_str().unwrap().to_string();
    status_of(&app, format!("{admin_probe}/super"), &plain_token)
        .await
        .assert_error(403, "FORBIDDEN");
    // no token is 401, not 403
    TestApp::read(
        app.client
            .get(format!("{admin_probe}/super"))
            .send()
            .await
            .unwrap(),
    )
    .await
    .assert_error(401, "UNAUTHORIZED");

    // a guest passes the guest extractor; a formal account is 403
    let (id, token, _) = app.guest("device-g").await;
    status_of(&app, format!("{player_probe}/guest"), &token)
        .await
        .ok();
    app.exec("UPDATE players SET is_guest = FALSE WHERE id = $1", &[&id])
        .await;
    status_of(&app, format!("{player_probe}/guest"), &token)
        .await
        .assert_error(403, "FORBIDDEN");
}
