//! The object store of the media files (`MEDIA_STORE`): a folder, or any S3-protocol
//! bucket, through `object_store`. Keys are `{sha256}.{ext}`: a file's key is its
//! content, so two processes storing one file write the same bytes to the same key, and
//! a CDN in front of the bucket serves `{MEDIA_PUBLIC_BASE_URL}/{key}`.

use std::ops::Range;
use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::Context as _;
use axum::body::Bytes;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::signer::Signer;
use object_store::{
    Attribute, Attributes, ClientOptions, GetOptions, GetRange, GetResultPayload, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, RetryConfig, WriteMultipart,
};
use tokio::io::AsyncReadExt;

use crate::config::{MediaSettings, MediaStoreSettings};
use crate::message::msg;
use crate::{Error, Result};

/// Parts of a multipart upload (S3's smallest but the last is 5 MiB).
const PART_BYTES: usize = 5 * 1024 * 1024;

/// How long a client waits before retrying when the store cannot be reached.
const STORE_RETRY_AFTER_SECS: u64 = 2;

#[derive(Clone, Debug)]
pub struct MediaStore {
    backend: Backend,
}

#[derive(Clone, Debug)]
enum Backend {
    /// A folder, made with the first file stored (a process that never stores media
    /// leaves no empty folder behind); until then nothing is stored.
    Fs {
        dir: PathBuf,
        opened: Arc<OnceLock<Arc<dyn ObjectStore>>>,
    },
    /// A bucket: `bucket` writes, looks up and signs URLs; `reader` streams downloads.
    S3 {
        bucket: Arc<AmazonS3>,
        reader: Arc<AmazonS3>,
    },
}

/// A stored file, or the part of it a range asked for.
pub struct StoredBytes {
    pub body: BoxStream<'static, Result<Bytes>>,
    /// The bytes `body` holds.
    pub range: Range<u64>,
    /// The whole file's size.
    pub size: u64,
}

impl MediaStore {
    pub fn from_settings(settings: &MediaSettings) -> anyhow::Result<Self> {
        if let Some(spool) = &settings.spool_dir {
            std::fs::create_dir_all(spool)
                .with_context(|| format!("creating MEDIA_SPOOL_DIR {}", spool.display()))?;
        }
        match &settings.store {
            MediaStoreSettings::Fs { dir } => Ok(Self {
                backend: Backend::Fs {
                    dir: dir.clone(),
                    opened: Arc::default(),
                },
            }),
            MediaStoreSettings::S3(s3) => {
                // A store that is down fails a request within seconds (503 to the
                // client), not after object_store's default three minutes of retries.
                let retry = RetryConfig {
                    max_retries: 2,
                    retry_timeout: Duration::from_secs(10),
                    ..RetryConfig::default()
                };
                let build = |client: ClientOptions| {
                    let mut builder = AmazonS3Builder::new()
                        .with_retry(retry.clone())
                        .with_client_options(client)
                        .with_bucket_name(&s3.bucket)
                        .with_region(&s3.region)
                        .with_access_key_id(s3.access_key_id.expose())
                        .with_secret_access_key(s3.secret_access_key.expose());
                    if let Some(endpoint) = &s3.endpoint {
                        builder = builder
                            .with_endpoint(endpoint)
                            .with_allow_http(endpoint.starts_with("http://"));
                    }
                    builder.build().context("configuring MEDIA_STORE=s3")
                };
                let connect = Duration::from_secs(3);
                let bucket = build(
                    ClientOptions::new()
                        .with_connect_timeout(connect)
                        .with_timeout(Duration::from_secs(120)),
                )?;
                // Downloads are streamed to players at their pace: a 20 MB clip to a slow
                // phone takes minutes, so reads have no whole-request timeout (a
                // connection that never answers still fails within `connect`).
                let reader = build(
                    ClientOptions::new()
                        .with_connect_timeout(connect)
                        .with_timeout_disabled(),
                )?;
                Ok(Self {
                    backend: Backend::S3 {
                        bucket: Arc::new(bucket),
                        reader: Arc::new(reader),
                    },
                })
            }
        }
    }

