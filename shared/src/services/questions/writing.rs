//! Creating, editing, moving through review, deleting, batch operations (audited).

use super::*;
use crate::message::{Message, msg};

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
            let errors: Vec<Message> = failures.into_iter().flat_map(|f| f.errors).collect();
            return Err(Error::Validation(Message::several(errors)));
        }
        Err(e) => return Err(e),
    };
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let mut id = None;
    for item in &items {
        id = Some(insert_item(&mut tx, item, &admin.username, now).await?);
    }
    let id = id.ok_or_else(|| Error::internal("a create without its question"))?;
    let after = db::questions::get_in_tx(&mut tx, &id)
        .await?
        .map(AdminQuestion::from);
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        audit::Write {
            action: "question.create",
            target_type: "question",
            target_id: Some(id.as_str()),
            before: None,
            after: after.as_ref().and_then(snapshot),
        },
    )
    .await?;
    Ok(CreatedQuestion {
        id,
        status: QuestionStatus::Draft,
    })
}

/// `PUT /v1/admin/questions/{id}`: the given fields, a status move by the table, the card
/// updated or created.
pub async fn update(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &QuestionId,
    patch: QuestionPatch,
) -> Result<AdminQuestion> {
    let mut errors = Vec::new();
    let stem_text = patch.stem.as_ref().map(|s| check_stem(s, &mut errors));
    let content_type = patch
        .content_type
        .as_ref()
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
    let status = match patch.status.as_ref() {
        Some(s) => match s.member() {
            Some(s) => Some(s),
            None => {
                errors.push(msg::STATUS_MUST_BE_DRAFT_REVIEWING_PUBLISHED_OR_ARCHIVED);
                None
            }
        },
        None => None,
    };
    if let Some(card) = &patch.knowledge_card {
        if card.summary.is_some() && non_empty(card.summary.as_deref()).is_none() {
            errors.push(msg::KNOWLEDGE_CARD_SUMMARY_MUST_NOT_BE_EMPTY);
        }
        check_card_lengths(card, &mut errors);
    }
    if let Some(cat) = category_id.as_deref().filter(|c| !c.is_empty())
        && !missing_categories(ctx, &[cat]).await?.is_empty()
    {
        errors.push(msg::category_id_cat_does_not_exist(cat));
    }
    if !errors.is_empty() {
        return Err(Error::Validation(Message::several(errors)));
    }

    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let before = question_in_tx(&mut tx, id).await?;
    if let Some(to) = status
        && !can_move(before.status, to)
    {
        return Err(refused(before.status.as_str(), to));
    }
    let card = match (&patch.knowledge_card, &before.knowledge_card) {
        (None, old) => old.as_ref().map(QuestionCard::content),
        (Some(card), Some(old)) => {
            // a field given replaces the old value (empty clears it); absent keeps it
            let pick = |new: &Option<String>, old: &Option<String>| match new {
                Some(v) => non_empty(Some(v.as_str())),
                None => old.clone(),
            };
            Some(CardContent {
                title: pick(&card.title, &old.title),
                summary: non_empty(card.summary.as_deref()).unwrap_or_else(|| old.summary.clone()),
                deep_dive: pick(&card.deep_dive, &old.deep_dive),
                source_ref: pick(&card.source_ref, &old.source_ref),
            })
        }
        (Some(card), None) => {
            let mut card_errors = Vec::new();
            let Some(new) = check_new_card(card, &mut card_errors) else {
                return Err(Error::Validation(
                    msg::KNOWLEDGECARD_SUMMARY_IS_REQUIRED_TO_CREATE_THE_CARD,
                ));
            };
            Some(CardContent {
                title: new.title,
                summary: new.summary,
                deep_dive: new.deep_dive,
                source_ref: new.source_ref,
            })
        }
    };
    let content_type = content_type.unwrap_or(before.content_type);
    // the media as the edit leaves it, checked against the content type it leaves
    let media = match &patch.media {
        None => before.media.as_ref().map(QuestionMedia::content),
        Some(None) => None,
        Some(Some(m)) => {
            let mut media_errors = Vec::new();
            match check_media(m, content_type, &mut media_errors) {
                Some(m) => Some(m),
                None => return Err(Error::Validation(Message::several(media_errors))),
            }
        }
    };
    if let Some(m) = &media {
        if content_type == ContentType::Text {
            return Err(Error::validation(msg::MEDIA_A_TEXT_QUESTION_HAS_NO_MEDIA));
        }
        if let Some(refusal) = check_media_files(ctx, &[(m, content_type)])
            .await?
            .remove(0)
        {
            return Err(Error::Validation(refusal));
        }
    }
    // a move checks its gate; an edit of the media or the type checks that the question
    // could be where it is (a reviewed question does not lose its media)
    match status {
        Some(to) => check_ready(content_type, media.as_ref(), Some(before.status), to)?,
        None if patch.media.is_some() || patch.content_type.is_some() => {
            let here = before.status;
            let from = (here == QuestionStatus::Reviewing).then_some(QuestionStatus::Draft);
            check_ready(content_type, media.as_ref(), from, here)?;
        }
        None => {}
    }
    let content = QuestionContent {
        category_id: category_id.unwrap_or_else(|| before.category_id.clone()),
        content_type,
        stem_text: stem_text.unwrap_or_else(|| before.stem.text.clone()),
        correct_answer: correct_answer.unwrap_or_else(|| before.correct_answer.clone()),
        distractors: distractors.unwrap_or_else(|| before.distractors.clone()),
        difficulty: difficulty.unwrap_or(before.difficulty),
        media,
        card,
    };
    // Only a change of content makes a version; a status move or a PUT repeating the
    // stored values makes none.
    let changed = question_version::changed_fields(&before.content(), &content);
    let version = before.version + i64::from(!changed.is_empty());
    let distractors_json = serde_json::to_string(&content.distractors).map_err(Error::internal)?;
    let new_status = match status {
        Some(s) => s.as_str(),
        None => before.status.as_str(),
    };
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
                status: new_status,
            },
            expected_status: before.status.as_str(),
            expected_version: before.version,
            version,
            now_ms: now,
        },
    )
    .await?;
    if !updated {
        // Only a concurrent status move or edit can make the conditional write miss.
        return Err(versions::changed_meanwhile());
    }
    store_card(
        &mut tx,
        id,
        before.knowledge_card.as_ref(),
        content.card.as_ref(),
        &changed,
        None,
        now,
    )
    .await?;
    if changed.contains(&"media") {
        let old = before.media.as_ref().map(|m| m.id.as_str());
        store_media(&mut tx, id, old, content.media.as_ref(), now).await?;
    }
    if !changed.is_empty() {
        versions::record_version(&mut tx, id, &admin.username, now, &changed).await?;
    }
    let after = question_in_tx(&mut tx, id).await?;
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        audit::Write {
            action: "question.update",
            target_type: "question",
            target_id: Some(id.as_str()),
            before: snapshot(&before),
            after: snapshot(&after),
        },
    )
    .await?;
    Ok(after)
}

