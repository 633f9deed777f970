//! How well predictions of right and wrong answers hold up: log loss, the area under the
//! ROC curve, and the calibration gap by decile, as the learning simulator
//! (`bench/learning`) reports them for Elo and its baselines.

/// Predictions are held within this distance of 0 and 1, so one confident miss costs a
/// bounded log loss.
const EPSILON: f64 = 1e-6;

/// The mean negative log-likelihood of `outcomes` under `predictions` (natural log);
/// `None` for no predictions or series of different lengths.
pub fn log_loss(predictions: &[f64], outcomes: &[bool]) -> Option<f64> {
    if predictions.is_empty() || predictions.len() != outcomes.len() {
        return None;
    }
    let total: f64 = predictions
        .iter()
        .zip(outcomes)
        .map(|(&p, &y)| {
            let p = if p.is_finite() {
                p.clamp(EPSILON, 1.0 - EPSILON)
            } else {
                0.5
            };
            if y { -p.ln() } else { -(1.0 - p).ln() }
        })
        .sum();
    Some(total / predictions.len() as f64)
}

/// The area under the ROC curve: the chance that a right answer drawn at random was
/// predicted higher than a wrong one (ties count one half); `None` without both kinds.
pub fn auc(predictions: &[f64], outcomes: &[bool]) -> Option<f64> {
    if predictions.len() != outcomes.len() {
        return None;
    }
    let mut pairs: Vec<(f64, bool)> = predictions
        .iter()
        .copied()
        .zip(outcomes.iter().copied())
        .collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let positives = pairs.iter().filter(|(_, y)| *y).count() as f64;
    let negatives = pairs.len() as f64 - positives;
    if positives == 0.0 || negatives == 0.0 {
        return None;
    }
    // Mann-Whitney: the rank sum of the positives, ties at their mean rank.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < pairs.len() {
        let mut j = i;
        while j + 1 < pairs.len() && pairs[j + 1].0 == pairs[i].0 {
            j += 1;
        }
        let mean_rank = (i + j) as f64 / 2.0 + 1.0;
        rank_sum += pairs[i..=j].iter().filter(|(_, y)| *y).count() as f64 * mean_rank;
        i = j + 1;
    }
    Some((rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives))
}

/// The calibration gap: predictions sorted into ten equal groups (deciles), the mean of
/// the squared differences between each group's mean prediction and its share of right
/// answers. `None` for fewer than ten predictions.
pub fn decile_gap(predictions: &[f64], outcomes: &[bool]) -> Option<f64> {
    if predictions.len() != outcomes.len() || predictions.len() < 10 {
        return None;
    }
    let mut pairs: Vec<(f64, bool)> = predictions
        .iter()
        .copied()
        .zip(outcomes.iter().copied())
        .collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = pairs.len();
    let gaps: f64 = (0..10)
        .map(|d| {
            let group = &pairs[d * n / 10..(d + 1) * n / 10];
            let size = group.len() as f64;
            let predicted = group.iter().map(|(p, _)| p).sum::<f64>() / size;
            let observed = group.iter().filter(|(_, y)| *y).count() as f64 / size;
            (predicted - observed).powi(2)
        })
        .sum();
    Some(gaps / 10.0)
}

