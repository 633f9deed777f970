//! Admin accounts: `/v1/admin/admins/*` and `/v1/admin/change-password`. Reads for every
//! admin, writes for super_admin.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok, paged};
use shared::http::{ApiJson, ApiPath, ApiQuery};
use shared::ids::AdminId;
use shared::services::admin_accounts::{
    self, AdminListQuery, ChangePassword, CreateAdmin, CreatedAdmin, PasswordChanged,
    ResetPassword, UpdateAdmin,
};
use shared::services::admin_auth::{self, AdminAccount};
use shared::services::admin_mfa;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::{AdminUser, SuperAdmin};
use shared::client_addr::ClientAddress;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_admins, create_admin))
        .routes(routes!(get_admin, update_admin, delete_admin))
        .routes(routes!(reset_password))
        .routes(routes!(reset_mfa))
        .routes(routes!(change_password))
}

/// List admin accounts
///
/// Admin accounts, filtered by role and isActive.
#[utoipa::path(get, path = "/admins", operation_id = "adminListAdmins", tag = "admins", security(("admin_jwt" = [])), params(AdminListQuery),
    responses(
        (status = 200, description = "A page of accounts", body = Envelope<Vec<AdminAccount>>),
        (status = 400, description = "Bad filter or paging", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn list_admins(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<AdminListQuery>,
) -> ApiResult<Vec<AdminAccount>> {
    let (items, pagination) = admin_accounts::list(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}

/// Get an admin account
///
/// One admin account.
#[utoipa::path(get, path = "/admins/{id}", operation_id = "adminGetAdmin", tag = "admins", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Admin id")),
    responses(
        (status = 200, description = "The account", body = Envelope<AdminAccount>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such admin", body = ErrorEnvelope),
    ))]
pub async fn get_admin(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath(id): ApiPath<AdminId>,
) -> ApiResult<AdminAccount> {
    Ok(ok(admin_auth::get_account(&state.ctx, &id).await?))
}

/// Create an admin account
///
/// Creates an admin; the answer carries the password once.
#[utoipa::path(post, path = "/admins", operation_id = "adminCreateAdmin", tag = "admins", security(("admin_jwt" = [])),
    request_body(content = CreateAdmin, example = json!({"username": "content-editor", "password": "Str0ng-pass!", "role": "admin"})),
    responses(
        (status = 200, description = "The account and its one-time plainPassword", body = Envelope<CreatedAdmin>),
        (status = 400, description = "Bad input or duplicate username", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 403, description = "Needs super_admin", body = ErrorEnvelope),
    ))]
pub async fn create_admin(
    State(state): State<AppState>,
    SuperAdmin(admin): SuperAdmin,
    ApiJson(body): ApiJson<CreateAdmin>,
) -> ApiResult<CreatedAdmin> {
    Ok(ok(admin_accounts::create(&state.ctx, &admin, &body).await?))
}

/// Update an admin account
///
/// Changes username, role or isActive.
#[utoipa::path(put, path = "/admins/{id}", operation_id = "adminUpdateAdmin", tag = "admins", security(("admin_jwt" = [])),
    request_body(content = UpdateAdmin, example = json!({"username": "content-editor-2", "isActive": 1})),
    params(("id" = String, Path, description = "Admin id")),
    responses(
        (status = 200, description = "The account", body = Envelope<AdminAccount>),
        (status = 400, description = "Bad input, duplicate username, or the last super_admin", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 403, description = "Needs super_admin", body = ErrorEnvelope),
        (status = 404, description = "No such admin", body = ErrorEnvelope),
    ))]
pub async fn update_admin(
    State(state): State<AppState>,
    SuperAdmin(admin): SuperAdmin,
    ApiPath(id): ApiPath<AdminId>,
    ApiJson(body): ApiJson<UpdateAdmin>,
) -> ApiResult<AdminAccount> {
    Ok(ok(
        admin_accounts::update(&state.ctx, &admin, &id, &body).await?
    ))
}

