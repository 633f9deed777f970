//! Sign-in providers: the catalogue with its stored flags, and a switch for each
//! third-party provider (`moderation::set_providers`; the player API shows it at once).

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::message::msg;
use shared::services::moderation::{self, AdminProvider, ProviderToggle, ProviderToggles};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::i18n;
use super::nav::Nav;
use super::page::{Chrome, PageResult, page, redirect_with};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::PROVIDERS, get(list))
        .route(urls::PROVIDERS_TOGGLE, post(toggle))
}

#[derive(Template)]
#[template(path = "console/providers.html")]
struct ProvidersPage {
    chrome: Chrome,
    providers: Vec<AdminProvider>,
}

async fn list(State(state): State<AppState>, me: ConsoleAdmin) -> PageResult {
    let list = moderation::providers(&state.ctx).await?;
    Ok(page(&ProvidersPage {
        chrome: me.chrome(Nav::Providers).await,
        providers: list
            .providers
            .into_iter()
            .map(|p| AdminProvider {
                name: name_of(&p.id, &p.name),
                ..p
            })
            .collect(),
    }))
}

/// A provider's name in the page's language (`prov-name-{id}`), else its stored name.
fn name_of(id: &str, stored: &str) -> String {
    i18n::t_or(&format!("prov-name-{id}"), stored)
}

#[derive(Deserialize)]
struct ToggleForm {
    #[serde(default)]
    id: String,
    /// `true` or `false`: the flag to store.
    #[serde(default)]
    enabled: String,
}

async fn toggle(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    ConsoleForm(form): ConsoleForm<ToggleForm>,
) -> PageResult {
    let enabled = match form.enabled.as_str() {
        "true" => true,
        "false" => false,
        _ => return Err(Error::validation(msg::ENABLED_MUST_BE_TRUE_OR_FALSE).into()),
    };
    let req = ProviderToggles {
        providers: vec![ProviderToggle {
            id: form.id.clone(),
            enabled,
        }],
    };
    let list = moderation::set_providers(&state.ctx, &me.admin, &req).await?;
    let name = list
        .providers
        .iter()
        .find(|p| p.id == form.id)
        .map_or(form.id.clone(), |p| name_of(&p.id, &p.name));
    let text = if enabled {
        i18n::t1("prov-done-enabled", "name", &name)
    } else {
        i18n::t1("prov-done-disabled", "name", &name)
    };
    Ok(redirect_with(&me.session, "ok", text, urls::PROVIDERS).await)
}
