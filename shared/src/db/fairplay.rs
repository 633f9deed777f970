//! Fair play: each signalled player's week score and staff decision
//! (`fairplay_players`), the hold flag on the player, and the answers that raised
//! signals (the partial index `challenge_answers_signals`).

use super::{Db, Tx, in_tx, read};

/// Where a player stands.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FairPlayRow {
    pub player_id: String,
    /// `flagged`, `held`, `cleared` or `banned`.
    pub state: String,
    pub week_start: String,
    pub week_score: i64,
    pub cleared_score: i64,
    pub too_fast: i64,
    pub impossible: i64,
    pub fast_perfect: i64,
    pub last_signal_at: i64,
    pub decided_by: Option<String>,
    pub decided_at: Option<i64>,
    pub reason: Option<String>,
}

/// A row of the review queue, with the player's name.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct QueueRow {
    #[sqlx(flatten)]
    pub row: FairPlayRow,
    pub nickname: Option<String>,
}

/// The signals one answer (or challenge) added.
#[derive(Clone, Copy, Debug, Default)]
pub struct Added {
    pub too_fast: i64,
    pub impossible: i64,
    pub fast_perfect: i64,
    pub score: i64,
}

const COLUMNS: &str =
    "f.player_id, f.state, f.week_start, f.week_score, f.cleared_score, f.too_fast,
    f.impossible, f.fast_perfect, f.last_signal_at, f.decided_by, f.decided_at, f.reason";

/// Adds signals to the player's row of `week` (a new week starts its score again);
/// a cleared player is flagged again. Returns the row as it is now.
pub async fn add_signals(
    tx: &mut Tx,
    player_id: &str,
    week: &str,
    added: Added,
    now_ms: i64,
) -> sqlx::Result<FairPlayRow> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, FairPlayRow>(
            "INSERT INTO fairplay_players AS f (player_id, state, week_start, week_score, too_fast,
                                           impossible, fast_perfect, last_signal_at)
             VALUES ($1, 'flagged', $2, $3, $4, $5, $6, $7)
             ON CONFLICT (player_id) DO UPDATE SET
                 week_score = CASE WHEN f.week_start = excluded.week_start
                                   THEN f.week_score + excluded.week_score
                                   ELSE excluded.week_score END,
                 cleared_score = CASE WHEN f.week_start = excluded.week_start
                                      THEN f.cleared_score ELSE 0 END,
                 week_start = excluded.week_start,
                 too_fast = f.too_fast + excluded.too_fast,
                 impossible = f.impossible + excluded.impossible,
                 fast_perfect = f.fast_perfect + excluded.fast_perfect,
                 last_signal_at = excluded.last_signal_at,
                 state = CASE WHEN f.state = 'cleared' THEN 'flagged' ELSE f.state END
             RETURNING player_id, state, week_start, week_score, cleared_score, too_fast,
                       impossible, fast_perfect, last_signal_at, decided_by, decided_at, reason",
        )
        .bind(player_id)
        .bind(week)
        .bind(added.score)
        .bind(added.too_fast)
        .bind(added.impossible)
        .bind(added.fast_perfect)
        .bind(now_ms)
        .fetch_one(ex)
        .await?
    }))
}

/// What a decision (or an automatic hold) stores.
pub struct Decision<'a> {
    pub state: &'a str,
    /// The queue's order: 0 off the queue.
    pub queue_key: i64,
    /// None: the service's own hold.
    pub decided_by: Option<&'a str>,
    pub reason: Option<&'a str>,
    /// Clearing: the week's score from which a new hold counts.
    pub clear_week: Option<&'a str>,
    pub now_ms: i64,
}

/// Stores a decision on the player's row (made when absent: staff may decide on a
/// player without signals).
pub async fn decide(
    tx: &mut Tx,
    player_id: &str,
    week: &str,
    d: &Decision<'_>,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO fairplay_players AS f (player_id, state, week_start, last_signal_at,
                                           queue_key, decided_by, decided_at, reason)
             VALUES ($1, $2, $3, 0, $4, $5, $6, $7)
             ON CONFLICT (player_id) DO UPDATE SET
                 state = excluded.state, queue_key = excluded.queue_key,
                 decided_by = excluded.decided_by, decided_at = excluded.decided_at,
                 reason = excluded.reason,
                 cleared_score = CASE WHEN $8 IS NOT NULL AND f.week_start = $8
                                      THEN f.week_score ELSE f.cleared_score END",
        )
        .bind(player_id)
        .bind(d.state)
        .bind(week)
        .bind(d.queue_key)
        .bind(d.decided_by)
        .bind(d.now_ms)
        .bind(d.reason)
        .bind(d.clear_week)
        .execute(ex)
        .await?;
    });
    Ok(())
}

/// Sets the queue order of the player's row.
pub async fn set_queue_key(tx: &mut Tx, player_id: &str, queue_key: i64) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query("UPDATE fairplay_players SET queue_key = $2 WHERE player_id = $1")
            .bind(player_id)
            .bind(queue_key)
            .execute(ex)
            .await?;
    });
    Ok(())
}

/// Holds or releases the player (their new weekly rows are hidden while held); false
/// when there is no such player.
pub async fn set_held(tx: &mut Tx, player_id: &str, held: bool) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query("UPDATE players SET fairplay_held = $2 WHERE id = $1 AND deleted_at IS NULL")
            .bind(player_id)
            .bind(held)
            .execute(ex)
            .await?
            .rows_affected()
            == 1
    }))
}

/// The player's row, if they ever had a signal or a decision.
pub async fn row_of(db: &Db, player_id: &str) -> sqlx::Result<Option<FairPlayRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, FairPlayRow>(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM fairplay_players f WHERE f.player_id = $1"
        )))
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Players on the queue (held and flagged), over its partial index.
pub async fn queue_size(db: &Db) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM fairplay_players WHERE queue_key > 0")
            .fetch_one(ex)
            .await?
    }))
}

/// One page of the queue: held first, then by the week's score.
pub async fn queue(db: &Db, limit: i64, offset: i64) -> sqlx::Result<Vec<QueueRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, QueueRow>(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS}, p.nickname
             FROM (SELECT * FROM fairplay_players WHERE queue_key > 0
                   ORDER BY queue_key DESC, player_id LIMIT $1 OFFSET $2) f
             LEFT JOIN players p ON p.id = f.player_id
             ORDER BY f.queue_key DESC, f.player_id"
        )))
        .bind(limit)
        .bind(offset)
        .fetch_all(ex)
        .await?
    }))
}

/// An answer that raised signals.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Example {
    pub session_id: String,
    pub question_id: String,
    pub is_correct: bool,
    pub time_ms: i64,
    pub server_elapsed_ms: Option<i64>,
    pub signals: i64,
    pub created_at: i64,
}

/// The player's latest answers that raised signals.
pub async fn examples(db: &Db, player_id: &str, limit: i64) -> sqlx::Result<Vec<Example>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, Example>(
            "SELECT session_id, question_id, is_correct, time_ms, server_elapsed_ms, signals,
                    created_at
             FROM challenge_answers
             WHERE player_id = $1 AND signals <> 0
             ORDER BY created_at DESC LIMIT $2",
        )
        .bind(player_id)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}
