//! Fair play: an answer's signals add to the player's weekly suspicion score; past
//! `FAIRPLAY_HOLD_SCORE` the player is held (shadow-excluded from every board others
//! see, shown to themselves with the rank they would have); staff clear, hold or ban
//! from the review queue. Nothing here bans by itself.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use crate::clock::{beijing, from_ms};
use crate::closed_set::Submitted;
use crate::context::AppContext;
use crate::db::fairplay::{Added, Decision, Example, FairPlayRow, FairPlayScore, Scored};
use crate::db::ledger::HIDDEN_FOR_GOOD;
use crate::db::progress::{Target, Update, Written};
use crate::db::{self, Tx, in_tx};
use crate::domain::fairplay::{
    self as rules, FairPlayDecision, FairPlayState, Signal, queue_key, signals_of,
};
use crate::envelope::Pagination;
use crate::ids::{ChallengeId, PlayerId, QuestionId};
use crate::message::msg;
use crate::services::admin_auth::AdminPrincipal;
use crate::services::audit::{self, PageQuery, Write};
use crate::services::board_visibility::{self, VisibilityChange};
use crate::services::moderation;
use crate::{Error, Result};

/// Answers shown as examples per player of the queue.
const EXAMPLES: i64 = 3;

/// The signals of an answer, as its write adds them to the player's week
/// (`db::progress::write` scores them in the answer's own statement).
pub fn score_of_answer(
    signals: i64,
    now_ms: i64,
    rules: &rules::FairPlayRules,
) -> Option<FairPlayScore> {
    if signals == 0 {
        return None;
    }
    let count = |s: Signal| i64::from(signals & s.bit() != 0);
    Some(FairPlayScore {
        week: beijing::day_key(beijing::week_start(from_ms(now_ms))),
        added: Added {
            too_fast: count(Signal::TooFast),
            impossible: count(Signal::TimeClaimImpossible),
            fast_perfect: count(Signal::FastPerfect),
            score: rules::score_of(signals),
        },
        hold_score: rules.hold_score,
    })
}

/// After an answer's write scored its signals: holds the player when their week's score
/// passed the threshold. A failure is logged (the answer stands; the next signalled
/// answer finds the score still past it and holds them then).
pub async fn after_scored(ctx: &AppContext, player_id: &PlayerId, scored: &Scored, now_ms: i64) {
    if scored.state != FairPlayState::Flagged
        || !rules::holds(
            scored.week_score,
            scored.cleared_score,
            &ctx.settings.fairplay,
        )
    {
        return;
    }
    if let Err(e) = hold(ctx, player_id, now_ms).await {
        tracing::warn!(error = %e, %player_id, "fair play: hold not placed");
    }
}

/// Holds a flagged player (audited, actor `system`); nothing when another request held,
/// cleared or banned them first. The progress row is locked first, as the answer's write
/// and every decision lock it before the fair-play row.
async fn hold(ctx: &AppContext, player_id: &PlayerId, now_ms: i64) -> Result<()> {
    let mut tx = ctx.db.begin().await?;
    let change = set_hold(&mut tx, ctx, player_id, true, now_ms).await?;
    let Some(week_score) = db::fairplay::hold_flagged(&mut tx, player_id, now_ms).await? else {
        // decided meanwhile: the hold set above rolls back with the transaction
        return Ok(());
    };
    audit::record_and_commit(
        tx,
        ctx,
        &audit::system(),
        Write {
            action: "player.fair_play_hold",
            target_type: "player",
            target_id: Some(player_id.as_str()),
            before: Some(json!({ "state": "flagged" })),
            after: Some(json!({ "state": "held", "weekScore": week_score })),
        },
    )
    .await?;
    after_hold_change(ctx, player_id, &change).await;
    tracing::info!(%player_id, week_score, "fair play: player held");
    Ok(())
}

/// Holds or releases a player in `tx`: a revision step (so no answer judged before it
/// is written after it), the flag (their new weekly rows are hidden as written), and
/// their rows on every board still shown (`board_visibility`: this week's, last week's
/// live or frozen). Returns what is left to do after commit.
async fn set_hold(
    tx: &mut Tx,
    ctx: &AppContext,
    player_id: &PlayerId,
    held: bool,
    now_ms: i64,
) -> Result<VisibilityChange> {
    // The progress row first, as every writer of the player's weekly rows locks it: a
    // write racing the hold then either commits before it (its rows are hidden below)
    // or waits and reads the hold (and an answer judged before it fails its guard).
    if !matches!(
        db::progress::write(Target::Tx(tx), player_id, Update::Touch, now_ms).await?,
        Written::Recorded { .. }
    ) {
        return Err(Error::not_found(msg::PLAYER_NOT_FOUND));
    }
    if !db::fairplay::set_held(tx, player_id, held).await? {
        return Err(Error::not_found(msg::PLAYER_NOT_FOUND));
    }
    let (region, banned_until): (Option<String>, Option<Option<i64>>) = in_tx!(tx, |ex| {
        let (region, banned, until): (Option<String>, bool, Option<i64>) = sqlx::query_as(
            "SELECT region_code, is_banned, banned_until FROM players WHERE id = $1",
        )
        .bind(player_id)
        .fetch_one(ex)
        .await?;
        (region, banned.then_some(until))
    });
    let hidden_until = if held {
        Some(HIDDEN_FOR_GOOD)
    } else {
        // released: hidden still while banned
        banned_until.map(|until| until.unwrap_or(HIDDEN_FOR_GOOD))
    };
    let change =
        board_visibility::set_hidden(tx, ctx, player_id, region.as_deref(), hidden_until).await?;
    db::progress::write(Target::Tx(tx), player_id, Update::Touch, now_ms).await?;
    Ok(change)
}

