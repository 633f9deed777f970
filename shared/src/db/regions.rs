//! `regions`: the region catalogue (31 first-level divisions, seeded by migration).

use super::{Db, read};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RegionRow {
    pub code: String,
    pub name: String,
    pub short_name: String,
    pub parent_code: Option<String>,
    pub level: i64,
    pub sort_order: i64,
    pub enabled: bool,
    pub updated_at: i64,
}

pub async fn list(db: &Db) -> sqlx::Result<Vec<RegionRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, RegionRow>(
            "SELECT code, name, short_name, parent_code, level, sort_order, enabled, updated_at
             FROM regions ORDER BY sort_order, code",
        )
        .fetch_all(ex)
        .await?
    }))
}
