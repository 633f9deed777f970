//! Leagues: players' tiers, the open cohort of each week and tier, and who joined which
//! cohort. A cohort's board is its members' rows of the all-players board: at most a
//! cohort's size of primary-key probes, never a range of the whole board.

use super::{Db, Tx, in_tx, read};
use crate::ids::PlayerId;

/// A player's tier (0: bronze, also for a player who never played a league week).
pub async fn tier_of(db: &Db, player_id: &PlayerId) -> sqlx::Result<i64> {
    let tier: Option<i64> = read!(db, |ex| {
        sqlx::query_scalar("SELECT tier FROM league_players WHERE player_id = $1")
            .bind(player_id)
            .fetch_optional(ex)
            .await?
    });
    Ok(tier.unwrap_or(0))
}

/// The cohort a player joined in a week, with the tier it is of.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Membership {
    pub cohort_id: String,
    pub tier: i64,
}

pub async fn membership(
    db: &Db,
    week: &str,
    player_id: &PlayerId,
) -> sqlx::Result<Option<Membership>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, Membership>(
            "SELECT cohort_id, tier FROM league_members WHERE week_start = $1 AND player_id = $2",
        )
        .bind(week)
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// What a league join needs to know, read at once: the cohort the player joined in
/// `week` (if any), the one of the week before, and their tier now.
#[derive(Clone, Debug)]
pub struct JoinState {
    pub this_week: Option<Membership>,
    pub last_week: Option<Membership>,
    pub tier: i64,
}

pub async fn join_state(
    db: &Db,
    week: &str,
    last_week: &str,
    player_id: &PlayerId,
) -> sqlx::Result<JoinState> {
    type Row = (
        Option<String>,
        Option<i64>,
        Option<String>,
        Option<i64>,
        Option<i64>,
    );
    let (this_cohort, this_tier, last_cohort, last_tier, tier): Row = read!(db, |ex| {
        sqlx::query_as(
            "SELECT (SELECT cohort_id FROM league_members WHERE week_start = $1 AND player_id = $3),
                    (SELECT tier FROM league_members WHERE week_start = $1 AND player_id = $3),
                    (SELECT cohort_id FROM league_members WHERE week_start = $2 AND player_id = $3),
                    (SELECT tier FROM league_members WHERE week_start = $2 AND player_id = $3),
                    (SELECT tier FROM league_players WHERE player_id = $3)",
        )
        .bind(week)
        .bind(last_week)
        .bind(player_id)
        .fetch_one(ex)
        .await?
    });
    let membership = |cohort: Option<String>, tier: Option<i64>| {
        cohort
            .zip(tier)
            .map(|(cohort_id, tier)| Membership { cohort_id, tier })
    };
    Ok(JoinState {
        this_week: membership(this_cohort, this_tier),
        last_week: membership(last_cohort, last_tier),
        tier: tier.unwrap_or(0),
    })
}

/// The place upsert of [`join`]: the next place of the open cohort of the week (`$1`) and
/// tier (`$2`), serialised by that row's lock, so places go in arrival order and a
/// cohort never takes more than `$3`.
macro_rules! take_place {
    () => {
        "INSERT INTO league_open AS o (week_start, tier, cohort_seq, size) VALUES ($1, $2, 1, 1)
ON CONFLICT (week_start, tier) DO UPDATE SET
    cohort_seq = CASE WHEN o.size >= $3 THEN o.cohort_seq + 1 ELSE o.cohort_seq END,
    size = CASE WHEN o.size >= $3 THEN 1 ELSE o.size + 1 END"
    };
}

