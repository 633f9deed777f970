//! The skill tree of one category: its chapter nodes as a nested list (by parent, in
//! sortOrder), with forms to add, edit, reorder and delete nodes, over
//! `shared::services::catalog`. Reordering swaps sortOrder with the neighbouring
//! sibling through `update_node`.

use std::collections::{HashMap, HashSet};

use askama::Template;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::domain::category_status::CategoryStatus;
use shared::message::msg;
use shared::services::catalog::{
    self, Category, CreateSkillNode, MAX_QUESTIONS_REQUIRED, SkillNode, SkillTreeQuery,
    UpdateSkillNode,
};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::fields::{non_empty, parse_int};
use super::i18n;
use super::nav::Nav;
use super::page::HxRequest;
use super::page::{
    Chrome, FormOf, PageError, PageResult, html, page, redirect_with, save_or_rerender,
};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::SKILL_TREE, get(show))
        .route(urls::SKILL_TREE_NODES, post(create))
        .route(urls::pattern::SKILL_NODE, get(edit_form).post(save))
        .route(urls::pattern::SKILL_NODE_MOVE, post(move_node))
        .route(urls::pattern::SKILL_NODE_DELETE, post(delete))
}

// ---------------------------------------------------------------------------------------
// The tree

/// One node in pre-order, with what the template needs to nest it.
pub struct TreeRow {
    pub node: SkillNode,
    pub depth: usize,
    pub has_children: bool,
    /// How many enclosing `<ul>`s end after this (leaf) node.
    pub close_after: usize,
    /// First or last among its siblings (no move up, no move down).
    pub first: bool,
    pub last: bool,
    /// For pickers: the title indented by depth.
    pub label: String,
}

impl TreeRow {
    /// Its place and challenge, as the tree shows them under its title.
    pub fn meta(&self) -> String {
        i18n::t3(
            "tree-node-meta",
            ("order", &self.node.sort_order),
            ("questions", &i18n::num(self.node.questions_required)),
            ("pass", &i18n::num(self.node.pass_threshold)),
        )
    }
}

/// The parent a node is shown under: its parent when that is a node of the same
/// category, else none (a root).
fn shown_parent(node: &SkillNode, ids: &HashSet<&str>) -> Option<String> {
    node.parent_id
        .as_deref()
        .filter(|p| ids.contains(p) && *p != node.id)
        .map(str::to_string)
}

/// Arranges one category's nodes (in sortOrder, id order, as the service lists them)
/// into pre-order rows.
pub fn tree_rows(nodes: &[SkillNode]) -> Vec<TreeRow> {
    let ids: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let mut children: HashMap<Option<String>, Vec<&SkillNode>> = HashMap::new();
    for n in nodes {
        children.entry(shown_parent(n, &ids)).or_default().push(n);
    }
    let mut rows: Vec<TreeRow> = Vec::with_capacity(nodes.len());
    let mut seen: HashSet<&str> = HashSet::new();
    // Depth-first, iteratively: (node, depth, first, last).
    let mut stack: Vec<(&SkillNode, usize, bool, bool)> = Vec::new();
    push_children(&mut stack, &children, None, 0);
    loop {
        while let Some((node, depth, first, last)) = stack.pop() {
            if !seen.insert(node.id.as_str()) {
                continue;
            }
            let has_children = children
                .get(&Some(node.id.clone()))
                .is_some_and(|kids| kids.iter().any(|k| !seen.contains(k.id.as_str())));
            rows.push(TreeRow {
                label: format!("{}{}", "— ".repeat(depth), node.title),
                node: node.clone(),
                depth,
                has_children,
                close_after: 0,
                first,
                last,
            });
            push_children(&mut stack, &children, Some(node.id.clone()), depth + 1);
        }
        // Nodes in a parent cycle (never written by the service) still show, as roots.
        match nodes.iter().find(|n| !seen.contains(n.id.as_str())) {
            Some(n) => stack.push((n, 0, false, false)),
            None => break,
        }
    }
    for i in 0..rows.len() {
        if !rows[i].has_children {
            let next_depth = rows.get(i + 1).map_or(0, |r| r.depth);
            rows[i].close_after = rows[i].depth.saturating_sub(next_depth);
        }
    }
    rows
}

