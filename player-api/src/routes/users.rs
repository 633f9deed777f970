//! The player's own account: deletion, region, minor mode and a copy of their data.

use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::{ApiJson, OptionalJson};
use shared::services::account::{self, DeleteAccount, Deleted};
use shared::services::data_export::{self, PlayerDataExport};
use shared::services::minors::{self, MinorMode, MinorModeRequest};
use shared::services::real_name::{self, RealNameRequest, RealNameState};
use shared::services::regions::{self, RegionChange};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::{AccountHolder, CurrentPlayer};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(delete_me))
        .routes(routes!(change_region))
        .routes(routes!(minor_mode, set_minor_mode))
        .routes(routes!(export_my_data))
        .routes(routes!(real_name, verify_real_name))
}

/// My real-name verification
///
/// Where the player's real-name verification stands (no personal identifier: only
/// the outcome). A verification still in progress is asked of the NPPA system again.
#[utoipa::path(get, path = "/users/me/real-name", operation_id = "getMyRealName", tag = "users",
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The verification", body = Envelope<RealNameState>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn real_name(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
) -> ApiResult<RealNameState> {
    Ok(ok(real_name::current(&state.ctx, &player).await?))
}

/// Verify my real name
///
/// Verifies the name and resident ID number through the NPPA anti-addiction system
/// (the licensed-game profile requires it before any play). Only the outcome is kept:
/// verified or not, adult or minor, the birth year. A check NPPA has not finished
/// answers `pending`.
#[utoipa::path(post, path = "/users/me/real-name", operation_id = "verifyMyRealName", tag = "users",
    request_body(content = RealNameRequest, example = json!({"name": "张三", "idNumber": "110105200801010014"})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Verified, or pending", body = Envelope<RealNameState>),
        (status = 400, description = "A malformed name or ID number, or a failed verification", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
        (status = 409, description = "Verified already", body = ErrorEnvelope),
    ))]
pub async fn verify_real_name(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<RealNameRequest>,
) -> ApiResult<RealNameState> {
    Ok(ok(real_name::verify(&state.ctx, &player, &body).await?))
}

/// The player's minor mode
///
/// The declared age band (`adult`: minor mode off), today's minutes left and when play
/// is allowed again.
#[utoipa::path(get, path = "/users/me/minor-mode", operation_id = "getMyMinorMode", tag = "users",
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Minor mode", body = Envelope<MinorMode>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn minor_mode(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
) -> ApiResult<MinorMode> {
    Ok(ok(minors::current(&state.ctx, &player).await?))
}

/// Set minor mode
///
/// Turns minor mode on with an age band (the `pin` sent becomes the guardian's 4-digit
/// PIN), or, with the guardian's `pin`, changes the band, sets `newPin`, or turns it off
/// (`adult`). In minor mode the day's play time is limited by band, there is no play
/// from 22:00 to 06:00 Beijing time and no rewarded ad. Five wrong PINs lock it for 15
/// minutes (429); a player makes at most 20 changes that hash or check a PIN an hour
/// (429).
#[utoipa::path(put, path = "/users/me/minor-mode", operation_id = "setMyMinorMode", tag = "users",
    request_body(content = MinorModeRequest, example = json!({"ageBand": "8to12", "pin": "2580"})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "Minor mode as set", body = Envelope<MinorMode>),
        (status = 400, description = "Unknown band, or a PIN that is not 4 digits", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned, or the guardian PIN is wrong or missing", body = ErrorEnvelope),
        (status = 429, description = "The PIN is locked after too many wrong tries, or 20 PIN changes and tries this hour (Retry-After)", body = ErrorEnvelope),
    ))]
pub async fn set_minor_mode(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<MinorModeRequest>,
) -> ApiResult<MinorMode> {
    Ok(ok(minors::set(&state.ctx, &player, &body).await?))
}

/// A copy of my data
///
/// One JSON document, streamed, of everything the service stores about the player:
/// profile, sign-in methods (identifiers masked), progress, wallet, inventory, ledger,
/// challenges and answers, boards and leagues, ad sessions, feedback, fair play,
/// learning state and minor mode; `leftOut` names the tables it leaves out and why.
/// One a day (429 with `Retry-After`); each copy is recorded in the audit log. Open to
/// banned players.
#[utoipa::path(get, path = "/users/me/export", operation_id = "exportMyData", tag = "users",
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The copy", body = Envelope<PlayerDataExport>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 429, description = "A copy was made in the last 24 hours (Retry-After)", body = ErrorEnvelope),
    ))]
pub async fn export_my_data(
    State(state): State<AppState>,
    AccountHolder(player_id): AccountHolder,
) -> Result<Response, shared::Error> {
    let export = data_export::export(&state.ctx, &player_id).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/json"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"my-quiz-data.json\"",
            ),
        ],
        Body::from_stream(export.chunks),
    )
        .into_response())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegionRequest {
    /// An enabled region code of `GET /v1/app/regions`.
    pub region_code: String,
}

/// Select the player's region
///
/// Selects the player's region: the first selection is free, then one change per Beijing
/// calendar month.
#[utoipa::path(patch, path = "/users/me/region", operation_id = "changeMyRegion", tag = "users",
    request_body(content = RegionRequest, example = json!({"regionCode": "110000"})),
    security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The selected region", body = Envelope<RegionChange>),
        (status = 400, description = "Unknown or disabled region, or REGION_CHANGE_LIMIT_REACHED", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn change_region(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
    ApiJson(body): ApiJson<RegionRequest>,
) -> ApiResult<RegionChange> {
    Ok(ok(regions::change_region(
        &state.ctx,
        &player,
        &body.region_code,
    )
    .await?))
}

/// Delete the player's account
///
/// Deletes the account: personal data and identities go, every token dies at once,
/// ledger and answer records stay only anonymised. Open to banned players; repeating it
/// is harmless. An account in minor mode goes only with its guardian's PIN (the body's
/// `guardianPin`; the body may be left out otherwise); wrong PINs count as at
/// `PUT /v1/users/me/minor-mode`.
#[utoipa::path(delete, path = "/users/me", operation_id = "deleteMyAccount", tag = "users", security(("player_jwt" = [])),
    request_body(content = Option<DeleteAccount>, example = json!({"guardianPin": "1357"})),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Deleted>),
        (status = 400, description = "A body that is not the JSON described", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "An account in minor mode without its guardian's PIN, or a wrong one", body = ErrorEnvelope),
        (status = 429, description = "The guardian PIN is locked after five wrong tries today (RATE_LIMITED, with Retry-After)", body = ErrorEnvelope),
    ))]
pub async fn delete_me(
    State(state): State<AppState>,
    AccountHolder(player_id): AccountHolder,
    OptionalJson(body): OptionalJson<DeleteAccount>,
) -> ApiResult<Deleted> {
    let pin = body.and_then(|b| b.guardian_pin);
    Ok(ok(account::delete_account(
        &state.ctx,
        &player_id,
        pin.as_deref(),
    )
    .await?))
}
