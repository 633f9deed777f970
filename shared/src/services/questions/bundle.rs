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
use crate::message::msg;
use crate::services::media::{self, MediaItem, key_of};

/// The questions' entry.
pub const QUESTIONS_ENTRY: &str = "questions.json";
/// The folder of the media entries.
const MEDIA_FOLDER: &str = "media/";
/// A bundle holds at most this many questions (imported in one transaction).
pub const MAX_BUNDLE_QUESTIONS: usize = 2_000;
/// An uploaded bundle may be at most this large.
pub const MAX_BUNDLE_BYTES: u64 = 1024 * 1024 * 1024;
/// `questions.json` may be at most this large, unpacked (about 12 KiB a question: the
/// JSON import takes 2 MiB for 200).
const MAX_QUESTIONS_JSON: u64 = 24 * 1024 * 1024;
/// The media files of a bundle may unpack to at most this much in all (each is also
/// held to its kind's limit by the upload).
const MAX_UNPACKED_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// The chunks an exported bundle is streamed in.
const CHUNK: usize = 64 * 1024;

fn temp_file(ctx: &AppContext) -> Result<std::fs::File> {
    match &ctx.settings.media.spool_dir {
        Some(dir) => tempfile::tempfile_in(dir),
        None => tempfile::tempfile(),
    }
    .map_err(spool_failed)
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

/// The export of `filter` as a zip (the audit entry is written by the caller).
/// `turn` ([`bundle_turn`]) is held until the download ends: a client that reads
/// slowly keeps its spool file.
pub(super) async fn export(
    ctx: &AppContext,
    filter: ListFilter,
    turn: tokio::sync::SemaphorePermit<'static>,
) -> Result<Export> {
    let zip = ZipWriter::new(temp_file(ctx)?);
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let (mut zip, ()) = blocking(zip, move |z| {
        z.start_file(QUESTIONS_ENTRY, deflated)
            .map_err(spool_failed)
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
            after = Some((row.created_at, row.id.to_string()));
        }
        used.extend(rows.iter().filter_map(|r| r.media_id.clone()));
        let (mut chunk, n) =
            export::encode(ExportFormat::Json, rows, written == 0, written, false)?;
        written += n;
        if last {
            chunk.extend_from_slice(b"]}");
        }
        (zip, ()) = blocking(zip, move |z| z.write_all(&chunk).map_err(spool_failed)).await?;
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
        (zip, ()) = blocking(zip, move |z| {
            z.start_file(name, stored).map_err(spool_failed)
        })
        .await?;
        let mut body = file.body;
        while let Some(chunk) = body.next().await {
            let chunk = chunk?;
            (zip, ()) = blocking(zip, move |z| z.write_all(&chunk).map_err(spool_failed)).await?;
        }
    }
    let file = tokio::task::spawn_blocking(move || -> Result<std::fs::File> {
        let mut file = zip.finish().map_err(spool_failed)?;
        file.seek(SeekFrom::Start(0)).map_err(spool_failed)?;
        Ok(file)
    })
    .await
    .map_err(|e| Error::internal(format!("bundle task: {e}")))??;
    let file = tokio::fs::File::from_std(file);
    let chunks = stream::unfold(Some((file, turn)), |state| async move {
        let (mut file, turn) = state?;
        let mut buf = vec![0; CHUNK];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(buf), Some((file, turn))))
            }
            Err(e) => {
                tracing::error!(error = %e, "question bundle cut short");
                Some((Err(spool_failed(e)), None))
            }
        }
    });
    Ok(Export {
        format: ExportFormat::Zip,
        chunks: Box::pin(chunks),
    })
}

