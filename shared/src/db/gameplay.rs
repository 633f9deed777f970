//! Challenge sessions and what judging an answer reads (the earlier answer, the
//! session question, its card). A session serves each question at the version it was
//! made with (`challenge_session_questions.question_version`): its stem and card are
//! read from `question_versions`, never from the question's current row.

use super::cards::CardSource;
use super::progress::{PlayerProgress, ProgressRow, select_progress};
use super::review::{MemoryColumns, memory_columns};
use super::{Db, read};
use crate::domain::answer::{SessionKind, SessionStatus};
use crate::domain::memory::Memory;
use crate::domain::pick::Candidate;
use crate::domain::skill::Estimate;
use crate::ids::{CardId, ChallengeId, PlayerId, QuestionId, SubmitRequestId};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SessionRow {
    pub id: ChallengeId,
    pub player_id: PlayerId,
    pub track_id: String,
    pub node_id: String,
    pub status: SessionStatus,
    /// A review challenge (`domain::answer::SessionKind`).
    pub review: bool,
}

/// An unfinished session, with when it was last served (None: only when made).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct OpenSession {
    #[sqlx(flatten)]
    pub session: SessionRow,
    pub served_at: Option<i64>,
}

/// The player's unfinished session on a node (a review challenge's node is its scope,
/// `domain::answer::SessionKind::REVIEW_NODE`).
pub async fn unfinished_session(
    db: &Db,
    player_id: &PlayerId,
    node_id: &str,
) -> sqlx::Result<Option<OpenSession>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, OpenSession>(
            "SELECT id, player_id, track_id, node_id, status, kind = 'review' AS review,
                    COALESCE(served_at, created_at) AS served_at
             FROM challenge_sessions
             WHERE player_id = $1 AND node_id = $2 AND status IN ('pending', 'in_progress')",
        )
        .bind(player_id)
        .bind(node_id)
        .fetch_optional(ex)
        .await?
    }))
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SessionQuestionRow {
    pub question_id: QuestionId,
    pub stem_text: String,
    /// JSON `[{id, text}]`.
    pub options: String,
    pub answered: bool,
    #[sqlx(flatten)]
    pub media: MediaColumns,
}

/// The media a question version shows, with what the library knows of the file (the
/// file columns are null when it has none, or its file left the library).
#[derive(Clone, Debug, Default, sqlx::FromRow)]
pub struct MediaColumns {
    pub media_id: Option<String>,
    pub media_alt: Option<String>,
    pub media_mime: Option<String>,
    pub media_width: Option<i64>,
    pub media_height: Option<i64>,
    pub media_duration_ms: Option<i64>,
}

/// The [`MediaColumns`] of version `v` joined to `media m`.
macro_rules! version_media_columns {
    () => {
        "v.media_id, v.media_alt, m.mime AS media_mime, m.width AS media_width,
         m.height AS media_height, m.duration_ms AS media_duration_ms"
    };
}

/// A session's questions in order, each with the stem of the version it serves and
/// whether it was answered.
pub async fn session_questions(
    db: &Db,
    session_id: &ChallengeId,
) -> sqlx::Result<Vec<SessionQuestionRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, SessionQuestionRow>(
            concat!(
                "SELECT sq.question_id, v.stem_text, sq.options,
                    EXISTS (SELECT 1 FROM challenge_answers a
                            WHERE a.session_id = sq.session_id AND a.question_id = sq.question_id) AS answered, ",
                version_media_columns!(),
                " FROM challenge_session_questions sq
             JOIN question_versions v ON v.question_id = sq.question_id AND v.version = sq.question_version
             LEFT JOIN media m ON m.id = v.media_id
             WHERE sq.session_id = $1 ORDER BY sq.position"
            ),
        )
        .bind(session_id)
        .fetch_all(ex)
        .await?
    }))
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PoolQuestion {
    pub id: QuestionId,
    /// The version the content below is (read in the same row, so the session serves
    /// exactly what it shuffled).
    pub version: i64,
    pub stem_text: String,
    pub correct_answer: String,
    /// JSON array of strings.
    pub distractors: String,
    /// The version's median answer time, when its statistics have enough answers.
    pub median_ms: Option<i64>,
    /// The author's difficulty, 1-5.
    pub authored_difficulty: i64,
    /// The question's estimated difficulty and how many first answers moved it (no row:
    /// no answer yet, and the author's difficulty stands).
    pub estimated_difficulty: Option<f64>,
    pub difficulty_answers: Option<i64>,
    /// The version's card (what answers show), read in the same row; None only when
    /// the version's snapshot is missing.
    #[sqlx(flatten)]
    pub card: PoolCard,
    /// The player's memory of it (and their FSRS parameters).
    #[sqlx(flatten)]
    pub memory: MemoryColumns,
    /// The version's media.
    #[sqlx(flatten)]
    pub media: MediaColumns,
}

