//! Admin MFA: TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps, one step of skew either
//! way) with one-time recovery codes.
//!
//! - Enrolment: [`setup`] stores a pending secret (again: a new one) and returns it with
//!   its `otpauth://` URI; [`enable`] turns MFA on once a code of it matches and returns
//!   ten recovery codes, shown that once and stored as SHA-256.
//! - Replay: a code is accepted only for a time step later than the last accepted one
//!   (a conditional update), so a code works once, even for two concurrent sign-ins.
//! - Recovery codes work once: a conditional delete spends them.
//! - Codes are checked against the real clock, not the service clock: authenticator apps
//!   run in real time (as HUAWEI and Apple tokens are checked).
//! - Wrong codes (TOTP or recovery, at sign-in or when turning MFA off) are counted per
//!   admin in the database beside the per-minute sign-in throttle: the [`CODE_LIMIT`]th
//!   wrong code within [`CODE_WINDOW_MS`] of a run's first locks the codes for
//!   [`CODE_LOCK_MS`], or until a super_admin's MFA reset (both audited).
//! - Turning MFA on ends every other session of the admin (as a password change does);
//!   the one that turned it on carries on with the fresh token pair of the answer.
//!
//! Secrets live in the database sealed with `SECRETS_KEY` (AES-256-GCM, see
//! [`crate::secrets_key`]) and are never logged (no `Debug` on their types). Secrets
//! stored before sealing are read as they are and sealed at the console's start
//! ([`seal_stored_secrets`]).

use rand::Rng;
use serde::{Deserialize, Serialize};
use totp_rs::{Builder, Secret, Totp};
use utoipa::ToSchema;

use crate::client_addr::LimitKey;
use crate::context::AppContext;
use crate::db::{self, admin_mfa::CodeCounter, admin_mfa::SecretColumn};
use crate::ids::AdminId;
use crate::message::msg;
use crate::secrets_key::Opened;
use crate::services::admin_identity::{AdminAccount, AdminPrincipal};
use crate::services::admin_throttle;
use crate::services::audit::{self, Write};
use crate::services::refresh_sessions::{self, TokenPair};
use crate::tokens::{Audience, constant_time_eq};
use crate::{Error, Result};

/// The issuer authenticator apps show beside the account.
pub const ISSUER: &str = "QuizGame";
/// Recovery codes made at enrolment.
pub const RECOVERY_CODES: usize = 10;
/// Wrong codes per admin within [`CODE_WINDOW_MS`] of a run's first that lock the codes.
pub const CODE_LIMIT: i64 = 10;
/// How long a run of wrong codes counts (service clock).
pub const CODE_WINDOW_MS: i64 = 3_600_000;
/// How long locked codes stay refused, unless a super_admin resets the admin's MFA.
pub const CODE_LOCK_MS: i64 = 3_600_000;

/// `POST /v1/admin/mfa/setup`: the pending secret, to be confirmed with a code.
#[derive(Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MfaEnrolment {
    /// The shared secret, base32 (for typing into an authenticator app).
    pub secret: String,
    /// `otpauth://totp/QuizGame:<username>?secret=…&issuer=QuizGame…` (for a QR code).
    pub otpauth_uri: String,
}

/// `POST /v1/admin/mfa/enable`: MFA is on; the recovery codes are shown this once.
#[derive(Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MfaEnabled {
    pub mfa_enabled: bool,
    /// Ten one-time codes that stand in for a TOTP code (e.g. a lost phone).
    pub recovery_codes: Vec<String>,
    /// Fresh tokens for this admin: every token and console session from before MFA
    /// was on has ended (they were signed in with the password alone).
    pub tokens: TokenPair,
}

/// `GET /v1/admin/mfa`, and the answer of `POST /v1/admin/mfa/disable`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MfaStatus {
    pub mfa_enabled: bool,
    /// A set-up waits for its first code.
    pub pending: bool,
    /// Unused recovery codes.
    pub recovery_codes_left: usize,
}

