//! The media library: `POST/GET /v1/admin/media`, `DELETE /v1/admin/media/{id}`, the
//! files themselves at `/media/{id}.{ext}`, and the job that removes files no question
//! has used for `MEDIA_UNUSED_DAYS`.
//!
//! An upload is read chunk by chunk and refused as soon as it passes its kind's limit
//! (before its kind is known, the largest one). Its first bytes decide its format
//! (`domain::media`). Images are checked whole in memory (at most their limit): sides
//! from the header, their metadata removed. Audio and video go to a temporary file as
//! they arrive, lose their metadata there in place (`domain::media_metadata`), are
//! hashed and read through (`domain::playable`: a track of their kind, every packet,
//! how long they play), and go to the store part by part; the temporary file goes when
//! the request ends, finished or cut off. The row is written
//! after the store has the file, so a listed file is always there.

use std::io::Cursor;
use std::ops::Range;

use axum::body::Bytes;
use chrono::{DateTime, Utc};
use futures::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use symphonia::core::io::MediaSource;
use tokio::io::AsyncWriteExt;
use utoipa::{IntoParams, ToSchema};

use crate::clock::from_ms;
use crate::closed_set::Submitted;
use crate::config::MAX_IMAGE_SIDE;
use crate::context::AppContext;
use crate::db::gameplay::MediaColumns;
use crate::db::{self, media::MediaRow, media::NewMedia};
use crate::domain::media::{self as rules, MediaFormat, MediaKind, MediaRefusal, SizeLimits};
use crate::domain::media_metadata;
use crate::domain::playable::{self, Playable};
use crate::envelope::Pagination;
use crate::media_store::StoredBytes;
use crate::message::msg;
use crate::services::admin_identity::AdminPrincipal;
use crate::services::audit::{self, PageQuery, Write};
use crate::tokens::{hex, sha256_hex};
use crate::{Error, Result};

/// A file of the library.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MediaItem {
    /// The SHA-256 of the stored bytes, 64 hex digits.
    pub id: String,
    #[serde(rename = "type")]
    pub kind: MediaKind,
    /// The type it is served with.
    pub mime: String,
    pub bytes: i64,
    /// An image's or a video's picture, in pixels (null for audio).
    pub width: Option<i64>,
    pub height: Option<i64>,
    /// How long audio or video plays, in milliseconds, read from the file on upload
    /// (null for images).
    pub duration_ms: Option<i64>,
    /// Where it is served: under `MEDIA_PUBLIC_BASE_URL` when set, a presigned bucket
    /// URL with `MEDIA_SIGNED_URLS`, else `/media/{id}.{ext}` on either binary's host.
    pub url: String,
    /// How many questions use it.
    pub used_by: i64,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// `GET /v1/admin/media`: a page of the library, newest first.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MediaQuery {
    /// ≥ 1, default 1.
    pub page: Option<i64>,
    /// 1-50, default 20.
    pub limit: Option<i64>,
    #[serde(rename = "type")]
    #[param(rename = "type", value_type = Option<MediaKind>)]
    pub kind: Option<Submitted<MediaKind>>,
    /// `true`: only files no question uses.
    pub unused: Option<bool>,
}

/// Uploads one process receives at once.
const UPLOADS_AT_ONCE: usize = 4;
static UPLOADS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(UPLOADS_AT_ONCE);

/// A question's media as a player receives it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerMedia {
    #[serde(rename = "type")]
    pub kind: MediaKind,
    /// Where the app fetches it (see the admin `MediaItem.url`).
    pub url: String,
    /// An image's or a video's picture, in pixels.
    pub width: Option<i64>,
    pub height: Option<i64>,
    /// How long audio or video plays, in milliseconds.
    pub duration_ms: Option<i64>,
    /// What a screen reader says for it.
    pub alt: Option<String>,
}

