//! Where uploaded media live and how large each kind may be (`MEDIA_*`).

use std::path::{Path, PathBuf};

use super::reader::Reader;
use super::{DatabaseUrl, Secret};

/// The object store of the media files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MediaStoreSettings {
    /// `MEDIA_STORE=fs`: a folder (`MEDIA_FS_DIR`; default `media/` beside the SQLite
    /// file, or `data/media` on PostgreSQL). Processes share it only on one host or a
    /// shared mount.
    Fs { dir: PathBuf },
    /// `MEDIA_STORE=s3`: any S3-protocol bucket (Aliyun OSS, Tencent COS, MinIO, AWS).
    S3(S3Settings),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Settings {
    /// `MEDIA_S3_ENDPOINT`: the store's URL (unset: AWS's own for the region).
    pub endpoint: Option<String>,
    /// `MEDIA_S3_BUCKET`.
    pub bucket: String,
    /// `MEDIA_S3_REGION` (default `us-east-1`, which most S3-protocol servers accept).
    pub region: String,
    /// `MEDIA_S3_ACCESS_KEY_ID` and `MEDIA_S3_SECRET_ACCESS_KEY`.
    pub access_key_id: Secret,
    pub secret_access_key: Secret,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediaSettings {
    pub store: MediaStoreSettings,
    /// `MEDIA_MAX_IMAGE_BYTES` (2 MB), `MEDIA_MAX_AUDIO_BYTES` (5 MB),
    /// `MEDIA_MAX_VIDEO_BYTES` (20 MB).
    pub max_image_bytes: u64,
    pub max_audio_bytes: u64,
    pub max_video_bytes: u64,
    /// `MEDIA_PUBLIC_BASE_URL`: a CDN in front of the bucket; players' URLs are
    /// `{base}/{id}.{ext}`. Unset: the player API serves `/media/{id}.{ext}` itself.
    pub public_base_url: Option<String>,
    /// `MEDIA_SIGNED_URLS` (s3 only): players get presigned URLs of the bucket.
    pub signed_urls: bool,
    /// `MEDIA_URL_TTL_SECONDS` (3600): how long a presigned URL works.
    pub url_ttl_seconds: u64,
    /// `MEDIA_UNUSED_DAYS` (30): media no question has used for this long are removed.
    pub unused_days: i64,
    /// `MEDIA_SPOOL_DIR`: where audio and video wait while they arrive (default: the
    /// system's temporary folder); it needs room for a few of the largest uploads.
    pub spool_dir: Option<PathBuf>,
}

/// Images larger than this on either side are refused (a small file can claim any size,
/// and a decoder would allocate for what it claims).
pub const MAX_IMAGE_SIDE: u64 = 4096;

/// The most any `MEDIA_MAX_*_BYTES` may be set to: the upload route's body bound. An
/// image is checked in memory (its metadata removed), so its limit is memory per upload.
pub const MAX_CONFIGURABLE_BYTES: u64 = 100_000_000;

impl MediaSettings {
    pub fn defaults_for(database: &DatabaseUrl) -> Self {
        Self {
            store: MediaStoreSettings::Fs {
                dir: default_fs_dir(database),
            },
            max_image_bytes: 2_000_000,
            max_audio_bytes: 5_000_000,
            max_video_bytes: 20_000_000,
            public_base_url: None,
            signed_urls: false,
            url_ttl_seconds: 3600,
            unused_days: 30,
            spool_dir: None,
        }
    }

    /// The largest upload of any kind: the bound of a body before its kind is known.
    pub fn max_bytes(&self) -> u64 {
        self.max_image_bytes
            .max(self.max_audio_bytes)
            .max(self.max_video_bytes)
    }

    pub(super) fn from_reader(r: &mut Reader<'_>, database: &DatabaseUrl) -> Self {
        let d = Self::defaults_for(database);
        let store = match r.string_or("MEDIA_STORE", "fs").as_str() {
            "fs" => MediaStoreSettings::Fs {
                dir: r
                    .string("MEDIA_FS_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| {
                        let MediaStoreSettings::Fs { dir } = &d.store else {
                            return PathBuf::from("data/media");
                        };
                        dir.clone()
                    }),
            },
            "s3" => {
                let mut required = |name: &str| {
                    r.string(name).unwrap_or_else(|| {
                        r.errors
                            .push(format!("{name} is required when MEDIA_STORE=s3"));
                        String::new()
                    })
                };
                let bucket = required("MEDIA_S3_BUCKET");
                let access_key_id = Secret::new(required("MEDIA_S3_ACCESS_KEY_ID"));
                let secret_access_key = Secret::new(required("MEDIA_S3_SECRET_ACCESS_KEY"));
                let endpoint = r.string("MEDIA_S3_ENDPOINT");
                if let Some(e) = &endpoint
                    && url::Url::parse(e).map_or(true, |u| !u.has_host())
                {
                    r.errors
                        .push("MEDIA_S3_ENDPOINT must be an absolute http(s):// URL".into());
                }
                MediaStoreSettings::S3(S3Settings {
                    endpoint,
                    bucket,
                    region: r.string_or("MEDIA_S3_REGION", "us-east-1"),
                    access_key_id,
                    secret_access_key,
                })
            }
            other => {
                r.errors
                    .push(format!("MEDIA_STORE={other:?}: expected fs or s3"));
                d.store.clone()
            }
        };
        let s = Self {
            max_image_bytes: r.parsed("MEDIA_MAX_IMAGE_BYTES", d.max_image_bytes),
            max_audio_bytes: r.parsed("MEDIA_MAX_AUDIO_BYTES", d.max_audio_bytes),
            max_video_bytes: r.parsed("MEDIA_MAX_VIDEO_BYTES", d.max_video_bytes),
            public_base_url: r
                .string("MEDIA_PUBLIC_BASE_URL")
                .map(|u| u.trim_end_matches('/').to_string()),
            signed_urls: r.flag("MEDIA_SIGNED_URLS", d.signed_urls),
            url_ttl_seconds: r.parsed("MEDIA_URL_TTL_SECONDS", d.url_ttl_seconds),
            unused_days: r.parsed("MEDIA_UNUSED_DAYS", d.unused_days),
            spool_dir: r.string("MEDIA_SPOOL_DIR").map(PathBuf::from),
            store,
        };
        for (name, value) in [
            ("MEDIA_MAX_IMAGE_BYTES", s.max_image_bytes),
            ("MEDIA_MAX_AUDIO_BYTES", s.max_audio_bytes),
            ("MEDIA_MAX_VIDEO_BYTES", s.max_video_bytes),
        ] {
            if !(1_024..=MAX_CONFIGURABLE_BYTES).contains(&value) {
                r.errors.push(format!(
                    "{name} must be 1024-{MAX_CONFIGURABLE_BYTES} bytes"
                ));
            }
        }
        if let Some(base) = &s.public_base_url
            && url::Url::parse(base).map_or(true, |u| !u.has_host())
        {
            r.errors
                .push("MEDIA_PUBLIC_BASE_URL must be an absolute http(s):// URL".into());
        }
        if s.signed_urls && !matches!(s.store, MediaStoreSettings::S3(_)) {
            r.errors
                .push("MEDIA_SIGNED_URLS=true needs MEDIA_STORE=s3".into());
        }
        if !(60..=7 * 86_400).contains(&s.url_ttl_seconds) {
            r.errors
                .push("MEDIA_URL_TTL_SECONDS must be 60-604800".into());
        }
        if !(1..=3650).contains(&s.unused_days) {
            r.errors.push("MEDIA_UNUSED_DAYS must be 1-3650".into());
        }
        s
    }
}

/// `media/` beside the SQLite file; `data/media` on PostgreSQL.
fn default_fs_dir(database: &DatabaseUrl) -> PathBuf {
    match database {
        DatabaseUrl::Sqlite(path) => path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .join("media"),
        DatabaseUrl::Postgres(_) => PathBuf::from("data/media"),
    }
}
