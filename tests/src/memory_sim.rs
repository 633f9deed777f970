//! The memory simulator (`bench/learning/run.sh`): seeded players with known forgetting
//! play a track and its reviews for weeks through the service's own `domain::memory`
//! (the FSRS schedule and the review pick), and the memory models are scored on each
//! player's last 20 % of reviews, held out by time.
//!
//! The truth: each player forgets by the FSRS-6 curve with their own parameters (the
//! defaults with the initial stabilities, the stability growth and the decay each scaled
//! by a log-normal factor, σ = 0.4), so stabilities are known at every answer. A
//! question's first answer is right with the question's ease (uniform on [0.3, 0.9]:
//! what the player knew before); every later answer is right with the true recall then.
//! Each day a player answers a challenge of 5 questions (3 new ones while the track
//! has them, the rest at random) and, an hour or more later, a review challenge of up
//! to 5 picked by the service's pick with the default parameters.
//!
//! A second world ([`World::ActR`]) that FSRS did not make, so that FSRS's lead is not
//! there by construction: the ACT-R memory model of Pavlik & Anderson ("Practice and
//! forgetting effects on vocabulary memory: an activation-based model of the spacing
//! effect", Cognitive Science 29, 2005). Each answer is a presentation; the activation
//! of a question is ln Σ t_j^(−d_j) over its presentations (t_j in seconds since
//! presentation j), each presentation decaying at d_j = c·e^(m_j) + α, where m_j is the
//! activation when it was made (so massed practice decays faster: the spacing effect),
//! c = 0.217 and α the player's rate (the paper's 0.177 scaled by a log-normal factor,
//! σ = 0.25); recall is 1 / (1 + e^((τ − m)/s)) with s = 0.25 and τ the question's
//! threshold. The paper's scaling of the time between sessions (h) is left out, so τ
//! is set here, not taken from the paper: −2.43 (recall about 0.84 a day after one
//! presentation at α = 0.177), shifted by N(0, 0.3²) per question.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shared::domain::evaluation::{auc, binned_rmse, log_loss};
use shared::domain::half_life::{self, HalfLifeRegression};
use shared::domain::memory::{self, DAY_MS, Memory, PastAnswer, Schedule};

const HOUR_MS: i64 = 3_600_000;
const RETENTION: f64 = 0.9;

/// A normal deviate (Box-Muller).
fn normal<R: Rng>(rng: &mut R) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    let v: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// One simulated answer.
#[derive(Clone, Copy, Debug)]
struct Answer {
    question: usize,
    at_ms: i64,
    correct: bool,
    /// The true chance it was right (the question's ease on a first answer).
    p_true: f64,
}

/// The world the simulated players forget in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum World {
    /// FSRS-6 with each player's own parameters.
    Fsrs,
    /// ACT-R's activation model with the spacing effect (Pavlik & Anderson 2005).
    ActR,
}

/// ACT-R's constants (Pavlik & Anderson 2005): the decay's scale on activation, the
/// recall's noise, the mean threshold and its spread across questions.
const ACTR_C: f64 = 0.217;
const ACTR_ALPHA: f64 = 0.177;
const ACTR_S: f64 = 0.25;
const ACTR_TAU: f64 = -2.43;

/// A player's true memory in one world.
enum Truth {
    Fsrs {
        schedule: Schedule,
        memory: Vec<Option<Memory>>,
    },
    ActR {
        /// The player's decay intercept α.
        rate: f64,
        /// Per question: each presentation's time and decay.
        presentations: Vec<Vec<(i64, f64)>>,
    },
}

impl Truth {
    /// ACT-R's activation of `presentations` at `at` (−∞ before the first).
    fn activation(presentations: &[(i64, f64)], at: i64) -> f64 {
        presentations
            .iter()
            .map(|&(t, d)| (((at - t) as f64 / 1000.0).max(1.0)).powf(-d))
            .sum::<f64>()
            .ln()
    }

