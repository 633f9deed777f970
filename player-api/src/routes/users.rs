//! The player's own account: `DELETE /v1/users/me`.

use axum::extract::State;
use serde::Deserialize;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiJson;
use shared::services::account::{self, Deleted};
use shared::services::regions::{self, RegionChange};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::{AccountHolder, CurrentPlayer};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(delete_me))
        .routes(routes!(change_region))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegionRequest {
    /// An enabled region code of `GET /v1/app/regions`.
    pub region_code: String,
}

/// Select the player's region
///
/// Selects the player's region: the first selection is free, then one change per Beijing
/// calendar month.
#[utoipa::path(patch, path = "/users/me/region", operation_id = "changeMyRegion", tag = "users",
    request_body(content = RegionRequest, example = json!({"regionCode": "110000"})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The selected region", body = Envelope<RegionChange>),
        (status = 400, description = "Unknown or disabled region, or REGION_CHANGE_LIMIT_REACHED", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn change_region(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<RegionRequest>,
) -> ApiResult<RegionChange> {
    Ok(ok(regions::change_region(
        &state.ctx,
        &player,
        &body.region_code,
    )
    .await?))
}

/// Delete the player's account
///
/// Deletes the account: personal data and identities go, every token dies at once,
/// ledger and answer records stay only anonymised. Open to banned players; repeating it
/// is harmless.
#[utoipa::path(delete, path = "/users/me", operation_id = "deleteMyAccount", tag = "users", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Deleted>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
    ))]
pub async fn delete_me(
    State(state): State<AppState>,
    AccountHolder(player_id): AccountHolder,
) -> ApiResult<Deleted> {
    Ok(ok(account::delete_account(&state.ctx, &player_id).await?))
}
