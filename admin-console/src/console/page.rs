//! Rendering: the chrome every signed-in page shares, flash messages, HTML error pages
//! (the console's one mapping of `shared::Error`), and the htmx/no-JS response split.

use askama::Template;
use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use serde::{Deserialize, Serialize};
use shared::Error;
use shared::domain::admin_role::AdminRole;
use shared::domain::question_status::QuestionStatus;
use shared::message::Message;
use tower_sessions::Session;

use super::i18n;
use super::nav::Nav;
use super::urls;

/// A one-time message shown on the next page.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Flash {
    /// `ok` or `error` (the CSS class).
    pub kind: String,
    pub text: String,
}

const FLASH_KEY: &str = "flash";

pub async fn set_flash(session: &Session, kind: &str, text: impl Into<String>) {
    let flash = Flash {
        kind: kind.to_string(),
        text: text.into(),
    };
    if let Err(e) = session.insert(FLASH_KEY, flash).await {
        tracing::warn!(error = %e, "could not store a flash message");
    }
}

pub async fn take_flash(session: &Session) -> Option<Flash> {
    session.remove::<Flash>(FLASH_KEY).await.ok().flatten()
}

/// What the page layout needs: who is signed in, the CSRF token for its forms, the
/// active menu entry and a pending flash message.
pub struct Chrome {
    pub username: String,
    pub role: AdminRole,
    pub is_super: bool,
    pub csrf: String,
    pub nav: Nav,
    pub flash: Option<Flash>,
    /// This page's address, for the language menu to return to.
    pub back: String,
    /// The page's language (`<html lang>`).
    pub lang: super::i18n::Lang,
    /// The admin's own choice of language; None follows the browser.
    pub chosen_lang: Option<super::i18n::Lang>,
}

impl Chrome {
    /// The main menu ([`Nav::MENU`]).
    pub fn menu(&self) -> &'static [Nav] {
        &Nav::MENU
    }

    /// The entries beside the admin's name ([`Nav::ACCOUNT`]).
    pub fn account_menu(&self) -> &'static [Nav] {
        &Nav::ACCOUNT
    }
}

/// Renders `template` with `status` as an HTML response.
pub fn html(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
        Ok(body) => (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "template rendering failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                i18n::t("page-error-render"),
            )
                .into_response()
        }
    }
}

pub fn page(template: &impl Template) -> Response {
    html(StatusCode::OK, template)
}

/// True when htmx sent the request (it then wants a fragment, not a page).
pub fn is_htmx(headers: &HeaderMap) -> bool {
    headers.contains_key("hx-request")
}

/// Whether htmx sent the request (`HX-Request`): a handler that answers htmx with a
/// fragment and a plain browser with a page takes this, never the headers.
#[derive(Clone, Copy, Debug)]
pub struct HxRequest(pub bool);

impl<S: Send + Sync> FromRequestParts<S> for HxRequest {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(is_htmx(&parts.headers)))
    }
}

/// After a no-JS form post: the flash for the next page, then 303 to `to`.
pub async fn redirect_with(
    session: &Session,
    kind: &str,
    text: impl Into<String>,
    to: &str,
) -> Response {
    set_flash(session, kind, text).await;
    Redirect::to(to).into_response()
}

#[derive(Template)]
#[template(path = "console/error.html")]
struct ErrorPage<'a> {
    status: u16,
    code: &'a str,
    message: &'a str,
}

#[derive(Template)]
#[template(path = "console/_flash.html")]
struct FlashFragment<'a> {
    flash: &'a Option<Flash>,
}

/// A refused console request: rendered as an error page with the status the JSON API
/// would give; [`htmx_errors`] makes it the message swapped into the page's flash area
/// when htmx asked. Every console error is one of these (`?` on a `shared::Error`).
#[derive(Debug)]
pub struct PageError {
    pub error: Error,
}

impl From<Error> for PageError {
    fn from(error: Error) -> Self {
        Self { error }
    }
}

/// The text of a [`PageError`]'s page, kept on the response for [`htmx_errors`].
#[derive(Clone, Debug)]
struct ErrorText(String);

/// The user-facing text of an error, in the page's language; server faults stay
/// generic (they are logged). Per-item import failures are shown by the import page's
/// own table.
/// A question status named in a refusal, in the page's language (as sent when it is
/// none the service knows).
pub fn status_label(value: &str) -> String {
    QuestionStatus::parse(value).map_or_else(|| value.to_string(), |s| s.label(i18n::current()))
}

/// Why a batch left a question where it was, in the page's language: `not_found` and
/// `cannot_move` name the screen's own texts for the two refusals a move can meet.
pub fn move_refusal(reason: &Message, not_found: &str, cannot_move: &str) -> String {
    match (reason.id(), reason.arg("from"), reason.arg("to")) {
        (Some("err-not-found"), _, _) => i18n::t(not_found),
        (Some("err-cannot-move-a-question-from-from-to-to"), Some(from), Some(to)) => i18n::t2(
            cannot_move,
            "from",
            status_label(from),
            "to",
            status_label(to),
        ),
        _ => reason.render(i18n::current()),
    }
}