/// Pushes the children of `parent` so that the first is popped first.
fn push_children<'a>(
    stack: &mut Vec<(&'a SkillNode, usize, bool, bool)>,
    children: &HashMap<Option<String>, Vec<&'a SkillNode>>,
    parent: Option<String>,
    depth: usize,
) {
    if let Some(kids) = children.get(&parent) {
        let n = kids.len();
        for (i, kid) in kids.iter().enumerate().rev() {
            stack.push((kid, depth, i == 0, i + 1 == n));
        }
    }
}

/// The add form's fields, as typed.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddForm {
    #[serde(default)]
    pub category_id: String,
    #[serde(default)]
    pub title: String,
    /// Empty: a root node.
    #[serde(default)]
    pub parent_id: String,
    /// Empty: after the category's last node.
    #[serde(default)]
    pub sort_order: String,
    #[serde(default)]
    pub questions_required: String,
    #[serde(default)]
    pub pass_threshold: String,
}

impl AddForm {
    fn to_create(&self) -> Result<CreateSkillNode, Error> {
        Ok(CreateSkillNode {
            category_id: self.category_id.trim().to_string(),
            title: self.title.clone(),
            parent_id: non_empty(&self.parent_id),
            sort_order: parse_int("sortOrder", &self.sort_order)?,
            questions_required: parse_int("questionsRequired", &self.questions_required)?,
            pass_threshold: parse_int("passThreshold", &self.pass_threshold)?,
        })
    }
}

#[derive(Template)]
#[template(path = "console/skill_tree.html")]
struct TreePage {
    chrome: Chrome,
    categories: Vec<Category>,
    /// None when there is no category at all.
    category: Option<Category>,
    rows: Vec<TreeRow>,
    form: AddForm,
    max_questions: i64,
    error: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TreeQuery {
    #[serde(default)]
    category_id: String,
}

/// The tree page of `category_id` (default: the first category).
async fn tree_page(
    state: &AppState,
    me: &ConsoleAdmin,
    category_id: Option<String>,
    form: Option<AddForm>,
    error: Option<String>,
) -> Result<TreePage, Error> {
    let categories = catalog::all_categories(&state.ctx).await?;
    let category = match &category_id {
        Some(id) => Some(
            categories
                .iter()
                .find(|c| &c.id == id)
                .cloned()
                .ok_or_else(|| Error::not_found(msg::CATEGORY_NOT_FOUND))?,
        ),
        None => categories.first().cloned(),
    };
    let rows = match &category {
        Some(c) => {
            let nodes = catalog::list_nodes(
                &state.ctx,
                &SkillTreeQuery {
                    category_id: Some(c.id.clone()),
                },
            )
            .await?;
            tree_rows(&nodes)
        }
        None => Vec::new(),
    };
    let form = form.unwrap_or_else(|| AddForm {
        category_id: category.as_ref().map(|c| c.id.clone()).unwrap_or_default(),
        ..AddForm::default()
    });
    Ok(TreePage {
        chrome: me.chrome(Nav::SkillTree).await,
        categories,
        category,
        rows,
        form,
        max_questions: MAX_QUESTIONS_REQUIRED,
        error,
    })
}

async fn show(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let query: TreeQuery = serde_html_form::from_str(raw.as_deref().unwrap_or(""))
        .map_err(|e| Error::validation(msg::invalid_query_detail(e)))?;
    let tree = tree_page(&state, &me, non_empty(&query.category_id), None, None).await?;
    Ok(page(&tree))
}

async fn create(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    ConsoleForm(form): ConsoleForm<AddForm>,
) -> PageResult {
    let result =
        async { catalog::create_node(&state.ctx, &me.admin, &form.to_create()?).await }.await;
    save_or_rerender(
        htmx,
        FormOf::New,
        result,
        async |node| {
            let text = i18n::t1("tree-added", "title", &node.title);
            let to = urls::skill_tree_of(&node.category_id);
            Ok(redirect_with(&me.session, "ok", text, &to).await)
        },
        async |refused| {
            // Shown on the tree it was meant for; an unknown category has no tree.
            let category_id = form.category_id.trim().to_string();
            let status = refused.status;
            match tree_page(
                &state,
                &me,
                Some(category_id),
                Some(form),
                Some(refused.message),
            )
            .await
            {
                Ok(tree) => Ok(html(status, &tree)),
                Err(Error::NotFound(_)) => Err(PageError::from(refused.error)),
                Err(other) => Err(other.into()),
            }
        },
    )
    .await
}

// ---------------------------------------------------------------------------------------
// One node

async fn all_nodes(state: &AppState) -> Result<Vec<SkillNode>, Error> {
    catalog::list_nodes(&state.ctx, &SkillTreeQuery::default()).await
}

async fn find_node(state: &AppState, id: &str) -> Result<SkillNode, PageError> {
    all_nodes(state)
        .await?
        .into_iter()
        .find(|n| n.id == id)
        .ok_or_else(|| super::missing(msg::SKILL_TREE_NODE_NOT_FOUND))
}

/// The editor's fields, as typed.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditForm {
    #[serde(default)]
    pub category_id: String,
    #[serde(default)]
    pub title: String,
    /// Empty: a root node.
    #[serde(default)]
    pub parent_id: String,
    #[serde(default)]
    pub sort_order: String,
    #[serde(default)]
    pub questions_required: String,
    #[serde(default)]
    pub pass_threshold: String,
}

