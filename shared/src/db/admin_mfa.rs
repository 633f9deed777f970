//! `admin_mfa` and `admin_recovery_codes`: admins' TOTP secrets (sealed, see
//! `secrets_key`), the last time step a code was accepted for, the wrong-code counter
//! that locks the second factor, and one-time recovery codes (SHA-256 only).

use super::{Db, Tx, in_tx, read};
use crate::ids::AdminId;

/// An admin's MFA row. No `Debug`: it holds secrets.
#[derive(Clone, sqlx::FromRow)]
pub struct MfaRow {
    pub admin_id: AdminId,
    /// The secret as stored (sealed; base32 from before sealing); waits for its first
    /// code.
    pub pending_secret: Option<String>,
    /// As stored, like `pending_secret`; set while MFA is on.
    pub secret: Option<String>,
    pub last_used_step: i64,
    /// Wrong codes reserved since `code_failures_since`.
    pub code_failures: i64,
    pub code_failures_since: i64,
    /// Codes are refused until then (too many wrong ones).
    pub code_locked_until: Option<i64>,
}

pub async fn get(db: &Db, admin_id: &AdminId) -> sqlx::Result<Option<MfaRow>> {
    read!(db, |ex| {
        sqlx::query_as::<_, MfaRow>(
            "SELECT admin_id, pending_secret, secret, last_used_step, code_failures,
                    code_failures_since, code_locked_until
             FROM admin_mfa WHERE admin_id = $1",
        )
        .bind(admin_id)
        .fetch_optional(ex)
        .await
    })
}

/// Stores a pending secret unless MFA is already on; false when it is.
pub async fn set_pending(
    tx: &mut Tx,
    admin_id: &AdminId,
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
    admin_id: &AdminId,
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
pub async fn use_step(db: &Db, admin_id: &AdminId, secret: &str, step: i64) -> sqlx::Result<bool> {
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

/// One wrong-code counter to reserve a place in: `limit` wrong codes per run of
/// `window_ms` from the run's first.
#[derive(Clone, Copy, Debug)]
pub struct CodeCounter {
    pub now_ms: i64,
    pub window_ms: i64,
    pub limit: i64,
}

/// Reserves a place for one code of the admin's confirmed secret before it is judged:
/// the run's counter goes up by one unless the codes are locked or the run holds
/// `limit` already. A run older than its window, or one whose lock has ended, starts
/// again at one. Returns the run's start (the reservation), or `None` when refused. A
/// conditional update, so concurrent guesses never pass the limit together (PostgreSQL
/// re-checks the condition on the row's latest version; SQLite's writer serialises).
pub async fn reserve_code(
    db: &Db,
    admin_id: &AdminId,
    c: CodeCounter,
) -> sqlx::Result<Option<i64>> {
    let mut tx = db.begin().await?;
    let run_start: Option<i64> = in_tx!(&mut tx, |ex| {
        sqlx::query_scalar(
            "UPDATE admin_mfa SET
                 code_failures = CASE
                     WHEN code_locked_until IS NOT NULL OR code_failures_since <= $2 - $3 THEN 1
                     ELSE code_failures + 1 END,
                 code_failures_since = CASE
                     WHEN code_locked_until IS NOT NULL OR code_failures_since <= $2 - $3 THEN $2
                     ELSE code_failures_since END,
                 code_locked_until = NULL
             WHERE admin_id = $1 AND secret IS NOT NULL
               AND (code_locked_until IS NULL OR code_locked_until <= $2)
               AND (code_locked_until IS NOT NULL OR code_failures < $4
                    OR code_failures_since <= $2 - $3)
             RETURNING code_failures_since",
        )
        .bind(admin_id)
        .bind(c.now_ms)
        .bind(c.window_ms)
        .bind(c.limit)
        .fetch_optional(ex)
        .await?
    });
    tx.commit().await?;
    Ok(run_start)
}

/// Gives a reserved place back (the code was right, or never judged), if its run is
/// still the current one.
pub async fn give_back_code(db: &Db, admin_id: &AdminId, run_start: i64) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE admin_mfa SET code_failures = code_failures - 1
             WHERE admin_id = $1 AND code_failures_since = $2 AND code_failures > 0",
        )
        .bind(admin_id)
        .bind(run_start)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await
}

/// Locks the admin's codes until `until_ms` when the run starting at `run_start` holds
/// `limit` wrong codes and is not locked yet; true for the one caller that locked it.
pub async fn lock_codes_if_full(
    tx: &mut Tx,
    admin_id: &AdminId,
    run_start: i64,
    limit: i64,
    until_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE admin_mfa SET code_locked_until = $4
             WHERE admin_id = $1 AND code_failures_since = $2 AND code_failures >= $3
               AND code_locked_until IS NULL",
        )
        .bind(admin_id)
        .bind(run_start)
        .bind(limit)
        .bind(until_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Replaces a stored secret written before sealing with its sealed form, unless it
/// changed meanwhile (another process sealed it first, or it was replaced); true when
/// this call wrote it. `column` is `secret` or `pending_secret`.
pub async fn reseal(
    db: &Db,
    admin_id: &AdminId,
    column: SecretColumn,
    stored: &str,
    sealed: &str,
) -> sqlx::Result<bool> {
    let sql = match column {
        SecretColumn::Confirmed => {
            "UPDATE admin_mfa SET secret = $3 WHERE admin_id = $1 AND secret = $2"
        }
        SecretColumn::Pending => {
            "UPDATE admin_mfa SET pending_secret = $3 WHERE admin_id = $1 AND pending_secret = $2"
        }
    };
    let mut tx = db.begin().await?;
    let written = in_tx!(&mut tx, |ex| {
        sqlx::query(sql)
            .bind(admin_id)
            .bind(stored)
            .bind(sealed)
            .execute(ex)
            .await?
            .rows_affected()
    });
    tx.commit().await?;
    Ok(written == 1)
}

/// Which of a row's two secrets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretColumn {
    Confirmed,
    Pending,
}

/// Every MFA row (the start-up pass that seals secrets from before sealing; one row per
/// admin at most).
pub async fn all(db: &Db) -> sqlx::Result<Vec<MfaRow>> {
    read!(db, |ex| {
        sqlx::query_as::<_, MfaRow>(
            "SELECT admin_id, pending_secret, secret, last_used_step, code_failures,
                    code_failures_since, code_locked_until
             FROM admin_mfa ORDER BY admin_id",
        )
        .fetch_all(ex)
        .await
    })
}

/// Turns MFA off (pending secret included) and deletes the recovery codes; true when
/// there was anything to remove.
pub async fn remove(tx: &mut Tx, admin_id: &AdminId) -> sqlx::Result<bool> {
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
    admin_id: &AdminId,
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
pub async fn recovery_code_hashes(db: &Db, admin_id: &AdminId) -> sqlx::Result<Vec<String>> {
    read!(db, |ex| {
        sqlx::query_scalar("SELECT code_hash FROM admin_recovery_codes WHERE admin_id = $1")
            .bind(admin_id)
            .fetch_all(ex)
            .await
    })
}

/// Spends a recovery code: true for the one caller whose delete removed it.
pub async fn spend_recovery_code(db: &Db, admin_id: &AdminId, hash: &str) -> sqlx::Result<bool> {
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
