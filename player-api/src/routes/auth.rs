//! Sign-in and tokens: `/v1/auth/*`. The sign-in routes are rate-limited per client
//! address (one bucket per route; aliases share their route's bucket).

use std::sync::Arc;

use axum::extract::State;
use serde::Deserialize;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::{ApiJson, ApiQuery};
use shared::services::account::{self, LoggedOut};
use shared::services::phone_auth;
use shared::services::player_auth::{self, CurrentUser, Session, TokenPair};
use shared::services::providers::{self, ProviderList};
use shared::services::vendor_auth::{self, LinkRequest, LinkResult};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use shared::client_addr::ClientAddress;

use crate::extract::{CurrentPlayer, LinkingPlayer};
use crate::rate_limit::{self, Limiters, RouteLimiter};

pub fn router(limiters: &Limiters) -> OpenApiRouter<AppState> {
    fn limited(
        router: OpenApiRouter<AppState>,
        limiter: &Arc<RouteLimiter>,
    ) -> OpenApiRouter<AppState> {
        router.route_layer(axum::middleware::from_fn_with_state(
            Arc::clone(limiter),
            rate_limit::limit,
        ))
    }
    OpenApiRouter::new()
        .merge(limited(
            OpenApiRouter::new().routes(routes!(guest)),
            &limiters.guest,
        ))
        .merge(limited(
            OpenApiRouter::new().routes(routes!(refresh)),
            &limiters.refresh,
        ))
        .merge(limited(
            OpenApiRouter::new()
                .routes(routes!(android_vendor))
                .routes(routes!(huawei)),
            &limiters.huawei,
        ))
        .merge(limited(
            OpenApiRouter::new()
                .routes(routes!(ios_vendor))
                .routes(routes!(apple)),
            &limiters.apple,
        ))
        .merge(limited(
            OpenApiRouter::new().routes(routes!(send_code)),
            &limiters.send_code,
        ))
        .merge(limited(
            OpenApiRouter::new().routes(routes!(phone)),
            &limiters.phone,
        ))
        .merge(limited(
            OpenApiRouter::new().routes(routes!(link)),
            &limiters.link,
        ))
        .routes(routes!(provider_list))
        .routes(routes!(me))
        .routes(routes!(logout))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GuestRequest {
    /// A stable id of the device, 1-128 characters.
    pub device_id: String,
}

/// Sign in as a device's guest
///
/// Signs in as the guest of a device (the same device gets the same guest).
#[utoipa::path(post, path = "/auth/guest", operation_id = "signInAsGuest", tag = "auth",
    request_body(content = GuestRequest, example = json!({"deviceId": "5d0c9a3e-7b1f-4c2e-9a61-2f4e8b7c1d90"})),
    responses(
        (status = 200, description = "A session", body = Envelope<Session>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 429, description = "Rate limited", body = ErrorEnvelope),
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

/// Refresh the token pair
///
/// Exchanges a refresh token (once) for a new token pair.
#[utoipa::path(post, path = "/auth/refresh", operation_id = "refreshTokens", tag = "auth",
    request_body(content = RefreshRequest, example = json!({"refreshToken": "rt_6f1e0c2a9b8d4e7f"})),
    responses(
        (status = 200, description = "New tokens", body = Envelope<TokenPair>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Invalid, used or revoked refresh token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 429, description = "Rate limited", body = ErrorEnvelope),
    ))]
