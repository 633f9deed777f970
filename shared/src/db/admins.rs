//! `admins`: admin accounts.

use super::{Db, Tx, count_rows, in_tx, read};
use crate::domain::admin_role::AdminRole;
use crate::ids::AdminId;

/// The columns of [`AdminRow`]; `mfa_enabled` is read from `admin_mfa`.
macro_rules! admin_columns {
    () => {
        "id, username, password_hash, role, is_active, token_version, last_login_at, created_at, updated_at, language,
         EXISTS (SELECT 1 FROM admin_mfa m WHERE m.admin_id = admins.id AND m.secret IS NOT NULL) AS mfa_enabled"
    };
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AdminRow {
    pub id: AdminId,
    pub username: String,
    pub password_hash: String,
    pub role: AdminRole,
    pub is_active: bool,
    pub token_version: i64,
    pub last_login_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    /// The console's language chosen by the admin (`zh-CN`, `en`); None follows the
    /// browser.
    pub language: Option<String>,
    /// A TOTP secret is confirmed (`admin_mfa.secret`); not a column of `admins`.
    pub mfa_enabled: bool,
}

pub async fn count(db: &Db) -> sqlx::Result<i64> {
    count_rows(db, "SELECT count(*) FROM admins").await
}

/// One admin by id; read inside and outside a transaction.
const ADMIN_BY_ID: &str = concat!("SELECT ", admin_columns!(), " FROM admins WHERE id = $1");

pub async fn get(db: &Db, id: &AdminId) -> sqlx::Result<Option<AdminRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, AdminRow>(ADMIN_BY_ID)
            .bind(id)
            .fetch_optional(ex)
            .await?
    }))
}

pub async fn get_by_username(db: &Db, username: &str) -> sqlx::Result<Option<AdminRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, AdminRow>(concat!(
            "SELECT ",
            admin_columns!(),
            " FROM admins WHERE username = $1"
        ))
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
        .bind(row.role)
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

/// Stores the admin's console language (None: follow the browser).
pub async fn set_language(tx: &mut Tx, id: &AdminId, language: Option<&str>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query("UPDATE admins SET language = $1 WHERE id = $2")
            .bind(language)
            .bind(id)
            .execute(ex)
            .await?
            .rows_affected()
    }) == 1)
}

pub async fn touch_login(tx: &mut Tx, id: &AdminId, now_ms: i64) -> sqlx::Result<()> {
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

/// A page of admins, filtered by role and active flag, and the total.
pub async fn page(
    db: &Db,
    role: Option<AdminRole>,
    is_active: Option<bool>,
    limit: i64,
    offset: i64,
) -> sqlx::Result<(Vec<AdminRow>, i64)> {
    let rows = read!(db, |ex| {
        sqlx::query_as::<_, AdminRow>(
            concat!(
                "SELECT ",
                admin_columns!(),
                " FROM admins
                 WHERE (CAST($1 AS TEXT) IS NULL OR role = $1) AND (CAST($2 AS BOOLEAN) IS NULL OR is_active = $2)
                 ORDER BY created_at, id LIMIT $3 OFFSET $4"
            ),
        )
        .bind(role)
        .bind(is_active)
        .bind(limit)
        .bind(offset)
        .fetch_all(ex)
        .await?
    });
    let total: i64 = read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT count(*) FROM admins
             WHERE (CAST($1 AS TEXT) IS NULL OR role = $1) AND (CAST($2 AS BOOLEAN) IS NULL OR is_active = $2)",
        )
        .bind(role)
        .bind(is_active)
        .fetch_one(ex)
        .await?
    });
    Ok((rows, total))
}

