//! Linking a guest to a formal identity (upgrade in place or merge into the existing
//! account), and deleting an account. Each runs inside the caller's transaction.

use serde::{Deserialize, Serialize};

use super::progress::{self, Target, Update};
use super::{Tx, in_tx};
use crate::domain::board::BoardKey;
use crate::domain::identity::IdentityProvider;
use crate::ids::PlayerId;

/// Claims an idempotency key of `owner` (keys are each owner's own: another owner's
/// equal key is another record); false when the owner holds the key already.
pub async fn claim_idempotency(
    tx: &mut Tx,
    scope: &str,
    key: &str,
    owner: &PlayerId,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO idempotency_records (scope, key, owner_id, response, created_at)
             VALUES ($1, $2, $3, '', $4) ON CONFLICT (owner_id, scope, key) DO NOTHING",
        )
        .bind(scope)
        .bind(key)
        .bind(owner)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// The stored answer of an owner's idempotency key (`$1` owner, `$2` scope, `$3` key);
/// read inside and outside a transaction.
const IDEMPOTENT_RESPONSE: &str = "SELECT response FROM idempotency_records
     WHERE owner_id = $1 AND scope = $2 AND key = $3";

/// The stored answer of `owner`'s idempotency key, read outside any transaction.
pub async fn find_idempotent_response(
    db: &super::Db,
    owner: &PlayerId,
    scope: &str,
    key: &str,
) -> sqlx::Result<Option<String>> {
    Ok(super::read!(db, |ex| {
        sqlx::query_scalar(IDEMPOTENT_RESPONSE)
            .bind(owner)
            .bind(scope)
            .bind(key)
            .fetch_optional(ex)
            .await?
    }))
}

pub async fn idempotent_response(
    tx: &mut Tx,
    owner: &PlayerId,
    scope: &str,
    key: &str,
) -> sqlx::Result<Option<String>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(IDEMPOTENT_RESPONSE)
            .bind(owner)
            .bind(scope)
            .bind(key)
            .fetch_optional(ex)
            .await?
    }))
}

pub async fn store_idempotent_response(
    tx: &mut Tx,
    owner: &PlayerId,
    scope: &str,
    key: &str,
    response: &str,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE idempotency_records SET response = $4
             WHERE owner_id = $1 AND scope = $2 AND key = $3",
        )
        .bind(owner)
        .bind(scope)
        .bind(key)
        .bind(response)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// Marks a guest as linked; false when it is not an unlinked guest (linked before, or
/// concurrently by another migration id).
pub async fn mark_guest_linked(
    tx: &mut Tx,
    guest_id: &PlayerId,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET linked_at = $2, updated_at = $2
             WHERE id = $1 AND is_guest = TRUE AND linked_at IS NULL AND deleted_at IS NULL",
        )
        .bind(guest_id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

pub async fn identity_owner(
    tx: &mut Tx,
    provider: IdentityProvider,
    subject: &str,
) -> sqlx::Result<Option<PlayerId>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(super::players::IDENTITY_OWNER)
            .bind(provider.as_str())
            .bind(subject)
            .fetch_optional(ex)
            .await?
    }))
}

/// The guest becomes a formal account with `provider`/`subject`, keeping its id and data;
/// its device identity goes (a device id is no credential for a formal account). False
/// when the identity was registered concurrently.
pub async fn upgrade_guest(
    tx: &mut Tx,
    guest_id: &PlayerId,
    provider: IdentityProvider,
    subject: &str,
    now_ms: i64,
) -> sqlx::Result<bool> {
    let inserted = in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO player_identities (provider, subject, player_id, created_at)
             VALUES ($1, $2, $3, $4) ON CONFLICT (provider, subject) DO NOTHING",
        )
        .bind(provider.as_str())
        .bind(subject)
        .bind(guest_id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    });
    if !inserted {
        return Ok(false);
    }
    in_tx!(tx, |ex| {
        sqlx::query("UPDATE players SET is_guest = FALSE, updated_at = $2 WHERE id = $1")
            .bind(guest_id)
            .bind(now_ms)
            .execute(ex)
            .await?;
    });
    drop_device_identity(tx, guest_id).await?;
    Ok(true)
}

/// One reward of the guest that the account already had.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, sqlx::FromRow)]
pub struct RewardConflict {
    pub idempotency_key: String,
    pub xp_delta: i64,
}

