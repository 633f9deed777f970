//! The checks every new or edited question passes (the API, the CSV and JSON imports).

use super::*;
use crate::closed_set::Submitted;
use crate::domain::question_limits as limits;
use crate::message::{Message, msg};

// ---------------------------------------------------------------------------------------
// Item checks

/// A checked item, ready to insert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ValidItem {
    pub(super) category_id: String,
    pub(super) content_type: ContentType,
    pub(super) stem_text: String,
    pub(super) correct_answer: String,
    pub(super) distractors: Vec<String>,
    pub(super) difficulty: i64,
    pub(super) media: Option<MediaContent>,
    pub(super) card: Option<ValidCard>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ValidCard {
    pub(super) title: Option<String>,
    pub(super) summary: String,
    pub(super) deep_dive: Option<String>,
    pub(super) source_ref: Option<String>,
}

pub(super) fn non_empty(s: Option<&str>) -> Option<String> {
    s.map(str::trim).filter(|s| !s.is_empty()).map(String::from)
}

pub(super) fn check_stem(stem: &Stem, errors: &mut Vec<Message>) -> String {
    let text = stem.text.trim();
    if text.is_empty() {
        errors.push(msg::STEM_TEXT_MUST_NOT_BE_EMPTY);
    }
    errors.extend(limits::over_length(
        "stem.text",
        text,
        limits::STEM_MAX_CHARS,
    ));
    text.to_string()
}

pub(super) fn check_content_type(
    ct: &Submitted<ContentType>,
    errors: &mut Vec<Message>,
) -> ContentType {
    ct.member().unwrap_or_else(|| {
        errors.push(msg::CONTENTTYPE_MUST_BE_TEXT_IMAGE_VIDEO_OR_AUDIO);
        ContentType::Text
    })
}

pub(super) fn check_answer(answer: &str, errors: &mut Vec<Message>) -> String {
    let answer = answer.trim();
    if answer.is_empty() {
        errors.push(msg::CORRECTANSWER_MUST_HAVE_AT_LEAST_1_CHARACTER);
    }
    errors.extend(limits::over_length(
        "correctAnswer",
        answer,
        limits::OPTION_MAX_CHARS,
    ));
    answer.to_string()
}

pub(super) fn check_distractors(list: &[String], errors: &mut Vec<Message>) -> Vec<String> {
    let trimmed: Vec<String> = list.iter().map(|d| d.trim().to_string()).collect();
    if trimmed.iter().any(String::is_empty) {
        errors.push(msg::DISTRACTORS_MUST_NOT_CONTAIN_EMPTY_STRINGS);
    }
    if trimmed.iter().filter(|d| !d.is_empty()).count() < 2 {
        errors.push(msg::DISTRACTORS_NEEDS_AT_LEAST_2_ENTRIES);
    }
    errors.extend(limits::too_many_distractors(trimmed.len()));
    for (i, d) in trimmed.iter().enumerate() {
        errors.extend(limits::over_length(
            &format!("distractors[{i}]"),
            d,
            limits::OPTION_MAX_CHARS,
        ));
    }
    trimmed
}

pub(super) fn check_difficulty(d: i64, errors: &mut Vec<Message>) -> i64 {
    if !(1..=5).contains(&d) {
        errors.push(msg::DIFFICULTY_MUST_BE_1_5);
    }
    d
}

pub(super) fn check_category_id(id: &str, errors: &mut Vec<Message>) -> String {
    let id = id.trim();
    if id.is_empty() {
        errors.push(msg::CATEGORYID_IS_REQUIRED);
    }
    id.to_string()
}

/// The lengths of the card fields given (as stored: trimmed), named as in the question's
/// JSON (`knowledgeCard.summary`).
pub(super) fn check_card_lengths(card: &CardInput, errors: &mut Vec<Message>) {
    for (field, value, max_chars) in [
        (
            "knowledgeCard.title",
            &card.title,
            limits::CARD_TITLE_MAX_CHARS,
        ),
        (
            "knowledgeCard.summary",
            &card.summary,
            limits::CARD_SUMMARY_MAX_CHARS,
        ),
        (
            "knowledgeCard.deepDive",
            &card.deep_dive,
            limits::CARD_DEEP_DIVE_MAX_CHARS,
        ),
        (
            "knowledgeCard.sourceRef",
            &card.source_ref,
            limits::CARD_SOURCE_MAX_CHARS,
        ),
    ] {
        if let Some(value) = value {
            errors.extend(limits::over_length(field, value.trim(), max_chars));
        }
    }
}

