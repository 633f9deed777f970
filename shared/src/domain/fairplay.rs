//! Fair-play signals of answers, timed by the server, and the weekly suspicion score
//! that holds a player off the boards others see. Nothing here bans anyone: speed
//! alone also describes fast humans, so a held player waits for staff.

use crate::closed_set::closed_set;

closed_set! {
    /// Where a player stands in fair play: `flagged` by signals, `held` off the boards
    /// others see (by the service or staff), `cleared` or `banned` by staff.
    pub enum FairPlayState in "fair-state" {
        Flagged = "flagged",
        Held = "held",
        Cleared = "cleared",
        Banned = "banned",
    }
}

closed_set! {
    /// A staff decision on a player.
    pub enum FairPlayDecision in "fair-decision" {
        Clear = "clear",
        Hold = "hold",
        Ban = "ban",
    }
}

impl FairPlayDecision {
    /// The state the decision leaves the player in.
    pub fn state(self) -> FairPlayState {
        match self {
            Self::Clear => FairPlayState::Cleared,
            Self::Hold => FairPlayState::Held,
            Self::Ban => FairPlayState::Banned,
        }
    }
}

/// The thresholds (`FAIRPLAY_*`, see the README).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FairPlayRules {
    /// `FAIRPLAY_MIN_MS`: an answer faster than this is too fast, whatever the question.
    pub min_ms: i64,
    /// `FAIRPLAY_MEDIAN_PERCENT`: … or faster than this share of the question's pace
    /// (the median of the times the server measured, see [`pace_sample`]), when it has
    /// one, never above [`PACE_FLOOR_CAP_MS`].
    pub median_percent: i64,
    /// `FAIRPLAY_PACE_MIN_PLAYERS`: a question's pace counts once this many players
    /// made it.
    pub pace_min_players: i64,
    /// `FAIRPLAY_CLAIM_TOLERANCE_MS`: a client may claim this much more time than the
    /// server saw pass (clock and network slack) before the claim is impossible.
    pub claim_tolerance_ms: i64,
    /// `FAIRPLAY_HOLD_SCORE`: a week's score at or above it holds the player.
    pub hold_score: i64,
}

impl Default for FairPlayRules {
    fn default() -> Self {
        Self {
            min_ms: 800,
            median_percent: 25,
            pace_min_players: 20,
            claim_tolerance_ms: 2000,
            hold_score: 30,
        }
    }
}

closed_set! {
    /// A signal raised by an answer or a challenge: `too_fast` (the server measured
    /// less than the question's fast bound), `time_claim_impossible` (the client claims
    /// more time than passed) or `fast_perfect` (a challenge all right, every answer
    /// too fast).
    pub enum Signal in "signal" {
        TooFast = "too_fast",
        TimeClaimImpossible = "time_claim_impossible",
        FastPerfect = "fast_perfect",
    }
}

impl Signal {
    /// Its bit in `challenge_answers.signals`.
    pub const fn bit(self) -> i64 {
        match self {
            Signal::TooFast => 1,
            Signal::TimeClaimImpossible => 2,
            Signal::FastPerfect => 4,
        }
    }

    /// What it adds to the week's suspicion score: a fast answer alone is weak
    /// evidence (a quick reader, an easy question); an impossible claim is a modified
    /// client; a whole challenge right and too fast is a script.
    pub const fn weight(self) -> i64 {
        match self {
            Signal::TooFast => 1,
            Signal::TimeClaimImpossible => 3,
            Signal::FastPerfect => 10,
        }
    }
}

/// The signals of a bit set.
pub fn signals_of(bits: i64) -> Vec<Signal> {
    Signal::ALL
        .into_iter()
        .filter(|s| bits & s.bit() != 0)
        .collect()
}

/// The score of a bit set of signals.
pub fn score_of(bits: i64) -> i64 {
    signals_of(bits).iter().map(|s| s.weight()).sum()
}

/// A challenge asked for again within this long of its last serving is not served
/// again: its answer times keep running from then (a client polling `next` writes
/// nothing; the first answer after it may look up to this much slower).
pub const SERVE_AGAIN_QUIET_MS: i64 = 10_000;

