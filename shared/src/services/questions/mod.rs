//! The admin question bank: listing, reading, creating and editing questions with their
//! knowledge cards, the status workflow (single moves, DELETE, batches), the JSON and
//! CSV imports, the export in their formats, and the versions of each question's content
//! (listed, read, reverted). Every write records its audit entry in its own transaction;
//! every write that changes a question's content records its next version there too.

use std::collections::{BTreeSet, HashSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::clock::from_ms;
use crate::closed_set::Submitted;
use crate::context::AppContext;
use crate::db::questions::{
    CardUpdate, ListFilter, NewCard, NewQuestion, QuestionFields, QuestionRow, QuestionUpdate,
    SortBy,
};
use crate::db::{self, Tx};
use crate::domain::content_type::ContentType;
use crate::domain::question_source::QuestionSource;
use crate::domain::question_stats;
use crate::domain::question_status::{BatchAction, QuestionStatus, can_move};
use crate::domain::question_version::{self, CardContent, MediaContent, QuestionContent};
use crate::envelope::Pagination;
use crate::error::ItemFailure;
use crate::ids::QuestionId;
use crate::message::Message;
use crate::services::admin_auth::AdminPrincipal;
use crate::services::audit::{self, PageQuery};
use crate::{Error, Result};

/// Most items of one import, ids of one batch.
pub const MAX_BATCH: usize = 200;

/// The CSV header, in order.
pub const CSV_HEADER: [&str; 13] = [
    "categoryId",
    "contentType",
    "difficulty",
    "stemText",
    "correctAnswer",
    "distractor1",
    "distractor2",
    "distractor3",
    "distractor4",
    "distractor5",
    "cardSummary",
    "cardDeepDive",
    "cardSourceRef",
];

/// The columns a CSV may add after [`CSV_HEADER`]: the media library file a question
/// shows and its alternative text. An import takes `mediaId` alone or both; an export
/// writes both when a question it holds has media.
pub const CSV_MEDIA_COLUMNS: [&str; 2] = ["mediaId", "mediaAlt"];

mod bundle;
mod checks;
mod csv_cell;
mod export;
mod import;
mod reading;
mod versions;
mod writing;

use checks::*;

pub use bundle::{MAX_BUNDLE_BYTES, MAX_BUNDLE_QUESTIONS, import as import_zip};
pub use export::{
    EXPORT_BATCH, Export, ExportFormat, ExportQuery, ExportedCard, ExportedQuestion,
    QuestionExport, export,
};
pub use import::{
    CsvPreview, PreviewRow, csv_template, import, import_csv, is_csv_content_type, preview_csv,
};
pub use reading::{get, list};
pub(crate) use versions::record_version;
pub use versions::{QuestionVersion, QuestionVersionSummary, get_version, list_versions, revert};
pub use writing::{batch, create, delete, set_status, update};

// ---------------------------------------------------------------------------------------
// What the API shows

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Stem {
    /// 1-1,000 characters.
    pub text: String,
}

/// The picture, sound or clip a question shows (a file of the media library), and the
/// text a screen reader says for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct QuestionMedia {
    /// The media id (`POST /v1/admin/media`); its type must be the question's
    /// `contentType`.
    pub id: String,
    /// Required for an image (1-300 characters); optional for audio and video.
    pub alt: Option<String>,
}

impl QuestionMedia {
    fn content(&self) -> MediaContent {
        MediaContent {
            id: self.id.clone(),
            alt: self.alt.clone(),
        }
    }
}

/// A question's knowledge card as admins see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionCard {
    pub id: String,
    /// Optional; players see the category name when it is empty.
    pub title: Option<String>,
    pub summary: String,
    pub deep_dive: Option<String>,
    pub source_ref: Option<String>,
}

