//! App-level data: `GET /v1/app/regions`.

use axum::extract::State;
use shared::envelope::{ApiResponse, Envelope, ok};
use shared::services::regions::RegionList;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(regions))
}

/// The region list clients sync at each start.
#[utoipa::path(get, path = "/app/regions", tag = "app",
    responses((status = 200, description = "The region list wrapper", body = Envelope<RegionList>)))]
pub async fn regions(State(state): State<AppState>) -> ApiResponse<RegionList> {
    ok(state.ctx.regions.list().clone())
}
