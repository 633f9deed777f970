//! The player's own account: `DELETE /v1/users/me`.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::services::account::{self, Deleted};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AccountHolder;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(delete_me))
}

/// Deletes the account: personal data and identities go, every token dies at once,
/// ledger and answer records stay only anonymised. Open to banned players; repeating it
/// is harmless.
#[utoipa::path(delete, path = "/users/me", tag = "users", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Deleted>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
    ))]
pub async fn delete_me(
    State(state): State<AppState>,
    AccountHolder(player_id): AccountHolder,
) -> ApiResult<Deleted> {
    Ok(ok(account::delete_account(&state.ctx, &player_id).await?))
}
