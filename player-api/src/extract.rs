//! Who is calling: extractors that authenticate the bearer token and answer 401/403 in
//! the envelope.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use shared::Error;
use shared::http::bearer_token;
use shared::ids::PlayerId;
use shared::message::msg;
use shared::services::account;
use shared::services::player_auth::{self, PlayerPrincipal};

use crate::AppState;

/// Any signed-in, not banned, not deleted player.
pub struct CurrentPlayer(pub PlayerPrincipal);

impl FromRequestParts<AppState> for CurrentPlayer {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let token = bearer_token(parts)?;
        Ok(Self(player_auth::authenticate(&state.ctx, token).await?))
    }
}

/// The player named by a valid access token, not yet checked against the database: the
/// route's service admits the player (ban, deletion) with the account columns of its own
/// first query (`player_auth::admit`), one round trip fewer than [`CurrentPlayer`]. For
/// the hottest reads only.
pub struct TokenSubject(pub player_auth::AccessSubject);

impl FromRequestParts<AppState> for TokenSubject {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let token = bearer_token(parts)?;
        Ok(Self(player_auth::verify_access(&state.ctx, token)?))
    }
}

/// The caller of `POST /auth/link`: any signed-in player, and also a guest that a link
/// merged away (it may replay that link with the identity token; see
/// `player_auth::authenticate_linking`).
pub struct LinkingPlayer(pub PlayerPrincipal);

impl FromRequestParts<AppState> for LinkingPlayer {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let token = bearer_token(parts)?;
        Ok(Self(
            player_auth::authenticate_linking(&state.ctx, token).await?,
        ))
    }
}

/// A signed-in guest (for linking); a formal account gets 403.
pub struct GuestPlayer(pub PlayerPrincipal);

impl FromRequestParts<AppState> for GuestPlayer {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let CurrentPlayer(player) = CurrentPlayer::from_request_parts(parts, state).await?;
        if player.is_guest {
            Ok(Self(player))
        } else {
            Err(Error::forbidden(msg::ONLY_A_GUEST_ACCOUNT_CAN_DO_THIS))
        }
    }
}

/// The owner of an access token even when banned or already deleted: account deletion
/// is open to both (app stores require it; repeating it is harmless).
pub struct AccountHolder(pub PlayerId);

impl FromRequestParts<AppState> for AccountHolder {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let token = bearer_token(parts)?;
        Ok(Self(account::account_holder(&state.ctx, token).await?))
    }
}
