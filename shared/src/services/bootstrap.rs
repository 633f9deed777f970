//! `GET /v1/app/bootstrap`: everything the app shows at start, in one answer, from a fixed
//! number of queries (profile and region, progress with subscription, three for the
//! tracks, wallet, inventory).

use crate::domain::league::tier_name;
use crate::ids::PlayerId;
use crate::message::msg;
use serde::Serialize;
use utoipa::ToSchema;

use crate::context::AppContext;
use crate::db;
use crate::domain::resources;
use crate::services::gameplay::{self, Track};
use crate::services::player_auth::PlayerPrincipal;
use crate::services::progress::{self, ProgressSummary};
use crate::services::regions::{self, SelectedRegion};
use crate::services::review;
use crate::services::shop::{self, Benefit, Inventory, Shop, Subscription, Wallet};
use crate::{Error, Result};

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BootstrapUser {
    pub id: PlayerId,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
    pub tier: crate::domain::subscription::Tier,
    pub level: i64,
    /// null until the player selects a region.
    pub region: Option<SelectedRegion>,
    pub league: BootstrapLeague,
}

/// The player's league.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BootstrapLeague {
    /// A new player's is bronze.
    pub tier: crate::domain::league::LeagueTier,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Bootstrap {
    pub user: BootstrapUser,
    pub progress: ProgressSummary,
    pub tracks: Vec<Track>,
    /// The same as `shop.benefits`, for older clients.
    pub shop_benefits: Vec<Benefit>,
    pub shop: Shop,
    pub wallet: Wallet,
    pub inventory: Inventory,
    pub subscription: Subscription,
}

pub async fn bootstrap(ctx: &AppContext, player: &PlayerPrincipal) -> Result<Bootstrap> {
    let state = db::players::region_state(&ctx.db, &player.id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    let mut p = progress::load(ctx, &player.id).await?;
    p.reviews_due = Some(review::due_count(ctx, &player.id).await?);
    let now = ctx.clock.now();
    let summary = progress::summarize(&p, now, &ctx.settings.rules);
    let summary = progress::with_minor_mode(ctx, &player.id, &p, summary).await?;
    let shop = shop::shop();
    Ok(Bootstrap {
        user: BootstrapUser {
            id: player.id.clone(),
            nickname: state.nickname.clone(),
            avatar_url: state.avatar_url.clone(),
            tier: p.tier,
            level: resources::level_for(summary.xp),
            region: regions::selected(ctx, &state),
            league: BootstrapLeague {
                tier: tier_name(db::league::tier_of(&ctx.db, &player.id).await?),
            },
        },
        progress: summary,
        tracks: gameplay::tracks(ctx, player).await?,
        shop_benefits: shop.benefits.clone(),
        shop,
        wallet: shop::wallet(ctx, &player.id).await?,
        inventory: shop::inventory(ctx, &player.id).await?,
        subscription: shop::subscription_of(&p),
    })
}
