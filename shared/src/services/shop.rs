//! The shop, wallet, inventory and subscription. Purchases, item use and subscription
//! verification validate their input and then answer NOT_AVAILABLE_IN_MVP; wallet and
//! inventory are real tables, read by the bootstrap.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::clock::from_ms;
use crate::closed_set::{Submitted, closed_set};
use crate::context::AppContext;
use crate::db;
use crate::domain::ad_recovery::AdKind;
use crate::domain::identity::Platform;
use crate::domain::subscription::{SubscriptionStatus, Tier};
use crate::ids::PlayerId;
use crate::message::msg;
use crate::services::player_auth::PlayerPrincipal;
use crate::services::progress;
use crate::{Error, Result};

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Benefit {
    pub id: String,
    /// The ad-recovery type it maps to.
    #[serde(rename = "type")]
    pub kind: AdKind,
    pub title: String,
    pub description: String,
    pub enabled: bool,
    pub requires_ad: bool,
}

closed_set! {
    /// What the shop sells: an `item` (the only kind so far).
    pub enum ProductKind in "product-kind" {
        Item = "item",
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: ProductKind,
    pub item_id: String,
    pub title: String,
    pub description: String,
    pub price_coins: i64,
    pub quantity: i64,
    /// False in this version: purchases are not available yet.
    pub enabled: bool,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Shop {
    pub benefits: Vec<Benefit>,
    pub products: Vec<Product>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Wallet {
    pub coins_balance: i64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InventoryItem {
    pub item_id: String,
    pub quantity: i64,
    pub active_until: Option<DateTime<Utc>>,
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Inventory {
    pub items: Vec<InventoryItem>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    pub status: SubscriptionStatus,
    pub tier: Tier,
    pub expires_at: Option<DateTime<Utc>>,
    pub auto_renew: bool,
}

/// Product ids, their item ids and prices in coins.
pub const PRODUCTS: [(&str, &str, i64, &str); 5] = [
    ("hint-feather", "hint_feather", 80, "Hint Feather"),
    ("heart-supply", "heart_supply", 150, "Heart Supply"),
    (
        "double-xp-potion",
        "double_xp_potion",
        250,
        "Double XP Potion",
    ),
    ("streak-shield", "streak_shield", 400, "Streak Shield"),
    (
        "mascot-outfit-starter",
        "mascot_outfit_starter",
        800,
        "Mascot Outfit: Starter",
    ),
];

/// Item ids that can be used.
pub const ITEMS: [&str; 4] = [
    "hint_feather",
    "heart_supply",
    "double_xp_potion",
    "streak_shield",
];

pub fn shop() -> Shop {
    let benefit = |id: &str, kind: AdKind, title: &str, description: &str| Benefit {
        id: id.into(),
        kind,
        title: title.into(),
        description: description.into(),
        enabled: true,
        requires_ad: true,
    };
    let descriptions = [
        "Removes one wrong option from a question.",
        "Refills hearts.",
        "Doubles the XP of the next challenges.",
        "Keeps a streak through a missed day.",
        "A new look for the mascot.",
    ];
    Shop {
        benefits: vec![
            benefit(
                "ad-hearts",
                AdKind::Hearts,
                "Recover a heart",
                "Watch a short video to get one heart back.",
            ),
            benefit(
                "ad-bonus-attempts",
                AdKind::BonusAttempts,
                "Extra attempt",
                "Watch a short video for one more attempt today.",
            ),
            benefit(
                "ad-streak-protection",
                AdKind::StreakProtection,
                "Protect your streak",
                "Watch a short video to keep your streak through tomorrow.",
            ),
        ],
        products: PRODUCTS
            .iter()
            .zip(descriptions)
            .map(|((id, item, price, title), description)| Product {
                id: (*id).into(),
                kind: ProductKind::Item,
                item_id: (*item).into(),
                title: (*title).into(),
                description: description.into(),
                price_coins: *price,
                quantity: 1,
                enabled: false,
            })
            .collect(),
    }
}

pub async fn wallet(ctx: &AppContext, player_id: &PlayerId) -> Result<Wallet> {
    Ok(Wallet {
        coins_balance: db::players::wallet_balance(&ctx.db, player_id).await?,
    })
}

pub async fn inventory(ctx: &AppContext, player_id: &PlayerId) -> Result<Inventory> {
    let items = db::players::inventory(&ctx.db, player_id)
        .await?
        .into_iter()
        .map(|r| InventoryItem {
            item_id: r.item_id,
            quantity: r.quantity,
            active_until: r.active_until.map(from_ms),
            metadata: r.metadata.and_then(|m| serde_json::from_str(&m).ok()),
        })
        .collect();
    Ok(Inventory { items })
}

pub fn subscription_of(p: &db::progress::PlayerProgress) -> Subscription {
    Subscription {
        status: p.subscription_status,
        tier: p.tier,
        expires_at: p.subscription_expires_at.map(from_ms),
        auto_renew: false,
    }
}

/// `GET /v1/subscription`.
pub async fn subscription(ctx: &AppContext, player: &PlayerPrincipal) -> Result<Subscription> {
    Ok(subscription_of(&progress::load(ctx, &player.id).await?))
}

fn client_request_id(value: &str) -> Result<()> {
    let v = value.trim();
    if v.is_empty() || v.len() > 128 {
        return Err(Error::validation(
            msg::CLIENTREQUESTID_MUST_BE_1_128_CHARACTERS,
        ));
    }
    Ok(())
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PurchaseRequest {
    /// One of the product ids.
    pub product_id: String,
    pub client_request_id: String,
}

/// `POST /v1/shop/purchase`.
pub fn purchase(req: &PurchaseRequest) -> Result<()> {
    if !PRODUCTS.iter().any(|(id, ..)| *id == req.product_id) {
        return Err(Error::validation(msg::PRODUCTID_IS_NOT_A_PRODUCT));
    }
    client_request_id(&req.client_request_id)?;
    Err(Error::NotAvailableInMvp(
        msg::BUYING_FROM_THE_SHOP_IS_NOT_AVAILABLE_IN_THIS_VERSION,
    ))
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UseItemRequest {
    /// One of the item ids.
    pub item_id: String,
    pub client_request_id: String,
    /// Required for hint_feather.
    pub question_id: Option<String>,
}

/// `POST /v1/inventory/items/use`.
pub fn use_item(req: &UseItemRequest) -> Result<()> {
    if !ITEMS.contains(&req.item_id.as_str()) {
        return Err(Error::validation(msg::ITEMID_IS_NOT_AN_ITEM));
    }
    client_request_id(&req.client_request_id)?;
    if req.item_id == "hint_feather"
        && req
            .question_id
            .as_deref()
            .is_none_or(|q| q.trim().is_empty())
    {
        return Err(Error::validation(
            msg::QUESTIONID_IS_REQUIRED_FOR_HINT_FEATHER,
        ));
    }
    Err(Error::NotAvailableInMvp(
        msg::USING_ITEMS_IS_NOT_AVAILABLE_IN_THIS_VERSION,
    ))
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyRequest {
    #[schema(value_type = Platform)]
    pub platform: Submitted<Platform>,
    pub purchase_token: String,
    pub product_id: String,
    /// pro or proplus.
    #[schema(value_type = Tier)]
    pub tier: Submitted<Tier>,
}

/// `POST /v1/subscription/verify`.
pub fn verify_subscription(req: &VerifyRequest) -> Result<()> {
    if req.platform.member().is_none() {
        return Err(Error::UnsupportedPlatform(
            msg::subscriptions_are_not_sold_on_platform_platform(format_args!(
                "{:?}",
                req.platform.as_sent()
            )),
        ));
    }
    if !req.tier.member().is_some_and(Tier::is_paid) {
        return Err(Error::validation(msg::TIER_MUST_BE_PRO_OR_PROPLUS));
    }
    if req.purchase_token.trim().is_empty() || req.product_id.trim().is_empty() {
        return Err(Error::validation(
            msg::PURCHASETOKEN_AND_PRODUCTID_ARE_REQUIRED,
        ));
    }
    Err(Error::NotAvailableInMvp(
        msg::SUBSCRIPTION_VERIFICATION_IS_NOT_AVAILABLE_IN_THIS_VERSION,
    ))
}
