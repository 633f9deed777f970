//! `weekly_xp` read as leaderboards: pages, own ranks (the exact SQL count, which is also
//! the oracle of the Redis index), region moves.

use super::players::RegionState;
use super::{Db, Tx, in_tx, read};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct BoardRow {
    pub player_id: String,
    pub xp: i64,
    pub last_earned_at: i64,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct EntryRow {
    pub player_id: String,
    pub xp: i64,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
}

/// One page of a board, in rank order.
pub async fn page(
    db: &Db,
    week: &str,
    board: &str,
    limit: i64,
    offset: i64,
) -> sqlx::Result<Vec<EntryRow>> {
    Ok(read!(db, |ex| {
        // The names by primary key per row of the page: a join let PostgreSQL's planner
        // pick a scan of all players.
        sqlx::query_as::<_, EntryRow>(
            "SELECT w.player_id, w.xp,
                    (SELECT p.nickname FROM players p WHERE p.id = w.player_id) AS nickname,
                    (SELECT p.avatar_url FROM players p WHERE p.id = w.player_id) AS avatar_url
             FROM weekly_xp w
             WHERE w.week_start = $1 AND w.board = $2
             ORDER BY w.xp DESC, w.last_earned_at ASC, w.player_id DESC
             LIMIT $3 OFFSET $4",
        )
        .bind(week)
        .bind(board)
        .bind(limit)
        .bind(offset)
        .fetch_all(ex)
        .await?
    }))
}

/// One page row as the aggregate carries it: id, XP, nickname, avatar.
type PageItem = (String, i64, Option<String>, Option<String>);

#[derive(sqlx::FromRow)]
struct ViewerPage {
    #[sqlx(flatten)]
    viewer: RegionState,
    /// The page as a JSON array of [`PageItem`]s in board order (one value, not one row
    /// per entry).
    page: Option<String>,
}

/// The viewer's region state (with the account columns that admit them) and one page of
/// `board`, or, when `board` is None, of the viewer's own region board, in one read.
/// None when the viewer does not exist.
pub async fn viewer_and_page(
    db: &Db,
    viewer_id: &str,
    week: &str,
    board: Option<&str>,
    limit: i64,
    offset: i64,
) -> sqlx::Result<Option<(RegionState, Vec<EntryRow>)>> {
    // The same query per engine but for the names of the JSON functions. The aggregate
    // is ordered itself: the order of a subquery does not bind it.
    macro_rules! viewer_and_page_sql {
        ($aggregate:literal, $item:literal, $as_text:literal) => {
            concat!(
                "SELECT p.region_code, p.region_selected_at, p.region_next_change_at, p.nickname,
                        p.avatar_url, p.is_banned, p.banned_until, p.deleted_at,
                        (SELECT ", $aggregate, "(", $item, "(w.player_id, w.xp, w.nickname, w.avatar_url)
                                 ORDER BY w.xp DESC, w.last_earned_at ASC, w.player_id DESC)", $as_text, "
                         FROM (SELECT x.player_id, x.xp, x.last_earned_at,
                                      (SELECT n.nickname FROM players n WHERE n.id = x.player_id) AS nickname,
                                      (SELECT n.avatar_url FROM players n WHERE n.id = x.player_id) AS avatar_url
                               FROM weekly_xp x
                               WHERE x.week_start = $2
                                 AND x.board = COALESCE($3, 'region:' || (SELECT r.region_code FROM players r WHERE r.id = $1))
                               ORDER BY x.xp DESC, x.last_earned_at ASC, x.player_id DESC
                               LIMIT $4 OFFSET $5) w) AS page
                 FROM players p WHERE p.id = $1"
            )
        };
    }
    let row: Option<ViewerPage> = match db {
        Db::Sqlite(s) => {
            sqlx::query_as(viewer_and_page_sql!("json_group_array", "json_array", ""))
                .bind(viewer_id)
                .bind(week)
                .bind(board)
                .bind(limit)
                .bind(offset)
                .fetch_optional(&s.reader)
                .await?
        }
        Db::Postgres(p) => {
            sqlx::query_as(viewer_and_page_sql!(
                "json_agg",
                "json_build_array",
                "::text"
            ))
            .bind(viewer_id)
            .bind(week)
            .bind(board)
            .bind(limit)
            .bind(offset)
            .fetch_optional(p)
            .await?
        }
    };
    let Some(row) = row else { return Ok(None) };
    let items: Vec<PageItem> = match row.page.as_deref() {
        Some(json) => serde_json::from_str(json)
            .map_err(|e| sqlx::Error::Decode(format!("leaderboard page: {e}").into()))?,
        None => Vec::new(),
    };
    let entries = items
        .into_iter()
        .map(|(player_id, xp, nickname, avatar_url)| EntryRow {
            player_id,
            xp,
            nickname,
            avatar_url,
        })
        .collect();
    Ok(Some((row.viewer, entries)))
}

pub async fn count(db: &Db, week: &str, board: &str) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM weekly_xp WHERE week_start = $1 AND board = $2")
            .bind(week)
            .bind(board)
            .fetch_one(ex)
            .await?
    }))
}

