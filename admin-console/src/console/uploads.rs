//! Console forms that may carry a media file: posted as `multipart/form-data` by the
//! browser (a file field needs no JavaScript), or URL-encoded (htmx, scripts, a form
//! without a file). The CSRF token is checked before a file is read; the file goes to
//! the media library as it arrives, through the API's own upload (same sniffing, same
//! limits, same audit); the text fields are read as the URL-encoded form would be.

use axum::extract::{FromRequest, Multipart, Request};
use axum::http::{HeaderMap, StatusCode, header};
use futures::{StreamExt, TryStreamExt};
use serde::de::DeserializeOwned;
use shared::Error;
use shared::message::msg;
use shared::services::media::{self, MediaItem};

use super::auth::{CSRF_FIELD, ConsoleAdmin, check_csrf, checked_form, csrf_header};
use crate::AppState;

/// A URL-encoded form (or a multipart form's text) may be at most this large.
pub const TEXT_LIMIT: usize = 1024 * 1024;
/// A multipart form holds at most this many text fields.
const MAX_TEXT_FIELDS: usize = 64;

/// A form's fields and the file it carried, now in the library.
pub struct MediaForm<T> {
    pub fields: T,
    pub uploaded: Option<MediaItem>,
    /// Why the library refused the file (its type, its size, damage): the form is shown
    /// again with the reason. Forms put their file field last, so every text field has
    /// been read by then; the rest of a refused file is not.
    pub refused: Option<Error>,
}

fn is_multipart(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("multipart/form-data"))
}

/// Reads a console form whose field `file_field` may hold a media file.
pub async fn read<T: DeserializeOwned>(
    state: &AppState,
    me: &ConsoleAdmin,
    request: Request,
    file_field: &str,
) -> Result<MediaForm<T>, Error> {
    let header_token = csrf_header(request.headers());
    if !is_multipart(request.headers()) {
        let mut body = request.into_body().into_data_stream();
        let mut bytes = Vec::new();
        while let Some(chunk) = body.next().await {
            let chunk =
                chunk.map_err(|e| Error::validation(msg::cannot_read_the_body_detail(e)))?;
            if bytes.len() + chunk.len() > TEXT_LIMIT {
                return Err(Error::PayloadTooLarge(msg::THE_FORM_IS_TOO_LARGE));
            }
            bytes.extend_from_slice(&chunk);
        }
        let fields = checked_form(&me.session, header_token, &bytes).await?;
        return Ok(MediaForm {
            fields,
            uploaded: None,
            refused: None,
        });
    }
    let mut form = Multipart::from_request(request, state)
        .await
        .map_err(|e| Error::validation(msg::unreadable_form_detail(e.body_text())))?;
    let mut checked = match header_token {
        Some(token) => {
            check_csrf(&me.session, Some(&token)).await?;
            true
        }
        None => false,
    };
    let mut text: Vec<(String, String)> = Vec::new();
    let mut text_bytes = 0;
    let mut uploaded = None;
    let mut refused = None;
    while let Some(mut field) = form.next_field().await.map_err(form_error)? {
        let name = field.name().unwrap_or_default().to_string();
        if name == file_field {
            // the token comes first in every console form: a file before it is not read
            if !checked {
                check_csrf(&me.session, None).await?;
            }
            if uploaded.is_some() {
                return Err(Error::validation(msg::A_FORM_CARRIES_ONE_FILE));
            }
            // a file field left empty arrives as a part without bytes (`filename=""`)
            let first = loop {
                match field.chunk().await.map_err(form_error)? {
                    Some(chunk) if chunk.is_empty() => continue,
                    other => break other,
                }
            };
            let Some(first) = first else {
                continue;
            };
            let chunks = futures::stream::iter([Ok(first)]).chain(field.map_err(form_error));
            match media::upload(&state.ctx, &me.admin, Box::pin(chunks)).await {
                Ok(item) => uploaded = Some(item),
                Err(e) if e.status().is_client_error() => {
                    refused = Some(e);
                    break;
                }
                Err(e) => return Err(e),
            }
            continue;
        }
        // read chunk by chunk: a field is refused as it passes the form's text limit,
        // never held whole first
        if text.len() == MAX_TEXT_FIELDS {
            return Err(Error::PayloadTooLarge(msg::THE_FORM_IS_TOO_LARGE));
        }
        text_bytes += name.len();
        let mut value = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(form_error)? {
            text_bytes += chunk.len();
            if text_bytes > TEXT_LIMIT {
                return Err(Error::PayloadTooLarge(msg::THE_FORM_IS_TOO_LARGE));
            }
            value.extend_from_slice(&chunk);
        }
        let value = String::from_utf8(value)
            .map_err(|_| Error::validation(msg::the_form_field_name_is_not_utf8_text(&name)))?;
        if name == CSRF_FIELD && !checked {
            check_csrf(&me.session, Some(&value)).await?;
            checked = true;
        }
        text.push((name, value));
    }
    if !checked {
        check_csrf(&me.session, None).await?;
    }
    let encoded = serde_html_form::to_string(&text)
        .map_err(|e| Error::validation(msg::unreadable_form_detail(e)))?;
    let fields = serde_html_form::from_str(&encoded)
        .map_err(|e| Error::validation(msg::invalid_form_field_detail(e)))?;
    Ok(MediaForm {
        fields,
        uploaded,
        refused,
    })
}

fn form_error(e: axum::extract::multipart::MultipartError) -> Error {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        Error::PayloadTooLarge(msg::THE_UPLOAD_IS_TOO_LARGE)
    } else {
        Error::validation(msg::unreadable_form_detail(e.body_text()))
    }
}