/// The media of a served question version: `None` for a text question, or when its
/// file has left the library (the question is then shown without it).
pub async fn for_player(ctx: &AppContext, m: &MediaColumns) -> Result<Option<PlayerMedia>> {
    let (Some(id), Some(mime)) = (&m.media_id, &m.media_mime) else {
        return Ok(None);
    };
    let Some(format) = MediaFormat::from_mime(mime) else {
        return Ok(None);
    };
    Ok(Some(PlayerMedia {
        kind: format.kind(),
        url: url_of(ctx, id, format).await?,
        width: m.media_width,
        height: m.media_height,
        duration_ms: m.media_duration_ms,
        alt: m.media_alt.clone(),
    }))
}

/// The store key of a file: its id and its format's extension.
pub fn key_of(id: &str, format: MediaFormat) -> String {
    format!("{id}.{}", format.extension())
}

/// Where a file is served (see [`MediaItem::url`]).
pub async fn url_of(ctx: &AppContext, id: &str, format: MediaFormat) -> Result<String> {
    let key = key_of(id, format);
    let settings = &ctx.settings.media;
    if settings.signed_urls {
        let ttl = std::time::Duration::from_secs(settings.url_ttl_seconds);
        if let Some(url) = ctx.media.signed_url(&key, ttl).await? {
            return Ok(url);
        }
    }
    Ok(match &settings.public_base_url {
        Some(base) => format!("{base}/{key}"),
        None => format!("/media/{key}"),
    })
}

async fn item(ctx: &AppContext, row: MediaRow) -> Result<MediaItem> {
    let format = MediaFormat::from_mime(&row.mime)
        .ok_or_else(|| Error::internal(format!("media {} has an unknown type", row.id)))?;
    Ok(MediaItem {
        url: url_of(ctx, &row.id, format).await?,
        id: row.id,
        kind: row.kind,
        mime: row.mime,
        bytes: row.bytes,
        width: row.width,
        height: row.height,
        duration_ms: row.duration_ms,
        used_by: row.used_by,
        created_by: row.created_by,
        created_at: from_ms(row.created_at),
    })
}

fn refused(refusal: MediaRefusal) -> Error {
    match refusal {
        MediaRefusal::TooLarge { .. } => Error::PayloadTooLarge(refusal.message()),
        other => Error::validation(other.message()),
    }
}

/// An upload as it arrives: in memory until it is known to be audio or video, then in a
/// temporary file.
struct Receiving {
    limits: SizeLimits,
    max_any: u64,
    format: Option<MediaFormat>,
    memory: Vec<u8>,
    spool: Option<Spool>,
    spool_dir: Option<std::path::PathBuf>,
    total: u64,
}

struct Spool {
    file: tokio::fs::File,
    /// Removes the file when dropped: when the upload is done, refused or cut off.
    path: tempfile::TempPath,
    hasher: Sha256,
}

/// A whole upload, checked, ready for the store.
enum Received {
    Memory {
        format: MediaFormat,
        bytes: Bytes,
        width: Option<u64>,
        height: Option<u64>,
        duration_ms: Option<u64>,
    },
    File {
        format: MediaFormat,
        spool: Box<Spool>,
        bytes: u64,
        playable: Playable,
    },
}

impl Receiving {
    fn limit(&self) -> u64 {
        self.format
            .map_or(self.max_any, |f| self.limits.of(f.kind()))
    }

    fn too_large(&self) -> Error {
        match self.format {
            Some(f) => refused(MediaRefusal::TooLarge {
                kind: f.kind(),
                max_bytes: self.limits.of(f.kind()),
            }),
            None => {
                Error::PayloadTooLarge(msg::a_media_file_may_be_at_most_max_bytes(self.max_any))
            }
        }
    }

    async fn push(&mut self, chunk: Bytes) -> Result<()> {
        self.total += chunk.len() as u64;
        if self.total > self.limit() {
            return Err(self.too_large());
        }
        if let Some(spool) = &mut self.spool {
            return spool.write(&chunk).await;
        }
        self.memory.extend_from_slice(&chunk);
        if self.format.is_none() && self.memory.len() >= rules::SNIFF_BYTES {
            let format = rules::sniff(&self.memory[..rules::SNIFF_BYTES]).map_err(refused)?;
            self.format = Some(format);
            if self.total > self.limit() {
                return Err(self.too_large());
            }
            if format.kind() != MediaKind::Image {
                let mut spool = Spool::create(self.spool_dir.clone()).await?;
                spool.write(&std::mem::take(&mut self.memory)).await?;
                self.spool = Some(spool);
            }
        }
        Ok(())
    }

