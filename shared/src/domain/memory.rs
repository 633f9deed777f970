//! Spaced review: what a player remembers of each question they have answered, as the
//! FSRS memory model (the `fsrs` crate of the FSRS project) holds it, stability (days
//! until predicted recall falls to 0.9) and difficulty (1-10), and when each question is
//! due again. Binary grading: a right answer is Good, a wrong one Again. Pure: the
//! answer's write stores what [`Schedule::review`] returns.

use std::sync::LazyLock;

use fsrs::{DEFAULT_PARAMETERS, FSRS, FSRSItem, FSRSReview, MemoryState};

/// A day in milliseconds: FSRS counts elapsed time in whole days.
pub const DAY_MS: i64 = 86_400_000;

/// At least this many right answers in a review challenge give a heart back.
pub const REVIEW_HEART_AT: i64 = 4;

/// A question answered wrong joins the reviews this long after the answer, not at once:
/// a review answered wrong for free would otherwise come straight back with its answer
/// just shown.
pub const MISTAKE_COOLDOWN_MS: i64 = 10 * 60_000;

/// The FSRS grades the game gives (binary grading).
const AGAIN: u32 = 1;
const GOOD: u32 = 3;

/// FSRS-6's default parameters (the FSRS project's fit to many learners' reviews).
pub fn default_parameters() -> Vec<f32> {
    DEFAULT_PARAMETERS.to_vec()
}

/// A player's memory of one question after their last answer of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Memory {
    pub stability: f64,
    pub difficulty: f64,
    /// Answers of the question judged so far.
    pub reviews: i64,
    /// Wrong answers after the first.
    pub lapses: i64,
    pub last_correct: bool,
    pub last_answered_at: i64,
    /// When predicted recall falls to the schedule's retention.
    pub due_at: i64,
    /// When the question joins the player's reviews: due, or soon after a wrong answer
    /// ([`MISTAKE_COOLDOWN_MS`]).
    pub review_at: i64,
}

impl Memory {
    /// In the player's reviews at `at_ms` (due, or answered wrong).
    pub fn reviewable(&self, at_ms: i64) -> bool {
        self.review_at <= at_ms
    }
}

/// An FSRS model with its parameters and the recall a review is due at.
#[derive(Clone, Debug)]
pub struct Schedule {
    model: FSRS,
    decay: f32,
    retention: f32,
}

/// Parameters the FSRS model refused (the wrong count, or values out of its range).
#[derive(Debug, PartialEq, Eq)]
pub struct InvalidParameters;

impl Schedule {
    /// The FSRS-6 default parameters, due at `retention`.
    pub fn with_defaults(retention: f64) -> Self {
        // built once: the crate checks and clips the parameters on every `FSRS::new`
        static DEFAULT_MODEL: LazyLock<FSRS> = LazyLock::new(FSRS::default);
        Self {
            model: DEFAULT_MODEL.clone(),
            decay: fsrs::FSRS6_DEFAULT_DECAY,
            retention: retention.clamp(0.5, 0.99) as f32,
        }
    }

    /// `parameters` (21 of FSRS-6, or a shorter older set the crate fills in), due at
    /// `retention`.
    pub fn new(parameters: &[f32], retention: f64) -> Result<Self, InvalidParameters> {
        let filled = fsrs::check_and_fill_parameters(parameters).map_err(|_| InvalidParameters)?;
        let decay = *filled.get(20).ok_or(InvalidParameters)?;
        let model = FSRS::new(&filled).map_err(|_| InvalidParameters)?;
        Ok(Self {
            model,
            decay,
            retention: retention.clamp(0.5, 0.99) as f32,
        })
    }

