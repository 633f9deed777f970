//! Health, regions, OpenAPI, and the envelope on every error path.

use reqwest::Method;
use serde_json::{Value, json};
use tests::{Service, TestApp, both_engines};

both_engines!(
    pages_beyond_any_table_are_refused,
    health_on_both_binaries,
    regions_list_has_31_divisions,
    unknown_routes_and_wrong_methods_answer_the_envelope,
    bad_bodies_answer_the_envelope,
    request_ids_are_generated_and_echoed,
    openapi_documents_are_served,
);

async fn health_on_both_binaries(app: TestApp) {
    for service in [Service::Player, Service::Admin] {
        let r = app.call(service, Method::GET, "/health", None, None).await;
        let data = r.ok();
        assert_eq!(data["status"], "ok");
        let ts = data["timestamp"].as_str().unwrap();
        // the service clock, not the system clock
        assert!(ts.starts_with("2026-11-18"), "{ts}");
    }
}

async fn regions_list_has_31_divisions(app: TestApp) {
    let r = app.get("/v1/app/regions", None).await;
    let data = r.ok();
    assert_eq!(data["countryCode"], "CN");
    assert_eq!(data["hierarchy"], "flat");
    assert!(data["version"].as_str().is_some_and(|v| !v.is_empty()));
    assert!(data["updatedAt"].as_str().is_some());
    let regions = data["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 31);
    let mut codes: Vec<&str> = regions
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    codes.dedup();
    assert_eq!(codes.len(), 31);
    for (i, r) in regions.iter().enumerate() {
        assert_eq!(r["level"], 1);
        assert_eq!(r["enabled"], true);
        assert!(r["parentCode"].is_null());
        assert_eq!(r["sortOrder"], i as i64 + 1);
        assert!(r["name"].as_str().is_some_and(|n| !n.is_empty()));
        assert!(r["shortName"].as_str().is_some_and(|n| !n.is_empty()));
    }
    let beijing = regions.iter().find(|r| r["code"] == "110000").unwrap();
    assert_eq!(beijing["name"], "北京市");
    assert_eq!(beijing["shortName"], "北京");
}

async fn unknown_routes_and_wrong_methods_answer_the_envelope(app: TestApp) {
    for service in [Service::Player, Service::Admin] {
        app.call(service, Method::GET, "/v1/no/such/route", None, None)
            .await
            .assert_error(404, "NOT_FOUND");
        app.call(service, Method::GET, "/nothing-here", None, None)
            .await
            .assert_error(404, "NOT_FOUND");
        app.call(service, Method::DELETE, "/health", None, None)
            .await
            .assert_error(405, "METHOD_NOT_ALLOWED");
    }
    app.call(Service::Player, Method::GET, "/v1/auth/guest", None, None)
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    app.call(
        Service::Admin,
        Method::PUT,
        "/v1/admin/login",
        Some(json!({})),
        None,
    )
    .await
    .assert_error(405, "METHOD_NOT_ALLOWED");
}

async fn raw_post(
    app: &TestApp,
    service: Service,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> tests::Resp {
    // A client (so a connection) of its own: a request refused before its body is read
    // ends its connection, and a pooled one could be reused just as the server closes
    // it (a `Connection: close` header does not keep the request off a pooled one).
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let mut req = client
        .post(app.url(service, path))
        .header("connection", "close")
        .body(body);
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    TestApp::read(req.send().await.unwrap()).await
}

async fn bad_bodies_answer_the_envelope(app: TestApp) {
    for (service, path) in [
        (Service::Player, "/v1/auth/guest"),
        (Service::Admin, "/v1/admin/login"),
    ] {
        // malformed JSON
        raw_post(
            &app,
            service,
            path,
            Some("application/json"),
            b"{\"deviceId\": ".to_vec(),
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
        // wrong Content-Type
        raw_post(&app, service, path, Some("text/plain"), b"{}".to_vec())
            .await
            .assert_error(400, "VALIDATION_ERROR");
        // no Content-Type at all
        raw_post(&app, service, path, None, b"{}".to_vec())
            .await
            .assert_error(400, "VALIDATION_ERROR");
        // missing required fields
        raw_post(
            &app,
            service,
            path,
            Some("application/json"),
            b"{}".to_vec(),
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
        // wrong field type
        raw_post(
            &app,
            service,
            path,
            Some("application/json"),
            br#"{"deviceId": 7, "username": 1}"#.to_vec(),
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
        // oversized body: refused from its Content-Length, before it is read. The server
        // then closes the connection with the rest of the body unread, and the kernel's
        // reset can overtake the 413 on its way to the client (HTTP/1.1's early-response
        // race): a transport error is retried, any answer must be the 413 envelope.
        let big = format!(r#"{{"deviceId": "{}"}}"#, "x".repeat(200 * 1024));
        let mut answered = None;
        for _ in 0..5 {
            let sent = app
                .client
                .post(app.url(service, path))
                .header("content-type", "application/json")
                .body(big.clone())
                .send()
                .await;
            if let Ok(resp) = sent {
                answered = Some(TestApp::read(resp).await);
                break;
            }
        }
        answered
            .expect("the oversized body got an answer")
            .assert_error(413, "PAYLOAD_TOO_LARGE");
        // deeply nested JSON
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        raw_post(
            &app,
            service,
            path,
            Some("application/json"),
            deep.into_bytes(),
        )
        .await
        .assert_error(400, "VALIDATION_ERROR");
    }
    // a valid body with bad values is VALIDATION_ERROR too
    app.post("/v1/auth/guest", json!({"deviceId": "   "}), None)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.post("/v1/auth/guest", json!({"deviceId": "d".repeat(129)}), None)
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

async fn request_ids_are_generated_and_echoed(app: TestApp) {
    let r = app.get("/v1/app/regions", None).await;
    let generated = r.headers.get("x-request-id").unwrap().to_str().unwrap();
    assert_eq!(generated.len(), 36, "{generated}");
    // The liveness probe is answered bare (load balancers poll it all the time).
    let probe = app.get("/health", None).await;
    assert_eq!(probe.status, 200);
    assert!(probe.headers.get("x-request-id").is_none());
    let resp = app
        .client
        .get(app.url(Service::Admin, "/v1/nope"))
        .header("x-request-id", "trace-me-123")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers().get("x-request-id").unwrap(), "trace-me-123");
    assert_eq!(resp.status(), 404);
}

async fn openapi_documents_are_served(app: TestApp) {
    for (service, path, expected) in [
        (
            Service::Player,
            "/v1/openapi.json",
            vec![
                "/health",
                "/v1/app/regions",
                "/v1/auth/guest",
                "/v1/auth/refresh",
                "/v1/auth/me",
            ],
        ),
        (
            Service::Admin,
            "/v1/admin/openapi.json",
            vec![
                "/health",
                "/v1/admin/login",
                "/v1/admin/refresh",
                "/v1/admin/auth",
                "/v1/admin/admins/{id}",
            ],
        ),
    ] {
        let r = app.call(service, Method::GET, path, None, None).await;
        assert_eq!(r.status, 200);
        let doc: &Value = &r.body;
        assert!(
            doc["openapi"].as_str().unwrap().starts_with("3.1"),
            "{}",
            doc["openapi"]
        );
        for p in expected {
            assert!(doc["paths"].get(p).is_some(), "{path} lacks {p}");
        }
    }
}

/// `(page − 1) × limit` of a huge page would overflow (a 500 on PostgreSQL, negative
/// ranks on SQLite): a page beyond any table is 400 VALIDATION_ERROR on every list; the
/// deepest possible page is an empty one.
async fn pages_beyond_any_table_are_refused(app: TestApp) {
    let (admin, _, _) = app.admin_login().await;
    let (_, player, _) = app.guest("d-pages").await;
    let admin_lists = [
        "/v1/admin/users",
        "/v1/admin/questions",
        "/v1/admin/audit-log",
        "/v1/admin/admins",
        "/v1/admin/feedback",
        "/v1/admin/categories",
        "/v1/admin/knowledge-cards",
    ];
    for huge in [
        i64::MAX.to_string(),
        "9223372036854775".into(),
        "20000002".into(),
    ] {
        for list in admin_lists {
            app.admin_get(&format!("{list}?page={huge}&limit=50"), Some(&admin))
                .await
                .assert_error(400, "VALIDATION_ERROR");
        }
        for scope in ["region", "topic"] {
            app.get(
                &format!("/v1/leaderboards?scope={scope}&page={huge}&limit=100"),
                Some(&player),
            )
            .await
            .assert_error(400, "VALIDATION_ERROR");
        }
    }
    // the deepest page that could exist is just empty
    for list in admin_lists {
        let r = app
            .admin_get(&format!("{list}?page=20000001&limit=50"), Some(&admin))
            .await;
        assert_eq!(r.ok().as_array().map(Vec::len), Some(0), "{list}");
    }
    let r = app
        .get(
            "/v1/leaderboards?scope=topic&page=10000001&limit=100",
            Some(&player),
        )
        .await;
    assert_eq!(r.ok().as_array().map(Vec::len), Some(0));
}
