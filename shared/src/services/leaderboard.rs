//! Weekly leaderboards: a region's board (players of that region, by XP earned this
//! Beijing week) and the all-players board, pages and own ranks.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::clock::beijing;
use crate::context::AppContext;
use crate::db::players::RegionState;
use crate::domain::board::BoardKey;
use std::sync::Arc;

use crate::db;
use crate::db::leaderboard::{BoardRow, EntryRow};
use crate::envelope::Pagination;
use crate::services::player_auth::{self, AccessSubject};
use crate::services::regions::{self, RegionEntry, SelectedRegion};
use crate::{Error, Result};
use chrono::{DateTime, Utc};

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// `region` (default) or `topic`.
    pub scope: Option<String>,
    /// Default: the player's selected region.
    pub region_code: Option<String>,
    /// Reserved; no effect.
    pub track_id: Option<String>,
    /// Default 1.
    pub page: Option<i64>,
    /// 1-100, default 20.
    pub limit: Option<i64>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardEntry {
    pub rank: i64,
    pub user_id: String,
    pub display_name: String,
    pub avatar_url: Option<String>,
    /// XP earned this week.
    pub xp: i64,
    /// `gold`, `silver`, `bronze` for ranks 1-3, else empty.
    pub badge: String,
    pub is_me: bool,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RewardPreview {
    pub rank: i64,
    pub coins: i64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardMeta {
    /// YYYY-MM-DD (Monday).
    pub week_start: String,
    /// YYYY-MM-DD (Sunday).
    pub week_end: String,
    /// YYYY-MM-DD: the Monday that starts the next week.
    pub next_refresh_at: String,
    /// `region:{code}:{weekStart}` or `topic:all:{weekStart}`.
    pub group_id: String,
    pub requires_region_selection: bool,
    pub selected_region: Option<SelectedRegion>,
    pub view_region: Option<RegionEntry>,
    pub reward_preview: Vec<RewardPreview>,
    /// Only on the own-rank response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<i64>,
}

fn badge(rank: i64) -> &'static str {
    match rank {
        1 => "gold",
        2 => "silver",
        3 => "bronze",
        _ => "",
    }
}

fn display_name(nickname: Option<String>) -> String {
    nickname
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "Player".into())
}

/// Which board a query views, and the meta around it.
struct View {
    week: String,
    /// None when the player must first select a region.
    board: Option<String>,
    meta: LeaderboardMeta,
    page: i64,
    limit: i64,
    nickname: Option<String>,
    avatar_url: Option<String>,
}

/// A board query, checked (no database needed).
struct Choice {
    page: i64,
    limit: i64,
    /// The page's first row (checked: see `envelope::page_offset`).
    offset: i64,
    /// `topic:all`, or `region:{code}` of the asked region; None: the player's own region.
    named_board: Option<String>,
    view_region: Option<RegionEntry>,
    topic: bool,
}

fn choose(ctx: &AppContext, q: &BoardQuery) -> Result<Choice> {
    let page = q.page.unwrap_or(1);
    let limit = q.limit.unwrap_or(20);
    if page < 1 {
        return Err(Error::validation("page must be at least 1"));
    }
    if !(1..=100).contains(&limit) {
        return Err(Error::validation("limit must be 1-100"));
    }
    let offset = crate::envelope::page_offset(page, limit)?;
    let (named_board, view_region, topic) = match q.scope.as_deref().unwrap_or("region") {
        "topic" => (Some(BoardKey::all_players().into()), None, true),
        "region" => match q
            .region_code
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            Some(code) => {
                let region = ctx
                    .regions
                    .enabled(code)
                    .ok_or_else(|| Error::validation("regionCode is not an enabled region"))?;
                (
                    Some(BoardKey::region(&region.code).into()),
                    Some(region.clone()),
                    false,
                )
            }
            None => (None, None, false),
        },
        _ => return Err(Error::validation("scope must be region or topic")),
    };
    Ok(Choice {
        page,
        limit,
        offset,
        named_board,
        view_region,
        topic,
    })
}

