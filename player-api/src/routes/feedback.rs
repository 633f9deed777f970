//! `POST /v1/feedback`.

use axum::extract::State;
use shared::client_addr::ClientAddress;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiJson;
use shared::services::feedback::{self, FeedbackReceipt, FeedbackRequest};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::CurrentPlayer;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(send))
}

/// Send feedback
///
/// Sends feedback to the studio: at most `FEEDBACK_PER_HOUR` per player (default 10) and
/// `FEEDBACK_PER_ADDRESS_PER_HOUR` per client address (default 30) in a clock hour.
#[utoipa::path(post, path = "/feedback", operation_id = "sendFeedback", tag = "feedback",
    request_body(content = FeedbackRequest, example = json!({"content": "The timer feels too short on hard questions.", "contact": "player@example.com", "pageContext": "challenge"})), security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Stored", body = Envelope<FeedbackReceipt>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 429, description = "Too much feedback this hour (RATE_LIMITED, with Retry-After)", body = ErrorEnvelope),
    ))]
pub async fn send(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ClientAddress(client): ClientAddress,
    ApiJson(body): ApiJson<FeedbackRequest>,
) -> ApiResult<FeedbackReceipt> {
    Ok(ok(
        feedback::submit(&state.ctx, &player, client, &body).await?
    ))
}
