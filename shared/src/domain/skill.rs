//! Online estimates of a player's skill θ and a question's difficulty b, updated by every
//! judged answer: the Elo rating system as adaptive practice uses it (Pelánek, "Applications
//! of the Elo rating system in adaptive educational systems", Computers & Education 2016),
//! with an uncertainty function K(n) = α / (1 + βn), so the first answers move an estimate
//! most, and a guessing floor c = 1 / (number of options), so a lucky pick among four
//! options says less than a right answer typed in.
//!
//! The scale is the one of item response theory (θ ~ N(0, 1) over the players): a
//! calibrated difficulty (`domain::irt`) replaces an Elo one as is.

/// `ELO_ALPHA` and `ELO_BETA`: K(n) = α / (1 + βn).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloRules {
    pub alpha: f64,
    pub beta: f64,
}

impl Default for EloRules {
    fn default() -> Self {
        Self {
            alpha: 0.8,
            beta: 0.05,
        }
    }
}

impl EloRules {
    /// The step after `answers` earlier updates of an estimate: large while it knows
    /// little, smaller as answers accumulate.
    pub fn k(&self, answers: i64) -> f64 {
        self.alpha / (1.0 + self.beta * answers.max(0) as f64)
    }
}

/// An estimate and how many answers have moved it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub answers: i64,
}

impl Estimate {
    /// A new player: θ = 0, the middle of the players.
    pub const NEW_PLAYER: Estimate = Estimate {
        value: 0.0,
        answers: 0,
    };

    /// A question's difficulty as stored (`value` and its `answers`), or its author's
    /// when no answer has moved it yet (no stored value).
    pub fn stored_or_authored(value: Option<f64>, answers: Option<i64>, authored: i64) -> Estimate {
        match value {
            Some(value) => Estimate {
                value,
                answers: answers.unwrap_or(0),
            },
            None => Estimate::new_question(authored),
        }
    }

    /// A question no one has answered yet: the author's 1-5 difficulty mapped onto the
    /// scale ([`authored_difficulty`]).
    pub fn new_question(authored: i64) -> Estimate {
        Estimate {
            value: authored_difficulty(authored),
            answers: 0,
        }
    }
}

/// The author's difficulty 1 (easiest) … 5 (hardest) as b = −2 … +2; out-of-range values
/// are clamped.
pub fn authored_difficulty(authored: i64) -> f64 {
    (authored.clamp(1, 5) - 3) as f64
}

/// The author's band (1-5) a difficulty on the scale falls in: the nearest of the
/// authored values' places (−2 … +2), clamped.
pub fn difficulty_band(difficulty: f64) -> i64 {
    if !difficulty.is_finite() {
        return 3;
    }
    (difficulty.round().clamp(-2.0, 2.0) as i64) + 3
}

/// A calibrated difficulty two bands or more from the author's 1-5: the console's
/// `difficulty_mismatch`.
pub fn difficulty_mismatch(authored: i64, calibrated: f64) -> bool {
    (difficulty_band(calibrated) - authored.clamp(1, 5)).abs() >= 2
}

/// The chance of a right answer by guessing alone: 1 / options for a choice among
/// `options` (at least 2), 0 otherwise.
pub fn guessing_floor(options: usize) -> f64 {
    if options >= 2 {
        1.0 / options as f64
    } else {
        0.0
    }
}

/// How many options a question offers: its right answer and its non-blank distractors
/// (`distractors_json`, a JSON array of strings).
pub fn option_count(distractors_json: &str) -> usize {
    let distractors: Vec<String> = serde_json::from_str(distractors_json).unwrap_or_default();
    1 + distractors.iter().filter(|d| !d.trim().is_empty()).count()
}

/// The logistic function σ(x) = 1 / (1 + e^−x), computed without overflow.
pub fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The predicted chance that a player of skill `skill` answers a question of difficulty
/// `difficulty` right: p = c + (1 − c)·σ(θ − b).
pub fn predicted_success(skill: f64, difficulty: f64, floor: f64) -> f64 {
    floor + (1.0 - floor) * logistic(skill - difficulty)
}