pub fn describe(error: &Error) -> String {
    if let Error::DatabaseUnavailable(_) = error {
        return i18n::t("page-error-unavailable");
    }
    if error.status().is_server_error() {
        return i18n::t("page-error-server");
    }
    // a status change's statuses by their names (`无法从“草稿”改为“已发布”`)
    error
        .public_message()
        .render_with(i18n::current(), &|name, value| match name {
            "from" | "to" | "status" => status_label(value),
            _ => value.to_string(),
        })
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.error.status();
        if let Error::DatabaseUnavailable(detail) = &self.error {
            // as the API logs it (shared::Error's response)
            tracing::warn!(error = %detail, "console request refused: database unreachable");
        } else if status.is_server_error() {
            tracing::error!(code = self.error.code(), error = ?self.error, "console request failed");
        }
        let message = describe(&self.error);
        let code = shared::metrics::ErrorCode(self.error.code());
        let mut res = html(
            status,
            &ErrorPage {
                status: status.as_u16(),
                code: self.error.code(),
                message: &message,
            },
        );
        res.extensions_mut().insert(code);
        res.extensions_mut().insert(ErrorText(message));
        // Throttled (429), busy or the database unreachable (503): when to come back,
        // as the JSON API says it.
        if let Some(secs) = self.error.retry_after_secs() {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        res
    }
}

/// The console's error answer to htmx: a refused request's page (a [`PageError`]) is
/// swapped for its message in the page's flash area, with the same status and headers,
/// as htmx swaps the answer into the element that asked.
pub async fn htmx_errors(req: Request, next: Next) -> Response {
    let htmx = is_htmx(req.headers());
    let mut res = next.run(req).await;
    if !htmx {
        return res;
    }
    let Some(ErrorText(text)) = res.extensions_mut().remove::<ErrorText>() else {
        return res;
    };
    let flash = Some(Flash {
        kind: "error".into(),
        text,
    });
    let mut fragment = html(res.status(), &FlashFragment { flash: &flash });
    if fragment.status().is_server_error() && !res.status().is_server_error() {
        // the fragment did not render (logged): the page stands
        return res;
    }
    let (mut parts, _) = res.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    parts
        .headers
        .insert("hx-retarget", HeaderValue::from_static("#flash"));
    parts
        .headers
        .insert("hx-reswap", HeaderValue::from_static("innerHTML"));
    let body = std::mem::take(fragment.body_mut());
    Response::from_parts(parts, body)
}

pub type PageResult = Result<Response, PageError>;

// ---------------------------------------------------------------------------------------
// The answer to a form post

/// What a form post's refusal means for the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormOf {
    /// A form that makes something: every refusal the admin can act on is shown on it.
    New,
    /// The form of an existing record: a 404 means the record is gone, which is the
    /// error page (there is no form to show again).
    Existing,
}

/// A refusal shown beside the form's fields.
pub struct Refusal {
    /// The error's status, which the form answers with.
    pub status: StatusCode,
    /// Its text for the admin ([`describe`]).
    pub message: String,
    /// The service's error.
    pub error: Error,
}

impl FormOf {
    /// True when `error` is the admin's to fix on the form: a 4xx, except a 404 of the
    /// record itself and a throttled request (429 with `Retry-After`, which the error
    /// page carries).
    fn shows(self, error: &Error) -> bool {
        error.status().is_client_error()
            && error.retry_after_secs().is_none()
            && !(self == Self::Existing && matches!(error, Error::NotFound(_)))
    }
}

/// The console's form post, written once: the form has passed its CSRF check and been
/// read (the extractor), and `result` is the service's answer. Saved: `saved` answers
/// (usually a flash and a 303 to the record's page). Refused for a reason the admin can
/// fix: `form_again` renders the same form with the typed values and the reason, with
/// the error's status. Anything else — and any refusal of an htmx request, whose target
/// is a fragment — is the console's error answer (an error page, or the htmx flash).
pub async fn save_or_rerender<T>(
    HxRequest(htmx): HxRequest,
    form: FormOf,
    result: Result<T, Error>,
    saved: impl AsyncFnOnce(T) -> PageResult,
    form_again: impl AsyncFnOnce(Refusal) -> PageResult,
) -> PageResult {
    match result {
        Ok(value) => saved(value).await,
        Err(error) if form.shows(&error) && !htmx => {
            let refusal = Refusal {
                status: error.status(),
                message: describe(&error),
                error,
            };
            form_again(refusal).await
        }
        Err(error) => Err(PageError::from(error)),
    }
}
