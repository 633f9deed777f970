//! The learning engine's settings: the online Elo estimates, the calibration job's item
//! response theory fits, the adaptive pick, and spaced review's FSRS schedule.

use super::reader::Reader;
use crate::domain::irt::{IrtGuessing, IrtModel};
use crate::domain::skill::EloRules;

#[derive(Clone, Debug, PartialEq)]
pub struct LearningSettings {
    /// `ELO_ALPHA`, `ELO_BETA`: K(n) = α / (1 + βn).
    pub elo: EloRules,
    /// `TARGET_SUCCESS`: the predicted success a challenge's questions are picked nearest.
    pub target_success: f64,
    /// `ADAPTIVE_PICK`: `false` picks as before (unanswered first, random otherwise).
    pub adaptive_pick: bool,
    /// `CALIBRATION_REFRESH_SECONDS`: each category is fitted again this often.
    pub calibration_refresh_seconds: i64,
    /// `IRT_MODEL`.
    pub irt_model: IrtModel,
    /// `IRT_GUESSING`.
    pub irt_guessing: IrtGuessing,
    /// `IRT_AUTHOR_PRIOR`: a fit takes the authors' 1-5 ratings as a prior on the
    /// difficulties, its line and spread learned from the category's own answers.
    pub irt_author_prior: bool,
    /// `IRT_MIN_ANSWERS`: a question needs this many first answers to be calibrated.
    pub irt_min_answers: i64,
    /// `IRT_SAMPLE_PER_QUESTION`: a fit reads at most this many first answers of each
    /// question (the same players' for every question: those first in id order), so
    /// one run's work is bounded however many players there are.
    pub irt_sample_per_question: i64,
    /// `REVIEW_RETENTION`: a question is due for review when its predicted recall falls
    /// to this.
    pub review_retention: f64,
    /// `FSRS_MIN_REVIEWS`: a player's own FSRS parameters are fitted from this many
    /// reviews on (the defaults before).
    pub fsrs_min_reviews: i64,
}

impl Default for LearningSettings {
    fn default() -> Self {
        Self {
            elo: EloRules::default(),
            target_success: 0.75,
            adaptive_pick: true,
            calibration_refresh_seconds: 3600,
            irt_model: IrtModel::OnePl,
            irt_guessing: IrtGuessing::Options,
            irt_author_prior: true,
            irt_min_answers: 5,
            irt_sample_per_question: 2000,
            review_retention: 0.9,
            fsrs_min_reviews: 400,
        }
    }
}

impl LearningSettings {
    pub(super) fn from_reader(r: &mut Reader<'_>) -> Self {
        let d = Self::default();
        let irt_model = match r.string("IRT_MODEL") {
            None => d.irt_model,
            Some(raw) => IrtModel::parse(&raw).unwrap_or_else(|| {
                r.errors
                    .push(format!("IRT_MODEL={raw:?}: expected 2pl or 1pl"));
                d.irt_model
            }),
        };
        let irt_guessing = match r.string("IRT_GUESSING") {
            None => d.irt_guessing,
            Some(raw) => IrtGuessing::parse(&raw).unwrap_or_else(|| {
                r.errors
                    .push(format!("IRT_GUESSING={raw:?}: expected options or none"));
                d.irt_guessing
            }),
        };
        let s = Self {
            elo: EloRules {
                alpha: r.parsed("ELO_ALPHA", d.elo.alpha),
                beta: r.parsed("ELO_BETA", d.elo.beta),
            },
            target_success: r.parsed("TARGET_SUCCESS", d.target_success),
            adaptive_pick: r.flag("ADAPTIVE_PICK", d.adaptive_pick),
            calibration_refresh_seconds: r
                .parsed("CALIBRATION_REFRESH_SECONDS", d.calibration_refresh_seconds),
            irt_model,
            irt_guessing,
            irt_author_prior: r.flag("IRT_AUTHOR_PRIOR", d.irt_author_prior),
            irt_min_answers: r.parsed("IRT_MIN_ANSWERS", d.irt_min_answers),
            irt_sample_per_question: r.parsed("IRT_SAMPLE_PER_QUESTION", d.irt_sample_per_question),
            review_retention: r.parsed("REVIEW_RETENTION", d.review_retention),
            fsrs_min_reviews: r.parsed("FSRS_MIN_REVIEWS", d.fsrs_min_reviews),
        };
        let alpha_ok = s.elo.alpha > 0.0 && s.elo.alpha <= 4.0;
        if !alpha_ok || !(0.0..=10.0).contains(&s.elo.beta) {
            r.errors
                .push("ELO_ALPHA must be in (0, 4] and ELO_BETA in [0, 10]".into());
        }
        if !(s.target_success > 0.0 && s.target_success < 1.0) {
            r.errors
                .push("TARGET_SUCCESS must be between 0 and 1 (exclusive)".into());
        }
        if !(1..=30 * 86_400).contains(&s.calibration_refresh_seconds) {
            r.errors
                .push("CALIBRATION_REFRESH_SECONDS must be 1-2592000".into());
        }
        if !(2..=1_000_000).contains(&s.irt_min_answers) {
            r.errors.push("IRT_MIN_ANSWERS must be 2-1000000".into());
        }
        if !(10..=100_000).contains(&s.irt_sample_per_question) {
            r.errors
                .push("IRT_SAMPLE_PER_QUESTION must be 10-100000".into());
        }
        if !(0.7..=0.99).contains(&s.review_retention) {
            r.errors.push("REVIEW_RETENTION must be 0.7-0.99".into());
        }
        if !(50..=1_000_000).contains(&s.fsrs_min_reviews) {
            r.errors.push("FSRS_MIN_REVIEWS must be 50-1000000".into());
        }
        s
    }
}
