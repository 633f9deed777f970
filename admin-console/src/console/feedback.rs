//! The feedback inbox: what players sent, newest first (`moderation::feedback`).

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use shared::services::moderation::{self, FeedbackRecord};

use super::auth::ConsoleAdmin;
use super::fields::{ListPage, Pager, list_pager};
use super::i18n;
use super::nav::Nav;
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
    ListPage(query): ListPage,
) -> PageResult {
    let (items, pagination) = moderation::feedback(&state.ctx, &query).await?;
    Ok(page(&FeedbackPage {
        chrome: me.chrome(Nav::Feedback).await,
        items,
        pager: list_pager(urls::FEEDBACK, &pagination),
    }))
}
