//! `refresh_tokens`: hashes of issued refresh tokens; each works once. The tokens
//! descended from one sign-in are a family, named by the hash of its first token (rows
//! written before families existed stand alone: `family_id` NULL means their own hash).

use super::{Tx, in_tx};

/// Stores an issued refresh token; `family` is the family it continues, None for the
/// first token of a sign-in (which names a new family).
pub async fn insert(
    tx: &mut Tx,
    token_hash: &str,
    audience: &str,
    subject_id: &str,
    family: Option<&str>,
    expires_at_ms: i64,
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO refresh_tokens (token_hash, audience, subject_id, family_id, expires_at, created_at)
             VALUES ($1, $2, $3, COALESCE($4, $1), $5, $6)",
        )
        .bind(token_hash)
        .bind(audience)
        .bind(subject_id)
        .bind(family)
        .bind(expires_at_ms)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// What a presented refresh token turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Presented {
    /// It was live and is now used.
    Live { subject_id: String, family: String },
    /// It had been used already: a copy of it is in other hands (RFC 9700 §4.14).
    Reused { subject_id: String, family: String },
    /// Unknown, revoked or expired.
    Dead,
}

#[derive(sqlx::FromRow)]
struct TokenRow {
    subject_id: String,
    family: String,
    used_at: Option<i64>,
}

/// Marks the token used if it is live and its family was not revoked (the family's
/// first token is revoked with it, so a token issued by a refresh that raced the
/// revocation is dead too). Of two concurrent uses exactly one is [`Presented::Live`];
/// the other is a reuse.
///
/// On PostgreSQL a use that lost the race keeps the row locked to the end of its
/// transaction (the re-check after the wait locks the newest version): roll back
/// before acting on a [`Presented::Reused`].
pub async fn consume(
    tx: &mut Tx,
    token_hash: &str,
    audience: &str,
    now_ms: i64,
) -> sqlx::Result<Presented> {
    in_tx!(tx, |ex| {
        let live: Option<TokenRow> = sqlx::query_as(
            "UPDATE refresh_tokens SET used_at = $1
             WHERE token_hash = $2 AND audience = $3
               AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $1
               AND NOT EXISTS (SELECT 1 FROM refresh_tokens f
                               WHERE f.token_hash = refresh_tokens.family_id
                                 AND f.revoked_at IS NOT NULL)
             RETURNING subject_id, COALESCE(family_id, token_hash) AS family, used_at",
        )
        .bind(now_ms)
        .bind(token_hash)
        .bind(audience)
        .fetch_optional(&mut *ex)
        .await?;
        if let Some(t) = live {
            return Ok(Presented::Live {
                subject_id: t.subject_id,
                family: t.family,
            });
        }
        let known: Option<TokenRow> = sqlx::query_as(
            "SELECT subject_id, COALESCE(family_id, token_hash) AS family, used_at
             FROM refresh_tokens WHERE token_hash = $1 AND audience = $2",
        )
        .bind(token_hash)
        .bind(audience)
        .fetch_optional(&mut *ex)
        .await?;
        Ok(match known {
            Some(t) if t.used_at.is_some() => Presented::Reused {
                subject_id: t.subject_id,
                family: t.family,
            },
            _ => Presented::Dead,
        })
    })
}

/// Revokes every token of a family, its first one included (which ends the family for
/// [`consume`]).
pub async fn revoke_family(tx: &mut Tx, family: &str, now_ms: i64) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE refresh_tokens SET revoked_at = $1
             WHERE (family_id = $2 OR token_hash = $2) AND revoked_at IS NULL",
        )
        .bind(now_ms)
        .bind(family)
        .execute(ex)
        .await?
        .rows_affected()
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

/// The families (sign-ins) of a subject in use: a live last token, issued at or after
/// `active_since_ms`, whose family was not revoked. The newest `limit` of them.
pub async fn open_families(
    tx: &mut Tx,
    audience: &str,
    subject_id: &str,
    active_since_ms: i64,
    now_ms: i64,
    limit: i64,
) -> sqlx::Result<Vec<String>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "SELECT COALESCE(family_id, token_hash) FROM refresh_tokens
             WHERE audience = $1 AND subject_id = $2
               AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $3
               AND created_at >= $4
               AND NOT EXISTS (SELECT 1 FROM refresh_tokens f
                               WHERE f.token_hash = refresh_tokens.family_id
                                 AND f.revoked_at IS NOT NULL)
             ORDER BY created_at DESC, token_hash LIMIT $5",
        )
        .bind(audience)
        .bind(subject_id)
        .bind(now_ms)
        .bind(active_since_ms)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}
