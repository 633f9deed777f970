//! The media library through HTTP: uploads (raw and multipart), what is refused, the
//! files served with ranges and caching, listing, deletion, the unused-media job, an
//! upload cut off midway; on a folder store and on a real S3-protocol server (moto).

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::header::{self, HeaderMap};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use shared::services::media;
use tests::raw_http::send_unread;
use tests::s3::S3Server;
use tests::{Engine, Resp, Service, TestApp, both_engines, both_engines_demo, both_engines_raw};
use tokio::io::AsyncWriteExt;

both_engines!(
    an_image_is_stored_once_and_served_with_its_headers,
    jpeg_metadata_is_removed_before_storing,
    metadata_goes_from_every_format_and_playback_stays,
    hostile_files_are_refused_and_leave_nothing,
    audio_and_video_are_served_in_byte_ranges,
    a_cut_off_upload_leaves_nothing_behind,
    the_library_lists_filters_and_pages,
    every_media_route_needs_an_admin_token,
);
both_engines_demo!(
    media_in_use_is_kept_and_unused_media_go,
    questions_carry_media_and_each_change_is_a_version,
    a_question_needs_its_media_before_review,
    players_receive_each_questions_media,
    audio_and_video_report_how_long_they_play,
);
both_engines_raw!(an_s3_store_holds_serves_and_signs,);

// ---- files made here ----

/// A PNG of `width` × `height` (a header and one data chunk: nothing here decodes it).
fn png(width: u32, height: u32) -> Vec<u8> {
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    for (kind, data) in [
        (b"IHDR", ihdr.as_slice()),
        (b"IDAT", &[0x78, 0x9C, 0x63, 0x60, 0, 0, 0, 4, 0, 1][..]),
    ] {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&[0, 0, 0, 0]);
    }
    out.extend_from_slice(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]);
    out
}

