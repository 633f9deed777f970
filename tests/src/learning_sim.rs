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
use shared::domain::evaluation::{auc, log_loss};
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
    /// The chance that a player of skill `skill` answers it right.
    pub fn success(&self, skill: f64) -> f64 {
        let c = skill::guessing_floor(OPTIONS);
        c + (1.0 - c) * skill::logistic(self.slope * (skill - self.difficulty))
    }
}

/// A normal deviate (Box-Muller).
pub fn normal<R: Rng>(rng: &mut R) -> f64 {
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

/// Spearman correlations with the true difficulty of each estimate the first
/// experiment makes.
#[derive(Clone, Debug, Default)]
pub struct Recovery {
    pub authored: f64,
    /// Of the share of wrong answers per question (what the answers tell without
    /// knowing who answered).
    pub share_wrong: f64,
    /// Of each question's maximum-likelihood b from its answers with every player's
    /// true skill and the question's true slope known: the most these answers can tell
    /// about difficulty without a prior.
    pub oracle: f64,
    /// Elo with both estimates moved at each answer.
    pub elo_per_answer: f64,
    /// Elo as the service runs it: the player's skill moved at the answer against the
    /// difficulty of the last fold, the difficulty moved in folds of [`FOLD_EVERY`]
    /// answers from the skills the answers recorded (`skill::fold_first_answers`).
    pub elo_folded: f64,
    /// Fits of every question, without a prior, and with the prior the authors' ratings
    /// give (`irt::fit_with_author_prior`); measured only when asked for (the 2PL fits
    /// of thousands of players take minutes).
    pub fit_2pl: Option<f64>,
    pub fit_1pl: Option<f64>,
    pub fit_2pl_prior: Option<f64>,
    pub fit_1pl_prior: Option<f64>,
    /// What the pick reads after the calibration job at the default settings: the
    /// default fit's b for questions with `IRT_MIN_ANSWERS` first answers, the folded
    /// Elo's for the others.
    pub pick_reads: f64,
}

/// What the first experiment measured: recovery of difficulties, and predictions of the
/// held-out answers.
#[derive(Clone, Debug)]
pub struct Estimation {
    pub questions: usize,
    pub players: usize,
    pub answers: usize,
    pub answers_per_question: f64,
    pub recovery: Recovery,
    pub held_out: usize,
    /// Log loss and AUC of the true model, of Elo (as the service runs it), of the
    /// per-question average, and of a constant.
    pub truth: (f64, f64),
    /// The true skills and difficulties with one slope for every question: the best a
    /// model without slopes (as the service's) can do.
    pub one_slope: (f64, f64),
    /// Every question's true parameters, the player's skill only from their own earlier
    /// answers (the posterior mean of the chance under a N(0, 1) prior): the best any
    /// estimate of a player seen for a few answers can do, however well it knows the
    /// questions.
    pub known_questions: (f64, f64),
    pub elo: (f64, f64),
    pub question_average: (f64, f64),
    pub constant: (f64, f64),
    /// Elo's predictions of the held-out answers and the outcomes, for calibration by
    /// decile over several runs.
    pub elo_predictions: Vec<(f64, bool)>,
}

/// Answers between two folds of the questions' difficulties in [`estimation`]: more
/// first answers per question between folds than a minute brings at this bank's size
/// (about 3 a question), so the folded Elo is tried harder than the service's.
pub const FOLD_EVERY: usize = 1_000;

/// The calibration job's settings as the service's defaults set them.
fn default_job() -> shared::config::LearningSettings {
    shared::config::LearningSettings::default()
}

/// Experiment 1: `players` players each answer `per_player` distinct random questions of
/// `bank`, interleaved in a random order (each player's answers in their own order);
/// each player's last 20 % are held out: predicted, never learned from. `alternatives`:
/// also fit the models the job does not run by default.
pub fn estimation(
    seed: u64,
    bank: usize,
    players: usize,
    per_player: usize,
    alternatives: bool,
) -> Estimation {
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

    let job = default_job();
    let rules = job.elo;
    let floor = skill::guessing_floor(OPTIONS);
    let authored_estimates: Vec<Estimate> = truth
        .iter()
        .map(|q| Estimate::new_question(q.authored))
        .collect();
    // per-answer Elo
    let mut player_estimates = vec![Estimate::NEW_PLAYER; players];
    let mut question_estimates = authored_estimates.clone();
    // the service's Elo: skills at the answer, difficulties in folds
    let mut service_players = vec![Estimate::NEW_PLAYER; players];
    let mut folded = authored_estimates.clone();
    let mut unfolded: Vec<(usize, skill::FoldedAnswer)> = Vec::new();
    let fold = |folded: &mut Vec<Estimate>, unfolded: &mut Vec<(usize, skill::FoldedAnswer)>| {
        for (q, answer) in unfolded.drain(..) {
            folded[q] = skill::fold_first_answers(&rules, folded[q], &[answer]);
        }
    };
    let mut next = vec![0usize; players];
    let mut question_counts = vec![(0u32, 0u32); bank];
    let (mut train_right, mut train_all) = (0u32, 0u32);
    let mut examinees: Vec<Examinee> = (0..players)
        .map(|_| Examinee {
            weight: 1.0,
            responses: Vec::new(),
        })
        .collect();
    let (mut truth_p, mut elo_p, mut average_p, mut constant_p, mut outcomes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut one_slope_p, mut known_questions_p) = (Vec::new(), Vec::new());
    for (turn, p) in turns.into_iter().enumerate() {
        if turn % FOLD_EVERY == 0 {
            fold(&mut folded, &mut unfolded);
        }
        let k = next[p];
        next[p] += 1;
        let q = plans[p][k];
        let right = rng.random_bool(truth[q].success(skills[p]));
        if k >= held_from {
            truth_p.push(truth[q].success(skills[p]));
            one_slope_p.push(skill::predicted_success(
                skills[p],
                truth[q].difficulty,
                floor,
            ));
            known_questions_p.push(posterior_success(&truth, &examinees[p].responses, q));
            elo_p.push(skill::predicted_success(
                service_players[p].value,
                folded[q].value,
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
        unfolded.push((
            q,
            skill::FoldedAnswer::Judged {
                skill: service_players[p].value,
                floor,
                correct: right,
            },
        ));
        service_players[p] =
            skill::update(&rules, service_players[p], folded[q], floor, right, false).player;
        question_counts[q].0 += u32::from(right);
        question_counts[q].1 += 1;
        train_right += u32::from(right);
        train_all += 1;
        examinees[p].responses.push((q, right));
    }
    fold(&mut folded, &mut unfolded);
    let true_b: Vec<f64> = truth.iter().map(|q| q.difficulty).collect();
    let rho = |b: &[f64]| irt::spearman(b, &true_b).unwrap_or(f64::NAN);
    let authored_b: Vec<f64> = truth
        .iter()
        .map(|q| skill::authored_difficulty(q.authored))
        .collect();
    let settings = |model| FitSettings {
        model,
        ..FitSettings::default()
    };
    let difficulties = |fit: &irt::Fit| -> Vec<f64> {
        fit.items
            .iter()
            .map(|i| i.parameters.difficulty())
            .collect()
    };
    let floors = vec![floor; bank];
    let plain = |model| {
        rho(&difficulties(&irt::fit(
            &floors,
            &examinees,
            &settings(model),
        )))
    };
    let with_prior = |model| {
        rho(&difficulties(
            &irt::fit_with_author_prior(&floors, &authored_b, &examinees, &settings(model)).0,
        ))
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
    let per_answer_b: Vec<f64> = question_estimates.iter().map(|e| e.value).collect();
    let folded_b: Vec<f64> = folded.iter().map(|e| e.value).collect();
    let pick_b = after_the_job(&job, &folded_b, &authored_b, &examinees, floor);
    Estimation {
        questions: bank,
        players,
        answers: players * per_player,
        answers_per_question: f64::from(train_all) / bank as f64,
        recovery: Recovery {
            authored: rho(&authored_b),
            share_wrong: rho(&share_wrong),
            oracle: rho(&oracle_b),
            elo_per_answer: rho(&per_answer_b),
            elo_folded: rho(&folded_b),
            fit_2pl: alternatives.then(|| plain(IrtModel::TwoPl)),
            fit_1pl: alternatives.then(|| plain(IrtModel::OnePl)),
            fit_2pl_prior: alternatives.then(|| with_prior(IrtModel::TwoPl)),
            fit_1pl_prior: alternatives.then(|| with_prior(IrtModel::OnePl)),
            pick_reads: rho(&pick_b),
        },
        held_out: outcomes.len(),
        truth: score(&truth_p),
        one_slope: score(&one_slope_p),
        known_questions: score(&known_questions_p),
        elo: score(&elo_p),
        question_average: score(&average_p),
        constant: score(&constant_p),
        elo_predictions: elo_p
            .iter()
            .copied()
            .zip(outcomes.iter().copied())
            .collect(),
    }
}

/// The chance that a player answers `question` right, averaged over the posterior of
/// their skill given their `answers` so far (a N(0, 1) prior, the true question
/// parameters; a grid of 161 points on [−5, 5]).
fn posterior_success(truth: &[TrueQuestion], answers: &[(usize, bool)], question: usize) -> f64 {
    let grid = (0..=160).map(|i| -5.0 + f64::from(i) / 16.0);
    let (mut weight_sum, mut chance_sum) = (0.0, 0.0);
    for theta in grid {
        let log_weight = -0.5 * theta * theta
            + answers
                .iter()
                .map(|&(q, right)| {
                    let p = truth[q].success(theta);
                    if right { p.ln() } else { (1.0 - p).ln() }
                })
                .sum::<f64>();
        let weight = log_weight.exp();
        weight_sum += weight;
        chance_sum += weight * truth[question].success(theta);
    }
    chance_sum / weight_sum
}

/// The difficulties the pick reads after the calibration job, as `services::learning`
/// runs it: the questions with `irt_min_answers` first answers fitted together (each
/// with the first `irt_sample_per_question` players in id order, here player order) by
/// `learning::calibration_fit`, their b replacing the folded Elo's; the others keep
/// theirs.
fn after_the_job(
    job: &shared::config::LearningSettings,
    folded_b: &[f64],
    authored_b: &[f64],
    examinees: &[Examinee],
    floor: f64,
) -> Vec<f64> {
    let bank = folded_b.len();
    let mut answers: Vec<Vec<(usize, bool)>> = vec![Vec::new(); bank];
    for (p, examinee) in examinees.iter().enumerate() {
        for &(q, right) in &examinee.responses {
            answers[q].push((p, right));
        }
    }
    let fitted: Vec<usize> = (0..bank)
        .filter(|&q| answers[q].len() as i64 >= job.irt_min_answers)
        .collect();
    let sample = usize::try_from(job.irt_sample_per_question).unwrap_or(usize::MAX);
    let mut by_player: std::collections::BTreeMap<usize, Vec<(usize, bool)>> =
        std::collections::BTreeMap::new();
    for (index, &q) in fitted.iter().enumerate() {
        for &(p, right) in answers[q].iter().take(sample) {
            by_player.entry(p).or_default().push((index, right));
        }
    }
    let fit_examinees: Vec<Examinee> = by_player
        .into_values()
        .map(|responses| Examinee {
            weight: 1.0,
            responses,
        })
        .collect();
    let authored: Vec<f64> = fitted.iter().map(|&q| authored_b[q]).collect();
    let fit = shared::services::learning::calibration_fit(
        job,
        &vec![floor; fitted.len()],
        &authored,
        &fit_examinees,
    );
    let mut b = folded_b.to_vec();
    for (&q, item) in fitted.iter().zip(&fit.items) {
        let d = item.parameters.difficulty();
        if d.is_finite() {
            b[q] = d;
        }
    }
    b
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

/// What a burst of first answers did to new questions' difficulties: the distance to
/// the true b after the fold, mean and worst, folded sequentially (as the job folds)
/// and with every surprise taken against the b read before the burst (as it folded
/// before answers recorded the skill).
#[derive(Clone, Debug)]
pub struct Burst {
    pub questions: usize,
    pub answers: usize,
    pub sequential: (f64, f64),
    pub stale: (f64, f64),
}

/// `questions` new questions (true b uniform on [−2, 2], slope log-normal, the author's
/// rating 3) each get `answers` first answers in one fold, from players of skill
/// N(0, 1) whose recorded skill (the Elo estimate the answer stores) is off by
/// N(0, 0.3).
pub fn burst(seed: u64, answers: usize, questions: usize) -> Burst {
    let mut rng = StdRng::seed_from_u64(seed);
    let rules = EloRules::default();
    let floor = skill::guessing_floor(OPTIONS);
    let (mut sequential, mut stale) = (Vec::new(), Vec::new());
    for _ in 0..questions {
        let question = TrueQuestion {
            difficulty: rng.random_range(-2.0..2.0),
            slope: (0.2 * normal(&mut rng)).exp(),
            authored: 3,
        };
        let before = Estimate::new_question(question.authored);
        let folded: Vec<skill::FoldedAnswer> = (0..answers)
            .map(|_| {
                let theta = normal(&mut rng);
                skill::FoldedAnswer::Judged {
                    skill: theta + 0.3 * normal(&mut rng),
                    floor,
                    correct: rng.random_bool(question.success(theta)),
                }
            })
            .collect();
        let after = skill::fold_first_answers(&rules, before, &folded);
        sequential.push((after.value - question.difficulty).abs());
        let recorded: Vec<skill::FoldedAnswer> = folded
            .iter()
            .map(|a| match *a {
                skill::FoldedAnswer::Judged {
                    skill,
                    floor,
                    correct,
                } => skill::FoldedAnswer::Recorded {
                    surprise: f64::from(u8::from(correct))
                        - skill::predicted_success(skill, before.value, floor),
                },
                recorded => recorded,
            })
            .collect();
        let after_stale = skill::fold_first_answers(&rules, before, &recorded);
        stale.push((after_stale.value - question.difficulty).abs());
    }
    let summary = |d: &[f64]| {
        (
            d.iter().sum::<f64>() / d.len().max(1) as f64,
            d.iter().copied().fold(0.0, f64::max),
        )
    };
    Burst {
        questions,
        answers,
        sequential: summary(&sequential),
        stale: summary(&stale),
    }
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
    adaptive_with(
        seed,
        bank,
        group_skills,
        per_group,
        challenges,
        adaptive,
        target,
        false,
    )
}

/// [`adaptive`], or with `knows_skill` the pick's ceiling on this bank: each player's
/// true skill in place of its estimate, so only the bank and the rule of `operations.md`
/// §6 (a question answered right comes back only when fewer than five others are in the
/// window) stand between the pick and the target.
#[allow(clippy::too_many_arguments)]
pub fn adaptive_with(
    seed: u64,
    bank: usize,
    group_skills: &[f64],
    per_group: usize,
    challenges: usize,
    adaptive: bool,
    target: f64,
    knows_skill: bool,
) -> Adaptive {
    let rules = EloRules::default();
    let mut rng = StdRng::seed_from_u64(seed);
    let truth = questions(bank, &mut rng);
    let keys: Vec<i64> = (0..bank)
        .map(|_| rng.random_range(0..pick::KEY_RANGE))
        .collect();
    let floor = skill::guessing_floor(OPTIONS);
    let groups = group_skills
        .iter()
        .map(|&true_skill| {
            let (mut right_total, mut all) = (0u32, 0u32);
            for _ in 0..per_group {
                let mut estimate = Estimate::NEW_PLAYER;
                let mut right_before = vec![false; bank];
                let mut seen = vec![false; bank];
                for _ in 0..challenges {
                    let candidates: Vec<Candidate<usize>> = (0..bank)
                        .map(|q| Candidate {
                            question: q,
                            key: keys[q],
                            answered: seen[q],
                            answered_correctly: right_before[q],
                            success: skill::predicted_success(
                                if knows_skill {
                                    true_skill
                                } else {
                                    estimate.value
                                },
                                truth[q].difficulty,
                                floor,
                            ),
                            calibrated: true,
                        })
                        .collect();
                    let start = rng.random_range(0..pick::KEY_RANGE);
                    let chosen = if adaptive {
                        let skill_used = if knows_skill {
                            true_skill
                        } else {
                            estimate.value
                        };
                        let near = near_read(
                            &candidates,
                            &truth,
                            start,
                            skill::target_difficulty(skill_used, target, floor),
                        );
                        pick::choose_adaptive(candidates, near, start, 5, target, &mut rng)
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
                        seen[q] = true;
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

/// The service's second read (`db::gameplay::pick_near_candidates`) over a bank held in
/// memory: when the bank is larger than the window, in each band near the target, the
/// [`pick::PER_BAND`] questions nearest `start` going up the keys.
fn near_read(
    candidates: &[Candidate<usize>],
    truth: &[TrueQuestion],
    start: i64,
    target_difficulty: f64,
) -> Vec<Candidate<usize>> {
    if candidates.len() <= pick::WINDOW {
        return Vec::new();
    }
    pick::near_bands(target_difficulty)
        .flat_map(|band| {
            let mut in_band: Vec<&Candidate<usize>> = candidates
                .iter()
                .filter(|c| pick::band(truth[c.question].difficulty) == band)
                .collect();
            in_band.sort_by_key(|c| (c.key - start).rem_euclid(pick::KEY_RANGE));
            in_band.into_iter().take(pick::PER_BAND).cloned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_recovers_difficulties_and_beats_both_baselines() {
        let e = estimation(7, 150, 200, 25, false);
        let r = &e.recovery;
        assert!(r.elo_folded > 0.85, "{r:?}");
        assert!(r.pick_reads > 0.85, "{r:?}");
        // folds of 1,000 answers cost the difficulties next to nothing
        assert!((r.elo_folded - r.elo_per_answer).abs() <= 0.01, "{r:?}");
        // the oracle sees the players' true skills: it beats counting wrong answers
        assert!(r.oracle > r.share_wrong, "{r:?}");
        // the true model predicts best
        assert!(e.truth.0 < e.elo.0, "{e:?}");
        // knowing the questions but not the player sits between the truth and Elo,
        // and so does knowing both but not the slopes
        assert!(
            e.truth.0 < e.known_questions.0 && e.known_questions.0 < e.elo.0,
            "{e:?}"
        );
        assert!(
            e.truth.0 < e.one_slope.0 && e.one_slope.0 < e.elo.0,
            "{e:?}"
        );
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
    fn a_burst_of_first_answers_in_one_fold_lands_near_the_truth() {
        let b = burst(3, 1_000, 10);
        assert!(b.sequential.1 <= 0.5, "{b:?}");
        // the old fold, every surprise against the b before the burst, runs away
        assert!(b.stale.0 > 2.0, "{b:?}");
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
