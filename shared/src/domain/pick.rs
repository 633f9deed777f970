//! Which questions a new challenge gets, in work that does not grow with the pool.
//!
//! Every question carries a random key fixed at creation ([`new_key`]). A pick draws a
//! random start on the circle of keys and reads, per category of the track, at most
//! [`WINDOW`] questions from the start on (wrapping past the largest key): an index range
//! scan, whatever the pool's size. Of those, the [`WINDOW`] nearest the start form the
//! window; the questions the player has not answered correctly come first, each group in
//! random order. A pool of at most [`WINDOW`] questions is read whole, so there the pick
//! is exactly "unanswered first, random otherwise".
//!
//! The adaptive pick ([`choose_adaptive`], `ADAPTIVE_PICK`) reads the same window and,
//! where a category has more questions than the window, also the questions near the
//! difficulty the player should meet: [`PER_BAND`] from the same start in each band of
//! difficulty ([`band`], [`BAND_WIDTH`] wide) within [`NEAR_BANDS`] of the target's
//! ([`near_bands`]), again index range scans. A random window of 64 in a bank of
//! thousands holds a handful of questions near any one difficulty, and a player who has
//! answered those right needs others; the bands give them. It keeps the rule of
//! `operations.md` §6 first: of everything read, the questions the player has not
//! answered correctly (never answered, or answered wrong) come before those answered
//! right, which fill a challenge only when fewer others than its questions were read.
//! Within each group, the questions whose predicted success for the player is nearest
//! `TARGET_SUCCESS` come first. The last place goes to a question without a fitted
//! difficulty that the player has never answered, while the read has one predicted
//! within [`EXPLORE_WITHIN`] of the target, so new questions get the first answers that
//! calibrate them from the players they suit (never answered, such a question belongs to
//! the first group: the rule holds). Without that bound the place went to whichever
//! uncalibrated question was nearest, however far: questions at the bank's ends, which
//! few players meet, stay uncalibrated longest, and a weak player's fifth question was
//! then one they answered right about a third of the time (the simulator through the
//! service: one question in five uncalibrated, their true chance 0.38 for players of
//! skill −1.5).

use rand::Rng;
use rand::seq::SliceRandom;

/// Keys are drawn from `0..KEY_RANGE`.
pub const KEY_RANGE: i64 = i32::MAX as i64;
/// How many questions one pick considers.
pub const WINDOW: usize = 64;
/// The width of a band of difficulty, on the skill scale (logits).
pub const BAND_WIDTH: f64 = 0.5;
/// The bands read on each side of the target's band.
pub const NEAR_BANDS: i32 = 2;
/// The questions read from each band.
pub const PER_BAND: usize = 12;
/// How far from the target an uncalibrated question's predicted success may be for it
/// to take the exploration place.
pub const EXPLORE_WITHIN: f64 = 0.15;
/// Difficulties are clamped to ± this before their band is taken (a corrupted value
/// still falls in a band).
const BAND_CLAMP: f64 = 60.0;

/// The band of a difficulty b: ⌊b / [`BAND_WIDTH`]⌋, b clamped to ±60 (a non-finite b
/// as 0). The column `questions.pick_band` is this of the difficulty the pick reads,
/// computed by the database (migration 0037 writes the same formula for each engine).
pub fn band(difficulty: f64) -> i32 {
    let b = if difficulty.is_finite() {
        difficulty.clamp(-BAND_CLAMP, BAND_CLAMP)
    } else {
        0.0
    };
    (b / BAND_WIDTH).floor() as i32
}

/// The bands the pick's second read covers for a player whose target difficulty is
/// `target_difficulty` (`domain::skill::target_difficulty`).
pub fn near_bands(target_difficulty: f64) -> std::ops::RangeInclusive<i32> {
    let centre = band(target_difficulty);
    centre - NEAR_BANDS..=centre + NEAR_BANDS
}

/// A random key for a new question, or a random start for a pick.
pub fn new_key() -> i64 {
    rand::rng().random_range(0..KEY_RANGE)
}

