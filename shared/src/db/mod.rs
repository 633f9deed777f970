//! The data layer: the only place SQL lives.
//!
//! [`Db`] is a closed enum over the two engines. The [`read!`] and [`in_tx!`] macros run
//! the same SQL text on whichever pool is active; a statement is written per engine
//! only where the engines truly differ, with the reason beside it. Portable SQL:
//! `$N` placeholders (SQLite maps `$N` to the N-th argument), `RETURNING`,
//! `ON CONFLICT`, instants bound from the service clock (the background jobs' leases
//! and snapshot go by the database's own, the `db_clock` view: see [`jobs`]).
//!
//! SQLite runs one writer connection (`BEGIN IMMEDIATE`, so a transaction that reads
//! before writing never fails to upgrade) beside a pool of readers, which WAL lets run
//! while the writer works.
//!
//! # Layout
//! - [`secrets`]: generated server secrets.
//! - [`regions`]: the region catalogue.
//! - [`players`]: players, identities, progress rows.
//! - [`refresh_tokens`]: stored refresh tokens of both audiences.
//! - [`admins`]: admin accounts; [`admin_mfa`]: their TOTP secrets and recovery codes;
//!   [`sign_in_failures`]: the admin sign-in throttle's counters.
//! - [`console_sessions`]: the HTML console's sessions.
//! - [`content`]: categories, skill-tree nodes, questions and cards.
//! - [`questions`]: the question bank; [`question_versions`]: the numbered snapshots
//!   of each question's content that challenges serve and answers are judged on.
//! - [`sms`]: pending SMS codes, resend windows, daily send limits.
//! - [`providers`]: the sign-in provider catalogue.
//! - [`accounts`]: linking, merging and deleting player accounts.
//! - [`request_counters`]: requests counted per key and window across processes.

pub mod accounts;
pub mod admin_mfa;
pub mod admins;
pub mod ads;
pub mod answers;
pub mod audit;
pub mod backup;
pub mod cards;
pub mod catalog;
mod checked;
pub mod console_sessions;
pub mod content;
pub mod export;
pub mod fairplay;
pub mod feedback;
pub mod gameplay;
pub mod holidays;
pub mod jobs;
pub mod leaderboard;
pub mod league;
pub mod learning;
pub mod ledger;
pub mod media;
pub mod minors;
pub mod moderation;
pub mod paging;
pub mod players;
pub mod progress;
pub mod providers;
pub mod question_stats;
pub mod question_versions;
pub mod questions;
pub mod real_name;
pub mod refresh_tokens;
pub mod regions;
pub mod replicas;
pub mod request_counters;
pub mod retention;
pub mod review;
pub mod secrets;
pub mod settlement;
pub mod sign_in_failures;
pub mod sms;
pub mod tracks;
mod wal;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Postgres, Sqlite, Transaction};
use tracing::Instrument as _;

use crate::config::{DatabasePool, DatabaseUrl};

pub use checked::{Checked, Gap, placeholder_count, some_arguments_unused};

/// How long a request waits for a PostgreSQL connection (a free one, or a new one the
/// pool makes) before it is refused with 503: with the server down the pool retries its
/// connects until then, and sqlx's default would hold each request 30 s. 3 s rides out
/// a restart's first moments and the pool's own backoff, and still answers a client
/// well before it gives up; a healthy pool hands connections out in milliseconds, so
/// only an outage or a pool saturated for seconds reaches it.
pub const PG_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// Connections of the active engine.
///
/// Both engines' pools skip sqlx's ping before each checkout (`test_before_acquire`): it
/// is a round trip per request on PostgreSQL and a hand-off to the connection's thread
/// on SQLite. sqlx still pings every connection as it goes back to the pool and drops
/// one that fails, so a connection broken by a database restart fails at most the one
/// request that held it.
#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(SqliteDb),
    Postgres(PgPool),
}

