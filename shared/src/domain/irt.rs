//! Item response theory: questions' parameters fitted from players' answers by marginal
//! maximum likelihood, with the EM algorithm of Bock & Aitkin (1981) over a fixed
//! quadrature of the skill θ ~ N(0, 1).
//!
//! A question's chance of a right answer from a player of skill θ is
//! P(θ) = c + (1 − c)·σ(a·θ + d) (slope-intercept form, as R's mirt reports it), with
//! slope (discrimination) a, intercept d, difficulty b = −d/a and a guessing floor c fixed
//! by the caller (1 / options, or 0). `TwoPl` fits a and d per question; `OnePl` one
//! slope common to every question of the fit.
//!
//! Examinees may answer any subset of the questions (a player answers what they were
//! served); each counts with a weight, so a table of response patterns and their counts
//! fits as well as one row per player.

use super::skill::logistic;
use crate::closed_set::closed_set;

closed_set! {
    /// Which parameters a fit estimates (`IRT_MODEL`): `2pl` (a slope and an intercept
    /// per question) or `1pl` (one slope common to every question).
    pub enum IrtModel in "irt-model" {
        TwoPl = "2pl",
        OnePl = "1pl",
    }
}

closed_set! {
    /// Whether a fit holds each question's guessing floor at 1 / options
    /// (`IRT_GUESSING`): `options` (c = 1 / the number of options) or `none` (c = 0).
    pub enum IrtGuessing in "irt-guessing" {
        Options = "options",
        None = "none",
    }
}

/// One examinee (a player, or a response pattern with its count as the weight): the
/// questions answered, by index into the fit's questions, and whether each was right.
#[derive(Clone, Debug, PartialEq)]
pub struct Examinee {
    pub weight: f64,
    pub responses: Vec<(usize, bool)>,
}

/// How a fit runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitSettings {
    pub model: IrtModel,
    /// Quadrature points, evenly spaced on [−limit, limit] and weighted by the normal
    /// density (mirt's default for one dimension: 61 on [−6, 6]).
    pub quadrature_points: usize,
    pub limit: f64,
    /// EM stops when no parameter moves more than `tolerance` in an iteration …
    pub tolerance: f64,
    /// … or after this many iterations (the fit then says it did not converge).
    pub max_iterations: usize,
}

impl Default for FitSettings {
    fn default() -> Self {
        Self {
            model: IrtModel::TwoPl,
            quadrature_points: 61,
            limit: 6.0,
            tolerance: 1e-6,
            max_iterations: 2_000,
        }
    }
}

/// A question's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ItemParameters {
    pub slope: f64,
    pub intercept: f64,
    pub guessing: f64,
}

impl ItemParameters {
    /// b = −d / a: the skill at which σ(a·θ + d) is one half.
    pub fn difficulty(&self) -> f64 {
        -self.intercept / self.slope
    }

    /// The chance of a right answer at skill `theta`.
    pub fn success(&self, theta: f64) -> f64 {
        self.guessing + (1.0 - self.guessing) * logistic(self.slope * theta + self.intercept)
    }
}

/// A fitted question.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ItemFit {
    pub parameters: ItemParameters,
    /// The standard error of the difficulty, from the cross-product of the examinees'
    /// scores for this question's parameters (mirt's `SE.type = "crossprod"`, per
    /// question); `None` when the answers cannot tell (too few, or all alike).
    pub difficulty_standard_error: Option<f64>,
    /// The weighted number of answers to the question.
    pub answers: f64,
}

/// The result of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub items: Vec<ItemFit>,
    /// The marginal log-likelihood of the answers under the fitted parameters.
    pub log_likelihood: f64,
    /// The weighted number of examinees.
    pub examinees: f64,
    pub iterations: usize,
    pub converged: bool,
}

/// Slopes are held within these bounds: a question whose answers say nothing about skill
/// (or the opposite of it) gets a weak positive slope rather than a difficulty of ±∞.
const SLOPE_RANGE: (f64, f64) = (0.05, 20.0);
const INTERCEPT_RANGE: (f64, f64) = (-40.0, 40.0);
/// Newton steps inside one M-step, each at most this long.
const INNER_STEPS: usize = 25;
const MAX_STEP: f64 = 1.0;

/// The quadrature: points evenly spaced on [−limit, limit] with normal-density weights
/// summing to one.
fn quadrature(settings: &FitSettings) -> (Vec<f64>, Vec<f64>) {
    let count = settings.quadrature_points.max(2);
    let nodes: Vec<f64> = (0..count)
        .map(|k| -settings.limit + 2.0 * settings.limit * k as f64 / (count - 1) as f64)
        .collect();
    let density: Vec<f64> = nodes.iter().map(|x| (-x * x / 2.0).exp()).collect();
    let total: f64 = density.iter().sum();
    let weights = density.iter().map(|d| d / total).collect();
    (nodes, weights)
}

