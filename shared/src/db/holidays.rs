//! The statutory holidays on which minors may play under the licensed-game profile.

use chrono::NaiveDate;

use super::{Db, Tx, in_tx, read};
use crate::clock::beijing;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct HolidayRow {
    pub day: String,
    pub name: String,
    pub created_by: String,
    pub created_at: i64,
}

/// The holidays from `first` through `last` (Beijing days).
pub async fn between(db: &Db, first: NaiveDate, last: NaiveDate) -> sqlx::Result<Vec<NaiveDate>> {
    let days: Vec<String> = read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT day FROM statutory_holidays WHERE day >= $1 AND day <= $2 ORDER BY day",
        )
        .bind(beijing::day_key(first))
        .bind(beijing::day_key(last))
        .fetch_all(ex)
        .await?
    });
    Ok(days
        .iter()
        .filter_map(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
        .collect())
}

/// A page of the calendar from `from` on, oldest first.
pub async fn page(
    db: &Db,
    from: NaiveDate,
    limit: i64,
    offset: i64,
) -> sqlx::Result<(Vec<HolidayRow>, i64)> {
    let from = beijing::day_key(from);
    read!(db, |ex| {
        let rows = sqlx::query_as::<_, HolidayRow>(
            "SELECT day, name, created_by, created_at FROM statutory_holidays
             WHERE day >= $1 ORDER BY day LIMIT $2 OFFSET $3",
        )
        .bind(&from)
        .bind(limit)
        .bind(offset)
        .fetch_all(ex)
        .await?;
        let total: i64 =
            sqlx::query_scalar("SELECT count(*) FROM statutory_holidays WHERE day >= $1")
                .bind(&from)
                .fetch_one(ex)
                .await?;
        Ok((rows, total))
    })
}

/// Adds a holiday, or renames it; answers the row as it was before.
pub async fn put(
    tx: &mut Tx,
    day: NaiveDate,
    name: &str,
    admin: &str,
    now_ms: i64,
) -> sqlx::Result<Option<HolidayRow>> {
    let key = beijing::day_key(day);
    in_tx!(tx, |ex| {
        let before = sqlx::query_as::<_, HolidayRow>(
            "SELECT day, name, created_by, created_at FROM statutory_holidays WHERE day = $1",
        )
        .bind(&key)
        .fetch_optional(&mut *ex)
        .await?;
        sqlx::query(
            "INSERT INTO statutory_holidays (day, name, created_by, created_at)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (day) DO UPDATE SET name = excluded.name",
        )
        .bind(&key)
        .bind(name)
        .bind(admin)
        .bind(now_ms)
        .execute(&mut *ex)
        .await?;
        Ok(before)
    })
}

/// Removes a holiday; answers the row removed.
pub async fn remove(tx: &mut Tx, day: NaiveDate) -> sqlx::Result<Option<HolidayRow>> {
    in_tx!(tx, |ex| {
        sqlx::query_as::<_, HolidayRow>(
            "DELETE FROM statutory_holidays WHERE day = $1
             RETURNING day, name, created_by, created_at",
        )
        .bind(beijing::day_key(day))
        .fetch_optional(ex)
        .await
    })
}
