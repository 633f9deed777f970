//! Spaced review's rows: each player's memory of the questions they answered
//! (`review_memory`, written by the answer's own statement in `db::progress`), their own
//! FSRS parameters once fitted (`review_parameters`), and the reads of review
//! challenges, the due count and the staff views, each bounded by an index.

use super::{Db, in_tx, read};
use crate::domain::memory::Memory;
use crate::ids::{PlayerId, QuestionId};

/// The memory columns of a question in a row that outer joins `review_memory rm` (and
/// `review_parameters rp` for the player's own parameters).
#[derive(Clone, Debug, Default, sqlx::FromRow)]
pub struct MemoryColumns {
    pub memory_stability: Option<f64>,
    pub memory_difficulty: Option<f64>,
    pub memory_reviews: Option<i64>,
    pub memory_lapses: Option<i64>,
    pub memory_last_correct: Option<bool>,
    pub memory_answered_at: Option<i64>,
    pub memory_due_at: Option<i64>,
    pub memory_review_at: Option<i64>,
    /// The player's fitted FSRS parameters (JSON), when fitted.
    pub memory_parameters: Option<String>,
}

/// The columns of [`MemoryColumns`], from `rm` and `rp`.
macro_rules! memory_columns {
    () => {
        "rm.stability AS memory_stability, rm.difficulty AS memory_difficulty,
         rm.reviews AS memory_reviews, rm.lapses AS memory_lapses,
         rm.last_correct AS memory_last_correct, rm.last_answered_at AS memory_answered_at,
         rm.due_at AS memory_due_at, rm.review_at AS memory_review_at,
         rp.parameters AS memory_parameters"
    };
}

pub(crate) use memory_columns;

impl MemoryColumns {
    /// The memory, when the row had one.
    pub fn memory(&self) -> Option<Memory> {
        Some(Memory {
            stability: self.memory_stability?,
            difficulty: self.memory_difficulty?,
            reviews: self.memory_reviews?,
            lapses: self.memory_lapses?,
            last_correct: self.memory_last_correct?,
            last_answered_at: self.memory_answered_at?,
            due_at: self.memory_due_at?,
            review_at: self.memory_review_at?,
        })
    }
}

/// A question in the player's reviews, as the review pick reads it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ReviewCandidate {
    pub question_id: QuestionId,
    pub track_id: String,
    #[sqlx(flatten)]
    pub columns: MemoryColumns,
}

/// How many reviewable questions the pick reads (the most overdue by `review_at`), of
/// which it serves those of lowest predicted recall (a literal in the statement, as
/// [`DUE_CAP`] is).
pub const CANDIDATES: i64 = 60;

/// How many of the player's most overdue reviews the pick looks among at most: a review
/// of one track, or rows of questions unpublished since they were answered (not yet
/// parked by the review job), cost no more than this many index entries whatever the
/// player's backlog (a literal in the statement, as [`DUE_CAP`] is).
pub const REVIEW_WINDOW: i64 = 1000;

/// The OFFSET of the [`REVIEW_WINDOW`]-th entry, as the statement's text holds it.
macro_rules! review_window_offset {
    () => {
        "999"
    };
}

