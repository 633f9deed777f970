//! How the service holds its PostgreSQL connections: the pool's size, behind a
//! transaction pooler the direct connection the schema migrations take, and the read
//! replicas.

use std::time::Duration;

use super::DatabaseUrl;
use super::reader::Reader;

/// The connection pool of a PostgreSQL deployment (SQLite ignores it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabasePool {
    /// `DATABASE_MAX_CONNECTIONS`: connections this process opens at most. A hundred
    /// processes × 16 exhaust PostgreSQL's default `max_connections` of 100 many times
    /// over: behind PgBouncer each process keeps its own (cheap) client connections and
    /// the pooler shares a few server ones.
    pub max_connections: u32,
    /// `DATABASE_DIRECT_URL`: a connection that reaches PostgreSQL itself, not through a
    /// transaction pooler, for the schema migrations at start. The migrator holds a
    /// session's advisory lock across its transactions so that processes starting at
    /// once migrate one at a time; a transaction pooler hands each transaction to
    /// whichever server connection is free, so that lock would be taken on one and
    /// released (or not) on another. Unset: the migrations use `DATABASE_URL`.
    pub direct_url: Option<DatabaseUrl>,
    /// `DATABASE_REPLICA_URL`: streaming replicas (comma-separated) that reads
    /// tolerating [`Self::replica_max_lag`] go to (`db::replicas`).
    pub replica_urls: Vec<DatabaseUrl>,
    /// `REPLICA_MAX_LAG_MS`: a replica further behind than this is skipped for the
    /// primary.
    pub replica_max_lag: Duration,
}

impl Default for DatabasePool {
    fn default() -> Self {
        Self {
            max_connections: 16,
            direct_url: None,
            replica_urls: Vec::new(),
            replica_max_lag: Duration::from_millis(2000),
        }
    }
}

impl DatabasePool {
    pub(super) fn from_reader(r: &mut Reader<'_>, database_url: &DatabaseUrl) -> Self {
        let d = Self::default();
        let max_connections: u32 = r.parsed("DATABASE_MAX_CONNECTIONS", d.max_connections);
        let max_connections = if (1..=1000).contains(&max_connections) {
            max_connections
        } else {
            r.errors.push(format!(
                "DATABASE_MAX_CONNECTIONS={max_connections}: must be 1-1000"
            ));
            d.max_connections
        };
        let direct_url = r.string("DATABASE_DIRECT_URL").and_then(|raw| {
            match (DatabaseUrl::parse(&raw), database_url) {
                (Some(url @ DatabaseUrl::Postgres(_)), DatabaseUrl::Postgres(_)) => Some(url),
                _ => {
                    r.errors.push(
                        "DATABASE_DIRECT_URL: expected postgres://…, beside a PostgreSQL \
                         DATABASE_URL"
                            .into(),
                    );
                    None
                }
            }
        });
        let replica_urls: Vec<DatabaseUrl> = r
            .string("DATABASE_REPLICA_URL")
            .map(|raw| {
                raw.split(',')
                    .map(str::trim)
                    .filter(|u| !u.is_empty())
                    .filter_map(|u| match (DatabaseUrl::parse(u), database_url) {
                        (Some(url @ DatabaseUrl::Postgres(_)), DatabaseUrl::Postgres(_)) => {
                            Some(url)
                        }
                        _ => {
                            r.errors.push(
                                "DATABASE_REPLICA_URL: expected postgres://… (comma-separated), \
                                 beside a PostgreSQL DATABASE_URL"
                                    .into(),
                            );
                            None
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let lag_ms: u64 = r.parsed("REPLICA_MAX_LAG_MS", 2000);
        let replica_max_lag = if (100..=60_000).contains(&lag_ms) {
            Duration::from_millis(lag_ms)
        } else {
            r.errors
                .push(format!("REPLICA_MAX_LAG_MS={lag_ms}: must be 100-60000"));
            d.replica_max_lag
        };
        Self {
            max_connections,
            direct_url,
            replica_urls,
            replica_max_lag,
        }
    }
}
