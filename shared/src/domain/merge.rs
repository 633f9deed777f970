//! Merging guests into an account (`POST /v1/auth/link` of a guest into an existing
//! account): how many an account may take in, and what a merged day adds to the boards.
//!
//! Every guest brings its own day: its attempts, hearts, reviews and cards. Without a
//! bound, guests played side by side and merged into one account would give it several
//! players' days on the weekly boards and in its league. So an account takes in at most
//! [`MERGES_PER_WINDOW`] guests in [`MERGE_WINDOW_DAYS`] days, each one after the first
//! is a fair-play signal ([`MERGE_SIGNAL_WEIGHT`]), and a day's merged XP counts on the
//! boards (and so in the leagues) only up to what one player can earn in a day
//! ([`crate::domain::rules::GameRules::daily_xp_ceiling`]), less what the account earned
//! itself that day. The account's lifetime XP keeps all of it: it follows the ledger.

/// Guests one account may take in within [`MERGE_WINDOW_DAYS`].
pub const MERGES_PER_WINDOW: usize = 3;
/// The window of [`MERGES_PER_WINDOW`], in days.
pub const MERGE_WINDOW_DAYS: i64 = 30;
/// What a merge after the first in the window adds to the account's week of fair-play
/// score: a third of the default hold score, so the account is queued for staff (as a
/// flagged player past a third of it is), and held at the third.
pub const MERGE_SIGNAL_WEIGHT: i64 = 10;

const DAY_MS: i64 = 86_400_000;

/// Whether an account may take in one more guest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// It may; `unusual` when it took another one in the window already.
    Admitted { unusual: bool },
    /// It took [`MERGES_PER_WINDOW`] in the window: the next may come at `retry_at_ms`.
    Refused { retry_at_ms: i64 },
}

/// The window's start for a merge at `now_ms`.
pub fn window_start(now_ms: i64) -> i64 {
    now_ms.saturating_sub(MERGE_WINDOW_DAYS * DAY_MS)
}

/// Judges one more merge at `now_ms` into an account whose merges in the window
/// happened at `recent` (any order).
pub fn admit(recent: &[i64], now_ms: i64) -> Admission {
    let start = window_start(now_ms);
    let mut inside: Vec<i64> = recent.iter().copied().filter(|&at| at >= start).collect();
    if inside.len() < MERGES_PER_WINDOW {
        return Admission::Admitted {
            unusual: !inside.is_empty(),
        };
    }
    inside.sort_unstable();
    // the merge that leaves the window first frees a place
    let oldest_that_must_leave = inside[inside.len() - MERGES_PER_WINDOW];
    Admission::Refused {
        retry_at_ms: oldest_that_must_leave + MERGE_WINDOW_DAYS * DAY_MS + 1,
    }
}

/// What a merged day's XP (`moved`) adds to the account's boards: up to the day's
/// `ceiling` less what the account earned itself that day (`own`), never below 0. XP
/// taken away (a negative day) moves whole.
pub fn board_xp(moved: i64, own: i64, ceiling: i64) -> i64 {
    if moved <= 0 {
        return moved;
    }
    moved.min(ceiling.saturating_sub(own.max(0)).max(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::rules::GameRules;
    use proptest::prelude::*;

    const NOW: i64 = 1_800_000_000_000;

    #[test]
    fn three_merges_a_month_the_second_and_third_unusual() {
        assert_eq!(admit(&[], NOW), Admission::Admitted { unusual: false });
        assert_eq!(
            admit(&[NOW - DAY_MS], NOW),
            Admission::Admitted { unusual: true }
        );
        let two = [NOW - 10 * DAY_MS, NOW - DAY_MS];
        assert_eq!(admit(&two, NOW), Admission::Admitted { unusual: true });
        let three = [NOW - 10 * DAY_MS, NOW - DAY_MS, NOW - 20 * DAY_MS];
        assert_eq!(
            admit(&three, NOW),
            Admission::Refused {
                retry_at_ms: NOW - 20 * DAY_MS + 30 * DAY_MS + 1
            }
        );
        // merges older than the window do not count
        let old = [NOW - 31 * DAY_MS, NOW - 40 * DAY_MS, NOW - 50 * DAY_MS];
        assert_eq!(admit(&old, NOW), Admission::Admitted { unusual: false });
    }

    #[test]
    fn a_merged_day_fills_the_boards_up_to_one_players_day() {
        assert_eq!(board_xp(300, 0, 910), 300);
        assert_eq!(board_xp(900, 200, 910), 710);
        assert_eq!(board_xp(900, 950, 910), 0);
        assert_eq!(board_xp(-20, 0, 910), -20);
        assert_eq!(board_xp(i64::MAX, i64::MIN, 910), 910);
    }

    #[test]
    fn the_default_ceiling_is_a_full_day_of_play() {
        // 13 challenges (10 attempts, 3 from ads) of 5 right answers at 10 XP, each
        // card opened at 3 XP, the first card's 15 and 50 of review
        assert_eq!(
            GameRules::default().daily_xp_ceiling(),
            13 * 5 * 13 + 15 + 50
        );
    }

    proptest! {
        #[test]
        fn the_boards_never_hold_more_than_a_players_day(
            moved in 0_i64..1_000_000, own in -1000_i64..1_000_000, ceiling in 0_i64..10_000,
        ) {
            let added = board_xp(moved, own, ceiling);
            prop_assert!(added >= 0 && added <= moved);
            prop_assert!(own.max(0) + added <= ceiling.max(own.max(0)));
        }

        #[test]
        fn never_more_than_three_in_a_window(
            ats in proptest::collection::vec(0_i64..(60 * DAY_MS), 0..8),
        ) {
            let recent: Vec<i64> = ats.iter().map(|a| NOW - a).collect();
            let inside = recent.iter().filter(|&&at| at >= window_start(NOW)).count();
            match admit(&recent, NOW) {
                Admission::Admitted { unusual } => {
                    prop_assert!(inside < MERGES_PER_WINDOW);
                    prop_assert_eq!(unusual, inside > 0);
                }
                Admission::Refused { retry_at_ms } => {
                    prop_assert!(inside >= MERGES_PER_WINDOW);
                    prop_assert!(retry_at_ms > NOW);
                    // at the retry instant one fewer is inside
                    let left = recent.iter().filter(|&&at| at >= window_start(retry_at_ms)).count();
                    prop_assert!(left < MERGES_PER_WINDOW);
                    let before = recent.iter().filter(|&&at| at >= window_start(retry_at_ms - 1)).count();
                    prop_assert!(before >= MERGES_PER_WINDOW);
                }
            }
        }
    }
}
