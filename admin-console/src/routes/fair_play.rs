//! Fair play (`/v1/admin/fair-play`, `/v1/admin/users/{id}/fair-play`) and the weekly
//! boards' frozen standings (`/v1/admin/leaderboards/history`).

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok, paged};
use shared::http::{ApiJson, ApiPath, ApiQuery};
use shared::ids::PlayerId;
use shared::services::audit::PageQuery;
use shared::services::fairplay::{self, DecisionRequest, FairPlayEntry};
use shared::services::leaderboard::{self, HistoryEntry, HistoryQuery};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AdminUser;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(queue))
        .routes(routes!(decide))
        .routes(routes!(history))
}

/// List the fair-play review queue
///
/// Held players first, then flagged ones, by the week's suspicion score, each with
/// their signal counts and latest examples.
#[utoipa::path(get, path = "/fair-play", operation_id = "adminListFairPlay", tag = "players", security(("admin_jwt" = [])), params(PageQuery),
    responses(
        (status = 200, description = "A page of the queue", body = Envelope<Vec<FairPlayEntry>>),
        (status = 400, description = "Bad paging", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn queue(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> ApiResult<Vec<FairPlayEntry>> {
    let (items, pagination) = fairplay::queue(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}

/// Decide on a player's fair play
///
/// `clear` puts them back on the boards (only later signals count towards a new hold),
/// `hold` takes them off every board others see, `ban` bans them (as the ban route,
/// without an end). Audited as `player.fair_play`.
#[utoipa::path(put, path = "/users/{id}/fair-play", operation_id = "adminDecideFairPlay", tag = "players", security(("admin_jwt" = [])),
    request_body(content = DecisionRequest, example = json!({"decision": "clear", "reason": "A fast reader: checked the replays"})),
    params(("id" = String, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player's fair-play entry", body = Envelope<FairPlayEntry>),
        (status = 400, description = "Bad decision or reason", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such player", body = ErrorEnvelope),
    ))]
pub async fn decide(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<PlayerId>,
    ApiJson(body): ApiJson<DecisionRequest>,
) -> ApiResult<FairPlayEntry> {
    Ok(ok(fairplay::decide(&state.ctx, &admin, &id, &body).await?))
}

/// Read a week's final standings
///
/// A settled board's frozen standings (held and banned players left out), by rank.
#[utoipa::path(get, path = "/leaderboards/history", operation_id = "adminLeaderboardHistory", tag = "stats", security(("admin_jwt" = [])), params(HistoryQuery),
    responses(
        (status = 200, description = "A page of the standings", body = Envelope<Vec<HistoryEntry>>),
        (status = 400, description = "Bad board, week or paging", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "That board of that week is not settled", body = ErrorEnvelope),
    ))]
pub async fn history(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<HistoryQuery>,
) -> ApiResult<Vec<HistoryEntry>> {
    let (items, pagination) = leaderboard::history(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}
