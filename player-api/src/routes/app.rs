//! App-level data: `GET /v1/app/regions`.

use axum::extract::State;
use shared::envelope::{ApiResponse, ApiResult, Envelope, ErrorEnvelope, ok};
use shared::services::bootstrap::{self, Bootstrap};
use shared::services::regions::RegionList;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::CurrentPlayer;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(regions))
        .routes(routes!(app_bootstrap))
}

/// Get the start-up aggregate
///
/// Everything the app shows at start, in one answer.
#[utoipa::path(get, path = "/app/bootstrap", operation_id = "getBootstrap", tag = "app", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The bootstrap aggregate", body = Envelope<Bootstrap>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn app_bootstrap(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
) -> ApiResult<Bootstrap> {
    Ok(ok(bootstrap::bootstrap(&state.ctx, &player).await?))
}

/// List the regions
///
/// The region list clients sync at each start.
#[utoipa::path(get, path = "/app/regions", operation_id = "listRegions", tag = "app",
    responses((status = 200, description = "The region list wrapper", body = Envelope<RegionList>)))]
pub async fn regions(State(state): State<AppState>) -> ApiResponse<RegionList> {
    ok(state.ctx.regions.list().clone())
}
