//! The optional Redis rank index of the weekly leaderboards (`REDIS_URL`).
//!
//! The database stays the source of truth. One sorted set per week and board holds each
//! player's committed weekly XP as `score = xp·2^20 + (2^20 − 1 − seconds into the week
//! of the last earning)`, so a higher XP ranks first and, at equal XP, the earlier
//! earner. Scores are written after the transaction commits, with the absolute committed
//! values and `ZADD … GT`: within a week a player's score only grows, so a retried or
//! late write can never lower it. Writes go only into existing sets; a set is read only
//! after a rebuild from the database marked it complete. Ties at
//! the same second are ordered by player id descending, as `ZREVRANK` orders equal
//! scores, and the SQL ranking uses the same order.

use crate::ids::PlayerId;
use chrono::NaiveDate;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;

use crate::clock::beijing;
use crate::db::{self, Db};
use crate::message::msg;
use crate::{Error, Result};

const SCORE_SHIFT: f64 = 1_048_576.0; // 2^20, more than the seconds of a week
const KEY_TTL_SECS: i64 = 9 * 86_400;
/// A rebuild's lock outlives any rebuild (2.4 s at a million rows), and frees the set
/// for another attempt if the process rebuilding it dies.
const REBUILD_LOCK_MS: u64 = 60_000;

/// A committed weekly row to mirror into the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankUpdate {
    pub week_start: String,
    pub board: String,
    pub player_id: PlayerId,
    pub xp: i64,
    pub last_earned_at: i64,
}

/// The score of a weekly row.
pub fn score(week_start: &str, xp: i64, last_earned_at_ms: i64) -> f64 {
    let week_start_ms = NaiveDate::parse_from_str(week_start, "%Y-%m-%d")
        .map(|d| beijing::day_start(d).timestamp_millis())
        .unwrap_or(0);
    let secs = ((last_earned_at_ms - week_start_ms) / 1000).clamp(0, 1_048_575);
    xp as f64 * SCORE_SHIFT + (1_048_575 - secs) as f64
}

#[derive(Clone)]
pub struct RankIndex {
    conn: ConnectionManager,
    prefix: String,
}

impl RankIndex {
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<Self> {
        let client = redis::Client::open(url)?;
        let conn = ConnectionManager::new(client).await?;
        Ok(Self {
            conn,
            prefix: prefix.to_string(),
        })
    }

    fn key(&self, week_start: &str, board: &str) -> String {
        format!("{}:lb:{week_start}:{board}", self.prefix)
    }

    fn ready_key(key: &str) -> String {
        format!("{key}:ready")
    }

    /// Mirrors committed rows into sets that exist. A write never creates a set: a
    /// one-member set would be taken for the whole board. A failed write drops the set,
    /// so the next read rebuilds it from the database.
    pub async fn apply(&self, updates: &[RankUpdate]) {
        // ZADD only into an existing set (atomically), then refresh its lifetime.
        let script = redis::Script::new(
            "if redis.call('EXISTS', KEYS[1]) == 1 then \
               redis.call('ZADD', KEYS[1], 'GT', ARGV[1], ARGV[2]) \
               redis.call('EXPIRE', KEYS[1], ARGV[3]) \
             end \
             return 1",
        );
        for u in updates {
            let key = self.key(&u.week_start, &u.board);
            let mut conn = self.conn.clone();
            let written: redis::RedisResult<i64> = script
                .key(&key)
                .arg(score(&u.week_start, u.xp, u.last_earned_at))
                .arg(u.player_id.as_str())
                .arg(KEY_TTL_SECS)
                .invoke_async(&mut conn)
                .await;
            if let Err(e) = written {
                tracing::warn!(error = %e, %key, "rank index write failed; dropping the set");
                let _: redis::RedisResult<()> =
                    conn.del(&[Self::ready_key(&key), key.clone()]).await;
            }
        }
    }

    /// Drops the sets of a week's boards (after changes that move rows between players or
    /// boards); they are rebuilt on the next read.
    pub async fn invalidate(&self, week_start: &str, boards: &[String]) {
        let mut conn = self.conn.clone();
        for board in boards {
            let key = self.key(week_start, board);
            if let Err(e) = conn
                .del::<_, ()>(&[Self::ready_key(&key), key.clone()])
                .await
            {
                tracing::warn!(error = %e, %key, "rank index invalidation failed");
            }
        }
    }

    /// After a ban with an end: the sets of a week's boards are used only until then
    /// (the banned player's rows show again by themselves; a rebuild picks them up).
    pub async fn rebuild_after(&self, week_start: &str, boards: &[String], instant_ms: i64) {
        let script = redis::Script::new(
            "local v = redis.call('GET', KEYS[1]) \
             if v and (tonumber(v) == 0 or tonumber(v) > tonumber(ARGV[1])) then \
               redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL') \
             end \
             return 1",
        );
        for board in boards {
            let key = self.key(week_start, board);
            let mut conn = self.conn.clone();
            let set: redis::RedisResult<i64> = script
                .key(Self::ready_key(&key))
                .arg(instant_ms)
                .invoke_async(&mut conn)
                .await;
            if let Err(e) = set {
                tracing::warn!(error = %e, %key, "rank index marker failed; dropping the set");
                let _: redis::RedisResult<()> =
                    conn.del(&[Self::ready_key(&key), key.clone()]).await;
            }
        }
    }