/// The spool that holds a bundle could not be written (a full disk, say): retry later.
fn spool_failed(e: impl std::fmt::Display) -> Error {
    tracing::warn!(error = %e, "question bundle spool unavailable");
    Error::Overloaded {
        message: msg::THE_UPLOAD_SPOOL_IS_UNAVAILABLE_RETRY_SHORTLY,
        retry_after_secs: BUSY_RETRY_AFTER_SECS,
    }
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
        if received == 0
            && !chunk.is_empty()
            && !b"PK\x03\x04".starts_with(&chunk[..chunk.len().min(4)])
        {
            return Err(not_a_bundle("it does not begin as a zip file does"));
        }
        received += chunk.len() as u64;
        if received > MAX_BUNDLE_BYTES {
            return Err(Error::PayloadTooLarge(
                msg::a_question_bundle_may_be_at_most_max_bytes(MAX_BUNDLE_BYTES),
            ));
        }
        file.write_all(&chunk).await.map_err(spool_failed)?;
    }
    if received == 0 {
        return Err(Error::validation(msg::THE_BODY_IS_EMPTY_SEND_THE_ZIP_FILE));
    }
    file.flush().await.map_err(spool_failed)?;
    Ok(file.into_std().await)
}

fn not_a_bundle(detail: impl std::fmt::Display) -> Error {
    Error::validation(msg::not_a_question_bundle_detail(detail))
}

/// A bundle's directory may list at most this many files (`questions.json` and a file
/// per question) …
const MAX_ENTRIES: u64 = MAX_BUNDLE_QUESTIONS as u64 + 1;
/// … in at most this many bytes (a name of `media/` + 64 hex digits + its extension,
/// and the Zip64 fields, is about 200 bytes an entry).
const MAX_DIRECTORY_BYTES: u64 = 1024 * 1024;

/// Where a zip's directory is, as its end record says: how many files it lists, its
/// size in bytes and its offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Directory {
    pub entries: u64,
    pub size: u64,
    pub offset: u64,
}

/// The zip's directory, read from its one end record (the zip reader holds the whole
/// directory in memory: it is bounded before the reader sees it). `tail` is the file's
/// last bytes, [`TAIL_BYTES`] of them (more than the reader searches); `zip64` reads the
/// 56-byte Zip64 end record at an offset when the classic one defers to it. None
/// without an end record, or with more than one in the tail (the reader skips an end
/// record it finds unfit and takes an earlier one: a second one anywhere it looks could
/// show this check a small directory while the reader loads a large one), or with one
/// whose comment does not end the file, or of a multi-disk archive.
pub(super) fn directory_extent(
    tail: &[u8],
    zip64: impl FnOnce(u64) -> std::io::Result<[u8; 56]>,
) -> Option<Directory> {
    let mut records = (0..=tail.len().checked_sub(22)?)
        .rev()
        .filter(|&i| tail[i..].starts_with(b"PK\x05\x06"));
    let at = records.next()?;
    if records.next().is_some() {
        return None;
    }
    let end = &tail[at..];
    let comment = usize::from(u16::from_le_bytes([end[20], end[21]]));
    if at + 22 + comment != tail.len() {
        return None;
    }
    // one disk: its number and the directory's are 0, and it holds every file
    if end[4..8] != [0, 0, 0, 0] || end[8..10] != end[10..12] {
        return None;
    }
    let entries = u64::from(u16::from_le_bytes([end[10], end[11]]));
    let size = u64::from(u32::from_le_bytes([end[12], end[13], end[14], end[15]]));
    let offset = u64::from(u32::from_le_bytes([end[16], end[17], end[18], end[19]]));
    if entries != 0xFFFF && size != 0xFFFF_FFFF && offset != 0xFFFF_FFFF {
        return Some(Directory {
            entries,
            size,
            offset,
        });
    }
    // the Zip64 locator sits just before: its record's offset at 8
    let locator = tail.get(at.checked_sub(20)?..at)?;
    if !locator.starts_with(b"PK\x06\x07") {
        return None;
    }
    let record_at = u64::from_le_bytes(locator[8..16].try_into().ok()?);
    let record = zip64(record_at).ok()?;
    if !record.starts_with(b"PK\x06\x06") {
        return None;
    }
    Some(Directory {
        entries: u64::from_le_bytes(record[32..40].try_into().ok()?),
        size: u64::from_le_bytes(record[40..48].try_into().ok()?),
        offset: u64::from_le_bytes(record[48..56].try_into().ok()?),
    })
}

