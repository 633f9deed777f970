//! The answer to a challenge question, judged: pure, on the player's resources and
//! the challenge as they were read (or remembered), with no I/O. The service loads,
//! calls [`judge`], records what it returns, and remembers the result.

use crate::ids::PlayerId;
use chrono::{DateTime, Utc};

use super::change::ResourceChange;
use super::memory::REVIEW_HEART_AT;
use super::resources::Resources;
use super::rules::GameRules;
use crate::clock::beijing;
use crate::closed_set::closed_set;

/// The player as the answer finds them.
#[derive(Clone, Copy, Debug)]
pub struct PlayerSnapshot<'a> {
    pub player_id: &'a PlayerId,
    /// Stored resources (brought to `now` by [`judge`]).
    pub resources: &'a Resources,
    pub region_code: Option<&'a str>,
}

closed_set! {
    /// Where a challenge stands: `pending` until its first answer, `in_progress`,
    /// then `finished` with its last, or `abandoned` when the account is deleted.
    pub enum SessionStatus in "session-status" {
        Pending = "pending",
        InProgress = "in_progress",
        Finished = "finished",
        Abandoned = "abandoned",
    }
}

closed_set! {
    /// How an answer was judged.
    pub enum AnswerState in "answer-state" {
        Correct = "correct",
        Wrong = "wrong",
    }
}

impl SessionStatus {
    /// It still takes answers.
    pub fn is_open(self) -> bool {
        matches!(self, Self::Pending | Self::InProgress)
    }
}

/// What a challenge is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionKind {
    /// A track's challenge: hearts, attempts, XP per right answer, node completion.
    Challenge,
    /// Spaced review of questions answered before: no heart, no attempt, review XP,
    /// and a heart back for a good round.
    Review,
}

impl SessionKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            SessionKind::Challenge => "challenge",
            SessionKind::Review => "review",
        }
    }

    pub const fn of(review: bool) -> Self {
        if review {
            SessionKind::Review
        } else {
            SessionKind::Challenge
        }
    }

    /// The node every review challenge stands on: one unfinished review per player,
    /// whatever its scope (every track, or one), held by the unfinished-session index
    /// like a node's challenge (so the same question is never in two open reviews).
    pub const REVIEW_NODE: &'static str = "review";
}

/// The challenge as the answer finds it.
#[derive(Clone, Copy, Debug)]
pub struct SessionState<'a> {
    pub session_id: &'a str,
    /// The challenge's owner.
    pub player_id: &'a PlayerId,
    /// Pending or in progress (not finished).
    pub open: bool,
    /// An answer of this challenge has spent the day's attempt already.
    pub attempt_consumed: bool,
    pub answered_count: i64,
    pub correct_count: i64,
    pub total_questions: i64,
    pub pass_threshold: i64,
    pub node_id: &'a str,
    pub kind: SessionKind,
}

/// The question answered, as the challenge holds it.
#[derive(Clone, Copy, Debug)]
pub struct QuestionState<'a> {
    pub question_id: &'a str,
    pub option_ids: &'a [&'a str],
    pub correct_option_id: &'a str,
    /// A wrong answer to it could not be paid for: it stays closed while hearts are
    /// short of that cost ([`question_closed`]).
    pub zero_heart_refused: bool,
}

/// What the player sent.
#[derive(Clone, Copy, Debug)]
pub struct Submission<'a> {
    pub selected_option_id: &'a str,
}

/// Why an answer is refused (nothing is written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerRefusal {
    /// The challenge is another player's: as if it did not exist.
    NotYourChallenge,
    ChallengeOver,
    NotAnOption,
    /// The question was closed for want of hearts and they are still short (any option).
    QuestionClosed,
    NoAttemptsLeft,
}

/// An accepted answer: what to record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    pub correct: bool,
    /// XP the answer earns (0 when wrong).
    pub xp: i64,
    /// The challenge's last answer: it finishes.
    pub finished: bool,
    /// The node completed, on a passed challenge's last answer.
    pub completed_node: Option<String>,
    /// The resource change (ledger key `answer:{session}:{question}`).
    pub change: ResourceChange,
}

/// What [`judge`] decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Judged(Box<Judgement>),
    /// A wrong answer the player's hearts cannot pay for: refused, and the question
    /// closes until they can (so options cannot be tried one by one).
    OutOfHearts,
    Refused(AnswerRefusal),
}

/// The ledger key of the answer to a question of a challenge.
pub fn ledger_key(session_id: &str, question_id: &str) -> String {
    format!("answer:{session_id}:{question_id}")
}

