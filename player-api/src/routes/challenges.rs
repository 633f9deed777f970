//! `GET /v1/challenges/next`, `POST /v1/challenges/answer`,
//! `POST /v1/challenges/knowledge-cards/:cardId/view`.

use axum::extract::State;
use serde::Deserialize;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::{ApiJson, ApiPath, ApiQuery, OptionalJson};
use shared::ids::CardId;
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
#[into_params(parameter_in = Query)]
pub struct NextQuery {
    /// Category id or slug (required unless `mode=review`, where it narrows the review
    /// to one track).
    pub track_id: Option<String>,
    /// `challenge` (default) or `review`: questions answered before that are due for
    /// review or were answered wrong, lowest predicted recall first.
    pub mode: Option<String>,
}

/// Get the next challenge of a track, or a review challenge
///
/// The next challenge of a track: the unfinished one on its current node, or 5 new
/// questions; null when the node's pool has too few. With `mode=review`: the unfinished
/// review challenge, or up to 5 questions due for review (no heart, no attempt,
/// `REVIEW_XP` per right answer); null when none is due.
#[utoipa::path(get, path = "/challenges/next", operation_id = "getNextChallenge", tag = "challenges", security(("player_jwt" = [])),
    params(NextQuery),
    responses(
        (status = 200, description = "A challenge, or null", body = Envelope<Option<Challenge>>),
        (status = 400, description = "Missing trackId, or an unknown mode", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 404, description = "No such track", body = ErrorEnvelope),
    ))]
pub async fn next(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiQuery(query): ApiQuery<NextQuery>,
) -> ApiResult<Option<Challenge>> {
    Ok(ok(gameplay::next_in_mode(
        &state.ctx,
        &player,
        query.track_id.as_deref(),
        query.mode.as_deref(),
    )
    .await?))
}

/// Answer a challenge question
///
/// Judges an answer. Idempotent by submitRequestId, or by challengeId + questionId.
#[utoipa::path(post, path = "/challenges/answer", operation_id = "answerQuestion", tag = "challenges",
    request_body(content = AnswerRequest, example = json!({"challengeId": "0b9f5c1e-3d2a-4f6b-8c7d-1e2f3a4b5c6d", "questionId": "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d", "selectedOptionId": "opt-2", "timeMs": 4200, "comboCount": 2, "submitRequestId": "ans-0001"})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The judgement", body = Envelope<AnswerResult>),
        (status = 400, description = "Bad input, no hearts (wrong answer) or no attempts left", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 404, description = "No such challenge for this player", body = ErrorEnvelope),
        (status = 409, description = "The same answer or the player's progress changed concurrently; send it again", body = ErrorEnvelope),
    ))]
pub async fn answer(
    State(state): State<AppState>,
    TokenSubject(subject): TokenSubject,
    ApiJson(body): ApiJson<AnswerRequest>,
) -> ApiResult<AnswerResult> {
    Ok(ok(gameplay::answer(&state.ctx, &subject, &body).await?))
}

/// Record a knowledge-card view
///
/// Records a knowledge-card view: +3 XP on the card's first view, +15 XP on the first
/// view of any card; a repeat grants nothing.
#[utoipa::path(post, path = "/challenges/knowledge-cards/{cardId}/view", operation_id = "viewKnowledgeCard", tag = "challenges",
    request_body(content = Option<CardViewRequest>, description = "Optional; no body is fine", example = json!({"challengeId": "0b9f5c1e-3d2a-4f6b-8c7d-1e2f3a4b5c6d"})),
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
    let card_id = CardId::parse(&card_id, "cardId")?;
    Ok(ok(gameplay::view_card(&state.ctx, &player, &card_id).await?))
}
