//! The versions of a question's content: recorded by every write that changes it,
//! listed, read one by one, and reverted to (as a new version).

use super::writing::question_in_tx;
use super::*;
use crate::db::question_versions::{VersionRow, VersionSummary};
use crate::message::msg;

/// One version in a question's history.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionVersionSummary {
    /// 1 for the content the question was created with, then one more per edit that
    /// changed its content.
    pub version: i64,
    /// The admin's username, or `system` (demo content, and the versions recorded when
    /// versions were introduced).
    pub edited_by: String,
    pub edited_at: DateTime<Utc>,
    /// The API names of the fields that differ from the version before: `stem`,
    /// `contentType`, `correctAnswer`, `distractors`, `categoryId`, `difficulty`,
    /// `knowledgeCard.title`, `knowledgeCard.summary`, `knowledgeCard.deepDive`,
    /// `knowledgeCard.sourceRef`. Empty for version 1.
    pub changed_fields: Vec<String>,
}

impl From<VersionSummary> for QuestionVersionSummary {
    fn from(r: VersionSummary) -> Self {
        Self {
            version: r.version,
            edited_by: r.edited_by,
            edited_at: from_ms(r.edited_at),
            changed_fields: serde_json::from_str(&r.changed_fields).unwrap_or_default(),
        }
    }
}

/// A question's content as one version holds it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionVersion {
    pub version: i64,
    pub edited_by: String,
    pub edited_at: DateTime<Utc>,
    /// As in the list of versions.
    pub changed_fields: Vec<String>,
    pub stem: Stem,
    pub content_type: ContentType,
    pub correct_answer: String,
    pub distractors: Vec<String>,
    pub category_id: String,
    pub difficulty: i64,
    /// The media as it was then.
    pub media: Option<QuestionMedia>,
    /// The card as it was then; null when the question had none.
    pub knowledge_card: Option<QuestionCard>,
}

impl From<VersionRow> for QuestionVersion {
    fn from(r: VersionRow) -> Self {
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
        let summary = QuestionVersionSummary::from(r.summary);
        Self {
            version: summary.version,
            edited_by: summary.edited_by,
            edited_at: summary.edited_at,
            changed_fields: summary.changed_fields,
            stem: Stem { text: r.stem_text },
            content_type: r.content_type,
            correct_answer: r.correct_answer,
            distractors: serde_json::from_str(&r.distractors).unwrap_or_default(),
            category_id: r.category_id,
            difficulty: r.difficulty,
            media: r.media_id.map(|id| QuestionMedia {
                id,
                alt: r.media_alt,
            }),
            knowledge_card,
        }
    }
}

/// Records the question's content, as this transaction has written it, as the version
/// its row now carries (advanced by the caller's guarded write, or 1 for a new
/// question): 409 when a concurrent edit claimed that number first.
pub(crate) async fn record_version(
    tx: &mut Tx,
    question_id: &QuestionId,
    edited_by: &str,
    now_ms: i64,
    changed: &[&str],
) -> Result<()> {
    let changed = serde_json::to_string(changed).map_err(Error::internal)?;
    if db::question_versions::snapshot(tx, question_id, edited_by, now_ms, &changed).await? {
        Ok(())
    } else {
        Err(changed_meanwhile())
    }
}

pub(super) fn changed_meanwhile() -> Error {
    Error::conflict(msg::THE_QUESTION_CHANGED_MEANWHILE_READ_IT_AGAIN)
}

/// A version number of a path: 1 or more.
fn version_number(version: i64) -> Result<i64> {
    if version < 1 {
        return Err(Error::validation(msg::VERSION_MUST_BE_A_POSITIVE_INTEGER));
    }
    Ok(version)
}

/// `GET /v1/admin/questions/{id}/versions`: newest first.
pub async fn list_versions(
    ctx: &AppContext,
    id: &QuestionId,
) -> Result<Vec<QuestionVersionSummary>> {
    let rows = db::question_versions::list(&ctx.db, id).await?;
    // every question has its version 1, so only an unknown one lists none
    if rows.is_empty() && !db::cards::question_exists(&ctx.db, id).await? {
        return Err(Error::not_found(msg::QUESTION_NOT_FOUND));
    }
    Ok(rows.into_iter().map(QuestionVersionSummary::from).collect())
}

/// `GET /v1/admin/questions/{id}/versions/{version}`.
pub async fn get_version(
    ctx: &AppContext,
    id: &QuestionId,
    version: i64,
) -> Result<QuestionVersion> {
    let version = version_number(version)?;
    db::question_versions::get(&ctx.db, id, version)
        .await?
        .map(QuestionVersion::from)
        .ok_or_else(|| Error::not_found(msg::QUESTION_VERSION_NOT_FOUND))
}

/// `POST /v1/admin/questions/{id}/versions/{version}/revert`: the content of `version`
/// (the question's own columns and its card: updated, recreated, or removed when that
/// version had none) becomes the next version; the status stays. When the question
/// holds that content already, nothing is written (no version, no audit entry) and the
/// question is answered as it is.
pub async fn revert(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &QuestionId,
    version: i64,
) -> Result<AdminQuestion> {
    let version = version_number(version)?;
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let before = question_in_tx(&mut tx, id).await?;
    let target = db::question_versions::get_in_tx(&mut tx, id, version)
        .await?
        .ok_or_else(|| Error::not_found(msg::QUESTION_VERSION_NOT_FOUND))?;
    let content = target.content();
    let changed = question_version::changed_fields(&before.content(), &content);
    if changed.is_empty() {
        return Ok(before);
    }
    let distractors_json = serde_json::to_string(&content.distractors).map_err(Error::internal)?;
    let updated = db::questions::update(
        &mut tx,
        &QuestionUpdate {
            fields: QuestionFields {
                id,
                category_id: &content.category_id,
                stem_text: &content.stem_text,
                content_type: content.content_type,
                correct_answer: &content.correct_answer,
                distractors_json: &distractors_json,
                difficulty: content.difficulty,
                status: before.status.as_str(),
            },
            expected_status: before.status.as_str(),
            expected_version: before.version,
            version: before.version + 1,
            now_ms: now,
        },
    )
    .await?;
    if !updated {
        return Err(changed_meanwhile());
    }
    // a card recreated takes its old id, so card views already paid stay paid
    store_card(
        &mut tx,
        id,
        before.knowledge_card.as_ref(),
        content.card.as_ref(),
        &changed,
        target.card_id.as_deref(),
        now,
    )
    .await?;
    if changed.contains(&"media") {
        // the version's file may have left the library since (deleted or purged)
        if let Some(m) = &content.media
            && db::media::kinds(&ctx.db, &[m.id.as_str()])
                .await?
                .is_empty()
        {
            return Err(Error::conflict(
                msg::version_n_media_is_no_longer_in_the_media_library(version),
            ));
        }
        let old = before.media.as_ref().map(|m| m.id.as_str());
        super::writing::store_media(&mut tx, id, old, content.media.as_ref(), now).await?;
    }
    record_version(&mut tx, id, &admin.username, now, &changed).await?;
    let after = question_in_tx(&mut tx, id).await?;
    let mut after_state = snapshot(&after);
    if let Some(state) = after_state.as_mut().and_then(|s| s.as_object_mut()) {
        state.insert("revertedTo".into(), json!(version));
    }
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        audit::Write {
            action: "question.revert",
            target_type: "question",
            target_id: Some(id.as_str()),
            before: snapshot(&before),
            after: after_state,
        },
    )
    .await?;
    Ok(after)
}
