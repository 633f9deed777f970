//! The SQLite database's scheduled backups (PostgreSQL is backed up with its own tools:
//! the README's *Backups*).

use std::path::PathBuf;
use std::time::Duration;

use super::DatabaseUrl;
use super::reader::Reader;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupSettings {
    /// `BACKUP_DIR`: where the backup job writes a copy of the SQLite database every
    /// [`Self::interval`]; unset, the job does nothing.
    pub dir: Option<PathBuf>,
    /// `BACKUP_INTERVAL` (`30m`, `6h`, `1d`): the age of the newest copy at which the
    /// next is taken.
    pub interval: Duration,
    /// `BACKUP_KEEP`: how many copies are kept; older ones are removed.
    pub keep: usize,
}

impl Default for BackupSettings {
    fn default() -> Self {
        Self {
            dir: None,
            interval: Duration::from_secs(86_400),
            keep: 7,
        }
    }
}

/// The shortest and longest `BACKUP_INTERVAL`.
const INTERVALS: std::ops::RangeInclusive<Duration> =
    Duration::from_secs(60)..=Duration::from_secs(30 * 86_400);

impl BackupSettings {
    pub(super) fn from_reader(r: &mut Reader<'_>, database_url: &DatabaseUrl) -> Self {
        let d = Self::default();
        let dir = r.string("BACKUP_DIR").map(PathBuf::from);
        if dir.is_some() && matches!(database_url, DatabaseUrl::Postgres(_)) {
            r.errors.push(
                "BACKUP_DIR: the backup job copies the SQLite database; back PostgreSQL up \
                 with its own tools (README, Backups)"
                    .into(),
            );
        }
        let interval = match r.string("BACKUP_INTERVAL") {
            None => d.interval,
            Some(raw) => match humantime::parse_duration(&raw) {
                Ok(interval) if INTERVALS.contains(&interval) => interval,
                _ => {
                    r.errors.push(format!(
                        "BACKUP_INTERVAL={raw:?}: expected a duration from 1m to 30d (e.g. 6h, 1d)"
                    ));
                    d.interval
                }
            },
        };
        let keep: usize = r.parsed("BACKUP_KEEP", d.keep);
        let keep = if (1..=1000).contains(&keep) {
            keep
        } else {
            r.errors.push(format!("BACKUP_KEEP={keep}: must be 1-1000"));
            d.keep
        };
        Self {
            dir,
            interval,
            keep,
        }
    }
}
