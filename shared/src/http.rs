//! HTTP glue shared by both binaries: extractors whose rejections are the envelope,
//! the fallbacks for unknown routes and wrong methods, the middleware stack, and
//! serving a listener ([`connection`]: slow-client limits, graceful shutdown).

pub mod connection;
pub mod media;

pub use connection::serve;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;

use crate::Error;
use crate::envelope::{ErrorBody, ErrorEnvelope, ErrorText, json_response};
use crate::i18n::Lang;
use crate::message::msg;

/// Largest JSON body any route accepts; larger ones get 413 PAYLOAD_TOO_LARGE.
pub const JSON_BODY_LIMIT: usize = 64 * 1024;

static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// `axum::Json` whose every rejection is the envelope: malformed JSON, a wrong or
/// missing Content-Type and bad fields are 400 VALIDATION_ERROR, an oversized body 413.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let json = req
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(is_json_content_type);
        if !json {
            return Err(Error::validation(
                msg::EXPECTED_CONTENT_TYPE_APPLICATION_JSON,
            ));
        }
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(body_rejection)?;
        check_nesting(&bytes)?;
        match axum::Json::<T>::from_bytes(&bytes) {
            Ok(axum::Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

/// Deepest nesting of arrays and objects a JSON body may have.
const MAX_JSON_DEPTH: usize = 128;

/// Refuses a JSON text nested deeper than [`MAX_JSON_DEPTH`] anywhere, also inside
/// fields the target type ignores (serde skips those without a depth limit).
fn check_nesting(bytes: &[u8]) -> Result<(), Error> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Err(Error::validation(
                        msg::malformed_json_nested_deeper_than_max_levels(MAX_JSON_DEPTH),
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// `application/json` or any `…+json` type, parameters such as charset ignored.
fn is_json_content_type(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

fn body_rejection(e: axum::extract::rejection::BytesRejection) -> Error {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        Error::PayloadTooLarge(msg::request_body_larger_than_size_kib(
            JSON_BODY_LIMIT / 1024,
        ))
    } else {
        Error::Validation(msg::the_request_was_refused_detail(e.body_text()))
    }
}

fn json_rejection(rejection: JsonRejection) -> Error {
    match rejection {
        JsonRejection::JsonDataError(e) => {
            Error::Validation(msg::invalid_request_body_detail(e.body_text()))
        }
        JsonRejection::JsonSyntaxError(e) => {
            Error::Validation(msg::malformed_json_detail(e.body_text()))
        }
        JsonRejection::MissingJsonContentType(_) => {
            Error::validation(msg::EXPECTED_CONTENT_TYPE_APPLICATION_JSON)
        }
        JsonRejection::BytesRejection(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            Error::PayloadTooLarge(msg::request_body_larger_than_size_kib(
                JSON_BODY_LIMIT / 1024,
            ))
        }
        other => Error::Validation(msg::the_request_was_refused_detail(other.body_text())),
    }
}

/// An optional JSON body: no body and no Content-Type is `None`; a JSON body is parsed;
/// `Content-Type: application/json` with an empty body, or a body of another type, is
/// 400 VALIDATION_ERROR.
pub struct OptionalJson<T>(pub Option<T>);

impl<S, T> FromRequest<S> for OptionalJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.to_ascii_lowercase());
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(body_rejection)?;
        let Some(content_type) = content_type else {
            return if bytes.is_empty() {
                Ok(Self(None))
            } else {
                Err(Error::validation(
                    msg::EXPECTED_CONTENT_TYPE_APPLICATION_JSON,
                ))
            };
        };
        let essence = content_type.split(';').next().unwrap_or("").trim();
        if essence != "application/json" && !essence.ends_with("+json") {
            return Err(Error::validation(
                msg::EXPECTED_CONTENT_TYPE_APPLICATION_JSON,
            ));
        }
        if bytes.is_empty() {
            return Err(Error::validation(
                msg::CONTENT_TYPE_APPLICATION_JSON_WITH_AN_EMPTY_BODY_SEND_OR_NO,
            ));
        }
        check_nesting(&bytes)?;
        serde_json::from_slice(&bytes)
            .map(|v| Self(Some(v)))
            .map_err(|e| Error::Validation(msg::invalid_request_body_detail(e)))
    }
}

/// `axum::extract::Query` answering 400 VALIDATION_ERROR in the envelope.
pub struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Self(q.0))
            .map_err(|e: QueryRejection| {
                Error::Validation(msg::invalid_query_detail(e.body_text()))
            })
    }
}

