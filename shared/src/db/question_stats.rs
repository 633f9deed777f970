//! The question statistics (migration 0016): what the `question_stats` job reads (the
//! answers and first card views after its cursors, in `(created_at, id)` order), the
//! counters it adds to, what it derives, and what the admin API and console read.

use super::{Db, Tx, in_tx, read};
use crate::ids::{PlayerId, QuestionId};

/// How far a job has read an ordered source: its last row's `(created_at, id)`.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Cursor {
    pub created_at: i64,
    pub id: String,
}

impl Cursor {
    /// Before every row.
    pub fn start() -> Self {
        Self {
            created_at: i64::MIN,
            id: String::new(),
        }
    }
}

/// The cursor `name` (the start when it has none). The job reads it, and the rows
/// after it, outside its write transaction (on SQLite the writer is held only while
/// counting): the transaction moves the cursor only if it still stands there.
pub async fn cursor(db: &Db, name: &str) -> sqlx::Result<Cursor> {
    let found = read!(db, |ex| {
        sqlx::query_as::<_, Cursor>("SELECT created_at, id FROM stats_cursors WHERE name = $1")
            .bind(name)
            .fetch_optional(ex)
            .await?
    });
    Ok(found.unwrap_or_else(Cursor::start))
}

/// Moves the cursor `name` from `from` to `to`; false (the caller rolls back) when it no
/// longer stood at `from`: another run read the same rows meanwhile.
pub async fn move_cursor(
    tx: &mut Tx,
    name: &str,
    from: &Cursor,
    to: &Cursor,
) -> sqlx::Result<bool> {
    let moved = in_tx!(tx, |ex| {
        if *from == Cursor::start() {
            sqlx::query(
                "INSERT INTO stats_cursors (name, created_at, id) VALUES ($1, $2, $3)
                 ON CONFLICT (name) DO NOTHING",
            )
            .bind(name)
            .bind(to.created_at)
            .bind(&to.id)
            .execute(ex)
            .await?
        } else {
            sqlx::query(
                "UPDATE stats_cursors SET created_at = $2, id = $3
                 WHERE name = $1 AND created_at = $4 AND id = $5",
            )
            .bind(name)
            .bind(to.created_at)
            .bind(&to.id)
            .bind(from.created_at)
            .bind(&from.id)
            .execute(ex)
            .await?
        }
        .rows_affected()
    });
    Ok(moved == 1)
}

/// One answer as the statistics see it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AnswerFact {
    pub created_at: i64,
    pub id: String,
    pub player_id: PlayerId,
    pub question_id: QuestionId,
    pub question_version: i64,
    pub is_correct: bool,
    pub selected_option_id: String,
    pub time_ms: i64,
    /// What the server measured (None: an answer from before it was stored).
    pub server_elapsed_ms: Option<i64>,
    /// The fair-play signals the answer raised (a bit set).
    pub signals: i64,
    /// The player is neither held, banned nor flagged (as the job reads it).
    pub clean_player: bool,
    /// The player's first answer to the question, of any version.
    pub first_answer: bool,
    /// The session question's options, JSON `[{id, text}]` (None if it is gone).
    pub options: Option<String>,
}

/// Rows after `after` in `(created_at, id)` order, committed long enough ago
/// (`created_at <= until`) that no earlier one can still be in flight.
const AFTER: &str = "created_at >= $1 AND (created_at > $1 OR id > $2) AND created_at <= $3";

/// Up to `limit` answers after `after` (index `challenge_answers_created`), each with
/// its session question's options, whether its player is in good standing (their
/// rows: a primary-key probe each) and whether it is the player's first answer to the
/// question (index `challenge_answers_player_question`: the player's few answers to it).
pub async fn answers_after(
    db: &Db,
    after: &Cursor,
    until: i64,
    limit: i64,
) -> sqlx::Result<Vec<AnswerFact>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, AnswerFact>(sqlx::AssertSqlSafe(format!(
            "SELECT a.created_at, a.id, a.player_id, a.question_id, a.question_version,
                    a.is_correct, a.selected_option_id, a.time_ms, a.server_elapsed_ms,
                    a.signals,
                    (p.id IS NOT NULL AND NOT p.fairplay_held AND NOT p.is_banned
                     AND COALESCE(f.state, 'cleared') = 'cleared') AS clean_player,
                    NOT EXISTS (SELECT 1 FROM challenge_answers e
                                WHERE e.player_id = a.player_id AND e.question_id = a.question_id
                                  AND (e.created_at < a.created_at
                                       OR (e.created_at = a.created_at AND e.id < a.id)))
                        AS first_answer,
                    sq.options
             FROM (SELECT * FROM challenge_answers WHERE {AFTER}
                   ORDER BY created_at, id LIMIT $4) a
             LEFT JOIN challenge_session_questions sq
                    ON sq.session_id = a.session_id AND sq.question_id = a.question_id
             LEFT JOIN players p ON p.id = a.player_id
             LEFT JOIN fairplay_players f ON f.player_id = a.player_id
             ORDER BY a.created_at, a.id"
        )))
        .bind(after.created_at)
        .bind(&after.id)
        .bind(until)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}

