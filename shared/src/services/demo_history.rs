//! The demo's history (`DEMO_HISTORY=true`): simulated players play the last 14 days
//! ([`HistorySize::DEMO`]) through the service's own use cases, so a first look at the console (dashboard,
//! statistics, calibration, boards, leagues, the fair-play queue) shows data, not zeros.
//!
//! It runs on a context of its own whose clock starts that many days ago and moves forward
//! session by session (every rule reads the clock: hearts, streaks, Beijing days and
//! weeks, the answers' times), and plays: guest sign-ins, a region each, challenges on
//! the tracks, answers and knowledge cards. Players of skill θ ~ N(0, 1)
//! answer right with the learning model's chance, c + (1 − c)·σ(θ − b), where b is the
//! question's authored difficulty blurred by the truth the simulator keeps; a few bots
//! answer everything right in a third of a second. Seeded: every demo has the same
//! history, relative to its first start.
//!
//! Once per database: under the lease `demo-history`, its progress stored day by day
//! (`day N`, then `done`), so a restart resumes after the last whole day and a finished
//! history is never played again.

use std::collections::HashMap;

use chrono::{Duration, Utc};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use crate::clock::{Clock, beijing};
use crate::config::Settings;
use crate::context::AppContext;
use crate::db;
use crate::domain::skill;
use crate::ids::QuestionId;
use crate::services::gameplay::{self, AnswerRequest};
use crate::services::{player_auth, regions};
use crate::{Error, Result};

/// How much history to play.
#[derive(Clone, Copy, Debug)]
pub struct HistorySize {
    /// Simulated human players.
    pub players: usize,
    /// Simulated bots (every answer right, in about 300 ms): what fair play is for.
    pub bots: usize,
    /// Days of history, ending yesterday (Beijing).
    pub days: i64,
}

impl HistorySize {
    /// The run command's demo.
    pub const DEMO: Self = Self {
        players: 200,
        bots: 4,
        days: 14,
    };
}
/// The regions the players choose among (the first enabled ones), so boards fill.
const REGIONS: usize = 6;
const SEED: u64 = 2026;
const LEASE: &str = "demo-history";
/// Long enough for a whole history on a laptop; a run that dies frees it after this.
const LEASE_MS: i64 = 30 * 60 * 1000;

/// What a history run played.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Played {
    pub days: i64,
    pub players: usize,
    pub challenges: u64,
    pub answers: u64,
}

struct SimPlayer {
    device_id: String,
    skill: f64,
    /// Chance of playing on a given day.
    activity: f64,
    favourite_track: usize,
    region: Option<String>,
    bot: bool,
}

/// Plays the history once per database (None: already played, or another process is
/// playing it). `now` is the main clock's reading: the history ends the day before it.
pub async fn play_once(
    settings: &Settings,
    now: chrono::DateTime<Utc>,
    size: HistorySize,
) -> Result<Option<Played>> {
    let today = beijing::day_start(beijing::day(now));
    let start = today - Duration::days(size.days);
    let ctx = AppContext::start(settings.clone(), Clock::starting_at(start))
        .await
        .map_err(|e| Error::internal(format!("demo history context: {e:#}")))?;
    let holder = format!("demo-history-{}", uuid::Uuid::new_v4());
    let resume_day = match db::jobs::lease(&ctx.db, LEASE).await? {
        Some(lease) if lease.progress.as_deref() == Some("done") => return Ok(None),
        Some(lease) => lease
            .progress
            .as_deref()
            .and_then(|p| p.strip_prefix("day "))
            .and_then(|d| d.parse::<i64>().ok())
            .unwrap_or(0),
        None => 0,
    };
    if !db::jobs::take_lease(&ctx.db, LEASE, &holder, LEASE_MS).await? {
        return Ok(None);
    }
    let played = play(&ctx, start, resume_day, &holder, size).await?;
    db::jobs::finish_run(&ctx.db, LEASE, &holder, Some("done")).await?;
    Ok(Some(played))
}

async fn play(
    ctx: &AppContext,
    start: chrono::DateTime<Utc>,
    from_day: i64,
    holder: &str,
    size: HistorySize,
) -> Result<Played> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let tracks: Vec<String> = db::tracks::tracks(&ctx.db)
        .await?
        .into_iter()
        .map(|t| t.id)
        .collect();
    if tracks.is_empty() {
        return Ok(Played::default());
    }
    let region_codes: Vec<String> = ctx
        .regions
        .list()
        .regions
        .iter()
        .filter(|r| r.enabled)
        .take(REGIONS)
        .map(|r| r.code.clone())
        .collect();
    let players: Vec<SimPlayer> = (0..size.players + size.bots)
        .map(|i| SimPlayer {
            device_id: format!("demo-history-{i:03}"),
            skill: normal(&mut rng),
            activity: rng.random_range(0.25..0.9),
            favourite_track: rng.random_range(0..tracks.len()),
            region: region_codes.choose(&mut rng).cloned(),
            bot: i >= size.players,
        })
        .collect();
    let mut truth = Truth::default();
    let mut played = Played {
        days: size.days - from_day,
        players: players.len(),
        ..Played::default()
    };
    for day in 0..size.days {
        // the day's sessions between 07:00 and 23:00 Beijing, in time order; drawn for
        // every day (skipped ones too) so a resumed history is the same history
        let day_start = start + Duration::days(day) + Duration::hours(7);
        let mut sessions: Vec<(i64, usize, usize)> = Vec::new();
        for (p, player) in players.iter().enumerate() {
            let count = if player.bot {
                3
            } else if rng.random_bool(player.activity) {
                rng.random_range(1..=3)
            } else {
                0
            };
            for _ in 0..count {
                let minute = rng.random_range(0..16 * 60);
                let track = if rng.random_bool(0.7) {
                    player.favourite_track
                } else {
                    rng.random_range(0..tracks.len())
                };
                sessions.push((minute, p, track));
            }
        }
        sessions.sort_unstable();
        let mut day_rng = StdRng::seed_from_u64(SEED ^ (day as u64 + 1));
        if day < from_day {
            continue;
        }
        for (minute, p, track) in sessions {
            let at = day_start + Duration::minutes(minute);
            if at > ctx.clock.now() {
                ctx.clock.set(at);
            }
            let (challenges, answers) =
                session(ctx, &players[p], &tracks[track], &mut truth, &mut day_rng).await;
            played.challenges += challenges;
            played.answers += answers;
        }
        db::jobs::finish_run(&ctx.db, LEASE, holder, Some(&format!("day {}", day + 1))).await?;
        db::jobs::take_lease(&ctx.db, LEASE, holder, LEASE_MS).await?;
    }
    Ok(played)
}

