//! Background jobs, each run by one process at a time across the deployment: a process
//! runs a job only while it holds the job's lease (`db::jobs`), which it renews on every
//! run; when it dies its lease runs out and another process takes the job over, and when
//! it stops it hands its leases back at once. Running a job twice changes nothing: the
//! statistics are recomputed, and a purge removes only rows already past their age.
//!
//! Leases run by the database's clock. Rows are aged, and a week is over for the
//! settlement, by [`cautious_now_ms`]: a process whose clock runs ahead neither holds the
//! jobs nor purges or settles early.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::Result;
use crate::clock::{beijing, from_ms};
use crate::context::AppContext;
use crate::db::moderation::StatsRow;
use crate::db::retention::{Age, Cutoff, PURGES};
use crate::db::{self};
use crate::metrics::JobMetrics;
use crate::services::backup;
use crate::services::job_clock::cautious_now_ms;
use crate::services::learning::{self, Calibrated};
use crate::services::media;
use crate::services::nppa_reports;
use crate::services::question_stats;
use crate::services::review;
use crate::services::settlement::{self, Settled};

/// A background job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// The dashboard's statistics ([`refresh_stats`]).
    Stats,
    /// The purge of stored data that is not the record ([`purge`]).
    Retention,
    /// The question statistics
    /// ([`crate::services::question_stats::aggregate`]).
    QuestionStats,
    /// The weekly settlement of ended weeks ([`crate::services::settlement::settle`]).
    Settlement,
    /// First answers folded and categories calibrated
    /// ([`crate::services::learning::calibrate`]).
    Calibration,
    /// Players' own FSRS parameters fitted ([`crate::services::review::fit_due`]).
    ReviewFit,
    /// Media no question has used for `MEDIA_UNUSED_DAYS` removed
    /// ([`crate::services::media::purge_unused`]).
    MediaPurge,
    /// A copy of the SQLite database into `BACKUP_DIR` when one is due
    /// ([`crate::services::backup::scheduled`]).
    Backup,
    /// Verified players' logins and logouts reported to NPPA
    /// ([`crate::services::nppa_reports::send_reports`]).
    NppaReports,
}

impl Job {
    pub const ALL: [Job; 9] = [
        Job::Stats,
        Job::Retention,
        Job::QuestionStats,
        Job::Settlement,
        Job::Calibration,
        Job::ReviewFit,
        Job::MediaPurge,
        Job::Backup,
        Job::NppaReports,
    ];

    /// Its lease's key and its `job` label in the metrics.
    pub fn name(self) -> &'static str {
        match self {
            Self::Stats => "admin_stats",
            Self::Retention => "retention",
            Self::QuestionStats => "question_stats",
            Self::Settlement => "settlement",
            Self::Calibration => "calibration",
            Self::ReviewFit => "review_fit",
            Self::MediaPurge => "media_purge",
            Self::Backup => "backup",
            Self::NppaReports => "nppa_reports",
        }
    }

    /// How often it runs.
    pub fn every_ms(self, ctx: &AppContext) -> i64 {
        match self {
            Self::Stats => ctx.settings.jobs.stats_refresh_seconds * 1000,
            Self::Retention => RETENTION_EVERY_MS,
            Self::QuestionStats => ctx.settings.jobs.question_stats_seconds * 1000,
            Self::Settlement => SETTLEMENT_EVERY_MS,
            // folds every minute; each category is fitted once per refresh
            Self::Calibration => {
                CALIBRATION_EVERY_MS.min(ctx.settings.learning.calibration_refresh_seconds * 1000)
            }
            Self::ReviewFit => REVIEW_FIT_EVERY_MS,
            Self::MediaPurge => MEDIA_PURGE_EVERY_MS,
            Self::Backup => BACKUP_CHECK_EVERY_MS,
            Self::NppaReports => NPPA_REPORTS_EVERY_MS,
        }
    }

    /// How long a lease lasts from its last renewal (by the database's clock): three
    /// intervals and a half minute, so a live holder keeps it and a dead one's jobs are
    /// taken over within that time.
    pub fn lease_ms(self, ctx: &AppContext) -> i64 {
        3 * self.every_ms(ctx) + 30_000
    }
}