    fn is_s3(&self) -> bool {
        matches!(self.backend, Backend::S3 { .. })
    }

    /// The store to read from: `None` while a folder store has no folder yet (nothing
    /// is stored).
    fn reading(&self) -> Result<Option<Arc<dyn ObjectStore>>> {
        match &self.backend {
            Backend::S3 { bucket, .. } => Ok(Some(bucket.clone())),
            Backend::Fs { dir, opened } => match opened.get() {
                Some(store) => Ok(Some(store.clone())),
                None if dir.is_dir() => self.writing().map(Some),
                None => Ok(None),
            },
        }
    }

    /// The store to write to (a folder store's folder is made now if need be).
    fn writing(&self) -> Result<Arc<dyn ObjectStore>> {
        match &self.backend {
            Backend::S3 { bucket, .. } => Ok(bucket.clone()),
            Backend::Fs { dir, opened } => {
                if let Some(store) = opened.get() {
                    return Ok(store.clone());
                }
                let folder_failed = |e: &dyn std::fmt::Display| {
                    Error::internal(format!("media folder {}: {e}", dir.display()))
                };
                std::fs::create_dir_all(dir).map_err(|e| folder_failed(&e))?;
                let store: Arc<dyn ObjectStore> =
                    Arc::new(LocalFileSystem::new_with_prefix(dir).map_err(|e| folder_failed(&e))?);
                Ok(opened.get_or_init(|| store).clone())
            }
        }
    }

    /// What the store is told about a file: its type and caching, where the store keeps
    /// them (a bucket serves them to a CDN; a folder has nowhere to keep them).
    fn attributes(&self, mime: &'static str) -> Attributes {
        let mut attributes = Attributes::new();
        if self.is_s3() {
            attributes.insert(Attribute::ContentType, mime.into());
            attributes.insert(
                Attribute::CacheControl,
                "public, max-age=31536000, immutable".into(),
            );
        }
        attributes
    }

