//! `GET /metrics`: Prometheus (OpenMetrics text) counters and latency histograms per
//! route, errors per envelope code, and connection-pool usage. Each router owns its own
//! registry (no global state), so tests can run many apps in one process.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::db::Db;

/// The envelope code of a refused request, left on the response by the one place that
/// maps errors (so metrics can count errors per code).
#[derive(Clone, Copy, Debug)]
pub struct ErrorCode(pub &'static str);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    route: String,
    status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: String,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolLabels {
    pool: String,
}

fn latency_histogram() -> Histogram {
    // 0.25 ms to about 4 s.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 15))
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    errors: Family<ErrorLabels, Counter>,
    pool_open: Family<PoolLabels, Gauge>,
    pool_idle: Family<PoolLabels, Gauge>,
    db: Db,
}

impl Metrics {
    pub fn new(db: Db) -> Arc<Self> {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests by method, route and status",
            requests.clone(),
        );
        let latency = Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram,
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to the response head by method and route",
            latency.clone(),
        );
        let errors = Family::<ErrorLabels, Counter>::default();
        registry.register(
            "http_errors",
            "Refused or failed requests by envelope error code",
            errors.clone(),
        );
        let pool_open = Family::<PoolLabels, Gauge>::default();
        registry.register(
            "db_pool_connections",
            "Open database connections per pool",
            pool_open.clone(),
        );
        let pool_idle = Family::<PoolLabels, Gauge>::default();
        registry.register(
            "db_pool_idle_connections",
            "Idle database connections per pool",
            pool_idle.clone(),
        );
        Arc::new(Self {
            registry,
            requests,
            latency,
            errors,
            pool_open,
            pool_idle,
            db,
        })
    }

    /// The registry as OpenMetrics text, pool gauges read now.
    pub fn render(&self) -> String {
        for (pool, open, idle) in self.db.pool_stats() {
            let labels = PoolLabels { pool: pool.into() };
            self.pool_open.get_or_create(&labels).set(i64::from(open));
            self.pool_idle
                .get_or_create(&labels)
                .set(i64::try_from(idle).unwrap_or(i64::MAX));
        }
        let mut out = String::new();
        if let Err(e) = encode(&mut out, &self.registry) {
            tracing::error!(error = %e, "encoding metrics failed");
        }
        out
    }
}

/// Middleware: counts and times every request under its route template (`/v1/x/{id}`,
/// never the raw path, so label sets stay bounded).
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().as_str().to_string();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let res = next.run(req).await;
    let elapsed = started.elapsed().as_secs_f64();
    metrics
        .latency
        .get_or_create(&RouteLabels {
            method: method.clone(),
            route: route.clone(),
        })
        .observe(elapsed);
    metrics
        .requests
        .get_or_create(&RequestLabels {
            method,
            route,
            status: res.status().as_u16().to_string(),
        })
        .inc();
    if let Some(ErrorCode(code)) = res.extensions().get::<ErrorCode>() {
        metrics
            .errors
            .get_or_create(&ErrorLabels {
                code: (*code).to_string(),
            })
            .inc();
    }
    res
}

/// `GET /metrics`.
pub async fn serve(State(metrics): State<Arc<Metrics>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        metrics.render(),
    )
        .into_response()
}
