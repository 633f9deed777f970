//! Rewarded-ad recovery: a session is opened (eligible or not), then completed once.
//! Each completion grants through the ledger key `ad_recovery:{sessionId}`; a repeat
//! answers the first outcome. Refusals and failed completions are success answers that
//! carry a reason.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::clock::{beijing, from_ms};
use crate::closed_set::Submitted;
use crate::context::AppContext;
use crate::db::progress::{PlayerProgress, Target, Update};
use crate::db::{self, ads::NewAdSession};
use crate::domain::ad_recovery::{AdKind, AdOutcome, AdPlatform, AdRefusal, AdSessionStatus};
use crate::domain::change::ResourceChange;
use crate::ids::PlayerId;
use crate::message::msg;
use crate::services::player_auth::PlayerPrincipal;
use crate::services::progress::{self, ProgressSummary};
use crate::{Error, Result};

const HEARTS: AdKind = AdKind::Hearts;
/// Open sessions (neither completed nor expired) a player may hold at once: a client
/// opens one per ad it is about to show, so a few cover retries, and no client needs
/// hundreds of rows that each wait to be completed.
pub const MAX_OPEN_SESSIONS: i64 = 3;
const BONUS_ATTEMPTS: AdKind = AdKind::BonusAttempts;
const STREAK_PROTECTION: AdKind = AdKind::StreakProtection;

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionRequest {
    /// Another type is answered ineligible (`invalid_type`).
    #[serde(rename = "type")]
    #[schema(value_type = AdKind)]
    pub kind: Submitted<AdKind>,
    pub client_request_id: String,
    #[schema(value_type = AdPlatform)]
    pub platform: Submitted<AdPlatform>,
    /// `mock` (outside production).
    pub ad_provider: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionBenefits {
    pub tier: crate::domain::subscription::Tier,
    pub unlimited_hearts: bool,
    /// null = unlimited.
    pub daily_high_reward_sessions: Option<i64>,
}

/// An eligible or ineligible session answer.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionAnswer {
    /// null when ineligible.
    pub session_id: Option<String>,
    pub eligible: bool,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<AdKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ad_placement_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining_today: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<AdRefusal>,
    /// Ineligible: when it may work again (null when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_available_at: Option<Option<DateTime<Utc>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscription_benefits: Option<SubscriptionBenefits>,
}

impl SessionAnswer {
    fn ineligible(
        reason: AdRefusal,
        next: Option<DateTime<Utc>>,
        benefits: Option<SubscriptionBenefits>,
    ) -> Self {
        Self {
            session_id: None,
            eligible: false,
            kind: None,
            ad_placement_id: None,
            remaining_today: None,
            expires_at: None,
            reason: Some(reason),
            next_available_at: Some(next),
            subscription_benefits: benefits,
        }
    }
}

fn check_input(ctx: &AppContext, client_request_id: &str, provider: &str) -> Result<()> {
    let crid = client_request_id.trim();
    if crid.is_empty() || crid.len() > 128 {
        return Err(Error::validation(
            msg::CLIENTREQUESTID_MUST_BE_1_128_CHARACTERS,
        ));
    }
    match provider {
        "mock" if ctx.settings.is_production() => Err(Error::validation(
            msg::THE_MOCK_AD_PROVIDER_IS_NOT_ACCEPTED_IN_PRODUCTION,
        )),
        "mock" => Ok(()),
        _ => Err(Error::validation(
            msg::ADPROVIDER_IS_NOT_A_PROVIDER_THIS_SERVER_KNOWS,
        )),
    }
}

fn daily_cap(ctx: &AppContext, kind: AdKind) -> i64 {
    match kind {
        HEARTS => ctx.settings.rules.ad_hearts_per_day,
        BONUS_ATTEMPTS => ctx.settings.rules.ad_attempts_per_day,
        STREAK_PROTECTION => 1,
    }
}

fn cooldown_end(ctx: &AppContext, p: &PlayerProgress) -> Option<DateTime<Utc>> {
    p.streak_protection_at
        .map(|at| from_ms(at) + Duration::days(ctx.settings.rules.streak_protection_cooldown_days))
}

