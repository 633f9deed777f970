//! What this process remembers between the answers of a challenge, so that an answer
//! it can judge from memory skips the database read and costs one write.
//!
//! - **Challenges** this process opened: owner, node, pass threshold, the questions with
//!   the version served, their options and right option (fixed once the session
//!   exists), and the counters as this process last wrote them.
//! - **Players'** progress rows (resources, region, ban and deletion, revision) as this
//!   process last wrote them with an answer.
//! - **Cards** of question versions, for [`AnswerCache::CARD_MAX_AGE`]: a version's
//!   card never changes (an edit makes a new version, which a challenge made before
//!   it does not serve), only the category name a card without a title shows, which
//!   an answer shows within that time.
//!
//! **Why judging from memory is safe.** Nothing here is trusted for a decision: an
//! answer judged from memory is written by `db::progress::write` guarded by the
//! remembered [`Revision`](crate::db::progress::Revision) and the session's answered
//! count, owner and status. Every write of the player's row advances the revision (that
//! function is the row's only writer, and a `Revision` only comes from a read or from
//! it), and a ban, deletion, merge or region move advances it too, so a stale entry
//! makes the whole write fail and the answer is judged again on a fresh read. A refusal
//! judged from memory is likewise judged again on a fresh read before it is given.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::db::cards::CardSource;
use crate::db::gameplay::AnswerContext;
use crate::db::league::Membership;
use crate::db::progress::PlayerProgress;
use crate::domain::answer::SessionStatus;
use crate::domain::memory::Memory;
use crate::domain::skill::Estimate;
use crate::ids::{ChallengeId, PlayerId, QuestionId};
use crate::metrics::AnswerJudgements;

/// One question of a remembered challenge.
#[derive(Clone, Debug)]
pub struct ChallengeQuestion {
    pub question_id: QuestionId,
    /// The version the session serves (its card is that version's).
    pub question_version: i64,
    /// JSON `[{id}]`: the option ids, in the session's order (their texts are not
    /// needed to judge, and would triple the size).
    pub options: String,
    pub correct_option_id: String,
    /// The version's median answer time when the session was made.
    pub median_ms: Option<i64>,
    /// The question's difficulty when the session was made.
    pub difficulty: Estimate,
    /// The player's first answer to it moves its difficulty.
    pub first_answer: bool,
    /// The player's memory of it when the challenge opened. Exact while no other
    /// challenge answers it meanwhile; if one does, the answer's write (guarded by the
    /// memory's review count) fails and the answer is judged again on a read.
    pub memory: Option<Memory>,
    /// The track whose skill its answer moves when not the challenge's (a review's
    /// question of another track).
    pub track_id: Option<String>,
}

/// A challenge as this process last knew it.
#[derive(Clone, Debug)]
pub struct Challenge {
    pub player_id: PlayerId,
    pub track_id: String,
    pub node_id: String,
    /// The node's threshold when the challenge opened.
    pub pass_threshold: i64,
    pub questions: Arc<[ChallengeQuestion]>,
    pub status: SessionStatus,
    pub attempt_consumed: bool,
    pub answered_count: i64,
    pub correct_count: i64,
    /// When this process last served it, and its last answer (the server's time of an
    /// answer runs from the later; served again by another process, this one's
    /// memory measures longer times, never shorter ones).
    pub served_at: i64,
    pub last_answered_at: Option<i64>,
    /// When it was made (first served).
    pub created_at: i64,
    pub fast_correct_count: i64,
    /// A review challenge.
    pub review: bool,
    /// The player's own FSRS parameters (JSON) when the challenge opened, if fitted.
    pub memory_parameters: Option<String>,
}

/// What an answer written to a remembered challenge changed of it.
#[derive(Clone, Copy, Debug)]
pub struct Recorded {
    pub correct: bool,
    /// Right and too fast (fair play).
    pub fast_correct: bool,
    pub at_ms: i64,
}

pub struct AnswerCache {
    /// `ANSWER_MEMORY`: off, nothing is remembered and every answer is judged on a read
    /// (behind a round-robin balancer a process sees too few of a player's answers for
    /// the memory to pay).
    enabled: bool,
    challenges: Bounded<ChallengeId, Challenge>,
    players: Bounded<PlayerId, PlayerProgress>,
    /// By question id: the cards of the [`AnswerCache::CARD_VERSIONS`] versions last
    /// read (each carries its version, and only a card of the version asked for is
    /// given; a lookup by id allocates nothing), so the challenges of an old and a new
    /// version in flight at once do not push each other's card out.
    cards: Bounded<QuestionId, Vec<CardSource>>,
    /// `{week}:{player}`: the league cohort a player joined that week (it never changes).
    memberships: Bounded<String, Membership>,
    /// How the recorded answers were judged (the metrics' `answers_judged`).
    pub judged: AnswerJudgements,
}