/// How often the retention job runs.
const RETENTION_EVERY_MS: i64 = 60_000;
/// How often the settlement job looks for an ended week (so a week is settled within
/// a minute of its end).
const SETTLEMENT_EVERY_MS: i64 = 60_000;
/// How often the calibration job folds new answers (and fits what is due).
const CALIBRATION_EVERY_MS: i64 = 60_000;
/// How often the fitting job looks at the next players.
const REVIEW_FIT_EVERY_MS: i64 = 60_000;
/// How often the backup job looks at the age of the newest copy (a copy is taken when
/// it is `BACKUP_INTERVAL` old, so a restart never takes one early).
const BACKUP_CHECK_EVERY_MS: i64 = 60_000;
/// How often waiting NPPA reports are sent (the interface takes an event up to 180 s
/// after it happened).
const NPPA_REPORTS_EVERY_MS: i64 = 10_000;
/// How often unused media are looked for (they go after days, so an hour is exact enough).
const MEDIA_PURGE_EVERY_MS: i64 = 3_600_000;
/// At most this many batches per table and run, so one run stays short and leaves the
/// database to requests; the next run goes on.
const BATCHES_PER_RUN: u32 = 20;
const DAY_MS: i64 = 86_400_000;
/// Players who played or signed up within this window are active.
const ACTIVE_WINDOW_MS: i64 = 7 * DAY_MS;

/// This process's job loop (see [`spawn`]).
pub struct Jobs {
    ctx: Arc<AppContext>,
    holder: String,
    task: JoinHandle<()>,
}

impl Jobs {
    /// Stops the loop (a run under way is abandoned: every job is safe to run again)
    /// and hands this process's leases back, so other processes take its jobs at their
    /// next look instead of after the leases run out. A shutting-down binary calls it.
    pub async fn stop(mut self) {
        self.task.abort();
        // the loop must be gone before the leases are, or it could renew one
        let _ = (&mut self.task).await;
        match db::jobs::release_leases(&self.ctx.db, &self.holder).await {
            Ok(released) => tracing::info!(released, "background jobs: leases released"),
            Err(e) => {
                tracing::warn!(error = %e, "background jobs: leases left to run out");
            }
        }
    }
}

impl Drop for Jobs {
    /// Dropped without [`Jobs::stop`], the loop ends where it is and the leases run out
    /// (as when the process dies).
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts this process's job loop (unless `JOBS_ENABLED=false`); it checks every few
/// seconds which job is due and runs it if this process gets its lease.
pub fn spawn(ctx: Arc<AppContext>, metrics: JobMetrics) -> Option<Jobs> {
    if !ctx.settings.jobs.enabled {
        return None;
    }
    let holder = Uuid::new_v4().to_string();
    let task = tokio::spawn({
        let (ctx, holder) = (Arc::clone(&ctx), holder.clone());
        async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            let mut due = [0_i64; Job::ALL.len()];
            loop {
                tick.tick().await;
                for (job, due) in Job::ALL.into_iter().zip(due.iter_mut()) {
                    let now = ctx.clock.now_ms();
                    if now >= *due {
                        *due = now + job.every_ms(&ctx);
                        run(&ctx, &holder, job, &metrics).await;
                    }
                }
            }
        }
    });
    Some(Jobs { ctx, holder, task })
}

