//! `GET /metrics` on both binaries, on a listener of its own (`METRICS_ADDR`): requests
//! and latency per route template, errors per envelope code, connection-pool usage;
//! every label from a closed set. The public ports do not serve it.

use chrono::Duration;
use reqwest::Method;
use tests::{Engine, Service, TestApp, both_engines, both_engines_raw};

use crate::fair_play::{Player, demo};

both_engines!(
    player_metrics_count_routes_errors_and_pools,
    admin_metrics_are_separate,
    random_methods_do_not_grow_the_series,
    public_ports_do_not_serve_metrics
);
both_engines_raw!(answers_count_what_they_were_judged_on);

async fn scrape(app: &TestApp, service: Service) -> String {
    let url = match service {
        Service::Player => &app.player_metrics_url,
        Service::Admin => &app.admin_metrics_url,
    };
    let resp = app.client.get(url).send().await.unwrap();
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
    // On the public port `/metrics` is an unknown path like any other.
    assert_eq!(app.get("/metrics", None).await.status, 404);
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
        2.0
    );
    assert_eq!(value(&text, r#"http_errors_total{code="NOT_FOUND"} "#), 2.0);
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
    // Scrapes are not counted (nor served by the public router).
    assert!(!text.contains(r#"route="/metrics""#), "{text}");
    let pool = match app.engine {
        Engine::Sqlite => "sqlite_reader",
        Engine::Postgres | Engine::Pooled => "postgres",
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

/// The series of a scrape (every line that is not a comment).
fn series(text: &str) -> usize {
    text.lines().filter(|l| !l.starts_with('#')).count()
}

/// Seeded xorshift: the same random methods on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A random HTTP token (RFC 9110 `tchar`s) of 1 to 300 characters.
    fn method(&mut self) -> String {
        const TCHAR: &[u8] =
            b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let len = 1 + (self.next() % 300) as usize;
        (0..len)
            .map(|_| TCHAR[(self.next() % TCHAR.len() as u64) as usize] as char)
            .collect()
    }
}

const STANDARD: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE",
];

/// Sends `n` requests with random methods to `paths` of `base` in turn, 32 at a time.
async fn random_methods(app: &TestApp, base: &str, paths: &[&str], n: usize, seed: u64) {
    let mut rng = Rng(seed);
    let mut sent = 0;
    while sent < n {
        let mut batch = Vec::new();
        while batch.len() < 32 && sent < n {
            let method = rng.method();
            if STANDARD.contains(&method.as_str()) {
                continue;
            }
            let path = paths[sent % paths.len()];
            let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
            batch.push(app.client.request(method, format!("{base}{path}")).send());
            sent += 1;
        }
        for resp in futures::future::join_all(batch).await {
            let status = resp.unwrap().status().as_u16();
            assert!(status == 404 || status == 405, "{status}");
        }
    }
}

async fn random_methods_do_not_grow_the_series(app: TestApp) {
    // every route template and status the random requests will meet, once
    assert_eq!(app.get("/v1/app/regions", None).await.status, 200);
    assert_eq!(app.get("/v1/no-such-route", None).await.status, 404);
    let before = series(&scrape(&app, Service::Player).await);

    const N: usize = 10_000;
    let paths = ["/v1/app/regions", "/v1/random-methods/x", "/v1/auth/guest"];
    random_methods(&app, &app.player_url, &paths, N, 0x9E37_79B9_7F4A_7C15).await;
    let text = scrape(&app, Service::Player).await;
    let after = series(&text);
    // New: per (route, status) one counter, per route one histogram of 18 lines, the
    // 405 code and the scrape itself (77 in all); nothing per method. A label per
    // method would add about 19 per request.
    assert!(
        after <= before + 100,
        "{before} series before, {after} after:\n{text}"
    );
    let other: f64 = [
        r#"http_requests_total{method="OTHER",route="/v1/app/regions",status="405"} "#,
        r#"http_requests_total{method="OTHER",route="unmatched",status="404"} "#,
        r#"http_requests_total{method="OTHER",route="/v1/auth/guest",status="405"} "#,
    ]
    .iter()
    .map(|s| value(&text, s))
    .sum();
    assert_eq!(other, N as f64);
    assert_eq!(
        value(
            &text,
            r#"http_request_duration_seconds_count{method="OTHER",route="unmatched"} "#
        ),
        (0..N).filter(|i| i % paths.len() == 1).count() as f64
    );

    // the same on the admin binary
    let before = series(&scrape(&app, Service::Admin).await);
    random_methods(
        &app,
        &app.admin_url,
        &["/v1/admin/login", "/v1/admin/nowhere"],
        1000,
        7,
    )
    .await;
    let text = scrape(&app, Service::Admin).await;
    assert!(series(&text) <= before + 100, "{text}");
    assert_eq!(
        value(
            &text,
            r#"http_requests_total{method="OTHER",route="/v1/admin/login",status="405"} "#
        ) + value(
            &text,
            r#"http_requests_total{method="OTHER",route="unmatched",status="404"} "#
        ),
        1000.0
    );
}

async fn public_ports_do_not_serve_metrics(app: TestApp) {
    for service in [Service::Player, Service::Admin] {
        for method in [Method::GET, Method::HEAD] {
            let r = app
                .call(service, method.clone(), "/metrics", None, None)
                .await;
            assert_eq!(r.status, 404, "{service:?} {method}");
            if method == Method::GET {
                r.assert_error(404, "NOT_FOUND");
                assert!(!r.body.to_string().contains("http_requests"));
            }
        }
    }
    // The metrics listeners serve only `/metrics`.
    for url in [&app.player_metrics_url, &app.admin_metrics_url] {
        let other = url.replace("/metrics", "/v1/app/regions");
        let r = TestApp::read(app.client.get(other).send().await.unwrap()).await;
        r.assert_error(404, "NOT_FOUND");
        let r = TestApp::read(app.client.post(url.as_str()).send().await.unwrap()).await;
        r.assert_error(405, "METHOD_NOT_ALLOWED");
    }
}

/// `answers_judged_total` tells answers judged from what the process remembers from
/// answers judged on a read: a challenge's first answer reads the player (this process
/// has written nothing of theirs yet), the four after it are judged from memory; with
/// `ANSWER_MEMORY=false` every one is read.
async fn answers_count_what_they_were_judged_on(engine: Engine) {
    for (memory, expected) in [("true", (4.0, 1.0)), ("false", (0.0, 5.0))] {
        let app = demo(engine, &[("ANSWER_MEMORY", memory.to_string())]).await;
        let player = Player::new(&app, "judged-device", None).await;
        player.play_fairly(Duration::seconds(3)).await;
        let text = scrape(&app, Service::Player).await;
        let judged = |on: &str| {
            let series = format!(r#"answers_judged_total{{on="{on}"}} "#);
            text.contains(&series).then(|| value(&text, &series))
        };
        assert_eq!(
            (
                judged("memory").unwrap_or(0.0),
                judged("read").unwrap_or(0.0)
            ),
            expected,
            "ANSWER_MEMORY={memory}"
        );
    }
}