/// SQLite: one writer, several readers.
#[derive(Clone, Debug)]
pub struct SqliteDb {
    pub writer: SqlitePool,
    pub reader: SqlitePool,
    path: PathBuf,
    /// The WAL checkpoints, stopped when the last handle is dropped.
    checkpoints: Arc<wal::Checkpoints>,
}

/// A write transaction on the active engine.
pub enum Tx {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

/// Runs `$body` with `$ex` bound to a read executor of the active engine (each
/// statement [`Checked`]).
#[macro_export]
macro_rules! read {
    ($db:expr, |$ex:ident| $body:expr) => {
        match $db {
            $crate::db::Db::Sqlite(s) => {
                let $ex = &$crate::db::Checked(&s.reader);
                $body
            }
            $crate::db::Db::Postgres(p) => {
                let $ex = &$crate::db::Checked(p);
                $body
            }
        }
    };
}

/// Runs `$body` with `$ex` bound to the connection of transaction `$tx` (a `&mut Tx`;
/// each statement [`Checked`]).
#[macro_export]
macro_rules! in_tx {
    ($tx:expr, |$ex:ident| $body:expr) => {
        match $tx {
            $crate::db::Tx::Sqlite(t) => {
                let $ex = &mut $crate::db::Checked(&mut **t);
                $body
            }
            $crate::db::Tx::Postgres(t) => {
                let $ex = &mut $crate::db::Checked(&mut **t);
                $body
            }
        }
    };
}

/// Binds a keyword filter's FTS5 phrase (SQLite, 3 characters or more) as the query's
/// last parameter, when the filter has one.
macro_rules! bind_phrase {
    ($query:expr, $phrase:expr) => {
        match &$phrase {
            Some(p) => $query.bind(p.as_str()),
            None => $query,
        }
    };
}
pub(crate) use bind_phrase;

pub use crate::{in_tx, read};

/// The target of the events that mark the round trips sqlx does not log itself (a
/// `BEGIN`, SQLite's `COMMIT`). With sqlx's own events (target `sqlx::query`, one per
/// statement sent) they are every round trip a request makes to the database, which the
/// statement-budget tests count (`tests/budgets`), as Django's `assertNumQueries` does.
pub const ROUND_TRIP_TARGET: &str = "quiz::db";

/// Marks a round trip sqlx does not log (see [`ROUND_TRIP_TARGET`]); free unless a
/// subscriber listens at DEBUG for that target.
fn round_trip(statement: &'static str) {
    tracing::debug!(target: "quiz::db", statement, "round trip");
}

/// Runs a `DELETE … WHERE expires_at <= $1` sweep in its own transaction; answers how
/// many rows went.
async fn delete_expired_rows(db: &Db, sql: &'static str, now_ms: i64) -> sqlx::Result<u64> {
    let mut tx = db.begin().await?;
    let removed = in_tx!(&mut tx, |ex| {
        sqlx::query(sql)
            .bind(now_ms)
            .execute(ex)
            .await?
            .rows_affected()
    });
    tx.commit().await?;
    Ok(removed)
}

/// Runs a parameterless `SELECT count(*) …`: the total beside each admin page and count.
async fn count_rows(db: &Db, sql: &'static str) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| sqlx::query_scalar(sql)
        .fetch_one(ex)
        .await?))
}

/// `$1, $2, …, $n`: the parameters of an `IN (…)` list.
pub(crate) fn placeholders(n: usize) -> String {
    placeholders_from(1, n)
}