/// The body of enable and disable.
#[derive(Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MfaCode {
    /// A current 6-digit TOTP code; for disable, a recovery code works too.
    pub code: String,
    /// The admin's password, typed again: a session alone (a stolen token) turns MFA
    /// neither on nor off.
    pub current_password: String,
}

/// `POST /v1/admin/mfa/setup`'s body.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MfaSetup {
    /// The admin's password, typed again (as for `/mfa/enable`).
    pub current_password: String,
}

/// A sign-in's second factor, as submitted.
#[derive(Clone, Default)]
pub struct SecondFactor {
    pub totp_code: Option<String>,
    pub recovery_code: Option<String>,
}

impl SecondFactor {
    /// One field holding either kind (the console's sign-in form): six digits are a TOTP
    /// code, anything else a recovery code.
    pub fn from_either(code: &str) -> Self {
        let code = code.trim();
        if code.is_empty() {
            Self::default()
        } else if is_totp_shaped(code) {
            Self {
                totp_code: Some(code.to_string()),
                recovery_code: None,
            }
        } else {
            Self {
                totp_code: None,
                recovery_code: Some(code.to_string()),
            }
        }
    }

    fn is_empty(&self) -> bool {
        let blank = |c: &Option<String>| c.as_deref().is_none_or(|c| c.trim().is_empty());
        blank(&self.totp_code) && blank(&self.recovery_code)
    }
}

fn is_totp_shaped(code: &str) -> bool {
    let digits: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    digits.len() == 6 && digits.chars().all(|c| c.is_ascii_digit())
}

/// The TOTP of a base32 secret, labelled for `username`.
fn totp_of(secret_b32: &str, username: &str) -> Result<Totp> {
    let secret = Secret::try_from_base32(secret_b32)
        .map_err(|_| Error::internal("stored TOTP secret is not base32"))?;
    // The label's parts must not hold ':' (otpauth URI syntax).
    let account = username.replace(':', "_");
    Builder::new()
        .with_secret(secret)
        .with_account_name(account)
        .with_issuer(Some(ISSUER))
        .build()
        .map_err(|e| Error::internal(format!("TOTP set-up failed: {e}")))
}

/// What a stored secret belongs to (bound into its seal): the admin's row, for the
/// pending and the confirmed secret alike (enabling moves one into the other).
fn secret_context(admin_id: &AdminId) -> String {
    format!("admin_mfa.secret:{admin_id}")
}

fn seal_secret(ctx: &AppContext, admin_id: &AdminId, base32: &str) -> Result<String> {
    ctx.secrets_key.seal(base32, &secret_context(admin_id))
}

/// The base32 secret of a stored one (sealed, or from before sealing).
fn open_secret(ctx: &AppContext, admin_id: &AdminId, stored: &str) -> Result<String> {
    ctx.secrets_key
        .open(stored, &secret_context(admin_id))
        .map(Opened::into_inner)
        .map_err(|e| Error::internal(format!("the TOTP secret of admin {admin_id}: {e}")))
}

fn real_now_secs() -> u64 {
    u64::try_from(chrono::Utc::now().timestamp()).unwrap_or(0)
}

/// The time step `code` matches now (±1 step), if any.
fn matching_step(totp: &Totp, code: &str) -> Option<i64> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    totp.check(&code, real_now_secs())
        .and_then(|step| i64::try_from(step).ok())
}

fn new_secret() -> String {
    let mut bytes = vec![0u8; 20];
    rand::rng().fill(&mut bytes[..]);
    Secret::from(bytes).to_base32()
}

fn enrolment(secret: String, username: &str) -> Result<MfaEnrolment> {
    let otpauth_uri = totp_of(&secret, username)?
        .to_url()
        .map_err(|e| Error::internal(format!("otpauth URI failed: {e}")))?;
    Ok(MfaEnrolment {
        secret,
        otpauth_uri,
    })
}

/// `xxxx-xxxx-xxxx-xxxx` of 32 symbols: 80 random bits, no look-alike characters.
fn new_recovery_code() -> String {
    const SYMBOLS: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = rand::rng();
    let raw: Vec<char> = (0..16)
        .map(|_| SYMBOLS[rng.random_range(0..SYMBOLS.len())] as char)
        .collect();
    raw.chunks(4)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("-")
}