pub async fn refresh(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<RefreshRequest>,
) -> ApiResult<TokenPair> {
    Ok(ok(
        player_auth::refresh(&state.ctx, &body.refresh_token).await?
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VendorCodeRequest {
    /// The HUAWEI ID authorization code.
    pub authorization_code: String,
}

/// Sign in with HUAWEI ID
///
/// Signs in with HUAWEI ID (authorization code exchange, id_token verified).
#[utoipa::path(post, path = "/auth/android_vendor", operation_id = "signInWithHuaweiId", tag = "auth",
    request_body(content = VendorCodeRequest, example = json!({"authorizationCode": "DQB6e3x8Qk1hY2hpbmVDb2Rl"})),
    responses(
        (status = 200, description = "A session", body = Envelope<Session>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Code refused or id_token invalid", body = ErrorEnvelope),
        (status = 403, description = "Provider disabled, or banned", body = ErrorEnvelope),
        (status = 429, description = "Rate limited", body = ErrorEnvelope),
        (status = 503, description = "Not configured or unreachable", body = ErrorEnvelope),
    ))]
pub async fn android_vendor(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<VendorCodeRequest>,
) -> ApiResult<Session> {
    Ok(ok(vendor_auth::huawei_sign_in(
        &state.ctx,
        &body.authorization_code,
    )
    .await?))
}

/// Sign in with HUAWEI ID (alias)
///
/// Alias of `/auth/android_vendor`.
#[utoipa::path(post, path = "/auth/huawei", operation_id = "signInWithHuaweiIdAlias", tag = "auth",
    request_body(content = VendorCodeRequest, example = json!({"authorizationCode": "DQB6e3x8Qk1hY2hpbmVDb2Rl"})),
    responses(
        (status = 200, description = "A session", body = Envelope<Session>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Code refused or id_token invalid", body = ErrorEnvelope),
        (status = 403, description = "Provider disabled, or banned", body = ErrorEnvelope),
        (status = 429, description = "Rate limited", body = ErrorEnvelope),
        (status = 503, description = "Not configured or unreachable", body = ErrorEnvelope),
    ))]
pub async fn huawei(
    state: State<AppState>,
    body: ApiJson<VendorCodeRequest>,
) -> ApiResult<Session> {
    android_vendor(state, body).await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppleSignInRequest {
    /// The identity token from Sign in with Apple.
    pub identity_token: String,
    pub authorization_code: Option<String>,
}

/// Sign in with Apple
///
/// Signs in with Apple (identity token verified against Apple's keys).
#[utoipa::path(post, path = "/auth/ios_vendor", operation_id = "signInWithApple", tag = "auth",
    request_body(content = AppleSignInRequest, example = json!({"identityToken": "eyJraWQiOiJXNldjT0tCIiwiYWxnIjoiUlMyNTYifQ.eyJzdWIiOiIwMDEifQ.c2ln", "authorizationCode": "c7f1e2d3a4b5"})),
    responses(
        (status = 200, description = "A session", body = Envelope<Session>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Identity token invalid", body = ErrorEnvelope),
        (status = 403, description = "Provider disabled, or banned", body = ErrorEnvelope),
        (status = 429, description = "Rate limited", body = ErrorEnvelope),
        (status = 503, description = "Not configured or unreachable", body = ErrorEnvelope),
    ))]
pub async fn ios_vendor(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<AppleSignInRequest>,
) -> ApiResult<Session> {
    Ok(ok(vendor_auth::apple_sign_in(
        &state.ctx,
        &body.identity_token,
    )
    .await?))
}

/// Sign in with Apple (alias)
///
/// Alias of `/auth/ios_vendor`.
#[utoipa::path(post, path = "/auth/apple", operation_id = "signInWithAppleAlias", tag = "auth",
    request_body(content = AppleSignInRequest, example = json!({"identityToken": "eyJraWQiOiJXNldjT0tCIiwiYWxnIjoiUlMyNTYifQ.eyJzdWIiOiIwMDEifQ.c2ln", "authorizationCode": "c7f1e2d3a4b5"})),
    responses(
        (status = 200, description = "A session", body = Envelope<Session>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Identity token invalid", body = ErrorEnvelope),
        (status = 403, description = "Provider disabled, or banned", body = ErrorEnvelope),
        (status = 429, description = "Rate limited", body = ErrorEnvelope),
        (status = 503, description = "Not configured or unreachable", body = ErrorEnvelope),
    ))]
pub async fn apple(
    state: State<AppState>,
    body: ApiJson<AppleSignInRequest>,
) -> ApiResult<Session> {
    ios_vendor(state, body).await
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendCodeRequest {
    /// 11-digit mainland mobile number.
    pub phone_number: String,
}

/// Send an SMS verification code
///
/// Sends a verification code by SMS (resend window 60 s; daily limits per number and
/// per address).
#[utoipa::path(post, path = "/auth/phone/send-code", operation_id = "sendPhoneCode", tag = "auth",
    request_body(content = SendCodeRequest, example = json!({"phoneNumber": "13800138000"})),
    responses(
        (status = 200, description = "Sent (data null)", body = Envelope<Object>),
        (status = 400, description = "Bad number, or refused by the verification service", body = ErrorEnvelope),
        (status = 403, description = "Phone sign-in disabled", body = ErrorEnvelope),
        (status = 429, description = "Resend too soon, daily limit, or rate limited", body = ErrorEnvelope),
        (status = 503, description = "SMS not configured (SERVICE_UNAVAILABLE) or failing (SMS_PROVIDER_ERROR)", body = ErrorEnvelope),
    ))]
