//! The calendar of statutory holidays on which minors may play under the licensed-game
//! profile (NPPA notice 2021 No. 14), kept by staff in the console and the admin API.
//! Every change is in the audit log.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::clock::{beijing, from_ms};
use crate::context::AppContext;
use crate::db::{self, holidays::HolidayRow};
use crate::envelope::Pagination;
use crate::message::msg;
use crate::services::admin_identity::AdminPrincipal;
use crate::services::audit::{self, PageQuery};
use crate::{Error, Result};

/// How far back the calendar's list starts: last year's holidays stay visible.
const LIST_BACK_DAYS: i64 = 366;

/// A statutory holiday.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Holiday {
    /// `YYYY-MM-DD`, a Beijing calendar day.
    pub day: String,
    pub name: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// `PUT /v1/admin/holidays/{day}`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct HolidayInput {
    /// 1-50 characters, e.g. 国庆节.
    pub name: String,
}

impl From<HolidayRow> for Holiday {
    fn from(r: HolidayRow) -> Self {
        Self {
            day: r.day,
            name: r.name,
            created_by: r.created_by,
            created_at: from_ms(r.created_at),
        }
    }
}

/// A day from the path: `YYYY-MM-DD`, or 400.
pub fn parse_day(day: &str) -> Result<NaiveDate> {
    NaiveDate::parse_from_str(day.trim(), "%Y-%m-%d")
        .map_err(|_| Error::validation(msg::DAY_MUST_BE_A_DATE_YYYY_MM_DD))
}

/// `GET /v1/admin/holidays`: from a year ago on, in date order.
pub async fn list(ctx: &AppContext, q: &PageQuery) -> Result<(Vec<Holiday>, Pagination)> {
    let (page, limit, offset) = q.resolve()?;
    let from = beijing::day(ctx.clock.now()) - Duration::days(LIST_BACK_DAYS);
    let (rows, total) = db::holidays::page(&ctx.db, from, limit, offset).await?;
    Ok((
        rows.into_iter().map(Holiday::from).collect(),
        Pagination { total, page, limit },
    ))
}

/// `PUT /v1/admin/holidays/{day}`: adds the day, or renames it.
pub async fn put(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    day: &str,
    input: &HolidayInput,
) -> Result<Holiday> {
    let day = parse_day(day)?;
    let name = input.name.trim();
    if name.is_empty() || name.chars().count() > 50 {
        return Err(Error::validation(msg::NAME_MUST_BE_1_50_CHARACTERS));
    }
    let now_ms = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let before = db::holidays::put(&mut tx, day, name, &admin.username, now_ms).await?;
    let holiday = Holiday {
        day: beijing::day_key(day),
        name: name.to_string(),
        created_by: before
            .as_ref()
            .map_or_else(|| admin.username.clone(), |b| b.created_by.clone()),
        created_at: from_ms(before.as_ref().map_or(now_ms, |b| b.created_at)),
    };
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        audit::Write {
            action: "holiday.put",
            target_type: "holiday",
            target_id: Some(&holiday.day),
            before: before.map(|b| serde_json::json!({"name": b.name})),
            after: Some(serde_json::json!({"name": holiday.name})),
        },
    )
    .await?;
    Ok(holiday)
}

/// `DELETE /v1/admin/holidays/{day}`: 404 when the day is not a holiday.
pub async fn remove(ctx: &AppContext, admin: &AdminPrincipal, day: &str) -> Result<Holiday> {
    let day = parse_day(day)?;
    let mut tx = ctx.db.begin().await?;
    let removed = db::holidays::remove(&mut tx, day)
        .await?
        .ok_or_else(|| Error::not_found(msg::NO_HOLIDAY_ON_THIS_DAY))?;
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        audit::Write {
            action: "holiday.remove",
            target_type: "holiday",
            target_id: Some(&removed.day),
            before: Some(serde_json::json!({"name": removed.name})),
            after: None,
        },
    )
    .await?;
    Ok(removed.into())
}
