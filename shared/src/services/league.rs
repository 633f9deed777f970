//! Leagues: a player's first XP of a Beijing week puts them in the open cohort of
//! their tier (filled in arrival order, never over-filled, across processes); a
//! cohort's board ranks its members by the week's XP; the week's settlement moves the
//! top of each cohort up a tier and the bottom down (`services::settlement`).

use crate::clock::beijing;
use crate::context::AppContext;
use crate::db::league::Membership;
use crate::db::{self};
use crate::domain::league::cohort_prefix;
use crate::ids::PlayerId;
use crate::services::settlement;
use crate::{Error, Result};

/// The player's cohort of `week`, joining the open one of their tier when they have
/// none (after their first XP of the week). This process remembers who is in a
/// cohort, so the answers after the first cost nothing here.
pub async fn ensure_member(
    ctx: &AppContext,
    player_id: &PlayerId,
    week: &str,
    now_ms: i64,
) -> Result<Membership> {
    if let Some(m) = ctx.answer_cache.league_membership(week, player_id) {
        return Ok(m);
    }
    let last = previous_week(week).ok_or_else(|| Error::internal(format!("not a week: {week}")))?;
    let state = db::league::join_state(&ctx.db, week, &last, player_id).await?;
    if let Some(m) = state.this_week {
        ctx.answer_cache.remember_membership(week, player_id, &m);
        return Ok(m);
    }
    // last week's cohort settled first (the job may not have come round yet): the
    // player joins this week at the tier it leaves them
    let tier = match state.last_week {
        Some(m) => {
            settlement::settle_cohort(ctx, &last, &m.cohort_id, m.tier).await?;
            db::league::tier_of(&ctx.db, player_id).await?
        }
        None => state.tier,
    };
    let prefix = cohort_prefix(week, tier);
    let cap = ctx.settings.league.cohort_size;
    let m = match db::league::join(&ctx.db, week, tier, cap, player_id, &prefix, now_ms).await? {
        Some(m) => m,
        // joined meanwhile by another request: that place stands, this one was given back
        None => db::league::membership(&ctx.db, week, player_id)
            .await?
            .ok_or_else(|| Error::internal("league membership vanished"))?,
    };
    ctx.answer_cache.remember_membership(week, player_id, &m);
    Ok(m)
}

/// The Monday a week before `week` (`YYYY-MM-DD`).
fn previous_week(week: &str) -> Option<String> {
    chrono::NaiveDate::parse_from_str(week, "%Y-%m-%d")
        .ok()
        .map(|d| beijing::day_key(d - chrono::Duration::days(7)))
}

/// [`ensure_member`] after a change that earned weekly XP was committed: a failure is
/// logged (the player's next look at their league joins them). False when the database
/// is unreachable (the caller skips what else it would ask of it).
pub async fn after_weekly_xp(
    ctx: &AppContext,
    player_id: &PlayerId,
    week: &str,
    now_ms: i64,
) -> bool {
    match ensure_member(ctx, player_id, week, now_ms).await {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(error = %e, %player_id, "league: cohort not joined yet");
            !matches!(e, Error::DatabaseUnavailable(_))
        }
    }
}
