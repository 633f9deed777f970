//! Real-name verification's outcome on `players` and the NPPA login/logout reports
//! waiting to be sent (`nppa_reports`).

use super::progress::{self, Target, Update};
use super::{Db, Tx, in_tx, read};
use crate::domain::anti_addiction::RealNameStatus;
use crate::ids::PlayerId;

/// A player's verification as stored.
#[derive(Clone, Debug, Default, sqlx::FromRow)]
pub struct RealNameRow {
    pub real_name_status: Option<RealNameStatus>,
    pub real_name_ai: Option<String>,
    pub real_name_pi: Option<String>,
    pub real_name_birth_year: Option<i64>,
    pub real_name_at: Option<i64>,
}

pub async fn state(db: &Db, player_id: &PlayerId) -> sqlx::Result<Option<RealNameRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, RealNameRow>(
            "SELECT real_name_status, real_name_ai, real_name_pi, real_name_birth_year, real_name_at
             FROM players WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Records an outcome, unless the player is verified already (a verification is for
/// good) or the account was deleted meanwhile (nothing of a person outlives it). Advances the progress revision: what the player may play changed. Answers
/// whether it was recorded.
pub async fn record(
    tx: &mut Tx,
    player_id: &PlayerId,
    row: &RealNameRow,
    now_ms: i64,
) -> sqlx::Result<bool> {
    let recorded = in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET real_name_status = $2, real_name_ai = $3, real_name_pi = $4,
                 real_name_birth_year = $5, real_name_at = $6, updated_at = $6
             WHERE id = $1 AND deleted_at IS NULL
               AND (real_name_status IS NULL OR real_name_status <> 'verified')",
        )
        .bind(player_id)
        .bind(row.real_name_status)
        .bind(&row.real_name_ai)
        .bind(&row.real_name_pi)
        .bind(row.real_name_birth_year)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    });
    if recorded {
        progress::write(Target::Tx(tx), player_id, Update::Touch, now_ms).await?;
    }
    Ok(recorded)
}

/// Whether a login of session `si` of the player was queued (sent, given up or
/// waiting).
pub async fn login_queued(tx: &mut Tx, player_id: &PlayerId, si: &str) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar::<_, String>(
            "SELECT id FROM nppa_reports
             WHERE player_id = $1 AND session_id = $2 AND behaviour = 1 LIMIT 1",
        )
        .bind(player_id)
        .bind(si)
        .fetch_optional(ex)
        .await?
        .is_some()
    }))
}

/// One login or logout to report.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ReportRow {
    pub id: String,
    pub session_id: String,
    pub behaviour: i64,
    pub occurred_at: i64,
    pub pi: String,
    pub attempts: i64,
}

/// Queues a report (in the sign-in's or the logout's transaction).
pub async fn queue_report(
    tx: &mut Tx,
    id: &str,
    player_id: &PlayerId,
    session_id: &str,
    behaviour: i64,
    pi: &str,
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO nppa_reports (id, player_id, session_id, behaviour, occurred_at, pi,
                                       next_attempt_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $5, $5)",
        )
        .bind(id)
        .bind(player_id)
        .bind(session_id)
        .bind(behaviour)
        .bind(now_ms)
        .bind(pi)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// The reports due at `now_ms` in the order they happened (a session's login before
/// its logout, in the same millisecond too), at most `limit`.
pub async fn due_reports(db: &Db, now_ms: i64, limit: i64) -> sqlx::Result<Vec<ReportRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, ReportRow>(
            "SELECT id, session_id, behaviour, occurred_at, pi, attempts FROM nppa_reports
             WHERE sent_at IS NULL AND next_attempt_at <= $1
             ORDER BY occurred_at, behaviour DESC, id LIMIT $2",
        )
        .bind(now_ms)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}

/// Gives up at most `limit` reports still waiting that happened before `before_ms`
/// (they leave the queue at `now_ms`, marked given up); answers how many.
pub async fn give_up_stale(db: &Db, before_ms: i64, now_ms: i64, limit: i64) -> sqlx::Result<u64> {
    let mut tx = db.begin().await?;
    let given_up = in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE nppa_reports SET sent_at = $2, given_up = TRUE
             WHERE id IN (SELECT id FROM nppa_reports
                          WHERE sent_at IS NULL AND occurred_at < $1
                          ORDER BY occurred_at, behaviour DESC, id LIMIT $3)
               AND sent_at IS NULL",
        )
        .bind(before_ms)
        .bind(now_ms)
        .bind(limit)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await?;
    Ok(given_up)
}

/// Marks reports sent.
pub async fn mark_sent(db: &Db, ids: &[String], now_ms: i64) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    for id in ids {
        in_tx!(&mut tx, |ex| {
            sqlx::query("UPDATE nppa_reports SET sent_at = $2 WHERE id = $1 AND sent_at IS NULL")
                .bind(id)
                .bind(now_ms)
                .execute(ex)
                .await?
                .rows_affected()
        });
    }
    tx.commit().await
}

/// Puts reports off until `next_attempt_at`, counting the attempt.
pub async fn retry_later(db: &Db, ids: &[String], next_attempt_at: i64) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    for id in ids {
        in_tx!(&mut tx, |ex| {
            sqlx::query(
                "UPDATE nppa_reports SET attempts = attempts + 1, next_attempt_at = $2
                 WHERE id = $1 AND sent_at IS NULL",
            )
            .bind(id)
            .bind(next_attempt_at)
            .execute(ex)
            .await?
            .rows_affected()
        });
    }
    tx.commit().await
}