/// Up to [`CANDIDATES`] of player `player_id`'s questions in their reviews at `now_ms`
/// (on `track_id` when given), earliest first, published ones only, among their
/// [`REVIEW_WINDOW`] most overdue: an index range of `review_memory` (its end read from
/// the index alone) and a primary-key probe of each question.
pub async fn candidates(
    db: &Db,
    player_id: &PlayerId,
    track_id: Option<&str>,
    now_ms: i64,
) -> sqlx::Result<Vec<ReviewCandidate>> {
    macro_rules! pick {
        ($scope:literal) => {
            concat!(
                "SELECT rm.question_id, rm.track_id, ",
                memory_columns!(),
                " FROM review_memory rm
                 JOIN questions q ON q.id = rm.question_id AND q.status = 'published'
                 LEFT JOIN review_parameters rp ON rp.player_id = rm.player_id
                 WHERE rm.player_id = $1 AND rm.review_at <= COALESCE(
                     (SELECT w.review_at FROM review_memory w
                      WHERE w.player_id = $1 AND w.review_at <= $2
                      ORDER BY w.review_at LIMIT 1 OFFSET ",
                review_window_offset!(),
                "), $2)",
                $scope,
                " ORDER BY rm.review_at LIMIT 60"
            )
        };
    }
    Ok(read!(db, |ex| {
        match track_id {
            Some(track) => {
                sqlx::query_as::<_, ReviewCandidate>(pick!(" AND rm.track_id = $3"))
                    .bind(player_id)
                    .bind(now_ms)
                    .bind(track)
                    .fetch_all(ex)
                    .await?
            }
            None => {
                sqlx::query_as::<_, ReviewCandidate>(pick!(""))
                    .bind(player_id)
                    .bind(now_ms)
                    .fetch_all(ex)
                    .await?
            }
        }
    }))
}

/// The most a due count counts: the summary shows "99" for anything more.
pub const DUE_CAP: i64 = 99;

/// [`DUE_CAP`] as the statements' text holds it: a literal, since SQLite prepares a
/// statement again on every run when its LIMIT is a bound parameter (the bundled 3.51
/// reads a bound LIMIT while planning: measured, 450k instructions a summary).
macro_rules! due_cap {
    () => {
        "99"
    };
}

pub(crate) use due_cap;

/// How many of the player's questions are in their reviews at `now_ms`, up to
/// [`DUE_CAP`] (at most that many entries of the `(player_id, review_at)` index, read
/// from the index alone: unpublished questions' rows are [`PARKED_AT`]).
pub async fn due_count(db: &Db, player_id: &PlayerId, now_ms: i64) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(concat!(
            "SELECT COUNT(*) FROM (SELECT 1 FROM review_memory
                 WHERE player_id = $1 AND review_at <= $2 LIMIT ",
            due_cap!(),
            ") d"
        ))
        .bind(player_id)
        .bind(now_ms)
        .fetch_one(ex)
        .await?
    }))
}

/// How many of a player's memory rows the staff's view reads at most.
pub const PLAYER_VIEW_ROWS: i64 = 2000;

/// A memory row as the staff's view of a player reads it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RememberedQuestion {
    pub stability: f64,
    pub difficulty: f64,
    pub last_answered_at: i64,
}

/// Up to [`PLAYER_VIEW_ROWS`] of the player's memory rows (a primary-key range).
pub async fn player_memory(db: &Db, player_id: &PlayerId) -> sqlx::Result<Vec<RememberedQuestion>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, RememberedQuestion>(
            "SELECT stability, difficulty, last_answered_at FROM review_memory
             WHERE player_id = $1 LIMIT $2",
        )
        .bind(player_id)
        .bind(PLAYER_VIEW_ROWS)
        .fetch_all(ex)
        .await?
    }))
}

/// A player's fitted FSRS parameters (JSON) and when they were fitted (None: never, or
/// the last try found too little to fit).
pub async fn parameters(db: &Db, player_id: &PlayerId) -> sqlx::Result<Option<(String, i64)>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (String, i64)>(
            "SELECT parameters, fitted_at FROM review_parameters
             WHERE player_id = $1 AND parameters IS NOT NULL",
        )
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// A player as the fitting job's scan reads them: whether their parameters are due for a
/// fit (enough answers, and none fitted or the last fit older than the cut-off).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FitScan {
    pub player_id: PlayerId,
    pub due: bool,
}

/// The next `limit` players after `after` in id order (a primary-key range of
/// `player_progress`), each with whether a fit is due: a live account (not deleted, not
/// merged away) with at least `min_reviews` answers, never tried, or fitted before
/// `refit_before`, or found unfit before `retry_before`.
pub async fn scan_for_fits(
    db: &Db,
    after: &str,
    min_reviews: i64,
    refit_before: i64,
    retry_before: i64,
    limit: i64,
) -> sqlx::Result<Vec<FitScan>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, FitScan>(
            "SELECT g.player_id,
                    g.skill_answers >= $2 AND p.deleted_at IS NULL AND p.merged_into IS NULL
                    AND (rp.player_id IS NULL OR rp.fitted_at <
                         CASE WHEN rp.parameters IS NULL THEN $5 ELSE $3 END) AS due
             FROM player_progress g
             JOIN players p ON p.id = g.player_id
             LEFT JOIN review_parameters rp ON rp.player_id = g.player_id
             WHERE g.player_id > $1
             ORDER BY g.player_id LIMIT $4",
        )
        .bind(after)
        .bind(min_reviews)
        .bind(refit_before)
        .bind(limit)
        .bind(retry_before)
        .fetch_all(ex)
        .await?
    }))
}

