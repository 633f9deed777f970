//! `request_counters`: requests counted per key and fixed window, across processes (the
//! feedback limits). A place is taken with one conditional upsert, so concurrent
//! requests never pass a limit together; ended windows go with the retention job.

use super::{Db, Tx, in_tx, read};

/// One counter to take a place in: its key, its window and its limit.
#[derive(Clone, Debug)]
pub struct Counter<'a> {
    pub key: &'a str,
    pub window_start_ms: i64,
    pub expires_at_ms: i64,
    pub limit: i64,
}

/// Whether the counter holds `limit` already: read without a write, so a refusal costs
/// no transaction (a request let through here still takes its place with
/// [`take_place`], which decides).
pub async fn is_full(db: &Db, c: &Counter<'_>) -> sqlx::Result<bool> {
    let count: Option<i64> = read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT requests FROM request_counters WHERE scope_key = $1 AND window_start = $2",
        )
        .bind(c.key)
        .bind(c.window_start_ms)
        .fetch_optional(ex)
        .await?
    });
    Ok(count.is_some_and(|n| n >= c.limit))
}

/// Adds one to the counter unless it already holds `limit`; true when a place was
/// taken. PostgreSQL locks the row on conflict and re-checks the condition on its latest
/// version (the place is held until `tx` ends: a rollback gives it back); SQLite's
/// writer lock serialises the statement.
pub async fn take_place(tx: &mut Tx, c: &Counter<'_>) -> sqlx::Result<bool> {
    let count: Option<i64> = in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "INSERT INTO request_counters (scope_key, window_start, expires_at, requests)
             VALUES ($1, $2, $3, 1)
             ON CONFLICT (scope_key, window_start)
                 DO UPDATE SET requests = request_counters.requests + 1
                 WHERE request_counters.requests < $4
             RETURNING requests",
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
