//! Sign-in and tokens: `/v1/auth/*`.

use axum::extract::State;
use serde::Deserialize;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiJson;
use shared::services::player_auth::{self, CurrentUser, Session, TokenPair};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::CurrentPlayer;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(guest))
        .routes(routes!(refresh))
        .routes(routes!(me))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GuestRequest {
    /// A stable id of the device, 1-128 characters.
    pub device_id: String,
}

/// Signs in as the guest of a device (the same device gets the same guest).
#[utoipa::path(post, path = "/auth/guest", tag = "auth", request_body = GuestRequest,
    responses(
        (status = 200, description = "A session", body = Envelope<Session>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn guest(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<GuestRequest>,
) -> ApiResult<Session> {
    Ok(ok(
        player_auth::guest_sign_in(&state.ctx, &body.device_id).await?
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshRequest {
    pub refresh_token: String,
}

/// Exchanges a refresh token (once) for a new token pair.
#[utoipa::path(post, path = "/auth/refresh", tag = "auth", request_body = RefreshRequest,
    responses(
        (status = 200, description = "New tokens", body = Envelope<TokenPair>),
        (status = 401, description = "Invalid, used or revoked refresh token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn refresh(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<RefreshRequest>,
) -> ApiResult<TokenPair> {
    Ok(ok(
        player_auth::refresh(&state.ctx, &body.refresh_token).await?
    ))
}

/// The signed-in player.
#[utoipa::path(get, path = "/auth/me", tag = "auth", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Current user", body = Envelope<CurrentUser>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn me(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
) -> ApiResult<CurrentUser> {
    Ok(ok(player_auth::current_user(&state.ctx, &player).await?))
}
