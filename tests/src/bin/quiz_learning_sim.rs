//! The learning simulator's report (see `tests::learning_sim`): prints the "Learning"
//! section of BENCHMARKS.md as markdown. `quiz_learning_sim [SEED]` (default 2026).

use shared::domain::irt::{self, Examinee, FitSettings, IrtModel};
use tests::learning_sim::{adaptive, estimation};
use tests::memory_sim::{World, memory};

/// mirt's fit of LSAT7 (slope-intercept form).
const MIRT_SLOPES: [f64; 5] = [0.988, 1.081, 1.707, 0.765, 0.736];
const MIRT_INTERCEPTS: [f64; 5] = [1.856, 0.808, 1.805, 0.486, 1.854];
const MIRT_LOG_LIKELIHOOD: f64 = -2658.805;

fn lsat() -> String {
    let csv = include_str!("../../../shared/src/domain/data/lsat7.csv");
    let examinees: Vec<Examinee> = csv
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<f64> = line
                .split(',')
                .map(|c| c.trim().parse().unwrap_or(0.0))
                .collect();
            Examinee {
                weight: cells[5],
                responses: (0..5).map(|k| (k, cells[k] == 1.0)).collect(),
            }
        })
        .collect();
    let fit = irt::fit(
        &[0.0; 5],
        &examinees,
        &FitSettings {
            model: IrtModel::TwoPl,
            ..FitSettings::default()
        },
    );
    let mut out = format!(
        "| | log-likelihood | a1 | a2 | a3 | a4 | a5 | d1 | d2 | d3 | d4 | d5 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n| mirt | {MIRT_LOG_LIKELIHOOD:.3} |"
    );
    for a in MIRT_SLOPES {
        out += &format!(" {a:.3} |");
    }
    for d in MIRT_INTERCEPTS {
        out += &format!(" {d:.3} |");
    }
    out += &format!("\n| this fit | {:.3} |", fit.log_likelihood);
    for i in &fit.items {
        out += &format!(" {:.3} |", i.parameters.slope);
    }
    for i in &fit.items {
        out += &format!(" {:.3} |", i.parameters.intercept);
    }
    out += &format!(
        "\n\n{} EM iterations, converged: {}. The same numbers come back through HTTP: \
         `cargo test -p tests --test integration -- learning::lsat` plays the 1,000 \
         examinees as guests and reads `GET /v1/admin/calibration`.\n",
        fit.iterations, fit.converged
    );
    out
}

fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2026);
    let e = estimation(seed, 300, 450, 25);
    let groups = [-1.5, 0.0, 1.5];
    let on = adaptive(seed, 300, &groups, 50, 20, true, 0.75);
    let off = adaptive(seed, 300, &groups, 50, 20, false, 0.75);
    println!(
        "Seed {seed}. The truth: 2PL with a guessing floor of 1/4 (four options), difficulties \
         uniform on [−3, 3], slopes log-normal around 1, skills N(0, 1); an author's 1-5 is the \
         true difficulty blurred by N(0, 1). Everything below runs through the service's own \
         `domain::skill`, `domain::irt` and `domain::pick`.\n"
    );
    println!(
        "**Recovery** ({} questions, {} players × 25 random questions, the last 20 % of each \
         held out: {:.1} learned answers per question). Spearman correlation with the true \
         difficulty:\n",
        e.questions, e.players, e.answers_per_question
    );
    println!("| estimate | Spearman ρ | goal |\n|---|---|---|");
    println!("| author's 1-5 | {:.3} | |", e.authored_recovery);
    println!(
        "| share of wrong answers (reference: what the answers tell without who gave them) | {:.3} | |",
        e.share_wrong_recovery
    );
    println!(
        "| ceiling: maximum likelihood knowing every player's true skill and each slope | {:.3} | |",
        e.oracle_recovery
    );
    println!("| Elo alone | {:.3} | ≥ 0.95 |", e.elo_recovery);
    println!(
        "| after calibration, `IRT_MODEL=2pl` (c = 1/4) | {:.3} | ≥ 0.95 |",
        e.calibrated_recovery
    );
    println!(
        "| after calibration, `IRT_MODEL=1pl` (c = 1/4) | {:.3} | ≥ 0.95 |\n",
        e.calibrated_recovery_1pl
    );
    println!(
        "Thirty answers of randomly chosen players do not hold a ranking better than ρ = {:.3}: \
         that is what maximum likelihood reaches even knowing every player's true skill and \
         every slope. The goal of 0.95 is beyond these answers; Elo reaches the ceiling ({:.3}) \
         because it also starts from the author's 1-5. The 2PL fit spends 30 answers on two \
         parameters a question and is the noisiest; the 1PL fit is near the ceiling.\n",
        e.oracle_recovery, e.elo_recovery
    );
    println!(
        "**Prediction** of the {} held-out answers (each player's last 20 %, predicted before \
         the answer and never learned from):\n",
        e.held_out
    );
    println!("| model | log loss | AUC |\n|---|---|---|");
    println!(
        "| Elo (skill and difficulty) | {:.4} | {:.4} |",
        e.elo.0, e.elo.1
    );
    println!(
        "| per-question average | {:.4} | {:.4} |",
        e.question_average.0, e.question_average.1
    );
    println!("| constant | {:.4} | {:.4} |\n", e.constant.0, e.constant.1);
    println!(
        "**Calibration** of Elo's predictions: mean squared gap between predicted and \
         observed success by decile {:.5} (goal ≤ 0.0009, i.e. 0.03²).\n",
        e.elo_decile_gap
    );
    println!(
        "**Adaptive pick** (§3): a calibrated track of 300 questions, 50 simulated players per \
         group, 20 challenges of 5 each, skill estimated by Elo from 0 as the service does; \
         accuracy over the 100 answers (goal 0.75 ± 0.06 with `ADAPTIVE_PICK=true`, groups \
         more than 0.3 apart with `false`):\n"
    );
    println!("| true skill | adaptive | random (`ADAPTIVE_PICK=false`) |\n|---|---|---|");
    for ((skill, a), (_, r)) in on.groups.iter().zip(&off.groups) {
        println!("| {skill:+.1} | {a:.3} | {r:.3} |");
    }
    println!("| spread | {:.3} | {:.3} |\n", on.spread(), off.spread());
    println!("**LSAT7** (Bock & Lieberman; 2PL without guessing, 61 points on [−6, 6]):\n");
    println!("{}", lsat());
    println!("{}", memory_report());
}

/// The seeds the memory section is run on (issue 54: mean and worst of five).
const MEMORY_SEEDS: [u64; 5] = [2026, 7, 1, 2, 3];

