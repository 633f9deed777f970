//! The learning engine's rows: players' skills per track (the overall one is on
//! `player_progress`), questions' difficulties, the first answers a fit reads, and the
//! fits. The answer's write moves skills and difficulties (`db::progress::write`);
//! everything here is read by requests by key, or written by the calibration job.

use super::fairplay::in_good_standing;
use super::question_stats::Cursor;
use super::{Db, Tx, in_tx, read};
use crate::domain::irt::{IrtGuessing, IrtModel};
use crate::domain::skill::Estimate;
use crate::ids::{PlayerId, QuestionId};

/// A player's skill on one track.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SkillRow {
    pub track_id: String,
    pub skill: f64,
    pub answers: i64,
}

/// The player's skills on the tracks they answered on (one index range: a row per
/// track).
pub async fn player_skills(db: &Db, player_id: &PlayerId) -> sqlx::Result<Vec<SkillRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, SkillRow>(
            "SELECT track_id, skill, answers FROM player_skills WHERE player_id = $1
             ORDER BY track_id",
        )
        .bind(player_id)
        .fetch_all(ex)
        .await?
    }))
}

/// Up to `limit` skills of a track's players: those among the first `scanned` (player,
/// track) rows in primary-key order (player ids are random, so a random sample). One
/// bounded range of the primary key, and no index of its own that every answer opening a
/// track would write.
pub async fn track_skill_sample(
    db: &Db,
    track_id: &str,
    limit: i64,
    scanned: i64,
) -> sqlx::Result<Vec<f64>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT skill FROM (SELECT skill, track_id FROM player_skills
                                ORDER BY player_id, track_id LIMIT $3) AS first_rows
             WHERE track_id = $1 LIMIT $2",
        )
        .bind(track_id)
        .bind(limit)
        .bind(scanned)
        .fetch_all(ex)
        .await?
    }))
}

/// A published question's difficulty as a pick or a mastery reads it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct QuestionDifficulty {
    pub id: QuestionId,
    pub authored_difficulty: i64,
    pub estimated_difficulty: Option<f64>,
    pub difficulty_answers: Option<i64>,
    /// JSON array of the distractors (the options are these and the right answer).
    pub distractors: String,
}

impl QuestionDifficulty {
    /// The difficulty b the game uses: the stored estimate, or the author's mapped.
    pub fn difficulty(&self) -> f64 {
        crate::domain::skill::Estimate::stored_or_authored(
            self.estimated_difficulty,
            self.difficulty_answers,
            self.authored_difficulty,
        )
        .value
    }
}

/// Up to `limit` published questions of a category in pick-key order (a random sample:
/// keys are random), each with its difficulty: one index range scan and a probe each.
pub async fn sample_difficulties(
    db: &Db,
    category_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<QuestionDifficulty>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, QuestionDifficulty>(
            "SELECT q.id, q.difficulty AS authored_difficulty, d.difficulty AS estimated_difficulty,
                    d.answers AS difficulty_answers, q.distractors
             FROM (SELECT id, difficulty, distractors FROM questions
                   WHERE category_id = $1 AND status = 'published'
                   ORDER BY pick_key LIMIT $2) q
             LEFT JOIN question_difficulty d ON d.question_id = q.id",
        )
        .bind(category_id)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}

/// Moves a merged guest's skills and first answers to the account: on a track where the
/// account has a skill, and for a question it answered first itself, the account's win
/// (as its streak does); the guest's overall skill stays with the guest.
pub async fn move_player(tx: &mut Tx, guest: &PlayerId, target: &PlayerId) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        for (copy, delete) in [
            (
                "INSERT INTO player_skills (player_id, track_id, skill, answers, updated_at)
                 SELECT $2, track_id, skill, answers, updated_at FROM player_skills
                 WHERE player_id = $1
                 ON CONFLICT (player_id, track_id) DO NOTHING",
                "DELETE FROM player_skills WHERE player_id = $1",
            ),
            (
                "INSERT INTO first_answers (question_id, player_id, correct, answered_at)
                 SELECT question_id, $2, correct, answered_at FROM first_answers
                 WHERE player_id = $1
                 ON CONFLICT (question_id, player_id) DO NOTHING",
                "DELETE FROM first_answers WHERE player_id = $1",
            ),
        ] {
            sqlx::query(copy)
                .bind(guest)
                .bind(target)
                .execute(&mut *ex)
                .await?;
            sqlx::query(delete).bind(guest).execute(&mut *ex).await?;
        }
    });
    Ok(())
}