impl Default for AnswerCache {
    fn default() -> Self {
        Self::new(true)
    }
}

impl AnswerCache {
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled,
            challenges: Bounded::default(),
            players: Bounded::default(),
            cards: Bounded::default(),
            memberships: Bounded::default(),
            judged: AnswerJudgements::default(),
        }
    }

    /// A week's league membership is kept as long as a week lasts.
    pub const MEMBERSHIP_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);
    /// A challenge is answered within minutes; an older one is read again.
    pub const CHALLENGE_MAX_AGE: Duration = Duration::from_secs(30 * 60);
    pub const PLAYER_MAX_AGE: Duration = Duration::from_secs(10 * 60);
    pub const CARD_MAX_AGE: Duration = Duration::from_secs(30);
    /// Versions of one question's card remembered at once.
    pub const CARD_VERSIONS: usize = 2;
    /// Entries per map; past it the oldest go (about 2 KiB per challenge with its
    /// player).
    pub const CAPACITY: usize = 8192;

    /// What judging an answer to `question_id` of `session_id` needs, when this process
    /// remembers the player and the challenge (the card only when remembered too).
    pub fn answer_context(
        &self,
        player_id: &PlayerId,
        session_id: &ChallengeId,
        question_id: &QuestionId,
    ) -> Option<(PlayerProgress, AnswerContext)> {
        let challenge = self
            .challenges
            .get(session_id, Self::CHALLENGE_MAX_AGE)
            .filter(|c| c.player_id == *player_id)?;
        let question = challenge
            .questions
            .iter()
            .find(|q| q.question_id == *question_id)?;
        let progress = self.players.get(player_id, Self::PLAYER_MAX_AGE)?;
        let track_id = question.track_id.as_ref().unwrap_or(&challenge.track_id);
        // the skill on this track is known only where an answer on it read or wrote it
        let track_skill = progress
            .track_skill
            .as_ref()
            .filter(|t| t.track_id == *track_id)?
            .estimate;
        let context = AnswerContext {
            player_id: challenge.player_id.clone(),
            status: challenge.status,
            attempt_consumed: challenge.attempt_consumed,
            answered_count: challenge.answered_count,
            correct_count: challenge.correct_count,
            track_id: track_id.clone(),
            node_id: challenge.node_id.clone(),
            options: question.options.clone(),
            correct_option_id: question.correct_option_id.clone(),
            question_version: question.question_version,
            total_questions: challenge.questions.len() as i64,
            pass_threshold: challenge.pass_threshold,
            // A closed question matters only where `domain::answer::may_judge_from_memory`
            // says no, and then the answer is judged on a read.
            zero_heart_refused: false,
            served_at: challenge.served_at,
            last_answered_at: challenge.last_answered_at,
            created_at: challenge.created_at,
            fast_correct_count: challenge.fast_correct_count,
            median_ms: question.median_ms,
            track_skill,
            difficulty: question.difficulty,
            first_answer: question.first_answer,
            card: self.card(question_id, question.question_version),
            review: challenge.review,
            memory: question.memory,
            memory_parameters: challenge.memory_parameters.clone(),
        };
        Some((progress, context))
    }

    /// A challenge just opened, or as an answer left it.
    pub fn remember_challenge(&self, session_id: &ChallengeId, challenge: Challenge) {
        if !self.enabled {
            return;
        }
        self.challenges
            .insert(session_id.clone(), challenge, Self::CHALLENGE_MAX_AGE);
    }

    /// After this process wrote an answer to a remembered challenge: its counters as
    /// the write left them (`judged` is what the answer was judged on). A finished
    /// challenge takes no more answers: it is forgotten (a late replay is read).
    pub fn record_answer(
        &self,
        session_id: &ChallengeId,
        judged: &AnswerContext,
        answer: Recorded,
    ) {
        if judged.answered_count + 1 >= judged.total_questions {
            self.challenges.remove(session_id);
            return;
        }
        self.challenges.update(session_id, |c| {
            c.attempt_consumed = true;
            c.answered_count = judged.answered_count + 1;
            c.correct_count = judged.correct_count + i64::from(answer.correct);
            c.fast_correct_count = judged.fast_correct_count + i64::from(answer.fast_correct);
            c.last_answered_at = Some(answer.at_ms);
            c.status = SessionStatus::InProgress;
        });
    }

    /// A remembered challenge was served again at `now_ms`.
    pub fn mark_served(&self, session_id: &ChallengeId, now_ms: i64) {
        self.challenges.update(session_id, |c| c.served_at = now_ms);
    }

    /// The player's progress row as this process just wrote it.
    pub fn remember_player(&self, player_id: &PlayerId, progress: PlayerProgress) {
        if !self.enabled {
            return;
        }
        self.players
            .insert(player_id.clone(), progress, Self::PLAYER_MAX_AGE);
    }

    /// After a judgement from memory failed: the player is read again next time.
    pub fn forget_player(&self, player_id: &PlayerId) {
        self.players.remove(player_id);
    }

    /// The cohort `player_id` joined in `week`, when remembered.
    pub fn league_membership(&self, week: &str, player_id: &PlayerId) -> Option<Membership> {
        self.memberships
            .get(&format!("{week}:{player_id}"), Self::MEMBERSHIP_MAX_AGE)
    }

    pub fn remember_membership(&self, week: &str, player_id: &PlayerId, m: &Membership) {
        self.memberships.insert(
            format!("{week}:{player_id}"),
            m.clone(),
            Self::MEMBERSHIP_MAX_AGE,
        );
    }

    /// The card of version `version` of a question, when remembered.
    pub fn card(&self, question_id: &QuestionId, version: i64) -> Option<CardSource> {
        self.cards.find(question_id, Self::CARD_MAX_AGE, |cards| {
            cards
                .iter()
                .find(|card| card.question_version == version)
                .cloned()
        })
    }

    pub fn remember_card(&self, card: &CardSource) {
        if !self.enabled {
            return;
        }
        self.cards.insert_or_update(
            card.question_id.clone(),
            Self::CARD_MAX_AGE,
            |cards| {
                cards.retain(|c| c.question_version != card.question_version);
                if cards.len() >= Self::CARD_VERSIONS {
                    cards.remove(0);
                }
                cards.push(card.clone());
            },
            || vec![card.clone()],
        );
    }
}

