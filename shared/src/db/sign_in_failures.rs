//! `admin_sign_in_failures`: the admin sign-in throttle's counters, one row per counter
//! key and fixed window. A place is reserved with a conditional upsert before a password
//! is judged, so concurrent attempts never pass the limit together.

use super::{Db, Tx, delete_expired_rows, in_tx};

/// One counter to reserve a place in: its key, its window and its limit.
#[derive(Clone, Debug)]
pub struct Counter<'a> {
    pub key: &'a str,
    pub window_start_ms: i64,
    pub expires_at_ms: i64,
    pub limit: i64,
}

/// Adds one to the counter unless it already holds `limit`; true when a place was taken.
/// PostgreSQL locks the row on conflict and re-checks the condition on its latest
/// version; SQLite's writer lock serialises the statement.
pub async fn reserve(tx: &mut Tx, c: &Counter<'_>) -> sqlx::Result<bool> {
    let count: Option<i64> = in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "INSERT INTO admin_sign_in_failures (scope_key, window_start, expires_at, failures)
             VALUES ($1, $2, $3, 1)
             ON CONFLICT (scope_key, window_start)
                 DO UPDATE SET failures = admin_sign_in_failures.failures + 1
                 WHERE admin_sign_in_failures.failures < $4
             RETURNING failures",
        )
        .bind(c.key)
        .bind(c.window_start_ms)
        .bind(c.expires_at_ms)
        .bind(c.limit)
        .fetch_optional(ex)
        .await?
    });
    Ok(count.is_some())
}

/// Gives a reserved place back (the attempt succeeded or was never judged).
pub async fn release(db: &Db, key: &str, window_start_ms: i64) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE admin_sign_in_failures SET failures = failures - 1
             WHERE scope_key = $1 AND window_start = $2 AND failures > 0",
        )
        .bind(key)
        .bind(window_start_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await
}

/// Forgets every window of `key` (a successful sign-in clears its username's failures).
pub async fn clear(db: &Db, key: &str) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query("DELETE FROM admin_sign_in_failures WHERE scope_key = $1")
            .bind(key)
            .execute(ex)
            .await?
            .rows_affected()
    });
    tx.commit().await
}

/// Removes the windows that ended at or before `now_ms`; returns how many.
pub async fn delete_expired(db: &Db, now_ms: i64) -> sqlx::Result<u64> {
    delete_expired_rows(
        db,
        "DELETE FROM admin_sign_in_failures WHERE expires_at <= $1",
        now_ms,
    )
    .await
}