/// The (created_at, id) of the `limit`-th answer after `after` that is at most `until`
/// old, or of the last one when fewer follow: where a fold of these answers ends.
pub async fn answers_end(
    db: &Db,
    after: &Cursor,
    until: i64,
    limit: i64,
) -> sqlx::Result<Option<Cursor>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, Cursor>(
            "SELECT created_at, id FROM (
                 SELECT created_at, id FROM challenge_answers
                 WHERE created_at >= $1 AND (created_at > $1 OR id > $2) AND created_at <= $3
                 ORDER BY created_at, id LIMIT $4) a
             ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(after.created_at)
        .bind(&after.id)
        .bind(until)
        .bind(limit)
        .fetch_optional(ex)
        .await?
    }))
}

/// Folds the answers after `after` up to `to` (both in (created_at, id) order) into the
/// first answers: an answer whose player answered the question before adds nothing, nor
/// does one that raised a signal or whose player is held, banned or flagged
/// (`in_good_standing!`): the calibration fits what honest players made of a question.
/// In the caller's transaction, which moves the cursor with it.
pub async fn fold_first_answers(tx: &mut Tx, after: &Cursor, to: &Cursor) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(concat!(
            "INSERT INTO first_answers (question_id, player_id, correct, answered_at)
             SELECT a.question_id, a.player_id, a.is_correct, a.created_at
             FROM challenge_answers a
             WHERE a.created_at >= $1 AND (a.created_at > $1 OR a.id > $2)
               AND (a.created_at < $3 OR (a.created_at = $3 AND a.id <= $4))
               AND ",
            in_good_standing!("a"),
            "
             ORDER BY a.created_at, a.id
             ON CONFLICT (question_id, player_id) DO NOTHING",
        ))
        .bind(after.created_at)
        .bind(&after.id)
        .bind(to.created_at)
        .bind(&to.id)
        .execute(ex)
        .await?
        .rows_affected()
    }))
}

/// A first answer as the fold reads it: its question, its outcome, the skill and floor
/// its surprise is taken from (None on an answer recorded before they were kept), and
/// the surprise it recorded.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FoldRow {
    pub question_id: String,
    pub is_correct: bool,
    pub answer_skill: Option<f64>,
    pub guess_floor: Option<f64>,
    pub surprise: f64,
}

/// The first answers after `after` up to `to` that move difficulties, in answer order:
/// of answers `in_good_standing!` only.
pub async fn surprises_between(db: &Db, after: &Cursor, to: &Cursor) -> sqlx::Result<Vec<FoldRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, FoldRow>(concat!(
            "SELECT a.question_id, a.is_correct, a.answer_skill, a.guess_floor, a.surprise
             FROM challenge_answers a
             WHERE a.created_at >= $1 AND (a.created_at > $1 OR a.id > $2)
               AND (a.created_at < $3 OR (a.created_at = $3 AND a.id <= $4))
               AND a.surprise IS NOT NULL AND ",
            in_good_standing!("a"),
            "
             ORDER BY a.created_at, a.id",
        ))
        .bind(after.created_at)
        .bind(&after.id)
        .bind(to.created_at)
        .bind(&to.id)
        .fetch_all(ex)
        .await?
    }))
}

/// The difficulties of questions as stored (a question without a row: its author's).
pub async fn difficulties(db: &Db, question_ids: &[&str]) -> sqlx::Result<Vec<(String, Estimate)>> {
    let mut found = Vec::with_capacity(question_ids.len());
    for chunk in question_ids.chunks(500) {
        let sql = format!(
            "SELECT q.id, q.difficulty, d.difficulty, d.answers FROM questions q
             LEFT JOIN question_difficulty d ON d.question_id = q.id
             WHERE q.id IN ({})",
            super::placeholders_from(1, chunk.len())
        );
        let rows: Vec<(String, i64, Option<f64>, Option<i64>)> = read!(db, |ex| {
            let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.as_str()));
            for id in chunk {
                q = q.bind(*id);
            }
            q.fetch_all(ex).await?
        });
        found.extend(rows.into_iter().map(|(id, authored, value, answers)| {
            (id, Estimate::stored_or_authored(value, answers, authored))
        }));
    }
    Ok(found)
}

