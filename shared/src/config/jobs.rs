//! The background jobs' settings: how often the statistics are computed, how long stored
//! data that is not the record is kept, and how purges pace themselves.

use super::reader::Reader;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSettings {
    /// `ADMIN_STATS_REFRESH_SECONDS`: the dashboard's statistics are computed once per
    /// this many seconds for every process (a request never counts whole tables).
    pub stats_refresh_seconds: i64,
    /// `RETENTION_DAYS`: idempotency records and ad sessions are kept this long.
    pub retention_days: i64,
    /// `FEEDBACK_RETENTION_DAYS`: players' feedback is kept this long.
    pub feedback_retention_days: i64,
    /// `PURGE_BATCH`: rows one purge statement removes at most.
    pub purge_batch: i64,
    /// `JOBS_ENABLED`: `false` keeps this process out of the background jobs (another
    /// process of the deployment runs them).
    pub enabled: bool,
    /// `QUESTION_STATS_REFRESH_SECONDS`: the question statistics job reads the new
    /// answers this often (their numbers are at most this plus two minutes old).
    pub question_stats_seconds: i64,
    /// `QUESTION_AUTO_REVIEW`: a published question newly flagged `likely_miskeyed` goes
    /// back to reviewing by itself.
    pub auto_review: bool,
}

impl Default for JobSettings {
    fn default() -> Self {
        Self {
            stats_refresh_seconds: 60,
            retention_days: 30,
            feedback_retention_days: 365,
            purge_batch: 1000,
            enabled: true,
            question_stats_seconds: 60,
            auto_review: false,
        }
    }
}

impl JobSettings {
    pub(super) fn from_reader(r: &mut Reader<'_>) -> Self {
        let d = Self::default();
        let s = Self {
            stats_refresh_seconds: r.parsed("ADMIN_STATS_REFRESH_SECONDS", d.stats_refresh_seconds),
            retention_days: r.parsed("RETENTION_DAYS", d.retention_days),
            feedback_retention_days: r.parsed("FEEDBACK_RETENTION_DAYS", d.feedback_retention_days),
            purge_batch: r.parsed("PURGE_BATCH", d.purge_batch),
            enabled: r.flag("JOBS_ENABLED", d.enabled),
            question_stats_seconds: r
                .parsed("QUESTION_STATS_REFRESH_SECONDS", d.question_stats_seconds),
            auto_review: r.flag("QUESTION_AUTO_REVIEW", d.auto_review),
        };
        if !(1..=180).contains(&s.question_stats_seconds) {
            r.errors.push(
                "QUESTION_STATS_REFRESH_SECONDS must be 1-180 (numbers at most 5 minutes old)"
                    .into(),
            );
        }
        if !(1..=86_400).contains(&s.stats_refresh_seconds) {
            r.errors
                .push("ADMIN_STATS_REFRESH_SECONDS must be 1-86400".into());
        }
        if !(1..=3650).contains(&s.retention_days) {
            r.errors.push("RETENTION_DAYS must be 1-3650".into());
        }
        if !(1..=3650).contains(&s.feedback_retention_days) {
            r.errors
                .push("FEEDBACK_RETENTION_DAYS must be 1-3650".into());
        }
        if !(1..=100_000).contains(&s.purge_batch) {
            r.errors.push("PURGE_BATCH must be 1-100000".into());
        }
        s
    }
}
