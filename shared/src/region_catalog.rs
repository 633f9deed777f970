//! The region catalogue, cached in-process: it changes only with a migration.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::clock::from_ms;
use crate::db::{self, Db};

/// Version of the region list clients cache (bumped with the migration that changes it).
pub const REGION_LIST_VERSION: &str = "2026.1";

/// A region list entry.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegionEntry {
    /// Administrative division code.
    pub code: String,
    pub name: String,
    pub short_name: String,
    pub parent_code: Option<String>,
    /// 1 = first-level division.
    pub level: i64,
    pub sort_order: i64,
    pub enabled: bool,
}

/// The wrapper of `GET /v1/app/regions`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegionList {
    pub version: String,
    pub country_code: String,
    /// `flat` in this version.
    pub hierarchy: String,
    pub updated_at: DateTime<Utc>,
    pub regions: Vec<RegionEntry>,
}

/// The cached catalogue.
#[derive(Clone, Debug)]
pub struct RegionCatalog {
    list: RegionList,
}

impl RegionCatalog {
    pub async fn load(db: &Db) -> sqlx::Result<Self> {
        let rows = db::regions::list(db).await?;
        let updated_at = rows.iter().map(|r| r.updated_at).max().unwrap_or(0);
        let regions = rows
            .into_iter()
            .map(|r| RegionEntry {
                code: r.code,
                name: r.name,
                short_name: r.short_name,
                parent_code: r.parent_code,
                level: r.level,
                sort_order: r.sort_order,
                enabled: r.enabled,
            })
            .collect();
        Ok(Self {
            list: RegionList {
                version: REGION_LIST_VERSION.to_string(),
                country_code: "CN".to_string(),
                hierarchy: "flat".to_string(),
                updated_at: from_ms(updated_at),
                regions,
            },
        })
    }

    pub fn list(&self) -> &RegionList {
        &self.list
    }

    /// An enabled region by code.
    pub fn enabled(&self, code: &str) -> Option<&RegionEntry> {
        self.list
            .regions
            .iter()
            .find(|r| r.code == code && r.enabled)
    }
}