/// Whether an unfinished challenge asked for at `now_ms` is served again (its answer
/// times restart): not when it was served within [`SERVE_AGAIN_QUIET_MS`].
pub fn serves_again(served_at: Option<i64>, now_ms: i64) -> bool {
    served_at.is_none_or(|at| now_ms.saturating_sub(at) >= SERVE_AGAIN_QUIET_MS)
}

/// The server's time for an answer: since the later of when the session was served and
/// its previous answer (the questions are served together, answered one by one).
pub fn elapsed_ms(served_at: i64, last_answered_at: Option<i64>, now_ms: i64) -> i64 {
    (now_ms - last_answered_at.map_or(served_at, |a| a.max(served_at))).max(0)
}

/// An answer, as its signals are judged.
#[derive(Clone, Copy, Debug)]
pub struct TimedAnswer {
    /// What the server measured ([`elapsed_ms`]).
    pub elapsed_ms: i64,
    /// The longest time the client can have taken: since the challenge was first
    /// served or its previous answer (a challenge served again may have been on the
    /// screen since before).
    pub claim_window_ms: i64,
    /// What the client claims (`timeMs`).
    pub claimed_ms: i64,
    /// The question's pace (the median of the server's times of clean first answers),
    /// when enough players made it.
    pub median_ms: Option<i64>,
    pub correct: bool,
    /// The challenge's right answers before this one that were too fast.
    pub fast_correct_before: i64,
    /// This answer finishes the challenge of `total_questions`.
    pub finishes: bool,
    pub total_questions: i64,
}

/// What an answer raised: its bit set, and whether it counts as a fast right answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judged {
    pub signals: i64,
    pub fast_correct: bool,
}

/// The highest too-fast floor a question's pace alone can set (2 s): a pace is what
/// the players who answered made it, and patient ones (or many farmed accounts waiting
/// on purpose) must not make an honest quick reader's 3 s suspect. Only
/// `FAIRPLAY_MIN_MS` may set the floor higher.
pub const PACE_FLOOR_CAP_MS: i64 = 2_000;

/// The too-fast floor of a question: `FAIRPLAY_MIN_MS`, or the configured share of its
/// pace when that is higher, up to [`PACE_FLOOR_CAP_MS`].
pub fn too_fast_floor(pace_ms: Option<i64>, rules: &FairPlayRules) -> i64 {
    let from_pace = pace_ms.map_or(0, |m| {
        (m.max(0).saturating_mul(rules.median_percent) / 100).min(PACE_FLOOR_CAP_MS)
    });
    rules.min_ms.max(from_pace)
}

/// Whether an answer counts in the estimates others are judged by (question
/// statistics and flags, the too-fast bar, the learning engine's difficulties): only a
/// player in good standing (neither held, banned nor flagged) and an answer that raised
/// no signal. A farm of accounts or a script moves nobody else's numbers.
pub fn counts_in_estimates(clean_player: bool, signals: i64) -> bool {
    clean_player && signals == 0
}

/// The time an answer adds to its question's pace: the server's, of a counted answer
/// that is the player's first to the question (one per player, whatever they claim).
pub fn pace_sample(
    clean_player: bool,
    signals: i64,
    first_answer: bool,
    server_elapsed_ms: Option<i64>,
) -> Option<i64> {
    server_elapsed_ms.filter(|_| counts_in_estimates(clean_player, signals) && first_answer)
}

pub fn judge(a: TimedAnswer, rules: &FairPlayRules) -> Judged {
    let floor = too_fast_floor(a.median_ms, rules);
    let too_fast = a.elapsed_ms < floor;
    let impossible = a.claimed_ms > a.claim_window_ms.saturating_add(rules.claim_tolerance_ms);
    let fast_correct = a.correct && too_fast;
    let fast_perfect = a.finishes
        && fast_correct
        && a.fast_correct_before + 1 >= a.total_questions
        && a.total_questions > 0;
    let mut signals = 0;
    for (raised, s) in [
        (too_fast, Signal::TooFast),
        (impossible, Signal::TimeClaimImpossible),
        (fast_perfect, Signal::FastPerfect),
    ] {
        if raised {
            signals |= s.bit();
        }
    }
    Judged {
        signals,
        fast_correct,
    }
}

