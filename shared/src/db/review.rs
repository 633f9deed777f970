//! Spaced review's rows: each player's memory of the questions they answered
//! (`review_memory`, written by the answer's own statement in `db::progress`), their own
//! FSRS parameters once fitted (`review_parameters`), and the reads of review
//! challenges, the due count and the staff views, each bounded by an index.

use super::{Db, read};
use crate::domain::memory::Memory;

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
    pub question_id: String,
    pub track_id: String,
    #[sqlx(flatten)]
    pub columns: MemoryColumns,
}

/// How many reviewable questions the pick reads (the most overdue by `review_at`), of
/// which it serves those of lowest predicted recall.
pub const CANDIDATES: i64 = 60;

/// Up to [`CANDIDATES`] of player `player_id`'s questions in their reviews at `now_ms`
/// (on `track_id` when given), earliest first, published ones only: an index range of
/// `review_memory` and a primary-key probe of each question.
pub async fn candidates(
    db: &Db,
    player_id: &str,
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
                 WHERE rm.player_id = $1 AND rm.review_at <= $2",
                $scope,
                " ORDER BY rm.review_at LIMIT $3"
            )
        };
    }
    Ok(read!(db, |ex| {
        match track_id {
            Some(track) => {
                sqlx::query_as::<_, ReviewCandidate>(pick!(" AND rm.track_id = $4"))
                    .bind(player_id)
                    .bind(now_ms)
                    .bind(CANDIDATES)
                    .bind(track)
                    .fetch_all(ex)
                    .await?
            }
            None => {
                sqlx::query_as::<_, ReviewCandidate>(pick!(""))
                    .bind(player_id)
                    .bind(now_ms)
                    .bind(CANDIDATES)
                    .fetch_all(ex)
                    .await?
            }
        }
    }))
}

/// The most a due count counts: the summary shows "99" for anything more.
pub const DUE_CAP: i64 = 99;

/// How many of the player's questions are in their reviews at `now_ms`, up to
/// [`DUE_CAP`] (an index range of at most that many entries).
pub async fn due_count(db: &Db, player_id: &str, now_ms: i64) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM (SELECT 1 FROM review_memory rm
                 JOIN questions q ON q.id = rm.question_id AND q.status = 'published'
                 WHERE rm.player_id = $1 AND rm.review_at <= $2 LIMIT $3) d",
        )
        .bind(player_id)
        .bind(now_ms)
        .bind(DUE_CAP)
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
pub async fn player_memory(db: &Db, player_id: &str) -> sqlx::Result<Vec<RememberedQuestion>> {
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

/// A player's fitted FSRS parameters (JSON) and when they were fitted.
pub async fn parameters(db: &Db, player_id: &str) -> sqlx::Result<Option<(String, i64)>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (String, i64)>(
            "SELECT parameters, fitted_at FROM review_parameters WHERE player_id = $1",
        )
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}
