//! `job_leases` and `admin_stats_snapshot`: which process runs each background job, and
//! what the statistics job last computed.

use super::moderation::StatsRow;
use super::{Db, in_tx, read};

/// Takes or renews `job`'s lease for `holder` until `now_ms + ttl_ms`: true when
/// `holder` has it now. It goes to `holder` only when free, expired or already its own;
/// one conditional upsert, so two processes asking at once never both get it.
pub async fn take_lease(
    db: &Db,
    job: &str,
    holder: &str,
    now_ms: i64,
    ttl_ms: i64,
) -> sqlx::Result<bool> {
    let mut tx = db.begin().await?;
    let taken = in_tx!(&mut tx, |ex| {
        sqlx::query(
            "INSERT INTO job_leases (job, holder, expires_at) VALUES ($1, $2, $3)
             ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                 WHERE job_leases.holder = excluded.holder OR job_leases.expires_at <= $4",
        )
        .bind(job)
        .bind(holder)
        .bind(now_ms.saturating_add(ttl_ms))
        .bind(now_ms)
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
    now_ms: i64,
) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE job_leases SET last_run_at = $3, progress = COALESCE($4, progress)
             WHERE job = $1 AND holder = $2",
        )
        .bind(job)
        .bind(holder)
        .bind(now_ms)
        .bind(progress)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await
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

/// The statistics last computed, and when.
pub async fn stats_snapshot(db: &Db) -> sqlx::Result<Option<(StatsRow, i64)>> {
    #[derive(sqlx::FromRow)]
    struct Snapshot {
        #[sqlx(flatten)]
        stats: StatsRow,
        computed_at: i64,
    }
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, Snapshot>(
            "SELECT total_users, active_users, total_questions, published_questions, xp_sum,
                    computed_at
             FROM admin_stats_snapshot WHERE id = 1",
        )
        .fetch_optional(ex)
        .await?
    })
    .map(|s| (s.stats, s.computed_at)))
}

/// Stores freshly computed statistics, unless newer ones are stored already.
pub async fn store_stats(db: &Db, s: &StatsRow, computed_at: i64) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "INSERT INTO admin_stats_snapshot (id, total_users, active_users, total_questions,
                                               published_questions, xp_sum, computed_at)
             VALUES (1, $1, $2, $3, $4, $5, $6)
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
        .bind(computed_at)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await
}
