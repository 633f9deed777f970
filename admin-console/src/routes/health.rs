//! `GET /health` (liveness) and `GET /ready` (readiness) at the host root, for load
//! balancers.

use axum::extract::State;
use axum::response::Response;
use shared::envelope::{Envelope, ErrorEnvelope};
use shared::http::Health;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(health))
        .routes(routes!(ready))
}

/// Liveness probe
///
/// Liveness of this process; never touches the database.
#[utoipa::path(get, path = "/health", operation_id = "adminGetHealth", tag = "health",
    responses((status = 200, description = "The process serves requests", body = Envelope<Health>)))]
pub async fn health(State(state): State<AppState>) -> Response {
    shared::http::health(state.ctx.clock.now())
}

/// Readiness probe
///
/// Readiness of this process: its database answers a `SELECT 1` within 2 s (one check a
/// second serves every caller).
#[utoipa::path(get, path = "/ready", operation_id = "adminGetReadiness", tag = "health",
    responses(
        (status = 200, description = "The process serves requests and its database answers", body = Envelope<Health>),
        (status = 503, description = "The database cannot be reached (SERVICE_UNAVAILABLE); send no traffic, ask again after Retry-After seconds",
            body = ErrorEnvelope, headers(("Retry-After" = u64, description = "Seconds to wait before asking again"))),
    ))]
pub async fn ready(State(state): State<AppState>) -> Response {
    state
        .ctx
        .readiness
        .answer(&state.ctx.db, state.ctx.clock.now())
        .await
}
