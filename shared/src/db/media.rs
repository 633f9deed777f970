//! `media`: what is known of each stored media file, and which questions use it.

use super::{Db, Tx, in_tx, read};
use crate::domain::media::MediaKind;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MediaRow {
    pub id: String,
    pub kind: MediaKind,
    pub mime: String,
    pub bytes: i64,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub duration_ms: Option<i64>,
    pub created_by: String,
    pub created_at: i64,
    /// How many questions use it (their current content).
    pub used_by: i64,
}

pub struct NewMedia<'a> {
    pub id: &'a str,
    pub kind: MediaKind,
    pub mime: &'a str,
    pub bytes: i64,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub duration_ms: Option<i64>,
    pub created_by: &'a str,
    pub now_ms: i64,
}

/// The columns of a [`MediaRow`] of `media m`.
macro_rules! media_columns {
    () => {
        "m.id, m.kind, m.mime, m.bytes, m.width, m.height, m.duration_ms, m.created_by,
         m.created_at,
         (SELECT count(*) FROM questions q WHERE q.media_id = m.id) AS used_by"
    };
}

/// The list's filters: `$1` a kind or NULL, `$2` only the unused.
macro_rules! media_filter {
    () => {
        "($1 IS NULL OR m.kind = $1)
         AND (NOT $2 OR NOT EXISTS (SELECT 1 FROM questions q WHERE q.media_id = m.id))"
    };
}

/// Stores a new file's row; `false` when the file was there already (same content).
pub async fn insert(tx: &mut Tx, m: &NewMedia<'_>) -> sqlx::Result<bool> {
    let inserted = in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO media (id, kind, mime, bytes, width, height, duration_ms, created_by,
                                created_at, unused_since)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(m.id)
        .bind(m.kind)
        .bind(m.mime)
        .bind(m.bytes)
        .bind(m.width)
        .bind(m.height)
        .bind(m.duration_ms)
        .bind(m.created_by)
        .bind(m.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(inserted == 1)
}

/// Starts a file's unused clock again (it was uploaded again while no question used it).
pub async fn restart_unused_clock(db: &Db, id: &str, now_ms: i64) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query("UPDATE media SET unused_since = $2 WHERE id = $1 AND unused_since IS NOT NULL")
            .bind(id)
            .bind(now_ms)
            .execute(ex)
            .await?
            .rows_affected()
    });
    tx.commit().await
}

pub async fn get(db: &Db, id: &str) -> sqlx::Result<Option<MediaRow>> {
    read!(db, |ex| sqlx::query_as(concat!(
        "SELECT ",
        media_columns!(),
        " FROM media m WHERE m.id = $1"
    ))
    .bind(id)
    .fetch_optional(ex)
    .await)
}

/// The kinds of those of `ids` that are in the library.
pub async fn kinds(
    db: &Db,
    ids: &[&str],
) -> sqlx::Result<std::collections::HashMap<String, MediaKind>> {
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let sql = format!(
        "SELECT id, kind FROM media WHERE id IN ({})",
        super::placeholders(ids.len())
    );
    let rows: Vec<(String, MediaKind)> = read!(db, |ex| {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()));
        for id in ids {
            q = q.bind(*id);
        }
        q.fetch_all(ex).await?
    });
    Ok(rows.into_iter().collect())
}

/// A page of the library, newest first, of one kind and/or only the unused; with the
/// filters' total. The library holds what staff upload (thousands of files, not
/// millions), so its count is read, not kept.
pub async fn page(
    db: &Db,
    kind: Option<&str>,
    unused_only: bool,
    limit: i64,
    offset: i64,
) -> sqlx::Result<(Vec<MediaRow>, i64)> {
    read!(db, |ex| {
        let rows: Vec<MediaRow> = sqlx::query_as(concat!(
            "SELECT ",
            media_columns!(),
            " FROM media m WHERE ",
            media_filter!(),
            " ORDER BY m.created_at DESC, m.id DESC LIMIT $3 OFFSET $4"
        ))
        .bind(kind)
        .bind(unused_only)
        .bind(limit)
        .bind(offset)
        .fetch_all(ex)
        .await?;
        let total: i64 = sqlx::query_scalar(concat!(
            "SELECT count(*) FROM media m WHERE ",
            media_filter!()
        ))
        .bind(kind)
        .bind(unused_only)
        .fetch_one(ex)
        .await?;
        Ok((rows, total))
    })
}

/// Deletes `id`'s row when no question uses it: `Ok(true)` when deleted, `Ok(false)` when
/// there is no such row. A question using it keeps it (the foreign key refuses the
/// delete, whatever the timing): the caller reads that as "in use".
pub async fn delete_unused(tx: &mut Tx, id: &str) -> sqlx::Result<bool> {
    let deleted = in_tx!(tx, |ex| {
        sqlx::query(
            "DELETE FROM media
             WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.media_id = $1)",
        )
        .bind(id)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(deleted == 1)
}

/// Up to `limit` files unused since before `cutoff_ms` (oldest first), with their type.
pub async fn unused_before(
    db: &Db,
    cutoff_ms: i64,
    limit: i64,
) -> sqlx::Result<Vec<(String, String)>> {
    read!(db, |ex| sqlx::query_as(
        "SELECT m.id, m.mime FROM media m
         WHERE m.unused_since IS NOT NULL AND m.unused_since < $1
           AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.media_id = m.id)
         ORDER BY m.unused_since
         LIMIT $2"
    )
    .bind(cutoff_ms)
    .bind(limit)
    .fetch_all(ex)
    .await)
}
