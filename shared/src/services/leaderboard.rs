//! Weekly leaderboards: a region's board (players of that region, by XP earned this
//! Beijing week), the all-players board and the player's league cohort; this week's,
//! or the previous week's frozen standings (`services::settlement`); pages, own ranks
//! and the entries around the player.
//!
//! A held player (fair play) is on no board others see, but sees themselves at the
//! rank they would have: their pages have them put in (`domain::board::window`), their
//! own rank counts the shown rows ahead of them.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::clock::beijing;
use crate::closed_set::{Submitted, closed_set};
use crate::context::AppContext;
use crate::db;
use crate::db::leaderboard::{BoardRow, EntryRow};
use crate::db::players::RegionState;
use crate::domain::board::{BoardKey, Standing, league_board, ranked, window};
use crate::domain::league::{self, tier_name, zone, zone_sizes};
use crate::envelope::Pagination;
use crate::ids::PlayerId;
use crate::message::msg;
use crate::services::player_auth::{self, AccessSubject};
use crate::services::regions::{self, RegionEntry, SelectedRegion};
use crate::{Error, Result};

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// Default `region`.
    #[param(value_type = Option<BoardScope>)]
    pub scope: Option<Submitted<BoardScope>>,
    /// Default: the player's selected region.
    pub region_code: Option<String>,
    /// Reserved; no effect.
    pub track_id: Option<String>,
    /// Default 1.
    pub page: Option<i64>,
    /// 1-100, default 20.
    pub limit: Option<i64>,
    /// Default `current`.
    #[param(value_type = Option<BoardWeek>)]
    pub week: Option<Submitted<BoardWeek>>,
    /// `/leaderboards/me` only: 0-10 (default 0) entries above and below the player, in
    /// `meta.around`.
    pub around: Option<i64>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardEntry {
    pub rank: i64,
    pub user_id: PlayerId,
    pub display_name: String,
    pub avatar_url: Option<String>,
    /// XP earned in the board's week.
    pub xp: i64,
    /// `gold`, `silver`, `bronze` for ranks 1-3, else empty.
    pub badge: String,
    pub is_me: bool,
    /// `scope=league` only: where the rank leads when the week ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone: Option<league::Zone>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RewardPreview {
    pub rank: i64,
    pub coins: i64,
}

