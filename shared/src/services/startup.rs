//! Start-up: the [`AppContext`] of a process, made once.

use std::sync::Arc;

use crate::answer_cache::AnswerCache;
use crate::attempt_limiter::AttemptLimiter;
use crate::board_cache::BoardCache;
use crate::clock::Clock;
use crate::config::Settings;
use crate::context::AppContext;
use crate::db::Db;
use crate::media_store::MediaStore;
use crate::providers::ProviderClients;
use crate::rank_index::RankIndex;
use crate::region_catalog::RegionCatalog;
use crate::services::{demo, secrets};
use crate::tokens::TokenKeys;

impl AppContext {
    /// Connects, migrates, resolves the signing secrets and `SECRETS_KEY`, loads the demo content when
    /// asked, and warms the caches.
    pub async fn start(settings: Settings, clock: Clock) -> anyhow::Result<Arc<Self>> {
        let db = Db::connect(&settings.database_url).await?;
        db.migrate().await?;
        let (player_secret, admin_secret) = secrets::jwt_secrets(&settings, &db, &clock).await?;
        let secrets_key = secrets::secrets_key(&settings, &db, &clock).await?;
        let media = MediaStore::from_settings(&settings.media)?;
        if settings.demo_content {
            demo::load(&db, &clock, &media).await?;
        }
        let regions = RegionCatalog::load(&db).await?;
        let providers = ProviderClients::from_settings(&settings)?;
        let ranks = match &settings.redis_url {
            Some(url) => Some(RankIndex::connect(url.expose(), &settings.redis_key_prefix).await?),
            None => None,
        };
        let sign_in_attempts = AttemptLimiter::per_minute(settings.limits.auth_per_minute);
        let answer_cache = AnswerCache::new(settings.answer_memory);
        Ok(Arc::new(Self {
            providers,
            ranks,
            tokens: TokenKeys::new(&player_secret, &admin_secret),
            secrets_key,
            settings,
            db,
            clock,
            regions,
            board_cache: BoardCache::default(),
            answer_cache,
            sign_in_attempts,
            media,
            readiness: crate::http::Readiness::default(),
        }))
    }
}