/// Moves one question from one of `sources` (or by the table when `sources` is None) to
/// `to`, with its audit entry; answers the question after the move.
pub(super) async fn move_one(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &QuestionId,
    to: QuestionStatus,
    action: Option<BatchAction>,
    audit_action: &str,
) -> Result<AdminQuestion> {
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let before = question_in_tx(&mut tx, id).await?;
    let allowed = match action {
        Some(action) => action.accepts(before.status),
        None => can_move(before.status, to),
    };
    if !allowed {
        return Err(refused(before.status.as_str(), to));
    }
    check_ready(
        before.content_type,
        before.media.as_ref().map(QuestionMedia::content).as_ref(),
        Some(before.status),
        to,
    )?;
    let moved =
        db::questions::move_status(&mut tx, id, &[before.status.as_str()], to.as_str(), now)
            .await?;
    if !moved {
        return Err(Error::conflict(
            msg::THE_QUESTION_CHANGED_MEANWHILE_READ_IT_AGAIN,
        ));
    }
    let after = question_in_tx(&mut tx, id).await?;
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        audit::Write {
            action: audit_action,
            target_type: "question",
            target_id: Some(id.as_str()),
            before: Some(json!({ "status": before.status })),
            after: Some(json!({ "status": after.status })),
        },
    )
    .await?;
    Ok(after)
}