/// Runs `job` once if `holder` gets (or has) its lease ([`Job::lease_ms`]).
pub async fn run(ctx: &AppContext, holder: &str, job: Job, metrics: &JobMetrics) -> bool {
    let name = job.name();
    match db::jobs::take_lease(&ctx.db, name, holder, job.lease_ms(ctx)).await {
        Ok(true) => {}
        Ok(false) => {
            metrics.run(name, "skipped");
            return false;
        }
        Err(e) => {
            tracing::warn!(job = name, error = %e, "background job: lease unavailable");
            metrics.run(name, "failed");
            return false;
        }
    }
    let outcome = match job {
        Job::Stats => refresh_stats(ctx).await.map(|_| None),
        Job::Retention => purge(ctx, metrics)
            .await
            .map(|removed| Some(removed.to_string())),
        Job::QuestionStats => question_stats::aggregate(ctx).await.map(|done| {
            metrics.aggregated(done.answers, done.card_views);
            Some(format!(
                "answers {}, card views {}, versions {}",
                done.answers, done.card_views, done.versions
            ))
        }),
        Job::Calibration => learning::calibrate(ctx).await.map(|done| {
            (done != Calibrated::default()).then(|| {
                format!(
                    "first answers {}, categories {}, questions {}",
                    done.first_answers, done.categories, done.questions
                )
            })
        }),
        Job::ReviewFit => review::fit_due(ctx).await.map(|done| {
            (done.fitted + done.unfit + done.questions > 0).then(|| {
                format!(
                    "fitted {}, unfit {}, questions {}",
                    done.fitted, done.unfit, done.questions
                )
            })
        }),
        Job::MediaPurge => media::purge_unused(ctx)
            .await
            .map(|removed| (removed > 0).then(|| format!("removed {removed}"))),
        Job::NppaReports => nppa_reports::send_reports(ctx).await.map(|done| {
            (done != nppa_reports::Sent::default()).then(|| {
                format!(
                    "sent {}, retried later {}, given up {}",
                    done.sent, done.retried, done.given_up
                )
            })
        }),
        Job::Backup => backup::scheduled(ctx)
            .await
            .map(|copy| copy.map(|path| format!("copied to {}", path.display()))),
        Job::Settlement => settlement::settle(ctx).await.map(|done| {
            (done != Settled::default()).then(|| {
                format!(
                    "boards {}, cohorts {}, weeks {}",
                    done.boards, done.cohorts, done.weeks
                )
            })
        }),
    };
    match outcome {
        Ok(progress) => {
            let finished = db::jobs::finish_run(&ctx.db, name, holder, progress.as_deref()).await;
            if let Err(e) = finished {
                tracing::warn!(job = name, error = %e, "background job: run not recorded");
            }
            metrics.run(name, "ran");
            true
        }
        Err(e) => {
            tracing::warn!(job = name, error = %e, "background job failed");
            metrics.run(name, "failed");
            false
        }
    }
}

/// Computes the dashboard's statistics and stores them for every process.
pub async fn refresh_stats(ctx: &AppContext) -> Result<StatsRow> {
    let now = cautious_now_ms(ctx).await?;
    let stats = db::moderation::stats(&ctx.db, now - ACTIVE_WINDOW_MS).await?;
    db::jobs::store_stats(&ctx.db, &stats).await?;
    Ok(stats)
}

/// Removes, in batches of `PURGE_BATCH`, what is kept no longer (see
/// [`crate::db::retention`]), aged by [`cautious_now_ms`]; returns how many rows went.
pub async fn purge(ctx: &AppContext, metrics: &JobMetrics) -> Result<u64> {
    let now = cautious_now_ms(ctx).await?;
    let batch = ctx.settings.jobs.purge_batch;
    let mut total = 0;
    for purge in &PURGES {
        let cutoff = match purge.age {
            Age::Expired => Cutoff::Instant(now),
            Age::Days(days) => Cutoff::Instant(now - days * DAY_MS),
            Age::Retention => Cutoff::Instant(now - ctx.settings.jobs.retention_days * DAY_MS),
            Age::FeedbackRetention => {
                Cutoff::Instant(now - ctx.settings.jobs.feedback_retention_days * DAY_MS)
            }
            Age::BeijingDays(days) => Cutoff::Day(beijing::day_key(
                beijing::day(from_ms(now)) - chrono::Duration::days(days),
            )),
        };
        for _ in 0..BATCHES_PER_RUN {
            let removed = db::retention::purge_batch(&ctx.db, purge, &cutoff, batch).await?;
            metrics.purged(purge.table, removed);
            total += removed;
            if removed < u64::try_from(batch).unwrap_or(u64::MAX) {
                break;
            }
            // leave the (SQLite: single) writer to requests between batches
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    Ok(total)
}
