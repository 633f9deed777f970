//! Sign-in and sign-out.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use shared::services::admin_auth::{self, ConsoleIdentity};
use tower_sessions::Session;

use super::auth::{
    CSRF_KEY, ConsoleAdmin, ConsoleForm, IDENTITY_KEY, csrf_token, new_csrf_token, session_error,
};
use super::page::{Flash, PageResult, describe, html, page, set_flash, take_flash};
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/login", get(form).post(sign_in))
        .route("/logout", post(sign_out))
}

#[derive(Template)]
#[template(path = "console/login.html")]
struct LoginPage {
    csrf: String,
    username: String,
    flash: Option<Flash>,
}

async fn form(session: Session) -> PageResult {
    let signed_in = session
        .get::<ConsoleIdentity>(IDENTITY_KEY)
        .await
        .map_err(session_error)?;
    if signed_in.is_some() {
        return Ok(Redirect::to("/console").into_response());
    }
    Ok(page(&LoginPage {
        csrf: csrf_token(&session).await?,
        username: String::new(),
        flash: take_flash(&session).await,
    }))
}

#[derive(Deserialize)]
struct Credentials {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

async fn sign_in(
    State(state): State<AppState>,
    session: Session,
    ConsoleForm(form): ConsoleForm<Credentials>,
) -> PageResult {
    match admin_auth::console_login(&state.ctx, &form.username, &form.password).await {
        Ok((admin, identity)) => {
            // A fresh id and CSRF token at sign-in: a planted session id is worthless.
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
            Ok(Redirect::to("/console").into_response())
        }
        Err(e) if e.status().is_client_error() => {
            let status = e.status();
            Ok(html(
                status,
                &LoginPage {
                    csrf: csrf_token(&session).await?,
                    username: form.username,
                    flash: Some(Flash {
                        kind: "error".into(),
                        text: describe(&e),
                    }),
                },
            ))
        }
        Err(e) => Err(e.into()),
    }
}

async fn sign_out(
    admin: ConsoleAdmin,
    ConsoleForm(_): ConsoleForm<serde::de::IgnoredAny>,
) -> Response {
    match admin.session.flush().await {
        Ok(()) => {}
        Err(e) => tracing::warn!(error = %e, "console sign-out could not delete the session"),
    }
    set_flash(&admin.session, "ok", "Signed out.").await;
    Redirect::to("/console/login").into_response()
}