/// SHA-256 of a recovery code as typed, dashes, spaces and case ignored.
fn recovery_hash(code: &str) -> String {
    let normal: String = code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    crate::tokens::sha256_hex(normal.as_bytes())
}

/// `GET /v1/admin/mfa`.
pub async fn status(ctx: &AppContext, admin: &AdminPrincipal) -> Result<MfaStatus> {
    let row = db::admin_mfa::get(&ctx.db, &admin.id).await?;
    let left = db::admin_mfa::recovery_code_hashes(&ctx.db, &admin.id)
        .await?
        .len();
    Ok(MfaStatus {
        mfa_enabled: row.as_ref().is_some_and(|r| r.secret.is_some()),
        pending: row.as_ref().is_some_and(|r| r.pending_secret.is_some()),
        recovery_codes_left: left,
    })
}

/// `POST /v1/admin/mfa/setup`, with the admin's password typed again
/// (`admin_throttle::confirm_current_password`): a new pending secret (replacing one
/// not yet confirmed), audited; 409 CONFLICT while MFA is on.
pub async fn setup(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    current_password: &str,
    client: LimitKey,
) -> Result<MfaEnrolment> {
    admin_throttle::confirm_current_password(ctx, admin, current_password, client).await?;
    let secret = new_secret();
    let sealed = seal_secret(ctx, &admin.id, &secret)?;
    let mut tx = ctx.db.begin().await?;
    if !db::admin_mfa::set_pending(&mut tx, &admin.id, &sealed, ctx.clock.now_ms()).await? {
        return Err(Error::conflict(
            msg::MFA_IS_ALREADY_ON_DISABLE_IT_FIRST_TO_ENROL_A_NEW_DEVICE,
        ));
    }
    commit_own_mfa_change(tx, ctx, admin, "admin.mfa_setup").await?;
    enrolment(secret, &admin.username)
}

/// The set-up waiting for its first code, if any (the console shows it again).
pub async fn pending_enrolment(
    ctx: &AppContext,
    admin: &AdminPrincipal,
) -> Result<Option<MfaEnrolment>> {
    match db::admin_mfa::get(&ctx.db, &admin.id).await? {
        Some(row) if row.secret.is_none() => row
            .pending_secret
            .map(|s| enrolment(open_secret(ctx, &admin.id, &s)?, &admin.username))
            .transpose(),
        _ => Ok(None),
    }
}

/// `POST /v1/admin/mfa/enable`: MFA on when `code` matches the pending secret; the
/// recovery codes are returned this once. Every other session of the admin ends (they
/// were made with the password alone) and the answer carries the caller's fresh tokens.
/// 409 when MFA is on already, 400 without a set-up or with a wrong code (not counted
/// by the wrong-code lock: the secret is not in use yet, and only this signed-in admin
/// can try).
pub async fn enable(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    code: &MfaCode,
    client: LimitKey,
) -> Result<MfaEnabled> {
    let row = db::admin_mfa::get(&ctx.db, &admin.id).await?;
    let pending = match row {
        Some(r) if r.secret.is_some() => return Err(Error::conflict(msg::MFA_IS_ALREADY_ON)),
        Some(r) => r.pending_secret,
        None => None,
    };
    let Some(pending) = pending else {
        return Err(Error::validation(
            msg::NO_MFA_SET_UP_IS_WAITING_START_ONE_WITH_POST_V1_ADMIN_MFA_SE,
        ));
    };
    admin_throttle::confirm_current_password(ctx, admin, &code.current_password, client).await?;
    let totp = totp_of(&open_secret(ctx, &admin.id, &pending)?, &admin.username)?;
    let step = matching_step(&totp, &code.code).ok_or_else(|| {
        Error::validation(msg::THE_CODE_DOES_NOT_MATCH_CHECK_THE_DEVICE_S_TIME_AND_TRY_AGAI)
    })?;
    let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
    let hashes: Vec<String> = codes.iter().map(|c| recovery_hash(c)).collect();
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    // The confirming code's step counts as used: it cannot sign in afterwards.
    if !db::admin_mfa::enable(&mut tx, &admin.id, &pending, step, now).await? {
        return Err(Error::conflict(
            msg::THE_MFA_SET_UP_CHANGED_MEANWHILE_START_AGAIN,
        ));
    }
    db::admin_mfa::replace_recovery_codes(&mut tx, &admin.id, &hashes, now).await?;
    let version = db::admins::next_token_version(&mut tx, &admin.id, now)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ADMIN_NOT_FOUND))?;
    let tokens =
        refresh_sessions::restart_admin_sessions(ctx, &mut tx, &admin.id, version, now).await?;
    commit_own_mfa_change(tx, ctx, admin, "admin.mfa_enable").await?;
    Ok(MfaEnabled {
        mfa_enabled: true,
        recovery_codes: codes,
        tokens,
    })
}

