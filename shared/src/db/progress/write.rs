//! The one writer of `player_progress`. Every statement here advances `revision`; no
//! other module holds an `UPDATE player_progress` (a test in `db` checks the sources),
//! and only [`write()`] hands out a [`Revision`] that follows a write.

use uuid::Uuid;

use super::Revision;
use crate::db::answers::{AnswerRows, first_answer_rows, is_stale_guard};
use crate::db::fairplay::Scored;
use crate::db::ledger::{self, LedgerEntry, WeeklyTotal, bind_ledger_entry};
use crate::db::review::parked_at;
use crate::db::{Db, Tx, in_tx};
use crate::domain::board::BoardKey;
use crate::domain::change::ResourceChange;
use crate::domain::fairplay::FairPlayState;
use crate::domain::fairplay::{FLAGGED_KEY, HELD_KEY};
use crate::ids::{ChallengeId, PlayerId, QuestionId};

/// Where a write runs.
pub enum Target<'a> {
    /// In the caller's transaction, which locked the row first (`super::lock`).
    Tx(&'a mut Tx),
    /// One statement of its own, applied only if the row still carries `revision` (the
    /// revision the change was judged on), with the rows `beside` it, all or nothing.
    Guarded {
        db: &'a Db,
        revision: Revision,
        beside: Beside<'a>,
    },
}

/// What a guarded write writes beside the progress row.
pub enum Beside<'a> {
    /// A first answer's rows (the answer, the session count, the node completion).
    Answer(&'a AnswerRows<'a>),
    /// A session question closed at zero hearts (with [`Update::Touch`]): ordered
    /// against every answer of the player by the revision.
    ZeroHeartMark {
        session_id: &'a ChallengeId,
        question_id: &'a QuestionId,
    },
}