    async fn finish(self) -> Result<Received> {
        let format = match self.format {
            Some(f) => f,
            None => rules::sniff(&self.memory).map_err(refused)?,
        };
        self.limits.check(format, self.total).map_err(refused)?;
        if let Some(mut spool) = self.spool {
            spool.file.flush().await.map_err(spool_failed)?;
            let path = spool.path.to_path_buf();
            let stripped = path.clone();
            let (bytes, hasher) =
                tokio::task::spawn_blocking(move || strip_file(format, &stripped))
                    .await
                    .map_err(|e| Error::internal(format!("media metadata: {e}")))?
                    .map_err(spool_failed)?;
            spool.hasher = hasher;
            let playable = check_playable(format, move || {
                std::fs::File::open(path).map(|f| Box::new(f) as Box<dyn MediaSource>)
            })
            .await?;
            return Ok(Received::File {
                format,
                spool: Box::new(spool),
                bytes,
                playable,
            });
        }
        let mut memory = self.memory;
        if format.kind() != MediaKind::Image {
            let edits = {
                let view = &memory;
                media_metadata::edits(format.container(), view.len() as u64, &mut |at, n| {
                    let rest = view.get(usize::try_from(at).ok()?..)?;
                    Some(rest[..n.min(rest.len())].to_vec())
                })
            };
            media_metadata::apply(&mut memory, &edits);
        }
        let bytes = Bytes::from(memory);
        if format.kind() != MediaKind::Image {
            let copy = bytes.clone();
            let playable = check_playable(format, move || {
                Ok(Box::new(Cursor::new(copy)) as Box<dyn MediaSource>)
            })
            .await?;
            return Ok(Received::Memory {
                format,
                bytes,
                width: playable.width,
                height: playable.height,
                duration_ms: playable.duration_ms,
            });
        }
        let image =
            tokio::task::spawn_blocking(move || rules::check_image(format, bytes, MAX_IMAGE_SIDE))
                .await
                .map_err(|e| Error::internal(format!("image check: {e}")))?
                .map_err(refused)?;
        Ok(Received::Memory {
            format,
            bytes: image.bytes,
            width: Some(image.width),
            height: Some(image.height),
            duration_ms: None,
        })
    }
}

impl Spool {
    async fn create(dir: Option<std::path::PathBuf>) -> Result<Self> {
        let (file, path) = tokio::task::spawn_blocking(move || {
            let mut builder = tempfile::Builder::new();
            builder.prefix("quiz-media-");
            match dir {
                Some(dir) => builder.tempfile_in(dir),
                None => builder.tempfile(),
            }
            .map(|f| f.into_parts())
        })
        .await
        .map_err(|e| Error::internal(format!("upload spool: {e}")))?
        .map_err(spool_failed)?;
        Ok(Self {
            file: tokio::fs::File::from_std(file),
            path,
            hasher: Sha256::new(),
        })
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.hasher.update(bytes);
        self.file.write_all(bytes).await.map_err(spool_failed)
    }
}

/// How long reading an audio or video file may take (a 20 MB file takes well under a
/// second): past it, the file is refused as damaged.
const DEMUX_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

/// Files read at once per process. Each turn is held by the reading itself, which ends
/// at its deadline even when the client that sent the file has gone.
static DEMUXES: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// Demuxes an audio or video file to its end, off the runtime's threads.
async fn check_playable<F>(format: MediaFormat, open: F) -> Result<Playable>
where
    F: FnOnce() -> std::io::Result<Box<dyn MediaSource>> + Send + 'static,
{
    let turn = DEMUXES
        .acquire()
        .await
        .map_err(|e| Error::internal(format!("demux turns: {e}")))?;
    tokio::task::spawn_blocking(move || {
        let _turn = turn;
        let source = open().map_err(spool_failed)?;
        let deadline = std::time::Instant::now() + DEMUX_DEADLINE;
        playable::check_playable(format, source, deadline).map_err(refused)
    })
    .await
    .map_err(|e| Error::internal(format!("media check: {e}")))?
}

