//! Real-name verification through the NPPA anti-addiction system (the licensed-game
//! profile); the login and logout reports it requires are `services::nppa_reports`.
//!
//! Only the outcome is stored: the state, the verification id this service sent (`ai`),
//! NPPA's id of the person (`pi`: the login/logout reports carry it) and the birth year.
//! The name and the ID number are sent and forgotten: never stored, never logged.

use chrono::Datelike;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::clock::beijing;
use crate::context::AppContext;
use crate::db;
use crate::db::real_name::RealNameRow;
use crate::domain::anti_addiction::{self, RealNameStatus};
use crate::ids::PlayerId;
use crate::message::msg;
use crate::providers::nppa::{CheckOutcome, NppaClient};
use crate::services::player_auth::PlayerPrincipal;
use crate::services::{nppa_reports, player_turns};
use crate::tokens::Audience;
use crate::{Error, Result};

/// `POST /v1/users/me/real-name`.
#[derive(Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RealNameRequest {
    /// The name on the resident ID card (1-32 characters).
    pub name: String,
    /// The 18-character resident ID number.
    pub id_number: String,
}

impl std::fmt::Debug for RealNameRequest {
    /// Neither the name nor the number ever reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RealNameRequest { .. }")
    }
}

/// Where the player's verification stands: no personal identifier, only the outcome.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RealNameState {
    /// `unverified`, `pending`, `verified` or `failed`.
    pub status: String,
    /// Verified only: whether the person is 18 or older today.
    pub adult: Option<bool>,
    /// Verified only.
    pub birth_year: Option<i64>,
    /// Whether this deployment requires verification before play
    /// (`COMPLIANCE_PROFILE=licensed_game`).
    pub required: bool,
}

fn client(ctx: &AppContext) -> Result<&NppaClient> {
    ctx.providers
        .nppa
        .as_ref()
        .ok_or_else(|| Error::ServiceUnavailable(msg::REAL_NAME_VERIFICATION_IS_NOT_CONFIGURED))
}

fn state_of(ctx: &AppContext, row: &RealNameRow) -> RealNameState {
    let today = beijing::day(ctx.clock.now());
    let birth = row
        .real_name_pi
        .as_deref()
        .and_then(anti_addiction::birth_date_of_pi);
    let verified = row.real_name_status == Some(RealNameStatus::Verified);
    RealNameState {
        status: row
            .real_name_status
            .map_or("unverified", RealNameStatus::as_str)
            .to_string(),
        adult: verified
            .then(|| birth.map(|b| anti_addiction::age_on(b, today) >= 18))
            .flatten(),
        birth_year: verified.then_some(row.real_name_birth_year).flatten(),
        required: ctx.settings.compliance.licensed_game(),
    }
}

/// A fresh verification id: 32 hex digits, as the interface's `ai` is sized.
fn new_ai() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The stored outcome of a check or query.
fn row_of(outcome: &CheckOutcome, ai: &str) -> RealNameRow {
    match outcome {
        CheckOutcome::Verified { pi } => RealNameRow {
            real_name_status: Some(RealNameStatus::Verified),
            real_name_ai: Some(ai.into()),
            real_name_pi: Some(pi.clone()),
            real_name_birth_year: anti_addiction::birth_date_of_pi(pi).map(|b| i64::from(b.year())),
            real_name_at: None,
        },
        CheckOutcome::Pending => RealNameRow {
            real_name_status: Some(RealNameStatus::Pending),
            real_name_ai: Some(ai.into()),
            ..RealNameRow::default()
        },
        CheckOutcome::Failed => RealNameRow {
            real_name_status: Some(RealNameStatus::Failed),
            real_name_ai: Some(ai.into()),
            ..RealNameRow::default()
        },
    }
}

/// Sign-ins in use when a player verifies that get a login report (the newest).
const OPEN_SESSIONS_REPORTED: i64 = 16;

