//! `player_progress` (with the player's region and subscription): loaded, locked for an
//! update, stored back.

use super::players::AccountState;
use super::{Db, Tx, in_tx, read};
use crate::domain::resources::Resources;

#[derive(Clone, Debug, sqlx::FromRow)]
pub(crate) struct ProgressRow {
    hearts: i64,
    hearts_regen_from: Option<i64>,
    attempts_day: Option<String>,
    attempts_used: i64,
    bonus_attempts: i64,
    xp: i64,
    daily_xp_day: Option<String>,
    daily_xp: i64,
    streak_days: i64,
    streak_last_day: Option<String>,
    streak_protected_until: Option<i64>,
    streak_protection_at: Option<i64>,
    check_in_days: i64,
    active_track_id: Option<String>,
    region_code: Option<String>,
    sub_status: Option<String>,
    sub_tier: Option<String>,
    sub_expires_at: Option<i64>,
    revision: i64,
    #[sqlx(flatten)]
    account: AccountState,
}

/// A player's resources and what the game rules need beside them.
#[derive(Clone, Debug)]
pub struct PlayerProgress {
    pub resources: Resources,
    pub active_track_id: Option<String>,
    pub region_code: Option<String>,
    /// When streak protection was last granted (its cooldown runs from here).
    pub streak_protection_at: Option<i64>,
    pub subscription_status: String,
    pub tier: String,
    pub subscription_expires_at: Option<i64>,
    /// Ban and deletion, read in the same row (see `player_auth::admit`).
    pub account: AccountState,
    /// Advanced by every change to the row (an answer's write is guarded by it).
    pub revision: i64,
}

impl PlayerProgress {
    /// An active pro or proplus subscription at `now_ms`.
    pub fn is_subscribed(&self, now_ms: i64) -> bool {
        self.subscription_status == "active"
            && matches!(self.tier.as_str(), "pro" | "proplus")
            && self.subscription_expires_at.is_none_or(|t| t > now_ms)
    }
}

impl From<ProgressRow> for PlayerProgress {
    fn from(r: ProgressRow) -> Self {
        Self {
            resources: Resources {
                hearts: r.hearts,
                hearts_regen_from: r.hearts_regen_from,
                attempts_day: r.attempts_day,
                attempts_used: r.attempts_used,
                bonus_attempts: r.bonus_attempts,
                xp: r.xp,
                daily_xp_day: r.daily_xp_day,
                daily_xp: r.daily_xp,
                streak_days: r.streak_days,
                streak_last_day: r.streak_last_day,
                streak_protected_until: r.streak_protected_until,
                check_in_days: r.check_in_days,
            },
            active_track_id: r.active_track_id,
            region_code: r.region_code,
            streak_protection_at: r.streak_protection_at,
            subscription_status: r.sub_status.unwrap_or_else(|| "none".into()),
            tier: r.sub_tier.unwrap_or_else(|| "free".into()),
            subscription_expires_at: r.sub_expires_at,
            account: r.account,
            revision: r.revision,
        }
    }
}

/// The progress row of player `$1`, deleted players included (callers filter).
macro_rules! select_progress {
    () => {
        "SELECT g.hearts, g.hearts_regen_from, g.attempts_day, g.attempts_used, g.bonus_attempts,
        g.xp, g.daily_xp_day, g.daily_xp, g.streak_days, g.streak_last_day, g.streak_protected_until,
        g.streak_protection_at, g.check_in_days, g.active_track_id, p.region_code,
        s.status AS sub_status, s.tier AS sub_tier, s.expires_at AS sub_expires_at, g.revision,
        p.is_banned, p.banned_until, p.deleted_at, p.merged_into, p.token_version
     FROM player_progress g
     JOIN players p ON p.id = g.player_id
     LEFT JOIN subscriptions s ON s.player_id = g.player_id
     WHERE g.player_id = $1"
    };
}

pub(crate) use select_progress;

const SELECT: &str = concat!(select_progress!(), " AND p.deleted_at IS NULL");

pub async fn read(db: &Db, player_id: &str) -> sqlx::Result<Option<PlayerProgress>> {
    let row: Option<ProgressRow> = read!(db, |ex| {
        sqlx::query_as::<_, ProgressRow>(SELECT)
            .bind(player_id)
            .fetch_optional(ex)
            .await?
    });
    Ok(row.map(Into::into))
}

