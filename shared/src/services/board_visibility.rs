//! Who the boards show (operations.md §9: banned players appear on no leaderboard while
//! banned; a fair-play hold keeps a player off every board others see). A ban, a hold,
//! an unban or a clear sets `hidden_until` on every row of the player on a board still
//! shown: this week's live rows, and last week's live rows and frozen standings (its
//! region and all-players boards and the player's league cohort), so a ban after
//! settlement takes them off last week's podium and the others close up. Weeks before
//! last are history, shown nowhere to players: they keep what they had.

use crate::Result;
use crate::clock::beijing;
use crate::context::AppContext;
use crate::db::{self, Tx};
use crate::domain::board::{BoardKey, league_board};
use crate::ids::PlayerId;

/// What a visibility change leaves to do once its transaction commits.
pub(crate) struct VisibilityChange {
    player_id: PlayerId,
    /// This week's boards of the player (their Redis entries follow).
    pub(crate) this_week_boards: Vec<String>,
    last_week: String,
    /// Last week's live boards that held a row of the player (their Redis sets, if
    /// last week is not settled yet, are rebuilt).
    last_week_live: Vec<String>,
}

/// Hides the player (in `region` now) from every board still shown until
/// `hidden_until` (the largest instant: until shown again), or shows them again (None),
/// inside `tx`, which has locked the player's progress row.
pub(crate) async fn set_hidden(
    tx: &mut Tx,
    ctx: &AppContext,
    player_id: &PlayerId,
    region: Option<&str>,
    hidden_until: Option<i64>,
) -> Result<VisibilityChange> {
    let this_week_day = beijing::week_start(ctx.clock.now());
    let this_week = beijing::day_key(this_week_day);
    let last_week = beijing::day_key(this_week_day - chrono::Duration::days(7));
    let this_week_boards = BoardKey::stored_of_player(region);
    db::leaderboard::set_hidden(tx, &this_week, &this_week_boards, player_id, hidden_until).await?;
    // Last week's region row stays where it was earned (a region move carries only this
    // week's), so every region's board is probed: a primary-key probe each.
    let mut last_week_boards = vec![String::from(BoardKey::all_players())];
    last_week_boards.extend(
        ctx.regions
            .list()
            .regions
            .iter()
            .map(|r| String::from(BoardKey::region(&r.code))),
    );
    if let Some(m) = db::league::membership_in(tx, &last_week, player_id).await? {
        last_week_boards.push(league_board(&m.cohort_id));
    }
    // a board being frozen now is frozen before or after this change, never across it
    db::settlement::lock_boards(tx, &last_week, &last_week_boards, false).await?;
    let last_week_live =
        db::leaderboard::set_hidden(tx, &last_week, &last_week_boards, player_id, hidden_until)
            .await?;
    db::settlement::set_hidden(tx, &last_week, &last_week_boards, player_id, hidden_until).await?;
    Ok(VisibilityChange {
        player_id: player_id.clone(),
        this_week_boards,
        last_week,
        last_week_live,
    })
}

/// After the change committed: this week's rank index entries and this process's pages
/// follow; last week's index sets are dropped, to be rebuilt without (or with) the player.
pub(crate) async fn after_commit(ctx: &AppContext, change: &VisibilityChange) {
    ctx.resync_ranks(&change.player_id, &change.this_week_boards)
        .await;
    if let Some(ranks) = &ctx.ranks
        && !change.last_week_live.is_empty()
    {
        ranks
            .invalidate(&change.last_week, &change.last_week_live)
            .await;
    }
}

/// Withdraws the promotion the player earned in last week's league cohort, inside
/// `tx`: their tier goes back to the cohort's, and their frozen row no longer counts as
/// having moved (the others' zones stay as they were settled). For a ban (of either
/// door: a fair-play decision or a plain ban) of a player who raised fair-play signals
/// that week (an answer's, or an unusual merge's: cheating that week); true when a
/// promotion was withdrawn.
pub(crate) async fn withdraw_last_week_promotion(
    tx: &mut Tx,
    ctx: &AppContext,
    player_id: &PlayerId,
) -> Result<bool> {
    let this_week_day = beijing::week_start(ctx.clock.now());
    let last_week_day = this_week_day - chrono::Duration::days(7);
    let last_week = beijing::day_key(last_week_day);
    let Some(m) = db::league::membership_in(tx, &last_week, player_id).await? else {
        return Ok(false);
    };
    let board = league_board(&m.cohort_id);
    let Some((counted, rank, players)) =
        db::settlement::counted_in_moves(tx, &last_week, &board, player_id).await?
    else {
        // not settled yet: the ban hides them before the moves are made
        return Ok(false);
    };
    let promoted = counted
        && crate::domain::league::zone(m.tier, rank, players, &ctx.settings.league)
            == crate::domain::league::Zone::Promotion
        && m.tier < crate::domain::league::TOP_TIER;
    if !promoted {
        return Ok(false);
    }
    let (from, to) = (
        beijing::day_start(last_week_day).timestamp_millis(),
        beijing::day_start(this_week_day).timestamp_millis(),
    );
    // a signal is an answer's, or a merge of that week that was unusual (another
    // merge within the 30 days before it: `domain::merge`)
    let merges =
        db::accounts::merges_since(tx, player_id, crate::domain::merge::window_start(from)).await?;
    let unusual_merge = merges.iter().any(|&at| {
        (from..to).contains(&at)
            && merges
                .iter()
                .filter(|&&other| (crate::domain::merge::window_start(at)..=at).contains(&other))
                .count()
                >= 2
    });
    if !unusual_merge && !db::fairplay::signalled_between(tx, player_id, from, to).await? {
        return Ok(false);
    }
    db::settlement::uncount(tx, &last_week, &board, player_id).await?;
    // only from the tier the promotion gave (a second decision finds it moved back)
    db::league::set_tier_from(tx, player_id, m.tier + 1, m.tier, ctx.clock.now_ms()).await?;
    Ok(true)
}
