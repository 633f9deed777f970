//! Categories, knowledge cards and the skill tree (admin): `/v1/admin/categories`,
//! `/v1/admin/knowledge-cards`, `/v1/admin/skill-tree`. Every write records its audit
//! entry in its own transaction.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::clock::from_ms;
use crate::context::AppContext;
use crate::db::catalog::{CardRow, CategoryRow, CategoryWrite, SkillNodeRow};
use crate::db::{self, Tx};
use crate::envelope::Pagination;
use crate::services::admin_auth::AdminPrincipal;
use crate::services::audit::{self, PageQuery, Write};
use crate::{Error, Result};

/// Reads a field that may be absent (`None`), null (`Some(None)`) or a value.
fn nullable<'de, D, T>(d: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// 1-64 characters of `a-z`, `0-9`, `-` and `_` (category ids and slugs).
fn check_key(value: &str, field: &str) -> Result<()> {
    let valid = (1..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(Error::validation(format!(
            "{field} must be 1-64 characters of a-z, 0-9, - and _"
        )))
    }
}

/// Trimmed text of 1..=`max` characters.
fn check_text(value: &str, field: &str, max: usize) -> Result<String> {
    let v = value.trim();
    let len = v.chars().count();
    if len == 0 || len > max {
        return Err(Error::validation(format!(
            "{field} must be 1-{max} characters"
        )));
    }
    Ok(v.to_string())
}

fn to_json<T: Serialize>(value: &T) -> Option<serde_json::Value> {
    serde_json::to_value(value).ok()
}

fn unique_to_validation(e: sqlx::Error, message: &str) -> Error {
    if db::is_unique_violation(&e) {
        Error::validation(message)
    } else {
        e.into()
    }
}

// ---------------------------------------------------------------------------------------
// Categories

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub parent_id: Option<String>,
    pub sort_order: i64,
    /// `active` or `inactive`.
    pub status: String,
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
    /// `active` or `inactive`.
    pub status: Option<String>,
    pub icon: Option<String>,
}

async fn category_or_404(tx: &mut Tx, id: &str) -> Result<CategoryRow> {
    db::catalog::category_in_tx(tx, id)
        .await?
        .ok_or_else(|| Error::not_found("category not found"))
}