/// How many file headers `directory` (the directory's bytes) holds, walked header by
/// header; None unless they fill it exactly.
pub(super) fn count_headers(directory: &[u8]) -> Option<u64> {
    let mut at = 0_usize;
    let mut headers = 0_u64;
    while at < directory.len() {
        let header = directory.get(at..at + 46)?;
        if !header.starts_with(b"PK\x01\x02") {
            return None;
        }
        let lengths =
            [28, 30, 32].map(|i| usize::from(u16::from_le_bytes([header[i], header[i + 1]])));
        at = at.checked_add(46 + lengths.iter().sum::<usize>())?;
        headers += 1;
    }
    (at == directory.len()).then_some(headers)
}

/// Opens the received bundle once its directory is known to be small: its one end
/// record says so, and its directory, read here (at most [`MAX_DIRECTORY_BYTES`]), holds
/// exactly the files it says, so the zip reader reads no more than what was counted.
fn open_archive(mut file: std::fs::File) -> Result<ZipArchive<std::fs::File>> {
    let len = file.seek(SeekFrom::End(0)).map_err(spool_failed)?;
    let start = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).map_err(spool_failed)?;
    let mut tail = Vec::new();
    (&mut file)
        .take(len - start)
        .read_to_end(&mut tail)
        .map_err(spool_failed)?;
    let directory = directory_extent(&tail, |offset| {
        let mut record = [0; 56];
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(&mut record)?;
        Ok(record)
    })
    .ok_or_else(|| not_a_bundle("it has no single zip end record"))?;
    let too_large = |entries: u64, size: u64| {
        Error::validation(msg::not_a_question_bundle_its_directory(
            entries,
            size,
            MAX_ENTRIES,
            MAX_DIRECTORY_BYTES,
        ))
    };
    if directory.entries > MAX_ENTRIES || directory.size > MAX_DIRECTORY_BYTES {
        return Err(too_large(directory.entries, directory.size));
    }
    if directory.offset.saturating_add(directory.size) > len {
        return Err(not_a_bundle("its directory lies past its end"));
    }
    let mut listed = Vec::new();
    file.seek(SeekFrom::Start(directory.offset))
        .map_err(spool_failed)?;
    (&mut file)
        .take(directory.size)
        .read_to_end(&mut listed)
        .map_err(spool_failed)?;
    match count_headers(&listed) {
        Some(n) if n == directory.entries => {}
        Some(n) if n > MAX_ENTRIES => return Err(too_large(n, directory.size)),
        _ => {
            return Err(not_a_bundle(
                "its directory does not hold the files it lists",
            ));
        }
    }
    file.seek(SeekFrom::Start(0)).map_err(spool_failed)?;
    // the archive starts at the file's start (no search for another offset), and the
    // reader must have read the directory counted above
    let config = zip::read::Config {
        archive_offset: zip::read::ArchiveOffset::Known(0),
    };
    let archive = ZipArchive::with_config(config, file).map_err(not_a_bundle)?;
    if archive.len() as u64 != directory.entries {
        return Err(not_a_bundle(
            "its directory does not hold the files it lists",
        ));
    }
    Ok(archive)
}

/// The bytes of a bundle's end searched for end records: the zip reader searches the
/// last 64 KiB + 36; twice that leaves it nothing this check did not see.
const TAIL_BYTES: u64 = 128 * 1024;

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
        return Err(Error::PayloadTooLarge(
            msg::name_is_larger_than_limit_bytes(name, limit),
        ));
    }
    Ok(Some(bytes))
}

/// `questions.json` read straight into import items (no generic JSON tree: a hostile
/// file cannot multiply itself in memory beyond its typed fields).
#[derive(Deserialize)]
struct BundleQuestions {
    questions: Vec<QuestionInput>,
}

