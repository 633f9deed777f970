//! A question bank with its media as one zip file, so a bank moves between deployments:
//! `questions.json` (the JSON export, the body of the JSON import) and
//! `media/{id}.{ext}` for every library file its questions use.
//!
//! Both directions go through a temporary file in `MEDIA_SPOOL_DIR` (a zip's directory
//! is at its end), never through memory: the export writes the archive there and streams
//! it; the import receives the upload there, then reads one entry at a time. Each media
//! file of an import goes through the library's own upload (type from the bytes, limits,
//! JPEG metadata); the questions are then imported all or nothing, as drafts.

use std::collections::{BTreeSet, HashMap};
use std::io::{Read, Seek, SeekFrom, Write};

use axum::body::Bytes;
use futures::{Stream, StreamExt, stream};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::*;
use crate::db::questions::ListFilter;
use crate::domain::media::MediaFormat;
use crate::services::media::{self, key_of};

/// The questions' entry.
pub const QUESTIONS_ENTRY: &str = "questions.json";
/// The folder of the media entries.
const MEDIA_FOLDER: &str = "media/";
/// A bundle holds at most this many questions (imported in one transaction).
pub const MAX_BUNDLE_QUESTIONS: usize = 5_000;
/// An uploaded bundle may be at most this large.
pub const MAX_BUNDLE_BYTES: u64 = 1024 * 1024 * 1024;
/// `questions.json` may be at most this large, unpacked.
const MAX_QUESTIONS_JSON: u64 = 64 * 1024 * 1024;
/// The chunks an exported bundle is streamed in.
const CHUNK: usize = 64 * 1024;

fn temp_file(ctx: &AppContext) -> Result<std::fs::File> {
    match &ctx.settings.media.spool_dir {
        Some(dir) => tempfile::tempfile_in(dir),
        None => tempfile::tempfile(),
    }
    .map_err(|e| Error::internal(format!("bundle spool: {e}")))
}

/// Runs `f` on the archive off the async threads, handing the archive back.
async fn blocking<A, T, F>(archive: A, f: F) -> Result<(A, T)>
where
    A: Send + 'static,
    T: Send + 'static,
    F: FnOnce(&mut A) -> Result<T> + Send + 'static,
{
    tokio::task::spawn_blocking(move || {
        let mut archive = archive;
        let out = f(&mut archive)?;
        Ok((archive, out))
    })
    .await
    .map_err(|e| Error::internal(format!("bundle task: {e}")))?
}

fn zip_failed(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("bundle: {e}"))
}

/// The export of `filter` as a zip (the audit entry is written by the caller).
pub(super) async fn export(ctx: &AppContext, filter: ListFilter) -> Result<Export> {
    let zip = ZipWriter::new(temp_file(ctx)?);
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let (mut zip, ()) = blocking(zip, move |z| {
        z.start_file(QUESTIONS_ENTRY, deflated).map_err(zip_failed)
    })
    .await?;
    // the questions, batch by batch, as the JSON export writes them
    let mut after: Option<(i64, String)> = None;
    let mut written = 0;
    let mut used = BTreeSet::new();
    loop {
        let key = after.as_ref().map(|(at, id)| (*at, id.as_str()));
        let rows = db::questions::export_batch(&ctx.db, &filter, key, EXPORT_BATCH).await?;
        let last = i64::try_from(rows.len()).unwrap_or(i64::MAX) < EXPORT_BATCH;
        if let Some(row) = rows.last() {
            after = Some((row.created_at, row.id.clone()));
        }
        used.extend(rows.iter().filter_map(|r| r.media_id.clone()));
        let (mut chunk, n) =
            export::encode(ExportFormat::Json, rows, written == 0, written, false)?;
        written += n;
        if last {
            chunk.extend_from_slice(b"]}");
        }
        (zip, ()) = blocking(zip, move |z| z.write_all(&chunk).map_err(zip_failed)).await?;
        if last {
            break;
        }
    }
    // each file they use, as the store has it (already compressed: stored as it is)
    let stored = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .large_file(true);
    for id in used {
        let Some(row) = db::media::get(&ctx.db, &id).await? else {
            continue; // left the library since: the question is exported without its file
        };
        let Some(format) = MediaFormat::from_mime(&row.mime) else {
            continue;
        };
        let key = key_of(&id, format);
        let Some(file) = ctx.media.get(&key, None).await? else {
            continue;
        };
        let name = format!("{MEDIA_FOLDER}{key}");
        (zip, ()) = blocking(zip, move |z| z.start_file(name, stored).map_err(zip_failed)).await?;
        let mut body = file.body;
        while let Some(chunk) = body.next().await {
            let chunk = chunk?;
            (zip, ()) = blocking(zip, move |z| z.write_all(&chunk).map_err(zip_failed)).await?;
        }
    }
    let file = tokio::task::spawn_blocking(move || -> Result<std::fs::File> {
        let mut file = zip.finish().map_err(zip_failed)?;
        file.seek(SeekFrom::Start(0)).map_err(zip_failed)?;
        Ok(file)
    })
    .await
    .map_err(|e| Error::internal(format!("bundle task: {e}")))??;
    let file = tokio::fs::File::from_std(file);
    let chunks = stream::unfold(Some(file), |file| async move {
        let mut file = file?;
        let mut buf = vec![0; CHUNK];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(buf), Some(file)))
            }
            Err(e) => {
                tracing::error!(error = %e, "question bundle cut short");
                Some((Err(zip_failed(e)), None))
            }
        }
    });
    Ok(Export {
        format: ExportFormat::Zip,
        chunks: Box::pin(chunks),
    })
}

