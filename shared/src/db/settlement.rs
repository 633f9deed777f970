//! Weekly settlement: the frozen standings of every board of an ended week
//! (`board_results`), each board settled exactly once (its marker in
//! `board_settlements` is written in the same transaction as its rows), and the weeks
//! done (`week_settlements`).
//!
//! A frozen row keeps its place among every row of the board and, as a live row does,
//! `hidden_until`: a player banned or held after settlement leaves the board and the
//! others close up, an unban brings them back. A shown rank is the place less the rows
//! hidden ahead, counted over the small partial index of hidden rows, and pages read by
//! place over the board index, so a deep page costs what the first does. `shown` and
//! `rank` keep what the league moves were computed on when the board was settled.

use super::{Db, Tx, in_tx, read};
use crate::ids::PlayerId;

/// The last week whose every board is settled.
pub async fn last_finished_week(db: &Db) -> sqlx::Result<Option<String>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT max(week_start) FROM week_settlements")
            .fetch_one(ex)
            .await?
    }))
}

/// The first week after `after` and before `before` that has weekly rows (one probe
/// of the primary key).
pub async fn next_week_with_rows(
    db: &Db,
    after: &str,
    before: &str,
) -> sqlx::Result<Option<String>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT week_start FROM weekly_xp WHERE week_start > $1 AND week_start < $2
             ORDER BY week_start LIMIT 1",
        )
        .bind(after)
        .bind(before)
        .fetch_optional(ex)
        .await?
    }))
}

/// The board of `week` after `after` in key order (one probe of the primary key).
pub async fn next_board(db: &Db, week: &str, after: &str) -> sqlx::Result<Option<String>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT board FROM weekly_xp WHERE week_start = $1 AND board > $2
             ORDER BY board LIMIT 1",
        )
        .bind(week)
        .bind(after)
        .fetch_optional(ex)
        .await?
    }))
}

/// The shown players of a settled board; None while it is not settled.
pub async fn settled(db: &Db, week: &str, board: &str) -> sqlx::Result<Option<i64>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(
            "SELECT players FROM board_settlements WHERE week_start = $1 AND board = $2",
        )
        .bind(week)
        .bind(board)
        .fetch_optional(ex)
        .await?
    }))
}

/// Orders what changes who a week's boards show against their freezing, in `tx`: a
/// settler locks its board (`exclusive`), a ban or a hold every board of the player
/// (shared), until `tx` ends. Without it, on PostgreSQL a ban committing while a board
/// is frozen could update none of the rows the freeze is writing, and the freeze copy
/// the row as it was before the ban: the banned player shown, and promoted. SQLite's one
/// writer (`BEGIN IMMEDIATE`) orders them already.
pub async fn lock_boards(
    tx: &mut Tx,
    week: &str,
    boards: &[String],
    exclusive: bool,
) -> sqlx::Result<()> {
    if let Tx::Postgres(t) = tx {
        let sql = if exclusive {
            "SELECT count(pg_advisory_xact_lock(hashtext($1 || '|' || b))) FROM unnest($2::text[]) b"
        } else {
            "SELECT count(pg_advisory_xact_lock_shared(hashtext($1 || '|' || b))) FROM unnest($2::text[]) b"
        };
        sqlx::query_scalar::<_, i64>(sql)
            .bind(week)
            .bind(boards)
            .fetch_one(&mut crate::db::Checked(&mut **t))
            .await?;
    }
    Ok(())
}

/// Claims a board for settlement in `tx`; false when it is settled already (by another
/// process, or an earlier run), or when the database's clock has not reached
/// `ends_at_ms`, the end of its week: the caller writes nothing more.
pub async fn claim(
    tx: &mut Tx,
    week: &str,
    board: &str,
    now_ms: i64,
    ends_at_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        // (SQLite reads `ON` after `SELECT … FROM` as an upsert's only after a WHERE)
        sqlx::query(
            "INSERT INTO board_settlements (week_start, board, players, settled_at)
             SELECT $1, $2, 0, $3 FROM db_clock WHERE now_ms >= $4
             ON CONFLICT (week_start, board) DO NOTHING",
        )
        .bind(week)
        .bind(board)
        .bind(now_ms)
        .bind(ends_at_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Freezes a weekly board's rows as they stand (claimed first): each with its place in
/// the boards' order and its `hidden_until`; rows hidden at `now_ms` (held and banned
/// players) are also kept out of the moves (`shown`), with the rank they would have had.
/// Returns the shown players.
pub async fn freeze_board(tx: &mut Tx, week: &str, board: &str, now_ms: i64) -> sqlx::Result<i64> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO board_results (week_start, board, player_id, shown, rank, xp, last_earned_at,
                                        place, hidden_until)
             SELECT week_start, board, player_id, shown,
                    CASE WHEN shown THEN ahead ELSE ahead + 1 END, xp, last_earned_at, place,
                    hidden_until
             FROM (SELECT week_start, board, player_id, xp, last_earned_at, hidden_until,
                          (hidden_until IS NULL OR hidden_until <= $3) AS shown,
                          SUM(CASE WHEN hidden_until IS NULL OR hidden_until <= $3 THEN 1 ELSE 0 END)
                              OVER (ORDER BY xp DESC, last_earned_at, player_id DESC
                                    ROWS UNBOUNDED PRECEDING) AS ahead,
                          ROW_NUMBER() OVER (ORDER BY xp DESC, last_earned_at, player_id DESC) AS place
                   FROM weekly_xp WHERE week_start = $1 AND board = $2) r",
        )
        .bind(week)
        .bind(board)
        .bind(now_ms)
        .execute(&mut *ex)
        .await?;
    });
    let shown = shown_count(tx, week, board).await?;
    set_players(tx, week, board, shown).await?;
    Ok(shown)
}

