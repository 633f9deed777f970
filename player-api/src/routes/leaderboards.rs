//! `GET /v1/leaderboards`, `GET /v1/leaderboards/me`.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiQuery;
use shared::services::leaderboard::{self, BoardQuery, LeaderboardEntry};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::TokenSubject;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(board))
        .routes(routes!(me))
}

/// List a page of this week's leaderboard
///
/// A page of this week's board (region by default, or all players), with `meta` and
/// `pagination`.
#[utoipa::path(get, path = "/leaderboards", operation_id = "listLeaderboard", tag = "leaderboards", security(("player_jwt" = [])),
    params(BoardQuery),
    responses(
        (status = 200, description = "Entries; meta: LeaderboardMeta", body = Envelope<Vec<LeaderboardEntry>>),
        (status = 400, description = "Bad scope, region, page or limit", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn board(
    State(state): State<AppState>,
    TokenSubject(subject): TokenSubject,
    ApiQuery(query): ApiQuery<BoardQuery>,
) -> ApiResult<Vec<LeaderboardEntry>> {
    let (entries, meta, pagination) = leaderboard::board(&state.ctx, &subject, &query).await?;
    Ok(ok(entries).with_meta(meta).with_pagination(pagination))
}

/// Get the player's own leaderboard entry and rank
///
/// The player's own entry and rank; meta carries `rank`.
#[utoipa::path(get, path = "/leaderboards/me", operation_id = "getMyLeaderboardEntry", tag = "leaderboards", security(("player_jwt" = [])),
    params(BoardQuery),
    responses(
        (status = 200, description = "The own entry (null without a region to view); meta: LeaderboardMeta with rank", body = Envelope<Option<LeaderboardEntry>>),
        (status = 400, description = "Bad scope or region", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn me(
    State(state): State<AppState>,
    TokenSubject(subject): TokenSubject,
    ApiQuery(query): ApiQuery<BoardQuery>,
) -> ApiResult<Option<LeaderboardEntry>> {
    let (entry, meta) = leaderboard::me(&state.ctx, &subject, &query).await?;
    Ok(ok(entry).with_meta(meta))
}
