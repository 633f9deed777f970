//! Half-life regression (Settles & Meeder, "A Trainable Spaced Repetition Model for
//! Language Learning", ACL 2016: Duolingo's model): recall after Δ days is 2^(−Δ/h), the
//! half-life h = 2^(Θ·x) from the item's history x = (1, √(1 + right), √(1 + wrong)).
//! Here only a baseline the memory simulator scores FSRS against; fitted to binary
//! outcomes by gradient descent on the log loss (the paper fits session recall rates
//! with an extra half-life term; on pass/fail data the log loss is the proper score).

/// One review as the model sees it: days since the last answer, the history's right and
/// wrong answers, and the outcome.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Review {
    pub days: f64,
    pub right: u32,
    pub wrong: u32,
    pub correct: bool,
}

/// The fitted weights Θ (bias, right, wrong).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfLifeRegression {
    pub weights: [f64; 3],
}

/// Recall is held within this distance of 0 and 1.
const EPSILON: f64 = 1e-4;
/// Half-lives are held within [15 minutes, 274 days] as in the paper.
const MIN_HALF_LIFE: f64 = 15.0 / (24.0 * 60.0);
const MAX_HALF_LIFE: f64 = 274.0;

fn features(r: &Review) -> [f64; 3] {
    [
        1.0,
        (1.0 + f64::from(r.right)).sqrt(),
        (1.0 + f64::from(r.wrong)).sqrt(),
    ]
}

impl HalfLifeRegression {
    /// The half-life (days) of an item with this history.
    pub fn half_life(&self, right: u32, wrong: u32) -> f64 {
        let x = features(&Review {
            days: 0.0,
            right,
            wrong,
            correct: true,
        });
        let z: f64 = self.weights.iter().zip(x).map(|(w, x)| w * x).sum();
        2f64.powf(z).clamp(MIN_HALF_LIFE, MAX_HALF_LIFE)
    }

    /// Predicted recall of `review`.
    pub fn recall(&self, review: &Review) -> f64 {
        let h = self.half_life(review.right, review.wrong);
        2f64.powf(-review.days.max(0.0) / h)
            .clamp(EPSILON, 1.0 - EPSILON)
    }

    /// Fitted to `reviews` by full-batch gradient descent on the mean log loss
    /// (`epochs` passes, step `rate`), from a one-day half-life.
    pub fn fit(reviews: &[Review], epochs: usize, rate: f64) -> Self {
        let mut model = Self { weights: [0.0; 3] };
        if reviews.is_empty() {
            return model;
        }
        let n = reviews.len() as f64;
        for _ in 0..epochs {
            let mut gradient = [0.0; 3];
            for r in reviews {
                let p = model.recall(r);
                let y = if r.correct { 1.0 } else { 0.0 };
                // dL/dp · dp/dz, with p = exp(−ln2·Δ·2^(−z))
                let dl_dp = -y / p + (1.0 - y) / (1.0 - p);
                let h = model.half_life(r.right, r.wrong);
                let dp_dz = p * std::f64::consts::LN_2.powi(2) * r.days.max(0.0) / h;
                for (g, x) in gradient.iter_mut().zip(features(r)) {
                    *g += dl_dp * dp_dz * x / n;
                }
            }
            for (w, g) in model.weights.iter_mut().zip(gradient) {
                *w -= rate * g;
            }
        }
        model
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::evaluation::log_loss;

    #[test]
    fn recall_halves_at_the_half_life() {
        let m = HalfLifeRegression {
            weights: [1.0, 0.0, 0.0],
        };
        // z = 1 + 0: h = 2 days
        assert!((m.half_life(0, 0) - 2.0).abs() < 1e-12);
        let r = |days| Review {
            days,
            right: 0,
            wrong: 0,
            correct: true,
        };
        assert!((m.recall(&r(2.0)) - 0.5).abs() < 1e-12);
        assert!((m.recall(&r(4.0)) - 0.25).abs() < 1e-12);
        assert!(m.recall(&r(0.0)) > 0.999);
    }

    #[test]
    fn a_fit_recovers_a_known_half_life_and_lowers_the_log_loss() {
        // items with 3 right answers remembered with a 4-day half-life: outcomes at the
        // expected rate on a grid of delays
        let mut reviews = Vec::new();
        for days in 1..=12 {
            let p = 2f64.powf(-f64::from(days) / 4.0);
            let right = (p * 100.0).round() as usize;
            for i in 0..100 {
                reviews.push(Review {
                    days: f64::from(days),
                    right: 3,
                    wrong: 0,
                    correct: i < right,
                });
            }
        }
        let start = HalfLifeRegression { weights: [0.0; 3] };
        let fitted = HalfLifeRegression::fit(&reviews, 3000, 0.5);
        let h = fitted.half_life(3, 0);
        assert!((h - 4.0).abs() < 0.3, "{h} {fitted:?}");
        let outcomes: Vec<bool> = reviews.iter().map(|r| r.correct).collect();
        let loss = |m: &HalfLifeRegression| {
            log_loss(
                &reviews.iter().map(|r| m.recall(r)).collect::<Vec<_>>(),
                &outcomes,
            )
            .unwrap()
        };
        assert!(loss(&fitted) < loss(&start));
    }
}
