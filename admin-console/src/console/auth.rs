//! Who is using the console: the session's admin, the CSRF check every form passes
//! (per session; the sign-in form's is a signed double-submit cookie, since no session
//! exists before sign-in), the role check for super_admin actions and the MFA gate (the
//! same rules as the JSON API).

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use rand::RngCore as _;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use shared::Error;
use shared::message::msg;
use shared::services::admin_auth::{self, AdminPrincipal, AdminRole, ConsoleIdentity};
use shared::services::refresh_sessions::TokenPair;
use shared::tokens::{Audience, TokenType, constant_time_eq};
use tower_sessions::Session;
use tower_sessions::cookie::{Cookie, SameSite};

use super::nav::Nav;
use super::page::{Chrome, PageError, is_htmx, take_flash};
use super::urls;
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

/// The signed-in session's CSRF token (made at sign-in; made here for a session from
/// before that rule).
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

/// Carries this console session on after a change that ended every session of its
/// admin (a password change, MFA turned on): it takes the token version of the fresh
/// pair the change answered, and a new id (the old one was in use before the change).
pub async fn carry_on(
    state: &AppState,
    session: &Session,
    tokens: &TokenPair,
) -> Result<(), Error> {
    let ctx = &state.ctx;
    let claims = ctx.tokens.verify(
        Audience::Admin,
        TokenType::Access,
        &tokens.access_token,
        ctx.clock.now_ms(),
    )?;
    let identity = ConsoleIdentity {
        admin_id: shared::ids::AdminId::from_trusted(claims.sub),
        token_version: claims.ver,
    };
    session
        .insert(IDENTITY_KEY, identity)
        .await
        .map_err(session_error)?;
    session.cycle_id().await.map_err(session_error)
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
    /// Where the header's language menu returns to: this page (a GET's path and
    /// query), else the dashboard.
    pub back: String,
}

impl ConsoleAdmin {
    pub fn is_super(&self) -> bool {
        self.admin.role == AdminRole::SuperAdmin
    }

    /// The layout context for a page under menu entry `nav`.
    pub async fn chrome(&self, nav: Nav) -> Chrome {
        Chrome {
            username: self.admin.username.clone(),
            role: self.admin.role,
            is_super: self.is_super(),
            csrf: self.csrf.clone(),
            nav,
            flash: take_flash(&self.session).await,
            back: self.back.clone(),
            lang: super::i18n::current(),
            chosen_lang: self.admin.language,
        }
    }

    /// 403 unless super_admin, as the JSON API's `SuperAdmin` extractor answers.
    pub fn require_super(&self) -> Result<(), PageError> {
        if self.is_super() {
            Ok(())
        } else {
            Err(Error::forbidden(msg::THIS_NEEDS_THE_SUPER_ADMIN_ROLE).into())
        }
    }
}

/// A redirect to `to` (for htmx, an `HX-Redirect`, so the page navigates instead of
/// swapping the target into a fragment).
fn redirect(parts: &Parts, to: &'static str) -> Response {
    if is_htmx(&parts.headers) {
        let mut res = StatusCode::NO_CONTENT.into_response();
        res.headers_mut()
            .insert("hx-redirect", HeaderValue::from_static(to));
        return res;
    }
    Redirect::to(to).into_response()
}

/// The signed-in admin of the request's session, MFA gate aside.
async fn signed_in(parts: &mut Parts, state: &AppState) -> Result<ConsoleAdmin, Response> {
    let htmx = is_htmx(&parts.headers);
    let fail = |e: Error| PageError::from(e).into_response();
    let session = session_of(parts, state).await.map_err(fail)?;
    let identity = session
        .get::<ConsoleIdentity>(IDENTITY_KEY)
        .await
        .map_err(|e| fail(session_error(e)))?;
    let Some(identity) = identity else {
        return Err(redirect(parts, urls::LOGIN));
    };
    let admin = match admin_auth::console_admin(&state.ctx, &identity).await {
        Ok(admin) => admin,
        Err(Error::Unauthorized(_)) => {
            // Deactivated, deleted or password changed: the session ends here.
            session.flush().await.map_err(|e| fail(session_error(e)))?;
            return Err(redirect(parts, urls::LOGIN));
        }
        Err(e) => return Err(fail(e)),
    };
    if let Some(lang) = admin.language {
        super::i18n::choose(lang);
    }
    let csrf = csrf_token(&session).await.map_err(fail)?;
    let back = match parts.uri.path_and_query() {
        Some(here) if parts.method == axum::http::Method::GET && !htmx => here.to_string(),
        _ => urls::HOME.to_string(),
    };
    Ok(ConsoleAdmin {
        admin,
        session,
        csrf,
        back,
    })
}