/// What a write changes in the row (the revision always advances).
pub enum Update<'a> {
    /// The resources after a change, with its ledger row and weekly XP when the change
    /// is ledgered: nothing at all is written when its ledger key is taken.
    Change(&'a ResourceChange),
    ActiveTrack(&'a str),
    /// Streak protection granted until `until_ms` (its cooldown runs from the write).
    StreakProtection {
        until_ms: i64,
    },
    /// XP moved in with ledger rows from another account (a merge).
    AddXp(i64),
    /// Only the revision: for a change beside the row that an answer judged before it
    /// must not outlive (a ban, a deletion, a region move, tokens ended).
    Touch,
}

/// What [`write()`] did.
#[derive(Debug)]
pub enum Written {
    /// Written: the row's new revision, and the weekly rows' new totals (every
    /// player's board first).
    Recorded {
        revision: Revision,
        weekly: Vec<WeeklyTotal>,
        /// An answer's fair-play row, when the answer raised signals.
        fair_play: Option<Scored>,
    },
    /// Nothing written: the change's ledger key is taken (a replay).
    KeyTaken,
    /// Nothing written (guarded): the row or the session changed since they were read.
    Stale,
    /// Nothing written (guarded): the answer or its ledger key exists already.
    Duplicate,
    /// No progress row (a deleted or unknown player).
    NoRow,
}

/// Writes player `player_id`'s progress row (advancing its revision) and what goes
/// with the update.
pub async fn write(
    to: Target<'_>,
    player_id: &PlayerId,
    update: Update<'_>,
    now_ms: i64,
) -> sqlx::Result<Written> {
    match to {
        Target::Tx(tx) => write_in_tx(tx, player_id, &update, now_ms).await,
        Target::Guarded {
            db,
            revision,
            beside: Beside::Answer(rows),
        } => match update {
            Update::Change(change) => write_answer(db, change, rows, revision).await,
            _ => Err(misuse("an answer is written with its change")),
        },
        Target::Guarded {
            db,
            revision,
            beside:
                Beside::ZeroHeartMark {
                    session_id,
                    question_id,
                },
        } => match update {
            Update::Touch => {
                mark_zero_heart_refusal(db, player_id, revision, session_id, question_id).await
            }
            _ => Err(misuse("a zero-heart mark changes only the revision")),
        },
    }
}

fn misuse(what: &str) -> sqlx::Error {
    sqlx::Error::Protocol(format!("progress write: {what}"))
}

/// Binds the resources' twelve columns, in [`set_resources`]'s order, to `$query`'s
/// next parameters.
macro_rules! bind_resources {
    ($query:expr, $r:expr) => {
        $query
            .bind($r.hearts)
            .bind($r.hearts_regen_from)
            .bind(&$r.attempts_day)
            .bind($r.attempts_used)
            .bind($r.bonus_attempts)
            .bind($r.xp)
            .bind(&$r.daily_xp_day)
            .bind($r.daily_xp)
            .bind($r.streak_days)
            .bind(&$r.streak_last_day)
            .bind($r.streak_protected_until)
            .bind($r.check_in_days)
    };
}

/// The resources' columns, `$2` onwards, as every resource write stores them.
macro_rules! set_resources {
    () => {
        "hearts = $2, hearts_regen_from = $3, attempts_day = $4, attempts_used = $5,
    bonus_attempts = $6, xp = $7, daily_xp_day = $8, daily_xp = $9, streak_days = $10,
    streak_last_day = $11, streak_protected_until = $12, check_in_days = $13, updated_at = $14"
    };
}

async fn write_in_tx(
    tx: &mut Tx,
    player_id: &PlayerId,
    update: &Update<'_>,
    now_ms: i64,
) -> sqlx::Result<Written> {
    let revision: Option<i64> = match update {
        Update::Change(change) => {
            if change.ledgered && !ledger::insert(tx, &ledger_entry(change, &new_id())).await? {
                return Ok(Written::KeyTaken);
            }
            let r = &change.after;
            in_tx!(tx, |ex| {
                bind_resources!(
                    sqlx::query_scalar(concat!(
                        "UPDATE player_progress SET revision = revision + 1, ",
                        set_resources!(),
                        ", review_xp = $15, review_hearts = $16 WHERE player_id = $1 RETURNING revision"
                    ))
                    .bind(player_id),
                    r
                )
                .bind(now_ms)
                .bind(r.review_xp)
                .bind(r.review_hearts)
                .fetch_optional(ex)
                .await?
            })
        }
        Update::ActiveTrack(track_id) => in_tx!(tx, |ex| {
            sqlx::query_scalar(
                "UPDATE player_progress SET revision = revision + 1, active_track_id = $2,
                     updated_at = $3
                 WHERE player_id = $1 RETURNING revision",
            )
            .bind(player_id)
            .bind(track_id)
            .bind(now_ms)
            .fetch_optional(ex)
            .await?
        }),
        Update::StreakProtection { until_ms } => in_tx!(tx, |ex| {
            sqlx::query_scalar(
                "UPDATE player_progress SET revision = revision + 1, streak_protected_until = $2,
                     streak_protection_at = $3, updated_at = $3
                 WHERE player_id = $1 RETURNING revision",
            )
            .bind(player_id)
            .bind(until_ms)
            .bind(now_ms)
            .fetch_optional(ex)
            .await?
        }),
        Update::AddXp(delta) => in_tx!(tx, |ex| {
            sqlx::query_scalar(
                "UPDATE player_progress SET revision = revision + 1, xp = xp + $2, updated_at = $3
                 WHERE player_id = $1 RETURNING revision",
            )
            .bind(player_id)
            .bind(delta)
            .bind(now_ms)
            .fetch_optional(ex)
            .await?
        }),
        Update::Touch => in_tx!(tx, |ex| {
            sqlx::query_scalar(
                "UPDATE player_progress SET revision = revision + 1 WHERE player_id = $1
                 RETURNING revision",
            )
            .bind(player_id)
            .fetch_optional(ex)
            .await?
        }),
    };
    let Some(revision) = revision else {
        return Ok(Written::NoRow);
    };
    let mut weekly = Vec::new();
    if let Update::Change(ResourceChange {
        weekly: Some(w), ..
    }) = update
    {
        for board in &w.boards {
            let Some((xp, last_earned_at)) = ledger::add_weekly_xp(
                tx,
                &w.week_start,
                board.as_str(),
                player_id,
                w.xp,
                w.earned_at,
            )
            .await?
            else {
                // hidden (a held player): on no board others see, so no rank to publish
                continue;
            };
            weekly.push(WeeklyTotal {
                board: board.to_string(),
                xp,
                last_earned_at,
            });
        }
    }
    Ok(Written::Recorded {
        revision: Revision(revision),
        weekly,
        fair_play: None,
    })
}

fn new_id() -> String {
    Uuid::new_v4().to_string()
}

fn ledger_entry<'a>(c: &'a ResourceChange, id: &'a str) -> LedgerEntry<'a> {
    LedgerEntry {
        id,
        player_id: &c.player_id,
        key: &c.key,
        source: &c.source,
        xp_delta: c.deltas.xp,
        hearts_delta: c.deltas.hearts,
        attempts_delta: c.deltas.attempts,
        coins_delta: c.deltas.coins,
        before: &c.before_snapshot,
        after: &c.after_snapshot,
        now_ms: c.at_ms,
    }
}

/// The guard of an answer's write: the progress row is stored only if it still carries
/// the revision the answer was judged on (`$42`). A stale row would get a NULL revision,
/// which its NOT NULL constraint refuses, so the whole write fails and nothing of it is
/// applied (see [`is_stale_guard`]).
macro_rules! save_progress_if_unchanged {
    () => {
        "UPDATE player_progress SET revision = CASE WHEN revision = $42 THEN revision + 1 END,
    hearts = $13, hearts_regen_from = $14, attempts_day = $15, attempts_used = $16,
    bonus_attempts = $17, xp = $18, daily_xp_day = $19, daily_xp = $20, streak_days = $21,
    streak_last_day = $22, streak_protected_until = $23, check_in_days = $24, updated_at = $12,
    skill = skill + $59, skill_answers = skill_answers + 1, review_xp = $62, review_hearts = $71
WHERE player_id = $3"
    };
}

/// The ledger row and the weekly XP of the answer's change, after the guard (`$from`
/// as in [`first_answer_rows`]). The weekly part returns the new totals.
macro_rules! change_rows {
    (ledger $from:literal) => {
        concat!(
            "INSERT INTO reward_ledger (id, player_id, idempotency_key, source, xp_delta, hearts_delta,
    attempts_delta, coins_delta, before_snapshot, after_snapshot, created_at)
SELECT $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38",
            $from
        )
    };
    // every player's board ($44) and the region's ($40, when the player has one); a row
    // of a held player is hidden as it is written ($49), whatever slipped before
    (weekly $from:literal) => {
        concat!(
            "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at, hidden_until)
SELECT $39, $44, $29, $32, $41, $49",
            $from,
            " WHERE $39 IS NOT NULL
UNION ALL
SELECT $39, $40, $29, $32, $41, $49",
            $from,
            " WHERE $39 IS NOT NULL AND $40 IS NOT NULL
ON CONFLICT (week_start, board, player_id)
DO UPDATE SET xp = weekly_xp.xp + excluded.xp, last_earned_at = excluded.last_earned_at,
    hidden_until = COALESCE(excluded.hidden_until, weekly_xp.hidden_until)
RETURNING board, xp, last_earned_at"
        )
    };
}