/// The most answers a fit reads of one player.
pub const FIT_ANSWERS: i64 = 20_000;

/// One judged answer as a fit reads it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AnswerHistoryRow {
    pub question_id: QuestionId,
    pub is_correct: bool,
    pub created_at: i64,
}

/// Up to [`FIT_ANSWERS`] of the player's answers, by question and in time order (the
/// `(player_id, question_id)` index and a sort of those rows).
pub async fn answer_history(db: &Db, player_id: &PlayerId) -> sqlx::Result<Vec<AnswerHistoryRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, AnswerHistoryRow>(
            "SELECT question_id, is_correct, created_at FROM challenge_answers
             WHERE player_id = $1 ORDER BY question_id, created_at LIMIT $2",
        )
        .bind(player_id)
        .bind(FIT_ANSWERS)
        .fetch_all(ex)
        .await?
    }))
}

/// Stores a player's fitted parameters (JSON; None: the try found too little to fit),
/// replacing an earlier fit.
pub async fn store_parameters(
    db: &Db,
    player_id: &PlayerId,
    parameters: Option<&str>,
    reviews: i64,
    now_ms: i64,
) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "INSERT INTO review_parameters (player_id, parameters, reviews, fitted_at)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (player_id) DO UPDATE SET parameters = excluded.parameters,
                 reviews = excluded.reviews, fitted_at = excluded.fitted_at",
        )
        .bind(player_id)
        .bind(parameters)
        .bind(reviews)
        .bind(now_ms)
        .execute(ex)
        .await
        .map(drop)?
    });
    tx.commit().await
}

/// A question's memory rows read per refresh at most (by the `question_id` index).
pub const QUESTION_SAMPLE: i64 = 5_000;

/// A question's memory rows are parked at this `review_at` while it is unpublished: out
/// of every range of due reviews.
pub const PARKED_AT: i64 = 9_000_000_000_000_000;

/// [`PARKED_AT`] as the answer's write holds it (a literal: the statement's arguments
/// are the answer's).
macro_rules! parked_at {
    () => {
        "9000000000000000"
    };
}

pub(crate) use parked_at;

/// A question as the review job's pass reads it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct QuestionPass {
    pub id: QuestionId,
    pub published: bool,
    /// Its memory rows are parked (no row yet: not).
    pub parked: bool,
}

/// The next `limit` questions after `after` in id order (a primary-key range), with
/// whether each is published and whether its memory rows are parked.
pub async fn questions_after(db: &Db, after: &str, limit: i64) -> sqlx::Result<Vec<QuestionPass>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, QuestionPass>(
            "SELECT q.id, q.status = 'published' AS published,
                    COALESCE(m.parked, FALSE) AS parked
             FROM questions q LEFT JOIN question_memory m ON m.question_id = q.id
             WHERE q.id > $1 ORDER BY q.id LIMIT $2",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}

/// Parks (`park`) or brings back up to `limit` of question `question_id`'s memory rows
/// (brought back, a row is in the reviews again when due, or at once after a mistake);
/// returns how many changed (fewer than `limit`: all done). By the `(question_id, …)`
/// primary key.
pub async fn park_question(
    db: &Db,
    question_id: &QuestionId,
    park: bool,
    limit: i64,
) -> sqlx::Result<u64> {
    let sql = if park {
        "UPDATE review_memory SET review_at = $2
         WHERE question_id = $1 AND player_id IN (SELECT player_id FROM review_memory
             WHERE question_id = $1 AND review_at < $2 LIMIT $3)"
    } else {
        "UPDATE review_memory
         SET review_at = CASE WHEN last_correct THEN due_at ELSE last_answered_at END
         WHERE question_id = $1 AND player_id IN (SELECT player_id FROM review_memory
             WHERE question_id = $1 AND review_at = $2 LIMIT $3)"
    };
    let mut tx = db.begin().await?;
    let changed = in_tx!(&mut tx, |ex| {
        sqlx::query(sql)
            .bind(question_id)
            .bind(PARKED_AT)
            .bind(limit)
            .execute(ex)
            .await?
            .rows_affected()
    });
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "INSERT INTO question_memory (question_id, players, average_stability, parked,
                 computed_at)
             VALUES ($1, 0, 0, $2, 0)
             ON CONFLICT (question_id) DO UPDATE SET parked = excluded.parked",
        )
        .bind(question_id)
        .bind(park && changed < limit as u64 || !park && changed == limit as u64)
        .execute(ex)
        .await
        .map(drop)?
    });
    tx.commit().await?;
    Ok(changed)
}

