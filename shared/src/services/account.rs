//! Account deletion and logout.

use serde::Serialize;
use utoipa::ToSchema;

use crate::context::AppContext;
use crate::db;
use crate::domain::board::BoardKey;
use crate::ids::PlayerId;
use crate::message::msg;
use crate::services::player_auth;
use crate::tokens::hash_token;
use crate::{Error, Result};

/// `DELETE /v1/users/me`'s body, which may be left out.
#[derive(Clone, Debug, Default, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeleteAccount {
    /// The guardian's PIN: needed when the account is in minor mode.
    pub guardian_pin: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Deleted {
    /// Always true: the account is gone (also when it already was).
    pub deleted: bool,
}

/// The player id of an access token, whether the player is banned or already deleted:
/// deletion stays open to both (app stores require it; repeating it is harmless). The
/// token must still be live: not of a merged-away guest, not of an ended sign-in.
pub async fn account_holder(ctx: &AppContext, token: &str) -> Result<PlayerId> {
    let subject = player_auth::verify_access(ctx, token)?;
    let row = db::players::auth_row(&ctx.db, &subject.player_id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::UNKNOWN_PLAYER))?;
    player_auth::admit_holder(&row.account, &subject)?;
    Ok(row.id)
}

/// `DELETE /v1/users/me`.
pub async fn delete_account(
    ctx: &AppContext,
    player_id: &PlayerId,
    guardian_pin: Option<&str>,
) -> Result<Deleted> {
    // a protected account goes only with its guardian's PIN (an account already gone
    // has none: deleting it again is harmless)
    let guarded = match db::minors::guardian(&ctx.db, player_id).await? {
        Some(g) if g.guardian_pin_hash.is_some() => {
            super::minors::prove_guardian(ctx, player_id, guardian_pin).await?
        }
        _ => None,
    };
    let region = db::players::region_state(&ctx.db, player_id)
        .await?
        .and_then(|s| s.region_code);
    let mut tx = ctx.db.begin().await?;
    // Serialised with the player's resource changes, so none writes after the delete.
    db::progress::lock(&mut tx, player_id).await?;
    if let Some(proved) = &guarded
        && db::minors::guardian_pin_of(&mut tx, player_id)
            .await?
            .as_ref()
            != Some(proved)
    {
        // the PIN was changed or reset since it was proved
        return Err(Error::conflict(
            msg::MINOR_MODE_CHANGED_MEANWHILE_READ_IT_AND_RETRY,
        ));
    }
    let deleted_now = db::accounts::delete_player(&mut tx, player_id, ctx.clock.now_ms()).await?;
    tx.commit().await?;
    let boards = BoardKey::stored_of_player(region.as_deref());
    ctx.resync_ranks(player_id, &boards).await;
    if deleted_now {
        tracing::info!(player = %player_id, "account deleted");
    }
    Ok(Deleted { deleted: true })
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoggedOut {
    pub logged_out: bool,
}

/// `POST /v1/auth/logout`: revokes the presented refresh token of the caller.
pub async fn logout(
    ctx: &AppContext,
    player_id: &PlayerId,
    refresh_token: &str,
) -> Result<LoggedOut> {
    let mut tx = ctx.db.begin().await?;
    // a verified player's logout is reported to NPPA (the licensed-game profile)
    let pi = super::nppa_reports::verified_pi_locked(ctx, &mut tx, player_id).await?;
    let family = db::accounts::revoke_refresh_token(
        &mut tx,
        player_id,
        &hash_token(refresh_token),
        ctx.clock.now_ms(),
    )
    .await?;
    if let Some(family) = family {
        super::nppa_reports::queue(
            ctx,
            &mut tx,
            player_id,
            pi.as_deref(),
            &family,
            super::nppa_reports::LOGOUT,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(LoggedOut { logged_out: true })
}