    /// The chance of recalling question `q` at `at` (None before its first answer).
    fn recall(&self, q: usize, at: i64, threshold: f64) -> Option<f64> {
        match self {
            Truth::Fsrs { schedule, memory } => memory[q].as_ref().map(|m| schedule.recall(m, at)),
            Truth::ActR { presentations, .. } => {
                let seen = &presentations[q];
                (!seen.is_empty()).then(|| {
                    let m = Self::activation(seen, at);
                    1.0 / (1.0 + ((threshold - m) / ACTR_S).exp())
                })
            }
        }
    }

    /// Learns from answering question `q` at `at`.
    fn learn(&mut self, q: usize, correct: bool, at: i64) {
        match self {
            Truth::Fsrs { schedule, memory } => {
                memory[q] = Some(schedule.review(memory[q].as_ref(), correct, at));
            }
            Truth::ActR {
                rate,
                presentations,
            } => {
                let seen = &mut presentations[q];
                let m = Self::activation(seen, at);
                let decay = ACTR_C * if m.is_finite() { m.exp() } else { 0.0 } + *rate;
                seen.push((at, decay));
            }
        }
    }
}

/// A simulated player: their true memory of each question and what the service keeps
/// of it (by the defaults).
struct SimPlayer {
    truth: Truth,
    kept: Vec<Option<Memory>>,
    log: Vec<Answer>,
}

impl SimPlayer {
    /// Answers question `q` at `at`: right with the true recall (the question's `ease`
    /// on a first answer, `threshold` its ACT-R threshold); returns that probability.
    fn answer(
        &mut self,
        q: usize,
        at: i64,
        (ease, threshold): (f64, f64),
        service: &Schedule,
        rng: &mut StdRng,
    ) -> f64 {
        let p = self.truth.recall(q, at, threshold).unwrap_or(ease);
        let correct = rng.random_bool(p.clamp(0.0, 1.0));
        self.truth.learn(q, correct, at);
        self.kept[q] = Some(service.review(self.kept[q].as_ref(), correct, at));
        self.log.push(Answer {
            question: q,
            at_ms: at,
            correct,
            p_true: p,
        });
        p
    }
}

/// What the memory simulation measured: `(log loss, AUC, RMSE by bins)` of each model on the held-out
/// reviews, and how the review pick served.
#[derive(Clone, Debug)]
pub struct MemoryReport {
    pub players: usize,
    pub questions: usize,
    pub days: usize,
    pub answers: usize,
    pub held_out: usize,
    pub world: World,
    /// Each model's `(log loss, AUC, RMSE by 20 bins)`.
    pub truth: (f64, f64, f64),
    pub fsrs_default: (f64, f64, f64),
    pub fsrs_fitted: (f64, f64, f64),
    /// In the FSRS world, the ceiling for a player's own fit (`ceiling_schedule`).
    pub ceiling: Option<(f64, f64, f64)>,
    pub half_life: (f64, f64, f64),
    pub constant: (f64, f64, f64),
    /// Players whose own parameters the optimizer fitted (the others kept the defaults).
    pub fitted_players: usize,
    /// Of the questions review challenges served, the share in the player's reviews
    /// (due, or answered wrong) when served.
    pub served_while_due: f64,
    /// Of the times a question fell due before the last day, the share reviewed within a
    /// day of it.
    pub due_reviewed_within_a_day: f64,
    /// The mean true recall of the questions review challenges served, when served.
    pub recall_when_reviewed: f64,
}

/// The FSRS parameters a player of the FSRS world has their own of: the initial
/// stabilities (0-3), the stability growth (8, 10) and the decay (20).
const SCALED: [usize; 7] = [0, 1, 2, 3, 8, 10, 20];
/// The spread of each scaled parameter's log-normal factor.
const SPREAD: f64 = 0.4;

/// The defaults with each of [`SCALED`] multiplied by e^(factor).
fn scaled_parameters(log_factors: &[f64; 7]) -> Vec<f32> {
    let mut w = memory::default_parameters();
    for (&i, factor) in SCALED.iter().zip(log_factors) {
        w[i] *= factor.exp() as f32;
    }
    w
}

/// A player's true FSRS parameters: the defaults with some scaled (see the module).
fn true_parameters<R: Rng>(rng: &mut R) -> Vec<f32> {
    let mut log_factors = [0.0; 7];
    for factor in &mut log_factors {
        *factor = SPREAD * normal(rng);
    }
    scaled_parameters(&log_factors)
}

