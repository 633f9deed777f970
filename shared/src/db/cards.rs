//! Knowledge cards as players see them: the card of the question version a challenge
//! served (or what a fallback card is built from), and whether a card was shown to a
//! player (only those pay).

use super::{Db, read};
use crate::ids::{CardId, PlayerId, QuestionId};

/// The card of one version of a question (or what a fallback card is built from).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CardSource {
    pub question_id: QuestionId,
    pub question_version: i64,
    pub stem_text: String,
    pub correct_answer: String,
    pub category_name: String,
    pub card_id: Option<CardId>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub deep_dive: Option<String>,
}

/// The card of version `version` of a question, as a challenge serving that version
/// shows it.
pub async fn card_for_question(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Option<CardSource>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, CardSource>(
            "SELECT v.question_id, v.version AS question_version, v.stem_text, v.correct_answer,
                    c.name AS category_name, v.card_id, v.card_title AS title,
                    v.card_summary AS summary, v.card_deep_dive AS deep_dive
             FROM question_versions v JOIN categories c ON c.id = v.category_id
             WHERE v.question_id = $1 AND v.version = $2",
        )
        .bind(question_id)
        .bind(version)
        .fetch_optional(ex)
        .await?
    }))
}

/// Whether the question `q` (an expression) was shown to player `$1`: they answered it,
/// or it is in one of their unfinished challenges (every question of a finished one
/// has its answer). Index lookups only: the player's answers by question, and their
/// few unfinished sessions.
macro_rules! shown_to_player {
    ($q:literal) => {
        concat!(
            "(EXISTS (SELECT 1 FROM challenge_answers a WHERE a.player_id = $1 AND a.question_id = ",
            $q,
            ") OR EXISTS (SELECT 1 FROM challenge_sessions s
                 JOIN challenge_session_questions sq ON sq.session_id = s.id
                 WHERE s.player_id = $1 AND s.status IN ('pending', 'in_progress')
                   AND sq.question_id = ",
            $q,
            "))"
        )
    };
}

/// Whether knowledge card `card_id` was shown to the player: the card of a question of
/// one of their challenges.
pub async fn card_shown(db: &Db, player_id: &PlayerId, card_id: &CardId) -> sqlx::Result<bool> {
    let shown: i64 = read!(db, |ex| {
        sqlx::query_scalar(concat!(
            "SELECT count(*) FROM knowledge_cards k WHERE k.id = $2 AND ",
            shown_to_player!("k.question_id")
        ))
        .bind(player_id)
        .bind(card_id)
        .fetch_one(ex)
        .await?
    });
    Ok(shown > 0)
}

/// Whether `fallback-{question_id}` was shown to the player: the question has no card
/// of its own (else that card stands for it) and is one of their challenges'.
pub async fn fallback_card_shown(
    db: &Db,
    player_id: &PlayerId,
    question_id: &QuestionId,
) -> sqlx::Result<bool> {
    let shown: i64 = read!(db, |ex| {
        sqlx::query_scalar(concat!(
            "SELECT count(*) FROM questions q WHERE q.id = $2
               AND NOT EXISTS (SELECT 1 FROM knowledge_cards k WHERE k.question_id = q.id)
               AND ",
            shown_to_player!("q.id")
        ))
        .bind(player_id)
        .bind(question_id)
        .fetch_one(ex)
        .await?
    });
    Ok(shown > 0)
}

/// Whether a question with this id exists.
pub async fn question_exists(db: &Db, question_id: &QuestionId) -> sqlx::Result<bool> {
    let n: i64 = read!(db, |ex| {
        sqlx::query_scalar("SELECT count(*) FROM questions WHERE id = $1")
            .bind(question_id)
            .fetch_one(ex)
            .await?
    });
    Ok(n > 0)
}
