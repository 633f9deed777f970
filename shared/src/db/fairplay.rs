//! Fair play: each signalled player's week score and staff decision
//! (`fairplay_players`), the hold flag on the player, and the answers that raised
//! signals (the partial index `challenge_answers_signals`).

use super::{Db, Tx, in_tx, read};
use crate::domain::fairplay::FairPlayState;
use crate::ids::{ChallengeId, PlayerId, QuestionId};

/// SQL: the answer aliased `$answer` counts in the estimates others are judged by
/// (`domain::fairplay::counts_in_estimates`): it raised no signal, and its player is
/// neither held, banned nor flagged (staff cleared them, or nothing ever signalled).
/// Two primary-key probes.
macro_rules! in_good_standing {
    ($answer:literal) => {
        concat!(
            "(",
            $answer,
            ".signals = 0 AND NOT EXISTS (SELECT 1 FROM players gp WHERE gp.id = ",
            $answer,
            ".player_id AND (gp.fairplay_held OR gp.is_banned))
             AND NOT EXISTS (SELECT 1 FROM fairplay_players gf WHERE gf.player_id = ",
            $answer,
            ".player_id AND gf.state <> 'cleared'))"
        )
    };
}
pub(crate) use in_good_standing;

/// Where a player stands.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FairPlayRow {
    pub player_id: PlayerId,
    pub state: FairPlayState,
    pub week_start: String,
    pub week_score: i64,
    pub cleared_score: i64,
    pub too_fast: i64,
    pub impossible: i64,
    pub fast_perfect: i64,
    pub merges: i64,
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

/// An answer's signals as its write adds them to the player's row of `week`.
#[derive(Clone, Debug)]
pub struct FairPlayScore {
    pub week: String,
    pub added: Added,
    /// The hold score (`FAIRPLAY_HOLD_SCORE`): the queue key depends on it.
    pub hold_score: i64,
}

/// The player's row after an answer's write scored its signals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scored {
    pub state: FairPlayState,
    pub week_score: i64,
    pub cleared_score: i64,
}

/// Holds a player still flagged (their queue place that of a held player); the week's
/// score, or None when they are no longer flagged (decided meanwhile).
pub async fn hold_flagged(
    tx: &mut Tx,
    player_id: &PlayerId,
    now_ms: i64,
) -> sqlx::Result<Option<i64>> {
    let held: Option<i64> = in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "UPDATE fairplay_players SET state = 'held', queue_key = $2 + week_score,
                 decided_by = NULL, decided_at = $3, reason = NULL
             WHERE player_id = $1 AND state = 'flagged'
             RETURNING week_score",
        )
        .bind(player_id)
        .bind(crate::domain::fairplay::HELD_KEY)
        .bind(now_ms)
        .fetch_optional(ex)
        .await?
    });
    Ok(held)
}

/// The signals one answer (or challenge) added.
#[derive(Clone, Copy, Debug, Default)]
pub struct Added {
    pub too_fast: i64,
    pub impossible: i64,
    pub fast_perfect: i64,
    pub score: i64,
}

