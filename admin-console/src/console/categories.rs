//! Categories: the list with a create form, the editor (name, slug, parent, order,
//! status, icon) and archiving, over `shared::services::catalog`.

use askama::Template;
use axum::Router;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::domain::category_status::CategoryStatus;
use shared::message::msg;
use shared::services::catalog::{self, Category, CreateCategory, UpdateCategory};
use shared::services::learning;

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::charts;
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
        .route(urls::CATEGORIES, get(list).post(create))
        .route(urls::pattern::CATEGORY, get(edit_form).post(save))
        .route(urls::pattern::CATEGORY_ARCHIVE, post(archive))
}

pub const STATUSES: [CategoryStatus; 2] = CategoryStatus::ALL;

/// The create and edit forms' fields, as typed (`id` only on create, `status` only on
/// edit).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoryForm {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub slug: String,
    /// Empty: a top-level category.
    #[serde(default)]
    pub parent_id: String,
    #[serde(default)]
    pub sort_order: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub icon: String,
}

impl CategoryForm {
    fn from_category(c: &Category) -> Self {
        Self {
            id: c.id.clone(),
            name: c.name.clone(),
            slug: c.slug.clone(),
            parent_id: c.parent_id.clone().unwrap_or_default(),
            sort_order: c.sort_order.to_string(),
            status: c.status.to_string(),
            icon: c.icon.clone(),
        }
    }

    fn to_create(&self) -> Result<CreateCategory, Error> {
        Ok(CreateCategory {
            id: self.id.trim().to_string(),
            name: self.name.clone(),
            slug: self.slug.trim().to_string(),
            parent_id: non_empty(&self.parent_id),
            sort_order: parse_int("sortOrder", &self.sort_order)?,
            icon: non_empty(&self.icon),
        })
    }

    fn to_update(&self) -> Result<UpdateCategory, Error> {
        Ok(UpdateCategory {
            name: Some(self.name.clone()),
            slug: Some(self.slug.trim().to_string()),
            // Empty parent: top-level (null), as the JSON API's `parentId: null`.
            parent_id: Some(non_empty(&self.parent_id)),
            sort_order: parse_int("sortOrder", &self.sort_order)?,
            status: non_empty(&self.status).map(Into::into),
            icon: Some(self.icon.clone()),
        })
    }
}

// ---------------------------------------------------------------------------------------
// The list and the create form

#[derive(Template)]
#[template(path = "console/categories.html")]
struct ListPage {
    chrome: Chrome,
    csrf: String,
    categories: Vec<Category>,
    form: CategoryForm,
    error: Option<String>,
}

/// One row of the table (htmx swaps it after archiving).
#[derive(Template)]
#[template(path = "console/categories_row.html")]
struct RowFragment {
    c: Category,
    csrf: String,
}

async fn list_page(
    state: &AppState,
    me: &ConsoleAdmin,
    form: CategoryForm,
    error: Option<String>,
) -> Result<ListPage, Error> {
    Ok(ListPage {
        chrome: me.chrome(Nav::Categories).await,
        csrf: me.csrf.clone(),
        categories: catalog::all_categories(&state.ctx).await?,
        form,
        error,
    })
}

async fn list(State(state): State<AppState>, me: ConsoleAdmin) -> PageResult {
    Ok(page(
        &list_page(&state, &me, CategoryForm::default(), None).await?,
    ))
}

async fn create(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    ConsoleForm(form): ConsoleForm<CategoryForm>,
) -> PageResult {
    let result =
        async { catalog::create_category(&state.ctx, &me.admin, &form.to_create()?).await }.await;
    save_or_rerender(
        htmx,
        FormOf::New,
        result,
        async |created| {
            let text = i18n::t2("cat-created", "name", &created.name, "id", &created.id);
            Ok(redirect_with(&me.session, "ok", text, urls::CATEGORIES).await)
        },
        async |refused| {
            let page = list_page(&state, &me, form, Some(refused.message)).await?;
            Ok(html(refused.status, &page))
        },
    )
    .await
}

// ---------------------------------------------------------------------------------------
// The editor

