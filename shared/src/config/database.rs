//! How the service holds its PostgreSQL connections: the pool's size and, behind a
//! transaction pooler, the direct connection the schema migrations take.

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
}

impl Default for DatabasePool {
    fn default() -> Self {
        Self {
            max_connections: 16,
            direct_url: None,
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
        Self {
            max_connections,
            direct_url,
        }
    }
}
