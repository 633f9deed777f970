//! `GET /v1/progress/summary`, `PATCH /v1/progress/preferences`,
//! `POST /v1/progress/check-in`.

use axum::extract::State;
use serde::Deserialize;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::{ApiJson, OptionalJson};
use shared::services::learning::{self, TrackSkillView};
use shared::services::progress::{self, ProgressSummary};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::{CurrentPlayer, TokenSubject};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(summary))
        .routes(routes!(preferences))
        .routes(routes!(check_in))
        .routes(routes!(skills))
}

/// Get the player's skills
///
/// Per track: the player's estimated skill (θ, 0 for a new player), the mastery (0-100,
/// the predicted chance of a right answer over the track's published questions) and the
/// judged answers behind the estimate.
#[utoipa::path(get, path = "/progress/skills", operation_id = "getProgressSkills", tag = "progress", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "One entry per track", body = Envelope<Vec<TrackSkillView>>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn skills(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
) -> ApiResult<Vec<TrackSkillView>> {
    Ok(ok(learning::skills(&state.ctx, &player).await?))
}

/// Get the progress summary
///
/// Hearts, attempts, XP, level, streak and check-ins.
#[utoipa::path(get, path = "/progress/summary", operation_id = "getProgressSummary", tag = "progress", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The summary", body = Envelope<ProgressSummary>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn summary(
    State(state): State<AppState>,
    TokenSubject(subject): TokenSubject,
) -> ApiResult<ProgressSummary> {
    Ok(ok(
        progress::summary_of_token_subject(&state.ctx, &subject).await?
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesRequest {
    /// A track's category id or slug.
    pub active_track_id: String,
}

/// Set the active track
///
/// Sets the active track.
#[utoipa::path(patch, path = "/progress/preferences", operation_id = "setActiveTrack", tag = "progress",
    request_body(content = PreferencesRequest, example = json!({"activeTrackId": "world-geography"})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The summary", body = Envelope<ProgressSummary>),
        (status = 400, description = "Not a track", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn preferences(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<PreferencesRequest>,
) -> ApiResult<ProgressSummary> {
    Ok(ok(progress::set_active_track(
        &state.ctx,
        &player,
        &body.active_track_id,
    )
    .await?))
}

/// Check in for today
///
/// Today's check-in (Beijing day), counted once. Send no body and no Content-Type, or `{}`.
#[utoipa::path(post, path = "/progress/check-in", operation_id = "checkIn", tag = "progress",
    request_body(content = Option<Object>, description = "No body, or {}", example = json!({})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The summary", body = Envelope<ProgressSummary>),
        (status = 400, description = "Content-Type application/json with an empty body", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn check_in(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    OptionalJson(_body): OptionalJson<serde_json::Map<String, serde_json::Value>>,
) -> ApiResult<ProgressSummary> {
    Ok(ok(progress::check_in(&state.ctx, &player).await?))
}