/// The FSRS world's ceiling for any fit of a player's own parameters: the world's own
/// family and prior known (the seven factors of [`SCALED`], each N(0, [`SPREAD`]²) in
/// logs), the factors estimated from the player's `training` answers alone (the
/// maximum a posteriori, by a coordinate search in steps of 0.2, 0.1 and 0.05). What
/// it misses of the true recall is what so many reviews cannot tell about a player.
fn ceiling_schedule(training: &[Answer], questions: usize) -> Schedule {
    let objective = |log_factors: &[f64; 7]| -> f64 {
        let Ok(schedule) = Schedule::new(&scaled_parameters(log_factors), RETENTION) else {
            return f64::INFINITY;
        };
        let mut states: Vec<Option<Memory>> = vec![None; questions];
        let mut loss = 0.0;
        for a in training {
            let state = &mut states[a.question];
            if let Some(m) = state {
                let p = schedule.recall(m, a.at_ms).clamp(1e-6, 1.0 - 1e-6);
                loss -= if a.correct { p.ln() } else { (1.0 - p).ln() };
            }
            *state = Some(schedule.review(state.as_ref(), a.correct, a.at_ms));
        }
        loss + log_factors.iter().map(|f| f * f).sum::<f64>() / (2.0 * SPREAD * SPREAD)
    };
    let mut best = [0.0; 7];
    let mut best_loss = objective(&best);
    for step in [0.2, 0.1, 0.05] {
        for _pass in 0..2 {
            let mut moved = false;
            for k in 0..best.len() {
                for direction in [1.0, -1.0] {
                    let mut tried = best;
                    tried[k] += direction * step;
                    let loss = objective(&tried);
                    if loss < best_loss {
                        (best, best_loss, moved) = (tried, loss, true);
                        break;
                    }
                }
            }
            if !moved {
                break;
            }
        }
    }
    Schedule::new(&scaled_parameters(&best), RETENTION)
        .unwrap_or_else(|_| Schedule::with_defaults(RETENTION))
}

