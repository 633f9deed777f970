//! `weekly_xp` read as leaderboards: pages, own ranks (the exact SQL count, which is also
//! the oracle of the Redis index), region moves.
//!
//! A banned player's rows are hidden (`hidden_until` in the future) and on no board:
//! not on pages, not in totals, not ahead of anyone. Pages filter them over the board
//! index, which holds `hidden_until`; counts subtract them, found over the small
//! partial index of hidden rows, so the counts keep their index-only plans. Every read
//! takes `now_ms` (the service clock): a ban with an end shows the rows again by itself.

use super::players::RegionState;
use super::{Db, Tx, in_tx, read};
use crate::ids::PlayerId;

/// `weekly_xp` as `$alias`, read for its hidden rows over their small partial index
/// (`weekly_xp_hidden`). SQLite is told the index: without statistics (nothing here runs
/// ANALYZE) its planner takes the board's index instead and visits every row of the
/// board, on each own rank. PostgreSQL's planner picks the partial index itself.
macro_rules! hidden_weekly {
    (sqlite $alias:literal) => {
        concat!("weekly_xp AS ", $alias, " INDEXED BY weekly_xp_hidden")
    };
    (postgres $alias:literal) => {
        concat!("weekly_xp AS ", $alias)
    };
}

/// `$text!(sqlite)` or `$text!(postgres)`: a statement written once, with the few words
/// that differ (`hidden_weekly!`) per engine.
macro_rules! for_engine {
    ($db:expr, $text:ident) => {
        match $db {
            Db::Sqlite(_) => $text!(sqlite),
            Db::Postgres(_) => $text!(postgres),
        }
    };
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct BoardRow {
    pub player_id: PlayerId,
    pub xp: i64,
    pub last_earned_at: i64,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct EntryRow {
    pub player_id: PlayerId,
    pub xp: i64,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
}

/// One page of a board, in rank order, with the players' names.
pub async fn page(
    db: &Db,
    week: &str,
    board: &str,
    limit: i64,
    offset: i64,
    now_ms: i64,
) -> sqlx::Result<Vec<EntryRow>> {
    Ok(read!(db, |ex| {
        // The page first, then the names by primary key for its rows only: a join of the
        // whole board let PostgreSQL's planner pick a scan of all players.
        sqlx::query_as::<_, EntryRow>(
            "SELECT w.player_id, w.xp, n.nickname, n.avatar_url
             FROM (SELECT x.player_id, x.xp, x.last_earned_at FROM weekly_xp x
                   WHERE x.week_start = $1 AND x.board = $2
                     AND (x.hidden_until IS NULL OR x.hidden_until <= $5)
                   ORDER BY x.xp DESC, x.last_earned_at ASC, x.player_id DESC
                   LIMIT $3 OFFSET $4) w
             LEFT JOIN players n ON n.id = w.player_id
             ORDER BY w.xp DESC, w.last_earned_at ASC, w.player_id DESC",
        )
        .bind(week)
        .bind(board)
        .bind(limit)
        .bind(offset)
        .bind(now_ms)
        .fetch_all(ex)
        .await?
    }))
}

/// The players on a board (hidden rows not counted).
pub async fn count(db: &Db, week: &str, board: &str, now_ms: i64) -> sqlx::Result<i64> {
    macro_rules! text {
        ($engine:ident) => {
            concat!(
                "SELECT (SELECT count(*) FROM weekly_xp WHERE week_start = $1 AND board = $2)
                  - (SELECT count(*) FROM ",
                hidden_weekly!($engine "h"),
                " WHERE week_start = $1 AND board = $2 AND hidden_until > $3)"
            )
        };
    }
    Ok(read!(db, |ex| {
        sqlx::query_scalar(for_engine!(db, text))
            .bind(week)
            .bind(board)
            .bind(now_ms)
            .fetch_one(ex)
            .await?
    }))
}

/// A player's row on a board, unless hidden.
pub async fn row_of(
    db: &Db,
    week: &str,
    board: &str,
    player_id: &PlayerId,
    now_ms: i64,
) -> sqlx::Result<Option<BoardRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, BoardRow>(
            "SELECT player_id, xp, last_earned_at FROM weekly_xp
             WHERE week_start = $1 AND board = $2 AND player_id = $3
               AND (hidden_until IS NULL OR hidden_until <= $4)",
        )
        .bind(week)
        .bind(board)
        .bind(player_id)
        .bind(now_ms)
        .fetch_optional(ex)
        .await?
    }))
}