/// A player's first view of a card, from the ledger.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CardViewFact {
    pub created_at: i64,
    pub id: String,
    /// `kcview:{playerId}:{cardId}`.
    pub idempotency_key: String,
    /// The card's question (None for a card that is gone).
    pub question_id: Option<String>,
}

/// Up to `limit` first card views after `after` (the partial index
/// `reward_ledger_card_views`), each with its card's question: a fallback card's id
/// names it, a card's row holds it.
pub async fn card_views_after(
    db: &Db,
    after: &Cursor,
    until: i64,
    limit: i64,
) -> sqlx::Result<Vec<CardViewFact>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, CardViewFact>(sqlx::AssertSqlSafe(format!(
            "SELECT l.created_at, l.id, l.idempotency_key,
                    COALESCE(k.question_id, CASE WHEN l.card_id LIKE 'fallback-%'
                                                 THEN substr(l.card_id, 10) END) AS question_id
             FROM (SELECT created_at, id, idempotency_key,
                          substr(idempotency_key, length('kcview:') + length(player_id) + 2) AS card_id
                   FROM reward_ledger
                   WHERE source = 'review_explanation' AND {AFTER}
                   ORDER BY created_at, id LIMIT $4) l
             LEFT JOIN knowledge_cards k ON k.id = l.card_id
             ORDER BY l.created_at, l.id"
        )))
        .bind(after.created_at)
        .bind(&after.id)
        .bind(until)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}

/// A key column's value.
#[derive(Clone, Copy, Debug)]
pub enum Key<'a> {
    Text(&'a str),
    Int(i64),
}

/// A table of counters the job adds to: its key columns and its counter columns.
#[derive(Clone, Copy, Debug)]
pub struct Counters {
    pub table: &'static str,
    pub keys: &'static [&'static str],
    pub counts: &'static [&'static str],
    /// A further assignment when a row is added to (its insert takes the column default).
    pub also: Option<&'static str>,
}

pub const QUESTION_COUNTS: Counters = Counters {
    table: "question_stats",
    keys: &["question_id", "version"],
    counts: &["attempts", "correct"],
    // the version is due for its derived numbers again
    also: Some("derive_due = question_stats.derive_due + 1"),
};
pub const OPTION_PICKS: Counters = Counters {
    table: "question_option_picks",
    keys: &["question_id", "version", "option_text"],
    counts: &["picks"],
    also: None,
};
pub const ANSWER_TIMES: Counters = Counters {
    table: "question_answer_times",
    keys: &["question_id", "version", "time_ms"],
    counts: &["answers"],
    also: None,
};
/// The too-fast bar's histogram: the server's times of clean first answers.
pub const PACE: Counters = Counters {
    table: "question_pace",
    keys: &["question_id", "version", "elapsed_ms"],
    counts: &["answers"],
    also: None,
};
pub const QUESTION_DAYS: Counters = Counters {
    table: "question_daily_stats",
    keys: &["question_id", "version", "day"],
    counts: &["attempts", "correct"],
    also: None,
};
pub const QUESTION_PLAYERS: Counters = Counters {
    table: "question_players",
    keys: &["question_id", "version", "player_id"],
    counts: &["attempts", "correct"],
    also: None,
};
pub const PLAYER_ACCURACY: Counters = Counters {
    table: "player_accuracy",
    keys: &["player_id"],
    counts: &["attempts", "correct"],
    also: None,
};
pub const DAILY_ACTIVITY: Counters = Counters {
    table: "daily_activity",
    keys: &["day"],
    counts: &["answers", "correct", "active_players"],
    also: None,
};

