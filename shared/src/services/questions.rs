//! The admin question bank: listing, reading, creating and editing questions with their
//! knowledge cards, the status workflow (single moves, DELETE, batches) and the JSON and
//! CSV imports. Every write records its audit entry in its own transaction.

use std::collections::{BTreeSet, HashSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::clock::from_ms;
use crate::context::AppContext;
use crate::db::questions::{
    CardUpdate, ListFilter, NewCard, NewQuestion, QuestionRow, QuestionUpdate, SortBy,
};
use crate::db::{self, Tx};
use crate::domain::question_status::{BatchAction, QuestionStatus, can_move};
use crate::envelope::Pagination;
use crate::error::ItemErrors;
use crate::services::admin_auth::AdminPrincipal;
use crate::services::audit::{self, PageQuery};
use crate::{Error, Result};

/// Most items of one import, ids of one batch.
pub const MAX_BATCH: usize = 200;

const CONTENT_TYPES: [&str; 4] = ["text", "image", "video", "audio"];

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

// ---------------------------------------------------------------------------------------
// What the API shows

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Stem {
    pub text: String,
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
    pub id: String,
    pub stem: Stem,
    /// text, image, video or audio.
    pub content_type: String,
    pub correct_answer: String,
    pub distractors: Vec<String>,
    pub category_id: String,
    /// 1-5.
    pub difficulty: i64,
    /// draft, reviewing, published or archived.
    pub status: String,
    /// system or ugc.
    pub source: String,
    pub knowledge_card: Option<QuestionCard>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
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
            knowledge_card,
            created_at: from_ms(r.created_at),
            updated_at: from_ms(r.updated_at),
        }
    }
}

/// The answer of `POST /questions`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedQuestion {
    pub id: String,
    /// Always `draft`.
    pub status: String,
}

/// One id a batch did not move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BatchFailure {
    pub id: String,
    /// `not found`, or the refused move.
    pub reason: String,
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
    pub ids: Vec<String>,
}

// ---------------------------------------------------------------------------------------
// What the API takes

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardInput {
    pub title: Option<String>,
    /// Required when the card is created.
    pub summary: Option<String>,
    pub deep_dive: Option<String>,
    pub source_ref: Option<String>,
}

/// A question to create or import (every field is checked by the import item rules), or
/// the fields of `PUT /questions/{id}` (all optional there).
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionInput {
    pub stem: Option<Stem>,
    /// text, image, video or audio.
    pub content_type: Option<String>,
    pub correct_answer: Option<String>,
    /// At least 2 non-empty strings.
    pub distractors: Option<Vec<String>>,
    pub category_id: Option<String>,
    /// 1-5, default 1.
    pub difficulty: Option<i64>,
    pub knowledge_card: Option<CardInput>,
}