/// The rows ahead of row `w` on its board, as three range counts (more XP; as much,
/// earned earlier; as much at the same second, greater id): one count with ORs cannot
/// use an index. The first, the largest, runs over `weekly_xp_xp`, whose entries of equal
/// XP are stored once (B-tree deduplication on PostgreSQL), the others over the board
/// index. The hidden rows ahead (`hidden_until` after `$now`) are subtracted, counted
/// over the partial index of hidden rows.
macro_rules! rows_ahead_of_w {
    ($engine:ident, $now:literal) => {
        concat!(
            "(SELECT count(*) FROM weekly_xp a
           WHERE a.week_start = w.week_start AND a.board = w.board AND a.xp > w.xp)
         + (SELECT count(*) FROM weekly_xp a
           WHERE a.week_start = w.week_start AND a.board = w.board AND a.xp = w.xp
             AND a.last_earned_at < w.last_earned_at)
         + (SELECT count(*) FROM weekly_xp a
           WHERE a.week_start = w.week_start AND a.board = w.board AND a.xp = w.xp
             AND a.last_earned_at = w.last_earned_at AND a.player_id > w.player_id)
         - (SELECT count(*) FROM ",
            hidden_weekly!($engine "h"),
            "
           WHERE h.week_start = w.week_start AND h.board = w.board AND h.hidden_until > ",
            $now,
            "
             AND (h.xp > w.xp OR (h.xp = w.xp AND (h.last_earned_at < w.last_earned_at
                  OR (h.last_earned_at = w.last_earned_at AND h.player_id > w.player_id)))))"
        )
    };
}

/// The exact 1-based rank of a row: one more than the shown rows ahead of it.
pub async fn rank(
    db: &Db,
    week: &str,
    board: &str,
    row: &BoardRow,
    now_ms: i64,
) -> sqlx::Result<i64> {
    macro_rules! text {
        ($engine:ident) => {
            concat!(
                "SELECT ",
                rows_ahead_of_w!($engine, "$6"),
                " FROM (SELECT CAST($1 AS TEXT) AS week_start, CAST($2 AS TEXT) AS board,
                           CAST($3 AS BIGINT) AS xp, CAST($4 AS BIGINT) AS last_earned_at,
                           CAST($5 AS TEXT) AS player_id) w"
            )
        };
    }
    let ahead: i64 = read!(db, |ex| {
        sqlx::query_scalar(for_engine!(db, text))
            .bind(week)
            .bind(board)
            .bind(row.xp)
            .bind(row.last_earned_at)
            .bind(&row.player_id)
            .bind(now_ms)
            .fetch_one(ex)
            .await?
    });
    Ok(ahead + 1)
}

#[derive(sqlx::FromRow)]
struct ViewerRowAndRank {
    #[sqlx(flatten)]
    viewer: RegionState,
    row_xp: Option<i64>,
    row_last_earned_at: Option<i64>,
    ahead: i64,
}

/// The viewer's region state (with the account columns that admit them), and their row
/// on `board` (when None: their own region's board) with its exact 1-based rank, in one
/// read. None when the viewer does not exist; the inner None when they have no row.
pub async fn viewer_row_and_rank(
    db: &Db,
    viewer_id: &PlayerId,
    week: &str,
    board: Option<&str>,
    now_ms: i64,
) -> sqlx::Result<Option<(RegionState, Option<(BoardRow, i64)>)>> {
    macro_rules! text {
        ($engine:ident) => {
            concat!(
                "SELECT p.region_code, p.region_selected_at, p.region_next_change_at, p.nickname,
                    p.avatar_url, p.fairplay_held, p.is_banned, p.banned_until, p.deleted_at,
                    p.merged_into, p.token_version, p.age_band, p.real_name_status, p.real_name_pi,
                    w.xp AS row_xp, w.last_earned_at AS row_last_earned_at, ",
                rows_ahead_of_w!($engine, "$4"),
                " AS ahead
             FROM players p
             LEFT JOIN weekly_xp w ON w.week_start = $2
                  AND w.board = COALESCE($3, 'region:' || p.region_code) AND w.player_id = p.id
             WHERE p.id = $1"
            )
        };
    }
    let found: Option<ViewerRowAndRank> = read!(db, |ex| {
        sqlx::query_as(for_engine!(db, text))
            .bind(viewer_id)
            .bind(week)
            .bind(board)
            .bind(now_ms)
            .fetch_optional(ex)
            .await?
    });
    Ok(found.map(|f| {
        let row = match (f.row_xp, f.row_last_earned_at) {
            (Some(xp), Some(last_earned_at)) => Some((
                BoardRow {
                    player_id: viewer_id.clone(),
                    xp,
                    last_earned_at,
                },
                f.ahead + 1,
            )),
            _ => None,
        };
        (f.viewer, row)
    }))
}

