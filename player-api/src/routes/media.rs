//! `GET /media/{id}.{ext}`: the media files of questions, when no
//! `MEDIA_PUBLIC_BASE_URL` (a CDN) serves them. Open: a challenge's question names its
//! file, and a phone's media player fetches it without the app's token.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use shared::Error;
use shared::envelope::ErrorEnvelope;
use shared::http::ApiPath;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;

/// The bytes of a media file.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary)]
#[allow(dead_code)]
pub struct MediaBytes(Vec<u8>);

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(media_file))
}

/// A media file
///
/// A question's image, audio or video: its stored type, `nosniff`, a strong ETag,
/// immutable caching, and one byte range (`Range`, 206) so players can seek.
#[utoipa::path(get, path = "/media/{file}", operation_id = "getMediaFile", tag = "media",
    params(("file" = String, Path, description = "`{id}.{ext}`: the media id and its type's extension")),
    responses(
        (status = 200, description = "The file", content_type = "application/octet-stream", body = MediaBytes),
        (status = 206, description = "The byte range asked for", content_type = "application/octet-stream", body = MediaBytes),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 404, description = "No such file", body = ErrorEnvelope),
        (status = 416, description = "The range is outside the file", body = ErrorEnvelope),
    ))]
pub async fn media_file(
    State(state): State<AppState>,
    ApiPath(file): ApiPath<String>,
    headers: HeaderMap,
) -> Result<Response, Error> {
    shared::http::media::serve(&state.ctx, &file, &headers).await
}