/// A map of at most [`AnswerCache::CAPACITY`] values, each gone after its max age.
struct Bounded<K, V>(Mutex<HashMap<K, (V, Instant)>>);

impl<K, V> Default for Bounded<K, V> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<K: Eq + Hash + Clone, V: Clone> Bounded<K, V> {
    fn lock(&self) -> MutexGuard<'_, HashMap<K, (V, Instant)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get<Q>(&self, key: &Q, max_age: Duration) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock()
            .get(key)
            .filter(|(_, at)| at.elapsed() < max_age)
            .map(|(value, _)| value.clone())
    }

    /// What `look` finds in the value of `key`, when present and younger than `max_age`
    /// (nothing is cloned but what it returns).
    fn find<Q, R>(
        &self,
        key: &Q,
        max_age: Duration,
        look: impl FnOnce(&V) -> Option<R>,
    ) -> Option<R>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock()
            .get(key)
            .filter(|(_, at)| at.elapsed() < max_age)
            .and_then(|(value, _)| look(value))
    }

    /// Changes the value of `key` in place when present and younger than `max_age`
    /// (its age unchanged); else stores `new()` as a new entry.
    fn insert_or_update(
        &self,
        key: K,
        max_age: Duration,
        change: impl FnOnce(&mut V),
        new: impl FnOnce() -> V,
    ) {
        let mut map = self.lock();
        if let Some((value, at)) = map.get_mut(&key)
            && at.elapsed() < max_age
        {
            change(value);
            return;
        }
        Self::insert_locked(&mut map, key, new(), max_age);
    }

    fn insert(&self, key: K, value: V, max_age: Duration) {
        Self::insert_locked(&mut self.lock(), key, value, max_age);
    }

    fn insert_locked(map: &mut HashMap<K, (V, Instant)>, key: K, value: V, max_age: Duration) {
        if map.len() >= AnswerCache::CAPACITY && !map.contains_key(&key) {
            map.retain(|_, (_, at)| at.elapsed() < max_age);
            if map.len() >= AnswerCache::CAPACITY {
                // the oldest quarter goes, so this runs once per CAPACITY / 4 inserts
                let mut ages: Vec<Instant> = map.values().map(|(_, at)| *at).collect();
                ages.sort_unstable();
                let cut = ages[ages.len() / 4];
                map.retain(|_, (_, at)| *at > cut);
            }
        }
        map.insert(key, (value, Instant::now()));
    }

    /// Changes a present value in place (its age unchanged).
    fn update<Q>(&self, key: &Q, change: impl FnOnce(&mut V))
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        if let Some((value, _)) = self.lock().get_mut(key) {
            change(value);
        }
    }

    fn remove<Q>(&self, key: &Q)
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock().remove(key);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{
        AnswerCache, Bounded, CardSource, Challenge, ChallengeQuestion, Recorded, SessionStatus,
    };
    use crate::db::gameplay::AnswerContext;
    use crate::db::players::AccountState;
    use crate::db::progress::{PlayerProgress, TrackSkill};
    use crate::domain::resources::Resources;
    use crate::domain::rules::GameRules;
    use crate::domain::skill::Estimate;

    fn progress() -> PlayerProgress {
        PlayerProgress {
            resources: Resources::new(&GameRules::default()),
            active_track_id: None,
            region_code: None,
            streak_protection_at: None,
            subscription_status: crate::domain::subscription::SubscriptionStatus::None,
            tier: crate::domain::subscription::Tier::Free,
            subscription_expires_at: None,
            account: AccountState {
                is_banned: false,
                banned_until: None,
                deleted_at: None,
                merged_into: None,
                token_version: 0,
                age_band: None,
                real_name_status: None,
                real_name_pi: None,
            },
            revision: crate::db::progress::Revision::for_test(0),
            fairplay_held: false,
            skill: Estimate::NEW_PLAYER,
            track_skill: Some(TrackSkill {
                track_id: "t".into(),
                estimate: Estimate::NEW_PLAYER,
            }),
            reviews_due: None,
        }
    }

    fn challenge(player: &str) -> Challenge {
        Challenge {
            player_id: player.into(),
            track_id: "t".into(),
            node_id: "n".into(),
            pass_threshold: 3,
            questions: (0..5)
                .map(|i| ChallengeQuestion {
                    question_id: format!("q{i}").as_str().into(),
                    question_version: 1,
                    options: "[]".into(),
                    correct_option_id: format!("o{i}"),
                    median_ms: None,
                    difficulty: Estimate::new_question(3),
                    first_answer: true,
                    memory: None,
                    track_id: None,
                })
                .collect(),
            status: SessionStatus::Pending,
            attempt_consumed: false,
            answered_count: 0,
            correct_count: 0,
            served_at: 1000,
            last_answered_at: None,
            created_at: 1000,
            fast_correct_count: 0,
            review: false,
            memory_parameters: None,
        }
    }

    #[test]
    fn a_challenge_is_answered_from_memory_only_by_its_owner_with_a_known_progress() {
        let cache = AnswerCache::default();
        cache.remember_challenge(&"s1".into(), challenge("p1"));
        // the player's progress is not known yet
        assert!(
            cache
                .answer_context(&"p1".into(), &"s1".into(), &"q0".into())
                .is_none()
        );
        cache.remember_player(&"p1".into(), progress());
        let (_, c) = cache
            .answer_context(&"p1".into(), &"s1".into(), &"q0".into())
            .expect("remembered");
        assert_eq!((c.correct_option_id.as_str(), c.total_questions), ("o0", 5));
        assert!(
            cache
                .answer_context(&"p2".into(), &"s1".into(), &"q0".into())
                .is_none(),
            "not the owner"
        );
        assert!(
            cache
                .answer_context(&"p1".into(), &"s1".into(), &"q9".into())
                .is_none(),
            "not a question of it"
        );
        assert!(
            cache
                .answer_context(&"p1".into(), &"s2".into(), &"q0".into())
                .is_none(),
            "another challenge"
        );
        cache.forget_player(&"p1".into());
        assert!(
            cache
                .answer_context(&"p1".into(), &"s1".into(), &"q0".into())
                .is_none()
        );
        // the player's skill on another track only: read again
        let mut elsewhere = progress();
        elsewhere.track_skill = Some(TrackSkill {
            track_id: "other".into(),
            estimate: Estimate::NEW_PLAYER,
        });
        cache.remember_player(&"p1".into(), elsewhere);
        assert!(
            cache
                .answer_context(&"p1".into(), &"s1".into(), &"q0".into())
                .is_none()
        );
    }

    #[test]
    fn counters_follow_the_answers_written_and_the_last_one_forgets_the_challenge() {
        let cache = AnswerCache::default();
        cache.remember_challenge(&"s1".into(), challenge("p1"));
        cache.remember_player(&"p1".into(), progress());
        for (i, correct) in [true, false, true, true].into_iter().enumerate() {
            let (_, judged): (_, AnswerContext) = cache
                .answer_context(&"p1".into(), &"s1".into(), &format!("q{i}").as_str().into())
                .expect("remembered");
            assert_eq!(judged.answered_count, i as i64);
            assert_eq!(
                judged.status,
                if i == 0 { "pending" } else { "in_progress" }
            );
            assert_eq!(judged.attempt_consumed, i > 0);
            cache.record_answer(
                &"s1".into(),
                &judged,
                Recorded {
                    correct,
                    fast_correct: correct && i < 2,
                    at_ms: 2000 + i as i64,
                },
            );
        }
        let (_, last) = cache
            .answer_context(&"p1".into(), &"s1".into(), &"q4".into())
            .expect("remembered");
        assert_eq!((last.answered_count, last.correct_count), (4, 3));
        assert_eq!(last.fast_correct_count, 1);
        assert_eq!(last.last_answered_at, Some(2003));
        cache.mark_served(&"s1".into(), 5000);
        let (_, last) = cache
            .answer_context(&"p1".into(), &"s1".into(), &"q4".into())
            .expect("remembered");
        assert_eq!(last.served_at, 5000);
        cache.record_answer(
            &"s1".into(),
            &last,
            Recorded {
                correct: true,
                fast_correct: false,
                at_ms: 6000,
            },
        );
        assert!(
            cache
                .answer_context(&"p1".into(), &"s1".into(), &"q0".into())
                .is_none(),
            "finished"
        );
    }

    fn card_of(question_id: &str, version: i64, summary: &str) -> CardSource {
        CardSource {
            question_id: question_id.into(),
            question_version: version,
            stem_text: "stem".into(),
            correct_answer: "answer".into(),
            category_name: "category".into(),
            card_id: Some("card".into()),
            title: None,
            summary: Some(summary.into()),
            deep_dive: None,
        }
    }

    #[test]
    fn a_challenge_shows_the_card_of_the_version_it_serves() {
        let cache = AnswerCache::default();
        let mut served = challenge("p1");
        served.questions = served
            .questions
            .iter()
            .cloned()
            .map(|mut q| {
                q.question_version = 2;
                q
            })
            .collect();
        cache.remember_challenge(&"s1".into(), served);
        cache.remember_player(&"p1".into(), progress());
        // an answer of another challenge, serving version 1, remembered its card
        cache.remember_card(&card_of("q0", 1, "as it was"));
        let (_, c) = cache
            .answer_context(&"p1".into(), &"s1".into(), &"q0".into())
            .expect("remembered");
        assert_eq!(c.question_version, 2);
        assert!(c.card.is_none(), "version 1's card is not version 2's");
        cache.remember_card(&card_of("q0", 2, "as it is"));
        let (_, c) = cache
            .answer_context(&"p1".into(), &"s1".into(), &"q0".into())
            .expect("remembered");
        assert_eq!(c.card.and_then(|c| c.summary).as_deref(), Some("as it is"));
        // both versions' challenges are answered from memory
        assert_eq!(
            cache
                .card(&"q0".into(), 1)
                .and_then(|c| c.summary)
                .as_deref(),
            Some("as it was")
        );
        // a third version pushes out the oldest
        cache.remember_card(&card_of("q0", 3, "newest"));
        assert!(
            cache.card(&"q0".into(), 1).is_none(),
            "read again when asked for"
        );
        assert!(cache.card(&"q0".into(), 2).is_some() && cache.card(&"q0".into(), 3).is_some());
    }

    #[test]
    fn a_full_map_drops_its_oldest_entries() {
        let map: Bounded<usize, usize> = Bounded::default();
        let age = Duration::from_secs(60);
        for i in 0..AnswerCache::CAPACITY + 10 {
            map.insert(i, i, age);
        }
        assert!(map.len() <= AnswerCache::CAPACITY);
        assert_eq!(
            map.get(&(AnswerCache::CAPACITY + 9), age),
            Some(AnswerCache::CAPACITY + 9)
        );
        assert_eq!(map.get(&0, age), None, "the oldest went");
    }

    #[test]
    fn values_older_than_their_max_age_are_gone() {
        let map: Bounded<&str, i64> = Bounded::default();
        map.insert("a", 1, Duration::from_secs(60));
        assert_eq!(map.get("a", Duration::from_secs(60)), Some(1));
        assert_eq!(map.get("a", Duration::ZERO), None);
    }
}