/// The card columns of a [`PoolQuestion`].
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PoolCard {
    pub versioned: bool,
    pub category_name: String,
    pub card_id: Option<CardId>,
    pub card_title: Option<String>,
    pub card_summary: Option<String>,
    pub card_deep_dive: Option<String>,
}

impl PoolQuestion {
    /// The question's difficulty as the answers to it have estimated it so far.
    pub fn difficulty(&self) -> Estimate {
        Estimate::stored_or_authored(
            self.estimated_difficulty,
            self.difficulty_answers,
            self.authored_difficulty,
        )
    }

    /// The card of the version read, as an answer shows it (None without its snapshot).
    pub fn card_source(&self) -> Option<CardSource> {
        let c = &self.card;
        c.versioned.then(|| CardSource {
            question_id: self.id.clone(),
            question_version: self.version,
            stem_text: self.stem_text.clone(),
            correct_answer: self.correct_answer.clone(),
            category_name: c.category_name.clone(),
            card_id: c.card_id.clone(),
            title: c.card_title.clone(),
            summary: c.card_summary.clone(),
            deep_dive: c.card_deep_dive.clone(),
        })
    }
}

#[derive(sqlx::FromRow)]
struct CandidateRow {
    id: QuestionId,
    pick_key: i64,
    /// Whether the player's best answer to it was right; none when never answered.
    best_answer: Option<bool>,
    authored_difficulty: i64,
    pick_difficulty: Option<f64>,
    option_count: Option<i32>,
    calibrated: bool,
    track_skill: Option<f64>,
    track_skill_answers: Option<i64>,
}

/// Options a candidate is taken to offer while its row has no count (a row the
/// release before the pick's index carried it wrote, until an edit or the backfill).
const OPTIONS_UNKNOWN: usize = 4;

/// A candidate of a pick as read: what the pick's rule needs, and what predicting the
/// player's success on it needs.
pub struct PickCandidate {
    pub candidate: Candidate<QuestionId>,
    /// The difficulty b the pick reads: the calibration job's (Elo's folds, or a fit's
    /// where it replaced them), or the author's 1-5 mapped while no answer moved it.
    pub difficulty: f64,
    /// The options it offers (its guessing floor is one over them).
    pub options: usize,
    /// The player's skill on the track the pick is for, read in the same statement
    /// (the same on every candidate).
    pub track_skill: Estimate,
}

/// The statement of [`pick_candidates`] for a window of `window` (clamped to
/// 1-10,000): $1 the player, $2 the category, $3 the start key, $4 the track.
pub fn pick_candidates_sql(window: i64) -> String {
    // The window is a number of this code's, written into the text: SQLite prepares a
    // statement again on every run when its LIMIT is a bound parameter (the bundled
    // 3.51 reads a bound LIMIT while planning; measured, half a million instructions a
    // pick).
    let window = window.clamp(1, 10_000);
    with_answer_and_skill(&nearest_keys(
        "WHERE q.category_id = $2 AND q.status = 'published'",
        window,
    ))
}

/// The `limit` questions of `questions q` matching `filter` whose keys come first from
/// the start key $3 going up (wrapping round to the smallest): two range scans of at
/// most `limit` entries each, on an index that leads with the filter's columns then
/// the key.
fn nearest_keys(filter: &str, limit: i64) -> String {
    let side = format!(
        "SELECT q.id, q.pick_key, q.difficulty, q.pick_difficulty, q.option_count,
                q.calibrated
         FROM questions q
         {filter} AND q.pick_key"
    );
    format!(
        "SELECT c.* FROM (
             SELECT * FROM ({side} >= $3 ORDER BY q.pick_key LIMIT {limit}) AS from_start
             UNION ALL
             SELECT * FROM ({side} < $3 ORDER BY q.pick_key LIMIT {limit}) AS wrapped
         ) AS c
         ORDER BY CASE WHEN c.pick_key >= $3 THEN 0 ELSE 1 END, c.pick_key
         LIMIT {limit}"
    )
}

