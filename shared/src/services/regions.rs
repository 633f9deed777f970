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

/// A player's selected region.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectedRegion {
    pub code: String,
    pub name: String,
    pub short_name: String,
    pub selected_at: DateTime<Utc>,
    /// The start of the next Beijing calendar month after the selection.
    pub next_change_allowed_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RegionChange {
    pub region: SelectedRegion,
}

/// The selected region of a player's stored state, if any.
pub fn selected(
    ctx: &crate::context::AppContext,
    s: &db::players::RegionState,
) -> Option<SelectedRegion> {
    let code = s.region_code.as_deref()?;
    let entry = ctx.regions.list().regions.iter().find(|r| r.code == code)?;
    Some(SelectedRegion {
        code: entry.code.clone(),
        name: entry.name.clone(),
        short_name: entry.short_name.clone(),
        selected_at: from_ms(s.region_selected_at.unwrap_or(0)),
        next_change_allowed_at: from_ms(s.region_next_change_at.unwrap_or(0)),
    })
}

/// `PATCH /v1/users/me/region`: the first selection is free; after any selection the
/// next change waits for the next Beijing month. Choosing the current region again
/// changes nothing.
pub async fn change_region(
    ctx: &crate::context::AppContext,
    player: &crate::services::player_auth::PlayerPrincipal,
    code: &str,
) -> crate::Result<RegionChange> {
    use crate::Error;
    use crate::clock::beijing;
    let code = code.trim();
    let entry = ctx
        .regions
        .enabled(code)
        .ok_or_else(|| Error::validation("regionCode is not an enabled region"))?
        .clone();
    let state = db::players::region_state(&ctx.db, &player.id)
        .await?
        .ok_or_else(|| Error::unauthorized("account deleted"))?;
    if state.region_code.as_deref() == Some(code) {
        let region =
            selected(ctx, &state).ok_or_else(|| Error::internal("selected region vanished"))?;
        return Ok(RegionChange { region });
    }
    let now = ctx.clock.now();
    let next = beijing::next_month_start(now);
    let mut tx = ctx.db.begin().await?;
    if !db::players::select_region(
        &mut tx,
        &player.id,
        code,
        now.timestamp_millis(),
        next.timestamp_millis(),
    )
    .await?
    {
        let allowed = state.region_next_change_at.map(from_ms).unwrap_or(next);
        return Err(Error::RegionChangeLimit(format!(
            "the region can change once per Beijing calendar month; next change from {}",
            allowed.to_rfc3339()
        )));
    }
    let week = beijing::day_key(beijing::week_start(now));
    let old_board = state.region_code.as_ref().map(|c| format!("region:{c}"));
    let new_board = format!("region:{code}");
    let moved = db::leaderboard::move_region_row(
        &mut tx,
        &week,
        &player.id,
        old_board.as_deref(),
        &new_board,
    )
    .await?;
    tx.commit().await?;
    ctx.board_cache.forget_all();
    if let Some(ranks) = &ctx.ranks {
        if let Some(old) = old_board {
            ranks.invalidate(&week, &[old]).await;
        }
        if let Some(row) = moved {
            ranks
                .apply(&[crate::rank_index::RankUpdate {
                    week_start: week,
                    board: new_board,
                    player_id: row.player_id,
                    xp: row.xp,
                    last_earned_at: row.last_earned_at,
                }])
                .await;
        }
    }
    Ok(RegionChange {
        region: SelectedRegion {
            code: entry.code,
            name: entry.name,
            short_name: entry.short_name,
            selected_at: now,
            next_change_allowed_at: next,
        },
    })
}