/// Whether `factor` is a current TOTP code of the confirmed secret (`stored_secret`, as
/// stored) not used before, or an unused recovery code; a match is spent. Wrong and
/// replayed codes are the same `false`.
async fn accept_factor(
    ctx: &AppContext,
    admin_id: &AdminId,
    username: &str,
    stored_secret: &str,
    factor: &SecondFactor,
) -> Result<bool> {
    let totp = factor
        .totp_code
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    if let Some(code) = totp {
        let secret = open_secret(ctx, admin_id, stored_secret)?;
        let Some(step) = matching_step(&totp_of(&secret, username)?, code) else {
            return Ok(false);
        };
        return Ok(db::admin_mfa::use_step(&ctx.db, admin_id, stored_secret, step).await?);
    }
    let recovery = factor
        .recovery_code
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    if let Some(code) = recovery {
        let wanted = recovery_hash(code);
        // Every stored hash is compared, in constant time, before the match is spent.
        let mut found = None;
        for stored in db::admin_mfa::recovery_code_hashes(&ctx.db, admin_id).await? {
            if constant_time_eq(&stored, &wanted) {
                found = Some(stored);
            }
        }
        return match found {
            Some(hash) => Ok(db::admin_mfa::spend_recovery_code(&ctx.db, admin_id, &hash).await?),
            None => Ok(false),
        };
    }
    Ok(false)
}

/// How a submitted code was judged under the wrong-code lock.
enum CodeVerdict {
    /// Right (and now spent).
    Accepted,
    /// Wrong, replayed or spent: counted.
    Wrong,
    /// Not judged: the admin's codes are locked for this long.
    Locked { retry_after_secs: u64 },
}

/// Judges `factor` against the admin's confirmed secret under the wrong-code lock: a
/// place in the run's counter is reserved first (locked codes are never judged), a
/// right code gives it back, a wrong one keeps it, and the [`CODE_LIMIT`]th of a run
/// locks the codes (audited as `admin.mfa_lock`).
async fn judge_code(
    ctx: &AppContext,
    admin_id: &AdminId,
    username: &str,
    stored_secret: &str,
    factor: &SecondFactor,
) -> Result<CodeVerdict> {
    let now = ctx.clock.now_ms();
    let counter = CodeCounter {
        now_ms: now,
        window_ms: CODE_WINDOW_MS,
        limit: CODE_LIMIT,
    };
    let Some(run_start) = db::admin_mfa::reserve_code(&ctx.db, admin_id, counter).await? else {
        return Ok(match refused_for_ms(ctx, admin_id, now).await? {
            Some(ms) => CodeVerdict::Locked {
                retry_after_secs: crate::error::retry_after_secs(ms),
            },
            // MFA went off meanwhile: the code matches nothing.
            None => CodeVerdict::Wrong,
        });
    };
    let give_back = async || {
        if let Err(e) = db::admin_mfa::give_back_code(&ctx.db, admin_id, run_start).await {
            tracing::warn!(error = %e, "could not give a wrong-code place back");
        }
    };
    match accept_factor(ctx, admin_id, username, stored_secret, factor).await {
        Ok(true) => {
            give_back().await;
            Ok(CodeVerdict::Accepted)
        }
        Ok(false) => {
            lock_codes_if_full(ctx, admin_id, run_start, now).await?;
            Ok(CodeVerdict::Wrong)
        }
        Err(e) => {
            give_back().await;
            Err(e)
        }
    }
}