    /// The memory after an answer at `at_ms` (right or wrong) of a question last
    /// remembered as `prior` (None: the first answer).
    pub fn review(&self, prior: Option<&Memory>, correct: bool, at_ms: i64) -> Memory {
        let state = prior.map(|m| MemoryState {
            stability: m.stability as f32,
            difficulty: m.difficulty as f32,
        });
        let days = prior.map_or(0, |m| elapsed_days(m.last_answered_at, at_ms));
        let next = self
            .model
            .next_states(state, self.retention, days)
            .map(|n| if correct { n.good } else { n.again })
            // a state the model cannot step from (stored by hand, say) starts again
            .or_else(|_| {
                self.model
                    .next_states(None, self.retention, 0)
                    .map(|n| if correct { n.good } else { n.again })
            });
        let (stability, difficulty, interval) = match next {
            Ok(s) => (s.memory.stability, s.memory.difficulty, s.interval),
            // unreachable with valid parameters: the first review always steps
            Err(_) => (0.1, 5.0, 0.1),
        };
        let due_at = at_ms.saturating_add((f64::from(interval) * DAY_MS as f64) as i64);
        Memory {
            stability: f64::from(stability),
            difficulty: f64::from(difficulty),
            reviews: prior.map_or(0, |m| m.reviews) + 1,
            lapses: prior.map_or(0, |m| m.lapses) + i64::from(prior.is_some() && !correct),
            last_correct: correct,
            last_answered_at: at_ms,
            due_at,
            review_at: if correct {
                due_at
            } else {
                at_ms
                    .saturating_add(MISTAKE_COOLDOWN_MS)
                    .min(due_at.max(at_ms))
            },
        }
    }

    /// Predicted recall of `memory` at `at_ms` (1 right after the answer).
    pub fn recall(&self, memory: &Memory, at_ms: i64) -> f64 {
        let days = (at_ms - memory.last_answered_at).max(0) as f64 / DAY_MS as f64;
        let state = MemoryState {
            stability: (memory.stability as f32).max(0.001),
            difficulty: memory.difficulty as f32,
        };
        f64::from(fsrs::current_retrievability(state, days as f32, self.decay))
    }
}

/// Whole days from `from_ms` to `to_ms` (0 when earlier), as FSRS counts them.
pub fn elapsed_days(from_ms: i64, to_ms: i64) -> u32 {
    u32::try_from((to_ms - from_ms).max(0) / DAY_MS).unwrap_or(u32::MAX)
}

/// The `n` questions of `candidates` to review at `at_ms`: only those in the player's
/// reviews (due or answered wrong), lowest predicted recall first.
pub fn pick_reviews<T>(
    schedule: &Schedule,
    candidates: Vec<(T, Memory)>,
    at_ms: i64,
    n: usize,
) -> Vec<(T, Memory)> {
    let mut ranked: Vec<(f64, (T, Memory))> = candidates
        .into_iter()
        .filter(|(_, m)| m.reviewable(at_ms))
        .map(|c| {
            let recall = if c.1.last_correct {
                schedule.recall(&c.1, at_ms)
            } else {
                // a mistake comes first: what was not known is not recalled
                0.0
            };
            (recall, c)
        })
        .collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    ranked.into_iter().take(n).map(|(_, c)| c).collect()
}

/// Questions need this many players remembering them for the `quickly_forgotten` flag.
pub const FORGOTTEN_MIN_PLAYERS: i64 = 30;

/// The mean stability at or below which a question is among the worst tenth of
/// `stabilities` (the questions with enough players): their 10th percentile (the lower
/// nearest rank); None without any.
pub fn quickly_forgotten_threshold(stabilities: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = stabilities
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    // nearest rank: the ⌈n/10⌉-th smallest
    let rank = sorted.len().div_ceil(10).max(1);
    Some(sorted[rank - 1])
}

/// One answer of a question as the fit reads a player's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PastAnswer {
    pub correct: bool,
    pub at_ms: i64,
}

/// The FSRS training items of one question's answers (in time order): each answer on a
/// later day than the one before it, with the history before it (as FSRS trains: the
/// label is a long-term review; same-day answers stay in the histories).
pub fn training_items(history: &[PastAnswer]) -> Vec<FSRSItem> {
    let reviews: Vec<FSRSReview> = history
        .iter()
        .enumerate()
        .map(|(i, a)| FSRSReview {
            rating: if a.correct { GOOD } else { AGAIN },
            delta_t: match i {
                0 => 0,
                _ => elapsed_days(history[i - 1].at_ms, a.at_ms),
            },
        })
        .collect();
    (2..=reviews.len())
        .filter(|&end| reviews[end - 1].delta_t > 0)
        .map(|end| FSRSItem {
            reviews: reviews[..end].to_vec(),
        })
        .collect()
}

