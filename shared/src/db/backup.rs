//! A consistent copy of the SQLite database while the game runs.

use std::path::Path;

use super::Db;

/// Writes a copy of the SQLite database to `target` (which must not exist) with
/// `VACUUM INTO`: one read transaction, so the copy is the database as of one instant,
/// and in WAL mode writers go on meanwhile. Answers `false` on PostgreSQL, which has
/// its own tools (`pg_dump`, base backups).
pub async fn sqlite_copy(db: &Db, target: &Path) -> sqlx::Result<bool> {
    let Db::Sqlite(sqlite) = db else {
        return Ok(false);
    };
    let target = target
        .to_str()
        .ok_or_else(|| sqlx::Error::Protocol(format!("{} is not UTF-8", target.display())))?;
    sqlx::query("VACUUM INTO $1")
        .bind(target)
        .execute(&crate::db::Checked(&sqlite.reader))
        .await?;
    Ok(true)
}
