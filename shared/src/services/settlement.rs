//! Weekly settlement: when a Beijing week has ended, the `settlement` job freezes the
//! final standings of every board of it (each region's, everyone's, each league
//! cohort's) and moves league players up and down a tier. A week has ended when it has
//! by the settling process's clock (the game's calendar) and by the database's: a
//! process whose clock runs ahead never settles a week still being played (each claim
//! checks the database's clock, so neither does a cohort settled on demand). Each board is settled in
//! one transaction that first claims it (`db::settlement::claim`), so a board is
//! settled exactly once whoever races for it, and a settler that dies leaves the boards
//! it had not finished to whoever runs next (the job's lease passes on). Held and
//! banned players (rows hidden when the board is settled) are kept hidden, with the
//! rank they would have had; they neither promote nor demote. A frozen row keeps its
//! place and `hidden_until`, so a later ban or unban hides or shows it as on a live
//! board (`services::board_visibility`).

use std::collections::HashMap;

use crate::clock::{beijing, from_ms};
use crate::context::AppContext;
use crate::db::settlement::FrozenRow;
use crate::db::{self};
use crate::domain::board::{Standing, league_board, ranked};
use crate::domain::league::{cohort_id, zone};
use crate::ids::PlayerId;
use crate::services::job_clock::cautious_now_ms;
use crate::{Error, Result};

/// What one run settled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    pub boards: u64,
    pub cohorts: u64,
    pub weeks: u64,
}

/// How far back settlement looks: a deployment that starts settling (or whose jobs
/// stopped for weeks) settles the last four ended weeks, not its whole history.
const WEEKS_BACK: i64 = 4;

/// Settles every ended week of the last four not settled yet, oldest first;
/// then flagged players of weeks before the last leave the fair-play queue.
pub async fn settle(ctx: &AppContext) -> Result<Settled> {
    let this_week = beijing::week_start(from_ms(cautious_now_ms(ctx).await?));
    let current = beijing::day_key(this_week);
    let oldest = beijing::day_key(this_week - chrono::Duration::days(7 * WEEKS_BACK + 1));
    let mut done = Settled::default();
    loop {
        let last = db::settlement::last_finished_week(&ctx.db)
            .await?
            .filter(|last| *last > oldest)
            .unwrap_or_else(|| oldest.clone());
        let Some(week) = db::settlement::next_week_with_rows(&ctx.db, &last, &current).await?
        else {
            break;
        };
        let finished = done.weeks;
        settle_week(ctx, &week, &mut done).await?;
        if done.weeks == finished {
            // not over by the database's clock after all (it was set back)
            break;
        }
    }
    if done.weeks > 0 {
        let last_week = beijing::day_key(this_week - chrono::Duration::days(7));
        db::fairplay::unqueue_stale(&ctx.db, &last_week).await?;
    }
    Ok(done)
}

/// The instant (Unix milliseconds) `week` (its Monday, `YYYY-MM-DD`) ends: the next
/// Monday's Beijing midnight.
fn week_end_ms(week: &str) -> Result<i64> {
    let monday = chrono::NaiveDate::parse_from_str(week, "%Y-%m-%d")
        .map_err(|_| Error::internal(format!("week {week:?} is not a date")))?;
    Ok(beijing::day_start(monday + chrono::Duration::days(7)).timestamp_millis())
}

/// Settles every board and cohort of `week` not settled yet, then marks it done;
/// nothing while the week has not ended by the database's clock.
pub async fn settle_week(ctx: &AppContext, week: &str, done: &mut Settled) -> Result<()> {
    let ends_at = week_end_ms(week)?;
    let mut after = String::new();
    while let Some(board) = db::settlement::next_board(&ctx.db, week, &after).await? {
        if db::settlement::settled(&ctx.db, week, &board)
            .await?
            .is_none()
        {
            let now = ctx.clock.now_ms();
            let mut tx = ctx.db.begin().await?;
            db::settlement::lock_boards(&mut tx, week, std::slice::from_ref(&board), true).await?;
            if db::settlement::claim(&mut tx, week, &board, now, ends_at).await? {
                let players = db::settlement::freeze_board(&mut tx, week, &board, now).await?;
                tx.commit().await?;
                done.boards += 1;
                tracing::info!(week, board, players, "settlement: board frozen");
            }
        }
        after = board;
    }
    for (tier, cohorts) in db::league::cohorts_of_week(&ctx.db, week).await? {
        for seq in 1..=cohorts {
            let cohort = cohort_id(week, tier, seq);
            if settle_cohort(ctx, week, &cohort, tier).await? {
                done.cohorts += 1;
            }
        }
    }
    let mut tx = ctx.db.begin().await?;
    let finished = db::settlement::finish_week(&mut tx, week, ctx.clock.now_ms(), ends_at).await?;
    tx.commit().await?;
    if finished {
        done.weeks += 1;
        tracing::info!(week, "settlement: week settled");
    }
    Ok(())
}

/// Freezes a cohort's standings and moves its players' tiers; false when it was
/// settled already. Also run on demand when a member of it earns their first XP of the
/// next week before the job has settled it, so they join at their new tier.
pub(crate) async fn settle_cohort(
    ctx: &AppContext,
    week: &str,
    cohort: &str,
    tier: i64,
) -> Result<bool> {
    let board = league_board(cohort);
    if db::settlement::settled(&ctx.db, week, &board)
        .await?
        .is_some()
    {
        return Ok(false);
    }
    let now = ctx.clock.now_ms();
    // the members are read in the settling transaction, after its lock: a ban that
    // committed before is seen, one after finds the frozen rows
    let mut tx = ctx.db.begin().await?;
    db::settlement::lock_boards(&mut tx, week, std::slice::from_ref(&board), true).await?;
    if !db::settlement::claim(&mut tx, week, &board, now, week_end_ms(week)?).await? {
        return Ok(false);
    }
    let members = db::league::members_in(&mut tx, week, cohort, now).await?;
    let hidden_until: HashMap<PlayerId, i64> = members
        .iter()
        .filter_map(|m| m.hidden_until.map(|until| (m.player_id.clone(), until)))
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
    let shown = standings.iter().filter(|(s, _)| !s.hidden).count() as i64;
    let rows: Vec<FrozenRow<'_>> = standings
        .iter()
        .enumerate()
        .map(|(i, (s, rank))| FrozenRow {
            player_id: &s.player_id,
            shown: !s.hidden,
            rank: *rank,
            xp: s.xp,
            last_earned_at: s.last_earned_at,
            place: i as i64 + 1,
            hidden_until: hidden_until.get(&s.player_id).copied(),
        })
        .collect();
    let tiers: Vec<(PlayerId, i64)> = standings
        .iter()
        .filter(|(s, _)| !s.hidden)
        .filter_map(|(s, rank)| {
            let next = zone(tier, *rank, shown, &ctx.settings.league).next_tier(tier);
            (next != tier).then(|| (s.player_id.clone(), next))
        })
        .collect();
    db::settlement::write_rows(&mut tx, week, &board, &rows).await?;
    db::league::set_tiers(&mut tx, &tiers, now).await?;
    tx.commit().await?;
    Ok(true)
}
