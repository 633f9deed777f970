//! `GET /metrics` on both binaries: requests and latency per route template, errors per
//! envelope code, connection-pool usage.

use tests::{Engine, Service, TestApp, both_engines};

both_engines!(
    player_metrics_count_routes_errors_and_pools,
    admin_metrics_are_separate
);

async fn scrape(app: &TestApp, service: Service) -> String {
    let url = match service {
        Service::Player => &app.player_url,
        Service::Admin => &app.admin_url,
    };
    let resp = app
        .client
        .get(format!("{url}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    resp.text().await.unwrap()
}

fn value(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(series)
                .map(|v| v.trim().parse::<f64>().unwrap())
        })
        .unwrap_or_else(|| panic!("no series {series} in:\n{text}"))
}

async fn player_metrics_count_routes_errors_and_pools(app: TestApp) {
    for _ in 0..3 {
        assert_eq!(app.get("/v1/app/regions", None).await.status, 200);
    }
    // The liveness probe is not counted (load balancers poll it all the time).
    assert_eq!(app.get("/health", None).await.status, 200);
    let (_, guest, _) = app.guest("metrics-device").await;
    assert_eq!(app.get("/v1/auth/me", Some(&guest)).await.status, 200);
    assert_eq!(app.get("/v1/no-such-route", None).await.status, 404);
    assert_eq!(app.get("/v1/auth/me", None).await.status, 401);

    let text = scrape(&app, Service::Player).await;
    assert_eq!(
        value(
            &text,
            r#"http_requests_total{method="GET",route="/v1/app/regions",status="200"} "#
        ),
        3.0
    );
    assert_eq!(
        value(
            &text,
            r#"http_requests_total{method="GET",route="/v1/auth/me",status="200"} "#
        ),
        1.0
    );
    // Unknown paths share one label, so scanners cannot grow the label sets.
    assert_eq!(
        value(
            &text,
            r#"http_requests_total{method="GET",route="unmatched",status="404"} "#
        ),
        1.0
    );
    assert_eq!(value(&text, r#"http_errors_total{code="NOT_FOUND"} "#), 1.0);
    assert_eq!(
        value(&text, r#"http_errors_total{code="UNAUTHORIZED"} "#),
        1.0
    );
    assert_eq!(
        value(
            &text,
            r#"http_request_duration_seconds_count{method="GET",route="/v1/app/regions"} "#
        ),
        3.0
    );
    assert!(
        text.contains(
            r#"http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v1/app/regions"}"#
        ) || text.contains(
            r#"http_request_duration_seconds_bucket{method="GET",route="/v1/app/regions",le="+Inf"}"#
        )
    );
    assert!(!text.contains(r#"route="/health""#), "{text}");
    let pool = match app.engine {
        Engine::Sqlite => "sqlite_reader",
        Engine::Postgres => "postgres",
    };
    assert!(value(&text, &format!(r#"db_pool_connections{{pool="{pool}"}} "#)) >= 1.0);
    assert!(text.contains("db_pool_idle_connections"));
    assert!(text.trim_end().ends_with("# EOF"));
}

async fn admin_metrics_are_separate(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    assert_eq!(
        app.admin_get("/v1/admin/stats", Some(&token)).await.status,
        200
    );
    let text = scrape(&app, Service::Admin).await;
    assert_eq!(
        value(
            &text,
            r#"http_requests_total{method="POST",route="/v1/admin/login",status="200"} "#
        ),
        1.0
    );
    assert!(
        !text.contains(r#"route="/v1/app/regions""#),
        "the player API's requests are not here"
    );
    // Console pages count under their templates too.
    let mut browser = app.console();
    browser.get("/console/questions/whatever").await;
    let text = scrape(&app, Service::Admin).await;
    assert!(
        text.contains(r#"route="/console/questions/{id}""#),
        "{text}"
    );
}