/// A player's own parameters, fitted by the crate's optimizer on their histories (one
/// per question, each in time order). None when the optimizer finds too little to fit:
/// it sets aside the rarest intervals between a question's first two answers (at least
/// 20 items per first grade) and trains from 64 later-day answers on, so a player needs
/// many questions answered on several days.
pub fn fit_parameters(histories: &[Vec<PastAnswer>]) -> Option<Vec<f32>> {
    let train_set: Vec<FSRSItem> = histories.iter().flat_map(|h| training_items(h)).collect();
    if train_set.is_empty() {
        return None;
    }
    // the optimizer asserts on data it does not expect: such a player keeps the defaults
    let fitted = std::panic::catch_unwind(|| {
        fsrs::compute_parameters(fsrs::ComputeParametersInput {
            train_set,
            ..Default::default()
        })
    })
    .ok()?
    .ok()?;
    // the optimizer answers with the defaults themselves when it finds too little to
    // train on: that is no fit of the player's own
    (fitted.len() == DEFAULT_PARAMETERS.len()
        && fitted.iter().all(|w| w.is_finite())
        && fitted[..] != DEFAULT_PARAMETERS[..])
        .then_some(fitted)
}

/// The share of a player's later-day answers (the last, by time) that checks a fit.
pub const CHECK_SHARE: f64 = 0.2;

/// How many standard errors a fit's gain in log loss over the defaults, on the held-out
/// answers, must clear to be adopted (one-sided, about 97.7 %; the error clustered by
/// question): a gain the size of the noise would adopt overfitted parameters half the
/// time.
pub const ADOPTION_Z: f64 = 2.0;

/// What fitting a player's own parameters found.
#[derive(Clone, Debug, PartialEq)]
pub enum FitOutcome {
    /// Parameters that predicted the player's held-out answers better than the defaults.
    Fitted(Vec<f32>),
    /// Too little to fit, or to check a fit on.
    TooLittle,
    /// A fit that predicted the held-out answers not clearly better than the defaults
    /// (their mean log losses).
    NoBetter { fitted: f64, defaults: f64 },
}

/// A player's own parameters, adopted only where they help: fitted
/// ([`fit_parameters`]) on the answers before the last [`CHECK_SHARE`] of the player's
/// later-day answers (by time), then both the fit and the defaults predict those
/// held-out answers from the history before each, as the service would have
/// scheduled them; the fit is adopted only when its log loss is lower by more than
/// [`ADOPTION_Z`] standard errors of the paired gain, clustered by question. A fit the optimizer overfits to a
/// short or odd history so does not replace defaults that predict this player as well.
pub fn fit_checked(histories: &[Vec<PastAnswer>]) -> FitOutcome {
    let later_day =
        |h: &[PastAnswer], i: usize| i > 0 && elapsed_days(h[i - 1].at_ms, h[i].at_ms) > 0;
    let mut times: Vec<i64> = histories
        .iter()
        .flat_map(|h| {
            (0..h.len())
                .filter(|&i| later_day(h, i))
                .map(|i| h[i].at_ms)
        })
        .collect();
    times.sort_unstable();
    let held_out = ((times.len() as f64) * CHECK_SHARE).ceil() as usize;
    let Some(&cut_at) = times.len().checked_sub(held_out).and_then(|i| times.get(i)) else {
        return FitOutcome::TooLittle;
    };
    let training: Vec<Vec<PastAnswer>> = histories
        .iter()
        .map(|h| h.iter().copied().filter(|a| a.at_ms < cut_at).collect())
        .collect();
    let Some(parameters) = fit_parameters(&training) else {
        return FitOutcome::TooLittle;
    };
    let Ok(fitted) = Schedule::new(&parameters, 0.9) else {
        return FitOutcome::TooLittle;
    };
    let defaults = Schedule::with_defaults(0.9);
    // per question with held-out answers: (their count, the fit's summed log loss, the
    // defaults'); a question's answers are not independent of each other, so the gain's
    // standard error is taken over questions (clustered), not over answers
    let mut clusters: Vec<(f64, f64, f64)> = Vec::new();
    for h in histories {
        let (mut by_fit, mut by_default): (Option<Memory>, Option<Memory>) = (None, None);
        let mut cluster = (0.0, 0.0, 0.0);
        for (i, a) in h.iter().enumerate() {
            if a.at_ms >= cut_at
                && later_day(h, i)
                && let (Some(f), Some(d)) = (&by_fit, &by_default)
            {
                cluster.0 += 1.0;
                cluster.1 += binary_log_loss(fitted.recall(f, a.at_ms), a.correct);
                cluster.2 += binary_log_loss(defaults.recall(d, a.at_ms), a.correct);
            }
            by_fit = Some(fitted.review(by_fit.as_ref(), a.correct, a.at_ms));
            by_default = Some(defaults.review(by_default.as_ref(), a.correct, a.at_ms));
        }
        if cluster.0 > 0.0 {
            clusters.push(cluster);
        }
    }
    let questions = clusters.len() as f64;
    let n: f64 = clusters.iter().map(|c| c.0).sum();
    if questions < 2.0 {
        return FitOutcome::TooLittle;
    }
    let fitted_loss = clusters.iter().map(|c| c.1).sum::<f64>() / n;
    let default_loss = clusters.iter().map(|c| c.2).sum::<f64>() / n;
    // the mean gain per answer and its cluster-robust standard error
    let gain = default_loss - fitted_loss;
    let spread: f64 = clusters
        .iter()
        .map(|(count, f, d)| (d - f - count * gain).powi(2))
        .sum();
    let standard_error = (questions / (questions - 1.0) * spread).sqrt() / n;
    if gain > ADOPTION_Z * standard_error && gain > 0.0 {
        FitOutcome::Fitted(parameters)
    } else {
        FitOutcome::NoBetter {
            fitted: fitted_loss,
            defaults: default_loss,
        }
    }
}

