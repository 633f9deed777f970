//! The adaptive pick measured through the service (issue 54 §4, `quiz_learning_sim`):
//! simulated players play a seeded track through the service's own use cases
//! (`gameplay::next_challenge`, `gameplay::answer`, the calibration job's
//! `learning::calibrate`) on a real database, as the demo history does. Nothing of the
//! pick is rebuilt here: the candidate query, the fold, the fit and the pick are the
//! service's, and the difficulties the pick reads are estimated from the simulated
//! answers, never given.
//!
//! The world is the one of `learning_sim`: a question of difficulty b and slope a among
//! four options is answered right by a player of skill θ with probability
//! 1/4 + 3/4·σ(a(θ − b)); b uniform on [−3, 3], a log-normal around 1, the author's 1-5
//! the true b blurred by N(0, 1).
//!
//! A run: a bank of `bank` questions of which 90 % are played first by a warm-up crowd
//! (θ ~ N(0, 1)) and calibrated by the job; then the other 10 % join the bank, new and
//! uncalibrated, so the pick's exploration place runs; then players of each measured skill
//! play `challenges` challenges each, in turns, the job running between turns as it would
//! every minute. Accuracy per skill is the share of right answers over all their answers.

use std::collections::HashMap;

use chrono::Duration;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use shared::clock::Clock;
use shared::context::AppContext;
use shared::services::gameplay::{self, AnswerRequest};
use shared::services::{learning, player_auth};

use crate::learning_sim::{TrueQuestion, normal, questions};
use crate::{Engine, TestDatabase, settings_with};

/// One run's shape.
#[derive(Clone, Debug)]
pub struct PickWorld {
    pub seed: u64,
    pub bank: usize,
    /// Warm-up players and the challenges each plays before the measured players come.
    pub warm_up_players: usize,
    pub warm_up_challenges: usize,
    /// The measured players' true skills, and how many players of each.
    pub skills: Vec<f64>,
    pub per_skill: usize,
    pub challenges: usize,
    /// `ADAPTIVE_PICK`.
    pub adaptive: bool,
}

impl PickWorld {
    /// The report's world on `seed`.
    pub fn report(seed: u64, adaptive: bool) -> Self {
        Self {
            seed,
            bank: 300,
            warm_up_players: 400,
            warm_up_challenges: 4,
            skills: vec![-1.5, 0.0, 1.5],
            per_skill: 30,
            challenges: 20,
            adaptive,
        }
    }
}

/// What a run measured, per measured skill.
#[derive(Clone, Debug)]
pub struct PickRun {
    /// (true skill, accuracy over every challenge, accuracy over the first five,
    /// accuracy over the rest).
    pub groups: Vec<(f64, f64, f64, f64)>,
    /// Share of the measured challenges that served a question new to the bank.
    pub explored: f64,
    /// Per measured skill, over the served questions: the success the service predicted
    /// when it picked them (its skill and difficulty estimates) and the true chance.
    pub predicted: Vec<(f64, f64)>,
    /// Per measured skill: the share of served questions that were uncalibrated when
    /// served (the exploration place), and their mean true chance.
    pub uncalibrated: Vec<(f64, f64)>,
    /// Per measured skill: the share of served questions the player had answered before,
    /// and their mean true chance.
    pub repeats: Vec<(f64, f64)>,
}

impl PickRun {
    /// The widest difference between two skills' accuracies.
    pub fn spread(&self) -> f64 {
        let all = self.groups.iter().map(|g| g.1);
        all.clone().fold(f64::MIN, f64::max) - all.fold(f64::MAX, f64::min)
    }
}

const TRACK: &str = "sim-track";