/// One row of counter additions: its key values and what to add to each counter.
pub type Addition<'a> = (Vec<Key<'a>>, Vec<i64>);

/// Rows one statement writes at most (bind parameters stay far below both engines'
/// limits).
const ROWS_PER_STATEMENT: usize = 500;

/// Adds each row's counts to the row of its keys in `c` (creating it): one multi-row
/// upsert per `ROWS_PER_STATEMENT` rows. Every key must appear once in `rows` (a row
/// cannot be updated twice by one statement).
pub async fn add(tx: &mut Tx, c: Counters, rows: &[Addition<'_>]) -> sqlx::Result<()> {
    let width = c.keys.len() + c.counts.len();
    let columns = c.keys.iter().chain(c.counts).copied().collect::<Vec<_>>();
    let sets = c
        .counts
        .iter()
        .map(|n| format!("{n} = {t}.{n} + excluded.{n}", t = c.table))
        .chain(c.also.map(str::to_string))
        .collect::<Vec<_>>();
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        let values = (0..chunk.len())
            .map(|r| {
                let params = (1..=width)
                    .map(|i| format!("${}", r * width + i))
                    .collect::<Vec<_>>();
                format!("({})", params.join(", "))
            })
            .collect::<Vec<_>>();
        // table and column names are the constants above, never input
        let sql = format!(
            "INSERT INTO {} ({}) VALUES {} ON CONFLICT ({}) DO UPDATE SET {}",
            c.table,
            columns.join(", "),
            values.join(", "),
            c.keys.join(", "),
            sets.join(", ")
        );
        in_tx!(tx, |ex| {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
            for (keys, counts) in chunk {
                for key in keys {
                    q = match *key {
                        Key::Text(s) => q.bind(s),
                        Key::Int(i) => q.bind(i),
                    };
                }
                for n in counts {
                    q = q.bind(*n);
                }
            }
            q.execute(ex).await?;
        });
    }
    Ok(())
}

/// Records that each player answered on their day; returns, per day, how many of them
/// answered for the first time that day (the day's active players grow by as many).
pub async fn mark_daily_players(tx: &mut Tx, marks: &[(&str, &str)]) -> sqlx::Result<Vec<String>> {
    let mut first = Vec::new();
    for chunk in marks.chunks(ROWS_PER_STATEMENT) {
        let values = (0..chunk.len())
            .map(|r| format!("(${}, ${})", 2 * r + 1, 2 * r + 2))
            .collect::<Vec<_>>();
        let sql = format!(
            "INSERT INTO daily_players (day, player_id) VALUES {}
             ON CONFLICT DO NOTHING RETURNING day",
            values.join(", ")
        );
        let days = in_tx!(tx, |ex| {
            let mut q = sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql.clone()));
            for (day, player) in chunk {
                q = q.bind(*day).bind(*player);
            }
            q.fetch_all(ex).await?
        });
        first.extend(days);
    }
    Ok(first)
}

/// The counted numbers of a question version.
#[derive(Clone, Debug, Default, sqlx::FromRow)]
pub struct StatsRow {
    pub attempts: i64,
    pub correct: i64,
    pub players: i64,
    pub card_views: i64,
    pub median_time_ms: Option<i64>,
    pub discrimination: Option<f64>,
    pub flags: Option<String>,
    pub computed_at: i64,
    /// Counts added since the last derive (0: derived).
    pub derive_due: i64,
    /// The attempts and the instant of the last read of the version's players.
    pub players_read_attempts: i64,
    pub players_read_at: i64,
}

pub async fn stats(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Option<StatsRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, StatsRow>(
            "SELECT attempts, correct, players, card_views, median_time_ms, discrimination,
                    flags, computed_at, derive_due, players_read_attempts, players_read_at
             FROM question_stats WHERE question_id = $1 AND version = $2",
        )
        .bind(question_id)
        .bind(version)
        .fetch_optional(ex)
        .await?
    }))
}

/// A version's rows of a two-column counter table: `$1` the question, `$2` the version.
async fn version_rows<K>(
    db: &Db,
    sql: &'static str,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Vec<(K, i64)>>
where
    K: Send + Unpin,
    K: for<'r> sqlx::Decode<'r, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>,
    K: for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (K, i64)>(sql)
            .bind(question_id)
            .bind(version)
            .fetch_all(ex)
            .await?
    }))
}