/// A normal deviate (Box-Muller).
fn normal<R: Rng>(rng: &mut R) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    let v: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// What the simulator knows of each question it met: its right answer and its true
/// difficulty (the author's, blurred once).
#[derive(Default)]
struct Truth {
    questions: HashMap<QuestionId, (String, f64)>,
}

impl Truth {
    async fn of(
        &mut self,
        ctx: &AppContext,
        id: &QuestionId,
        rng: &mut StdRng,
    ) -> Result<(String, f64)> {
        if let Some(known) = self.questions.get(id) {
            return Ok(known.clone());
        }
        let q = db::questions::get(&ctx.db, id)
            .await?
            .ok_or_else(|| Error::internal("served question vanished"))?;
        let known = (
            q.correct_answer,
            skill::authored_difficulty(q.difficulty) + 0.7 * normal(rng),
        );
        self.questions.insert(id.clone(), known.clone());
        Ok(known)
    }
}

/// One sitting: sign in, choose a region the first time, play a challenge of `track` to
/// its end (or until the game refuses: no hearts, no attempts left). Refusals end the
/// sitting, as they would on a phone; they are not errors of the history.
async fn session(
    ctx: &AppContext,
    player: &SimPlayer,
    track: &str,
    truth: &mut Truth,
    rng: &mut StdRng,
) -> (u64, u64) {
    match try_session(ctx, player, track, truth, rng).await {
        Ok(done) => done,
        Err(e) => {
            tracing::debug!(error = %e, device = player.device_id, "demo history: sitting ended");
            (0, 0)
        }
    }
}

async fn try_session(
    ctx: &AppContext,
    player: &SimPlayer,
    track: &str,
    truth: &mut Truth,
    rng: &mut StdRng,
) -> Result<(u64, u64)> {
    let signed_in = player_auth::guest_sign_in(ctx, &player.device_id).await?;
    let token = signed_in.tokens.access_token;
    let principal = player_auth::authenticate(ctx, &token).await?;
    let subject = player_auth::verify_access(ctx, &token)?;
    if let Some(region) = &player.region {
        let state = db::players::region_state(&ctx.db, &principal.id).await?;
        if state.is_some_and(|s| s.region_code.is_none()) {
            regions::change_region(ctx, &principal, region).await?;
        }
    }
    let Some(challenge) = gameplay::next_challenge(ctx, &principal, track).await? else {
        return Ok((0, 0));
    };
    let mut answers = 0;
    for served in &challenge.questions {
        if challenge
            .answered_question_ids
            .contains(&served.question.id)
        {
            continue;
        }
        let (right_text, difficulty) = truth.of(ctx, &served.question.id, rng).await?;
        let options = &served.question.options;
        let floor = skill::guessing_floor(options.len());
        let right = player.bot
            || rng.random_bool(
                skill::predicted_success(player.skill, difficulty, floor).clamp(0.0, 1.0),
            );
        let chosen = options
            .iter()
            .filter(|o| (o.text == right_text) == right)
            .collect::<Vec<_>>()
            .choose(rng)
            .map(|o| o.id.clone())
            .unwrap_or_default();
        let time_ms = if player.bot {
            rng.random_range(250..400)
        } else {
            rng.random_range(2500..15000)
        };
        ctx.clock.advance(Duration::milliseconds(time_ms));
        let result = gameplay::answer(
            ctx,
            &subject,
            &AnswerRequest {
                challenge_id: challenge.challenge_id.to_string(),
                question_id: served.question.id.to_string(),
                selected_option_id: chosen,
                time_ms: Some(time_ms),
                combo_count: None,
                submit_request_id: None,
            },
        )
        .await?;
        answers += 1;
        if result.answer_state == crate::domain::answer::AnswerState::Wrong
            && !player.bot
            && rng.random_bool(0.4)
        {
            ctx.clock
                .advance(Duration::seconds(rng.random_range(5..40)));
            gameplay::view_card(ctx, &principal, &result.knowledge_card.id).await?;
        }
    }
    Ok((1, answers))
}
