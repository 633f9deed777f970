//! Categories (`/v1/admin/categories`): the tracks and their sub-categories.

use super::*;
use crate::closed_set::Submitted;
use crate::domain::category_status::CategoryStatus;
use crate::message::msg;

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub parent_id: Option<String>,
    pub sort_order: i64,
    pub status: CategoryStatus,
    /// Questions of this category that are not archived.
    pub question_count: i64,
    pub icon: String,
}

impl From<CategoryRow> for Category {
    fn from(r: CategoryRow) -> Self {
        Self {
            id: r.id,
            name: r.name,
            slug: r.slug,
            parent_id: r.parent_id,
            sort_order: r.sort_order,
            status: r.status,
            question_count: r.question_count,
            icon: r.icon,
        }
    }
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateCategory {
    /// 1-64 characters of a-z, 0-9, - and _.
    pub id: String,
    /// 1-100 characters.
    pub name: String,
    /// 1-64 characters of a-z, 0-9, - and _; unique.
    pub slug: String,
    /// An existing category.
    pub parent_id: Option<String>,
    /// Default 0.
    pub sort_order: Option<i64>,
    /// 1-64 characters; default `book`.
    pub icon: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateCategory {
    pub name: Option<String>,
    pub slug: Option<String>,
    /// An existing category that is not this one nor one of its descendants; null
    /// makes it a top-level category.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub parent_id: Option<Option<String>>,
    pub sort_order: Option<i64>,
    #[schema(value_type = Option<CategoryStatus>)]
    pub status: Option<Submitted<CategoryStatus>>,
    pub icon: Option<String>,
}

async fn category_or_404(tx: &mut Tx, id: &str) -> Result<CategoryRow> {
    db::catalog::category_in_tx(tx, id)
        .await?
        .ok_or_else(|| Error::not_found(msg::CATEGORY_NOT_FOUND))
}

async fn reread_category(tx: &mut Tx, id: &str) -> Result<Category> {
    db::catalog::category_in_tx(tx, id)
        .await?
        .map(Category::from)
        .ok_or_else(|| Error::internal("category vanished inside its transaction"))
}

/// The last step of every category write: rereads category `id` as the write left it,
/// commits the write with its audit entry (`action`, from `before`) and answers it.
async fn commit_category_write(
    mut tx: Tx,
    ctx: &AppContext,
    admin: &AdminPrincipal,
    action: &str,
    id: &str,
    before: Option<&Category>,
) -> Result<Category> {
    let after = reread_category(&mut tx, id).await?;
    audit::record_and_commit(
        tx,
        ctx,
        admin,
        Write {
            action,
            target_type: "category",
            target_id: Some(id),
            before: before.and_then(to_json),
            after: to_json(&after),
        },
    )
    .await?;
    Ok(after)
}

/// `GET /v1/admin/categories`.
pub async fn list_categories(
    ctx: &AppContext,
    q: &PageQuery,
) -> Result<(Vec<Category>, Pagination)> {
    let (page, limit, offset) = q.resolve()?;
    let (rows, total) = db::catalog::category_page(&ctx.db, limit, offset).await?;
    Ok((
        rows.into_iter().map(Category::from).collect(),
        Pagination { total, page, limit },
    ))
}

/// Every category, for pickers (the catalogue is small: tens of rows).
pub async fn all_categories(ctx: &AppContext) -> Result<Vec<Category>> {
    let (rows, _) = db::catalog::category_page(&ctx.db, 10_000, 0).await?;
    Ok(rows.into_iter().map(Category::from).collect())
}

/// `POST /v1/admin/categories`.
pub async fn create_category(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    req: &CreateCategory,
) -> Result<Category> {
    check_key(&req.id, "id")?;
    let name = check_text(&req.name, "name", 100)?;
    check_key(&req.slug, "slug")?;
    let icon = match &req.icon {
        Some(icon) => check_text(icon, "icon", 64)?,
        None => "book".to_string(),
    };
    let mut tx = ctx.db.begin().await?;
    let (id_taken, slug_taken) =
        db::catalog::category_clashes(&mut tx, &req.id, &req.slug, None).await?;
    if id_taken {
        return Err(Error::validation(
            msg::A_CATEGORY_WITH_THIS_ID_ALREADY_EXISTS,
        ));
    }
    if slug_taken {
        return Err(Error::validation(
            msg::A_CATEGORY_WITH_THIS_SLUG_ALREADY_EXISTS,
        ));
    }
    if let Some(parent) = &req.parent_id
        && db::catalog::category_in_tx(&mut tx, parent)
            .await?
            .is_none()
    {
        return Err(Error::validation(msg::PARENTID_NO_SUCH_CATEGORY));
    }
    db::catalog::insert_category(
        &mut tx,
        &CategoryWrite {
            id: &req.id,
            name: &name,
            slug: &req.slug,
            parent_id: req.parent_id.as_deref(),
            icon: &icon,
            sort_order: req.sort_order.unwrap_or(0),
            status: CategoryStatus::Active,
            now_ms: ctx.clock.now_ms(),
        },
    )
    .await
    .map_err(|e| unique_to_validation(e, msg::A_CATEGORY_WITH_THIS_ID_OR_SLUG_ALREADY_EXISTS))?;
    commit_category_write(tx, ctx, admin, "category.create", &req.id, None).await
}

/// `PUT /v1/admin/categories/:id`.
pub async fn update_category(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &str,
    req: &UpdateCategory,
) -> Result<Category> {
    let name = req
        .name
        .as_deref()
        .map(|n| check_text(n, "name", 100))
        .transpose()?;
    if let Some(slug) = &req.slug {
        check_key(slug, "slug")?;
    }
    let status = match req.status.as_ref() {
        None => None,
        Some(status) => Some(
            status
                .member()
                .ok_or_else(|| Error::validation(msg::STATUS_MUST_BE_ACTIVE_OR_INACTIVE))?,
        ),
    };
    let icon = req
        .icon
        .as_deref()
        .map(|i| check_text(i, "icon", 64))
        .transpose()?;
    let mut tx = ctx.db.begin().await?;
    let current = category_or_404(&mut tx, id).await?;
    let slug = req.slug.clone().unwrap_or_else(|| current.slug.clone());
    if slug != current.slug {
        let (_, slug_taken) = db::catalog::category_clashes(&mut tx, id, &slug, Some(id)).await?;
        if slug_taken {
            return Err(Error::validation(
                msg::A_CATEGORY_WITH_THIS_SLUG_ALREADY_EXISTS,
            ));
        }
    }
    let parent_id = match &req.parent_id {
        None => current.parent_id.clone(),
        Some(None) => None,
        Some(Some(parent)) => {
            if parent == id {
                return Err(Error::validation(msg::A_CATEGORY_CANNOT_BE_ITS_OWN_PARENT));
            }
            if db::catalog::category_in_tx(&mut tx, parent)
                .await?
                .is_none()
            {
                return Err(Error::validation(msg::PARENTID_NO_SUCH_CATEGORY));
            }
            if db::catalog::category_in_ancestry(&mut tx, parent, id).await? {
                return Err(Error::validation(
                    msg::PARENTID_WOULD_MAKE_THE_CATEGORY_ITS_OWN_ANCESTOR,
                ));
            }
            Some(parent.clone())
        }
    };
    let before = Category::from(current.clone());
    db::catalog::update_category(
        &mut tx,
        &CategoryWrite {
            id,
            name: name.as_deref().unwrap_or(&current.name),
            slug: &slug,
            parent_id: parent_id.as_deref(),
            icon: icon.as_deref().unwrap_or(&current.icon),
            sort_order: req.sort_order.unwrap_or(current.sort_order),
            status: status.unwrap_or(current.status),
            now_ms: ctx.clock.now_ms(),
        },
    )
    .await
    .map_err(|e| unique_to_validation(e, msg::A_CATEGORY_WITH_THIS_SLUG_ALREADY_EXISTS))?;
    commit_category_write(tx, ctx, admin, "category.update", id, Some(&before)).await
}

/// `DELETE /v1/admin/categories/:id`: sets the category inactive (it stops being a
/// track and its questions are no longer served) and answers it.
pub async fn archive_category(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &str,
) -> Result<Category> {
    let mut tx = ctx.db.begin().await?;
    let current = category_or_404(&mut tx, id).await?;
    db::catalog::update_category(
        &mut tx,
        &CategoryWrite {
            id,
            name: &current.name,
            slug: &current.slug,
            parent_id: current.parent_id.as_deref(),
            icon: &current.icon,
            sort_order: current.sort_order,
            status: CategoryStatus::Inactive,
            now_ms: ctx.clock.now_ms(),
        },
    )
    .await?;
    let before = Category::from(current);
    commit_category_write(tx, ctx, admin, "category.archive", id, Some(&before)).await
}
