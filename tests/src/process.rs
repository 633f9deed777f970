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
