//! `console_sessions`: the HTML console's cookie sessions, shared by every
//! admin-console process, each under the SHA-256 of its id (`services::console_sessions`).
//! `data` is the session's JSON; `expires_at` is wall-clock ms.

use super::{Db, delete_expired_rows, in_tx, read};

/// Inserts a new session; false when the id is already taken (the caller draws another).
pub async fn create(db: &Db, id: &str, data: &str, expires_at_ms: i64) -> sqlx::Result<bool> {
    write_session(
        db,
        "INSERT INTO console_sessions (id, data, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO NOTHING",
        id,
        data,
        expires_at_ms,
    )
    .await
}

/// Updates an existing session; false when its row is gone. Never inserts: a request
/// in flight when its session was deleted (sign-out, another process) must not bring
/// the row back when it saves on the way out. New sessions go through [`create`].
pub async fn save(db: &Db, id: &str, data: &str, expires_at_ms: i64) -> sqlx::Result<bool> {
    write_session(
        db,
        "UPDATE console_sessions SET data = $2, expires_at = $3 WHERE id = $1",
        id,
        data,
        expires_at_ms,
    )
    .await
}

/// Runs `sql` (`$1` id, `$2` data, `$3` expiry) in its own transaction; true when it
/// wrote the row.
async fn write_session(
    db: &Db,
    sql: &'static str,
    id: &str,
    data: &str,
    expires_at_ms: i64,
) -> sqlx::Result<bool> {
    let mut tx = db.begin().await?;
    let written = in_tx!(&mut tx, |ex| {
        sqlx::query(sql)
            .bind(id)
            .bind(data)
            .bind(expires_at_ms)
            .execute(ex)
            .await?
            .rows_affected()
    });
    tx.commit().await?;
    Ok(written == 1)
}

/// The session's data and expiry, unless it is missing or expired at `now_ms`.
pub async fn load(db: &Db, id: &str, now_ms: i64) -> sqlx::Result<Option<(String, i64)>> {
    read!(db, |ex| {
        sqlx::query_as::<_, (String, i64)>(
            "SELECT data, expires_at FROM console_sessions WHERE id = $1 AND expires_at > $2",
        )
        .bind(id)
        .bind(now_ms)
        .fetch_optional(ex)
        .await
    })
}

pub async fn delete(db: &Db, id: &str) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query("DELETE FROM console_sessions WHERE id = $1")
            .bind(id)
            .execute(ex)
            .await?
            .rows_affected()
    });
    tx.commit().await?;
    Ok(())
}

/// Removes the sessions that expired before `now_ms`; returns how many.
pub async fn delete_expired(db: &Db, now_ms: i64) -> sqlx::Result<u64> {
    delete_expired_rows(
        db,
        "DELETE FROM console_sessions WHERE expires_at <= $1",
        now_ms,
    )
    .await
}