pub async fn send_code(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    ApiJson(body): ApiJson<SendCodeRequest>,
) -> ApiResult<()> {
    phone_auth::send_code(&state.ctx, &body.phone_number, client).await?;
    Ok(ok(()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhoneSignInRequest {
    pub phone_number: String,
    /// 4-8 digits.
    pub verify_code: String,
}

/// Sign in with a phone number and code
///
/// Signs in with a phone number and the code sent to it; the first correct code creates
/// the player.
#[utoipa::path(post, path = "/auth/phone", operation_id = "signInWithPhone", tag = "auth",
    request_body(content = PhoneSignInRequest, example = json!({"phoneNumber": "13800138000", "verifyCode": "123456"})),
    responses(
        (status = 200, description = "A session", body = Envelope<Session>),
        (status = 400, description = "Bad number or code format", body = ErrorEnvelope),
        (status = 401, description = "Wrong or expired code (INVALID_VERIFY_CODE)", body = ErrorEnvelope),
        (status = 403, description = "Phone sign-in disabled, or banned", body = ErrorEnvelope),
        (status = 429, description = "Rate limited", body = ErrorEnvelope),
        (status = 503, description = "SMS not configured or failing", body = ErrorEnvelope),
    ))]
pub async fn phone(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<PhoneSignInRequest>,
) -> ApiResult<Session> {
    Ok(ok(phone_auth::sign_in(
        &state.ctx,
        &body.phone_number,
        &body.verify_code,
    )
    .await?))
}

/// Link the guest to an Apple identity
///
/// Links the calling guest to a Sign in with Apple identity: upgrades it in place, or
/// merges its records into the account that identity already has.
#[utoipa::path(post, path = "/auth/link", operation_id = "linkGuestToApple", tag = "auth",
    request_body(content = LinkRequest, example = json!({"provider": "ios_vendor", "credential": {"identityToken": "eyJraWQiOiJXNldjT0tCIiwiYWxnIjoiUlMyNTYifQ.eyJzdWIiOiIwMDEifQ.c2ln"}, "mergePolicy": "server_account_first", "clientMigrationId": "mig-5d0c9a3e"})), security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The account's session and what was merged", body = Envelope<LinkResult>),
        (status = 400, description = "Bad input or invalid identity token", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Not a guest, provider disabled, or banned", body = ErrorEnvelope),
        (status = 409, description = "This guest is already linked", body = ErrorEnvelope),
        (status = 429, description = "Rate limited", body = ErrorEnvelope),
        (status = 503, description = "Apple not configured or unreachable", body = ErrorEnvelope),
    ))]
pub async fn link(
    State(state): State<AppState>,
    LinkingPlayer(player): LinkingPlayer,
    ApiJson(body): ApiJson<LinkRequest>,
) -> ApiResult<LinkResult> {
    Ok(ok(vendor_auth::link(&state.ctx, &player, &body).await?))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProvidersQuery {
    /// ios, android or harmony.
    pub platform: String,
}

/// List a platform's sign-in providers
///
/// The sign-in providers offered on a platform; `enabled` reflects the stored flag and
/// this server's configuration at the moment of the call.
#[utoipa::path(get, path = "/auth/providers", operation_id = "listSignInProviders", tag = "auth", params(ProvidersQuery),
    responses(
        (status = 200, description = "Providers", body = Envelope<ProviderList>),
        (status = 400, description = "Missing or unknown platform", body = ErrorEnvelope),
    ))]
pub async fn provider_list(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ProvidersQuery>,
) -> ApiResult<ProviderList> {
    Ok(ok(providers::list_for_platform(
        &state.ctx,
        &query.platform,
    )
    .await?))
}

/// Get the signed-in player
///
/// The signed-in player.
#[utoipa::path(get, path = "/auth/me", operation_id = "getMyProfile", tag = "auth", security(("player_jwt" = [])),
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

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogoutRequest {
    pub refresh_token: String,
}

/// Sign out (revoke a refresh token)
///
/// Revokes the presented refresh token.
#[utoipa::path(post, path = "/auth/logout", operation_id = "signOut", tag = "auth",
    request_body(content = LogoutRequest, example = json!({"refreshToken": "rt_6f1e0c2a9b8d4e7f"})), security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Logged out", body = Envelope<LoggedOut>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn logout(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<LogoutRequest>,
) -> ApiResult<LoggedOut> {
    Ok(ok(account::logout(
        &state.ctx,
        &player.id,
        &body.refresh_token,
    )
    .await?))
}
