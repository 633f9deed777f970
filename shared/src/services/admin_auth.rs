//! Admin sign-in: the bootstrap super_admin, login, token refresh and authentication.
//!
//! Every sign-in the throttle lets through to be judged is audited, through the API
//! and the console alike: a success as `admin.login` (in the sign-in's transaction), a
//! failure as `admin.login_failed` (the account it named as the target when one exists;
//! the submitted username is never stored, people type passwords into it), each with
//! the channel and the client's address. Refusals by the throttle or of malformed input
//! write nothing, so failures reach the log at most as fast as the throttle lets them be
//! judged: 10 per client address (IPv6: per /64) per 10 minutes, 5 per username per
//! minute.

use std::net::IpAddr;

use serde::Serialize;
use utoipa::ToSchema;

use crate::client_addr::LimitKey;
use crate::context::AppContext;
use crate::db::{self, admins::AdminRow};
use crate::ids::AdminId;
use crate::message::msg;
use crate::password;
pub use crate::services::admin_identity::{AdminAccount, AdminPrincipal, AdminRole};
use crate::services::admin_mfa::{self, SecondFactor, SecondStep};
use crate::services::admin_throttle;
use crate::services::audit::{self, Write};
use crate::services::refresh_sessions::{self, TokenPair};
use crate::tokens::{Audience, TokenType, constant_time_eq};
use crate::{Error, Result};

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AdminIdentity {
    pub id: AdminId,
    pub username: String,
    pub role: AdminRole,
}

/// `POST /v1/admin/login`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminLogin {
    pub access_token: String,
    pub refresh_token: String,
    pub admin: AdminIdentity,
    /// Changes to this account's password and MFA since its previous sign-in, and at
    /// least those of the last 14 days, the latest first (at most 20): a change the admin
    /// did not make is a stolen session.
    pub security_changes: Vec<SecurityChange>,
}

/// A change to an admin's own account since its previous sign-in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecurityChange {
    /// The audit log's action: `admin.change_password`, `admin.reset_password`,
    /// `admin.mfa_setup`, `admin.mfa_enable`, `admin.mfa_disable`, `admin.mfa_reset`
    /// or `admin.mfa_lock`.
    pub action: String,
    /// Who made it: the admin themselves, a super_admin, or `system`.
    pub by: String,
    pub at: chrono::DateTime<chrono::Utc>,
}

/// Changes listed at most at a sign-in.
const SECURITY_CHANGES_SHOWN: i64 = 20;

/// How far back a sign-in lists changes to the account at least: a change stays listed
/// this long even when someone else (who made it) signed in since.
const SECURITY_CHANGES_DAYS: i64 = 14;

/// The changes to `row`'s account since its previous sign-in, and at least those of the
/// last [`SECURITY_CHANGES_DAYS`] (read in the sign-in's transaction, before it is
/// recorded): whoever changed the account and signed in after cannot hide it from the
/// owner's next sign-in.
async fn security_changes_since_last_sign_in(
    tx: &mut db::Tx,
    row: &AdminRow,
    now_ms: i64,
) -> Result<Vec<SecurityChange>> {
    let recent = now_ms - SECURITY_CHANGES_DAYS * 86_400_000;
    let since = row.last_login_at.unwrap_or(row.created_at).min(recent);
    Ok(
        db::audit::security_changes(tx, row.id.as_str(), since, SECURITY_CHANGES_SHOWN)
            .await?
            .into_iter()
            .map(|c| SecurityChange {
                action: c.action,
                by: c.actor_username,
                at: crate::clock::from_ms(c.created_at),
            })
            .collect(),
    )
}

/// Creates the first super_admin when no admin exists. Returns the generated password
/// when one had to be made up (the caller logs it once), `None` otherwise.
pub async fn bootstrap(ctx: &AppContext) -> Result<Option<String>> {
    if db::admins::count(&ctx.db).await? > 0 {
        return Ok(None);
    }
    let settings = &ctx.settings;
    let (plain, generated) = match &settings.admin_bootstrap_password {
        Some(p) => (p.expose().to_string(), false),
        None => (password::generate(16), true),
    };
    let row = new_admin_row(
        settings.admin_bootstrap_username.clone(),
        &plain,
        AdminRole::SuperAdmin,
        ctx.clock.now_ms(),
    )
    .await?;
    let mut tx = ctx.db.begin().await?;
    // A second process starting at the same moment finds the username taken.
    let inserted = db::admins::insert_if_absent(&mut tx, &row).await?;
    tx.commit().await?;
    if inserted {
        tracing::info!(username = %row.username, "created the bootstrap super_admin");
    }
    Ok((inserted && generated).then_some(plain))
}