async fn shown_count(tx: &mut Tx, week: &str, board: &str) -> sqlx::Result<i64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "SELECT count(*) FROM board_results WHERE week_start = $1 AND board = $2 AND shown",
        )
        .bind(week)
        .bind(board)
        .fetch_one(ex)
        .await?
    }))
}

async fn set_players(tx: &mut Tx, week: &str, board: &str, players: i64) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE board_settlements SET players = $3 WHERE week_start = $1 AND board = $2",
        )
        .bind(week)
        .bind(board)
        .bind(players)
        .execute(ex)
        .await?;
    });
    Ok(())
}

/// A frozen row to write (a cohort's, ranked by the caller).
pub struct FrozenRow<'a> {
    pub player_id: &'a PlayerId,
    /// Counted in the moves (shown when settled).
    pub shown: bool,
    pub rank: i64,
    pub xp: i64,
    pub last_earned_at: i64,
    /// 1-based, among every row of the board.
    pub place: i64,
    pub hidden_until: Option<i64>,
}

/// Writes a claimed board's ranked rows (a league cohort: a few dozen).
pub async fn write_rows(
    tx: &mut Tx,
    week: &str,
    board: &str,
    rows: &[FrozenRow<'_>],
) -> sqlx::Result<()> {
    for r in rows {
        in_tx!(tx, |ex| {
            sqlx::query(
                "INSERT INTO board_results (week_start, board, player_id, shown, rank, xp,
                                            last_earned_at, place, hidden_until)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(week)
            .bind(board)
            .bind(r.player_id)
            .bind(r.shown)
            .bind(r.rank)
            .bind(r.xp)
            .bind(r.last_earned_at)
            .bind(r.place)
            .bind(r.hidden_until)
            .execute(ex)
            .await?;
        });
    }
    set_players(
        tx,
        week,
        board,
        rows.iter().filter(|r| r.shown).count() as i64,
    )
    .await
}

/// Marks a week done: every board and cohort of it settled. False when it was marked
/// already, or when the database's clock has not reached `ends_at_ms`, its end.
pub async fn finish_week(
    tx: &mut Tx,
    week: &str,
    now_ms: i64,
    ends_at_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO week_settlements (week_start, finished_at)
             SELECT $1, $2 FROM db_clock WHERE now_ms >= $3
             ON CONFLICT (week_start) DO NOTHING",
        )
        .bind(week)
        .bind(now_ms)
        .bind(ends_at_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// A settled board as it reads at an instant.
#[derive(Clone, Copy, Debug, sqlx::FromRow)]
pub struct FrozenBoard {
    /// The players the league moves were computed on (shown when it was settled).
    pub settled_players: i64,
    /// The players shown now.
    pub shown: i64,
    /// The rows hidden now (banned and held players).
    pub hidden: i64,
}

/// The rows hidden at `$3` on board `$2` of week `$1` (a few), over their partial index.
macro_rules! hidden_rows {
    ($alias:literal) => {
        concat!(
            "FROM board_results ",
            $alias,
            " WHERE ",
            $alias,
            ".week_start = $1 AND ",
            $alias,
            ".board = $2 AND ",
            $alias,
            ".hidden_until > $3"
        )
    };
}

/// A settled board's counts at `now_ms`; None while it is not settled. The rows are
/// the last place (one probe of the board index) and the hidden ones are few.
pub async fn frozen_board(
    db: &Db,
    week: &str,
    board: &str,
    now_ms: i64,
) -> sqlx::Result<Option<FrozenBoard>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, FrozenBoard>(concat!(
            "SELECT s.players AS settled_players,
                    COALESCE((SELECT max(place) FROM board_results
                              WHERE week_start = $1 AND board = $2), 0)
                    - (SELECT count(*) ",
            hidden_rows!("h"),
            ") AS shown,
                    (SELECT count(*) ",
            hidden_rows!("h"),
            ") AS hidden
             FROM board_settlements s WHERE s.week_start = $1 AND s.board = $2"
        ))
        .bind(week)
        .bind(board)
        .bind(now_ms)
        .fetch_optional(ex)
        .await?
    }))
}