/// Fits the questions whose guessing floors are `floors` (one per question; the index
/// of a response names its question) to `examinees`' answers.
pub fn fit(floors: &[f64], examinees: &[Examinee], settings: &FitSettings) -> Fit {
    fit_with_priors(floors, &[], examinees, settings)
}

/// A prior on a question's difficulty: b ~ N(mean, sd²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DifficultyPrior {
    pub mean: f64,
    pub sd: f64,
}

/// [`fit`] with a prior on each question's difficulty (`priors[j]` for question j; none
/// past the slice's end): the maximum a posteriori estimates. The standard errors stay
/// the answers' own (the likelihood's), so they say what the answers tell.
pub fn fit_with_priors(
    floors: &[f64],
    priors: &[Option<DifficultyPrior>],
    examinees: &[Examinee],
    settings: &FitSettings,
) -> Fit {
    let (nodes, weights) = quadrature(settings);
    let mut items: Vec<ItemParameters> = floors
        .iter()
        .map(|&c| ItemParameters {
            slope: 1.0,
            intercept: 0.0,
            guessing: if c.is_finite() {
                c.clamp(0.0, 0.99)
            } else {
                0.0
            },
        })
        .collect();
    start_intercepts(&mut items, examinees);

    let mut iterations = 0;
    let mut converged = false;
    while iterations < settings.max_iterations {
        iterations += 1;
        let expected = expectation(&items, examinees, &nodes, &weights, false);
        let moved = maximisation(&mut items, &expected, &nodes, settings.model, priors);
        if moved < settings.tolerance {
            converged = true;
            break;
        }
    }
    let last = expectation(&items, examinees, &nodes, &weights, true);
    let fits = items
        .iter()
        .enumerate()
        .map(|(j, item)| ItemFit {
            parameters: *item,
            difficulty_standard_error: difficulty_standard_error(
                item,
                &last.cross_products[j],
                settings.model,
            ),
            answers: last.answers[j],
        })
        .collect();
    Fit {
        items: fits,
        log_likelihood: last.log_likelihood,
        examinees: examinees.iter().map(|e| e.weight.max(0.0)).sum(),
        iterations,
        converged,
    }
}

/// Questions a category needs before its authors' ratings are turned into a prior.
pub const AUTHOR_PRIOR_MIN_QUESTIONS: usize = 20;
/// The prior's spread is never taken narrower than this: the authors' ratings never
/// outweigh a question's own answers entirely.
const AUTHOR_PRIOR_MIN_SD: f64 = 0.25;
/// Fitted difficulties beyond this (all right or all wrong) say nothing of the authors.
const AUTHOR_PRIOR_EDGE: f64 = 5.0;

/// What the authors' 1-5 ratings say of a category's difficulties, learned from its own
/// answers (empirical Bayes): b ≈ intercept + slope · (the rating on the scale), with
/// the spread `sd` of the true difficulties around that line (the fitted difficulties'
/// spread around it less their standard errors' share).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AuthorPrior {
    pub intercept: f64,
    pub slope: f64,
    pub sd: f64,
}

impl AuthorPrior {
    /// The prior of a question its author rated `authored` (on the scale, −2 … +2).
    pub fn of(&self, authored: f64) -> DifficultyPrior {
        DifficultyPrior {
            mean: self.intercept + self.slope * authored,
            sd: self.sd,
        }
    }