/// A player's row on a board.
pub async fn row_of(
    db: &Db,
    week: &str,
    board: &str,
    player_id: &str,
) -> sqlx::Result<Option<BoardRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, BoardRow>(
            "SELECT player_id, xp, last_earned_at FROM weekly_xp
             WHERE week_start = $1 AND board = $2 AND player_id = $3",
        )
        .bind(week)
        .bind(board)
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// The rows ahead of row `w` on its board, as three range counts over the board index
/// (more XP; as much, earned earlier; as much at the same second, greater id): one
/// count with ORs cannot use the index.
macro_rules! rows_ahead_of_w {
    () => {
        "(SELECT count(*) FROM weekly_xp a
           WHERE a.week_start = w.week_start AND a.board = w.board AND a.xp > w.xp)
         + (SELECT count(*) FROM weekly_xp a
           WHERE a.week_start = w.week_start AND a.board = w.board AND a.xp = w.xp
             AND a.last_earned_at < w.last_earned_at)
         + (SELECT count(*) FROM weekly_xp a
           WHERE a.week_start = w.week_start AND a.board = w.board AND a.xp = w.xp
             AND a.last_earned_at = w.last_earned_at AND a.player_id > w.player_id)"
    };
}

/// The exact 1-based rank of a row: one more than the rows ahead of it.
pub async fn rank(db: &Db, week: &str, board: &str, row: &BoardRow) -> sqlx::Result<i64> {
    let ahead: i64 = read!(db, |ex| {
        sqlx::query_scalar(concat!(
            "SELECT ",
            rows_ahead_of_w!(),
            " FROM (SELECT CAST($1 AS TEXT) AS week_start, CAST($2 AS TEXT) AS board,
                           CAST($3 AS BIGINT) AS xp, CAST($4 AS BIGINT) AS last_earned_at,
                           CAST($5 AS TEXT) AS player_id) w"
        ))
        .bind(week)
        .bind(board)
        .bind(row.xp)
        .bind(row.last_earned_at)
        .bind(&row.player_id)
        .fetch_one(ex)
        .await?
    });
    Ok(ahead + 1)
}

/// A player's row on a board and its exact 1-based rank, in one query.
pub async fn row_and_rank(
    db: &Db,
    week: &str,
    board: &str,
    player_id: &str,
) -> sqlx::Result<Option<(BoardRow, i64)>> {
    let row: Option<(String, i64, i64, i64)> = read!(db, |ex| {
        sqlx::query_as(concat!(
            "SELECT w.player_id, w.xp, w.last_earned_at, ",
            rows_ahead_of_w!(),
            " FROM weekly_xp w WHERE w.week_start = $1 AND w.board = $2 AND w.player_id = $3"
        ))
        .bind(week)
        .bind(board)
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    });
    Ok(row.map(|(player_id, xp, last_earned_at, ahead)| {
        (
            BoardRow {
                player_id,
                xp,
                last_earned_at,
            },
            ahead + 1,
        )
    }))
}

/// Every row of a board (rebuilding the Redis index).
pub async fn all_rows(db: &Db, week: &str, board: &str) -> sqlx::Result<Vec<BoardRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, BoardRow>(
            "SELECT player_id, xp, last_earned_at FROM weekly_xp WHERE week_start = $1 AND board = $2",
        )
        .bind(week)
        .bind(board)
        .fetch_all(ex)
        .await?
    }))
}

/// After a region selection: this week's region row follows the player into the new
/// region, carrying the week's XP so far (the all-players row counts it all).
pub async fn move_region_row(
    tx: &mut Tx,
    week: &str,
    player_id: &str,
    old_board: Option<&str>,
    new_board: &str,
) -> sqlx::Result<Option<BoardRow>> {
    in_tx!(tx, |ex| {
        if let Some(old) = old_board {
            sqlx::query(
                "DELETE FROM weekly_xp WHERE week_start = $1 AND board = $2 AND player_id = $3",
            )
            .bind(week)
            .bind(old)
            .bind(player_id)
            .execute(&mut *ex)
            .await?;
        }
        Ok(sqlx::query_as::<_, BoardRow>(
            "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at)
             SELECT week_start, $2, player_id, xp, last_earned_at FROM weekly_xp
             WHERE week_start = $1 AND board = 'topic:all' AND player_id = $3
             ON CONFLICT (week_start, board, player_id) DO UPDATE SET xp = excluded.xp,
                 last_earned_at = excluded.last_earned_at
             RETURNING player_id, xp, last_earned_at",
        )
        .bind(week)
        .bind(new_board)
        .bind(player_id)
        .fetch_optional(&mut *ex)
        .await?)
    })
}
