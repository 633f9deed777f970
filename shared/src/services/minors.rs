//! Minor mode: the age band a player or their guardian declares behind a 4-digit PIN,
//! and what it refuses (play past the day's limit or at night, rewarded ads). Play time
//! is counted here from challenge activity: each challenge served and answer judged adds
//! the gap since the last activity, capped.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::clock::beijing;
use crate::context::AppContext;
use crate::db;
use crate::domain::anti_addiction::{self, PlayGuard, Protection};
use crate::domain::minor::{self, AgeBand, MinorRefusal};
use crate::ids::PlayerId;
use crate::message::msg;
use crate::services::player_auth::PlayerPrincipal;
use crate::services::player_turns;
use crate::{Error, Result};

/// `minorMode` of the summary and the bootstrap, and the answer of the minor-mode
/// routes.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MinorMode {
    /// `adult` when minor mode is off.
    pub age_band: AgeBand,
    /// Whole minutes of today's play-time limit left; null when minor mode is off.
    pub minutes_left_today: Option<i64>,
    /// When play is allowed again; null when it is allowed now.
    pub next_allowed_at: Option<DateTime<Utc>>,
    /// The guardian PIN's state, for the guardian to see (on `GET` and `PUT
    /// /v1/users/me/minor-mode` with a PIN; left out elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guardian_pin: Option<GuardianPinState>,
}

/// What a guardian sees of their PIN: wrong tries left today (five a Beijing day), and
/// until when it is locked after the fifth. A forgotten or locked PIN is reset by staff
/// at the guardian's request (`POST /v1/admin/users/{id}/guardian-pin/reset`), who hand
/// the guardian a new one.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GuardianPinState {
    pub tries_left_today: i64,
    pub locked_until: Option<DateTime<Utc>>,
}

/// `PUT /v1/users/me/minor-mode`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MinorModeRequest {
    /// `under8`, `8to12`, `12to16`, `16to18`, or `adult` (minor mode off).
    pub age_band: String,
    /// The guardian PIN: 4 digits. Sets it when minor mode goes on; proves the
    /// guardian when it is on (to change the band or turn it off).
    pub pin: Option<String>,
    /// A new PIN (4 digits) for a player staying in minor mode.
    pub new_pin: Option<String>,
}

/// How `guard` protects the player today, under the deployment's profile.
pub fn protection(ctx: &AppContext, guard: &PlayGuard) -> Protection {
    guard.protection(
        ctx.settings.compliance.licensed_game(),
        beijing::day(ctx.clock.now()),
    )
}

/// The statutory holidays from today through the window look-ahead.
async fn upcoming_holidays(ctx: &AppContext) -> Result<Vec<NaiveDate>> {
    let today = beijing::day(ctx.clock.now());
    // tomorrow's look-ahead too: a limit used up tonight opens at a window from tomorrow
    let last = today + chrono::Duration::days(anti_addiction::WINDOW_LOOKAHEAD_DAYS + 1);
    Ok(db::holidays::between(&ctx.db, today, last).await?)
}

/// Why a minor may not play now, if they may not: outside the licensed-game
/// profile's windows (when they apply), past the day's limit, or at night.
async fn refusal(
    ctx: &AppContext,
    player_id: &PlayerId,
    band: AgeBand,
    windows: bool,
) -> Result<(Option<MinorRefusal>, i64)> {
    let now = ctx.clock.now();
    let played = played_today(ctx, player_id).await?;
    let refused = minor::play_refusal(band, played, now, &ctx.settings.minors);
    if !windows {
        return Ok((refused, played));
    }
    let holidays = upcoming_holidays(ctx).await?;
    if let Some(refusal) = anti_addiction::window_refusal(now, &holidays) {
        return Ok((Some(refusal), played));
    }
    // inside a window with the day's limit used up: play again at the next window,
    // from tomorrow on
    Ok((
        refused.map(|r| MinorRefusal {
            next_allowed_at: anti_addiction::window_refusal(beijing::next_midnight(now), &holidays)
                .and_then(|w| w.next_allowed_at),
            ..r
        }),
        played,
    ))
}

/// The day's counted play of a minor.
async fn played_today(ctx: &AppContext, player_id: &PlayerId) -> Result<i64> {
    let stored = db::minors::played(&ctx.db, player_id).await?;
    Ok(minor::played_today_ms(
        stored.as_ref().map(|(day, ms)| (day.as_str(), *ms)),
        ctx.clock.now(),
    ))
}

