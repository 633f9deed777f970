//! The learning engine's use cases: what a player's skills are (`GET
//! /v1/progress/skills`), the calibration job (first answers folded, categories fitted by
//! item response theory, `domain::irt`), and the fits as the admin API shows them.
//!
//! The online estimates themselves are moved by every judged answer, in its own write
//! (`services::gameplay::answer`, `domain::skill::learn`).

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::clock::from_ms;
use crate::config::LearningSettings;
use crate::context::AppContext;
use crate::db::learning::{self as store, CalibrationRow, QuestionCalibrationRow};
use crate::db::question_stats as cursors;
use crate::db::{self};
use crate::domain::irt::{self, Examinee, FitSettings};
use crate::domain::irt::{IrtGuessing, IrtModel};
use crate::domain::skill::{self, Estimate};
use crate::ids::QuestionId;
use crate::message::msg;
use crate::services::job_clock::SETTLE_MS;
use crate::services::player_auth::PlayerPrincipal;
use crate::{Error, Result};

/// A player's skill on one track.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackSkillView {
    pub track_id: String,
    /// θ on the scale of the questions' difficulties (0: the middle of the players).
    pub skill: f64,
    /// 0-100: the predicted chance of a right answer, averaged over the track's
    /// published questions (a random sample of at most [`MASTERY_SAMPLE`] per category).
    pub mastery: i64,
    /// The judged answers that moved the skill.
    pub answers: i64,
}

/// Questions per category a mastery averages over at most (a random sample: the pick
/// keys are random), so the request costs the same on any bank.
pub const MASTERY_SAMPLE: i64 = 256;

/// `GET /v1/progress/skills`: every track, with the player's skill there (a new
/// player's where they have not answered) and its mastery.
pub async fn skills(ctx: &AppContext, player: &PlayerPrincipal) -> Result<Vec<TrackSkillView>> {
    let rows = store::player_skills(&ctx.db, &player.id).await?;
    let mut shown = Vec::new();
    for track in db::tracks::tracks(&ctx.db).await? {
        let estimate =
            rows.iter()
                .find(|r| r.track_id == track.id)
                .map_or(Estimate::NEW_PLAYER, |r| Estimate {
                    value: r.skill,
                    answers: r.answers,
                });
        let mut predictions = Vec::new();
        for category in db::tracks::track_categories(&ctx.db, &track.id).await? {
            for q in store::sample_difficulties(&ctx.db, &category, MASTERY_SAMPLE).await? {
                let floor = skill::guessing_floor(option_count(&q.distractors));
                predictions.push(skill::predicted_success(
                    estimate.value,
                    q.difficulty(),
                    floor,
                ));
            }
        }
        shown.push(TrackSkillView {
            track_id: track.id,
            skill: round(estimate.value, 3),
            mastery: skill::mastery(&predictions),
            answers: estimate.answers,
        });
    }
    Ok(shown)
}

fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

pub use crate::domain::skill::option_count;

/// The calibration job's name for its cursor over the answers (`stats_cursors`).
const FIRST_ANSWERS: &str = "first_answers";
/// Answers one fold reads at most (one short transaction: on SQLite it holds the one
/// writer), and folds per run (about 4,000 answers a second of play, as the statistics
/// job reads them).
const FOLD_BATCH: i64 = 1000;
const FOLDS_PER_RUN: u32 = 250;
/// Categories fitted per run at most; the others are due at the next run.
const FITS_PER_RUN: i64 = 4;
/// Questions read per page while a fit gathers its category.
const QUESTION_PAGE: i64 = 500;

/// What one run of the calibration job did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Calibrated {
    /// New first answers folded in.
    pub first_answers: u64,
    /// Categories fitted.
    pub categories: u64,
    /// Questions calibrated by those fits.
    pub questions: u64,
}

