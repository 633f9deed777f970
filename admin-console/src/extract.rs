//! Who is calling: admin extractors answering 401/403 in the envelope, and the client
//! address the sign-in throttle counts.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use shared::Error;
use shared::http::bearer_token;
use shared::message::msg;
use shared::services::admin_auth::{self, AdminPrincipal, AdminRole};

use crate::AppState;

/// Any active admin with a valid admin access token. With `ADMIN_REQUIRE_MFA`, a
/// super_admin without MFA is refused (403) here: only [`MfaSetupAdmin`] routes let it in.
pub struct AdminUser(pub AdminPrincipal);

impl FromRequestParts<AppState> for AdminUser {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let MfaSetupAdmin(admin) = MfaSetupAdmin::from_request_parts(parts, state).await?;
        admin_auth::require_mfa_if_configured(&state.ctx, &admin)?;
        Ok(Self(admin))
    }
}

/// Any active admin with a valid admin access token, MFA or not: the MFA set-up routes,
/// which `ADMIN_REQUIRE_MFA` leaves open.
pub struct MfaSetupAdmin(pub AdminPrincipal);

impl FromRequestParts<AppState> for MfaSetupAdmin {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let token = bearer_token(parts)?;
        Ok(Self(admin_auth::authenticate(&state.ctx, token).await?))
    }
}

/// An admin whose role is super_admin; other admins get 403.
pub struct SuperAdmin(pub AdminPrincipal);

impl FromRequestParts<AppState> for SuperAdmin {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let AdminUser(admin) = AdminUser::from_request_parts(parts, state).await?;
        if admin.role == AdminRole::SuperAdmin {
            Ok(Self(admin))
        } else {
            Err(Error::forbidden(msg::THIS_NEEDS_THE_SUPER_ADMIN_ROLE))
        }
    }
}