/// Why a recovery of `kind` is not possible now, if it is not.
async fn refusal(
    ctx: &AppContext,
    p: &PlayerProgress,
    player_id: &PlayerId,
    kind: AdKind,
    now: DateTime<Utc>,
) -> Result<Option<SessionAnswer>> {
    if p.is_subscribed(now.timestamp_millis()) {
        let benefits = SubscriptionBenefits {
            tier: p.tier,
            unlimited_hearts: true,
            daily_high_reward_sessions: None,
        };
        return Ok(Some(SessionAnswer::ineligible(
            AdRefusal::AlreadySubscribed,
            p.subscription_expires_at.map(from_ms),
            Some(benefits),
        )));
    }
    match kind {
        HEARTS | BONUS_ATTEMPTS => {
            let day = beijing::day_key(beijing::day(now));
            let used = db::ads::completed_on(&ctx.db, player_id, kind, &day).await?;
            if used >= daily_cap(ctx, kind) {
                return Ok(Some(SessionAnswer::ineligible(
                    AdRefusal::DailyLimitReached,
                    Some(beijing::next_midnight(now)),
                    None,
                )));
            }
        }
        _ => {
            if let Some(end) = cooldown_end(ctx, p).filter(|end| *end > now) {
                return Ok(Some(SessionAnswer::ineligible(
                    AdRefusal::CooldownActive,
                    Some(end),
                    None,
                )));
            }
        }
    }
    Ok(None)
}

async fn remaining_today(
    ctx: &AppContext,
    player_id: &PlayerId,
    kind: AdKind,
    now: DateTime<Utc>,
) -> Result<i64> {
    let day = beijing::day_key(beijing::day(now));
    let used = db::ads::completed_on(&ctx.db, player_id, kind, &day).await?;
    Ok((daily_cap(ctx, kind) - used).max(0))
}

fn eligible(row: &db::ads::AdSessionRow, remaining: i64) -> SessionAnswer {
    SessionAnswer {
        session_id: Some(row.id.clone()),
        eligible: true,
        kind: Some(row.kind),
        ad_placement_id: Some(row.ad_placement_id.clone()),
        remaining_today: Some(remaining),
        expires_at: Some(from_ms(row.expires_at)),
        reason: None,
        next_available_at: None,
        subscription_benefits: None,
    }
}