/// One run of the calibration job: the new answers folded into the first answers, then
/// the categories whose last fit is older than `CALIBRATION_REFRESH_SECONDS` fitted.
pub async fn calibrate(ctx: &AppContext) -> Result<Calibrated> {
    let now = crate::services::job_clock::cautious_now_ms(ctx).await?;
    let mut done = Calibrated {
        first_answers: fold(ctx, now - SETTLE_MS, now).await?,
        ..Calibrated::default()
    };
    let settings = &ctx.settings.learning;
    let due = store::categories_due(
        &ctx.db,
        now - settings.calibration_refresh_seconds * 1000,
        FITS_PER_RUN,
    )
    .await?;
    for category in due {
        done.questions += fit_category(ctx, &category, now).await?;
        done.categories += 1;
    }
    Ok(done)
}

/// Folds the answers the cursor has not passed (and that are `until` old) into the first
/// answers, and moves each question's difficulty by its first answers in answer order
/// (`domain::skill::fold_first_answers`: sequential Elo, each surprise taken against the
/// difficulty the answers before it left, from the skill the answer recorded; this is
/// where a question's difficulty moves, not in each answer's write); in batches, each
/// with its cursor move in one transaction.
async fn fold(ctx: &AppContext, until: i64, now: i64) -> Result<u64> {
    let mut folded = 0;
    for _ in 0..FOLDS_PER_RUN {
        let from = cursors::cursor(&ctx.db, FIRST_ANSWERS).await?;
        let Some(to) = store::answers_end(&ctx.db, &from, until, FOLD_BATCH).await? else {
            break;
        };
        let answers = store::surprises_between(&ctx.db, &from, &to).await?;
        let mut ids: Vec<&str> = answers.iter().map(|a| a.question_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut moved: HashMap<String, Estimate> = store::difficulties(&ctx.db, &ids)
            .await?
            .into_iter()
            .collect();
        for a in &answers {
            if let Some(estimate) = moved.get_mut(&a.question_id) {
                let answer = match (a.answer_skill, a.guess_floor) {
                    (Some(skill), Some(floor)) => skill::FoldedAnswer::Judged {
                        skill,
                        floor,
                        correct: a.is_correct,
                    },
                    _ => skill::FoldedAnswer::Recorded {
                        surprise: a.surprise,
                    },
                };
                *estimate = skill::fold_first_answers(
                    &ctx.settings.learning.elo,
                    *estimate,
                    std::slice::from_ref(&answer),
                );
            }
        }
        let moved: Vec<(String, Estimate)> = moved.into_iter().collect();
        let mut tx = ctx.db.begin().await?;
        store::store_difficulties(&mut tx, &moved, now).await?;
        let added = store::fold_first_answers(&mut tx, &from, &to).await?;
        if !cursors::move_cursor(&mut tx, FIRST_ANSWERS, &from, &to).await? {
            // another run folded these meanwhile
            break;
        }
        tx.commit().await?;
        folded += added;
        // leave the (SQLite: single) writer to requests between batches
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(folded)
}

/// Fits one category from its questions' first answers and stores the fit; returns how
/// many questions it calibrated.
async fn fit_category(ctx: &AppContext, category_id: &str, now: i64) -> Result<u64> {
    let settings = ctx.settings.learning.clone();
    let mut questions = Vec::new();
    let mut after = String::new();
    loop {
        let page = store::fit_questions(&ctx.db, category_id, &after, QUESTION_PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.id.to_string();
        let full = page.len() as i64 == QUESTION_PAGE;
        for q in page {
            let answers =
                store::first_answers_of(&ctx.db, &q.id, settings.irt_sample_per_question).await?;
            if (answers.len() as i64) >= settings.irt_min_answers {
                questions.push((q, answers));
            }
        }
        if !full {
            break;
        }
    }
    let ids: Vec<QuestionId> = questions.iter().map(|(q, _)| q.id.clone()).collect();
    let floors: Vec<f64> = questions
        .iter()
        .map(|(q, _)| match settings.irt_guessing {
            IrtGuessing::Options => skill::guessing_floor(option_count(&q.distractors)),
            IrtGuessing::None => 0.0,
        })
        .collect();
    let authored: Vec<f64> = questions
        .iter()
        .map(|(q, _)| skill::authored_difficulty(q.authored_difficulty))
        .collect();
    let examinees = examinees_of(questions.iter().map(|(_, answers)| answers.as_slice()));
    let job = settings.clone();
    // The EM loop is CPU work of seconds on a large bank: off the request threads.
    let fit =
        tokio::task::spawn_blocking(move || calibration_fit(&job, &floors, &authored, &examinees))
            .await
            .map_err(|e| Error::internal(format!("calibration fit: {e}")))?;
    let row = CalibrationRow {
        category_id: category_id.to_string(),
        model: settings.irt_model,
        guessing: settings.irt_guessing,
        log_likelihood: if fit.log_likelihood.is_finite() {
            fit.log_likelihood
        } else {
            0.0
        },
        examinees: fit.examinees.round() as i64,
        iterations: fit.iterations as i64,
        converged: fit.converged,
        computed_at: now,
    };
    let items: Vec<QuestionCalibrationRow> = ids
        .iter()
        .zip(&fit.items)
        .filter(|(_, item)| item.parameters.difficulty().is_finite())
        .map(|(id, item)| QuestionCalibrationRow {
            question_id: id.clone(),
            category_id: category_id.to_string(),
            model: row.model,
            difficulty: item.parameters.difficulty(),
            discrimination: item.parameters.slope,
            guessing: item.parameters.guessing,
            standard_error: item.difficulty_standard_error.filter(|s| s.is_finite()),
            answers: item.answers.round() as i64,
            computed_at: now,
        })
        .collect();
    let mut tx = ctx.db.begin().await?;
    store::store_fit(&mut tx, &row, &items).await?;
    tx.commit().await?;
    Ok(items.len() as u64)
}

/// The examinees of a fit: one per player, with their first answers to the questions in
/// order (a question's index is its place in `answers`).
fn examinees_of<'a>(answers: impl Iterator<Item = &'a [(String, bool)]>) -> Vec<Examinee> {
    let mut index: HashMap<&'a str, usize> = HashMap::new();
    let mut examinees: Vec<Examinee> = Vec::new();
    for (question, answers) in answers.enumerate() {
        for (player, correct) in answers {
            let i = *index.entry(player.as_str()).or_insert_with(|| {
                examinees.push(Examinee {
                    weight: 1.0,
                    responses: Vec::new(),
                });
                examinees.len() - 1
            });
            examinees[i].responses.push((question, *correct));
        }
    }
    examinees
}

/// A question's parameters in a fit, as the admin API shows them.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalibratedQuestion {
    pub question_id: QuestionId,
    /// b = −d/a.
    pub difficulty: f64,
    /// The slope a.
    pub discrimination: f64,
    /// The floor c the fit held (1 / options, or 0).
    pub guessing: f64,
    /// Of the difficulty (null when the answers cannot tell).
    pub standard_error: Option<f64>,
    /// The first answers the fit read.
    pub answers: i64,
}

/// A question's calibration, as `GET /v1/admin/questions/{id}/stats` shows it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionCalibration {
    pub model: IrtModel,
    pub difficulty: f64,
    pub discrimination: f64,
    pub guessing: f64,
    pub standard_error: Option<f64>,
    pub answers: i64,
    pub computed_at: DateTime<Utc>,
}