/// Takes the metadata out of a spooled audio or video file in place
/// (`domain::media_metadata`: nothing in it moves but a tag cut off its end), then hashes
/// what is left; answers its length and the hasher.
fn strip_file(format: MediaFormat, path: &std::path::Path) -> std::io::Result<(u64, Sha256)> {
    use std::io::{Read, Seek, SeekFrom, Write};
    const BLOCK: usize = 64 * 1024;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    let len = file.metadata()?.len();
    let edits = media_metadata::edits(format.container(), len, &mut |at, n| {
        file.seek(SeekFrom::Start(at)).ok()?;
        let mut buf = Vec::with_capacity(n);
        (&mut file).take(n as u64).read_to_end(&mut buf).ok()?;
        Some(buf)
    });
    let zeros = vec![0_u8; BLOCK];
    for edit in &edits {
        match edit {
            media_metadata::Edit::Write { at, bytes } => {
                file.seek(SeekFrom::Start(*at))?;
                file.write_all(bytes)?;
            }
            media_metadata::Edit::Zero { at, len } => {
                file.seek(SeekFrom::Start(*at))?;
                let mut left = *len;
                while left > 0 {
                    let n = usize::try_from(left).unwrap_or(BLOCK).min(BLOCK);
                    file.write_all(&zeros[..n])?;
                    left -= n as u64;
                }
            }
            media_metadata::Edit::Truncate { len } => file.set_len(*len)?,
        }
    }
    file.flush()?;
    file.seek(SeekFrom::Start(0))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0_u8; BLOCK];
    let mut total = 0_u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    Ok((total, hasher))
}

fn spool_failed(e: std::io::Error) -> Error {
    Error::internal(format!("upload spool: {e}"))
}

/// `POST /v1/admin/media`: stores the file `chunks` carry (once per content) and answers
/// what the library holds of it.
pub async fn upload<S>(ctx: &AppContext, admin: &AdminPrincipal, mut chunks: S) -> Result<MediaItem>
where
    S: Stream<Item = Result<Bytes>> + Unpin,
{
    // a few uploads at once per process: each holds up to its kind's limit (an image in
    // memory, audio and video on disk); the others wait their turn
    let _turn = UPLOADS
        .acquire()
        .await
        .map_err(|e| Error::internal(format!("upload turns: {e}")))?;
    let settings = &ctx.settings.media;
    let mut receiving = Receiving {
        limits: SizeLimits {
            image: settings.max_image_bytes,
            audio: settings.max_audio_bytes,
            video: settings.max_video_bytes,
        },
        max_any: settings.max_bytes(),
        format: None,
        memory: Vec::new(),
        spool: None,
        spool_dir: settings.spool_dir.clone(),
        total: 0,
    };
    while let Some(chunk) = chunks.next().await {
        receiving.push(chunk?).await?;
    }
    let received = receiving.finish().await?;
    let (id, format, bytes, width, height, duration_ms) = match &received {
        Received::Memory {
            format,
            bytes,
            width,
            height,
            duration_ms,
        } => (
            sha256_hex(bytes),
            *format,
            bytes.len() as u64,
            *width,
            *height,
            *duration_ms,
        ),
        Received::File {
            format,
            spool,
            bytes,
            playable,
        } => (
            hex(&spool.hasher.clone().finalize()),
            *format,
            *bytes,
            playable.width,
            playable.height,
            playable.duration_ms,
        ),
    };
    let key = key_of(&id, format);
    let known = db::media::get(&ctx.db, &id).await?;
    // A file already in the library is stored again only if its object went missing
    // (a delete of it that raced this upload removed the object after its row).
    if known.is_none() || ctx.media.size(&key).await?.is_none() {
        match received {
            Received::Memory { bytes, .. } => {
                ctx.media.put_bytes(&key, bytes, format.mime()).await?;
            }
            Received::File { spool, .. } => {
                // in a task of its own: a client gone midway does not cut the store's
                // upload short (and leave its parts open in a bucket)
                let store = ctx.media.clone();
                let mime = format.mime();
                let key = key.clone();
                tokio::spawn(async move { store.put_file(&key, &spool.path, mime).await })
                    .await
                    .map_err(|e| Error::internal(format!("media upload task: {e}")))??;
            }
        }
    }
    if let Some(row) = known {
        // uploaded again: its unused clock starts again
        if row.used_by == 0 {
            db::media::restart_unused_clock(&ctx.db, &id, ctx.clock.now_ms()).await?;
        }
        return item(ctx, row).await;
    }
    let to_i64 = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    let mut tx = ctx.db.begin().await?;
    let inserted = db::media::insert(
        &mut tx,
        &NewMedia {
            id: &id,
            kind: format.kind(),
            mime: format.mime(),
            bytes: to_i64(bytes),
            width: width.map(to_i64),
            height: height.map(to_i64),
            duration_ms: duration_ms.map(to_i64),
            created_by: &admin.username,
            now_ms: ctx.clock.now_ms(),
        },
    )
    .await?;
    if inserted {
        audit::record(
            &mut tx,
            ctx,
            admin,
            Write {
                action: "media.upload",
                target_type: "media",
                target_id: Some(id.as_str()),
                before: None,
                after: Some(serde_json::json!({
                    "type": format.kind().as_str(),
                    "mime": format.mime(),
                    "bytes": bytes,
                })),
            },
        )
        .await?;
    }
    tx.commit().await?;
    let row = db::media::get(&ctx.db, &id)
        .await?
        .ok_or_else(|| Error::internal(format!("media {id} vanished after its upload")))?;
    item(ctx, row).await
}