    /// The prior from a fit without one: a least-squares line of the fitted difficulties
    /// on the authors' (`authored[j]` for question j), over the questions whose
    /// difficulty has a standard error and lies inside the scale; None under
    /// [`AUTHOR_PRIOR_MIN_QUESTIONS`] of them.
    pub fn learned(authored: &[f64], fit: &Fit) -> Option<AuthorPrior> {
        let points: Vec<(f64, f64, f64)> = fit
            .items
            .iter()
            .zip(authored)
            .filter_map(|(item, &x)| {
                let b = item.parameters.difficulty();
                let se = item.difficulty_standard_error?;
                (b.is_finite() && b.abs() < AUTHOR_PRIOR_EDGE && se.is_finite() && x.is_finite())
                    .then_some((x, b, se))
            })
            .collect();
        if points.len() < AUTHOR_PRIOR_MIN_QUESTIONS {
            return None;
        }
        // Random effects as a meta-analysis takes them (Paule & Mandel 1982): b̂_j ~
        // N(α + β·x_j, τ² + se_j²); the line by weighted least squares at a given τ², and
        // τ² where the weighted squared residuals equal their degrees of freedom. A
        // question whose answers tell little (a large se) weighs little, in the line and
        // in the spread.
        let line = |tau2: f64| -> (f64, f64, f64) {
            let w: Vec<f64> = points.iter().map(|p| 1.0 / (tau2 + p.2 * p.2)).collect();
            let total: f64 = w.iter().sum();
            let mean_x = points.iter().zip(&w).map(|(p, w)| w * p.0).sum::<f64>() / total;
            let mean_y = points.iter().zip(&w).map(|(p, w)| w * p.1).sum::<f64>() / total;
            let sxx: f64 = points
                .iter()
                .zip(&w)
                .map(|(p, w)| w * (p.0 - mean_x).powi(2))
                .sum();
            let sxy: f64 = points
                .iter()
                .zip(&w)
                .map(|(p, w)| w * (p.0 - mean_x) * (p.1 - mean_y))
                .sum();
            let slope = if sxx > 1e-12 { sxy / sxx } else { 0.0 };
            let intercept = mean_y - slope * mean_x;
            let q = points
                .iter()
                .zip(&w)
                .map(|(p, w)| w * (p.1 - intercept - slope * p.0).powi(2))
                .sum();
            (intercept, slope, q)
        };
        let freedom = points.len() as f64 - 2.0;
        let (mut lo, mut hi) = (0.0, 25.0);
        if line(lo).2 > freedom {
            for _ in 0..60 {
                let mid = (lo + hi) / 2.0;
                if line(mid).2 > freedom {
                    lo = mid
                } else {
                    hi = mid
                }
            }
        }
        let tau2 = (lo + hi) / 2.0 * f64::from(u8::from(line(0.0).2 > freedom));
        let sd = tau2.max(AUTHOR_PRIOR_MIN_SD.powi(2)).sqrt();
        let (intercept, slope, _) = line(tau2);
        Some(AuthorPrior {
            intercept,
            slope,
            sd,
        })
    }
}

/// A fit that uses the authors' ratings where they help: fitted once without a prior,
/// the prior learned from that fit ([`AuthorPrior::learned`]), then fitted again with
/// it. `authored[j]` is question j's rating on the scale (−2 … +2). Without enough
/// questions to learn a prior, the first fit stands.
pub fn fit_with_author_prior(
    floors: &[f64],
    authored: &[f64],
    examinees: &[Examinee],
    settings: &FitSettings,
) -> (Fit, Option<AuthorPrior>) {
    let first = fit(floors, examinees, settings);
    let Some(prior) = AuthorPrior::learned(authored, &first) else {
        return (first, None);
    };
    let priors: Vec<Option<DifficultyPrior>> =
        authored.iter().map(|&x| Some(prior.of(x))).collect();
    (
        fit_with_priors(floors, &priors, examinees, settings),
        Some(prior),
    )
}

/// The posterior mean and standard deviation of the skill of a player who gave
/// `responses` to questions of parameters `items` (the expected a posteriori estimate).
pub fn skill_estimate(
    items: &[ItemParameters],
    responses: &[(usize, bool)],
    settings: &FitSettings,
) -> (f64, f64) {
    let (nodes, weights) = quadrature(settings);
    let mut log_posterior: Vec<f64> = weights.iter().map(|w| w.ln()).collect();
    for &(j, right) in responses {
        let Some(item) = items.get(j) else { continue };
        for (k, lp) in log_posterior.iter_mut().enumerate() {
            *lp += log_chance(item.success(nodes[k]), right);
        }
    }
    let posterior = normalised(&log_posterior).0;
    let mean: f64 = posterior.iter().zip(&nodes).map(|(p, x)| p * x).sum();
    let variance: f64 = posterior
        .iter()
        .zip(&nodes)
        .map(|(p, x)| p * (x - mean) * (x - mean))
        .sum();
    (mean, variance.sqrt())
}

/// Starting intercepts from each question's share of right answers above its floor.
fn start_intercepts(items: &mut [ItemParameters], examinees: &[Examinee]) {
    let mut right = vec![0.0; items.len()];
    let mut total = vec![0.0; items.len()];
    for examinee in examinees {
        let w = examinee.weight.max(0.0);
        for &(j, correct) in &examinee.responses {
            if j < items.len() {
                total[j] += w;
                if correct {
                    right[j] += w;
                }
            }
        }
    }
    for (j, item) in items.iter_mut().enumerate() {
        let share = (right[j] + 0.5) / (total[j] + 1.0);
        let above = ((share - item.guessing) / (1.0 - item.guessing)).clamp(0.02, 0.98);
        item.intercept = (above / (1.0 - above)).ln();
    }
}