/// A category's last fit: `GET /v1/admin/calibration?categoryId=`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CategoryCalibration {
    pub category_id: String,
    pub model: IrtModel,
    pub guessing: IrtGuessing,
    pub log_likelihood: f64,
    /// The players whose first answers the fit read.
    pub examinees: i64,
    pub iterations: i64,
    pub converged: bool,
    pub items: Vec<CalibratedQuestion>,
    pub computed_at: DateTime<Utc>,
}

/// The last fit of a category (None: not fitted yet); 404 for an unknown category.
pub async fn category_calibration(
    ctx: &AppContext,
    category_id: Option<&str>,
) -> Result<Option<CategoryCalibration>> {
    let category_id = category_id
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| Error::validation(msg::CATEGORYID_IS_REQUIRED))?;
    if !store::category_exists(&ctx.db, category_id).await? {
        return Err(Error::not_found(msg::CATEGORY_NOT_FOUND));
    }
    let Some(fit) = store::calibration(&ctx.db, category_id).await? else {
        return Ok(None);
    };
    let items = store::calibrated_questions(&ctx.db, category_id)
        .await?
        .into_iter()
        .map(|q| CalibratedQuestion {
            question_id: q.question_id,
            difficulty: q.difficulty,
            discrimination: q.discrimination,
            guessing: q.guessing,
            standard_error: q.standard_error,
            answers: q.answers,
        })
        .collect();
    Ok(Some(CategoryCalibration {
        category_id: fit.category_id,
        model: fit.model,
        guessing: fit.guessing,
        log_likelihood: fit.log_likelihood,
        examinees: fit.examinees,
        iterations: fit.iterations,
        converged: fit.converged,
        items,
        computed_at: from_ms(fit.computed_at),
    }))
}