/// Every shown row of a board (rebuilding the Redis index), and the first instant after
/// `now_ms` when a hidden row shows again (a ban's end), if any.
pub async fn all_rows(
    db: &Db,
    week: &str,
    board: &str,
    now_ms: i64,
) -> sqlx::Result<(Vec<BoardRow>, Option<i64>)> {
    let rows = read!(db, |ex| {
        sqlx::query_as::<_, BoardRow>(
            "SELECT player_id, xp, last_earned_at FROM weekly_xp
             WHERE week_start = $1 AND board = $2 AND (hidden_until IS NULL OR hidden_until <= $3)",
        )
        .bind(week)
        .bind(board)
        .bind(now_ms)
        .fetch_all(ex)
        .await?
    });
    macro_rules! text {
        ($engine:ident) => {
            concat!(
                "SELECT min(hidden_until) FROM ",
                hidden_weekly!($engine "h"),
                " WHERE week_start = $1 AND board = $2 AND hidden_until > $3"
            )
        };
    }
    let next_shown: Option<i64> = read!(db, |ex| {
        sqlx::query_scalar(for_engine!(db, text))
            .bind(week)
            .bind(board)
            .bind(now_ms)
            .fetch_one(ex)
            .await?
    });
    Ok((rows, next_shown))
}

/// The players hidden from a board at `now_ms` (a few: banned players), over the
/// partial index of hidden rows.
pub async fn hidden_players(
    db: &Db,
    week: &str,
    board: &str,
    now_ms: i64,
) -> sqlx::Result<Vec<String>> {
    macro_rules! text {
        ($engine:ident) => {
            concat!(
                "SELECT player_id FROM ",
                hidden_weekly!($engine "h"),
                " WHERE week_start = $1 AND board = $2 AND hidden_until > $3"
            )
        };
    }
    Ok(read!(db, |ex| {
        sqlx::query_scalar(for_engine!(db, text))
            .bind(week)
            .bind(board)
            .bind(now_ms)
            .fetch_all(ex)
            .await?
    }))
}

/// Hides a player's rows of a week on `boards` until `until_ms`, or shows them again
/// (None): one primary-key probe per board. Returns the boards that held a row.
pub async fn set_hidden(
    tx: &mut Tx,
    week: &str,
    boards: &[String],
    player_id: &PlayerId,
    until_ms: Option<i64>,
) -> sqlx::Result<Vec<String>> {
    if boards.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "UPDATE weekly_xp SET hidden_until = $3
         WHERE week_start = $1 AND player_id = $2 AND board IN ({})
         RETURNING board",
        super::placeholders_from(4, boards.len())
    );
    Ok(in_tx!(tx, |ex| {
        let mut q = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(week)
            .bind(player_id)
            .bind(until_ms);
        for b in boards {
            q = q.bind(b.as_str());
        }
        q.fetch_all(ex).await?
    }))
}

/// After a region selection: this week's region row follows the player into the new
/// region, carrying the week's XP so far (the all-players row counts it all) and its
/// hiding. Returns the new row when it is shown at `now_ms`.
pub async fn move_region_row(
    tx: &mut Tx,
    week: &str,
    player_id: &PlayerId,
    old_board: Option<&str>,
    new_board: &str,
    now_ms: i64,
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
        // hidden as the all-players row is (a held or banned player stays hidden)
        let moved = sqlx::query_as::<_, (PlayerId, i64, i64, bool)>(
            "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at, hidden_until)
             SELECT week_start, $2, player_id, xp, last_earned_at, hidden_until FROM weekly_xp
             WHERE week_start = $1 AND board = 'topic:all' AND player_id = $3
             ON CONFLICT (week_start, board, player_id) DO UPDATE SET xp = excluded.xp,
                 last_earned_at = excluded.last_earned_at, hidden_until = excluded.hidden_until
             RETURNING player_id, xp, last_earned_at,
                       (hidden_until IS NOT NULL AND hidden_until > $4) AS hidden",
        )
        .bind(week)
        .bind(new_board)
        .bind(player_id)
        .bind(now_ms)
        .fetch_optional(&mut *ex)
        .await?;
        // a hidden row is on no board others see: nothing for the rank index
        Ok(moved.and_then(|(player_id, xp, last_earned_at, hidden)| {
            (!hidden).then_some(BoardRow {
                player_id,
                xp,
                last_earned_at,
            })
        }))
    })
}

