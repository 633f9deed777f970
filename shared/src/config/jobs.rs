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
    /// `PURGE_BATCH`: rows one purge statement removes at most.
    pub purge_batch: i64,
    /// `JOBS_ENABLED`: `false` keeps this process out of the background jobs (another
    /// process of the deployment runs them).
    pub enabled: bool,
}

impl Default for JobSettings {
    fn default() -> Self {
        Self {
            stats_refresh_seconds: 60,
            retention_days: 30,
            purge_batch: 1000,
            enabled: true,
        }
    }
}

impl JobSettings {
    pub(super) fn from_reader(r: &mut Reader<'_>) -> Self {
        let d = Self::default();
        let s = Self {
            stats_refresh_seconds: r.parsed("ADMIN_STATS_REFRESH_SECONDS", d.stats_refresh_seconds),
            retention_days: r.parsed("RETENTION_DAYS", d.retention_days),
            purge_batch: r.parsed("PURGE_BATCH", d.purge_batch),
            enabled: r.flag("JOBS_ENABLED", d.enabled),
        };
        if !(1..=86_400).contains(&s.stats_refresh_seconds) {
            r.errors
                .push("ADMIN_STATS_REFRESH_SECONDS must be 1-86400".into());
        }
        if !(1..=3650).contains(&s.retention_days) {
            r.errors.push("RETENTION_DAYS must be 1-3650".into());
        }
        if !(1..=100_000).contains(&s.purge_batch) {
            r.errors.push("PURGE_BATCH must be 1-100000".into());
        }
        s
    }
}