impl EditForm {
    fn from_node(n: &SkillNode) -> Self {
        Self {
            category_id: n.category_id.clone(),
            title: n.title.clone(),
            parent_id: n.parent_id.clone().unwrap_or_default(),
            sort_order: n.sort_order.to_string(),
            questions_required: n.questions_required.to_string(),
            pass_threshold: n.pass_threshold.to_string(),
        }
    }

    fn to_update(&self) -> Result<UpdateSkillNode, Error> {
        Ok(UpdateSkillNode {
            category_id: non_empty(&self.category_id),
            title: Some(self.title.clone()),
            // Empty parent: a root (null in the JSON API).
            parent_id: Some(non_empty(&self.parent_id)),
            sort_order: parse_int("sortOrder", &self.sort_order)?,
            questions_required: parse_int("questionsRequired", &self.questions_required)?,
            pass_threshold: parse_int("passThreshold", &self.pass_threshold)?,
        })
    }
}

#[derive(Template)]
#[template(path = "console/skill_tree_node.html")]
struct NodePage {
    chrome: Chrome,
    node: SkillNode,
    categories: Vec<Category>,
    /// The other nodes of its category, in tree order (parent choices).
    parents: Vec<TreeRow>,
    form: EditForm,
    max_questions: i64,
    error: Option<String>,
}

async fn node_page(
    state: &AppState,
    me: &ConsoleAdmin,
    node: SkillNode,
    form: EditForm,
    error: Option<String>,
) -> Result<NodePage, Error> {
    let siblings: Vec<SkillNode> = all_nodes(state)
        .await?
        .into_iter()
        .filter(|n| n.category_id == node.category_id)
        .collect();
    let parents = tree_rows(&siblings)
        .into_iter()
        .filter(|r| r.node.id != node.id)
        .collect();
    Ok(NodePage {
        chrome: me.chrome(Nav::SkillTree).await,
        categories: catalog::all_categories(&state.ctx).await?,
        parents,
        node,
        form,
        max_questions: MAX_QUESTIONS_REQUIRED,
        error,
    })
}

async fn edit_form(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    Path(id): Path<String>,
) -> PageResult {
    let node = find_node(&state, &id).await?;
    let form = EditForm::from_node(&node);
    Ok(page(&node_page(&state, &me, node, form, None).await?))
}

async fn save(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm<EditForm>,
) -> PageResult {
    let result =
        async { catalog::update_node(&state.ctx, &me.admin, &id, &form.to_update()?).await }.await;
    save_or_rerender(
        htmx,
        FormOf::Existing,
        result,
        async |node| {
            let text = i18n::t1("tree-saved", "title", &node.title);
            let to = urls::skill_tree_of(&node.category_id);
            Ok(redirect_with(&me.session, "ok", text, &to).await)
        },
        async |refused| {
            let node = find_node(&state, &id).await?;
            let page = node_page(&state, &me, node, form, Some(refused.message)).await?;
            Ok(html(refused.status, &page))
        },
    )
    .await
}

#[derive(Deserialize)]
struct MoveForm {
    #[serde(default)]
    direction: String,
}

