//! Spaced review's use cases outside the answer itself: the schedule a player's answers
//! are judged with (their own fitted parameters, else the defaults), the due count the
//! summary shows, the staff's view and the job that fits each player's parameters. The review challenge is in `services::gameplay`; the answer
//! writes the memory (`domain::memory`).

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::Result;
use crate::clock::from_ms;
use crate::closed_set::closed_set;
use crate::context::AppContext;
use crate::db;
use crate::db::question_stats::{self as cursors, Cursor};
use crate::domain::memory::{self, FitOutcome, Memory, PastAnswer, Schedule};
use crate::ids::{PlayerId, QuestionId};

/// The schedule of a player with `parameters` (their fitted FSRS parameters as JSON,
/// None before a fit): the defaults when none, or when the stored set is unreadable.
pub fn schedule(ctx: &AppContext, parameters: Option<&str>) -> Schedule {
    let retention = ctx.settings.learning.review_retention;
    parameters
        .and_then(|json| serde_json::from_str::<Vec<f32>>(json).ok())
        .and_then(|p| Schedule::new(&p, retention).ok())
        .unwrap_or_else(|| Schedule::with_defaults(retention))
}

/// How many of the player's questions are in their reviews now, up to
/// `db::review::DUE_CAP`.
pub async fn due_count(ctx: &AppContext, player_id: &PlayerId) -> Result<i64> {
    Ok(db::review::due_count(&ctx.db, player_id, ctx.clock.now_ms()).await?)
}

closed_set! {
    /// Whose memory parameters schedule a player's reviews: `default` (FSRS-6's) or
    /// `fitted` (the player's own).
    pub enum MemoryParameters in "memory-parameters" {
        Default = "default",
        Fitted = "fitted",
    }
}

/// What the staff see of a player's review.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerReview {
    /// Questions in the player's reviews now (capped at 99).
    pub due_count: i64,
    /// Questions the player has a memory of (counted up to 2,000).
    pub remembered: i64,
    /// Mean predicted recall now over those questions; null without any.
    pub average_recall: Option<f64>,
    pub parameters: MemoryParameters,
    /// When the player's own parameters were fitted.
    pub parameters_fitted_at: Option<DateTime<Utc>>,
}

impl PlayerReview {
    /// The mean predicted recall in whole percent, for pages.
    pub fn recall_percent(&self) -> Option<i64> {
        self.average_recall.map(|r| (r * 100.0).round() as i64)
    }
}

/// The staff's view of player `player_id`'s review (bounded: a capped count and at most
/// `db::review::PLAYER_VIEW_ROWS` memory rows).
pub async fn player_review(ctx: &AppContext, player_id: &PlayerId) -> Result<PlayerReview> {
    let now = ctx.clock.now_ms();
    let fitted = db::review::parameters(&ctx.db, player_id).await?;
    let schedule = schedule(ctx, fitted.as_ref().map(|(json, _)| json.as_str()));
    let rows = db::review::player_memory(&ctx.db, player_id).await?;
    let recalls: Vec<f64> = rows
        .iter()
        .map(|r| {
            schedule.recall(
                &Memory {
                    stability: r.stability,
                    difficulty: r.difficulty,
                    reviews: 1,
                    lapses: 0,
                    last_correct: true,
                    last_answered_at: r.last_answered_at,
                    due_at: r.last_answered_at,
                    review_at: r.last_answered_at,
                },
                now,
            )
        })
        .collect();
    Ok(PlayerReview {
        due_count: due_count(ctx, player_id).await?,
        remembered: recalls.len() as i64,
        average_recall: (!recalls.is_empty())
            .then(|| recalls.iter().sum::<f64>() / recalls.len() as f64),
        parameters: if fitted.is_some() {
            MemoryParameters::Fitted
        } else {
            MemoryParameters::Default
        },
        parameters_fitted_at: fitted.map(|(_, at)| from_ms(at)),
    })
}

