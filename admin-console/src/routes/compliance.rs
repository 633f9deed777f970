//! The licensed-game profile's calendar of statutory holidays (`/v1/admin/holidays`).

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok, paged};
use shared::http::{ApiJson, ApiPath, ApiQuery};
use shared::services::audit::PageQuery;
use shared::services::holidays::{self, Holiday, HolidayInput};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AdminUser;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_holidays))
        .routes(routes!(put_holiday, delete_holiday))
}

/// List statutory holidays
///
/// The statutory holidays from a year ago on, in date order: under
/// `COMPLIANCE_PROFILE=licensed_game` minors may play 20:00-21:00 Beijing time on these
/// days besides Fridays, Saturdays and Sundays.
#[utoipa::path(get, path = "/holidays", operation_id = "adminListHolidays", tag = "compliance", security(("admin_jwt" = [])), params(PageQuery),
    responses(
        (status = 200, description = "A page of holidays", body = Envelope<Vec<Holiday>>),
        (status = 400, description = "Bad paging", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn list_holidays(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> ApiResult<Vec<Holiday>> {
    let (items, pagination) = holidays::list(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}

/// Add or rename a statutory holiday
///
/// Makes the day a statutory holiday (or renames it); recorded in the audit log.
#[utoipa::path(put, path = "/holidays/{day}", operation_id = "adminPutHoliday", tag = "compliance", security(("admin_jwt" = [])),
    params(("day" = String, Path, description = "YYYY-MM-DD (Beijing)")),
    request_body(content = HolidayInput, example = json!({"name": "国庆节"})),
    responses(
        (status = 200, description = "The holiday", body = Envelope<Holiday>),
        (status = 400, description = "Bad day or name", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn put_holiday(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(day): ApiPath<String>,
    ApiJson(body): ApiJson<HolidayInput>,
) -> ApiResult<Holiday> {
    Ok(ok(holidays::put(&state.ctx, &admin, &day, &body).await?))
}

/// Remove a statutory holiday
///
/// The day is an ordinary day again; recorded in the audit log.
#[utoipa::path(delete, path = "/holidays/{day}", operation_id = "adminDeleteHoliday", tag = "compliance", security(("admin_jwt" = [])),
    params(("day" = String, Path, description = "YYYY-MM-DD (Beijing)")),
    responses(
        (status = 200, description = "The holiday removed", body = Envelope<Holiday>),
        (status = 400, description = "Bad day", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "Not a holiday", body = ErrorEnvelope),
    ))]
pub async fn delete_holiday(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(day): ApiPath<String>,
) -> ApiResult<Holiday> {
    Ok(ok(holidays::remove(&state.ctx, &admin, &day).await?))
}
