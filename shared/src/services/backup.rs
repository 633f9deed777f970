//! Backups of the SQLite database: one on demand (`admin-console backup PATH`) and the
//! scheduled job, which keeps `BACKUP_KEEP` copies in `BACKUP_DIR`, a new one once the
//! newest is `BACKUP_INTERVAL` old. A copy is written beside its final name and renamed
//! when whole, so a crash never leaves a partial file under a backup's name.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::Result;
use crate::config::{DatabaseUrl, Settings};
use crate::context::AppContext;
use crate::db::{self, Db};
use crate::error::Error;

/// A scheduled copy is `quiz-{UTC instant}.db`: the names sort by age.
const PREFIX: &str = "quiz-";
const SUFFIX: &str = ".db";
const INSTANT: &str = "%Y%m%dT%H%M%SZ";

/// The file name of a scheduled copy taken at `at`.
pub fn file_name(at: DateTime<Utc>) -> String {
    format!("{PREFIX}{}{SUFFIX}", at.format(INSTANT))
}

/// When the scheduled copy named `name` was taken; `None` for any other file.
pub fn taken_at(name: &str) -> Option<DateTime<Utc>> {
    let instant = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    NaiveDateTime::parse_from_str(instant, INSTANT)
        .ok()
        .map(|t| t.and_utc())
}

/// Whether a new copy is due at `now`: none yet, or the newest is `interval` old.
pub fn due(
    newest: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    interval: std::time::Duration,
) -> bool {
    newest.is_none_or(|newest| {
        now.signed_duration_since(newest)
            .to_std()
            .is_ok_and(|age| age >= interval)
    })
}

/// Of the scheduled copies named `names`, those beyond the newest `keep`, oldest first.
pub fn beyond_keep(names: &[String], keep: usize) -> Vec<String> {
    let mut copies: Vec<&String> = names.iter().filter(|n| taken_at(n).is_some()).collect();
    copies.sort();
    let excess = copies.len().saturating_sub(keep);
    copies.into_iter().take(excess).cloned().collect()
}

/// Writes a consistent copy of the SQLite database to `target`, which must not exist.
pub async fn copy_to(db: &Db, target: &Path) -> Result<()> {
    if target.exists() {
        return Err(Error::internal(format!(
            "{} exists: a backup never overwrites",
            target.display()
        )));
    }
    let partial = partial_name(target);
    // left over from a copy that crashed
    let _ = std::fs::remove_file(&partial);
    match db::backup::sqlite_copy(db, &partial).await {
        Ok(true) => {}
        Ok(false) => {
            return Err(Error::internal(
                "a PostgreSQL database is backed up with pg_dump or base backups \
                 (README, Backups)",
            ));
        }
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e.into());
        }
    }
    std::fs::rename(&partial, target)
        .map_err(|e| Error::internal(format!("renaming the backup to {}: {e}", target.display())))
}

/// `admin-console backup PATH`: connects to the SQLite database of `settings` (which
/// must exist: connecting would create an empty one), copies it to `target`, closes.
pub async fn back_up_database(settings: &Settings, target: &Path) -> Result<()> {
    if let DatabaseUrl::Sqlite(path) = &settings.database_url
        && !path.exists()
    {
        return Err(Error::internal(format!(
            "no SQLite database at {}",
            path.display()
        )));
    }
    let db = Db::connect_with(&settings.database_url, &settings.database_pool)
        .await
        .map_err(|e| Error::internal(format!("connecting to the database: {e:#}")))?;
    let copied = copy_to(&db, target).await;
    db.close().await;
    copied
}

fn partial_name(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// The scheduled job: a copy into `BACKUP_DIR` when one is due, then the copies beyond
/// `BACKUP_KEEP` removed. Answers the new copy's path; `None` when there was nothing
/// to do (no `BACKUP_DIR`, or the newest copy is recent).
pub async fn scheduled(ctx: &AppContext) -> Result<Option<PathBuf>> {
    let settings = &ctx.settings.backup;
    let Some(dir) = &settings.dir else {
        return Ok(None);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::internal(format!("creating BACKUP_DIR {}: {e}", dir.display())))?;
    let names = copies_in(dir)?;
    let now = ctx.clock.now();
    let newest = names.iter().filter_map(|n| taken_at(n)).max();
    if !due(newest, now, settings.interval) {
        return Ok(None);
    }
    let target = dir.join(file_name(now));
    copy_to(&ctx.db, &target).await?;
    let mut names = names;
    names.push(file_name(now));
    for old in beyond_keep(&names, settings.keep) {
        if let Err(e) = std::fs::remove_file(dir.join(&old)) {
            tracing::warn!(file = old, error = %e, "backup: an old copy could not be removed");
        }
    }
    Ok(Some(target))
}

/// The names of the files in `dir`.
fn copies_in(dir: &Path) -> Result<Vec<String>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::internal(format!("reading BACKUP_DIR {}: {e}", dir.display())))?;
    Ok(entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::TimeZone as _;

    use super::*;

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 28, h, m, 0).unwrap()
    }

    #[test]
    fn names_carry_the_instant_and_sort_by_it() {
        assert_eq!(file_name(at(6, 5)), "quiz-20261128T060500Z.db");
        assert_eq!(taken_at("quiz-20261128T060500Z.db"), Some(at(6, 5)));
        assert_eq!(taken_at("quiz-20261128T060500Z.db.partial"), None);
        assert_eq!(taken_at("notes.txt"), None);
        assert!(file_name(at(6, 5)) < file_name(at(18, 0)));
    }

    #[test]
    fn a_copy_is_due_when_none_is_or_the_newest_is_old_enough() {
        let six_hours = Duration::from_secs(6 * 3600);
        assert!(due(None, at(6, 0), six_hours));
        assert!(!due(Some(at(6, 0)), at(11, 59), six_hours));
        assert!(due(Some(at(6, 0)), at(12, 0), six_hours));
        // a copy from the future (a clock set back) is no reason for another
        assert!(!due(Some(at(12, 0)), at(6, 0), six_hours));
    }

    #[test]
    fn the_oldest_copies_beyond_keep_go_and_nothing_else() {
        let names: Vec<String> = [
            "quiz-20261128T180000Z.db",
            "quiz-20261128T060000Z.db",
            "notes.txt",
            "quiz-20261128T120000Z.db",
            "quiz-20261128T000000Z.db.partial",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            beyond_keep(&names, 2),
            vec!["quiz-20261128T060000Z.db".to_string()]
        );
        assert!(beyond_keep(&names, 3).is_empty());
    }
}