/// `meta.league` of `scope=league`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeagueMeta {
    /// The cohort's tier (the player's, when they are in no cohort that week).
    pub tier: league::LeagueTier,
    /// `{weekStart}:{tier}:{n}`; null when the player earned no XP that week.
    pub cohort_id: Option<String>,
    /// How many of the cohort move up a tier when the week ends.
    pub promote_count: i64,
    /// How many move down.
    pub demote_count: i64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardMeta {
    /// YYYY-MM-DD (Monday) of the board's week.
    pub week_start: String,
    /// YYYY-MM-DD (Sunday).
    pub week_end: String,
    /// YYYY-MM-DD: the Monday after the board's week.
    pub next_refresh_at: String,
    /// `region:{code}:{weekStart}`, `topic:all:{weekStart}` or `league:{cohortId}`.
    pub group_id: String,
    pub requires_region_selection: bool,
    pub selected_region: Option<SelectedRegion>,
    pub view_region: Option<RegionEntry>,
    pub reward_preview: Vec<RewardPreview>,
    /// Only on the own-rank response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<i64>,
    /// `scope=league` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub league: Option<LeagueMeta>,
    /// `/leaderboards/me?around=N` only: up to N entries above and N below the player,
    /// in rank order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub around: Option<Vec<LeaderboardEntry>>,
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

/// The largest `around`.
const MAX_AROUND: i64 = 10;

closed_set! {
    /// Which board: `region` (the player's region), `topic` (all players) or `league`
    /// (the player's cohort).
    pub enum BoardScope in "board-scope" {
        Region = "region",
        Topic = "topic",
        League = "league",
    }
}

closed_set! {
    /// Which week of a board: `current`, or `previous` (the last ended week's final
    /// standings).
    pub enum BoardWeek in "board-week" {
        Current = "current",
        Previous = "previous",
    }
}

/// A board query, checked (no database needed).
struct Choice {
    page: i64,
    limit: i64,
    /// The page's first row (checked: see `envelope::page_offset`).
    offset: i64,
    scope: BoardScope,
    /// The asked region (scope region); None: the player's own.
    view_region: Option<RegionEntry>,
    previous: bool,
    around: i64,
}

fn choose(ctx: &AppContext, q: &BoardQuery) -> Result<Choice> {
    let page = q.page.unwrap_or(1);
    let limit = q.limit.unwrap_or(20);
    if page < 1 {
        return Err(Error::validation(msg::PAGE_MUST_BE_AT_LEAST_1));
    }
    if !(1..=100).contains(&limit) {
        return Err(Error::validation(msg::LIMIT_MUST_BE_1_100));
    }
    let offset = crate::envelope::page_offset(page, limit)?;
    let around = q.around.unwrap_or(0);
    if !(0..=MAX_AROUND).contains(&around) {
        return Err(Error::validation(msg::AROUND_MUST_BE_0_10));
    }
    // a blank week is the default one; a week's spelling is read trimmed
    let previous = match q.week.as_ref().map(|w| w.as_sent().trim()) {
        None | Some("") => false,
        Some(week) => match BoardWeek::parse(week) {
            Some(week) => week == BoardWeek::Previous,
            None => return Err(Error::validation(msg::WEEK_MUST_BE_CURRENT_OR_PREVIOUS)),
        },
    };
    let scope = match q.scope.as_ref() {
        None => BoardScope::Region,
        Some(scope) => scope
            .member()
            .ok_or_else(|| Error::validation(msg::SCOPE_MUST_BE_REGION_TOPIC_OR_LEAGUE))?,
    };
    let view_region = match (scope, q.region_code.as_deref().map(str::trim)) {
        (BoardScope::Region, Some(code)) if !code.is_empty() => Some(
            ctx.regions
                .enabled(code)
                .ok_or_else(|| Error::validation(msg::REGIONCODE_IS_NOT_AN_ENABLED_REGION))?
                .clone(),
        ),
        _ => None,
    };
    Ok(Choice {
        page,
        limit,
        offset,
        scope,
        view_region,
        previous,
        around,
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

/// Where a board's rows are read from.
enum Source {
    /// `weekly_xp`: this week's board, or an ended week's not settled yet.
    Live { board: String },
    /// The frozen standings of a settled board, as they read now.
    Frozen {
        board: String,
        counts: db::settlement::FrozenBoard,
    },
    /// A league cohort not settled yet: its members ranked in memory.
    Cohort(Vec<Ranked>),
}

/// A row of a cohort ranked in memory.
struct Ranked {
    standing: Standing,
    rank: i64,
    nickname: Option<String>,
    avatar_url: Option<String>,
}

/// The board a query views, and the meta around it.
struct View {
    week: String,
    /// None: nothing to show (no region selected; no cohort that week).
    source: Option<Source>,
    /// The cohort's tier (scope league).
    tier: Option<i64>,
    /// The viewer's cohort that week (scope league).
    cohort_id: Option<String>,
    rules: league::LeagueRules,
    meta: LeaderboardMeta,
    viewer: Viewer,
}

/// Who looks.
struct Viewer {
    id: PlayerId,
    nickname: Option<String>,
    avatar_url: Option<String>,
    held: bool,
}

/// Admits the player by their region state.
fn admitted(
    subject: &AccessSubject,
    state: Option<RegionState>,
    now_ms: i64,
) -> Result<RegionState> {
    player_auth::admit(state.as_ref().map(|s| &s.account), subject, now_ms)?;
    state.ok_or_else(|| Error::unauthorized(msg::UNKNOWN_PLAYER))
}

/// Resolves the board, its source and the meta.
async fn view(
    ctx: &AppContext,
    now: DateTime<Utc>,
    state: RegionState,
    viewer_id: &PlayerId,
    choice: &Choice,
) -> Result<View> {
    let this_week = beijing::week_start(now);
    let week_day = if choice.previous {
        this_week - chrono::Duration::days(7)
    } else {
        this_week
    };
    let week = beijing::day_key(week_day);
    let selected = regions::selected(ctx, &state);
    let view_region = match choice.scope {
        BoardScope::Region => choice.view_region.clone().or_else(|| {
            state
                .region_code
                .as_deref()
                .and_then(|c| ctx.regions.enabled(c))
                .cloned()
        }),
        _ => None,
    };
    let mut tier = None;
    let mut cohort_id = None;
    let (board, group) = match choice.scope {
        BoardScope::Topic => (
            Some(BoardKey::all_players().to_string()),
            format!("{}:{week}", BoardKey::all_players()),
        ),
        BoardScope::Region => match &view_region {
            Some(r) => (
                Some(BoardKey::region(&r.code).to_string()),
                format!("{}:{week}", BoardKey::region(&r.code)),
            ),
            None => (None, format!("region::{week}")),
        },
        BoardScope::League => {
            let membership = league_membership(ctx, viewer_id, &week, choice.previous, now).await?;
            match membership {
                Some(m) => {
                    tier = Some(m.tier);
                    let board = league_board(&m.cohort_id);
                    cohort_id = Some(m.cohort_id);
                    (Some(board.clone()), board)
                }
                None => {
                    tier = Some(db::league::tier_of(&ctx.db, viewer_id).await?);
                    (None, format!("league::{week}"))
                }
            }
        }
    };
    let source = match board {
        None => None,
        Some(board) => Some(source_of(ctx, &week, board, choice.scope, choice.previous).await?),
    };
    let week_end = week_day + chrono::Duration::days(6);
    let meta = LeaderboardMeta {
        week_start: week.clone(),
        week_end: beijing::day_key(week_end),
        next_refresh_at: beijing::day_key(week_day + chrono::Duration::days(7)),
        group_id: group,
        requires_region_selection: choice.scope == BoardScope::Region && view_region.is_none(),
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
        league: None,
        around: None,
    };
    Ok(View {
        week,
        source,
        tier,
        cohort_id,
        rules: ctx.settings.league.clone(),
        meta,
        viewer: Viewer {
            id: viewer_id.clone(),
            nickname: state.nickname,
            avatar_url: state.avatar_url,
            held: state.fairplay_held,
        },
    })
}

/// The viewer's cohort of `week`; this week, a player with XP but no cohort yet (their
/// join after their first XP failed) joins now.
async fn league_membership(
    ctx: &AppContext,
    player_id: &PlayerId,
    week: &str,
    previous: bool,
    now: DateTime<Utc>,
) -> Result<Option<db::league::Membership>> {
    if let Some(m) = db::league::membership(&ctx.db, week, player_id).await? {
        return Ok(Some(m));
    }
    if previous {
        return Ok(None);
    }
    let all = BoardKey::all_players();
    match db::leaderboard::own_row(
        &ctx.db,
        week,
        all.as_str(),
        player_id,
        now.timestamp_millis(),
    )
    .await?
    {
        Some(_) => Ok(Some(
            crate::services::league::ensure_member(ctx, player_id, week, now.timestamp_millis())
                .await?,
        )),
        None => Ok(None),
    }
}

/// Where a board of `week` is read from: its frozen standings once settled, if the week
/// has `ended` by this process's clock. A week still under way here is read live even
/// when settled: another process whose clock ran ahead may have settled it (or did,
/// before settlement waited for the database's clock too).
async fn source_of(
    ctx: &AppContext,
    week: &str,
    board: String,
    scope: BoardScope,
    ended: bool,
) -> Result<Source> {
    if ended
        && let Some(counts) =
            db::settlement::frozen_board(&ctx.db, week, &board, ctx.clock.now_ms()).await?
    {
        return Ok(Source::Frozen { board, counts });
    }
    if scope != BoardScope::League {
        return Ok(Source::Live { board });
    }
    let cohort = board.strip_prefix("league:").unwrap_or(&board);
    let members = db::league::members(&ctx.db, week, cohort, ctx.clock.now_ms()).await?;
    let mut names: HashMap<PlayerId, (Option<String>, Option<String>)> = members
        .iter()
        .map(|m| {
            (
                m.player_id.clone(),
                (m.nickname.clone(), m.avatar_url.clone()),
            )
        })
        .collect();
    let standings = ranked(
        members
            .into_iter()
            .map(|m| Standing {
                player_id: m.player_id,
                xp: m.xp,
                last_earned_at: m.last_earned_at,
                hidden: m.hidden,
            })
            .collect(),
    );
    Ok(Source::Cohort(
        standings
            .into_iter()
            .map(|(standing, rank)| {
                let (nickname, avatar_url) =
                    names.remove(&standing.player_id).unwrap_or((None, None));
                Ranked {
                    standing,
                    rank,
                    nickname,
                    avatar_url,
                }
            })
            .collect(),
    ))
}

/// A row of a board, before it is an entry.
struct Row {
    player_id: PlayerId,
    xp: i64,
    nickname: Option<String>,
    avatar_url: Option<String>,
    /// Frozen standings: what the league moves counted (see [`Settled`]).
    settled: Option<Settled>,
}

/// What a settled board's league moves counted for a row: whether it took part, at
/// which rank. Its zone is the move it got, whoever was hidden since.
#[derive(Clone, Copy, Debug)]
struct Settled {
    counted: bool,
    rank: i64,
}

impl From<&EntryRow> for Row {
    fn from(r: &EntryRow) -> Self {
        Self {
            player_id: r.player_id.clone(),
            xp: r.xp,
            nickname: r.nickname.clone(),
            avatar_url: r.avatar_url.clone(),
            settled: None,
        }
    }
}

/// A row with the rank the viewer sees it at.
type RankedRow = (Row, i64);

/// The viewer's own row: XP, rank (would-be, when hidden) and whether it is hidden.
#[derive(Clone, Copy, Debug)]
struct Own {
    xp: i64,
    rank: i64,
    hidden: bool,
    /// The row's key on a live board (for the rows around it).
    last_earned_at: i64,
    /// Frozen standings: what the league moves counted.
    settled: Option<Settled>,
}

impl View {
    fn entry(&self, row: Row, rank: i64) -> LeaderboardEntry {
        let zone = match row.settled {
            Some(settled) => self.settled_zone(settled),
            None => self.zone(rank),
        };
        LeaderboardEntry {
            rank,
            is_me: row.player_id == self.viewer.id,
            zone,
            user_id: row.player_id,
            display_name: display_name(row.nickname),
            avatar_url: row.avatar_url,
            xp: row.xp,
            badge: badge(rank).into(),
        }
    }

    fn own_entry(&self, xp: i64, rank: i64, settled: Option<Settled>) -> LeaderboardEntry {
        self.entry(
            Row {
                player_id: self.viewer.id.clone(),
                xp,
                nickname: self.viewer.nickname.clone(),
                avatar_url: self.viewer.avatar_url.clone(),
                settled,
            },
            rank,
        )
    }

    /// The shown players of the board.
    fn shown(&self) -> Option<i64> {
        match self.source.as_ref()? {
            Source::Frozen { counts, .. } => Some(counts.shown),
            Source::Cohort(rows) => Some(rows.iter().filter(|r| !r.standing.hidden).count() as i64),
            Source::Live { .. } => None,
        }
    }

    /// The players the zones are of: a settled board's, those its moves counted.
    fn ranked_for_zones(&self) -> Option<i64> {
        match self.source.as_ref()? {
            Source::Frozen { counts, .. } => Some(counts.settled_players),
            _ => self.shown(),
        }
    }

    fn zone(&self, rank: i64) -> Option<league::Zone> {
        let tier = self.tier?;
        let shown = self.shown()?;
        Some(zone(tier, rank, shown, &self.rules))
    }

    /// The move a settled row got: none when the moves did not count it (hidden then,
    /// or a promotion withdrawn since).
    fn settled_zone(&self, settled: Settled) -> Option<league::Zone> {
        let tier = self.tier?;
        let ranked = self.ranked_for_zones()?;
        let z = if settled.counted {
            zone(tier, settled.rank, ranked, &self.rules)
        } else {
            league::Zone::Stay
        };
        Some(z)
    }

    /// Sets `meta.league` (scope league): the tier and the zones' sizes for the shown
    /// players (a settled week: those its moves counted).
    fn with_league_meta(&mut self) {
        let Some(tier) = self.tier else { return };
        let shown = self.ranked_for_zones().unwrap_or(0);
        let (promote, demote) = zone_sizes(tier, shown, &self.rules);
        self.meta.league = Some(LeagueMeta {
            tier: tier_name(tier),
            cohort_id: self.cohort_id.clone(),
            promote_count: promote,
            demote_count: demote,
        });
    }
}

/// The viewer's row and rank on the view's board (None without a row).
async fn own(ctx: &AppContext, v: &View) -> Result<Option<Own>> {
    let now_ms = ctx.clock.now_ms();
    Ok(match v.source.as_ref() {
        None => None,
        Some(Source::Live { board }) => {
            match db::leaderboard::own_row(&ctx.db, &v.week, board, &v.viewer.id, now_ms).await? {
                Some((row, hidden)) => {
                    let rank = if hidden {
                        // not in the rank index: the shown rows ahead, counted
                        db::leaderboard::rank(&ctx.db, &v.week, board, &row, now_ms).await?
                    } else {
                        rank_of(ctx, &v.week, board, &row).await?
                    };
                    Some(Own {
                        xp: row.xp,
                        rank,
                        hidden,
                        last_earned_at: row.last_earned_at,
                        settled: None,
                    })
                }
                None => None,
            }
        }
        Some(Source::Frozen { board, .. }) => {
            db::settlement::row_of(&ctx.db, &v.week, board, &v.viewer.id, now_ms)
                .await?
                .map(|r| Own {
                    xp: r.xp,
                    rank: r.rank,
                    hidden: r.hidden,
                    last_earned_at: 0,
                    settled: Some(Settled {
                        counted: r.shown,
                        rank: r.settled_rank,
                    }),
                })
        }
        Some(Source::Cohort(rows)) => rows
            .iter()
            .find(|r| r.standing.player_id == v.viewer.id)
            .map(|r| Own {
                xp: r.standing.xp,
                rank: r.rank,
                hidden: r.standing.hidden,
                last_earned_at: r.standing.last_earned_at,
                settled: None,
            }),
    })
}

/// The shown rows of the board from 0-based position `offset`, at most `limit`, with
/// their ranks.
async fn shown_rows(ctx: &AppContext, v: &View, offset: i64, limit: i64) -> Result<Vec<Row>> {
    if limit <= 0 {
        return Ok(Vec::new());
    }
    Ok(match v.source.as_ref() {
        None => Vec::new(),
        Some(Source::Live { board }) => board_page(ctx, &v.week, board, limit, offset)
            .await?
            .iter()
            .map(Row::from)
            .collect(),
        Some(Source::Frozen { board, counts }) => db::settlement::shown_page(
            &ctx.db,
            &v.week,
            board,
            offset,
            limit,
            counts.hidden,
            ctx.clock.now_ms(),
        )
        .await?
        .into_iter()
        .map(|r| Row {
            player_id: r.player_id,
            xp: r.xp,
            nickname: r.nickname,
            avatar_url: r.avatar_url,
            settled: Some(Settled {
                counted: r.shown,
                rank: r.settled_rank,
            }),
        })
        .collect(),
        Some(Source::Cohort(rows)) => rows
            .iter()
            .filter(|r| !r.standing.hidden)
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .take(usize::try_from(limit).unwrap_or(0))
            .map(|r| Row {
                player_id: r.standing.player_id.clone(),
                xp: r.standing.xp,
                nickname: r.nickname.clone(),
                avatar_url: r.avatar_url.clone(),
                settled: None,
            })
            .collect(),
    })
}

/// The board's shown players (the pagination total for anyone on it).
async fn shown_total(ctx: &AppContext, v: &View) -> Result<i64> {
    match (v.shown(), v.source.as_ref()) {
        (Some(n), _) => Ok(n),
        (None, Some(Source::Live { board })) => board_size(ctx, &v.week, board).await,
        _ => Ok(0),
    }
}

/// `GET /v1/leaderboards` for the subject of a verified access token: one page, its
/// meta and pagination. A live page and the board's size come from
/// [`crate::board_cache`] when read in the last second.
pub async fn board(
    ctx: &AppContext,
    subject: &AccessSubject,
    q: &BoardQuery,
) -> Result<(Vec<LeaderboardEntry>, LeaderboardMeta, Pagination)> {
    let choice = choose_after_admission(ctx, subject, q).await?;
    let now = ctx.clock.now();
    let state = db::players::region_state(&ctx.db, &subject.player_id).await?;
    let state = admitted(subject, state, now.timestamp_millis())?;
    let mut v = view(ctx, now, state, &subject.player_id, &choice).await?;
    v.with_league_meta();
    // a hidden viewer is put in at their rank: one held now on a live board, one
    // hidden on frozen standings (held, or banned and so refused before this)
    let may_be_hidden = match &v.source {
        Some(Source::Live { .. }) => v.viewer.held,
        Some(_) => true,
        None => false,
    };
    let hidden_own = if may_be_hidden {
        own(ctx, &v).await?.filter(|o| o.hidden)
    } else {
        None
    };
    let w = window(choice.offset, choice.limit, hidden_own.map(|o| o.rank));
    let mut rows = shown_rows(ctx, &v, w.offset, w.limit).await?;
    if let (Some(at), Some(o)) = (w.insert_at, hidden_own) {
        rows.insert(
            at.min(rows.len()),
            Row {
                player_id: v.viewer.id.clone(),
                xp: o.xp,
                nickname: v.viewer.nickname.clone(),
                avatar_url: v.viewer.avatar_url.clone(),
                settled: o.settled,
            },
        );
    }
    let total = shown_total(ctx, &v).await? + i64::from(hidden_own.is_some());
    let entries = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| v.entry(r, choice.offset + i as i64 + 1))
        .collect();
    Ok((
        entries,
        v.meta,
        Pagination {
            total,
            page: choice.page,
            limit: choice.limit,
        },
    ))
}

/// One page of a live board: read at most once a second per process (see
/// [`crate::board_cache`]).
async fn board_page(
    ctx: &AppContext,
    week: &str,
    board: &str,
    limit: i64,
    offset: i64,
) -> Result<Arc<[EntryRow]>> {
    let read = async {
        let now_ms = ctx.clock.now_ms();
        crate::lagging_read!(ctx, |db| {
            db::leaderboard::page(db, week, board, limit, offset, now_ms).await
        })
        .map(Arc::<[EntryRow]>::from)
        .map_err(Error::from)
    };
    ctx.board_cache
        .page_or_read((week, board), limit, offset, read)
        .await
}

/// The rank of a shown row: from the Redis index when configured, else the exact SQL
/// count.
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
    let now_ms = ctx.clock.now_ms();
    Ok(crate::lagging_read!(ctx, |db| {
        db::leaderboard::rank(db, week, board, row, now_ms).await
    })?)
}

/// A live board's size (the pagination total): counted at most once a second per
/// process (see [`crate::board_cache`]).
async fn board_size(ctx: &AppContext, week: &str, board: &str) -> Result<i64> {
    let count = async {
        let now_ms = ctx.clock.now_ms();
        crate::lagging_read!(ctx, |db| {
            db::leaderboard::count(db, week, board, now_ms).await
        })
        .map_err(Error::from)
    };
    ctx.board_cache.size_or_count(week, board, count).await
}

/// `GET /v1/leaderboards/me` for the subject of a verified access token: the player's
/// own entry and rank, always exact (a held player's, the rank they would have).
/// Without a row in the board's week the entry shows 0 XP and the rank after the last
/// ranked player; without a board to view (no region selected, no cohort), data is
/// null. `around` adds the entries above and below.
pub async fn me(
    ctx: &AppContext,
    subject: &AccessSubject,
    q: &BoardQuery,
) -> Result<(Option<LeaderboardEntry>, LeaderboardMeta)> {
    let choice = choose_after_admission(ctx, subject, q).await?;
    let player_id = &subject.player_id;
    let now = ctx.clock.now();
    let now_ms = now.timestamp_millis();
    // This week's region or topic board without Redis: the player's region state,
    // their row and its SQL rank are one read.
    let fast = ctx.ranks.is_none() && !choice.previous && choice.scope != BoardScope::League;
    let (state, counted) = if fast {
        let week = beijing::day_key(beijing::week_start(now));
        let named = match choice.scope {
            BoardScope::Topic => Some(BoardKey::all_players().to_string()),
            _ => choice
                .view_region
                .as_ref()
                .map(|r| BoardKey::region(&r.code).to_string()),
        };
        let read = crate::lagging_read!(ctx, |db| {
            db::leaderboard::viewer_row_and_rank(db, player_id, &week, named.as_deref(), now_ms)
                .await
        })?;
        match read {
            Some((state, row)) => (Some(state), Some(row)),
            None => (None, None),
        }
    } else {
        (db::players::region_state(&ctx.db, player_id).await?, None)
    };
    let state = admitted(subject, state, now_ms)?;
    let mut v = view(ctx, now, state, player_id, &choice).await?;
    v.with_league_meta();
    if v.source.is_none() {
        return Ok((None, v.meta));
    }
    let found = match counted {
        Some(row) => row.map(|(row, rank)| Own {
            xp: row.xp,
            rank,
            hidden: v.viewer.held,
            last_earned_at: row.last_earned_at,
            settled: None,
        }),
        None => own(ctx, &v).await?,
    };
    let (xp, rank, settled) = match found {
        Some(o) => (o.xp, o.rank, o.settled),
        None => (0, shown_total(ctx, &v).await? + 1, None),
    };
    if choice.around > 0 {
        v.meta.around = Some(around(ctx, &v, found, rank, choice.around).await?);
    }
    v.meta.rank = Some(rank);
    let entry = v.own_entry(xp, rank, settled);
    Ok((Some(entry), v.meta))
}

/// Up to `n` shown entries above the viewer (at `rank`) and `n` below, in rank order,
/// as the viewer sees them. Bounded work whatever the board's size: key ranges next to
/// the viewer's row on a live board, rank ranges on frozen standings.
async fn around(
    ctx: &AppContext,
    v: &View,
    own: Option<Own>,
    rank: i64,
    n: i64,
) -> Result<Vec<LeaderboardEntry>> {
    // the shown rows ahead of the viewer are ranks rank-n … rank-1; behind them the
    // shown rows from the viewer's place on (one rank lower for a hidden viewer,
    // who stands among them)
    let behind_from = match own {
        Some(o) if !o.hidden => rank + 1,
        Some(_) => rank,
        None => return above_only(ctx, v, rank, n).await,
    };
    let shift = i64::from(own.is_some_and(|o| o.hidden));
    let (above, below): (Vec<RankedRow>, Vec<RankedRow>) = match v.source.as_ref() {
        None => (Vec::new(), Vec::new()),
        Some(Source::Live { board }) => {
            let Some(o) = own else {
                return Ok(Vec::new());
            };
            let key = BoardRow {
                player_id: v.viewer.id.clone(),
                xp: o.xp,
                last_earned_at: o.last_earned_at,
            };
            let now_ms = ctx.clock.now_ms();
            let ahead =
                db::leaderboard::near(&ctx.db, &v.week, board, &key, n, true, now_ms).await?;
            let behind =
                db::leaderboard::near(&ctx.db, &v.week, board, &key, n, false, now_ms).await?;
            (
                ahead
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| (near_row(r), rank - 1 - i as i64))
                    .collect(),
                behind
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| (near_row(r), rank + 1 + i as i64))
                    .collect(),
            )
        }
        Some(_) => {
            let above_from = (rank - n).max(1);
            let above = shown_rows(ctx, v, above_from - 1, rank - above_from).await?;
            let below = shown_rows(ctx, v, behind_from - 1, n).await?;
            (
                above
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| (r, above_from + i as i64))
                    .collect(),
                below
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| (r, behind_from + shift + i as i64))
                    .collect(),
            )
        }
    };
    let mut above = above;
    above.sort_by_key(|(_, rank)| *rank);
    Ok(above
        .into_iter()
        .chain(below)
        .map(|(row, rank)| v.entry(row, rank))
        .collect())
}