/// `$first, …`: `n` parameters of an `IN (…)` list after the statement's others.
pub(crate) fn placeholders_from(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `LIKE … ESCAPE '\'` pattern matching text that contains `needle` (lower-cased, as
/// the queries lower the column): `%`, `_` and `\` in it match themselves, so a search
/// for `100%` or `a_b` finds those characters, not everything.
pub fn contains_pattern(needle: &str) -> String {
    let mut pattern = String::with_capacity(needle.len() + 2);
    pattern.push('%');
    for c in needle.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// The fewest characters a keyword needs for the trigram indexes to answer it (pg_trgm
/// and SQLite's FTS5 `trigram` tokenizer): a shorter one is matched by `LIKE` over the
/// whole table, on both engines.
pub const TRIGRAM_MIN_CHARS: usize = 3;

/// The FTS5 query (one phrase: with the `trigram` tokenizer, text containing `needle`,
/// in any case) that finds the candidate rows of a keyword on SQLite, or `None` when the
/// index cannot answer it: fewer than [`TRIGRAM_MIN_CHARS`] characters (such a phrase
/// matches nothing), or a NUL (the query parser would stop there). Every row the
/// `LIKE` of [`contains_pattern`] matches is among the candidates: both fold case, FTS5
/// (Unicode) at least as widely as SQLite's `LOWER` and `LIKE` (ASCII); the queries keep
/// the `LIKE` as the exact test.
pub fn trigram_phrase(needle: &str) -> Option<String> {
    let lowered = needle.to_lowercase();
    if lowered.chars().count() < TRIGRAM_MIN_CHARS || lowered.contains('\0') {
        return None;
    }
    Some(format!("\"{}\"", lowered.replace('"', "\"\"")))
}

impl Db {
    /// Opens the database named by `url`: the SQLite file (and its folder) is created
    /// when missing, in WAL mode with foreign keys on.
    pub async fn connect(url: &DatabaseUrl) -> anyhow::Result<Self> {
        Self::connect_with(url, &DatabasePool::default()).await
    }

    /// [`Db::connect`] with the PostgreSQL pool sized by `pool`.
    ///
    /// Nothing here depends on the server connection a statement lands on between
    /// transactions (no session settings, session advisory locks, `LISTEN` or temporary
    /// tables), so the pool may reach PostgreSQL through PgBouncer in transaction mode.
    /// sqlx prepares every statement by name and caches it per connection; PgBouncer
    /// 1.21 and later keeps such statements across its server connections
    /// (`max_prepared_statements`), older ones cannot (see the README's deployment
    /// section).
    pub async fn connect_with(url: &DatabaseUrl, pool: &DatabasePool) -> anyhow::Result<Self> {
        match url {
            DatabaseUrl::Sqlite(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("creating {}", dir.display()))?;
                }
                let options = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .foreign_keys(true)
                    .busy_timeout(Duration::from_secs(10));
                let options = wal::checkpointed_in_background(options);
                // Switching a new file to WAL needs it to itself: processes starting at
                // once open it one after the other.
                let lock = lock_file(path).await?;
                let writer = open_sqlite_pool(&options, 1, path).await?;
                let reader = open_sqlite_pool(&options, 4, path).await?;
                let checkpointer =
                    open_sqlite_pool(&wal::checkpointer_options(options), 1, path).await?;
                drop(lock);
                let checkpoints =
                    wal::Checkpoints::start(checkpointer, writer.clone(), wal::Policy::DEFAULT);
                Ok(Self::Sqlite(SqliteDb {
                    writer,
                    checkpoints: Arc::new(checkpoints),
                    reader,
                    path: path.clone(),
                }))
            }
            DatabaseUrl::Postgres(url) => {
                let options = PgConnectOptions::from_str(url).context("parsing DATABASE_URL")?;
                let pool = PgPoolOptions::new()
                    .max_connections(pool.max_connections)
                    .test_before_acquire(false)
                    .acquire_timeout(PG_ACQUIRE_TIMEOUT)
                    .connect_with(options)
                    .await
                    .context("connecting to PostgreSQL")?;
                Ok(Self::Postgres(pool))
            }
        }
    }

    /// `sqlite` or `postgres`.
    pub fn engine(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "sqlite",
            Self::Postgres(_) => "postgres",
        }
    }

    /// `SELECT 1` through the pool requests use (the readiness probe).
    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        read!(self, |ex| sqlx::query("SELECT 1")
            .execute(ex)
            .await
            .map(|_| ()))
    }

    /// Each connection pool as (name, open connections, idle connections), for metrics.
    pub fn pool_stats(&self) -> Vec<(&'static str, u32, usize)> {
        match self {
            Self::Sqlite(s) => vec![
                ("sqlite_writer", s.writer.size(), s.writer.num_idle()),
                ("sqlite_reader", s.reader.size(), s.reader.num_idle()),
            ],
            Self::Postgres(p) => vec![("postgres", p.size(), p.num_idle())],
        }
    }

    /// The migrations of this engine, as [`Db::migrate`] applies them. Migrations are
    /// backward compatible for one release (expand, then contract a release later:
    /// `migrations/PHASES.md`), so a process of the previous release starts on a schema
    /// a newer one migrated: applied migrations it does not know are no error
    /// (`ignore_missing`), which a rolling deploy needs while old and new processes
    /// run side by side.
    pub fn migrator(&self) -> Migrator {
        let mut migrator = match self {
            Self::Postgres(_) => sqlx::migrate!("../migrations/postgres"),
            Self::Sqlite(_) => sqlx::migrate!("../migrations/sqlite"),
        };
        migrator.set_ignore_missing(true);
        migrator
    }

    /// Applies pending migrations. Safe when several processes start at once:
    /// PostgreSQL serialises them with the migrator's advisory lock, SQLite with an
    /// exclusive lock on a file beside the database.
    pub async fn migrate(&self) -> anyhow::Result<()> {
        let migrator = self.migrator();
        match self {
            Self::Postgres(pool) => migrator
                .run(pool)
                .await
                .context("applying PostgreSQL migrations"),
            Self::Sqlite(s) => {
                let lock = lock_file(&s.path).await?;
                let result = migrator
                    .run(&s.writer)
                    .await
                    .context("applying SQLite migrations");
                drop(lock);
                result
            }
        }
    }

    /// Starts a write transaction (`BEGIN IMMEDIATE` on SQLite).
    ///
    /// Cancel-safe: a request dropped while this waits (its client went away) leaves no
    /// transaction open. On PostgreSQL sqlx 0.9 is not (launchbadge/sqlx#4393: a `BEGIN`
    /// dropped before its answer leaves the pooled connection inside a transaction that
    /// the next borrower's writes then join and never commit), so there the `BEGIN` runs
    /// in its own task, which a dropped caller does not stop: the transaction it opens
    /// is then dropped there and rolled back.
    pub async fn begin(&self) -> Result<Tx, sqlx::Error> {
        round_trip("BEGIN");
        match self {
            Self::Sqlite(s) => Ok(Tx::Sqlite(s.writer.begin_with("BEGIN IMMEDIATE").await?)),
            Self::Postgres(p) => {
                let pool = p.clone();
                let tx = tokio::spawn(async move { pool.begin().await }.in_current_span())
                    .await
                    .map_err(|e| sqlx::Error::Protocol(format!("BEGIN task failed: {e}")))??;
                Ok(Tx::Postgres(tx))
            }
        }
    }

    pub async fn close(&self) {
        match self {
            Self::Sqlite(s) => {
                s.writer.close().await;
                s.reader.close().await;
                s.checkpoints.close().await;
            }
            Self::Postgres(p) => p.close().await,
        }
    }
}