/// Runs the simulation with `seed` in `world`: `players` players, a track of
/// `questions`, `days` days.
pub fn memory(
    seed: u64,
    world: World,
    players: usize,
    questions: usize,
    days: usize,
) -> MemoryReport {
    let mut rng = StdRng::seed_from_u64(seed);
    let service = Schedule::with_defaults(RETENTION);
    let ease: Vec<(f64, f64)> = (0..questions)
        .map(|_| {
            let ease = rng.random_range(0.3..0.9);
            (ease, ACTR_TAU + 0.3 * normal(&mut rng))
        })
        .collect();
    let start = 1_800_000_000_000_i64;
    let end = start + days as i64 * DAY_MS;

    let mut logs: Vec<Vec<Answer>> = Vec::with_capacity(players);
    let (mut served, mut served_due, mut recall_sum) = (0usize, 0usize, 0.0);
    for _ in 0..players {
        let truth = match world {
            World::Fsrs => Truth::Fsrs {
                schedule: Schedule::new(&true_parameters(&mut rng), RETENTION)
                    .unwrap_or_else(|_| service.clone()),
                memory: vec![None; questions],
            },
            World::ActR => Truth::ActR {
                rate: ACTR_ALPHA * (0.25 * normal(&mut rng)).exp(),
                presentations: vec![Vec::new(); questions],
            },
        };
        let mut player = SimPlayer {
            truth,
            kept: vec![None; questions],
            log: Vec::new(),
        };
        let mut next_new = 0;
        for day in 0..days as i64 {
            let mut at = start + day * DAY_MS + rng.random_range(8 * HOUR_MS..20 * HOUR_MS);
            // the day's challenge: new questions while there are, the rest at random
            for i in 0..5 {
                let q = if i < 3 && next_new < questions {
                    next_new += 1;
                    next_new - 1
                } else {
                    rng.random_range(0..next_new.max(1))
                };
                player.answer(q, at, ease[q], &service, &mut rng);
                at += 20_000;
            }
            // the day's review, through the service's pick
            at += rng.random_range(HOUR_MS..3 * HOUR_MS);
            let candidates: Vec<(usize, Memory)> = player
                .kept
                .iter()
                .enumerate()
                .filter_map(|(q, m)| m.map(|m| (q, m)))
                .collect();
            for (q, m) in memory::pick_reviews(&service, candidates, at, 5) {
                served += 1;
                served_due += usize::from(m.reviewable(at));
                recall_sum += player.answer(q, at, ease[q], &service, &mut rng);
                at += 20_000;
            }
        }
        let log = player.log;
        logs.push(log);
    }
    let answers = logs.iter().map(Vec::len).sum();

    // when each due time passed, was the question reviewed within a day?
    let (mut fell_due, mut on_time) = (0usize, 0usize);
    for log in &logs {
        let mut by_question: Vec<Vec<&Answer>> = vec![Vec::new(); questions];
        for a in log {
            by_question[a.question].push(a);
        }
        for history in by_question {
            let mut state: Option<Memory> = None;
            for (i, a) in history.iter().enumerate() {
                let m = service.review(state.as_ref(), a.correct, a.at_ms);
                if m.review_at + DAY_MS < end {
                    fell_due += 1;
                    on_time += usize::from(
                        history
                            .get(i + 1)
                            .is_some_and(|next| next.at_ms <= m.review_at + DAY_MS),
                    );
                }
                state = Some(m);
            }
        }
    }

    // the held-out reviews: each player's last 20 % of later answers, by time
    let mut predictions: [Vec<f64>; 5] = Default::default();
    let mut outcomes = Vec::new();
    let mut train_reviews: Vec<half_life::Review> = Vec::new();
    let mut test_reviews: Vec<half_life::Review> = Vec::new();
    let mut fitted_players = 0;
    for log in &logs {
        let mut seen = vec![0u32; questions];
        let reviews: Vec<usize> = log
            .iter()
            .enumerate()
            .filter_map(|(i, a)| {
                seen[a.question] += 1;
                (seen[a.question] > 1).then_some(i)
            })
            .collect();
        let Some(&cut) = reviews.get(reviews.len() * 4 / 5) else {
            continue;
        };
        let cut_at = log[cut].at_ms;
        // the player's own fit, on what came before the held-out part
        let mut histories: Vec<Vec<PastAnswer>> = vec![Vec::new(); questions];
        for a in log.iter().filter(|a| a.at_ms < cut_at) {
            histories[a.question].push(PastAnswer {
                correct: a.correct,
                at_ms: a.at_ms,
            });
        }
        // as the `review_fit` job adopts it: only where it predicts the player's own
        // later answers (the last fifth of this training part) better than the defaults
        let fitted = match memory::fit_checked(&histories) {
            memory::FitOutcome::Fitted(p) => Schedule::new(&p, RETENTION).ok(),
            _ => None,
        };
        fitted_players += usize::from(fitted.is_some());
        let fitted = fitted.unwrap_or_else(|| service.clone());
        let ceiling = (world == World::Fsrs).then(|| {
            let training: Vec<Answer> = log.iter().copied().filter(|a| a.at_ms < cut_at).collect();
            ceiling_schedule(&training, questions)
        });
        let mut ceiling_states: Vec<Option<Memory>> = vec![None; questions];
        // replay the log: each later answer predicted from the history before it
        let mut states: [Vec<Option<Memory>>; 2] = [vec![None; questions], vec![None; questions]];
        let mut counts = vec![(0u32, 0u32); questions];
        let mut last_at = vec![0i64; questions];
        for (i, a) in log.iter().enumerate() {
            let q = a.question;
            if let (Some(d), Some(f)) = (&states[0][q], &states[1][q]) {
                let review = half_life::Review {
                    days: (a.at_ms - last_at[q]) as f64 / DAY_MS as f64,
                    right: counts[q].0,
                    wrong: counts[q].1,
                    correct: a.correct,
                };
                if i >= cut {
                    predictions[0].push(service.recall(d, a.at_ms));
                    predictions[1].push(fitted.recall(f, a.at_ms));
                    predictions[3].push(a.p_true);
                    if let (Some(schedule), Some(m)) = (&ceiling, &ceiling_states[q]) {
                        predictions[4].push(schedule.recall(m, a.at_ms));
                    }
                    outcomes.push(a.correct);
                    test_reviews.push(review);
                } else {
                    train_reviews.push(review);
                }
            }
            states[0][q] = Some(service.review(states[0][q].as_ref(), a.correct, a.at_ms));
            states[1][q] = Some(fitted.review(states[1][q].as_ref(), a.correct, a.at_ms));
            if let Some(schedule) = &ceiling {
                ceiling_states[q] =
                    Some(schedule.review(ceiling_states[q].as_ref(), a.correct, a.at_ms));
            }
            if a.correct {
                counts[q].0 += 1;
            } else {
                counts[q].1 += 1;
            }
            last_at[q] = a.at_ms;
        }
    }
    let hlr = HalfLifeRegression::fit(&train_reviews, 2000, 0.5);
    predictions[2] = test_reviews.iter().map(|r| hlr.recall(r)).collect();
    let base = train_reviews.iter().filter(|r| r.correct).count() as f64
        / train_reviews.len().max(1) as f64;
    let score = |p: &[f64]| {
        (
            log_loss(p, &outcomes).unwrap_or(f64::NAN),
            auc(p, &outcomes).unwrap_or(f64::NAN),
            binned_rmse(p, &outcomes, 20).unwrap_or(f64::NAN),
        )
    };
    MemoryReport {
        players,
        questions,
        days,
        answers,
        held_out: outcomes.len(),
        world,
        truth: score(&predictions[3]),
        fsrs_default: score(&predictions[0]),
        fsrs_fitted: score(&predictions[1]),
        ceiling: (world == World::Fsrs).then(|| score(&predictions[4])),
        half_life: score(&predictions[2]),
        constant: score(&vec![base; outcomes.len()]),
        fitted_players,
        served_while_due: served_due as f64 / served.max(1) as f64,
        due_reviewed_within_a_day: on_time as f64 / fell_due.max(1) as f64,
        recall_when_reviewed: recall_sum / served.max(1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitted_fsrs_beats_half_life_regression_and_a_constant_and_stays_near_the_defaults() {
        let r = memory(5, World::Fsrs, 24, 60, 60);
        eprintln!("{r:?}");
        let fitted = r.fsrs_fitted.0;
        // the defaults are within a few thousandths of the truth here: a fit has little
        // to win, and the adoption check keeps what an overfitted one loses as small
        assert!(fitted <= r.fsrs_default.0 + 0.005, "{r:?}");
        assert!(r.truth.0 < fitted && r.truth.0 < r.fsrs_default.0, "{r:?}");
        // knowing the world's family and prior, a player's own reviews tell their
        // parameters well enough to come near the truth, nearer than the defaults
        let ceiling = r.ceiling.map_or(f64::NAN, |c| c.0);
        assert!(
            ceiling < r.fsrs_default.0 && ceiling < r.truth.0 + 0.005,
            "{r:?}"
        );
        assert!(fitted < r.half_life.0 && fitted < r.constant.0, "{r:?}");
        assert!(
            r.fsrs_fitted.1 > r.half_life.1 && r.fsrs_fitted.1 > 0.5,
            "{r:?}"
        );
        assert!(r.served_while_due >= 0.9, "{r:?}");
    }

    #[test]
    fn in_a_world_fsrs_did_not_make_fitted_fsrs_still_beats_half_life_regression_and_a_constant() {
        let r = memory(5, World::ActR, 24, 60, 60);
        eprintln!("{r:?}");
        let fitted = r.fsrs_fitted.0;
        assert!(fitted < r.fsrs_default.0, "{r:?}");
        assert!(
            r.ceiling.is_none(),
            "the ceiling is the FSRS world's: {r:?}"
        );
        assert!(fitted < r.half_life.0, "{r:?}");
        assert!(fitted <= r.constant.0 - 0.02, "{r:?}");
        assert!(r.truth.0 < fitted, "{r:?}");
    }
}