/// The log loss of predicting `p` for an answer that was `correct` (p kept off 0 and 1).
fn binary_log_loss(p: f64, correct: bool) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    -(if correct { p.ln() } else { (1.0 - p).ln() })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const T0: i64 = 1_800_000_000_000;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn a_first_answer_starts_from_the_published_fsrs6_initial_states() {
        // FSRS-6 defaults (the FSRS project's): S0(Good) = w2 = 2.3065 days with
        // D0(Good) = 2.1181; S0(Again) = w0 = 0.212 days with D0(Again) = w4 = 6.4133.
        let schedule = Schedule::with_defaults(0.9);
        let right = schedule.review(None, true, T0);
        assert!(close(right.stability, 2.3065, 1e-4), "{right:?}");
        assert!(close(right.difficulty, 2.1181, 1e-3), "{right:?}");
        let wrong = schedule.review(None, false, T0);
        assert!(close(wrong.stability, 0.212, 1e-4), "{wrong:?}");
        assert!(close(wrong.difficulty, 6.4133, 1e-4), "{wrong:?}");
        // at retention 0.9 the interval is the stability itself
        let due_days = (right.due_at - T0) as f64 / DAY_MS as f64;
        assert!(close(due_days, 2.3065, 1e-3), "{due_days}");
        assert_eq!((right.reviews, right.lapses), (1, 0));
        assert_eq!(
            wrong.review_at,
            T0 + MISTAKE_COOLDOWN_MS,
            "a mistake is reviewable soon"
        );
        assert_eq!(right.review_at, right.due_at);
    }

    #[test]
    fn recall_at_the_due_time_is_the_retention() {
        for retention in [0.8, 0.9, 0.95] {
            let schedule = Schedule::with_defaults(retention);
            let m = schedule.review(None, true, T0);
            let recall = schedule.recall(&m, m.due_at);
            assert!(close(recall, retention, 1e-3), "{retention}: {recall}");
            assert!(close(schedule.recall(&m, T0), 1.0, 1e-9));
        }
    }

    #[test]
    fn a_right_answer_on_time_grows_stability_and_a_lapse_shrinks_it() {
        let schedule = Schedule::with_defaults(0.9);
        let first = schedule.review(None, true, T0);
        let on_time = schedule.review(Some(&first), true, first.due_at);
        assert!(on_time.stability > 2.0 * first.stability, "{on_time:?}");
        let lapse = schedule.review(Some(&on_time), false, on_time.due_at);
        assert!(lapse.stability < on_time.stability);
        assert_eq!((lapse.reviews, lapse.lapses), (3, 1));
        assert!(!lapse.last_correct);
    }

    #[test]
    fn the_review_pick_takes_mistakes_then_lowest_recall_and_only_reviewable() {
        let schedule = Schedule::with_defaults(0.9);
        let now = T0 + 30 * DAY_MS;
        let old = schedule.review(None, true, T0); // due long ago: low recall
        let recent = schedule.review(None, true, now - 3 * DAY_MS); // just past due
        let not_due = schedule.review(None, true, now - DAY_MS);
        let mistake = schedule.review(None, false, now - DAY_MS);
        let picked = pick_reviews(
            &schedule,
            vec![
                ("recent", recent),
                ("not due", not_due),
                ("old", old),
                ("mistake", mistake),
            ],
            now,
            5,
        );
        let order: Vec<&str> = picked.iter().map(|(q, _)| *q).collect();
        assert_eq!(order, ["mistake", "old", "recent"]);
        assert_eq!(pick_reviews(&schedule, vec![("old", old)], now, 0).len(), 0);
    }

    #[test]
    fn training_items_are_the_histories_before_each_later_days_answer() {
        let history = [
            PastAnswer {
                correct: true,
                at_ms: T0,
            },
            PastAnswer {
                correct: false,
                at_ms: T0 + 3 * DAY_MS,
            },
            PastAnswer {
                correct: true,
                at_ms: T0 + 3 * DAY_MS + 1000,
            },
        ];
        let items = training_items(&history);
        // the same-day answer is no label, only history
        assert_eq!(items.len(), 1);
        let only: Vec<(u32, u32)> = items[0]
            .reviews
            .iter()
            .map(|r| (r.rating, r.delta_t))
            .collect();
        assert_eq!(only, [(GOOD, 0), (AGAIN, 3)]);
        assert!(training_items(&history[..1]).is_empty());
    }

    #[test]
    fn the_worst_tenth_is_flagged_by_the_nearest_rank() {
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        // 20 questions: the 2 least stable
        assert_eq!(quickly_forgotten_threshold(&values), Some(2.0));
        let flagged = values.iter().filter(|v| **v <= 2.0).count();
        assert_eq!(flagged, 2);
        // fewer than 10: still the least stable one
        assert_eq!(quickly_forgotten_threshold(&[3.0, 1.5, 9.0]), Some(1.5));
        assert_eq!(quickly_forgotten_threshold(&[]), None);
        assert_eq!(quickly_forgotten_threshold(&[f64::NAN, 4.0]), Some(4.0));
    }

    /// A player's answers drawn from `truth`: 160 questions, four new a day for 40 days,
    /// each answered again about 1, 3, 7, 15 and 30 days after the answer before.
    fn drawn_histories(truth: &Schedule, seed: u64) -> Vec<Vec<PastAnswer>> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..160)
            .map(|q| {
                let mut at = T0 + (q / 4) as i64 * DAY_MS + rng.random_range(0..8 * 3_600_000);
                let mut state: Option<Memory> = None;
                let mut history = Vec::new();
                for gap in [0.0, 1.0, 3.0, 7.0, 15.0, 30.0] {
                    at += ((gap * rng.random_range(0.7..1.4)) * DAY_MS as f64) as i64;
                    let p = state.as_ref().map_or(1.0, |m| truth.recall(m, at));
                    let correct = rng.random_bool(p.clamp(0.0, 1.0));
                    history.push(PastAnswer { correct, at_ms: at });
                    state = Some(truth.review(state.as_ref(), correct, at));
                }
                history
            })
            .collect()
    }

    /// A forgetful player: the default initial stabilities divided by ten, a stability
    /// that grows a quarter as fast (w8, the growth's log scale, less 1.4) and a quarter
    /// of the stability after a lapse (w11).
    fn forgetful() -> Schedule {
        let mut w = default_parameters();
        for w in &mut w[..4] {
            *w /= 10.0;
        }
        w[8] -= 1.4;
        w[11] /= 4.0;
        Schedule::new(&w, 0.9).unwrap()
    }

    #[test]
    fn a_fit_that_predicts_the_later_answers_better_is_adopted() {
        // two standard errors is a high bar on one player's answers: most seeds, not all
        let mut adopted = 0;
        for seed in 1..=30 {
            match fit_checked(&drawn_histories(&forgetful(), seed)) {
                FitOutcome::Fitted(w) => {
                    assert_eq!(w.len(), 21);
                    adopted += 1;
                }
                FitOutcome::NoBetter { fitted, defaults } => assert!(fitted < defaults + 0.05),
                FitOutcome::TooLittle => panic!("seed {seed}: too little"),
            }
        }
        assert!(adopted >= 18, "{adopted} of 30");
    }

    #[test]
    fn a_fit_no_better_on_the_later_answers_keeps_the_defaults() {
        // forgetful until the held-out part, which the player then answers all right:
        // the fit learned the forgetting, the defaults predict those answers better
        let mut histories = drawn_histories(&forgetful(), 4);
        let mut times: Vec<i64> = histories
            .iter()
            .flat_map(|h| {
                (1..h.len())
                    .filter(|&i| elapsed_days(h[i - 1].at_ms, h[i].at_ms) > 0)
                    .map(|i| h[i].at_ms)
                    .collect::<Vec<_>>()
            })
            .collect();
        times.sort_unstable();
        let cut_at = times[times.len() - (times.len() as f64 * CHECK_SHARE).ceil() as usize];
        for a in histories.iter_mut().flatten().filter(|a| a.at_ms >= cut_at) {
            a.correct = true;
        }
        match fit_checked(&histories) {
            FitOutcome::NoBetter { fitted, defaults } => assert!(fitted >= defaults),
            other => panic!("{other:?}"),
        }
        assert_eq!(fit_checked(&[]), FitOutcome::TooLittle);
        assert_eq!(fit_checked(&histories[..3]), FitOutcome::TooLittle);
    }

    #[test]
    fn too_little_to_train_on_is_no_fit() {
        let few: Vec<Vec<PastAnswer>> = (0..5)
            .map(|q| {
                (0..4)
                    .map(|d| PastAnswer {
                        correct: (q + d) % 3 != 0,
                        at_ms: T0 + d * DAY_MS,
                    })
                    .collect()
            })
            .collect();
        assert_eq!(fit_parameters(&few), None);
        assert_eq!(fit_parameters(&[]), None);
    }

    #[test]
    fn parameters_of_the_wrong_shape_are_refused() {
        assert!(Schedule::new(&[1.0, 2.0], 0.9).is_err());
        assert!(Schedule::new(&[f32::NAN; 21], 0.9).is_err());
        assert!(Schedule::new(&DEFAULT_PARAMETERS, 0.9).is_ok());
    }

    proptest! {
        #[test]
        fn any_history_keeps_the_state_finite_and_recall_falling(
            answers in proptest::collection::vec((any::<bool>(), 0i64..(40 * DAY_MS)), 1..30),
        ) {
            let schedule = Schedule::with_defaults(0.9);
            let mut at = T0;
            let mut memory: Option<Memory> = None;
            for (correct, gap) in answers {
                at += gap;
                let m = schedule.review(memory.as_ref(), correct, at);
                prop_assert!(m.stability.is_finite() && m.stability > 0.0);
                prop_assert!((1.0..=10.0).contains(&m.difficulty));
                prop_assert!(m.due_at >= at);
                prop_assert!(m.review_at <= m.due_at);
                let soon = schedule.recall(&m, at + DAY_MS);
                let later = schedule.recall(&m, at + 10 * DAY_MS);
                prop_assert!(soon >= later && later > 0.0 && soon <= 1.0);
                memory = Some(m);
            }
        }

        #[test]
        fn a_right_answer_is_never_due_sooner_than_a_wrong_one(
            stability in 0.1f64..400.0, difficulty in 1.0f64..10.0, days in 0i64..200,
        ) {
            let schedule = Schedule::with_defaults(0.9);
            let prior = Memory {
                stability, difficulty, reviews: 3, lapses: 0, last_correct: true,
                last_answered_at: T0, due_at: T0, review_at: T0,
            };
            let at = T0 + days * DAY_MS;
            let right = schedule.review(Some(&prior), true, at);
            let wrong = schedule.review(Some(&prior), false, at);
            prop_assert!(right.due_at >= wrong.due_at);
            prop_assert!(right.stability >= wrong.stability);
        }
    }
}