/// The answer's fair-play signals added to the player's week (`$50`, NULL without
/// signals: no row), as `services::fairplay` scores them: `$51` points, `$52`-`$54` the
/// signals' counts; the queue key as `domain::fairplay::queue_key` computes it (`$55`
/// the hold score, `$56` the flagged and `$57` the held key) from the row's new state
/// and score. It returns the row as a [`FAIR_PLAY_ROW`] line beside the weekly totals.
macro_rules! fair_play_row {
    ($from:literal) => {
        concat!(
            "INSERT INTO fairplay_players AS f (player_id, state, week_start, week_score, too_fast,
    impossible, fast_perfect, last_signal_at, queue_key)
SELECT $3, 'flagged', $50, $51, $52, $53, $54, $12,
    CASE WHEN $51 * 3 >= $55 THEN $56 + $51 ELSE 0 END",
            $from,
            " WHERE $50 IS NOT NULL
ON CONFLICT (player_id) DO UPDATE SET
    week_score = CASE WHEN f.week_start = excluded.week_start
                      THEN f.week_score + excluded.week_score ELSE excluded.week_score END,
    cleared_score = CASE WHEN f.week_start = excluded.week_start THEN f.cleared_score ELSE 0 END,
    week_start = excluded.week_start,
    too_fast = f.too_fast + excluded.too_fast,
    impossible = f.impossible + excluded.impossible,
    fast_perfect = f.fast_perfect + excluded.fast_perfect,
    last_signal_at = excluded.last_signal_at,
    state = CASE WHEN f.state IN ('cleared', 'banned') THEN 'flagged' ELSE f.state END,
    queue_key = CASE
        WHEN f.state = 'held' THEN $57 + CASE WHEN f.week_start = excluded.week_start
            THEN f.week_score + excluded.week_score ELSE excluded.week_score END
        WHEN f.state IN ('flagged', 'cleared', 'banned') AND 3 * CASE
            WHEN f.week_start = excluded.week_start THEN f.week_score + excluded.week_score
            ELSE excluded.week_score END >= $55
        THEN $56 + CASE WHEN f.week_start = excluded.week_start
            THEN f.week_score + excluded.week_score ELSE excluded.week_score END
        ELSE 0 END
RETURNING 'fairplay:' || state AS board, week_score AS xp, cleared_score AS last_earned_at"
        )
    };
}