/// What the E-step gathers: per question and quadrature point, the expected number of
/// examinees who answered it there and of those who answered it right.
struct Expected {
    answered: Vec<Vec<f64>>,
    right: Vec<Vec<f64>>,
    answers: Vec<f64>,
    log_likelihood: f64,
    /// Per question, Σ weight · s sᵀ of the examinees' scores s for (slope, intercept),
    /// stored as [aa, ad, dd]; filled only when asked for.
    cross_products: Vec<[f64; 3]>,
}

fn log_chance(p: f64, right: bool) -> f64 {
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    if right { p.ln() } else { (1.0 - p).ln() }
}

/// Normalises log-weights into probabilities; also returns log Σ exp.
fn normalised(log_weights: &[f64]) -> (Vec<f64>, f64) {
    let max = log_weights
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = log_weights.iter().map(|l| (l - max).exp()).collect();
    let total: f64 = exps.iter().sum();
    (exps.iter().map(|e| e / total).collect(), max + total.ln())
}

/// The score of one answer with respect to the linear predictor z = a·θ + d:
/// ∂ log P(u) / ∂z = (u − P) · P'(z) / (P (1 − P)), and its information P'(z)² / (P (1 − P)).
fn score_and_information(item: &ItemParameters, theta: f64, right: f64) -> (f64, f64) {
    let s = logistic(item.slope * theta + item.intercept);
    let p = (item.guessing + (1.0 - item.guessing) * s).clamp(1e-12, 1.0 - 1e-12);
    let slope_of_p = (1.0 - item.guessing) * s * (1.0 - s);
    let spread = p * (1.0 - p);
    (
        (right - p) * slope_of_p / spread,
        slope_of_p * slope_of_p / spread,
    )
}

fn expectation(
    items: &[ItemParameters],
    examinees: &[Examinee],
    nodes: &[f64],
    weights: &[f64],
    with_cross_products: bool,
) -> Expected {
    let points = nodes.len();
    let logs: Vec<(Vec<f64>, Vec<f64>)> = items
        .iter()
        .map(|item| {
            nodes
                .iter()
                .map(|&x| {
                    let p = item.success(x);
                    (log_chance(p, true), log_chance(p, false))
                })
                .unzip()
        })
        .collect();
    let log_prior: Vec<f64> = weights.iter().map(|w| w.ln()).collect();
    let mut expected = Expected {
        answered: vec![vec![0.0; points]; items.len()],
        right: vec![vec![0.0; points]; items.len()],
        answers: vec![0.0; items.len()],
        log_likelihood: 0.0,
        cross_products: vec![[0.0; 3]; if with_cross_products { items.len() } else { 0 }],
    };
    let mut log_posterior = vec![0.0; points];
    for examinee in examinees {
        let w = examinee.weight;
        if w.is_nan() || w <= 0.0 {
            continue;
        }
        log_posterior.copy_from_slice(&log_prior);
        for &(j, right) in &examinee.responses {
            let Some((log_right, log_wrong)) = logs.get(j) else {
                continue;
            };
            let row = if right { log_right } else { log_wrong };
            for (lp, l) in log_posterior.iter_mut().zip(row) {
                *lp += l;
            }
        }
        let (posterior, log_marginal) = normalised(&log_posterior);
        expected.log_likelihood += w * log_marginal;
        for &(j, right) in &examinee.responses {
            if j >= items.len() {
                continue;
            }
            expected.answers[j] += w;
            for (k, p) in posterior.iter().enumerate() {
                expected.answered[j][k] += w * p;
                if right {
                    expected.right[j][k] += w * p;
                }
            }
            if with_cross_products {
                let (mut by_slope, mut by_intercept) = (0.0, 0.0);
                for (k, p) in posterior.iter().enumerate() {
                    let g =
                        score_and_information(&items[j], nodes[k], f64::from(u8::from(right))).0;
                    by_slope += p * g * nodes[k];
                    by_intercept += p * g;
                }
                let cp = &mut expected.cross_products[j];
                cp[0] += w * by_slope * by_slope;
                cp[1] += w * by_slope * by_intercept;
                cp[2] += w * by_intercept * by_intercept;
            }
        }
    }
    expected
}

