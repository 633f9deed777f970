//! A PostgreSQL server of a test's own, in a temporary folder on a free port (trust
//! authentication), which the test can stop and start at will; stopped and deleted when
//! dropped, also when the test fails. Run as the `postgres` user when the tests run as
//! root (PostgreSQL refuses root).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::process::free_port;

pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    pub port: u16,
    as_postgres: bool,
    /// Server options beyond the port and the socket folder.
    options: &'static str,
}

/// A test server's options: no fsync (nothing needs to survive the machine).
const FAST: &str = "-c fsync=off -c full_page_writes=off";
/// A primary that replicas are made from (`pg_basebackup` needs full-page writes) and
/// that counts statements (`pg_stat_statements`, also on its replicas).
const REPLICATED: &str =
    "-c fsync=off -c shared_preload_libraries=pg_stat_statements -c hot_standby=on";

/// How `pg_ctl stop` ends the server.
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    /// `-m fast`: sessions are ended (SQLSTATE 57P01), then a clean shutdown.
    Fast,
    /// `-m immediate`: every process quits at once, as in a crash; the next start
    /// recovers from the WAL.
    Immediate,
}

/// The newest PostgreSQL's program folder under `/usr/lib/postgresql/*/bin`.
fn postgres_bin() -> PathBuf {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, bin)| bin)
        .expect("no PostgreSQL server programs under /usr/lib/postgresql/*/bin (apt-get install postgresql)")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl Cluster {
    /// `initdb` and start a server.
    pub fn start_new() -> Self {
        Self::init(FAST)
    }

    /// `initdb` and start a server that streaming replicas can be made from
    /// ([`Cluster::replica_of`]), counting statements with `pg_stat_statements`.
    pub fn start_new_primary() -> Self {
        Self::init(REPLICATED)
    }

    /// A streaming replica of `primary` (`pg_basebackup -R`), started on a port of its
    /// own.
    pub fn replica_of(primary: &Cluster) -> Self {
        let replica = Self::empty(REPLICATED);
        let (port, data) = (primary.port.to_string(), replica.data());
        replica.run(
            "pg_basebackup",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "postgres",
                "-D",
                &data,
                "-R",
                "-X",
                "stream",
                "--no-sync",
            ],
        );
        replica.start();
        replica
    }

    /// A folder for a server, owned by the user it runs as.
    fn empty(options: &'static str) -> Self {
        let dir = std::env::temp_dir().join(format!("quiz-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        let as_postgres = is_root();
        let cluster = Self {
            dir,
            bin: postgres_bin(),
            port: free_port(),
            as_postgres,
            options,
        };
        if as_postgres {
            cluster.expect_ok(
                "chown",
                Command::new("chown")
                    .arg("postgres:")
                    .arg(&cluster.dir)
                    .output(),
            );
        }
        cluster
    }

    fn init(options: &'static str) -> Self {
        let cluster = Self::empty(options);
        let data = cluster.data();
        cluster.run(
            "initdb",
            &[
                "-D",
                &data,
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        cluster.start();
        cluster
    }

    /// The URL of its `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Starts the server and waits until it accepts connections.
    pub fn start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 {}",
            self.port,
            self.dir.display(),
            self.options
        );
        let (data, log) = (self.data(), self.dir.join("server.log"));
        self.run(
            "pg_ctl",
            &[
                "-D",
                &data,
                "-l",
                &log.display().to_string(),
                "-o",
                &options,
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
    }

    /// Stops the server and waits until it is gone.
    pub fn stop(&self, how: Stop) {
        let mode = match how {
            Stop::Fast => "fast",
            Stop::Immediate => "immediate",
        };
        self.run(
            "pg_ctl",
            &["-D", &self.data(), "-m", mode, "-w", "-t", "60", "stop"],
        );
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    fn command(&self, program: &str, args: &[&str]) -> Command {
        let exe = self.bin.join(program);
        let mut cmd = if self.as_postgres {
            let mut cmd = Command::new("runuser");
            cmd.args(["-u", "postgres", "--"]).arg(exe);
            cmd
        } else {
            Command::new(exe)
        };
        cmd.args(args).current_dir(Path::new("/"));
        cmd
    }

    fn run(&self, program: &str, args: &[&str]) {
        let out = self.command(program, args).output();
        self.expect_ok(program, out);
    }

    fn expect_ok(&self, what: &str, out: std::io::Result<Output>) {
        let out = out.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            out.status.success(),
            "{what} failed: {}\n{}\nserver log:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
        );
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Whatever state the test left it in: stopped at once (an error when it is
        // down already is fine), then its files go.
        let _ = self
            .command(
                "pg_ctl",
                &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
            )
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
