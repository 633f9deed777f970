//! `admin-console`: the `/v1/admin` JSON API for scripts (and, from the console issue on,
//! the HTML console under `/console` on top of the same services), plus `GET /health`.
//!
//! # Layout
//! - [`routes`]: one module per admin feature, each a `router()` of thin handlers.
//! - [`extract`]: the `AdminUser`, `SuperAdmin` and `MfaSetupAdmin` extractors (the
//!   `ADMIN_REQUIRE_MFA` gate) and the client address the sign-in throttle counts.
//! - [`openapi`]: the OpenAPI 3.1 document at `/v1/admin/openapi.json` (browsable at
//!   `/docs`).
//! - [`console`]: the HTML console under `/console` (its modules are listed there; every
//!   URL in `console::urls`, the embedded assets in `console::assets`).
//!
//! [`app`] builds the public router so tests can serve it on port 0 (the metrics
//! registry it counts into is made by the caller and served by
//! `shared::http::metrics_router` on a listener of its own); [`run`] is `main`.

pub mod console;
pub mod extract;
pub mod openapi;
pub mod routes;

use std::sync::Arc;

use axum::Router;
use shared::config::Settings;
use shared::context::AppContext;
use shared::metrics::Metrics;
use shared::services::{admin_auth, admin_mfa, demo_history};

#[derive(Clone)]
pub struct AppState {
    pub ctx: Arc<AppContext>,
}

impl shared::client_addr::ClientAddressSource for AppState {
    fn client_address_rule(&self) -> shared::client_addr::ClientAddressRule {
        self.ctx.settings.client_address
    }
}

/// The whole public admin router with its middleware, counting its requests into
/// `metrics` (which it does not serve: see `shared::http::metrics_router`).
pub fn app(state: AppState, metrics: Arc<Metrics>) -> Router {
    let (router, mut api) = routes::router().split_for_parts();
    let (probe, probe_api) = routes::health::router().split_for_parts();
    api.merge(probe_api);
    shared::envelope::document_outages(&mut api);
    shared::http::document_body_errors(&mut api);
    let router = router
        .merge(openapi::serve(api))
        .merge(shared::api_docs::router(
            "Quiz Game — Admin API",
            "/v1/admin/openapi.json",
        ))
        .merge(console::router(&state))
        .with_state(state.clone());
    shared::http::with_common_layers(router, probe.with_state(state), metrics)
}

/// Seals TOTP secrets stored before `SECRETS_KEY` (refusing to start when the key does
/// not open the sealed ones), then creates the bootstrap super_admin if no admin exists
/// yet; a generated password is printed once on standard error (never through the
/// structured log).
pub async fn bootstrap_admin(ctx: &AppContext) -> anyhow::Result<()> {
    admin_mfa::seal_stored_secrets(ctx).await?;
    if let Some(password) = admin_auth::bootstrap(ctx).await? {
        eprintln!(
            "admin-console: created super_admin '{}' with the generated password: {password}\n\
             admin-console: it is shown only this once; sign in and change it.",
            ctx.settings.admin_bootstrap_username
        );
    }
    Ok(())
}

/// `DEMO_HISTORY`: plays the demo's 14 days in the background while the console serves
/// (the jobs fold it in as it lands); once per database.
async fn play_demo_history(settings: Settings, now: chrono::DateTime<chrono::Utc>) {
    let size = demo_history::HistorySize::DEMO;
    tracing::info!("demo history: playing the last {} days", size.days);
    match demo_history::play_once(&settings, now, size).await {
        Ok(Some(played)) => tracing::info!(
            players = played.players,
            challenges = played.challenges,
            answers = played.answers,
            days = played.days,
            "demo history: played"
        ),
        Ok(None) => tracing::info!("demo history: already played (or playing elsewhere)"),
        Err(e) => tracing::warn!(error = %e, "demo history: stopped"),
    }
}

/// `admin-console backup PATH`: a consistent copy of the SQLite database of
/// `DATABASE_URL`, taken while the game runs, written to `PATH` (which must not exist).
pub async fn backup(settings: Settings, target: &std::path::Path) -> anyhow::Result<()> {
    shared::services::backup::back_up_database(&settings, target).await?;
    tracing::info!(path = %target.display(), "backup written");
    Ok(())
}

/// Starts the service with `settings` until SIGINT/SIGTERM.
pub async fn run(settings: Settings) -> anyhow::Result<()> {
    let clock = AppContext::clock_for(&settings);
    let addr = settings.admin_console_addr;
    let metrics_addr = settings
        .metrics_addr
        .unwrap_or(shared::config::ADMIN_METRICS_ADDR);
    let ctx = AppContext::start(settings, clock).await?;
    bootstrap_admin(&ctx).await?;
    let listener = shared::http::bind("ADMIN_CONSOLE_ADDR", addr).await?;
    let metrics_listener = shared::http::bind("METRICS_ADDR", metrics_addr).await?;
    tracing::info!(
        engine = ctx.db.engine(),
        "admin-console listening on http://{addr}, metrics on http://{}/metrics",
        metrics_listener.local_addr()?
    );
    let connections = ctx.settings.connections;
    let db = ctx.db.clone();
    let limited = Arc::clone(&ctx);
    tokio::spawn(async move {
        let mut every_minute = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every_minute.tick().await;
            limited.sign_in_attempts.retain_recent();
        }
    });
    if ctx.settings.demo_history {
        tokio::spawn(play_demo_history(ctx.settings.clone(), ctx.clock.now()));
    }
    let metrics = Metrics::new(db.clone());
    let jobs = shared::services::jobs::spawn(Arc::clone(&ctx), metrics.jobs());
    shared::services::startup::serve_until_signal(
        listener,
        app(AppState { ctx }, Arc::clone(&metrics)),
        metrics_listener,
        Arc::clone(&metrics),
        jobs,
        db,
        connections,
    )
    .await?;
    tracing::info!("admin-console stopped");
    Ok(())
}
