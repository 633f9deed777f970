//! The HTML console under `/console`: askama pages over the same `shared::services`
//! the JSON API uses (no rule is implemented twice). Every page works without
//! JavaScript; htmx (embedded, like the CSS) swaps fragments where it helps.
//!
//! - [`auth`]: the session's admin, CSRF checks on every form (the sign-in form's a
//!   signed double-submit cookie), role checks, the MFA gate.
//! - [`mfa`]: the signed-in admin's MFA page (inline SVG QR code).
//! - [`page`]: layout context, flash messages, HTML error pages, and the answer to a
//!   form post (saved, or the form again with the reason).
//! - [`session_store`]: sessions in the shared database (several processes).
//! - [`urls`]: every console URL, named once (routers, redirects, templates).
//! - [`assets`]: the embedded static files, served under content-hashed URLs.
//! - [`headers`]: the Content-Security-Policy and other security headers of every
//!   console answer (no inline script or style anywhere).
//! - [`charts`]: inline SVG charts of the statistics (pure functions of the numbers).
//! - [`i18n`]: the request's language (the admin's choice, else the browser's) and
//!   the texts, Beijing times and numbers pages show in it; [`language`] stores the
//!   choice.
//! - [`diff`]: two versions of a question's text as HTML with `<del>`/`<ins>`.
//! - [`uploads`]: forms that carry a media file (the question editor, the library).
//! - one module per screen.

pub mod admins;
pub mod assets;
pub mod audit;
pub mod auth;
pub mod cards;
pub mod categories;
pub mod charts;
pub mod dashboard;
pub mod diff;
pub mod fair_play;
pub mod feedback;
pub mod fields;
pub mod headers;
pub mod holidays;
pub mod i18n;
pub mod import;
pub mod language;
pub mod media_library;
pub mod mfa;
pub mod nav;
pub mod page;
pub mod players;
pub mod providers;
pub mod quality;
pub mod questions;
pub mod session_store;
pub mod sign_in;
pub mod skill_tree;
pub mod uploads;
pub mod urls;

use axum::Router;
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use shared::Error;
use shared::message::{Message, msg};
use time::Duration;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer};

use crate::AppState;
use page::PageError;
use session_store::DbSessionStore;

/// The session cookie's name.
pub const COOKIE_NAME: &str = "quiz_console";
/// A console session ends after this long without a request.
pub const IDLE_TIMEOUT_HOURS: i64 = 8;

/// The `/console` routes with their session layer (every path from [`urls`]).
pub fn router(state: &AppState) -> Router<AppState> {
    let sessions = SessionManagerLayer::new(DbSessionStore::new(std::sync::Arc::clone(&state.ctx)))
        .with_name(COOKIE_NAME)
        .with_path(urls::HOME)
        .with_http_only(true)
        .with_same_site(SameSite::Strict)
        .with_secure(state.ctx.settings.console_secure_cookie)
        .with_expiry(Expiry::OnInactivity(Duration::hours(IDLE_TIMEOUT_HOURS)))
        .with_always_save(true);
    let screens = Router::new()
        .merge(sign_in::router())
        .merge(questions::router())
        .merge(quality::router())
        .merge(import::router())
        .merge(media_library::router())
        .merge(categories::router())
        .merge(cards::router())
        .merge(skill_tree::router())
        .merge(players::router())
        .merge(admins::router())
        .merge(mfa::router())
        .merge(language::router())
        .merge(providers::router())
        .merge(holidays::router())
        .merge(fair_play::router())
        .merge(feedback::router())
        .merge(audit::router());
    let pages = Router::new()
        .route(urls::HOME, get(dashboard::show))
        .merge(screens)
        .route(urls::UNKNOWN, get(not_found).post(not_found))
        .layer(axum::middleware::from_fn(page::htmx_errors))
        .layer(sessions)
        // pages only: assets are the same in every language (no Vary on them)
        .layer(axum::middleware::from_fn(i18n::layer))
        .layer(axum::middleware::map_response(shared::http::no_store));
    headers::secured(
        Router::new()
            .merge(pages)
            .route(urls::HOME_SLASH, get(|| async { Redirect::to(urls::HOME) }))
            // Assets need no session (and set no cookie).
            .route(urls::pattern::ASSET, get(assets::serve))
            // Set here, inside the headers' layer: the one the binary's router sets
            // later would answer from outside it.
            .method_not_allowed_fallback(shared::http::method_not_allowed),
    )
}

async fn not_found() -> impl IntoResponse {
    PageError::from(Error::not_found(msg::NO_SUCH_CONSOLE_PAGE))
}

/// 404 as a console page (used by handlers for unknown ids too).
pub fn missing(what: Message) -> PageError {
    PageError::from(Error::not_found(what))
}
