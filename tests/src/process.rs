//! Running the real binaries: start one with an environment, wait for `/health`, stop it
//! with a signal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A free loopback port (bound, then released for the child to take).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A started binary; killed when dropped if still running.
pub struct Proc {
    pub child: Child,
    pub base_url: String,
}

/// `METRICS_ADDR` for a started binary unless `vars` sets one: a port of the system's
/// choosing, so copies started at once (by one test or by tests running side by side)
/// never collide on the fixed default.
pub const ANY_METRICS_ADDR: (&str, &str) = ("METRICS_ADDR", "127.0.0.1:0");

impl Proc {
    /// Starts `exe` with exactly `vars` (plus PATH, `RUST_LOG=warn` and
    /// [`ANY_METRICS_ADDR`] unless `vars` sets them) and waits until `/health` answers.
    pub async fn start(exe: &str, vars: &[(&str, String)], port: u16) -> Self {
        let mut cmd = Command::new(exe);
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("RUST_LOG", "warn")
            .env(ANY_METRICS_ADDR.0, ANY_METRICS_ADDR.1)
            // media of started binaries never land in the working folder
            .env(
                "MEDIA_FS_DIR",
                std::env::temp_dir().join("quiz-test-media-processes"),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let child = cmd.spawn().unwrap();
        let base_url = format!("http://127.0.0.1:{port}");
        let proc = Self { child, base_url };
        let deadline = Instant::now() + Duration::from_secs(30);
        let client = reqwest::Client::new();
        loop {
            if let Ok(r) = client.get(format!("{}/health", proc.base_url)).send().await
                && r.status() == 200
            {
                return proc;
            }
            assert!(Instant::now() < deadline, "{exe} did not become healthy");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits up to `limit` for the process to exit.
    pub fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "process did not exit in {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What the process wrote to its standard output (its log) so far, once it exited.
    pub fn stdout(&mut self) -> String {
        let mut out = String::new();
        if let Some(mut o) = self.child.stdout.take() {
            let _ = o.read_to_string(&mut out);
        }
        out
    }

    pub fn stderr(&mut self) -> String {
        let mut out = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut out);
        }
        out
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `exe` with `vars` expecting it to refuse to start or to stop; returns (exit
/// code, standard error followed by standard output, where the log goes).
pub fn run_to_exit(exe: &str, vars: &[(&str, String)]) -> (Option<i32>, String) {
    let out = Command::new(exe)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env(ANY_METRICS_ADDR.0, ANY_METRICS_ADDR.1)
        .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ),
    )
}

/// Graceful shutdown of the real binary `exe` (listening at `addr_variable`) with
/// connections open. On SIGTERM: a connection that never sent a byte and an idle
/// kept-alive one close at once, a new connection is refused, a request whose body is
/// still arriving (a `POST` of `body` to `path`) is answered once it has arrived and its
/// connection then closed, and the process exits with 0, well before the header limit
/// (30 s) the silent connection would otherwise hold it for.
pub async fn stops_gracefully_with_connections_open(
    exe: &str,
    addr_variable: &str,
    engine: crate::Engine,
    path: &str,
    body: &str,
) {
    use crate::raw_http::{connect, read_answer, round_trip, until_closed};
    use tokio::io::AsyncWriteExt;

    let database = crate::TestDatabase::create(engine).await;
    let port = free_port();
    let mut proc = Proc::start(
        exe,
        &[
            ("DATABASE_URL", database.url.clone()),
            (addr_variable, format!("127.0.0.1:{port}")),
        ],
        port,
    )
    .await;
    let mut silent = connect(&proc.base_url).await;
    let mut idle = connect(&proc.base_url).await;
    let answer = round_trip(&mut idle, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let mut in_flight = connect(&proc.base_url).await;
    let (first_half, second_half) = body.split_at(body.len() / 2);
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{first_half}",
        body.len()
    );
    in_flight.write_all(head.as_bytes()).await.unwrap();
    // the request has reached its handler, which waits for the rest of the body
    tokio::time::sleep(Duration::from_millis(300)).await;

    proc.signal("TERM");
    let signalled = Instant::now();
    for (what, stream) in [("silent", &mut silent), ("idle", &mut idle)] {
        let (extra, closed) = until_closed(stream, Duration::from_secs(10)).await;
        assert!(closed.is_some(), "the {what} connection is still open");
        assert!(
            extra.is_empty(),
            "{what}: {}",
            String::from_utf8_lossy(&extra)
        );
    }
    assert!(
        signalled.elapsed() < Duration::from_secs(5),
        "idle connections closed only after {:?}",
        signalled.elapsed()
    );
    let refused = tokio::net::TcpStream::connect(format!("127.0.0.1:{port}")).await;
    assert!(
        refused.is_err(),
        "a new connection was accepted while stopping"
    );
    assert!(
        proc.child.try_wait().unwrap().is_none(),
        "exited with a request under way: {}",
        proc.stderr()
    );

    in_flight.write_all(second_half.as_bytes()).await.unwrap();
    let answer = read_answer(&mut in_flight).await;
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
    assert!(!answer.starts_with("HTTP/1.1 5"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
    let (_, closed) = until_closed(&mut in_flight, Duration::from_secs(10)).await;
    assert!(
        closed.is_some(),
        "kept open after its answer while stopping"
    );
    let status = proc.wait_exit(Duration::from_secs(10));
    assert_eq!(status.code(), Some(0), "{}", proc.stderr());
}