impl SqliteDb {
    /// Runs `script`, a bound query, on the writer: `BEGIN IMMEDIATE`, its statements and
    /// `COMMIT` as one `;`-separated string, so the write lock is held for one hand-off to
    /// the connection's thread rather than one per statement (`$N` binds the N-th
    /// argument in every statement). Returns the rows of its statements.
    ///
    /// A statement that fails stops the string inside its transaction: it is rolled
    /// back before the connection goes back to the pool, and a connection that cannot
    /// roll back is closed. The whole of it runs in its own task, so a caller dropped
    /// midway (its client went away) cannot leave the transaction open either.
    pub async fn write_script(
        &self,
        mut script: sqlx::query::Query<'_, Sqlite, sqlx::sqlite::SqliteArguments>,
    ) -> Result<Vec<sqlx::sqlite::SqliteRow>, sqlx::Error> {
        use sqlx::Execute as _;
        let arguments = script
            .take_arguments()
            .map_err(sqlx::Error::Encode)?
            .unwrap_or_default();
        let script = script.sql();
        debug_assert!(
            script.as_str().starts_with("BEGIN IMMEDIATE;") && script.as_str().ends_with("COMMIT")
        );
        let writer = self.writer.clone();
        tokio::spawn(
            async move {
                let mut conn = writer.acquire().await?;
                let result = sqlx::query_with(script, arguments)
                    .fetch_all(&mut Checked(&mut *conn))
                    .await;
                // Also when BEGIN itself failed, where ROLLBACK finds no transaction: the
                // connection is then closed, which is harmless.
                if result.is_err()
                    && sqlx::query("ROLLBACK")
                        .execute(&mut Checked(&mut *conn))
                        .await
                        .is_err()
                {
                    conn.close_on_drop();
                }
                result
            }
            .in_current_span(),
        )
        .await
        .map_err(|e| sqlx::Error::Protocol(format!("write task failed: {e}")))?
    }
}

