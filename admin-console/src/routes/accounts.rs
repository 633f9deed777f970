//! Admin accounts: `/v1/admin/admins/*`.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiPath;
use shared::services::admin_auth::{self, AdminAccount};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AdminUser;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_admin))
}

/// One admin account.
#[utoipa::path(get, path = "/admins/{id}", tag = "admins", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Admin id")),
    responses(
        (status = 200, description = "The account", body = Envelope<AdminAccount>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such admin", body = ErrorEnvelope),
    ))]
pub async fn get_admin(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<AdminAccount> {
    Ok(ok(admin_auth::get_account(&state.ctx, &id).await?))
}