/// The candidate rows of `read` (questions as [`nearest_keys`] reads them), each with the
/// player's ($1) best answer to it and their skill on the track ($4).
fn with_answer_and_skill(read: &str) -> String {
    format!(
        "SELECT w.id, w.pick_key,
                (SELECT a.is_correct FROM challenge_answers a
                 WHERE a.player_id = $1 AND a.question_id = w.id
                 ORDER BY a.is_correct DESC LIMIT 1) AS best_answer,
                w.difficulty AS authored_difficulty, w.pick_difficulty, w.option_count,
                w.calibrated, ps.skill AS track_skill, ps.answers AS track_skill_answers
         FROM ({read}) AS w
         LEFT JOIN player_skills ps ON ps.player_id = $1 AND ps.track_id = $4"
    )
}

/// The candidates of a pick in one category ([`crate::domain::pick`]), by question id:
/// the `window` published questions nearest `start` going up the keys (wrapping round
/// to the smallest key), each with whether the player has answered it (at all, and
/// correctly), its difficulty, options and whether a fit calibrated it. Two index-only
/// range scans of at most `window` entries (`questions_pick_covering` carries the
/// difficulty, the options and the calibration, so no candidate's row is read) and at
/// most `window` index-only probes of the player's answers
/// (`challenge_answers_player_question`), whatever the pool's size and however many
/// answers the player has. The answers are read by one scalar subquery (the first entry
/// of the index from the right end: a right answer if there is one): as two `EXISTS`,
/// PostgreSQL's generic plan of the prepared statement hashed every answer of the player
/// instead (measured: 18k buffers a pick for a player of 10k answers); as a `MAX`, it
/// read every answer of the player to each question.
pub async fn pick_candidates(
    db: &Db,
    player_id: &PlayerId,
    track_id: &str,
    category_id: &str,
    start: i64,
    window: i64,
) -> sqlx::Result<Vec<PickCandidate>> {
    let rows = read!(db, |ex| {
        sqlx::query_as::<_, CandidateRow>(sqlx::AssertSqlSafe(pick_candidates_sql(window)))
            .bind(player_id)
            .bind(category_id)
            .bind(start)
            .bind(track_id)
            .fetch_all(ex)
            .await?
    });
    Ok(rows.into_iter().map(PickCandidate::from).collect())
}

impl From<CandidateRow> for PickCandidate {
    fn from(r: CandidateRow) -> Self {
        PickCandidate {
            difficulty: Estimate::stored_or_authored(
                r.pick_difficulty,
                None,
                r.authored_difficulty,
            )
            .value,
            options: r
                .option_count
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(OPTIONS_UNKNOWN),
            track_skill: match r.track_skill {
                Some(value) => Estimate {
                    value,
                    answers: r.track_skill_answers.unwrap_or(0),
                },
                None => Estimate::NEW_PLAYER,
            },
            candidate: Candidate {
                question: r.id,
                key: r.pick_key,
                answered: r.best_answer.is_some(),
                answered_correctly: r.best_answer == Some(true),
                // predicted by the caller, who knows the player's skill
                success: 0.0,
                calibrated: r.calibrated,
            },
        }
    }
}

/// The statement of [`pick_near_candidates`] for `bands` bands of `per_band` questions
/// each (both clamped to 1-100): $1 the player, $2 the category, $3 the start key, $4 the
/// track, $5 the lowest band.
pub fn pick_near_candidates_sql(bands: i32, per_band: usize) -> String {
    let bands = bands.clamp(1, 100);
    let per_band = i64::try_from(per_band.clamp(1, 100)).unwrap_or(1);
    let near = (0..bands)
        .map(|k| {
            let band = nearest_keys(
                &format!(
                    "WHERE q.category_id = $2 AND q.status = 'published' \
                     AND q.pick_band = $5 + {k}"
                ),
                per_band,
            );
            format!("SELECT * FROM ({band}) AS band_{k}")
        })
        .collect::<Vec<_>>()
        .join("\n UNION ALL ");
    with_answer_and_skill(&near)
}