/// What a merge moved and what it left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeCounts {
    pub sessions: i64,
    pub unfinished_sessions: i64,
    pub answers: i64,
    pub rewards: i64,
    pub xp: i64,
    pub node_completions: i64,
    pub node_completions_skipped: i64,
    /// The account's weekly board rows the moved XP went to.
    pub weekly_rows: i64,
    /// Moved XP the boards do not show: a merged day counts there only up to one
    /// player's day (`domain::merge::board_xp`).
    pub board_xp_withheld: i64,
    pub reward_conflicts: Vec<RewardConflict>,
    pub skipped_coins: i64,
    pub skipped_inventory: i64,
    pub skipped_streak_days: i64,
}

/// XP of moved ledger rows earned in one Beijing day.
#[derive(Clone, Copy, Debug, sqlx::FromRow)]
struct MovedDay {
    /// `clock::beijing::day_number`.
    day: i64,
    moved_rows: i64,
    xp: i64,
    /// The last instant XP was earned that day (None: no XP row).
    last_earned_at: Option<i64>,
}

/// What the moved XP adds to the account's rows of one Beijing week.
#[derive(Clone, Copy, Debug, Default)]
struct MovedWeek {
    /// `clock::beijing::week_number`.
    week: i64,
    xp: i64,
    /// The last instant XP the boards count was earned that week (None: none).
    last_earned_at: Option<i64>,
}

/// The boards of the account a merge adds to: every player's, and a region's (the one
/// it had that week, else the one it has now), each day up to `daily_xp_ceiling`.
pub struct MergeBoards<'a> {
    /// What one player can earn in a day (`GameRules::daily_xp_ceiling`): a merged day
    /// adds to the boards only up to it, less what the account earned itself that day.
    pub daily_xp_ceiling: i64,
    /// The account's region now.
    pub target_region: Option<&'a str>,
    /// Every region of the catalogue (its code), where the account's row of an earlier
    /// week is looked up: a region move carries only the week it happens in.
    pub regions: &'a [String],
}

