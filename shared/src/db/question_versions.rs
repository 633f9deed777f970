//! `question_versions`: numbered snapshots of a question's content with its knowledge
//! card. [`snapshot`] is the one writer: it copies the question's row and its card as
//! the writing transaction sees them, so a version is exactly what was stored.

use super::{Db, Tx, in_tx, read};
use crate::domain::content_type::ContentType;
use crate::domain::question_version::{CardContent, MediaContent, QuestionContent};
use crate::ids::QuestionId;

/// One version in a question's history (the list's row).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct VersionSummary {
    pub version: i64,
    pub edited_by: String,
    pub edited_at: i64,
    /// JSON array of API field names.
    pub changed_fields: String,
}

/// One version with its content.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct VersionRow {
    #[sqlx(flatten)]
    pub summary: VersionSummary,
    pub category_id: String,
    #[sqlx(try_from = "String")]
    pub content_type: ContentType,
    pub stem_text: String,
    pub correct_answer: String,
    /// JSON array of strings.
    pub distractors: String,
    pub difficulty: i64,
    pub media_id: Option<String>,
    pub media_alt: Option<String>,
    pub card_id: Option<String>,
    pub card_title: Option<String>,
    pub card_summary: Option<String>,
    pub card_deep_dive: Option<String>,
    pub card_source_ref: Option<String>,
}

impl VersionRow {
    /// The version's content, as [`crate::domain::question_version`] compares it.
    pub fn content(&self) -> QuestionContent {
        QuestionContent {
            category_id: self.category_id.clone(),
            content_type: self.content_type,
            stem_text: self.stem_text.clone(),
            correct_answer: self.correct_answer.clone(),
            distractors: serde_json::from_str(&self.distractors).unwrap_or_default(),
            difficulty: self.difficulty,
            media: self.media_id.as_ref().map(|id| MediaContent {
                id: id.clone(),
                alt: self.media_alt.clone(),
            }),
            card: self.card_summary.as_ref().map(|summary| CardContent {
                title: self.card_title.clone(),
                summary: summary.clone(),
                deep_dive: self.card_deep_dive.clone(),
                source_ref: self.card_source_ref.clone(),
            }),
        }
    }
}

/// Records the question's current content (its row and its card, as this transaction
/// sees them) as version `questions.version`. False, with nothing written, when that
/// version exists already: a concurrent edit claimed the number first. Callers have
/// written the row (and advanced its version) first, so they hold its row lock.
pub async fn snapshot(
    tx: &mut Tx,
    question_id: &QuestionId,
    edited_by: &str,
    edited_at: i64,
    changed_fields_json: &str,
) -> sqlx::Result<bool> {
    let inserted = in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO question_versions (question_id, version, category_id, content_type,
                 stem_text, correct_answer, distractors, difficulty, card_id, card_title,
                 card_summary, card_deep_dive, card_source_ref, edited_by, edited_at,
                 changed_fields, media_id, media_alt)
             SELECT q.id, q.version, q.category_id, q.content_type, q.stem_text,
                    q.correct_answer, q.distractors, q.difficulty, k.id, k.title, k.summary,
                    k.deep_dive, k.source_ref, $2, $3, $4, q.media_id, q.media_alt
             FROM questions q LEFT JOIN knowledge_cards k ON k.question_id = q.id
             WHERE q.id = $1",
        )
        .bind(question_id)
        .bind(edited_by)
        .bind(edited_at)
        .bind(changed_fields_json)
        .execute(ex)
        .await
        .map(|done| done.rows_affected())
    });
    match inserted {
        Ok(1) => {
            // a new version's statistics start from nothing (the list's summary too)
            in_tx!(tx, |ex| {
                sqlx::query(
                    "UPDATE questions SET stats_attempts = 0, stats_correct = 0,
                         stats_accuracy_key = -1, stats_flags = NULL, stats_severity = 0
                     WHERE id = $1 AND (stats_attempts <> 0 OR stats_flags IS NOT NULL)",
                )
                .bind(question_id)
                .execute(ex)
                .await?;
            });
            Ok(true)
        }
        Ok(_) => Err(sqlx::Error::RowNotFound),
        Err(e) if super::is_unique_violation(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

/// A question's versions, newest first (a question has few: one per content edit).
pub async fn list(db: &Db, question_id: &QuestionId) -> sqlx::Result<Vec<VersionSummary>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, VersionSummary>(
            "SELECT version, edited_by, edited_at, changed_fields FROM question_versions
             WHERE question_id = $1 ORDER BY version DESC",
        )
        .bind(question_id)
        .fetch_all(ex)
        .await?
    }))
}

const ONE: &str = "SELECT version, edited_by, edited_at, changed_fields, category_id,
        content_type, stem_text, correct_answer, distractors, difficulty, media_id, media_alt,
        card_id, card_title, card_summary, card_deep_dive, card_source_ref
 FROM question_versions WHERE question_id = $1 AND version = $2";

/// One version of a question.
pub async fn get(
    db: &Db,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Option<VersionRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, VersionRow>(ONE)
            .bind(question_id)
            .bind(version)
            .fetch_optional(ex)
            .await?
    }))
}

/// One version of a question, read inside a write transaction.
pub async fn get_in_tx(
    tx: &mut Tx,
    question_id: &QuestionId,
    version: i64,
) -> sqlx::Result<Option<VersionRow>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, VersionRow>(ONE)
            .bind(question_id)
            .bind(version)
            .fetch_optional(ex)
            .await?
    }))
}