/// The row of a new admin account: active, without MFA, its password hashed. The
/// bootstrap super_admin and the accounts a super_admin creates start alike.
pub(crate) async fn new_admin_row(
    username: String,
    plain_password: &str,
    role: AdminRole,
    now_ms: i64,
) -> Result<AdminRow> {
    Ok(AdminRow {
        id: AdminId::generate(),
        username,
        password_hash: password::hash(plain_password.to_owned()).await?,
        role,
        is_active: true,
        token_version: 0,
        last_login_at: None,
        created_at: now_ms,
        updated_at: now_ms,
        language: None,
        mfa_enabled: false,
    })
}

/// What a sign-in submits, from the API or the console's form.
#[derive(Clone, Default)]
pub struct SignIn {
    pub username: String,
    pub password: String,
    /// Needed when the admin has MFA on.
    pub second_factor: SecondFactor,
}

/// The door a sign-in came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// `POST /v1/admin/login`.
    Api,
    /// The HTML console's sign-in form.
    Console,
}

impl Channel {
    fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::Console => "console",
        }
    }
}

/// Where a sign-in comes from: the door and the client's address (the throttle counts
/// the address, an IPv6 one per /64; the audit log records it whole).
#[derive(Clone, Copy, Debug)]
pub struct Origin {
    pub channel: Channel,
    pub address: IpAddr,
}

impl Origin {
    fn limit_key(self) -> LimitKey {
        LimitKey::of(self.address)
    }

    /// What a sign-in's audit entry records of it.
    fn state(self, reason: Option<&str>) -> serde_json::Value {
        let mut state = serde_json::json!({
            "channel": self.channel.as_str(),
            "clientAddress": self.address.to_string(),
        });
        if let (Some(reason), serde_json::Value::Object(map)) = (reason, &mut state) {
            map.insert("reason".into(), reason.into());
        }
        state
    }
}

/// Records a successful sign-in of `row` from `origin` inside its transaction.
async fn record_sign_in(
    tx: &mut db::Tx,
    ctx: &AppContext,
    row: &AdminRow,
    origin: Origin,
) -> Result<()> {
    audit::record(
        tx,
        ctx,
        &principal(row.clone()),
        Write {
            action: "admin.login",
            target_type: "admin",
            target_id: Some(row.id.as_str()),
            before: None,
            after: Some(origin.state(None)),
        },
    )
    .await
}

/// Records a judged failed sign-in in its own transaction. Its failure is logged and the
/// sign-in still answers its refusal (a refusal is no write to keep atomic with it).
async fn record_failed_sign_in(ctx: &AppContext, failure: &FailedSignIn, origin: Origin) {
    let result = async {
        let mut tx = ctx.db.begin().await?;
        audit::record(
            &mut tx,
            ctx,
            &audit::anonymous(),
            Write {
                action: "admin.login_failed",
                target_type: "admin",
                target_id: failure.account.as_ref().map(AdminId::as_str),
                before: None,
                after: Some(origin.state(Some(failure.reason))),
            },
        )
        .await?;
        tx.commit().await?;
        Ok::<_, Error>(())
    }
    .await;
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not audit a failed admin sign-in");
    }
}

/// `POST /v1/admin/login`, from `origin` (the throttle counts its address).
pub async fn login(ctx: &AppContext, sign_in: &SignIn, origin: Origin) -> Result<AdminLogin> {
    let row = check_credentials(ctx, sign_in, origin).await?;
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let pair = refresh_sessions::issue_stored_pair(
        ctx,
        &mut tx,
        Audience::Admin,
        row.id.as_str(),
        row.token_version,
        None,
        now,
    )
    .await?;
    let security_changes = security_changes_since_last_sign_in(&mut tx, &row, now).await?;
    db::admins::touch_login(&mut tx, &row.id, now).await?;
    record_sign_in(&mut tx, ctx, &row, origin).await?;
    tx.commit().await?;
    Ok(AdminLogin {
        access_token: pair.access_token,
        refresh_token: pair.refresh_token,
        admin: AdminIdentity {
            id: row.id,
            username: row.username,
            role: row.role,
        },
        security_changes,
    })
}