/// The memory simulation's section (issue 31, spaced review; issue 54: five seeds, the
/// true recall's line, a second world FSRS did not make, RMSE by bins).
fn memory_report() -> String {
    let mut out = String::from(
        "**Memory** (spaced review, FSRS): 100 simulated players, a track of 60 questions, 60 \
         days, on five seeds (2026, 7, 1, 2, 3); each player answers a 5-question challenge a \
         day and a review challenge picked by the service's `domain::memory::pick_reviews` \
         with the default parameters; each player's last 20 % of later answers held out by \
         time and predicted from the history before each. A player's own parameters are \
         fitted on the rest as the `review_fit` job fits them (`domain::memory::fit_checked`: \
         the crate's optimizer on all but the last fifth, adopted only when it beats the \
         defaults there by two standard errors). Two worlds: *FSRS*, where each player \
         forgets by the FSRS-6 curve with their own parameters (the defaults with the \
         initial stabilities, the stability growth and the decay scaled by a log-normal \
         factor, σ = 0.4), and *ACT-R*, which FSRS did not make: the activation model with \
         the spacing effect of Pavlik & Anderson (2005), each player with their own decay \
         rate and each question its own threshold (`tests/src/memory_sim.rs`). Log loss as \
         mean and worst of the five seeds; AUC and RMSE by 20 bins of the prediction as \
         means.\n\n",
    );
    for (world, name) in [(World::Fsrs, "FSRS"), (World::ActR, "ACT-R")] {
        let runs: Vec<_> = MEMORY_SEEDS
            .iter()
            .map(|&seed| memory(seed, world, 100, 60, 60))
            .collect();
        let mean = |f: &dyn Fn(&tests::memory_sim::MemoryReport) -> f64| {
            runs.iter().map(f).sum::<f64>() / runs.len() as f64
        };
        let worst = |f: &dyn Fn(&tests::memory_sim::MemoryReport) -> f64| {
            runs.iter().map(f).fold(f64::MIN, f64::max)
        };
        let held_out: usize = runs.iter().map(|r| r.held_out).sum();
        let fitted: usize = runs.iter().map(|r| r.fitted_players).sum();
        out += &format!(
            "*{name} world* ({held_out} held-out answers over the five seeds; {fitted} of {} \
             players' own fits adopted):\n\n",
            runs.len() * 100
        );
        out += "| model | log loss, mean | log loss, worst seed | AUC | RMSE (bins) |\n|---|---|---|---|---|\n";
        type Line = fn(&tests::memory_sim::MemoryReport) -> (f64, f64, f64);
        let lines: [(&str, Line); 5] = [
            ("the true recall (the world's own probability)", |r| r.truth),
            ("FSRS, each player's own parameters where adopted", |r| {
                r.fsrs_fitted
            }),
            ("FSRS, default parameters", |r| r.fsrs_default),
            (
                "half-life regression (Settles & Meeder 2016, fitted on every player's first 80 %)",
                |r| r.half_life,
            ),
            ("constant (the first 80 %'s share right)", |r| r.constant),
        ];
        for (label, line) in lines {
            out += &format!(
                "| {label} | {:.4} | {:.4} | {:.4} | {:.4} |\n",
                mean(&|r| line(r).0),
                worst(&|r| line(r).0),
                mean(&|r| line(r).1),
                mean(&|r| line(r).2),
            );
        }
        let gap = |a: Line, b: Line| (mean(&|r| a(r).0 - b(r).0), worst(&|r| a(r).0 - b(r).0));
        let (own_vs_default, own_vs_default_worst) = gap(|r| r.fsrs_fitted, |r| r.fsrs_default);
        let (own_vs_truth, own_vs_truth_worst) = gap(|r| r.fsrs_fitted, |r| r.truth);
        let (own_vs_hlr, own_vs_hlr_worst) = gap(|r| r.fsrs_fitted, |r| r.half_life);
        let (own_vs_constant, own_vs_constant_worst) = gap(|r| r.fsrs_fitted, |r| r.constant);
        // the goals: in FSRS's world near the truth, in the other ahead of the
        // baselines by 0.02; never worse than the defaults in either
        let (truth_goal, baseline_goal) = match world {
            World::Fsrs => ("; goal ≤ 0.005", ""),
            World::ActR => ("", "; goal ≤ −0.02"),
        };
        out += &format!(
            "\nOwn parameters minus: the defaults {own_vs_default:+.4} (worst seed \
             {own_vs_default_worst:+.4}; goal ≤ 0 on every seed), the true recall \
             {own_vs_truth:+.4} (worst {own_vs_truth_worst:+.4}{truth_goal}), half-life \
             regression {own_vs_hlr:+.4} (worst {own_vs_hlr_worst:+.4}{baseline_goal}), the \
             constant {own_vs_constant:+.4} (worst {own_vs_constant_worst:+.4}{baseline_goal}).\n\n"
        );
        let below_constant = mean(&|r| (r.constant.0 - r.fsrs_fitted.0) / r.constant.0);
        let hlr_below_constant = mean(&|r| (r.constant.0 - r.half_life.0) / r.constant.0);
        out += &format!(
            "Relative to the constant, own-parameter FSRS is {:.0} % lower in log loss and \
             half-life regression {:.0} % lower.\n\n",
            100.0 * below_constant,
            100.0 * hlr_below_constant
        );
        out += &format!(
            "Review challenges: {:.3} of the questions they served were in the player's \
             reviews (due, or answered wrong) when served (goal ≥ 0.9); {:.3} of due times \
             were met within a day (one review of at most 5 a day, mistakes first); the mean \
             true recall of what they served was {:.3} (retention target 0.9: the most \
             forgotten come first).\n\n",
            mean(&|r| r.served_while_due),
            mean(&|r| r.due_reviewed_within_a_day),
            mean(&|r| r.recall_when_reviewed),
        );
    }
    out += "How this compares with the open srs-benchmark (FSRS-6 binary about 10 % below \
            the constant in log loss on 350M Anki reviews): only orderings and relative gains \
            compare, not absolute losses, which depend on the world and the review schedule \
            (a simulated world with a known truth is less noisy than Anki's reviews, so the \
            relative gains here are larger). There, as here in both worlds, FSRS is ahead of \
            half-life regression and of the constant.\n";
    out
}