/// `axum::extract::Path` answering 400 VALIDATION_ERROR in the envelope.
pub struct ApiPath<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Self(p.0))
            .map_err(|e: PathRejection| Error::Validation(msg::invalid_path_detail(e.body_text())))
    }
}

/// The bearer token of the `Authorization` header, or 401.
pub fn bearer_token(parts: &Parts) -> Result<&str, Error> {
    let value = parts
        .headers
        .get(axum::http::header::AUTHORIZATION)
        .ok_or_else(|| Error::unauthorized(msg::MISSING_AUTHORIZATION_HEADER))?;
    let value = value
        .to_str()
        .map_err(|_| Error::unauthorized(msg::MALFORMED_AUTHORIZATION_HEADER))?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(token.trim())
        }
        _ => Err(Error::unauthorized(
            msg::EXPECTED_AUTHORIZATION_BEARER_TOKEN,
        )),
    }
}

/// Fallback for paths no route matches: 404 NOT_FOUND.
pub async fn route_not_found(method: Method, uri: Uri) -> Error {
    Error::NotFound(msg::no_route_for_method_path(method, uri.path()))
}

/// Fallback for a known path with a method it does not serve: 405 METHOD_NOT_ALLOWED.
pub async fn method_not_allowed(method: Method) -> Error {
    Error::MethodNotAllowed {
        method: method.to_string(),
    }
}

/// Threads the runtime runs blocking work on at most: file reads of the media served
/// (one per chunk), password hashing (4 at once), the fits of the background jobs. Tokio's
/// default, 512, is what 64 slow media downloads reached, each thread with its stack and
/// its allocator heap; past this many, blocking work queues.
pub const BLOCKING_THREADS: usize = 32;

/// The runtime of either binary: tokio's multi-threaded one, with at most
/// [`BLOCKING_THREADS`] blocking threads.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
}

/// The layers every router of either binary gets: request ids (a client's `x-request-id`
/// when [`is_clean_request_id`], else a fresh one; echoed back), a tracing span per
/// request carrying that id, counting into `metrics` (served on a listener of its own, [`crate::http::metrics_router`]), panics
/// turned into a 500 envelope, and the body-size limit. `probe` (the liveness and
/// readiness routes, `GET /health` and `GET /ready`) is answered bare: load balancers
/// poll it every few seconds per process, and tagging, tracing and counting each poll
/// cost more than answering it.
pub fn with_common_layers(
    router: Router,
    probe: Router,
    metrics: Arc<crate::metrics::Metrics>,
) -> Router {
    router
        .fallback(route_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            metrics,
            crate::metrics::track,
        ))
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT))
        .layer(CatchPanicLayer::custom(
            |_: Box<dyn std::any::Any + Send>| Error::internal("handler panicked").into_response(),
        ))
        .layer(axum::middleware::from_fn(localize_errors))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| {
                    let request_id = req
                        .headers()
                        .get(&REQUEST_ID)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("-");
                    tracing::info_span!(
                        "request",
                        method = %req.method(),
                        path = %req.uri().path(),
                        request_id = %request_id,
                    )
                })
                // One access line per request at DEBUG (`RUST_LOG=…,tower_http=debug`):
                // at INFO it cost a third of the throughput of the cheapest routes, and
                // the load balancer and `/metrics` count requests already. Failures
                // (5xx) are logged at ERROR regardless.
                .on_response(DefaultOnResponse::new().level(Level::DEBUG)),
        )
        .layer(PropagateRequestIdLayer::new(REQUEST_ID.clone()))
        .layer(SetRequestIdLayer::new(REQUEST_ID.clone(), MakeRequestUuid))
        // synchronous: no boxed future per request, as `axum::middleware::map_request` has
        .layer(tower::util::MapRequestLayer::new(drop_unclean_request_id))
        // Merged after the layers, so none wraps it.
        .merge(probe.method_not_allowed_fallback(method_not_allowed))
}