/// `minorMode` of a player whose account row says `guard` (no statement for a player
/// not in minor mode).
pub async fn mode(ctx: &AppContext, player_id: &PlayerId, guard: &PlayGuard) -> Result<MinorMode> {
    match protection(ctx, guard) {
        Protection::Minor { band, windows } => {
            let (refused, played) = refusal(ctx, player_id, band, windows).await?;
            Ok(MinorMode {
                age_band: band,
                minutes_left_today: minor::minutes_left(band, played, &ctx.settings.minors),
                next_allowed_at: refused.and_then(|r| r.next_allowed_at),
                guardian_pin: None,
            })
        }
        Protection::None | Protection::RealNameRequired => Ok(MinorMode {
            age_band: AgeBand::Adult,
            minutes_left_today: None,
            next_allowed_at: None,
            guardian_pin: None,
        }),
    }
}

/// Whether the player may play now (serve a challenge, judge an answer): refused with
/// MINOR_PROTECTION past the day's limit, at night or outside the licensed-game
/// windows, and with REAL_NAME_REQUIRED before verification in that profile. Nothing to
/// check (and no statement) for a player it does not protect.
pub async fn admit_play(ctx: &AppContext, player_id: &PlayerId, guard: &PlayGuard) -> Result<()> {
    match protection(ctx, guard) {
        Protection::None => Ok(()),
        Protection::RealNameRequired => Err(real_name_required()),
        Protection::Minor { band, windows } => {
            match refusal(ctx, player_id, band, windows).await?.0 {
                Some(refusal) => Err(Error::MinorProtection(refusal)),
                None => Ok(()),
            }
        }
    }
}

/// REAL_NAME_REQUIRED.
pub fn real_name_required() -> Error {
    Error::RealNameRequired(msg::REAL_NAME_VERIFICATION_IS_REQUIRED_FIRST)
}

/// Counts a minor's activity: a challenge served (or served again) or an answer judged
/// (nothing for a player minor mode does not limit). Every activity adds the time since
/// the one before, capped, so asking for the challenge again between answers does not
/// hide the time spent on them.
pub async fn count(ctx: &AppContext, player_id: &PlayerId, guard: &PlayGuard) -> Result<()> {
    if !matches!(protection(ctx, guard), Protection::Minor { .. }) {
        return Ok(());
    }
    let now = ctx.clock.now();
    db::minors::count_activity(
        &ctx.db,
        player_id,
        &beijing::day_key(beijing::day(now)),
        now.timestamp_millis(),
        ctx.settings.minors.gap_cap_ms(),
    )
    .await?;
    Ok(())
}

/// Rewarded ads: refused in minor mode, and before verification in the licensed-game
/// profile.
pub fn admit_ad(ctx: &AppContext, guard: &PlayGuard) -> Result<()> {
    match protection(ctx, guard) {
        Protection::None => Ok(()),
        Protection::RealNameRequired => Err(real_name_required()),
        Protection::Minor { band, .. } => match minor::ad_refusal(band) {
            Some(refusal) => Err(Error::MinorProtection(refusal)),
            None => Ok(()),
        },
    }
}

/// `GET /v1/users/me/minor-mode`.
pub async fn current(ctx: &AppContext, player: &PlayerPrincipal) -> Result<MinorMode> {
    with_pin_state(ctx, &player.id, mode(ctx, &player.id, &player.guard).await?).await
}

/// `mode` with the guardian PIN's state.
async fn with_pin_state(
    ctx: &AppContext,
    player_id: &PlayerId,
    mut mode: MinorMode,
) -> Result<MinorMode> {
    let now_ms = ctx.clock.now_ms();
    let day_start = beijing::day_start(beijing::day(ctx.clock.now())).timestamp_millis();
    mode.guardian_pin = db::minors::guardian(&ctx.db, player_id)
        .await?
        .filter(|g| g.guardian_pin_hash.is_some())
        .map(|g| GuardianPinState {
            tries_left_today: minor::pin_tries_left(
                g.guardian_pin_failures,
                g.guardian_pin_failed_at,
                g.guardian_pin_locked_until,
                day_start,
                now_ms,
            ),
            locked_until: g
                .guardian_pin_locked_until
                .filter(|until| *until > now_ms)
                .map(crate::clock::from_ms),
        });
    Ok(mode)
}

