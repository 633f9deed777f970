//! The signed-in admin's MFA page (`/console/mfa`): enrolment with the QR code drawn
//! here as inline SVG (nothing loaded from another host), the secret as text and a code
//! field; the recovery codes shown once after enabling (which ends the admin's other
//! sessions; this one carries on); disabling with a code. Open to a
//! super_admin that `ADMIN_REQUIRE_MFA` holds back from every other screen.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use qrcode::QrCode;
use qrcode::render::svg;
use serde::Deserialize;
use shared::Error;
use shared::services::admin_auth;
use shared::services::admin_mfa::{self, MfaCode, MfaEnrolment};

use super::auth::{ConsoleAdmin, ConsoleForm, ConsoleMfaAdmin, carry_on};
use super::i18n;
use super::nav::Nav;
use super::page::HxRequest;
use super::page::{
    Chrome, FormOf, PageResult, Refusal, html, page, redirect_with, save_or_rerender,
};
use super::urls;
use crate::AppState;
use shared::client_addr::ClientAddress;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::MFA, get(show))
        .route(urls::MFA_SETUP, post(setup))
        .route(urls::MFA_ENABLE, post(enable))
        .route(urls::MFA_DISABLE, post(disable))
}

/// A pending enrolment as the page shows it.
struct Pending {
    secret: String,
    uri: String,
    /// The QR code of `uri`, an SVG document of our own making (inserted unescaped).
    qr_svg: String,
}

#[derive(Template)]
#[template(path = "console/mfa.html")]
struct MfaPage {
    chrome: Chrome,
    enabled: bool,
    pending: Option<Pending>,
    recovery_codes_left: usize,
    /// `ADMIN_REQUIRE_MFA` holds this admin back until MFA is on.
    required: bool,
    error: Option<String>,
}

#[derive(Template)]
#[template(path = "console/mfa_recovery_codes.html")]
struct RecoveryCodesPage {
    chrome: Chrome,
    codes: Vec<String>,
}

/// The QR code of an `otpauth://` URI as an inline SVG element.
fn qr_svg(uri: &str) -> Result<String, Error> {
    let code = QrCode::new(uri.as_bytes())
        .map_err(|e| Error::internal(format!("QR code of the otpauth URI failed: {e}")))?;
    let svg = code
        .render::<svg::Color>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build();
    // Inline in HTML the XML declaration has no place; the <svg> element is what shows.
    let start = svg.find("<svg").unwrap_or(0);
    let label = i18n::t("mfa-qr-label")
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    Ok(svg[start..].replacen(
        "<svg ",
        &format!("<svg role=\"img\" aria-label=\"{label}\" id=\"mfa-qr-code\" "),
        1,
    ))
}

fn pending(enrolment: MfaEnrolment) -> Result<Pending, Error> {
    Ok(Pending {
        qr_svg: qr_svg(&enrolment.otpauth_uri)?,
        secret: enrolment.secret,
        uri: enrolment.otpauth_uri,
    })
}

async fn mfa_page(
    state: &AppState,
    me: &ConsoleAdmin,
    error: Option<String>,
) -> Result<MfaPage, Error> {
    let status = admin_mfa::status(&state.ctx, &me.admin).await?;
    let enrolment = admin_mfa::pending_enrolment(&state.ctx, &me.admin).await?;
    Ok(MfaPage {
        chrome: me.chrome(Nav::Mfa).await,
        enabled: status.mfa_enabled,
        pending: enrolment.map(pending).transpose()?,
        recovery_codes_left: status.recovery_codes_left,
        required: admin_auth::require_mfa_if_configured(&state.ctx, &me.admin).is_err(),
        error,
    })
}

async fn show(State(state): State<AppState>, ConsoleMfaAdmin(me): ConsoleMfaAdmin) -> PageResult {
    Ok(page(&mfa_page(&state, &me, None).await?))
}

/// The set-up form: the admin's password typed again.
#[derive(Deserialize)]
struct PasswordForm {
    #[serde(default)]
    current_password: String,
}

async fn setup(
    State(state): State<AppState>,
    ConsoleMfaAdmin(me): ConsoleMfaAdmin,
    ClientAddress(client): ClientAddress,
    htmx: HxRequest,
    ConsoleForm(form): ConsoleForm<PasswordForm>,
) -> PageResult {
    save_or_rerender(
        htmx,
        FormOf::New,
        admin_mfa::setup(&state.ctx, &me.admin, &form.current_password, client).await,
        async |_| Ok(redirect_with(&me.session, "ok", i18n::t("mfa-flash-setup"), urls::MFA).await),
        async |refusal| refused(&state, &me, refusal).await,
    )
    .await
}

/// A code with the admin's password typed again.
#[derive(Deserialize)]
struct CodeForm {
    #[serde(default)]
    code: String,
    #[serde(default)]
    current_password: String,
}

impl CodeForm {
    fn into_code(self) -> MfaCode {
        MfaCode {
            code: self.code,
            current_password: self.current_password,
        }
    }
}

/// A refused code: the page again with the reason and the error's status.
async fn refused(state: &AppState, me: &ConsoleAdmin, refusal: Refusal) -> PageResult {
    let page = mfa_page(state, me, Some(refusal.message)).await?;
    Ok(html(refusal.status, &page))
}

async fn enable(
    State(state): State<AppState>,
    ConsoleMfaAdmin(me): ConsoleMfaAdmin,
    ClientAddress(client): ClientAddress,
    htmx: HxRequest,
    ConsoleForm(form): ConsoleForm<CodeForm>,
) -> PageResult {
    save_or_rerender(
        htmx,
        FormOf::New,
        admin_mfa::enable(&state.ctx, &me.admin, &form.into_code(), client).await,
        async |enabled| {
            // Turning MFA on ended every session of this admin; this one carries on.
            carry_on(&state, &me.session, &enabled.tokens).await?;
            Ok(page(&RecoveryCodesPage {
                chrome: me.chrome(Nav::Mfa).await,
                codes: enabled.recovery_codes,
            }))
        },
        async |refusal| refused(&state, &me, refusal).await,
    )
    .await
}

async fn disable(
    State(state): State<AppState>,
    ConsoleMfaAdmin(me): ConsoleMfaAdmin,
    ClientAddress(client): ClientAddress,
    htmx: HxRequest,
    ConsoleForm(form): ConsoleForm<CodeForm>,
) -> PageResult {
    save_or_rerender(
        htmx,
        FormOf::New,
        admin_mfa::disable(&state.ctx, &me.admin, &form.into_code(), client).await,
        async |_| Ok(redirect_with(&me.session, "ok", i18n::t("mfa-flash-off"), urls::MFA).await),
        async |refusal| refused(&state, &me, refusal).await,
    )
    .await
}