/// What the answer taught (`domain::skill::learn`), after the guard: the player's skill
/// on the track (`$58`) moved by `$60` (the overall one, `$59`, is on the progress row),
/// as an addition. (A first answer's move of the question's difficulty is not written
/// here: its surprise goes on the answer row, `$61`, and the calibration job's fold
/// applies it, so the answers of a popular question do not queue on its row.)
macro_rules! learned_rows {
    (skill $from:literal) => {
        concat!(
            "INSERT INTO player_skills (player_id, track_id, skill, answers, updated_at)
SELECT $3, $58, $60, 1, $12",
            $from,
            " WHERE $58 IS NOT NULL
ON CONFLICT (player_id, track_id) DO UPDATE SET skill = player_skills.skill + excluded.skill,
    answers = player_skills.answers + 1, updated_at = excluded.updated_at"
        )
    };
}

/// The question's memory after the answer (`domain::memory`), after the guard: `$63`
/// stability, `$64` difficulty, `$65` reviews, `$66` lapses, `$67` right, `$68` due,
/// `$69` in the reviews from. Guarded like the progress row: an existing row must still
/// hold the review count the answer read (`$70`, NULL when it read none), else its
/// `reviews` would be NULL, which fails the write (see [`is_stale_guard`]). A row parked
/// while its question is unpublished (`db::review::PARKED_AT`) stays parked: an answer
/// in a challenge opened before the question was withdrawn does not bring it back.
macro_rules! memory_row {
    ($from:literal) => {
        concat!(
            "INSERT INTO review_memory (player_id, question_id, track_id, stability, difficulty,
    reviews, lapses, last_correct, last_answered_at, due_at, review_at)
SELECT $3, $4, $58, $63, $64, $65, $66, $67, $12, $68, $69",
            $from,
            " WHERE $65 IS NOT NULL
ON CONFLICT (question_id, player_id) DO UPDATE SET
    reviews = CASE WHEN review_memory.reviews = $70 THEN excluded.reviews END,
    stability = excluded.stability, difficulty = excluded.difficulty,
    lapses = excluded.lapses, last_correct = excluded.last_correct,
    last_answered_at = excluded.last_answered_at, due_at = excluded.due_at,
    review_at = CASE WHEN review_memory.review_at = ",
            parked_at!(),
            " THEN review_memory.review_at ELSE excluded.review_at END"
        )
    };
}

/// How the fair-play row returned by an answer's write is told from the weekly totals
/// (no board's key starts so): `fairplay:{state}`, the week's score as `xp` and the
/// cleared score as `last_earned_at`.
const FAIR_PLAY_ROW: &str = "fairplay:";

