//! A real binary whose standard output and error are collected from the first byte
//! (reader threads drain both pipes, so a verbose process never blocks on a full pipe),
//! for tests that search everything a process logged.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::process::{ANY_METRICS_ADDR, Proc};

/// Everything a process wrote to standard output and error, as it arrives.
pub struct Captured {
    text: Arc<Mutex<String>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl Captured {
    /// What was captured so far.
    pub fn now(&self) -> String {
        self.text.lock().unwrap().clone()
    }

    /// Everything, once the process has exited (both pipes closed).
    pub fn finish(self) -> String {
        for r in self.readers {
            r.join().unwrap();
        }
        self.text.lock().unwrap().clone()
    }
}

/// Starts `exe` with exactly `vars` (plus PATH, `RUST_LOG=warn` and
/// [`crate::process::ANY_METRICS_ADDR`] unless `vars` sets them), capturing its output,
/// and waits until `/health` answers.
pub async fn start_captured(exe: &str, vars: &[(&str, String)], port: u16) -> (Proc, Captured) {
    let mut cmd = Command::new(exe);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn")
        .env(ANY_METRICS_ADDR.0, ANY_METRICS_ADDR.1)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let text = Arc::new(Mutex::new(String::new()));
    let streams: Vec<Box<dyn Read + Send>> = vec![
        Box::new(child.stdout.take().unwrap()),
        Box::new(child.stderr.take().unwrap()),
    ];
    let readers = streams
        .into_iter()
        .map(|mut stream| {
            let text = Arc::clone(&text);
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    text.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            })
        })
        .collect();
    let captured = Captured { text, readers };
    let proc = Proc {
        child,
        base_url: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let client = reqwest::Client::new();
    loop {
        if let Ok(r) = client.get(format!("{}/health", proc.base_url)).send().await
            && r.status() == 200
        {
            return (proc, captured);
        }
        assert!(
            Instant::now() < deadline,
            "{exe} did not become healthy: {}",
            captured.now()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A client's `X-Request-Id` reaches the log of the real binary `exe` (listening at
/// `addr_variable`) only when clean: a clean one is logged as sent; quotes, a forged
/// `request_id=`, a tab, 200 characters or non-ASCII bytes are replaced by a fresh id,
/// which is what the answer echoes and the log shows, and none of the client's text is
/// logged.
pub async fn request_ids_reach_the_log_clean(
    exe: &str,
    addr_variable: &str,
    engine: crate::Engine,
) {
    let database = crate::TestDatabase::create(engine).await;
    let port = crate::process::free_port();
    let (mut proc, log) = start_captured(
        exe,
        &[
            ("DATABASE_URL", database.url.clone()),
            (addr_variable, format!("127.0.0.1:{port}")),
            ("LOG_FORMAT", "pretty".into()),
            // the access line of every request carries its id
            ("RUST_LOG", "info,tower_http=debug".into()),
        ],
        port,
    )
    .await;
    let client = reqwest::Client::new();
    let url = format!("{}/v1/no-such-route", proc.base_url);
    let send = |id: &[u8]| {
        let request = client.get(&url).header(
            "x-request-id",
            reqwest::header::HeaderValue::from_bytes(id).unwrap(),
        );
        async move {
            let resp = request.send().await.unwrap();
            resp.headers()["x-request-id"].to_str().unwrap().to_string()
        }
    };
    let kept = "client-trace.42_OK";
    assert_eq!(send(kept.as_bytes()).await, kept);
    let long = "L".repeat(200);
    let unclean: [&[u8]; 4] = [
        b"forged\" request_id=\"evil-one",
        b"tab\tevil-two",
        long.as_bytes(),
        b"\xc3\xa9evil-three\x80",
    ];
    let mut fresh = Vec::new();
    for id in unclean {
        let answer = send(id).await;
        assert!(uuid::Uuid::parse_str(&answer).is_ok(), "{answer}");
        fresh.push(answer);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while !fresh
        .iter()
        .chain([&kept.to_string()])
        .all(|id| log.now().contains(id.as_str()))
    {
        assert!(Instant::now() < deadline, "ids not logged: {}", log.now());
        std::thread::sleep(Duration::from_millis(50));
    }
    proc.signal("TERM");
    proc.wait_exit(Duration::from_secs(15));
    let text = log.finish();
    for forged in ["evil", "request_id=\"", &long[..64]] {
        assert!(
            !text.contains(forged),
            "{forged:?} reached the log:\n{text}"
        );
    }
}
