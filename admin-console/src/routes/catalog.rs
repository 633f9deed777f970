//! Categories, knowledge cards and the skill tree: `/v1/admin/categories/*`,
//! `/v1/admin/knowledge-cards/*`, `/v1/admin/skill-tree/*` (any admin).

use axum::extract::State;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok, paged};
use shared::http::{ApiJson, ApiPath, ApiQuery};
use shared::ids::QuestionId;
use shared::services::audit::PageQuery;
use shared::services::catalog::{
    self, AdminKnowledgeCard, Category, CreateCategory, CreateSkillNode, SkillNode, SkillTreeQuery,
    UpdateCategory, UpdateKnowledgeCard, UpdateSkillNode,
};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AdminUser;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_categories, create_category))
        .routes(routes!(update_category, delete_category))
        .routes(routes!(list_cards))
        .routes(routes!(card_of_question))
        .routes(routes!(update_card))
        .routes(routes!(list_nodes, create_node))
        .routes(routes!(update_node, delete_node))
}

/// List categories
///
/// Categories in (sortOrder, id) order, each with its count of non-archived questions.
#[utoipa::path(get, path = "/categories", operation_id = "adminListCategories", tag = "categories", security(("admin_jwt" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of categories", body = Envelope<Vec<Category>>),
        (status = 400, description = "page < 1 or limit outside 1-50", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn list_categories(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> ApiResult<Vec<Category>> {
    let (items, pagination) = catalog::list_categories(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}

/// Create a category
///
/// Creates a category (active).
#[utoipa::path(post, path = "/categories", operation_id = "adminCreateCategory", tag = "categories", security(("admin_jwt" = [])),
    request_body(content = CreateCategory, example = json!({"id": "space", "name": "Space & Astronomy", "slug": "space", "sortOrder": 4, "icon": "rocket"})),
    responses(
        (status = 200, description = "The created category", body = Envelope<Category>),
        (status = 400, description = "Invalid fields, duplicate id or slug, unknown parent", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn create_category(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<CreateCategory>,
) -> ApiResult<Category> {
    Ok(ok(
        catalog::create_category(&state.ctx, &admin, &body).await?
    ))
}

/// Update a category
///
/// Changes a category; `parentId` null makes it top-level, and a category can never
/// become its own ancestor.
#[utoipa::path(put, path = "/categories/{id}", operation_id = "adminUpdateCategory", tag = "categories", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Category id")),
    request_body(content = UpdateCategory, example = json!({"name": "Space", "parentId": null, "sortOrder": 5})),
    responses(
        (status = 200, description = "The updated category", body = Envelope<Category>),
        (status = 400, description = "Invalid fields, duplicate slug, unknown parent or a cycle", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such category", body = ErrorEnvelope),
    ))]
pub async fn update_category(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<UpdateCategory>,
) -> ApiResult<Category> {
    Ok(ok(
        catalog::update_category(&state.ctx, &admin, &id, &body).await?
    ))
}

/// Archive a category
///
/// Archives a category: status `inactive` (no longer a track; its questions are not
/// served).
#[utoipa::path(delete, path = "/categories/{id}", operation_id = "adminArchiveCategory", tag = "categories", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Category id")),
    responses(
        (status = 200, description = "The archived category", body = Envelope<Category>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such category", body = ErrorEnvelope),
    ))]
pub async fn delete_category(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Category> {
    Ok(ok(catalog::archive_category(&state.ctx, &admin, &id).await?))
}

/// List knowledge cards
///
/// Knowledge cards, newest first.
#[utoipa::path(get, path = "/knowledge-cards", operation_id = "adminListKnowledgeCards", tag = "knowledge-cards", security(("admin_jwt" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of cards", body = Envelope<Vec<AdminKnowledgeCard>>),
        (status = 400, description = "page < 1 or limit outside 1-50", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn list_cards(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> ApiResult<Vec<AdminKnowledgeCard>> {
    let (items, pagination) = catalog::list_cards(&state.ctx, &query).await?;
    Ok(paged(items, pagination))
}

/// Get a question's knowledge card
///
/// The knowledge card of a question.
#[utoipa::path(get, path = "/knowledge-cards/by-question/{questionId}", operation_id = "adminGetQuestionKnowledgeCard", tag = "knowledge-cards",
    security(("admin_jwt" = [])),
    params(("questionId" = String, Path, description = "Question id")),
    responses(
        (status = 200, description = "The card", body = Envelope<AdminKnowledgeCard>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question, or it has no card", body = ErrorEnvelope),
    ))]
pub async fn card_of_question(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath(question_id): ApiPath<QuestionId>,
) -> ApiResult<AdminKnowledgeCard> {
    Ok(ok(
        catalog::card_of_question(&state.ctx, &question_id).await?
    ))
}

/// Update a knowledge card
///
/// Changes a card: at least one of title, summary, deepDive, sourceRef. A change records
/// the next version of the card's question.
#[utoipa::path(put, path = "/knowledge-cards/{id}", operation_id = "adminUpdateKnowledgeCard", tag = "knowledge-cards", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Card id")),
    request_body(content = UpdateKnowledgeCard, example = json!({"summary": "Canberra was purpose-built to settle the Sydney-Melbourne rivalry.", "sourceRef": "National Capital Authority"})),
    responses(
        (status = 200, description = "The updated card", body = Envelope<AdminKnowledgeCard>),
        (status = 400, description = "No field given, or an empty summary", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such card", body = ErrorEnvelope),
        (status = 409, description = "The card's question changed meanwhile; read the card again", body = ErrorEnvelope),
    ))]
pub async fn update_card(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<UpdateKnowledgeCard>,
) -> ApiResult<AdminKnowledgeCard> {
    Ok(ok(
        catalog::update_card(&state.ctx, &admin, &id, &body).await?
    ))
}

/// List skill-tree nodes
///
/// Skill-tree nodes of one category, or of every category without `categoryId`, in
/// category then node order.
#[utoipa::path(get, path = "/skill-tree", operation_id = "adminListSkillNodes", tag = "skill-tree", security(("admin_jwt" = [])),
    params(SkillTreeQuery),
    responses(
        (status = 200, description = "The nodes", body = Envelope<Vec<SkillNode>>),
        (status = 400, description = "A malformed query (categoryId given twice)", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn list_nodes(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(query): ApiQuery<SkillTreeQuery>,
) -> ApiResult<Vec<SkillNode>> {
    Ok(ok(catalog::list_nodes(&state.ctx, &query).await?))
}

/// Create a skill-tree node
///
/// Creates a skill-tree node (questionsRequired 5 and passThreshold 3 by default).
#[utoipa::path(post, path = "/skill-tree", operation_id = "adminCreateSkillNode", tag = "skill-tree", security(("admin_jwt" = [])),
    request_body(content = CreateSkillNode, example = json!({"categoryId": "world-geography", "title": "Capitals & Countries", "sortOrder": 1, "questionsRequired": 5, "passThreshold": 3})),
    responses(
        (status = 200, description = "The created node", body = Envelope<SkillNode>),
        (status = 400, description = "Invalid fields, unknown category or parent", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn create_node(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<CreateSkillNode>,
) -> ApiResult<SkillNode> {
    Ok(ok(catalog::create_node(&state.ctx, &admin, &body).await?))
}

/// Update a skill-tree node
///
/// Changes a skill-tree node; `parentId` null makes it a root, and a node can never
/// become its own ancestor.
#[utoipa::path(put, path = "/skill-tree/{id}", operation_id = "adminUpdateSkillNode", tag = "skill-tree", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Node id")),
    request_body(content = UpdateSkillNode, example = json!({"title": "Capitals of the World", "passThreshold": 4})),
    responses(
        (status = 200, description = "The updated node", body = Envelope<SkillNode>),
        (status = 400, description = "Invalid fields, unknown category or parent, or a cycle", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such node", body = ErrorEnvelope),
    ))]
pub async fn update_node(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<UpdateSkillNode>,
) -> ApiResult<SkillNode> {
    Ok(ok(
        catalog::update_node(&state.ctx, &admin, &id, &body).await?
    ))
}

/// Delete a skill-tree node
///
/// Deletes a skill-tree node; its children move up to its parent.
#[utoipa::path(delete, path = "/skill-tree/{id}", operation_id = "adminDeleteSkillNode", tag = "skill-tree", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Node id")),
    responses(
        (status = 200, description = "Deleted (data null)", body = Envelope<Object>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such node", body = ErrorEnvelope),
    ))]
pub async fn delete_node(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<()> {
    catalog::delete_node(&state.ctx, &admin, &id).await?;
    Ok(ok(()))
}
