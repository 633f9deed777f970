//! Start-up: the [`AppContext`] of a process, made once; and its serving until it is
//! told to stop.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;

use crate::answer_cache::AnswerCache;
use crate::attempt_limiter::AttemptLimiter;
use crate::board_cache::BoardCache;
use crate::clock::Clock;
use crate::config::{ConnectionLimits, DatabasePool, Settings};
use crate::context::AppContext;
use crate::db::Db;
use crate::db::replicas::Replicas;
use crate::media_store::MediaStore;
use crate::metrics::Metrics;
use crate::providers::ProviderClients;
use crate::rank_index::RankIndex;
use crate::region_catalog::RegionCatalog;
use crate::services::jobs::Jobs;
use crate::services::{demo, secrets};
use crate::tokens::TokenKeys;

impl AppContext {
    /// Connects, migrates, resolves the signing secrets and `SECRETS_KEY`, loads the demo content when
    /// asked, and warms the caches.
    pub async fn start(settings: Settings, clock: Clock) -> anyhow::Result<Arc<Self>> {
        let db = Db::connect_with(&settings.database_url, &settings.database_pool).await?;
        match &settings.database_pool.direct_url {
            // Past the pooler: the migrator's lock is a session's (see `DatabasePool`).
            Some(direct_url) => {
                let direct = Db::connect_with(
                    direct_url,
                    &DatabasePool {
                        max_connections: 1,
                        ..DatabasePool::default()
                    },
                )
                .await?;
                let migrated = direct.migrate().await;
                direct.close().await;
                migrated?;
            }
            None => db.migrate().await?,
        }
        let replicas = if settings.database_pool.replica_urls.is_empty() {
            None
        } else {
            let replicas = Arc::new(Replicas::connect(
                &settings.database_pool.replica_urls,
                &settings.database_pool,
                settings.database_pool.replica_max_lag,
            )?);
            replicas.watch(db.clone());
            Some(replicas)
        };
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
            replicas,
            clock,
            regions,
            board_cache: BoardCache::default(),
            answer_cache,
            sign_in_attempts,
            media,
            readiness: crate::http::Readiness::default(),
            data_exports: Arc::new(tokio::sync::Semaphore::new(
                crate::services::data_export::AT_ONCE,
            )),
        }))
    }
}

/// How long a stopping process waits for the database pool to close: a request cut at
/// the end of the shutdown grace may still hold a connection, which must not hold the
/// exit.
const POOL_CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` and `GET /metrics` on `metrics_listener` until SIGINT or
/// SIGTERM. Then, at once, it stops accepting and hands the background jobs' leases
/// back (so another process takes them at its next look, not when they run out), while
/// the requests under way finish within `SHUTDOWN_GRACE_SECONDS`; last it closes the
/// database.
pub async fn serve_until_signal(
    listener: TcpListener,
    app: Router,
    metrics_listener: TcpListener,
    metrics: Arc<Metrics>,
    jobs: Option<Jobs>,
    db: Db,
    limits: ConnectionLimits,
) -> anyhow::Result<()> {
    let scrapes = tokio::spawn(crate::http::serve(
        metrics_listener,
        crate::http::metrics_router(metrics),
        limits,
        std::future::pending(),
    ));
    let (stopping, stop_jobs) = tokio::sync::oneshot::channel::<()>();
    let jobs_stopped = tokio::spawn(async move {
        // the signal, or serving ended without one (the sender is then dropped)
        let _ = stop_jobs.await;
        if let Some(jobs) = jobs {
            jobs.stop().await;
        }
    });
    let served = crate::http::serve(listener, app, limits, async move {
        crate::http::shutdown_signal().await;
        let _ = stopping.send(());
    })
    .await;
    scrapes.abort();
    let _ = jobs_stopped.await;
    if tokio::time::timeout(POOL_CLOSE_TIMEOUT, db.close())
        .await
        .is_err()
    {
        tracing::warn!("database connections still in use at exit");
    }
    Ok(served?)
}