/// Every screen: with `ADMIN_REQUIRE_MFA`, a super_admin without MFA is sent to the MFA
/// page (the JSON API's 403 for the same admin).
impl FromRequestParts<AppState> for ConsoleAdmin {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let me = signed_in(parts, state).await?;
        if admin_auth::require_mfa_if_configured(&state.ctx, &me.admin).is_err() {
            return Err(redirect(parts, urls::MFA));
        }
        Ok(me)
    }
}

/// The MFA page and sign-out: open to a super_admin that `ADMIN_REQUIRE_MFA` holds back.
pub struct ConsoleMfaAdmin(pub ConsoleAdmin);

impl FromRequestParts<AppState> for ConsoleMfaAdmin {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        Ok(Self(signed_in(parts, state).await?))
    }
}

// ---------------------------------------------------------------------------------------
// The sign-in form's CSRF token: no session exists before sign-in (an anonymous visit
// stores nothing), so the token is a signed double-submit cookie instead.

/// Unix seconds on the wall clock, like the console's session expiry (not the service
/// clock, which only game rules read).
fn wall_clock_secs() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// The cookie that carries the sign-in form's token, sent only to the sign-in form.
pub const SIGN_IN_CSRF_COOKIE: &str = "quiz_console_login";

/// A fresh sign-in token and the `Set-Cookie` value that stores it.
pub fn sign_in_csrf(state: &AppState) -> (String, HeaderValue) {
    let token = state.ctx.tokens.sign_in_form_token(wall_clock_secs());
    let cookie = Cookie::build((SIGN_IN_CSRF_COOKIE, token.clone()))
        .path(urls::LOGIN)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(state.ctx.settings.console_secure_cookie)
        .build();
    let value =
        HeaderValue::from_str(&cookie.to_string()).unwrap_or_else(|_| HeaderValue::from_static(""));
    (token, value)
}

/// The sign-in token of the request's cookie.
fn sign_in_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == SIGN_IN_CSRF_COOKIE)
        .map(|c| c.value().to_string())
}

/// The sign-in form, posted with the same signed token in its cookie and its `_csrf`
/// field (403 otherwise).
pub struct SignInForm<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for SignInForm<T> {
    type Rejection = PageError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, PageError> {
        let cookie = sign_in_cookie(req.headers());
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            PageError::from(if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                Error::PayloadTooLarge(msg::THE_FORM_IS_TOO_LARGE)
            } else {
                Error::validation(msg::the_request_was_refused_detail(e.body_text()))
            })
        })?;
        let field: CsrfField = serde_html_form::from_bytes(&bytes)
            .map_err(|e| PageError::from(Error::validation(msg::unreadable_form_detail(e))))?;
        if !state.ctx.tokens.check_sign_in_form_token(
            cookie.as_deref(),
            field.csrf.as_deref(),
            wall_clock_secs(),
        ) {
            return Err(PageError::from(csrf_refusal()));
        }
        let form = serde_html_form::from_bytes(&bytes)
            .map_err(|e| PageError::from(Error::validation(msg::invalid_form_field_detail(e))))?;
        Ok(Self(form))
    }
}

fn csrf_refusal() -> Error {
    Error::forbidden(msg::THE_FORM_S_SECURITY_TOKEN_IS_MISSING_OR_OUT_OF_DATE_RELOAD_T)
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
        _ => Err(csrf_refusal()),
    }
}

/// A URL-encoded form that passed the CSRF check (field `_csrf` or header
/// `X-CSRF-Token`). Repeated keys (`ids=a&ids=b`) fill a `Vec`.
pub struct ConsoleForm<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for ConsoleForm<T> {
    type Rejection = PageError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, PageError> {
        let (mut parts, body) = req.into_parts();
        let fail = PageError::from;
        let session = session_of(&mut parts, state).await.map_err(fail)?;
        let header_token = csrf_header(&parts.headers);
        let bytes = Bytes::from_request(Request::from_parts(parts, body), state)
            .await
            .map_err(|e| {
                fail(if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    Error::PayloadTooLarge(msg::THE_FORM_IS_TOO_LARGE)
                } else {
                    Error::validation(msg::the_request_was_refused_detail(e.body_text()))
                })
            })?;
        checked_form(&session, header_token, &bytes)
            .await
            .map(Self)
            .map_err(fail)
    }
}

/// The token htmx sends in `X-CSRF-Token`, if any.
pub fn csrf_header(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// A URL-encoded form's fields, once its token (`header_token`, else its `_csrf` field)
/// passed the check.
pub async fn checked_form<T: DeserializeOwned>(
    session: &Session,
    header_token: Option<String>,
    bytes: &[u8],
) -> Result<T, Error> {
    let field: CsrfField = serde_html_form::from_bytes(bytes)
        .map_err(|e| Error::validation(msg::unreadable_form_detail(e)))?;
    let submitted = header_token.or(field.csrf);
    check_csrf(session, submitted.as_deref()).await?;
    serde_html_form::from_bytes(bytes)
        .map_err(|e| Error::validation(msg::invalid_form_field_detail(e)))
}
