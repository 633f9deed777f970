//! A PgBouncer of a test's own in transaction mode (`pool_mode = transaction`), on a
//! free port in front of a PostgreSQL server, with fewer server connections than the
//! service opens client ones, so that consecutive transactions of one client connection
//! land on different server connections. Killed when dropped, also when the test fails.
//! Run as the `postgres` user when the tests run as root (PgBouncer refuses root).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::free_port;

/// Server connections per database and user: far below the 16 client connections each
/// of a test's processes opens.
pub const SERVER_CONNECTIONS: u32 = 3;

pub struct Bouncer {
    pub port: u16,
    dir: PathBuf,
    child: Child,
}

impl Bouncer {
    /// Starts PgBouncer in front of `host:port`, letting `user` in without a password
    /// (the test server trusts local connections), for any database name.
    pub fn start(host: &str, upstream_port: u16, user: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("quiz-pgb-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        let port = free_port();
        let users = dir.join("users.txt");
        std::fs::write(&users, format!("\"{user}\" \"\"\n")).unwrap();
        let config = dir.join("pgbouncer.ini");
        std::fs::write(
            &config,
            format!(
                "[databases]\n\
                 * = host={host} port={upstream_port}\n\
                 [pgbouncer]\n\
                 listen_addr = 127.0.0.1\n\
                 listen_port = {port}\n\
                 unix_socket_dir =\n\
                 auth_type = trust\n\
                 auth_file = {users}\n\
                 pool_mode = transaction\n\
                 default_pool_size = {SERVER_CONNECTIONS}\n\
                 max_client_conn = 500\n\
                 max_prepared_statements = 200\n\
                 ignore_startup_parameters = extra_float_digits\n",
                users = users.display(),
            ),
        )
        .unwrap();
        let mut command = if is_root() {
            // setpriv execs PgBouncer itself, so killing the child kills PgBouncer.
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                "pgbouncer",
            ]);
            c
        } else {
            Command::new("pgbouncer")
        };
        let child = command
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(
                std::fs::File::create(dir.join("pgbouncer.log")).unwrap(),
            ))
            .spawn()
            .unwrap_or_else(|e| {
                panic!("starting pgbouncer: {e} (bash scripts/pgbouncer-install.sh installs it)")
            });
        let mut bouncer = Self { port, dir, child };
        bouncer.wait_until_listening();
        bouncer
    }

    fn wait_until_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "pgbouncer exited ({status}):\n{}",
                    std::fs::read_to_string(self.dir.join("pgbouncer.log")).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "pgbouncer did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