#[derive(Template)]
#[template(path = "console/categories_edit.html")]
struct EditPage {
    chrome: Chrome,
    category: Category,
    /// Every other category (parent choices).
    parents: Vec<Category>,
    form: CategoryForm,
    statuses: [CategoryStatus; 2],
    error: Option<String>,
    learning: LearningPanel,
}

/// The page's learning section, its words already in the page's language.
struct LearningPanel {
    /// Which players the map draws (or that the category is in no track).
    help: String,
    /// The last fit, or that there is none yet.
    fit: String,
    /// The Wright map (`charts::wright_map`).
    map: String,
}

async fn learning_panel(state: &AppState, id: &str) -> Result<LearningPanel, PageError> {
    let shown = learning::category_learning(&state.ctx, id).await?;
    let help = match &shown.track_id {
        Some(track) => i18n::t3(
            "cat-learning-help",
            ("track", &track),
            ("players", &i18n::num(learning::WRIGHT_PLAYERS)),
            ("questions", &i18n::num(learning::WRIGHT_QUESTIONS)),
        ),
        None => i18n::t("cat-learning-no-track"),
    };
    let fit = match &shown.last_fit {
        Some(fit) => i18n::current().t_args(
            "cat-last-fit",
            &[
                ("model", fit.model.as_str().to_uppercase()),
                ("examinees", i18n::num(fit.examinees)),
                ("logLikelihood", format!("{:.3}", fit.log_likelihood)),
                ("when", i18n::when(&shared::clock::from_ms(fit.computed_at))),
            ],
        ),
        None => i18n::t("cat-no-fit"),
    };
    Ok(LearningPanel {
        help,
        fit,
        map: charts::wright_map(
            &shown.player_skills,
            &shown.question_difficulties,
            i18n::current(),
        ),
    })
}

async fn find(state: &AppState, id: &str) -> Result<(Category, Vec<Category>), PageError> {
    let all = catalog::all_categories(&state.ctx).await?;
    let category = all
        .iter()
        .find(|c| c.id == id)
        .cloned()
        .ok_or_else(|| super::missing(msg::CATEGORY_NOT_FOUND))?;
    let parents = all.into_iter().filter(|c| c.id != id).collect();
    Ok((category, parents))
}

async fn edit_form(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    Path(id): Path<String>,
) -> PageResult {
    let (category, parents) = find(&state, &id).await?;
    Ok(page(&EditPage {
        chrome: me.chrome(Nav::Categories).await,
        form: CategoryForm::from_category(&category),
        category,
        parents,
        statuses: STATUSES,
        error: None,
        learning: learning_panel(&state, &id).await?,
    }))
}

async fn save(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm<CategoryForm>,
) -> PageResult {
    let result =
        async { catalog::update_category(&state.ctx, &me.admin, &id, &form.to_update()?).await }
            .await;
    save_or_rerender(
        htmx,
        FormOf::Existing,
        result,
        async |updated| {
            let text = i18n::t2("cat-saved", "name", &updated.name, "id", &updated.id);
            Ok(redirect_with(&me.session, "ok", text, urls::CATEGORIES).await)
        },
        async |refused| {
            let (category, parents) = find(&state, &id).await?;
            let page = EditPage {
                chrome: me.chrome(Nav::Categories).await,
                category,
                parents,
                form,
                statuses: STATUSES,
                error: Some(refused.message),
                learning: learning_panel(&state, &id).await?,
            };
            Ok(html(refused.status, &page))
        },
    )
    .await
}

#[derive(Deserialize)]
struct Empty {}

async fn archive(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    Path(id): Path<String>,
    ConsoleForm(_): ConsoleForm<Empty>,
) -> PageResult {
    let archived = catalog::archive_category(&state.ctx, &me.admin, &id).await?;
    if htmx.0 {
        return Ok(page(&RowFragment {
            c: archived,
            csrf: me.csrf.clone(),
        }));
    }
    Ok(redirect_with(
        &me.session,
        "ok",
        i18n::t2("cat-archived", "name", &archived.name, "id", &archived.id),
        urls::CATEGORIES,
    )
    .await)
}