/// The difficulty at which a player of skill `skill` answers right with chance `target`
/// among options with guessing floor `floor`: b = θ − logit((t − c) / (1 − c)), the
/// inverse of [`predicted_success`]. A target at or below the floor (or at 1) has no such
/// difficulty; the nearest finite one is given (the chance is bounded to 0.01-0.99 of the
/// part above the floor).
pub fn target_difficulty(skill: f64, target: f64, floor: f64) -> f64 {
    let above_floor = ((target - floor) / (1.0 - floor)).clamp(0.01, 0.99);
    let skill = if skill.is_finite() { skill } else { 0.0 };
    skill - (above_floor / (1.0 - above_floor)).ln()
}

/// The estimates after one judged answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Updated {
    pub player: Estimate,
    /// `None` when the answer says nothing about the question's difficulty: the player
    /// had answered it before, so this answer measures memory.
    pub question: Option<Estimate>,
}

/// One answer's update: θ += K(n_player)·(outcome − p), and for the player's first answer
/// to the question b −= K(n_question)·(outcome − p), both from the same prediction p made
/// before the answer. Non-finite inputs (a corrupted row) are taken as new estimates, so
/// the result is always finite.
pub fn update(
    rules: &EloRules,
    player: Estimate,
    question: Estimate,
    floor: f64,
    correct: bool,
    first_answer: bool,
) -> Updated {
    let player = sane(player);
    let question = sane(question);
    let surprise = surprise(player, question, floor, correct);
    let next_player = Estimate {
        value: player.value + rules.k(player.answers) * surprise,
        answers: player.answers.saturating_add(1),
    };
    let next_question = first_answer.then(|| difficulty_step(rules, question, surprise));
    Updated {
        player: next_player,
        question: next_question,
    }
}

/// How much an answer surprised: its outcome (1 right, 0 wrong) less its predicted
/// chance (estimates and floor taken as [`update`] takes them).
fn surprise(player: Estimate, question: Estimate, floor: f64, correct: bool) -> f64 {
    let floor = if floor.is_finite() {
        floor.clamp(0.0, 0.99)
    } else {
        0.0
    };
    f64::from(u8::from(correct))
        - predicted_success(sane(player).value, sane(question).value, floor)
}

/// What one judged answer teaches: the player's skill on the challenge's track and
/// overall, and (a first answer only) the question's difficulty, moved by the track's
/// surprise (the track's skill predicts its questions better than the overall one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Learned {
    pub track: Estimate,
    pub overall: Estimate,
    pub question: Option<Estimate>,
    /// For a first answer, how much it surprised on the track (outcome − predicted
    /// success): what moves the question's difficulty ([`difficulty_step`]).
    pub surprise: Option<f64>,
}

/// [`update`] of the track's and the overall skill by one answer.
pub fn learn(
    rules: &EloRules,
    track: Estimate,
    overall: Estimate,
    question: Estimate,
    floor: f64,
    correct: bool,
    first_answer: bool,
) -> Learned {
    let on_track = update(rules, track, question, floor, correct, first_answer);
    Learned {
        track: on_track.player,
        overall: update(rules, overall, question, floor, correct, false).player,
        question: on_track.question,
        surprise: first_answer.then(|| surprise(track, question, floor, correct)),
    }
}

/// What an answer in a review teaches: nothing. A review costs no heart and no attempt
/// and serves the player's own mistakes again and again, so its wrong answers would
/// push the skill down without bound (and its right ones up); the challenges' answers
/// carry the estimates.
pub fn unmoved(track: Estimate, overall: Estimate) -> Learned {
    Learned {
        track,
        overall,
        question: None,
        surprise: None,
    }
}

/// Mastery, 0-100: the mean of the predicted chances of a right answer over a track's
/// questions (0 without questions).
pub fn mastery(predictions: &[f64]) -> i64 {
    let finite: Vec<f64> = predictions
        .iter()
        .copied()
        .filter(|p| p.is_finite())
        .collect();
    if finite.is_empty() {
        return 0;
    }
    let mean = finite.iter().sum::<f64>() / finite.len() as f64;
    (mean.clamp(0.0, 1.0) * 100.0).round() as i64
}