/// Plays `world` on a fresh SQLite database.
pub async fn play(world: &PickWorld) -> PickRun {
    let database = TestDatabase::create(Engine::Sqlite).await;
    let settings = settings_with(&[
        ("DATABASE_URL", database.url.clone()),
        (
            "MEDIA_FS_DIR",
            database.media_dir.join("store").display().to_string(),
        ),
        (
            "MEDIA_SPOOL_DIR",
            database.media_dir.join("spool").display().to_string(),
        ),
        ("JOBS_ENABLED", "false".to_string()),
        ("RULE_WRONG_ANSWER_HEARTS", "0".to_string()),
        ("RULE_DAILY_ATTEMPTS", "1000000".to_string()),
        ("RATE_LIMIT_PLAYER_WRITES_PER_MINUTE", "1000000".to_string()),
        ("ADAPTIVE_PICK", world.adaptive.to_string()),
    ]);
    let clock = Clock::starting_at(
        chrono::DateTime::parse_from_rfc3339(crate::TEST_START)
            .expect("the tests' start")
            .to_utc(),
    );
    let ctx = AppContext::start(settings, clock.clone())
        .await
        .expect("the simulator's context");
    let mut rng = StdRng::seed_from_u64(world.seed);
    let truth = questions(world.bank, &mut rng);
    let known = world.bank - world.bank / 10;
    seed_track(&ctx, &truth[..known], 0, &mut rng).await;

    let mut game = Game {
        ctx: &ctx,
        truth: HashMap::new(),
        seen: HashMap::new(),
        rng,
    };
    for (i, q) in truth.iter().enumerate() {
        game.truth.insert(question_id(i), (*q, right_answer(i)));
    }
    // the warm-up crowd, in turns
    let crowd: Vec<(String, f64)> = (0..world.warm_up_players)
        .map(|p| (format!("sim-warm-{p}"), normal(&mut game.rng)))
        .collect();
    for _ in 0..world.warm_up_challenges {
        for (device, theta) in &crowd {
            game.challenge(device, *theta).await;
        }
        game.job().await;
    }
    // the new questions, then a fit of what the crowd answered
    let mut rng = StdRng::seed_from_u64(world.seed ^ 0x5eed);
    seed_track(&ctx, &truth[known..], known, &mut rng).await;
    clock.advance(Duration::hours(2));
    game.job().await;

    let players: Vec<(String, f64)> = world
        .skills
        .iter()
        .enumerate()
        .flat_map(|(g, &theta)| (0..world.per_skill).map(move |p| (format!("sim-{g}-{p}"), theta)))
        .collect();
    let mut tallies: HashMap<String, Vec<(usize, bool)>> = HashMap::new();
    let mut predictions: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
    let mut served: HashMap<String, Vec<(bool, bool, f64)>> = HashMap::new();
    let mut explored = 0usize;
    for round in 0..world.challenges {
        for (device, theta) in &players {
            let played = game.challenge(device, *theta).await;
            explored += usize::from(played.iter().any(|p| p.index >= known));
            predictions
                .entry(device.clone())
                .or_default()
                .extend(played.iter().map(|p| (p.predicted, p.chance)));
            served
                .entry(device.clone())
                .or_default()
                .extend(played.iter().map(|p| (p.calibrated, p.repeat, p.chance)));
            tallies
                .entry(device.clone())
                .or_default()
                .extend(played.into_iter().map(|p| (round, p.right)));
        }
        game.job().await;
    }
    let groups = world
        .skills
        .iter()
        .enumerate()
        .map(|(g, &theta)| {
            let answers: Vec<(usize, bool)> = (0..world.per_skill)
                .flat_map(|p| tallies[&format!("sim-{g}-{p}")].clone())
                .collect();
            let share = |keep: &dyn Fn(usize) -> bool| {
                let picked: Vec<bool> = answers
                    .iter()
                    .filter(|(round, _)| keep(*round))
                    .map(|a| a.1)
                    .collect();
                picked.iter().filter(|r| **r).count() as f64 / picked.len().max(1) as f64
            };
            (
                theta,
                share(&|_| true),
                share(&|r| r < 5),
                share(&|r| r >= 5),
            )
        })
        .collect();
    let predicted = (0..world.skills.len())
        .map(|g| {
            let all: Vec<(f64, f64)> = (0..world.per_skill)
                .flat_map(|p| predictions[&format!("sim-{g}-{p}")].clone())
                .collect();
            let n = all.len().max(1) as f64;
            (
                all.iter().map(|a| a.0).sum::<f64>() / n,
                all.iter().map(|a| a.1).sum::<f64>() / n,
            )
        })
        .collect();
    let share_and_chance = |keep: &dyn Fn(&(bool, bool, f64)) -> bool| -> Vec<(f64, f64)> {
        (0..world.skills.len())
            .map(|g| {
                let all: Vec<(bool, bool, f64)> = (0..world.per_skill)
                    .flat_map(|p| served[&format!("sim-{g}-{p}")].clone())
                    .collect();
                let kept: Vec<f64> = all.iter().filter(|s| keep(s)).map(|s| s.2).collect();
                (
                    kept.len() as f64 / all.len().max(1) as f64,
                    kept.iter().sum::<f64>() / kept.len().max(1) as f64,
                )
            })
            .collect()
    };
    let uncalibrated = share_and_chance(&|s| !s.0);
    let repeats = share_and_chance(&|s| s.1);
    drop(ctx);
    drop(database);
    PickRun {
        uncalibrated,
        repeats,
        predicted,
        groups,
        explored: explored as f64 / (players.len() * world.challenges).max(1) as f64,
    }
}

