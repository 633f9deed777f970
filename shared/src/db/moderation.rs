//! Players as admins see them, bans, statistics, the feedback inbox.

use super::paging::{self, Counted, Order};
use super::{Db, Tx, in_tx, read};
use crate::ids::PlayerId;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerAdminRow {
    pub id: PlayerId,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
    pub is_guest: bool,
    pub region_code: Option<String>,
    pub is_banned: bool,
    pub ban_reason: Option<String>,
    pub banned_until: Option<i64>,
    pub created_at: i64,
    pub tier: Option<crate::domain::subscription::Tier>,
    pub xp: Option<i64>,
    pub streak_days: Option<i64>,
    pub check_in_days: Option<i64>,
    pub active_track_id: Option<String>,
    /// Comma-separated sign-in methods.
    pub providers: Option<String>,
    pub fairplay_held: bool,
    /// `flagged`, `held`, `cleared`, `banned`; None without a signal or decision.
    pub fairplay_state: Option<crate::domain::fairplay::FairPlayState>,
}

/// What an admin sees of a player: the row with its progress and subscription.
const PLAYER_ADMIN_SELECT: &str =
    "SELECT p.id, p.nickname, p.avatar_url, p.is_guest, p.region_code, p.is_banned,
            p.ban_reason, p.banned_until, p.created_at, s.tier, g.xp, g.streak_days,
            g.check_in_days, g.active_track_id, NULL AS providers, p.fairplay_held,
            f.state AS fairplay_state
     FROM players p
     LEFT JOIN player_progress g ON g.player_id = p.id
     LEFT JOIN subscriptions s ON s.player_id = p.id
     LEFT JOIN fairplay_players f ON f.player_id = p.id";

/// A page of existing players, newest first; `search` matches part of the id, the
/// nickname or a sign-in subject (a phone number), case-insensitively and literally
/// (`%`, `_`). Never a guest's device id: it is the guest's only credential, so a
/// search by it would confirm whose it is.
pub async fn players(
    db: &Db,
    search: Option<&str>,
    limit: i64,
    offset: i64,
) -> sqlx::Result<(Vec<PlayerAdminRow>, i64)> {
    // the partial index players_live_order serves both directions
    const ORDER: Order = Order {
        forward: "p.created_at DESC, p.id",
        backward: "p.created_at, p.id DESC",
    };
    let pattern = search.map(super::contains_pattern);
    let (filter, phrase) = search_filter(db, search, 4);
    let total = match search {
        None => paging::total(db, Counted::LivePlayers).await?,
        Some(_) => {
            let (count_filter, _) = search_filter(db, search, 2);
            read!(db, |ex| {
                let q = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT count(*) FROM players p
                     WHERE p.deleted_at IS NULL AND p.merged_into IS NULL{count_filter}"
                )))
                .bind(&pattern);
                super::bind_phrase!(q, phrase).fetch_one(ex).await?
            })
        }
    };
    let scan = paging::scan(ORDER, total, limit, offset);
    let rows = read!(db, |ex| {
        let q = sqlx::query_as::<_, PlayerAdminRow>(sqlx::AssertSqlSafe(format!(
            "{PLAYER_ADMIN_SELECT}
             WHERE p.deleted_at IS NULL AND p.merged_into IS NULL{filter}
             ORDER BY {} LIMIT $2 OFFSET $3",
            scan.order
        )))
        .bind(&pattern)
        .bind(scan.limit)
        .bind(scan.offset);
        super::bind_phrase!(q, phrase).fetch_all(ex).await?
    });
    Ok((scan.in_order(rows), total))
}

/// The search's test, `$1` its `LIKE` pattern and `$fts` (SQLite) its FTS5 phrase: the
/// players whose id or nickname, or one of whose sign-in subjects other than a device id,
/// contains the text.
///
/// Written as the set of matching ids, one arm per table, so each arm reads its own
/// index: PostgreSQL answers the `LIKE`s from the trigram indexes on `LOWER(id)`,
/// `LOWER(COALESCE(nickname, ''))` and `LOWER(subject)` (migration 0011); SQLite, when
/// the text has 3 or more characters, first narrows each arm to the rows its FTS5
/// trigram table matches (`player_search`, `identity_search`: supersets), the `LIKE`
/// staying the exact test. Shorter text reads the tables whole, on both engines.
fn search_filter(db: &Db, search: Option<&str>, fts: usize) -> (String, Option<String>) {
    const LIKE: &str = " AND p.id IN (
        SELECT x.id FROM players x
        WHERE LOWER(x.id) LIKE $1 ESCAPE '\\' OR LOWER(COALESCE(x.nickname, '')) LIKE $1 ESCAPE '\\'
        UNION
        SELECT i.player_id FROM player_identities i
        WHERE i.provider <> 'device' AND LOWER(i.subject) LIKE $1 ESCAPE '\\')";
    let Some(search) = search else {
        return (" AND CAST($1 AS TEXT) IS NULL".to_string(), None);
    };
    let Some(phrase) = super::trigram_phrase(search).filter(|_| matches!(db, Db::Sqlite(_))) else {
        return (LIKE.to_string(), None);
    };
    let fts_sql = format!(
        " AND p.id IN (
        SELECT x.id FROM player_search_keys k JOIN players x ON x.id = k.player_id
        WHERE k.n IN (SELECT rowid FROM player_search WHERE player_search MATCH ${fts})
          AND (LOWER(x.id) LIKE $1 ESCAPE '\\' OR LOWER(COALESCE(x.nickname, '')) LIKE $1 ESCAPE '\\')
        UNION
        SELECT i.player_id FROM identity_search_keys k
        JOIN player_identities i ON i.provider = k.provider AND i.subject = k.subject
        WHERE k.n IN (SELECT rowid FROM identity_search WHERE identity_search MATCH ${fts})
          AND i.provider <> 'device' AND LOWER(i.subject) LIKE $1 ESCAPE '\\')"
    );
    (fts_sql, Some(phrase))
}

