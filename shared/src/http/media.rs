//! `GET /media/{id}.{ext}` on both binaries: a stored media file, streamed from the
//! store (memory stays flat however large the file or many the downloads), with its
//! stored type, `nosniff`, a strong ETag (the id is the content's hash, so the file under
//! a name never changes: cached for a year, `immutable`), and one byte range (`Range`,
//! 206) so audio and video can seek. Several ranges are answered with the whole file, as
//! RFC 9110 allows; a range past the end is 416.

use std::ops::Range;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_range_header::{EndPosition, StartPosition, SyntacticallyCorrectRange};

use crate::context::AppContext;
use crate::message::msg;
use crate::services::media::{self, ServedFile};
use crate::{Error, Result};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// A media file is never a page: nothing in it runs, even opened on its own.
const SANDBOX: &str = "default-src 'none'; sandbox";

/// Answers `GET /media/{name}` (and `HEAD`, whose body axum drops).
pub async fn serve(ctx: &AppContext, name: &str, headers: &HeaderMap) -> Result<Response> {
    let not_found = || Error::not_found(msg::NO_SUCH_MEDIA_FILE);
    let file = media::parse_file_name(name).ok_or_else(not_found)?;
    let etag = format!("\"{}\"", file.id);
    if matches_etag(headers.get(header::IF_NONE_MATCH), &etag) {
        let mut response = StatusCode::NOT_MODIFIED.into_response();
        fixed_headers(response.headers_mut(), &file, &etag);
        return Ok(response);
    }
    let range = match wanted_range(headers, &etag) {
        None => None,
        Some(wanted) => {
            let size = media::size_of(ctx, &file).await?.ok_or_else(not_found)?;
            match byte_range(wanted, size) {
                Some(range) => Some(range),
                None => return Ok(unsatisfiable(size)),
            }
        }
    };
    let partial = range.is_some();
    let stored = media::open(ctx, &file, range)
        .await?
        .ok_or_else(not_found)?;
    let Range { start, end } = stored.range;
    let mut response = Body::from_stream(stored.body).into_response();
    let h = response.headers_mut();
    fixed_headers(h, &file, &etag);
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(end - start));
    if partial {
        *response.status_mut() = StatusCode::PARTIAL_CONTENT;
        let content_range = format!("bytes {start}-{}/{}", end.saturating_sub(1), stored.size);
        if let Ok(v) = HeaderValue::from_str(&content_range) {
            response.headers_mut().insert(header::CONTENT_RANGE, v);
        }
    }
    Ok(response)
}

fn fixed_headers(h: &mut HeaderMap, file: &ServedFile, etag: &str) {
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(file.format.mime()),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(SANDBOX),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
}

/// Whether `If-None-Match` names `etag` (or `*`).
fn matches_etag(value: Option<&HeaderValue>, etag: &str) -> bool {
    value.and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == etag || t == "*")
    })
}

/// The one range asked for, when there is one and it is well formed, and `If-Range`
/// (if any) names this file. Anything else asks for the whole file, as RFC 9110 lets a
/// server answer: several ranges (a comma: nothing more of the header is read), a
/// malformed or reversed range, a stale `If-Range`.
fn wanted_range(headers: &HeaderMap, etag: &str) -> Option<SyntacticallyCorrectRange> {
    let value = headers.get(header::RANGE)?.to_str().ok()?;
    if value.contains(',') {
        return None;
    }
    if let Some(if_range) = headers.get(header::IF_RANGE)
        && if_range.to_str().ok() != Some(etag)
    {
        return None;
    }
    match http_range_header::parse_range_header(value)
        .ok()?
        .ranges
        .as_slice()
    {
        [one] => match (one.start, one.end) {
            (StartPosition::Index(from), EndPosition::Index(to)) if to < from => None,
            _ => Some(*one),
        },
        _ => None,
    }
}

/// The bytes `wanted` names in a file of `size` bytes (end exclusive), clamped to the
/// file (a suffix longer than the file is all of it); `None` when it starts at or past
/// the end (416).
fn byte_range(wanted: SyntacticallyCorrectRange, size: u64) -> Option<Range<u64>> {
    let last = size.checked_sub(1)?;
    let start = match wanted.start {
        StartPosition::Index(i) if i > last => return None,
        StartPosition::Index(i) => i,
        StartPosition::FromLast(n) => size.saturating_sub(n),
    };
    let end = match wanted.end {
        EndPosition::Index(j) => j.min(last),
        EndPosition::LastByte => last,
    };
    Some(start..end + 1)
}

fn unsatisfiable(size: u64) -> Response {
    let mut response =
        Error::RangeNotSatisfiable(msg::the_range_is_outside_the_files_size_bytes(size))
            .into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
        response.headers_mut().insert(header::CONTENT_RANGE, v);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etags_match_lists_weak_forms_and_stars() {
        let etag = "\"abc\"";
        let v = |s: &'static str| HeaderValue::from_static(s);
        assert!(matches_etag(Some(&v("\"abc\"")), etag));
        assert!(matches_etag(Some(&v("\"x\", W/\"abc\"")), etag));
        assert!(matches_etag(Some(&v("*")), etag));
        assert!(!matches_etag(Some(&v("\"abd\"")), etag));
        assert!(!matches_etag(None, etag));
    }

    #[test]
    fn a_malformed_several_or_stale_range_asks_for_the_whole_file() {
        let etag = "\"abc\"";
        let mut h = HeaderMap::new();
        h.insert(header::RANGE, HeaderValue::from_static("bytes=0-9"));
        assert!(wanted_range(&h, etag).is_some());
        h.insert(header::IF_RANGE, HeaderValue::from_static("\"old\""));
        assert!(wanted_range(&h, etag).is_none());
        h.insert(header::IF_RANGE, HeaderValue::from_static("\"abc\""));
        assert!(wanted_range(&h, etag).is_some());
        for whole in ["pages=1-2", "bytes=10-5", "bytes=0-1,4-5", "bytes=0-1,0-1"] {
            h.insert(header::RANGE, HeaderValue::from_static(whole));
            assert!(wanted_range(&h, etag).is_none(), "{whole}");
        }
    }

    #[test]
    fn ranges_are_clamped_to_the_file() {
        let range = |start, end| SyntacticallyCorrectRange { start, end };
        use EndPosition::{Index as To, LastByte};
        use StartPosition::{FromLast, Index as From};
        assert_eq!(byte_range(range(From(0), To(9)), 100), Some(0..10));
        assert_eq!(byte_range(range(From(90), To(500)), 100), Some(90..100));
        assert_eq!(byte_range(range(From(99), LastByte), 100), Some(99..100));
        assert_eq!(
            byte_range(range(FromLast(10), LastByte), 100),
            Some(90..100)
        );
        // a suffix longer than the file: all of it
        assert_eq!(
            byte_range(range(FromLast(500), LastByte), 100),
            Some(0..100)
        );
        // starting at or past the end: unsatisfiable
        assert_eq!(byte_range(range(From(100), LastByte), 100), None);
        assert_eq!(byte_range(range(From(0), LastByte), 0), None);
    }
}