/// `PUT /questions/{id}`: every field optional.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionPatch {
    pub stem: Option<Stem>,
    pub content_type: Option<String>,
    pub correct_answer: Option<String>,
    pub distractors: Option<Vec<String>>,
    pub category_id: Option<String>,
    pub difficulty: Option<i64>,
    /// Updates the card, or creates it (then `summary` is required).
    pub knowledge_card: Option<CardInput>,
    /// A move by the transition table.
    pub status: Option<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct StatusRequest {
    /// draft, reviewing, published or archived.
    pub status: String,
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
pub struct ListQuery {
    /// ≥ 1, default 1.
    pub page: Option<i64>,
    /// 1-50, default 20.
    pub limit: Option<i64>,
    /// draft, reviewing, published or archived.
    pub status: Option<String>,
    pub category_id: Option<String>,
    /// Case-insensitive match in the stem or the distractors.
    pub keyword: Option<String>,
    /// 1-5, exact.
    pub difficulty: Option<i64>,
    /// system or ugc.
    pub source: Option<String>,
    /// createdAt (default), updatedAt or difficulty.
    pub sort_by: Option<String>,
    /// asc or desc (default).
    pub sort_order: Option<String>,
}

// ---------------------------------------------------------------------------------------
// Item checks

/// A checked item, ready to insert.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ValidItem {
    category_id: String,
    content_type: String,
    stem_text: String,
    correct_answer: String,
    distractors: Vec<String>,
    difficulty: i64,
    card: Option<ValidCard>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ValidCard {
    title: Option<String>,
    summary: String,
    deep_dive: Option<String>,
    source_ref: Option<String>,
}

fn non_empty(s: Option<&str>) -> Option<String> {
    s.map(str::trim).filter(|s| !s.is_empty()).map(String::from)
}

fn check_stem(stem: &Stem, errors: &mut Vec<String>) -> String {
    let text = stem.text.trim();
    if text.is_empty() {
        errors.push("stem.text must not be empty".into());
    }
    text.to_string()
}

fn check_content_type(ct: &str, errors: &mut Vec<String>) -> String {
    if !CONTENT_TYPES.contains(&ct) {
        errors.push("contentType must be text, image, video or audio".into());
    }
    ct.to_string()
}

fn check_answer(answer: &str, errors: &mut Vec<String>) -> String {
    let answer = answer.trim();
    if answer.is_empty() {
        errors.push("correctAnswer must have at least 1 character".into());
    }
    answer.to_string()
}

fn check_distractors(list: &[String], errors: &mut Vec<String>) -> Vec<String> {
    let trimmed: Vec<String> = list.iter().map(|d| d.trim().to_string()).collect();
    if trimmed.iter().any(String::is_empty) {
        errors.push("distractors must not contain empty strings".into());
    }
    if trimmed.iter().filter(|d| !d.is_empty()).count() < 2 {
        errors.push("distractors needs at least 2 entries".into());
    }
    trimmed
}

fn check_difficulty(d: i64, errors: &mut Vec<String>) -> i64 {
    if !(1..=5).contains(&d) {
        errors.push("difficulty must be 1-5".into());
    }
    d
}

fn check_category_id(id: &str, errors: &mut Vec<String>) -> String {
    let id = id.trim();
    if id.is_empty() {
        errors.push("categoryId is required".into());
    }
    id.to_string()
}

fn check_new_card(card: &CardInput, errors: &mut Vec<String>) -> Option<ValidCard> {
    match non_empty(card.summary.as_deref()) {
        Some(summary) => Some(ValidCard {
            title: non_empty(card.title.as_deref()),
            summary,
            deep_dive: non_empty(card.deep_dive.as_deref()),
            source_ref: non_empty(card.source_ref.as_deref()),
        }),
        None => {
            errors.push("knowledgeCard.summary is required".into());
            None
        }
    }
}

/// The import item rules, except whether the category exists (checked for all items at
/// once by [`check_categories`]).
fn check_item(input: &QuestionInput) -> std::result::Result<ValidItem, Vec<String>> {
    let mut errors = Vec::new();
    let stem_text = match &input.stem {
        Some(stem) => check_stem(stem, &mut errors),
        None => {
            errors.push("stem is required".into());
            String::new()
        }
    };
    let content_type = match &input.content_type {
        Some(ct) => check_content_type(ct, &mut errors),
        None => {
            errors.push("contentType is required".into());
            String::new()
        }
    };
    let correct_answer = match &input.correct_answer {
        Some(a) => check_answer(a, &mut errors),
        None => {
            errors.push("correctAnswer is required".into());
            String::new()
        }
    };
    let distractors = match &input.distractors {
        Some(list) => check_distractors(list, &mut errors),
        None => {
            errors.push("distractors is required".into());
            Vec::new()
        }
    };
    let category_id = match &input.category_id {
        Some(id) => check_category_id(id, &mut errors),
        None => {
            errors.push("categoryId is required".into());
            String::new()
        }
    };
    let difficulty = check_difficulty(input.difficulty.unwrap_or(1), &mut errors);
    let card = input
        .knowledge_card
        .as_ref()
        .and_then(|c| check_new_card(c, &mut errors));
    if errors.is_empty() {
        Ok(ValidItem {
            category_id,
            content_type,
            stem_text,
            correct_answer,
            distractors,
            difficulty,
            card,
        })
    } else {
        Err(errors)
    }
}

/// Which of `ids` name no category (one query).
async fn missing_categories(ctx: &AppContext, ids: &[&str]) -> Result<HashSet<String>> {
    let wanted: BTreeSet<String> = ids
        .iter()
        .filter(|id| !id.is_empty())
        .map(|id| id.to_string())
        .collect();
    let wanted: Vec<String> = wanted.into_iter().collect();
    let found: HashSet<String> = db::questions::existing_category_ids(&ctx.db, &wanted)
        .await?
        .into_iter()
        .collect();
    Ok(wanted
        .into_iter()
        .filter(|id| !found.contains(id))
        .collect())
}

/// Checks every item (shape, then categories with one query): the valid items, or the
/// per-index errors.
async fn check_items(
    ctx: &AppContext,
    items: Vec<std::result::Result<QuestionInput, String>>,
) -> Result<Vec<ValidItem>> {
    let mut checked: Vec<std::result::Result<ValidItem, Vec<String>>> = items
        .iter()
        .map(|item| match item {
            Ok(input) => check_item(input),
            Err(e) => Err(vec![e.clone()]),
        })
        .collect();
    let category_ids: Vec<&str> = items
        .iter()
        .filter_map(|i| i.as_ref().ok())
        .filter_map(|i| i.category_id.as_deref())
        .map(str::trim)
        .collect();
    let missing = missing_categories(ctx, &category_ids).await?;
    for (result, item) in checked.iter_mut().zip(&items) {
        let Some(cat) = item
            .as_ref()
            .ok()
            .and_then(|i| i.category_id.as_deref())
            .map(str::trim)
        else {
            continue;
        };
        if missing.contains(cat) {
            let msg = format!("categoryId '{cat}' does not exist");
            match result {
                Ok(_) => *result = Err(vec![msg]),
                Err(errors) => errors.push(msg),
            }
        }
    }
    let failures: Vec<ItemErrors> = checked
        .iter()
        .enumerate()
        .filter_map(|(index, r)| {
            r.as_ref().err().map(|errors| ItemErrors {
                index,
                errors: errors.clone(),
            })
        })
        .collect();
    if !failures.is_empty() {
        return Err(Error::ValidationFailed(failures));
    }
    Ok(checked.into_iter().filter_map(|r| r.ok()).collect())
}

async fn insert_item(tx: &mut Tx, item: &ValidItem, now_ms: i64) -> Result<String> {
    let id = Uuid::new_v4().to_string();
    let distractors_json = serde_json::to_string(&item.distractors).map_err(Error::internal)?;
    db::questions::insert(
        tx,
        &NewQuestion {
            id: &id,
            category_id: &item.category_id,
            stem_text: &item.stem_text,
            content_type: &item.content_type,
            correct_answer: &item.correct_answer,
            distractors_json: &distractors_json,
            difficulty: item.difficulty,
            status: QuestionStatus::Draft.as_str(),
            source: "system",
            now_ms,
        },
    )
    .await?
    .then_some(())
    .ok_or_else(|| Error::internal("question id collision"))?;
    if let Some(card) = &item.card {
        let card_id = Uuid::new_v4().to_string();
        db::questions::insert_card(
            tx,
            &NewCard {
                id: &card_id,
                question_id: &id,
                title: card.title.as_deref(),
                summary: &card.summary,
                deep_dive: card.deep_dive.as_deref(),
                source_ref: card.source_ref.as_deref(),
                now_ms,
            },
        )
        .await?
        .then_some(())
        .ok_or_else(|| Error::internal("knowledge card id collision"))?;
    }
    Ok(id)
}

fn snapshot(q: &AdminQuestion) -> Option<serde_json::Value> {
    serde_json::to_value(q).ok()
}

fn parse_status(s: &str) -> Result<QuestionStatus> {
    QuestionStatus::parse(s)
        .ok_or_else(|| Error::validation("status must be draft, reviewing, published or archived"))
}

fn refused(from: &str, to: QuestionStatus) -> Error {
    Error::InvalidStatusTransition {
        from: from.to_string(),
        to: to.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// Reading

/// `GET /v1/admin/questions`.
pub async fn list(ctx: &AppContext, q: &ListQuery) -> Result<(Vec<AdminQuestion>, Pagination)> {
    let (page, limit, offset) = PageQuery {
        page: q.page,
        limit: q.limit,
    }
    .resolve()?;
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(parse_status(s)?.as_str().to_string()),
    };
    if let Some(d) = q.difficulty
        && !(1..=5).contains(&d)
    {
        return Err(Error::validation("difficulty must be 1-5"));
    }
    let source = match q.source.as_deref() {
        None => None,
        Some(s @ ("system" | "ugc")) => Some(s.to_string()),
        Some(_) => return Err(Error::validation("source must be system or ugc")),
    };
    let sort = match q.sort_by.as_deref() {
        None | Some("createdAt") => SortBy::CreatedAt,
        Some("updatedAt") => SortBy::UpdatedAt,
        Some("difficulty") => SortBy::Difficulty,
        Some(_) => {
            return Err(Error::validation(
                "sortBy must be createdAt, updatedAt or difficulty",
            ));
        }
    };
    let descending = match q.sort_order.as_deref() {
        None | Some("desc") => true,
        Some("asc") => false,
        Some(_) => return Err(Error::validation("sortOrder must be asc or desc")),
    };
    let keyword = q
        .keyword
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string);
    let filter = ListFilter {
        status,
        category_id: q.category_id.clone().filter(|c| !c.is_empty()),
        keyword,
        difficulty: q.difficulty,
        source,
    };
    let (rows, total) =
        db::questions::page(&ctx.db, &filter, sort, descending, limit, offset).await?;
    Ok((
        rows.into_iter().map(AdminQuestion::from).collect(),
        Pagination { total, page, limit },
    ))
}

/// `GET /v1/admin/questions/{id}`.
pub async fn get(ctx: &AppContext, id: &str) -> Result<AdminQuestion> {
    db::questions::get(&ctx.db, id)
        .await?
        .map(AdminQuestion::from)
        .ok_or_else(|| Error::not_found("question not found"))
}

// ---------------------------------------------------------------------------------------
// Writing

/// `POST /v1/admin/questions`: a new draft with its card.
pub async fn create(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    input: QuestionInput,
) -> Result<CreatedQuestion> {
    let items = match check_items(ctx, vec![Ok(input)]).await {
        Ok(items) => items,
        Err(Error::ValidationFailed(failures)) => {
            let errors: Vec<String> = failures.into_iter().flat_map(|f| f.errors).collect();
            return Err(Error::Validation(errors.join("; ")));
        }
        Err(e) => return Err(e),
    };
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let mut id = String::new();
    for item in &items {
        id = insert_item(&mut tx, item, now).await?;
    }
    let after = db::questions::get_in_tx(&mut tx, &id)
        .await?
        .map(AdminQuestion::from);
    audit::record(
        &mut tx,
        ctx,
        admin,
        audit::Write {
            action: "question.create",
            target_type: "question",
            target_id: Some(&id),
            before: None,
            after: after.as_ref().and_then(snapshot),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(CreatedQuestion {
        id,
        status: QuestionStatus::Draft.as_str().to_string(),
    })
}

/// `PUT /v1/admin/questions/{id}`: the given fields, a status move by the table, the card
/// updated or created.
pub async fn update(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &str,
    patch: QuestionPatch,
) -> Result<AdminQuestion> {
    let mut errors = Vec::new();
    let stem_text = patch.stem.as_ref().map(|s| check_stem(s, &mut errors));
    let content_type = patch
        .content_type
        .as_deref()
        .map(|c| check_content_type(c, &mut errors));
    let correct_answer = patch
        .correct_answer
        .as_deref()
        .map(|a| check_answer(a, &mut errors));
    let distractors = patch
        .distractors
        .as_deref()
        .map(|d| check_distractors(d, &mut errors));
    let category_id = patch
        .category_id
        .as_deref()
        .map(|c| check_category_id(c, &mut errors));
    let difficulty = patch.difficulty.map(|d| check_difficulty(d, &mut errors));
    let status = match patch.status.as_deref() {
        Some(s) => match QuestionStatus::parse(s) {
            Some(s) => Some(s),
            None => {
                errors.push("status must be draft, reviewing, published or archived".into());
                None
            }
        },
        None => None,
    };
    if let Some(card) = &patch.knowledge_card
        && card.summary.is_some()
        && non_empty(card.summary.as_deref()).is_none()
    {
        errors.push("knowledgeCard.summary must not be empty".into());
    }
    if let Some(cat) = category_id.as_deref().filter(|c| !c.is_empty())
        && !missing_categories(ctx, &[cat]).await?.is_empty()
    {
        errors.push(format!("categoryId '{cat}' does not exist"));
    }
    if !errors.is_empty() {
        return Err(Error::Validation(errors.join("; ")));
    }

    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let before = db::questions::get_in_tx(&mut tx, id)
        .await?
        .map(AdminQuestion::from)
        .ok_or_else(|| Error::not_found("question not found"))?;
    if let Some(to) = status {
        let from = QuestionStatus::parse(&before.status);
        if !from.is_some_and(|from| can_move(from, to)) {
            return Err(refused(&before.status, to));
        }
    }
    let distractors = distractors.unwrap_or_else(|| before.distractors.clone());
    let distractors_json = serde_json::to_string(&distractors).map_err(Error::internal)?;
    let new_status = match status {
        Some(s) => s.as_str(),
        None => before.status.as_str(),
    };
    let updated = db::questions::update(
        &mut tx,
        &QuestionUpdate {
            id,
            category_id: category_id.as_deref().unwrap_or(&before.category_id),
            stem_text: stem_text.as_deref().unwrap_or(&before.stem.text),
            content_type: content_type.as_deref().unwrap_or(&before.content_type),
            correct_answer: correct_answer.as_deref().unwrap_or(&before.correct_answer),
            distractors_json: &distractors_json,
            difficulty: difficulty.unwrap_or(before.difficulty),
            status: new_status,
            expected_status: &before.status,
            now_ms: now,
        },
    )
    .await?;
    if !updated {
        // Only a concurrent status move can make the conditional write miss.
        return Err(Error::conflict(
            "the question changed meanwhile; read it again",
        ));
    }
    if let Some(card) = &patch.knowledge_card {
        match &before.knowledge_card {
            Some(old) => {
                let pick = |new: &Option<String>, old: &Option<String>| match new {
                    Some(v) => non_empty(Some(v.as_str())),
                    None => old.clone(),
                };
                db::questions::update_card(
                    &mut tx,
                    &CardUpdate {
                        id: &old.id,
                        title: pick(&card.title, &old.title).as_deref(),
                        summary: &non_empty(card.summary.as_deref())
                            .unwrap_or_else(|| old.summary.clone()),
                        deep_dive: pick(&card.deep_dive, &old.deep_dive).as_deref(),
                        source_ref: pick(&card.source_ref, &old.source_ref).as_deref(),
                        now_ms: now,
                    },
                )
                .await?;
            }
            None => {
                let mut card_errors = Vec::new();
                let Some(new) = check_new_card(card, &mut card_errors) else {
                    return Err(Error::Validation(
                        "knowledgeCard.summary is required to create the card".into(),
                    ));
                };
                let card_id = Uuid::new_v4().to_string();
                db::questions::insert_card(
                    &mut tx,
                    &NewCard {
                        id: &card_id,
                        question_id: id,
                        title: new.title.as_deref(),
                        summary: &new.summary,
                        deep_dive: new.deep_dive.as_deref(),
                        source_ref: new.source_ref.as_deref(),
                        now_ms: now,
                    },
                )
                .await?
                .then_some(())
                .ok_or_else(|| {
                    Error::conflict("the card of this question was created concurrently")
                })?;
            }
        }
    }
    let after = db::questions::get_in_tx(&mut tx, id)
        .await?
        .map(AdminQuestion::from)
        .ok_or_else(|| Error::not_found("question not found"))?;
    audit::record(
        &mut tx,
        ctx,
        admin,
        audit::Write {
            action: "question.update",
            target_type: "question",
            target_id: Some(id),
            before: snapshot(&before),
            after: snapshot(&after),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(after)
}

/// Moves one question from one of `sources` (or by the table when `sources` is None) to
/// `to`, with its audit entry; answers the question after the move.
async fn move_one(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &str,
    to: QuestionStatus,
    action: Option<BatchAction>,
    audit_action: &str,
) -> Result<AdminQuestion> {
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let before = db::questions::get_in_tx(&mut tx, id)
        .await?
        .map(AdminQuestion::from)
        .ok_or_else(|| Error::not_found("question not found"))?;
    let from = QuestionStatus::parse(&before.status);
    let allowed = match (from, action) {
        (Some(from), Some(action)) => action.accepts(from),
        (Some(from), None) => can_move(from, to),
        (None, _) => false,
    };
    if !allowed {
        return Err(refused(&before.status, to));
    }
    let moved =
        db::questions::move_status(&mut tx, id, &[before.status.as_str()], to.as_str(), now)
            .await?;
    if !moved {
        return Err(Error::conflict(
            "the question changed meanwhile; read it again",
        ));
    }
    let after = db::questions::get_in_tx(&mut tx, id)
        .await?
        .map(AdminQuestion::from)
        .ok_or_else(|| Error::not_found("question not found"))?;
    audit::record(
        &mut tx,
        ctx,
        admin,
        audit::Write {
            action: audit_action,
            target_type: "question",
            target_id: Some(id),
            before: Some(json!({ "status": before.status })),
            after: Some(json!({ "status": after.status })),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(after)
}

/// `PATCH /v1/admin/questions/{id}/status`.
pub async fn set_status(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &str,
    req: &StatusRequest,
) -> Result<AdminQuestion> {
    let to = parse_status(&req.status)?;
    move_one(ctx, admin, id, to, None, "question.status").await
}

/// `DELETE /v1/admin/questions/{id}`: archives from draft, reviewing or published.
pub async fn delete(ctx: &AppContext, admin: &AdminPrincipal, id: &str) -> Result<()> {
    move_one(
        ctx,
        admin,
        id,
        QuestionStatus::Archived,
        Some(BatchAction::Delete),
        "question.delete",
    )
    .await?;
    Ok(())
}

/// The batch ids: 1-200 uuids, duplicates dropped (first occurrence kept), in canonical
/// lower-case form.
fn batch_ids(req: &BatchRequest) -> Result<Vec<String>> {
    if req.ids.is_empty() || req.ids.len() > MAX_BATCH {
        return Err(Error::validation(format!(
            "ids must hold 1-{MAX_BATCH} question ids"
        )));
    }
    let mut seen = HashSet::new();
    let mut ids = Vec::with_capacity(req.ids.len());
    for raw in &req.ids {
        let id = Uuid::parse_str(raw.trim())
            .map_err(|_| Error::validation(format!("'{raw}' is not a uuid")))?
            .to_string();
        if seen.insert(id.clone()) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// `POST /v1/admin/questions/batch-publish|batch-archive|batch-delete`: one transaction of
/// conditional moves; ids that do not move are listed with the reason.
pub async fn batch(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    action: BatchAction,
    req: &BatchRequest,
) -> Result<BatchResult> {
    let ids = batch_ids(req)?;
    let to = action.target();
    let sources: Vec<&str> = action.sources().iter().map(|s| s.as_str()).collect();
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let mut moved = Vec::new();
    let mut not_moved = Vec::new();
    for id in &ids {
        if db::questions::move_status(&mut tx, id, &sources, to.as_str(), now).await? {
            moved.push(id.clone());
        } else {
            not_moved.push(id.clone());
        }
    }
    let statuses: std::collections::HashMap<String, String> =
        db::questions::statuses_in_tx(&mut tx, &not_moved)
            .await?
            .into_iter()
            .collect();
    let failed: Vec<BatchFailure> = not_moved
        .iter()
        .map(|id| BatchFailure {
            id: id.clone(),
            reason: match statuses.get(id) {
                Some(from) => refused(from, to).to_string(),
                None => "not found".to_string(),
            },
        })
        .collect();
    let audit_action = match action {
        BatchAction::Publish => "question.batch_publish",
        BatchAction::Archive => "question.batch_archive",
        BatchAction::Delete => "question.batch_delete",
    };
    audit::record(
        &mut tx,
        ctx,
        admin,
        audit::Write {
            action: audit_action,
            target_type: "question",
            target_id: None,
            before: None,
            after: Some(json!({ "status": to.as_str(), "ids": moved, "failed": not_moved })),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(BatchResult {
        total: ids.len(),
        succeeded: moved.len(),
        failed,
    })
}

// ---------------------------------------------------------------------------------------
// Imports

async fn import_items(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    items: Vec<std::result::Result<QuestionInput, String>>,
    audit_action: &str,
) -> Result<ImportResult> {
    if items.is_empty() || items.len() > MAX_BATCH {
        return Err(Error::validation(format!(
            "an import holds 1-{MAX_BATCH} questions"
        )));
    }
    let valid = check_items(ctx, items).await?;
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let mut ids = Vec::with_capacity(valid.len());
    for item in &valid {
        ids.push(insert_item(&mut tx, item, now).await?);
    }
    audit::record(
        &mut tx,
        ctx,
        admin,
        audit::Write {
            action: audit_action,
            target_type: "question",
            target_id: None,
            before: None,
            after: Some(json!({ "ids": ids })),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(ImportResult {
        total: valid.len(),
        succeeded: ids.len(),
        ids,
    })
}

/// `POST /v1/admin/questions/import`: all or nothing.
pub async fn import(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    req: ImportRequest,
) -> Result<ImportResult> {
    let items = req
        .questions
        .into_iter()
        .map(|v| {
            if !v.is_object() {
                return Err("item must be an object".to_string());
            }
            serde_json::from_value::<QuestionInput>(v).map_err(|e| format!("invalid item: {e}"))
        })
        .collect();
    import_items(ctx, admin, items, "question.import").await
}

/// True for `text/plain` and `text/csv` (parameters such as charset ignored).
pub fn is_csv_content_type(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|ct| ct.split(';').next())
        .map(|ct| ct.trim().to_ascii_lowercase())
        .is_some_and(|ct| ct == "text/plain" || ct == "text/csv")
}

/// Parses the CSV: its data rows as import items, or CSV_PARSE_ERROR (bad header, a row
/// of another width, unreadable text) or VALIDATION_ERROR (no rows, over 200 rows).
fn parse_csv(body: &[u8]) -> Result<Vec<std::result::Result<QuestionInput, String>>> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(body);
    let header = reader
        .headers()
        .map_err(|e| Error::CsvParse(format!("cannot read the CSV header: {e}")))?;
    let names: Vec<&str> = header.iter().map(str::trim).collect();
    if names != CSV_HEADER {
        return Err(Error::CsvParse(format!(
            "the header must be exactly: {}",
            CSV_HEADER.join(",")
        )));
    }
    let mut items = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| Error::CsvParse(format!("malformed CSV: {e}")))?;
        if record.len() != CSV_HEADER.len() {
            return Err(Error::CsvParse(format!(
                "a row has {} columns, the header {}",
                record.len(),
                CSV_HEADER.len()
            )));
        }
        items.push(csv_item(&record));
        if items.len() > MAX_BATCH {
            return Err(Error::validation(format!(
                "the CSV holds more than {MAX_BATCH} rows"
            )));
        }
    }
    if items.is_empty() {
        return Err(Error::validation("the CSV holds no data rows"));
    }
    Ok(items)
}

fn csv_item(r: &csv::StringRecord) -> std::result::Result<QuestionInput, String> {
    let col = |i: usize| r.get(i).unwrap_or("");
    let difficulty = match col(2).trim() {
        "" => None,
        d => Some(
            d.parse::<i64>()
                .map_err(|_| "difficulty must be an integer 1-5".to_string())?,
        ),
    };
    let distractors = (5..10)
        .map(col)
        .filter(|d| !d.trim().is_empty())
        .map(String::from)
        .collect();
    let knowledge_card = non_empty(Some(col(10))).map(|summary| CardInput {
        title: None,
        summary: Some(summary),
        deep_dive: non_empty(Some(col(11))),
        source_ref: non_empty(Some(col(12))),
    });
    Ok(QuestionInput {
        category_id: Some(col(0).to_string()),
        content_type: Some(col(1).trim().to_string()),
        difficulty,
        stem: Some(Stem {
            text: col(3).to_string(),
        }),
        correct_answer: Some(col(4).to_string()),
        distractors: Some(distractors),
        knowledge_card,
    })
}

/// `POST /v1/admin/questions/import-csv`: the body is `text/plain` or `text/csv`.
pub async fn import_csv(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<ImportResult> {
    if !is_csv_content_type(content_type) {
        return Err(Error::validation(
            "expected Content-Type: text/plain or text/csv",
        ));
    }
    let items = parse_csv(body)?;
    import_items(ctx, admin, items, "question.import_csv").await
}

/// One data row of a CSV preview.
#[derive(Clone, Debug, Serialize)]
pub struct PreviewRow {
    /// 1-based data row (the header is not counted).
    pub row: usize,
    pub stem: String,
    pub category_id: String,
    /// Why the row would be refused; empty when it would import.
    pub errors: Vec<String>,
}

/// What an import of this CSV would do, found without writing anything.
#[derive(Clone, Debug, Serialize)]
pub struct CsvPreview {
    pub rows: Vec<PreviewRow>,
}

impl CsvPreview {
    pub fn failed(&self) -> usize {
        self.rows.iter().filter(|r| !r.errors.is_empty()).count()
    }
}

/// Runs every check of `import_csv` on `body` and reports each row, writing nothing.
/// File-level problems (header, widths, row count) are errors, as on import.
pub async fn preview_csv(ctx: &AppContext, body: &[u8]) -> Result<CsvPreview> {
    let items = parse_csv(body)?;
    let mut rows: Vec<PreviewRow> = items
        .iter()
        .enumerate()
        .map(|(i, item)| PreviewRow {
            row: i + 1,
            stem: item
                .as_ref()
                .ok()
                .and_then(|q| q.stem.as_ref())
                .map(|s| s.text.clone())
                .unwrap_or_default(),
            category_id: item
                .as_ref()
                .ok()
                .and_then(|q| q.category_id.clone())
                .unwrap_or_default(),
            errors: Vec::new(),
        })
        .collect();
    match check_items(ctx, items).await {
        Ok(_) => {}
        Err(Error::ValidationFailed(failures)) => {
            for failure in failures {
                if let Some(row) = rows.get_mut(failure.index) {
                    row.errors = failure.errors;
                }
            }
        }
        Err(e) => return Err(e),
    }
    Ok(CsvPreview { rows })
}

/// The CSV template: the header line import expects.
pub fn csv_template() -> String {
    format!("{}\r\n", CSV_HEADER.join(","))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const HEADER: &str = "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef\n";

    #[test]
    fn csv_quoted_fields_and_empty_columns() {
        let body = format!(
            "{HEADER}cat,text,,\"Line one\nline two, with \"\"quotes\"\"\",A,B,,C,,,\"S, s\",,\n"
        );
        let items = parse_csv(body.as_bytes()).unwrap();
        assert_eq!(items.len(), 1);
        let item = items[0].as_ref().unwrap();
        assert_eq!(
            item.stem.as_ref().unwrap().text,
            "Line one\nline two, with \"quotes\""
        );
        assert_eq!(item.distractors.as_ref().unwrap(), &vec!["B", "C"]);
        assert_eq!(item.difficulty, None);
        let card = item.knowledge_card.as_ref().unwrap();
        assert_eq!(card.summary.as_deref(), Some("S, s"));
        assert_eq!(card.deep_dive, None);
    }

    #[test]
    fn csv_header_and_widths_are_checked() {
        let e = parse_csv(b"a,b,c\n1,2,3\n").unwrap_err();
        assert_eq!(e.code(), "CSV_PARSE_ERROR");
        let e = parse_csv(format!("{HEADER}x,text\n").as_bytes()).unwrap_err();
        assert_eq!(e.code(), "CSV_PARSE_ERROR");
        let e = parse_csv(HEADER.as_bytes()).unwrap_err();
        assert_eq!(e.code(), "VALIDATION_ERROR");
    }

    #[test]
    fn item_rules() {
        let good = QuestionInput {
            stem: Some(Stem { text: "Q".into() }),
            content_type: Some("text".into()),
            correct_answer: Some("A".into()),
            distractors: Some(vec!["B".into(), "C".into()]),
            category_id: Some("cat".into()),
            difficulty: None,
            knowledge_card: None,
        };
        assert_eq!(check_item(&good).unwrap().difficulty, 1);
        let bad = QuestionInput {
            content_type: Some("pdf".into()),
            distractors: Some(vec!["B".into()]),
            difficulty: Some(6),
            knowledge_card: Some(CardInput::default()),
            ..good.clone()
        };
        assert_eq!(check_item(&bad).unwrap_err().len(), 4);
        assert_eq!(check_item(&QuestionInput::default()).unwrap_err().len(), 5);
    }
}
