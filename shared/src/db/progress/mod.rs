//! `player_progress` (with the player's region and subscription): loaded, locked for an
//! update, and written by [`write()`] alone.
//!
//! Every write of the row advances its `revision`, and the answer's in-memory path
//! (the answer cache) is safe only because of that. [`write()`] is the one function
//! that writes the row (its SQL lives in the private `write` module), and a
//! [`Revision`] can only come from a read of the row or from [`write()`], so nothing
//! can remember a state the database does not guard.

mod write;

use super::{Db, Tx, in_tx, read};
use crate::domain::anti_addiction::{PlayGuard, RealNameStatus};
use crate::domain::minor::AgeBand;
use crate::domain::resources::Resources;
use crate::domain::skill::Estimate;
use crate::domain::subscription::{SubscriptionStatus, Tier};
use crate::ids::PlayerId;

pub use write::{Beside, Target, Update, Written, write};

/// Whether a player may be served: ban, deletion, a merge into another account, and
/// the version every live access token of the player carries. Read with every
/// authenticated request, by the extractor or as columns of the route's own first query.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AccountState {
    pub is_banned: bool,
    pub banned_until: Option<i64>,
    pub deleted_at: Option<i64>,
    pub merged_into: Option<String>,
    pub token_version: i64,
    /// Minor mode's declared age band (none or `adult`: off), read with the ban so the
    /// routes it limits spend no statement on an adult.
    pub age_band: Option<AgeBand>,
    /// Real-name verification (the licensed-game profile), read beside the band.
    pub real_name_status: Option<RealNameStatus>,
    pub real_name_pi: Option<String>,
}

impl AccountState {
    /// What protects the player: minor mode and real-name verification.
    pub fn guard(&self) -> PlayGuard {
        PlayGuard {
            declared: self.age_band,
            real_name: self.real_name_status,
            pi: self.real_name_pi.clone(),
        }
    }
}

/// The `revision` of a player's progress row as read or as [`write()`] left it; nothing
/// else makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revision(i64);

impl Revision {
    /// The revision a write guarded by this one leaves.
    fn next(self) -> Self {
        Self(self.0 + 1)
    }

    /// For tests of what remembers progress.
    #[cfg(test)]
    pub(crate) fn for_test(n: i64) -> Self {
        Self(n)
    }
}

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
    review_xp: i64,
    review_hearts: i64,
    active_track_id: Option<String>,
    region_code: Option<String>,
    sub_status: Option<SubscriptionStatus>,
    sub_tier: Option<Tier>,
    sub_expires_at: Option<i64>,
    revision: i64,
    fairplay_held: bool,
    skill: f64,
    skill_answers: i64,
    #[sqlx(flatten)]
    account: AccountState,
    /// Read by the summary's own query only.
    #[sqlx(default)]
    reviews_due: Option<i64>,
}

/// A player's resources and what the game rules need beside them.
#[derive(Clone, Debug)]
pub struct PlayerProgress {
    pub resources: Resources,
    pub active_track_id: Option<String>,
    pub region_code: Option<String>,
    /// When streak protection was last granted (its cooldown runs from here).
    pub streak_protection_at: Option<i64>,
    pub subscription_status: SubscriptionStatus,
    pub tier: Tier,
    pub subscription_expires_at: Option<i64>,
    /// Ban and deletion, read in the same row (see `player_auth::admit`).
    pub account: AccountState,
    /// Advanced by every change to the row (an answer's write is guarded by it).
    pub revision: Revision,
    /// Held by fair play (`players.fairplay_held`): the weekly rows the player's XP makes
    /// are hidden from every board others see. A hold advances the revision.
    pub fairplay_held: bool,
    /// The player's overall skill θ (Elo), as the row holds it.
    pub skill: Estimate,
    /// The skill on one track, carried with the row by the answer path only (an
    /// answer's read, or what its write left): every write of a player's track skill
    /// is an answer, guarded by the revision, so it is exact while the revision is.
    pub track_skill: Option<TrackSkill>,
    /// The player's due reviews (capped), when the read counted them (the summary's).
    pub reviews_due: Option<i64>,
}

/// A player's skill θ on one track.
#[derive(Clone, Debug, PartialEq)]
pub struct TrackSkill {
    pub track_id: String,
    pub estimate: Estimate,
}

impl PlayerProgress {
    /// An active pro or proplus subscription at `now_ms`.
    pub fn is_subscribed(&self, now_ms: i64) -> bool {
        self.subscription_status == SubscriptionStatus::Active
            && self.tier.is_paid()
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
                review_xp: r.review_xp,
                review_hearts: r.review_hearts,
            },
            active_track_id: r.active_track_id,
            region_code: r.region_code,
            streak_protection_at: r.streak_protection_at,
            subscription_status: r.sub_status.unwrap_or(SubscriptionStatus::None),
            tier: r.sub_tier.unwrap_or(Tier::Free),
            subscription_expires_at: r.sub_expires_at,
            account: r.account,
            revision: Revision(r.revision),
            fairplay_held: r.fairplay_held,
            skill: Estimate {
                value: r.skill,
                answers: r.skill_answers,
            },
            track_skill: None,
            reviews_due: r.reviews_due,
        }
    }
}

