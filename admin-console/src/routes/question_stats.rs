//! What the answers say about the question bank: `/v1/admin/questions/{id}/stats` and
//! the dashboard's days, `/v1/admin/stats/daily`. Both read what the `question_stats`
//! job stored; neither counts anything. And the calibration job's fits:
//! `/v1/admin/calibration`.

use axum::extract::State;
use serde::Deserialize;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok};
use shared::http::{ApiPath, ApiQuery};
use shared::ids::QuestionId;
use shared::services::learning::{self, CategoryCalibration};
use shared::services::question_stats::{self, DayActivity, QuestionStats, StatsQuery};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AdminUser;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(question_stats))
        .routes(routes!(daily_activity))
        .routes(routes!(calibration))
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct CalibrationQuery {
    /// The category (track) whose last fit to show.
    pub category_id: Option<String>,
}

/// Get a category's calibration
///
/// The last item response theory fit of the category's questions (the calibration job
/// fits each category every `CALIBRATION_REFRESH_SECONDS`): model, guessing floor,
/// log-likelihood, examinees and each calibrated question's parameters; null before the
/// first fit.
#[utoipa::path(get, path = "/calibration", operation_id = "adminGetCalibration", tag = "questions", security(("admin_jwt" = [])),
    params(CalibrationQuery),
    responses(
        (status = 200, description = "The last fit, or null", body = Envelope<Option<CategoryCalibration>>),
        (status = 400, description = "categoryId missing", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such category", body = ErrorEnvelope),
    ))]
pub async fn calibration(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(q): ApiQuery<CalibrationQuery>,
) -> ApiResult<Option<CategoryCalibration>> {
    Ok(ok(learning::category_calibration(
        &state.ctx,
        q.category_id.as_deref(),
    )
    .await?))
}

/// Get a question's statistics
///
/// Attempts, accuracy, median time, option pick rates, discrimination, card views and
/// flags of one version (default: the current one), at most a few minutes old.
#[utoipa::path(get, path = "/questions/{id}/stats", operation_id = "adminGetQuestionStats", tag = "questions", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Question id"), StatsQuery),
    responses(
        (status = 200, description = "The version's statistics", body = Envelope<QuestionStats>),
        (status = 400, description = "A version that is not a positive integer", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question or version", body = ErrorEnvelope),
    ))]
pub async fn question_stats(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath(id): ApiPath<QuestionId>,
    ApiQuery(q): ApiQuery<StatsQuery>,
) -> ApiResult<QuestionStats> {
    Ok(ok(
        question_stats::question_stats(&state.ctx, &id, &q).await?
    ))
}

/// Get the last 30 days
///
/// Per Beijing day, oldest first: players who answered, answers, accuracy and signups.
#[utoipa::path(get, path = "/stats/daily", operation_id = "adminGetDailyActivity", tag = "stats", security(("admin_jwt" = [])),
    responses(
        (status = 200, description = "30 days, oldest first", body = Envelope<Vec<DayActivity>>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn daily_activity(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
) -> ApiResult<Vec<DayActivity>> {
    Ok(ok(question_stats::daily_activity(&state.ctx).await?))
}