/// A player's row on a board whether shown or hidden (their own view: a held player
/// sees themselves), and whether it is hidden at `now_ms`.
pub async fn own_row(
    db: &Db,
    week: &str,
    board: &str,
    player_id: &PlayerId,
    now_ms: i64,
) -> sqlx::Result<Option<(BoardRow, bool)>> {
    #[derive(sqlx::FromRow)]
    struct Own {
        #[sqlx(flatten)]
        row: BoardRow,
        hidden: bool,
    }
    let found: Option<Own> = read!(db, |ex| {
        sqlx::query_as(
            "SELECT player_id, xp, last_earned_at,
                    (hidden_until IS NOT NULL AND hidden_until > $4) AS hidden
             FROM weekly_xp WHERE week_start = $1 AND board = $2 AND player_id = $3",
        )
        .bind(week)
        .bind(board)
        .bind(player_id)
        .bind(now_ms)
        .fetch_optional(ex)
        .await?
    });
    Ok(found.map(|o| (o.row, o.hidden)))
}

/// A shown row near another, with its name and its board order.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct NearRow {
    pub player_id: PlayerId,
    pub xp: i64,
    pub last_earned_at: i64,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
}

/// The shown rows just ahead of `row` (`ahead`) or just behind it, at most `n`, nearest
/// first. Each side is three index ranges of at most `n` entries (same XP and second,
/// same XP, other XP), as the rank count splits them; the names by primary key.
pub async fn near(
    db: &Db,
    week: &str,
    board: &str,
    row: &BoardRow,
    n: i64,
    ahead: bool,
    now_ms: i64,
) -> sqlx::Result<Vec<NearRow>> {
    const SHOWN: &str = "(hidden_until IS NULL OR hidden_until <= $7)";
    const FROM: &str =
        "SELECT player_id, xp, last_earned_at FROM weekly_xp WHERE week_start = $1 AND board = $2";
    let (same_second, same_xp, other_xp) = if ahead {
        (
            "xp = $3 AND last_earned_at = $4 AND player_id > $5 ORDER BY player_id",
            "xp = $3 AND last_earned_at < $4 ORDER BY last_earned_at DESC, player_id",
            "xp > $3 ORDER BY xp, last_earned_at DESC, player_id",
        )
    } else {
        (
            "xp = $3 AND last_earned_at = $4 AND player_id < $5 ORDER BY player_id DESC",
            "xp = $3 AND last_earned_at > $4 ORDER BY last_earned_at, player_id DESC",
            "xp < $3 ORDER BY xp DESC, last_earned_at, player_id DESC",
        )
    };
    let sql = format!(
        "SELECT w.player_id, w.xp, w.last_earned_at, p.nickname, p.avatar_url FROM (
             SELECT * FROM ({FROM} AND {SHOWN} AND {same_second} LIMIT $6) a
             UNION ALL SELECT * FROM ({FROM} AND {SHOWN} AND {same_xp} LIMIT $6) b
             UNION ALL SELECT * FROM ({FROM} AND {SHOWN} AND {other_xp} LIMIT $6) c
         ) w LEFT JOIN players p ON p.id = w.player_id"
    );
    let mut rows: Vec<NearRow> = read!(db, |ex| {
        sqlx::query_as::<_, NearRow>(sqlx::AssertSqlSafe(sql))
            .bind(week)
            .bind(board)
            .bind(row.xp)
            .bind(row.last_earned_at)
            .bind(&row.player_id)
            .bind(n)
            .bind(now_ms)
            .fetch_all(ex)
            .await?
    });
    // board order: XP down, earlier first, greater id first
    rows.sort_by(|a, b| {
        b.xp.cmp(&a.xp)
            .then(a.last_earned_at.cmp(&b.last_earned_at))
            .then(b.player_id.cmp(&a.player_id))
    });
    if ahead {
        rows.reverse();
    }
    rows.truncate(usize::try_from(n).unwrap_or(0));
    Ok(rows)
}
