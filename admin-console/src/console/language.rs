//! The header's language menu: the signed-in admin's console language, stored on their
//! account (every browser they sign in from), or cleared to follow the browser's
//! `Accept-Language`.

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect};
use axum::routing::post;
use serde::Deserialize;
use shared::Error;
use shared::message::msg;
use shared::services::admin_auth;

use super::auth::{ConsoleForm, ConsoleMfaAdmin};
use super::i18n::Lang;
use super::page::{PageError, PageResult};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route(urls::LANGUAGE, post(choose))
}

#[derive(Deserialize)]
struct LanguageForm {
    /// A language's tag, or empty to follow the browser.
    #[serde(default)]
    language: String,
    /// The console page to go back to.
    #[serde(default)]
    back: String,
}

/// The page to return to: a console path of this site, else the dashboard (never
/// another host: `//host` and `/console\…` are refused).
fn back_to(back: &str) -> &str {
    let is_console = back == urls::HOME
        || back
            .strip_prefix(urls::HOME)
            .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('?'));
    if is_console && !back.contains(['\\', '\r', '\n']) && back.len() <= 2048 {
        back
    } else {
        urls::HOME
    }
}

async fn choose(
    State(state): State<AppState>,
    ConsoleMfaAdmin(me): ConsoleMfaAdmin,
    ConsoleForm(form): ConsoleForm<LanguageForm>,
) -> PageResult {
    let language =
        match form.language.trim() {
            "" => None,
            tag => Some(Lang::parse(tag).ok_or_else(|| {
                PageError::from(Error::validation(msg::unknown_language_tag(tag)))
            })?),
        };
    admin_auth::set_language(&state.ctx, &me.admin, language).await?;
    Ok(Redirect::to(back_to(&form.back)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goes_back_only_to_console_pages() {
        let list = format!("{}?page=2", urls::QUESTIONS);
        assert_eq!(back_to(&list), list);
        assert_eq!(back_to(urls::HOME), urls::HOME);
        let home_query = format!("{}?x=1", urls::HOME);
        assert_eq!(back_to(&home_query), home_query);
        for outside in [
            String::new(),
            format!("//evil.example{}", urls::HOME),
            format!("https://evil.example{}", urls::HOME),
            format!("{}x", urls::HOME),
            "/v1/admin/users".to_string(),
            format!("{}/\\evil", urls::HOME),
        ] {
            assert_eq!(back_to(&outside), urls::HOME, "{outside}");
        }
    }
}
