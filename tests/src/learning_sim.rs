//! The learning simulator (`bench/learning/run.sh`): seeded players and questions with
//! known parameters answer through the service's own domain code (`domain::skill` for
//! Elo, `domain::irt` for calibration, `domain::pick` for challenges), and the estimates
//! are scored against the truth.
//!
//! The truth is a 2PL model with a guessing floor: a question of difficulty b and slope
//! a, among four options, is answered right by a player of skill θ with probability
//! 1/4 + 3/4·σ(a(θ − b)). Difficulties are uniform on [−3, 3], slopes log-normal around 1,
//! skills normal N(0, 1); an author's 1-5 difficulty is the true b blurred by N(0, 1).

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use shared::domain::evaluation::{auc, decile_gap, log_loss};
use shared::domain::irt::{self, Examinee, FitSettings, IrtModel};
use shared::domain::pick::{self, Candidate};
use shared::domain::skill::{self, EloRules, Estimate};

const OPTIONS: usize = 4;

/// A simulated question.
#[derive(Clone, Copy, Debug)]
pub struct TrueQuestion {
    pub difficulty: f64,
    pub slope: f64,
    pub authored: i64,
}

impl TrueQuestion {
    fn success(&self, skill: f64) -> f64 {
        let c = skill::guessing_floor(OPTIONS);
        c + (1.0 - c) * skill::logistic(self.slope * (skill - self.difficulty))
    }
}

/// A normal deviate (Box-Muller).
fn normal<R: Rng>(rng: &mut R) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    let v: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// `count` questions drawn as the module documentation says.
pub fn questions<R: Rng>(count: usize, rng: &mut R) -> Vec<TrueQuestion> {
    (0..count)
        .map(|_| {
            let difficulty = rng.random_range(-3.0..3.0);
            let slope = (0.2 * normal(rng)).exp();
            let authored = ((difficulty + normal(rng)).round() as i64 + 3).clamp(1, 5);
            TrueQuestion {
                difficulty,
                slope,
                authored,
            }
        })
        .collect()
}

/// What the first experiment measured: recovery of difficulties, and predictions of the
/// held-out answers.
#[derive(Clone, Debug)]
pub struct Estimation {
    pub questions: usize,
    pub players: usize,
    pub answers: usize,
    pub answers_per_question: f64,
    /// Spearman correlation of estimated and true difficulty.
    pub elo_recovery: f64,
    pub calibrated_recovery: f64,
    pub calibrated_recovery_1pl: f64,
    pub authored_recovery: f64,
    /// Of the share of wrong answers per question (what 30 answers can tell at best,
    /// without knowing who answered).
    pub share_wrong_recovery: f64,
    /// Of each question's maximum-likelihood b from its answers with every player's
    /// true skill and the question's true slope known: the most these answers can tell
    /// about difficulty, whatever the estimator.
    pub oracle_recovery: f64,
    pub held_out: usize,
    /// Log loss and AUC of Elo, of the per-question average, and of a constant.
    pub elo: (f64, f64),
    pub question_average: (f64, f64),
    pub constant: (f64, f64),
    /// Elo's calibration gap by decile on the held-out answers.
    pub elo_decile_gap: f64,
}