/// After a hold or release committed: the rank index and this process's memory follow.
async fn after_hold_change(ctx: &AppContext, player_id: &PlayerId, change: &VisibilityChange) {
    ctx.answer_cache.forget_player(player_id);
    board_visibility::after_commit(ctx, change).await;
}

// ---------------------------------------------------------------------------------------
// The review queue and decisions

/// How many of each signal a player raised (every week).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignalCounts {
    pub too_fast: i64,
    pub time_claim_impossible: i64,
    pub fast_perfect: i64,
    /// Guests merged into the account beyond the first in 30 days (each weighs 10:
    /// `domain::merge`).
    pub merges: i64,
}

/// An answer that raised signals.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignalExample {
    pub challenge_id: ChallengeId,
    pub question_id: QuestionId,
    pub is_correct: bool,
    /// What the client claimed.
    pub time_ms: i64,
    /// What the server measured.
    pub server_elapsed_ms: Option<i64>,
    pub signals: Vec<Signal>,
    pub answered_at: DateTime<Utc>,
}

/// A player as the fair-play queue shows them.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FairPlayEntry {
    pub user_id: PlayerId,
    pub display_name: String,
    pub state: FairPlayState,
    /// On no board others see.
    pub held: bool,
    /// The Beijing week of `weekScore` (YYYY-MM-DD, its Monday).
    pub week_start: String,
    /// The week's suspicion score (too_fast 1, time_claim_impossible 3, fast_perfect 10,
    /// a merge beyond the first in 30 days 10).
    pub week_score: i64,
    /// The hold threshold (`FAIRPLAY_HOLD_SCORE`).
    pub hold_score: i64,
    pub signals: SignalCounts,
    /// Null for a decision on a player without signals.
    pub last_signal_at: Option<DateTime<Utc>>,
    /// The admin of the last decision; `system` for the service's own hold; null before.
    pub decided_by: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
    pub reason: Option<String>,
    /// The latest answers that raised signals.
    pub examples: Vec<SignalExample>,
}

fn example(e: Example) -> SignalExample {
    SignalExample {
        challenge_id: e.session_id,
        question_id: e.question_id,
        is_correct: e.is_correct,
        time_ms: e.time_ms,
        server_elapsed_ms: e.server_elapsed_ms,
        signals: signals_of(e.signals),
        answered_at: from_ms(e.created_at),
    }
}

fn entry(
    ctx: &AppContext,
    row: FairPlayRow,
    nickname: Option<String>,
    held: bool,
    examples: Vec<Example>,
) -> FairPlayEntry {
    FairPlayEntry {
        display_name: nickname
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| "Player".into()),
        state: row.state,
        held,
        week_start: row.week_start,
        week_score: row.week_score,
        hold_score: ctx.settings.fairplay.hold_score,
        signals: SignalCounts {
            too_fast: row.too_fast,
            time_claim_impossible: row.impossible,
            fast_perfect: row.fast_perfect,
            merges: row.merges,
        },
        last_signal_at: (row.last_signal_at > 0).then(|| from_ms(row.last_signal_at)),
        decided_by: row
            .decided_by
            .or_else(|| row.decided_at.map(|_| "system".to_string())),
        decided_at: row.decided_at.map(from_ms),
        reason: row.reason,
        examples: examples.into_iter().map(example).collect(),
        user_id: row.player_id,
    }
}