/// How much longer the admin's codes are refused (a lock, or a full run whose last
/// codes are still being judged), if they are.
async fn refused_for_ms(ctx: &AppContext, admin_id: &AdminId, now: i64) -> Result<Option<i64>> {
    let Some(row) = db::admin_mfa::get(&ctx.db, admin_id).await? else {
        return Ok(None);
    };
    let until = match row.code_locked_until {
        Some(until) => until,
        None if row.code_failures >= CODE_LIMIT => row.code_failures_since + CODE_WINDOW_MS,
        None => return Ok(None),
    };
    Ok((until > now).then_some(until - now))
}

/// After a wrong code: locks the codes when its run is full, with the audit entry, in one
/// transaction (of concurrent last guesses one locks).
async fn lock_codes_if_full(
    ctx: &AppContext,
    admin_id: &AdminId,
    run_start: i64,
    now: i64,
) -> Result<()> {
    let until = now + CODE_LOCK_MS;
    let mut tx = ctx.db.begin().await?;
    if !db::admin_mfa::lock_codes_if_full(&mut tx, admin_id, run_start, CODE_LIMIT, until).await? {
        return Ok(());
    }
    tracing::warn!(admin = %admin_id, "too many wrong MFA codes; the admin's codes are locked");
    audit::record_and_commit(
        tx,
        ctx,
        &audit::system(),
        Write {
            action: "admin.mfa_lock",
            target_type: "admin",
            target_id: Some(admin_id.as_str()),
            before: None,
            after: Some(serde_json::json!({
                "wrongCodes": CODE_LIMIT,
                "lockedUntil": crate::clock::from_ms(until),
            })),
        },
    )
    .await
}

/// The refusal of a code while the admin's codes are locked.
fn locked(retry_after_secs: u64) -> Error {
    Error::RateLimited {
        message: msg::TOO_MANY_WRONG_MFA_CODES_THIS_ACCOUNT_S_CODES_ARE_REFUSED_F,
        retry_after_secs,
    }
}

/// What a sign-in with a right password still needs.
pub(crate) enum SecondStep {
    /// MFA is off, or the factor was accepted (and spent).
    Passed,
    /// MFA is on and no code was given.
    Missing,
    /// A wrong, replayed or spent code.
    Refused,
    /// The admin's codes are locked (too many wrong ones): this refusal.
    Locked(Error),
}

/// The second step of a sign-in whose password was right.
pub(crate) async fn second_step(
    ctx: &AppContext,
    admin_id: &AdminId,
    username: &str,
    factor: &SecondFactor,
) -> Result<SecondStep> {
    let secret = db::admin_mfa::get(&ctx.db, admin_id)
        .await?
        .and_then(|r| r.secret);
    let Some(secret) = secret else {
        return Ok(SecondStep::Passed);
    };
    if factor.is_empty() {
        return Ok(SecondStep::Missing);
    }
    Ok(
        match judge_code(ctx, admin_id, username, &secret, factor).await? {
            CodeVerdict::Accepted => SecondStep::Passed,
            CodeVerdict::Wrong => SecondStep::Refused,
            CodeVerdict::Locked { retry_after_secs } => {
                SecondStep::Locked(locked(retry_after_secs))
            }
        },
    )
}