/// Entry `name` of `archive`, sent chunk by chunk into the library's upload from a
/// blocking thread (the upload's own limit and turn hold; no file is held whole here).
/// Answers the archive back and the stored file, `budget` less the bytes unpacked.
async fn upload_entry(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    archive: ZipArchive<std::fs::File>,
    name: String,
    budget: u64,
) -> Result<(ZipArchive<std::fs::File>, MediaItem, u64)> {
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes>>(4);
    let reader = tokio::task::spawn_blocking(move || {
        let mut archive = archive;
        let mut unpacked = 0u64;
        let outcome = (|| -> Result<()> {
            let mut entry = archive.by_name(&name).map_err(not_a_bundle)?;
            let mut buf = vec![0; CHUNK];
            loop {
                let n = entry.read(&mut buf).map_err(not_a_bundle)?;
                if n == 0 {
                    return Ok(());
                }
                unpacked += n as u64;
                if unpacked > budget {
                    return Err(Error::PayloadTooLarge(
                        msg::the_bundles_files_unpack_to_more_than_max_bytes(MAX_UNPACKED_BYTES),
                    ));
                }
                // the upload stopped (refused, or done with what it needs): so do we
                if tx
                    .blocking_send(Ok(Bytes::copy_from_slice(&buf[..n])))
                    .is_err()
                {
                    return Ok(());
                }
            }
        })();
        if let Err(e) = outcome {
            let _ = tx.blocking_send(Err(e));
        }
        (archive, unpacked)
    });
    let chunks = stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) });
    let uploaded = media::upload(ctx, admin, Box::pin(chunks)).await;
    let (archive, unpacked) = reader
        .await
        .map_err(|e| Error::internal(format!("bundle task: {e}")))?;
    Ok((archive, uploaded?, budget.saturating_sub(unpacked)))
}

/// One bundle at a time per process (each holds a spool file of up to a gigabyte and
/// a share of the uploads); another waits its turn a while, then is told to retry.
static BUNDLES: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);
const TURN_WAIT: std::time::Duration = std::time::Duration::from_secs(30);
const BUSY_RETRY_AFTER_SECS: u64 = 5;

pub(super) async fn bundle_turn() -> Result<tokio::sync::SemaphorePermit<'static>> {
    let busy = || Error::Overloaded {
        message: msg::ANOTHER_QUESTION_BUNDLE_IS_BEING_MADE_OR_READ,
        retry_after_secs: BUSY_RETRY_AFTER_SECS,
    };
    match tokio::time::timeout(TURN_WAIT, BUNDLES.acquire()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(busy()),
    }
}

