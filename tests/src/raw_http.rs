//! HTTP/1.1 spoken by hand over a raw TCP connection, for tests of what a client library
//! never does: stall halfway through a request, trickle a body, keep a connection idle,
//! and see exactly when the server closes it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A raw connection to `base_url` (`http://host:port`).
pub async fn connect(base_url: &str) -> TcpStream {
    TcpStream::connect(base_url.trim_start_matches("http://"))
        .await
        .unwrap()
}

/// Reads until the server closes the connection (end of stream or reset), for at most
/// `limit`; returns what arrived and when the connection closed, `None` if still open.
pub async fn until_closed(stream: &mut TcpStream, limit: Duration) -> (Vec<u8>, Option<Duration>) {
    let start = Instant::now();
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(start.elapsed());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return (received, None),
            Ok(Ok(0) | Err(_)) => return (received, Some(start.elapsed())),
            Ok(Ok(n)) => received.extend_from_slice(&buf[..n]),
        }
    }
}

/// Reads one whole answer (`Content-Length` bodies only) within 10 s.
pub async fn read_answer(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .expect("no answer")
            .unwrap();
        assert!(n > 0, "closed before answering");
        received.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&received).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length: usize = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            if received.len() >= end + 4 + length {
                return text;
            }
        }
    }
}

/// Sends one whole request and reads its answer.
pub async fn round_trip(stream: &mut TcpStream, request: &str) -> String {
    stream.write_all(request.as_bytes()).await.unwrap();
    read_answer(stream).await
}

/// Sends a request over a plain socket, writing the body while reading the answer: a
/// server refusing an oversized body answers before reading it all and closes, which an
/// HTTP client still writing reports as a failed send instead of the answer.
pub async fn send_unread(
    url: &str,
    method: &reqwest::Method,
    content_type: &str,
    body: &[u8],
    token: &str,
) -> crate::Resp {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: {content_type}\r\n\
         authorization: Bearer {token}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    let write = tokio::spawn(async move {
        // the server may stop reading and close: a failed write is expected
        let _ = writer.write_all(&request).await;
        // kept open until the answer is read: a half-closed request is a client gone
        writer
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    write.abort();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, payload) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP answer from {method} {url}: {text:?}"));
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {head}"));
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let payload = if chunked {
        let mut out = String::new();
        let mut rest = payload;
        while let Some((size, tail)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if size == 0 || tail.len() < size {
                break;
            }
            out.push_str(&tail[..size]);
            rest = tail[size..].trim_start_matches("\r\n");
        }
        out
    } else {
        payload.to_string()
    };
    crate::Resp {
        status,
        headers: reqwest::header::HeaderMap::new(),
        body: serde_json::from_str(&payload).unwrap_or(serde_json::Value::Null),
    }
}