/// `GET /v1/admin/fair-play`: held players first, then flagged ones, by the week's
/// score.
pub async fn queue(ctx: &AppContext, q: &PageQuery) -> Result<(Vec<FairPlayEntry>, Pagination)> {
    let (page, limit, offset) = q.resolve()?;
    let total = db::fairplay::queue_size(&ctx.db).await?;
    let rows = if offset < total {
        db::fairplay::queue(&ctx.db, limit, offset).await?
    } else {
        Vec::new()
    };
    let ids: Vec<&PlayerId> = rows.iter().map(|r| &r.row.player_id).collect();
    let mut examples = db::fairplay::examples(&ctx.db, &ids, EXAMPLES).await?;
    examples.sort_by_key(|e| std::cmp::Reverse(e.created_at));
    let items = rows
        .into_iter()
        .map(|r| {
            let held = r.row.state == FairPlayState::Held;
            let own = examples
                .iter()
                .filter(|e| e.player_id == r.row.player_id)
                .cloned()
                .collect();
            entry(ctx, r.row, r.nickname, held, own)
        })
        .collect();
    Ok((items, Pagination { total, page, limit }))
}

/// `PUT /v1/admin/users/{id}/fair-play`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct DecisionRequest {
    /// `clear` (back on the boards; only signals after this count towards a new hold),
    /// `hold` (off the boards others see until cleared), or `ban` (as
    /// `PUT /users/{id}/ban` without an end).
    #[schema(value_type = FairPlayDecision)]
    pub decision: Submitted<FairPlayDecision>,
    /// Up to 500 characters.
    pub reason: Option<String>,
}

/// A staff decision on a player (audited as `player.fair_play`); answers the player's
/// fair-play entry.
pub async fn decide(
    ctx: &AppContext,
    actor: &AdminPrincipal,
    player_id: &PlayerId,
    req: &DecisionRequest,
) -> Result<FairPlayEntry> {
    let reason = moderation::staff_reason(req.reason.as_deref())?;
    let decision = req
        .decision
        .member()
        .ok_or_else(|| Error::validation(msg::DECISION_MUST_BE_CLEAR_HOLD_OR_BAN))?;
    let state = decision.state();
    let held = state == FairPlayState::Held;
    let before = moderation::player(ctx, player_id).await?;
    let now = ctx.clock.now_ms();
    let week = beijing::day_key(beijing::week_start(from_ms(now)));
    let previous = db::fairplay::row_of(&ctx.db, player_id).await?;
    let score = previous
        .as_ref()
        .filter(|r| r.week_start == week)
        .map_or(0, |r| r.week_score);
    let mut tx = ctx.db.begin().await?;
    // The progress row first, the order the answer's write (which scores signals) locks
    // the player's rows in: so a decision and an answer never wait on each other's lock.
    if !matches!(
        db::progress::write(Target::Tx(&mut tx), player_id, Update::Touch, now).await?,
        Written::Recorded { .. }
    ) {
        return Err(Error::not_found(msg::PLAYER_NOT_FOUND));
    }
    db::fairplay::decide(
        &mut tx,
        player_id,
        &week,
        &Decision {
            state,
            queue_key: queue_key(state, score, &ctx.settings.fairplay),
            decided_by: Some(&actor.username),
            reason,
            clear_week: (state == FairPlayState::Cleared).then_some(week.as_str()),
            now_ms: now,
        },
    )
    .await?;
    // a ban keeps a hold as it was (the ban hides the rows while it lasts); it is
    // written in this transaction, so the decision and the ban land together or not at
    // all. A ban for cheating: a promotion earned in last week's cohort while raising
    // signals is withdrawn with it.
    let (hold, ban, promotion_withdrawn) = if state == FairPlayState::Banned {
        let ban = moderation::set_ban_in(
            &mut tx,
            ctx,
            actor,
            &before,
            true,
            reason,
            None,
            "player.ban",
        )
        .await?;
        let withdrawn =
            board_visibility::withdraw_last_week_promotion(&mut tx, ctx, player_id).await?;
        (None, Some(ban), withdrawn)
    } else {
        (
            Some(set_hold(&mut tx, ctx, player_id, held, now).await?),
            None,
            false,
        )
    };
    audit::record_and_commit(
        tx,
        ctx,
        actor,
        Write {
            action: "player.fair_play",
            target_type: "player",
            target_id: Some(player_id.as_str()),
            before: Some(json!({
                "state": before.fair_play_state,
                "held": before.fair_play_held,
            })),
            after: Some(json!({
                "state": state,
                "held": if state == FairPlayState::Banned { before.fair_play_held } else { held },
                "reason": reason,
                "promotionWithdrawn": promotion_withdrawn,
            })),
        },
    )
    .await?;
    if let Some(change) = hold {
        after_hold_change(ctx, player_id, &change).await;
    }
    if let Some(ban) = ban {
        moderation::after_ban(ctx, &ban).await;
    }
    let row = db::fairplay::row_of(&ctx.db, player_id)
        .await?
        .ok_or_else(|| Error::internal("fair-play row vanished"))?;
    let after = moderation::player(ctx, player_id).await?;
    let examples = db::fairplay::examples(&ctx.db, &[player_id], EXAMPLES).await?;
    Ok(entry(
        ctx,
        row,
        after.nickname,
        after.fair_play_held,
        examples,
    ))
}
