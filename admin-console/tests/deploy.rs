//! The deployment files (`deploy/`) against the service: every variable they set is one
//! the README's configuration table lists and the service reads, their values pass the
//! service's own validation, every `ExecStart` runs a binary and command that exist, and
//! the container image runs as a non-root user with a health check on `/ready`. (No
//! container engine runs here, so the image and the compose file are not started.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use shared::config::Settings;

const EXE: &str = env!("CARGO_BIN_EXE_admin-console");

/// Read by the allocator, not the service (README, Deployment: Memory).
const ALLOCATOR_VARIABLES: [&str; 2] = ["MIMALLOC_PURGE_DELAY", "MIMALLOC_ARENA_EAGER_COMMIT"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The names in the first column of the README's configuration table.
fn configuration_table() -> BTreeSet<String> {
    let readme = read("README.md");
    let section = readme
        .split("\n## Configuration")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has a Configuration section");
    let mut names = BTreeSet::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let first_cell = line.split('|').nth(1).unwrap_or_default();
        for name in first_cell.split('`').skip(1).step_by(2) {
            if !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            {
                names.insert(name.to_string());
            }
        }
    }
    assert!(names.len() > 50, "found only {names:?}");
    names
}

/// `NAME=value` lines of an environment file (systemd's and compose's format).
fn env_file(relative: &str) -> Vec<(String, String)> {
    read(relative)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, value) = l
                .split_once('=')
                .unwrap_or_else(|| panic!("{relative}: not NAME=value: {l}"));
            (name.to_string(), value.to_string())
        })
        .collect()
}

/// The `Environment=NAME=value` lines of a systemd unit.
fn unit_environment(unit: &str) -> Vec<(String, String)> {
    unit.lines()
        .filter_map(|l| l.strip_prefix("Environment="))
        .map(|v| {
            let (name, value) = v.split_once('=').unwrap();
            (name.to_string(), value.to_string())
        })
        .collect()
}

fn units() -> Vec<(String, String)> {
    let dir = root().join("deploy/systemd");
    let mut units: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "service"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    units.sort();
    assert!(units.len() >= 3, "{units:?}");
    units
}

/// Every name the service reads, found by handing `Settings` a lookup that records them
/// (with the SMS provider set, so that its own variables are asked for too).
fn variables_read() -> BTreeSet<String> {
    let asked = Mutex::new(BTreeSet::new());
    let _ = Settings::from_lookup(&|name: &str| {
        asked.lock().unwrap().insert(name.to_string());
        (name == "SMS_PROVIDER").then(|| "aliyun".to_string())
    });
    asked.into_inner().unwrap()
}

#[test]
fn every_variable_set_by_the_deployment_files_is_documented_and_read() {
    let (table, read_by_service) = (configuration_table(), variables_read());
    let mut set = Vec::new();
    for file in [
        "deploy/compose/quiz.env",
        "deploy/systemd/quiz.env",
        "deploy/systemd/player-api-1.env",
    ] {
        set.extend(
            env_file(file)
                .into_iter()
                .map(|(n, _)| (file.to_string(), n)),
        );
    }
    for (name, unit) in units() {
        set.extend(
            unit_environment(&unit)
                .into_iter()
                .map(|(n, _)| (name.clone(), n)),
        );
    }
    for (file, name) in set {
        if ALLOCATOR_VARIABLES.contains(&name.as_str()) {
            continue;
        }
        assert!(
            table.contains(&name),
            "{file}: {name} is not in the README's configuration table"
        );
        assert!(
            read_by_service.contains(&name),
            "{file}: the service never reads {name}"
        );
    }
}

#[test]
fn every_variable_the_service_reads_is_in_the_configuration_table() {
    let table = configuration_table();
    let missing: Vec<_> = variables_read()
        .into_iter()
        .filter(|name| !table.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "not in the README's configuration table: {missing:?}"
    );
}

#[test]
fn the_deployment_files_hold_valid_configurations() {
    // compose: as written (development values)
    let compose: HashMap<String, String> =
        env_file("deploy/compose/quiz.env").into_iter().collect();
    if let Err(e) = Settings::from_lookup(&|name: &str| compose.get(name).cloned()) {
        panic!("deploy/compose/quiz.env: {e}");
    }
    // systemd: production, once the placeholders are replaced by real secrets
    let mut host: HashMap<String, String> =
        env_file("deploy/systemd/quiz.env").into_iter().collect();
    host.extend(env_file("deploy/systemd/player-api-1.env"));
    for (name, value) in [
        ("JWT_SECRET", "p".repeat(48)),
        ("ADMIN_JWT_SECRET", "a".repeat(48)),
        (
            "SECRETS_KEY",
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".to_string(),
        ),
    ] {
        assert!(
            host[name].starts_with("change-me"),
            "{name} must be a placeholder"
        );
        host.insert(name.to_string(), value);
    }
    if let Err(e) = Settings::from_lookup(&|name: &str| host.get(name).cloned()) {
        panic!("deploy/systemd/quiz.env: {e}");
    }
}

#[test]
fn every_exec_start_runs_a_binary_and_command_that_exist() {
    for (name, unit) in units() {
        let exec: Vec<&str> = unit
            .lines()
            .filter_map(|l| l.strip_prefix("ExecStart="))
            .collect();
        assert_eq!(exec.len(), 1, "{name}");
        let words: Vec<&str> = exec[0].split_whitespace().collect();
        match words.as_slice() {
            ["/usr/local/bin/player-api"] | ["/usr/local/bin/admin-console"] => {}
            ["/usr/local/bin/admin-console", "backup", path] => {
                assert!(path.starts_with('/'), "{name}: {path}");
            }
            other => panic!("{name}: ExecStart runs {other:?}"),
        }
        assert!(unit.contains("User=quiz"), "{name} runs as root");
    }
    // the admin-console's command line is what the backup unit uses
    let usage = std::process::Command::new(EXE)
        .arg("no-such-command")
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&usage.stderr).contains("admin-console backup PATH"),
        "{usage:?}"
    );
}

#[test]
fn the_image_is_multi_stage_runs_as_a_user_and_checks_readiness() {
    let image = read("deploy/Containerfile");
    assert_eq!(image.lines().filter(|l| l.starts_with("FROM ")).count(), 2);
    let user = image
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("a USER line");
    assert_ne!(user.trim(), "root");
    assert!(image.contains("HEALTHCHECK"), "no health check");
    assert!(
        image.contains("/ready"),
        "the health check is not readiness"
    );
    let compose = read("deploy/compose/compose.yaml");
    for service in [
        "player-api-1:",
        "player-api-2:",
        "admin-console:",
        "pgbouncer:",
        "replica:",
        "redis:",
        "primary:",
    ] {
        assert!(
            compose.contains(&format!("\n  {service}")),
            "compose has no {service}"
        );
    }
}