/// What a run of the fitting job did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fits {
    /// Players looked at (the scan's window).
    pub scanned: u64,
    /// Players whose parameters were fitted and stored.
    pub fitted: u64,
    /// Players due whose answers the optimizer could not fit (too few repeats), or
    /// whose fit predicted their own later answers no better than the defaults
    /// (`domain::memory::fit_checked`): they keep the defaults, tried again a week later.
    pub unfit: u64,
    /// Questions whose players' mean stability was refreshed.
    pub questions: u64,
}

/// The fitting job's cursor over players (in `stats_cursors`: its id is the last player
/// scanned).
const FIT_CURSOR: &str = "review_fit";
/// Players scanned per run (a primary-key range).
const FIT_SCAN: i64 = 5_000;
/// Fits per run at most (each reads at most `db::review::FIT_ANSWERS` answers).
const FITS_PER_RUN: usize = 4;
/// A fit is refreshed after this long.
const REFIT_MS: i64 = 30 * 86_400_000;
/// A player found unfit is tried again after this long (with more answers by then).
const RETRY_MS: i64 = 7 * 86_400_000;

/// The `review_fit` job: walks the players in id order, a window per run, and fits the
/// FSRS parameters of live accounts with `FSRS_MIN_REVIEWS` answers and no fit in the
/// last 30 days (no try in the last 7 when the last found too little), at most
/// four per run, with the crate's optimizer on their own answers; at the end
/// of the players it starts again.
pub async fn fit_due(ctx: &AppContext) -> Result<Fits> {
    let now = crate::services::job_clock::cautious_now_ms(ctx).await?;
    let from = cursors::cursor(&ctx.db, FIT_CURSOR).await?;
    let scan = db::review::scan_for_fits(
        &ctx.db,
        &from.id,
        ctx.settings.learning.fsrs_min_reviews,
        now - REFIT_MS,
        now - RETRY_MS,
        FIT_SCAN,
    )
    .await?;
    let mut done = Fits::default();
    let mut last = None;
    for row in &scan {
        if row.due {
            if done.fitted + done.unfit >= FITS_PER_RUN as u64 {
                break;
            }
            if fit_player(ctx, &row.player_id, now).await? {
                done.fitted += 1;
            } else {
                done.unfit += 1;
            }
        }
        done.scanned += 1;
        last = Some(row.player_id.as_str());
    }
    // the window read: the next run goes on after it, or from the start again
    let to = match last {
        Some(id) if scan.len() as i64 == FIT_SCAN || done.scanned < scan.len() as u64 => Cursor {
            created_at: 0,
            id: id.to_string(),
        },
        _ => Cursor::start(),
    };
    move_cursor(ctx, FIT_CURSOR, &from, to).await?;
    done.questions = refresh_questions(ctx, now).await?;
    Ok(done)
}

/// Moves a cursor of this job, when it moved (a run that lost the race leaves it).
async fn move_cursor(ctx: &AppContext, name: &str, from: &Cursor, to: Cursor) -> Result<()> {
    if to != *from {
        let mut tx = ctx.db.begin().await?;
        if cursors::move_cursor(&mut tx, name, from, &to).await? {
            tx.commit().await?;
        }
    }
    Ok(())
}

/// The job's cursor over questions.
const QUESTION_CURSOR: &str = "review_questions";
/// Questions looked at per run.
const QUESTIONS_PER_RUN: i64 = 100;
/// Memory rows parked or brought back per statement, and per run at most.
const PARK_BATCH: i64 = 5_000;
const PARK_ROWS_PER_RUN: i64 = 50_000;

