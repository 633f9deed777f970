//! Static assets (htmx, CSS) compiled into the binary, served under URLs that carry the
//! first 8 hex digits of their content's SHA-256 (`css/console.1a2b3c4d.css`): pages link
//! to those (`urls::asset`), which caches may keep for a year, so a deploy that
//! changes a file changes its URL and no browser shows the old CSS with the new pages.
//!
//! - the hashed URL: `Cache-Control: public, max-age=31536000, immutable`;
//! - the plain URL (`css/console.css`, for whoever typed it): five minutes;
//! - both: `ETag: "<full SHA-256>"`, and `If-None-Match` with it answers 304;
//! - a hashed URL whose hash is not this process's content is 404 (`no-store`), never a
//!   redirect and never this content: in a rolling deploy an old process asked for a new
//!   hash would otherwise hand out old bytes that caches keep for a year under the new
//!   name.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "../static/"]
#[exclude = "*.md"]
// The API reference's files: `shared::api_docs` embeds and serves them at `/docs`.
#[exclude = "vendor/swagger-ui-*"]
#[exclude = "docs/*"]
struct Assets;

/// Hex digits of the hash in an asset's URL (32 bits: a new deploy's file colliding
/// with the old one's is a one-in-four-billion chance, and costs one stale stylesheet).
pub const HASH_LEN: usize = 8;
/// The hashed URL's caching: a year, never revalidated.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// The plain URL's caching: short, then revalidated with the ETag.
pub const PLAIN: &str = "public, max-age=300";

/// One embedded file as this process serves it.
struct Asset {
    data: Bytes,
    mime: HeaderValue,
    /// `"<sha256 hex>"`, the ETag of both its URLs.
    etag: HeaderValue,
    /// Its path with the hash in the file name.
    hashed: String,
}

struct Catalogue {
    /// By the path under `static/`.
    files: HashMap<String, Asset>,
    /// Hashed path → path under `static/`.
    by_hash: HashMap<String, String>,
}

/// Read once per process. Release builds embed each file with the SHA-256 rust-embed
/// computed at compile time; debug builds read `static/` from disk, and this snapshot
/// keeps the bytes served and the hash in their URL the same for the life of the process.
static CATALOGUE: LazyLock<Catalogue> = LazyLock::new(|| {
    let mut files = HashMap::new();
    let mut by_hash = HashMap::new();
    for path in Assets::iter() {
        let Some(file) = Assets::get(&path) else {
            continue;
        };
        let mut hex = String::with_capacity(64);
        for b in file.metadata.sha256_hash() {
            let _ = write!(hex, "{b:02x}");
        }
        let hashed = hashed_path(&path, &hex[..HASH_LEN]);
        let asset = Asset {
            mime: HeaderValue::from_str(file.metadata.mimetype())
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
            etag: HeaderValue::from_str(&format!("\"{hex}\""))
                .unwrap_or(HeaderValue::from_static("\"\"")),
            data: match file.data {
                std::borrow::Cow::Borrowed(bytes) => Bytes::from_static(bytes),
                std::borrow::Cow::Owned(bytes) => Bytes::from(bytes),
            },
            hashed: hashed.clone(),
        };
        by_hash.insert(hashed, path.to_string());
        files.insert(path.to_string(), asset);
    }
    Catalogue { files, by_hash }
});

/// `dir/name.ext` → `dir/name.<hash>.ext` (`name.<hash>` without an extension).
fn hashed_path(path: &str, hash: &str) -> String {
    let (dir, file) = match path.rsplit_once('/') {
        Some((dir, file)) => (Some(dir), file),
        None => (None, path),
    };
    let file = match file.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}.{hash}.{ext}"),
        _ => format!("{file}.{hash}"),
    };
    match dir {
        Some(dir) => format!("{dir}/{file}"),
        None => file,
    }
}

/// The content-hashed path of the embedded file `path`, under the assets' URL (see
/// `urls::asset`); the plain path, which answers 404, for a file that is not embedded.
pub fn hashed_path_of(path: &str) -> String {
    match CATALOGUE.files.get(path) {
        Some(asset) => asset.hashed.clone(),
        None => {
            tracing::error!(path, "a page links to an asset that is not embedded");
            path.to_string()
        }
    }
}

/// True when `If-None-Match` names `etag` (weak comparison, as RFC 9110 asks) or is `*`.
fn not_modified(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let Ok(etag) = etag.to_str() else {
        return false;
    };
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// `GET /console-assets/{path}` (HEAD too), by the hashed or the plain path.
pub async fn serve(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let catalogue = &*CATALOGUE;
    let (asset, caching) = match catalogue.by_hash.get(&path) {
        Some(plain) => (catalogue.files.get(plain), IMMUTABLE),
        None => (catalogue.files.get(&path), PLAIN),
    };
    let Some(asset) = asset else {
        return (
            StatusCode::NOT_FOUND,
            [(header::CACHE_CONTROL, "no-store")],
            "no such asset",
        )
            .into_response();
    };
    let validators = [
        (header::ETAG, asset.etag.clone()),
        (header::CACHE_CONTROL, HeaderValue::from_static(caching)),
    ];
    if not_modified(&headers, &asset.etag) {
        return (StatusCode::NOT_MODIFIED, validators).into_response();
    }
    (
        validators,
        [
            (header::CONTENT_TYPE, asset.mime.clone()),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        asset.data.clone(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::super::urls;
    use super::*;

    #[test]
    fn the_hash_goes_before_the_extension() {
        assert_eq!(
            hashed_path("css/console.css", "1a2b3c4d"),
            "css/console.1a2b3c4d.css"
        );
        assert_eq!(
            hashed_path("vendor/htmx-2.0.11.min.js", "00ff00ff"),
            "vendor/htmx-2.0.11.min.00ff00ff.js"
        );
        assert_eq!(hashed_path("LICENSE", "00ff00ff"), "LICENSE.00ff00ff");
        assert_eq!(hashed_path(".hidden", "00ff00ff"), ".hidden.00ff00ff");
    }

    #[test]
    fn every_page_asset_has_a_hashed_url_that_leads_back_to_it() {
        for path in [urls::STYLESHEET, urls::HTMX, urls::SCRIPT] {
            let url = urls::asset(path);
            let hashed = url
                .strip_prefix(&format!("{}/", urls::ASSETS))
                .unwrap_or_else(|| panic!("{url} is not an asset URL"));
            assert_ne!(hashed, path, "{path} has no hash in its URL");
            assert_eq!(
                CATALOGUE.by_hash.get(hashed).map(String::as_str),
                Some(path)
            );
        }
    }

    #[test]
    fn if_none_match_compares_weakly_and_takes_lists() {
        let etag = HeaderValue::from_static("\"abc\"");
        let with = |v: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::IF_NONE_MATCH, HeaderValue::from_static(v));
            h
        };
        assert!(not_modified(&with("\"abc\""), &etag));
        assert!(not_modified(&with("W/\"abc\""), &etag));
        assert!(not_modified(&with("\"x\", \"abc\""), &etag));
        assert!(not_modified(&with("*"), &etag));
        assert!(!not_modified(&with("\"abd\""), &etag));
        assert!(!not_modified(&HeaderMap::new(), &etag));
    }
}