/// Stores questions' difficulties as the fold left them (the job is their one writer
/// besides a fit, both under its lease).
pub async fn store_difficulties(
    tx: &mut Tx,
    moved: &[(String, Estimate)],
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        for (id, estimate) in moved {
            sqlx::query(
                "INSERT INTO question_difficulty (question_id, difficulty, answers, updated_at)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (question_id) DO UPDATE SET difficulty = excluded.difficulty,
                     answers = excluded.answers, updated_at = excluded.updated_at",
            )
            .bind(id)
            .bind(estimate.value)
            .bind(estimate.answers)
            .bind(now_ms)
            .execute(&mut *ex)
            .await?;
            // the copy the pick reads from its index
            sqlx::query("UPDATE questions SET pick_difficulty = $2 WHERE id = $1")
                .bind(id)
                .bind(estimate.value)
                .execute(&mut *ex)
                .await?;
        }
    });
    Ok(())
}

/// Categories whose last fit is older than `before` (or that have none), oldest first,
/// at most `limit`.
pub async fn categories_due(db: &Db, before: i64, limit: i64) -> sqlx::Result<Vec<String>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT c.id FROM categories c
             LEFT JOIN calibrations k ON k.category_id = c.id
             WHERE k.computed_at IS NULL OR k.computed_at <= $1
             ORDER BY COALESCE(k.computed_at, 0), c.id LIMIT $2",
        )
        .bind(before)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}

/// A published question of a category to fit.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FitQuestion {
    pub id: QuestionId,
    /// The author's 1-5.
    pub authored_difficulty: i64,
    /// JSON array of the distractors.
    pub distractors: String,
}

/// The published questions of a category, by id, after `after`, at most `limit`.
pub async fn fit_questions(
    db: &Db,
    category_id: &str,
    after: &str,
    limit: i64,
) -> sqlx::Result<Vec<FitQuestion>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, FitQuestion>(
            "SELECT id, difficulty AS authored_difficulty, distractors FROM questions
             WHERE category_id = $1 AND status = 'published' AND id > $2
             ORDER BY id LIMIT $3",
        )
        .bind(category_id)
        .bind(after)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}

/// A question's first answers: how many, and those of the first `sample` players in id
/// order (the same players for every question, so a fit sees them answer several).
pub async fn first_answers_of(
    db: &Db,
    question_id: &QuestionId,
    sample: i64,
) -> sqlx::Result<Vec<(String, bool)>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (String, bool)>(
            "SELECT player_id, correct FROM first_answers WHERE question_id = $1
             ORDER BY player_id LIMIT $2",
        )
        .bind(question_id)
        .bind(sample)
        .fetch_all(ex)
        .await?
    }))
}

/// Whether a category exists (any status).
pub async fn category_exists(db: &Db, category_id: &str) -> sqlx::Result<bool> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar::<_, bool>("SELECT EXISTS (SELECT 1 FROM categories WHERE id = $1)")
            .bind(category_id)
            .fetch_one(ex)
            .await?
    }))
}

/// A category's fit, as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CalibrationRow {
    pub category_id: String,
    pub model: IrtModel,
    pub guessing: IrtGuessing,
    pub log_likelihood: f64,
    pub examinees: i64,
    pub iterations: i64,
    pub converged: bool,
    pub computed_at: i64,
}

/// A question's calibrated parameters, as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct QuestionCalibrationRow {
    pub question_id: QuestionId,
    pub category_id: String,
    pub model: IrtModel,
    pub difficulty: f64,
    pub discrimination: f64,
    pub guessing: f64,
    pub standard_error: Option<f64>,
    pub answers: i64,
    pub computed_at: i64,
}