/// A JPEG whose EXIF segment holds a GPS position.
fn jpeg_with_gps() -> Vec<u8> {
    let exif = b"Exif\0\0MM\0*GPSLatitude 31.2304N GPSLongitude 121.4737E";
    let mut out = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16];
    out.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((exif.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(exif);
    out.extend_from_slice(&[0xFF, 0xC0, 0, 11, 8, 0, 30, 0, 40, 1, 1, 0x11, 0]);
    out.extend_from_slice(&[
        0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0x3F, 0, 0x12, 0x34, 0xFF, 0xD9,
    ]);
    out
}

/// A file of `tests/fixtures/media` (made by its `make.sh`).
pub(crate) fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/fixtures/media/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A playable MP3 of `len` bytes: silent MPEG-1 layer III frames (128 kbit/s, 44.1 kHz,
/// 417 bytes each), after an ID3 tag whose padding makes up the length.
fn mp3(len: usize) -> Vec<u8> {
    const FRAME: usize = 417;
    let frames = (len - 10) / FRAME;
    let padding = len - 10 - frames * FRAME;
    let size = u32::try_from(padding).unwrap();
    let mut out = b"ID3\x04\0\0".to_vec();
    // the tag's size in four 7-bit bytes
    out.extend([21, 14, 7, 0].map(|shift| ((size >> shift) & 0x7F) as u8));
    out.resize(10 + padding, 0);
    let mut frame = vec![0xFF, 0xFB, 0x90, 0x00];
    frame.resize(FRAME, 0);
    for _ in 0..frames {
        out.extend_from_slice(&frame);
    }
    out
}

/// A playable MP4 of `len` bytes: 2 s of 64 × 48 pictures, then a `free` box of varied
/// bytes up to the length.
fn mp4(len: usize) -> Vec<u8> {
    let mut out = fixture("clip.mp4");
    let free = len - out.len();
    out.extend_from_slice(&u32::try_from(free).unwrap().to_be_bytes());
    out.extend_from_slice(b"free");
    out.extend((8..free).map(|i| (i % 253) as u8));
    out
}

/// `bytes` (an MP4) with its movie's `udta` box turned into a `free` box of the same
/// length, zeroed: what the service stores of it (the fixtures' clips carry one, with
/// the encoder's name).
fn without_user_data(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let at = out
        .windows(4)
        .position(|w| w == b"udta")
        .expect("a udta box")
        - 4;
    let size = u32::from_be_bytes(out[at..at + 4].try_into().unwrap()) as usize;
    out[at + 4..at + 8].copy_from_slice(b"free");
    out[at + 8..at + size].fill(0);
    out
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a hostile upload is, its bytes, its claimed name and type, and the refusal's
/// status and code.
type HostileCase = (
    &'static str,
    Vec<u8>,
    &'static str,
    &'static str,
    u16,
    &'static str,
);

// ---- calls ----

async fn upload_raw(app: &TestApp, token: &str, bytes: Vec<u8>, content_type: &str) -> Resp {
    let resp = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/media"))
        .bearer_auth(token)
        .header(header::CONTENT_TYPE, content_type)
        .body(bytes)
        .send()
        .await
        .unwrap();
    TestApp::read(resp).await
}

async fn upload_form(app: &TestApp, token: &str, bytes: Vec<u8>, name: &str, mime: &str) -> Resp {
    let part = reqwest::multipart::Part::bytes(bytes)
        .file_name(name.to_string())
        .mime_str(mime)
        .unwrap();
    let form = reqwest::multipart::Form::new()
        .text("note", "ignored")
        .part("file", part);
    let resp = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/media"))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    TestApp::read(resp).await
}

/// A multipart form of one file, written out by hand.
fn form_body(name: &str, mime: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "quiz-media-boundary-7f3a";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
         Content-Type: {mime}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// `GET {path}` on `service` with `headers`: status, headers and the raw bytes.
async fn fetch(
    app: &TestApp,
    service: Service,
    path: &str,
    headers: &[(header::HeaderName, &str)],
) -> (u16, HeaderMap, Vec<u8>) {
    let mut req = app.client.get(app.url(service, path));
    for (name, value) in headers {
        req = req.header(name, *value);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    (status, headers, resp.bytes().await.unwrap().to_vec())
}

fn header_of(headers: &HeaderMap, name: header::HeaderName) -> &str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

async fn delete_media(app: &TestApp, token: &str, id: &str) -> Resp {
    let path = format!("/v1/admin/media/{id}");
    app.call(
        Service::Admin,
        reqwest::Method::DELETE,
        &path,
        None,
        Some(token),
    )
    .await
}

async fn set_status(app: &TestApp, token: &str, question: &str, status: &str) -> Resp {
    app.call(
        Service::Admin,
        reqwest::Method::PATCH,
        &format!("/v1/admin/questions/{question}/status"),
        Some(json!({ "status": status })),
        Some(token),
    )
    .await
}

async fn media_rows(app: &TestApp) -> i64 {
    app.scalar("SELECT count(*) FROM media", &[]).await
}

async fn audits(app: &TestApp, action: &str) -> i64 {
    app.scalar(
        "SELECT count(*) FROM audit_log WHERE action = $1",
        &[action],
    )
    .await
}

/// Every file under `dir`, however deep.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn store_dir(app: &TestApp) -> PathBuf {
    app.database.media_dir.join("store")
}

fn spool_dir(app: &TestApp) -> PathBuf {
    app.database.media_dir.join("spool")
}

// ---- tests ----

async fn an_image_is_stored_once_and_served_with_its_headers(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let bytes = png(64, 48);
    let id = sha256_hex(&bytes);
    // the header says text: the bytes decide
    let stored = upload_raw(&app, &token, bytes.clone(), "text/plain").await;
    let item = stored.ok();
    assert_eq!(item["id"], id.as_str());
    assert_eq!(item["type"], "image");
    assert_eq!(item["mime"], "image/png");
    assert_eq!(item["bytes"], bytes.len());
    assert_eq!(
        (item["width"].as_i64(), item["height"].as_i64()),
        (Some(64), Some(48))
    );
    assert!(item["durationMs"].is_null());
    assert_eq!(item["url"], format!("/media/{id}.png"));
    assert_eq!(item["usedBy"], 0);
    assert_eq!(item["createdBy"], "root-admin");
    assert!(item["createdAt"].is_string());

    // the same file again, as a form with another name: the same file, stored once
    let again = upload_form(&app, &token, bytes.clone(), "flag.jpeg", "image/jpeg").await;
    assert_eq!(again.ok()["id"], id.as_str());
    assert_eq!(media_rows(&app).await, 1);
    assert_eq!(audits(&app, "media.upload").await, 1);
    assert_eq!(files_under(&store_dir(&app)).len(), 1);
    // an object lost from the store comes back with the next upload of the file
    std::fs::remove_file(&files_under(&store_dir(&app))[0]).unwrap();
    let restored = upload_raw(&app, &token, bytes.clone(), "image/png").await;
    assert_eq!(restored.ok()["id"], id.as_str());
    assert_eq!(files_under(&store_dir(&app)).len(), 1);
    assert_eq!(audits(&app, "media.upload").await, 1);

    // served by both binaries, with its type, nosniff, an ETag and immutable caching
    for service in [Service::Player, Service::Admin] {
        let (status, headers, body) = fetch(&app, service, &format!("/media/{id}.png"), &[]).await;
        assert_eq!(status, 200);
        assert_eq!(body, bytes);
        assert_eq!(header_of(&headers, header::CONTENT_TYPE), "image/png");
        assert_eq!(
            header_of(&headers, header::X_CONTENT_TYPE_OPTIONS),
            "nosniff"
        );
        assert_eq!(header_of(&headers, header::ETAG), format!("\"{id}\""));
        assert_eq!(
            header_of(&headers, header::CACHE_CONTROL),
            "public, max-age=31536000, immutable"
        );
        assert_eq!(header_of(&headers, header::ACCEPT_RANGES), "bytes");
        assert!(header_of(&headers, header::CONTENT_SECURITY_POLICY).contains("sandbox"));
    }
    let etag = format!("\"{id}\"");
    let (status, headers, body) = fetch(
        &app,
        Service::Player,
        &format!("/media/{id}.png"),
        &[(header::IF_NONE_MATCH, &etag)],
    )
    .await;
    assert_eq!(status, 304);
    assert!(body.is_empty());
    assert_eq!(header_of(&headers, header::ETAG), etag);

    // another extension, a bad id, a missing file: 404 in the envelope
    for path in [
        format!("/media/{id}.jpg"),
        format!("/media/{id}"),
        "/media/..%2F..%2Fetc%2Fpasswd.png".to_string(),
        format!("/media/{}.png", "0".repeat(64)),
        format!("/media/{}.png", id.to_uppercase()),
    ] {
        let resp = app.get(&path, None).await;
        resp.assert_error(404, "NOT_FOUND");
    }
}

async fn jpeg_metadata_is_removed_before_storing(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let sent = jpeg_with_gps();
    let resp = upload_form(&app, &token, sent.clone(), "photo.jpg", "image/jpeg").await;
    let item = resp.ok().clone();
    assert_eq!(item["mime"], "image/jpeg");
    assert_eq!(
        (item["width"].as_i64(), item["height"].as_i64()),
        (Some(40), Some(30))
    );
    let id = item["id"].as_str().unwrap();
    let (status, _, stored) = fetch(&app, Service::Player, &format!("/media/{id}.jpg"), &[]).await;
    assert_eq!(status, 200);
    assert!(stored.len() < sent.len());
    assert!(!stored.windows(4).any(|w| w == b"Exif"), "EXIF kept");
    assert!(!stored.windows(3).any(|w| w == b"GPS"), "GPS kept");
    // the id is the stored bytes' hash, and the image data is unchanged
    assert_eq!(sha256_hex(&stored), id);
    assert!(stored.ends_with(&[0x12, 0x34, 0xFF, 0xD9]));
    assert_eq!(item["bytes"], stored.len());
}

async fn hostile_files_are_refused_and_leave_nothing(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let svg = br#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>"#.to_vec();
    let html = b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>".to_vec();
    // a zip whose one entry claims 4 GiB: refused for what it is, never opened
    let mut zip_bomb =
        b"PK\x03\x04\x14\0\0\0\x08\0\0\0\0\0\0\0\0\0\x10\0\0\0\xff\xff\xff\xff\x08\0\0\0bomb.txt"
            .to_vec();
    zip_bomb.extend_from_slice(&[0x4B, 0x4C, 0x1C, 0x05, 0xA3, 0x60, 0x14, 0x0C, 0x77, 0, 0]);
    let jpeg = jpeg_with_gps();
    let truncated_jpeg = jpeg[..jpeg.len() - 4].to_vec();
    let huge_claim = png(100_000, 100_000);
    let cases: Vec<HostileCase> = vec![
        (
            "svg with a script",
            svg,
            "logo.svg",
            "image/svg+xml",
            400,
            "VALIDATION_ERROR",
        ),
        (
            "html named .png",
            html,
            "cat.png",
            "image/png",
            400,
            "VALIDATION_ERROR",
        ),
        (
            "zip bomb",
            zip_bomb,
            "flags.png",
            "image/png",
            400,
            "VALIDATION_ERROR",
        ),
        (
            "truncated jpeg",
            truncated_jpeg,
            "cut.jpg",
            "image/jpeg",
            400,
            "VALIDATION_ERROR",
        ),
        (
            "png claiming 100000²",
            huge_claim,
            "big.png",
            "image/png",
            400,
            "VALIDATION_ERROR",
        ),
        (
            "30 MB video",
            mp4(30_000_000),
            "clip.mp4",
            "video/mp4",
            413,
            "PAYLOAD_TOO_LARGE",
        ),
        (
            "video signature then noise",
            {
                let mut fake = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41".to_vec();
                fake.extend((0..5000).map(|i| (i % 253) as u8));
                fake
            },
            "clip.mp4",
            "video/mp4",
            400,
            "VALIDATION_ERROR",
        ),
        (
            "webm cut in half",
            {
                let whole = fixture("clip.webm");
                whole[..whole.len() / 2].to_vec()
            },
            "clip.webm",
            "video/webm",
            400,
            "VALIDATION_ERROR",
        ),
        (
            "video with no picture",
            fixture("sound-only.mp4"),
            "clip.mp4",
            "video/mp4",
            400,
            "VALIDATION_ERROR",
        ),
        (
            "empty file",
            Vec::new(),
            "empty.png",
            "image/png",
            400,
            "VALIDATION_ERROR",
        ),
    ];
    for (what, bytes, name, mime, status, code) in cases {
        // a socket of its own: a refused body is answered before it is all sent
        let url = app.url(Service::Admin, "/v1/admin/media");
        let (form_type, form) = form_body(name, mime, &bytes);
        let as_form = send_unread(&url, &reqwest::Method::POST, &form_type, &form, &token).await;
        assert_eq!(as_form.status, status, "{what} (form): {}", as_form.body);
        as_form.assert_error(status, code);
        let raw = send_unread(&url, &reqwest::Method::POST, mime, &bytes, &token).await;
        assert_eq!(raw.status, status, "{what} (raw): {}", raw.body);
        raw.assert_error(status, code);
    }
    // a fragment declaring 2³² − 1 samples of no size: refused, not counted for hours
    let empty_samples = upload_raw(&app, &token, fixture("empty-samples.mp4"), "video/mp4").await;
    assert_eq!(
        empty_samples.body["error"]["message"],
        "the mp4 file is damaged or cut short"
    );
    let no_picture = upload_raw(&app, &token, fixture("sound-only.mp4"), "video/mp4").await;
    assert_eq!(
        no_picture.body["error"]["message"],
        "the mp4 file has no picture track"
    );
    let message = upload_raw(&app, &token, png(100_000, 100_000), "image/png").await;
    assert!(
        message.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("100000 × 100000"),
        "{}",
        message.body
    );
    // in the player's language too
    let in_chinese = TestApp::client_in("zh-CN")
        .post(app.url(Service::Admin, "/v1/admin/media"))
        .bearer_auth(&token)
        .body(b"<svg><script>alert(1)</script></svg>".to_vec())
        .send()
        .await
        .unwrap();
    let in_chinese = TestApp::read(in_chinese).await;
    in_chinese.assert_error(400, "VALIDATION_ERROR");
    assert!(
        in_chinese.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("不是支持的媒体类型"),
        "{}",
        in_chinese.body
    );
    let no_file = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/media"))
        .bearer_auth(&token)
        .multipart(reqwest::multipart::Form::new().text("note", "no file here"))
        .send()
        .await
        .unwrap();
    TestApp::read(no_file)
        .await
        .assert_error(400, "VALIDATION_ERROR");

    assert_eq!(media_rows(&app).await, 0);
    assert!(files_under(&store_dir(&app)).is_empty());
    assert!(files_under(&spool_dir(&app)).is_empty());
    assert_eq!(audits(&app, "media.upload").await, 0);
}

async fn audio_and_video_are_served_in_byte_ranges(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let audio = mp3(300_000);
    let item = upload_raw(&app, &token, audio.clone(), "application/octet-stream")
        .await
        .ok()
        .clone();
    assert_eq!(item["type"], "audio");
    assert_eq!(item["mime"], "audio/mpeg");
    assert_eq!(item["id"], sha256_hex(&audio));
    assert!(item["width"].is_null());
    // 719 frames of 1,152 samples at 44.1 kHz
    assert_eq!(item["durationMs"], 18_782);
    let path = format!("/media/{}.mp3", item["id"].as_str().unwrap());
    let (status, _, body) = fetch(
        &app,
        Service::Player,
        &path,
        &[(header::RANGE, "bytes=1000-1999")],
    )
    .await;
    assert_eq!((status, body.as_slice()), (206, &audio[1000..2000]));

    // over a store part (5 MiB): the video goes to the store in two parts
    let bytes = mp4(6 * 1024 * 1024 + 123);
    let item = upload_raw(&app, &token, bytes.clone(), "application/octet-stream")
        .await
        .ok()
        .clone();
    assert_eq!(item["type"], "video");
    assert_eq!(item["mime"], "video/mp4");
    // stored without its user data, every other byte in place
    let bytes = without_user_data(&bytes);
    assert_eq!(item["id"], sha256_hex(&bytes));
    assert_eq!(
        (&item["durationMs"], &item["width"], &item["height"]),
        (&json!(2000), &json!(64), &json!(48))
    );
    let path = format!("/media/{}.mp4", item["id"].as_str().unwrap());
    let size = bytes.len();

    let (status, headers, body) = fetch(&app, Service::Player, &path, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(body, bytes);
    assert_eq!(header_of(&headers, header::CONTENT_TYPE), "video/mp4");
    assert_eq!(
        header_of(&headers, header::CONTENT_LENGTH),
        size.to_string()
    );

    for (range, from, to) in [
        ("bytes=100-199", 100, 199),
        ("bytes=-10", size - 10, size - 1),
        (&format!("bytes={}-", size - 5) as &str, size - 5, size - 1),
        ("bytes=5000000-5000009", 5_000_000, 5_000_009),
    ] {
        let (status, headers, body) =
            fetch(&app, Service::Player, &path, &[(header::RANGE, range)]).await;
        assert_eq!(status, 206, "{range}");
        assert_eq!(
            header_of(&headers, header::CONTENT_RANGE),
            format!("bytes {from}-{to}/{size}"),
            "{range}"
        );
        assert_eq!(body, bytes[from..=to], "{range}");
    }
    // a suffix longer than the file: all of it, as a range
    let longer = format!("bytes=-{}", size + 10);
    let (status, headers, body) = fetch(
        &app,
        Service::Player,
        &path,
        &[(header::RANGE, longer.as_str())],
    )
    .await;
    assert_eq!(status, 206);
    assert_eq!(
        header_of(&headers, header::CONTENT_RANGE),
        format!("bytes 0-{}/{size}", size - 1)
    );
    assert_eq!(body.len(), size);
    // past the end: 416 with the size
    let (status, headers, body) = fetch(
        &app,
        Service::Player,
        &path,
        &[(header::RANGE, &format!("bytes={size}-") as &str)],
    )
    .await;
    assert_eq!(status, 416);
    assert_eq!(
        header_of(&headers, header::CONTENT_RANGE),
        format!("bytes */{size}")
    );
    let envelope: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(envelope["error"]["code"], "RANGE_NOT_SATISFIABLE");
    // several ranges, a malformed one, or a stale If-Range: the whole file
    for headers in [
        vec![(header::RANGE, "bytes=0-9,20-29")],
        vec![(header::RANGE, "bytes=0-9,5-20")],
        vec![(header::RANGE, "bytes=20-10")],
        vec![(header::RANGE, "chapters=1-2")],
        vec![
            (header::RANGE, "bytes=0-9"),
            (header::IF_RANGE, "\"stale\""),
        ],
    ] {
        let (status, _, body) = fetch(&app, Service::Player, &path, &headers).await;
        assert_eq!(status, 200, "{headers:?}");
        assert_eq!(body.len(), size);
    }
}

async fn a_cut_off_upload_leaves_nothing_behind(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let addr = app.admin_url.trim_start_matches("http://").to_string();
    let mut conn = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /v1/admin/media HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/octet-stream\r\nContent-Length: 12000000\r\n\r\n"
    );
    conn.write_all(head.as_bytes()).await.unwrap();
    // half the video, then the client is gone
    conn.write_all(&mp4(6_000_000)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(conn);

    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !files_under(&spool_dir(&app)).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the spooled part stayed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(media_rows(&app).await, 0);
    assert!(files_under(&store_dir(&app)).is_empty());
    // and the next upload works
    upload_raw(&app, &token, mp4(10_000), "video/mp4")
        .await
        .ok();
}

async fn the_library_lists_filters_and_pages(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let mut ids = Vec::new();
    for (i, bytes) in [png(10, 10), mp3(5000), png(11, 11), mp4(5000)]
        .into_iter()
        .enumerate()
    {
        ids.push(
            upload_raw(&app, &token, bytes, "x/y").await.ok()["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        app.clock.advance(chrono::Duration::seconds(i as i64 + 1));
    }
    let list = app.admin_get("/v1/admin/media?limit=3", Some(&token)).await;
    let page: Vec<&str> = list
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    // newest first
    assert_eq!(page, [ids[3].as_str(), ids[2].as_str(), ids[1].as_str()]);
    assert_eq!(list.body["pagination"]["total"], 4);
    let images = app
        .admin_get("/v1/admin/media?type=image", Some(&token))
        .await;
    assert_eq!(images.body["pagination"]["total"], 2);
    assert!(
        images
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["type"] == "image")
    );
    let unused = app
        .admin_get("/v1/admin/media?unused=true&type=video", Some(&token))
        .await;
    assert_eq!(unused.ok().as_array().unwrap().len(), 1);
    for bad in [
        "type=svg",
        "page=0",
        "limit=51",
        "unused=maybe",
        "limit=abc",
    ] {
        app.admin_get(&format!("/v1/admin/media?{bad}"), Some(&token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }

    // deleting an unused file: gone from the list, the store and the player's URL
    let gone = delete_media(&app, &token, &ids[1]).await;
    assert_eq!(gone.ok()["id"], ids[1].as_str());
    assert_eq!(audits(&app, "media.delete").await, 1);
    app.get(&format!("/media/{}.mp3", ids[1]), None)
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(files_under(&store_dir(&app)).len(), 3);
    for missing in [ids[1].clone(), "nope".to_string(), "a".repeat(64)] {
        delete_media(&app, &token, &missing)
            .await
            .assert_error(404, "NOT_FOUND");
    }
}

async fn every_media_route_needs_an_admin_token(app: TestApp) {
    let (_, player, _) = app.guest("media-device").await;
    for token in [None, Some(player.as_str()), Some("not-a-token")] {
        let list = app.admin_get("/v1/admin/media", token).await;
        list.assert_error(401, "UNAUTHORIZED");
        let mut req = app
            .client
            .post(app.url(Service::Admin, "/v1/admin/media"))
            .body(png(2, 2));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        TestApp::read(req.send().await.unwrap())
            .await
            .assert_error(401, "UNAUTHORIZED");
        app.call(
            Service::Admin,
            reqwest::Method::DELETE,
            &format!("/v1/admin/media/{}", "a".repeat(64)),
            None,
            token,
        )
        .await
        .assert_error(401, "UNAUTHORIZED");
    }
    assert_eq!(media_rows(&app).await, 0);
}

async fn media_in_use_is_kept_and_unused_media_go(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let used = upload_raw(&app, &token, png(20, 20), "image/png")
        .await
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let unused = upload_raw(&app, &token, png(21, 21), "image/png")
        .await
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let question = app
        .text("SELECT id FROM questions ORDER BY id LIMIT 1", &[])
        .await;
    app.exec(
        "UPDATE questions SET media_id = $1, media_alt = 'a flag' WHERE id = $2",
        &[&used, &question],
    )
    .await;

    let listed = app
        .admin_get("/v1/admin/media?unused=true", Some(&token))
        .await;
    let ids: Vec<&str> = listed
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [unused.as_str()]);
    let all = app.admin_get("/v1/admin/media", Some(&token)).await;
    let used_by = all
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == used.as_str())
        .unwrap()["usedBy"]
        .clone();
    assert_eq!(used_by, 1);

    delete_media(&app, &token, &used)
        .await
        .assert_error(409, "CONFLICT");

    // the job: nothing is old enough yet
    assert_eq!(media::purge_unused(&app.ctx).await.unwrap(), 0);
    app.clock.advance(chrono::Duration::days(31));
    assert_eq!(media::purge_unused(&app.ctx).await.unwrap(), 1);
    assert_eq!(audits(&app, "media.purge").await, 1);
    // the one in use, and the demo's 12 flags
    assert_eq!(media_rows(&app).await, 13);
    app.get(&format!("/media/{unused}.png"), None)
        .await
        .assert_error(404, "NOT_FOUND");
    let (status, _, _) = fetch(&app, Service::Player, &format!("/media/{used}.png"), &[]).await;
    assert_eq!(status, 200);
    assert_eq!(media::purge_unused(&app.ctx).await.unwrap(), 0);
}

async fn an_s3_store_holds_serves_and_signs(engine: Engine) {
    let server = S3Server::start().await;
    let bucket = server.bucket("quiz-media").await;
    let mut vars = server.vars(&bucket);
    vars.push(("MEDIA_SIGNED_URLS", "true".into()));
    vars.push(("MEDIA_URL_TTL_SECONDS", "600".into()));
    let app = TestApp::spawn_with(engine, &vars).await;
    let (token, _, _) = app.admin_login().await;

    let image = png(30, 20);
    // (stored without its user data: every other byte in place)
    let video = without_user_data(&mp4(6 * 1024 * 1024 + 7));
    let image_item = upload_form(&app, &token, image.clone(), "a.png", "image/png")
        .await
        .ok()
        .clone();
    let video_item = upload_raw(&app, &token, video.clone(), "video/mp4")
        .await
        .ok()
        .clone();
    let (image_id, video_id) = (
        image_item["id"].as_str().unwrap(),
        video_item["id"].as_str().unwrap(),
    );
    let mut keys = server.keys(&bucket).await;
    keys.sort();
    let mut expected = vec![format!("{image_id}.png"), format!("{video_id}.mp4")];
    expected.sort();
    assert_eq!(keys, expected);

    // presigned URLs of the bucket itself, which it serves
    let url = video_item["url"].as_str().unwrap();
    assert!(url.starts_with(&server.endpoint), "{url}");
    assert!(
        url.contains("X-Amz-Signature=") && url.contains("X-Amz-Expires=600"),
        "{url}"
    );
    let direct = reqwest::get(url).await.unwrap();
    assert_eq!(direct.status(), 200);
    assert_eq!(direct.bytes().await.unwrap().to_vec(), video);

    // the player API serves from the bucket too, ranges included
    let (status, headers, body) = fetch(
        &app,
        Service::Player,
        &format!("/media/{video_id}.mp4"),
        &[(header::RANGE, "bytes=5242870-5242889")],
    )
    .await;
    assert_eq!(status, 206);
    assert_eq!(body, video[5_242_870..=5_242_889]);
    assert_eq!(
        header_of(&headers, header::CONTENT_RANGE),
        format!("bytes 5242870-5242889/{}", video.len())
    );
    let (status, _, body) = fetch(
        &app,
        Service::Player,
        &format!("/media/{image_id}.png"),
        &[],
    )
    .await;
    assert_eq!((status, body), (200, image));

    // a refused file leaves the bucket as it was; a deleted one leaves it
    let url = app.url(Service::Admin, "/v1/admin/media");
    send_unread(
        &url,
        &reqwest::Method::POST,
        "video/mp4",
        &mp4(30_000_000),
        &token,
    )
    .await
    .assert_error(413, "PAYLOAD_TOO_LARGE");
    delete_media(&app, &token, image_id).await.ok();
    assert_eq!(server.keys(&bucket).await, [format!("{video_id}.mp4")]);

    // the store down: 503 with Retry-After, never 500
    drop(server);
    let down = upload_raw(&app, &token, png(5, 5), "image/png").await;
    down.assert_error(503, "SERVICE_UNAVAILABLE");
    assert!(down.headers.get(header::RETRY_AFTER).is_some());
    assert_eq!(media_rows(&app).await, 1);
}

fn image_question(stem: &str, media: Value) -> Value {
    json!({
        "stem": {"text": stem},
        "contentType": "image",
        "correctAnswer": "China",
        "distractors": ["Viet Nam", "Morocco"],
        "categoryId": "world-geography",
        "difficulty": 2,
        "media": media,
    })
}

async fn upload_id(app: &TestApp, token: &str, bytes: Vec<u8>) -> String {
    upload_raw(app, token, bytes, "application/octet-stream")
        .await
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn put_question(app: &TestApp, token: &str, id: &str, body: Value) -> Resp {
    app.call(
        Service::Admin,
        reqwest::Method::PUT,
        &format!("/v1/admin/questions/{id}"),
        Some(body),
        Some(token),
    )
    .await
}

async fn used_by(app: &TestApp, token: &str, media: &str) -> i64 {
    let list = app.admin_get("/v1/admin/media?limit=50", Some(token)).await;
    list.ok()
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == media)
        .map_or(-1, |m| m["usedBy"].as_i64().unwrap())
}

async fn questions_carry_media_and_each_change_is_a_version(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let red = upload_id(&app, &token, png(30, 20)).await;
    let blue = upload_id(&app, &token, png(31, 20)).await;
    let sound = upload_id(&app, &token, mp3(5000)).await;

    let created = app
        .admin_post(
            "/v1/admin/questions",
            image_question(
                "Whose flag is this?",
                json!({"id": red, "alt": " A red flag with five yellow stars "}),
            ),
            Some(&token),
        )
        .await;
    let id = created.ok()["id"].as_str().unwrap().to_string();
    let q = app
        .admin_get(&format!("/v1/admin/questions/{id}"), Some(&token))
        .await;
    assert_eq!(
        q.ok()["media"],
        json!({"id": red, "alt": "A red flag with five yellow stars"})
    );
    assert_eq!(used_by(&app, &token, &red).await, 1);
    let unused = app
        .admin_get("/v1/admin/media?unused=true&limit=50", Some(&token))
        .await;
    assert!(
        !unused
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == red.as_str())
    );

    // refusals name the field
    for (media, needle) in [
        (json!({"id": red}), "media.alt is required"),
        (
            json!({"id": red, "alt": "x".repeat(301)}),
            "media.alt must be at most 300",
        ),
        (json!({"id": sound, "alt": "a call"}), "media.id is audio"),
        (
            json!({"id": "f".repeat(64), "alt": "a flag"}),
            "not in the media library",
        ),
        (
            json!({"id": "../../etc/passwd", "alt": "a flag"}),
            "media.id must be a media id",
        ),
    ] {
        let r = app
            .admin_post(
                "/v1/admin/questions",
                image_question("Refused?", media.clone()),
                Some(&token),
            )
            .await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert!(
            r.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains(needle),
            "{media}: {}",
            r.body
        );
    }
    let mut text = image_question("Text with a picture?", json!({"id": red, "alt": "a flag"}));
    text["contentType"] = json!("text");
    app.admin_post("/v1/admin/questions", text, Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");

    // a media change is a new version, named "media"
    let changed = put_question(
        &app,
        &token,
        &id,
        json!({"media": {"id": blue, "alt": "A blue flag"}}),
    )
    .await;
    assert_eq!(changed.ok()["version"], 2);
    let versions = app
        .admin_get(&format!("/v1/admin/questions/{id}/versions"), Some(&token))
        .await;
    assert_eq!(versions.ok()[0]["changedFields"], json!(["media"]));
    let v1 = app
        .admin_get(
            &format!("/v1/admin/questions/{id}/versions/1"),
            Some(&token),
        )
        .await;
    assert_eq!(v1.ok()["media"]["id"], red.as_str());
    let v2 = app
        .admin_get(
            &format!("/v1/admin/questions/{id}/versions/2"),
            Some(&token),
        )
        .await;
    assert_eq!(v2.ok()["media"], json!({"id": blue, "alt": "A blue flag"}));
    assert_eq!(
        (
            used_by(&app, &token, &red).await,
            used_by(&app, &token, &blue).await
        ),
        (0, 1)
    );
    // an edit that leaves the media out keeps it; the same media again is no version
    let kept = put_question(&app, &token, &id, json!({"difficulty": 3})).await;
    assert_eq!(kept.ok()["media"]["id"], blue.as_str());
    let same = put_question(
        &app,
        &token,
        &id,
        json!({"media": {"id": blue, "alt": "A blue flag"}}),
    )
    .await;
    assert_eq!(same.ok()["version"], 3);
    // the old file is in use by no question: deletable now, the new one is not
    delete_media(&app, &token, &blue)
        .await
        .assert_error(409, "CONFLICT");

    // null removes it (a version), and a revert brings it back
    let removed = put_question(&app, &token, &id, json!({"media": null})).await;
    assert!(removed.ok()["media"].is_null());
    assert_eq!(removed.ok()["version"], 4);
    let back = app
        .admin_post(
            &format!("/v1/admin/questions/{id}/versions/1/revert"),
            json!({}),
            Some(&token),
        )
        .await;
    assert_eq!(back.ok()["media"]["id"], red.as_str());
    assert_eq!(back.ok()["version"], 5);
    assert_eq!(used_by(&app, &token, &red).await, 1);

    // a revert to a version whose file left the library is refused, and changes nothing
    let gone = delete_media(&app, &token, &blue).await;
    gone.ok();
    let refused = app
        .admin_post(
            &format!("/v1/admin/questions/{id}/versions/2/revert"),
            json!({}),
            Some(&token),
        )
        .await;
    refused.assert_error(409, "CONFLICT");
    let now = app
        .admin_get(&format!("/v1/admin/questions/{id}"), Some(&token))
        .await;
    assert_eq!(
        (
            now.ok()["version"].as_i64(),
            now.ok()["media"]["id"].as_str()
        ),
        (Some(5), Some(red.as_str()))
    );

    // the JSON export carries the media, and importing it attaches the same file
    let export = app
        .client
        .get(app.url(
            Service::Admin,
            "/v1/admin/questions/export?format=json&keyword=Whose%20flag",
        ))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(export["questions"][0]["media"]["id"], red.as_str());
    let imported = app
        .admin_post("/v1/admin/questions/import", export, Some(&token))
        .await;
    let new_id = imported.ok()["ids"][0].as_str().unwrap().to_string();
    let copy = app
        .admin_get(&format!("/v1/admin/questions/{new_id}"), Some(&token))
        .await;
    assert_eq!(copy.ok()["media"]["id"], red.as_str());
    assert_eq!(used_by(&app, &token, &red).await, 2);
}

async fn a_question_needs_its_media_before_review(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let flag = upload_id(&app, &token, png(40, 30)).await;
    let mut bare = image_question("Which flag is this?", Value::Null);
    bare.as_object_mut().unwrap().remove("media");
    let id = app
        .admin_post("/v1/admin/questions", bare, Some(&token))
        .await
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let status = |s: &str| json!({"status": s});
    // PATCH, PUT with a status, and the batch all hold it back
    let r = set_status(&app, &token, &id, "reviewing").await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("media is required"),
        "{}",
        r.body
    );
    put_question(&app, &token, &id, status("reviewing"))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // a question in review without media (from before media existed) is not published
    let legacy = app
        .admin_post(
            "/v1/admin/questions",
            {
                let mut q = image_question("Which flag was this?", Value::Null);
                q.as_object_mut().unwrap().remove("media");
                q
            },
            Some(&token),
        )
        .await
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.exec(
        "UPDATE questions SET status = 'reviewing' WHERE id = $1",
        &[&legacy],
    )
    .await;
    let batch = app
        .admin_post(
            "/v1/admin/questions/batch-publish",
            json!({"ids": [legacy]}),
            Some(&token),
        )
        .await;
    assert_eq!(batch.ok()["succeeded"], 0);
    assert!(
        batch.ok()["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("media is required"),
        "{}",
        batch.body
    );
    // and it can go back to draft to get one
    let back = set_status(&app, &token, &legacy, "draft").await;
    assert_eq!(back.ok()["status"], "draft");
    let draft = app
        .admin_get(&format!("/v1/admin/questions/{id}"), Some(&token))
        .await;
    assert_eq!(draft.ok()["status"], "draft");

    // with its media it goes through; then removing the media of a reviewed question
    // is refused (it would be in review without it)
    put_question(
        &app,
        &token,
        &id,
        json!({"media": {"id": flag, "alt": "A flag"}}),
    )
    .await
    .ok();
    let moved = set_status(&app, &token, &id, "reviewing").await;
    assert_eq!(moved.ok()["status"], "reviewing");
    put_question(&app, &token, &id, json!({"media": null}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let published = app
        .admin_post(
            "/v1/admin/questions/batch-publish",
            json!({"ids": [id]}),
            Some(&token),
        )
        .await;
    assert_eq!(published.ok()["succeeded"], 1);

    // the file, released by every question, starts its unused clock then
    let other = upload_id(&app, &token, png(41, 30)).await;
    app.clock.advance(chrono::Duration::days(40));
    let (token, _, _) = app.admin_login().await;
    put_question(
        &app,
        &token,
        &id,
        json!({"media": {"id": other, "alt": "Another flag"}}),
    )
    .await
    .ok();
    // released just now: not old enough for the job, however old the file is
    assert_eq!(media::purge_unused(&app.ctx).await.unwrap(), 0);
    app.clock.advance(chrono::Duration::days(31));
    assert_eq!(media::purge_unused(&app.ctx).await.unwrap(), 1);
    let (status_code, _, _) =
        fetch(&app, Service::Player, &format!("/media/{flag}.png"), &[]).await;
    assert_eq!(status_code, 404);
}

async fn players_receive_each_questions_media(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let flag = upload_id(&app, &token, png(60, 40)).await;
    // every question of one track shows the flag (as if each were an image question)
    let track = "world-geography";
    app.exec(
        "UPDATE question_versions SET media_id = $1, media_alt = 'A flag'
         WHERE question_id IN (SELECT id FROM questions WHERE category_id = $2)",
        &[&flag, track],
    )
    .await;
    let (_, player, _) = app.guest("media-player").await;
    let challenge = app
        .get(
            &format!("/v1/challenges/next?trackId={track}"),
            Some(&player),
        )
        .await;
    let questions = challenge.ok()["questions"].as_array().unwrap().clone();
    assert!(!questions.is_empty());
    let expected = json!({
        "type": "image",
        "url": format!("/media/{flag}.png"),
        "width": 60,
        "height": 40,
        "durationMs": null,
        "alt": "A flag",
    });
    for q in &questions {
        assert_eq!(q["question"]["media"], expected, "{q}");
    }
    // the URL is served to the player as it was uploaded
    let (status, headers, body) =
        fetch(&app, Service::Player, &format!("/media/{flag}.png"), &[]).await;
    assert_eq!((status, body), (200, png(60, 40)));
    assert_eq!(header_of(&headers, header::CONTENT_TYPE), "image/png");
    // coming back to the unfinished challenge: the same media
    let again = app
        .get(
            &format!("/v1/challenges/next?trackId={track}"),
            Some(&player),
        )
        .await;
    assert_eq!(again.ok()["challengeId"], challenge.ok()["challengeId"]);
    for q in again.ok()["questions"].as_array().unwrap() {
        assert_eq!(q["question"]["media"], expected, "{q}");
    }
    // a text question of another track carries no media field at all
    let other = app
        .get("/v1/challenges/next?trackId=science-basics", Some(&player))
        .await;
    for q in other.ok()["questions"].as_array().unwrap() {
        assert!(q["question"].get("media").is_none(), "{q}");
    }
}

/// Each allowed sound and video format is read to its end on upload: the staff see how
/// long it plays (and a video's picture size), and so does the player whose question
/// carries it.
async fn audio_and_video_report_how_long_they_play(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    for (name, mime, ms, side) in [
        ("tone.mp3", "audio/mpeg", 1500, None),
        ("tone.aac", "audio/aac", 1578, None),
        ("tone.m4a", "audio/mp4", 1500, None),
        ("tone.ogg", "audio/ogg", 1500, None),
        ("tone-opus.ogg", "audio/ogg", 1506, None),
        ("clip.mp4", "video/mp4", 2000, Some(64)),
        ("clip.webm", "video/webm", 2000, Some(64)),
    ] {
        let item = upload_raw(&app, &token, fixture(name), "application/octet-stream").await;
        let item = item.ok();
        assert_eq!(item["mime"], mime, "{name}");
        assert_eq!(item["durationMs"], ms, "{name}");
        assert_eq!(item["width"], json!(side), "{name}");
        assert_eq!(item["height"], json!(side.map(|_| 48)), "{name}");
        let listed = app
            .admin_get(
                &format!(
                    "/v1/admin/media?type={}&limit=50",
                    item["type"].as_str().unwrap()
                ),
                Some(&token),
            )
            .await;
        let row = listed
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == item["id"])
            .cloned()
            .unwrap();
        assert_eq!(row["durationMs"], ms, "{name}");
    }
    let clip = upload_id(&app, &token, fixture("clip.webm")).await;
    let track = "world-geography";
    app.exec(
        "UPDATE question_versions SET media_id = $1, media_alt = NULL
         WHERE question_id IN (SELECT id FROM questions WHERE category_id = $2)",
        &[&clip, track],
    )
    .await;
    let (_, player, _) = app.guest("media-clip").await;
    let challenge = app
        .get(
            &format!("/v1/challenges/next?trackId={track}"),
            Some(&player),
        )
        .await;
    for q in challenge.ok()["questions"].as_array().unwrap() {
        assert_eq!(
            q["question"]["media"],
            json!({
                "type": "video",
                "url": format!("/media/{clip}.webm"),
                "width": 64,
                "height": 48,
                "durationMs": 2000,
                "alt": null,
            }),
            "{q}"
        );
    }
}

/// Issue 53: what a file says about where and by whom it was made does not reach the
/// players: a PNG's `eXIf` and text chunks, a WebP's `EXIF` and `XMP `, an MP3's ID3
/// frames (a tag of padding stays) and ID3v1 tag, an MP4's user data with a location
/// (`©xyz`). Each is stored under the hash of what is kept, and still plays.
async fn metadata_goes_from_every_format_and_playback_stays(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let gone = |stored: &[u8], needles: &[&[u8]]| {
        for needle in needles {
            assert!(
                !stored.windows(needle.len()).any(|w| w == *needle),
                "{} kept",
                String::from_utf8_lossy(needle)
            );
        }
    };
    let store = |bytes: Vec<u8>| {
        let (app, token) = (&app, token.clone());
        async move {
            let item = upload_raw(app, &token, bytes, "application/octet-stream")
                .await
                .ok()
                .clone();
            let path = format!(
                "/media/{}.{}",
                item["id"].as_str().unwrap(),
                match item["mime"].as_str().unwrap() {
                    "image/png" => "png",
                    "image/webp" => "webp",
                    "audio/mpeg" => "mp3",
                    _ => "mp4",
                }
            );
            let (status, _, stored) = fetch(app, Service::Player, &path, &[]).await;
            assert_eq!(status, 200);
            assert_eq!(item["id"], sha256_hex(&stored), "named by what is kept");
            assert_eq!(item["bytes"], stored.len());
            (item, stored)
        }
    };

    // PNG: its picture chunks stay, the rest go
    let plain = png(16, 12);
    let mut tagged = plain[..plain.len() - 12].to_vec();
    for (kind, data) in [
        (b"eXIf", &b"MM\0*GPSLatitude 31.2304N"[..]),
        (b"tEXt", b"Author\0Li Lei"),
        (b"iTXt", b"XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta/>"),
        (b"zTXt", b"Comment\0\0x"),
    ] {
        tagged.extend_from_slice(&(data.len() as u32).to_be_bytes());
        tagged.extend_from_slice(kind);
        tagged.extend_from_slice(data);
        tagged.extend_from_slice(&[0, 0, 0, 0]);
    }
    tagged.extend_from_slice(&plain[plain.len() - 12..]);
    let (item, stored) = store(tagged).await;
    gone(
        &stored,
        &[
            b"eXIf", b"GPS", b"tEXt", b"Li Lei", b"iTXt", b"xmpmeta", b"zTXt",
        ],
    );
    assert_eq!(stored, plain);
    assert_eq!(
        (item["width"].as_i64(), item["height"].as_i64()),
        (Some(16), Some(12))
    );

    // WebP: a lossless picture with EXIF and XMP, and their flags
    let chunk = |kind: &[u8; 4], data: &[u8]| {
        let mut out = kind.to_vec();
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
        if data.len() % 2 == 1 {
            out.push(0);
        }
        out
    };
    let riff = |chunks: Vec<u8>| {
        let mut out = b"RIFF".to_vec();
        out.extend_from_slice(&((chunks.len() + 4) as u32).to_le_bytes());
        out.extend_from_slice(b"WEBP");
        out.extend_from_slice(&chunks);
        out
    };
    // a 2 × 2 canvas; a VP8L header for 2 × 2
    let vp8x = |flags: u8| chunk(b"VP8X", &[flags, 0, 0, 0, 1, 0, 0, 1, 0, 0]);
    let picture = chunk(b"VP8L", &[0x2F, 0x01, 0x40, 0x00, 0x00, 0x07, 0x10, 0x11]);
    let webp = riff(
        [
            vp8x(0x08 | 0x04),
            picture.clone(),
            chunk(b"EXIF", b"MM\0*GPSLongitude 121.4737E"),
            chunk(b"XMP ", b"<x:xmpmeta>Li Lei</x:xmpmeta>"),
        ]
        .concat(),
    );
    let (_, stored) = store(webp).await;
    gone(&stored, &[b"EXIF", b"GPS", b"XMP ", b"Li Lei"]);
    assert_eq!(stored, riff([vp8x(0), picture].concat()));

    // MP3: frames in a tag with a title and a picture, and an ID3v1 tag at the end
    let audio = mp3(60_000);
    let body = b"TIT2\0\0\0\x07\0\0\x03Li Lei\0APIC\0\0\0\x09\0\0cover-art";
    let mut tagged = b"ID3\x04\0\0".to_vec();
    let padding = audio.len() - 10 - (audio.len() - 10) / 417 * 417;
    let size = (padding + body.len()) as u32;
    tagged.extend([21, 14, 7, 0].map(|shift| ((size >> shift) & 0x7F) as u8));
    tagged.extend_from_slice(body);
    tagged.extend_from_slice(&audio[10..]);
    let mut v1 = b"TAGLi Lei".to_vec();
    v1.resize(128, 0);
    tagged.extend_from_slice(&v1);
    let (item, stored) = store(tagged.clone()).await;
    gone(
        &stored,
        &[b"TIT2", b"Li Lei", b"APIC", b"cover-art", b"TAG"],
    );
    // the tag stays as padding (nothing moves); the ID3v1 tag is cut off
    assert_eq!(stored.len(), tagged.len() - 128);
    assert_eq!(&stored[..10], &tagged[..10]);
    assert_eq!(&stored[10 + body.len() + padding..], &audio[10 + padding..]);
    assert_eq!(item["durationMs"], mp3_duration_ms(&audio));

    // MP4: the movie's user data holds a location
    let clip = fixture("clip.mp4");
    let at = clip.windows(4).position(|w| w == b"udta").unwrap() - 4;
    let size = u32::from_be_bytes(clip[at..at + 4].try_into().unwrap()) as usize;
    let mut located = clip.clone();
    let mut xyz = ((size - 8) as u32).to_be_bytes().to_vec();
    xyz.extend_from_slice(b"\xA9xyz");
    xyz.extend_from_slice(b"+31.2304+121.4737/");
    xyz.resize(size - 8, b' ');
    located[at + 8..at + size].copy_from_slice(&xyz);
    let (item, stored) = store(located).await;
    gone(&stored, &[b"udta", b"\xA9xyz", b"+31.2304"]);
    assert_eq!(stored, without_user_data(&clip));
    assert_eq!(item["durationMs"], 2000);
}

/// How long `mp3(len)`'s frames play: 1,152 samples each at 44.1 kHz.
fn mp3_duration_ms(audio: &[u8]) -> i64 {
    let frames = (audio.len() - 10) / 417;
    (frames as i64 * 1152 * 1000) / 44_100
}
