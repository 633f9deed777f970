//! A real S3-protocol server for the media store's tests: moto in server mode (PyPI's
//! `moto[server]`, which `scripts/test.sh` installs when missing), started on a port of
//! its own and stopped when dropped.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::free_port;

pub struct S3Server {
    child: Child,
    pub endpoint: String,
}

/// The credentials the server is given (moto accepts any).
pub const ACCESS_KEY_ID: &str = "quiz-test-key";
pub const SECRET_ACCESS_KEY: &str = "quiz-test-secret";

impl S3Server {
    /// Starts moto's server and waits until it answers.
    pub async fn start() -> Self {
        let port = free_port();
        let child = Command::new("python3")
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("moto could not start ({e}); `python3 -m pip install 'moto[server]'`")
            });
        let server = Self {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if client.get(&server.endpoint).send().await.is_ok() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "moto did not answer (is it installed? `python3 -m pip install 'moto[server]'`)"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        server
    }

    /// Creates a bucket (`PUT /{bucket}`) and answers its name.
    pub async fn bucket(&self, name: &str) -> String {
        let status = reqwest::Client::new()
            .put(format!("{}/{name}", self.endpoint))
            .send()
            .await
            .unwrap()
            .status();
        assert!(status.is_success(), "creating bucket {name}: {status}");
        name.to_string()
    }

    /// The `MEDIA_*` variables of a store in `bucket`.
    pub fn vars(&self, bucket: &str) -> Vec<(&'static str, String)> {
        vec![
            ("MEDIA_STORE", "s3".into()),
            ("MEDIA_S3_ENDPOINT", self.endpoint.clone()),
            ("MEDIA_S3_BUCKET", bucket.into()),
            ("MEDIA_S3_REGION", "us-east-1".into()),
            ("MEDIA_S3_ACCESS_KEY_ID", ACCESS_KEY_ID.into()),
            ("MEDIA_S3_SECRET_ACCESS_KEY", SECRET_ACCESS_KEY.into()),
        ]
    }

    /// The keys of `bucket`'s objects (`GET /{bucket}?list-type=2`).
    pub async fn keys(&self, bucket: &str) -> Vec<String> {
        let body = reqwest::Client::new()
            .get(format!("{}/{bucket}?list-type=2", self.endpoint))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        body.split("<Key>")
            .skip(1)
            .filter_map(|s| s.split("</Key>").next())
            .map(str::to_string)
            .collect()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
