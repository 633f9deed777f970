//! The question list and one question.

use super::*;

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
        Some("accuracy") => SortBy::Accuracy,
        Some("attempts") => SortBy::Attempts,
        Some("severity") => SortBy::Severity,
        Some(_) => {
            return Err(Error::validation(
                "sortBy must be createdAt, updatedAt, difficulty, accuracy, attempts or severity",
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
        flagged: q.flagged.unwrap_or(false),
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
