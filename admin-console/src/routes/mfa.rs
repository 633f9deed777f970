//! The signed-in admin's MFA: `/v1/admin/mfa`, `/mfa/setup`, `/mfa/enable`,
//! `/mfa/disable`. Status, set-up and enable stay open to a super_admin that
//! `ADMIN_REQUIRE_MFA` holds back from everything else.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiJson;
use shared::services::admin_mfa::{self, MfaCode, MfaEnabled, MfaEnrolment, MfaSetup, MfaStatus};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use shared::client_addr::ClientAddress;

use crate::extract::{AdminUser, MfaSetupAdmin};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(status))
        .routes(routes!(setup))
        .routes(routes!(enable))
        .routes(routes!(disable))
}

/// Get the signed-in admin's MFA state
///
/// Whether MFA is on for the signed-in admin, a set-up is waiting, and how many
/// recovery codes are left.
#[utoipa::path(get, path = "/mfa", operation_id = "adminGetMfaStatus", tag = "mfa", security(("admin_jwt" = [])),
    responses(
        (status = 200, description = "The admin's MFA state", body = Envelope<MfaStatus>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn status(
    State(state): State<AppState>,
    MfaSetupAdmin(admin): MfaSetupAdmin,
) -> ApiResult<MfaStatus> {
    Ok(ok(admin_mfa::status(&state.ctx, &admin).await?))
}

/// Start TOTP enrolment
///
/// Starts (or restarts) TOTP enrolment: a new secret, base32 and as an `otpauth://` URI,
/// waiting for its first code at `/mfa/enable`. Takes the admin's password typed again
/// (a session alone, which may be stolen, sets up nothing); a wrong one counts as a
/// failed sign-in, as at a password change. Audited.
#[utoipa::path(post, path = "/mfa/setup", operation_id = "adminStartMfaSetup", tag = "mfa", security(("admin_jwt" = [])),
    request_body(content = MfaSetup, example = json!({"currentPassword": "Current-pass-1"})),
    responses(
        (status = 200, description = "The pending secret", body = Envelope<MfaEnrolment>),
        (status = 400, description = "No current password", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token, or a wrong current password", body = ErrorEnvelope),
        (status = 409, description = "MFA is already on", body = ErrorEnvelope),
        (status = 429, description = "Too many failed sign-ins (RATE_LIMITED, with Retry-After)", body = ErrorEnvelope,
            headers(("Retry-After" = u64, description = "Seconds until a password may be tried again"))),
    ))]
pub async fn setup(
    State(state): State<AppState>,
    MfaSetupAdmin(admin): MfaSetupAdmin,
    ClientAddress(client): ClientAddress,
    ApiJson(body): ApiJson<MfaSetup>,
) -> ApiResult<MfaEnrolment> {
    Ok(ok(admin_mfa::setup(
        &state.ctx,
        &admin,
        &body.current_password,
        client,
    )
    .await?))
}

/// Turn MFA on
///
/// Turns MFA on with a current code of the pending secret and the admin's password
/// typed again; answers the ten one-time recovery codes, shown only this once. Every
/// other token and console session of the admin ends (they were signed in with the
/// password alone): the answer carries fresh tokens for the caller, whose old ones end
/// too. A wrong password counts as a failed sign-in. Audited.
#[utoipa::path(post, path = "/mfa/enable", operation_id = "adminEnableMfa", tag = "mfa", security(("admin_jwt" = [])),
    request_body(content = MfaCode, example = json!({"code": "123456", "currentPassword": "Current-pass-1"})),
    responses(
        (status = 200, description = "MFA is on; the recovery codes and fresh tokens", body = Envelope<MfaEnabled>),
        (status = 400, description = "No set-up waiting, no current password, or the code does not match", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token, or a wrong current password", body = ErrorEnvelope),
        (status = 409, description = "MFA is already on", body = ErrorEnvelope),
        (status = 429, description = "Too many failed sign-ins (RATE_LIMITED, with Retry-After)", body = ErrorEnvelope,
            headers(("Retry-After" = u64, description = "Seconds until a password may be tried again"))),
    ))]
pub async fn enable(
    State(state): State<AppState>,
    MfaSetupAdmin(admin): MfaSetupAdmin,
    ClientAddress(client): ClientAddress,
    ApiJson(body): ApiJson<MfaCode>,
) -> ApiResult<MfaEnabled> {
    Ok(ok(
        admin_mfa::enable(&state.ctx, &admin, &body, client).await?
    ))
}

/// Turn MFA off
///
/// Turns MFA off with a current TOTP code or a recovery code and the admin's password
/// typed again. Wrong passwords and codes count as failed sign-ins of the admin (the
/// same throttle); wrong codes toward the wrong-code lock too (10 within an hour lock
/// the codes for an hour, or until a super_admin's MFA reset). Audited.
#[utoipa::path(post, path = "/mfa/disable", operation_id = "adminDisableMfa", tag = "mfa", security(("admin_jwt" = [])),
    request_body(content = MfaCode, example = json!({"code": "123456", "currentPassword": "Current-pass-1"})),
    responses(
        (status = 200, description = "MFA is off", body = Envelope<MfaStatus>),
        (status = 400, description = "No current password, or the code is wrong or was already used", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token, or a wrong current password", body = ErrorEnvelope),
        (status = 403, description = "A super_admin without MFA while ADMIN_REQUIRE_MFA is on", body = ErrorEnvelope),
        (status = 409, description = "MFA is not on", body = ErrorEnvelope),
        (status = 429, description = "Too many wrong codes, or the account's codes are locked (RATE_LIMITED, with Retry-After)", body = ErrorEnvelope,
            headers(("Retry-After" = u64, description = "Seconds until a code may be tried again"))),
    ))]
pub async fn disable(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ClientAddress(client): ClientAddress,
    ApiJson(body): ApiJson<MfaCode>,
) -> ApiResult<MfaStatus> {
    Ok(ok(
        admin_mfa::disable(&state.ctx, &admin, &body, client).await?
    ))
}