/// What a console session remembers of its admin: the id and the token version at
/// sign-in, so a password change or deactivation ends the session as it ends tokens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ConsoleIdentity {
    pub admin_id: AdminId,
    pub token_version: i64,
}

/// The console's sign-in: the same credential checks as `login`, without tokens; with
/// the changes to the account since its previous sign-in.
pub async fn console_login(
    ctx: &AppContext,
    sign_in: &SignIn,
    origin: Origin,
) -> Result<(AdminPrincipal, ConsoleIdentity, Vec<SecurityChange>)> {
    let row = check_credentials(ctx, sign_in, origin).await?;
    let mut tx = ctx.db.begin().await?;
    let changes = security_changes_since_last_sign_in(&mut tx, &row, ctx.clock.now_ms()).await?;
    db::admins::touch_login(&mut tx, &row.id, ctx.clock.now_ms()).await?;
    record_sign_in(&mut tx, ctx, &row, origin).await?;
    tx.commit().await?;
    let identity = ConsoleIdentity {
        admin_id: row.id.clone(),
        token_version: row.token_version,
    };
    Ok((principal(row), identity, changes))
}

/// The admin behind a console session, while the account is active and unchanged.
pub async fn console_admin(ctx: &AppContext, identity: &ConsoleIdentity) -> Result<AdminPrincipal> {
    let row = live_admin(ctx, &identity.admin_id, identity.token_version).await?;
    Ok(principal(row))
}

fn principal(row: AdminRow) -> AdminPrincipal {
    AdminPrincipal {
        role: row.role,
        id: row.id,
        username: row.username,
        mfa_enabled: row.mfa_enabled,
        language: row.language.as_deref().and_then(crate::i18n::Lang::parse),
    }
}

/// Stores the console language `admin` chose (None: follow the browser's).
pub async fn set_language(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    language: Option<crate::i18n::Lang>,
) -> Result<()> {
    let mut tx = ctx.db.begin().await?;
    db::admins::set_language(&mut tx, &admin.id, language.map(|l| l.tag())).await?;
    tx.commit().await?;
    Ok(())
}

/// `ADMIN_REQUIRE_MFA`: a super_admin without MFA may only set it up (403 elsewhere).
pub fn require_mfa_if_configured(ctx: &AppContext, admin: &AdminPrincipal) -> Result<()> {
    if ctx.settings.admin_require_mfa && admin.role == AdminRole::SuperAdmin && !admin.mfa_enabled {
        return Err(Error::forbidden(
            msg::THIS_SUPER_ADMIN_ACCOUNT_MUST_SET_UP_MFA_FIRST,
        ));
    }
    Ok(())
}

/// Why a sign-in was refused, and whether the refusal counts as a failure.
enum Refusal {
    /// A wrong password (or unknown or inactive account), a wrong second factor, or
    /// locked codes.
    Failed(FailedSignIn),
    /// Not judged: MFA_REQUIRED after a right password, a busy or failing server.
    Unjudged(Error),
}

/// A failed sign-in: its answer, and what its audit entry says.
struct FailedSignIn {
    error: Error,
    /// The account the username named, if one exists.
    account: Option<AdminId>,
    /// `password`, `inactive`, `mfa_code` or `mfa_locked`.
    reason: &'static str,
}

/// The checks shared by the API and the console: input, the throttle (before any
/// argon2), the password, then the second factor. Every account-dependent path costs
/// one argon2 check: an unknown username checks a dummy hash with the same parameters,
/// an inactive account is checked like an active one, and a second factor is looked at
/// only after a right password.
async fn check_credentials(ctx: &AppContext, sign_in: &SignIn, origin: Origin) -> Result<AdminRow> {
    let username = sign_in.username.trim();
    if username.is_empty() {
        return Err(Error::validation(msg::USERNAME_IS_REQUIRED));
    }
    let len = sign_in.password.chars().count();
    if len < 8 {
        return Err(Error::validation(
            msg::PASSWORD_MUST_BE_AT_LEAST_8_CHARACTERS,
        ));
    }
    if len > 128 {
        return Err(Error::validation(
            msg::PASSWORD_MUST_BE_AT_MOST_128_CHARACTERS,
        ));
    }
    let reservation = admin_throttle::reserve(ctx, username, origin.limit_key()).await?;
    match judge(ctx, username, sign_in).await {
        Ok(row) => {
            reservation.succeeded(ctx).await;
            Ok(row)
        }
        Err(Refusal::Failed(failure)) => {
            reservation.failed();
            record_failed_sign_in(ctx, &failure, origin).await;
            Err(failure.error)
        }
        Err(Refusal::Unjudged(e)) => {
            reservation.unjudged(ctx).await;
            Err(e)
        }
    }
}

