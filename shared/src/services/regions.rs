//! The region catalogue, cached in-process: it changes only with a migration.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::clock::from_ms;
use crate::db::{self};
use crate::domain::board::BoardKey;
use crate::message::msg;

pub use crate::region_catalog::{REGION_LIST_VERSION, RegionCatalog, RegionEntry, RegionList};

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
        .ok_or_else(|| Error::validation(msg::REGIONCODE_IS_NOT_AN_ENABLED_REGION))?
        .clone();
    let state = db::players::region_state(&ctx.db, &player.id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
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
        return Err(Error::RegionChangeLimit(
            msg::the_region_can_change_once_per_beijing_calendar_month_next_c(allowed.to_rfc3339()),
        ));
    }
    let week = beijing::day_key(beijing::week_start(now));
    let old_board = state
        .region_code
        .as_deref()
        .map(|c| String::from(BoardKey::region(c)));
    let new_board = String::from(BoardKey::region(code));
    let moved = db::leaderboard::move_region_row(
        &mut tx,
        &week,
        &player.id,
        old_board.as_deref(),
        &new_board,
        now.timestamp_millis(),
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
