//! What the answers say about a question: accuracy, the median answer time, the classic
//! upper-lower discrimination index, and the flags that point staff at a broken
//! question. Pure: the statistics job feeds them the counts it keeps.

use crate::ids::PlayerId;
use std::cmp::Ordering;

use crate::closed_set::closed_set;

/// The thresholds of the flags (`RULE_*`, see the README).
#[derive(Clone, Debug, PartialEq)]
pub struct QualityRules {
    /// `RULE_STATS_MIN_ATTEMPTS`: no flag, and no discrimination, below this many attempts.
    pub min_attempts: i64,
    /// `RULE_TOO_EASY_ACCURACY`: `too_easy` above it.
    pub too_easy_accuracy: f64,
    /// `RULE_TOO_HARD_ACCURACY`: `too_hard` below it.
    pub too_hard_accuracy: f64,
    /// `RULE_DEAD_DISTRACTOR_RATE`: `dead_distractor` when a distractor's pick rate is
    /// below it …
    pub dead_distractor_rate: f64,
    /// `RULE_DEAD_DISTRACTOR_MIN_ATTEMPTS`: … over at least this many attempts.
    pub dead_distractor_min_attempts: i64,
    /// `RULE_DISCRIMINATION_FLOOR`: `negative_discrimination` below it.
    pub discrimination_floor: f64,
    /// `RULE_DISCRIMINATION_GROUP`: the share of players in each of the upper and lower
    /// groups of the discrimination index.
    pub discrimination_group: f64,
}

impl Default for QualityRules {
    fn default() -> Self {
        Self {
            min_attempts: 30,
            too_easy_accuracy: 0.95,
            too_hard_accuracy: 0.2,
            dead_distractor_rate: 0.02,
            dead_distractor_min_attempts: 50,
            discrimination_floor: 0.0,
            discrimination_group: 0.27,
        }
    }
}

closed_set! {
    /// A reason to look at a question.
    pub enum Flag in "flag" {
        /// Players pick a distractor more often than the answer: the key may be wrong.
        LikelyMiskeyed = "likely_miskeyed",
        /// The better players do worse on it than the weaker ones.
        NegativeDiscrimination = "negative_discrimination",
        TooHard = "too_hard",
        TooEasy = "too_easy",
        /// A distractor nobody falls for.
        DeadDistractor = "dead_distractor",
    }
}

/// [`Flag::ALL`] is every flag, the most serious first (the order of a question's flags).
impl Flag {
    /// How serious it is (the "needs attention" order): higher first.
    pub fn weight(self) -> i64 {
        match self {
            Self::LikelyMiskeyed => 16,
            Self::NegativeDiscrimination => 8,
            Self::TooHard => 4,
            Self::TooEasy => 2,
            Self::DeadDistractor => 1,
        }
    }
}

/// The flags as stored: their names joined by commas, most serious first; None for none.
pub fn flags_text(flags: &[Flag]) -> Option<String> {
    (!flags.is_empty()).then(|| {
        flags
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join(",")
    })
}

/// The flags stored by [`flags_text`] (unknown names are skipped).
pub fn parse_flags(text: Option<&str>) -> Vec<Flag> {
    text.unwrap_or_default()
        .split(',')
        .filter_map(Flag::parse)
        .collect()
}

/// The sum of the flags' weights: the "needs attention" order, worst first.
pub fn severity(flags: &[Flag]) -> i64 {
    flags.iter().map(|f| f.weight()).sum()
}

/// One option of a question version and how often it was picked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionPicks {
    pub is_correct: bool,
    pub picks: i64,
}

/// `correct ÷ attempts`, None without attempts.
pub fn rate(part: i64, attempts: i64) -> Option<f64> {
    (attempts > 0).then(|| part as f64 / attempts as f64)
}

/// The flags of a question version with these numbers, most serious first.
pub fn flags(
    attempts: i64,
    correct: i64,
    options: &[OptionPicks],
    discrimination: Option<f64>,
    rules: &QualityRules,
) -> Vec<Flag> {
    let Some(accuracy) = rate(correct, attempts).filter(|_| attempts >= rules.min_attempts) else {
        return Vec::new();
    };
    let key_picks = options
        .iter()
        .filter(|o| o.is_correct)
        .map(|o| o.picks)
        .max()
        .unwrap_or(0);
    let distractors = || options.iter().filter(|o| !o.is_correct);
    let mut flags = Vec::new();
    if distractors().any(|o| o.picks > key_picks) {
        flags.push(Flag::LikelyMiskeyed);
    }
    if discrimination.is_some_and(|d| d < rules.discrimination_floor) {
        flags.push(Flag::NegativeDiscrimination);
    }
    if accuracy < rules.too_hard_accuracy {
        flags.push(Flag::TooHard);
    }
    if accuracy > rules.too_easy_accuracy {
        flags.push(Flag::TooEasy);
    }
    if attempts >= rules.dead_distractor_min_attempts
        && distractors().any(|o| (o.picks as f64) < rules.dead_distractor_rate * attempts as f64)
    {
        flags.push(Flag::DeadDistractor);
    }
    flags
}

