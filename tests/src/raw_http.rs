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
