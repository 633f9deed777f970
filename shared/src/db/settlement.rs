//! Weekly settlement: the frozen standings of every board of an ended week
//! (`board_results`), each board settled exactly once (its marker in
//! `board_settlements` is written in the same transaction as its rows), and the weeks
//! done (`week_settlements`). Reads of frozen standings go by rank over an index, so a
//! deep page costs what the first does.

use super::{Db, Tx, in_tx, read};

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

/// Freezes a weekly board's rows as they stand (claimed first): ranked by the boards'
/// order, rows hidden at `now_ms` (held and banned players) unshown with the rank they
/// would have had. Returns the shown players.
pub async fn freeze_board(tx: &mut Tx, week: &str, board: &str, now_ms: i64) -> sqlx::Result<i64> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO board_results (week_start, board, player_id, shown, rank, xp, last_earned_at)
             SELECT week_start, board, player_id, shown,
                    CASE WHEN shown THEN ahead ELSE ahead + 1 END, xp, last_earned_at
             FROM (SELECT week_start, board, player_id, xp, last_earned_at,
                          (hidden_until IS NULL OR hidden_until <= $3) AS shown,
                          SUM(CASE WHEN hidden_until IS NULL OR hidden_until <= $3 THEN 1 ELSE 0 END)
                              OVER (ORDER BY xp DESC, last_earned_at, player_id DESC
                                    ROWS UNBOUNDED PRECEDING) AS ahead
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
    pub player_id: &'a str,
    pub shown: bool,
    pub rank: i64,
    pub xp: i64,
    pub last_earned_at: i64,
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
                                            last_earned_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(week)
            .bind(board)
            .bind(r.player_id)
            .bind(r.shown)
            .bind(r.rank)
            .bind(r.xp)
            .bind(r.last_earned_at)
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

/// A frozen row with the player's name.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ResultRow {
    pub player_id: String,
    pub rank: i64,
    pub xp: i64,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
}

/// The shown rows of ranks `from_rank` to `to_rank` of a settled board, in rank order
/// (an index range).
pub async fn shown_ranks(
    db: &Db,
    week: &str,
    board: &str,
    from_rank: i64,
    to_rank: i64,
) -> sqlx::Result<Vec<ResultRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, ResultRow>(
            "SELECT r.player_id, r.rank, r.xp, p.nickname, p.avatar_url
             FROM (SELECT player_id, rank, xp FROM board_results
                   WHERE week_start = $1 AND board = $2 AND shown AND rank >= $3 AND rank <= $4
                   ORDER BY rank) r
             LEFT JOIN players p ON p.id = r.player_id
             ORDER BY r.rank",
        )
        .bind(week)
        .bind(board)
        .bind(from_rank)
        .bind(to_rank)
        .fetch_all(ex)
        .await?
    }))
}

/// A player's frozen row: XP, rank (the one they would have had when unshown), shown.
pub async fn row_of(
    db: &Db,
    week: &str,
    board: &str,
    player_id: &str,
) -> sqlx::Result<Option<(i64, i64, bool)>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (i64, i64, bool)>(
            "SELECT xp, rank, shown FROM board_results
             WHERE week_start = $1 AND board = $2 AND player_id = $3",
        )
        .bind(week)
        .bind(board)
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}
