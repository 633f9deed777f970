//! The start page: the statistics dashboard.

use askama::Template;
use axum::extract::State;
use shared::services::moderation::{self, Statistics};

use super::auth::ConsoleAdmin;
use super::page::{Chrome, PageResult, page};
use super::urls;
use crate::AppState;

#[derive(Template)]
#[template(path = "console/dashboard.html")]
struct DashboardPage {
    chrome: Chrome,
    stats: Statistics,
}

pub async fn show(State(state): State<AppState>, me: ConsoleAdmin) -> PageResult {
    let stats = moderation::stats(&state.ctx).await?;
    Ok(page(&DashboardPage {
        chrome: me.chrome("dashboard").await,
        stats,
    }))
}