pub async fn player(db: &Db, id: &PlayerId) -> sqlx::Result<Option<PlayerAdminRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, PlayerAdminRow>(sqlx::AssertSqlSafe(format!(
            "{PLAYER_ADMIN_SELECT} WHERE p.id = $1 AND p.deleted_at IS NULL"
        )))
        .bind(id)
        .fetch_optional(ex)
        .await?
    }))
}

/// The sign-in methods of a player (provider names).
pub async fn identities(
    db: &Db,
    id: &PlayerId,
) -> sqlx::Result<Vec<crate::domain::identity::IdentityProvider>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT provider FROM player_identities WHERE player_id = $1 ORDER BY provider",
        )
        .bind(id)
        .fetch_all(ex)
        .await?
    }))
}

/// Bans (with an optional reason and end) or unbans a player; returns the player's
/// region as it stands under the lock (`None` when there is no such existing player).
/// The progress row is locked first, the order every writer of the player's rows takes
/// (answers, holds, region moves), so two of them never wait on each other's lock.
pub async fn set_ban(
    tx: &mut Tx,
    id: &PlayerId,
    banned: bool,
    reason: Option<&str>,
    until: Option<i64>,
    now_ms: i64,
) -> sqlx::Result<Option<Option<String>>> {
    // an answer judged before the ban then fails to write
    super::progress::write(
        super::progress::Target::Tx(tx),
        id,
        super::progress::Update::Touch,
        now_ms,
    )
    .await?;
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar::<_, Option<String>>(
            "UPDATE players SET is_banned = $2, ban_reason = $3, banned_until = $4, updated_at = $5
             WHERE id = $1 AND deleted_at IS NULL RETURNING region_code",
        )
        .bind(id)
        .bind(banned)
        .bind(reason)
        .bind(until)
        .bind(now_ms)
        .fetch_optional(ex)
        .await?
    }))
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct StatsRow {
    pub total_users: i64,
    pub active_users: i64,
    pub total_questions: i64,
    pub published_questions: i64,
    /// Sum of existing players' XP (the average is computed by the caller).
    pub xp_sum: i64,
}

/// Counts of existing players and questions; active = played or signed up since `since_ms`.
pub async fn stats(db: &Db, since_ms: i64) -> sqlx::Result<StatsRow> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, StatsRow>(
            "SELECT
                 (SELECT count(*) FROM players WHERE deleted_at IS NULL AND merged_into IS NULL) AS total_users,
                 (SELECT count(*) FROM players p JOIN player_progress g ON g.player_id = p.id
                  WHERE p.deleted_at IS NULL AND p.merged_into IS NULL AND g.updated_at >= $1) AS active_users,
                 (SELECT count(*) FROM questions) AS total_questions,
                 (SELECT count(*) FROM questions WHERE status = 'published') AS published_questions,
                 (SELECT CAST(COALESCE(SUM(g.xp), 0) AS BIGINT) FROM players p JOIN player_progress g ON g.player_id = p.id
                  WHERE p.deleted_at IS NULL AND p.merged_into IS NULL) AS xp_sum",
        )
        .bind(since_ms)
        .fetch_one(ex)
        .await?
    }))
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FeedbackRow {
    pub id: String,
    pub player_id: Option<PlayerId>,
    pub content: String,
    pub contact: Option<String>,
    pub page_context: Option<String>,
    pub created_at: i64,
}

/// Newest first, and the total.
pub async fn feedback(db: &Db, limit: i64, offset: i64) -> sqlx::Result<(Vec<FeedbackRow>, i64)> {
    paging::newest_first(
        db,
        Counted::Feedback,
        "SELECT id, player_id, content, contact, page_context, created_at FROM feedback",
        limit,
        offset,
    )
    .await
}