/// The choice of a query, or, when it is refused, the refusal after the player is
/// admitted (ban and deletion answer first, as on every route).
async fn choose_after_admission(
    ctx: &AppContext,
    subject: &AccessSubject,
    q: &BoardQuery,
) -> Result<Choice> {
    match choose(ctx, q) {
        Ok(choice) => Ok(choice),
        Err(e) => {
            let state = db::players::region_state(&ctx.db, &subject.player_id).await?;
            player_auth::admit(
                state.as_ref().map(|s| &s.account),
                subject,
                ctx.clock.now_ms(),
            )?;
            Err(e)
        }
    }
}

/// Admits the player by their region state, and resolves the board and meta.
fn view(
    ctx: &AppContext,
    now: DateTime<Utc>,
    subject: &AccessSubject,
    state: Option<RegionState>,
    choice: Choice,
) -> Result<View> {
    player_auth::admit(
        state.as_ref().map(|s| &s.account),
        subject,
        now.timestamp_millis(),
    )?;
    let state = state.ok_or_else(|| Error::unauthorized("unknown player"))?;
    let week = beijing::day_key(beijing::week_start(now));
    let selected = regions::selected(ctx, &state);
    let view_region = if choice.topic || choice.view_region.is_some() {
        choice.view_region
    } else {
        state
            .region_code
            .as_deref()
            .and_then(|c| ctx.regions.enabled(c))
            .cloned()
    };
    let (board, group) = if choice.topic {
        (
            choice.named_board,
            format!("{}:{week}", BoardKey::all_players()),
        )
    } else {
        match &view_region {
            Some(r) => (
                Some(BoardKey::region(&r.code).into()),
                format!("{}:{week}", BoardKey::region(&r.code)),
            ),
            None => (None, format!("region::{week}")),
        }
    };
    let meta = LeaderboardMeta {
        week_start: week.clone(),
        week_end: beijing::day_key(beijing::week_end(now)),
        next_refresh_at: beijing::day_key(beijing::next_week_start(now)),
        group_id: group,
        requires_region_selection: board.is_none(),
        selected_region: selected,
        view_region,
        reward_preview: vec![
            RewardPreview {
                rank: 1,
                coins: 100,
            },
            RewardPreview { rank: 2, coins: 50 },
            RewardPreview { rank: 3, coins: 30 },
        ],
        rank: None,
    };
    Ok(View {
        week,
        board,
        meta,
        page: choice.page,
        limit: choice.limit,
        nickname: state.nickname,
        avatar_url: state.avatar_url,
    })
}

/// `GET /v1/leaderboards` for the subject of a verified access token: one page, its
/// meta and pagination. The page and the board's size come from [`crate::board_cache`]
/// when read in the last second.
pub async fn board(
    ctx: &AppContext,
    subject: &AccessSubject,
    q: &BoardQuery,
) -> Result<(Vec<LeaderboardEntry>, LeaderboardMeta, Pagination)> {
    let choice = choose_after_admission(ctx, subject, q).await?;
    let player_id = subject.player_id.as_str();
    let offset = choice.offset;
    let state = db::players::region_state(&ctx.db, player_id).await?;
    let v = view(ctx, ctx.clock.now(), subject, state, choice)?;
    let Some(board) = &v.board else {
        return Ok((
            Vec::new(),
            v.meta,
            Pagination {
                total: 0,
                page: v.page,
                limit: v.limit,
            },
        ));
    };
    let rows = board_page(ctx, &v.week, board, v.limit, offset).await?;
    let total = board_size(ctx, &v.week, board).await?;
    let entries = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let rank = offset + i as i64 + 1;
            LeaderboardEntry {
                rank,
                is_me: r.player_id == player_id,
                user_id: r.player_id.clone(),
                display_name: display_name(r.nickname.clone()),
                avatar_url: r.avatar_url.clone(),
                xp: r.xp,
                badge: badge(rank).into(),
            }
        })
        .collect();
    Ok((
        entries,
        v.meta,
        Pagination {
            total,
            page: v.page,
            limit: v.limit,
        },
    ))
}