/// A part of an answer's statement, in it (`yes`) or left out (`no`).
macro_rules! part {
    (yes, $($text:tt)*) => { concat!($($text)*) };
    (no, $($text:tt)*) => { "" };
}

/// PostgreSQL: one autocommit statement, the writes as data-modifying CTEs, the weekly
/// upsert as its main part. Every part takes its row from the guard's result, so the
/// progress row is locked before anything else is written, as every other writer of
/// the player's resources does it: in another order, two answers of one player (or an
/// answer and a card view) can deadlock on the answer's and the weekly rows' keys.
///
/// In variants: the node completion only for a challenge's passing last answer, the
/// weekly upsert only for an answer that earns XP, the fair-play row only for an answer
/// with signals. A part that would write nothing still costs PostgreSQL its start-up
/// (its plan nodes, expressions and indexes: a quarter of the backends' time per answer
/// in a profile), so each answer runs the variant of what it writes; each is its own
/// prepared statement, still one round trip. All take the same arguments.
macro_rules! write_answer_pg {
    (node: $node:tt, weekly: $weekly:tt, fair_play: $fair_play:tt) => {
        concat!(
            crate::db::some_arguments_unused!(),
            "\nWITH saved_progress AS (",
            save_progress_if_unchanged!(),
            " RETURNING player_id), new_answer AS (",
            first_answer_rows!(answer " FROM saved_progress"),
            "), counted AS (",
            first_answer_rows!(session " FROM saved_progress"),
            part!($node, "), completed AS (", first_answer_rows!(node " FROM saved_progress")),
            "), ledger_row AS (",
            change_rows!(ledger " FROM saved_progress"),
            "), skill AS (",
            learned_rows!(skill " FROM saved_progress"),
            "), memory AS (",
            memory_row!(" FROM saved_progress"),
            part!($weekly, "), weekly AS (", change_rows!(weekly " FROM saved_progress")),
            part!($fair_play, "), fair_play AS (", fair_play_row!(" FROM saved_progress")),
            ")\n",
            answer_returns!($weekly, $fair_play)
        )
    };
}

/// What an answer's statement returns: the weekly totals and the fair-play row (as
/// [`FAIR_PLAY_ROW`]) it wrote, or no row of the same shape.
macro_rules! answer_returns {
    (no, no) => {
        "SELECT CAST(NULL AS TEXT) AS board, CAST(0 AS BIGINT) AS xp, CAST(0 AS BIGINT) AS last_earned_at WHERE false"
    };
    (yes, no) => { "SELECT board, xp, last_earned_at FROM weekly" };
    (no, yes) => { "SELECT board, xp, last_earned_at FROM fair_play" };
    (yes, yes) => {
        "SELECT board, xp, last_earned_at FROM weekly
UNION ALL SELECT board, xp, last_earned_at FROM fair_play"
    };
}

/// The eight variants of an answer's write built by `$write` (`write_answer_pg` or
/// `write_answer_sqlite`), indexed by `[node][weekly][fair_play]` (each 0 or 1).
macro_rules! answer_variants {
    ($write:ident) => {
        [
            [
                [
                    $write!(node: no, weekly: no, fair_play: no),
                    $write!(node: no, weekly: no, fair_play: yes),
                ],
                [
                    $write!(node: no, weekly: yes, fair_play: no),
                    $write!(node: no, weekly: yes, fair_play: yes),
                ],
            ],
            [
                [
                    $write!(node: yes, weekly: no, fair_play: no),
                    $write!(node: yes, weekly: no, fair_play: yes),
                ],
                [
                    $write!(node: yes, weekly: yes, fair_play: no),
                    $write!(node: yes, weekly: yes, fair_play: yes),
                ],
            ],
        ]
    };
}

/// PostgreSQL's variants.
const WRITE_ANSWER_PG: [[[&str; 2]; 2]; 2] = answer_variants!(write_answer_pg);

