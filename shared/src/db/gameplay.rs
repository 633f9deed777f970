//! Tracks, skill-tree nodes, challenge sessions, answers and knowledge cards as the game
//! reads and writes them.

use super::{Db, Tx, in_tx, read};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TrackRow {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub icon: String,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct NodeRow {
    pub id: String,
    pub category_id: String,
    pub title: String,
    pub sort_order: i64,
    pub questions_required: i64,
    pub pass_threshold: i64,
}

/// Active categories with at least one node, in order.
pub async fn tracks(db: &Db) -> sqlx::Result<Vec<TrackRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, TrackRow>(
            "SELECT c.id, c.name, c.slug, c.icon FROM categories c
             WHERE c.status = 'active' AND EXISTS (SELECT 1 FROM skill_nodes n WHERE n.category_id = c.id)
             ORDER BY c.sort_order, c.id",
        )
        .fetch_all(ex)
        .await?
    }))
}

/// One track by category id or slug.
pub async fn track(db: &Db, id_or_slug: &str) -> sqlx::Result<Option<TrackRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, TrackRow>(
            "SELECT c.id, c.name, c.slug, c.icon FROM categories c
             WHERE (c.id = $1 OR c.slug = $1) AND c.status = 'active'
               AND EXISTS (SELECT 1 FROM skill_nodes n WHERE n.category_id = c.id)
             ORDER BY CASE WHEN c.id = $1 THEN 0 ELSE 1 END
             LIMIT 1",
        )
        .bind(id_or_slug)
        .fetch_optional(ex)
        .await?
    }))
}

/// Every node of every active track, in track then node order.
pub async fn all_nodes(db: &Db) -> sqlx::Result<Vec<NodeRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, NodeRow>(
            "SELECT n.id, n.category_id, n.title, n.sort_order, n.questions_required, n.pass_threshold
             FROM skill_nodes n JOIN categories c ON c.id = n.category_id
             WHERE c.status = 'active'
             ORDER BY n.category_id, n.sort_order, n.id",
        )
        .fetch_all(ex)
        .await?
    }))
}

pub async fn nodes_of(db: &Db, track_id: &str) -> sqlx::Result<Vec<NodeRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, NodeRow>(
            "SELECT n.id, n.category_id, n.title, n.sort_order, n.questions_required, n.pass_threshold
             FROM skill_nodes n WHERE n.category_id = $1 ORDER BY n.sort_order, n.id",
        )
        .bind(track_id)
        .fetch_all(ex)
        .await?
    }))
}

/// Ids of the nodes a player has done.
pub async fn done_nodes(db: &Db, player_id: &str) -> sqlx::Result<Vec<String>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar("SELECT node_id FROM node_completions WHERE player_id = $1")
            .bind(player_id)
            .fetch_all(ex)
            .await?
    }))
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SessionRow {
    pub id: String,
    pub player_id: String,
    pub track_id: String,
    pub node_id: String,
    pub status: String,
}

/// The player's unfinished session on a node.
pub async fn unfinished_session(
    db: &Db,
    player_id: &str,
    node_id: &str,
) -> sqlx::Result<Option<SessionRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, SessionRow>(
            "SELECT id, player_id, track_id, node_id, status FROM challenge_sessions
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
    pub question_id: String,
    pub stem_text: String,
    /// JSON `[{id, text}]`.
    pub options: String,
    pub answered: bool,
}

/// A session's questions in order, with whether each was answered.
pub async fn session_questions(db: &Db, session_id: &str) -> sqlx::Result<Vec<SessionQuestionRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, SessionQuestionRow>(
            "SELECT sq.question_id, q.stem_text, sq.options,
                    EXISTS (SELECT 1 FROM challenge_answers a
                            WHERE a.session_id = sq.session_id AND a.question_id = sq.question_id) AS answered
             FROM challenge_session_questions sq JOIN questions q ON q.id = sq.question_id
             WHERE sq.session_id = $1 ORDER BY sq.position",
        )
        .bind(session_id)
        .fetch_all(ex)
        .await?
    }))
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PoolQuestion {
    pub id: String,
    pub stem_text: String,
    pub correct_answer: String,
    /// JSON array of strings.
    pub distractors: String,
}