/// Adds an account's signal that no answer carries (a merge beyond the first in its
/// window: `domain::merge`) to its week: `points` to the week's score and one to its
/// `merges` count, the row flagged (unless held), its queue place as
/// `domain::fairplay::queue_key` computes it. In the caller's transaction, which locked
/// the player's progress row first. Returns the row as it now stands.
pub async fn add_merge_signal(
    tx: &mut Tx,
    player_id: &PlayerId,
    week: &str,
    points: i64,
    hold_score: i64,
    now_ms: i64,
) -> sqlx::Result<Scored> {
    let (state, week_score, cleared_score): (FairPlayState, i64, i64) = in_tx!(tx, |ex| {
        sqlx::query_as(
            "INSERT INTO fairplay_players AS f (player_id, state, week_start, week_score, merges,
                 last_signal_at, queue_key)
             VALUES ($1, 'flagged', $2, $3, 1, $4, CASE WHEN $3 * 3 >= $5 THEN $6 + $3 ELSE 0 END)
             ON CONFLICT (player_id) DO UPDATE SET
                 week_score = CASE WHEN f.week_start = excluded.week_start
                                   THEN f.week_score + excluded.week_score ELSE excluded.week_score END,
                 cleared_score = CASE WHEN f.week_start = excluded.week_start THEN f.cleared_score ELSE 0 END,
                 week_start = excluded.week_start,
                 merges = f.merges + 1,
                 last_signal_at = excluded.last_signal_at,
                 state = CASE WHEN f.state IN ('cleared', 'banned') THEN 'flagged' ELSE f.state END,
                 queue_key = CASE
                     WHEN f.state = 'held' THEN $7 + CASE WHEN f.week_start = excluded.week_start
                         THEN f.week_score + excluded.week_score ELSE excluded.week_score END
                     WHEN 3 * CASE WHEN f.week_start = excluded.week_start
                         THEN f.week_score + excluded.week_score ELSE excluded.week_score END >= $5
                     THEN $6 + CASE WHEN f.week_start = excluded.week_start
                         THEN f.week_score + excluded.week_score ELSE excluded.week_score END
                     ELSE 0 END
             RETURNING state, week_score, cleared_score",
        )
        .bind(player_id)
        .bind(week)
        .bind(points)
        .bind(now_ms)
        .bind(hold_score)
        .bind(crate::domain::fairplay::FLAGGED_KEY)
        .bind(crate::domain::fairplay::HELD_KEY)
        .fetch_one(ex)
        .await?
    });
    Ok(Scored {
        state,
        week_score,
        cleared_score,
    })
}

const COLUMNS: &str =
    "f.player_id, f.state, f.week_start, f.week_score, f.cleared_score, f.too_fast,
    f.impossible, f.fast_perfect, f.merges, f.last_signal_at, f.decided_by, f.decided_at,
    f.reason";

/// What a decision (or an automatic hold) stores.
pub struct Decision<'a> {
    pub state: FairPlayState,
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
    player_id: &PlayerId,
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

