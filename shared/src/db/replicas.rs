//! Read replicas: reads that tolerate a little lag (board pages, own ranks without
//! Redis, the track list, admin lists, statistics, exports) go to a PostgreSQL streaming
//! replica of `DATABASE_REPLICA_URL`; everything a player writes and reads back stays
//! on the primary.
//!
//! A replica is used only while it is known to be at most `REPLICA_MAX_LAG_MS` behind.
//! A watcher task samples the primary's WAL position every few hundred milliseconds and
//! asks each replica how far it has replayed: a replica is as fresh as the newest
//! sample it has replayed past, measured on this process's own clock (no two hosts'
//! clocks are compared, and an idle primary does not make a replica look stale). A
//! replica that does not answer, or lags more, is skipped for the primary until it
//! catches up; a read that fails on one is run again on the primary
//! ([`crate::lagging_read!`]), so neither costs a request.

use std::collections::VecDeque;
use std::str::FromStr as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use super::Db;
use crate::config::{DatabasePool, DatabaseUrl};

/// How long a request waits for a replica connection before the read goes to the
/// primary: a replica that cannot hand one out this fast is not worth waiting for.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(1);
/// How long the watcher waits for a position.
const CHECK_TIMEOUT: Duration = Duration::from_secs(1);

/// The replicas of a deployment, as this process sees them.
#[derive(Debug)]
pub struct Replicas {
    members: Vec<Replica>,
    next: AtomicUsize,
    max_lag: Duration,
}

/// One replica: its pool and whether it may be read now.
#[derive(Debug)]
pub struct Replica {
    db: Db,
    /// `host:port`, for the log.
    name: String,
    usable: AtomicBool,
}

impl Replica {
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// A read on it failed for want of a connection: skipped until the watcher finds
    /// it fresh again.
    pub fn mark_down(&self) {
        if self.usable.swap(false, Ordering::Relaxed) {
            tracing::warn!(replica = %self.name, "replica unreachable; reading from the primary");
        }
    }
}

impl Replicas {
    /// Pools for `urls`, opened lazily: a replica that is down at start is only
    /// skipped. None is read until the watcher ([`Replicas::watch`]) has found it fresh.
    pub fn connect(
        urls: &[DatabaseUrl],
        pool: &DatabasePool,
        max_lag: Duration,
    ) -> anyhow::Result<Self> {
        let mut members = Vec::with_capacity(urls.len());
        for url in urls {
            let DatabaseUrl::Postgres(raw) = url else {
                anyhow::bail!("DATABASE_REPLICA_URL: expected postgres://…");
            };
            let options =
                PgConnectOptions::from_str(raw).context("parsing DATABASE_REPLICA_URL")?;
            let name = format!("{}:{}", options.get_host(), options.get_port());
            let pool = PgPoolOptions::new()
                .max_connections(pool.max_connections)
                .test_before_acquire(false)
                .acquire_timeout(ACQUIRE_TIMEOUT)
                .connect_lazy_with(options);
            members.push(Replica {
                db: Db::Postgres(pool),
                name,
                usable: AtomicBool::new(false),
            });
        }
        Ok(Self {
            members,
            next: AtomicUsize::new(0),
            max_lag,
        })
    }

    /// A replica fresh enough to read now, in turn; `None` sends the read to the
    /// primary.
    pub fn pick(&self) -> Option<&Replica> {
        let n = self.members.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..n)
            .map(|i| &self.members[(start + i) % n])
            .find(|r| r.usable.load(Ordering::Relaxed))
    }

    /// Starts the watcher: every [`check_every`] it samples `primary`'s WAL position
    /// and judges each replica. It ends when the last handle to `self` is dropped.
    pub fn watch(self: &Arc<Self>, primary: Db) -> tokio::task::JoinHandle<()> {
        let replicas: Weak<Self> = Arc::downgrade(self);
        let period = check_every(self.max_lag);
        tokio::spawn(async move {
            let mut samples: VecDeque<(Instant, i64)> = VecDeque::new();
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(replicas) = replicas.upgrade() else {
                    return;
                };
                let now = Instant::now();
                if let Ok(Ok(position)) =
                    tokio::time::timeout(CHECK_TIMEOUT, primary_position(&primary)).await
                {
                    samples.push_back((now, position));
                }
                // older samples could only prove more lag than is allowed
                while samples
                    .front()
                    .is_some_and(|(at, _)| now.duration_since(*at) > replicas.max_lag + period)
                {
                    samples.pop_front();
                }
                for replica in &replicas.members {
                    let replayed =
                        tokio::time::timeout(CHECK_TIMEOUT, replayed_position(&replica.db)).await;
                    let fresh = match replayed {
                        Ok(Ok(Some(position))) => staleness(&samples, position, now)
                            .is_some_and(|lag| lag <= replicas.max_lag),
                        _ => false,
                    };
                    let was = replica.usable.swap(fresh, Ordering::Relaxed);
                    if was != fresh {
                        if fresh {
                            tracing::info!(replica = %replica.name, "replica fresh; reading from it");
                        } else {
                            tracing::warn!(
                                replica = %replica.name,
                                max_lag_ms = replicas.max_lag.as_millis() as u64,
                                "replica unreachable or behind; reading from the primary"
                            );
                        }
                    }
                }
            }
        })
    }
}

