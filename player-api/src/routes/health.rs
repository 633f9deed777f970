//! `GET /health` at the host root.

use axum::extract::State;
use axum::response::Response;
use shared::envelope::Envelope;
use shared::http::Health;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(health))
}

/// Liveness of this process.
#[utoipa::path(get, path = "/health", tag = "health",
    responses((status = 200, description = "The process serves requests", body = Envelope<Health>)))]
pub async fn health(State(state): State<AppState>) -> Response {
    shared::http::health(state.ctx.clock.now())
}
