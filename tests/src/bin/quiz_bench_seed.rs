//! Seeds a running `player-api` for the load benchmark (`bench/run.sh`), through the
//! public API only, and writes what the wrk scripts replay:
//!
//! - `quiz_bench_seed readers N FILE`: N guests (`POST /v1/auth/guest`), each with the
//!   benchmark region selected (`PATCH /v1/users/me/region`) and one challenge played
//!   (`GET /v1/challenges/next` + 5 × `POST /v1/challenges/answer`, 1-5 of them right),
//!   so every reader is on this week's region board and the all-players board with
//!   10-50 XP. FILE: one access token per line.
//! - `quiz_bench_seed answers N FILE`: ⌈N / 15⌉ guests with the region selected and an
//!   open challenge on each of the 3 demo tracks (5 questions each), and N answer
//!   requests that answer each (challenge, question) exactly once: 4 of a challenge's 5
//!   right (the right option is read from the database, as a client that knows the
//!   answer would pick it), each with its own `submitRequestId`. FILE: lines of
//!   `token<TAB>json body`, players in groups of `BENCH_GROUP` (256): within a group,
//!   round r holds every player's r-th answer (its challenges one after the other), so
//!   concurrent requests hit different players, each player answers in order, and any
//!   prefix of the file is mostly whole challenges, of the players made last (whose
//!   challenges the service still remembers: a person answers right after opening).
//!
//! Environment: `BENCH_BASE_URL` (the service, e.g. `http://127.0.0.1:18080`),
//! `DATABASE_URL` (the same database, read only to learn the right options),
//! `BENCH_REGION` (default: the first enabled region), `BENCH_PREFIX` (device-id prefix,
//! unique per call), `BENCH_SEED_CONCURRENCY` (default 16).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::io::Write as _;
use std::time::Instant;

use anyhow::{Context as _, anyhow, bail};
use futures::stream::{self, StreamExt, TryStreamExt};
use serde_json::{Value, json};
use shared::config::DatabaseUrl;
use shared::db::Db;

struct Api {
    http: reqwest::Client,
    base: String,
}

impl Api {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> anyhow::Result<Value> {
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req
            .send()
            .await
            .with_context(|| format!("{method} {path}"))?;
        let status = resp.status();
        let text = resp.text().await?;
        if !status.is_success() {
            bail!("{method} {path}: {status}: {text}");
        }
        let v: Value = serde_json::from_str(&text)?;
        Ok(v["data"].clone())
    }
}

/// A guest with the region selected: its access token.
async fn new_player(api: &Api, device: &str, region: &str) -> anyhow::Result<String> {
    let session = api
        .call(
            reqwest::Method::POST,
            "/v1/auth/guest",
            None,
            Some(json!({ "deviceId": device })),
        )
        .await?;
    let token = session["tokens"]["accessToken"]
        .as_str()
        .ok_or_else(|| anyhow!("no access token"))?
        .to_string();
    api.call(
        reqwest::Method::PATCH,
        "/v1/users/me/region",
        Some(&token),
        Some(json!({ "regionCode": region })),
    )
    .await?;
    Ok(token)
}

/// One question of an open challenge, with the option to send.
struct Planned {
    challenge_id: String,
    question_id: String,
    option_id: String,
}

/// Opens (or resumes) the challenge of a track and plans its answers: question `i` (in
/// the challenge's order) is answered right when `is_right(i)`, else with another option.
async fn plan_challenge(
    api: &Api,
    db: &Db,
    token: &str,
    track: &str,
    is_right: impl Fn(usize) -> bool,
) -> anyhow::Result<Vec<Planned>> {
    let c = api
        .call(
            reqwest::Method::GET,
            &format!("/v1/challenges/next?trackId={track}"),
            Some(token),
            None,
        )
        .await?;
    let challenge_id = c["challengeId"]
        .as_str()
        .ok_or_else(|| anyhow!("no challenge on track {track}: {c}"))?
        .to_string();
    let correct = correct_options(db, &challenge_id).await?;
    let mut planned = Vec::new();
    for (i, q) in c["questions"]
        .as_array()
        .ok_or_else(|| anyhow!("no questions"))?
        .iter()
        .enumerate()
    {
        let question_id = q["question"]["id"].as_str().unwrap_or_default().to_string();
        let right_id = correct
            .get(&question_id)
            .ok_or_else(|| anyhow!("no right option for {question_id}"))?;
        let options: Vec<&str> = q["question"]["options"]
            .as_array()
            .ok_or_else(|| anyhow!("no options"))?
            .iter()
            .filter_map(|o| o["id"].as_str())
            .collect();
        let option_id = if is_right(i) {
            right_id.clone()
        } else {
            options
                .iter()
                .find(|o| *o != right_id)
                .map(|o| o.to_string())
                .unwrap_or_else(|| right_id.clone())
        };
        planned.push(Planned {
            challenge_id: challenge_id.clone(),
            question_id,
            option_id,
        });
    }
    Ok(planned)
}

async fn correct_options(db: &Db, session_id: &str) -> anyhow::Result<HashMap<String, String>> {
    let sql = "SELECT question_id, correct_option_id FROM challenge_session_questions WHERE session_id = $1";
    let rows: Vec<(String, String)> = match db {
        Db::Sqlite(s) => {
            sqlx::query_as(sql)
                .bind(session_id)
                .fetch_all(&s.reader)
                .await?
        }
        Db::Postgres(p) => sqlx::query_as(sql).bind(session_id).fetch_all(p).await?,
    };
    Ok(rows.into_iter().collect())
}