/// Picks per option text of a version.
pub async fn option_picks(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Vec<(String, i64)>> {
    version_rows(
        db,
        "SELECT option_text, picks FROM question_option_picks
         WHERE question_id = $1 AND version = $2",
        question_id,
        version,
    )
    .await
}

/// The answer-time histogram of a version: (ms, answers).
pub async fn answer_times(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Vec<(i64, i64)>> {
    version_rows(
        db,
        "SELECT time_ms, answers FROM question_answer_times
         WHERE question_id = $1 AND version = $2",
        question_id,
        version,
    )
    .await
}

/// The too-fast bar's histogram of a version: (ms, answers); one answer per player.
pub async fn pace_times(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Vec<(i64, i64)>> {
    version_rows(
        db,
        "SELECT elapsed_ms, answers FROM question_pace
         WHERE question_id = $1 AND version = $2",
        question_id,
        version,
    )
    .await
}

/// One player's answers to a version, their answers over all questions, and whether
/// they opened `card_id`.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerRow {
    pub player_id: PlayerId,
    pub attempts: i64,
    pub correct: i64,
    pub overall_attempts: i64,
    pub overall_correct: i64,
    pub viewed_card: bool,
}

/// The players who answered a version (one index range, a probe each).
pub async fn players(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
    card_id: &str,
) -> sqlx::Result<Vec<PlayerRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, PlayerRow>(
            "SELECT qp.player_id, qp.attempts, qp.correct,
                    COALESCE(pa.attempts, 0) AS overall_attempts,
                    COALESCE(pa.correct, 0) AS overall_correct,
                    EXISTS (SELECT 1 FROM reward_ledger l
                            WHERE l.idempotency_key = 'kcview:' || qp.player_id || ':' || $3) AS viewed_card
             FROM question_players qp
             LEFT JOIN player_accuracy pa ON pa.player_id = qp.player_id
             WHERE qp.question_id = $1 AND qp.version = $2",
        )
        .bind(question_id)
        .bind(version)
        .bind(card_id)
        .fetch_all(ex)
        .await?
    }))
}

/// Marks every counted version of these questions due (their cards were opened).
pub async fn mark_due(tx: &mut Tx, question_ids: &[&str]) -> sqlx::Result<()> {
    for chunk in question_ids.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "UPDATE question_stats SET derive_due = derive_due + 1 WHERE question_id IN ({})",
            super::placeholders(chunk.len())
        );
        in_tx!(tx, |ex| {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
            for id in chunk {
                q = q.bind(*id);
            }
            q.execute(ex).await?;
        });
    }
    Ok(())
}

/// Up to `limit` versions due for their derived numbers, in `(question_id, version)`
/// order after `after` (the partial index `question_stats_due`).
pub async fn due_versions(
    db: &Db,
    after: &(String, i64),
    limit: i64,
) -> sqlx::Result<Vec<(String, i64)>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (String, i64)>(
            "SELECT question_id, version FROM question_stats
             WHERE derive_due > 0 AND question_id >= $1 AND (question_id > $1 OR version > $2)
             ORDER BY question_id, version LIMIT $3",
        )
        .bind(&after.0)
        .bind(after.1)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}

/// What the job derives for a version.
pub struct Derived<'a> {
    pub question_id: &'a QuestionId,
    pub version: i64,
    pub players: i64,
    pub card_views: i64,
    pub median_time_ms: Option<i64>,
    /// The too-fast bar's median and the players it is of.
    pub pace_ms: Option<i64>,
    pub pace_players: i64,
    pub discrimination: Option<f64>,
    pub flags: Option<&'a str>,
    pub severity: i64,
    pub now_ms: i64,
    /// The `derive_due` the derive started from: cleared only if still the same.
    pub due_seen: i64,
    /// When the players were read: the attempts then.
    pub players_read_attempts: Option<i64>,
}