impl Tx {
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self {
            Self::Sqlite(t) => {
                // sqlx logs PostgreSQL's COMMIT itself, not SQLite's
                round_trip("COMMIT");
                t.commit().await
            }
            Self::Postgres(t) => t.commit().await,
        }
    }
}

/// Opens a pool, retrying for a while when another process holds the file busy.
async fn open_sqlite_pool(
    options: &SqliteConnectOptions,
    max_connections: u32,
    path: &Path,
) -> anyhow::Result<SqlitePool> {
    let mut attempt = 0;
    loop {
        let result = SqlitePoolOptions::new()
            .max_connections(max_connections)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await;
        match result {
            Ok(pool) => return Ok(pool),
            Err(sqlx::Error::Database(e)) if e.message().contains("locked") && attempt < 50 => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!("opening {}", path.display())));
            }
        }
    }
}

/// Takes an exclusive advisory lock on `<db>.migrate-lock` (opening and migrating an
/// SQLite file); released when dropped.
async fn lock_file(db_path: &Path) -> anyhow::Result<std::fs::File> {
    let mut lock_path = db_path.as_os_str().to_owned();
    lock_path.push(".migrate-lock");
    let lock_path = PathBuf::from(lock_path);
    tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .with_context(|| format!("opening {}", lock_path.display()))?;
        file.lock()
            .with_context(|| format!("locking {}", lock_path.display()))?;
        Ok(file)
    })
    .await
    .context("migration lock task")?
}

/// The version numbers of the embedded migrations of each engine (they must match).
pub fn migration_versions() -> (Vec<i64>, Vec<i64>) {
    let versions = |m: &Migrator| m.iter().map(|m| m.version).collect::<Vec<_>>();
    (
        versions(&sqlx::migrate!("../migrations/sqlite")),
        versions(&sqlx::migrate!("../migrations/postgres")),
    )
}

/// True when `e` is a unique-constraint violation (either engine).
pub fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

