//! The media library: every stored picture, sound and clip with its thumbnail or
//! player, how many questions use it, an upload form, and a delete for files no
//! question uses (`shared::services::media`, as the API's `/v1/admin/media`).

use askama::Template;
use axum::Router;
use axum::extract::{Path, RawQuery, Request, State};
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::message::msg;
use shared::services::media::{self, MediaQuery};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::fields::{Pager, non_empty, page_value, pager, parse_int, parse_query};
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
    #[serde(default)]
    pub page: String,
}

impl Filters {
    fn href(&self, page: i64) -> String {
        let page = page_value(page);
        urls::with_query(
            urls::MEDIA,
            &[
                ("type", &self.kind),
                ("unused", &self.unused),
                ("page", &page),
            ],
        )
    }
}

#[derive(Template)]
#[template(path = "console/media.html")]
struct MediaPage {
    chrome: Chrome,
    files: Vec<MediaPreview>,
    filters: Filters,
    kinds: [&'static str; 3],
    pager: Pager,
    error: Option<String>,
}

async fn media_page(
    state: &AppState,
    me: &ConsoleAdmin,
    filters: Filters,
    error: Option<String>,
) -> Result<MediaPage, Error> {
    let query = MediaQuery {
        page: parse_int("page", &filters.page)?,
        limit: Some(20),
        kind: non_empty(&filters.kind),
        unused: (filters.unused == "true").then_some(true),
    };
    let (items, pagination) = media::list(&state.ctx, &query).await?;
    Ok(MediaPage {
        chrome: me.chrome(Nav::Media).await,
        files: items.into_iter().filter_map(MediaPreview::of).collect(),
        pager: pager(&pagination, |n| filters.href(n)),
        filters,
        kinds: ["image", "audio", "video"],
        error,
    })
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let filters: Filters = parse_query(raw.as_deref())?;
    let view = media_page(&state, &me, filters, None).await?;
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
            let text = i18n::t1(
                "media-uploaded",
                "kind",
                i18n::term("content-type", &item.kind),
            );
            return Ok(redirect_with(&me.session, "ok", text, urls::MEDIA).await);
        }
        (None, Some(refused)) => refused,
        (None, None) => Error::validation(msg::CHOOSE_A_FILE_TO_UPLOAD),
    };
    let status = refused.status();
    let view = media_page(&state, &me, Filters::default(), Some(describe(&refused))).await?;
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
    let text = i18n::t1(
        "media-deleted",
        "kind",
        i18n::term("content-type", &removed.kind),
    );
    Ok(redirect_with(&me.session, "ok", text, urls::MEDIA).await)
}
