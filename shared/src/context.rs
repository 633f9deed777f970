//! [`AppContext`]: what every handler of either binary reaches.

use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Settings;
use crate::db::Db;
use crate::providers::ProviderClients;
use crate::services::{self, regions::RegionCatalog};
use crate::tokens::TokenKeys;

pub struct AppContext {
    /// The configuration read at start.
    pub settings: Settings,
    /// The database of either engine.
    pub db: Db,
    /// The service clock; every time rule reads it.
    pub clock: Clock,
    /// Signing keys of player and admin tokens.
    pub tokens: TokenKeys,
    /// The region catalogue, cached in-process.
    pub regions: RegionCatalog,
    /// Clients of the SMS, HUAWEI ID and Apple services this server is configured for.
    pub providers: ProviderClients,
}

impl AppContext {
    /// Connects, migrates, resolves the signing secrets, loads the demo content when
    /// asked, and warms the caches.
    pub async fn start(settings: Settings, clock: Clock) -> anyhow::Result<Arc<Self>> {
        let db = Db::connect(&settings.database_url).await?;
        db.migrate().await?;
        let (player_secret, admin_secret) =
            services::secrets::jwt_secrets(&settings, &db, &clock).await?;
        if settings.demo_content {
            services::demo::load(&db, &clock).await?;
        }
        let regions = RegionCatalog::load(&db).await?;
        let providers = ProviderClients::from_settings(&settings)?;
        Ok(Arc::new(Self {
            providers,
            tokens: TokenKeys::new(&player_secret, &admin_secret),
            settings,
            db,
            clock,
            regions,
        }))
    }

    /// The clock `settings` ask for: `QUIZ_CLOCK_START` or the system clock.
    pub fn clock_for(settings: &Settings) -> Clock {
        match settings.clock_start {
            Some(start) => Clock::starting_at(start),
            None => Clock::system(),
        }
    }
}
