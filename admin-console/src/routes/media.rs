//! The media library: `POST /v1/admin/media` (upload), `GET /v1/admin/media` (list),
//! `DELETE /v1/admin/media/{id}`. Any admin.

use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Request, State};
use axum::http::header;
use futures::TryStreamExt;
use shared::Error;
use shared::config::MAX_CONFIGURABLE_BYTES;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok, paged};
use shared::http::{ApiPath, ApiQuery};
use shared::message::msg;
use shared::services::media::{self, MediaItem, MediaQuery};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AdminUser;

/// A multipart upload: one file field (its name and declared type are ignored).
#[derive(ToSchema)]
#[schema(example = json!({"file": "(the bytes of flag-cn.png)"}))]
#[allow(dead_code)]
pub struct MediaUpload {
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// A raw upload: the file's bytes as the body.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary, example = "(the bytes of flag-cn.png)")]
#[allow(dead_code)]
pub struct MediaBytes(Vec<u8>);

pub fn router() -> OpenApiRouter<AppState> {
    let upload = OpenApiRouter::new()
        .routes(routes!(upload_media))
        // each kind's limit is enforced as the body arrives (`services::media`); this
        // bounds a multipart body's other parts as well
        .layer(DefaultBodyLimit::max(
            MAX_CONFIGURABLE_BYTES as usize + 64 * 1024,
        ));
    OpenApiRouter::new()
        .routes(routes!(list_media))
        .routes(routes!(delete_media))
        .merge(upload)
}

/// Upload a media file
///
/// Stores an image (PNG, JPEG, WebP), audio (MP3, AAC, M4A, Ogg) or video (MP4, WebM)
/// file: a multipart form with one file, or the file as the body. The type comes from
/// the bytes, never the name or `Content-Type`; a JPEG's metadata (EXIF, GPS) is removed.
/// The id is the SHA-256 of the stored bytes: the same file uploaded twice is one file.
#[utoipa::path(post, path = "/media", operation_id = "adminUploadMedia", tag = "media", security(("admin_jwt" = [])),
    request_body(
        content(
            (MediaUpload = "multipart/form-data"),
            (MediaBytes = "application/octet-stream"),
        ),
        description = "The file, as a multipart form's one file or as the body"
    ),
    responses(
        (status = 200, description = "The stored file (or the one already stored with this content)", body = Envelope<MediaItem>),
        (status = 400, description = "Not a supported type (SVG, HTML, …), an image over 4096 × 4096, a damaged file, an empty body or form", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 413, description = "Over the limit of its kind (MEDIA_MAX_*_BYTES)", body = ErrorEnvelope),
        (status = 503, description = "The media store cannot be reached", body = ErrorEnvelope),
    ))]
pub async fn upload_media(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    request: Request,
) -> ApiResult<MediaItem> {
    let is_form = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("multipart/form-data"));
    let item = if is_form {
        let mut form = Multipart::from_request(request, &state)
            .await
            .map_err(|e| Error::validation(msg::cannot_read_the_form_detail(e.body_text())))?;
        let field = loop {
            match form.next_field().await {
                Ok(Some(field)) if field.file_name().is_some() || field.name() == Some("file") => {
                    break field;
                }
                Ok(Some(_)) => continue,
                Ok(None) => return Err(Error::validation(msg::THE_FORM_HOLDS_NO_FILE)),
                Err(e) => return Err(form_error(e)),
            }
        };
        media::upload(&state.ctx, &admin, Box::pin(field.map_err(form_error))).await?
    } else {
        let chunks = request
            .into_body()
            .into_data_stream()
            .map_err(|e| Error::validation(msg::cannot_read_the_body_detail(e)));
        media::upload(&state.ctx, &admin, Box::pin(chunks)).await?
    };
    Ok(ok(item))
}

fn form_error(e: axum::extract::multipart::MultipartError) -> Error {
    if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        Error::PayloadTooLarge(msg::the_form_is_larger_than_max_bytes(
            MAX_CONFIGURABLE_BYTES,
        ))
    } else {
        Error::validation(msg::cannot_read_the_form_detail(e.body_text()))
    }
}

/// List media
///
/// The library, newest first, each file with how many questions use it.
#[utoipa::path(get, path = "/media", operation_id = "adminListMedia", tag = "media", security(("admin_jwt" = [])),
    params(MediaQuery),
    responses(
        (status = 200, description = "A page of files", body = Envelope<Vec<MediaItem>>),
        (status = 400, description = "page < 1, limit outside 1-50, an unknown type", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn list_media(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<MediaQuery>,
) -> ApiResult<Vec<MediaItem>> {
    let (items, pagination) = media::list(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}

/// Delete a media file
///
/// Removes a file no question uses, from the library and the store.
#[utoipa::path(delete, path = "/media/{id}", operation_id = "adminDeleteMedia", tag = "media", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Media id (SHA-256, 64 hex digits)")),
    responses(
        (status = 200, description = "The removed file", body = Envelope<MediaItem>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such media", body = ErrorEnvelope),
        (status = 409, description = "Questions use it", body = ErrorEnvelope),
    ))]
pub async fn delete_media(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<MediaItem> {
    Ok(ok(media::delete(&state.ctx, &admin, &id).await?))
}

/// A media file
///
/// The stored file, for the console's previews (the player API serves the same).
#[utoipa::path(get, path = "/media/{file}", operation_id = "adminGetMediaFile", tag = "media",
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
    headers: axum::http::HeaderMap,
) -> Result<axum::response::Response, Error> {
    shared::http::media::serve(&state.ctx, &file, &headers).await
}

/// `GET /media/{file}` (outside `/v1/admin`: a file, not an API answer).
pub fn files_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(media_file))
}
