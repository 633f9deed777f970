//! `GET /v1/shop`, `POST /v1/shop/purchase`, `POST /v1/inventory/items/use`,
//! `GET /v1/subscription`, `POST /v1/subscription/verify`.

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::ApiJson;
use shared::services::shop::{
    self, PurchaseRequest, Shop, Subscription, UseItemRequest, VerifyRequest,
};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::CurrentPlayer;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_shop))
        .routes(routes!(purchase))
        .routes(routes!(use_item))
        .routes(routes!(subscription))
        .routes(routes!(verify))
}

/// Get the shop
///
/// Benefits (through rewarded ads) and the products with their prices.
#[utoipa::path(get, path = "/shop", operation_id = "getShop", tag = "shop", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The shop", body = Envelope<Shop>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn get_shop(CurrentPlayer(_player): CurrentPlayer) -> ApiResult<Shop> {
    Ok(ok(shop::shop()))
}

/// Buy a product (not available in the MVP)
///
/// Buying with coins: validated, then NOT_AVAILABLE_IN_MVP.
#[utoipa::path(post, path = "/shop/purchase", operation_id = "purchaseProduct", tag = "shop",
    request_body(content = PurchaseRequest, example = json!({"productId": "heart-supply", "clientRequestId": "buy-0001"})), security(("player_jwt" = [])),
    responses(
        (status = 400, description = "VALIDATION_ERROR, or NOT_AVAILABLE_IN_MVP for a valid request", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn purchase(
    CurrentPlayer(_player): CurrentPlayer,
    ApiJson(body): ApiJson<PurchaseRequest>,
) -> ApiResult<()> {
    shop::purchase(&body)?;
    Ok(ok(()))
}

/// Use an inventory item (not available in the MVP)
///
/// Using an item: validated, then NOT_AVAILABLE_IN_MVP.
#[utoipa::path(post, path = "/inventory/items/use", operation_id = "useInventoryItem", tag = "shop",
    request_body(content = UseItemRequest, example = json!({"itemId": "hint_feather", "clientRequestId": "use-0001", "questionId": "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"})), security(("player_jwt" = [])),
    responses(
        (status = 400, description = "VALIDATION_ERROR, or NOT_AVAILABLE_IN_MVP for a valid request", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn use_item(
    CurrentPlayer(_player): CurrentPlayer,
    ApiJson(body): ApiJson<UseItemRequest>,
) -> ApiResult<()> {
    shop::use_item(&body)?;
    Ok(ok(()))
}

/// Get the subscription
///
/// The player's subscription.
#[utoipa::path(get, path = "/subscription", operation_id = "getSubscription", tag = "shop", security(("player_jwt" = [])),
    responses(
        (status = 200, description = "The subscription", body = Envelope<Subscription>),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn subscription(
    State(state): State<AppState>,
    CurrentPlayer(player): CurrentPlayer,
) -> ApiResult<Subscription> {
    Ok(ok(shop::subscription(&state.ctx, &player).await?))
}

/// Verify a subscription receipt (not available in the MVP)
///
/// Subscription receipt verification: validated, then NOT_AVAILABLE_IN_MVP.
#[utoipa::path(post, path = "/subscription/verify", operation_id = "verifySubscription", tag = "shop",
    request_body(content = VerifyRequest, example = json!({"platform": "ios", "purchaseToken": "MIIT1wYJKoZIhvcNAQcCoIIT", "productId": "pro-monthly", "tier": "pro"})), security(("player_jwt" = [])),
    responses(
        (status = 400, description = "VALIDATION_ERROR, UNSUPPORTED_PLATFORM, or NOT_AVAILABLE_IN_MVP for a valid request", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid token", body = ErrorEnvelope),
        (status = 403, description = "Banned", body = ErrorEnvelope),
    ))]
pub async fn verify(
    CurrentPlayer(_player): CurrentPlayer,
    ApiJson(body): ApiJson<VerifyRequest>,
) -> ApiResult<()> {
    shop::verify_subscription(&body)?;
    Ok(ok(()))
}