async fn reread_category(tx: &mut Tx, id: &str) -> Result<Category> {
    db::catalog::category_in_tx(tx, id)
        .await?
        .map(Category::from)
        .ok_or_else(|| Error::internal("category vanished inside its transaction"))
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
        return Err(Error::validation("a category with this id already exists"));
    }
    if slug_taken {
        return Err(Error::validation(
            "a category with this slug already exists",
        ));
    }
    if let Some(parent) = &req.parent_id
        && db::catalog::category_in_tx(&mut tx, parent)
            .await?
            .is_none()
    {
        return Err(Error::validation("parentId: no such category"));
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
            status: "active",
            now_ms: ctx.clock.now_ms(),
        },
    )
    .await
    .map_err(|e| unique_to_validation(e, "a category with this id or slug already exists"))?;
    let created = reread_category(&mut tx, &req.id).await?;
    audit::record(
        &mut tx,
        ctx,
        admin,
        Write {
            action: "category.create",
            target_type: "category",
            target_id: Some(&created.id),
            before: None,
            after: to_json(&created),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(created)
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
    if let Some(status) = &req.status
        && status != "active"
        && status != "inactive"
    {
        return Err(Error::validation("status must be active or inactive"));
    }
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
                "a category with this slug already exists",
            ));
        }
    }
    let parent_id = match &req.parent_id {
        None => current.parent_id.clone(),
        Some(None) => None,
        Some(Some(parent)) => {
            if parent == id {
                return Err(Error::validation("a category cannot be its own parent"));
            }
            if db::catalog::category_in_tx(&mut tx, parent)
                .await?
                .is_none()
            {
                return Err(Error::validation("parentId: no such category"));
            }
            if db::catalog::category_in_ancestry(&mut tx, parent, id).await? {
                return Err(Error::validation(
                    "parentId would make the category its own ancestor",
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
            status: req.status.as_deref().unwrap_or(&current.status),
            now_ms: ctx.clock.now_ms(),
        },
    )
    .await
    .map_err(|e| unique_to_validation(e, "a category with this slug already exists"))?;
    let updated = reread_category(&mut tx, id).await?;
    audit::record(
        &mut tx,
        ctx,
        admin,
        Write {
            action: "category.update",
            target_type: "category",
            target_id: Some(id),
            before: to_json(&before),
            after: to_json(&updated),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(updated)
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
            status: "inactive",
            now_ms: ctx.clock.now_ms(),
        },
    )
    .await?;
    let updated = reread_category(&mut tx, id).await?;
    audit::record(
        &mut tx,
        ctx,
        admin,
        Write {
            action: "category.archive",
            target_type: "category",
            target_id: Some(id),
            before: to_json(&Category::from(current)),
            after: to_json(&updated),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(updated)
}

// ---------------------------------------------------------------------------------------
// Knowledge cards

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminKnowledgeCard {
    pub id: String,
    pub question_id: String,
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
    /// Not empty.
    pub summary: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub deep_dive: Option<Option<String>>,
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
pub async fn card_of_question(ctx: &AppContext, question_id: &str) -> Result<AdminKnowledgeCard> {
    if !db::gameplay::question_exists(&ctx.db, question_id).await? {
        return Err(Error::not_found("question not found"));
    }
    db::catalog::card_of_question(&ctx.db, question_id)
        .await?
        .map(AdminKnowledgeCard::from)
        .ok_or_else(|| Error::not_found("this question has no knowledge card"))
}

/// One card by its id (the console's card editor).
pub async fn get_card(ctx: &AppContext, id: &str) -> Result<AdminKnowledgeCard> {
    db::catalog::card(&ctx.db, id)
        .await?
        .map(AdminKnowledgeCard::from)
        .ok_or_else(|| Error::not_found("knowledge card not found"))
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
            "give at least one of title, summary, deepDive, sourceRef",
        ));
    }
    let title = match &req.title {
        None => None,
        Some(t) => {
            let t = t.as_deref().map(str::trim).unwrap_or_default();
            if t.chars().count() > 200 {
                return Err(Error::validation("title must be at most 200 characters"));
            }
            Some((!t.is_empty()).then(|| t.to_string()))
        }
    };
    let summary = match &req.summary {
        None => None,
        Some(s) if s.trim().is_empty() => {
            return Err(Error::validation("summary must not be empty"));
        }
        Some(s) => Some(s.trim().to_string()),
    };
    let mut tx = ctx.db.begin().await?;
    let current = db::catalog::card_in_tx(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("knowledge card not found"))?;
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
    next.updated_at = ctx.clock.now_ms();
    db::catalog::update_card(&mut tx, &next).await?;
    let before = AdminKnowledgeCard::from(current);
    let after = AdminKnowledgeCard::from(next);
    audit::record(
        &mut tx,
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
    tx.commit().await?;
    Ok(after)
}

// ---------------------------------------------------------------------------------------
// Skill tree

/// Most questions a node may require.
pub const MAX_QUESTIONS_REQUIRED: i64 = 20;
const DEFAULT_QUESTIONS_REQUIRED: i64 = 5;
const DEFAULT_PASS_THRESHOLD: i64 = 3;

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillNode {
    /// The chapter id that track nodes show.
    pub id: String,
    pub category_id: String,
    pub title: String,
    pub parent_id: Option<String>,
    pub sort_order: i64,
    pub questions_required: i64,
    pub pass_threshold: i64,
}

impl From<SkillNodeRow> for SkillNode {
    fn from(r: SkillNodeRow) -> Self {
        Self {
            id: r.id,
            category_id: r.category_id,
            title: r.title,
            parent_id: r.parent_id,
            sort_order: r.sort_order,
            questions_required: r.questions_required,
            pass_threshold: r.pass_threshold,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct SkillTreeQuery {
    /// Only this category's nodes; without it (or empty), every node.
    pub category_id: Option<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateSkillNode {
    /// An existing category.
    pub category_id: String,
    /// 1-100 characters.
    pub title: String,
    /// A node of the same category.
    pub parent_id: Option<String>,
    /// Default: after the category's last node.
    pub sort_order: Option<i64>,
    /// 1-20, default 5.
    pub questions_required: Option<i64>,
    /// 1..=questionsRequired, default 3 (or questionsRequired when that is smaller).
    pub pass_threshold: Option<i64>,
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateSkillNode {
    /// Moving to another category needs a node without children, and a parent of
    /// that category (or null).
    pub category_id: Option<String>,
    pub title: Option<String>,
    /// A node of the same category that is not this one nor one of its descendants;
    /// null makes it a root.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub parent_id: Option<Option<String>>,
    pub sort_order: Option<i64>,
    /// 1-20; a stored passThreshold above it is lowered to it when passThreshold is
    /// not given.
    pub questions_required: Option<i64>,
    /// 1..=questionsRequired.
    pub pass_threshold: Option<i64>,
}

fn check_questions_required(n: i64) -> Result<i64> {
    if (1..=MAX_QUESTIONS_REQUIRED).contains(&n) {
        Ok(n)
    } else {
        Err(Error::validation(format!(
            "questionsRequired must be 1-{MAX_QUESTIONS_REQUIRED}"
        )))
    }
}

fn check_pass_threshold(n: i64, questions_required: i64) -> Result<i64> {
    if (1..=questions_required).contains(&n) {
        Ok(n)
    } else {
        Err(Error::validation(format!(
            "passThreshold must be 1-{questions_required} (questionsRequired)"
        )))
    }
}

/// Checks that `parent` is a node of `category_id`.
async fn check_parent_node(tx: &mut Tx, parent: &str, category_id: &str) -> Result<()> {
    match db::catalog::node_in_tx(tx, parent).await? {
        Some(p) if p.category_id == category_id => Ok(()),
        Some(_) => Err(Error::validation(
            "parentId must be a node of the same category",
        )),
        None => Err(Error::validation("parentId: no such skill-tree node")),
    }
}

/// `GET /v1/admin/skill-tree`.
pub async fn list_nodes(ctx: &AppContext, q: &SkillTreeQuery) -> Result<Vec<SkillNode>> {
    let category = q
        .category_id
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let rows = db::catalog::nodes(&ctx.db, category).await?;
    Ok(rows.into_iter().map(SkillNode::from).collect())
}

/// `POST /v1/admin/skill-tree`.
pub async fn create_node(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    req: &CreateSkillNode,
) -> Result<SkillNode> {
    let title = check_text(&req.title, "title", 100)?;
    let questions_required =
        check_questions_required(req.questions_required.unwrap_or(DEFAULT_QUESTIONS_REQUIRED))?;
    let pass_threshold = check_pass_threshold(
        req.pass_threshold
            .unwrap_or(DEFAULT_PASS_THRESHOLD.min(questions_required)),
        questions_required,
    )?;
    let mut tx = ctx.db.begin().await?;
    if db::catalog::category_in_tx(&mut tx, &req.category_id)
        .await?
        .is_none()
    {
        return Err(Error::validation("categoryId: no such category"));
    }
    if let Some(parent) = &req.parent_id {
        check_parent_node(&mut tx, parent, &req.category_id).await?;
    }
    let sort_order = match req.sort_order {
        Some(s) => s,
        None => db::catalog::next_node_order(&mut tx, &req.category_id).await?,
    };
    let row = SkillNodeRow {
        id: Uuid::new_v4().to_string(),
        category_id: req.category_id.clone(),
        title,
        parent_id: req.parent_id.clone(),
        sort_order,
        questions_required,
        pass_threshold,
    };
    db::catalog::insert_node(&mut tx, &row, ctx.clock.now_ms()).await?;
    let node = SkillNode::from(row);
    audit::record(
        &mut tx,
        ctx,
        admin,
        Write {
            action: "skill_node.create",
            target_type: "skill_node",
            target_id: Some(&node.id),
            before: None,
            after: to_json(&node),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(node)
}

/// `PUT /v1/admin/skill-tree/:id`.
pub async fn update_node(
    ctx: &AppContext,
    admin: &AdminPrincipal,
    id: &str,
    req: &UpdateSkillNode,
) -> Result<SkillNode> {
    let title = req
        .title
        .as_deref()
        .map(|t| check_text(t, "title", 100))
        .transpose()?;
    if let Some(n) = req.questions_required {
        check_questions_required(n)?;
    }
    let mut tx = ctx.db.begin().await?;
    let current = db::catalog::node_in_tx(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("skill-tree node not found"))?;
    let category_id = req
        .category_id
        .clone()
        .unwrap_or_else(|| current.category_id.clone());
    if category_id != current.category_id {
        if db::catalog::category_in_tx(&mut tx, &category_id)
            .await?
            .is_none()
        {
            return Err(Error::validation("categoryId: no such category"));
        }
        if db::catalog::child_count(&mut tx, id).await? > 0 {
            return Err(Error::validation(
                "a node with children cannot move to another category",
            ));
        }
    }
    let parent_id = match &req.parent_id {
        Some(None) => None,
        Some(Some(parent)) => {
            if parent == id {
                return Err(Error::validation("a node cannot be its own parent"));
            }
            check_parent_node(&mut tx, parent, &category_id).await?;
            if db::catalog::node_in_ancestry(&mut tx, parent, id).await? {
                return Err(Error::validation(
                    "parentId would make the node its own ancestor",
                ));
            }
            Some(parent.clone())
        }
        None => {
            if let Some(parent) = &current.parent_id
                && category_id != current.category_id
            {
                check_parent_node(&mut tx, parent, &category_id).await?;
            }
            current.parent_id.clone()
        }
    };
    let questions_required = req.questions_required.unwrap_or(current.questions_required);
    let pass_threshold = match req.pass_threshold {
        Some(p) => check_pass_threshold(p, questions_required)?,
        None => current.pass_threshold.min(questions_required),
    };
    let next = SkillNodeRow {
        id: current.id.clone(),
        category_id,
        title: title.unwrap_or_else(|| current.title.clone()),
        parent_id,
        sort_order: req.sort_order.unwrap_or(current.sort_order),
        questions_required,
        pass_threshold,
    };
    db::catalog::update_node(&mut tx, &next, ctx.clock.now_ms()).await?;
    let before = SkillNode::from(current);
    let after = SkillNode::from(next);
    audit::record(
        &mut tx,
        ctx,
        admin,
        Write {
            action: "skill_node.update",
            target_type: "skill_node",
            target_id: Some(id),
            before: to_json(&before),
            after: to_json(&after),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(after)
}

/// `DELETE /v1/admin/skill-tree/:id`: its children move up to its parent, in one
/// transaction.
pub async fn delete_node(ctx: &AppContext, admin: &AdminPrincipal, id: &str) -> Result<()> {
    let mut tx = ctx.db.begin().await?;
    let current = db::catalog::node_in_tx(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("skill-tree node not found"))?;
    db::catalog::delete_node(
        &mut tx,
        id,
        current.parent_id.as_deref(),
        ctx.clock.now_ms(),
    )
    .await?;
    audit::record(
        &mut tx,
        ctx,
        admin,
        Write {
            action: "skill_node.delete",
            target_type: "skill_node",
            target_id: Some(id),
            before: to_json(&SkillNode::from(current)),
            after: None,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_take_lowercase_digits_dash_underscore() {
        assert!(check_key("world-geo_2", "id").is_ok());
        assert!(check_key("", "id").is_err());
        assert!(check_key("Upper", "id").is_err());
        assert!(check_key("with space", "id").is_err());
        assert!(check_key(&"a".repeat(64), "id").is_ok());
        assert!(check_key(&"a".repeat(65), "id").is_err());
    }

    #[test]
    fn nullable_fields_tell_absent_from_null() {
        let absent: UpdateCategory = serde_json::from_str("{}").unwrap_or_default();
        assert_eq!(absent.parent_id, None);
        let null: UpdateCategory = serde_json::from_str(r#"{"parentId":null}"#).unwrap_or_default();
        assert_eq!(null.parent_id, Some(None));
        let set: UpdateCategory = serde_json::from_str(r#"{"parentId":"x"}"#).unwrap_or_default();
        assert_eq!(set.parent_id, Some(Some("x".to_string())));
    }

    #[test]
    fn pass_threshold_stays_within_questions_required() {
        assert!(check_pass_threshold(3, 5).is_ok());
        assert!(check_pass_threshold(6, 5).is_err());
        assert!(check_pass_threshold(0, 5).is_err());
        assert!(check_questions_required(21).is_err());
        assert!(check_questions_required(0).is_err());
    }
}
