//! Who is using the console: the session's admin, the CSRF check every form passes,
//! and the role check for super_admin actions (the same rule as the JSON API).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use rand::RngCore as _;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use shared::Error;
use shared::services::admin_auth::{self, AdminPrincipal, AdminRole, ConsoleIdentity};
use shared::tokens::constant_time_eq;
use tower_sessions::Session;

use super::page::{Chrome, PageError, is_htmx, take_flash};
use crate::AppState;

pub const IDENTITY_KEY: &str = "identity";
pub const CSRF_KEY: &str = "csrf";
/// The form field (and, for htmx, the header) that carries the CSRF token.
pub const CSRF_FIELD: &str = "_csrf";
pub const CSRF_HEADER: &str = "x-csrf-token";

pub fn new_csrf_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The session's CSRF token, made on first use (the sign-in form needs one too).
pub async fn csrf_token(session: &Session) -> Result<String, Error> {
    if let Some(token) = session
        .get::<String>(CSRF_KEY)
        .await
        .map_err(session_error)?
    {
        return Ok(token);
    }
    let token = new_csrf_token();
    session
        .insert(CSRF_KEY, &token)
        .await
        .map_err(session_error)?;
    Ok(token)
}

/// A session that could not be read or written: 503 when its database could not be
/// reached (marked by the store, see [`super::session_store::UNREACHABLE`]), else 500.
pub fn session_error(e: tower_sessions::session::Error) -> Error {
    use tower_sessions::session::Error as SessionError;
    use tower_sessions::session_store::Error as StoreError;
    if let SessionError::Store(StoreError::Backend(text)) = &e
        && let Some(detail) = text.strip_prefix(super::session_store::UNREACHABLE)
    {
        return Error::DatabaseUnavailable(detail.to_string());
    }
    Error::internal(format!("console session: {e}"))
}

pub async fn session_of(parts: &mut Parts, state: &AppState) -> Result<Session, Error> {
    Session::from_request_parts(parts, state)
        .await
        .map_err(|(_, msg)| Error::internal(format!("console session missing: {msg}")))
}

/// A signed-in console user. Without a live session: a redirect to the sign-in page
/// (for htmx, an `HX-Redirect`).
pub struct ConsoleAdmin {
    pub admin: AdminPrincipal,
    pub session: Session,
    pub csrf: String,
}

impl ConsoleAdmin {
    pub fn is_super(&self) -> bool {
        self.admin.role == AdminRole::SuperAdmin
    }

    /// The layout context for a page under menu entry `nav`.
    pub async fn chrome(&self, nav: &'static str) -> Chrome {
        Chrome {
            username: self.admin.username.clone(),
            role: self.admin.role.as_str(),
            is_super: self.is_super(),
            csrf: self.csrf.clone(),
            nav,
            flash: take_flash(&self.session).await,
        }
    }

    /// 403 unless super_admin, as the JSON API's `SuperAdmin` extractor answers.
    pub fn require_super(&self, headers: &HeaderMap) -> Result<(), PageError> {
        if self.is_super() {
            Ok(())
        } else {
            Err(PageError::new(
                Error::forbidden("this needs the super_admin role"),
                headers,
            ))
        }
    }
}

fn to_sign_in(parts: &Parts) -> Response {
    if is_htmx(&parts.headers) {
        let mut res = StatusCode::NO_CONTENT.into_response();
        res.headers_mut()
            .insert("hx-redirect", HeaderValue::from_static("/console/login"));
        return res;
    }
    Redirect::to("/console/login").into_response()
}

impl FromRequestParts<AppState> for ConsoleAdmin {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let htmx = is_htmx(&parts.headers);
        let fail = |e: Error| PageError { error: e, htmx }.into_response();
        let session = session_of(parts, state).await.map_err(fail)?;
        let identity = session
            .get::<ConsoleIdentity>(IDENTITY_KEY)
            .await
            .map_err(|e| fail(session_error(e)))?;
        let Some(identity) = identity else {
            return Err(to_sign_in(parts));
        };
        let admin = match admin_auth::console_admin(&state.ctx, &identity).await {
            Ok(admin) => admin,
            Err(Error::Unauthorized(_)) => {
                // Deactivated, deleted or password changed: the session ends here.
                session.flush().await.map_err(|e| fail(session_error(e)))?;
                return Err(to_sign_in(parts));
            }
            Err(e) => return Err(fail(e)),
        };
        let csrf = csrf_token(&session).await.map_err(fail)?;
        Ok(Self {
            admin,
            session,
            csrf,
        })
    }
}

#[derive(Deserialize)]
struct CsrfField {
    #[serde(rename = "_csrf")]
    csrf: Option<String>,
}

/// Checks a submitted CSRF token against the session's, in constant time.
pub async fn check_csrf(session: &Session, submitted: Option<&str>) -> Result<(), Error> {
    let expected = session
        .get::<String>(CSRF_KEY)
        .await
        .map_err(session_error)?;
    match (expected, submitted) {
        (Some(expected), Some(submitted)) if constant_time_eq(&expected, submitted) => Ok(()),
        _ => Err(Error::forbidden(
            "the form's security token is missing or out of date; reload the page and try again",
        )),
    }
}

/// A URL-encoded form that passed the CSRF check (field `_csrf` or header
/// `X-CSRF-Token`). Repeated keys (`ids=a&ids=b`) fill a `Vec`.
pub struct ConsoleForm<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for ConsoleForm<T> {
    type Rejection = PageError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, PageError> {
        let (mut parts, body) = req.into_parts();
        let htmx = is_htmx(&parts.headers);
        let fail = |error: Error| PageError { error, htmx };
        let session = session_of(&mut parts, state).await.map_err(fail)?;
        let header_token = parts
            .headers
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let bytes = Bytes::from_request(Request::from_parts(parts, body), state)
            .await
            .map_err(|e| {
                fail(if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    Error::PayloadTooLarge("the form is too large".into())
                } else {
                    Error::validation(e.body_text())
                })
            })?;
        let field: CsrfField = serde_html_form::from_bytes(&bytes)
            .map_err(|e| fail(Error::validation(format!("unreadable form: {e}"))))?;
        let submitted = header_token.or(field.csrf);
        check_csrf(&session, submitted.as_deref())
            .await
            .map_err(fail)?;
        let value = serde_html_form::from_bytes(&bytes)
            .map_err(|e| fail(Error::validation(format!("invalid form field: {e}"))))?;
        Ok(Self(value))
    }
}