/// Whether a question refused a wrong answer for want of hearts (`refused_for_hearts`)
/// is still closed to every option: while the hearts (brought to now) cannot pay for a
/// wrong answer.
pub fn question_closed(
    refused_for_hearts: bool,
    hearts_now: &Resources,
    rules: &GameRules,
) -> bool {
    refused_for_hearts && !hearts_now.can_pay_for_wrong_answer(rules)
}

/// Whether an answer may be judged on what a process remembers of the challenge rather
/// than on a read: only when no question can be closed to it ([`question_closed`]), as
/// whether one was is known to the database alone.
pub fn may_judge_from_memory(hearts_now: &Resources, rules: &GameRules) -> bool {
    hearts_now.can_pay_for_wrong_answer(rules)
}

/// Judges a first answer to `question` of `session` by `player` at `now`.
pub fn judge(
    player: PlayerSnapshot<'_>,
    session: SessionState<'_>,
    question: QuestionState<'_>,
    submission: Submission<'_>,
    rules: &GameRules,
    now: DateTime<Utc>,
) -> Outcome {
    if session.player_id != player.player_id {
        return Outcome::Refused(AnswerRefusal::NotYourChallenge);
    }
    if !session.open {
        return Outcome::Refused(AnswerRefusal::ChallengeOver);
    }
    let selected = submission.selected_option_id;
    if !question.option_ids.contains(&selected) {
        return Outcome::Refused(AnswerRefusal::NotAnOption);
    }
    let correct = selected == question.correct_option_id;
    let before = player.resources.clone().at(now, rules);
    if session.kind == SessionKind::Review {
        return judge_review(player, session, question, correct, before, rules, now);
    }
    if question_closed(question.zero_heart_refused, &before, rules) {
        return Outcome::Refused(AnswerRefusal::QuestionClosed);
    }
    let mut after = before.clone();
    if !correct && after.pay_for_wrong_answer(now, rules).is_err() {
        return Outcome::OutOfHearts;
    }
    if !session.attempt_consumed && after.use_attempt(rules).is_err() {
        return Outcome::Refused(AnswerRefusal::NoAttemptsLeft);
    }
    let xp = if correct { rules.xp_per_correct } else { 0 };
    after.gain_xp(xp);
    after.record_activity(beijing::day(now));
    let finished = session.answered_count + 1 >= session.total_questions;
    let passed = finished && session.correct_count + i64::from(correct) >= session.pass_threshold;
    Outcome::Judged(Box::new(Judgement {
        correct,
        xp,
        finished,
        completed_node: passed.then(|| session.node_id.to_string()),
        change: ResourceChange::new(
            player.player_id,
            player.region_code,
            ledger_key(session.session_id, question.question_id),
            "challenge_answer",
            before,
            after,
            rules,
            now,
        ),
    }))
}