/// A question of the bank with its knowledge card.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminQuestion {
    pub id: QuestionId,
    pub stem: Stem,
    pub content_type: ContentType,
    pub correct_answer: String,
    pub distractors: Vec<String>,
    pub category_id: String,
    /// 1-5.
    pub difficulty: i64,
    pub status: QuestionStatus,
    pub source: QuestionSource,
    /// Its image, audio or video; null for a text question (and for one whose media is
    /// not attached yet: it cannot go to review or be published so).
    pub media: Option<QuestionMedia>,
    pub knowledge_card: Option<QuestionCard>,
    /// The current version of its content (`GET /questions/{id}/versions`); a status
    /// move makes none.
    pub version: i64,
    /// What the answers to the current version say (`GET /questions/{id}/stats` has
    /// the rest), at most a few minutes old.
    pub stats: StatsSummary,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A question's current version in numbers: the list's filter and sort keys.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatsSummary {
    pub attempts: i64,
    /// correct ÷ attempts (0-1), null without attempts.
    pub accuracy: Option<f64>,
    /// Most serious first (see `GET /questions/{id}/stats`).
    pub flags: Vec<question_stats::Flag>,
}

impl AdminQuestion {
    /// What a version of it holds.
    fn content(&self) -> QuestionContent {
        QuestionContent {
            category_id: self.category_id.clone(),
            content_type: self.content_type,
            stem_text: self.stem.text.clone(),
            correct_answer: self.correct_answer.clone(),
            distractors: self.distractors.clone(),
            difficulty: self.difficulty,
            media: self.media.as_ref().map(QuestionMedia::content),
            card: self.knowledge_card.as_ref().map(QuestionCard::content),
        }
    }
}

impl QuestionCard {
    fn content(&self) -> CardContent {
        CardContent {
            title: self.title.clone(),
            summary: self.summary.clone(),
            deep_dive: self.deep_dive.clone(),
            source_ref: self.source_ref.clone(),
        }
    }
}

impl From<QuestionRow> for AdminQuestion {
    fn from(r: QuestionRow) -> Self {
        let knowledge_card = match (r.card_id, r.card_summary) {
            (Some(id), Some(summary)) => Some(QuestionCard {
                id,
                title: r.card_title,
                summary,
                deep_dive: r.card_deep_dive,
                source_ref: r.card_source_ref,
            }),
            _ => None,
        };
        Self {
            stem: Stem { text: r.stem_text },
            distractors: serde_json::from_str(&r.distractors).unwrap_or_default(),
            id: r.id,
            content_type: r.content_type,
            correct_answer: r.correct_answer,
            category_id: r.category_id,
            difficulty: r.difficulty,
            status: r.status,
            source: r.source,
            media: r.media_id.map(|id| QuestionMedia {
                id,
                alt: r.media_alt,
            }),
            knowledge_card,
            version: r.version,
            stats: StatsSummary {
                attempts: r.stats_attempts,
                accuracy: question_stats::rate(r.stats_correct, r.stats_attempts),
                flags: question_stats::parse_flags(r.stats_flags.as_deref()),
            },
            created_at: from_ms(r.created_at),
            updated_at: from_ms(r.updated_at),
        }
    }
}

/// The answer of `POST /questions`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedQuestion {
    pub id: QuestionId,
    /// Always `draft`.
    pub status: QuestionStatus,
}