/// The adaptive pick's second read in a category ([`crate::domain::pick`]): in each band
/// of difficulty of `bands` (`questions.pick_band`), the `per_band` published questions
/// nearest `start` going up the keys (wrapping round), read as [`pick_candidates`] reads
/// its window. Two index-only range scans of at most `per_band` entries per band
/// (`questions_pick_band` leads with the band, then the key, and carries the rest) and
/// one index-only probe of the player's answers per question read.
pub async fn pick_near_candidates(
    db: &Db,
    player_id: &PlayerId,
    track_id: &str,
    category_id: &str,
    start: i64,
    bands: std::ops::RangeInclusive<i32>,
    per_band: usize,
) -> sqlx::Result<Vec<PickCandidate>> {
    let lowest = *bands.start();
    let count = bands.end().saturating_sub(lowest).saturating_add(1);
    if count < 1 {
        return Ok(Vec::new());
    }
    let rows = read!(db, |ex| {
        sqlx::query_as::<_, CandidateRow>(sqlx::AssertSqlSafe(pick_near_candidates_sql(
            count, per_band,
        )))
        .bind(player_id)
        .bind(category_id)
        .bind(start)
        .bind(track_id)
        .bind(lowest)
        .fetch_all(ex)
        .await?
    });
    Ok(rows.into_iter().map(PickCandidate::from).collect())
}

/// The picked questions, in the order of `ids`, each with its version's pace (the
/// too-fast bar's median of server-measured times) when at least `pace_min_players`
/// players made it (a primary-key probe each).
pub async fn pool_questions(
    db: &Db,
    player_id: &PlayerId,
    ids: &[QuestionId],
    pace_min_players: i64,
) -> sqlx::Result<Vec<PoolQuestion>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders = (3..ids.len() + 3)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut rows = read!(db, |ex| {
        let mut q = sqlx::query_as::<_, PoolQuestion>(sqlx::AssertSqlSafe(format!(
            "SELECT q.id, q.version, q.stem_text, q.correct_answer, q.distractors,
                    CASE WHEN s.pace_players >= $1 THEN s.pace_ms END AS median_ms,
                    q.difficulty AS authored_difficulty, d.difficulty AS estimated_difficulty,
                    d.answers AS difficulty_answers,
                    v.question_id IS NOT NULL AND c.id IS NOT NULL AS versioned,
                    COALESCE(c.name, '') AS category_name,
                    v.card_id, v.card_title, v.card_summary, v.card_deep_dive, {memory},
                    {media}
             FROM questions q
             LEFT JOIN categories c ON c.id = q.category_id
             LEFT JOIN review_memory rm ON rm.player_id = $2 AND rm.question_id = q.id
             LEFT JOIN review_parameters rp ON rp.player_id = $2
             LEFT JOIN question_versions v ON v.question_id = q.id AND v.version = q.version
             LEFT JOIN question_stats s ON s.question_id = q.id AND s.version = q.version
             LEFT JOIN question_difficulty d ON d.question_id = q.id
             LEFT JOIN media m ON m.id = v.media_id
             WHERE q.id IN ({placeholders})",
            memory = memory_columns!(),
            media = version_media_columns!()
        )))
        .bind(pace_min_players)
        .bind(player_id);
        for id in ids {
            q = q.bind(id.as_str());
        }
        q.fetch_all(ex).await?
    });
    rows.sort_by_key(|r| ids.iter().position(|id| *id == r.id));
    Ok(rows)
}

/// A session question to insert.
pub struct NewSessionQuestion {
    pub question_id: QuestionId,
    /// The stem of that version (not stored with the session: its answer is built from
    /// it).
    pub stem_text: String,
    /// The version the options were made from, which the session serves.
    pub question_version: i64,
    pub options_json: String,
    pub correct_option_id: String,
    /// The version's median answer time when the session was made (fair play).
    pub median_ms: Option<i64>,
    /// The question's difficulty when the session was made (its answer's prediction).
    pub difficulty: Estimate,
    /// The player had never answered the question: its answer moves the difficulty.
    pub first_answer: bool,
    /// The player's memory of it when the session was made (not stored with the
    /// session: the answer's read joins the row, the answer memory keeps this).
    pub memory: Option<Memory>,
    /// The track whose skill its answer moves when not the session's (a review's
    /// question of another track).
    pub track_id: Option<String>,
    /// The version's media (not stored with the session: served from the version).
    pub media: MediaColumns,
}

