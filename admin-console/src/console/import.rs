//! CSV upload: a preview that runs every import check and writes nothing, then an
//! all-or-nothing import of the same text; and the downloadable template.

use askama::Template;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::message::{Message, msg};
use shared::services::questions::{self, CsvPreview};

use super::auth::{CSRF_FIELD, ConsoleAdmin, ConsoleForm, check_csrf};
use super::i18n;
use super::nav::Nav;
use super::page::HxRequest;
use super::page::{
    Chrome, FormOf, PageResult, describe, html, page, redirect_with, save_or_rerender,
};
use super::urls;
use crate::AppState;
use crate::routes::questions::IMPORT_BODY_LIMIT;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::IMPORT, get(form).post(import))
        .route(urls::IMPORT_PREVIEW, post(preview))
        .route(urls::IMPORT_TEMPLATE, get(template))
        // The CSV travels URL-encoded on import, which can triple its size.
        .layer(DefaultBodyLimit::max(IMPORT_BODY_LIMIT * 3 + 4096))
}

#[derive(Template)]
#[template(path = "console/import.html")]
struct ImportPage {
    chrome: Chrome,
    preview: Option<CsvPreview>,
    /// The previewed CSV, carried to the import form.
    csv: String,
    file_name: String,
    error: Option<String>,
}

impl ImportPage {
    /// Why a row would be refused, in the page's language.
    fn row_error(&self, refusal: &&Message) -> String {
        refusal.render(i18n::current())
    }
}

async fn form(me: ConsoleAdmin) -> PageResult {
    Ok(page(&ImportPage {
        chrome: me.chrome(Nav::Import).await,
        preview: None,
        csv: String::new(),
        file_name: String::new(),
        error: None,
    }))
}

async fn template() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"questions-template.csv\"",
            ),
        ],
        questions::csv_template(),
    )
        .into_response()
}

/// Reads the upload's `_csrf` and `file` parts.
async fn read_upload(mut multipart: Multipart) -> Result<(Option<String>, String, Vec<u8>), Error> {
    let mut csrf = None;
    let mut file: Option<(String, Vec<u8>)> = None;
    loop {
        let field = multipart
            .next_field()
            .await
            .map_err(|e| upload_error(&e.body_text(), e.status()))?;
        let Some(field) = field else { break };
        match field.name() {
            Some(CSRF_FIELD) => {
                csrf = Some(
                    field
                        .text()
                        .await
                        .map_err(|e| upload_error(&e.body_text(), e.status()))?,
                );
            }
            Some("file") => {
                let name = field.file_name().unwrap_or("upload.csv").to_string();
                let bytes = field
                    .bytes()
                    .await
                    .map_err(|e| upload_error(&e.body_text(), e.status()))?;
                file = Some((name, bytes.to_vec()));
            }
            _ => {}
        }
    }
    let (name, bytes) = file.ok_or_else(|| Error::validation(msg::CHOOSE_A_CSV_FILE_TO_UPLOAD))?;
    if bytes.len() > IMPORT_BODY_LIMIT {
        return Err(Error::PayloadTooLarge(
            msg::the_csv_is_larger_than_size_mib(IMPORT_BODY_LIMIT / (1024 * 1024)),
        ));
    }
    Ok((csrf, name, bytes))
}

fn upload_error(text: &str, status: axum::http::StatusCode) -> Error {
    if status == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        Error::PayloadTooLarge(msg::THE_UPLOAD_IS_TOO_LARGE)
    } else {
        Error::validation(msg::unreadable_upload_detail(text))
    }
}

async fn preview(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    multipart: Multipart,
) -> PageResult {
    let (csrf, file_name, bytes) = read_upload(multipart).await?;
    check_csrf(&me.session, csrf.as_deref()).await?;
    let result = questions::preview_csv(&state.ctx, &bytes).await;
    let csv = String::from_utf8_lossy(&bytes).into_owned();
    let (status, preview, error) = match result {
        Ok(p) if p.failed() == 0 => (axum::http::StatusCode::OK, Some(p), None),
        // Rows that would fail: the page still shows every row and why.
        Ok(p) => (axum::http::StatusCode::BAD_REQUEST, Some(p), None),
        Err(e) if e.status().is_client_error() => (e.status(), None, Some(describe(&e))),
        Err(e) => return Err(e.into()),
    };
    Ok(html(
        status,
        &ImportPage {
            chrome: me.chrome(Nav::Import).await,
            preview,
            csv,
            file_name,
            error,
        },
    ))
}

#[derive(Deserialize)]
struct ImportForm {
    #[serde(default)]
    csv: String,
}

async fn import(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    ConsoleForm(form): ConsoleForm<ImportForm>,
) -> PageResult {
    let result =
        questions::import_csv(&state.ctx, &me.admin, Some("text/csv"), form.csv.as_bytes()).await;
    save_or_rerender(
        htmx,
        FormOf::New,
        result,
        async |imported| {
            let text = i18n::t1("import-done", "count", i18n::num(imported.succeeded));
            Ok(redirect_with(&me.session, "ok", text, &urls::newest_drafts()).await)
        },
        async |refused| {
            // The bank changed since the preview (a category archived, say): nothing was
            // written; show why, with the rows re-checked.
            let preview = questions::preview_csv(&state.ctx, form.csv.as_bytes())
                .await
                .ok();
            let page = ImportPage {
                chrome: me.chrome(Nav::Import).await,
                preview,
                csv: form.csv,
                file_name: String::new(),
                error: Some(refused.message),
            };
            Ok(html(refused.status, &page))
        },
    )
    .await
}