/// How often the watcher looks: four times within the allowed lag, between 50 ms and
/// half a second.
pub fn check_every(max_lag: Duration) -> Duration {
    (max_lag / 4).clamp(Duration::from_millis(50), Duration::from_millis(500))
}

/// How far behind a replica that has replayed the WAL up to `replayed` is at `now`:
/// the age of the newest primary position sample at or before it (the replica holds
/// everything the primary had then). `None` when it is behind every sample kept.
pub fn staleness(
    samples: &VecDeque<(Instant, i64)>,
    replayed: i64,
    now: Instant,
) -> Option<Duration> {
    samples
        .iter()
        .rev()
        .find(|(_, position)| *position <= replayed)
        .map(|(at, _)| now.saturating_duration_since(*at))
}

/// The primary's current WAL position, in bytes.
async fn primary_position(db: &Db) -> sqlx::Result<i64> {
    let Db::Postgres(pool) = db else {
        return Ok(0);
    };
    sqlx::query_scalar("SELECT CAST(pg_current_wal_lsn() - '0/0'::pg_lsn AS BIGINT)")
        .fetch_one(&crate::db::Checked(pool))
        .await
}

/// How far a replica has replayed the WAL, in bytes; `None` on a server that is not
/// a replica.
async fn replayed_position(db: &Db) -> sqlx::Result<Option<i64>> {
    let Db::Postgres(pool) = db else {
        return Ok(None);
    };
    sqlx::query_scalar("SELECT CAST(pg_last_wal_replay_lsn() - '0/0'::pg_lsn AS BIGINT)")
        .fetch_one(&crate::db::Checked(pool))
        .await
}

/// What a read that may go to a replica fails with: whether the failure says the
/// database could not be reached (the read is then run again on the primary).
pub trait Unreachable {
    fn is_unreachable(&self) -> bool;
}

impl Unreachable for sqlx::Error {
    fn is_unreachable(&self) -> bool {
        crate::error::is_database_unreachable(self)
    }
}

impl Unreachable for crate::Error {
    fn is_unreachable(&self) -> bool {
        matches!(self, crate::Error::DatabaseUnavailable(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_is_as_fresh_as_the_newest_sample_it_has_replayed() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let samples: VecDeque<(Instant, i64)> =
            [(at(0), 100), (at(500), 200), (at(1000), 300)].into();
        let now = at(1200);
        // caught up with the newest sample (or past it: the primary moved on since)
        assert_eq!(
            staleness(&samples, 300, now),
            Some(Duration::from_millis(200))
        );
        assert_eq!(
            staleness(&samples, 350, now),
            Some(Duration::from_millis(200))
        );
        // between two samples: as old as the earlier one
        assert_eq!(
            staleness(&samples, 250, now),
            Some(Duration::from_millis(700))
        );
        // behind every sample kept: more lag than is allowed
        assert_eq!(staleness(&samples, 99, now), None);
        assert_eq!(staleness(&VecDeque::new(), 300, now), None);
    }

    #[test]
    fn an_idle_primary_does_not_make_a_replica_look_stale() {
        let t0 = Instant::now();
        let samples: VecDeque<(Instant, i64)> = (0..10)
            .map(|i| (t0 + Duration::from_millis(i * 500), 4242))
            .collect();
        let now = t0 + Duration::from_millis(4600);
        assert_eq!(
            staleness(&samples, 4242, now),
            Some(Duration::from_millis(100))
        );
    }

    #[test]
    fn the_watcher_looks_four_times_within_the_allowed_lag() {
        assert_eq!(
            check_every(Duration::from_millis(2000)),
            Duration::from_millis(500)
        );
        assert_eq!(
            check_every(Duration::from_millis(400)),
            Duration::from_millis(100)
        );
        assert_eq!(
            check_every(Duration::from_millis(100)),
            Duration::from_millis(50)
        );
        assert_eq!(
            check_every(Duration::from_secs(60)),
            Duration::from_millis(500)
        );
    }
}
