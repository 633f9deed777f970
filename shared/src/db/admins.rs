//! `admins`: admin accounts.

use super::{Db, Tx, in_tx, read};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AdminRow {
    pub id: String,
    pub username: String,
    pub password_hash: String,
    pub role: String,
    pub is_active: bool,
    pub token_version: i64,
    pub last_login_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

pub async fn count(db: &Db) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM admins")
            .fetch_one(ex)
            .await?
    }))
}

pub async fn get(db: &Db, id: &str) -> sqlx::Result<Option<AdminRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, AdminRow>(
            "SELECT id, username, password_hash, role, is_active, token_version, last_login_at, created_at, updated_at
             FROM admins WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(ex)
        .await?
    }))
}

pub async fn get_by_username(db: &Db, username: &str) -> sqlx::Result<Option<AdminRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, AdminRow>(
            "SELECT id, username, password_hash, role, is_active, token_version, last_login_at, created_at, updated_at
             FROM admins WHERE username = $1",
        )
        .bind(username)
        .fetch_optional(ex)
        .await?
    }))
}

/// Inserts an admin unless the username exists; true when inserted.
pub async fn insert_if_absent(tx: &mut Tx, row: &AdminRow) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO admins (id, username, password_hash, role, is_active, token_version,
                                 last_login_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (username) DO NOTHING",
        )
        .bind(&row.id)
        .bind(&row.username)
        .bind(&row.password_hash)
        .bind(&row.role)
        .bind(row.is_active)
        .bind(row.token_version)
        .bind(row.last_login_at)
        .bind(row.created_at)
        .bind(row.updated_at)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

pub async fn touch_login(tx: &mut Tx, id: &str, now_ms: i64) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query("UPDATE admins SET last_login_at = $1 WHERE id = $2")
            .bind(now_ms)
            .bind(id)
            .execute(ex)
            .await?
            .rows_affected()
    });
    Ok(())
}