pub(super) fn check_new_card(card: &CardInput, errors: &mut Vec<Message>) -> Option<ValidCard> {
    check_card_lengths(card, errors);
    match non_empty(card.summary.as_deref()) {
        Some(summary) => Some(ValidCard {
            title: non_empty(card.title.as_deref()),
            summary,
            deep_dive: non_empty(card.deep_dive.as_deref()),
            source_ref: non_empty(card.source_ref.as_deref()),
        }),
        None => {
            errors.push(msg::KNOWLEDGECARD_SUMMARY_IS_REQUIRED);
            None
        }
    }
}

/// `check` of a required field's value, or `None` with its "is required" error when the
/// field is missing (the caller puts a placeholder there: the item is refused anyway).
fn check_required<T: ?Sized, V>(
    value: Option<&T>,
    field: &str,
    errors: &mut Vec<Message>,
    check: impl FnOnce(&T, &mut Vec<Message>) -> V,
) -> Option<V> {
    match value {
        Some(value) => Some(check(value, errors)),
        None => {
            errors.push(msg::field_is_required(field));
            None
        }
    }
}

/// Most characters of a media's alternative text.
pub(super) const MAX_ALT: usize = 300;

/// A question's media as sent, checked on its own and against the question's
/// `contentType` (whether the file exists and is of that kind is [`check_media_files`]).
pub(super) fn check_media(
    media: &QuestionMedia,
    content_type: ContentType,
    errors: &mut Vec<Message>,
) -> Option<MediaContent> {
    let before = errors.len();
    if content_type == ContentType::Text {
        errors.push(msg::MEDIA_A_TEXT_QUESTION_HAS_NO_MEDIA);
    }
    let id = media.id.trim().to_ascii_lowercase();
    if !crate::services::media::is_media_id(&id) {
        errors.push(msg::MEDIA_ID_MUST_BE_A_MEDIA_ID);
    }
    let alt = non_empty(media.alt.as_deref());
    match &alt {
        None if content_type == ContentType::Image => {
            errors.push(msg::MEDIA_ALT_IS_REQUIRED_FOR_AN_IMAGE);
        }
        Some(a) if a.chars().count() > MAX_ALT => {
            errors.push(msg::media_alt_must_be_at_most_max_characters(MAX_ALT));
        }
        _ => {}
    }
    (errors.len() == before).then_some(MediaContent { id, alt })
}

/// Refuses media that is not in the library or not of its question's kind: `items`
/// are (media, the question's contentType), the errors go with each.
pub(super) async fn check_media_files(
    ctx: &AppContext,
    items: &[(&MediaContent, ContentType)],
) -> Result<Vec<Option<Message>>> {
    let ids: Vec<&str> = items.iter().map(|(m, _)| m.id.as_str()).collect();
    let kinds = db::media::kinds(&ctx.db, &ids).await?;
    Ok(items
        .iter()
        .map(|(m, content_type)| match kinds.get(&m.id) {
            None => Some(msg::media_id_is_not_in_the_media_library(&m.id)),
            Some(kind) if kind.as_str() != content_type.as_str() => Some(
                msg::media_id_is_kind_the_questions_content_type_is(kind, content_type),
            ),
            Some(_) => None,
        })
        .collect())
}

/// Whether a question of `content_type` with `media` may move from `from` to `to`: an
/// image, audio or video question is published, or goes from draft to review, only
/// with its media (a published one can always be sent back to review).
pub(super) fn check_ready(
    content_type: ContentType,
    media: Option<&MediaContent>,
    from: Option<QuestionStatus>,
    to: QuestionStatus,
) -> Result<()> {
    let gated = to == QuestionStatus::Published
        || (to == QuestionStatus::Reviewing && from == Some(QuestionStatus::Draft));
    if gated && content_type != ContentType::Text && media.is_none() {
        return Err(Error::validation(msg::media_is_required_before_review(
            content_type,
        )));
    }
    Ok(())
}

