//! Knowledge cards: a paged list (newest first) and an editor per card, over
//! `shared::services::catalog`. A card belongs to one question; its editor links there.

use askama::Template;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use serde::Deserialize;
use shared::Error;
use shared::envelope::Pagination;
use shared::message::msg;
use shared::services::audit::PageQuery;
use shared::services::catalog::{self, AdminKnowledgeCard, UpdateKnowledgeCard};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::fields::{non_empty, parse_int};
use super::i18n;
use super::nav::Nav;
use super::page::HxRequest;
use super::page::{Chrome, FormOf, PageResult, html, page, redirect_with, save_or_rerender};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::CARDS, get(list))
        .route(urls::pattern::CARD, get(edit_form).post(save))
}

/// Cards per page of the list.
pub const PAGE_SIZE: i64 = 20;

// ---------------------------------------------------------------------------------------
// The list

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default)]
    page: String,
}

#[derive(Template)]
#[template(path = "console/cards.html")]
struct ListPage {
    chrome: Chrome,
    cards: Vec<AdminKnowledgeCard>,
    pagination: Pagination,
    prev_href: Option<String>,
    next_href: Option<String>,
}

fn page_href(page: i64) -> String {
    let page = if page > 1 {
        page.to_string()
    } else {
        String::new()
    };
    urls::with_query(urls::CARDS, &[("page", &page)])
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let query: ListQuery = serde_html_form::from_str(raw.as_deref().unwrap_or(""))
        .map_err(|e| Error::validation(msg::invalid_query_detail(e)))?;
    let page_query = PageQuery {
        page: parse_int("page", &query.page)?,
        limit: Some(PAGE_SIZE),
    };
    let (cards, pagination) = catalog::list_cards(&state.ctx, &page_query).await?;
    let last_page = (pagination.total + pagination.limit - 1) / pagination.limit.max(1);
    Ok(page(&ListPage {
        chrome: me.chrome(Nav::Cards).await,
        prev_href: (pagination.page > 1).then(|| page_href(pagination.page - 1)),
        next_href: (pagination.page < last_page).then(|| page_href(pagination.page + 1)),
        cards,
        pagination,
    }))
}

// ---------------------------------------------------------------------------------------
// The editor

/// The editor's fields, as typed. Empty optional fields clear them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardForm {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub deep_dive: String,
    #[serde(default)]
    pub source_ref: String,
}

impl CardForm {
    fn from_card(c: &AdminKnowledgeCard) -> Self {
        Self {
            title: c.title.clone().unwrap_or_default(),
            summary: c.summary.clone(),
            deep_dive: c.deep_dive.clone().unwrap_or_default(),
            source_ref: c.source_ref.clone().unwrap_or_default(),
        }
    }

    /// Every field is sent: an empty title, deep dive or source clears it (null in the
    /// JSON API); the summary is checked by the service.
    fn to_update(&self) -> UpdateKnowledgeCard {
        UpdateKnowledgeCard {
            title: Some(non_empty(&self.title)),
            summary: Some(self.summary.clone()),
            deep_dive: Some(non_empty(&self.deep_dive)),
            source_ref: Some(non_empty(&self.source_ref)),
        }
    }
}

#[derive(Template)]
#[template(path = "console/card_edit.html")]
struct EditPage {
    chrome: Chrome,
    card: AdminKnowledgeCard,
    form: CardForm,
    error: Option<String>,
}

async fn edit_form(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    Path(id): Path<String>,
) -> PageResult {
    let card = catalog::get_card(&state.ctx, &id).await?;
    Ok(page(&EditPage {
        chrome: me.chrome(Nav::Cards).await,
        form: CardForm::from_card(&card),
        card,
        error: None,
    }))
}

async fn save(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm<CardForm>,
) -> PageResult {
    let result = catalog::update_card(&state.ctx, &me.admin, &id, &form.to_update()).await;
    save_or_rerender(
        htmx,
        FormOf::Existing,
        result,
        async |_| {
            let to = urls::card(&id);
            Ok(redirect_with(&me.session, "ok", i18n::t("card-saved"), &to).await)
        },
        async |refused| {
            let card = catalog::get_card(&state.ctx, &id).await?;
            let page = EditPage {
                chrome: me.chrome(Nav::Cards).await,
                card,
                form,
                error: Some(refused.message),
            };
            Ok(html(refused.status, &page))
        },
    )
    .await
}
