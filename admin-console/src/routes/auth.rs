//! Admin sign-in: `/v1/admin/login`, `/v1/admin/refresh`, `/v1/admin/auth`.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiJson;
use shared::services::admin_auth::{self, AdminLogin};
use shared::services::player_auth::TokenPair;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(refresh))
        .routes(routes!(static_token))
}

#[derive(Deserialize, ToSchema)]
pub struct LoginRequest {
    pub username: String,
    /// At least 8 characters.
    pub password: String,
}

/// Signs an admin in with username and password.
#[utoipa::path(post, path = "/login", tag = "auth", request_body = LoginRequest,
    responses(
        (status = 200, description = "Tokens and the admin", body = Envelope<AdminLogin>),
        (status = 400, description = "Bad input (password under 8 characters)", body = ErrorEnvelope),
        (status = 401, description = "Wrong credentials", body = ErrorEnvelope),
    ))]
pub async fn login(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<LoginRequest>,
) -> ApiResult<AdminLogin> {
    Ok(ok(admin_auth::login(
        &state.ctx,
        &body.username,
        &body.password,
    )
    .await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshRequest {
    pub refresh_token: String,
}

/// Exchanges an admin refresh token (once) for a new pair.
#[utoipa::path(post, path = "/refresh", tag = "auth", request_body = RefreshRequest,
    responses(
        (status = 200, description = "New tokens", body = Envelope<TokenPair>),
        (status = 401, description = "Invalid, used or revoked refresh token", body = ErrorEnvelope),
    ))]
pub async fn refresh(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<RefreshRequest>,
) -> ApiResult<TokenPair> {
    Ok(ok(
        admin_auth::refresh(&state.ctx, &body.refresh_token).await?
    ))
}

#[derive(Deserialize, ToSchema)]
pub struct StaticTokenRequest {
    pub token: String,
}

#[derive(Serialize, ToSchema)]
pub struct Authenticated {
    /// Always true.
    pub authenticated: bool,
}

/// Compatibility check of the static admin token (it opens no other route).
#[utoipa::path(post, path = "/auth", tag = "auth", request_body = StaticTokenRequest,
    responses(
        (status = 200, description = "The token matches", body = Envelope<Authenticated>),
        (status = 401, description = "Wrong token, or none configured", body = ErrorEnvelope),
    ))]
pub async fn static_token(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<StaticTokenRequest>,
) -> ApiResult<Authenticated> {
    admin_auth::check_static_token(&state.ctx, &body.token)?;
    Ok(ok(Authenticated {
        authenticated: true,
    }))
}