/// Up to `n` published questions of a track's category and its sub-categories, those the
/// player has not answered correctly first, in random order otherwise.
pub async fn pick_questions(
    db: &Db,
    player_id: &str,
    track_id: &str,
    n: i64,
) -> sqlx::Result<Vec<PoolQuestion>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, PoolQuestion>(
            "WITH RECURSIVE subtree(id) AS (
                 SELECT id FROM categories WHERE id = $2
                 UNION SELECT c.id FROM categories c JOIN subtree s ON c.parent_id = s.id
                 WHERE c.status = 'active')
             SELECT q.id, q.stem_text, q.correct_answer, q.distractors FROM questions q
             WHERE q.category_id IN (SELECT id FROM subtree) AND q.status = 'published'
             ORDER BY CASE WHEN EXISTS (SELECT 1 FROM challenge_answers a
                                        WHERE a.player_id = $1 AND a.question_id = q.id AND a.is_correct)
                           THEN 1 ELSE 0 END,
                      random()
             LIMIT $3",
        )
        .bind(player_id)
        .bind(track_id)
        .bind(n)
        .fetch_all(ex)
        .await?
    }))
}

/// A session question to insert.
pub struct NewSessionQuestion {
    pub question_id: String,
    pub options_json: String,
    pub correct_option_id: String,
}

/// Creates a session with its questions; false (nothing written) when the player has an
/// unfinished session on the node already (a concurrent request made it).
pub async fn create_session(
    tx: &mut Tx,
    session: &SessionRow,
    questions: &[NewSessionQuestion],
    now_ms: i64,
) -> sqlx::Result<bool> {
    let created = in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO challenge_sessions (id, player_id, track_id, node_id, status, created_at)
             VALUES ($1, $2, $3, $4, 'pending', $5) ON CONFLICT DO NOTHING",
        )
        .bind(&session.id)
        .bind(&session.player_id)
        .bind(&session.track_id)
        .bind(&session.node_id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    });
    if !created {
        return Ok(false);
    }
    for (position, q) in questions.iter().enumerate() {
        in_tx!(tx, |ex| {
            sqlx::query(
                "INSERT INTO challenge_session_questions (session_id, position, question_id, options, correct_option_id)
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(&session.id)
            .bind(position as i64)
            .bind(&q.question_id)
            .bind(&q.options_json)
            .bind(&q.correct_option_id)
            .execute(ex)
            .await?
            .rows_affected()
        });
    }
    Ok(true)
}

/// What judging one answer needs, read inside the answer's transaction.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AnswerContext {
    pub player_id: String,
    pub status: String,
    pub attempt_consumed: bool,
    pub answered_count: i64,
    pub correct_count: i64,
    pub track_id: String,
    pub node_id: String,
    pub options: String,
    pub correct_option_id: String,
    pub total_questions: i64,
    pub pass_threshold: i64,
}

pub async fn answer_context(
    tx: &mut Tx,
    session_id: &str,
    question_id: &str,
) -> sqlx::Result<Option<AnswerContext>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, AnswerContext>(
            "SELECT s.player_id, s.status, s.attempt_consumed, s.answered_count, s.correct_count,
                    s.track_id, s.node_id, sq.options, sq.correct_option_id,
                    (SELECT count(*) FROM challenge_session_questions c WHERE c.session_id = s.id) AS total_questions,
                    COALESCE((SELECT n.pass_threshold FROM skill_nodes n WHERE n.id = s.node_id), 3) AS pass_threshold
             FROM challenge_sessions s
             JOIN challenge_session_questions sq ON sq.session_id = s.id AND sq.question_id = $2
             WHERE s.id = $1",
        )
        .bind(session_id)
        .bind(question_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Who owns a session (None when it does not exist).
pub async fn session_owner(tx: &mut Tx, session_id: &str) -> sqlx::Result<Option<String>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar("SELECT player_id FROM challenge_sessions WHERE id = $1")
            .bind(session_id)
            .fetch_optional(ex)
            .await?
    }))
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AnswerRow {
    pub session_id: String,
    pub question_id: String,
    pub is_correct: bool,
    pub xp_delta: i64,
}