async fn record(ctx: &AppContext, player_id: &PlayerId, row: &RealNameRow) -> Result<()> {
    let now_ms = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    // a recorded outcome also locks the player's progress row (db::real_name::record),
    // the lock a sign-in or logout takes to read the verification
    // (nppa_reports::verified_pi_locked): the sign-ins read below are those committed
    // before, and one after sees the player verified
    let recorded = db::real_name::record(&mut tx, player_id, row, now_ms).await?;
    // the sign-ins in use now (refreshed within an access token's life, so the one
    // verifying among them) become verified players' sessions: their logins are
    // reported as a sign-in's would be, and their logouts later (a sign-in idle longer
    // is not reported as a login: a device left signed in is not a player online)
    if recorded && row.real_name_status == Some(RealNameStatus::Verified) {
        let active_since_ms = now_ms - Audience::Player.access_ttl().num_milliseconds();
        let families = db::refresh_tokens::open_families(
            &mut tx,
            Audience::Player.column(),
            player_id.as_str(),
            active_since_ms,
            now_ms,
            OPEN_SESSIONS_REPORTED,
        )
        .await?;
        for family in &families {
            nppa_reports::queue(
                ctx,
                &mut tx,
                player_id,
                row.real_name_pi.as_deref(),
                family,
                nppa_reports::LOGIN,
            )
            .await?;
        }
    }
    tx.commit().await?;
    ctx.answer_cache.forget_player(player_id);
    Ok(())
}

/// `POST /v1/users/me/real-name`: checks the name and ID number here (format and check
/// digit), then with NPPA; stores the outcome. A failed verification is 400; one still
/// in progress answers `pending` (ask again with `GET`).
pub async fn verify(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    req: &RealNameRequest,
) -> Result<RealNameState> {
    let name = req.name.trim();
    if name.is_empty() || name.chars().count() > 32 {
        return Err(Error::validation(msg::NAME_MUST_BE_1_32_CHARACTERS));
    }
    let today = beijing::day(ctx.clock.now());
    let id_number = req.id_number.trim().to_ascii_uppercase();
    anti_addiction::check_id_number(&id_number, today)
        .map_err(|_| Error::validation(msg::IDNUMBER_IS_NOT_A_VALID_RESIDENT_ID_NUMBER))?;
    let nppa = client(ctx)?;
    let stored = db::real_name::state(&ctx.db, &player.id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    if stored.real_name_status == Some(RealNameStatus::Verified) {
        return Err(Error::conflict(msg::THIS_ACCOUNT_IS_VERIFIED_ALREADY));
    }
    // a few checks a day: names and numbers cannot be tried one after the other
    if let Err(wait_ms) =
        player_turns::take(ctx, "real-name:check", &player.id, DAY_MS, CHECKS_A_DAY).await?
    {
        return Err(Error::RateLimited {
            message: msg::TOO_MANY_REAL_NAME_CHECKS_TODAY_TRY_AGAIN_LATER,
            retry_after_secs: crate::error::retry_after_secs(wait_ms),
        });
    }
    let ai = new_ai();
    let outcome = nppa.check(&ai, name, &id_number).await?;
    let row = row_of(&outcome, &ai);
    record(ctx, &player.id, &row).await?;
    if outcome == CheckOutcome::Failed {
        return Err(Error::validation(
            msg::THE_NAME_AND_ID_NUMBER_DID_NOT_VERIFY,
        ));
    }
    current(ctx, player).await
}

/// `GET /v1/users/me/real-name`: the stored outcome; a pending one is asked of NPPA
/// again first.
pub async fn current(ctx: &AppContext, player: &PlayerPrincipal) -> Result<RealNameState> {
    let mut row = db::real_name::state(&ctx.db, &player.id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    // NPPA is asked again at most once per QUERY_EVERY_MS per player
    if row.real_name_status == Some(RealNameStatus::Pending)
        && let (Some(ai), Some(nppa)) = (row.real_name_ai.clone(), ctx.providers.nppa.as_ref())
        && player_turns::take(ctx, "real-name:query", &player.id, QUERY_EVERY_MS, 1)
            .await?
            .is_ok()
    {
        let outcome = nppa.query(&ai).await?;
        if outcome != CheckOutcome::Pending {
            let updated = row_of(&outcome, &ai);
            record(ctx, &player.id, &updated).await?;
            row = updated;
        }
    }
    Ok(state_of(ctx, &row))
}

const DAY_MS: i64 = 86_400_000;
/// Real-name checks one player may make in a day.
const CHECKS_A_DAY: i64 = 5;
/// How often a pending check is asked of NPPA again, per player.
const QUERY_EVERY_MS: i64 = 10_000;
