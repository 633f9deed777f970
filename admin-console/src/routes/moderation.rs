//! Players (`/v1/admin/users/*`), statistics, the feedback inbox, sign-in provider
//! toggles and the audit log.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok, paged};
use shared::http::{ApiJson, ApiPath, ApiQuery, OptionalJson};
use shared::services::audit::{self, AuditEntry, PageQuery};
use shared::services::moderation::{
    self, AdminProviderList, BanRequest, FeedbackRecord, PlayerListQuery, PlayerRecord,
    ProviderToggles, Statistics,
};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AdminUser;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_players))
        .routes(routes!(get_player))
        .routes(routes!(ban))
        .routes(routes!(unban))
        .routes(routes!(stats))
        .routes(routes!(feedback))
        .routes(routes!(get_providers, put_providers))
        .routes(routes!(audit_log))
}

/// Players, newest first; `search` matches an id, a nickname or a phone number.
#[utoipa::path(get, path = "/users", tag = "players", security(("admin_jwt" = [])), params(PlayerListQuery),
    responses(
        (status = 200, description = "A page of players", body = Envelope<Vec<PlayerRecord>>),
        (status = 400, description = "Bad paging", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn list_players(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<PlayerListQuery>,
) -> ApiResult<Vec<PlayerRecord>> {
    let (items, pagination) = moderation::players(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}

/// One player, with ban state and sign-in methods.
#[utoipa::path(get, path = "/users/{id}", tag = "players", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player", body = Envelope<PlayerRecord>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such player", body = ErrorEnvelope),
    ))]
pub async fn get_player(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<PlayerRecord> {
    Ok(ok(moderation::player(&state.ctx, &id).await?))
}

/// Bans a player at once, optionally with a reason and an end (`until`, RFC 3339).
#[utoipa::path(put, path = "/users/{id}/ban", tag = "players", security(("admin_jwt" = [])),
    request_body(content = Option<BanRequest>, description = "Optional"),
    params(("id" = String, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player", body = Envelope<PlayerRecord>),
        (status = 400, description = "Bad reason or until", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such player", body = ErrorEnvelope),
    ))]
pub async fn ban(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<String>,
    OptionalJson(body): OptionalJson<BanRequest>,
) -> ApiResult<PlayerRecord> {
    Ok(ok(moderation::ban(
        &state.ctx,
        &admin,
        &id,
        &body.unwrap_or_default(),
    )
    .await?))
}

/// Lifts a ban.
#[utoipa::path(put, path = "/users/{id}/unban", tag = "players", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player", body = Envelope<PlayerRecord>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such player", body = ErrorEnvelope),
    ))]
pub async fn unban(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<PlayerRecord> {
    Ok(ok(moderation::unban(&state.ctx, &admin, &id).await?))
}

/// Player and question counts, average XP.
#[utoipa::path(get, path = "/stats", tag = "stats", security(("admin_jwt" = [])),
    responses(
        (status = 200, description = "Statistics", body = Envelope<Statistics>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn stats(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
) -> ApiResult<Statistics> {
    Ok(ok(moderation::stats(&state.ctx).await?))
}

/// Player feedback, newest first.
#[utoipa::path(get, path = "/feedback", tag = "feedback", security(("admin_jwt" = [])), params(PageQuery),
    responses(
        (status = 200, description = "A page of feedback", body = Envelope<Vec<FeedbackRecord>>),
        (status = 400, description = "Bad paging", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn feedback(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> ApiResult<Vec<FeedbackRecord>> {
    let (items, pagination) = moderation::feedback(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}

/// The sign-in provider catalogue with its stored flags.
#[utoipa::path(get, path = "/auth-providers", tag = "auth-providers", security(("admin_jwt" = [])),
    responses(
        (status = 200, description = "Providers", body = Envelope<AdminProviderList>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn get_providers(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
) -> ApiResult<AdminProviderList> {
    Ok(ok(moderation::providers(&state.ctx).await?))
}

/// Toggles third-party providers; the player API shows the change at once.
#[utoipa::path(put, path = "/auth-providers", tag = "auth-providers", security(("admin_jwt" = [])),
    request_body = ProviderToggles,
    responses(
        (status = 200, description = "Providers", body = Envelope<AdminProviderList>),
        (status = 400, description = "Not a third-party provider", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn put_providers(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<ProviderToggles>,
) -> ApiResult<AdminProviderList> {
    Ok(ok(
        moderation::set_providers(&state.ctx, &admin, &body).await?
    ))
}

/// Every admin write: actor, action, target, time, state before and after.
#[utoipa::path(get, path = "/audit-log", tag = "audit", security(("admin_jwt" = [])), params(PageQuery),
    responses(
        (status = 200, description = "A page of entries, newest first", body = Envelope<Vec<AuditEntry>>),
        (status = 400, description = "Bad paging", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn audit_log(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> ApiResult<Vec<AuditEntry>> {
    let (items, pagination) = audit::list(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}