/// `PATCH /v1/admin/questions/{id}/status`.
pub async fn set_status(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &QuestionId,
    req: &StatusRequest,
) -> Result<AdminQuestion> {
    let to = parse_status(&req.status)?;
    move_one(ctx, admin, id, to, None, "question.status").await
}

/// `DELETE /v1/admin/questions/{id}`: archives from draft, reviewing or published.
pub async fn delete(ctx: &AppContext, admin: &AdminPrincipal, id: &QuestionId) -> Result<()> {
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
pub(super) fn batch_ids(req: &BatchRequest) -> Result<Vec<QuestionId>> {
    if req.ids.is_empty() || req.ids.len() > MAX_BATCH {
        return Err(Error::validation(msg::ids_must_hold_1_max_question_ids(
            MAX_BATCH,
        )));
    }
    let mut seen = HashSet::new();
    let mut ids = Vec::with_capacity(req.ids.len());
    for raw in &req.ids {
        let id = Uuid::parse_str(raw.trim())
            .map(QuestionId::from_uuid)
            .map_err(|_| Error::validation(msg::raw_is_not_a_uuid(raw)))?;
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
    let statuses: std::collections::HashMap<QuestionId, String> =
        db::questions::statuses_in_tx(&mut tx, &not_moved)
            .await?
            .into_iter()
            .collect();
    let failed: Vec<BatchFailure> = not_moved
        .iter()
        .map(|id| BatchFailure {
            id: id.clone(),
            reason: match statuses.get(id) {
                // an accepted status that did not move: the media gate held it
                Some(from) if sources.contains(&from.as_str()) => {
                    msg::MEDIA_IS_REQUIRED_BEFORE_AN_IMAGE_AUDIO_OR_VIDEO_QUESTION
                }
                Some(from) => refused(from, to).public_message(),
                None => msg::NOT_FOUND,
            },
        })
        .collect();
    let audit_action = match action {
        BatchAction::Publish => "question.batch_publish",
        BatchAction::Archive => "question.batch_archive",
        BatchAction::Delete => "question.batch_delete",
        BatchAction::Review => "question.batch_review",
    };
    let outcome = json!({ "status": to.as_str(), "ids": moved, "failed": not_moved });
    commit_many_questions_write(tx, ctx, admin, audit_action, outcome).await?;
    Ok(BatchResult {
        total: ids.len(),
        succeeded: moved.len(),
        failed,
    })
}

/// Commits a write to many questions at once (an import, a batch) with its one audit
/// entry: no single target and no state before, `outcome` after.
pub(super) async fn commit_many_questions_write(
    tx: Tx,
    ctx: &AppContext,
    admin: &AdminPrincipal,
    action: &str,
    outcome: serde_json::Value,
) -> Result<()> {
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        audit::Write {
            action,
            target_type: "question",
            target_id: None,
            before: None,
            after: Some(outcome),
        },
    )
    .await
}

/// Stores the media a write left on a question (`media`; `old` the id it had), keeping
/// the files' unused clocks (see `db::questions::set_media`). A file deleted from the
/// library since it was checked is a 409 (the foreign key refuses it).
pub(super) async fn store_media(
    tx: &mut Tx,
    id: &QuestionId,
    old: Option<&str>,
    media: Option<&MediaContent>,
    now_ms: i64,
) -> Result<()> {
    let stored = db::questions::set_media(
        tx,
        id,
        media.map(|m| (m.id.as_str(), m.alt.as_deref())),
        old,
        now_ms,
    )
    .await;
    match stored {
        Ok(()) => Ok(()),
        Err(sqlx::Error::Database(e)) if e.is_foreign_key_violation() => Err(Error::conflict(
            msg::THE_MEDIA_WAS_REMOVED_FROM_THE_LIBRARY_MEANWHILE,
        )),
        Err(e) => Err(e.into()),
    }
}

/// One question as the API shows it, read inside the write transaction; not found is a
/// 404.
pub(super) async fn question_in_tx(tx: &mut Tx, id: &QuestionId) -> Result<AdminQuestion> {
    db::questions::get_in_tx(tx, id)
        .await?
        .map(AdminQuestion::from)
        .ok_or_else(|| Error::not_found(msg::QUESTION_NOT_FOUND))
}