/// Locks the active super_admins for a change that could remove the last one, and
/// returns their ids. PostgreSQL locks the rows; SQLite's `BEGIN IMMEDIATE` already holds
/// the write lock.
pub async fn lock_active_super_admins(tx: &mut Tx) -> sqlx::Result<Vec<AdminId>> {
    match tx {
        Tx::Sqlite(t) => {
            sqlx::query_scalar(
                "SELECT id FROM admins WHERE role = 'super_admin' AND is_active = TRUE",
            )
            .fetch_all(&mut crate::db::Checked(&mut **t))
            .await
        }
        Tx::Postgres(t) => {
            sqlx::query_scalar(
                "SELECT id FROM admins WHERE role = 'super_admin' AND is_active = TRUE FOR UPDATE",
            )
            .fetch_all(&mut crate::db::Checked(&mut **t))
            .await
        }
    }
}

/// Reads an admin for a change, locking its row on PostgreSQL (SQLite's writer lock
/// already serialises writes), so two concurrent edits cannot overwrite each other.
pub async fn get_for_update(tx: &mut Tx, id: &AdminId) -> sqlx::Result<Option<AdminRow>> {
    match tx {
        Tx::Sqlite(t) => {
            sqlx::query_as::<_, AdminRow>(concat!(
                "SELECT ",
                admin_columns!(),
                " FROM admins WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(&mut crate::db::Checked(&mut **t))
            .await
        }
        Tx::Postgres(t) => {
            sqlx::query_as::<_, AdminRow>(concat!(
                "SELECT ",
                admin_columns!(),
                " FROM admins WHERE id = $1 FOR UPDATE"
            ))
            .bind(id)
            .fetch_optional(&mut crate::db::Checked(&mut **t))
            .await
        }
    }
}

pub async fn get_tx(tx: &mut Tx, id: &AdminId) -> sqlx::Result<Option<AdminRow>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, AdminRow>(ADMIN_BY_ID)
            .bind(id)
            .fetch_optional(ex)
            .await?
    }))
}

/// Stores username, role and active flag; a deactivation also ends the admin's tokens.
pub async fn update(
    tx: &mut Tx,
    row: &AdminRow,
    end_tokens: bool,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE admins SET username = $2, role = $3, is_active = $4,
                 token_version = token_version + $5, updated_at = $6
             WHERE id = $1",
        )
        .bind(&row.id)
        .bind(&row.username)
        .bind(row.role)
        .bind(row.is_active)
        .bind(i64::from(end_tokens))
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Sets a new password hash and ends every token issued before; returns the new token
/// version.
pub async fn set_password(
    tx: &mut Tx,
    id: &AdminId,
    hash: &str,
    now_ms: i64,
) -> sqlx::Result<Option<i64>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "UPDATE admins SET password_hash = $2, token_version = token_version + 1, updated_at = $3
             WHERE id = $1 RETURNING token_version",
        )
        .bind(id)
        .bind(hash)
        .bind(now_ms)
        .fetch_optional(ex)
        .await?
    }))
}

/// Moves an admin's token version on (every access token and console session ends) and
/// returns the new version, for the fresh pair of the session that carries on.
pub async fn next_token_version(
    tx: &mut Tx,
    id: &AdminId,
    now_ms: i64,
) -> sqlx::Result<Option<i64>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "UPDATE admins SET token_version = token_version + 1, updated_at = $2 WHERE id = $1
             RETURNING token_version",
        )
        .bind(id)
        .bind(now_ms)
        .fetch_optional(ex)
        .await?
    }))
}

/// Ends every access token of an admin (their version moves on).
pub async fn end_access_tokens(tx: &mut Tx, id: &AdminId, now_ms: i64) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE admins SET token_version = token_version + 1, updated_at = $2 WHERE id = $1",
        )
        .bind(id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// Locks an admin's row for the rest of the transaction (PostgreSQL; SQLite's
/// `BEGIN IMMEDIATE` holds its one write lock already), so writers of the admin and its
/// tokens take their locks in one order.
pub async fn lock(tx: &mut Tx, id: &AdminId) -> sqlx::Result<()> {
    if let Tx::Postgres(t) = tx {
        sqlx::query("SELECT id FROM admins WHERE id = $1 FOR UPDATE")
            .bind(id)
            .execute(&mut crate::db::Checked(&mut **t))
            .await?;
    }
    Ok(())
}