/// A viewer without a row stands after the last shown player: the last `n` rows.
async fn above_only(
    ctx: &AppContext,
    v: &View,
    rank: i64,
    n: i64,
) -> Result<Vec<LeaderboardEntry>> {
    let rows: Vec<RankedRow> = match v.source.as_ref() {
        None => Vec::new(),
        Some(Source::Live { board }) => {
            // the rows ahead of a row below every other: the board's last rows, over
            // the index from its end
            let last = BoardRow {
                player_id: PlayerId::from_trusted(String::new()),
                xp: i64::MIN,
                last_earned_at: i64::MAX,
            };
            db::leaderboard::near(&ctx.db, &v.week, board, &last, n, true, ctx.clock.now_ms())
                .await?
                .into_iter()
                .enumerate()
                .map(|(i, r)| (near_row(r), rank - 1 - i as i64))
                .collect()
        }
        Some(_) => {
            let from = (rank - n).max(1);
            shown_rows(ctx, v, from - 1, rank - from)
                .await?
                .into_iter()
                .enumerate()
                .map(|(i, r)| (r, from + i as i64))
                .collect()
        }
    };
    let mut rows = rows;
    rows.sort_by_key(|(_, rank)| *rank);
    Ok(rows
        .into_iter()
        .map(|(row, rank)| v.entry(row, rank))
        .collect())
}

