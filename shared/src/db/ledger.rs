//! `reward_ledger` and `weekly_xp`: every reward and deduction once, by its idempotency
//! key; weekly XP per leaderboard.

use super::{Tx, in_tx};
use crate::ids::PlayerId;

/// One ledger row.
pub struct LedgerEntry<'a> {
    pub id: &'a str,
    pub player_id: &'a PlayerId,
    pub key: &'a str,
    pub source: &'a str,
    pub xp_delta: i64,
    pub hearts_delta: i64,
    pub attempts_delta: i64,
    pub coins_delta: i64,
    pub before: &'a str,
    pub after: &'a str,
    pub now_ms: i64,
}

/// Binds a [`LedgerEntry`]'s eleven columns, in the table's order, to `$query`'s next
/// parameters.
macro_rules! bind_ledger_entry {
    ($query:expr, $e:expr) => {
        $query
            .bind($e.id)
            .bind($e.player_id)
            .bind($e.key)
            .bind($e.source)
            .bind($e.xp_delta)
            .bind($e.hearts_delta)
            .bind($e.attempts_delta)
            .bind($e.coins_delta)
            .bind($e.before)
            .bind($e.after)
            .bind($e.now_ms)
    };
}

pub(crate) use bind_ledger_entry;

/// Writes the entry unless its key exists; false when it did (a replay). Only
/// `db::progress::write` calls it (with the progress row, in one transaction).
pub(in crate::db) async fn insert(tx: &mut Tx, e: &LedgerEntry<'_>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        bind_ledger_entry!(
            sqlx::query(
                "INSERT INTO reward_ledger (id, player_id, idempotency_key, source, xp_delta, hearts_delta,
                                            attempts_delta, coins_delta, before_snapshot, after_snapshot, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                 ON CONFLICT (idempotency_key) DO NOTHING",
            ),
            e
        )
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Adds `xp` earned at `earned_at` (whole seconds, the leaderboards' tie precision: see
/// `domain::change::earned_at`) to a player's row of a weekly board, and returns the
/// row's new total and last-earned instant (`db::progress::write` and the leaderboard
/// benchmark call it).
pub async fn add_weekly_xp(
    tx: &mut Tx,
    week_start: &str,
    board: &str,
    player_id: &PlayerId,
    xp: i64,
    earned_at: i64,
) -> sqlx::Result<Option<(i64, i64)>> {
    // A held player's new row is hidden as it is written (as the answer's write does);
    // None: the row is hidden, on no board others see.
    let (xp, last_earned_at, hidden_until) = in_tx!(tx, |ex| {
        sqlx::query_as::<_, (i64, i64, Option<i64>)>(
            "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at, hidden_until)
             VALUES ($1, $2, $3, $4, $5,
                     (SELECT CASE WHEN fairplay_held THEN $6 END FROM players WHERE id = $3))
             ON CONFLICT (week_start, board, player_id)
             DO UPDATE SET xp = weekly_xp.xp + excluded.xp, last_earned_at = excluded.last_earned_at,
                 hidden_until = COALESCE(excluded.hidden_until, weekly_xp.hidden_until)
             RETURNING xp, last_earned_at, hidden_until",
        )
        .bind(week_start)
        .bind(board)
        .bind(player_id)
        .bind(xp)
        .bind(earned_at)
        .bind(HIDDEN_FOR_GOOD)
        .fetch_one(ex)
        .await?
    });
    Ok(hidden_until
        .is_none_or(|until| until <= earned_at)
        .then_some((xp, last_earned_at)))
}

/// `weekly_xp.hidden_until` of a row hidden until someone shows it again (a ban without
/// end, a fair-play hold).
pub const HIDDEN_FOR_GOOD: i64 = i64::MAX;

/// A weekly board row's total after an XP upsert.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct WeeklyTotal {
    pub board: String,
    pub xp: i64,
    pub last_earned_at: i64,
}
