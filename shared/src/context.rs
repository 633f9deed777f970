//! [`AppContext`]: what every handler of either binary reaches (made by
//! `services::startup`).

use crate::answer_cache::AnswerCache;
use crate::attempt_limiter::AttemptLimiter;
use crate::board_cache::BoardCache;
use crate::clock::Clock;
use crate::config::Settings;
use crate::db::Db;
use crate::media_store::MediaStore;
use crate::providers::ProviderClients;
use crate::rank_index::{RankIndex, RankUpdate};
use crate::region_catalog::RegionCatalog;
use crate::secrets_key::SecretsKey;
use crate::tokens::TokenKeys;

pub struct AppContext {
    /// The configuration read at start.
    pub settings: Settings,
    /// The database of either engine.
    pub db: Db,
    /// PostgreSQL's read replicas, when `DATABASE_REPLICA_URL` is set (read through
    /// [`crate::lagging_read!`]).
    pub replicas: Option<std::sync::Arc<crate::db::replicas::Replicas>>,
    /// The service clock; every time rule reads it.
    pub clock: Clock,
    /// Signing keys of player and admin tokens.
    pub tokens: TokenKeys,
    /// Seals and opens the secrets stored at rest (admins' TOTP secrets).
    pub secrets_key: SecretsKey,
    /// The region catalogue, cached in-process.
    pub regions: RegionCatalog,
    /// Clients of the SMS, HUAWEI ID and Apple services this server is configured for.
    pub providers: ProviderClients,
    /// The Redis rank index, when `REDIS_URL` is set.
    pub ranks: Option<RankIndex>,
    /// Leaderboard sizes and pages read in the last second (see [`crate::board_cache`]).
    pub board_cache: BoardCache,
    /// The challenges this process serves, to judge their answers without a read (see
    /// [`crate::answer_cache`]).
    pub answer_cache: AnswerCache,
    /// Admin sign-in attempts per client address in this process.
    pub sign_in_attempts: AttemptLimiter,
    /// The media files' store (`MEDIA_STORE`).
    pub media: MediaStore,
    /// The last database check of `GET /ready`.
    pub readiness: crate::http::Readiness,
    /// Places for the copies of players' data written at once by this process
    /// (`services::data_export`).
    pub data_exports: std::sync::Arc<tokio::sync::Semaphore>,
}

impl AppContext {
    /// A fresh replica's database for a read that tolerates lag and outlives one call
    /// (an export's cursor), else the primary's. Single reads use
    /// [`crate::lagging_read!`], which also falls back when the replica fails.
    pub fn lagging_db(&self) -> Db {
        self.replicas
            .as_ref()
            .and_then(|r| r.pick())
            .map_or_else(|| self.db.clone(), |r| r.db().clone())
    }

    /// Mirrors committed weekly rows into the rank index (no-op without Redis).
    pub async fn publish_ranks(&self, updates: &[RankUpdate]) {
        if !updates.is_empty() {
            self.board_cache.forget_all();
        }
        if let (Some(ranks), false) = (&self.ranks, updates.is_empty()) {
            ranks.apply(updates).await;
        }
    }

    /// After a change that rewrote a player's weekly rows outside a resource change (`services::progress`)
    /// (a merge, a deletion, a ban or unban): mirrors their committed rows on `boards` of
    /// this week, or takes them off where they have none (or a hidden one).
    pub async fn resync_ranks(&self, player_id: &crate::ids::PlayerId, boards: &[String]) {
        self.board_cache.forget_all();
        let Some(ranks) = &self.ranks else { return };
        let week =
            crate::clock::beijing::day_key(crate::clock::beijing::week_start(self.clock.now()));
        for board in boards {
            match crate::db::leaderboard::row_of(
                &self.db,
                &week,
                board,
                player_id,
                self.clock.now_ms(),
            )
            .await
            {
                Ok(Some(row)) => {
                    ranks
                        .apply(&[RankUpdate {
                            week_start: week.clone(),
                            board: board.clone(),
                            player_id: row.player_id,
                            xp: row.xp,
                            last_earned_at: row.last_earned_at,
                        }])
                        .await
                }
                Ok(None) => {
                    ranks
                        .remove(&week, std::slice::from_ref(board), player_id)
                        .await
                }
                Err(e) => {
                    tracing::warn!(error = %e, "rank resync read failed; dropping the set");
                    ranks.invalidate(&week, std::slice::from_ref(board)).await;
                }
            }
        }
    }

    /// The clock `settings` ask for: `QUIZ_CLOCK_START` or the system clock.
    pub fn clock_for(settings: &Settings) -> Clock {
        match settings.clock_start {
            Some(start) => Clock::starting_at(start),
            None => Clock::system(),
        }
    }
}

/// Runs `$body` (an expression that awaits a `Result`) with `$db` bound to a fresh
/// replica's [`Db`] when `$ctx` (an `AppContext`) has one, else to the primary; a read
/// a replica fails to answer for want of a connection runs again on the primary. For
/// reads that tolerate `REPLICA_MAX_LAG_MS` of lag only.
#[macro_export]
macro_rules! lagging_read {
    ($ctx:expr, |$db:ident| $body:expr) => {{
        let ctx: &$crate::context::AppContext = $ctx;
        match ctx.replicas.as_ref().and_then(|r| r.pick()) {
            Some(replica) => {
                let result = {
                    let $db: &$crate::db::Db = replica.db();
                    $body
                };
                match result {
                    Err(e) if $crate::db::replicas::Unreachable::is_unreachable(&e) => {
                        replica.mark_down();
                        let $db: &$crate::db::Db = &ctx.db;
                        $body
                    }
                    other => other,
                }
            }
            None => {
                let $db: &$crate::db::Db = &ctx.db;
                $body
            }
        }
    }};
}
