//! The transport of both binaries: the slow-client limits of a connection (headers,
//! idle keep-alive, body; shortened here through their settings), the request ids a
//! client may choose, and the console's security headers on every kind of answer.

use std::time::{Duration, Instant};

use admin_console::console::{headers, urls};
use reqwest::header::HeaderValue;
use tests::raw_http::{self, round_trip, until_closed};
use tests::{Engine, Service, TestApp, both_engines, both_engines_with};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

both_engines_with!(
    with_short_limits;
    a_request_whose_headers_stall_is_disconnected,
    an_idle_keep_alive_connection_outlives_the_header_limit_then_closes,
    a_body_that_does_not_arrive_in_time_closes_the_connection,
    a_response_the_client_never_reads_closes_the_connection,
);

both_engines!(
    a_client_request_id_is_kept_only_when_clean,
    console_answers_carry_the_security_headers,
);

const HEADER_LIMIT: Duration = Duration::from_secs(1);
const IDLE_LIMIT: Duration = Duration::from_secs(4);
const BODY_LIMIT: Duration = Duration::from_secs(1);
const WRITE_LIMIT: Duration = Duration::from_secs(1);

async fn with_short_limits(engine: Engine) -> TestApp {
    TestApp::spawn_with(
        engine,
        &[
            (
                "HTTP_HEADER_TIMEOUT_SECONDS",
                HEADER_LIMIT.as_secs().to_string(),
            ),
            (
                "HTTP_IDLE_TIMEOUT_SECONDS",
                IDLE_LIMIT.as_secs().to_string(),
            ),
            (
                "HTTP_BODY_TIMEOUT_SECONDS",
                BODY_LIMIT.as_secs().to_string(),
            ),
            (
                "HTTP_WRITE_TIMEOUT_SECONDS",
                WRITE_LIMIT.as_secs().to_string(),
            ),
        ],
    )
    .await
}

/// A raw connection to `service`'s listener.
async fn connect(app: &TestApp, service: Service) -> TcpStream {
    raw_http::connect(&app.url(service, "")).await
}

const SERVICES: [Service; 2] = [Service::Player, Service::Admin];

async fn a_request_whose_headers_stall_is_disconnected(app: TestApp) {
    for service in SERVICES {
        // half a request, then nothing: closed at the header limit, not the idle one
        let mut stream = connect(&app, service).await;
        stream
            .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nAccept: ")
            .await
            .unwrap();
        let (answer, closed) = until_closed(&mut stream, IDLE_LIMIT * 3).await;
        let closed = closed.unwrap_or_else(|| panic!("{service:?}: still open"));
        assert!(
            closed < IDLE_LIMIT,
            "{service:?}: closed after {closed:?}, the idle limit"
        );
        assert!(
            closed >= HEADER_LIMIT.mul_f32(0.8),
            "{service:?}: closed too early, {closed:?}"
        );
        assert!(answer.is_empty(), "{service:?}: answered a half request");

        // a connection that never sends a byte: the same limit from the accept
        let mut silent = connect(&app, service).await;
        let (_, closed) = until_closed(&mut silent, IDLE_LIMIT * 3).await;
        let closed = closed.unwrap_or_else(|| panic!("{service:?}: silent one still open"));
        assert!(
            closed < IDLE_LIMIT,
            "{service:?}: silent one lasted {closed:?}"
        );

        // a whole request in time is answered as always
        let mut whole = connect(&app, service).await;
        let answer = round_trip(
            &mut whole,
            "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
}

async fn an_idle_keep_alive_connection_outlives_the_header_limit_then_closes(app: TestApp) {
    let request = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n";
    for service in SERVICES {
        let mut stream = connect(&app, service).await;
        let first = round_trip(&mut stream, request).await;
        assert!(first.starts_with("HTTP/1.1 200"), "{first}");
        // idle for twice the header limit: still open, and serves the next request
        tokio::time::sleep(HEADER_LIMIT * 2).await;
        let second = round_trip(&mut stream, request).await;
        assert!(second.starts_with("HTTP/1.1 200"), "{service:?}: {second}");
        // then idle until the idle limit closes it
        let (extra, closed) = until_closed(&mut stream, IDLE_LIMIT * 3).await;
        assert!(extra.is_empty(), "{}", String::from_utf8_lossy(&extra));
        let closed = closed.unwrap_or_else(|| panic!("{service:?}: idle connection kept open"));
        assert!(
            closed >= IDLE_LIMIT.mul_f32(0.8),
            "{service:?}: closed after {closed:?}, before the idle limit"
        );
    }
}

async fn a_body_that_does_not_arrive_in_time_closes_the_connection(app: TestApp) {
    let body = br#"{"deviceId":"a-slow-device-that-trickles-its-body"}"#;
    for (service, path) in [
        (Service::Player, "/v1/auth/guest"),
        (Service::Admin, "/v1/admin/login"),
    ] {
        let mut stream = connect(&app, service).await;
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        // a byte every 200 ms: never a pause as long as the limit, yet the whole body
        // would take twice as long
        let start = Instant::now();
        let mut cut = None;
        for byte in body.iter().take(body.len() - 1) {
            if stream.write_all(&[*byte]).await.is_err() {
                cut = Some(start.elapsed());
                break;
            }
            let mut probe = [0u8; 1024];
            match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut probe)).await {
                Err(_) => {}
                Ok(Ok(0) | Err(_)) => {
                    cut = Some(start.elapsed());
                    break;
                }
                Ok(Ok(n)) => panic!(
                    "{service:?}: answered before the body arrived: {}",
                    String::from_utf8_lossy(&probe[..n])
                ),
            }
        }
        let cut = cut.unwrap_or_else(|| panic!("{service:?}: the trickled body was accepted"));
        assert!(
            cut >= BODY_LIMIT.mul_f32(0.8) && cut < BODY_LIMIT * 5,
            "{service:?}: cut after {cut:?}"
        );

        // the same body sent at once is answered
        let mut whole = connect(&app, service).await;
        let answer = round_trip(
            &mut whole,
            &format!("{head}{}", String::from_utf8_lossy(body)),
        )
        .await;
        assert!(!answer.starts_with("HTTP/1.1 5"), "{service:?}: {answer}");
    }
}

