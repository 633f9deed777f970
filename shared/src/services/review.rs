//! Spaced review's use cases outside the answer itself: the schedule a player's answers
//! are judged with (their own fitted parameters, else the defaults) and the due count
//! the summary shows. The review challenge is in `services::gameplay`; the answer
//! writes the memory (`domain::memory`).

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::Result;
use crate::clock::from_ms;
use crate::context::AppContext;
use crate::db;
use crate::domain::memory::{Memory, Schedule};

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
pub async fn due_count(ctx: &AppContext, player_id: &str) -> Result<i64> {
    Ok(db::review::due_count(&ctx.db, player_id, ctx.clock.now_ms()).await?)
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
    /// `default` (FSRS-6's) or `fitted` (the player's own).
    pub parameters: String,
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
pub async fn player_review(ctx: &AppContext, player_id: &str) -> Result<PlayerReview> {
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
            "fitted"
        } else {
            "default"
        }
        .into(),
        parameters_fitted_at: fitted.map(|(_, at)| from_ms(at)),
    })
}
