//! Who is calling: admin extractors answering 401/403 in the envelope.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use shared::Error;
use shared::http::bearer_token;
use shared::services::admin_auth::{self, AdminPrincipal, AdminRole};

use crate::AppState;

/// Any active admin with a valid admin access token.
pub struct AdminUser(pub AdminPrincipal);

impl FromRequestParts<AppState> for AdminUser {
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
            Err(Error::forbidden("this needs the super_admin role"))
        }
    }
}