/// Receives an upload into a temporary file, refusing it past [`MAX_BUNDLE_BYTES`].
async fn receive<S>(ctx: &AppContext, mut chunks: S) -> Result<std::fs::File>
where
    S: Stream<Item = Result<Bytes>> + Unpin,
{
    let mut file = tokio::fs::File::from_std(temp_file(ctx)?);
    let mut received: u64 = 0;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        received += chunk.len() as u64;
        if received > MAX_BUNDLE_BYTES {
            return Err(Error::PayloadTooLarge(format!(
                "a question bundle may be at most {MAX_BUNDLE_BYTES} bytes"
            )));
        }
        file.write_all(&chunk).await.map_err(zip_failed)?;
    }
    if received == 0 {
        return Err(Error::validation("the body is empty; send the zip file"));
    }
    file.flush().await.map_err(zip_failed)?;
    Ok(file.into_std().await)
}

fn not_a_bundle(detail: impl std::fmt::Display) -> Error {
    Error::validation(format!("not a question bundle: {detail}"))
}

/// Reads entry `name` whole, refusing more than `limit` bytes unpacked (whatever the
/// entry claims: a zip bomb stops at the limit). `None` when there is no such entry.
fn read_entry(
    archive: &mut ZipArchive<std::fs::File>,
    name: &str,
    limit: u64,
) -> Result<Option<Vec<u8>>> {
    let entry = match archive.by_name(name) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(not_a_bundle(e)),
    };
    let mut bytes = Vec::new();
    entry
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(not_a_bundle)?;
    if bytes.len() as u64 > limit {
        return Err(Error::PayloadTooLarge(format!(
            "{name} is larger than {limit} bytes"
        )));
    }
    Ok(Some(bytes))
}

/// The media id an imported item names, if any.
fn media_id_of(item: &serde_json::Value) -> Option<&str> {
    item.get("media")?.get("id")?.as_str()
}

/// `POST /v1/admin/questions/import-zip`: a bundle of [`export`] (from this deployment
/// or another) restored: its media files into the library, then its questions as
/// drafts, all or nothing (at most [`MAX_BUNDLE_QUESTIONS`]).
pub async fn import<S>(ctx: &AppContext, admin: &AdminPrincipal, chunks: S) -> Result<ImportResult>
where
    S: Stream<Item = Result<Bytes>> + Unpin,
{
    let file = receive(ctx, chunks).await?;
    let archive = tokio::task::spawn_blocking(move || ZipArchive::new(file).map_err(not_a_bundle))
        .await
        .map_err(|e| Error::internal(format!("bundle task: {e}")))??;
    let (mut archive, json) = blocking(archive, |a| {
        read_entry(a, QUESTIONS_ENTRY, MAX_QUESTIONS_JSON)?
            .ok_or_else(|| not_a_bundle(format!("it holds no {QUESTIONS_ENTRY}")))
    })
    .await?;
    let request: ImportRequest = serde_json::from_slice(&json)
        .map_err(|e| not_a_bundle(format!("{QUESTIONS_ENTRY}: {e}")))?;
    let mut items = request.questions;
    if items.is_empty() || items.len() > MAX_BUNDLE_QUESTIONS {
        return Err(Error::validation(format!(
            "a question bundle holds 1-{MAX_BUNDLE_QUESTIONS} questions"
        )));
    }
    // each file the questions name, stored through the library's upload; a file the
    // bundle does not hold must already be in this library (the import's checks say so)
    let names: BTreeSet<String> = items
        .iter()
        .filter_map(media_id_of)
        .map(str::to_string)
        .collect();
    let limit = ctx.settings.media.max_bytes();
    let mut stored: HashMap<String, String> = HashMap::new();
    for id in names {
        let Some(format) = MediaFormat::ALL.into_iter().find(|f| {
            archive
                .index_for_name(&format!("{MEDIA_FOLDER}{}", key_of(&id, *f)))
                .is_some()
        }) else {
            continue;
        };
        let name = format!("{MEDIA_FOLDER}{}", key_of(&id, format));
        let bytes;
        (archive, bytes) = blocking(archive, move |a| read_entry(a, &name, limit)).await?;
        let Some(bytes) = bytes else { continue };
        let item = media::upload(ctx, admin, stream::iter([Ok(Bytes::from(bytes))])).await?;
        stored.insert(id, item.id);
    }
    for item in &mut items {
        let renamed = media_id_of(item).and_then(|id| stored.get(id)).cloned();
        if let (Some(id), Some(media)) = (renamed, item.get_mut("media")) {
            media["id"] = serde_json::Value::String(id);
        }
    }
    let items = items
        .into_iter()
        .map(|v| {
            if !v.is_object() {
                return Err("item must be an object".to_string());
            }
            serde_json::from_value::<QuestionInput>(v).map_err(|e| format!("invalid item: {e}"))
        })
        .collect();
    super::import::import_items(
        ctx,
        admin,
        items,
        "question.import_zip",
        MAX_BUNDLE_QUESTIONS,
    )
    .await
}
