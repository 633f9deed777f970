//! SQLite's write-ahead log, checkpointed by a background task rather than by the
//! writer, and kept from growing without bound.
//!
//! SQLite's automatic checkpoint (`wal_autocheckpoint`, off here) runs inside the commit
//! that fills the WAL, so the slowest answers waited tens of milliseconds for it. Here a
//! task copies the WAL into the database file every tick with a passive checkpoint, on a
//! connection of its own, blocking no one.
//!
//! That alone never lets the WAL start over under load: the writer restarts it only when
//! no reader is still reading old frames at the moment it begins a write, and under
//! constant reads one always is (the file grew by gigabytes in a minute of answers). So
//! once the WAL holds [`Policy::restart_after_frames`], the task takes the writer
//! connection (writes then queue for the pool rather than sleep in SQLite's busy
//! handler, which waits in steps of milliseconds), keeps copying with passive
//! checkpoints while it waits for it, and then runs a restarting checkpoint: it copies
//! the few frames left, waits for the readers of old frames (short reads), and the next
//! write starts the WAL from its beginning.
//!
//! Small, frequent checkpoints keep the writer's worst waits short: each one syncs the
//! files, and a sync of more data stalls the writer's appends longer (measured with
//! `bench/run.sh`: a tick of 1 s put the answer's p99 at 53 ms, 250 ms at 30 ms, 100 ms
//! at 18 ms).

use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::SqliteConnectOptions;

/// When the task checkpoints and restarts the WAL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    /// How often a passive checkpoint runs.
    pub every: Duration,
    /// WAL frames (pages) past which a checkpoint also restarts the WAL.
    pub restart_after_frames: i64,
}

impl Policy {
    /// 100 ms; a restart past 65,536 frames of 4 KiB (256 MiB), every few seconds of the
    /// heaviest answer load.
    pub const DEFAULT: Self = Self {
        every: Duration::from_millis(100),
        restart_after_frames: 65_536,
    };
}

/// The size the WAL file is cut back to when it restarts (`journal_size_limit`): above
/// the size a restart starts from, so under load the file is reused rather than cut and
/// grown again (growing it allocates blocks, which stalled the writer behind the
/// checkpoints' syncs).
const SIZE_LIMIT_BYTES: i64 = 512 * 1024 * 1024;

/// How long the checkpointer waits for the readers of old frames before a restart gives
/// up until the next tick.
const CHECKPOINTER_BUSY_TIMEOUT: Duration = Duration::from_millis(50);

/// The options of every connection: no automatic checkpoint, and the WAL's size limit.
pub(crate) fn checkpointed_in_background(options: SqliteConnectOptions) -> SqliteConnectOptions {
    options
        .pragma("wal_autocheckpoint", "0")
        .pragma("journal_size_limit", SIZE_LIMIT_BYTES.to_string())
}

/// The options of the checkpointer's connection.
pub(crate) fn checkpointer_options(options: SqliteConnectOptions) -> SqliteConnectOptions {
    options.busy_timeout(CHECKPOINTER_BUSY_TIMEOUT)
}

/// The background task; it stops when this is dropped.
#[derive(Debug)]
pub(crate) struct Checkpoints {
    task: tokio::task::JoinHandle<()>,
    checkpointer: SqlitePool,
}

impl Checkpoints {
    /// Starts checkpointing with `checkpointer`, a pool of one connection of its own
    /// ([`checkpointer_options`]); `writer` is the pool of the one writer connection.
    pub(crate) fn start(checkpointer: SqlitePool, writer: SqlitePool, policy: Policy) -> Self {
        let pool = checkpointer.clone();
        let task = tokio::spawn(async move {
            let mut every = tokio::time::interval(policy.every);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                match checkpoint(&checkpointer, &writer, policy).await {
                    Ok(()) => {}
                    Err(sqlx::Error::PoolClosed) => break,
                    Err(e) => tracing::warn!(error = %e, "WAL checkpoint failed"),
                }
            }
        });
        Self {
            task,
            checkpointer: pool,
        }
    }

    /// Closes the checkpointer's connection (the task then stops).
    pub(crate) async fn close(&self) {
        self.checkpointer.close().await;
    }
}