/// `POST /v1/admin/mfa/disable`: with a current TOTP code or a recovery code. Wrong
/// codes count against the sign-in throttle of the admin's username and address, and
/// against the wrong-code lock.
pub async fn disable(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    code: &MfaCode,
    client: LimitKey,
) -> Result<MfaStatus> {
    let secret = db::admin_mfa::get(&ctx.db, &admin.id)
        .await?
        .and_then(|r| r.secret)
        .ok_or_else(|| Error::conflict(msg::MFA_IS_NOT_ON))?;
    admin_throttle::confirm_current_password(ctx, admin, &code.current_password, client).await?;
    let code = code.code.as_str();
    let reservation = admin_throttle::reserve(ctx, &admin.username, client).await?;
    let verdict = match judge_code(
        ctx,
        &admin.id,
        &admin.username,
        &secret,
        &SecondFactor::from_either(code),
    )
    .await
    {
        Ok(verdict) => verdict,
        Err(e) => {
            reservation.unjudged(ctx).await;
            return Err(e);
        }
    };
    match verdict {
        CodeVerdict::Accepted => reservation.confirmed(ctx).await,
        CodeVerdict::Wrong => {
            reservation.failed();
            return Err(Error::validation(
                msg::THE_CODE_IS_WRONG_OR_WAS_ALREADY_USED,
            ));
        }
        CodeVerdict::Locked { retry_after_secs } => {
            reservation.failed();
            return Err(locked(retry_after_secs));
        }
    }
    let mut tx = ctx.db.begin().await?;
    db::admin_mfa::remove(&mut tx, &admin.id).await?;
    commit_own_mfa_change(tx, ctx, admin, "admin.mfa_disable").await?;
    Ok(MfaStatus {
        mfa_enabled: false,
        pending: false,
        recovery_codes_left: 0,
    })
}

/// Commits a change an admin made to their own second factor, with its audit entry:
/// `action` on the admin themselves, no states (a secret or code is never logged).
async fn commit_own_mfa_change(
    tx: db::Tx,
    ctx: &AppContext,
    admin: &AdminPrincipal,
    action: &str,
) -> Result<()> {
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        Write {
            action,
            target_type: "admin",
            target_id: Some(admin.id.as_str()),
            before: None,
            after: None,
        },
    )
    .await
}

/// `DELETE /v1/admin/admins/:id/mfa` (super_admin): turns another admin's MFA off (a
/// lost device), pending set-up and recovery codes included; audited.
pub async fn reset(ctx: &AppContext, actor: &AdminPrincipal, id: &AdminId) -> Result<AdminAccount> {
    // One's own second factor goes only with a code of it (`disable`): otherwise a stolen
    // super_admin session could drop it without one.
    if *id == actor.id {
        return Err(Error::validation(
            msg::RESET_ANOTHER_ADMIN_S_MFA_TURN_OFF_YOUR_OWN_WITH_A_CODE_POST,
        ));
    }
    let now = ctx.clock.now_ms();
    // The reset also lifts a wrong-code lock: its entry says so.
    let locked_until = db::admin_mfa::get(&ctx.db, id)
        .await?
        .and_then(|m| m.code_locked_until)
        .filter(|until| *until > now);
    let mut tx = ctx.db.begin().await?;
    let row = db::admins::get_tx(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found(msg::ADMIN_NOT_FOUND))?;
    let before = AdminAccount::from_row(&row);
    let mut before_state = serde_json::to_value(&before).ok();
    if let (Some(until), Some(serde_json::Value::Object(state))) = (locked_until, &mut before_state)
    {
        state.insert(
            "mfaCodesLockedUntil".into(),
            serde_json::json!(crate::clock::from_ms(until)),
        );
    }
    db::admin_mfa::remove(&mut tx, id).await?;
    // Whoever signed in with the old factor signs in again (tokens and console sessions
    // end with the token version).
    db::admins::end_access_tokens(&mut tx, id, now).await?;
    db::refresh_tokens::revoke_all(&mut tx, Audience::Admin.column(), id.as_str(), None, now)
        .await?;
    let after = AdminAccount {
        mfa_enabled: false,
        ..before.clone()
    };
    audit::record_and_commit(
        tx,
        ctx,
        actor,
        Write {
            action: "admin.mfa_reset",
            target_type: "admin",
            target_id: Some(id.as_str()),
            before: before_state,
            after: serde_json::to_value(&after).ok(),
        },
    )
    .await?;
    Ok(after)
}

