//! Who is calling: extractors that authenticate the bearer token and answer 401/403 in
//! the envelope.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use shared::Error;
use shared::http::bearer_token;
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

/// A signed-in guest (for linking); a formal account gets 403.
pub struct GuestPlayer(pub PlayerPrincipal);

impl FromRequestParts<AppState> for GuestPlayer {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let CurrentPlayer(player) = CurrentPlayer::from_request_parts(parts, state).await?;
        if player.is_guest {
            Ok(Self(player))
        } else {
            Err(Error::forbidden("only a guest account can do this"))
        }
    }
}