/// One page of a board: read at most once a second per process (see
/// [`crate::board_cache`]).
async fn board_page(
    ctx: &AppContext,
    week: &str,
    board: &str,
    limit: i64,
    offset: i64,
) -> Result<Arc<[EntryRow]>> {
    if let Some(rows) = ctx.board_cache.page(week, board, limit, offset) {
        return Ok(rows);
    }
    let rows: Arc<[EntryRow]> =
        db::leaderboard::page(&ctx.db, week, board, limit, offset, ctx.clock.now_ms())
            .await?
            .into();
    ctx.board_cache
        .remember_page(week, board, limit, offset, rows.clone());
    Ok(rows)
}

/// The rank of a row: from the Redis index when configured, else the exact SQL count.
pub async fn rank_of(ctx: &AppContext, week: &str, board: &str, row: &BoardRow) -> Result<i64> {
    if let Some(ranks) = &ctx.ranks {
        match ranks
            .rank(&ctx.db, week, board, &row.player_id, ctx.clock.now_ms())
            .await
        {
            Ok(Some(rank)) => return Ok(rank),
            Ok(None) => tracing::warn!(%board, "rank index lacks a row the database has; counting"),
            Err(Error::ServiceUnavailable(_)) => {
                tracing::debug!(%board, "rank index being rebuilt; counting");
            }
            Err(e) => tracing::warn!(error = %e, "rank index unavailable; counting"),
        }
    }
    Ok(db::leaderboard::rank(&ctx.db, week, board, row, ctx.clock.now_ms()).await?)
}

/// A board's size (the pagination total): counted at most once a second per process
/// (see [`crate::board_cache`]).
async fn board_size(ctx: &AppContext, week: &str, board: &str) -> Result<i64> {
    if let Some(size) = ctx.board_cache.size(week, board) {
        return Ok(size);
    }
    let size = db::leaderboard::count(&ctx.db, week, board, ctx.clock.now_ms()).await?;
    ctx.board_cache.remember_size(week, board, size);
    Ok(size)
}

/// `GET /v1/leaderboards/me` for the subject of a verified access token: the player's
/// own entry and rank, always exact. Without a row this week the entry shows 0 XP and
/// the rank after the last ranked player; without a region to view, data is null.
pub async fn me(
    ctx: &AppContext,
    subject: &AccessSubject,
    q: &BoardQuery,
) -> Result<(Option<LeaderboardEntry>, LeaderboardMeta)> {
    let choice = choose_after_admission(ctx, subject, q).await?;
    let player_id = subject.player_id.as_str();
    let now = ctx.clock.now();
    let week = beijing::day_key(beijing::week_start(now));
    // Without Redis, the player's region state, their row and its SQL rank are one read;
    // with it, the rank comes from its index after the row is read.
    let (state, counted) = if ctx.ranks.is_none() {
        match db::leaderboard::viewer_row_and_rank(
            &ctx.db,
            player_id,
            &week,
            choice.named_board.as_deref(),
            now.timestamp_millis(),
        )
        .await?
        {
            Some((state, row)) => (Some(state), Some(row)),
            None => (None, None),
        }
    } else {
        (db::players::region_state(&ctx.db, player_id).await?, None)
    };
    let mut v = view(ctx, now, subject, state, choice)?;
    let Some(board) = v.board.clone() else {
        return Ok((None, v.meta));
    };
    let found = match counted {
        Some(row) => row.map(|(row, rank)| (row.xp, rank)),
        None => match db::leaderboard::row_of(
            &ctx.db,
            &v.week,
            &board,
            player_id,
            now.timestamp_millis(),
        )
        .await?
        {
            Some(row) => Some((row.xp, rank_of(ctx, &v.week, &board, &row).await?)),
            None => None,
        },
    };
    let (xp, rank) = match found {
        Some(found) => found,
        None => (0, board_size(ctx, &v.week, &board).await? + 1),
    };
    v.meta.rank = Some(rank);
    let entry = LeaderboardEntry {
        rank,
        user_id: player_id.to_string(),
        display_name: display_name(v.nickname.clone()),
        avatar_url: v.avatar_url.clone(),
        xp,
        badge: badge(rank).into(),
        is_me: true,
    };
    Ok((Some(entry), v.meta))
}
