//! `GET /v1/challenges/next`, `POST /v1/challenges/answer`,
//! `POST /v1/challenges/knowledge-cards/:cardId/view`.

use axum::extract::State;
use serde::Deserialize;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::{ApiJson, ApiPath, ApiQuery, OptionalJson};
use shared::services::gameplay::{
    self, AnswerRequest, AnswerResult, CardViewRequest, CardViewResult, Challenge,
};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::{CurrentPlayer, TokenSubject};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(next))
        .routes(routes!(answer))
        .routes(routes!(view_card))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct NextQuery {
    /// Category id or slug.
    pub track_id: String,
}

/// The next challenge of a track: the unfinished one on its current node, or 5 new
/// questions; null when the node's pool has too few.
#[utoipa::path(get, path = "/challenges/next", tag = "challenges", security(("player_jwt" = [])),
    params(NextQuery),
    responses(
        (status = 200, description = "A challenge, or null", body = Envelope<Option<Challenge>>),
        (status = 400, description = "Missing trackId", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 404, description = "No such track", body = ErrorEnvelope),
    ))]
pub async fn next(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiQuery(query): ApiQuery<NextQuery>,
) -> ApiResult<Option<Challenge>> {
    Ok(ok(gameplay::next_challenge(
        &state.ctx,
        &player,
        &query.track_id,
    )
    .await?))
}

/// Judges an answer. Idempotent by submitRequestId, or by challengeId + questionId.
#[utoipa::path(post, path = "/challenges/answer", tag = "challenges", request_body = AnswerRequest,
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The judgement", body = Envelope<AnswerResult>),
        (status = 400, description = "Bad input, no hearts (wrong answer) or no attempts left", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 404, description = "No such challenge for this player", body = ErrorEnvelope),
    ))]
pub async fn answer(
    State(state): State<AppState>,
    TokenSubject(subject): TokenSubject,
    ApiJson(body): ApiJson<AnswerRequest>,
) -> ApiResult<AnswerResult> {
    Ok(ok(gameplay::answer(&state.ctx, &subject, &body).await?))
}

/// Records a knowledge-card view: +3 XP on the card's first view, +15 XP on the first
/// view of any card; a repeat grants nothing.
#[utoipa::path(post, path = "/challenges/knowledge-cards/{cardId}/view", tag = "challenges",
    request_body(content = Option<CardViewRequest>, description = "Optional; no body is fine"),
    security(("player_jwt" = [])),
    params(("cardId" = String, Path, description = "Card id or fallback-{questionId}")),
    responses(
        (status = 200, description = "Rewards and progress", body = Envelope<CardViewResult>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 404, description = "No such card, or one this player was never shown", body = ErrorEnvelope),
    ))]
pub async fn view_card(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiPath(card_id): ApiPath<String>,
    OptionalJson(_body): OptionalJson<CardViewRequest>,
) -> ApiResult<CardViewResult> {
    Ok(ok(gameplay::view_card(&state.ctx, &player, &card_id).await?))
}