/// Creates a session with its questions in one call to the database (PostgreSQL one
/// statement, SQLite one transaction script); false (nothing written) when the player
/// has an unfinished session on the node already (a concurrent request made it: the
/// session's insert does nothing, and its questions are written only beside a session
/// that was).
pub async fn create_session(
    db: &Db,
    session: &SessionRow,
    questions: &[NewSessionQuestion],
    now_ms: i64,
) -> sqlx::Result<bool> {
    const SESSION: &str =
        "INSERT INTO challenge_sessions (id, player_id, track_id, node_id, status,
                                        created_at, served_at, kind)
         VALUES ($1, $2, $3, $4, 'pending', $5, $5, $6) ON CONFLICT DO NOTHING";
    // one row per question, its values bound from $7 on; `position` is the list's own
    // index (a number this code makes, never input)
    let rows = |from: &str| {
        questions
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let p = 7 + 8 * i;
                format!(
                    "SELECT $1, {i}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${} {from}",
                    p,
                    p + 1,
                    p + 2,
                    p + 3,
                    p + 4,
                    p + 5,
                    p + 6,
                    p + 7
                )
            })
            .collect::<Vec<_>>()
            .join(" UNION ALL ")
    };
    const QUESTIONS: &str = "INSERT INTO challenge_session_questions (session_id, position,
             question_id, options, correct_option_id, question_version, median_ms, difficulty,
             difficulty_answers, first_answer)";
    let sql = match db {
        Db::Postgres(_) => format!(
            "WITH made AS ({SESSION} RETURNING id) {QUESTIONS} {} RETURNING position",
            rows("FROM made")
        ),
        Db::Sqlite(_) => format!(
            "BEGIN IMMEDIATE; {SESSION}; {QUESTIONS} {} RETURNING position; COMMIT",
            rows("WHERE EXISTS (SELECT 1 FROM challenge_sessions WHERE id = $1)")
        ),
    };
    macro_rules! bound {
        ($query:expr) => {{
            let mut q = $query
                .bind(&session.id)
                .bind(&session.player_id)
                .bind(&session.track_id)
                .bind(&session.node_id)
                .bind(now_ms)
                .bind(SessionKind::of(session.review).as_str());
            for question in questions {
                q = q
                    .bind(&question.question_id)
                    .bind(&question.options_json)
                    .bind(&question.correct_option_id)
                    .bind(question.question_version)
                    .bind(question.median_ms)
                    .bind(question.difficulty.value)
                    .bind(question.difficulty.answers)
                    .bind(question.first_answer);
            }
            q
        }};
    }
    let written = match db {
        Db::Postgres(p) => bound!(sqlx::query(sqlx::AssertSqlSafe(sql)))
            .fetch_all(&crate::db::Checked(p))
            .await?
            .len(),
        Db::Sqlite(s) => s
            .write_script(bound!(sqlx::query(sqlx::AssertSqlSafe(sql))))
            .await?
            .len(),
    };
    Ok(written > 0)
}

/// Marks a session served again now (the server's answer times run from then): one
/// statement.
pub async fn mark_served(db: &Db, session_id: &ChallengeId, now_ms: i64) -> sqlx::Result<()> {
    macro_rules! update {
        () => {
            "UPDATE challenge_sessions SET served_at = $2
             WHERE id = $1 AND status IN ('pending', 'in_progress')"
        };
    }
    match db {
        Db::Postgres(p) => sqlx::query(update!())
            .bind(session_id)
            .bind(now_ms)
            .execute(&crate::db::Checked(p))
            .await
            .map(drop),
        Db::Sqlite(s) => s
            .write_script(
                sqlx::query(concat!("BEGIN IMMEDIATE; ", update!(), "; COMMIT"))
                    .bind(session_id)
                    .bind(now_ms),
            )
            .await
            .map(drop),
    }
}

