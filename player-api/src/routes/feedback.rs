//! `POST /v1/feedback`.

use axum::extract::State;
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
/// Sends feedback to the studio.
#[utoipa::path(post, path = "/feedback", operation_id = "sendFeedback", tag = "feedback",
    request_body(content = FeedbackRequest, example = json!({"content": "The timer feels too short on hard questions.", "contact": "player@example.com", "pageContext": "challenge"})), security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Stored", body = Envelope<FeedbackReceipt>),
        (status = 400, description = "Bad input", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn send(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<FeedbackRequest>,
) -> ApiResult<FeedbackReceipt> {
    Ok(ok(feedback::submit(&state.ctx, &player, &body).await?))
}