/// SQLite has no writing CTEs: the same writes as one transaction script (see
/// [`crate::db::SqliteDb::write_script`]), only the weekly and fair-play upserts
/// returning rows. In the same variants as PostgreSQL's: a statement that writes
/// nothing still opens its table's cursors and binds its arguments.
macro_rules! write_answer_sqlite {
    (node: $node:tt, weekly: $weekly:tt, fair_play: $fair_play:tt) => {
        concat!(
            "BEGIN IMMEDIATE;\n",
            crate::db::some_arguments_unused!(),
            "\n",
            save_progress_if_unchanged!(),
            ";\n",
            first_answer_rows!(answer ""),
            ";\n",
            first_answer_rows!(session ""),
            ";\n",
            part!($node, first_answer_rows!(node ""), ";\n"),
            change_rows!(ledger ""),
            ";\n",
            learned_rows!(skill ""),
            ";\n",
            memory_row!(""),
            ";\n",
            part!($weekly, change_rows!(weekly ""), ";\n"),
            part!($fair_play, fair_play_row!(""), ";\n"),
            "COMMIT"
        )
    };
}

/// SQLite's variants, indexed as [`WRITE_ANSWER_PG`].
const WRITE_ANSWER_SQLITE: [[[&str; 2]; 2]; 2] = answer_variants!(write_answer_sqlite);

