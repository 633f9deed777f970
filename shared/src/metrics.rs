//! `GET /metrics`: Prometheus (OpenMetrics text) counters and latency histograms per
//! route, errors per envelope code, and connection-pool usage. Each app owns its own
//! registry (no global state), so tests can run many apps in one process. The registry
//! is made by the caller, handed to the public router (which counts into it) and served
//! by `http::metrics_router` on a listener of its own (`METRICS_ADDR`), never the public port.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, header};
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

// Every label value comes from a closed set, so no client can grow the series (each
// one is kept for the life of the process): methods are the standard ones or `OTHER`,
// routes the router's templates or `unmatched`, statuses the ones the server answers,
// codes the envelope's, pools the engine's.

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: &'static str,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct JobLabels {
    job: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TableLabels {
    table: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct JudgedLabels {
    on: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolLabels {
    pool: &'static str,
}

/// The `method` label: one of the nine methods of RFC 9110 (and PATCH), else `OTHER`.
/// The raw method was a label once, and requests with random methods grew the
/// registry without bound.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "OTHER",
    }
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
    jobs: JobMetrics,
    db: Db,
}

/// What the background jobs report: runs per job and outcome (`ran`, `failed`, or
/// `skipped` when another process holds the lease), rows purged per table, and rows the
/// question statistics have read per source.
#[derive(Clone, Debug, Default)]
pub struct JobMetrics {
    runs: Family<JobLabels, Counter>,
    purged: Family<TableLabels, Counter>,
    aggregated: Family<TableLabels, Counter>,
}

impl JobMetrics {
    pub fn run(&self, job: &'static str, outcome: &'static str) {
        self.runs.get_or_create(&JobLabels { job, outcome }).inc();
    }

    pub fn purged(&self, table: &'static str, rows: u64) {
        self.purged
            .get_or_create(&TableLabels { table })
            .inc_by(rows);
    }

    pub fn aggregated(&self, answers: u64, card_views: u64) {
        for (table, rows) in [
            ("challenge_answers", answers),
            ("reward_ledger", card_views),
        ] {
            self.aggregated
                .get_or_create(&TableLabels { table })
                .inc_by(rows);
        }
    }
}

/// How this process judged the answers it recorded: from what it remembers, or on a
/// read (the answer memory). A deployment with sticky balancing should see most
/// from memory; the load benchmark reports the share, so a run that stops exercising
/// the memory shows.
#[derive(Clone, Debug, Default)]
pub struct AnswerJudgements {
    judged: Family<JudgedLabels, Counter>,
}

impl AnswerJudgements {
    pub fn from_memory(&self) {
        self.judged
            .get_or_create(&JudgedLabels { on: "memory" })
            .inc();
    }

    pub fn on_read(&self) {
        self.judged
            .get_or_create(&JudgedLabels { on: "read" })
            .inc();
    }
}

impl Metrics {
    pub fn new(db: Db) -> Arc<Self> {
        Self::with_answers(db, AnswerJudgements::default())
    }

    /// With the answer counts of the process's `AnswerCache` (player-api).
    pub fn with_answers(db: Db, answers: AnswerJudgements) -> Arc<Self> {
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
        let jobs = JobMetrics::default();
        registry.register(
            "background_job_runs",
            "Background job runs by job and outcome (skipped: another process holds the lease)",
            jobs.runs.clone(),
        );
        registry.register(
            "retention_purged_rows",
            "Rows the retention job removed, by table",
            jobs.purged.clone(),
        );
        registry.register(
            "question_stats_read_rows",
            "Rows the question statistics job has counted, by source table",
            jobs.aggregated.clone(),
        );
        registry.register(
            "answers_judged",
            "Answers recorded, by what they were judged on: memory (no read) or read",
            answers.judged,
        );
        Arc::new(Self {
            registry,
            requests,
            latency,
            errors,
            pool_open,
            pool_idle,
            jobs,
            db,
        })
    }

    /// Where the background jobs of this process report.
    pub fn jobs(&self) -> JobMetrics {
        self.jobs.clone()
    }

    /// The registry as OpenMetrics text, pool gauges read now.
    pub fn render(&self) -> String {
        for (pool, open, idle) in self.db.pool_stats() {
            let labels = PoolLabels { pool };
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
/// never the raw path) and its method's label, so label sets stay bounded.
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(req.method());
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let res = next.run(req).await;
    let elapsed = started.elapsed().as_secs_f64();
    metrics
        .latency
        .get_or_create(&RouteLabels {
            method,
            route: route.clone(),
        })
        .observe(elapsed);
    metrics
        .requests
        .get_or_create(&RequestLabels {
            method,
            route,
            status: res.status().as_u16(),
        })
        .inc();
    if let Some(&ErrorCode(code)) = res.extensions().get::<ErrorCode>() {
        metrics.errors.get_or_create(&ErrorLabels { code }).inc();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_outside_the_standard_set_share_one_label() {
        for (method, label) in [
            ("GET", "GET"),
            ("HEAD", "HEAD"),
            ("POST", "POST"),
            ("PUT", "PUT"),
            ("PATCH", "PATCH"),
            ("DELETE", "DELETE"),
            ("OPTIONS", "OPTIONS"),
            ("CONNECT", "CONNECT"),
            ("TRACE", "TRACE"),
            ("get", "OTHER"),
            ("PROPFIND", "OTHER"),
            ("X-RANDOM-TOKEN-0123456789", "OTHER"),
        ] {
            let method = Method::from_bytes(method.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(method_label(&method), label);
        }
    }
}