/// The review queue's order: held players first, then flagged ones, each by the week's
/// score.
pub const HELD_KEY: i64 = 2_000_000_000_000;
pub const FLAGGED_KEY: i64 = 1_000_000_000_000;

/// Where a player stands in the queue: held players always; flagged ones once their
/// week's score reaches a third of the hold score (a quick reader's stray fast answer
/// does not queue them); 0 off it. The answer's write computes the same in SQL
/// (`db::progress::write`, `fair_play_row!`).
pub fn queue_key(state: FairPlayState, week_score: i64, rules: &FairPlayRules) -> i64 {
    match state {
        FairPlayState::Held => HELD_KEY + week_score,
        FairPlayState::Flagged if week_score * 3 >= rules.hold_score => FLAGGED_KEY + week_score,
        _ => 0,
    }
}

/// Whether a week's score holds the player: at the threshold, counting only what came
/// after staff last cleared them that week (`cleared_score`).
pub fn holds(week_score: i64, cleared_score: i64, rules: &FairPlayRules) -> bool {
    week_score - cleared_score >= rules.hold_score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(elapsed_ms: i64) -> TimedAnswer {
        TimedAnswer {
            elapsed_ms,
            claim_window_ms: elapsed_ms,
            claimed_ms: 0,
            median_ms: None,
            correct: true,
            fast_correct_before: 0,
            finishes: false,
            total_questions: 5,
        }
    }

    #[test]
    fn too_fast_is_below_the_floor_or_a_quarter_of_the_median() {
        let rules = FairPlayRules::default();
        assert_eq!(judge(answer(799), &rules).signals, Signal::TooFast.bit());
        assert_eq!(judge(answer(800), &rules).signals, 0);
        // a slow question: a quarter of its 8 s median
        let slow = TimedAnswer {
            median_ms: Some(8000),
            ..answer(1999)
        };
        assert_eq!(judge(slow, &rules).signals, Signal::TooFast.bit());
        assert_eq!(
            judge(
                TimedAnswer {
                    elapsed_ms: 2000,
                    ..slow
                },
                &rules
            )
            .signals,
            0
        );
        // a quick question never lowers the floor
        let quick = TimedAnswer {
            median_ms: Some(1000),
            ..answer(799)
        };
        assert_eq!(judge(quick, &rules).signals, Signal::TooFast.bit());
    }

    #[test]
    fn a_pace_alone_never_makes_a_quick_reader_suspect() {
        let rules = FairPlayRules::default();
        // thirty patient (or farmed) players made a question's pace 20 s: an honest
        // reader's 3 s is no signal, a script's 1.5 s still is
        for pace in [20_000, 60_000, 600_000] {
            let honest = TimedAnswer {
                median_ms: Some(pace),
                ..answer(3000)
            };
            assert_eq!(judge(honest, &rules).signals, 0, "{pace}");
            let script = TimedAnswer {
                median_ms: Some(pace),
                ..answer(1500)
            };
            assert_eq!(judge(script, &rules).signals, Signal::TooFast.bit());
        }
        assert_eq!(too_fast_floor(Some(4000), &rules), 1000);
        assert_eq!(too_fast_floor(Some(-5), &rules), 800);
        assert_eq!(too_fast_floor(None, &rules), 800);
        // only the configured minimum may set a higher floor
        let strict = FairPlayRules {
            min_ms: 2500,
            ..rules
        };
        assert_eq!(too_fast_floor(Some(60_000), &strict), 2500);
    }

    #[test]
    fn only_clean_first_answers_make_a_pace() {
        assert_eq!(pace_sample(true, 0, true, Some(4000)), Some(4000));
        // a held, banned or flagged player; an answer with a signal; a second answer;
        // an answer the server did not time
        assert_eq!(pace_sample(false, 0, true, Some(4000)), None);
        assert_eq!(
            pace_sample(true, Signal::TooFast.bit(), true, Some(400)),
            None
        );
        assert_eq!(pace_sample(true, 0, false, Some(4000)), None);
        assert_eq!(pace_sample(true, 0, true, None), None);
        assert!(counts_in_estimates(true, 0));
        assert!(!counts_in_estimates(false, 0));
        assert!(!counts_in_estimates(
            true,
            Signal::TimeClaimImpossible.bit()
        ));
    }

    proptest::proptest! {
        /// Whatever a question's pace, an answer the server timed at 2 s or more (and
        /// at the configured minimum) raises no `too_fast`.
        #[test]
        fn no_pace_flags_an_answer_over_two_seconds(
            pace in proptest::option::of(proptest::num::i64::ANY),
            elapsed in 2_000_i64..3_600_000,
        ) {
            let rules = FairPlayRules::default();
            let a = TimedAnswer { median_ms: pace, ..answer(elapsed) };
            proptest::prop_assert_eq!(judge(a, &rules).signals & Signal::TooFast.bit(), 0);
        }
    }

    #[test]
    fn a_claim_beyond_what_passed_is_impossible() {
        let rules = FairPlayRules::default();
        let honest = TimedAnswer {
            claimed_ms: 5000,
            ..answer(4000)
        };
        assert_eq!(judge(honest, &rules).signals, 0);
        let forged = TimedAnswer {
            claimed_ms: 6001,
            ..answer(4000)
        };
        assert_eq!(
            judge(forged, &rules).signals,
            Signal::TimeClaimImpossible.bit()
        );
        // served again 1 s ago, on screen for 20 s before: a claim of 20 s is possible
        let resumed = TimedAnswer {
            claimed_ms: 20_000,
            claim_window_ms: 21_000,
            ..answer(1000)
        };
        assert_eq!(judge(resumed, &rules).signals, 0);
        // huge numbers neither overflow nor pass; a pace sets a floor of at most 2 s
        let huge = TimedAnswer {
            claimed_ms: i64::MAX,
            median_ms: Some(i64::MAX),
            ..answer(1999)
        };
        assert_eq!(
            judge(huge, &rules).signals,
            Signal::TooFast.bit() | Signal::TimeClaimImpossible.bit()
        );
        let capped = TimedAnswer {
            median_ms: Some(i64::MAX),
            ..answer(2000)
        };
        assert_eq!(judge(capped, &rules).signals, 0);
    }

    #[test]
    fn fast_perfect_needs_every_answer_right_and_too_fast() {
        let rules = FairPlayRules::default();
        let last = TimedAnswer {
            finishes: true,
            fast_correct_before: 4,
            ..answer(100)
        };
        let j = judge(last, &rules);
        assert_eq!(j.signals, Signal::TooFast.bit() | Signal::FastPerfect.bit());
        assert!(j.fast_correct);
        // one earlier answer was slow, or this one is wrong
        let j = judge(
            TimedAnswer {
                fast_correct_before: 3,
                ..last
            },
            &rules,
        );
        assert_eq!(j.signals, Signal::TooFast.bit());
        let j = judge(
            TimedAnswer {
                correct: false,
                ..last
            },
            &rules,
        );
        assert_eq!(j.signals, Signal::TooFast.bit());
        assert!(!j.fast_correct);
    }

    #[test]
    fn elapsed_runs_from_the_later_of_serving_and_the_last_answer() {
        assert_eq!(elapsed_ms(1000, None, 4000), 3000);
        assert_eq!(elapsed_ms(1000, Some(3500), 4000), 500);
        // served again after the last answer
        assert_eq!(elapsed_ms(3800, Some(3500), 4000), 200);
        assert_eq!(elapsed_ms(5000, None, 4000), 0);
    }

    #[test]
    fn scores_and_holds() {
        let all = Signal::TooFast.bit() | Signal::FastPerfect.bit();
        assert_eq!(score_of(all), 11);
        assert_eq!(signals_of(all), vec![Signal::TooFast, Signal::FastPerfect]);
        let rules = FairPlayRules::default();
        assert!(!holds(29, 0, &rules));
        assert!(holds(30, 0, &rules));
        // cleared at 30: only new signals count
        assert!(!holds(45, 30, &rules));
        assert!(holds(60, 30, &rules));
    }
}
