//! The audit log: every admin write, newest first (`audit::list`), with the state
//! before and after as compact JSON.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use chrono::{DateTime, Utc};
use shared::ids::PlayerId;
use shared::services::audit::{self, AuditEntry};

use super::auth::ConsoleAdmin;
use super::fields::{ListPage, Pager, list_pager};
use super::i18n;
use super::nav::Nav;
use super::page::{Chrome, PageResult, page};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route(urls::AUDIT, get(list))
}

/// One entry as the table shows it.
struct Row {
    actor_id: String,
    actor_username: String,
    action: String,
    target_type: String,
    target_id: Option<String>,
    /// Where the target has a console page.
    target_href: Option<String>,
    before: Option<String>,
    after: Option<String>,
    created_at: DateTime<Utc>,
}

fn compact(v: Option<serde_json::Value>) -> Option<String> {
    v.map(|v| serde_json::to_string(&v).unwrap_or_default())
}

impl Row {
    fn of(e: AuditEntry) -> Self {
        let target_href = e.target_id.as_deref().and_then(|id| {
            let page: fn(&str) -> String = match e.target_type.as_str() {
                "player" => |id| urls::player(&PlayerId::from_trusted(id)),
                "admin" => |id| urls::admin(id),
                "question" => urls::question,
                _ => return None,
            };
            Some(page(id))
        });
        Self {
            actor_id: e.actor_id,
            actor_username: e.actor_username,
            action: e.action,
            target_type: e.target_type,
            target_id: e.target_id,
            target_href,
            before: compact(e.before),
            after: compact(e.after),
            created_at: e.created_at,
        }
    }
}

#[derive(Template)]
#[template(path = "console/audit.html")]
struct AuditPage {
    chrome: Chrome,
    rows: Vec<Row>,
    pager: Pager,
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    ListPage(query): ListPage,
) -> PageResult {
    let (entries, pagination) = audit::list(&state.ctx, &query).await?;
    Ok(page(&AuditPage {
        chrome: me.chrome(Nav::Audit).await,
        rows: entries.into_iter().map(Row::of).collect(),
        pager: list_pager(urls::AUDIT, &pagination),
    }))
}
