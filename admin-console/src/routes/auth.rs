//! Admin sign-in: `/v1/admin/login`, `/v1/admin/refresh`, `/v1/admin/auth`.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiJson;
use shared::services::admin_auth::{self, AdminLogin, Channel, Origin, SignIn};
use shared::services::admin_mfa::SecondFactor;
use shared::services::player_auth::TokenPair;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use shared::client_addr::ClientIp;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(refresh))
        .routes(routes!(static_token))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginRequest {
    pub username: String,
    /// At least 8 characters.
    pub password: String,
    /// The current 6-digit code of the admin's authenticator app; needed when the admin
    /// has MFA on (each code works once).
    #[serde(default)]
    pub totp_code: Option<String>,
    /// Instead of `totpCode`: one of the admin's one-time recovery codes.
    #[serde(default)]
    pub recovery_code: Option<String>,
}

/// Sign an admin in
///
/// Signs an admin in with username and password (and, with MFA on, a TOTP or recovery
/// code). Failed sign-ins are throttled: 5 per username per minute, 10 per client
/// address per 10 minutes. Each sign-in the throttle lets through is audited
/// (`admin.login`, `admin.login_failed`) with the client's address. With MFA on, 10
/// wrong codes within an hour lock the account's codes for an hour (429) or until a
/// super_admin resets its MFA.
#[utoipa::path(post, path = "/login", operation_id = "adminSignIn", tag = "auth",
    request_body(content = LoginRequest, example = json!({"username": "admin", "password": "Str0ng-pass!"})),
    responses(
        (status = 200, description = "Tokens and the admin", body = Envelope<AdminLogin>),
        (status = 400, description = "Bad input (password under 8 characters)", body = ErrorEnvelope),
        (status = 401, description = "Wrong credentials or MFA code (UNAUTHORIZED), or the password was right and the account needs a TOTP or recovery code (MFA_REQUIRED)", body = ErrorEnvelope),
        (status = 429, description = "Too many failed sign-ins for this username or address, or the account's MFA codes are locked after too many wrong ones (RATE_LIMITED, with Retry-After)", body = ErrorEnvelope,
            headers(("Retry-After" = u64, description = "Seconds until a sign-in may be tried again"))),
        (status = 503, description = "Too many sign-ins being checked at once (SERVICE_UNAVAILABLE, with Retry-After)", body = ErrorEnvelope,
            headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    ))]
pub async fn login(
    State(state): State<AppState>,
    ClientIp(address): ClientIp,
    ApiJson(body): ApiJson<LoginRequest>,
) -> ApiResult<AdminLogin> {
    let sign_in = SignIn {
        username: body.username,
        password: body.password,
        second_factor: SecondFactor {
            totp_code: body.totp_code,
            recovery_code: body.recovery_code,
        },
    };
    let origin = Origin {
        channel: Channel::Api,
        address,
    };
    Ok(ok(admin_auth::login(&state.ctx, &sign_in, origin).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshRequest {
    pub refresh_token: String,
}

/// Refresh the admin token pair
///
/// Exchanges an admin refresh token (once) for a new pair.
#[utoipa::path(post, path = "/refresh", operation_id = "adminRefreshTokens", tag = "auth",
    request_body(content = RefreshRequest, example = json!({"refreshToken": "rt_6f1e0c2a9b8d4e7f"})),
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

/// Check the static admin token
///
/// Compatibility check of the static admin token (it opens no other route).
#[utoipa::path(post, path = "/auth", operation_id = "adminCheckStaticToken", tag = "auth",
    request_body(content = StaticTokenRequest, example = json!({"token": "static-admin-token"})),
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