/// Proves the guardian of `player_id` with `pin`, when the player has a guardian PIN
/// (minor mode on): the try is counted first (five wrong ones a Beijing day lock the PIN
/// until the next midnight: 429 with `Retry-After`), then judged (403 when wrong or
/// missing); a right one clears the day's wrong tries. Answers the stored PIN hash, None
/// without a guardian.
pub async fn prove_guardian(
    ctx: &AppContext,
    player_id: &PlayerId,
    pin: Option<&str>,
) -> Result<Option<String>> {
    let guardian = db::minors::guardian(&ctx.db, player_id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    if guardian.guardian_pin_hash.is_none() {
        return Ok(None);
    }
    let pin = match pin.map(str::trim) {
        Some(p) if minor::is_valid_pin(p) => p,
        _ => return Err(Error::forbidden(msg::THE_GUARDIAN_PIN_IS_WRONG)),
    };
    take_hashing_turn(ctx, player_id).await?;
    let now = ctx.clock.now();
    let now_ms = now.timestamp_millis();
    let day_start = beijing::day_start(beijing::day(now)).timestamp_millis();
    let next_midnight = beijing::next_midnight(now).timestamp_millis();
    let Some(stored) = db::minors::take_pin_try(
        &ctx.db,
        player_id,
        now_ms,
        day_start,
        minor::PIN_TRIES_A_DAY,
        next_midnight,
    )
    .await?
    else {
        let until = guardian
            .guardian_pin_locked_until
            .filter(|until| *until > now_ms)
            .unwrap_or(next_midnight);
        return Err(pin_locked(until, now_ms));
    };
    if !crate::password::verify(pin.to_string(), Some(stored.clone())).await? {
        return Err(Error::forbidden(msg::THE_GUARDIAN_PIN_IS_WRONG));
    }
    // a right PIN clears the day's count at once, in a write of its own: whatever the
    // caller then refuses (a merge limit, a change meanwhile), the try was no failure
    let mut tx = ctx.db.begin().await?;
    db::minors::clear_pin_failures(&mut tx, player_id).await?;
    tx.commit().await?;
    Ok(Some(stored))
}

/// A PIN from the request: 4 digits, or 400.
fn pin_of(pin: Option<&String>) -> Result<Option<&str>> {
    match pin.map(|p| p.trim()) {
        None => Ok(None),
        Some(p) if minor::is_valid_pin(p) => Ok(Some(p)),
        Some(_) => Err(Error::validation(
            msg::A_MINOR_S_AGE_BAND_NEEDS_A_4_DIGIT_GUARDIAN_PIN,
        )),
    }
}

/// `PUT /v1/users/me/minor-mode`: turns minor mode on (the PIN sent becomes the
/// guardian's), or, with the guardian's PIN, changes the band, the PIN, or turns it
/// off. A wrong PIN is counted: five a Beijing day lock it until the next midnight (429
/// with `Retry-After`).
pub async fn set(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    req: &MinorModeRequest,
) -> Result<MinorMode> {
    let band = AgeBand::parse(req.age_band.trim()).ok_or_else(|| {
        let bands: Vec<&str> = AgeBand::ALL.iter().map(|b| b.as_str()).collect();
        Error::validation(msg::agebandmust_be_one_of_bands(bands.join(", ")))
    })?;
    let pin = pin_of(req.pin.as_ref())?;
    let new_pin = pin_of(req.new_pin.as_ref())?;
    let guardian = db::minors::guardian(&ctx.db, &player.id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    let now_ms = ctx.clock.now_ms();
    let expected = guardian.guardian_pin_hash.clone();
    let pin_hash = match guardian.guardian_pin_hash {
        // No guardian yet: turning minor mode on sets the PIN.
        None if band.is_minor() => {
            let pin = new_pin.or(pin).ok_or_else(|| {
                Error::validation(msg::A_MINOR_S_AGE_BAND_NEEDS_A_4_DIGIT_GUARDIAN_PIN)
            })?;
            take_hashing_turn(ctx, &player.id).await?;
            Some(crate::password::hash(pin.to_string()).await?)
        }
        None => None,
        // A guardian's PIN proves every change.
        Some(_) => {
            let stored = prove_guardian(ctx, &player.id, pin).await?.ok_or_else(|| {
                Error::conflict(msg::MINOR_MODE_CHANGED_MEANWHILE_READ_IT_AND_RETRY)
            })?;
            match (band.is_minor(), new_pin) {
                (false, _) => None,
                (true, Some(new_pin)) => Some(crate::password::hash(new_pin.to_string()).await?),
                (true, None) => Some(stored),
            }
        }
    };
    let mut tx = ctx.db.begin().await?;
    let changed = db::minors::set_age_band(
        &mut tx,
        &player.id,
        band,
        pin_hash.as_deref(),
        expected.as_deref(),
        now_ms,
    )
    .await?;
    if !changed {
        // a guardian's PIN was set or changed since it was read: prove it again
        return Err(Error::conflict(
            msg::MINOR_MODE_CHANGED_MEANWHILE_READ_IT_AND_RETRY,
        ));
    }
    tx.commit().await?;
    ctx.answer_cache.forget_player(&player.id);
    let guard = PlayGuard {
        declared: Some(band),
        ..player.guard.clone()
    };
    with_pin_state(ctx, &player.id, mode(ctx, &player.id, &guard).await?).await
}

/// `POST /v1/admin/users/{id}/guardian-pin/reset`'s answer: the new PIN, shown once.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GuardianPinReset {
    pub player_id: PlayerId,
    /// Four digits, for staff to hand to the guardian (after they proved who they are,
    /// outside the service); stored only as its hash and never again shown.
    pub guardian_pin: String,
}

/// Staff reset a guardian's forgotten or locked PIN at the guardian's request: a new
/// random PIN, no wrong tries, no lock; audited (without the PIN). 404 for no such
/// player, 409 when the player has no guardian PIN (minor mode off).
pub async fn reset_guardian_pin(
    ctx: &AppContext,
    admin: &crate::services::admin_identity::AdminPrincipal,
    player_id: &PlayerId,
) -> Result<GuardianPinReset> {
    use rand::Rng as _;
    let guardian = db::minors::guardian(&ctx.db, player_id)
        .await?
        .ok_or_else(|| Error::not_found(msg::PLAYER_NOT_FOUND))?;
    if guardian.guardian_pin_hash.is_none() {
        return Err(Error::conflict(msg::THIS_PLAYER_HAS_NO_GUARDIAN_PIN));
    }
    let pin = format!("{:04}", rand::rng().random_range(0..10_000));
    let hash = crate::password::hash(pin.clone()).await?;
    let mut tx = ctx.db.begin().await?;
    if !db::minors::reset_pin(&mut tx, player_id, &hash, ctx.clock.now_ms()).await? {
        return Err(Error::conflict(msg::THIS_PLAYER_HAS_NO_GUARDIAN_PIN));
    }
    crate::services::audit::record_and_commit(
        tx,
        ctx,
        admin,
        crate::services::audit::Write {
            action: "player.guardian_pin_reset",
            target_type: "player",
            target_id: Some(player_id.as_str()),
            before: None,
            after: None,
        },
    )
    .await?;
    ctx.answer_cache.forget_player(player_id);
    Ok(GuardianPinReset {
        player_id: player_id.clone(),
        guardian_pin: pin,
    })
}

const HOUR_MS: i64 = 3_600_000;
/// Minor-mode changes that hash or check a PIN (wrong tries included) one player may
/// make in an hour.
const CHANGES_AN_HOUR: i64 = 20;

/// A change about to hash or check a PIN (argon2) takes a place in the player's hourly
/// counter first: one account must not keep the hashing slots busy.
async fn take_hashing_turn(ctx: &AppContext, player_id: &PlayerId) -> Result<()> {
    match player_turns::take(ctx, "minor-mode:pin", player_id, HOUR_MS, CHANGES_AN_HOUR).await? {
        Ok(()) => Ok(()),
        Err(wait_ms) => Err(Error::RateLimited {
            message: msg::MINOR_MODE_CHANGED_TOO_OFTEN_TRY_AGAIN_LATER,
            retry_after_secs: crate::error::retry_after_secs(wait_ms),
        }),
    }
}

/// 429 while the PIN is locked, until `until`.
fn pin_locked(until: i64, now_ms: i64) -> Error {
    Error::RateLimited {
        message: msg::THE_GUARDIAN_PIN_IS_LOCKED_AFTER_TOO_MANY_WRONG_TRIES,
        retry_after_secs: u64::try_from((until - now_ms).div_euclid(1000) + 1).unwrap_or(1),
    }
}

/// A player's protection as staff see it: no personal identifier, only the outcome.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerProtection {
    /// The band the player or their guardian declared (none: never set).
    pub declared_age_band: Option<AgeBand>,
    /// Whether minor mode limits the player today.
    pub minor_mode: bool,
    /// The band it limits them by (`adult`: none).
    pub age_band: AgeBand,
    /// Real-name verification: `unverified`, `pending`, `verified` or `failed`.
    pub real_name: String,
    /// Verified only: 18 or older today.
    pub adult: Option<bool>,
}

/// [`PlayerProtection`] of a player.
pub async fn staff_view(ctx: &AppContext, player_id: &PlayerId) -> Result<PlayerProtection> {
    let guard = db::players::auth_row(&ctx.db, player_id)
        .await?
        .map(|row| row.account.guard())
        .unwrap_or_default();
    let (minor_mode, age_band) = match protection(ctx, &guard) {
        Protection::Minor { band, .. } => (true, band),
        Protection::None | Protection::RealNameRequired => (false, AgeBand::Adult),
    };
    let today = beijing::day(ctx.clock.now());
    Ok(PlayerProtection {
        declared_age_band: guard.declared,
        minor_mode,
        age_band,
        real_name: guard
            .real_name
            .map_or("unverified", anti_addiction::RealNameStatus::as_str)
            .to_string(),
        adult: guard
            .verified_birth()
            .map(|birth| anti_addiction::age_on(birth, today) >= 18),
    })
}