/// A review answer: no heart lost and no attempt spent; a right one earns review XP
/// within the day's allowance; a round with at least [`REVIEW_HEART_AT`] right answers
/// gives a heart back on its last answer, within the day's allowance of such hearts.
fn judge_review(
    player: PlayerSnapshot<'_>,
    session: SessionState<'_>,
    question: QuestionState<'_>,
    correct: bool,
    before: Resources,
    rules: &GameRules,
    now: DateTime<Utc>,
) -> Outcome {
    let mut after = before.clone();
    let xp = if correct {
        after.review_xp_due(rules)
    } else {
        0
    };
    after.gain_review_xp(xp);
    after.record_activity(beijing::day(now));
    let finished = session.answered_count + 1 >= session.total_questions;
    if finished && session.correct_count + i64::from(correct) >= REVIEW_HEART_AT {
        after.gain_review_heart(rules);
    }
    Outcome::Judged(Box::new(Judgement {
        correct,
        xp,
        finished,
        completed_node: None,
        change: ResourceChange::new(
            player.player_id,
            player.region_code,
            ledger_key(session.session_id, question.question_id),
            "review_answer",
            before,
            after,
            rules,
            now,
        ),
    }))
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Duration, TimeZone, Utc};
    use proptest::prelude::*;

    use super::*;

    const OPTIONS: [&str; 4] = ["a", "b", "c", "d"];

    fn rules() -> GameRules {
        GameRules::default()
    }

    fn start() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 25, 2, 0, 0).unwrap()
    }

    /// A player of the tests, for as long as they run.
    fn player_id(id: &str) -> &'static PlayerId {
        Box::leak(Box::new(PlayerId::from(id)))
    }

    fn session(answered: i64, correct: i64, consumed: bool) -> SessionState<'static> {
        SessionState {
            session_id: "s1",
            player_id: player_id("p1"),
            open: true,
            attempt_consumed: consumed,
            answered_count: answered,
            correct_count: correct,
            total_questions: 5,
            pass_threshold: 3,
            node_id: "n1",
            kind: SessionKind::Challenge,
        }
    }

    fn question(id: &'static str) -> QuestionState<'static> {
        QuestionState {
            question_id: id,
            option_ids: &OPTIONS,
            correct_option_id: "b",
            zero_heart_refused: false,
        }
    }

    fn player(r: &Resources) -> PlayerSnapshot<'_> {
        PlayerSnapshot {
            player_id: player_id("p1"),
            resources: r,
            region_code: Some("310000"),
        }
    }

    fn judged(outcome: Outcome) -> Judgement {
        match outcome {
            Outcome::Judged(j) => *j,
            other => panic!("expected a judgement, got {other:?}"),
        }
    }

    /// `judge` under the default rules at `at`, the player holding `r` and picking
    /// option `pick`.
    fn judge_at(
        r: &Resources,
        s: SessionState<'static>,
        q: QuestionState<'static>,
        pick: &'static str,
        at: DateTime<Utc>,
    ) -> Outcome {
        let submission = Submission {
            selected_option_id: pick,
        };
        judge(player(r), s, q, submission, &rules(), at)
    }

    #[test]
    fn a_right_answer_earns_xp_and_spends_the_attempt() {
        let r = Resources::new(&rules());
        let j = judged(judge_at(
            &r,
            session(0, 0, false),
            question("q1"),
            "b",
            start(),
        ));
        assert!(j.correct);
        assert_eq!(j.xp, rules().xp_per_correct);
        assert_eq!(j.change.deltas.xp, rules().xp_per_correct);
        assert_eq!(j.change.deltas.attempts, -1);
        assert_eq!(j.change.deltas.hearts, 0);
        assert_eq!(j.change.key, "answer:s1:q1");
        assert_eq!(j.change.source, "challenge_answer");
        assert!(!j.finished);
        assert_eq!(j.completed_node, None);
    }

    fn review(answered: i64, correct: i64) -> SessionState<'static> {
        SessionState {
            kind: SessionKind::Review,
            ..session(answered, correct, false)
        }
    }

    #[test]
    fn a_review_answer_costs_nothing_and_earns_review_xp_within_the_allowance() {
        let mut r = Resources::new(&rules());
        r.hearts = 1;
        r.attempts_used = rules().daily_attempts_max;
        let wrong = judged(judge_at(&r, review(0, 0), question("q1"), "a", start()));
        assert!(!wrong.correct);
        assert_eq!(
            (
                wrong.xp,
                wrong.change.deltas.hearts,
                wrong.change.deltas.attempts
            ),
            (0, 0, 0)
        );
        assert_eq!(wrong.change.source, "review_answer");
        // at zero hearts and no attempts a review is still answered
        r.hearts = 0;
        let right = judged(judge_at(&r, review(1, 0), question("q2"), "b", start()));
        assert_eq!(right.xp, rules().review_xp);
        assert_eq!(right.change.after.review_xp, rules().review_xp);
        // the day's allowance: the rest of it, then nothing
        r.daily_xp_day = Some("2026-11-25".into());
        r.review_xp = rules().review_xp_daily - 2;
        let edge = judged(judge_at(&r, review(1, 0), question("q2"), "b", start()));
        assert_eq!(edge.xp, 2);
        r.review_xp = rules().review_xp_daily;
        let none = judged(judge_at(&r, review(1, 0), question("q2"), "b", start()));
        assert_eq!(none.xp, 0);
        assert_eq!(none.completed_node, None);
    }

    #[test]
    fn a_good_review_gives_a_heart_back_within_the_days_allowance() {
        let mut r = Resources::new(&rules());
        r.hearts = 2;
        r.daily_xp_day = Some("2026-11-25".into());
        // the last of five, the fourth right: a heart back
        let good = judged(judge_at(&r, review(4, 3), question("q5"), "b", start()));
        assert!(good.finished);
        assert_eq!(good.change.deltas.hearts, 1);
        assert_eq!(good.change.after.review_hearts, 1);
        // three right: none
        let poor = judged(judge_at(&r, review(4, 2), question("q5"), "b", start()));
        assert_eq!(poor.change.deltas.hearts, 0);
        // the day's review hearts given: none more
        r.review_hearts = rules().review_hearts_daily;
        let capped = judged(judge_at(&r, review(4, 3), question("q5"), "b", start()));
        assert_eq!(capped.change.deltas.hearts, 0);
        // a new Beijing day resets the allowance
        let tomorrow = judged(judge_at(
            &r,
            review(4, 3),
            question("q5"),
            "b",
            start() + Duration::days(1),
        ));
        assert_eq!(tomorrow.change.deltas.hearts, 1);
    }

    #[test]
    fn the_last_answer_finishes_and_passes_at_the_threshold() {
        let r = Resources::new(&rules());
        let right = "b";
        let j = judged(judge_at(
            &r,
            session(4, 2, true),
            question("q5"),
            right,
            start(),
        ));
        assert!(j.finished);
        assert_eq!(j.completed_node.as_deref(), Some("n1"));
        let wrong = "a";
        let j = judged(judge_at(
            &r,
            session(4, 2, true),
            question("q5"),
            wrong,
            start(),
        ));
        assert!(j.finished);
        assert_eq!(j.completed_node, None);
    }

    #[test]
    fn refusals() {
        let r = Resources::new(&rules());
        let any = "b";
        let mut theirs = session(0, 0, false);
        theirs.player_id = player_id("p2");
        assert_eq!(
            judge_at(&r, theirs, question("q"), any, start()),
            Outcome::Refused(AnswerRefusal::NotYourChallenge)
        );
        let mut over = session(5, 5, true);
        over.open = false;
        assert_eq!(
            judge_at(&r, over, question("q"), any, start()),
            Outcome::Refused(AnswerRefusal::ChallengeOver)
        );
        let unknown = "zz";
        assert_eq!(
            judge_at(&r, session(0, 0, false), question("q"), unknown, start()),
            Outcome::Refused(AnswerRefusal::NotAnOption)
        );
        let mut spent = Resources::new(&rules()).at(start(), &rules());
        spent.attempts_used = rules().daily_attempts_max;
        assert_eq!(
            judge_at(&spent, session(0, 0, false), question("q"), any, start()),
            Outcome::Refused(AnswerRefusal::NoAttemptsLeft)
        );
        // the session's attempt is spent already: it goes on
        assert!(matches!(
            judge_at(&spent, session(1, 1, true), question("q"), any, start()),
            Outcome::Judged(_)
        ));
    }

    #[test]
    fn zero_hearts_close_the_question_for_every_option() {
        let mut empty = Resources::new(&rules()).at(start(), &rules());
        empty.hearts = 0;
        empty.hearts_regen_from = Some(start().timestamp_millis());
        let wrong = "a";
        assert_eq!(
            judge_at(&empty, session(0, 0, false), question("q"), wrong, start()),
            Outcome::OutOfHearts
        );
        let mut closed = question("q");
        closed.zero_heart_refused = true;
        let right = "b";
        assert_eq!(
            judge_at(&empty, session(0, 0, false), closed, right, start()),
            Outcome::Refused(AnswerRefusal::QuestionClosed)
        );
        // once a heart is back, the closed question takes answers again
        let later = start() + Duration::minutes(rules().heart_regen_minutes);
        assert!(matches!(
            judge_at(&empty, session(0, 0, false), closed, right, later),
            Outcome::Judged(_)
        ));
    }

    /// A challenge played from `r` with the options picked, each answer recorded as the
    /// service records it: the state after is the judgement's `after`, the session's
    /// counters advance, and a question answered before is not judged again (the
    /// service answers a replay with the recorded judgement).
    fn play(
        mut r: Resources,
        picks: &[(usize, usize, i64)],
    ) -> (Vec<Outcome>, Vec<Option<Judgement>>, Resources) {
        let rules = rules();
        let mut now = start();
        let mut s = session(0, 0, false);
        let mut first: Vec<Option<Judgement>> = vec![None; 5];
        let mut outcomes = Vec::new();
        for &(q, pick, wait_minutes) in picks {
            now += Duration::minutes(wait_minutes);
            if first[q].is_some() {
                // a replay: answered with the recorded judgement, nothing written
                continue;
            }
            let ids = ["q0", "q1", "q2", "q3", "q4"];
            let outcome = judge(
                player(&r),
                s,
                question(ids[q]),
                Submission {
                    selected_option_id: OPTIONS[pick],
                },
                &rules,
                now,
            );
            if let Outcome::Judged(j) = &outcome {
                r = j.change.after.clone();
                s.answered_count += 1;
                s.correct_count += i64::from(j.correct);
                s.attempt_consumed = true;
                s.open = !j.finished;
                first[q] = Some((**j).clone());
            }
            outcomes.push(outcome);
        }
        (outcomes, first, r)
    }

    fn resources() -> impl Strategy<Value = Resources> {
        let rules = rules();
        (
            0..=rules.max_hearts,
            0..=rules.daily_attempts_max + 2,
            0i64..5_000,
        )
            .prop_map(move |(hearts, used, xp)| {
                let mut r = Resources::new(&rules).at(start(), &rules);
                r.hearts = hearts;
                r.hearts_regen_from =
                    (hearts < rules.max_hearts).then_some(start().timestamp_millis());
                r.attempts_used = used;
                r.xp = xp;
                r
            })
    }

    proptest! {
        /// Whatever a wrong answer costs (`RULE_WRONG_ANSWER_HEARTS`): it takes exactly
        /// that; hearts short of it refuse it and close the question; a closed question
        /// refuses every option until the hearts (regenerated over time) can pay; and an
        /// answer is judged from memory exactly when no question can be closed to it.
        #[test]
        fn a_wrong_answer_costs_what_the_rules_say(
            cost in 0i64..=5,
            hearts in 0i64..=5,
            pick in 0usize..4,
            wait_minutes in 0i64..200,
        ) {
            let rules = GameRules { wrong_answer_hearts: cost, ..rules() };
            let mut r = Resources::new(&rules).at(start(), &rules);
            r.hearts = hearts;
            r.hearts_regen_from = (hearts < rules.max_hearts).then_some(start().timestamp_millis());
            let chosen = OPTIONS[pick];
            let wrong = chosen != question("q").correct_option_id;
            let answer = |q: QuestionState<'static>, at: DateTime<Utc>| {
                judge(player(&r), session(0, 0, false), q, Submission { selected_option_id: chosen }, &rules, at)
            };
            match answer(question("q"), start()) {
                Outcome::Judged(j) => {
                    prop_assert!(!wrong || hearts >= cost);
                    prop_assert_eq!(j.change.deltas.hearts, if wrong { -cost } else { 0 });
                    prop_assert!(j.change.after.hearts >= 0);
                }
                Outcome::OutOfHearts => prop_assert!(wrong && hearts < cost),
                Outcome::Refused(refusal) => prop_assert!(false, "refused: {refusal:?}"),
            }
            let later = start() + Duration::minutes(wait_minutes);
            let hearts_later = r.clone().at(later, &rules);
            let closed = QuestionState { zero_heart_refused: true, ..question("q") };
            let refused = answer(closed, later) == Outcome::Refused(AnswerRefusal::QuestionClosed);
            prop_assert_eq!(refused, hearts_later.hearts < cost);
            prop_assert_eq!(refused, question_closed(true, &hearts_later, &rules));
            prop_assert_eq!(may_judge_from_memory(&hearts_later, &rules), !refused);
        }

        #[test]
        fn hearts_never_go_below_zero_and_xp_only_for_right_answers(
            r in resources(),
            picks in prop::collection::vec((0usize..5, 0usize..4, 0i64..90), 1..12),
        ) {
            let (outcomes, _, end) = play(r.clone(), &picks);
            prop_assert!(end.hearts >= 0);
            for outcome in &outcomes {
                if let Outcome::Judged(j) = outcome {
                    prop_assert!(j.change.after.hearts >= 0);
                    prop_assert_eq!(j.xp > 0, j.correct);
                    prop_assert_eq!(j.change.deltas.xp, j.xp);
                    prop_assert!(j.correct || j.change.deltas.hearts <= 0);
                    prop_assert!(!j.correct || j.change.deltas.hearts >= 0);
                }
            }
            let earned: i64 = outcomes.iter().filter_map(|o| match o {
                Outcome::Judged(j) => Some(j.xp),
                _ => None,
            }).sum::<i64>();
            prop_assert!(end.xp - r.xp <= earned);
        }

        #[test]
        fn one_attempt_per_challenge(
            r in resources(),
            picks in prop::collection::vec((0usize..5, 0usize..4, 0i64..5), 1..12),
        ) {
            let (_, first, _) = play(r, &picks);
            let spent: i64 = first.iter().flatten().map(|j| -j.change.deltas.attempts).sum();
            prop_assert!(spent <= 1, "a challenge spent {} attempts", spent);
        }

        /// A write that lost a race is judged again on a fresh read; on the same read,
        /// the judgement is the first one (what the recorded answer replays).
        #[test]
        fn judged_again_on_the_same_read_is_the_first_judgement(
            r in resources(),
            pick in 0usize..4,
            answered in 0i64..5,
        ) {
            let s = session(answered, 0, answered > 0);
            let sub = Submission { selected_option_id: OPTIONS[pick] };
            let a = judge(player(&r), s, question("q"), sub, &rules(), start());
            let b = judge(player(&r), s, question("q"), sub, &rules(), start());
            prop_assert_eq!(a, b);
        }
    }
}
