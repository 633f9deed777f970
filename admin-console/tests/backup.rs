//! The restore drill, on both engines: a backup taken while players answer (SQLite:
//! `admin-console backup PATH`; PostgreSQL: `scripts/pg-backup.sh`), restored into a
//! fresh database (a copied file; `scripts/pg-restore.sh` into a fresh cluster), the
//! service started on it: every answer acknowledged before the backup began is there,
//! every player's ledger sums to their XP, and the boards agree with the ledgers. Also
//! the scheduled job: one copy per interval whatever the processes, `BACKUP_KEEP` kept.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures::future::join_all;
use serde_json::{Value, json};
use shared::metrics::Metrics;
use shared::services::backup;
use shared::services::jobs::{self, Job};
use tests::pg_cluster::Cluster;
use tests::{Engine, TestApp, TestDatabase, both_engines_raw};
use tokio::sync::Mutex;

const EXE: &str = env!("CARGO_BIN_EXE_admin-console");
const TRACK: &str = "world-geography";
const PLAYERS: usize = 8;

both_engines_raw!(a_backup_taken_under_load_restores_every_acknowledged_answer);

/// An answer the service acknowledged: (session, question) and when.
type Acked = HashMap<(String, String), Instant>;

async fn a_backup_taken_under_load_restores_every_acknowledged_answer(engine: Engine) {
    let app = TestApp::spawn_on(
        TestDatabase::create_own(engine).await,
        &[
            ("DEMO_CONTENT", "true".to_string()),
            ("JOBS_ENABLED", "false".to_string()),
            // so that no player stops for want of hearts or attempts
            ("RULE_MAX_HEARTS", "1000000".to_string()),
            ("RULE_DAILY_ATTEMPTS", "1000000".to_string()),
        ],
    )
    .await;
    let mut players = Vec::new();
    for p in 0..PLAYERS {
        let (id, token, _) = app.guest(&format!("drill-{p}")).await;
        players.push((id, token));
    }
    let work = tempfile::tempdir().unwrap();
    let dump = work.path().join(match engine {
        Engine::Sqlite => "quiz-backup.db",
        _ => "quiz-backup.dump",
    });

    let stop = AtomicBool::new(false);
    let acked = Mutex::new(Acked::new());
    let players_play = join_all(
        players
            .iter()
            .map(|(_, token)| play_until(&app, token, &stop, &acked)),
    );
    let backup_taken = async {
        // the players are well under way
        while acked.lock().await.len() < 3 * PLAYERS {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let began = Instant::now();
        let (url, dump) = (app.database.url.clone(), dump.clone());
        tokio::task::spawn_blocking(move || back_up(engine, &url, &dump))
            .await
            .unwrap();
        // and they go on for a while after it
        let answered = acked.lock().await.len();
        while acked.lock().await.len() < answered + 2 * PLAYERS {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stop.store(true, Ordering::SeqCst);
        began
    };
    let (_, began) = tokio::join!(players_play, backup_taken);
    let acked = acked.into_inner();
    let before: Vec<_> = acked.iter().filter(|(_, at)| **at < began).collect();
    assert!(
        before.len() >= 3 * PLAYERS,
        "{} answers before",
        before.len()
    );

    // restored into a fresh database, the service started on it
    let cluster;
    let restored = match engine {
        Engine::Sqlite => {
            let file = work.path().join("restored").join("quiz.db");
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::copy(&dump, &file).unwrap();
            TestDatabase::existing(Engine::Sqlite, format!("sqlite://{}", file.display()))
        }
        _ => {
            cluster = Cluster::start_new();
            let url = format!("postgres://postgres@127.0.0.1:{}/quiz", cluster.port);
            run_script("pg-restore.sh", &[dump.to_str().unwrap(), &url]);
            TestDatabase::existing(Engine::Postgres, url)
        }
    };
    let restored = TestApp::spawn_on(restored, &[("JOBS_ENABLED", "false".to_string())]).await;

    for ((session, question), _) in &before {
        assert_eq!(
            restored
                .scalar(
                    "SELECT count(*) FROM challenge_answers WHERE session_id = $1 AND question_id = $2",
                    &[session.as_str(), question.as_str()],
                )
                .await,
            1,
            "answer {session}:{question}, acknowledged before the backup began, is lost"
        );
    }
    let mut board_xp = HashMap::new();
    for (id, token) in &players {
        let arg = [id.as_str()];
        let ledger = restored
            .scalar(
                "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
                &arg,
            )
            .await;
        assert_eq!(
            ledger,
            restored
                .scalar(
                    "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM challenge_answers WHERE player_id = $1",
                    &arg,
                )
                .await,
            "{id}: the ledger against the answers"
        );
        // the restored service signs the same tokens (its secrets came with the data)
        let summary = restored.get("/v1/progress/summary", Some(token)).await;
        assert_eq!(summary.ok()["xp"], ledger, "{id}: XP against the ledger");
        let me = restored
            .get("/v1/leaderboards/me?scope=topic", Some(token))
            .await;
        assert_eq!(
            me.ok()["xp"],
            ledger,
            "{id}: own board row against the ledger"
        );
        // a player none of whose answers was in the copy has no board row (under load,
        // all of one player's answers can land after the backup's snapshot)
        if ledger > 0 {
            board_xp.insert(id.clone(), ledger);
        }
    }
    // the board's page lists each of them who has XP, with that XP
    let (_, token) = &players[0];
    let page = restored
        .get("/v1/leaderboards?scope=topic&limit=50", Some(token))
        .await;
    let listed: HashMap<String, i64> = tests::ids_with(page.ok(), "xp");
    assert_eq!(listed, board_xp, "{}", page.body);
}

/// Plays challenges (every answer right) until `stop`, recording each acknowledged
/// answer.
async fn play_until(app: &TestApp, token: &str, stop: &AtomicBool, acked: &Mutex<Acked>) {
    while !stop.load(Ordering::SeqCst) {
        let next = app
            .get(&format!("/v1/challenges/next?trackId={TRACK}"), Some(token))
            .await;
        let challenge = next.ok().clone();
        let session = challenge["challengeId"].as_str().unwrap().to_string();
        for q in challenge["questions"].as_array().unwrap() {
            let question = q["question"]["id"].as_str().unwrap().to_string();
            let right = app
                .text(
                    "SELECT correct_option_id FROM challenge_session_questions
                     WHERE session_id = $1 AND question_id = $2",
                    &[&session, &question],
                )
                .await;
            // as a person answers: no fair-play hold hides them from the board
            app.clock.advance(chrono::Duration::seconds(4));
            let answer = app
                .post(
                    "/v1/challenges/answer",
                    json!({
                        "challengeId": session,
                        "questionId": question,
                        "selectedOptionId": right,
                        "timeMs": 3000,
                    }),
                    Some(token),
                )
                .await;
            let _: &Value = answer.ok();
            acked
                .lock()
                .await
                .insert((session.clone(), question), Instant::now());
        }
    }
}

/// SQLite: the binary's `backup` command; PostgreSQL: the backup script.
fn back_up(engine: Engine, url: &str, dump: &Path) {
    match engine {
        Engine::Sqlite => {
            let out = std::process::Command::new(EXE)
                .args(["backup", dump.to_str().unwrap()])
                .env_clear()
                .env("PATH", std::env::var("PATH").unwrap_or_default())
                .env("DATABASE_URL", url)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "admin-console backup: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        _ => run_script("pg-backup.sh", &[url, dump.to_str().unwrap()]),
    }
    assert!(dump.exists());
}

fn run_script(name: &str, args: &[&str]) {
    let script: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "scripts", name]
        .iter()
        .collect();
    let out = std::process::Command::new("bash")
        .arg(&script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The scheduled job on SQLite: under its lease one process copies, a second run
/// within the interval copies nothing, a run an interval later copies again, and only
/// the newest `BACKUP_KEEP` copies stay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backup_job_copies_once_per_interval_and_keeps_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::spawn_with(
        Engine::Sqlite,
        &[
            ("JOBS_ENABLED", "false".to_string()),
            ("BACKUP_DIR", dir.path().display().to_string()),
            ("BACKUP_INTERVAL", "6h".to_string()),
            ("BACKUP_KEEP", "2".to_string()),
        ],
    )
    .await;
    let metrics = Metrics::new(app.ctx.db.clone()).jobs();
    let copies = || {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };

    // the test clock runs on with real time, so a copy is named at some instant
    // between the job's start and its end (a busy machine can cross a second)
    let named_within =
        |name: &str, from: chrono::DateTime<chrono::Utc>, to: chrono::DateTime<chrono::Utc>| {
            let (first, last) = (backup::file_name(from), backup::file_name(to));
            assert!(
                first.as_str() <= name && name <= last.as_str(),
                "{name} not in {first}..{last}"
            );
        };
    let from = app.clock.now();
    assert!(jobs::run(&app.ctx, "process-a", Job::Backup, &metrics).await);
    // another process finds the lease taken
    assert!(!jobs::run(&app.ctx, "process-b", Job::Backup, &metrics).await);
    assert_eq!(copies().len(), 1);
    named_within(&copies()[0], from, app.clock.now());
    // within the interval, nothing new
    app.clock.advance(chrono::Duration::hours(5));
    assert!(jobs::run(&app.ctx, "process-a", Job::Backup, &metrics).await);
    assert_eq!(copies().len(), 1);

    let mut expected = copies();
    for _ in 0..3 {
        app.clock.advance(chrono::Duration::hours(6));
        let from = app.clock.now();
        assert!(jobs::run(&app.ctx, "process-a", Job::Backup, &metrics).await);
        let newest = copies().pop().unwrap();
        named_within(&newest, from, app.clock.now());
        expected.push(newest);
    }
    assert_eq!(copies(), expected[expected.len() - 2..].to_vec());

    // a copy is a whole database the service starts on
    let newest = dir.path().join(copies().last().unwrap());
    let copy_dir = tempfile::tempdir().unwrap();
    let file = copy_dir.path().join("quiz.db");
    std::fs::copy(&newest, &file).unwrap();
    let restored = TestApp::spawn_on(
        TestDatabase::existing(Engine::Sqlite, format!("sqlite://{}", file.display())),
        &[("JOBS_ENABLED", "false".to_string())],
    )
    .await;
    assert_eq!(
        restored.scalar("SELECT count(*) FROM admins", &[]).await,
        app.scalar("SELECT count(*) FROM admins", &[]).await
    );
}

#[test]
fn the_backup_command_refuses_a_missing_database_and_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let out = std::process::Command::new(EXE)
        .args(["backup", dir.path().join("copy.db").to_str().unwrap()])
        .env_clear()
        .env("DATABASE_URL", format!("sqlite://{}", missing.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no SQLite database")
            || String::from_utf8_lossy(&out.stderr).contains("no SQLite database"),
        "{out:?}"
    );
    assert!(
        !missing.exists(),
        "the backup created the database it was to copy"
    );

    let out = std::process::Command::new(EXE)
        .args(["backup"])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}