/// The gradient and Fisher information of one question's expected complete-data
/// log-likelihood, as [g_a, g_d] and [I_aa, I_ad, I_dd].
fn item_derivatives(
    item: &ItemParameters,
    answered: &[f64],
    right: &[f64],
    nodes: &[f64],
) -> ([f64; 2], [f64; 3]) {
    let mut gradient = [0.0; 2];
    let mut information = [0.0; 3];
    for (k, &x) in nodes.iter().enumerate() {
        let n = answered[k];
        if n <= 0.0 {
            continue;
        }
        // r right and n − r wrong answers at θ = x: scores (1 − P)·h and −P·h per answer.
        let (g_right, info) = score_and_information(item, x, 1.0);
        let (g_wrong, _) = score_and_information(item, x, 0.0);
        let g = right[k] * g_right + (n - right[k]) * g_wrong;
        gradient[0] += g * x;
        gradient[1] += g;
        information[0] += n * info * x * x;
        information[1] += n * info * x;
        information[2] += n * info;
    }
    (gradient, information)
}

/// Adds a difficulty prior's log density −u²/(2σ²), u = d/a + μ = μ − b, to one
/// question's gradient and (Gauss-Newton) information in (slope, intercept).
fn add_prior(item: &ItemParameters, prior: DifficultyPrior, g: &mut [f64; 2], info: &mut [f64; 3]) {
    if !(prior.sd > 0.0 && prior.sd.is_finite() && prior.mean.is_finite()) {
        return;
    }
    let precision = 1.0 / (prior.sd * prior.sd);
    let u = item.intercept / item.slope + prior.mean;
    let du_da = -item.intercept / (item.slope * item.slope);
    let du_dd = 1.0 / item.slope;
    g[0] -= precision * u * du_da;
    g[1] -= precision * u * du_dd;
    info[0] += precision * du_da * du_da;
    info[1] += precision * du_da * du_dd;
    info[2] += precision * du_dd * du_dd;
}

fn bounded_step(step: f64) -> f64 {
    if step.is_finite() {
        step.clamp(-MAX_STEP, MAX_STEP)
    } else {
        0.0
    }
}

/// The M-step: Fisher scoring on each question's (or, for `OnePl`, the common slope's)
/// parameters; returns the largest move of any parameter.
fn maximisation(
    items: &mut [ItemParameters],
    expected: &Expected,
    nodes: &[f64],
    model: IrtModel,
    priors: &[Option<DifficultyPrior>],
) -> f64 {
    let before: Vec<ItemParameters> = items.to_vec();
    for _ in 0..INNER_STEPS {
        let mut largest: f64 = 0.0;
        let (mut common_gradient, mut common_information) = (0.0, 0.0);
        for (j, item) in items.iter_mut().enumerate() {
            let (mut g, mut info) =
                item_derivatives(item, &expected.answered[j], &expected.right[j], nodes);
            if let Some(prior) = priors.get(j).copied().flatten() {
                add_prior(item, prior, &mut g, &mut info);
            }
            match model {
                IrtModel::TwoPl => {
                    let det = info[0] * info[2] - info[1] * info[1];
                    if det <= 1e-12 {
                        continue;
                    }
                    let step_a = bounded_step((info[2] * g[0] - info[1] * g[1]) / det);
                    let step_d = bounded_step((info[0] * g[1] - info[1] * g[0]) / det);
                    item.slope = (item.slope + step_a).clamp(SLOPE_RANGE.0, SLOPE_RANGE.1);
                    item.intercept =
                        (item.intercept + step_d).clamp(INTERCEPT_RANGE.0, INTERCEPT_RANGE.1);
                    largest = largest.max(step_a.abs()).max(step_d.abs());
                }
                IrtModel::OnePl => {
                    if info[2] > 1e-12 {
                        let step_d = bounded_step(g[1] / info[2]);
                        item.intercept =
                            (item.intercept + step_d).clamp(INTERCEPT_RANGE.0, INTERCEPT_RANGE.1);
                        largest = largest.max(step_d.abs());
                    }
                    common_gradient += g[0];
                    common_information += info[0];
                }
            }
        }
        if model == IrtModel::OnePl && common_information > 1e-12 {
            let step_a = bounded_step(common_gradient / common_information);
            let slope = (items.first().map_or(1.0, |i| i.slope) + step_a)
                .clamp(SLOPE_RANGE.0, SLOPE_RANGE.1);
            for item in items.iter_mut() {
                item.slope = slope;
            }
            largest = largest.max(step_a.abs());
        }
        if largest < 1e-10 {
            break;
        }
    }
    items
        .iter()
        .zip(&before)
        .map(|(now, then)| {
            (now.slope - then.slope)
                .abs()
                .max((now.intercept - then.intercept).abs())
        })
        .fold(0.0, f64::max)
}