impl Drop for Checkpoints {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One tick: a passive checkpoint, and a restart when the WAL has grown past the policy.
async fn checkpoint(
    checkpointer: &SqlitePool,
    writer: &SqlitePool,
    policy: Policy,
) -> Result<(), sqlx::Error> {
    // (busy, frames in the WAL, frames copied); -1 frames when not in WAL mode
    let passive = || async {
        sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(checkpointer)
            .await
    };
    let (_, frames, _) = passive().await?;
    if frames < policy.restart_after_frames {
        return Ok(());
    }
    // The writer is taken in a task of its own, which keeps its place in the pool's
    // queue while the passive checkpoints go on.
    let acquiring = {
        let writer = writer.clone();
        tokio::spawn(async move { writer.acquire().await })
    };
    let copied = async {
        loop {
            passive().await?;
            if acquiring.is_finished() {
                return Ok::<_, sqlx::Error>(());
            }
        }
    }
    .await;
    if let Err(e) = copied {
        acquiring.abort(); // a writer it got meanwhile goes back to the pool
        return Err(e);
    }
    let held_writer = acquiring
        .await
        .map_err(|e| sqlx::Error::Protocol(format!("acquiring the writer: {e}")))??;
    let restarted = sqlx::query("PRAGMA wal_checkpoint(RESTART)")
        .execute(checkpointer)
        .await;
    drop(held_writer);
    restarted.map(drop)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use sqlx::sqlite::{SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

    use super::*;

    async fn pool(options: &SqliteConnectOptions, size: u32) -> SqlitePool {
        SqlitePoolOptions::new()
            .max_connections(size)
            .connect_with(options.clone())
            .await
            .unwrap()
    }

    /// Writes `rows` rows of 4 KiB under constant reads; returns the largest WAL file
    /// seen, in bytes.
    async fn largest_wal_under_load(restart_after_frames: i64, rows: i64) -> u64 {
        let dir = std::env::temp_dir().join(format!("quiz-wal-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("wal.db");
        let options = checkpointed_in_background(
            SqliteConnectOptions::new()
                .filename(&path)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal),
        );
        let writer = pool(&options, 1).await;
        let reader = pool(&options, 3).await;
        let checkpointer = pool(&checkpointer_options(options.clone()), 1).await;
        sqlx::query("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            .execute(&writer)
            .await
            .unwrap();
        let checkpoints = Checkpoints::start(
            checkpointer,
            writer.clone(),
            Policy {
                every: Duration::from_millis(5),
                restart_after_frames,
            },
        );

        // readers that never all stop at once, as under load
        let stop = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..3)
            .map(|_| {
                let (reader, stop) = (reader.clone(), stop.clone());
                tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        sqlx::query("SELECT count(*), max(id) FROM t")
                            .fetch_one(&reader)
                            .await
                            .unwrap();
                    }
                })
            })
            .collect();
        let wal = path.with_extension("db-wal");
        let mut largest = 0;
        for id in 0..rows {
            sqlx::query("INSERT INTO t (id, body) VALUES ($1, randomblob(4000))")
                .bind(id)
                .execute(&writer)
                .await
                .unwrap();
            largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            r.await.unwrap();
        }
        let written: i64 = sqlx::query_scalar("SELECT count(*) FROM t")
            .fetch_one(&reader)
            .await
            .unwrap();
        assert_eq!(written, rows, "every row is there");
        checkpoints.close().await;
        writer.close().await;
        reader.close().await;
        let _ = std::fs::remove_dir_all(&dir);
        largest
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_wal_starts_over_under_constant_reads() {
        // A WAL that never starts over holds every page written through it: more than
        // the 3,000 rows of 4,000 bytes themselves (about 35 MB measured, with the
        // index pages). Restarts past 64 frames (256 KiB) keep it to a small part of
        // that; how small depends on how often the checkpointer gets the CPU (about
        // 1 MB alone, 5 MB beside the whole suite, once past 12 MB on a loaded CI
        // machine), so the bound is twice the data: still below a WAL that never
        // restarts.
        let rows = 3000;
        let largest = largest_wal_under_load(64, rows).await;
        let data = u64::try_from(rows * 4000).unwrap();
        assert!(
            largest < 2 * data,
            "the WAL grew to {largest} bytes for {data} bytes of rows"
        );
    }
}