/// How many players remember question `question_id` (up to [`QUESTION_SAMPLE`]) and
/// their mean stability.
pub async fn question_stability(
    db: &Db,
    question_id: &QuestionId,
) -> sqlx::Result<(i64, Option<f64>)> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (i64, Option<f64>)>(
            "SELECT COUNT(*), AVG(stability) FROM (SELECT stability FROM review_memory
                 WHERE question_id = $1 AND review_at < $3 LIMIT $2) s",
        )
        .bind(question_id)
        .bind(QUESTION_SAMPLE)
        .bind(PARKED_AT)
        .fetch_one(ex)
        .await?
    }))
}

/// Stores questions' `(id, players, mean stability)`.
pub async fn store_question_memory(
    db: &Db,
    rows: &[(QuestionId, i64, f64)],
    now_ms: i64,
) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    for (question_id, players, stability) in rows {
        in_tx!(&mut tx, |ex| {
            sqlx::query(
                "INSERT INTO question_memory (question_id, players, average_stability, computed_at)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (question_id) DO UPDATE SET players = excluded.players,
                     average_stability = excluded.average_stability,
                     computed_at = excluded.computed_at",
            )
            .bind(question_id)
            .bind(players)
            .bind(stability)
            .bind(now_ms)
            .execute(ex)
            .await
            .map(drop)?
        });
    }
    tx.commit().await
}

/// The mean stabilities of the questions with at least `min_players` players (one row
/// per question of the bank: bounded by the bank, read by the job only).
pub async fn stabilities(db: &Db, min_players: i64) -> sqlx::Result<Vec<f64>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT average_stability FROM question_memory WHERE players >= $1")
            .bind(min_players)
            .fetch_all(ex)
            .await?
    }))
}

/// Marks `quickly_forgotten` the questions with `min_players` and a mean stability at or
/// below `threshold` (None: none), unmarking the rest; only rows that change are written.
pub async fn mark_quickly_forgotten(
    db: &Db,
    min_players: i64,
    threshold: Option<f64>,
) -> sqlx::Result<u64> {
    let mut tx = db.begin().await?;
    let changed = in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE question_memory SET quickly_forgotten = NOT quickly_forgotten
             WHERE quickly_forgotten <> (players >= $1 AND $2 IS NOT NULL
                                         AND average_stability <= $2)",
        )
        .bind(min_players)
        .bind(threshold)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await?;
    Ok(changed)
}

/// A question's row of `question_memory`.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct QuestionMemoryRow {
    pub players: i64,
    pub average_stability: f64,
    pub quickly_forgotten: bool,
    pub computed_at: i64,
}

pub async fn question_memory(
    db: &Db,
    question_id: &QuestionId,
) -> sqlx::Result<Option<QuestionMemoryRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, QuestionMemoryRow>(
            "SELECT players, average_stability, quickly_forgotten, computed_at
             FROM question_memory WHERE question_id = $1",
        )
        .bind(question_id)
        .fetch_optional(ex)
        .await?
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_literal_limits_are_the_constants() {
        assert_eq!(
            super::parked_at!().parse::<i64>().ok(),
            Some(super::PARKED_AT)
        );
        assert_eq!(super::due_cap!().parse::<i64>().ok(), Some(super::DUE_CAP));
        assert_eq!(super::CANDIDATES, 60);
        assert_eq!(
            review_window_offset!().parse::<i64>().ok(),
            Some(super::REVIEW_WINDOW - 1)
        );
    }
}