/// One id a batch did not move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BatchFailure {
    pub id: QuestionId,
    /// `not found`, or the refused move.
    #[schema(value_type = String)]
    #[serde(serialize_with = "crate::message::english")]
    pub reason: Message,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BatchResult {
    /// Distinct ids in the request.
    pub total: usize,
    pub succeeded: usize,
    pub failed: Vec<BatchFailure>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ImportResult {
    pub total: usize,
    pub succeeded: usize,
    /// Ids of the new questions, in input order.
    pub ids: Vec<QuestionId>,
}

/// Stores a question's card as an edit left it, when it changed (`changed` names the
/// edit's fields): updated in place, created (under `reuse_id` when given, else a new
/// id), or removed. A card another edit created meanwhile is a 409.
async fn store_card(
    tx: &mut Tx,
    question_id: &QuestionId,
    before: Option<&QuestionCard>,
    after: Option<&CardContent>,
    changed: &[&str],
    reuse_id: Option<&str>,
    now_ms: i64,
) -> Result<()> {
    let card_changed = changed.iter().any(|f| f.starts_with("knowledgeCard."));
    match (before, after) {
        (Some(current), Some(card)) if card_changed => {
            db::questions::update_card(
                tx,
                &CardUpdate {
                    id: &current.id,
                    title: card.title.as_deref(),
                    summary: &card.summary,
                    deep_dive: card.deep_dive.as_deref(),
                    source_ref: card.source_ref.as_deref(),
                    now_ms,
                },
            )
            .await?;
        }
        (None, Some(card)) => {
            let card_id = reuse_id.map_or_else(|| Uuid::new_v4().to_string(), str::to_string);
            let inserted = db::questions::insert_card(
                tx,
                &NewCard {
                    id: &card_id,
                    question_id,
                    title: card.title.as_deref(),
                    summary: &card.summary,
                    deep_dive: card.deep_dive.as_deref(),
                    source_ref: card.source_ref.as_deref(),
                    now_ms,
                },
            )
            .await?;
            if !inserted {
                return Err(versions::changed_meanwhile());
            }
        }
        (Some(_), None) => db::questions::delete_card(tx, question_id).await?,
        _ => {}
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// What the API takes

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardInput {
    /// Up to 200 characters.
    pub title: Option<String>,
    /// Required when the card is created; up to 500 characters.
    pub summary: Option<String>,
    /// Up to 5,000 characters.
    pub deep_dive: Option<String>,
    /// Up to 500 characters.
    pub source_ref: Option<String>,
}

/// A question to create or import (every field is checked by the import item rules), or
/// the fields of `PUT /questions/{id}` (all optional there).
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionInput {
    pub stem: Option<Stem>,
    #[schema(value_type = Option<ContentType>)]
    pub content_type: Option<Submitted<ContentType>>,
    /// 1-200 characters.
    pub correct_answer: Option<String>,
    /// 2-5 non-empty strings of up to 200 characters each.
    pub distractors: Option<Vec<String>>,
    pub category_id: Option<String>,
    /// 1-5, default 1.
    pub difficulty: Option<i64>,
    /// Required (before review) for an image, audio or video question.
    pub media: Option<QuestionMedia>,
    pub knowledge_card: Option<CardInput>,
}

/// `PUT /questions/{id}`: every field optional.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionPatch {
    pub stem: Option<Stem>,
    #[schema(value_type = Option<ContentType>)]
    pub content_type: Option<Submitted<ContentType>>,
    pub correct_answer: Option<String>,
    pub distractors: Option<Vec<String>>,
    pub category_id: Option<String>,
    pub difficulty: Option<i64>,
    /// Sets the media; `null` removes it; absent keeps it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<QuestionMedia>)]
    pub media: Option<Option<QuestionMedia>>,
    /// Updates the card, or creates it (then `summary` is required).
    pub knowledge_card: Option<CardInput>,
    /// A move by the transition table.
    #[schema(value_type = Option<QuestionStatus>)]
    pub status: Option<Submitted<QuestionStatus>>,
}

/// A field that may be sent as `null`: absent is `None`, `null` is `Some(None)`.
fn present<'de, D, T>(deserializer: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct StatusRequest {
    #[schema(value_type = QuestionStatus)]
    pub status: Submitted<QuestionStatus>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct BatchRequest {
    /// 1-200 question ids (uuid).
    pub ids: Vec<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ImportRequest {
    /// 1-200 items; each follows the import item rules.
    #[schema(value_type = Vec<QuestionInput>)]
    pub questions: Vec<serde_json::Value>,
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// ≥ 1, default 1.
    pub page: Option<i64>,
    /// 1-50, default 20.
    pub limit: Option<i64>,
    #[param(value_type = Option<QuestionStatus>)]
    pub status: Option<Submitted<QuestionStatus>>,
    pub category_id: Option<String>,
    /// Case-insensitive match in the stem or the distractors.
    pub keyword: Option<String>,
    /// 1-5, exact.
    pub difficulty: Option<i64>,
    #[param(value_type = Option<QuestionSource>)]
    pub source: Option<Submitted<QuestionSource>>,
    /// `true`: only questions whose current version has flags.
    pub flagged: Option<bool>,
    /// createdAt (default), updatedAt, difficulty, accuracy, attempts or severity (how
    /// serious the flags are).
    pub sort_by: Option<String>,
    /// asc or desc (default).
    pub sort_order: Option<String>,
}