/// The import item rules, except whether the category exists (checked for all items at
/// once by [`check_categories`]).
pub(super) fn check_item(input: &QuestionInput) -> std::result::Result<ValidItem, Vec<Message>> {
    let mut errors = Vec::new();
    let stem_text =
        check_required(input.stem.as_ref(), "stem", &mut errors, check_stem).unwrap_or_default();
    let content_type = check_required(
        input.content_type.as_ref(),
        "contentType",
        &mut errors,
        check_content_type,
    )
    .unwrap_or(ContentType::Text);
    let correct_answer = check_required(
        input.correct_answer.as_deref(),
        "correctAnswer",
        &mut errors,
        check_answer,
    )
    .unwrap_or_default();
    let distractors = check_required(
        input.distractors.as_deref(),
        "distractors",
        &mut errors,
        check_distractors,
    )
    .unwrap_or_default();
    let category_id = check_required(
        input.category_id.as_deref(),
        "categoryId",
        &mut errors,
        check_category_id,
    )
    .unwrap_or_default();
    let difficulty = check_difficulty(input.difficulty.unwrap_or(1), &mut errors);
    let card = input
        .knowledge_card
        .as_ref()
        .and_then(|c| check_new_card(c, &mut errors));
    let media = input
        .media
        .as_ref()
        .and_then(|m| check_media(m, content_type, &mut errors));
    if errors.is_empty() {
        Ok(ValidItem {
            category_id,
            content_type,
            stem_text,
            correct_answer,
            distractors,
            difficulty,
            media,
            card,
        })
    } else {
        Err(errors)
    }
}

/// Which of `ids` name no category (one query).
pub(super) async fn missing_categories(ctx: &AppContext, ids: &[&str]) -> Result<HashSet<String>> {
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
pub(super) async fn check_items(
    ctx: &AppContext,
    items: Vec<std::result::Result<QuestionInput, Message>>,
) -> Result<Vec<ValidItem>> {
    let mut checked: Vec<std::result::Result<ValidItem, Vec<Message>>> = items
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
            let refusal = msg::category_id_cat_does_not_exist(cat);
            match result {
                Ok(_) => *result = Err(vec![refusal]),
                Err(errors) => errors.push(refusal),
            }
        }
    }
    let with_media: Vec<(usize, &MediaContent, ContentType)> = checked
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            r.as_ref()
                .ok()
                .and_then(|v| Some((i, v.media.as_ref()?, v.content_type)))
        })
        .collect();
    if !with_media.is_empty() {
        let pairs: Vec<(&MediaContent, ContentType)> =
            with_media.iter().map(|(_, m, c)| (*m, *c)).collect();
        let verdicts = check_media_files(ctx, &pairs).await?;
        let refused: Vec<(usize, Message)> = with_media
            .iter()
            .zip(verdicts)
            .filter_map(|((i, _, _), v)| v.map(|refusal| (*i, refusal)))
            .collect();
        for (i, refusal) in refused {
            checked[i] = Err(vec![refusal]);
        }
    }
    let failures: Vec<ItemFailure> = checked
        .iter()
        .enumerate()
        .filter_map(|(index, r)| {
            r.as_ref().err().map(|errors| ItemFailure {
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

/// Inserts a checked item as a draft with its card and its version 1; answers its id.
pub(super) async fn insert_item(
    tx: &mut Tx,
    item: &ValidItem,
    edited_by: &str,
    now_ms: i64,
) -> Result<QuestionId> {
    let id = QuestionId::generate();
    let distractors_json = serde_json::to_string(&item.distractors).map_err(Error::internal)?;
    db::questions::insert(
        tx,
        &NewQuestion {
            fields: QuestionFields {
                id: &id,
                category_id: &item.category_id,
                stem_text: &item.stem_text,
                content_type: item.content_type,
                correct_answer: &item.correct_answer,
                distractors_json: &distractors_json,
                difficulty: item.difficulty,
                status: QuestionStatus::Draft.as_str(),
            },
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
    if item.media.is_some() {
        super::writing::store_media(tx, &id, None, item.media.as_ref(), now_ms).await?;
    }
    super::record_version(tx, &id, edited_by, now_ms, &[]).await?;
    Ok(id)
}

pub(super) fn snapshot(q: &AdminQuestion) -> Option<serde_json::Value> {
    serde_json::to_value(q).ok()
}

pub(super) fn parse_status(s: &Submitted<QuestionStatus>) -> Result<QuestionStatus> {
    s.member()
        .ok_or_else(|| Error::validation(msg::STATUS_MUST_BE_DRAFT_REVIEWING_PUBLISHED_OR_ARCHIVED))
}

pub(super) fn refused(from: &str, to: QuestionStatus) -> Error {
    Error::InvalidStatusTransition {
        from: from.to_string(),
        to: to.to_string(),
    }
}
