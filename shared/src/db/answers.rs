//! The rows a first answer writes beside the player's progress (the answer, the
//! session's count, the node completion), as `db::progress::write` writes them in one
//! guarded statement.

use crate::ids::{ChallengeId, OptionId, PlayerId, QuestionId, SubmitRequestId};

pub struct NewAnswer<'a> {
    pub id: &'a str,
    pub session_id: &'a ChallengeId,
    pub player_id: &'a PlayerId,
    pub question_id: &'a QuestionId,
    /// The version of the question the session served.
    pub question_version: i64,
    pub selected_option_id: &'a OptionId,
    pub is_correct: bool,
    pub xp_delta: i64,
    pub hearts_delta: i64,
    pub time_ms: i64,
    pub combo_count: i64,
    pub submit_request_id: Option<&'a SubmitRequestId>,
    pub now_ms: i64,
    /// What the server measured for it (`domain::fairplay::elapsed_ms`).
    pub server_elapsed_ms: i64,
    /// The fair-play signals it raised (a bit set, `domain::fairplay::Signal::bit`).
    pub signals: i64,
}

/// A first answer's own rows, written with its resource change by
/// `db::progress::write` (guarded by the revision the answer was judged on).
pub struct AnswerRows<'a> {
    pub answer: NewAnswer<'a>,
    /// The session's last answer: the session finishes.
    pub finished: bool,
    /// The node completed, on a passed challenge's last answer.
    pub completed_node: Option<&'a str>,
    /// The session's answered count the answer was judged on.
    pub answered_before: i64,
    /// A right answer that was too fast (the session counts them: fast_perfect).
    pub fast_correct: bool,
    /// The weekly rows it creates are hidden until then (the player is held).
    pub weekly_hidden_until: Option<i64>,
    /// Its fair-play signals, added to the player's week by the same write.
    pub fair_play: Option<&'a crate::db::fairplay::FairPlayScore>,
    /// What it taught the estimates.
    pub learned: LearnedRows<'a>,
    /// The question's memory after it.
    pub memory: crate::domain::memory::Memory,
    /// The review count of the memory row the answer was judged on (None: no row): the
    /// write is guarded by it.
    pub memory_read: Option<i64>,
}

/// The estimates' moves an answer writes (`domain::skill::learn`), as additions.
#[derive(Clone, Copy, Debug)]
pub struct LearnedRows<'a> {
    /// The track of the challenge: the player's skill there moves by `track_delta`.
    pub track_id: &'a str,
    pub track_delta: f64,
    /// The player's overall skill moves by this.
    pub overall_delta: f64,
    /// A first answer's surprise (outcome − predicted success), recorded on the answer
    /// (the previous release's fold moves the question's difficulty by it).
    pub surprise: Option<f64>,
    /// With it, what the fold takes the surprise from again: the answerer's track skill
    /// when they answered and the question's guessing floor (`$72`, `$73`).
    pub answer_skill: Option<f64>,
    pub guess_floor: Option<f64>,
}

/// A first answer's own writes, after the progress row's guard (in
/// `db::progress::write`): the answer, the session count (and its finish; guarded like
/// the progress row: the session must still be the player's, open, with the count the
/// answer was judged on, `$43`), the node completion. The answer records the question
/// version it was judged on (`$45`), the server's time (`$46`), its fair-play signals
/// (`$47`) and a first answer's surprise (`$61`) with the skill and floor it was taken
/// from (`$72`, `$73`); the session its last answer's instant and its fast right answers
/// (`$48`).
/// `$N` are the same in both
/// engines' texts; `$from` is where each takes its one row from (on PostgreSQL the
/// guard's result). `INSERT … SELECT … ON CONFLICT` needs the SELECT's WHERE, or
/// SQLite's parser takes ON for a join constraint.
macro_rules! first_answer_rows {
    (answer $from:literal) => {
        concat!(
            "INSERT INTO challenge_answers (id, session_id, player_id, question_id, selected_option_id,
    is_correct, xp_delta, hearts_delta, time_ms, combo_count, submit_request_id, created_at,
    question_version, server_elapsed_ms, signals, surprise, answer_skill, guess_floor)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $45, $46, $47, $61, $72, $73",
            $from
        )
    };
    (session $from:literal) => {
        concat!(
            "UPDATE challenge_sessions SET answered_count = CASE WHEN answered_count = $43
        AND challenge_sessions.player_id = $3 AND status IN ('pending', 'in_progress')
        THEN answered_count + 1 END,
    correct_count = correct_count + $25, attempt_consumed = TRUE,
    last_answered_at = $12, fast_correct_count = fast_correct_count + $48,
    status = CASE WHEN $26 THEN 'finished' ELSE 'in_progress' END,
    finished_at = CASE WHEN $26 THEN $12 ELSE finished_at END",
            $from,
            " WHERE id = $2"
        )
    };
    (node $from:literal) => {
        concat!(
            "INSERT INTO node_completions (player_id, node_id, completed_at)
SELECT $3, $27, $12",
            $from,
            " WHERE $27 IS NOT NULL
ON CONFLICT (player_id, node_id) DO NOTHING"
        )
    };
}

pub(crate) use first_answer_rows;

/// True when `e` is the refusal of a guard of an answer's write. The guards make
/// `player_progress.revision`, `challenge_sessions.answered_count` or
/// `review_memory.reviews` NULL when what the answer was judged on has changed, and
/// every other NOT NULL column of those statements is bound from a value that is
/// never NULL (a non-optional Rust value or a constant): a NOT NULL violation of the
/// write is therefore a guard's, by its kind alone, on both engines.
pub(crate) fn is_stale_guard(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.kind() == sqlx::error::ErrorKind::NotNullViolation)
}