#[cfg(test)]
mod tests {
    #[test]
    fn trigram_phrases_quote_the_lowered_keyword() {
        use super::trigram_phrase;
        assert_eq!(trigram_phrase("北京"), None);
        assert_eq!(trigram_phrase("ab"), None);
        assert_eq!(trigram_phrase("a\0bc"), None);
        assert_eq!(trigram_phrase("北京市").as_deref(), Some("\"北京市\""));
        assert_eq!(
            trigram_phrase(r#"Say "100%_\""#).as_deref(),
            Some(r#""say ""100%_\""""#)
        );
    }

    #[test]
    fn both_engines_have_the_same_migration_versions() {
        let (sqlite, postgres) = super::migration_versions();
        assert!(!sqlite.is_empty());
        assert_eq!(sqlite, postgres);
    }

    /// Every statement of the crate runs on a [`super::Checked`] executor (so its
    /// arguments are checked against its placeholders): the `read!` and `in_tx!`
    /// executors `ex`, or one wrapped by hand. The WAL checkpoints' PRAGMAs (no
    /// arguments, their own pool) are the one exception.
    #[test]
    fn every_statement_runs_on_a_checked_executor() {
        fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("source folder") {
                let path = entry.expect("source entry").path();
                if path.is_dir() {
                    sources(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&root, &mut files);
        let exempt = [root.join("db/wal.rs"), root.join("db/checked.rs")];
        let mut unchecked = Vec::new();
        let mut seen = 0;
        for file in files.iter().filter(|f| !exempt.contains(f)) {
            let text = std::fs::read_to_string(file).expect("source file");
            // the code, not its unit tests (which run on their own connections)
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            if !code.contains("sqlx::") {
                continue;
            }
            let text: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
            for call in [
                ".execute(",
                ".fetch_one(",
                ".fetch_optional(",
                ".fetch_all(",
                ".fetch(",
            ] {
                for (at, _) in text.match_indices(call) {
                    let rest = &text[at + call.len()..];
                    let argument = rest.split(')').next().unwrap_or_default().trim();
                    seen += 1;
                    let checked = matches!(argument, "ex" | "&mut *ex")
                        || [
                            "&crate::db::Checked(",
                            "&mut crate::db::Checked(",
                            "&mut Checked(",
                        ]
                        .iter()
                        .any(|p| argument.starts_with(p));
                    if !checked {
                        unchecked.push(format!("{}: {call}{argument})", file.display()));
                    }
                }
            }
        }
        assert!(seen > 300, "only {seen} statements found");
        assert!(unchecked.is_empty(), "{unchecked:#?}");
    }

    /// What fair play and the learning engine judge by is made of what the server
    /// measured: the too-fast bar is `question_stats.pace_ms` (the server's times of
    /// clean first answers, `domain::fairplay::pace_sample`), never the median of the
    /// times clients claim (`median_time_ms`, `question_answer_times`), which only staff
    /// see. No file of the rules' reads names those.
    #[test]
    fn rules_read_server_measured_times_only() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let rule_files = [
            "db/gameplay.rs",
            "db/learning.rs",
            "db/fairplay.rs",
            "db/progress/write.rs",
            "answer_cache.rs",
            "domain/fairplay.rs",
            "domain/skill.rs",
            "services/learning.rs",
            "services/fairplay.rs",
            "services/gameplay/answer.rs",
            "services/gameplay/challenges.rs",
        ];
        for file in rule_files {
            let text = std::fs::read_to_string(root.join(file)).expect("source file");
            for claimed in ["median_time_ms", "question_answer_times"] {
                assert!(!text.contains(claimed), "{file} reads {claimed}");
            }
        }
        let gameplay = std::fs::read_to_string(root.join("db/gameplay.rs")).expect("source");
        assert!(
            gameplay.contains("s.pace_ms"),
            "the bar comes from the pace"
        );
        let stats =
            std::fs::read_to_string(root.join("services/question_stats.rs")).expect("source");
        assert!(stats.contains("pace_sample(") && stats.contains("f.server_elapsed_ms"));
    }

    /// `db::progress::write` is the only writer of `player_progress` (the answer's memory
    /// relies on every write advancing the revision): no other source file of the crate
    /// updates the table. Its creation (`INSERT`, at revision 0) is the players' module's.
    #[test]
    fn only_the_progress_writer_updates_player_progress() {
        fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("source folder") {
                let path = entry.expect("source entry").path();
                if path.is_dir() {
                    sources(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&root, &mut files);
        let writer = root.join("db/progress/write.rs");
        let needle = ["UPDATE", " player_progress"].concat();
        let writers: Vec<_> = files
            .iter()
            .filter(|f| **f != writer)
            .filter(|f| {
                std::fs::read_to_string(f)
                    .expect("source file")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .contains(&needle)
            })
            .collect();
        assert!(writers.is_empty(), "player_progress written by {writers:?}");
        assert!(files.contains(&writer));
    }
}