/// Stores what was derived for a version; for the question's current version also its
/// summary on the question row (the admin list's filter and orders). Returns the flags
/// stored before.
pub async fn store_derived(tx: &mut Tx, d: &Derived<'_>) -> sqlx::Result<Option<String>> {
    let before = in_tx!(tx, |ex| {
        sqlx::query_scalar::<_, Option<String>>(
            "SELECT flags FROM question_stats WHERE question_id = $1 AND version = $2",
        )
        .bind(d.question_id)
        .bind(d.version)
        .fetch_optional(ex)
        .await?
    })
    .flatten();
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE question_stats SET players = $3, card_views = $4, median_time_ms = $5,
                    discrimination = $6, flags = $7, computed_at = $8,
                    derive_due = CASE WHEN derive_due = $9 THEN 0 ELSE derive_due END,
                    players_read_attempts = COALESCE($10, players_read_attempts),
                    players_read_at = CASE WHEN $10 IS NULL THEN players_read_at ELSE $8 END,
                    pace_ms = $11, pace_players = $12
             WHERE question_id = $1 AND version = $2",
        )
        .bind(d.question_id)
        .bind(d.version)
        .bind(d.players)
        .bind(d.card_views)
        .bind(d.median_time_ms)
        .bind(d.discrimination)
        .bind(d.flags)
        .bind(d.now_ms)
        .bind(d.due_seen)
        .bind(d.players_read_attempts)
        .bind(d.pace_ms)
        .bind(d.pace_players)
        .execute(&mut *ex)
        .await?;
        sqlx::query(
            "UPDATE questions SET stats_attempts = s.attempts, stats_correct = s.correct,
                    stats_accuracy_key = CASE WHEN s.attempts > 0
                        THEN CAST(s.correct AS DOUBLE PRECISION) / s.attempts ELSE -1 END,
                    stats_flags = $3, stats_severity = $4
             FROM (SELECT attempts, correct FROM question_stats
                   WHERE question_id = $1 AND version = $2) s
             WHERE questions.id = $1 AND questions.version = $2",
        )
        .bind(d.question_id)
        .bind(d.version)
        .bind(d.flags)
        .bind(d.severity)
        .execute(ex)
        .await?;
    });
    Ok(before)
}

/// A guest's counted answers follow them into the account they merge into: their
/// per-version rows and overall accuracy are added to the account's, and the versions
/// they touch are due again (their players changed). Bounded by the guest's answers.
pub async fn move_player(tx: &mut Tx, guest: &PlayerId, target: &PlayerId) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE question_stats SET derive_due = derive_due + 1
             WHERE EXISTS (SELECT 1 FROM question_players qp
                           WHERE qp.player_id = $1 AND qp.question_id = question_stats.question_id
                             AND qp.version = question_stats.version)",
        )
        .bind(guest)
        .execute(&mut *ex)
        .await?;
        for (copy, delete) in [
            (
                "INSERT INTO question_players (question_id, version, player_id, attempts, correct)
                 SELECT question_id, version, $2, attempts, correct FROM question_players
                 WHERE player_id = $1
                 ON CONFLICT (question_id, version, player_id) DO UPDATE SET
                     attempts = question_players.attempts + excluded.attempts,
                     correct = question_players.correct + excluded.correct",
                "DELETE FROM question_players WHERE player_id = $1",
            ),
            (
                "INSERT INTO player_accuracy (player_id, attempts, correct)
                 SELECT $2, attempts, correct FROM player_accuracy WHERE player_id = $1
                 ON CONFLICT (player_id) DO UPDATE SET
                     attempts = player_accuracy.attempts + excluded.attempts,
                     correct = player_accuracy.correct + excluded.correct",
                "DELETE FROM player_accuracy WHERE player_id = $1",
            ),
        ] {
            sqlx::query(copy)
                .bind(guest)
                .bind(target)
                .execute(&mut *ex)
                .await?;
            sqlx::query(delete).bind(guest).execute(&mut *ex).await?;
        }
    });
    Ok(())
}

/// Attempts and right answers of a version per Beijing day, from `from_day` on.
pub async fn daily(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
    from_day: &str,
) -> sqlx::Result<Vec<(String, i64, i64)>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (String, i64, i64)>(
            "SELECT day, attempts, correct FROM question_daily_stats
             WHERE question_id = $1 AND version = $2 AND day >= $3 ORDER BY day",
        )
        .bind(question_id)
        .bind(version)
        .bind(from_day)
        .fetch_all(ex)
        .await?
    }))
}

/// One day of the dashboard.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ActivityRow {
    pub day: String,
    pub answers: i64,
    pub correct: i64,
    pub active_players: i64,
    pub new_players: i64,
}

