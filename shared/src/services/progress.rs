//! The player's progress: the summary, preferences, daily check-in, and how every
//! resource change is written (ledger row and weekly XP in the same transaction).

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::clock::{beijing, from_ms};
use crate::context::AppContext;
use crate::db::ledger::LedgerEntry;
use crate::db::progress::PlayerProgress;
use crate::db::{self, Tx};
use crate::domain::resources::{self, Resources};
use crate::domain::rules::GameRules;
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
    }
}

pub(crate) async fn load(ctx: &AppContext, player_id: &str) -> Result<PlayerProgress> {
    db::progress::read(&ctx.db, player_id)
        .await?
        .ok_or_else(|| Error::unauthorized("account deleted"))
}

/// Locks the player's progress for a change of their resources, refusing a player
/// banned or merged away meanwhile (between the request's admission and the lock): no
/// reward reaches a banned player, nor a board they are hidden from.
pub(crate) async fn lock(tx: &mut Tx, player_id: &str, now_ms: i64) -> Result<PlayerProgress> {
    let p = db::progress::lock(tx, player_id)
        .await?
        .ok_or_else(|| Error::unauthorized("account deleted"))?;
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
    let p = load(ctx, &player.id).await?;
    Ok(summarize(&p, ctx.clock.now(), &ctx.settings.rules))
}

/// `GET /v1/progress/summary` for the subject of a verified access token: the one read
/// of the progress row also admits the player (ban, deletion).
pub async fn summary_of_token_subject(
    ctx: &AppContext,
    subject: &AccessSubject,
) -> Result<ProgressSummary> {
    let p = db::progress::read_with_account(&ctx.db, &subject.player_id).await?;
    let now = ctx.clock.now();
    crate::services::player_auth::admit(
        p.as_ref().map(|p| &p.account),
        subject,
        now.timestamp_millis(),
    )?;
    let p = p.ok_or_else(|| Error::unauthorized("unknown player"))?;
    Ok(summarize(&p, now, &ctx.settings.rules))
}

/// `PATCH /v1/progress/preferences`.
pub async fn set_active_track(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    track: &str,
) -> Result<ProgressSummary> {
    let track = db::gameplay::track(&ctx.db, track.trim())
        .await?
        .ok_or_else(|| Error::validation("activeTrackId is not a track"))?;
    let mut tx = ctx.db.begin().await?;
    db::progress::set_active_track(&mut tx, &player.id, &track.id, ctx.clock.now_ms()).await?;
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
        p.resources.check_in_days += 1;
        db::progress::save(&mut tx, &player.id, &p.resources, now.timestamp_millis()).await?;
    }
    tx.commit().await?;
    Ok(summarize(&p, now, &ctx.settings.rules))
}

/// A resource snapshot for the ledger.
pub(crate) fn snapshot(r: &Resources, rules: &GameRules) -> String {
    serde_json::json!({
        "hearts": r.hearts,
        "attemptsLeft": r.attempts_left(rules),
        "xp": r.xp,
        "streakDays": r.streak_days,
    })
    .to_string()
}

/// One change of a player's resources, recorded under its idempotency key.
pub(crate) struct Change<'a> {
    pub player_id: &'a str,
    pub region_code: Option<&'a str>,
    pub key: &'a str,
    pub source: &'a str,
    pub before: &'a Resources,
    pub after: &'a Resources,
}

/// Writes the ledger row of a change and adds its XP to the weekly boards (the player's
/// region, if any, and the all-players board), in the caller's transaction; the new
/// weekly rows go into `ranks`, for the rank index once the transaction commits. Returns
/// false, writing nothing, when the key is in the ledger already.
pub(crate) async fn record(
    tx: &mut Tx,
    ctx: &AppContext,
    c: &Change<'_>,
    ranks: &mut Vec<RankUpdate>,
) -> Result<bool> {
    let rules = &ctx.settings.rules;
    let now = ctx.clock.now();
    let now_ms = now.timestamp_millis();
    let xp = c.after.xp - c.before.xp;
    let id = Uuid::new_v4().to_string();
    let entry = LedgerEntry {
        id: &id,
        player_id: c.player_id,
        key: c.key,
        source: c.source,
        xp_delta: xp,
        hearts_delta: c.after.hearts - c.before.hearts,
        attempts_delta: c.after.attempts_left(rules) - c.before.attempts_left(rules),
        coins_delta: 0,
        before: &snapshot(c.before, rules),
        after: &snapshot(c.after, rules),
        now_ms,
    };
    if !db::ledger::insert(tx, &entry).await? {
        return Ok(false);
    }
    if xp != 0 {
        let week = beijing::day_key(beijing::week_start(now));
        let mut boards = vec!["topic:all".to_string()];
        if let Some(region) = c.region_code {
            boards.push(format!("region:{region}"));
        }
        for board in boards {
            let (total, last_earned_at) =
                db::ledger::add_weekly_xp(tx, &week, &board, c.player_id, xp, now_ms).await?;
            ranks.push(RankUpdate {
                week_start: week.clone(),
                board,
                player_id: c.player_id.to_string(),
                xp: total,
                last_earned_at,
            });
        }
    }
    Ok(true)
}
