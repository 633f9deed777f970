//! Players (`/v1/admin/users/*`), statistics, the feedback inbox, sign-in provider
//! toggles and the audit log.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok, paged};
use shared::http::{ApiJson, ApiPath, ApiQuery, OptionalJson};
use shared::ids::PlayerId;
use shared::services::audit::{self, AuditEntry, PageQuery};
use shared::services::minors::{self, GuardianPinReset};
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
        .routes(routes!(reset_guardian_pin))
        .routes(routes!(stats))
        .routes(routes!(feedback))
        .routes(routes!(get_providers, put_providers))
        .routes(routes!(audit_log))
}

/// List players
///
/// Players, newest first; `search` matches an id, a nickname or a phone number.
#[utoipa::path(get, path = "/users", operation_id = "adminListPlayers", tag = "players", security(("admin_jwt" = [])), params(PlayerListQuery),
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

/// Get a player
///
/// One player, with ban state and sign-in methods.
#[utoipa::path(get, path = "/users/{id}", operation_id = "adminGetPlayer", tag = "players", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player", body = Envelope<PlayerRecord>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such player", body = ErrorEnvelope),
    ))]
pub async fn get_player(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath(id): ApiPath<PlayerId>,
) -> ApiResult<PlayerRecord> {
    Ok(ok(moderation::player(&state.ctx, &id).await?))
}

/// Ban a player
///
/// Bans a player at once, optionally with a reason and an end (`until`, RFC 3339).
#[utoipa::path(put, path = "/users/{id}/ban", operation_id = "adminBanPlayer", tag = "players", security(("admin_jwt" = [])),
    request_body(content = Option<BanRequest>, description = "Optional", example = json!({"reason": "Cheating on the leaderboard", "until": "2026-12-31T00:00:00Z"})),
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
    ApiPath(id): ApiPath<PlayerId>,
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

/// Lift a player's ban
///
/// Lifts a ban.
#[utoipa::path(put, path = "/users/{id}/unban", operation_id = "adminUnbanPlayer", tag = "players", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player", body = Envelope<PlayerRecord>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such player", body = ErrorEnvelope),
    ))]
pub async fn unban(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<PlayerId>,
) -> ApiResult<PlayerRecord> {
    Ok(ok(moderation::unban(&state.ctx, &admin, &id).await?))
}

/// Reset a guardian's PIN
///
/// At a guardian's request (a forgotten or locked PIN), once they have proved who they
/// are outside the service: a new random 4-digit PIN, answered this once for staff to
/// hand over; the day's wrong tries and the lock are cleared. Audited without the PIN.
#[utoipa::path(post, path = "/users/{id}/guardian-pin/reset", operation_id = "adminResetGuardianPin", tag = "players", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Player id")),
    responses(
        (status = 200, description = "The new PIN, shown once", body = Envelope<GuardianPinReset>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such player", body = ErrorEnvelope),
        (status = 409, description = "The player has no guardian PIN (minor mode off)", body = ErrorEnvelope),
    ))]
pub async fn reset_guardian_pin(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<PlayerId>,
) -> ApiResult<GuardianPinReset> {
    Ok(ok(
        minors::reset_guardian_pin(&state.ctx, &admin, &id).await?
    ))
}

/// Get statistics
///
/// Player and question counts, average XP.
#[utoipa::path(get, path = "/stats", operation_id = "adminGetStatistics", tag = "stats", security(("admin_jwt" = [])),
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

/// List player feedback
///
/// Player feedback, newest first.
#[utoipa::path(get, path = "/feedback", operation_id = "adminListFeedback", tag = "feedback", security(("admin_jwt" = [])), params(PageQuery),
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

/// List the sign-in providers
///
/// The sign-in provider catalogue with its stored flags.
#[utoipa::path(get, path = "/auth-providers", operation_id = "adminListAuthProviders", tag = "auth-providers", security(("admin_jwt" = [])),
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

/// Toggle sign-in providers
///
/// Toggles third-party providers; the player API shows the change at once.
#[utoipa::path(put, path = "/auth-providers", operation_id = "adminSetAuthProviders", tag = "auth-providers", security(("admin_jwt" = [])),
    request_body(content = ProviderToggles, example = json!({"providers": [{"id": "ios_vendor", "enabled": true}, {"id": "android_vendor", "enabled": false}]})),
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

/// List the audit log
///
/// Every admin write: actor, action, target, time, state before and after.
#[utoipa::path(get, path = "/audit-log", operation_id = "adminListAuditLog", tag = "audit", security(("admin_jwt" = [])), params(PageQuery),
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