fn answer_body(p: &Planned, request_id: &str) -> Value {
    json!({
        "challengeId": p.challenge_id,
        "questionId": p.question_id,
        "selectedOptionId": p.option_id,
        "timeMs": 4200,
        "comboCount": 0,
        "submitRequestId": request_id,
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (mode, n, out) = match args.as_slice() {
        [_, mode, n, out] => (mode.as_str(), n.parse::<usize>()?, out.clone()),
        _ => bail!("usage: quiz_bench_seed readers|answers N FILE"),
    };
    let base = std::env::var("BENCH_BASE_URL").context("BENCH_BASE_URL")?;
    let db_url = std::env::var("DATABASE_URL").context("DATABASE_URL")?;
    let prefix = std::env::var("BENCH_PREFIX")
        .unwrap_or_else(|_| format!("seed-{}", uuid::Uuid::new_v4().simple()));
    let concurrency: usize = std::env::var("BENCH_SEED_CONCURRENCY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let db =
        Db::connect(&DatabaseUrl::parse(&db_url).ok_or_else(|| anyhow!("DATABASE_URL"))?).await?;
    let api = Api {
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(64)
            .build()?,
        base,
    };

    let region = match std::env::var("BENCH_REGION") {
        Ok(r) if !r.is_empty() => r,
        _ => {
            let list = api
                .call(reqwest::Method::GET, "/v1/app/regions", None, None)
                .await?;
            list["regions"]
                .as_array()
                .and_then(|r| r.iter().find(|r| r["enabled"] == true))
                .and_then(|r| r["code"].as_str())
                .ok_or_else(|| anyhow!("no enabled region"))?
                .to_string()
        }
    };
    let t0 = Instant::now();
    // The tracks (as any player sees them).
    let probe = new_player(&api, &format!("{prefix}-probe"), &region).await?;
    let tracks_json = api
        .call(reqwest::Method::GET, "/v1/tracks", Some(&probe), None)
        .await?;
    let tracks: Vec<String> = tracks_json
        .as_array()
        .ok_or_else(|| anyhow!("no tracks"))?
        .iter()
        .filter_map(|t| t["id"].as_str().map(str::to_string))
        .collect();
    if tracks.is_empty() {
        bail!("no tracks: start the service with DEMO_CONTENT=true");
    }

    let mut file = std::io::BufWriter::new(std::fs::File::create(&out)?);
    match mode {
        "readers" => {
            let api = &api;
            let db = &db;
            let (region, prefix, tracks) = (&region, &prefix, &tracks);
            let tokens: Vec<String> = stream::iter(0..n)
                .map(|i| async move {
                    let token = new_player(api, &format!("{prefix}-r{i}"), region).await?;
                    let track = &tracks[i % tracks.len()];
                    let right = 1 + i % 5; // 10-50 XP
                    for (k, p) in plan_challenge(api, db, &token, track, |q| q < right)
                        .await?
                        .iter()
                        .enumerate()
                    {
                        api.call(
                            reqwest::Method::POST,
                            "/v1/challenges/answer",
                            Some(&token),
                            Some(answer_body(p, &format!("{prefix}-r{i}-{k}"))),
                        )
                        .await?;
                    }
                    anyhow::Ok(token)
                })
                .buffer_unordered(concurrency)
                .try_collect()
                .await?;
            for t in tokens {
                writeln!(file, "{t}")?;
            }
        }
        "answers" => {
            let per_player = tracks.len() * 5;
            let players = n.div_ceil(per_player).max(1);
            let api = &api;
            let db = &db;
            let (region, prefix, tracks) = (&region, &prefix, &tracks);
            let mut plans: Vec<(usize, String, Vec<Planned>)> = stream::iter(0..players)
                .map(|i| async move {
                    let token = new_player(api, &format!("{prefix}-a{i}"), region).await?;
                    let mut planned = Vec::new();
                    for (k, track) in tracks.iter().enumerate() {
                        // 4 of 5 right; which one is wrong varies by player and track
                        let wrong = (i + k) % 5;
                        planned
                            .extend(plan_challenge(api, db, &token, track, |q| q != wrong).await?);
                    }
                    anyhow::Ok((i, token, planned))
                })
                .buffer_unordered(concurrency)
                .try_collect()
                .await?;
            // The players made last come first: a process remembers the challenges it
            // opened most recently (`AnswerCache::CAPACITY`), as a person answers a
            // challenge right after opening it, and the run answers only a prefix of
            // a file seeded with room to spare.
            plans.sort_by_key(|p| std::cmp::Reverse(p.0));
            // Groups of `group` players (more than wrk's connections): within a group, round
            // r sends every player's r-th answer, so one player's answers come one at a time
            // and `group` requests apart; groups follow one another, so whatever prefix of
            // the file a run uses is mostly whole challenges (first answers, last answers
            // and node completions in their natural proportion).
            let group: usize = std::env::var("BENCH_GROUP")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(256);
            let mut written = 0;
            'groups: for chunk in plans.chunks(group.max(1)) {
                for round in 0..per_player {
                    for (i, token, planned) in chunk {
                        if written == n {
                            break 'groups;
                        }
                        if let Some(p) = planned.get(round) {
                            let body = answer_body(p, &format!("{prefix}-a{i}-{round}"));
                            writeln!(file, "{token}\t{body}")?;
                            written += 1;
                        }
                    }
                }
            }
        }
        other => bail!("unknown mode {other}"),
    }
    file.flush()?;
    eprintln!(
        "seeded {mode} {n} into {out} in {:.1} s (region {region})",
        t0.elapsed().as_secs_f64()
    );
    db.close().await;
    Ok(())
}
