//! `server_secrets`: secrets generated once outside production and shared by every
//! process through the database.

use super::{Db, read};

/// Stores `candidate` under `name` unless a value exists, then returns the stored value
/// (so concurrent starters agree on one).
pub async fn get_or_insert(
    db: &Db,
    name: &str,
    candidate: &str,
    now_ms: i64,
) -> sqlx::Result<String> {
    let mut tx = db.begin().await?;
    super::in_tx!(&mut tx, |ex| {
        sqlx::query(
            "INSERT INTO server_secrets (name, value, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(candidate)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    let value: String = super::in_tx!(&mut tx, |ex| {
        sqlx::query_scalar("SELECT value FROM server_secrets WHERE name = $1")
            .bind(name)
            .fetch_one(ex)
            .await?
    });
    tx.commit().await?;
    Ok(value)
}

/// Whether a secret named `name` is stored.
pub async fn exists(db: &Db, name: &str) -> sqlx::Result<bool> {
    let n: i64 = read!(db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM server_secrets WHERE name = $1")
            .bind(name)
            .fetch_one(ex)
            .await?
    });
    Ok(n > 0)
}