/// `POST /v1/admin/questions/import-zip`: a bundle of the zip export (from this deployment
/// or another) restored: its media files into the library, then its questions as
/// drafts, all or nothing (at most [`MAX_BUNDLE_QUESTIONS`]).
pub async fn import<S>(ctx: &AppContext, admin: &AdminPrincipal, chunks: S) -> Result<ImportResult>
where
    S: Stream<Item = Result<Bytes>> + Unpin,
{
    let _turn = bundle_turn().await?;
    let file = receive(ctx, chunks).await?;
    let archive = tokio::task::spawn_blocking(move || open_archive(file))
        .await
        .map_err(|e| Error::internal(format!("bundle task: {e}")))??;
    let (mut archive, json) = blocking(archive, |a| {
        read_entry(a, QUESTIONS_ENTRY, MAX_QUESTIONS_JSON)?
            .ok_or_else(|| not_a_bundle(format!("it holds no {QUESTIONS_ENTRY}")))
    })
    .await?;
    let mut items = serde_json::from_slice::<BundleQuestions>(&json)
        .map_err(|e| not_a_bundle(format!("{QUESTIONS_ENTRY}: {e}")))?
        .questions;
    drop(json);
    if items.is_empty() || items.len() > MAX_BUNDLE_QUESTIONS {
        return Err(Error::validation(
            msg::a_question_bundle_holds_1_max_questions(MAX_BUNDLE_QUESTIONS),
        ));
    }
    // each file the questions name, stored through the library's upload; a file the
    // bundle does not hold must already be in this library (the import's checks say so)
    let names: BTreeSet<String> = items
        .iter()
        .filter_map(|q| Some(q.media.as_ref()?.id.clone()))
        .collect();
    let mut budget = MAX_UNPACKED_BYTES;
    let mut stored: HashMap<String, String> = HashMap::new();
    for id in names {
        let Some(name) = MediaFormat::ALL
            .into_iter()
            .map(|f| format!("{MEDIA_FOLDER}{}", key_of(&id, f)))
            .find(|name| archive.index_for_name(name).is_some())
        else {
            continue;
        };
        let item;
        (archive, item, budget) = upload_entry(ctx, admin, archive, name, budget).await?;
        stored.insert(id, item.id);
    }
    for item in &mut items {
        if let Some(media) = item.media.as_mut()
            && let Some(id) = stored.get(&media.id)
        {
            media.id.clone_from(id);
        }
    }
    super::import::import_items(
        ctx,
        admin,
        items.into_iter().map(Ok).collect(),
        "question.import_zip",
        MAX_BUNDLE_QUESTIONS,
    )
    .await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// A zip of `files` empty entries, as the zip crate writes it (Zip64 or not).
    fn zip_with(files: usize, large: bool) -> Vec<u8> {
        let mut zip = ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().large_file(large);
        for i in 0..files {
            zip.start_file(format!("media/{i}.png"), options).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn extent(bytes: &[u8]) -> Option<(u64, u64)> {
        directory_of(bytes).map(|d| (d.entries, d.size))
    }

    fn directory_of(bytes: &[u8]) -> Option<Directory> {
        let start = bytes.len().saturating_sub(TAIL_BYTES as usize);
        directory_extent(&bytes[start..], |offset| {
            let at = usize::try_from(offset).unwrap();
            Ok(bytes[at..at + 56].try_into().unwrap())
        })
    }

    #[test]
    fn the_directory_is_measured_before_it_is_read() {
        for large in [false, true] {
            let bytes = zip_with(3, large);
            let (entries, size) = extent(&bytes).unwrap();
            assert_eq!(entries, 3, "large {large}");
            assert!(size > 3 * 46 && size < 1024, "{size}");
        }
        // a directory of many entries says so in its end record
        assert_eq!(extent(&zip_with(70_000, false)).unwrap().0, 70_000);
        // no end record: not a zip
        assert_eq!(extent(b"PK\x03\x04 and then nothing"), None);
        assert_eq!(extent(b""), None);
    }

    #[test]
    fn a_second_end_record_in_the_comment_is_refused() {
        let mut real = zip_with(3, false);
        // an end record claiming one small file, in the archive's comment
        let mut fake = b"PK\x05\x06\0\0\0\0\x01\0\x01\0\x2e\0\0\0\0\0\0\0\0\0".to_vec();
        assert_eq!(fake.len(), 22);
        let n = real.len();
        real[n - 2..].copy_from_slice(&(fake.len() as u16).to_le_bytes());
        real.append(&mut fake);
        assert_eq!(directory_of(&real), None);
    }

    #[test]
    fn a_hidden_end_record_beyond_the_readers_window_or_a_multi_disk_one_is_refused() {
        // a real end record 65,562 bytes before the end (past a 64 KiB + 22 search),
        // then a last, unfit one claiming nothing
        let real = zip_with(3, false);
        let mut hidden = real.clone();
        hidden.extend(std::iter::repeat_n(0_u8, 65_540));
        hidden.extend_from_slice(b"PK\x05\x06\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
        assert_eq!(directory_of(&hidden), None);
        // multi-disk: refused
        let mut disks = real.clone();
        let n = disks.len();
        disks[n - 22 + 4] = 1;
        assert_eq!(directory_of(&disks), None);
        let mut disks = real;
        let n = disks.len();
        disks[n - 22 + 8] = 2;
        assert_eq!(directory_of(&disks), None);
    }

    #[test]
    fn the_directory_is_counted_header_by_header() {
        let bytes = zip_with(5, false);
        let d = directory_of(&bytes).unwrap();
        let at = usize::try_from(d.offset).unwrap();
        let listed = &bytes[at..at + usize::try_from(d.size).unwrap()];
        assert_eq!(count_headers(listed), Some(5));
        // cut short, or with bytes that are no header
        assert_eq!(count_headers(&listed[..listed.len() - 1]), None);
        let mut padded = listed.to_vec();
        padded.extend_from_slice(&[0; 46]);
        assert_eq!(count_headers(&padded), None);
        assert_eq!(count_headers(&[]), Some(0));
    }
}