/// What judging one answer needs, read inside the answer's transaction.
#[derive(Clone, Debug)]
pub struct AnswerContext {
    pub player_id: PlayerId,
    pub status: SessionStatus,
    pub attempt_consumed: bool,
    pub answered_count: i64,
    pub correct_count: i64,
    /// The track whose skill the answer moves: the session's, or for a review
    /// question the track it was first answered on (a review may span tracks).
    pub track_id: String,
    pub node_id: String,
    pub options: String,
    pub correct_option_id: String,
    /// The version of the question the session serves (its answer records it).
    pub question_version: i64,
    pub total_questions: i64,
    pub pass_threshold: i64,
    /// A wrong answer to this question was refused for zero hearts: until the player
    /// has a heart again, every answer to it is refused.
    pub zero_heart_refused: bool,
    /// When the session was (last) served, and its last answer: the server's time of
    /// this answer runs from the later.
    pub served_at: i64,
    pub last_answered_at: Option<i64>,
    /// When the session was made (first served).
    pub created_at: i64,
    /// The session's right answers so far that were too fast.
    pub fast_correct_count: i64,
    /// The question's median answer time when the session was made.
    pub median_ms: Option<i64>,
    /// The player's skill on the session's track, before this answer.
    pub track_skill: Estimate,
    /// The question's difficulty when the session was made.
    pub difficulty: Estimate,
    /// The player's first answer to the question (it moves the difficulty).
    pub first_answer: bool,
    /// The card of the question's served version, or what a fallback card is built
    /// from (None only when that version or its category is missing).
    pub card: Option<CardSource>,
    /// A review challenge's question (no heart, no attempt, review XP).
    pub review: bool,
    /// The player's memory of the question before this answer (None: never answered).
    pub memory: Option<Memory>,
    /// The player's own FSRS parameters (JSON), when fitted.
    pub memory_parameters: Option<String>,
}

/// The player's earlier answer (if any) and the context of the question answered.
#[derive(Clone, Debug)]
pub struct AnswerLookup {
    /// The stored answer: by the player's submitRequestId when given, else by session
    /// and question.
    pub existing: Option<AnswerRow>,
    /// None when the session has no such question (or there is no such session).
    pub context: Option<AnswerContext>,
}

/// One row of [`answer_context`]: every column may be NULL, since both parts are outer
/// joined to a one-row source.
#[derive(sqlx::FromRow)]
struct LookupRow {
    existing_session_id: Option<ChallengeId>,
    existing_question_id: Option<QuestionId>,
    existing_is_correct: Option<bool>,
    existing_xp_delta: Option<i64>,
    existing_question_version: Option<i64>,
    player_id: Option<PlayerId>,
    status: Option<SessionStatus>,
    attempt_consumed: Option<bool>,
    answered_count: Option<i64>,
    correct_count: Option<i64>,
    track_id: Option<String>,
    node_id: Option<String>,
    options: Option<String>,
    correct_option_id: Option<String>,
    question_version: Option<i64>,
    total_questions: Option<i64>,
    pass_threshold: Option<i64>,
    zero_heart_refused: Option<bool>,
    served_at: Option<i64>,
    last_answered_at: Option<i64>,
    session_created_at: Option<i64>,
    fast_correct_count: Option<i64>,
    median_ms: Option<i64>,
    track_skill: Option<f64>,
    track_skill_answers: Option<i64>,
    difficulty: Option<f64>,
    difficulty_answers: Option<i64>,
    first_answer: Option<bool>,
    stem_text: Option<String>,
    correct_answer: Option<String>,
    category_name: Option<String>,
    card_id: Option<CardId>,
    card_title: Option<String>,
    card_summary: Option<String>,
    card_deep_dive: Option<String>,
    session_kind: Option<String>,
    #[sqlx(flatten)]
    memory: MemoryColumns,
}