    /// Stores `bytes` under `key`.
    pub async fn put_bytes(&self, key: &str, bytes: Bytes, mime: &'static str) -> Result<()> {
        let opts = PutOptions {
            attributes: self.attributes(mime),
            ..PutOptions::default()
        };
        self.writing()?
            .put_opts(&Path::from(key), PutPayload::from(bytes), opts)
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// Stores the file at `path` under `key`, part by part (never whole in memory). The
    /// key appears only once every part is in; a failed upload is aborted.
    pub async fn put_file(&self, key: &str, path: &FsPath, mime: &'static str) -> Result<()> {
        let opts = PutMultipartOptions {
            attributes: self.attributes(mime),
            ..PutMultipartOptions::default()
        };
        let upload = self
            .writing()?
            .put_multipart_opts(&Path::from(key), opts)
            .await
            .map_err(unavailable)?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
        let mut file = tokio::fs::File::open(path)
            .await
            .map_err(|e| Error::internal(format!("reading the spooled upload: {e}")))?;
        let mut buf = vec![0_u8; 256 * 1024];
        loop {
            let n = match file.read(&mut buf).await {
                Ok(n) => n,
                Err(e) => {
                    let _ = writer.abort().await;
                    return Err(Error::internal(format!("reading the spooled upload: {e}")));
                }
            };
            if n == 0 {
                break;
            }
            // at most one part in flight beside the one filling
            if let Err(e) = writer.wait_for_capacity(1).await {
                let _ = writer.abort().await;
                return Err(unavailable(e));
            }
            writer.write(&buf[..n]);
        }
        writer.finish().await.map_err(unavailable)?;
        Ok(())
    }

    /// The size of `key`, `None` when it is not stored.
    pub async fn size(&self, key: &str) -> Result<Option<u64>> {
        let Some(store) = self.reading()? else {
            return Ok(None);
        };
        match store.head(&Path::from(key)).await {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    /// The bytes of `key` in `range` (all of them without one); `None` when the key is
    /// not stored.
    pub async fn get(&self, key: &str, range: Option<Range<u64>>) -> Result<Option<StoredBytes>> {
        let opts = GetOptions {
            range: range.map(GetRange::Bounded),
            ..GetOptions::default()
        };
        let store = match &self.backend {
            Backend::S3 { reader, .. } => reader.clone() as Arc<dyn ObjectStore>,
            Backend::Fs { .. } => match self.reading()? {
                Some(store) => store,
                None => return Ok(None),
            },
        };
        match store.get_opts(&Path::from(key), opts).await {
            Ok(got) => {
                let (range, size) = (got.range.clone(), got.meta.size);
                let body = match got.payload {
                    GetResultPayload::File(file, _) => file_stream(file, range.clone()),
                    GetResultPayload::Stream(bytes) => bytes.map_err(unavailable).boxed(),
                };
                Ok(Some(StoredBytes { body, range, size }))
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    /// Removes `key` (nothing when it is not there).
    pub async fn delete(&self, key: &str) -> Result<()> {
        let Some(store) = self.reading()? else {
            return Ok(());
        };
        match store.delete(&Path::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(unavailable(e)),
        }
    }

    /// A presigned `GET` URL of `key` that works for `ttl` (s3 only; `None` on a folder).
    pub async fn signed_url(&self, key: &str, ttl: Duration) -> Result<Option<String>> {
        let Backend::S3 { bucket: s3, .. } = &self.backend else {
            return Ok(None);
        };
        let url = s3
            .signed_url(axum::http::Method::GET, &Path::from(key), ttl)
            .await
            .map_err(unavailable)?;
        Ok(Some(url.to_string()))
    }
}

/// How much of a folder store's file one read takes: object_store's own stream reads 8 KiB
/// per blocking task, and 64 downloads at a phone's pace then kept the runtime's blocking
/// pool at its 512 threads (each with its stack and allocator heap: 170 MiB resident).
const FILE_CHUNK: usize = 64 * 1024;

/// The bytes `range` of a folder store's `file`, read a chunk at a time as the client
/// takes them.
fn file_stream(file: std::fs::File, range: Range<u64>) -> BoxStream<'static, Result<Bytes>> {
    use tokio::io::AsyncSeekExt;
    let read_failed = |e: std::io::Error| Error::internal(format!("reading a media file: {e}"));
    futures::stream::once(async move {
        let mut file = tokio::fs::File::from_std(file);
        file.seek(std::io::SeekFrom::Start(range.start))
            .await
            .map_err(read_failed)?;
        Ok::<_, Error>(futures::stream::try_unfold(
            (file, range.end - range.start),
            move |(mut file, remaining)| async move {
                if remaining == 0 {
                    return Ok(None);
                }
                let want = usize::try_from(remaining).map_or(FILE_CHUNK, |r| r.min(FILE_CHUNK));
                let mut chunk = vec![0_u8; want];
                let n = file.read(&mut chunk).await.map_err(read_failed)?;
                if n == 0 {
                    return Err(Error::internal("a media file is shorter than its size"));
                }
                chunk.truncate(n);
                Ok::<_, Error>(Some((Bytes::from(chunk), (file, remaining - n as u64))))
            },
        ))
    })
    .try_flatten()
    .boxed()
}

/// A store that failed: 503 with `Retry-After` to the client, the cause in the log.
fn unavailable(e: object_store::Error) -> Error {
    tracing::warn!(error = %e, "media store unavailable");
    Error::Overloaded {
        message: msg::THE_MEDIA_STORE_IS_UNAVAILABLE_RETRY_SHORTLY,
        retry_after_secs: STORE_RETRY_AFTER_SECS,
    }
}
