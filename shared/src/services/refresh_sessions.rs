//! Refresh-token sessions of both audiences: issuing a pair with its stored refresh
//! token, and the one-use rotation with reuse detection (RFC 9700 §4.14). Players and
//! admins differ only in which rows a detected reuse locks and ends.

use serde::Serialize;
use utoipa::ToSchema;

use crate::context::AppContext;
use crate::db::refresh_tokens::Presented;
use crate::db::{self, Tx};
use crate::ids::{AdminId, PlayerId};
use crate::message::msg;
use crate::tokens::{Audience, IssuedPair, hash_token};
use crate::{Error, Result};

/// An access token and a refresh token.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
}

impl From<IssuedPair> for TokenPair {
    fn from(pair: IssuedPair) -> Self {
        Self {
            access_token: pair.access_token,
            refresh_token: pair.refresh_token,
        }
    }
}

/// Issues `subject_id`'s pair and stores its refresh token in `tx`: in `family`, or
/// (`None`) as the first of a new family, as a sign-in starts one.
pub(crate) async fn issue_stored_pair(
    ctx: &AppContext,
    tx: &mut Tx,
    audience: Audience,
    subject_id: &str,
    token_version: i64,
    family: Option<&str>,
    now_ms: i64,
) -> Result<IssuedPair> {
    let pair = ctx
        .tokens
        .issue_pair(audience, subject_id, token_version, now_ms)?;
    db::refresh_tokens::insert(
        tx,
        &pair.refresh_hash,
        audience.column(),
        subject_id,
        family,
        pair.refresh_expires_at_ms,
        now_ms,
    )
    .await?;
    Ok(pair)
}

/// Ends every other sign-in of an admin whose token version `tx` has just moved on to
/// `version` (a password change, MFA turned on): the new version ends their access
/// tokens and console sessions, this revokes every refresh token, and the answer is a
/// fresh pair of the new version, with which the session that made the change carries
/// on.
pub(crate) async fn restart_admin_sessions(
    ctx: &AppContext,
    tx: &mut Tx,
    admin_id: &AdminId,
    version: i64,
    now_ms: i64,
) -> Result<TokenPair> {
    db::refresh_tokens::revoke_all(
        tx,
        Audience::Admin.column(),
        admin_id.as_str(),
        None,
        now_ms,
    )
    .await?;
    let pair = issue_stored_pair(
        ctx,
        tx,
        Audience::Admin,
        admin_id.as_str(),
        version,
        None,
        now_ms,
    )
    .await?;
    Ok(pair.into())
}

/// Uses up `refresh_token` (already verified as `subject_id`'s) and answers a new pair of
/// its family. A token presented again means a copy is in other hands: the whole family
/// is revoked and the subject's access tokens end, so the thief and the victim both sign
/// in again.
pub(crate) async fn rotate(
    ctx: &AppContext,
    audience: Audience,
    subject_id: &str,
    token_version: i64,
    refresh_token: &str,
    now_ms: i64,
) -> Result<TokenPair> {
    let mut tx = ctx.db.begin().await?;
    let presented = db::refresh_tokens::consume(
        &mut tx,
        &hash_token(refresh_token),
        audience.column(),
        now_ms,
    )
    .await?;
    let family = match presented {
        Presented::Live {
            subject_id: s,
            family,
        } if s == subject_id => family,
        Presented::Reused {
            subject_id: s,
            family,
        } if s == subject_id => {
            // Rolled back first: see `db::refresh_tokens::consume`.
            drop(tx);
            revoke_reused_family(ctx, audience, subject_id, &family, now_ms).await?;
            return Err(Error::unauthorized(
                msg::REFRESH_TOKEN_ALREADY_USED_THIS_SIGN_IN_IS_REVOKED_SIGN_IN_A,
            ));
        }
        _ => {
            return Err(Error::unauthorized(
                msg::REFRESH_TOKEN_ALREADY_USED_REVOKED_OR_EXPIRED,
            ));
        }
    };
    let pair = issue_stored_pair(
        ctx,
        &mut tx,
        audience,
        subject_id,
        token_version,
        Some(&family),
        now_ms,
    )
    .await?;
    tx.commit().await?;
    Ok(pair.into())
}

/// The subject of a verified refresh token.
enum Subject {
    Player(PlayerId),
    Admin(AdminId),
}

impl Subject {
    fn of(audience: Audience, id: &str) -> Self {
        match audience {
            Audience::Player => Self::Player(PlayerId::from_trusted(id)),
            Audience::Admin => Self::Admin(AdminId::from_trusted(id)),
        }
    }
}

/// Revokes `family` and, on the first detection only, ends the subject's access tokens:
/// a used token presented again later (say, from an old log) must not sign the subject
/// out each time.
async fn revoke_reused_family(
    ctx: &AppContext,
    audience: Audience,
    subject_id: &str,
    family: &str,
    now_ms: i64,
) -> Result<()> {
    let subject = Subject::of(audience, subject_id);
    let mut tx = ctx.db.begin().await?;
    // The subject's row lock first, in the order the other writers take it: a player's
    // progress row (every writer of their progress takes it), an admin's row (as a
    // password change takes it, then its tokens).
    match &subject {
        Subject::Player(id) => {
            db::progress::lock(&mut tx, id).await?;
        }
        Subject::Admin(id) => db::admins::lock(&mut tx, id).await?,
    }
    if db::refresh_tokens::revoke_family(&mut tx, family, now_ms).await? > 0 {
        match &subject {
            Subject::Player(id) => db::players::end_access_tokens(&mut tx, id, now_ms).await?,
            Subject::Admin(id) => db::admins::end_access_tokens(&mut tx, id, now_ms).await?,
        }
    }
    tx.commit().await?;
    match &subject {
        Subject::Player(id) => {
            ctx.answer_cache.forget_player(id);
            tracing::warn!(player = %id, "refresh token reused; its sign-in is revoked");
        }
        Subject::Admin(id) => {
            tracing::warn!(admin = %id, "admin refresh token reused; its sign-in is revoked");
        }
    }
    Ok(())
}