/// Puts the player (`$4`) in the open cohort of `week` and `tier`, taking its next place
/// (see `take_place!`), in one call to the database: PostgreSQL one statement, SQLite
/// one transaction script. The cohort's id is `$5` (`{week}:{tier name}:`, see
/// `domain::league::cohort_id`) followed by its number. None when the player joined a
/// cohort this week already: the write fails on their membership's key as a whole, so
/// the place it took is given back.
pub async fn join(
    db: &Db,
    week: &str,
    tier: i64,
    cap: i64,
    player_id: &PlayerId,
    cohort_prefix: &str,
    now_ms: i64,
) -> sqlx::Result<Option<Membership>> {
    macro_rules! add_member {
        ($from:literal) => {
            concat!(
                "INSERT INTO league_members (week_start, player_id, cohort_id, tier, joined_at)
SELECT $1, $4, $5 || CAST(cohort_seq AS TEXT), $2, $6 FROM ",
                $from,
                " RETURNING cohort_id"
            )
        };
    }
    macro_rules! bound {
        ($query:expr) => {
            $query
                .bind(week)
                .bind(tier)
                .bind(cap)
                .bind(player_id)
                .bind(cohort_prefix)
                .bind(now_ms)
        };
    }
    let joined: sqlx::Result<String> = match db {
        Db::Sqlite(s) => s
            .write_script(bound!(sqlx::query(concat!(
                "BEGIN IMMEDIATE;\n",
                take_place!(),
                ";\n",
                add_member!("league_open WHERE week_start = $1 AND tier = $2"),
                ";\nCOMMIT"
            ))))
            .await
            .and_then(|rows| {
                use sqlx::Row as _;
                rows.first()
                    .ok_or(sqlx::Error::RowNotFound)
                    .and_then(|r| r.try_get(0))
            }),
        Db::Postgres(p) => {
            bound!(sqlx::query_scalar(concat!(
                "WITH place AS (",
                take_place!(),
                " RETURNING cohort_seq) ",
                add_member!("place")
            )))
            .fetch_one(&crate::db::Checked(p))
            .await
        }
    };
    match joined {
        Ok(cohort_id) => Ok(Some(Membership { cohort_id, tier })),
        Err(e) if super::is_unique_violation(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A member of a cohort with their week's XP (their all-players row) and whether that
/// row is hidden at `now_ms` (a held or banned player), and until when.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MemberRow {
    pub player_id: PlayerId,
    pub xp: i64,
    pub last_earned_at: i64,
    pub hidden: bool,
    pub hidden_until: Option<i64>,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
}

/// The members of cohort `$2` of week `$1` with a row that week (a deleted player's rows
/// are gone), hidden at `$3` or not; read inside and outside a transaction.
const MEMBERS: &str = "SELECT m.player_id, w.xp, w.last_earned_at,
        (w.hidden_until IS NOT NULL AND w.hidden_until > $3) AS hidden,
        w.hidden_until, p.nickname, p.avatar_url
 FROM league_members m
 JOIN weekly_xp w ON w.week_start = m.week_start AND w.board = 'topic:all'
                 AND w.player_id = m.player_id
 LEFT JOIN players p ON p.id = m.player_id
 WHERE m.cohort_id = $2 AND m.week_start = $1";

/// Every member of a cohort with a row this week.
pub async fn members(
    db: &Db,
    week: &str,
    cohort_id: &str,
    now_ms: i64,
) -> sqlx::Result<Vec<MemberRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, MemberRow>(MEMBERS)
            .bind(week)
            .bind(cohort_id)
            .bind(now_ms)
            .fetch_all(ex)
            .await?
    }))
}

/// [`members`], read in `tx` (the cohort's settlement).
pub async fn members_in(
    tx: &mut Tx,
    week: &str,
    cohort_id: &str,
    now_ms: i64,
) -> sqlx::Result<Vec<MemberRow>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, MemberRow>(MEMBERS)
            .bind(week)
            .bind(cohort_id)
            .bind(now_ms)
            .fetch_all(ex)
            .await?
    }))
}

/// How many cohorts each tier opened in a week: `(tier, cohorts)`.
pub async fn cohorts_of_week(db: &Db, week: &str) -> sqlx::Result<Vec<(i64, i64)>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (i64, i64)>(
            "SELECT tier, cohort_seq FROM league_open WHERE week_start = $1 ORDER BY tier",
        )
        .bind(week)
        .fetch_all(ex)
        .await?
    }))
}

/// Sets players' tiers after a week (`(player, tier)`).
pub async fn set_tiers(tx: &mut Tx, tiers: &[(PlayerId, i64)], now_ms: i64) -> sqlx::Result<()> {
    for (player_id, tier) in tiers {
        in_tx!(tx, |ex| {
            sqlx::query(
                "INSERT INTO league_players (player_id, tier, updated_at) VALUES ($1, $2, $3)
                 ON CONFLICT (player_id) DO UPDATE SET tier = excluded.tier,
                     updated_at = excluded.updated_at",
            )
            .bind(player_id)
            .bind(tier)
            .bind(now_ms)
            .execute(ex)
            .await?;
        });
    }
    Ok(())
}

/// [`membership`], read in `tx`.
pub async fn membership_in(
    tx: &mut Tx,
    week: &str,
    player_id: &PlayerId,
) -> sqlx::Result<Option<Membership>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, Membership>(
            "SELECT cohort_id, tier FROM league_members WHERE week_start = $1 AND player_id = $2",
        )
        .bind(week)
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Sets a player's tier to `to` if it is `from` (a withdrawn promotion: not if it has
/// moved since); true when it was.
pub async fn set_tier_from(
    tx: &mut Tx,
    player_id: &PlayerId,
    from: i64,
    to: i64,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE league_players SET tier = $3, updated_at = $4 WHERE player_id = $1 AND tier = $2",
        )
        .bind(player_id)
        .bind(from)
        .bind(to)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}
