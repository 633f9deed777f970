//! `refresh_tokens`: hashes of issued refresh tokens; each works once.

use super::{Tx, in_tx};

pub async fn insert(
    tx: &mut Tx,
    token_hash: &str,
    audience: &str,
    subject_id: &str,
    expires_at_ms: i64,
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO refresh_tokens (token_hash, audience, subject_id, expires_at, created_at)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(token_hash)
        .bind(audience)
        .bind(subject_id)
        .bind(expires_at_ms)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// Marks the token used if it is live, returning its subject. A used, revoked, expired
/// or unknown token gives `None`; of two concurrent uses exactly one succeeds.
pub async fn consume(
    tx: &mut Tx,
    token_hash: &str,
    audience: &str,
    now_ms: i64,
) -> sqlx::Result<Option<String>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "UPDATE refresh_tokens SET used_at = $1
             WHERE token_hash = $2 AND audience = $3
               AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $1
             RETURNING subject_id",
        )
        .bind(now_ms)
        .bind(token_hash)
        .bind(audience)
        .fetch_optional(ex)
        .await?
    }))
}

/// Revokes every live refresh token of a subject, except `keep` when given.
pub async fn revoke_all(
    tx: &mut Tx,
    audience: &str,
    subject_id: &str,
    keep: Option<&str>,
    now_ms: i64,
) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE refresh_tokens SET revoked_at = $1
             WHERE audience = $2 AND subject_id = $3 AND revoked_at IS NULL AND used_at IS NULL
               AND token_hash <> COALESCE($4, '')",
        )
        .bind(now_ms)
        .bind(audience)
        .bind(subject_id)
        .bind(keep)
        .execute(ex)
        .await?
        .rows_affected()
    }))
}