/// The earlier answer and the session question's context with its card: `$1` player,
/// `$2` session, `$3` question, `$4` submitRequestId. One row, every column nullable
/// (both parts are outer joined to a one-row source). The stem, answer and card are
/// those of the version the session serves: one primary-key lookup of
/// `question_versions` (and the category's name), not the question's row and its card.
/// A review question's skill is the player's on the track the question was first
/// answered on (a review may span tracks).
macro_rules! select_answer_lookup {
    () => {
        concat!("SELECT e.session_id AS existing_session_id, e.question_id AS existing_question_id,
                    e.is_correct AS existing_is_correct, e.xp_delta AS existing_xp_delta,
                    e.question_version AS existing_question_version,
                    c.player_id, c.status, c.attempt_consumed, c.answered_count, c.correct_count,
                    c.track_id, c.node_id, c.options, c.correct_option_id, c.question_version,
                    c.total_questions,
                    c.pass_threshold, c.zero_heart_refused, c.served_at, c.last_answered_at,
                    c.session_created_at, c.fast_correct_count, c.median_ms, c.track_skill,
                    c.track_skill_answers, c.difficulty, c.difficulty_answers, c.first_answer, c.stem_text, c.correct_answer, c.category_name, c.card_id,
                    c.card_title, c.card_summary, c.card_deep_dive, c.session_kind,
                    c.memory_stability, c.memory_difficulty, c.memory_reviews, c.memory_lapses,
                    c.memory_last_correct, c.memory_answered_at, c.memory_due_at,
                    c.memory_review_at, c.memory_parameters
             FROM (SELECT 1 AS one) o
             LEFT JOIN (
                 SELECT session_id, question_id, is_correct, xp_delta, question_version
                 FROM challenge_answers
                 WHERE (player_id = $1 AND submit_request_id = $4)
                    OR (player_id = $1 AND session_id = $2 AND question_id = $3)
                 ORDER BY CASE WHEN submit_request_id = $4 THEN 0 ELSE 1 END
                 LIMIT 1
             ) e ON TRUE
             LEFT JOIN (
                 SELECT s.player_id, s.status, s.attempt_consumed, s.answered_count, s.correct_count,
                        CASE WHEN s.kind = 'review' THEN COALESCE(rm.track_id, s.track_id)
                             ELSE s.track_id END AS track_id,
                        s.node_id, sq.options, sq.correct_option_id, sq.zero_heart_refused,
                        sq.question_version, COALESCE(s.served_at, s.created_at) AS served_at,
                        s.last_answered_at, s.created_at AS session_created_at,
                        s.fast_correct_count, sq.median_ms, ps.skill AS track_skill,
                        ps.answers AS track_skill_answers, sq.difficulty, sq.difficulty_answers,
                        sq.first_answer,
                        (SELECT count(*) FROM challenge_session_questions t WHERE t.session_id = s.id) AS total_questions,
                        COALESCE((SELECT n.pass_threshold FROM skill_nodes n WHERE n.id = s.node_id), 3) AS pass_threshold,
                        v.stem_text, v.correct_answer, cat.name AS category_name, v.card_id,
                        v.card_title, v.card_summary, v.card_deep_dive, s.kind AS session_kind, ",
                        memory_columns!(), "
                 FROM challenge_sessions s
                 JOIN challenge_session_questions sq ON sq.session_id = s.id AND sq.question_id = $3
                 LEFT JOIN review_memory rm ON rm.player_id = $1 AND rm.question_id = $3
                 LEFT JOIN player_skills ps ON ps.player_id = $1 AND ps.track_id =
                        CASE WHEN s.kind = 'review' THEN COALESCE(rm.track_id, s.track_id)
                             ELSE s.track_id END
                 LEFT JOIN review_parameters rp ON rp.player_id = $1
                 LEFT JOIN question_versions v
                        ON v.question_id = sq.question_id AND v.version = sq.question_version
                 LEFT JOIN categories cat ON cat.id = v.category_id
                 WHERE s.id = $2
                 LIMIT 1
             ) c ON TRUE")
    };
}

/// The player's stored answer (by submitRequestId first, else by session and question)
/// and the session question's context with its card, in one read.
pub async fn answer_context(
    db: &Db,
    player_id: &PlayerId,
    session_id: &ChallengeId,
    question_id: &QuestionId,
    submit_request_id: Option<&SubmitRequestId>,
) -> sqlx::Result<AnswerLookup> {
    let row = read!(db, |ex| {
        sqlx::query_as::<_, LookupRow>(select_answer_lookup!())
            .bind(player_id)
            .bind(session_id)
            .bind(question_id)
            .bind(submit_request_id)
            .fetch_one(ex)
            .await?
    });
    Ok(lookup_of(row, question_id))
}

/// The player's progress row (with its revision) and [`answer_context`], in one read:
/// what judging an answer needs. `None` when the player is deleted or unknown.
pub async fn progress_with_answer_context(
    db: &Db,
    player_id: &PlayerId,
    session_id: &ChallengeId,
    question_id: &QuestionId,
    submit_request_id: Option<&SubmitRequestId>,
) -> sqlx::Result<Option<(PlayerProgress, AnswerLookup)>> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        progress: ProgressRow,
        #[sqlx(flatten)]
        lookup: LookupRow,
    }
    let row = read!(db, |ex| {
        sqlx::query_as::<_, Row>(concat!(
            "SELECT * FROM (",
            select_progress!(),
            " AND p.deleted_at IS NULL) g CROSS JOIN (",
            select_answer_lookup!(),
            ") x"
        ))
        .bind(player_id)
        .bind(session_id)
        .bind(question_id)
        .bind(submit_request_id)
        .fetch_optional(ex)
        .await?
    });
    Ok(row.map(|r| (r.progress.into(), lookup_of(r.lookup, question_id))))
}