/// A question's calibrated parameters (None while uncalibrated).
pub async fn question_calibration(
    ctx: &AppContext,
    question_id: &QuestionId,
) -> Result<Option<QuestionCalibration>> {
    Ok(store::question_calibration(&ctx.db, question_id)
        .await?
        .map(|q| QuestionCalibration {
            model: q.model,
            difficulty: q.difficulty,
            discrimination: q.discrimination,
            guessing: q.guessing,
            standard_error: q.standard_error,
            answers: q.answers,
            computed_at: from_ms(q.computed_at),
        }))
}

/// The calibration job's fit of one category's questions (`floors[j]` and `authored[j]`,
/// the author's 1-5 on the scale, for question j) from `examinees`' first answers: the
/// model `IRT_MODEL` names, with the prior the authors' ratings give
/// (`irt::fit_with_author_prior`) unless `IRT_AUTHOR_PRIOR=false`.
pub fn calibration_fit(
    settings: &LearningSettings,
    floors: &[f64],
    authored: &[f64],
    examinees: &[Examinee],
) -> irt::Fit {
    let fit_settings = FitSettings {
        model: settings.irt_model,
        ..FitSettings::default()
    };
    if settings.irt_author_prior {
        irt::fit_with_author_prior(floors, authored, examinees, &fit_settings).0
    } else {
        irt::fit(floors, examinees, &fit_settings)
    }
}

/// Players' skills a Wright map draws at most (a random sample by id).
pub const WRIGHT_PLAYERS: i64 = 5000;
/// (Player, track) skill rows a Wright map reads at most to find them.
pub const WRIGHT_ROWS_SCANNED: i64 = 100_000;
/// Questions a Wright map draws at most (a random sample by pick key).
pub const WRIGHT_QUESTIONS: i64 = 2000;

/// What a category's console page shows of the learning engine: its players' skills and
/// its questions' difficulties on one scale (a Wright map), and its last fit.
#[derive(Clone, Debug, Default)]
pub struct CategoryLearning {
    /// The track whose players' skills are drawn (the category or its nearest track
    /// ancestor); None when the category is in no track.
    pub track_id: Option<String>,
    /// Skills θ of up to [`WRIGHT_PLAYERS`] of the track's players.
    pub player_skills: Vec<f64>,
    /// Difficulties b (calibrated, Elo, or the author's mapped) of up to
    /// [`WRIGHT_QUESTIONS`] published questions of the category and its sub-categories.
    pub question_difficulties: Vec<f64>,
    pub last_fit: Option<CalibrationRow>,
}

/// The learning panel of a category's console page: bounded reads only (samples by
/// index, the fit by key), whatever the number of players.
pub async fn category_learning(ctx: &AppContext, category_id: &str) -> Result<CategoryLearning> {
    let track_id = db::tracks::track_of(&ctx.db, category_id).await?;
    let player_skills = match &track_id {
        Some(track) => {
            store::track_skill_sample(&ctx.db, track, WRIGHT_PLAYERS, WRIGHT_ROWS_SCANNED).await?
        }
        None => Vec::new(),
    };
    let mut question_difficulties = Vec::new();
    for category in db::tracks::track_categories(&ctx.db, category_id).await? {
        let room = WRIGHT_QUESTIONS - question_difficulties.len() as i64;
        if room <= 0 {
            break;
        }
        let sample = store::sample_difficulties(&ctx.db, &category, room).await?;
        question_difficulties.extend(sample.iter().map(store::QuestionDifficulty::difficulty));
    }
    Ok(CategoryLearning {
        track_id,
        player_skills,
        question_difficulties,
        last_fit: store::calibration(&ctx.db, category_id).await?,
    })
}
