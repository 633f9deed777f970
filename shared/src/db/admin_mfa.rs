//! `admin_mfa` and `admin_recovery_codes`: admins' TOTP secrets, the last time step a
//! code was accepted for, and one-time recovery codes (SHA-256 only).

use super::{Db, Tx, in_tx, read};

/// An admin's MFA row. No `Debug`: it holds secrets.
#[derive(Clone, sqlx::FromRow)]
pub struct MfaRow {
    pub admin_id: String,
    /// base32; waits for its first code.
    pub pending_secret: Option<String>,
    /// base32; set while MFA is on.
    pub secret: Option<String>,
    pub last_used_step: i64,
}

pub async fn get(db: &Db, admin_id: &str) -> sqlx::Result<Option<MfaRow>> {
    read!(db, |ex| {
        sqlx::query_as::<_, MfaRow>(
            "SELECT admin_id, pending_secret, secret, last_used_step FROM admin_mfa
             WHERE admin_id = $1",
        )
        .bind(admin_id)
        .fetch_optional(ex)
        .await
    })
}

/// Stores a pending secret unless MFA is already on; false when it is.
pub async fn set_pending(
    tx: &mut Tx,
    admin_id: &str,
    secret: &str,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO admin_mfa (admin_id, pending_secret, secret, last_used_step, enabled_at, updated_at)
             VALUES ($1, $2, NULL, 0, NULL, $3)
             ON CONFLICT (admin_id) DO UPDATE SET pending_secret = excluded.pending_secret,
                 updated_at = excluded.updated_at
             WHERE admin_mfa.secret IS NULL",
        )
        .bind(admin_id)
        .bind(secret)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Turns MFA on with the pending secret `secret`, recording `step` as used; false when
/// the pending secret changed meanwhile or MFA is already on.
pub async fn enable(
    tx: &mut Tx,
    admin_id: &str,
    secret: &str,
    step: i64,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE admin_mfa SET secret = pending_secret, pending_secret = NULL,
                 last_used_step = $3, enabled_at = $4, updated_at = $4
             WHERE admin_id = $1 AND pending_secret = $2 AND secret IS NULL",
        )
        .bind(admin_id)
        .bind(secret)
        .bind(step)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Accepts a code of time step `step` once: true only when `step` is later than every
/// step accepted before for this secret (two concurrent uses: one wins).
pub async fn use_step(db: &Db, admin_id: &str, secret: &str, step: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin().await?;
    let updated = in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE admin_mfa SET last_used_step = $3
             WHERE admin_id = $1 AND secret = $2 AND last_used_step < $3",
        )
        .bind(admin_id)
        .bind(secret)
        .bind(step)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await?;
    Ok(updated == 1)
}

/// Turns MFA off (pending secret included) and deletes the recovery codes; true when
/// there was anything to remove.
pub async fn remove(tx: &mut Tx, admin_id: &str) -> sqlx::Result<bool> {
    in_tx!(tx, |ex| {
        sqlx::query("DELETE FROM admin_recovery_codes WHERE admin_id = $1")
            .bind(admin_id)
            .execute(&mut *ex)
            .await?;
        Ok(sqlx::query("DELETE FROM admin_mfa WHERE admin_id = $1")
            .bind(admin_id)
            .execute(ex)
            .await?
            .rows_affected()
            == 1)
    })
}

/// Replaces the admin's recovery codes with `hashes`.
pub async fn replace_recovery_codes(
    tx: &mut Tx,
    admin_id: &str,
    hashes: &[String],
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query("DELETE FROM admin_recovery_codes WHERE admin_id = $1")
            .bind(admin_id)
            .execute(&mut *ex)
            .await?;
        for hash in hashes {
            sqlx::query(
                "INSERT INTO admin_recovery_codes (admin_id, code_hash, created_at) VALUES ($1, $2, $3)",
            )
            .bind(admin_id)
            .bind(hash)
            .bind(now_ms)
            .execute(&mut *ex)
            .await?;
        }
        Ok(())
    })
}

/// The hashes of the admin's unused recovery codes.
pub async fn recovery_code_hashes(db: &Db, admin_id: &str) -> sqlx::Result<Vec<String>> {
    read!(db, |ex| {
        sqlx::query_scalar("SELECT code_hash FROM admin_recovery_codes WHERE admin_id = $1")
            .bind(admin_id)
            .fetch_all(ex)
            .await
    })
}

/// Spends a recovery code: true for the one caller whose delete removed it.
pub async fn spend_recovery_code(db: &Db, admin_id: &str, hash: &str) -> sqlx::Result<bool> {
    let mut tx = db.begin().await?;
    let removed = in_tx!(&mut tx, |ex| {
        sqlx::query("DELETE FROM admin_recovery_codes WHERE admin_id = $1 AND code_hash = $2")
            .bind(admin_id)
            .bind(hash)
            .execute(ex)
            .await?
            .rows_affected()
    });
    tx.commit().await?;
    Ok(removed == 1)
}