/// A stored answer: by the player's submitRequestId when given, else by session and
/// question.
pub async fn existing_answer(
    tx: &mut Tx,
    player_id: &str,
    session_id: &str,
    question_id: &str,
    submit_request_id: Option<&str>,
) -> sqlx::Result<Option<AnswerRow>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, AnswerRow>(
            "SELECT session_id, question_id, is_correct, xp_delta FROM challenge_answers
             WHERE (player_id = $1 AND submit_request_id = $4)
                OR (player_id = $1 AND session_id = $2 AND question_id = $3)
             ORDER BY CASE WHEN submit_request_id = $4 THEN 0 ELSE 1 END
             LIMIT 1",
        )
        .bind(player_id)
        .bind(session_id)
        .bind(question_id)
        .bind(submit_request_id)
        .fetch_optional(ex)
        .await?
    }))
}

pub struct NewAnswer<'a> {
    pub id: &'a str,
    pub session_id: &'a str,
    pub player_id: &'a str,
    pub question_id: &'a str,
    pub selected_option_id: &'a str,
    pub is_correct: bool,
    pub xp_delta: i64,
    pub hearts_delta: i64,
    pub time_ms: i64,
    pub combo_count: i64,
    pub submit_request_id: Option<&'a str>,
    pub now_ms: i64,
}

/// Stores the answer; false when it exists (same question of the session, or the same
/// submitRequestId of the player).
pub async fn insert_answer(tx: &mut Tx, a: &NewAnswer<'_>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO challenge_answers (id, session_id, player_id, question_id, selected_option_id,
                 is_correct, xp_delta, hearts_delta, time_ms, combo_count, submit_request_id, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING",
        )
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
        .bind(a.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Counts an answer on its session: the attempt is marked consumed, the session moves
/// to in_progress, or finished with its last answer.
pub async fn record_answer_on_session(
    tx: &mut Tx,
    session_id: &str,
    correct: bool,
    finished: bool,
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE challenge_sessions SET answered_count = answered_count + 1,
                 correct_count = correct_count + $2, attempt_consumed = TRUE,
                 status = CASE WHEN $3 THEN 'finished' ELSE 'in_progress' END,
                 finished_at = CASE WHEN $3 THEN $4 ELSE finished_at END
             WHERE id = $1",
        )
        .bind(session_id)
        .bind(i64::from(correct))
        .bind(finished)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

pub async fn complete_node(
    tx: &mut Tx,
    player_id: &str,
    node_id: &str,
    now_ms: i64,
) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO node_completions (player_id, node_id, completed_at) VALUES ($1, $2, $3)
             ON CONFLICT (player_id, node_id) DO NOTHING",
        )
        .bind(player_id)
        .bind(node_id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

/// A question's card (or what a fallback card is built from).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CardSource {
    pub question_id: String,
    pub stem_text: String,
    pub correct_answer: String,
    pub category_name: String,
    pub card_id: Option<String>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub deep_dive: Option<String>,
}

pub async fn card_for_question(db: &Db, question_id: &str) -> sqlx::Result<Option<CardSource>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, CardSource>(
            "SELECT q.id AS question_id, q.stem_text, q.correct_answer, c.name AS category_name,
                    k.id AS card_id, k.title, k.summary, k.deep_dive
             FROM questions q JOIN categories c ON c.id = q.category_id
             LEFT JOIN knowledge_cards k ON k.question_id = q.id
             WHERE q.id = $1",
        )
        .bind(question_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Whether a knowledge card with this id exists.
pub async fn card_exists(db: &Db, card_id: &str) -> sqlx::Result<bool> {
    let n: i64 = read!(db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM knowledge_cards WHERE id = $1")
            .bind(card_id)
            .fetch_one(ex)
            .await?
    });
    Ok(n > 0)
}

/// Whether a question with this id exists.
pub async fn question_exists(db: &Db, question_id: &str) -> sqlx::Result<bool> {
    let n: i64 = read!(db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM questions WHERE id = $1")
            .bind(question_id)
            .fetch_one(ex)
            .await?
    });
    Ok(n > 0)
}