/// Longest request id a client may choose.
pub const MAX_REQUEST_ID_LEN: usize = 64;

/// True for a request id a client may choose: 1-[`MAX_REQUEST_ID_LEN`] of `A-Z a-z 0-9 .
/// _ -`. Nothing else can break a log line (newlines, quotes, `key=value` look-alikes,
/// terminal escapes) or fill it.
pub fn is_clean_request_id(id: &[u8]) -> bool {
    (1..=MAX_REQUEST_ID_LEN).contains(&id.len())
        && id
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Removes a client's `x-request-id` unless it is one clean value, so the next layer
/// makes a fresh one: the id goes into every log line of the request.
fn drop_unclean_request_id(mut req: Request) -> Request {
    let headers = req.headers_mut();
    let mut ids = headers.get_all(&REQUEST_ID).iter();
    let clean = match (ids.next(), ids.next()) {
        (None, _) => true,
        (Some(id), None) => is_clean_request_id(id.as_bytes()),
        (Some(_), Some(_)) => false,
    };
    if !clean {
        headers.remove(&REQUEST_ID);
    }
    req
}

/// Puts an error answer's message (and its items' messages) in the language the
/// request's `Accept-Language` prefers (zh-CN when it names neither of ours or is
/// absent), `error.code` unchanged; answers that are no error pass untouched.
pub async fn localize_errors(req: Request, next: axum::middleware::Next) -> Response {
    let accept = req.headers().get(header::ACCEPT_LANGUAGE).cloned();
    let mut response = next.run(req).await;
    let Some(text) = response.extensions_mut().remove::<ErrorText>() else {
        return response;
    };
    response
        .headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept-language"));
    let lang = Lang::from_accept_language(accept.as_ref().and_then(|v| v.to_str().ok()));
    if lang == Lang::En {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let code = parts
        .extensions
        .get::<crate::metrics::ErrorCode>()
        .map_or("INTERNAL_ERROR", |c| c.0);
    let body = ErrorEnvelope {
        success: false,
        data: None,
        error: ErrorBody {
            code,
            message: text.message.render(lang),
            details: text.details.map(|d| d.render(lang)),
        },
    };
    let translated = json_response(parts.status, &body);
    parts.headers.remove(header::CONTENT_LENGTH);
    let (_, body) = translated.into_parts();
    Response::from_parts(parts, body)
}

/// Binds the listener of `variable` (`PLAYER_API_ADDR`, `METRICS_ADDR`, …): an address
/// that cannot be bound stops the process with an error naming both.
pub async fn bind(variable: &str, addr: SocketAddr) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {variable}={addr}: {e}"))
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
    tracing::info!("shutdown signal received; finishing in-flight requests");
}

/// The router of the metrics listener: `GET /metrics`, anything else 404 (envelope).
/// Scrapes are not counted.
pub fn metrics_router(metrics: Arc<crate::metrics::Metrics>) -> Router {
    Router::new()
        .route("/metrics", axum::routing::get(crate::metrics::serve))
        .fallback(route_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(metrics)
}

/// Response middleware: `Cache-Control: no-store` unless the handler chose otherwise,
/// for answers that carry tokens, TOTP secrets, recovery codes or a signed-in page, which
/// no browser or proxy cache may keep.
pub async fn no_store(mut res: Response) -> Response {
    res.headers_mut()
        .entry(axum::http::header::CACHE_CONTROL)
        .or_insert(axum::http::HeaderValue::from_static("no-store"));
    res
}

/// The `data` of `GET /health` and `GET /ready`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok` (`/health`: the process serves requests) or `ready` (`/ready`: and its
    /// database answers).
    pub status: &'static str,
    pub timestamp: chrono::DateTime<chrono::Utc>,
}

/// The longest `GET /ready` waits for the database's answer: a load balancer polls it
/// every few seconds and must get an answer before its own probe times out.
pub const READY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long one database check answers `GET /ready`: the route is public and
/// unauthenticated, so a flood of it costs one `SELECT 1` a second, not one each.
pub const READY_REUSE: std::time::Duration = std::time::Duration::from_secs(1);

/// `GET /ready` of one process: the last database check and when it ran. Callers that
/// arrive while a check runs wait for it rather than starting their own.
#[derive(Default)]
pub struct Readiness {
    last: tokio::sync::Mutex<Option<(std::time::Instant, Option<String>)>>,
}

impl Readiness {
    /// The body of `GET /ready` at `now`: 200 when the database answered `SELECT 1`
    /// within [`READY_TIMEOUT`] (in the last [`READY_REUSE`]), else 503
    /// SERVICE_UNAVAILABLE with `Retry-After`, so a load balancer sends no traffic to a
    /// process that can only refuse it.
    pub async fn answer(&self, db: &crate::db::Db, now: chrono::DateTime<chrono::Utc>) -> Response {
        let mut last = self.last.lock().await;
        let failure = match &*last {
            Some((at, failure)) if at.elapsed() < READY_REUSE => failure.clone(),
            _ => {
                let failure = match tokio::time::timeout(READY_TIMEOUT, db.ping()).await {
                    Ok(Ok(())) => None,
                    Ok(Err(e)) => Some(e.to_string()),
                    Err(_) => Some(format!("no answer to SELECT 1 within {READY_TIMEOUT:?}")),
                };
                *last = Some((std::time::Instant::now(), failure.clone()));
                failure
            }
        };
        drop(last);
        match failure {
            None => crate::envelope::ok(Health {
                status: "ready",
                timestamp: now,
            })
            .into_response(),
            Some(failure) => Error::DatabaseUnavailable(failure).into_response(),
        }
    }
}

/// The body of `GET /health` at `now`.
pub fn health(now: chrono::DateTime<chrono::Utc>) -> Response {
    crate::envelope::ok(Health {
        status: "ok",
        timestamp: now,
    })
    .into_response()
}

/// Adds the answers every route with a request body can give (the body is read by
/// [`ApiJson`] or its kin before the handler runs) to each operation of `api`
/// that has a request body and documents none of its own: 400 VALIDATION_ERROR for a
/// malformed body, a wrong Content-Type or a field of the wrong type, and 413
/// PAYLOAD_TOO_LARGE past the route's body limit.
pub fn document_body_errors(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
    let answer = |description: &str| {
        ResponseBuilder::new()
            .description(description)
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                    .build(),
            )
            .build()
    };
    let bad_body = answer(
        "The body is malformed, of the wrong Content-Type, or a field has the wrong type (VALIDATION_ERROR)",
    );
    let too_large = answer(&format!(
        "The body is larger than the route accepts, {} KiB unless the route says otherwise (PAYLOAD_TOO_LARGE)",
        JSON_BODY_LIMIT / 1024
    ));
    for item in api.paths.paths.values_mut() {
        let operations = [
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            if operation.request_body.is_none() {
                continue;
            }
            let responses = &mut operation.responses.responses;
            responses
                .entry("400".to_string())
                .or_insert_with(|| bad_body.clone().into());
            responses
                .entry("413".to_string())
                .or_insert_with(|| too_large.clone().into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_id_is_kept_only_when_clean() {
        for clean in [
            "trace-me-123",
            "a",
            "A.b_c-9",
            &"x".repeat(MAX_REQUEST_ID_LEN),
        ] {
            assert!(is_clean_request_id(clean.as_bytes()), "{clean}");
        }
        for unclean in [
            "",
            "two\nlines",
            "cr\rlf",
            "say \"hi\"",
            "a b",
            "request_id=forged",
            "tab\there",
            "\u{1b}[31mred",
            "café",
            &"x".repeat(MAX_REQUEST_ID_LEN + 1),
            &"y".repeat(200),
        ] {
            assert!(!is_clean_request_id(unclean.as_bytes()), "{unclean:?}");
        }
    }
}