/// The progress row's columns (`g`, with `p` the player and `s` the subscription).
macro_rules! progress_columns {
    () => {
        "SELECT g.hearts, g.hearts_regen_from, g.attempts_day, g.attempts_used, g.bonus_attempts,
        g.xp, g.daily_xp_day, g.daily_xp, g.streak_days, g.streak_last_day, g.streak_protected_until,
        g.streak_protection_at, g.check_in_days, g.review_xp, g.review_hearts, g.active_track_id, p.region_code,
        s.status AS sub_status, s.tier AS sub_tier, s.expires_at AS sub_expires_at, g.revision,
        p.fairplay_held, g.skill, g.skill_answers, p.is_banned, p.banned_until, p.deleted_at, p.merged_into, p.token_version, p.age_band, p.real_name_status, p.real_name_pi"
    };
}

/// Where [`progress_columns`] come from, for player `$1`.
macro_rules! progress_from {
    () => {
        " FROM player_progress g
     JOIN players p ON p.id = g.player_id
     LEFT JOIN subscriptions s ON s.player_id = g.player_id
     WHERE g.player_id = $1"
    };
}

/// The progress row of player `$1`, deleted players included (callers filter).
macro_rules! select_progress {
    () => {
        concat!(
            $crate::db::progress::progress_columns!(),
            $crate::db::progress::progress_from!()
        )
    };
}

/// [`select_progress`] with the player's due reviews at `$2` (up to
/// `db::review::DUE_CAP`: at most that many entries of the `(player_id, review_at)`
/// index, read from the index alone; an unpublished question's rows are parked out of
/// the range by the review job).
const SELECT_WITH_REVIEWS_DUE: &str = concat!(
    progress_columns!(),
    ", (SELECT COUNT(*) FROM (SELECT 1 FROM review_memory rm
        WHERE rm.player_id = $1 AND rm.review_at <= $2 LIMIT ",
    crate::db::review::due_cap!(),
    ") d) AS reviews_due",
    progress_from!()
);

pub(crate) use {progress_columns, progress_from, select_progress};

const SELECT: &str = concat!(select_progress!(), " AND p.deleted_at IS NULL");

pub async fn read(db: &Db, player_id: &PlayerId) -> sqlx::Result<Option<PlayerProgress>> {
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
pub async fn read_with_account(
    db: &Db,
    player_id: &PlayerId,
) -> sqlx::Result<Option<PlayerProgress>> {
    let row: Option<ProgressRow> = read!(db, |ex| {
        sqlx::query_as::<_, ProgressRow>(select_progress!())
            .bind(player_id)
            .fetch_optional(ex)
            .await?
    });
    Ok(row.map(Into::into))
}

/// [`read_with_account`] with the player's due reviews at `now_ms` counted in the same
/// statement (the summary's read).
pub async fn read_with_reviews_due(
    db: &Db,
    player_id: &PlayerId,
    now_ms: i64,
) -> sqlx::Result<Option<PlayerProgress>> {
    let row: Option<ProgressRow> = read!(db, |ex| {
        sqlx::query_as::<_, ProgressRow>(SELECT_WITH_REVIEWS_DUE)
            .bind(player_id)
            .bind(now_ms)
            .fetch_optional(ex)
            .await?
    });
    Ok(row.map(Into::into))
}

/// Reads the progress for an update that depends on it. Every write to a player's
/// resources takes this lock first, so such writes of one player run one after another.
pub async fn lock(tx: &mut Tx, player_id: &PlayerId) -> sqlx::Result<Option<PlayerProgress>> {
    let row: Option<ProgressRow> = match tx {
        // BEGIN IMMEDIATE already holds SQLite's single write lock.
        Tx::Sqlite(t) => {
            sqlx::query_as::<_, ProgressRow>(SELECT)
                .bind(player_id)
                .fetch_optional(&mut crate::db::Checked(&mut **t))
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
            .fetch_optional(&mut crate::db::Checked(&mut **t))
            .await?;
            let account: Option<AccountState> = sqlx::query_as(
                "SELECT is_banned, banned_until, deleted_at, merged_into, token_version, age_band, real_name_status, real_name_pi
                 FROM players WHERE id = $1",
            )
            .bind(player_id)
            .fetch_optional(&mut crate::db::Checked(&mut **t))
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

/// Records today's check-in; false when the player checked in today already.
pub async fn check_in(
    tx: &mut Tx,
    player_id: &PlayerId,
    day: &str,
    now_ms: i64,
) -> sqlx::Result<bool> {
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
