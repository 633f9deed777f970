//! Which questions a new challenge gets, in work that does not grow with the pool.
//!
//! Every question carries a random key fixed at creation ([`new_key`]). A pick draws a
//! random start on the circle of keys and reads, per category of the track, at most
//! [`WINDOW`] questions from the start on (wrapping past the largest key): an index range
//! scan, whatever the pool's size. Of those, the [`WINDOW`] nearest the start form the
//! window; the questions the player has not answered correctly come first, each group in
//! random order. A pool of at most [`WINDOW`] questions is read whole, so there the pick
//! is exactly "unanswered first, random otherwise".

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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate<T> {
    pub question: T,
    pub key: i64,
    /// The player has answered it before (its answer then measures memory, not
    /// difficulty).
    pub answered: bool,
    pub answered_correctly: bool,
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
        }
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