/// Holds or releases the player (their new weekly rows are hidden while held); false
/// when there is no such player.
pub async fn set_held(tx: &mut Tx, player_id: &PlayerId, held: bool) -> sqlx::Result<bool> {
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

/// Whether the player is held, read in `tx` (after its row locks).
pub async fn is_held(tx: &mut Tx, player_id: &PlayerId) -> sqlx::Result<bool> {
    let held: Option<bool> = in_tx!(tx, |ex| {
        sqlx::query_scalar("SELECT fairplay_held FROM players WHERE id = $1")
            .bind(player_id)
            .fetch_optional(ex)
            .await?
    });
    Ok(held.unwrap_or(false))
}

/// The player's row, if they ever had a signal or a decision.
pub async fn row_of(db: &Db, player_id: &PlayerId) -> sqlx::Result<Option<FairPlayRow>> {
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

/// One page of the queue: held first, then by the week's score (the queue index read
/// backwards).
pub async fn queue(db: &Db, limit: i64, offset: i64) -> sqlx::Result<Vec<QueueRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, QueueRow>(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS}, p.nickname
             FROM (SELECT * FROM fairplay_players WHERE queue_key > 0
                   ORDER BY queue_key DESC, player_id DESC LIMIT $1 OFFSET $2) f
             LEFT JOIN players p ON p.id = f.player_id
             ORDER BY f.queue_key DESC, f.player_id DESC"
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
    pub player_id: PlayerId,
    pub session_id: ChallengeId,
    pub question_id: QuestionId,
    pub is_correct: bool,
    pub time_ms: i64,
    pub server_elapsed_ms: Option<i64>,
    pub signals: i64,
    pub created_at: i64,
}

/// The latest answers that raised signals of each of `players` (at most `limit` each),
/// in one statement of one bounded index range per player.
pub async fn examples(db: &Db, players: &[&PlayerId], limit: i64) -> sqlx::Result<Vec<Example>> {
    if players.is_empty() {
        return Ok(Vec::new());
    }
    let ranges = (0..players.len())
        .map(|i| {
            format!(
                "SELECT * FROM (SELECT player_id, session_id, question_id, is_correct, time_ms,
                                       server_elapsed_ms, signals, created_at
                                FROM challenge_answers WHERE player_id = ${} AND signals <> 0
                                ORDER BY created_at DESC LIMIT $1) e{i}",
                i + 2
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ");
    Ok(read!(db, |ex| {
        let mut q = sqlx::query_as::<_, Example>(sqlx::AssertSqlSafe(ranges)).bind(limit);
        for p in players {
            q = q.bind(*p);
        }
        q.fetch_all(ex).await?
    }))
}

/// Takes flagged players whose week ended before `week` off the queue (held players
/// stay until staff decide): over the queue's partial index.
pub async fn unqueue_stale(db: &Db, week: &str) -> sqlx::Result<u64> {
    let mut tx = db.begin().await?;
    let n = in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE fairplay_players SET queue_key = 0
             WHERE queue_key > 0 AND state = 'flagged' AND week_start < $1",
        )
        .bind(week)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await?;
    Ok(n)
}

/// A guest merged into an account brings its fair play along: a held guest makes the
/// account held (its XP stays hidden), and its signals and score add to the account's.
pub async fn move_player(tx: &mut Tx, guest: &PlayerId, target: &PlayerId) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        for sql in [
            "UPDATE players SET fairplay_held = TRUE
             WHERE id = $2 AND EXISTS (SELECT 1 FROM players g WHERE g.id = $1 AND g.fairplay_held)",
            "INSERT INTO fairplay_players AS f (player_id, state, week_start, week_score,
                 cleared_score, too_fast, impossible, fast_perfect, merges, last_signal_at, queue_key,
                 decided_by, decided_at, reason)
             SELECT $2, state, week_start, week_score, cleared_score, too_fast, impossible,
                    fast_perfect, merges, last_signal_at, queue_key, decided_by, decided_at, reason
             FROM fairplay_players WHERE player_id = $1
             ON CONFLICT (player_id) DO UPDATE SET
                 week_score = CASE WHEN f.week_start = excluded.week_start
                                   THEN f.week_score + excluded.week_score
                                   WHEN excluded.week_start > f.week_start
                                   THEN excluded.week_score ELSE f.week_score END,
                 week_start = CASE WHEN excluded.week_start > f.week_start
                                   THEN excluded.week_start ELSE f.week_start END,
                 too_fast = f.too_fast + excluded.too_fast,
                 impossible = f.impossible + excluded.impossible,
                 fast_perfect = f.fast_perfect + excluded.fast_perfect,
                 merges = f.merges + excluded.merges,
                 last_signal_at = CASE WHEN excluded.last_signal_at > f.last_signal_at
                                       THEN excluded.last_signal_at ELSE f.last_signal_at END,
                 state = CASE WHEN 'held' IN (f.state, excluded.state) THEN 'held'
                              WHEN 'flagged' IN (f.state, excluded.state) THEN 'flagged'
                              ELSE f.state END,
                 queue_key = CASE WHEN excluded.queue_key > f.queue_key
                                  THEN excluded.queue_key ELSE f.queue_key END",
        ] {
            sqlx::query(sql)
                .bind(guest)
                .bind(target)
                .execute(&mut *ex)
                .await?;
        }
        sqlx::query("DELETE FROM fairplay_players WHERE player_id = $1")
            .bind(guest)
            .execute(&mut *ex)
            .await?;
    });
    Ok(())
}

/// Whether the player raised a fair-play signal in `[from_ms, to_ms)`, read in `tx` over
/// the partial index of signalled answers.
pub async fn signalled_between(
    tx: &mut Tx,
    player_id: &PlayerId,
    from_ms: i64,
    to_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM challenge_answers
                            WHERE player_id = $1 AND signals <> 0
                              AND created_at >= $2 AND created_at < $3)",
        )
        .bind(player_id)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_one(ex)
        .await?
    }))
}