    /// Takes a player off a week's boards (account deletion, merged guests, bans).
    pub async fn remove(&self, week_start: &str, boards: &[String], player_id: &PlayerId) {
        let mut conn = self.conn.clone();
        for board in boards {
            let key = self.key(week_start, board);
            if let Err(e) = conn.zrem::<_, _, ()>(&key, player_id.as_str()).await {
                tracing::warn!(error = %e, %key, "rank index removal failed; dropping the set");
                let _: redis::RedisResult<()> =
                    conn.del(&[Self::ready_key(&key), key.clone()]).await;
            }
        }
    }

    /// The 1-based rank of `player_id` on a board, or None when it has no row. A set
    /// is used only once a rebuild marked it complete, and only until the instant its
    /// marker holds (when a hidden row shows again, on the service clock; 0: none). One
    /// caller at a time rebuilds a set (a lock in Redis); the others meanwhile get
    /// [`Error::ServiceUnavailable`] and count in SQL, rather than all reading the
    /// whole board at once.
    pub async fn rank(
        &self,
        db: &Db,
        week_start: &str,
        board: &str,
        player_id: &PlayerId,
        now_ms: i64,
    ) -> Result<Option<i64>> {
        let key = self.key(week_start, board);
        let mut conn = self.conn.clone();
        let ready: Option<i64> = conn.get(Self::ready_key(&key)).await.map_err(redis_error)?;
        if ready.is_none_or(|until| until > 0 && until <= now_ms) {
            let lock = format!("{key}:building");
            let locked: Option<String> = redis::cmd("SET")
                .arg(&lock)
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(REBUILD_LOCK_MS)
                .query_async(&mut conn)
                .await
                .map_err(redis_error)?;
            if locked.is_none() {
                return Err(Error::ServiceUnavailable(msg::RANK_INDEX_BEING_REBUILT));
            }
            let rebuilt = self.rebuild(db, week_start, board, now_ms).await;
            let _: redis::RedisResult<()> = conn.del(&lock).await;
            rebuilt?;
        }
        let rank: Option<i64> = conn
            .zrevrank(&key, player_id.as_str())
            .await
            .map_err(redis_error)?;
        Ok(rank.map(|r| r + 1))
    }

    /// Loads a board's rows from the database into its set. The set is created (with a
    /// placeholder member below every score) before the database is read, so writes
    /// committed meanwhile land in it; `ZADD GT` keeps the higher of the two scores.
    pub async fn rebuild(&self, db: &Db, week_start: &str, board: &str, now_ms: i64) -> Result<()> {
        const PLACEHOLDER: &str = "~building~";
        let key = self.key(week_start, board);
        let mut conn = self.conn.clone();
        redis::pipe()
            .cmd("ZADD")
            .arg(&key)
            .arg("-inf")
            .arg(PLACEHOLDER)
            .ignore()
            .expire(&key, KEY_TTL_SECS)
            .ignore()
            .query_async::<()>(&mut conn)
            .await
            .map_err(redis_error)?;
        let (rows, next_shown) = db::leaderboard::all_rows(db, week_start, board, now_ms).await?;
        for chunk in rows.chunks(1000) {
            let mut cmd = redis::cmd("ZADD");
            cmd.arg(&key).arg("GT");
            for r in chunk {
                cmd.arg(score(week_start, r.xp, r.last_earned_at))
                    .arg(r.player_id.as_str());
            }
            cmd.query_async::<()>(&mut conn)
                .await
                .map_err(redis_error)?;
        }
        // Rows hidden by a ban that committed after the read above: its own removal may
        // have run before these rows were added.
        let hidden = db::leaderboard::hidden_players(db, week_start, board, now_ms).await?;
        if !hidden.is_empty() {
            conn.zrem::<_, _, ()>(&key, &hidden)
                .await
                .map_err(redis_error)?;
        }
        redis::pipe()
            .zrem(&key, PLACEHOLDER)
            .ignore()
            .set_ex(
                Self::ready_key(&key),
                next_shown.unwrap_or(0),
                KEY_TTL_SECS as u64,
            )
            .ignore()
            .query_async::<()>(&mut conn)
            .await
            .map_err(redis_error)?;
        Ok(())
    }
}

fn redis_error(e: redis::RedisError) -> Error {
    Error::internal(format!("rank index: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn higher_xp_then_earlier_earning_scores_higher() {
        let week = "2026-11-16";
        let start = beijing::day_start(NaiveDate::from_ymd_opt(2026, 11, 16).unwrap_or_default())
            .timestamp_millis();
        let early = score(week, 50, start + 10_000);
        let late = score(week, 50, start + 20_000);
        let more = score(week, 51, start + 600_000_000);
        assert!(early > late);
        assert!(more > early);
        // the whole week fits under one XP step
        let last_second = score(week, 50, start + 7 * 86_400_000 - 1000);
        let next_xp_first_second = score(week, 51, start);
        assert!(last_second < next_xp_first_second);
        // exact in a double for any realistic XP
        assert_eq!(
            score(week, 1_000_000, start) as i64,
            1_000_000 * 1_048_576 + 1_048_575
        );
    }
}
