//! The skill tree (`/v1/admin/skill-tree`): a track's chapter nodes.

use super::*;
use crate::message::msg;

/// Most questions a node may require.
pub const MAX_QUESTIONS_REQUIRED: i64 = 20;
// a challenge's questions come from one pick window (`domain::pick`)
const _: () = assert!(MAX_QUESTIONS_REQUIRED as usize <= crate::domain::pick::WINDOW);
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

pub(super) fn check_questions_required(n: i64) -> Result<i64> {
    if (1..=MAX_QUESTIONS_REQUIRED).contains(&n) {
        Ok(n)
    } else {
        Err(Error::validation(msg::questionsrequired_must_be_1_max(
            MAX_QUESTIONS_REQUIRED,
        )))
    }
}

pub(super) fn check_pass_threshold(n: i64, questions_required: i64) -> Result<i64> {
    if (1..=questions_required).contains(&n) {
        Ok(n)
    } else {
        Err(Error::validation(
            msg::passthreshold_must_be_1_max_questionsrequired(questions_required),
        ))
    }
}

/// Checks that `parent` is a node of `category_id`.
async fn check_parent_node(tx: &mut Tx, parent: &str, category_id: &str) -> Result<()> {
    match db::catalog::node_in_tx(tx, parent).await? {
        Some(p) if p.category_id == category_id => Ok(()),
        Some(_) => Err(Error::validation(
            msg::PARENTID_MUST_BE_A_NODE_OF_THE_SAME_CATEGORY,
        )),
        None => Err(Error::validation(msg::PARENTID_NO_SUCH_SKILL_TREE_NODE)),
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
        return Err(Error::validation(msg::CATEGORYID_NO_SUCH_CATEGORY));
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
    audit::record_and_commit(
        tx,
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
        .ok_or_else(|| Error::not_found(msg::SKILL_TREE_NODE_NOT_FOUND))?;
    let category_id = req
        .category_id
        .clone()
        .unwrap_or_else(|| current.category_id.clone());
    if category_id != current.category_id {
        if db::catalog::category_in_tx(&mut tx, &category_id)
            .await?
            .is_none()
        {
            return Err(Error::validation(msg::CATEGORYID_NO_SUCH_CATEGORY));
        }
        if db::catalog::child_count(&mut tx, id).await? > 0 {
            return Err(Error::validation(
                msg::A_NODE_WITH_CHILDREN_CANNOT_MOVE_TO_ANOTHER_CATEGORY,
            ));
        }
    }
    let parent_id = match &req.parent_id {
        Some(None) => None,
        Some(Some(parent)) => {
            if parent == id {
                return Err(Error::validation(msg::A_NODE_CANNOT_BE_ITS_OWN_PARENT));
            }
            check_parent_node(&mut tx, parent, &category_id).await?;
            if db::catalog::node_in_ancestry(&mut tx, parent, id).await? {
                return Err(Error::validation(
                    msg::PARENTID_WOULD_MAKE_THE_NODE_ITS_OWN_ANCESTOR,
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
    audit::record_and_commit(
        tx,
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
    Ok(after)
}

/// `DELETE /v1/admin/skill-tree/:id`: its children move up to its parent, in one
/// transaction.
pub async fn delete_node(ctx: &AppContext, admin: &AdminPrincipal, id: &str) -> Result<()> {
    let mut tx = ctx.db.begin().await?;
    let current = db::catalog::node_in_tx(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found(msg::SKILL_TREE_NODE_NOT_FOUND))?;
    db::catalog::delete_node(
        &mut tx,
        id,
        current.parent_id.as_deref(),
        ctx.clock.now_ms(),
    )
    .await?;
    audit::record_and_commit(
        tx,
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
    Ok(())
}
