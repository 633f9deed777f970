//! The player's progress: the summary, preferences, daily check-in, and how a resource
//! change is recorded in a transaction (progress row, ledger row and weekly XP
//! together, by `db::progress::write`).

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::clock::{beijing, from_ms};
use crate::context::AppContext;
use crate::db::ledger::WeeklyTotal;
use crate::db::progress::{PlayerProgress, Target, Update, Written};
use crate::db::{self, Tx};
use crate::domain::change::ResourceChange;
use crate::domain::resources;
use crate::domain::rules::GameRules;
use crate::ids::PlayerId;
use crate::message::msg;
use crate::rank_index::RankUpdate;
use crate::services::player_auth::{AccessSubject, PlayerPrincipal};
use crate::{Error, Result};

/// ProgressSummary.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgressSummary {
    pub hearts: i64,
    pub max_hearts: i64,
    pub next_heart_restore_at: Option<DateTime<Utc>>,
    pub daily_attempts_left: i64,
    pub daily_attempts_max: i64,
    pub next_attempt_reset_at: DateTime<Utc>,
    pub high_reward_sessions_left: i64,
    pub high_reward_sessions_max: i64,
    pub xp: i64,
    pub level: i64,
    pub xp_to_next_level: i64,
    pub streak_days: i64,
    pub check_in_days: i64,
    pub streak_protected_until: Option<DateTime<Utc>>,
    pub active_track_id: Option<String>,
    pub is_subscribed: bool,
    /// Questions due for review (or answered wrong), capped at 99: on the summary and
    /// the bootstrap only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviews_due: Option<i64>,
    /// Minor mode: the age band (`adult`: off), today's minutes left and when play is
    /// allowed again; on the summary and the bootstrap only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minor_mode: Option<crate::services::minors::MinorMode>,
}

/// The summary of `p`, whose resources are brought to `now` first.
pub fn summarize(p: &PlayerProgress, now: DateTime<Utc>, rules: &GameRules) -> ProgressSummary {
    let r = p.resources.clone().at(now, rules);
    ProgressSummary {
        hearts: r.hearts,
        max_hearts: rules.max_hearts,
        next_heart_restore_at: r.next_heart_at(rules),
        daily_attempts_left: r.attempts_left(rules),
        daily_attempts_max: rules.daily_attempts_max,
        next_attempt_reset_at: beijing::next_midnight(now),
        high_reward_sessions_left: 0,
        high_reward_sessions_max: rules.high_reward_sessions_max,
        xp: r.xp,
        level: resources::level_for(r.xp),
        xp_to_next_level: resources::xp_to_next_level(r.xp),
        streak_days: r.streak_on(beijing::day(now)),
        check_in_days: r.check_in_days,
        streak_protected_until: r.streak_protected_until.map(from_ms),
        active_track_id: p.active_track_id.clone(),
        is_subscribed: p.is_subscribed(now.timestamp_millis()),
        reviews_due: p.reviews_due,
        minor_mode: None,
    }
}

pub(crate) async fn load(ctx: &AppContext, player_id: &PlayerId) -> Result<PlayerProgress> {
    db::progress::read(&ctx.db, player_id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))
}