/// Deactivate an admin account
///
/// Soft delete: the account is deactivated and its tokens end.
#[utoipa::path(delete, path = "/admins/{id}", operation_id = "adminDeleteAdmin", tag = "admins", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Admin id")),
    responses(
        (status = 200, description = "The deactivated account", body = Envelope<AdminAccount>),
        (status = 400, description = "The last super_admin", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 403, description = "Needs super_admin", body = ErrorEnvelope),
        (status = 404, description = "No such admin", body = ErrorEnvelope),
    ))]
pub async fn delete_admin(
    State(state): State<AppState>,
    SuperAdmin(admin): SuperAdmin,
    ApiPath(id): ApiPath<AdminId>,
) -> ApiResult<AdminAccount> {
    Ok(ok(admin_accounts::delete(&state.ctx, &admin, &id).await?))
}

/// Reset an admin's password
///
/// Sets a new random password (12 characters), shown once; the admin's tokens end.
#[utoipa::path(post, path = "/admins/{id}/reset-password", operation_id = "adminResetAdminPassword", tag = "admins", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Admin id")),
    responses(
        (status = 200, description = "The new password", body = Envelope<ResetPassword>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 403, description = "Needs super_admin", body = ErrorEnvelope),
        (status = 404, description = "No such admin", body = ErrorEnvelope),
    ))]
pub async fn reset_password(
    State(state): State<AppState>,
    SuperAdmin(admin): SuperAdmin,
    ApiPath(id): ApiPath<AdminId>,
) -> ApiResult<ResetPassword> {
    Ok(ok(
        admin_accounts::reset_password(&state.ctx, &admin, &id).await?
    ))
}

/// Turn another admin's MFA off
///
/// Turns another admin's MFA off (a lost device): secret, pending set-up and recovery
/// codes go; the admin's tokens and sessions end, and they sign in with the password
/// alone and may enrol again. Not one's own (that takes a code: `/mfa/disable`). Audited.
#[utoipa::path(delete, path = "/admins/{id}/mfa", operation_id = "adminResetAdminMfa", tag = "admins", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Admin id")),
    responses(
        (status = 200, description = "The account, MFA off", body = Envelope<AdminAccount>),
        (status = 400, description = "The caller's own MFA (turn it off with a code: POST /mfa/disable)", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 403, description = "Needs super_admin", body = ErrorEnvelope),
        (status = 404, description = "No such admin", body = ErrorEnvelope),
    ))]
pub async fn reset_mfa(
    State(state): State<AppState>,
    SuperAdmin(admin): SuperAdmin,
    ApiPath(id): ApiPath<AdminId>,
) -> ApiResult<AdminAccount> {
    Ok(ok(admin_mfa::reset(&state.ctx, &admin, &id).await?))
}

/// Change the signed-in admin's password
///
/// Changes the signed-in admin's password; every other token and console session of the
/// admin ends and the answer carries fresh tokens. A wrong current password counts as a
/// failed sign-in of the admin's username and client address (the same throttle: 5 per
/// username per minute, then 429).
#[utoipa::path(put, path = "/change-password", operation_id = "adminChangeOwnPassword", tag = "admins", security(("admin_jwt" = [])),
    request_body(content = ChangePassword, example = json!({"currentPassword": "Old-pass-1", "newPassword": "New-pass-2"})),
    responses(
        (status = 200, description = "Changed", body = Envelope<PasswordChanged>),
        (status = 400, description = "New password not 8-128 characters", body = ErrorEnvelope),
        (status = 401, description = "Wrong current password or token", body = ErrorEnvelope),
        (status = 429, description = "Too many failed sign-ins for this username or address (RATE_LIMITED, with Retry-After)", body = ErrorEnvelope,
            headers(("Retry-After" = u64, description = "Seconds until the password may be tried again"))),
    ))]
pub async fn change_password(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ClientAddress(client): ClientAddress,
    ApiJson(body): ApiJson<ChangePassword>,
) -> ApiResult<PasswordChanged> {
    Ok(ok(admin_accounts::change_password(
        &state.ctx, &admin, &body, client,
    )
    .await?))
}
