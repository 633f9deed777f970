//! Knowledge cards (`/v1/admin/knowledge-cards`): one per question. A card is part of
//! its question's content, so an edit that changes it records the question's next
//! version.

use super::*;
use crate::domain::question_limits as limits;
use crate::domain::question_version::{CardContent, changed_card_fields};
use crate::ids::QuestionId;
use crate::message::{Message, msg};
use crate::services::questions;

fn card_content(c: &CardRow) -> CardContent {
    CardContent {
        title: c.title.clone(),
        summary: c.summary.clone(),
        deep_dive: c.deep_dive.clone(),
        source_ref: c.source_ref.clone(),
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminKnowledgeCard {
    pub id: String,
    pub question_id: QuestionId,
    /// Optional; players see the question's category name when it is empty.
    pub title: Option<String>,
    pub summary: String,
    pub deep_dive: Option<String>,
    pub source_ref: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<CardRow> for AdminKnowledgeCard {
    fn from(r: CardRow) -> Self {
        Self {
            id: r.id,
            question_id: r.question_id,
            title: r.title,
            summary: r.summary,
            deep_dive: r.deep_dive,
            source_ref: r.source_ref,
            created_at: from_ms(r.created_at),
            updated_at: from_ms(r.updated_at),
        }
    }
}

/// At least one field. `title`, `deepDive` and `sourceRef` may be null (cleared);
/// `summary` must not be empty.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateKnowledgeCard {
    /// Up to 200 characters; empty or null clears it.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub title: Option<Option<String>>,
    /// Not empty; up to 500 characters.
    pub summary: Option<String>,
    /// Up to 5,000 characters.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub deep_dive: Option<Option<String>>,
    /// Up to 500 characters; an `http(s)` address becomes a link in the console.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub source_ref: Option<Option<String>>,
}

/// `GET /v1/admin/knowledge-cards`: newest first.
pub async fn list_cards(
    ctx: &AppContext,
    q: &PageQuery,
) -> Result<(Vec<AdminKnowledgeCard>, Pagination)> {
    let (page, limit, offset) = q.resolve()?;
    let (rows, total) = db::catalog::card_page(&ctx.db, limit, offset).await?;
    Ok((
        rows.into_iter().map(AdminKnowledgeCard::from).collect(),
        Pagination { total, page, limit },
    ))
}

/// `GET /v1/admin/knowledge-cards/by-question/:questionId`.
pub async fn card_of_question(
    ctx: &AppContext,
    question_id: &QuestionId,
) -> Result<AdminKnowledgeCard> {
    if !db::cards::question_exists(&ctx.db, question_id).await? {
        return Err(Error::not_found(msg::QUESTION_NOT_FOUND));
    }
    db::catalog::card_of_question(&ctx.db, question_id)
        .await?
        .map(AdminKnowledgeCard::from)
        .ok_or_else(|| Error::not_found(msg::THIS_QUESTION_HAS_NO_KNOWLEDGE_CARD))
}

/// One card by its id (the console's card editor).
pub async fn get_card(ctx: &AppContext, id: &str) -> Result<AdminKnowledgeCard> {
    db::catalog::card(&ctx.db, id)
        .await?
        .map(AdminKnowledgeCard::from)
        .ok_or_else(|| Error::not_found(msg::KNOWLEDGE_CARD_NOT_FOUND))
}

/// `PUT /v1/admin/knowledge-cards/:id`.
pub async fn update_card(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &str,
    req: &UpdateKnowledgeCard,
) -> Result<AdminKnowledgeCard> {
    if req.title.is_none()
        && req.summary.is_none()
        && req.deep_dive.is_none()
        && req.source_ref.is_none()
    {
        return Err(Error::validation(
            msg::GIVE_AT_LEAST_ONE_OF_TITLE_SUMMARY_DEEPDIVE_SOURCEREF,
        ));
    }
    let title = req.title.as_ref().map(|t| {
        let t = t.as_deref().map(str::trim).unwrap_or_default();
        (!t.is_empty()).then(|| t.to_string())
    });
    let summary = match &req.summary {
        None => None,
        Some(s) if s.trim().is_empty() => {
            return Err(Error::validation(msg::SUMMARY_MUST_NOT_BE_EMPTY));
        }
        Some(s) => Some(s.trim().to_string()),
    };
    // Each field as it would be stored, named as in this route's body.
    let lengths: [(&str, Option<&str>, usize); 4] = [
        (
            "title",
            title.as_ref().and_then(Option::as_deref),
            limits::CARD_TITLE_MAX_CHARS,
        ),
        (
            "summary",
            summary.as_deref(),
            limits::CARD_SUMMARY_MAX_CHARS,
        ),
        (
            "deepDive",
            req.deep_dive.as_ref().and_then(Option::as_deref),
            limits::CARD_DEEP_DIVE_MAX_CHARS,
        ),
        (
            "sourceRef",
            req.source_ref.as_ref().and_then(Option::as_deref),
            limits::CARD_SOURCE_MAX_CHARS,
        ),
    ];
    let too_long: Vec<Message> = lengths
        .into_iter()
        .filter_map(|(field, value, max_chars)| limits::over_length(field, value?, max_chars))
        .collect();
    if !too_long.is_empty() {
        return Err(Error::Validation(Message::several(too_long)));
    }
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let (current, version) = db::catalog::card_with_version_in_tx(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found(msg::KNOWLEDGE_CARD_NOT_FOUND))?;
    let mut next = current.clone();
    if let Some(title) = title {
        next.title = title;
    }
    if let Some(summary) = summary {
        next.summary = summary;
    }
    if let Some(deep_dive) = &req.deep_dive {
        next.deep_dive = deep_dive.clone();
    }
    if let Some(source_ref) = &req.source_ref {
        next.source_ref = source_ref.clone();
    }
    let changed = changed_card_fields(Some(&card_content(&current)), Some(&card_content(&next)));
    if changed.is_empty() {
        // nothing to write: no version, and the card keeps its updatedAt
        next = current.clone();
    } else {
        // The card is part of its question's content: the question's next version, its
        // row locked first (as every edit of the question does), guarded by the version
        // read with the card, so an edit judged on a stale card writes nothing (409).
        if !db::questions::advance_version(&mut tx, &current.question_id, version, now).await? {
            return Err(Error::conflict(
                msg::THE_QUESTION_CHANGED_MEANWHILE_READ_THE_CARD_AGAIN,
            ));
        }
        next.updated_at = now;
        db::catalog::update_card(&mut tx, &next).await?;
        questions::record_version(
            &mut tx,
            &current.question_id,
            &admin.username,
            now,
            &changed,
        )
        .await?;
    }
    let before = AdminKnowledgeCard::from(current);
    let after = AdminKnowledgeCard::from(next);
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        Write {
            action: "knowledge_card.update",
            target_type: "knowledge_card",
            target_id: Some(id),
            before: to_json(&before),
            after: to_json(&after),
        },
    )
    .await?;
    Ok(after)
}