/// A question's difficulty after a first answer that surprised by `surprise` (outcome −
/// predicted success): b −= K(n)·surprise.
pub fn difficulty_step(rules: &EloRules, question: Estimate, surprise: f64) -> Estimate {
    let question = sane(question);
    let surprise = if surprise.is_finite() {
        surprise.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    Estimate {
        value: question.value - rules.k(question.answers) * surprise,
        answers: question.answers.saturating_add(1),
    }
}

/// A first answer as the calibration job's fold reads it: what the answerer's track
/// skill was when they answered, the question's guessing floor, the outcome; or, for an
/// answer recorded before skills were kept with it, the surprise it recorded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FoldedAnswer {
    /// θ at the answer, the floor, right or wrong: the surprise is taken against the
    /// difficulty as the fold has moved it so far.
    Judged {
        skill: f64,
        floor: f64,
        correct: bool,
    },
    /// A surprise computed against the difficulty read when the challenge was made.
    Recorded { surprise: f64 },
}

/// A question's difficulty after its first answers, in answer order: sequential Elo,
/// each answer's surprise taken against the difficulty the answers before it left
/// (outcome − p(θ, b_now)), however many a fold takes at once. This is where a
/// question's difficulty moves: the answer records θ, the fold moves b. A burst of a
/// thousand first answers between two folds then moves it as a thousand answers one by
/// one would, not a thousand times by the surprise against the same stale b.
pub fn fold_first_answers(
    rules: &EloRules,
    question: Estimate,
    answers: &[FoldedAnswer],
) -> Estimate {
    answers.iter().fold(sane(question), |b, answer| {
        let surprise = match *answer {
            FoldedAnswer::Judged {
                skill,
                floor,
                correct,
            } => surprise(
                Estimate {
                    value: skill,
                    answers: 0,
                },
                b,
                floor,
                correct,
            ),
            FoldedAnswer::Recorded { surprise } => surprise,
        };
        difficulty_step(rules, b, surprise)
    })
}

