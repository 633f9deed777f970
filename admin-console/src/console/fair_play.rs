//! The fair-play review queue: held and flagged players with their signals and the
//! answers that raised them; staff clear, hold or ban each (`services::fairplay`).

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use serde::Deserialize;
use shared::domain::fairplay::FairPlayState;
use shared::ids::PlayerId;
use shared::services::fairplay::{self, DecisionRequest, FairPlayEntry, SignalExample};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::fields::{ListPage, PagePath, Pager, list_pager};
use super::i18n;
use super::nav::Nav;
use super::page::{Chrome, PageResult, page, redirect_with};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::FAIR_PLAY, get(list))
        .route(urls::pattern::PLAYER_FAIR_PLAY, post(decide))
}

#[derive(Template)]
#[template(path = "console/fair_play.html")]
struct FairPlayPage {
    chrome: Chrome,
    items: Vec<FairPlayEntry>,
    pager: Pager,
}

impl FairPlayPage {
    /// One answer that raised signals: when (Beijing time), the server's and the app's
    /// times, right or wrong, and the signals by name.
    fn example(&self, e: &SignalExample) -> String {
        let server = e
            .server_elapsed_ms
            .map_or_else(|| i18n::t("fair-unknown-ms"), i18n::num);
        let result = if e.is_correct {
            i18n::t("fair-right")
        } else {
            i18n::t("fair-wrong")
        };
        let signals = i18n::list(e.signals.iter().map(|s| s.label(i18n::current())));
        i18n::current().t_args(
            "fair-example",
            &[
                ("at", i18n::when(&e.answered_at)),
                ("server", server),
                ("claimed", i18n::num(e.time_ms)),
                ("result", result),
                ("signals", signals),
            ],
        )
    }
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    ListPage(query): ListPage,
) -> PageResult {
    let (items, pagination) = fairplay::queue(&state.ctx, &query).await?;
    Ok(page(&FairPlayPage {
        chrome: me.chrome(Nav::FairPlay).await,
        items,
        pager: list_pager(urls::FAIR_PLAY, &pagination),
    }))
}

#[derive(Deserialize)]
struct DecisionForm {
    decision: String,
    #[serde(default)]
    reason: String,
}

async fn decide(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<PlayerId>,
    ConsoleForm(form): ConsoleForm<DecisionForm>,
) -> PageResult {
    let entry = fairplay::decide(
        &state.ctx,
        &me.admin,
        &id,
        &DecisionRequest {
            decision: form.decision.into(),
            reason: Some(form.reason),
        },
    )
    .await?;
    let said = match entry.state {
        FairPlayState::Cleared => "fair-done-cleared",
        FairPlayState::Held => "fair-done-held",
        FairPlayState::Flagged | FairPlayState::Banned => "fair-done-banned",
    };
    Ok(redirect_with(
        &me.session,
        "ok",
        i18n::t1(said, "name", &entry.display_name),
        urls::FAIR_PLAY,
    )
    .await)
}