fn question_id(index: usize) -> String {
    format!("sim-q-{index:04}")
}

fn right_answer(index: usize) -> String {
    format!("Right {index}")
}

/// Publishes `questions` in the track (ids from `first`), each with four options, its
/// author's 1-5 and a random pick key, and its version 1.
async fn seed_track(ctx: &AppContext, questions: &[TrueQuestion], first: usize, rng: &mut StdRng) {
    let mut tx = ctx.db.begin().await.expect("a transaction");
    shared::in_tx!(&mut tx, |ex| {
        sqlx::query(
            "INSERT INTO categories (id, name, slug, created_at, updated_at)
             VALUES ($1, 'Simulated track', $1, 0, 0) ON CONFLICT (id) DO NOTHING",
        )
        .bind(TRACK)
        .execute(&mut *ex)
        .await
        .expect("the track");
        sqlx::query(
            "INSERT INTO skill_nodes (id, category_id, title, created_at, updated_at)
             VALUES ($1, $1, 'All', 0, 0) ON CONFLICT (id) DO NOTHING",
        )
        .bind(TRACK)
        .execute(&mut *ex)
        .await
        .expect("the track's node");
        for (offset, q) in questions.iter().enumerate() {
            let index = first + offset;
            let id = question_id(index);
            let key = rng.random_range(0..shared::domain::pick::KEY_RANGE);
            sqlx::query(
                "INSERT INTO questions (id, category_id, stem_text, content_type, correct_answer,
                     distractors, difficulty, status, source, pick_key, option_count,
                     created_at, updated_at)
                 VALUES ($1, $2, $1, 'text', $3, $4, $5, 'published', 'system', $6, 4, 0, 0)",
            )
            .bind(&id)
            .bind(TRACK)
            .bind(right_answer(index))
            .bind(format!(
                r#"["Wrong {index} a", "Wrong {index} b", "Wrong {index} c"]"#
            ))
            .bind(q.authored)
            .bind(key)
            .execute(&mut *ex)
            .await
            .expect("a question");
            sqlx::query(
                "INSERT INTO question_versions (question_id, version, category_id, content_type,
                     stem_text, correct_answer, distractors, difficulty, edited_by, edited_at,
                     changed_fields)
                 SELECT id, version, category_id, content_type, stem_text, correct_answer,
                        distractors, difficulty, 'system', 0, '[]'
                 FROM questions WHERE id = $1",
            )
            .bind(&id)
            .execute(&mut *ex)
            .await
            .expect("its version");
        }
    });
    tx.commit().await.expect("the track's questions");
}

