//! The statutory holiday calendar of the licensed-game profile: the days besides
//! Fridays, Saturdays and Sundays on which minors may play 20:00-21:00
//! (`services::holidays`; every change is in the audit log).

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use serde::Deserialize;
use shared::config::ComplianceProfile;
use shared::services::holidays::{self, Holiday, HolidayInput};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::fields::{ListPage, Pager, list_pager};
use super::i18n;
use super::nav::Nav;
use super::page::{Chrome, PageResult, page, redirect_with};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::HOLIDAYS, get(list))
        .route(urls::HOLIDAYS_PUT, post(put))
        .route(urls::HOLIDAYS_REMOVE, post(remove))
}

#[derive(Template)]
#[template(path = "console/holidays.html")]
struct HolidaysPage {
    chrome: Chrome,
    items: Vec<Holiday>,
    pager: Pager,
    profile: ComplianceProfile,
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    ListPage(query): ListPage,
) -> PageResult {
    let (items, pagination) = holidays::list(&state.ctx, &query).await?;
    Ok(page(&HolidaysPage {
        chrome: me.chrome(Nav::Holidays).await,
        items,
        pager: list_pager(urls::HOLIDAYS, &pagination),
        profile: state.ctx.settings.compliance.profile,
    }))
}

#[derive(Deserialize)]
struct HolidayForm {
    #[serde(default)]
    day: String,
    #[serde(default)]
    name: String,
}

async fn put(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    ConsoleForm(form): ConsoleForm<HolidayForm>,
) -> PageResult {
    let holiday = holidays::put(
        &state.ctx,
        &me.admin,
        &form.day,
        &HolidayInput { name: form.name },
    )
    .await?;
    let text = i18n::t1("hol-done-put", "day", &holiday.day);
    Ok(redirect_with(&me.session, "ok", text, urls::HOLIDAYS).await)
}

async fn remove(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    ConsoleForm(form): ConsoleForm<HolidayForm>,
) -> PageResult {
    let holiday = holidays::remove(&state.ctx, &me.admin, &form.day).await?;
    let text = i18n::t1("hol-done-removed", "day", &holiday.day);
    Ok(redirect_with(&me.session, "ok", text, urls::HOLIDAYS).await)
}