/// A first answer, all or nothing, in one call to the database: the progress row, the
/// answer's rows, the ledger row and the weekly XP of the boards.
async fn write_answer(
    db: &Db,
    change: &ResourceChange,
    rows: &AnswerRows<'_>,
    revision: Revision,
) -> sqlx::Result<Written> {
    let (a, r) = (&rows.answer, &change.after);
    let ledger_id = new_id();
    let e = ledger_entry(change, &ledger_id);
    let weekly = change.weekly.as_ref();
    let region_board = weekly.and_then(|w| w.boards.iter().find(|b| !b.is_all_players()));
    let all_players = BoardKey::all_players();
    let fair_play = rows.fair_play;
    let learned = &rows.learned;
    let memory = &rows.memory;
    // Both texts take the same arguments, in this order.
    macro_rules! bound {
        ($query:expr) => {
            bind_ledger_entry!(
                bind_resources!(
                    $query
                        .bind(a.id)
                        .bind(a.session_id)
                        .bind(a.player_id)
                        .bind(a.question_id)
                        .bind(a.selected_option_id)
                        .bind(a.is_correct)
                        .bind(a.xp_delta)
                        .bind(a.hearts_delta)
                        .bind(a.time_ms)
                        .bind(a.combo_count)
                        .bind(a.submit_request_id)
                        .bind(a.now_ms),
                    r
                )
                .bind(i64::from(a.is_correct))
                .bind(rows.finished)
                .bind(rows.completed_node),
                e
            )
            .bind(weekly.map(|w| w.week_start.as_str()))
            .bind(region_board.map(BoardKey::as_str))
            .bind(weekly.map_or(0, |w| w.earned_at))
            .bind(revision.0)
            .bind(rows.answered_before)
            .bind(all_players.as_str())
            .bind(a.question_version)
            .bind(a.server_elapsed_ms)
            .bind(a.signals)
            .bind(i64::from(rows.fast_correct))
            .bind(rows.weekly_hidden_until)
            .bind(fair_play.map(|f| f.week.as_str()))
            .bind(fair_play.map_or(0, |f| f.added.score))
            .bind(fair_play.map_or(0, |f| f.added.too_fast))
            .bind(fair_play.map_or(0, |f| f.added.impossible))
            .bind(fair_play.map_or(0, |f| f.added.fast_perfect))
            .bind(fair_play.map_or(0, |f| f.hold_score))
            .bind(FLAGGED_KEY)
            .bind(HELD_KEY)
            .bind(learned.track_id)
            .bind(learned.overall_delta)
            .bind(learned.track_delta)
            .bind(learned.surprise)
            .bind(r.review_xp)
            .bind(memory.stability)
            .bind(memory.difficulty)
            .bind(memory.reviews)
            .bind(memory.lapses)
            .bind(memory.last_correct)
            .bind(memory.due_at)
            .bind(memory.review_at)
            .bind(rows.memory_read)
            .bind(r.review_hearts)
            .bind(learned.answer_skill)
            .bind(learned.guess_floor)
        };
    }
    let variant = |texts: &[[[&'static str; 2]; 2]; 2]| {
        texts[usize::from(rows.completed_node.is_some())][usize::from(weekly.is_some())]
            [usize::from(fair_play.is_some())]
    };
    let result = match db {
        Db::Sqlite(s) => s
            .write_script(bound!(sqlx::query(variant(&WRITE_ANSWER_SQLITE))))
            .await
            .and_then(|rows| rows.iter().map(sqlx::FromRow::from_row).collect()),
        Db::Postgres(p) => {
            bound!(sqlx::query_as::<_, WeeklyTotal>(variant(&WRITE_ANSWER_PG)))
                .fetch_all(&crate::db::Checked(p))
                .await
        }
    };
    match result {
        Ok(rows) => {
            let (fair_play, mut weekly): (Vec<WeeklyTotal>, Vec<WeeklyTotal>) = rows
                .into_iter()
                .partition(|t| t.board.starts_with(FAIR_PLAY_ROW));
            // every player's board first, as a write in a transaction reports them
            weekly.sort_by_key(|t| t.board != all_players.as_str());
            Ok(Written::Recorded {
                revision: revision.next(),
                weekly,
                fair_play: fair_play.into_iter().next().and_then(|f| {
                    Some(Scored {
                        state: FairPlayState::parse(f.board.get(FAIR_PLAY_ROW.len()..)?)?,
                        week_score: f.xp,
                        cleared_score: f.last_earned_at,
                    })
                }),
            })
        }
        Err(e) if is_stale_guard(&e) => Ok(Written::Stale),
        Err(e) if crate::db::is_unique_violation(&e) => Ok(Written::Duplicate),
        Err(e) => Err(e),
    }
}

/// Closes a session question at zero hearts, guarded like an answer: only if the
/// player's progress still carries `revision`, which the mark advances. So the mark and
/// an answer judged beside it (another option sent at the same time) are ordered:
/// whichever writes second was judged on a stale revision, writes nothing and is judged
/// again, and an answer judged after the mark sees it.
async fn mark_zero_heart_refusal(
    db: &Db,
    player_id: &PlayerId,
    revision: Revision,
    session_id: &ChallengeId,
    question_id: &QuestionId,
) -> sqlx::Result<Written> {
    // The stale guard of `save_progress_if_unchanged!`: a NULL revision fails the write.
    macro_rules! advance {
        () => {
            "UPDATE player_progress SET revision = CASE WHEN revision = $2 THEN revision + 1 END
    WHERE player_id = $1"
        };
    }
    macro_rules! mark {
        () => {
            "UPDATE challenge_session_questions SET zero_heart_refused = TRUE
    WHERE session_id = $3 AND question_id = $4"
        };
    }
    let result = match db {
        Db::Sqlite(s) => s
            .write_script(
                sqlx::query(concat!(
                    "BEGIN IMMEDIATE;\n",
                    advance!(),
                    ";\n",
                    mark!(),
                    ";\nCOMMIT"
                ))
                .bind(player_id)
                .bind(revision.0)
                .bind(session_id)
                .bind(question_id),
            )
            .await
            .map(drop),
        Db::Postgres(p) => sqlx::query(concat!(
            "WITH advanced AS (",
            advance!(),
            " RETURNING player_id) ",
            mark!(),
            " AND EXISTS (SELECT 1 FROM advanced)"
        ))
        .bind(player_id)
        .bind(revision.0)
        .bind(session_id)
        .bind(question_id)
        .execute(&crate::db::Checked(p))
        .await
        .map(drop),
    };
    match result {
        Ok(()) => Ok(Written::Recorded {
            revision: revision.next(),
            weekly: Vec::new(),
            fair_play: None,
        }),
        Err(e) if is_stale_guard(&e) => Ok(Written::Stale),
        Err(e) => Err(e),
    }
}