fn lookup_of(row: LookupRow, question_id: &QuestionId) -> AnswerLookup {
    let existing = match (
        row.existing_session_id,
        row.existing_question_id,
        row.existing_is_correct,
        row.existing_xp_delta,
        row.existing_question_version,
    ) {
        (
            Some(session_id),
            Some(question_id),
            Some(is_correct),
            Some(xp_delta),
            Some(question_version),
        ) => Some(AnswerRow {
            session_id,
            question_id,
            is_correct,
            xp_delta,
            question_version,
        }),
        _ => None,
    };
    let card = match (
        row.stem_text,
        row.correct_answer,
        row.category_name,
        row.question_version,
    ) {
        (Some(stem_text), Some(correct_answer), Some(category_name), Some(question_version)) => {
            Some(CardSource {
                question_id: question_id.clone(),
                question_version,
                stem_text,
                correct_answer,
                category_name,
                card_id: row.card_id,
                title: row.card_title,
                summary: row.card_summary,
                deep_dive: row.card_deep_dive,
            })
        }
        _ => None,
    };
    let context = match (
        row.player_id,
        row.status,
        row.attempt_consumed,
        row.answered_count,
        row.correct_count,
        row.track_id,
        row.node_id,
        row.options,
        row.correct_option_id,
        row.question_version,
        row.total_questions,
        row.pass_threshold,
        row.zero_heart_refused,
        row.served_at,
        row.session_created_at,
        row.fast_correct_count,
    ) {
        (
            Some(player_id),
            Some(status),
            Some(attempt_consumed),
            Some(answered_count),
            Some(correct_count),
            Some(track_id),
            Some(node_id),
            Some(options),
            Some(correct_option_id),
            Some(question_version),
            Some(total_questions),
            Some(pass_threshold),
            Some(zero_heart_refused),
            Some(served_at),
            Some(created_at),
            Some(fast_correct_count),
        ) => Some(AnswerContext {
            player_id,
            status,
            attempt_consumed,
            answered_count,
            correct_count,
            track_id,
            node_id,
            options,
            correct_option_id,
            question_version,
            total_questions,
            pass_threshold,
            zero_heart_refused,
            served_at,
            last_answered_at: row.last_answered_at,
            created_at,
            fast_correct_count,
            median_ms: row.median_ms,
            track_skill: match row.track_skill {
                Some(value) => Estimate {
                    value,
                    answers: row.track_skill_answers.unwrap_or(0),
                },
                None => Estimate::NEW_PLAYER,
            },
            // a session made before difficulties were kept predicts from the middle
            difficulty: Estimate {
                value: row.difficulty.unwrap_or(0.0),
                answers: row.difficulty_answers.unwrap_or(0),
            },
            first_answer: row.first_answer.unwrap_or(false),
            card,
            review: row.session_kind.as_deref() == Some(SessionKind::Review.as_str()),
            memory: row.memory.memory(),
            memory_parameters: row.memory.memory_parameters,
        }),
        _ => None,
    };
    AnswerLookup { existing, context }
}

/// Who owns a session (None when it does not exist).
pub async fn session_owner(db: &Db, session_id: &ChallengeId) -> sqlx::Result<Option<PlayerId>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT player_id FROM challenge_sessions WHERE id = $1")
            .bind(session_id)
            .fetch_optional(ex)
            .await?
    }))
}

#[derive(Clone, Debug)]
pub struct AnswerRow {
    pub session_id: ChallengeId,
    pub question_id: QuestionId,
    pub is_correct: bool,
    pub xp_delta: i64,
    /// The version of the question it was judged on.
    pub question_version: i64,
}
