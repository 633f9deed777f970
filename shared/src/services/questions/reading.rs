//! The question list and one question.

use super::*;
use crate::closed_set::Submitted;
use crate::message::msg;

// ---------------------------------------------------------------------------------------
// Reading

/// `GET /v1/admin/questions`.
pub async fn list(ctx: &AppContext, q: &ListQuery) -> Result<(Vec<AdminQuestion>, Pagination)> {
    let (page, limit, offset) = PageQuery {
        page: q.page,
        limit: q.limit,
    }
    .resolve()?;
    let filter = list_filter(&FilterParams {
        status: q.status.as_ref(),
        category_id: q.category_id.as_deref(),
        keyword: q.keyword.as_deref(),
        difficulty: q.difficulty,
        source: q.source.as_ref(),
        flagged: q.flagged,
    })?;
    let sort = match q.sort_by.as_deref() {
        None | Some("createdAt") => SortBy::CreatedAt,
        Some("updatedAt") => SortBy::UpdatedAt,
        Some("difficulty") => SortBy::Difficulty,
        Some("accuracy") => SortBy::Accuracy,
        Some("attempts") => SortBy::Attempts,
        Some("severity") => SortBy::Severity,
        Some(_) => {
            return Err(Error::validation(
                msg::SORTBY_MUST_BE_CREATEDAT_UPDATEDAT_DIFFICULTY_ACCURACY_ATTEM,
            ));
        }
    };
    let descending = match q.sort_order.as_deref() {
        None | Some("desc") => true,
        Some("asc") => false,
        Some(_) => return Err(Error::validation(msg::SORTORDER_MUST_BE_ASC_OR_DESC)),
    };
    let (rows, total) = crate::lagging_read!(ctx, |db| {
        db::questions::page(db, &filter, sort, descending, limit, offset).await
    })?;
    Ok((
        rows.into_iter().map(AdminQuestion::from).collect(),
        Pagination { total, page, limit },
    ))
}

/// The filters of the list and the export, as the query gave them.
pub(super) struct FilterParams<'a> {
    pub(super) status: Option<&'a Submitted<QuestionStatus>>,
    pub(super) category_id: Option<&'a str>,
    pub(super) keyword: Option<&'a str>,
    pub(super) difficulty: Option<i64>,
    pub(super) source: Option<&'a Submitted<QuestionSource>>,
    pub(super) flagged: Option<bool>,
}

/// Checks the filters (the list and the export refuse the same values with the same
/// errors); an empty category or a blank keyword filters nothing.
pub(super) fn list_filter(p: &FilterParams<'_>) -> Result<ListFilter> {
    let status = match p.status {
        None => None,
        Some(s) => Some(parse_status(s)?.as_str().to_string()),
    };
    if let Some(d) = p.difficulty
        && !(1..=5).contains(&d)
    {
        return Err(Error::validation(msg::DIFFICULTY_MUST_BE_1_5));
    }
    let source = match p.source.map(Submitted::member) {
        None => None,
        Some(Some(source)) => Some(source.as_str().to_string()),
        Some(None) => return Err(Error::validation(msg::SOURCE_MUST_BE_SYSTEM_OR_UGC)),
    };
    let keyword = p
        .keyword
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string);
    Ok(ListFilter {
        status,
        category_id: p.category_id.filter(|c| !c.is_empty()).map(str::to_string),
        keyword,
        difficulty: p.difficulty,
        source,
        flagged: p.flagged.unwrap_or(false),
    })
}

/// `GET /v1/admin/questions/{id}`.
pub async fn get(ctx: &AppContext, id: &QuestionId) -> Result<AdminQuestion> {
    db::questions::get(&ctx.db, id)
        .await?
        .map(AdminQuestion::from)
        .ok_or_else(|| Error::not_found(msg::QUESTION_NOT_FOUND))
}