/// The progress of a player whether banned or deleted, for a request that admits the
/// player by this row's `account` (one read serves both).
pub async fn read_with_account(db: &Db, player_id: &str) -> sqlx::Result<Option<PlayerProgress>> {
    let row: Option<ProgressRow> = read!(db, |ex| {
        sqlx::query_as::<_, ProgressRow>(select_progress!())
            .bind(player_id)
            .fetch_optional(ex)
            .await?
    });
    Ok(row.map(Into::into))
}

/// Reads the progress for an update that depends on it. Every write to a player's
/// resources takes this lock first, so such writes of one player run one after another.
pub async fn lock(tx: &mut Tx, player_id: &str) -> sqlx::Result<Option<PlayerProgress>> {
    let row: Option<ProgressRow> = match tx {
        // BEGIN IMMEDIATE already holds SQLite's single write lock.
        Tx::Sqlite(t) => {
            sqlx::query_as::<_, ProgressRow>(SELECT)
                .bind(player_id)
                .fetch_optional(&mut **t)
                .await?
        }
        // PostgreSQL locks the one progress row; the player row is read again after the
        // wait (the joined columns are those of before it), so a deletion, ban or merge
        // committed meanwhile is seen.
        Tx::Postgres(t) => {
            let row = sqlx::query_as::<_, ProgressRow>(sqlx::AssertSqlSafe(format!(
                "{SELECT} FOR UPDATE OF g"
            )))
            .bind(player_id)
            .fetch_optional(&mut **t)
            .await?;
            let account: Option<AccountState> = sqlx::query_as(
                "SELECT is_banned, banned_until, deleted_at, merged_into, token_version
                 FROM players WHERE id = $1",
            )
            .bind(player_id)
            .fetch_optional(&mut **t)
            .await?;
            match (row, account) {
                (Some(mut row), Some(account)) if account.deleted_at.is_none() => {
                    row.account = account;
                    Some(row)
                }
                _ => None,
            }
        }
    };
    Ok(row.map(Into::into))
}

/// Stores the resources back.
pub async fn save(tx: &mut Tx, player_id: &str, r: &Resources, now_ms: i64) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE player_progress SET hearts = $2, hearts_regen_from = $3, attempts_day = $4,
                 attempts_used = $5, bonus_attempts = $6, xp = $7, daily_xp_day = $8, daily_xp = $9,
                 streak_days = $10, streak_last_day = $11, streak_protected_until = $12,
                 check_in_days = $13, updated_at = $14, revision = revision + 1
             WHERE player_id = $1",
        )
        .bind(player_id)
        .bind(r.hearts)
        .bind(r.hearts_regen_from)
        .bind(&r.attempts_day)
        .bind(r.attempts_used)
        .bind(r.bonus_attempts)
        .bind(r.xp)
        .bind(&r.daily_xp_day)
        .bind(r.daily_xp)
        .bind(r.streak_days)
        .bind(&r.streak_last_day)
        .bind(r.streak_protected_until)
        .bind(r.check_in_days)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// Marks the player's row changed without changing it: for a change beside it that an
/// answer judged before it must not outlive (a ban, a deletion, a region move), since
/// the answer's write is guarded by the revision.
pub async fn advance_revision(tx: &mut Tx, player_id: &str) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query("UPDATE player_progress SET revision = revision + 1 WHERE player_id = $1")
            .bind(player_id)
            .execute(ex)
            .await?
            .rows_affected()
    });
    Ok(())
}

pub async fn set_active_track(
    tx: &mut Tx,
    player_id: &str,
    track_id: &str,
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE player_progress SET active_track_id = $2, updated_at = $3, revision = revision + 1
             WHERE player_id = $1",
        )
        .bind(player_id)
        .bind(track_id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

pub async fn set_streak_protection(
    tx: &mut Tx,
    player_id: &str,
    until_ms: i64,
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE player_progress SET streak_protected_until = $2, streak_protection_at = $3, updated_at = $3,
                 revision = revision + 1
             WHERE player_id = $1",
        )
        .bind(player_id)
        .bind(until_ms)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// Records today's check-in; false when the player checked in today already.
pub async fn check_in(tx: &mut Tx, player_id: &str, day: &str, now_ms: i64) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO player_check_ins (player_id, day, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (player_id, day) DO NOTHING",
        )
        .bind(player_id)
        .bind(day)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}
