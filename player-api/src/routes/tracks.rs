//! `GET /v1/tracks`, `GET /v1/tracks/:trackId`.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiPath;
use shared::services::gameplay::{self, Track};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::CurrentPlayer;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(one))
}

/// List the tracks
///
/// Every track with its chapter nodes and the player's progress.
#[utoipa::path(get, path = "/tracks", operation_id = "listTracks", tag = "tracks", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Tracks", body = Envelope<Vec<Track>>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn list(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
) -> ApiResult<Vec<Track>> {
    Ok(ok(gameplay::tracks(&state.ctx, &player).await?))
}

/// Get one track
///
/// One track by category id or slug; data is null when there is none.
#[utoipa::path(get, path = "/tracks/{trackId}", operation_id = "getTrack", tag = "tracks", security(("player_jwt" = [])),
    params(("trackId" = String, Path, description = "Category id or slug")),
    responses(
        (status = 200, description = "The track, or null", body = Envelope<Option<Track>>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn one(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiPath(track_id): ApiPath<String>,
) -> ApiResult<Option<Track>> {
    Ok(ok(gameplay::track(&state.ctx, &player, &track_id).await?))
}
