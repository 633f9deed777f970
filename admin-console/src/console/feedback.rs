//! The feedback inbox: what players sent, newest first (`moderation::feedback`).

use askama::Template;
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::routing::get;
use shared::services::audit::PageQuery;
use shared::services::moderation::{self, FeedbackRecord};

use super::auth::ConsoleAdmin;
use super::fields::{PageParam, Pager, pager, parse_int, parse_query};
use super::i18n;
use super::page::{Chrome, PageResult, page};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route(urls::FEEDBACK, get(list))
}

#[derive(Template)]
#[template(path = "console/feedback.html")]
struct FeedbackPage {
    chrome: Chrome,
    items: Vec<FeedbackRecord>,
    pager: Pager,
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let param: PageParam = parse_query(raw.as_deref())?;
    let query = PageQuery {
        page: parse_int("page", &param.page)?,
        limit: Some(20),
    };
    let (items, pagination) = moderation::feedback(&state.ctx, &query).await?;
    Ok(page(&FeedbackPage {
        chrome: me.chrome("feedback").await,
        items,
        pager: pager(&pagination, |n| {
            urls::with_query(urls::FEEDBACK, &[("page", &n.to_string())])
        }),
    }))
}