/// The difficulty's standard error by the delta method from the cross-product
/// information of (slope, intercept): ∇b = (d / a², −1 / a). For `OnePl` the common
/// slope is treated as known.
fn difficulty_standard_error(
    item: &ItemParameters,
    cross_product: &[f64; 3],
    model: IrtModel,
) -> Option<f64> {
    let [aa, ad, dd] = *cross_product;
    let variance = match model {
        IrtModel::TwoPl => {
            let det = aa * dd - ad * ad;
            if det <= 1e-12 * (aa * dd).max(1e-300) {
                return None;
            }
            let (inv_aa, inv_ad, inv_dd) = (dd / det, -ad / det, aa / det);
            let ga = item.intercept / (item.slope * item.slope);
            let gd = -1.0 / item.slope;
            ga * ga * inv_aa + 2.0 * ga * gd * inv_ad + gd * gd * inv_dd
        }
        IrtModel::OnePl => {
            if dd <= 1e-12 {
                return None;
            }
            1.0 / (dd * item.slope * item.slope)
        }
    };
    (variance.is_finite() && variance > 0.0).then(|| variance.sqrt())
}

/// Spearman's rank correlation of two equally long series (ties get their mean rank);
/// `None` for fewer than two values or a constant series.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (rx, ry) = (ranks(x), ranks(y));
    let n = x.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let mean_rank = (start + end) as f64 / 2.0 + 1.0;
        for &i in &order[start..=end] {
            ranks[i] = mean_rank;
        }
        start = end + 1;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The LSAT section 7 responses of Bock & Lieberman (1970), the classic test set of
    /// IRT software: 32 response patterns of 5 items and their counts.
    const LSAT7: &str = include_str!("data/lsat7.csv");

    fn lsat7() -> Vec<Examinee> {
        LSAT7
            .lines()
            .skip(1)
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                let cells: Vec<&str> = line.trim().split(',').collect();
                Examinee {
                    weight: cells[5].parse().expect("a count"),
                    responses: (0..5).map(|j| (j, cells[j] == "1")).collect(),
                }
            })
            .collect()
    }

    #[test]
    fn lsat7_fits_as_mirt_fits_it() {
        let fit = fit(&[0.0; 5], &lsat7(), &FitSettings::default());
        assert!(fit.converged);
        assert_eq!(fit.examinees, 1000.0);
        // R's mirt, 2PL without guessing, θ ~ N(0, 1) (the data's README).
        assert!(
            (fit.log_likelihood - -2658.805).abs() < 0.01,
            "log-likelihood {}",
            fit.log_likelihood
        );
        let slopes = [0.988, 1.081, 1.707, 0.765, 0.736];
        let intercepts = [1.856, 0.808, 1.805, 0.486, 1.854];
        for (j, item) in fit.items.iter().enumerate() {
            assert!(
                (item.parameters.slope - slopes[j]).abs() < 0.005,
                "item {j}: a = {}",
                item.parameters.slope
            );
            assert!(
                (item.parameters.intercept - intercepts[j]).abs() < 0.005,
                "item {j}: d = {}",
                item.parameters.intercept
            );
            assert_eq!(item.answers, 1000.0);
            let se = item.difficulty_standard_error.expect("a standard error");
            assert!(se > 0.0 && se < 1.0, "item {j}: se {se}");
        }
        // The hardest item of the five by b = −d/a is item 4 (0.486 / 0.765).
        let hardest = fit
            .items
            .iter()
            .enumerate()
            .max_by(|a, b| {
                a.1.parameters
                    .difficulty()
                    .total_cmp(&b.1.parameters.difficulty())
            })
            .map(|(j, _)| j);
        assert_eq!(hardest, Some(3));
    }

    #[test]
    fn one_common_slope_fits_no_better_than_one_per_question() {
        let examinees = lsat7();
        let two = fit(&[0.0; 5], &examinees, &FitSettings::default());
        let one = fit(
            &[0.0; 5],
            &examinees,
            &FitSettings {
                model: IrtModel::OnePl,
                ..FitSettings::default()
            },
        );
        assert!(one.converged);
        let slope = one.items[0].parameters.slope;
        assert!(one.items.iter().all(|i| i.parameters.slope == slope));
        // Nested models: the 2PL's likelihood is at least the 1PL's.
        assert!(one.log_likelihood <= two.log_likelihood + 1e-6);
        // (6.1 on LSAT7: the five slopes differ, 0.74 to 1.71, and the common one lies
        // between them.)
        assert!(two.log_likelihood - one.log_likelihood < 10.0);
        assert!(slope > 0.736 && slope < 1.707, "common slope {slope}");
    }

    fn normal(rng: &mut StdRng) -> f64 {
        let u: f64 = rng.random::<f64>().max(1e-12);
        let v: f64 = rng.random();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Examinees of skill θ ~ N(0, 1) answering `per_examinee` of `items` chosen at random.
    fn simulate(
        items: &[ItemParameters],
        examinees: usize,
        per_examinee: usize,
        seed: u64,
    ) -> Vec<Examinee> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..examinees)
            .map(|_| {
                let theta = normal(&mut rng);
                let mut chosen: Vec<usize> = (0..items.len()).collect();
                for i in 0..per_examinee.min(items.len()) {
                    let pick = rng.random_range(i..items.len());
                    chosen.swap(i, pick);
                }
                chosen.truncate(per_examinee);
                Examinee {
                    weight: 1.0,
                    responses: chosen
                        .into_iter()
                        .map(|j| (j, rng.random::<f64>() < items[j].success(theta)))
                        .collect(),
                }
            })
            .collect()
    }

    #[test]
    fn known_difficulties_are_recovered_from_sparse_answers_with_guessing() {
        let truth: Vec<ItemParameters> = (0..16)
            .map(|j| {
                let b = -2.0 + 4.0 * j as f64 / 15.0;
                let a = 0.7 + 0.1 * (j % 8) as f64;
                ItemParameters {
                    slope: a,
                    intercept: -a * b,
                    guessing: 0.25,
                }
            })
            .collect();
        let examinees = simulate(&truth, 1_500, 8, 7);
        let fit = fit(&[0.25; 16], &examinees, &FitSettings::default());
        let fitted: Vec<f64> = fit
            .items
            .iter()
            .map(|i| i.parameters.difficulty())
            .collect();
        let true_b: Vec<f64> = truth.iter().map(ItemParameters::difficulty).collect();
        let rho = spearman(&fitted, &true_b).expect("a correlation");
        assert!(rho >= 0.95, "Spearman {rho}");
        for (j, (f, t)) in fitted.iter().zip(&true_b).enumerate() {
            let se = fit.items[j]
                .difficulty_standard_error
                .expect("a standard error");
            assert!(
                (f - t).abs() < 4.0 * se + 0.1,
                "item {j}: {f} vs {t} (se {se})"
            );
        }
    }

    /// Items of difficulty uniform on [−2.5, 2.5] and slopes 0.7-1.4, with an author's
    /// rating: the true b blurred by N(0, 1), rounded and clamped to −2 … +2.
    fn rated_items(count: usize, rng: &mut StdRng) -> (Vec<ItemParameters>, Vec<f64>) {
        (0..count)
            .map(|_| {
                let b: f64 = rng.random_range(-2.5..2.5);
                let a: f64 = rng.random_range(0.7..1.4);
                let rated = (b + normal(rng)).round().clamp(-2.0, 2.0);
                (
                    ItemParameters {
                        slope: a,
                        intercept: -a * b,
                        guessing: 0.25,
                    },
                    rated,
                )
            })
            .unzip()
    }

    #[test]
    fn the_authors_prior_ranks_sparse_difficulties_better_than_the_answers_alone() {
        let mut rng = StdRng::seed_from_u64(11);
        let (truth, rated) = rated_items(120, &mut rng);
        let true_b: Vec<f64> = truth.iter().map(ItemParameters::difficulty).collect();
        // about 25 answers a question
        let examinees = simulate(&truth, 300, 10, 5);
        let settings = FitSettings {
            model: IrtModel::OnePl,
            ..FitSettings::default()
        };
        let floors = vec![0.25; truth.len()];
        let plain = fit(&floors, &examinees, &settings);
        let (with_prior, prior) = fit_with_author_prior(&floors, &rated, &examinees, &settings);
        let prior = prior.expect("120 questions are enough to learn the authors' line");
        // the ratings rise with difficulty, and their spread around the line is about
        // the blur (1) the ratings were made with, not the answers' noise on top
        assert!(prior.slope > 0.5 && prior.slope < 1.5, "{prior:?}");
        assert!(prior.sd > 0.5 && prior.sd < 1.6, "{prior:?}");
        let rho = |f: &Fit| {
            let b: Vec<f64> = f.items.iter().map(|i| i.parameters.difficulty()).collect();
            spearman(&b, &true_b).expect("a correlation")
        };
        assert!(
            rho(&with_prior) > rho(&plain),
            "{} vs {} {prior:?}",
            rho(&with_prior),
            rho(&plain)
        );
    }

    #[test]
    fn a_prior_pulls_a_difficulty_only_as_far_as_its_answers_allow() {
        let item = ItemParameters {
            slope: 1.0,
            intercept: 0.0,
            guessing: 0.25,
        };
        let settings = FitSettings {
            model: IrtModel::OnePl,
            ..FitSettings::default()
        };
        let pulled = |answers: usize| {
            let examinees = simulate(&[item; 2], answers, 2, 3);
            let priors = [Some(DifficultyPrior { mean: 2.0, sd: 0.5 }), None];
            let with = fit_with_priors(&[0.25; 2], &priors, &examinees, &settings);
            let without = fit(&[0.25; 2], &examinees, &settings);
            with.items[0].parameters.difficulty() - without.items[0].parameters.difficulty()
        };
        let (few, many) = (pulled(20), pulled(5_000));
        // towards the prior's mean, far with 20 answers, hardly with 5,000
        assert!(few > 0.4, "{few}");
        assert!(many > 0.0 && many < 0.1, "{many}");
        // no prior, or one too wide to say anything, is the plain fit
        let examinees = simulate(&[item; 2], 200, 2, 4);
        let wide = [Some(DifficultyPrior { mean: 2.0, sd: 1e6 }); 2];
        let a = fit_with_priors(&[0.25; 2], &wide, &examinees, &settings);
        let b = fit(&[0.25; 2], &examinees, &settings);
        for (x, y) in a.items.iter().zip(&b.items) {
            assert!((x.parameters.difficulty() - y.parameters.difficulty()).abs() < 1e-4);
        }
        // too few questions to learn a line: the plain fit
        let (alone, none) = fit_with_author_prior(&[0.25; 2], &[0.0, 1.0], &examinees, &settings);
        assert!(none.is_none());
        assert_eq!(alone, b);
    }

    #[test]
    fn the_posterior_skill_of_a_strong_player_is_above_a_weak_one() {
        let items = [ItemParameters {
            slope: 1.0,
            intercept: 0.0,
            guessing: 0.0,
        }; 4];
        let settings = FitSettings::default();
        let strong = skill_estimate(
            &items,
            &[(0, true), (1, true), (2, true), (3, false)],
            &settings,
        );
        let weak = skill_estimate(
            &items,
            &[(0, false), (1, false), (2, true), (3, false)],
            &settings,
        );
        let none = skill_estimate(&items, &[], &settings);
        assert!(strong.0 > 0.3 && weak.0 < -0.3, "{strong:?} {weak:?}");
        assert!(
            none.0.abs() < 1e-9 && (none.1 - 1.0).abs() < 0.01,
            "{none:?}"
        );
    }

    #[test]
    fn spearman_ranks_with_ties() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
        let rho = spearman(&[1.0, 2.0, 2.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap_or(0.0);
        assert!((rho - 0.9486832980505138).abs() < 1e-12, "{rho}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Counting every examinee k times fits the same parameters, with standard errors
        /// shrunk by √k, and degenerate data (everyone right, or wrong) stays finite.
        #[test]
        fn weights_scale_the_evidence_not_the_estimates(
            scale in 2u32..6,
            all_right: bool,
        ) {
            let examinees = lsat7();
            let settings = FitSettings { tolerance: 1e-9, ..FitSettings::default() };
            let once = fit(&[0.0; 5], &examinees, &settings);
            let scaled: Vec<Examinee> = examinees
                .iter()
                .map(|e| Examinee { weight: e.weight * f64::from(scale), ..e.clone() })
                .collect();
            let many = fit(&[0.0; 5], &scaled, &settings);
            for (a, b) in once.items.iter().zip(&many.items) {
                prop_assert!((a.parameters.slope - b.parameters.slope).abs() < 1e-4);
                prop_assert!((a.parameters.intercept - b.parameters.intercept).abs() < 1e-4);
                let (sa, sb) = (
                    a.difficulty_standard_error.unwrap_or(0.0),
                    b.difficulty_standard_error.unwrap_or(0.0),
                );
                prop_assert!((sa / sb - f64::from(scale).sqrt()).abs() < 1e-3);
            }
            let uniform = vec![Examinee { weight: 10.0, responses: (0..3).map(|j| (j, all_right)).collect() }];
            let degenerate = fit(&[0.25, 0.0, 0.5], &uniform, &FitSettings::default());
            prop_assert!(degenerate.log_likelihood.is_finite());
            for item in &degenerate.items {
                prop_assert!(item.parameters.slope.is_finite() && item.parameters.intercept.is_finite());
                prop_assert!(item.parameters.difficulty().is_finite());
            }
        }
    }
}
