//! Sign-in and sign-out. No session is stored before a successful sign-in: the form's
//! CSRF token is a signed double-submit cookie ([`SignInForm`]), and the sign-out
//! message travels in the redirect's query.

use askama::Template;
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::services::admin_auth::{self, Channel, ConsoleIdentity, Origin, SignIn};
use shared::services::admin_mfa::SecondFactor;
use tower_sessions::Session;

use super::auth::{
    CSRF_KEY, ConsoleForm, ConsoleMfaAdmin, IDENTITY_KEY, SignInForm, new_csrf_token,
    session_error, sign_in_csrf,
};
use super::i18n;
use super::page::HxRequest;
use super::page::{Flash, FormOf, PageResult, html, save_or_rerender, set_flash};
use super::urls;
use crate::AppState;
use shared::client_addr::ClientIp;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::LOGIN, get(form).post(sign_in))
        .route(urls::LOGOUT, post(sign_out))
}

#[derive(Template)]
#[template(path = "console/login.html")]
struct LoginPage {
    csrf: String,
    username: String,
    flash: Option<Flash>,
    /// The last answer asked for the second factor: the code field is marked.
    mfa_required: bool,
}

/// The sign-in page with a fresh token in its form and its cookie.
fn login_page(
    state: &AppState,
    status: StatusCode,
    username: String,
    flash: Option<Flash>,
    mfa_required: bool,
) -> Response {
    let (csrf, cookie) = sign_in_csrf(state);
    let mut res = html(
        status,
        &LoginPage {
            csrf,
            username,
            flash,
            mfa_required,
        },
    );
    res.headers_mut().append(header::SET_COOKIE, cookie);
    res
}

async fn form(
    State(state): State<AppState>,
    session: Session,
    RawQuery(query): RawQuery,
) -> PageResult {
    // Reading an anonymous session stores nothing (tower-sessions saves no empty one).
    let signed_in = session
        .get::<ConsoleIdentity>(IDENTITY_KEY)
        .await
        .map_err(session_error)?;
    if signed_in.is_some() {
        return Ok(Redirect::to(urls::HOME).into_response());
    }
    let flash = (query.as_deref() == Some(urls::SIGNED_OUT_QUERY)).then(|| Flash {
        kind: "ok".into(),
        text: i18n::t("sign-in-signed-out"),
    });
    Ok(login_page(
        &state,
        StatusCode::OK,
        String::new(),
        flash,
        false,
    ))
}

#[derive(Deserialize)]
struct Credentials {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
    /// A 6-digit TOTP code or a recovery code; needed only when the admin has MFA on.
    #[serde(default)]
    code: String,
}

async fn sign_in(
    State(state): State<AppState>,
    session: Session,
    htmx: HxRequest,
    ClientIp(address): ClientIp,
    SignInForm(form): SignInForm<Credentials>,
) -> PageResult {
    let attempt = SignIn {
        username: form.username.clone(),
        password: form.password,
        second_factor: SecondFactor::from_either(&form.code),
    };
    // Throttled or busy: the console's error page, with its Retry-After.
    save_or_rerender(
        htmx,
        FormOf::New,
        admin_auth::console_login(
            &state.ctx,
            &attempt,
            Origin {
                channel: Channel::Console,
                address,
            },
        )
        .await,
        async |(admin, identity, changes)| {
            // The session is made here, with a fresh id and its own CSRF token.
            session.cycle_id().await.map_err(session_error)?;
            session
                .insert(IDENTITY_KEY, identity)
                .await
                .map_err(session_error)?;
            session
                .insert(CSRF_KEY, new_csrf_token())
                .await
                .map_err(session_error)?;
            tracing::info!(admin = %admin.username, "console sign-in");
            if !changes.is_empty() {
                // what changed on this account since its last sign-in, on the next page
                let list = changes
                    .iter()
                    .map(|c| {
                        i18n::t2(
                            &format!("security-change-{}", c.action.replace('.', "-")),
                            "by",
                            c.by.clone(),
                            "at",
                            i18n::when(&c.at),
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
                set_flash(
                    &session,
                    "error",
                    i18n::t1("sign-in-security-changes", "list", list),
                )
                .await;
            }
            let to = if admin_auth::require_mfa_if_configured(&state.ctx, &admin).is_err() {
                urls::MFA
            } else {
                urls::HOME
            };
            Ok(Redirect::to(to).into_response())
        },
        async |refused| {
            let mfa_required = matches!(refused.error, Error::MfaRequired(_));
            let text = if mfa_required {
                i18n::t("sign-in-mfa-needed")
            } else {
                refused.message
            };
            let flash = Flash {
                kind: "error".into(),
                text,
            };
            let status = refused.status;
            Ok(login_page(
                &state,
                status,
                form.username,
                Some(flash),
                mfa_required,
            ))
        },
    )
    .await
}

async fn sign_out(
    ConsoleMfaAdmin(admin): ConsoleMfaAdmin,
    ConsoleForm(_): ConsoleForm<serde::de::IgnoredAny>,
) -> Response {
    match admin.session.flush().await {
        Ok(()) => {}
        Err(e) => tracing::warn!(error = %e, "console sign-out could not delete the session"),
    }
    // The message rides in the query: a flash would store a new session for it.
    Redirect::to(&urls::signed_out()).into_response()
}
