//! `player-api`: the mobile player endpoints under `/v1`, plus `GET /health`.
//!
//! # Layout
//! - [`routes`]: one module per feature, each a `router()` of thin handlers
//!   (extract → call a `shared::services` function → respond).
//! - [`extract`]: the `CurrentPlayer`, `TokenSubject`, `GuestPlayer`, `LinkingPlayer` and
//!   `AccountHolder`
//!   extractors.
//! - [`rate_limit`]: per-route, per-address request limits of the sign-in routes.
//! - [`openapi`]: the OpenAPI 3.1 document, generated from the handlers' annotations and
//!   served at `/v1/openapi.json` (and browsable at `/docs`).
//!
//! [`app`] builds the public router so tests can serve it on port 0 (the metrics
//! registry it counts into is made by the caller and served by
//! `shared::http::metrics_router` on a listener of its own); [`run`] is `main`.

pub mod extract;
pub mod openapi;
pub mod rate_limit;
pub mod routes;

use std::sync::Arc;

use axum::Router;
use shared::config::Settings;
use shared::context::AppContext;
use shared::metrics::Metrics;

/// State of every handler.
#[derive(Clone)]
pub struct AppState {
    /// Configuration, database, clock, tokens, provider clients.
    pub ctx: Arc<AppContext>,
    /// Request rate limits of this process.
    pub limiters: Arc<rate_limit::Limiters>,
}

impl shared::client_addr::ClientAddressSource for AppState {
    fn client_address_rule(&self) -> shared::client_addr::ClientAddressRule {
        self.ctx.settings.client_address
    }
}

impl AppState {
    pub fn new(ctx: Arc<AppContext>) -> Self {
        let limiters = Arc::new(rate_limit::Limiters::new(&ctx.settings));
        Self { ctx, limiters }
    }
}

/// The whole public player router with its middleware, counting its requests into
/// `metrics` (which it does not serve: see `shared::http::metrics_router`).
pub fn app(state: AppState, metrics: Arc<Metrics>) -> Router {
    let (router, mut api) = routes::router(&state).split_for_parts();
    let (probe, probe_api) = routes::health::router().split_for_parts();
    api.merge(probe_api);
    shared::envelope::document_outages(&mut api);
    shared::http::document_body_errors(&mut api);
    let router = router
        .merge(openapi::serve(api))
        .merge(shared::api_docs::router(
            "Quiz Game — Player API",
            "/v1/openapi.json",
        ))
        .with_state(state.clone());
    shared::http::with_common_layers(router, probe.with_state(state), metrics)
}

/// Starts the service with `settings` until SIGINT/SIGTERM.
pub async fn run(settings: Settings) -> anyhow::Result<()> {
    let clock = AppContext::clock_for(&settings);
    let addr = settings.player_api_addr;
    let metrics_addr = settings
        .metrics_addr
        .unwrap_or(shared::config::PLAYER_METRICS_ADDR);
    let ctx = AppContext::start(settings, clock).await?;
    let listener = shared::http::bind("PLAYER_API_ADDR", addr).await?;
    let metrics_listener = shared::http::bind("METRICS_ADDR", metrics_addr).await?;
    tracing::info!(
        engine = ctx.db.engine(),
        "player-api listening on http://{addr}, metrics on http://{}/metrics",
        metrics_listener.local_addr()?
    );
    let connections = ctx.settings.connections;
    let db = ctx.db.clone();
    let answers_judged = ctx.answer_cache.judged.clone();
    let job_ctx = Arc::clone(&ctx);
    let state = AppState::new(ctx);
    let limiters = Arc::clone(&state.limiters);
    tokio::spawn(async move {
        let mut every_minute = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every_minute.tick().await;
            limiters.retain_recent();
        }
    });
    let metrics = Metrics::with_answers(db.clone(), answers_judged);
    let jobs = shared::services::jobs::spawn(job_ctx, metrics.jobs());
    shared::services::startup::serve_until_signal(
        listener,
        app(state, Arc::clone(&metrics)),
        metrics_listener,
        Arc::clone(&metrics),
        jobs,
        db,
        connections,
    )
    .await?;
    tracing::info!("player-api stopped");
    Ok(())
}