/// Moves the guest's answer records and reward records into `target`. The target's
/// subscription, wallet, inventory and streak are left as they are; a guest reward the
/// target already holds (same key in the target's key space) stays behind as a conflict.
/// The account's weekly rows gain what its ledger gained, day by day up to one player's
/// day (`domain::merge::board_xp`): the XP of the moved rewards, never the guest's rows
/// wholesale (they count the rewards left behind). The account's XP gains it all.
pub async fn merge_guest(
    tx: &mut Tx,
    guest: &PlayerId,
    target: &PlayerId,
    boards: &MergeBoards<'_>,
    now_ms: i64,
) -> sqlx::Result<MergeCounts> {
    let mut c = MergeCounts::default();
    let moved_days: Vec<MovedDay>;
    let own_days: Vec<(i64, i64)>;
    in_tx!(tx, |ex| {
        // Answer records: unfinished sessions are closed, then sessions and answers move.
        c.unfinished_sessions = sqlx::query(
            "UPDATE challenge_sessions SET status = 'abandoned', finished_at = $2
             WHERE player_id = $1 AND status IN ('pending', 'in_progress')",
        )
        .bind(guest)
        .bind(now_ms)
        .execute(&mut *ex)
        .await?
        .rows_affected() as i64;
        c.sessions =
            sqlx::query("UPDATE challenge_sessions SET player_id = $2 WHERE player_id = $1")
                .bind(guest)
                .bind(target)
                .execute(&mut *ex)
                .await?
                .rows_affected() as i64
                - c.unfinished_sessions;
        // submitRequestId is unique per player: a guest id the account already used is
        // dropped (the answer itself moves).
        c.answers = sqlx::query(
            "UPDATE challenge_answers SET player_id = $2,
                 submit_request_id = CASE WHEN EXISTS (
                     SELECT 1 FROM challenge_answers t
                     WHERE t.player_id = $2 AND t.submit_request_id = challenge_answers.submit_request_id)
                 THEN NULL ELSE submit_request_id END
             WHERE player_id = $1",
        )
            .bind(guest)
            .bind(target)
            .execute(&mut *ex)
            .await?
            .rows_affected() as i64;
        // Review memory moves; where both remember a question, the later answer's
        // memory stays (its review count is both's, so an answer judged on the
        // account's row before the merge fails its guard and is judged again).
        sqlx::query(
            "INSERT INTO review_memory (player_id, question_id, track_id, stability, difficulty,
                 reviews, lapses, last_correct, last_answered_at, due_at, review_at)
             SELECT $2, question_id, track_id, stability, difficulty, reviews, lapses,
                 last_correct, last_answered_at, due_at, review_at
             FROM review_memory WHERE player_id = $1
             ON CONFLICT (question_id, player_id) DO UPDATE SET
                 reviews = review_memory.reviews + excluded.reviews,
                 lapses = review_memory.lapses + excluded.lapses,
                 stability = CASE WHEN excluded.last_answered_at > review_memory.last_answered_at
                     THEN excluded.stability ELSE review_memory.stability END,
                 difficulty = CASE WHEN excluded.last_answered_at > review_memory.last_answered_at
                     THEN excluded.difficulty ELSE review_memory.difficulty END,
                 last_correct = CASE WHEN excluded.last_answered_at > review_memory.last_answered_at
                     THEN excluded.last_correct ELSE review_memory.last_correct END,
                 due_at = CASE WHEN excluded.last_answered_at > review_memory.last_answered_at
                     THEN excluded.due_at ELSE review_memory.due_at END,
                 review_at = CASE WHEN excluded.last_answered_at > review_memory.last_answered_at
                     THEN excluded.review_at ELSE review_memory.review_at END,
                 last_answered_at = CASE WHEN excluded.last_answered_at > review_memory.last_answered_at
                     THEN excluded.last_answered_at ELSE review_memory.last_answered_at END",
        )
        .bind(guest)
        .bind(target)
        .execute(&mut *ex)
        .await?;
        for sql in [
            "DELETE FROM review_memory WHERE player_id = $1",
            "DELETE FROM review_parameters WHERE player_id = $1",
        ] {
            sqlx::query(sql).bind(guest).execute(&mut *ex).await?;
        }
        let guest_nodes: i64 =
            sqlx::query_scalar("SELECT count(*) FROM node_completions WHERE player_id = $1")
                .bind(guest)
                .fetch_one(&mut *ex)
                .await?;
        c.node_completions = sqlx::query(
            "INSERT INTO node_completions (player_id, node_id, completed_at)
             SELECT $2, node_id, completed_at FROM node_completions WHERE player_id = $1
             ON CONFLICT (player_id, node_id) DO NOTHING",
        )
        .bind(guest)
        .bind(target)
        .execute(&mut *ex)
        .await?
        .rows_affected() as i64;
        c.node_completions_skipped = guest_nodes - c.node_completions;
        sqlx::query("DELETE FROM node_completions WHERE player_id = $1")
            .bind(guest)
            .execute(&mut *ex)
            .await?;

        // Reward records move into the target's key space unless it holds that key.
        c.reward_conflicts = sqlx::query_as::<_, RewardConflict>(
            "SELECT REPLACE(g.idempotency_key, $1, $2) AS idempotency_key, g.xp_delta
             FROM reward_ledger g
             WHERE g.player_id = $1 AND EXISTS (
                 SELECT 1 FROM reward_ledger t
                 WHERE t.player_id = $2 AND t.idempotency_key = REPLACE(g.idempotency_key, $1, $2))
             ORDER BY g.created_at",
        )
        .bind(guest)
        .bind(target)
        .fetch_all(&mut *ex)
        .await?;
        let moved_sql = format!(
            "SELECT {day} AS day, count(*) AS moved_rows,
                    CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) AS xp,
                    MAX(CASE WHEN xp_delta <> 0 THEN created_at END) AS last_earned_at
             FROM reward_ledger g
             WHERE g.player_id = $1 AND NOT EXISTS (
                 SELECT 1 FROM reward_ledger t
                 WHERE t.player_id = $2 AND t.idempotency_key = REPLACE(g.idempotency_key, $1, $2))
             GROUP BY {day}",
            day = crate::clock::beijing::DAY_NUMBER_SQL
        );
        moved_days = sqlx::query_as::<_, MovedDay>(sqlx::AssertSqlSafe(moved_sql))
            .bind(guest)
            .bind(target)
            .fetch_all(&mut *ex)
            .await?;
        c.rewards = moved_days.iter().map(|d| d.moved_rows).sum();
        c.xp = moved_days.iter().map(|d| d.xp).sum();
        // what the account earned itself on those days, before anything moves in
        // (index reward_ledger_player)
        let first = moved_days.iter().map(|d| d.day).min();
        let last = moved_days.iter().map(|d| d.day).max();
        own_days = match (first, last) {
            (Some(first), Some(last)) => {
                let own_sql = format!(
                    "SELECT {day} AS day, CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) AS xp
                     FROM reward_ledger
                     WHERE player_id = $1 AND created_at >= $2 AND created_at < $3
                     GROUP BY {day}",
                    day = crate::clock::beijing::DAY_NUMBER_SQL
                );
                sqlx::query_as::<_, (i64, i64)>(sqlx::AssertSqlSafe(own_sql))
                    .bind(target)
                    .bind(crate::clock::beijing::day_number_start_ms(first))
                    .bind(crate::clock::beijing::day_number_start_ms(last + 1))
                    .fetch_all(&mut *ex)
                    .await?
            }
            _ => Vec::new(),
        };
        sqlx::query(
            "UPDATE reward_ledger SET player_id = $2, idempotency_key = REPLACE(idempotency_key, $1, $2)
             WHERE player_id = $1 AND NOT EXISTS (
                 SELECT 1 FROM reward_ledger t
                 WHERE t.player_id = $2 AND t.idempotency_key = REPLACE(reward_ledger.idempotency_key, $1, $2))",
        )
        .bind(guest)
        .bind(target)
        .execute(&mut *ex)
        .await?;
    });
    // The answers counted by the statistics follow the answers; so does a fair-play
    // hold (before the weekly rows move: a held guest's XP stays hidden).
    crate::db::question_stats::move_player(tx, guest, target).await?;
    crate::db::fairplay::move_player(tx, guest, target).await?;
    crate::db::learning::move_player(tx, guest, target).await?;
    // XP follows its ledger rows, so each account's ledger still sums to its XP.
    for (player, delta) in [(target, c.xp), (guest, -c.xp)] {
        progress::write(Target::Tx(tx), player, Update::AddXp(delta), now_ms).await?;
    }
    let moved_weeks = board_weeks(&moved_days, &own_days, boards.daily_xp_ceiling, &mut c);
    for week in moved_weeks {
        let Some(last_earned_at) = week.last_earned_at.filter(|_| week.xp != 0) else {
            continue;
        };
        let week_key =
            crate::clock::beijing::day_key(crate::clock::beijing::week_of_number(week.week));
        let mut week_boards = vec![String::from(BoardKey::all_players())];
        week_boards.extend(region_row_of(tx, &week_key, target, boards).await?);
        for board in &week_boards {
            add_moved_xp(
                tx,
                &week_key,
                board,
                target,
                week.xp,
                crate::domain::change::earned_at(last_earned_at),
            )
            .await?;
            c.weekly_rows += 1;
        }
    }
    in_tx!(tx, |ex| {
        sqlx::query("DELETE FROM weekly_xp WHERE player_id = $1")
            .bind(guest)
            .execute(&mut *ex)
            .await?;

        // Kept with the guest: the target's own balance, inventory and streak win.
        for (sum_sql, skipped) in [
            (
                "SELECT CAST(COALESCE(SUM(coins_balance), 0) AS BIGINT) FROM wallets WHERE player_id = $1",
                &mut c.skipped_coins,
            ),
            (
                "SELECT CAST(COALESCE(SUM(quantity), 0) AS BIGINT) FROM inventory_items WHERE player_id = $1",
                &mut c.skipped_inventory,
            ),
            (
                "SELECT CAST(COALESCE(SUM(streak_days), 0) AS BIGINT) FROM player_progress WHERE player_id = $1",
                &mut c.skipped_streak_days,
            ),
        ] {
            *skipped = sqlx::query_scalar::<_, i64>(sum_sql)
                .bind(guest)
                .fetch_one(&mut *ex)
                .await?;
        }

        sqlx::query(
            "UPDATE players SET merged_into = $2, merged_at = $3, updated_at = $3 WHERE id = $1",
        )
        .bind(guest)
        .bind(target)
        .bind(now_ms)
        .execute(&mut *ex)
        .await?;
    });
    // Every token of the merged-away guest dies with it (access tokens are refused by
    // `merged_into`); no answer judged on a memory of it writes any more.
    revoke_refresh_tokens(tx, guest, now_ms).await?;
    drop_device_identity(tx, guest).await?;
    Ok(c)
}