/// Seals every TOTP secret stored before sealing (the admin console's start), and checks
/// that `SECRETS_KEY` opens every sealed one: a key that does not would lock those
/// admins out at their next sign-in, so the console refuses to start instead, saying
/// so. Each secret is replaced only if unchanged (processes starting together seal it
/// once). Returns how many were sealed.
pub async fn seal_stored_secrets(ctx: &AppContext) -> anyhow::Result<usize> {
    let mut sealed = 0;
    let mut unreadable = Vec::new();
    for row in db::admin_mfa::all(&ctx.db).await? {
        let context = secret_context(&row.admin_id);
        for (column, stored) in [
            (SecretColumn::Confirmed, &row.secret),
            (SecretColumn::Pending, &row.pending_secret),
        ] {
            let Some(stored) = stored else { continue };
            match ctx.secrets_key.open(stored, &context) {
                Ok(Opened::Sealed(_)) => {}
                Ok(Opened::Plain(plain)) => {
                    let fresh = ctx.secrets_key.seal(&plain, &context)?;
                    if db::admin_mfa::reseal(&ctx.db, &row.admin_id, column, stored, &fresh).await?
                    {
                        sealed += 1;
                    }
                }
                Err(_) => unreadable.push(row.admin_id.clone()),
            }
        }
    }
    if !unreadable.is_empty() {
        unreadable.dedup();
        anyhow::bail!(
            "SECRETS_KEY does not open the stored TOTP secrets of {} admin(s) (ids: {}): it \
             is not the key that sealed them. Start with that key; or, to have these admins \
             enrol again, delete their rows from admin_mfa and admin_recovery_codes.",
            unreadable.len(),
            unreadable.join(", ")
        );
    }
    if sealed > 0 {
        tracing::info!(sealed, "sealed TOTP secrets stored before SECRETS_KEY");
    }
    Ok(sealed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_160_bits_of_base32_and_make_otpauth_uris() {
        let secret = new_secret();
        assert_eq!(secret.len(), 32);
        let e = enrolment(secret.clone(), "root:admin").unwrap_or_else(|e| panic!("{e}"));
        assert!(
            e.otpauth_uri
                .starts_with("otpauth://totp/QuizGame:root_admin?"),
            "{}",
            e.otpauth_uri
        );
        assert!(e.otpauth_uri.contains(&format!("secret={secret}")));
        assert!(e.otpauth_uri.contains("issuer=QuizGame"));
    }

    #[test]
    fn codes_match_their_step_and_its_neighbours_only() {
        let totp = totp_of(&new_secret(), "a").unwrap_or_else(|e| panic!("{e}"));
        let now = real_now_secs();
        let step = i64::try_from(now / 30).unwrap_or_default();
        let code = totp.generate(now).to_string();
        assert_eq!(matching_step(&totp, &code), Some(step));
        assert_eq!(
            matching_step(&totp, &format!("{} {}", &code[..3], &code[3..])),
            Some(step)
        );
        let far = totp.generate(now + 90).to_string();
        if far != code
            && far != totp.generate(now + 30).to_string()
            && far != totp.generate(now.saturating_sub(30)).to_string()
        {
            assert_eq!(matching_step(&totp, &far), None);
        }
        assert_eq!(matching_step(&totp, "12345"), None);
        assert_eq!(matching_step(&totp, "abcdef"), None);
    }

    #[test]
    fn recovery_codes_are_random_and_typed_loosely() {
        let a = new_recovery_code();
        let b = new_recovery_code();
        assert_ne!(a, b);
        assert_eq!(a.len(), 19);
        assert_eq!(
            recovery_hash(&a),
            recovery_hash(&a.to_uppercase().replace('-', " "))
        );
        assert_ne!(recovery_hash(&a), recovery_hash(&b));
    }

    #[test]
    fn one_field_tells_totp_codes_from_recovery_codes() {
        let f = SecondFactor::from_either(" 123 456 ");
        assert!(f.totp_code.is_some() && f.recovery_code.is_none());
        let f = SecondFactor::from_either("abcd-efgh-jkmn-pqrs");
        assert!(f.totp_code.is_none() && f.recovery_code.is_some());
        assert!(SecondFactor::from_either("  ").is_empty());
    }
}