/// The median of the values counted in `histogram` (value, how many times; any order):
/// the middle value, or for an even count the mean of the two middle ones rounded down.
pub fn median(histogram: &[(i64, i64)]) -> Option<i64> {
    let mut sorted: Vec<(i64, i64)> = histogram.iter().copied().filter(|h| h.1 > 0).collect();
    sorted.sort_unstable();
    let n: i64 = sorted.iter().map(|h| h.1).sum();
    if n == 0 {
        return None;
    }
    // the values at 0-based positions (n - 1) / 2 and n / 2
    let (lo, hi) = ((n - 1) / 2, n / 2);
    let mut seen = 0;
    let mut lo_value = None;
    for (value, count) in sorted {
        seen += count;
        if lo_value.is_none() && seen > lo {
            lo_value = Some(value);
        }
        if seen > hi {
            let lo_value = lo_value.unwrap_or(value);
            return Some(lo_value + (value - lo_value) / 2);
        }
    }
    None
}

/// One player's answers to a question version, with their accuracy over all questions.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerAnswers {
    pub player_id: PlayerId,
    /// Right answers ÷ answers over every question the player answered.
    pub overall_accuracy: f64,
    pub attempts: i64,
    pub correct: i64,
}

/// The upper-lower discrimination index: the players who answered, ranked by overall
/// accuracy (highest first, ties by player id); the accuracy on this question of the top
/// `group` share (rounded down, at least one player) minus that of the bottom share.
/// None under `min_attempts` attempts or with fewer than two players.
pub fn discrimination(players: &[PlayerAnswers], group: f64, min_attempts: i64) -> Option<f64> {
    let attempts: i64 = players.iter().map(|p| p.attempts).sum();
    if attempts < min_attempts || players.len() < 2 {
        return None;
    }
    let mut ranked: Vec<&PlayerAnswers> = players.iter().collect();
    ranked.sort_by(|a, b| {
        b.overall_accuracy
            .partial_cmp(&a.overall_accuracy)
            .unwrap_or(Ordering::Equal)
            .then_with(|| a.player_id.cmp(&b.player_id))
    });
    let size = ((ranked.len() as f64 * group).floor() as usize).clamp(1, ranked.len() / 2);
    let accuracy = |g: &[&PlayerAnswers]| {
        let (a, c) = g
            .iter()
            .fold((0, 0), |(a, c), p| (a + p.attempts, c + p.correct));
        rate(c, a)
    };
    let upper = accuracy(&ranked[..size])?;
    let lower = accuracy(&ranked[ranked.len() - size..])?;
    Some(upper - lower)
}

/// When a version's players are read again (the discrimination index and card views
/// need every one of them): on every derive while it has fewer than
/// `always_below` attempts; past that, once its attempts have grown by
/// `growth_percent` since the last read, or the last read is `max_age_ms` old. So the
/// reads of a popular version cost amortised work per answer (each read follows at
/// least a tenth as many new answers as it reads players), not a full read per run.
pub fn players_read_due(
    attempts: i64,
    read_at_attempts: i64,
    read_at_ms: i64,
    now_ms: i64,
    rule: PlayersRead,
) -> bool {
    read_at_ms == 0
        || attempts < rule.always_below
        || attempts * 100 >= read_at_attempts * (100 + rule.growth_percent)
        || now_ms - read_at_ms >= rule.max_age_ms
}

/// The thresholds of [`players_read_due`].
#[derive(Clone, Copy, Debug)]
pub struct PlayersRead {
    pub always_below: i64,
    pub growth_percent: i64,
    pub max_age_ms: i64,
}