/// What the moved days add to the account's boards, week by week: each day up to
/// `ceiling` less what the account earned itself that day (`own`, by day number);
/// what stays off the boards is counted in `c.board_xp_withheld`.
fn board_weeks(
    moved: &[MovedDay],
    own: &[(i64, i64)],
    ceiling: i64,
    c: &mut MergeCounts,
) -> Vec<MovedWeek> {
    let mut weeks: std::collections::BTreeMap<i64, MovedWeek> = Default::default();
    for day in moved {
        let own_xp = own
            .iter()
            .find(|(d, _)| *d == day.day)
            .map_or(0, |(_, xp)| *xp);
        let counted = crate::domain::merge::board_xp(day.xp, own_xp, ceiling);
        c.board_xp_withheld += day.xp - counted;
        let week_number = (day.day + 3).div_euclid(7);
        let week = weeks.entry(week_number).or_insert(MovedWeek {
            week: week_number,
            ..MovedWeek::default()
        });
        week.xp += counted;
        if counted != 0 {
            week.last_earned_at = week.last_earned_at.max(day.last_earned_at);
        }
    }
    weeks.into_values().collect()
}

/// The merges into `target` at or after `since_ms`: when each happened (index
/// `players_merged`; a handful at most).
pub async fn merges_since(tx: &mut Tx, target: &PlayerId, since_ms: i64) -> sqlx::Result<Vec<i64>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "SELECT merged_at FROM players
             WHERE merged_into = $1 AND merged_at >= $2
             ORDER BY merged_at DESC LIMIT 100",
        )
        .bind(target)
        .bind(since_ms)
        .fetch_all(ex)
        .await?
    }))
}

