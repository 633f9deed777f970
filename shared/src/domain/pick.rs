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
//! The adaptive pick ([`choose_adaptive`], `ADAPTIVE_PICK`) reads the same window and
//! keeps the rule of `operations.md` §6 first: the questions the player has not answered
//! correctly (never answered, or answered wrong) come before those answered right, which
//! fill a challenge only when fewer others than its questions are in the window. Within
//! each group, the questions whose predicted success for the player is nearest
//! `TARGET_SUCCESS` come first. The last place goes to a question without a fitted
//! difficulty that the player has never answered, while the window has one, so new
//! questions get the first answers that calibrate them (never answered, such a question
//! belongs to the first group: the rule holds).

use rand::Rng;
use rand::seq::SliceRandom;

/// Keys are drawn from `0..KEY_RANGE`.
pub const KEY_RANGE: i64 = i32::MAX as i64;
/// How many questions one pick considers.
pub const WINDOW: usize = 64;

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

/// The `n` questions of an adaptive challenge from the candidates read at `start`: the
/// window as [`choose`] takes it, those not answered correctly first, each group ordered
/// by the distance of its predicted success from `target` (ties in random order). When
/// none of the chosen is an exploration question (no fitted difficulty, never answered
/// by the player) and the rest of the window holds one, the nearest of those takes the
/// last place; never answered, it is of the first group, so it never goes before a
/// question of that group that it displaces out of turn: the rule holds.
pub fn choose_adaptive<T, R: Rng + ?Sized>(
    mut candidates: Vec<Candidate<T>>,
    start: i64,
    n: usize,
    target: f64,
    rng: &mut R,
) -> Vec<T> {
    candidates.sort_by_key(|c| (c.key - start).rem_euclid(KEY_RANGE));
    candidates.truncate(WINDOW);
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
        let mut picked = choose_adaptive(pool, 0, 5, 0.75, &mut StdRng::seed_from_u64(1));
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
        let mut picked = choose_adaptive(pool.clone(), 0, 5, 0.75, &mut StdRng::seed_from_u64(2));
        picked.sort_unstable();
        // the five of the seven nearest the target
        assert_eq!(picked, vec![7, 8, 9, 10, 11]);
        // only three not answered correctly: answered ones fill, the nearest first
        pool.truncate(8);
        for (i, success) in [(0, 0.1), (3, 0.3), (4, 0.2)] {
            pool[i].success = success;
        }
        let mut picked = choose_adaptive(pool, 0, 5, 0.75, &mut StdRng::seed_from_u64(2));
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
        let picked = choose_adaptive(pool.clone(), 0, 5, 0.75, &mut StdRng::seed_from_u64(5));
        assert!(!picked.contains(&98));
        // an uncalibrated question answered wrong before: its answer no longer calibrates
        pool.pop();
        let mut wrong = rated(97, 0.2, false, false);
        wrong.answered = true;
        pool.push(wrong);
        let picked = choose_adaptive(pool.clone(), 0, 5, 0.75, &mut StdRng::seed_from_u64(5));
        assert!(!picked.contains(&97));
        // an unanswered uncalibrated one takes the last place, however far
        pool.push(rated(99, 0.01, false, false));
        let picked = choose_adaptive(pool, 0, 5, 0.75, &mut StdRng::seed_from_u64(5));
        assert_eq!(picked[4], 99);
    }

    proptest::proptest! {
        /// Whatever the predictions (NaN included) and the challenge's size: every
        /// question of the window not answered correctly comes before any answered
        /// correctly, each group is ordered by distance from the target except the last
        /// place, which goes to the nearest exploration question when none was chosen
        /// and the window has one.
        #[test]
        fn the_rule_holds_for_any_predictions(
            pool in proptest::collection::vec(
                (
                    proptest::prop_oneof![9 => 0.0f64..1.0, 1 => proptest::strategy::Just(f64::NAN)],
                    proptest::bool::ANY,
                    proptest::bool::ANY,
                    proptest::bool::ANY,
                ),
                0..80,
            ),
            n in 0usize..9,
            seed in 0u64..1000,
        ) {
            let pool: Vec<_> = pool
                .into_iter()
                .enumerate()
                .map(|(i, (success, calibrated, answered, right))| Candidate {
                    question: i,
                    key: i as i64,
                    answered: answered || right,
                    answered_correctly: right,
                    success,
                    calibrated,
                })
                .collect();
            let window: Vec<_> = pool.iter().take(WINDOW).cloned().collect();
            let target = 0.75;
            let picked = choose_adaptive(pool, 0, n, target, &mut StdRng::seed_from_u64(seed));
            proptest::prop_assert_eq!(picked.len(), window.len().min(n));
            let right = |i: usize| window[i].answered_correctly;
            let explores = |i: usize| !window[i].calibrated && !window[i].answered;
            let distance = |i: usize| {
                let d = (window[i].success - target).abs();
                if d.is_finite() { d } else { f64::MAX }
            };
            // not answered correctly first, in the order of the picked list
            let first_right = picked.iter().position(|&i| right(i)).unwrap_or(picked.len());
            proptest::prop_assert!(picked[first_right..].iter().all(|&i| right(i)), "{picked:?}");
            let not_right = window.iter().filter(|c| !c.answered_correctly).count();
            proptest::prop_assert_eq!(first_right, not_right.min(picked.len()));
            // an exploration question is chosen whenever the window has one
            if n > 0 && (0..window.len()).any(explores) {
                proptest::prop_assert!(picked.iter().any(|&i| explores(i)), "{picked:?}");
            }
            // the places before the last are the nearest of their group, in order, and
            // none of the window's left-outs of a group is nearer than its chosen ones
            let body = &picked[..picked.len().saturating_sub(1)];
            for pair in body.windows(2) {
                if right(pair[0]) == right(pair[1]) {
                    proptest::prop_assert!(distance(pair[0]) <= distance(pair[1]), "{picked:?}");
                }
            }
            for &i in body {
                for j in (0..window.len()).filter(|j| !picked.contains(j) && right(*j) == right(i)) {
                    proptest::prop_assert!(distance(i) <= distance(j), "{i} {j} {picked:?}");
                }
            }
            // a swapped-in explorer is the nearest of the left-out explorers
            if let Some(&last) = picked.last()
                && explores(last)
                && !body.iter().any(|&i| explores(i))
            {
                for j in (0..window.len()).filter(|&j| explores(j) && !picked.contains(&j)) {
                    proptest::prop_assert!(distance(last) <= distance(j));
                }
            }
        }
    }

    #[test]
    fn the_adaptive_pick_keeps_one_uncalibrated_question() {
        let mut pool: Vec<_> = (0..20).map(|i| rated(i, 0.75, true, false)).collect();
        pool.push(rated(99, 0.05, false, false));
        let picked = choose_adaptive(pool.clone(), 0, 5, 0.75, &mut StdRng::seed_from_u64(3));
        assert_eq!(picked.len(), 5);
        assert_eq!(picked[4], 99);
        // none uncalibrated in the window: all five by distance
        pool.pop();
        let picked = choose_adaptive(pool, 0, 5, 0.75, &mut StdRng::seed_from_u64(3));
        assert!(!picked.contains(&99));
        // fewer than five read: all of them
        let few = vec![rated(1, 0.1, true, false), rated(2, 0.9, false, true)];
        assert_eq!(
            choose_adaptive(few, 0, 5, 0.75, &mut StdRng::seed_from_u64(4)).len(),
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