/// Move up / move down: swaps sortOrder with the sibling before or after (when both
/// share one sortOrder, the node goes just before or after it).
async fn move_node(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm<MoveForm>,
) -> PageResult {
    let up = match form.direction.as_str() {
        "up" => true,
        "down" => false,
        _ => return Err(Error::validation(msg::DIRECTION_MUST_BE_UP_OR_DOWN).into()),
    };
    let node = find_node(&state, &id).await?;
    let nodes = catalog::list_nodes(
        &state.ctx,
        &SkillTreeQuery {
            category_id: Some(node.category_id.clone()),
        },
    )
    .await?;
    let ids: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let parent = shown_parent(&node, &ids);
    let siblings: Vec<&SkillNode> = nodes
        .iter()
        .filter(|n| shown_parent(n, &ids) == parent)
        .collect();
    let at = siblings
        .iter()
        .position(|n| n.id == node.id)
        .ok_or_else(|| Error::not_found(msg::SKILL_TREE_NODE_NOT_FOUND))?;
    let neighbour = if up {
        at.checked_sub(1).and_then(|i| siblings.get(i))
    } else {
        siblings.get(at + 1)
    };
    let Some(neighbour) = neighbour else {
        let refusal = if up {
            msg::name_is_already_the_first_of_its_siblings(node.title)
        } else {
            msg::name_is_already_the_last_of_its_siblings(node.title)
        };
        return Err(Error::validation(refusal).into());
    };
    let order = |sort_order: i64| UpdateSkillNode {
        sort_order: Some(sort_order),
        ..UpdateSkillNode::default()
    };
    if neighbour.sort_order == node.sort_order {
        let next = if up {
            node.sort_order - 1
        } else {
            node.sort_order + 1
        };
        catalog::update_node(&state.ctx, &me.admin, &node.id, &order(next)).await?;
    } else {
        catalog::update_node(
            &state.ctx,
            &me.admin,
            &node.id,
            &order(neighbour.sort_order),
        )
        .await?;
        catalog::update_node(
            &state.ctx,
            &me.admin,
            &neighbour.id,
            &order(node.sort_order),
        )
        .await?;
    }
    let moved = if up {
        i18n::t1("tree-moved-up", "title", &node.title)
    } else {
        i18n::t1("tree-moved-down", "title", &node.title)
    };
    Ok(redirect_with(
        &me.session,
        "ok",
        moved,
        &urls::skill_tree_of(&node.category_id),
    )
    .await)
}

#[derive(Deserialize)]
struct Empty {}

async fn delete(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    Path(id): Path<String>,
    ConsoleForm(_): ConsoleForm<Empty>,
) -> PageResult {
    let node = find_node(&state, &id).await?;
    catalog::delete_node(&state.ctx, &me.admin, &id).await?;
    Ok(redirect_with(
        &me.session,
        "ok",
        i18n::t1("tree-deleted", "title", &node.title),
        &urls::skill_tree_of(&node.category_id),
    )
    .await)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, parent: Option<&str>, sort_order: i64) -> SkillNode {
        SkillNode {
            id: id.into(),
            category_id: "c".into(),
            title: id.to_uppercase(),
            parent_id: parent.map(String::from),
            sort_order,
            questions_required: 5,
            pass_threshold: 3,
        }
    }

    #[test]
    fn rows_nest_by_parent_in_list_order() {
        // a
        //   b
        //     c
        //   d
        // e
        let nodes = [
            node("a", None, 0),
            node("b", Some("a"), 1),
            node("c", Some("b"), 2),
            node("d", Some("a"), 3),
            node("e", None, 4),
        ];
        let rows = tree_rows(&nodes);
        let shape: Vec<(&str, usize, bool, usize, bool, bool)> = rows
            .iter()
            .map(|r| {
                (
                    r.node.id.as_str(),
                    r.depth,
                    r.has_children,
                    r.close_after,
                    r.first,
                    r.last,
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                ("a", 0, true, 0, true, false),
                ("b", 1, true, 0, true, false),
                ("c", 2, false, 1, true, true),
                ("d", 1, false, 1, false, true),
                ("e", 0, false, 0, false, true),
            ]
        );
        assert_eq!(rows[2].label, "— — C");
    }

    #[test]
    fn unknown_parents_and_cycles_show_as_roots() {
        let nodes = [
            node("a", Some("elsewhere"), 0),
            node("x", Some("y"), 1),
            node("y", Some("x"), 2),
        ];
        let rows = tree_rows(&nodes);
        let ids: Vec<&str> = rows.iter().map(|r| r.node.id.as_str()).collect();
        assert_eq!(ids, ["a", "x", "y"]);
        // every list opened is closed again
        let opened = rows.iter().filter(|r| r.has_children).count();
        let closed: usize = rows.iter().map(|r| r.close_after).sum();
        assert_eq!(opened, closed);
    }
}