/// One file of the library (404 when there is none).
pub async fn get(ctx: &AppContext, id: &str) -> Result<MediaItem> {
    let not_found = || Error::not_found(msg::NO_SUCH_MEDIA);
    if !is_media_id(id) {
        return Err(not_found());
    }
    let row = db::media::get(&ctx.db, id).await?.ok_or_else(not_found)?;
    item(ctx, row).await
}

/// The path either binary serves a file at, `/media/{id}.{ext}`, whatever
/// `MEDIA_PUBLIC_BASE_URL` says: the console previews through its own origin, which its
/// Content-Security-Policy allows.
pub fn own_path(item: &MediaItem) -> Option<String> {
    MediaFormat::from_mime(&item.mime).map(|f| format!("/media/{}", key_of(&item.id, f)))
}

/// `GET /v1/admin/media`.
pub async fn list(ctx: &AppContext, q: &MediaQuery) -> Result<(Vec<MediaItem>, Pagination)> {
    let (page, limit, offset) = PageQuery {
        page: q.page,
        limit: q.limit,
    }
    .resolve()?;
    let kind = match q.kind.as_ref() {
        None => None,
        Some(k) => Some(
            k.member()
                .ok_or_else(|| Error::validation(msg::TYPE_MUST_BE_IMAGE_AUDIO_OR_VIDEO))?,
        ),
    };
    let (rows, total) = db::media::page(
        &ctx.db,
        kind.map(MediaKind::as_str),
        q.unused.unwrap_or(false),
        limit,
        offset,
    )
    .await?;
    let mut items = Vec::with_capacity(rows.len());
    for row in rows {
        items.push(item(ctx, row).await?);
    }
    Ok((items, Pagination { total, page, limit }))
}