fn near_row(r: db::leaderboard::NearRow) -> Row {
    Row {
        player_id: r.player_id,
        xp: r.xp,
        nickname: r.nickname,
        avatar_url: r.avatar_url,
        settled: None,
    }
}

/// `GET /v1/admin/leaderboards/history`.
#[derive(Clone, Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// `topic:all`, `region:{code}` or `league:{cohortId}`.
    pub board: Option<String>,
    /// YYYY-MM-DD, a Monday (Beijing). Default: the last ended week.
    pub week_start: Option<String>,
    /// ≥ 1, default 1.
    pub page: Option<i64>,
    /// 1-50, default 20.
    pub limit: Option<i64>,
}

/// A row of a week's frozen standings.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    pub rank: i64,
    pub user_id: PlayerId,
    pub display_name: String,
    /// XP earned that week.
    pub xp: i64,
}

/// A settled board's frozen standings (the players shown now, in rank order: a player
/// banned or held since is not), a page at a time over an index; 404 while the board of
/// that week is not settled.
pub async fn history(
    ctx: &AppContext,
    q: &HistoryQuery,
) -> Result<(Vec<HistoryEntry>, Pagination)> {
    let (page, limit, offset) = crate::services::audit::PageQuery {
        page: q.page,
        limit: q.limit,
    }
    .resolve()?;
    let board = q
        .board
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .ok_or_else(|| Error::validation(msg::BOARD_IS_REQUIRED))?;
    if board.chars().count() > 200 {
        return Err(Error::validation(msg::BOARD_MUST_BE_AT_MOST_200_CHARACTERS));
    }
    let week = match q
        .week_start
        .as_deref()
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        None => beijing::day_key(beijing::week_start(ctx.clock.now()) - chrono::Duration::days(7)),
        Some(w) => {
            let day = chrono::NaiveDate::parse_from_str(w, "%Y-%m-%d")
                .ok()
                .filter(|d| chrono::Datelike::weekday(d) == chrono::Weekday::Mon)
                .ok_or_else(|| Error::validation(msg::WEEKSTART_MUST_BE_A_MONDAY_YYYY_MM_DD))?;
            beijing::day_key(day)
        }
    };
    // a week still under way by this process's clock has no final standings yet, even
    // if a process whose clock ran ahead settled it
    let this_week = beijing::day_key(beijing::week_start(ctx.clock.now()));
    let now_ms = ctx.clock.now_ms();
    let counts = if week < this_week {
        db::settlement::frozen_board(&ctx.db, &week, board, now_ms).await?
    } else {
        None
    }
    .ok_or_else(|| Error::not_found(msg::NO_SETTLED_BOARD_OF_THAT_WEEK))?;
    let shown = counts.shown;
    let rows = if offset < shown {
        db::settlement::shown_page(&ctx.db, &week, board, offset, limit, counts.hidden, now_ms)
            .await?
    } else {
        Vec::new()
    };
    Ok((
        rows.into_iter()
            .map(|r| HistoryEntry {
                rank: r.rank,
                user_id: r.player_id,
                display_name: display_name(r.nickname),
                xp: r.xp,
            })
            .collect(),
        Pagination {
            total: shown,
            page,
            limit,
        },
    ))
}