/// The dashboard's days from `from_day` on.
pub async fn activity(db: &Db, from_day: &str) -> sqlx::Result<Vec<ActivityRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, ActivityRow>(
            "SELECT day, answers, correct, active_players, new_players FROM daily_activity
             WHERE day >= $1 ORDER BY day",
        )
        .bind(from_day)
        .fetch_all(ex)
        .await?
    }))
}

/// Players who signed up in `[from_ms, to_ms)` and are neither deleted nor merged (the
/// partial index `players_live_order`: one day's signups).
pub async fn signups(db: &Db, from_ms: i64, to_ms: i64) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM players
             WHERE created_at >= $1 AND created_at < $2
               AND deleted_at IS NULL AND merged_into IS NULL",
        )
        .bind(from_ms)
        .bind(to_ms)
        .fetch_one(ex)
        .await?
    }))
}

/// Stores a day's signups.
pub async fn store_signups(tx: &mut Tx, day: &str, new_players: i64) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO daily_activity (day, new_players) VALUES ($1, $2)
             ON CONFLICT (day) DO UPDATE SET new_players = excluded.new_players",
        )
        .bind(day)
        .bind(new_players)
        .execute(ex)
        .await?;
    });
    Ok(())
}

/// What the statistics need of a version: its options and card.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct VersionContent {
    pub correct_answer: String,
    /// JSON array of strings.
    pub distractors: String,
    pub card_id: Option<String>,
}

pub async fn version_content(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Option<VersionContent>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, VersionContent>(
            "SELECT correct_answer, distractors, card_id FROM question_versions
             WHERE question_id = $1 AND version = $2",
        )
        .bind(question_id)
        .bind(version)
        .fetch_optional(ex)
        .await?
    }))
}

/// The question's current version; None when there is no such question.
pub async fn current_version(db: &Db, question_id: &QuestionId) -> sqlx::Result<Option<i64>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar::<_, i64>("SELECT version FROM questions WHERE id = $1")
            .bind(question_id)
            .fetch_optional(ex)
            .await?
    }))
}

/// A question's current version with its content and counted numbers.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CurrentStats {
    pub question_id: QuestionId,
    pub version: i64,
    #[sqlx(flatten)]
    pub content: VersionContent,
    #[sqlx(flatten)]
    pub counts: StatsRow,
}

/// The current versions of `question_ids` with their numbers (zero without answers), and
/// their picks per option text: two statements for a whole screen.
pub async fn current_stats(
    db: &Db,
    question_ids: &[&str],
) -> sqlx::Result<(Vec<CurrentStats>, Vec<(String, String, i64)>)> {
    if question_ids.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let ids = super::placeholders(question_ids.len());
    let stats_sql = format!(
        "SELECT q.id AS question_id, q.version, v.correct_answer, v.distractors, v.card_id,
                COALESCE(s.attempts, 0) AS attempts, COALESCE(s.correct, 0) AS correct,
                COALESCE(s.players, 0) AS players, COALESCE(s.card_views, 0) AS card_views,
                s.median_time_ms, s.discrimination, s.flags,
                COALESCE(s.computed_at, 0) AS computed_at, COALESCE(s.derive_due, 0) AS derive_due,
                COALESCE(s.players_read_attempts, 0) AS players_read_attempts,
                COALESCE(s.players_read_at, 0) AS players_read_at
         FROM questions q
         JOIN question_versions v ON v.question_id = q.id AND v.version = q.version
         LEFT JOIN question_stats s ON s.question_id = q.id AND s.version = q.version
         WHERE q.id IN ({ids})"
    );
    let picks_sql = format!(
        "SELECT p.question_id, p.option_text, p.picks FROM question_option_picks p
         JOIN questions q ON q.id = p.question_id AND q.version = p.version
         WHERE p.question_id IN ({ids})"
    );
    Ok(read!(db, |ex| {
        let mut stats = sqlx::query_as::<_, CurrentStats>(sqlx::AssertSqlSafe(stats_sql));
        let mut picks = sqlx::query_as::<_, (String, String, i64)>(sqlx::AssertSqlSafe(picks_sql));
        for id in question_ids {
            stats = stats.bind(*id);
            picks = picks.bind(*id);
        }
        (stats.fetch_all(ex).await?, picks.fetch_all(ex).await?)
    }))
}