async fn a_response_the_client_never_reads_closes_the_connection(app: TestApp) {
    // The API reference's bundle (1.7 MB, no sign-in) asked for forty times in one go,
    // far more than the socket buffers hold, and nothing read: the service stops
    // waiting for the client at the write limit rather than holding the connection.
    let path = format!(
        "{}{}",
        shared::api_docs::ASSETS_PREFIX,
        shared::api_docs::BUNDLE_NAME
    );
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    let asked = 40;
    let mut stream = connect(&app, Service::Player).await;
    stream
        .write_all(request.repeat(asked).as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(WRITE_LIMIT * 4).await;
    let (received, closed) = until_closed(&mut stream, Duration::from_secs(60)).await;
    assert!(closed.is_some(), "still open after the client read again");
    let bundle = app
        .client
        .get(app.url(Service::Player, &path))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .len();
    assert!(bundle > 1_000_000, "bundle of {bundle} bytes");
    assert!(
        received.len() < bundle * asked / 2,
        "{} of {} bytes delivered: the stalled connection was kept",
        received.len(),
        bundle * asked
    );
}

async fn a_client_request_id_is_kept_only_when_clean(app: TestApp) {
    let echoed = |service: Service, ids: Vec<HeaderValue>| {
        let request = app.client.get(app.url(service, "/v1/no-such-route"));
        let request = ids
            .into_iter()
            .fold(request, |r, id| r.header("x-request-id", id));
        async move {
            let resp = request.send().await.unwrap();
            assert_eq!(resp.status(), 404);
            let ids: Vec<_> = resp.headers().get_all("x-request-id").iter().collect();
            assert_eq!(ids.len(), 1, "{ids:?}");
            ids[0].to_str().unwrap().to_string()
        }
    };
    let is_fresh = |id: &str| id.len() == 36 && uuid::Uuid::parse_str(id).is_ok();
    for service in SERVICES {
        let kept = "client-trace.42_OK";
        assert_eq!(
            echoed(service, vec![HeaderValue::from_static(kept)]).await,
            kept
        );
        let longest = "x".repeat(64);
        assert_eq!(
            echoed(service, vec![HeaderValue::from_str(&longest).unwrap()]).await,
            longest
        );
        let unclean: Vec<Vec<u8>> = vec![
            b"forged\" request_id=\"evil".to_vec(),
            b"with space".to_vec(),
            b"tab\tinside".to_vec(),
            "x".repeat(65).into_bytes(),
            "y".repeat(200).into_bytes(),
            "caf\u{e9}".as_bytes().to_vec(),
            vec![b'a', 0x80, b'b'],
        ];
        for id in unclean {
            let sent = HeaderValue::from_bytes(&id).unwrap();
            let answer = echoed(service, vec![sent]).await;
            assert!(
                is_fresh(&answer),
                "{service:?}: {:?} came back as {answer:?}",
                String::from_utf8_lossy(&id)
            );
        }
        // two ids, each clean: which one the log would carry is ambiguous, so neither
        let two = echoed(
            service,
            vec![
                HeaderValue::from_static("first-id"),
                HeaderValue::from_static("second-id"),
            ],
        )
        .await;
        assert!(is_fresh(&two), "{two}");
        // none sent: a fresh one
        assert!(is_fresh(&echoed(service, vec![]).await));
    }
}

/// The three headers of [`headers::secured`] on `page`, by `what` it is.
#[track_caller]
fn assert_secured(page: &tests::console::Page, what: &str) {
    assert_eq!(
        page.header("content-security-policy"),
        Some(headers::CONTENT_SECURITY_POLICY),
        "{what} (status {})",
        page.status
    );
    assert_eq!(
        page.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(
        page.header("referrer-policy"),
        Some("same-origin"),
        "{what}"
    );
    assert_eq!(
        page.headers
            .get_all("content-security-policy")
            .iter()
            .count(),
        1,
        "{what}"
    );
}

async fn console_answers_carry_the_security_headers(app: TestApp) {
    let mut anonymous = app.console();
    let redirect = anonymous.get("/console").await;
    redirect.assert_status(303);
    assert_secured(&redirect, "the redirect to sign in");
    let sign_in = anonymous.get("/console/login").await;
    sign_in.assert_status(200);
    assert_secured(&sign_in, "the sign-in page");
    assert_secured(&anonymous.get("/console/").await, "/console/");

    let mut browser = app.console_signed_in().await;
    let dashboard = browser.get("/console").await;
    dashboard.assert_status(200);
    assert_secured(&dashboard, "the dashboard");
    // the layout loads its behaviour from files and tells htmx not to inject styles
    dashboard.assert_contains(&urls::asset(urls::SCRIPT));
    dashboard.assert_contains(r#""includeIndicatorStyles":false"#);
    assert!(!dashboard.contains("onchange="), "{}", dashboard.body);

    let fragment = browser.htmx_get("/console/questions").await;
    fragment.assert_status(200);
    assert!(
        !fragment.contains("<html"),
        "not a fragment: {}",
        fragment.body
    );
    assert_secured(&fragment, "an htmx fragment");

    let missing = browser.get("/console/no-such-page").await;
    missing.assert_status(404);
    assert_secured(&missing, "the error page");
    missing.assert_contains("data-history-back");
    assert!(!missing.contains("javascript:"), "{}", missing.body);
    let refused = browser.htmx_post("/console/no-such-page", &[]).await;
    assert_eq!(refused.status, 404);
    assert_secured(&refused, "an htmx error");
    let wrong_method = browser.post("/console/players", &[]).await;
    assert_eq!(wrong_method.status, 405);
    assert_secured(&wrong_method, "a wrong method");
    let forged = browser.post_raw("/console/logout", &[]).await;
    assert_eq!(forged.status, 403);
    assert_secured(&forged, "a refused form");

    for asset in [urls::SCRIPT, urls::STYLESHEET, urls::HTMX] {
        let served = browser.get(&urls::asset(asset)).await;
        served.assert_status(200);
        assert_secured(&served, asset);
    }
    let script = browser.get(&urls::asset(urls::SCRIPT)).await;
    assert!(
        script
            .header("content-type")
            .is_some_and(|t| t.contains("javascript")),
        "{:?}",
        script.header("content-type")
    );
    let unknown = browser.get("/console-assets/js/nothing.js").await;
    unknown.assert_status(404);
    assert_secured(&unknown, "an unknown asset");

    // the JSON API of the same binary is not a page: no page policy there
    let api = app.admin_get("/v1/admin/stats", None).await;
    assert_eq!(api.status, 401);
    assert!(api.headers.get("content-security-policy").is_none());
}