/// RMSE by bins: predictions sorted into `bins` equal-width bins of the predicted
/// probability, the square root of the count-weighted mean of the squared differences
/// between each bin's mean prediction and its share of right answers (the calibration
/// measure of the open srs-benchmark, there binned by review history); a prediction
/// that is not a number counts as 0.5, as in [`log_loss`]. `None` for no predictions, no
/// bins, or series of different lengths.
pub fn binned_rmse(predictions: &[f64], outcomes: &[bool], bins: usize) -> Option<f64> {
    if predictions.is_empty() || bins == 0 || predictions.len() != outcomes.len() {
        return None;
    }
    // per bin: (count, sum of predictions, right answers)
    let mut sums = vec![(0usize, 0.0f64, 0usize); bins];
    for (&p, &y) in predictions.iter().zip(outcomes) {
        let p = if p.is_finite() {
            p.clamp(0.0, 1.0)
        } else {
            0.5
        };
        let bin = ((p * bins as f64) as usize).min(bins - 1);
        sums[bin].0 += 1;
        sums[bin].1 += p;
        sums[bin].2 += usize::from(y);
    }
    let squared: f64 = sums
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|&(n, p, right)| {
            let n = n as f64;
            n * (p / n - right as f64 / n).powi(2)
        })
        .sum();
    Some((squared / predictions.len() as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn binned_rmse_weighs_each_bins_gap_by_its_answers() {
        // bin [0.2, 0.3): 0.2 predicted, 1 of 4 right (gap 0.05); bin [0.9, 1]: 0.9
        // predicted, 1 of 1 right (gap 0.1): sqrt((4 * 0.0025 + 0.01) / 5) = 0.0632...
        let p = [0.2, 0.2, 0.2, 0.2, 0.9];
        let y = [true, false, false, false, true];
        let rmse = binned_rmse(&p, &y, 10).unwrap();
        assert!((rmse - (0.02f64 / 5.0).sqrt()).abs() < 1e-12, "{rmse}");
        // perfectly calibrated bins have none
        assert_eq!(binned_rmse(&[0.5, 0.5], &[true, false], 20), Some(0.0));
        assert!(binned_rmse(&[], &[], 20).is_none());
        assert!(binned_rmse(&[0.5], &[true], 0).is_none());
    }

    #[test]
    fn log_loss_of_a_coin_is_ln_two() {
        let loss = log_loss(&[0.5, 0.5], &[true, false]).unwrap();
        assert!((loss - 2f64.ln()).abs() < 1e-12);
        assert!(log_loss(&[], &[]).is_none());
        // a certain miss costs a bounded amount
        assert!(log_loss(&[0.0], &[true]).unwrap() < 14.0);
    }

    #[test]
    fn auc_counts_ordered_pairs_and_half_ties() {
        assert_eq!(auc(&[0.1, 0.9], &[false, true]), Some(1.0));
        assert_eq!(auc(&[0.9, 0.1], &[false, true]), Some(0.0));
        assert_eq!(auc(&[0.5, 0.5], &[false, true]), Some(0.5));
        // three positives, two negatives: 5 of 6 pairs ordered
        let got = auc(
            &[0.2, 0.3, 0.4, 0.8, 0.9],
            &[false, true, false, true, true],
        )
        .unwrap();
        assert!((got - 5.0 / 6.0).abs() < 1e-12);
        assert!(auc(&[0.2], &[true]).is_none());
    }

    #[test]
    fn a_calibrated_forecast_has_no_gap() {
        // in each decile the prediction equals the share of right answers
        let mut p = Vec::new();
        let mut y = Vec::new();
        for d in 0..10 {
            for k in 0..10 {
                p.push(f64::from(d) / 10.0 + 0.05);
                y.push(k < d);
            }
        }
        // decile d predicts 0.d5 and observes 0.d: a gap of 0.05 everywhere
        let gap = decile_gap(&p, &y).unwrap();
        assert!((gap - 0.0025).abs() < 1e-12, "{gap}");
        assert!(decile_gap(&[0.5; 9], &[true; 9]).is_none());
    }

    proptest! {
        #[test]
        fn metrics_stay_in_range(
            pairs in proptest::collection::vec((0.0f64..=1.0, any::<bool>()), 10..200)
        ) {
            let (p, y): (Vec<f64>, Vec<bool>) = pairs.into_iter().unzip();
            prop_assert!(log_loss(&p, &y).unwrap() >= 0.0);
            if let Some(a) = auc(&p, &y) {
                prop_assert!((0.0..=1.0).contains(&a));
            }
            let gap = decile_gap(&p, &y).unwrap();
            prop_assert!((0.0..=1.0).contains(&gap));
        }
    }
}