fn sane(estimate: Estimate) -> Estimate {
    if estimate.value.is_finite() {
        estimate
    } else {
        Estimate {
            value: 0.0,
            answers: estimate.answers.max(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const RULES: EloRules = EloRules {
        alpha: 0.8,
        beta: 0.05,
    };

    /// A burst of first answers from players around θ = 0 to a question whose truth is
    /// b = +1 (four options), drawn with a fixed seed.
    fn burst(n: usize, seed: u64) -> Vec<(f64, bool)> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                let theta: f64 = rng.random_range(-1.0..1.0);
                let p = predicted_success(theta, 1.0, guessing_floor(4));
                (theta, rng.random_bool(p))
            })
            .collect()
    }

    #[test]
    fn a_burst_of_first_answers_in_one_fold_ends_near_the_truth() {
        for seed in [2026, 7, 1, 2, 3] {
            let answers = burst(1000, seed);
            let folded: Vec<FoldedAnswer> = answers
                .iter()
                .map(|&(skill, correct)| FoldedAnswer::Judged {
                    skill,
                    floor: guessing_floor(4),
                    correct,
                })
                .collect();
            let b = fold_first_answers(&RULES, Estimate::NEW_PLAYER, &folded);
            assert!((b.value - 1.0).abs() < 0.5, "seed {seed}: b = {}", b.value);
            assert_eq!(b.answers, 1000);
            // the same answers one at a time, as each answer's own step: the same
            let mut one_by_one = Estimate::NEW_PLAYER;
            for f in &folded {
                one_by_one = fold_first_answers(&RULES, one_by_one, std::slice::from_ref(f));
            }
            assert!((one_by_one.value - b.value).abs() < 1e-9);
            // what the fold did before: every surprise against the b read at the start
            let stale: Vec<FoldedAnswer> = answers
                .iter()
                .map(|&(skill, correct)| FoldedAnswer::Recorded {
                    surprise: f64::from(u8::from(correct))
                        - predicted_success(skill, 0.0, guessing_floor(4)),
                })
                .collect();
            let old = fold_first_answers(&RULES, Estimate::NEW_PLAYER, &stale);
            assert!(
                old.value > 3.0,
                "seed {seed}: the stale fold ends at {}",
                old.value
            );
        }
    }

    #[test]
    fn k_shrinks_with_answers_as_alpha_over_one_plus_beta_n() {
        assert!((RULES.k(0) - 0.8).abs() < 1e-12);
        assert!((RULES.k(20) - 0.4).abs() < 1e-12);
        assert!((RULES.k(60) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn the_target_difficulty_inverts_the_prediction() {
        for skill in [-2.0, 0.0, 1.5] {
            for (target, floor) in [(0.75, 0.25), (0.6, 0.5), (0.9, 0.0)] {
                let b = target_difficulty(skill, target, floor);
                assert!((predicted_success(skill, b, floor) - target).abs() < 1e-12);
            }
        }
        // four options, three in four: half the chances above the floor … ln 2 below θ
        assert!((target_difficulty(0.0, 0.75, 0.25) + 2f64.ln()).abs() < 1e-12);
        assert!(target_difficulty(0.0, 0.2, 0.25).is_finite());
        assert!(target_difficulty(f64::NAN, 0.75, 0.25).is_finite());
    }

    #[test]
    fn authored_difficulties_map_onto_minus_two_to_two() {
        let mapped: Vec<f64> = (1..=5).map(authored_difficulty).collect();
        assert_eq!(mapped, vec![-2.0, -1.0, 0.0, 1.0, 2.0]);
        assert_eq!(authored_difficulty(0), -2.0);
        assert_eq!(authored_difficulty(9), 2.0);
    }

    #[test]
    fn an_even_match_among_four_options_predicts_five_in_eight() {
        // c = 1/4, σ(0) = 1/2: p = 1/4 + 3/4 · 1/2.
        assert!((predicted_success(0.7, 0.7, guessing_floor(4)) - 0.625).abs() < 1e-12);
        assert_eq!(guessing_floor(1), 0.0);
        assert_eq!(guessing_floor(0), 0.0);
    }

    #[test]
    fn a_first_right_answer_moves_both_estimates_by_k_times_the_surprise() {
        let updated = update(
            &RULES,
            Estimate::NEW_PLAYER,
            Estimate::new_question(3),
            guessing_floor(4),
            true,
            true,
        );
        // p = 0.625, surprise 0.375, K(0) = 0.8.
        assert!((updated.player.value - 0.3).abs() < 1e-12);
        assert_eq!(updated.player.answers, 1);
        let question = updated.question.expect("a first answer moves the question");
        assert!((question.value + 0.3).abs() < 1e-12);
        assert_eq!(question.answers, 1);
    }

    #[test]
    fn a_later_answer_leaves_the_question_alone() {
        let updated = update(
            &RULES,
            Estimate {
                value: 1.0,
                answers: 40,
            },
            Estimate {
                value: 0.0,
                answers: 100,
            },
            0.0,
            false,
            false,
        );
        assert!(updated.question.is_none());
        // p = σ(1), K(40) = 0.8 / 3.
        let expected = 1.0 - 0.8 / 3.0 * logistic(1.0);
        assert!((updated.player.value - expected).abs() < 1e-12);
    }

    #[test]
    fn learning_moves_the_track_and_the_overall_skill_and_the_question_once() {
        let track = Estimate {
            value: 1.0,
            answers: 20,
        };
        let overall = Estimate {
            value: -0.5,
            answers: 60,
        };
        let question = Estimate::new_question(4);
        let learned = learn(&RULES, track, overall, question, 0.25, false, true);
        let on_track = update(&RULES, track, question, 0.25, false, true);
        assert_eq!(learned.track, on_track.player);
        assert_eq!(learned.question, on_track.question);
        assert_eq!(
            learned.overall,
            update(&RULES, overall, question, 0.25, false, false).player
        );
        assert!(
            learn(&RULES, track, overall, question, 0.25, false, false)
                .question
                .is_none()
        );
        // the surprise recorded moves the question as the update did
        let s = learned.surprise.expect("a first answer's surprise");
        let stepped = difficulty_step(&RULES, question, s);
        let moved = learned.question.expect("moved");
        assert!((stepped.value - moved.value).abs() < 1e-12);
        assert_eq!(stepped.answers, moved.answers);
    }

    #[test]
    fn bands_follow_the_authored_mapping_and_mismatch_at_two_apart() {
        for authored in 1..=5 {
            assert_eq!(difficulty_band(authored_difficulty(authored)), authored);
        }
        assert_eq!(difficulty_band(-7.3), 1);
        assert_eq!(difficulty_band(0.49), 3);
        assert_eq!(difficulty_band(f64::NAN), 3);
        assert!(!difficulty_mismatch(3, 0.9));
        assert!(difficulty_mismatch(3, 1.6));
        assert!(difficulty_mismatch(1, 0.0));
        assert!(!difficulty_mismatch(5, 1.2));
    }

    #[test]
    fn mastery_is_the_mean_prediction_in_percent() {
        assert_eq!(mastery(&[]), 0);
        assert_eq!(mastery(&[0.5, 1.0]), 75);
        assert_eq!(mastery(&[0.625, f64::NAN]), 63);
    }

    #[test]
    fn corrupted_estimates_restart_rather_than_spread() {
        let updated = update(
            &RULES,
            Estimate {
                value: f64::NAN,
                answers: 3,
            },
            Estimate {
                value: f64::INFINITY,
                answers: 3,
            },
            f64::NAN,
            true,
            true,
        );
        assert!(updated.player.value.is_finite());
        assert!(updated.question.is_some_and(|q| q.value.is_finite()));
    }

    #[test]
    fn repeated_answers_at_a_steady_rate_settle_where_the_prediction_matches_it() {
        // A player who gets three in four right on questions of difficulty 0 (no
        // guessing) settles near θ = ln 3, where σ(θ) = 0.75.
        let mut player = Estimate::NEW_PLAYER;
        let question = Estimate {
            value: 0.0,
            answers: 1_000,
        };
        for i in 0..4_000 {
            player = update(&RULES, player, question, 0.0, i % 4 != 0, false).player;
        }
        assert!(
            (player.value - 3f64.ln()).abs() < 0.05,
            "θ = {}",
            player.value
        );
    }

    proptest! {
        #[test]
        fn right_answers_raise_skill_and_lower_difficulty(
            skill in -6.0f64..6.0,
            difficulty in -6.0f64..6.0,
            player_answers in 0i64..10_000,
            question_answers in 0i64..10_000,
            options in 0usize..8,
            correct: bool,
        ) {
            let player = Estimate { value: skill, answers: player_answers };
            let question = Estimate { value: difficulty, answers: question_answers };
            let floor = guessing_floor(options);
            let updated = update(&RULES, player, question, floor, correct, true);
            let moved = updated.player.value - skill;
            let question_moved = updated.question.map(|q| q.value - difficulty).unwrap_or(0.0);
            if correct {
                prop_assert!(moved >= 0.0 && question_moved <= 0.0);
            } else {
                prop_assert!(moved <= 0.0 && question_moved >= 0.0);
            }
            // Never more than K, and the two estimates move by the same surprise.
            prop_assert!(moved.abs() <= RULES.k(player_answers) + 1e-12);
            prop_assert!(
                (moved / RULES.k(player_answers) + question_moved / RULES.k(question_answers)).abs()
                    < 1e-9
            );
        }

        #[test]
        fn predictions_stay_between_the_floor_and_one(
            skill in -50.0f64..50.0,
            difficulty in -50.0f64..50.0,
            options in 0usize..10,
        ) {
            let floor = guessing_floor(options);
            let p = predicted_success(skill, difficulty, floor);
            prop_assert!(p >= floor && p <= 1.0);
        }
    }
}