/// The job's pass over the questions, a window per run (from the start again at the end
/// of the bank): an unpublished question's memory rows are parked out of the reviews
/// (a published one's brought back), in batches; a published question's players' mean
/// stability is refreshed; then the `quickly_forgotten` marks (the worst tenth of the
/// questions with `domain::memory::FORGOTTEN_MIN_PLAYERS`). Returns the questions
/// refreshed.
async fn refresh_questions(ctx: &AppContext, now: i64) -> Result<u64> {
    let from = cursors::cursor(&ctx.db, QUESTION_CURSOR).await?;
    let window = db::review::questions_after(&ctx.db, &from.id, QUESTIONS_PER_RUN).await?;
    let mut rows = Vec::with_capacity(window.len());
    let mut budget = PARK_ROWS_PER_RUN;
    let mut done: Option<&str> = None;
    let mut stopped = false;
    for q in &window {
        // published and parked, or unpublished and not: its rows move
        if q.published == q.parked {
            loop {
                let batch = PARK_BATCH.min(budget);
                let moved =
                    db::review::park_question(&ctx.db, &q.id, !q.published, batch).await? as i64;
                budget -= moved;
                if moved < batch {
                    break;
                }
                if budget <= 0 {
                    stopped = true;
                    break;
                }
            }
            if stopped {
                // the rest of this question's rows: the next run
                break;
            }
        }
        if q.published
            && let (players, Some(stability)) =
                db::review::question_stability(&ctx.db, &q.id).await?
        {
            rows.push((q.id.clone(), players, stability));
        }
        done = Some(q.id.as_str());
    }
    db::review::store_question_memory(&ctx.db, &rows, now).await?;
    let stabilities = db::review::stabilities(&ctx.db, memory::FORGOTTEN_MIN_PLAYERS).await?;
    db::review::mark_quickly_forgotten(
        &ctx.db,
        memory::FORGOTTEN_MIN_PLAYERS,
        memory::quickly_forgotten_threshold(&stabilities),
    )
    .await?;
    let to = match done {
        Some(last) if stopped || window.len() as i64 == QUESTIONS_PER_RUN => Cursor {
            created_at: 0,
            id: last.to_string(),
        },
        None if stopped => from.clone(),
        _ => Cursor::start(),
    };
    move_cursor(ctx, QUESTION_CURSOR, &from, to).await?;
    Ok(rows.len() as u64)
}

/// How fast a question's players forget it (the staff's question statistics).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionMemory {
    /// Players who remember it (counted up to 5,000).
    pub players: i64,
    /// Their mean FSRS stability, in days.
    pub average_stability: f64,
    /// Among the tenth of questions (with at least 30 players) forgotten fastest: its
    /// card may need work.
    pub quickly_forgotten: bool,
    pub computed_at: DateTime<Utc>,
}

/// The question's memory statistics, once the review job has computed them.
pub async fn question_memory(
    ctx: &AppContext,
    question_id: &QuestionId,
) -> Result<Option<QuestionMemory>> {
    Ok(db::review::question_memory(&ctx.db, question_id)
        .await?
        .map(|r| QuestionMemory {
            players: r.players,
            average_stability: r.average_stability,
            quickly_forgotten: r.quickly_forgotten,
            computed_at: from_ms(r.computed_at),
        }))
}

/// Fits and stores player `player_id`'s parameters; false when their answers do not
/// give the optimizer enough to fit.
async fn fit_player(ctx: &AppContext, player_id: &PlayerId, now: i64) -> Result<bool> {
    let rows = db::review::answer_history(&ctx.db, player_id).await?;
    let answers = rows.len() as i64;
    let mut histories: Vec<Vec<PastAnswer>> = Vec::new();
    let mut question: Option<&str> = None;
    for row in &rows {
        if question != Some(row.question_id.as_str()) {
            histories.push(Vec::new());
            question = Some(row.question_id.as_str());
        }
        if let Some(history) = histories.last_mut() {
            history.push(PastAnswer {
                correct: row.is_correct,
                at_ms: row.created_at,
            });
        }
    }
    // the optimizer is CPU work: off the request threads
    let fitted = tokio::task::spawn_blocking(move || memory::fit_checked(&histories))
        .await
        .map_err(|e| crate::Error::internal(format!("FSRS fit: {e}")))?;
    let json = match fitted {
        FitOutcome::Fitted(parameters) => Some(
            serde_json::to_string(&parameters)
                .map_err(|e| crate::Error::internal(format!("FSRS parameters: {e}")))?,
        ),
        // remembered as tried, so the next passes go to others for a week
        FitOutcome::TooLittle => None,
        FitOutcome::NoBetter { fitted, defaults } => {
            tracing::debug!(%player_id, fitted, defaults, "a fit no better than the defaults");
            None
        }
    };
    db::review::store_parameters(&ctx.db, player_id, json.as_deref(), answers, now).await?;
    Ok(json.is_some())
}