async fn judge(ctx: &AppContext, username: &str, sign_in: &SignIn) -> Result<AdminRow, Refusal> {
    let row = db::admins::get_by_username(&ctx.db, username)
        .await
        .map_err(|e| Refusal::Unjudged(e.into()))?;
    let matches = password::verify(
        sign_in.password.clone(),
        row.as_ref().map(|r| r.password_hash.clone()),
    )
    .await
    .map_err(Refusal::Unjudged)?;
    let row = match row {
        Some(row) if matches && row.is_active => row,
        other => {
            return Err(Refusal::Failed(FailedSignIn {
                error: Error::unauthorized(msg::WRONG_USERNAME_OR_PASSWORD),
                reason: if matches { "inactive" } else { "password" },
                account: other.map(|r| r.id),
            }));
        }
    };
    let failed = |error, reason| {
        Refusal::Failed(FailedSignIn {
            error,
            account: Some(row.id.clone()),
            reason,
        })
    };
    match admin_mfa::second_step(ctx, &row.id, &row.username, &sign_in.second_factor)
        .await
        .map_err(Refusal::Unjudged)?
    {
        SecondStep::Passed => Ok(row),
        SecondStep::Missing => Err(Refusal::Unjudged(Error::MfaRequired(
            msg::THIS_ACCOUNT_HAS_MFA_ON_SEND_TOTPCODE_OR_RECOVERYCODE_WITH_T,
        ))),
        SecondStep::Refused => Err(failed(
            Error::unauthorized(msg::WRONG_OR_ALREADY_USED_MFA_CODE),
            "mfa_code",
        )),
        SecondStep::Locked(error) => Err(failed(error, "mfa_locked")),
    }
}

/// `POST /v1/admin/refresh`: rotation, as for players; a used token presented again
/// revokes its family and ends the admin's access tokens (RFC 9700 §4.14).
pub async fn refresh(ctx: &AppContext, refresh_token: &str) -> Result<TokenPair> {
    let now = ctx.clock.now_ms();
    let claims = ctx
        .tokens
        .verify(Audience::Admin, TokenType::Refresh, refresh_token, now)?;
    let row = live_admin(ctx, &AdminId::from_trusted(claims.sub), claims.ver).await?;
    refresh_sessions::rotate(
        ctx,
        Audience::Admin,
        row.id.as_str(),
        row.token_version,
        refresh_token,
        now,
    )
    .await
}

/// Verifies an admin access token: the account must exist, be active, and not have
/// changed its token version (password change, deactivation) since the token was made.
pub async fn authenticate(ctx: &AppContext, token: &str) -> Result<AdminPrincipal> {
    let now = ctx.clock.now_ms();
    let claims = ctx
        .tokens
        .verify(Audience::Admin, TokenType::Access, token, now)?;
    let row = live_admin(ctx, &AdminId::from_trusted(claims.sub), claims.ver).await?;
    Ok(principal(row))
}

async fn live_admin(ctx: &AppContext, id: &AdminId, version: i64) -> Result<AdminRow> {
    match db::admins::get(&ctx.db, id).await? {
        Some(row) if row.is_active && row.token_version == version => Ok(row),
        _ => Err(Error::unauthorized(msg::ADMIN_TOKEN_NO_LONGER_VALID)),
    }
}

/// `POST /v1/admin/auth`: compares against `ADMIN_STATIC_TOKEN` in constant time.
pub fn check_static_token(ctx: &AppContext, token: &str) -> Result<()> {
    match &ctx.settings.admin_static_token {
        Some(expected) if constant_time_eq(expected.expose(), token) => Ok(()),
        _ => Err(Error::unauthorized(msg::WRONG_TOKEN)),
    }
}

/// `GET /v1/admin/admins/:id`.
pub async fn get_account(ctx: &AppContext, id: &AdminId) -> Result<AdminAccount> {
    db::admins::get(&ctx.db, id)
        .await?
        .map(|row| AdminAccount::from_row(&row))
        .ok_or_else(|| Error::not_found(msg::ADMIN_NOT_FOUND))
}