impl PlayersRead {
    pub const DEFAULT: Self = Self {
        always_below: 1000,
        growth_percent: 10,
        max_age_ms: 3_600_000,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(picks: &[(bool, i64)]) -> Vec<OptionPicks> {
        picks
            .iter()
            .map(|&(is_correct, picks)| OptionPicks { is_correct, picks })
            .collect()
    }

    #[test]
    fn no_flags_under_the_minimum_attempts() {
        let rules = QualityRules::default();
        let o = options(&[(true, 0), (false, 29)]);
        assert!(flags(29, 0, &o, Some(-1.0), &rules).is_empty());
        assert_eq!(
            flags(30, 0, &options(&[(true, 0), (false, 30)]), None, &rules),
            vec![Flag::LikelyMiskeyed, Flag::TooHard]
        );
    }

    #[test]
    fn accuracy_flags_at_their_thresholds() {
        let rules = QualityRules::default();
        let o = |c| options(&[(true, c), (false, 100 - c)]);
        // 0.95 is not above 0.95; 0.96 is
        assert!(!flags(100, 95, &o(95), None, &rules).contains(&Flag::TooEasy));
        assert!(flags(100, 96, &o(96), None, &rules).contains(&Flag::TooEasy));
        // 0.2 is not below 0.2; 0.19 is
        assert!(!flags(100, 20, &o(20), None, &rules).contains(&Flag::TooHard));
        assert!(flags(100, 19, &o(19), None, &rules).contains(&Flag::TooHard));
    }

    #[test]
    fn miskeyed_when_a_distractor_beats_the_key() {
        let rules = QualityRules::default();
        let tie = options(&[(true, 20), (false, 20), (false, 10)]);
        assert!(!flags(50, 20, &tie, None, &rules).contains(&Flag::LikelyMiskeyed));
        let beaten = options(&[(true, 20), (false, 21), (false, 9)]);
        assert!(flags(50, 20, &beaten, None, &rules).contains(&Flag::LikelyMiskeyed));
    }

    #[test]
    fn dead_distractor_needs_fifty_attempts() {
        let rules = QualityRules::default();
        // 0 picks of 49: too few attempts to judge
        let o = options(&[(true, 30), (false, 19), (false, 0)]);
        assert!(!flags(49, 30, &o, None, &rules).contains(&Flag::DeadDistractor));
        // 1 of 50 is 2 %: not below; 1 of 51 is
        let o = options(&[(true, 30), (false, 19), (false, 1)]);
        assert!(!flags(50, 30, &o, None, &rules).contains(&Flag::DeadDistractor));
        let o = options(&[(true, 31), (false, 19), (false, 1)]);
        assert!(flags(51, 31, &o, None, &rules).contains(&Flag::DeadDistractor));
    }

    #[test]
    fn negative_discrimination_below_the_floor() {
        let rules = QualityRules::default();
        let o = options(&[(true, 30), (false, 20)]);
        assert!(!flags(50, 30, &o, Some(0.0), &rules).contains(&Flag::NegativeDiscrimination));
        assert!(flags(50, 30, &o, Some(-0.01), &rules).contains(&Flag::NegativeDiscrimination));
    }

    #[test]
    fn flags_round_trip_and_order_by_severity() {
        let all = Flag::ALL.to_vec();
        assert_eq!(parse_flags(flags_text(&all).as_deref()), all);
        assert_eq!(flags_text(&[]), None);
        assert!(parse_flags(None).is_empty());
        assert!(severity(&[Flag::LikelyMiskeyed]) > severity(&all[1..]));
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[(5, 0)]), None);
        assert_eq!(median(&[(7, 1)]), Some(7));
        assert_eq!(median(&[(300, 1), (100, 1), (200, 1)]), Some(200));
        // 100, 200, 300, 400 → (200 + 300) / 2
        assert_eq!(median(&[(400, 1), (100, 1), (300, 1), (200, 1)]), Some(250));
        // 100, 100, 100, 901 → 100; 1, 2 → 1 (rounded down)
        assert_eq!(median(&[(100, 3), (901, 1)]), Some(100));
        assert_eq!(median(&[(1, 1), (2, 1)]), Some(1));
    }

    fn player(id: &str, overall: f64, attempts: i64, correct: i64) -> PlayerAnswers {
        PlayerAnswers {
            player_id: id.into(),
            overall_accuracy: overall,
            attempts,
            correct,
        }
    }

    #[test]
    fn discrimination_of_upper_and_lower_groups() {
        // 10 players: 2 in each group (27 % of 10, rounded down)
        let mut players: Vec<PlayerAnswers> = (0..10)
            .map(|i| player(&format!("p{i}"), f64::from(i) / 10.0, 3, 0))
            .collect();
        // the two best (p9, p8) answered right, the two worst (p0, p1) wrong
        players[9].correct = 3;
        players[8].correct = 3;
        assert_eq!(discrimination(&players, 0.27, 30), Some(1.0));
        // the reverse: negative
        players[9].correct = 0;
        players[8].correct = 0;
        players[0].correct = 3;
        players[1].correct = 1;
        let d = discrimination(&players, 0.27, 30).unwrap();
        assert!((d - -(4.0 / 6.0)).abs() < 1e-12, "{d}");
        // under 30 attempts: none
        assert_eq!(discrimination(&players[..9], 0.27, 30), None);
    }

    #[test]
    fn discrimination_ties_are_broken_by_player_id() {
        let players = vec![
            player("b", 0.5, 15, 15),
            player("a", 0.5, 15, 0),
            player("c", 0.5, 15, 0),
        ];
        // group of 1: upper = "a" (0 %), lower = "c" (0 %)
        assert_eq!(discrimination(&players, 0.27, 30), Some(0.0));
    }

    #[test]
    fn players_are_read_again_after_growth_or_an_hour() {
        let rule = PlayersRead::DEFAULT;
        let read_at = 1_000_000;
        // never read, or small: every derive
        assert!(players_read_due(5000, 0, 0, read_at, rule));
        assert!(players_read_due(999, 999, read_at, read_at, rule));
        // large: after 10 % more attempts
        assert!(!players_read_due(1000, 1000, read_at, read_at + 1, rule));
        assert!(!players_read_due(
            10_999,
            10_000,
            read_at,
            read_at + 1,
            rule
        ));
        assert!(players_read_due(11_000, 10_000, read_at, read_at + 1, rule));
        // or an hour after the last read
        assert!(!players_read_due(
            10_001,
            10_000,
            read_at,
            read_at + 3_599_999,
            rule
        ));
        assert!(players_read_due(
            10_001,
            10_000,
            read_at,
            read_at + 3_600_000,
            rule
        ));
    }
}