/// Whether `id` is a media id: 64 lowercase hex digits.
pub fn is_media_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `DELETE /v1/admin/media/{id}`: removes a file no question uses (409 while one does).
pub async fn delete(ctx: &AppContext, admin: &AdminPrincipal, id: &str) -> Result<MediaItem> {
    let not_found = || Error::not_found(msg::NO_SUCH_MEDIA);
    if !is_media_id(id) {
        return Err(not_found());
    }
    let row = db::media::get(&ctx.db, id).await?.ok_or_else(not_found)?;
    if row.used_by > 0 {
        return Err(in_use(row.used_by));
    }
    let format = MediaFormat::from_mime(&row.mime)
        .ok_or_else(|| Error::internal(format!("media {id} has an unknown type")))?;
    let mut tx = ctx.db.begin().await?;
    let deleted = match db::media::delete_unused(&mut tx, id).await {
        Ok(deleted) => deleted,
        // a question took it up since the read: the foreign key refused
        Err(sqlx::Error::Database(e)) if e.is_foreign_key_violation() => {
            return Err(in_use(1));
        }
        Err(e) => return Err(e.into()),
    };
    if !deleted {
        // gone since the read, or a question took it up
        return match db::media::get(&ctx.db, id).await? {
            Some(now) => Err(in_use(now.used_by.max(1))),
            None => Err(not_found()),
        };
    }
    let before = item(ctx, row).await?;
    audit::record(
        &mut tx,
        ctx,
        admin,
        Write {
            action: "media.delete",
            target_type: "media",
            target_id: Some(id),
            before: Some(serde_json::json!({"type": before.kind, "mime": before.mime, "bytes": before.bytes})),
            after: None,
        },
    )
    .await?;
    tx.commit().await?;
    remove_object(ctx, &key_of(id, format)).await;
    Ok(before)
}

/// Removes a file's object after its row went: a store that fails now leaves the object
/// behind (logged; unreachable through the API, which lists rows), never undoes the
/// delete the client was told of.
async fn remove_object(ctx: &AppContext, key: &str) {
    if let Err(e) = ctx.media.delete(key).await {
        tracing::warn!(key, error = %e, "media object left in the store after its delete");
    }
}

fn in_use(questions: i64) -> Error {
    Error::conflict(msg::the_media_is_used_by_count_questions(questions))
}

/// At most this many files go per run of the unused-media job.
const PURGE_BATCH: i64 = 100;

/// The unused-media job: removes files no question has used for `MEDIA_UNUSED_DAYS`,
/// a batch per run. Answers how many went.
pub async fn purge_unused(ctx: &AppContext) -> Result<u64> {
    let cutoff = ctx.clock.now_ms() - ctx.settings.media.unused_days * 86_400_000;
    let system = audit::system();
    let mut removed = 0;
    for (id, mime) in db::media::unused_before(&ctx.db, cutoff, PURGE_BATCH).await? {
        let mut tx = ctx.db.begin().await?;
        match db::media::delete_unused(&mut tx, &id).await {
            Ok(true) => {}
            Ok(false) => continue,
            Err(sqlx::Error::Database(e)) if e.is_foreign_key_violation() => continue,
            Err(e) => return Err(e.into()),
        }
        audit::record(
            &mut tx,
            ctx,
            &system,
            Write {
                action: "media.purge",
                target_type: "media",
                target_id: Some(id.as_str()),
                before: Some(serde_json::json!({"mime": mime})),
                after: None,
            },
        )
        .await?;
        tx.commit().await?;
        if let Some(format) = MediaFormat::from_mime(&mime) {
            remove_object(ctx, &key_of(&id, format)).await;
        }
        removed += 1;
    }
    Ok(removed)
}

/// A file asked for by its name `{id}.{ext}`: `None` when there is no such file.
pub struct ServedFile {
    pub id: String,
    pub format: MediaFormat,
}

/// Parses `{id}.{ext}` (nothing else is a media file's name).
pub fn parse_file_name(name: &str) -> Option<ServedFile> {
    let (id, ext) = name.split_once('.')?;
    let format = MediaFormat::from_extension(ext)?;
    is_media_id(id).then(|| ServedFile {
        id: id.to_string(),
        format,
    })
}

/// The bytes of a served file, all or `range`.
pub async fn open(
    ctx: &AppContext,
    file: &ServedFile,
    range: Option<Range<u64>>,
) -> Result<Option<StoredBytes>> {
    ctx.media.get(&key_of(&file.id, file.format), range).await
}

/// The size of a served file, `None` when it is not stored.
pub async fn size_of(ctx: &AppContext, file: &ServedFile) -> Result<Option<u64>> {
    ctx.media.size(&key_of(&file.id, file.format)).await
}
