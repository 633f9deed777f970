//! The media library: every stored picture, sound and clip with its thumbnail or
//! player, how many questions use it, an upload form, and a delete for files no
//! question uses (`shared::services::media`, as the API's `/v1/admin/media`).

use askama::Template;
use axum::Router;
use axum::extract::{Path, Request, State};
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::domain::media::MediaKind;
use shared::message::msg;
use shared::services::media::{self, MediaQuery};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::fields::{Filtered, LIST_ROWS, ListFilters, Pager, non_empty};
use super::i18n;
use super::nav::Nav;
use super::page::{Chrome, PageResult, describe, html, page, redirect_with};
use super::questions::{MediaPreview, upload_body_limit};
use super::uploads::{self, MediaForm};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            urls::MEDIA,
            get(list).post(upload).layer(upload_body_limit()),
        )
        .route(urls::pattern::MEDIA_DELETE, post(delete))
}

/// The list's filters, as typed (empty = not filtered).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Filters {
    /// `image`, `audio` or `video`.
    #[serde(default, rename = "type")]
    pub kind: String,
    /// `true`: only files no question uses.
    #[serde(default)]
    pub unused: String,
}

impl ListFilters for Filters {
    const LIST: &'static str = urls::MEDIA;

    fn params(&self) -> Vec<(&'static str, &str)> {
        vec![("type", &self.kind), ("unused", &self.unused)]
    }
}

#[derive(Template)]
#[template(path = "console/media.html")]
struct MediaPage {
    chrome: Chrome,
    files: Vec<MediaPreview>,
    filters: Filters,
    kinds: [MediaKind; 3],
    pager: Pager,
    error: Option<String>,
}

async fn media_page(
    state: &AppState,
    me: &ConsoleAdmin,
    list: Filtered<Filters>,
    error: Option<String>,
) -> Result<MediaPage, Error> {
    let filters = &list.filters;
    let query = MediaQuery {
        page: list.page,
        limit: Some(LIST_ROWS),
        kind: non_empty(&filters.kind).map(Into::into),
        unused: (filters.unused == "true").then_some(true),
    };
    let (items, pagination) = media::list(&state.ctx, &query).await?;
    Ok(MediaPage {
        chrome: me.chrome(Nav::Media).await,
        files: items.into_iter().filter_map(MediaPreview::of).collect(),
        pager: list.pager(&pagination),
        filters: list.filters,
        kinds: MediaKind::ALL,
        error,
    })
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    list: Filtered<Filters>,
) -> PageResult {
    let view = media_page(&state, &me, list, None).await?;
    Ok(page(&view))
}

/// The upload form has its token and a file field, nothing else.
#[derive(Deserialize)]
struct UploadFields {}

async fn upload(State(state): State<AppState>, me: ConsoleAdmin, request: Request) -> PageResult {
    let MediaForm {
        uploaded, refused, ..
    } = uploads::read::<UploadFields>(&state, &me, request, "file").await?;
    let refused = match (uploaded, refused) {
        (Some(item), _) => {
            let text = i18n::t1("media-uploaded", "kind", item.kind.label(i18n::current()));
            return Ok(redirect_with(&me.session, "ok", text, urls::MEDIA).await);
        }
        (None, Some(refused)) => refused,
        (None, None) => Error::validation(msg::CHOOSE_A_FILE_TO_UPLOAD),
    };
    let status = refused.status();
    let view = media_page(&state, &me, Filtered::default(), Some(describe(&refused))).await?;
    Ok(html(status, &view))
}

#[derive(Deserialize)]
struct DeleteForm {}

async fn delete(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    Path(id): Path<String>,
    ConsoleForm(DeleteForm {}): ConsoleForm<DeleteForm>,
) -> PageResult {
    let removed = media::delete(&state.ctx, &me.admin, &id).await?;
    let text = i18n::t1("media-deleted", "kind", removed.kind.label(i18n::current()));
    Ok(redirect_with(&me.session, "ok", text, urls::MEDIA).await)
}