/// Stores a category's fit: its summary, its questions' parameters (replacing the last
/// fit's), and each calibrated difficulty as the question's difficulty from now on (the
/// answers' Elo steps go on from it, as small as its answers make them).
pub async fn store_fit(
    tx: &mut Tx,
    fit: &CalibrationRow,
    items: &[QuestionCalibrationRow],
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO calibrations (category_id, model, guessing, log_likelihood, examinees,
                 iterations, converged, computed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (category_id) DO UPDATE SET model = excluded.model,
                 guessing = excluded.guessing, log_likelihood = excluded.log_likelihood,
                 examinees = excluded.examinees, iterations = excluded.iterations,
                 converged = excluded.converged, computed_at = excluded.computed_at",
        )
        .bind(&fit.category_id)
        .bind(fit.model)
        .bind(fit.guessing)
        .bind(fit.log_likelihood)
        .bind(fit.examinees)
        .bind(fit.iterations)
        .bind(fit.converged)
        .bind(fit.computed_at)
        .execute(&mut *ex)
        .await?;
        sqlx::query(
            "UPDATE questions SET calibrated = FALSE
             WHERE id IN (SELECT question_id FROM question_calibrations WHERE category_id = $1)",
        )
        .bind(&fit.category_id)
        .execute(&mut *ex)
        .await?;
        sqlx::query("DELETE FROM question_calibrations WHERE category_id = $1")
            .bind(&fit.category_id)
            .execute(&mut *ex)
            .await?;
        for item in items {
            sqlx::query(
                "INSERT INTO question_calibrations (question_id, category_id, model, difficulty,
                     discrimination, guessing, standard_error, answers, computed_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (question_id) DO UPDATE SET category_id = excluded.category_id,
                     model = excluded.model, difficulty = excluded.difficulty,
                     discrimination = excluded.discrimination, guessing = excluded.guessing,
                     standard_error = excluded.standard_error, answers = excluded.answers,
                     computed_at = excluded.computed_at",
            )
            .bind(&item.question_id)
            .bind(&item.category_id)
            .bind(item.model)
            .bind(item.difficulty)
            .bind(item.discrimination)
            .bind(item.guessing)
            .bind(item.standard_error)
            .bind(item.answers)
            .bind(item.computed_at)
            .execute(&mut *ex)
            .await?;
            sqlx::query(
                "INSERT INTO question_difficulty (question_id, difficulty, answers, updated_at)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (question_id) DO UPDATE SET difficulty = excluded.difficulty,
                     answers = CASE WHEN question_difficulty.answers > excluded.answers
                                    THEN question_difficulty.answers ELSE excluded.answers END,
                     updated_at = excluded.updated_at",
            )
            .bind(&item.question_id)
            .bind(item.difficulty)
            .bind(item.answers)
            .bind(item.computed_at)
            .execute(&mut *ex)
            .await?;
            sqlx::query(
                "UPDATE questions SET pick_difficulty = $2, calibrated = TRUE WHERE id = $1",
            )
            .bind(&item.question_id)
            .bind(item.difficulty)
            .execute(&mut *ex)
            .await?;
        }
    });
    Ok(())
}

/// A category's last fit (None: never fitted).
pub async fn calibration(db: &Db, category_id: &str) -> sqlx::Result<Option<CalibrationRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, CalibrationRow>(
            "SELECT category_id, model, guessing, log_likelihood, examinees, iterations,
                    converged, computed_at
             FROM calibrations WHERE category_id = $1",
        )
        .bind(category_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// The calibrated questions of a category's last fit, by question id.
pub async fn calibrated_questions(
    db: &Db,
    category_id: &str,
) -> sqlx::Result<Vec<QuestionCalibrationRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, QuestionCalibrationRow>(
            "SELECT question_id, category_id, model, difficulty, discrimination, guessing,
                    standard_error, answers, computed_at
             FROM question_calibrations WHERE category_id = $1 ORDER BY question_id",
        )
        .bind(category_id)
        .fetch_all(ex)
        .await?
    }))
}

/// A question's calibrated parameters (None: uncalibrated).
pub async fn question_calibration(
    db: &Db,
    question_id: &QuestionId,
) -> sqlx::Result<Option<QuestionCalibrationRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, QuestionCalibrationRow>(
            "SELECT question_id, category_id, model, difficulty, discrimination, guessing,
                    standard_error, answers, computed_at
             FROM question_calibrations WHERE question_id = $1",
        )
        .bind(question_id)
        .fetch_optional(ex)
        .await?
    }))
}