/// A question read for a pick.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate<T> {
    pub question: T,
    pub key: i64,
    /// The player has answered it before (its answer then measures memory, not
    /// difficulty).
    pub answered: bool,
    pub answered_correctly: bool,
    /// The predicted chance that the player answers it right (`domain::skill`); only
    /// the adaptive pick reads it.
    pub success: f64,
    /// Its difficulty comes from a fit, not only from Elo's steps or its author.
    pub calibrated: bool,
}

/// The `n` questions of a challenge from the candidates read at `start` (see the module
/// documentation); fewer when fewer were read.
pub fn choose<T, R: Rng + ?Sized>(
    mut candidates: Vec<Candidate<T>>,
    start: i64,
    n: usize,
    rng: &mut R,
) -> Vec<T> {
    candidates.sort_by_key(|c| (c.key - start).rem_euclid(KEY_RANGE));
    candidates.truncate(WINDOW);
    candidates.shuffle(rng);
    // stable: the random order stays within each group
    candidates.sort_by_key(|c| c.answered_correctly);
    candidates.into_iter().take(n).map(|c| c.question).collect()
}

/// The `n` questions of an adaptive challenge from the candidates read at `start` and
/// the questions read near the target (`near`, possibly some of the same): the window
/// as [`choose`] takes it, then every near question not already in it; those not
/// answered correctly first, each group ordered by the distance of its predicted success
/// from `target` (ties in random order). When none of the chosen is an exploration
/// question (no fitted difficulty, never answered by the player) and the rest of the
/// read holds one predicted within [`EXPLORE_WITHIN`] of `target`, the nearest of those
/// takes the last place; never answered, it is of
/// the first group, so it never goes before a question of that group that it displaces
/// out of turn: the rule holds.
pub fn choose_adaptive<T: PartialEq, R: Rng + ?Sized>(
    mut candidates: Vec<Candidate<T>>,
    near: Vec<Candidate<T>>,
    start: i64,
    n: usize,
    target: f64,
    rng: &mut R,
) -> Vec<T> {
    candidates.sort_by_key(|c| (c.key - start).rem_euclid(KEY_RANGE));
    candidates.truncate(WINDOW);
    for c in near {
        if !candidates.iter().any(|w| w.question == c.question) {
            candidates.push(c);
        }
    }
    candidates.shuffle(rng);
    let distance = |c: &Candidate<T>| {
        let d = (c.success - target).abs();
        if d.is_finite() { d } else { f64::MAX }
    };
    // stable: equal distances stay in random order
    candidates.sort_by(|a, b| {
        a.answered_correctly
            .cmp(&b.answered_correctly)
            .then(distance(a).total_cmp(&distance(b)))
    });
    let explores = |c: &Candidate<T>| !c.calibrated && !c.answered;
    let mut rest = candidates.split_off(n.min(candidates.len()));
    let mut chosen = candidates;
    if n > 0
        && chosen.len() == n
        && !chosen.iter().any(explores)
        && let Some(at) = rest.iter().position(explores)
        && distance(&rest[at]) <= EXPLORE_WITHIN
    {
        chosen[n - 1] = rest.swap_remove(at);
    }
    chosen.into_iter().map(|c| c.question).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn candidate(id: u32, key: i64, answered_correctly: bool) -> Candidate<u32> {
        Candidate {
            question: id,
            key,
            answered: answered_correctly,
            answered_correctly,
            success: 0.5,
            calibrated: true,
        }
    }

    fn rated(id: u32, success: f64, calibrated: bool, answered_correctly: bool) -> Candidate<u32> {
        Candidate {
            success,
            calibrated,
            ..candidate(id, i64::from(id), answered_correctly)
        }
    }

    #[test]
    fn the_adaptive_pick_takes_the_predictions_nearest_the_target() {
        let pool: Vec<_> = (0..40)
            .map(|i| rated(i, f64::from(i) / 40.0, true, false))
            .collect();
        let mut picked =
            choose_adaptive(pool, Vec::new(), 0, 5, 0.75, &mut StdRng::seed_from_u64(1));
        picked.sort_unstable();
        // 30/40 = 0.75; then 29 and 31, 28 and 32
        assert_eq!(picked, vec![28, 29, 30, 31, 32]);
    }

    #[test]
    fn the_adaptive_pick_serves_questions_not_answered_correctly_first() {
        // the case of a track of 12 after a perfect challenge: 5 answered right and
        // nearest the target, 7 never answered and far from it
        let mut pool: Vec<_> = (0..5).map(|i| rated(i, 0.75, true, true)).collect();
        pool.extend((5..12).map(|i| rated(i, 0.2 + f64::from(i) / 100.0, true, false)));
        let mut picked = choose_adaptive(
            pool.clone(),
            Vec::new(),
            0,
            5,
            0.75,
            &mut StdRng::seed_from_u64(2),
        );
        picked.sort_unstable();
        // the five of the seven nearest the target
        assert_eq!(picked, vec![7, 8, 9, 10, 11]);
        // only three not answered correctly: answered ones fill, the nearest first
        pool.truncate(8);
        for (i, success) in [(0, 0.1), (3, 0.3), (4, 0.2)] {
            pool[i].success = success;
        }
        let mut picked =
            choose_adaptive(pool, Vec::new(), 0, 5, 0.75, &mut StdRng::seed_from_u64(2));
        picked[3..].sort_unstable();
        assert!(
            picked[..3].iter().all(|id| (5..8).contains(id)),
            "{picked:?}"
        );
        assert_eq!(picked[3..], [1, 2]);
    }

    #[test]
    fn the_exploration_place_keeps_the_rule() {
        // five unanswered calibrated questions, and an uncalibrated one answered right:
        // the exploration place does not put an answered question before them
        let mut pool: Vec<_> = (0..5).map(|i| rated(i, 0.75, true, false)).collect();
        pool.push(rated(98, 0.75, false, true));
        let picked = choose_adaptive(
            pool.clone(),
            Vec::new(),
            0,
            5,
            0.75,
            &mut StdRng::seed_from_u64(5),
        );
        assert!(!picked.contains(&98));
        // an uncalibrated question answered wrong before: its answer no longer calibrates
        pool.pop();
        let mut wrong = rated(97, 0.2, false, false);
        wrong.answered = true;
        pool.push(wrong);
        let picked = choose_adaptive(
            pool.clone(),
            Vec::new(),
            0,
            5,
            0.75,
            &mut StdRng::seed_from_u64(5),
        );
        assert!(!picked.contains(&97));
        // an unanswered uncalibrated one near enough takes the last place
        pool.push(rated(99, 0.62, false, false));
        let picked = choose_adaptive(pool, Vec::new(), 0, 5, 0.75, &mut StdRng::seed_from_u64(5));
        assert_eq!(picked[4], 99);
    }

    proptest::proptest! {
        /// Whatever the predictions (NaN included), the challenge's size and which
        /// questions the near read brings (some beyond the window, some already in it):
        /// every question read not answered correctly comes before any answered
        /// correctly, each group is ordered by distance from the target except the last
        /// place, which goes to the nearest exploration question when none was chosen
        /// and the read has one within [`EXPLORE_WITHIN`] of the target.
        #[test]
        fn the_rule_holds_for_any_predictions(
            pool in proptest::collection::vec(
                (
                    proptest::prop_oneof![9 => 0.0f64..1.0, 1 => proptest::strategy::Just(f64::NAN)],
                    proptest::bool::ANY,
                    proptest::bool::ANY,
                    proptest::bool::ANY,
                    proptest::bool::ANY,
                ),
                0..120,
            ),
            n in 0usize..9,
            seed in 0u64..1000,
        ) {
            let pool: Vec<_> = pool
                .into_iter()
                .enumerate()
                .map(|(i, (success, calibrated, answered, right, near))| (Candidate {
                    question: i,
                    key: i as i64,
                    answered: answered || right,
                    answered_correctly: right,
                    success,
                    calibrated,
                }, near))
                .collect();
            let near: Vec<_> = pool.iter().filter(|(_, near)| *near).map(|(c, _)| c.clone()).collect();
            let pool: Vec<_> = pool.into_iter().map(|(c, _)| c).collect();
            // what the pick considers: the window, and the near read's others
            let read: Vec<usize> = (0..pool.len())
                .filter(|&i| i < WINDOW || near.iter().any(|c| c.question == i))
                .collect();
            let target = 0.75;
            let picked = choose_adaptive(pool.clone(), near, 0, n, target, &mut StdRng::seed_from_u64(seed));
            proptest::prop_assert_eq!(picked.len(), read.len().min(n));
            proptest::prop_assert!(picked.iter().all(|i| read.contains(i)), "{picked:?}");
            let unique: std::collections::HashSet<_> = picked.iter().collect();
            proptest::prop_assert_eq!(unique.len(), picked.len());
            let right = |i: usize| pool[i].answered_correctly;
            let explores = |i: usize| !pool[i].calibrated && !pool[i].answered;
            let distance = |i: usize| {
                let d = (pool[i].success - target).abs();
                if d.is_finite() { d } else { f64::MAX }
            };
            // not answered correctly first, in the order of the picked list
            let first_right = picked.iter().position(|&i| right(i)).unwrap_or(picked.len());
            proptest::prop_assert!(picked[first_right..].iter().all(|&i| right(i)), "{picked:?}");
            let not_right = read.iter().filter(|&&i| !right(i)).count();
            proptest::prop_assert_eq!(first_right, not_right.min(picked.len()));
            // an exploration question is chosen whenever the read has one near enough
            if n > 0 && read.iter().any(|&i| explores(i) && distance(i) <= EXPLORE_WITHIN) {
                proptest::prop_assert!(picked.iter().any(|&i| explores(i)), "{picked:?}");
            }
            // the places before the last are the nearest of their group, in order, and
            // none of the read's left-outs of a group is nearer than its chosen ones
            let body = &picked[..picked.len().saturating_sub(1)];
            for pair in body.windows(2) {
                if right(pair[0]) == right(pair[1]) {
                    proptest::prop_assert!(distance(pair[0]) <= distance(pair[1]), "{picked:?}");
                }
            }
            for &i in body {
                for &j in read.iter().filter(|j| !picked.contains(j) && right(**j) == right(i)) {
                    proptest::prop_assert!(distance(i) <= distance(j), "{i} {j} {picked:?}");
                }
            }
            // a swapped-in explorer is the nearest of the left-out explorers
            if let Some(&last) = picked.last()
                && explores(last)
                && !body.iter().any(|&i| explores(i))
            {
                for &j in read.iter().filter(|&&j| explores(j) && !picked.contains(&j)) {
                    proptest::prop_assert!(distance(last) <= distance(j));
                }
            }
        }
    }

    #[test]
    fn the_near_read_brings_questions_beyond_the_window() {
        // a window of questions far from the target, and near ones beyond it (one also
        // in the window, read twice)
        let window: Vec<_> = (0..WINDOW as u32)
            .map(|i| rated(i, 0.3, true, false))
            .collect();
        let mut near: Vec<_> = (500..510).map(|i| rated(i, 0.74, true, false)).collect();
        near.push(rated(3, 0.3, true, false));
        let picked = choose_adaptive(window, near, 0, 5, 0.75, &mut StdRng::seed_from_u64(6));
        assert_eq!(picked.len(), 5);
        assert!(
            picked.iter().all(|&q| (500..510).contains(&q)),
            "{picked:?}"
        );
        // the rule first: near questions answered right come after the window's others
        let window: Vec<_> = (0..WINDOW as u32)
            .map(|i| rated(i, 0.3, true, false))
            .collect();
        let near: Vec<_> = (500..510).map(|i| rated(i, 0.75, true, true)).collect();
        let picked = choose_adaptive(window, near, 0, 5, 0.75, &mut StdRng::seed_from_u64(6));
        assert!(picked.iter().all(|&q| q < WINDOW as u32), "{picked:?}");
    }

    #[test]
    fn bands_are_half_a_logit_wide_and_bounded() {
        assert_eq!(band(0.0), 0);
        assert_eq!(band(0.49), 0);
        assert_eq!(band(0.5), 1);
        assert_eq!(band(-0.01), -1);
        assert_eq!(band(-2.2), -5);
        assert_eq!(band(1e9), 120);
        assert_eq!(band(-1e9), -120);
        assert_eq!(band(f64::NAN), 0);
        assert_eq!(near_bands(-2.2), -7..=-3);
    }

    #[test]
    fn the_adaptive_pick_keeps_one_uncalibrated_question() {
        let mut pool: Vec<_> = (0..20).map(|i| rated(i, 0.75, true, false)).collect();
        pool.push(rated(99, 0.62, false, false));
        let picked = choose_adaptive(
            pool.clone(),
            Vec::new(),
            0,
            5,
            0.75,
            &mut StdRng::seed_from_u64(3),
        );
        assert_eq!(picked.len(), 5);
        assert_eq!(picked[4], 99);
        // one predicted too far from the target waits for players it suits
        pool.pop();
        pool.push(rated(98, 0.55, false, false));
        let picked = choose_adaptive(
            pool.clone(),
            Vec::new(),
            0,
            5,
            0.75,
            &mut StdRng::seed_from_u64(3),
        );
        assert!(!picked.contains(&98), "{picked:?}");
        // none uncalibrated in the window: all five by distance
        pool.pop();
        let picked = choose_adaptive(pool, Vec::new(), 0, 5, 0.75, &mut StdRng::seed_from_u64(3));
        assert!(!picked.contains(&99));
        // fewer than five read: all of them
        let few = vec![rated(1, 0.1, true, false), rated(2, 0.9, false, true)];
        assert_eq!(
            choose_adaptive(few, Vec::new(), 0, 5, 0.75, &mut StdRng::seed_from_u64(4)).len(),
            2
        );
    }

    #[test]
    fn a_small_pool_gives_the_unanswered_first() {
        let pool: Vec<_> = (0..20)
            .map(|i| candidate(i, i64::from(i) * 1000, i % 4 != 0))
            .collect();
        for seed in 0..50 {
            let mut rng = StdRng::seed_from_u64(seed);
            let start = rng.random_range(0..KEY_RANGE);
            let picked = choose(pool.clone(), start, 5, &mut rng);
            assert_eq!(picked.len(), 5);
            assert!(picked.iter().all(|id| id % 4 == 0), "{picked:?}");
        }
    }

    #[test]
    fn answered_questions_fill_up_when_too_few_are_left() {
        let pool = vec![
            candidate(1, 10, true),
            candidate(2, 20, false),
            candidate(3, 30, true),
        ];
        let picked = choose(pool, 15, 2, &mut StdRng::seed_from_u64(7));
        assert_eq!(picked[0], 2);
        assert!(picked[1] == 1 || picked[1] == 3);
    }

    #[test]
    fn every_question_of_a_small_pool_can_come() {
        let pool: Vec<_> = (0..10).map(|i| candidate(i, i64::from(i), false)).collect();
        let mut seen = std::collections::HashSet::new();
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..200 {
            let start = rng.random_range(0..KEY_RANGE);
            seen.extend(choose(pool.clone(), start, 5, &mut rng));
        }
        assert_eq!(seen.len(), 10);
    }

    #[test]
    fn a_large_read_keeps_the_window_nearest_the_start_wrapping_round() {
        // keys 0..200 spaced 10 apart; the start near the top wraps to the smallest keys
        let pool: Vec<_> = (0..200)
            .map(|i| candidate(i, i64::from(i) * 10, false))
            .collect();
        let start = KEY_RANGE - 5;
        let picked = choose(pool, start, WINDOW, &mut StdRng::seed_from_u64(3));
        let mut ids = picked.clone();
        ids.sort_unstable();
        assert_eq!(ids, (0..WINDOW as u32).collect::<Vec<_>>());
    }

    #[test]
    fn new_keys_stay_in_range() {
        assert!(
            (0..1000)
                .map(|_| new_key())
                .all(|k| (0..KEY_RANGE).contains(&k))
        );
    }
}