/// Experiment 1: `players` players each answer `per_player` distinct random questions of
/// `bank`, interleaved in a random order (each player's answers in their own order);
/// each player's last 20 % are held out: predicted, never learned from.
pub fn estimation(seed: u64, bank: usize, players: usize, per_player: usize) -> Estimation {
    let mut rng = StdRng::seed_from_u64(seed);
    let truth = questions(bank, &mut rng);
    let skills: Vec<f64> = (0..players).map(|_| normal(&mut rng)).collect();
    // each player's questions, then a random interleaving of the players' turns
    let plans: Vec<Vec<usize>> = (0..players)
        .map(|_| {
            let mut ids: Vec<usize> = (0..bank).collect();
            ids.shuffle(&mut rng);
            ids.truncate(per_player);
            ids
        })
        .collect();
    let mut turns: Vec<usize> = (0..players)
        .flat_map(|p| std::iter::repeat_n(p, per_player))
        .collect();
    turns.shuffle(&mut rng);
    let held_from = per_player - per_player / 5;

    let rules = EloRules::default();
    let floor = skill::guessing_floor(OPTIONS);
    let mut player_estimates = vec![Estimate::NEW_PLAYER; players];
    let mut question_estimates: Vec<Estimate> = truth
        .iter()
        .map(|q| Estimate::new_question(q.authored))
        .collect();
    let mut next = vec![0usize; players];
    let mut question_counts = vec![(0u32, 0u32); bank];
    let (mut train_right, mut train_all) = (0u32, 0u32);
    let mut examinees: Vec<Examinee> = (0..players)
        .map(|_| Examinee {
            weight: 1.0,
            responses: Vec::new(),
        })
        .collect();
    let (mut elo_p, mut average_p, mut constant_p, mut outcomes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for p in turns {
        let k = next[p];
        next[p] += 1;
        let q = plans[p][k];
        let right = rng.random_bool(truth[q].success(skills[p]));
        if k >= held_from {
            elo_p.push(skill::predicted_success(
                player_estimates[p].value,
                question_estimates[q].value,
                floor,
            ));
            let (r, n) = question_counts[q];
            average_p.push((f64::from(r) + 1.0) / (f64::from(n) + 2.0));
            constant_p.push((f64::from(train_right) + 1.0) / (f64::from(train_all) + 2.0));
            outcomes.push(right);
            continue;
        }
        let updated = skill::update(
            &rules,
            player_estimates[p],
            question_estimates[q],
            floor,
            right,
            true,
        );
        player_estimates[p] = updated.player;
        if let Some(b) = updated.question {
            question_estimates[q] = b;
        }
        question_counts[q].0 += u32::from(right);
        question_counts[q].1 += 1;
        train_right += u32::from(right);
        train_all += 1;
        examinees[p].responses.push((q, right));
    }
    let true_b: Vec<f64> = truth.iter().map(|q| q.difficulty).collect();
    let elo_b: Vec<f64> = question_estimates.iter().map(|e| e.value).collect();
    let authored_b: Vec<f64> = truth
        .iter()
        .map(|q| skill::authored_difficulty(q.authored))
        .collect();
    let fitted = |model| {
        let fit = irt::fit(
            &vec![floor; bank],
            &examinees,
            &FitSettings {
                model,
                ..FitSettings::default()
            },
        );
        let b: Vec<f64> = fit
            .items
            .iter()
            .map(|i| i.parameters.difficulty())
            .collect();
        irt::spearman(&b, &true_b).unwrap_or(f64::NAN)
    };
    let mut answered_by: Vec<Vec<(f64, bool)>> = vec![Vec::new(); bank];
    for (p, examinee) in examinees.iter().enumerate() {
        for &(q, right) in &examinee.responses {
            answered_by[q].push((skills[p], right));
        }
    }
    let oracle_b: Vec<f64> = truth
        .iter()
        .zip(&answered_by)
        .map(|(q, answers)| oracle_difficulty(q.slope, floor, answers))
        .collect();
    let share_wrong: Vec<f64> = question_counts
        .iter()
        .map(|&(r, n)| 1.0 - f64::from(r) / f64::from(n.max(1)))
        .collect();
    let score = |p: &[f64]| {
        (
            log_loss(p, &outcomes).unwrap_or(f64::NAN),
            auc(p, &outcomes).unwrap_or(f64::NAN),
        )
    };
    Estimation {
        questions: bank,
        players,
        answers: players * per_player,
        answers_per_question: f64::from(train_all) / bank as f64,
        elo_recovery: irt::spearman(&elo_b, &true_b).unwrap_or(f64::NAN),
        calibrated_recovery: fitted(IrtModel::TwoPl),
        calibrated_recovery_1pl: fitted(IrtModel::OnePl),
        share_wrong_recovery: irt::spearman(&share_wrong, &true_b).unwrap_or(f64::NAN),
        oracle_recovery: irt::spearman(&oracle_b, &true_b).unwrap_or(f64::NAN),
        authored_recovery: irt::spearman(&authored_b, &true_b).unwrap_or(f64::NAN),
        held_out: outcomes.len(),
        elo: score(&elo_p),
        question_average: score(&average_p),
        constant: score(&constant_p),
        elo_decile_gap: decile_gap(&elo_p, &outcomes).unwrap_or(f64::NAN),
    }
}

/// The maximum-likelihood difficulty of a question of slope `slope` from `answers`
/// (each with the answering player's true skill), by bisection on the score, which
/// falls as b rises; clamped to [−6, 6] (all right or all wrong has no finite maximum).
fn oracle_difficulty(slope: f64, floor: f64, answers: &[(f64, bool)]) -> f64 {
    let score = |b: f64| -> f64 {
        answers
            .iter()
            .map(|&(theta, right)| {
                let s = skill::logistic(slope * (theta - b));
                let p = floor + (1.0 - floor) * s;
                // d log L / d p · d p / d b
                let dp = -(1.0 - floor) * slope * s * (1.0 - s);
                if right { dp / p } else { -dp / (1.0 - p) }
            })
            .sum()
    };
    let (mut lo, mut hi) = (-6.0, 6.0);
    if score(lo) <= 0.0 {
        return lo;
    }
    if score(hi) >= 0.0 {
        return hi;
    }
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if score(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    (lo + hi) / 2.0
}

/// What the second experiment measured: each skill group's accuracy over its challenges.
#[derive(Clone, Debug)]
pub struct Adaptive {
    pub groups: Vec<(f64, f64)>,
}

impl Adaptive {
    /// The widest difference between two groups' accuracies.
    pub fn spread(&self) -> f64 {
        let accuracies = self.groups.iter().map(|(_, a)| *a);
        let max = accuracies.clone().fold(f64::MIN, f64::max);
        let min = accuracies.fold(f64::MAX, f64::min);
        max - min
    }
}

/// Experiment 2: on a calibrated track of `bank` questions (their difficulties known, as
/// after a fit), `per_group` players of each skill in `group_skills` play `challenges`
/// challenges of five, picked by the adaptive rule (`adaptive`) or the random one, their
/// skill estimated by Elo from θ = 0 as the service does.
pub fn adaptive(
    seed: u64,
    bank: usize,
    group_skills: &[f64],
    per_group: usize,
    challenges: usize,
    adaptive: bool,
    target: f64,
) -> Adaptive {
    let mut rng = StdRng::seed_from_u64(seed);
    let truth = questions(bank, &mut rng);
    let keys: Vec<i64> = (0..bank)
        .map(|_| rng.random_range(0..pick::KEY_RANGE))
        .collect();
    let rules = EloRules::default();
    let floor = skill::guessing_floor(OPTIONS);
    let groups = group_skills
        .iter()
        .map(|&true_skill| {
            let (mut right_total, mut all) = (0u32, 0u32);
            for _ in 0..per_group {
                let mut estimate = Estimate::NEW_PLAYER;
                let mut right_before = vec![false; bank];
                for _ in 0..challenges {
                    let candidates: Vec<Candidate<usize>> = (0..bank)
                        .map(|q| Candidate {
                            question: q,
                            key: keys[q],
                            answered: false,
                            answered_correctly: right_before[q],
                            success: skill::predicted_success(
                                estimate.value,
                                truth[q].difficulty,
                                floor,
                            ),
                            calibrated: true,
                        })
                        .collect();
                    let start = rng.random_range(0..pick::KEY_RANGE);
                    let chosen = if adaptive {
                        pick::choose_adaptive(candidates, start, 5, target, &mut rng)
                    } else {
                        pick::choose(candidates, start, 5, &mut rng)
                    };
                    for q in chosen {
                        let right = rng.random_bool(truth[q].success(true_skill));
                        let question = Estimate {
                            value: truth[q].difficulty,
                            answers: 1_000,
                        };
                        estimate =
                            skill::update(&rules, estimate, question, floor, right, false).player;
                        right_before[q] |= right;
                        right_total += u32::from(right);
                        all += 1;
                    }
                }
            }
            (true_skill, f64::from(right_total) / f64::from(all.max(1)))
        })
        .collect();
    Adaptive { groups }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_recovers_difficulties_and_beats_both_baselines() {
        let e = estimation(7, 150, 200, 25);
        assert!(e.elo_recovery > 0.85, "{e:?}");
        assert!(e.calibrated_recovery > 0.85, "{e:?}");
        // the oracle sees the players' true skills: no estimate from who-answered-what
        // beats it by much, and it beats counting wrong answers
        assert!(e.oracle_recovery > e.share_wrong_recovery, "{e:?}");
        assert!(e.elo_recovery < e.oracle_recovery + 0.05, "{e:?}");
        assert!(
            e.elo.0 < e.question_average.0 && e.elo.0 < e.constant.0,
            "{e:?}"
        );
        assert!(
            e.elo.1 > e.question_average.1 && e.elo.1 > e.constant.1,
            "{e:?}"
        );
    }

    #[test]
    fn the_adaptive_pick_brings_every_group_near_the_target() {
        let groups = [-1.5, 0.0, 1.5];
        let on = adaptive(11, 300, &groups, 10, 20, true, 0.75);
        for (skill, accuracy) in &on.groups {
            assert!((accuracy - 0.75).abs() <= 0.06, "θ {skill}: {accuracy}");
        }
        let off = adaptive(11, 300, &groups, 10, 20, false, 0.75);
        assert!(off.spread() > 0.3, "{off:?}");
    }

    #[test]
    fn the_oracle_finds_the_difficulty_that_explains_the_answers() {
        // 1,000 players at θ = 0, no guessing, slope 1: 27 % right is b = ln(0.73/0.27)
        let answers: Vec<(f64, bool)> = (0..1000).map(|i| (0.0, i < 270)).collect();
        let b = oracle_difficulty(1.0, 0.0, &answers);
        assert!((b - (0.73f64 / 0.27).ln()).abs() < 1e-6, "{b}");
        // with a floor of 1/4, the same share is right only by guessing: b is higher
        assert!(oracle_difficulty(1.0, 0.25, &answers) > b);
        // all right or all wrong has no finite maximum: the clamp
        assert_eq!(oracle_difficulty(1.0, 0.25, &[(0.0, true); 5]), -6.0);
        assert_eq!(oracle_difficulty(1.0, 0.25, &[(0.0, false); 5]), 6.0);
    }
}