/// `POST /v1/rewards/ad-recovery/session`. The same clientRequestId answers the same
/// session.
pub async fn open_session(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    req: &SessionRequest,
) -> Result<SessionAnswer> {
    check_input(ctx, &req.client_request_id, &req.ad_provider)?;
    // Minor mode offers no rewarded ads.
    crate::services::minors::admit_ad(ctx, &player.guard)?;
    let Some(platform) = req.platform.member() else {
        return Err(Error::validation(
            msg::PLATFORM_MUST_BE_IOS_ANDROID_HARMONY_OR_WEB,
        ));
    };
    let crid = req.client_request_id.trim();
    let now = ctx.clock.now();
    if let Some(row) = db::ads::by_client_request(&ctx.db, &player.id, crid).await? {
        let remaining = remaining_today(ctx, &player.id, row.kind, now).await?;
        return Ok(eligible(&row, remaining));
    }
    let Some(kind) = req.kind.member() else {
        return Ok(SessionAnswer::ineligible(
            AdRefusal::InvalidType,
            None,
            None,
        ));
    };
    let p = progress::load(ctx, &player.id).await?;
    if let Some(refused) = refusal(ctx, &p, &player.id, kind, now).await? {
        return Ok(refused);
    }
    let id = Uuid::new_v4().to_string();
    let placement = format!("{}-rewarded-{kind}", req.ad_provider);
    let day = beijing::day_key(beijing::day(now));
    let now_ms = now.timestamp_millis();
    let mut tx = ctx.db.begin().await?;
    // The player's lock orders their concurrent opens, so no two both take the last
    // open place; a replay of this clientRequestId is not counted against itself.
    progress::lock(&mut tx, &player.id, now_ms).await?;
    let (open, first_expiry) = db::ads::open_sessions(&mut tx, &player.id, crid, now_ms).await?;
    if open >= MAX_OPEN_SESSIONS {
        return Ok(SessionAnswer::ineligible(
            AdRefusal::TooManyOpenSessions,
            first_expiry.map(from_ms),
            None,
        ));
    }
    let created = db::ads::insert(
        &mut tx,
        &NewAdSession {
            id: &id,
            player_id: &player.id,
            kind,
            client_request_id: crid,
            platform,
            ad_provider: &req.ad_provider,
            ad_placement_id: &placement,
            day: &day,
            now_ms,
            expires_at_ms: (now + Duration::minutes(ctx.settings.rules.ad_session_minutes))
                .timestamp_millis(),
        },
    )
    .await?;
    tx.commit().await?;
    let row = db::ads::by_client_request(&ctx.db, &player.id, crid)
        .await?
        .ok_or_else(|| Error::internal("ad session vanished"))?;
    if !created && row.kind != kind {
        return Err(Error::validation(
            msg::CLIENTREQUESTID_WAS_USED_FOR_ANOTHER_TYPE,
        ));
    }
    let remaining = remaining_today(ctx, &player.id, kind, now).await?;
    Ok(eligible(&row, remaining))
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompleteRequest {
    pub session_id: String,
    pub client_request_id: String,
    pub ad_provider: String,
    /// Required for real providers.
    pub provider_reward_token: Option<String>,
    pub completed_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryReward {
    pub hearts_delta: i64,
    pub daily_attempts_delta: i64,
    pub streak_protection_granted: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryLimits {
    pub remaining_hearts_recoveries_today: i64,
    pub remaining_attempt_recoveries_today: i64,
    pub next_streak_protection_available_at: Option<DateTime<Utc>>,
}

/// A completed or failed outcome.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompleteAnswer {
    pub status: AdOutcome,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<AdKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward: Option<RecoveryReward>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<RecoveryLimits>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<AdRefusal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[schema(value_type = ProgressSummary)]
    pub progress: serde_json::Value,
}

fn failed(reason: AdRefusal, message: &str, progress: &ProgressSummary) -> CompleteAnswer {
    CompleteAnswer {
        status: AdOutcome::Failed,
        kind: None,
        reward: None,
        limits: None,
        reason: Some(reason),
        message: Some(message.into()),
        progress: serde_json::to_value(progress).unwrap_or_default(),
    }
}

/// `POST /v1/rewards/ad-recovery/complete`: the reward once; a repeat answers the first
/// outcome; another player's session is 404.
pub async fn complete(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    req: &CompleteRequest,
) -> Result<CompleteAnswer> {
    check_input(ctx, &req.client_request_id, &req.ad_provider)?;
    crate::services::minors::admit_ad(ctx, &player.guard)?;
    let session_id = req.session_id.trim();
    if session_id.is_empty() || session_id.len() > 64 {
        return Err(Error::validation(msg::SESSIONID_IS_REQUIRED));
    }
    let rules = &ctx.settings.rules;
    let now = ctx.clock.now();
    let now_ms = now.timestamp_millis();
    let today = beijing::day_key(beijing::day(now));

    let mut tx = ctx.db.begin().await?;
    let p = progress::lock(&mut tx, &player.id, now_ms).await?;
    let session = db::ads::get(&mut tx, session_id)
        .await?
        .filter(|s| s.player_id == player.id)
        .ok_or_else(|| Error::not_found(msg::AD_SESSION_NOT_FOUND))?;
    if let Some(first) = session
        .result
        .as_deref()
        .filter(|_| session.status != AdSessionStatus::Created)
    {
        return serde_json::from_str(first)
            .map_err(|e| Error::internal(format!("stored outcome unreadable: {e}")));
    }
    let kind = session.kind;
    let before = p.resources.clone().at(now, rules);
    let current = progress::summarize(&p, now, rules);

    let used = db::ads::completed_on_tx(&mut tx, &player.id, kind, &today).await?;
    let refusal = if now_ms > session.expires_at {
        Some((
            AdRefusal::SessionExpired,
            "the ad session expired; open a new one",
        ))
    } else if p.is_subscribed(now_ms) {
        Some((
            AdRefusal::AlreadySubscribed,
            "subscribers do not need ad recovery",
        ))
    } else if kind != STREAK_PROTECTION && used >= daily_cap(ctx, kind) {
        Some((
            AdRefusal::DailyLimitReached,
            "no more recoveries of this kind today",
        ))
    } else if kind == STREAK_PROTECTION && cooldown_end(ctx, &p).is_some_and(|end| end > now) {
        Some((
            AdRefusal::CooldownActive,
            "streak protection is cooling down",
        ))
    } else {
        None
    };
    if let Some((reason, message)) = refusal {
        let answer = failed(reason, message, &current);
        let stored = serde_json::to_string(&answer).map_err(|e| Error::internal(e.to_string()))?;
        db::ads::finish(
            &mut tx,
            session_id,
            AdOutcome::Failed,
            &stored,
            &today,
            now_ms,
        )
        .await?;
        tx.commit().await?;
        return Ok(answer);
    }

    // The mock provider accepts every completion.
    let mut after = before.clone();
    let mut protection_until = None;
    match kind {
        HEARTS => after.gain_hearts(1, rules),
        BONUS_ATTEMPTS => after.bonus_attempts += 1,
        _ => {
            // through the end of the next Beijing day
            let until = beijing::day_start(beijing::day(now) + Duration::days(2))
                - Duration::milliseconds(1);
            after.streak_protected_until = Some(until.timestamp_millis());
            protection_until = Some(until);
        }
    }
    let mut ranks = Vec::new();
    let change = ResourceChange::new(
        &player.id,
        p.region_code.as_deref(),
        format!("ad_recovery:{session_id}"),
        &format!("ad_recovery_{kind}"),
        before.clone(),
        after.clone(),
        rules,
        now,
    );
    progress::record(&mut tx, &change, &mut ranks).await?;
    let mut granted = p.clone();
    granted.resources = after.clone();
    if let Some(until) = protection_until {
        db::progress::write(
            Target::Tx(&mut tx),
            &player.id,
            Update::StreakProtection {
                until_ms: until.timestamp_millis(),
            },
            now_ms,
        )
        .await?;
        granted.streak_protection_at = Some(now_ms);
    }
    let hearts_used = if kind == HEARTS {
        used + 1
    } else {
        db::ads::completed_on_tx(&mut tx, &player.id, HEARTS, &today).await?
    };
    let attempts_used = if kind == BONUS_ATTEMPTS {
        used + 1
    } else {
        db::ads::completed_on_tx(&mut tx, &player.id, BONUS_ATTEMPTS, &today).await?
    };
    let answer = CompleteAnswer {
        status: AdOutcome::Completed,
        kind: Some(kind),
        reward: Some(RecoveryReward {
            hearts_delta: after.hearts - before.hearts,
            daily_attempts_delta: after.attempts_left(rules) - before.attempts_left(rules),
            streak_protection_granted: protection_until.is_some(),
        }),
        limits: Some(RecoveryLimits {
            remaining_hearts_recoveries_today: (rules.ad_hearts_per_day - hearts_used).max(0),
            remaining_attempt_recoveries_today: (rules.ad_attempts_per_day - attempts_used).max(0),
            next_streak_protection_available_at: cooldown_end(ctx, &granted)
                .filter(|end| *end > now),
        }),
        reason: None,
        message: None,
        progress: serde_json::to_value(progress::summarize(&granted, now, rules))
            .unwrap_or_default(),
    };
    let stored = serde_json::to_string(&answer).map_err(|e| Error::internal(e.to_string()))?;
    if !db::ads::finish(
        &mut tx,
        session_id,
        AdOutcome::Completed,
        &stored,
        &today,
        now_ms,
    )
    .await?
    {
        return Err(Error::conflict(
            msg::THE_AD_SESSION_WAS_COMPLETED_CONCURRENTLY,
        ));
    }
    tx.commit().await?;
    ctx.publish_ranks(&ranks).await;
    Ok(answer)
}