/// One played question.
struct Played {
    index: usize,
    right: bool,
    /// The success the service predicted for it when it was picked, and the true chance.
    predicted: f64,
    chance: f64,
    /// A fit had calibrated it when it was served.
    calibrated: bool,
    /// The player had answered it before.
    repeat: bool,
}

struct Game<'a> {
    ctx: &'a AppContext,
    /// Each question's truth and right answer, by id.
    truth: HashMap<String, (TrueQuestion, String)>,
    /// The questions each player has been served, by device.
    seen: HashMap<String, std::collections::HashSet<usize>>,
    rng: StdRng,
}

impl Game<'_> {
    /// The calibration job's run, the answers settled first (it folds answers two
    /// minutes old).
    async fn job(&mut self) {
        self.ctx.clock.advance(Duration::milliseconds(
            shared::services::job_clock::SETTLE_MS + 1000,
        ));
        learning::calibrate(self.ctx)
            .await
            .expect("the calibration job");
    }

    /// One challenge of the track played to its end by the player of `device`, who
    /// answers right with the world's chance at skill `theta`.
    async fn challenge(&mut self, device: &str, theta: f64) -> Vec<Played> {
        let signed_in = player_auth::guest_sign_in(self.ctx, device)
            .await
            .expect("a guest");
        let token = signed_in.tokens.access_token;
        let principal = player_auth::authenticate(self.ctx, &token)
            .await
            .expect("the guest's principal");
        let subject = player_auth::verify_access(self.ctx, &token).expect("the guest's token");
        let challenge = gameplay::next_challenge(self.ctx, &principal, TRACK)
            .await
            .expect("a challenge")
            .expect("the track has questions");
        // what the pick read: the player's track skill and each question's difficulty
        let skill = shared::db::learning::player_skills(&self.ctx.db, &principal.id)
            .await
            .expect("the player's skills")
            .into_iter()
            .find(|s| s.track_id == TRACK)
            .map_or(0.0, |s| s.skill);
        let mut played = Vec::new();
        for served in &challenge.questions {
            let id = served.question.id.to_string();
            let (truth, right_text) = self.truth[&id].clone();
            let read: (Option<f64>, i64, bool) = shared::read!(&self.ctx.db, |ex| {
                sqlx::query_as(
                    "SELECT pick_difficulty, difficulty, calibrated FROM questions WHERE id = $1",
                )
                .bind(&id)
                .fetch_one(ex)
                .await
                .expect("a served question")
            });
            let b = shared::domain::skill::Estimate::stored_or_authored(read.0, None, read.1).value;
            let predicted = shared::domain::skill::predicted_success(skill, b, 0.25);
            let chance = truth.success(theta);
            let right = self.rng.random_bool(chance.clamp(0.0, 1.0));
            let chosen = served
                .question
                .options
                .iter()
                .filter(|o| (o.text == right_text) == right)
                .collect::<Vec<_>>()
                .choose(&mut self.rng)
                .map(|o| o.id.clone())
                .unwrap_or_default();
            // at a reader's pace
            self.ctx.clock.advance(Duration::seconds(6));
            gameplay::answer(
                self.ctx,
                &subject,
                &AnswerRequest {
                    challenge_id: challenge.challenge_id.to_string(),
                    question_id: id.clone(),
                    selected_option_id: chosen,
                    time_ms: Some(5000),
                    combo_count: None,
                    submit_request_id: None,
                },
            )
            .await
            .expect("an answer");
            let index: usize = id
                .trim_start_matches("sim-q-")
                .parse()
                .expect("a simulated id");
            played.push(Played {
                calibrated: read.2,
                repeat: !self
                    .seen
                    .entry(device.to_string())
                    .or_default()
                    .insert(index),
                index,
                right,
                predicted,
                chance,
            });
        }
        played
    }
}
