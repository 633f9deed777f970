//! Rewarded-ad recovery: `POST /v1/rewards/ad-recovery/session` and `/complete`.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiJson;
use shared::services::ads::{self, CompleteAnswer, CompleteRequest, SessionAnswer, SessionRequest};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::CurrentPlayer;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(session))
        .routes(routes!(complete))
}

/// Open a rewarded-ad recovery session
///
/// Opens a recovery session: eligible, or ineligible with a reason (still a success).
#[utoipa::path(post, path = "/rewards/ad-recovery/session", operation_id = "openAdRecoverySession", tag = "rewards",
    request_body(content = SessionRequest, example = json!({"type": "hearts", "clientRequestId": "ad-0001", "platform": "ios", "adProvider": "mock"})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Eligible or ineligible", body = Envelope<SessionAnswer>),
        (status = 400, description = "Bad input or ad provider", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn session(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<SessionRequest>,
) -> ApiResult<SessionAnswer> {
    Ok(ok(ads::open_session(&state.ctx, &player, &body).await?))
}

/// Complete a rewarded-ad recovery session
///
/// Completes a session once: completed with the reward, or failed with a reason (still a
/// success); a repeat answers the first outcome.
#[utoipa::path(post, path = "/rewards/ad-recovery/complete", operation_id = "completeAdRecovery", tag = "rewards",
    request_body(content = CompleteRequest, example = json!({"sessionId": "3c2b1a09-8f7e-4d6c-5b4a-392817065f4e", "clientRequestId": "ad-0001", "adProvider": "mock", "completedAt": "2026-11-18T08:30:00Z"})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Completed or failed", body = Envelope<CompleteAnswer>),
        (status = 400, description = "Bad input or ad provider", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 404, description = "No such session for this player", body = ErrorEnvelope),
        (status = 409, description = "The session was completed concurrently", body = ErrorEnvelope),
    ))]
pub async fn complete(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<CompleteRequest>,
) -> ApiResult<CompleteAnswer> {
    Ok(ok(ads::complete(&state.ctx, &player, &body).await?))
}