/// A frozen row with the player's name, its rank as shown now, and what the moves
/// counted.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ResultRow {
    pub player_id: PlayerId,
    pub rank: i64,
    pub xp: i64,
    /// Counted in the league moves, at `settled_rank`.
    pub shown: bool,
    pub settled_rank: i64,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
}

/// The shown rows of ranks `offset + 1` to `offset + limit` of a settled board at
/// `now_ms`, in rank order. The row of rank k is at place k plus the hidden rows ahead
/// of it, so the rows from place `offset + 1` on, at most `limit` plus the `hidden`
/// rows, hold the page: an index range, whatever the depth.
pub async fn shown_page(
    db: &Db,
    week: &str,
    board: &str,
    offset: i64,
    limit: i64,
    hidden: i64,
    now_ms: i64,
) -> sqlx::Result<Vec<ResultRow>> {
    let rows: Vec<ResultRow> = read!(db, |ex| {
        sqlx::query_as::<_, ResultRow>(concat!(
            "SELECT r.player_id, r.place - (SELECT count(*) ",
            hidden_rows!("h"),
            " AND h.place < r.place) AS rank,
                    r.xp, r.shown, r.rank AS settled_rank, p.nickname, p.avatar_url
             FROM (SELECT player_id, place, xp, shown, rank FROM board_results
                   WHERE week_start = $1 AND board = $2 AND place > $4
                     AND (hidden_until IS NULL OR hidden_until <= $3)
                   ORDER BY place LIMIT $5) r
             LEFT JOIN players p ON p.id = r.player_id
             ORDER BY r.place"
        ))
        .bind(week)
        .bind(board)
        .bind(now_ms)
        .bind(offset)
        .bind(limit + hidden.max(0))
        .fetch_all(ex)
        .await?
    });
    Ok(rows
        .into_iter()
        .filter(|r| r.rank > offset && r.rank <= offset + limit)
        .collect())
}

/// A player's frozen row at `now_ms`.
#[derive(Clone, Copy, Debug, sqlx::FromRow)]
pub struct OwnResult {
    pub xp: i64,
    /// Shown now: their rank; hidden: the rank they would have.
    pub rank: i64,
    pub hidden: bool,
    /// Counted in the league moves, at `settled_rank`.
    pub shown: bool,
    pub settled_rank: i64,
}

pub async fn row_of(
    db: &Db,
    week: &str,
    board: &str,
    player_id: &PlayerId,
    now_ms: i64,
) -> sqlx::Result<Option<OwnResult>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, OwnResult>(concat!(
            "SELECT r.xp, r.place - (SELECT count(*) ",
            hidden_rows!("h"),
            " AND h.place < r.place) AS rank,
                    (r.hidden_until IS NOT NULL AND r.hidden_until > $3) AS hidden,
                    r.shown, r.rank AS settled_rank
             FROM board_results r
             WHERE r.week_start = $1 AND r.board = $2 AND r.player_id = $4"
        ))
        .bind(week)
        .bind(board)
        .bind(now_ms)
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Hides a player's frozen rows of a week on `boards` until `until_ms`, or shows them
/// again (None): one primary-key probe per board.
pub async fn set_hidden(
    tx: &mut Tx,
    week: &str,
    boards: &[String],
    player_id: &PlayerId,
    until_ms: Option<i64>,
) -> sqlx::Result<u64> {
    if boards.is_empty() {
        return Ok(0);
    }
    let sql = format!(
        "UPDATE board_results SET hidden_until = $3
         WHERE week_start = $1 AND player_id = $2 AND board IN ({})",
        super::placeholders_from(4, boards.len())
    );
    Ok(in_tx!(tx, |ex| {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(week)
            .bind(player_id)
            .bind(until_ms);
        for b in boards {
            q = q.bind(b.as_str());
        }
        q.execute(ex).await?.rows_affected()
    }))
}

/// What a settled league board's moves counted for a player: (counted, their rank
/// then, the players counted), read in `tx`.
pub async fn counted_in_moves(
    tx: &mut Tx,
    week: &str,
    board: &str,
    player_id: &PlayerId,
) -> sqlx::Result<Option<(bool, i64, i64)>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, (bool, i64, i64)>(
            "SELECT r.shown, r.rank, s.players FROM board_results r
             JOIN board_settlements s ON s.week_start = r.week_start AND s.board = r.board
             WHERE r.week_start = $1 AND r.board = $2 AND r.player_id = $3",
        )
        .bind(week)
        .bind(board)
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Takes a player's row out of a settled board's moves (a withdrawn promotion): the
/// others' zones stay as they were settled.
pub async fn uncount(
    tx: &mut Tx,
    week: &str,
    board: &str,
    player_id: &PlayerId,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE board_results SET shown = FALSE
             WHERE week_start = $1 AND board = $2 AND player_id = $3 AND shown",
        )
        .bind(week)
        .bind(board)
        .bind(player_id)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}