/// The account's region board of `week`: the region row it has that week (one
/// primary-key probe per region), else its region now; None without a region.
async fn region_row_of(
    tx: &mut Tx,
    week: &str,
    target: &PlayerId,
    boards: &MergeBoards<'_>,
) -> sqlx::Result<Option<String>> {
    let regions: Vec<String> = boards
        .regions
        .iter()
        .map(|code| String::from(BoardKey::region(code)))
        .collect();
    let found: Option<String> = if regions.is_empty() {
        None
    } else {
        let sql = format!(
            "SELECT board FROM weekly_xp
             WHERE week_start = $1 AND player_id = $2 AND board IN ({}) LIMIT 1",
            super::placeholders_from(3, regions.len())
        );
        in_tx!(tx, |ex| {
            let mut q = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(week)
                .bind(target);
            for r in &regions {
                q = q.bind(r.as_str());
            }
            q.fetch_optional(ex).await?
        })
    };
    Ok(found.or_else(|| {
        boards
            .target_region
            .map(|code| String::from(BoardKey::region(code)))
    }))
}

/// Adds moved XP to one of the account's weekly rows: hidden when the account is held
/// (as every write of a held player's rows is), its last earning the later of the two.
async fn add_moved_xp(
    tx: &mut Tx,
    week: &str,
    board: &str,
    target: &PlayerId,
    xp: i64,
    last_earned_at: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at, hidden_until)
             VALUES ($1, $2, $3, $4, $5,
                     (SELECT CASE WHEN fairplay_held THEN $6 END FROM players WHERE id = $3))
             ON CONFLICT (week_start, board, player_id) DO UPDATE SET
                 xp = weekly_xp.xp + excluded.xp,
                 hidden_until = COALESCE(excluded.hidden_until, weekly_xp.hidden_until),
                 last_earned_at = CASE WHEN excluded.last_earned_at > weekly_xp.last_earned_at
                                       THEN excluded.last_earned_at ELSE weekly_xp.last_earned_at END",
        )
        .bind(week)
        .bind(board)
        .bind(target)
        .bind(xp)
        .bind(last_earned_at)
        .bind(crate::db::ledger::HIDDEN_FOR_GOOD)
        .execute(ex)
        .await?;
    });
    Ok(())
}