/// Locks the player's progress for a change of their resources, refusing a player
/// banned or merged away meanwhile (between the request's admission and the lock): no
/// reward reaches a banned player, nor a board they are hidden from.
pub(crate) async fn lock(tx: &mut Tx, player_id: &PlayerId, now_ms: i64) -> Result<PlayerProgress> {
    let p = db::progress::lock(tx, player_id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    crate::services::player_auth::ensure_not_merged(&p.account)?;
    crate::services::player_auth::ensure_not_banned(
        p.account.is_banned,
        p.account.banned_until,
        now_ms,
    )?;
    Ok(p)
}

/// `GET /v1/progress/summary`, for a signed-in player.
pub async fn summary(ctx: &AppContext, player: &PlayerPrincipal) -> Result<ProgressSummary> {
    let now = ctx.clock.now();
    let p = db::progress::read_with_reviews_due(&ctx.db, &player.id, now.timestamp_millis())
        .await?
        .filter(|p| p.account.deleted_at.is_none())
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    with_minor_mode(ctx, &player.id, &p, summarize(&p, now, &ctx.settings.rules)).await
}

/// `summary` with its `minorMode` (a statement only for a player in minor mode).
pub async fn with_minor_mode(
    ctx: &AppContext,
    player_id: &PlayerId,
    p: &PlayerProgress,
    mut summary: ProgressSummary,
) -> Result<ProgressSummary> {
    summary.minor_mode =
        Some(crate::services::minors::mode(ctx, player_id, &p.account.guard()).await?);
    Ok(summary)
}

/// `GET /v1/progress/summary` for the subject of a verified access token: the one read
/// of the progress row also admits the player (ban, deletion).
pub async fn summary_of_token_subject(
    ctx: &AppContext,
    subject: &AccessSubject,
) -> Result<ProgressSummary> {
    let now = ctx.clock.now();
    let p =
        db::progress::read_with_reviews_due(&ctx.db, &subject.player_id, now.timestamp_millis())
            .await?;
    crate::services::player_auth::admit(
        p.as_ref().map(|p| &p.account),
        subject,
        now.timestamp_millis(),
    )?;
    let p = p.ok_or_else(|| Error::unauthorized(msg::UNKNOWN_PLAYER))?;
    let summary = summarize(&p, now, &ctx.settings.rules);
    with_minor_mode(ctx, &subject.player_id, &p, summary).await
}

/// `PATCH /v1/progress/preferences`.
pub async fn set_active_track(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    track: &str,
) -> Result<ProgressSummary> {
    let track = db::tracks::track(&ctx.db, track.trim())
        .await?
        .ok_or_else(|| Error::validation(msg::ACTIVETRACKID_IS_NOT_A_TRACK))?;
    let mut tx = ctx.db.begin().await?;
    db::progress::write(
        Target::Tx(&mut tx),
        &player.id,
        Update::ActiveTrack(&track.id),
        ctx.clock.now_ms(),
    )
    .await?;
    tx.commit().await?;
    summary(ctx, player).await
}

/// `POST /v1/progress/check-in`: counted once per Beijing day.
pub async fn check_in(ctx: &AppContext, player: &PlayerPrincipal) -> Result<ProgressSummary> {
    let now = ctx.clock.now();
    let day = beijing::day_key(beijing::day(now));
    let mut tx = ctx.db.begin().await?;
    let mut p = lock(&mut tx, &player.id, now.timestamp_millis()).await?;
    if db::progress::check_in(&mut tx, &player.id, &day, now.timestamp_millis()).await? {
        let mut after = p.resources.clone();
        after.check_in_days += 1;
        let change = ResourceChange::untracked(
            &player.id,
            p.resources.clone(),
            after,
            &ctx.settings.rules,
            now,
        );
        record(&mut tx, &change, &mut Vec::new()).await?;
        p.resources = change.after;
    }
    tx.commit().await?;
    Ok(summarize(&p, now, &ctx.settings.rules))
}

/// Records a resource change in the caller's transaction, which locked the player's
/// row ([`lock`]): the progress row, the ledger row and the weekly XP (see
/// `db::progress::write`); the new weekly rows go into `ranks`, for the rank index once
/// the transaction commits. False, writing nothing, when the change's key is in the
/// ledger already.
pub(crate) async fn record(
    tx: &mut Tx,
    change: &ResourceChange,
    ranks: &mut Vec<RankUpdate>,
) -> Result<bool> {
    let written = db::progress::write(
        Target::Tx(tx),
        &change.player_id,
        Update::Change(change),
        change.at_ms,
    )
    .await?;
    match written {
        Written::Recorded { weekly, .. } => {
            ranks.extend(rank_updates(change, weekly));
            Ok(true)
        }
        Written::KeyTaken => Ok(false),
        Written::NoRow => Err(Error::unauthorized(msg::ACCOUNT_DELETED)),
        other => Err(Error::internal(format!(
            "a change in a transaction was written as {other:?}"
        ))),
    }
}

/// The rank index's updates after `change` wrote the weekly rows `totals`.
pub(crate) fn rank_updates(change: &ResourceChange, totals: Vec<WeeklyTotal>) -> Vec<RankUpdate> {
    let Some(weekly) = &change.weekly else {
        return Vec::new();
    };
    totals
        .into_iter()
        .map(|t| RankUpdate {
            week_start: weekly.week_start.clone(),
            board: t.board,
            player_id: change.player_id.clone(),
            xp: t.xp,
            last_earned_at: t.last_earned_at,
        })
        .collect()
}
