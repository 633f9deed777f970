//! `job_leases` and `admin_stats_snapshot`: which process runs each background job, and
//! what the statistics job last computed. Their instants are the database's clock
//! (`db_clock`, migration 0021), never a process's: one whose clock runs ahead would
//! otherwise hold a lease, or a snapshot's freshness, for as long as it is ahead.

use super::moderation::StatsRow;
use super::{Db, in_tx, read};

/// The database's clock, in Unix milliseconds.
pub async fn database_now_ms(db: &Db) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT now_ms FROM db_clock")
            .fetch_one(ex)
            .await?
    }))
}

/// Takes or renews `job`'s lease for `holder` until `ttl_ms` from now by the database's
/// clock: true when `holder` has it now. It goes to `holder` only when free, expired or
/// already its own; one conditional upsert, so two processes asking at once never both
/// get it.
pub async fn take_lease(db: &Db, job: &str, holder: &str, ttl_ms: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin().await?;
    let taken = in_tx!(&mut tx, |ex| {
        sqlx::query(
            "INSERT INTO job_leases (job, holder, expires_at)
             VALUES ($1, $2, (SELECT now_ms FROM db_clock) + $3)
             ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                 WHERE job_leases.holder = excluded.holder
                    OR job_leases.expires_at <= (SELECT now_ms FROM db_clock)",
        )
        .bind(job)
        .bind(holder)
        .bind(ttl_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    });
    tx.commit().await?;
    Ok(taken)
}

/// Records a finished run of `job` by `holder` (nothing when the lease went elsewhere).
pub async fn finish_run(
    db: &Db,
    job: &str,
    holder: &str,
    progress: Option<&str>,
) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE job_leases SET last_run_at = (SELECT now_ms FROM db_clock),
                                   progress = COALESCE($3, progress)
             WHERE job = $1 AND holder = $2",
        )
        .bind(job)
        .bind(holder)
        .bind(progress)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await
}

/// Ends every lease `holder` has (it is stopping), so other processes take its jobs at
/// their next look rather than when the leases run out; returns how many it had.
pub async fn release_leases(db: &Db, holder: &str) -> sqlx::Result<u64> {
    let mut tx = db.begin().await?;
    let released = in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE job_leases SET expires_at = (SELECT now_ms FROM db_clock)
             WHERE holder = $1 AND expires_at > (SELECT now_ms FROM db_clock)",
        )
        .bind(holder)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await?;
    Ok(released)
}

/// A job's lease as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Lease {
    pub job: String,
    pub holder: String,
    pub expires_at: i64,
    pub progress: Option<String>,
    pub last_run_at: Option<i64>,
}

pub async fn lease(db: &Db, job: &str) -> sqlx::Result<Option<Lease>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, Lease>(
            "SELECT job, holder, expires_at, progress, last_run_at FROM job_leases WHERE job = $1",
        )
        .bind(job)
        .fetch_optional(ex)
        .await?
    }))
}

/// The statistics last computed, and how long ago (milliseconds, by the database's clock).
pub async fn stats_snapshot(db: &Db) -> sqlx::Result<Option<(StatsRow, i64)>> {
    #[derive(sqlx::FromRow)]
    struct Snapshot {
        #[sqlx(flatten)]
        stats: StatsRow,
        age_ms: i64,
    }
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, Snapshot>(
            "SELECT total_users, active_users, total_questions, published_questions, xp_sum,
                    (SELECT now_ms FROM db_clock) - computed_at AS age_ms
             FROM admin_stats_snapshot WHERE id = 1",
        )
        .fetch_optional(ex)
        .await?
    })
    .map(|s| (s.stats, s.age_ms)))
}

/// Stores freshly computed statistics as computed now by the database's clock, unless
/// newer ones are stored already.
pub async fn store_stats(db: &Db, s: &StatsRow) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "INSERT INTO admin_stats_snapshot (id, total_users, active_users, total_questions,
                                               published_questions, xp_sum, computed_at)
             VALUES (1, $1, $2, $3, $4, $5, (SELECT now_ms FROM db_clock))
             ON CONFLICT (id) DO UPDATE SET
                 total_users = excluded.total_users, active_users = excluded.active_users,
                 total_questions = excluded.total_questions,
                 published_questions = excluded.published_questions,
                 xp_sum = excluded.xp_sum, computed_at = excluded.computed_at
             WHERE admin_stats_snapshot.computed_at <= excluded.computed_at",
        )
        .bind(s.total_users)
        .bind(s.active_users)
        .bind(s.total_questions)
        .bind(s.published_questions)
        .bind(s.xp_sum)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await
}