/// Revokes every refresh token of a player not yet revoked, used ones included: the
/// account itself ends (a merge, a deletion), not just its sign-ins.
async fn revoke_refresh_tokens(
    tx: &mut Tx,
    player_id: &PlayerId,
    now_ms: i64,
) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE refresh_tokens SET revoked_at = $2
             WHERE audience = 'player' AND subject_id = $1 AND revoked_at IS NULL",
        )
        .bind(player_id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    }))
}

/// Removes a player's device identity: a device id is no credential for a formal
/// account, nor for one merged away.
async fn drop_device_identity(tx: &mut Tx, player_id: &PlayerId) -> sqlx::Result<u64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query("DELETE FROM player_identities WHERE player_id = $1 AND provider = 'device'")
            .bind(player_id)
            .execute(ex)
            .await?
            .rows_affected()
    }))
}

/// Deletes an account's personal data and identities; its ledger and answer records
/// stay, pointing at a row that no longer says who the player was. Its weekly rows leave
/// the leaderboards; every refresh token is revoked. True when this call deleted it.
pub async fn delete_player(tx: &mut Tx, player_id: &PlayerId, now_ms: i64) -> sqlx::Result<bool> {
    let deleted = in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET nickname = NULL, avatar_url = NULL, region_code = NULL,
                 region_selected_at = NULL, region_next_change_at = NULL, ban_reason = NULL,
                 age_band = NULL, guardian_pin_hash = NULL, guardian_pin_locked_until = NULL,
                 guardian_pin_failures = 0, last_export_at = NULL, real_name_status = NULL,
                 real_name_ai = NULL, real_name_pi = NULL, real_name_birth_year = NULL,
                 real_name_at = NULL,
                 deleted_at = $2, updated_at = $2
             WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind(player_id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    });
    if !deleted {
        return Ok(false);
    }
    let phones: Vec<String> = in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "SELECT subject FROM player_identities WHERE player_id = $1 AND provider = 'phone'",
        )
        .bind(player_id)
        .fetch_all(ex)
        .await?
    });
    for phone in &phones {
        super::sms::forget_phone(tx, phone).await?;
    }
    in_tx!(tx, |ex| {
        for sql in [
            "DELETE FROM player_identities WHERE player_id = $1",
            "DELETE FROM weekly_xp WHERE player_id = $1",
            "DELETE FROM player_skills WHERE player_id = $1",
            "DELETE FROM review_memory WHERE player_id = $1",
            "DELETE FROM review_parameters WHERE player_id = $1",
            "DELETE FROM player_check_ins WHERE player_id = $1",
            "DELETE FROM inventory_items WHERE player_id = $1",
            "DELETE FROM wallets WHERE player_id = $1",
            "DELETE FROM subscriptions WHERE player_id = $1",
            "DELETE FROM ad_sessions WHERE player_id = $1",
            "DELETE FROM minor_play WHERE player_id = $1",
            // reports NPPA has not taken yet are still owed to it; they go once sent
            "DELETE FROM nppa_reports WHERE player_id = $1 AND sent_at IS NOT NULL",
            "DELETE FROM idempotency_records WHERE owner_id = $1",
            "UPDATE feedback SET player_id = NULL, contact = NULL WHERE player_id = $1",
        ] {
            sqlx::query(sql).bind(player_id).execute(&mut *ex).await?;
        }
    });
    revoke_refresh_tokens(tx, player_id, now_ms).await?;
    // an answer judged before the deletion then fails to write
    progress::write(Target::Tx(tx), player_id, Update::Touch, now_ms).await?;
    Ok(true)
}

/// Revokes one refresh token of a player (logout); harmless when unknown or used.
/// Answers the family (the sign-in) of a token it revoked.
pub async fn revoke_refresh_token(
    tx: &mut Tx,
    player_id: &PlayerId,
    token_hash: &str,
    now_ms: i64,
) -> sqlx::Result<Option<String>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar::<_, String>(
            "UPDATE refresh_tokens SET revoked_at = $3
             WHERE token_hash = $2 AND audience = 'player' AND subject_id = $1 AND revoked_at IS NULL
             RETURNING COALESCE(family_id, token_hash)",
        )
        .bind(player_id)
        .bind(token_hash)
        .bind(now_ms)
        .fetch_optional(ex)
        .await?
    }))
}
