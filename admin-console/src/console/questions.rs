//! The question bank: a filtered list with batch actions, the editor with its knowledge
//! card, and status moves offered only where the transition table allows them.

use askama::Template;
use axum::Router;
use axum::extract::{DefaultBodyLimit, RawQuery, Request, State};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use shared::Error;
use shared::domain::content_type::ContentType;
use shared::domain::question_source::QuestionSource;
use shared::domain::question_status::{BatchAction, QuestionStatus, can_move};
use shared::envelope::Pagination;
use shared::ids::QuestionId;
use shared::message::{Message, msg};
use shared::services::catalog::{self, Category};
use shared::services::media::{self, MediaItem};
use shared::services::questions::{
    self, AdminQuestion, BatchRequest, CardInput, ExportFormat, ExportQuery, ListQuery,
    QuestionInput, QuestionMedia, QuestionPatch, StatusRequest, Stem,
};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::fields::{
    Filtered, LIST_ROWS, ListFilters, PagePath, non_empty, parse_int, parse_query,
};
use super::i18n;
use super::nav::Nav;
use super::page::HxRequest;
use super::page::{
    Chrome, FormOf, PageError, PageResult, html, page, redirect_with, save_or_rerender,
};
use super::uploads::{self, MediaForm};
use super::urls;
use crate::AppState;
use crate::routes::questions::download;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::QUESTIONS, get(list))
        .route(urls::QUESTIONS_BATCH, post(batch))
        .route(urls::QUESTIONS_EXPORT, get(export))
        .route(urls::pattern::QUESTION_STATUS, post(move_status))
        .merge(
            Router::new()
                .route(urls::QUESTION_NEW, get(new_form).post(create))
                .route(urls::pattern::QUESTION, get(edit_form).post(save))
                .layer(upload_body_limit()),
        )
}

/// A form with a media file may be as large as the largest file the library takes
/// (each kind's own limit is enforced as the file arrives).
pub fn upload_body_limit() -> DefaultBodyLimit {
    DefaultBodyLimit::max(shared::config::MAX_CONFIGURABLE_BYTES as usize + 64 * 1024)
}

pub const CONTENT_TYPES: [ContentType; 4] = ContentType::ALL;

// ---------------------------------------------------------------------------------------
// The list

/// The filter form's values, as typed (empty = not filtered).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filters {
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub category_id: String,
    #[serde(default)]
    pub keyword: String,
    #[serde(default)]
    pub difficulty: String,
    #[serde(default)]
    pub source: String,
    /// `true`: flagged questions only.
    #[serde(default)]
    pub flagged: String,
    #[serde(default)]
    pub sort_by: String,
    #[serde(default)]
    pub sort_order: String,
}

impl ListFilters for Filters {
    const LIST: &'static str = urls::QUESTIONS;

    fn params(&self) -> Vec<(&'static str, &str)> {
        vec![
            ("status", &self.status),
            ("categoryId", &self.category_id),
            ("keyword", &self.keyword),
            ("difficulty", &self.difficulty),
            ("source", &self.source),
            ("flagged", &self.flagged),
            ("sortBy", &self.sort_by),
            ("sortOrder", &self.sort_order),
        ]
    }

    fn unreadable(detail: serde_html_form::de::Error) -> Error {
        Error::validation(msg::invalid_filter_detail(detail))
    }
}

impl Filters {
    fn to_query(&self, page: Option<i64>) -> Result<ListQuery, Error> {
        Ok(ListQuery {
            page,
            limit: Some(LIST_ROWS),
            status: non_empty(&self.status).map(Into::into),
            category_id: non_empty(&self.category_id),
            keyword: non_empty(&self.keyword),
            difficulty: parse_int("difficulty", &self.difficulty)?,
            source: non_empty(&self.source).map(Into::into),
            flagged: (self.flagged == "true").then_some(true),
            sort_by: non_empty(&self.sort_by),
            sort_order: non_empty(&self.sort_order),
        })
    }

    /// The export of these filters (every page, the list's sort aside).
    fn to_export_query(&self, format: ExportFormat) -> Result<ExportQuery, Error> {
        Ok(ExportQuery {
            format,
            status: non_empty(&self.status).map(Into::into),
            category_id: non_empty(&self.category_id),
            keyword: non_empty(&self.keyword),
            difficulty: parse_int("difficulty", &self.difficulty)?,
            source: non_empty(&self.source).map(Into::into),
            flagged: (self.flagged == "true").then_some(true),
        })
    }

    /// The download of these filters' questions in `format` (`csv`, `json` or `zip`).
    fn export_href(&self, format: &str) -> String {
        let mut params = vec![("format", format)];
        params.extend(
            self.params()
                .into_iter()
                .filter(|(name, _)| !matches!(*name, "sortBy" | "sortOrder")),
        );
        urls::with_query(urls::QUESTIONS_EXPORT, &params)
    }
}

/// A question a batch left where it was.
pub struct FailedMove {
    pub id: QuestionId,
    /// Why, in the page's language.
    pub reason: String,
}

/// The outcome of a batch action, shown above the table.
pub struct BatchView {
    /// The action's name, in the page's language.
    pub action: String,
    pub total: usize,
    pub succeeded: usize,
    /// The refused ids, their reasons in the page's language.
    pub failed: Vec<FailedMove>,
}

impl BatchView {
    /// `Publish: 1 of 2 moved.`
    pub fn headline(&self) -> String {
        i18n::t3(
            "q-batch-summary",
            ("action", &self.action),
            ("succeeded", &i18n::num(count(self.succeeded))),
            ("total", &i18n::num(count(self.total))),
        )
    }

    fn summary(&self) -> String {
        let mut text = self.headline();
        for f in &self.failed {
            text.push_str(&format!("\n{} — {}", f.id, f.reason));
        }
        text
    }
}

/// A count as [`i18n::num`] takes it.
fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Why the batch left a question where it was (`not found`, or the service's refused
/// move), in the page's language.
fn failure_reason(reason: &Message) -> String {
    super::page::move_refusal(reason, "q-batch-not-found", "q-batch-cannot-move")
}

pub struct Table {
    pub items: Vec<AdminQuestion>,
    pub pagination: Pagination,
    pub filters: Filters,
    pub prev_href: Option<String>,
    pub next_href: Option<String>,
    /// Where a batch form returns to (this page of this filter).
    pub return_to: String,
    /// The downloads of every question these filters match (in the table, so an htmx
    /// filter change updates them with it).
    pub export_csv_href: String,
    pub export_json_href: String,
    /// JSON with the media files, as one zip.
    pub export_zip_href: String,
    pub batch: Option<BatchView>,
    pub csrf: String,
}

#[derive(Template)]
#[template(path = "console/questions.html")]
struct ListPage {
    chrome: Chrome,
    table: Table,
    categories: Vec<Category>,
    statuses: [QuestionStatus; 4],
    sources: [QuestionSource; 2],
}

#[derive(Template)]
#[template(path = "console/_question_table.html")]
struct TableFragment {
    table: Table,
}

async fn table(state: &AppState, list: Filtered<Filters>, csrf: &str) -> Result<Table, Error> {
    let query = list.filters.to_query(list.page)?;
    let (items, pagination) = questions::list(&state.ctx, &query).await?;
    let links = list.pager(&pagination);
    let filters = list.filters;
    Ok(Table {
        prev_href: links.prev,
        next_href: links.next,
        return_to: filters.href(pagination.page),
        export_csv_href: filters.export_href("csv"),
        export_json_href: filters.export_href("json"),
        export_zip_href: filters.export_href("zip"),
        items,
        pagination,
        filters,
        batch: None,
        csrf: csrf.to_string(),
    })
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    list: Filtered<Filters>,
) -> PageResult {
    let table = table(&state, list, &me.csrf).await?;
    if htmx.0 {
        return Ok(page(&TableFragment { table }));
    }
    let categories = catalog::all_categories(&state.ctx).await?;
    Ok(page(&ListPage {
        chrome: me.chrome(Nav::Questions).await,
        table,
        categories,
        statuses: QuestionStatus::ALL,
        sources: QuestionSource::ALL,
    }))
}

/// The format of a console export (the rest of its query is the list's filters).
#[derive(Deserialize)]
struct ExportParam {
    format: ExportFormat,
}

/// The export of the list's filters, as the API's export (same service, same body), for
/// the signed-in admin.
async fn export(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    RawQuery(raw): RawQuery,
) -> Result<Response, PageError> {
    let ExportParam { format } = parse_query(raw.as_deref())?;
    let query = Filters::read(raw.as_deref()).and_then(|f| f.to_export_query(format))?;
    let export = questions::export(&state.ctx, &me.admin, &query).await?;
    Ok(download(export))
}

#[derive(Deserialize)]
struct BatchForm {
    #[serde(default)]
    action: String,
    #[serde(default)]
    ids: Vec<String>,
    /// The list URL to go back to (only `/console/questions…` is followed).
    #[serde(default)]
    return_to: String,
}

async fn batch(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    ConsoleForm(form): ConsoleForm<BatchForm>,
) -> PageResult {
    let (action, label) = match form.action.as_str() {
        "publish" => (BatchAction::Publish, i18n::t("q-batch-publish")),
        "archive" => (BatchAction::Archive, i18n::t("q-batch-archive")),
        "delete" => (BatchAction::Delete, i18n::t("q-batch-delete")),
        _ => return Err(Error::validation(msg::CHOOSE_PUBLISH_ARCHIVE_OR_DELETE).into()),
    };
    if form.ids.is_empty() {
        return Err(Error::validation(msg::SELECT_AT_LEAST_ONE_QUESTION).into());
    }
    let result = questions::batch(
        &state.ctx,
        &me.admin,
        action,
        &BatchRequest { ids: form.ids },
    )
    .await?;
    let view = BatchView {
        action: label,
        total: result.total,
        succeeded: result.succeeded,
        failed: result
            .failed
            .into_iter()
            .map(|f| FailedMove {
                reason: failure_reason(&f.reason),
                id: f.id,
            })
            .collect(),
    };
    let return_to = if form.return_to.starts_with(urls::QUESTIONS) {
        form.return_to
    } else {
        urls::QUESTIONS.to_string()
    };
    if htmx.0 {
        let query = return_to.split_once('?').map(|(_, q)| q);
        let list = Filtered::read(query)?;
        let mut table = table(&state, list, &me.csrf).await?;
        table.batch = Some(view);
        return Ok(page(&TableFragment { table }));
    }
    let kind = if view.failed.is_empty() {
        "ok"
    } else {
        "error"
    };
    Ok(redirect_with(&me.session, kind, view.summary(), &return_to).await)
}

// ---------------------------------------------------------------------------------------
// The editor

/// The editor's fields, as typed.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditorForm {
    #[serde(default)]
    pub stem: String,
    #[serde(default)]
    pub content_type: String,
    #[serde(default)]
    pub correct_answer: String,
    /// One wrong answer per line.
    #[serde(default)]
    pub distractors: String,
    #[serde(default)]
    pub category_id: String,
    #[serde(default)]
    pub difficulty: String,
    #[serde(default)]
    pub card_title: String,
    #[serde(default)]
    pub card_summary: String,
    #[serde(default)]
    pub card_deep_dive: String,
    #[serde(default)]
    pub card_source_ref: String,
    /// The media library file the question shows (the one it has, or one just uploaded).
    #[serde(default)]
    pub media_id: String,
    #[serde(default)]
    pub media_alt: String,
    /// `true`: the question lets go of its media.
    #[serde(default)]
    pub media_remove: String,
}

impl EditorForm {
    fn from_question(q: &AdminQuestion) -> Self {
        let card = q.knowledge_card.as_ref();
        Self {
            stem: q.stem.text.clone(),
            content_type: q.content_type.to_string(),
            correct_answer: q.correct_answer.clone(),
            distractors: q.distractors.join("\n"),
            category_id: q.category_id.clone(),
            difficulty: q.difficulty.to_string(),
            card_title: card.and_then(|c| c.title.clone()).unwrap_or_default(),
            card_summary: card.map(|c| c.summary.clone()).unwrap_or_default(),
            card_deep_dive: card.and_then(|c| c.deep_dive.clone()).unwrap_or_default(),
            card_source_ref: card.and_then(|c| c.source_ref.clone()).unwrap_or_default(),
            media_id: q.media.as_ref().map(|m| m.id.clone()).unwrap_or_default(),
            media_alt: q
                .media
                .as_ref()
                .and_then(|m| m.alt.clone())
                .unwrap_or_default(),
            media_remove: String::new(),
        }
    }

    /// The media the form names: `None` when it names none (or asks to remove it).
    fn media(&self) -> Option<QuestionMedia> {
        let id = non_empty(&self.media_id)?;
        (self.media_remove != "true").then(|| QuestionMedia {
            id,
            alt: non_empty(&self.media_alt),
        })
    }

    /// A file uploaded with the form becomes its media; a text question takes the
    /// file's kind as its content type (what uploading a picture means).
    fn take_upload(&mut self, item: &MediaItem) {
        self.media_id = item.id.clone();
        self.media_remove = String::new();
        if self.content_type == "text" {
            self.content_type = item.kind.to_string();
        }
    }

    fn distractor_list(&self) -> Vec<String> {
        self.distractors
            .lines()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(String::from)
            .collect()
    }

    /// The card part: absent when every card field is empty.
    fn card(&self) -> Option<CardInput> {
        let fields = [
            &self.card_title,
            &self.card_summary,
            &self.card_deep_dive,
            &self.card_source_ref,
        ];
        if fields.iter().all(|f| f.trim().is_empty()) {
            return None;
        }
        Some(CardInput {
            title: non_empty(&self.card_title),
            summary: non_empty(&self.card_summary),
            deep_dive: non_empty(&self.card_deep_dive),
            source_ref: non_empty(&self.card_source_ref),
        })
    }

    fn to_input(&self) -> Result<QuestionInput, Error> {
        Ok(QuestionInput {
            stem: Some(Stem {
                text: self.stem.clone(),
            }),
            content_type: Some(self.content_type.as_str().into()),
            correct_answer: Some(self.correct_answer.clone()),
            distractors: Some(self.distractor_list()),
            category_id: Some(self.category_id.clone()),
            difficulty: parse_int("difficulty", &self.difficulty)?,
            media: self.media(),
            knowledge_card: self.card(),
        })
    }

    fn to_patch(&self) -> Result<QuestionPatch, Error> {
        Ok(QuestionPatch {
            stem: Some(Stem {
                text: self.stem.clone(),
            }),
            content_type: Some(self.content_type.as_str().into()),
            correct_answer: Some(self.correct_answer.clone()),
            distractors: Some(self.distractor_list()),
            category_id: Some(self.category_id.clone()),
            difficulty: parse_int("difficulty", &self.difficulty)?,
            // a named file sets it (unchanged: no new version), "remove" clears it
            media: if self.media_remove == "true" {
                Some(None)
            } else {
                self.media().map(Some)
            },
            knowledge_card: self.card(),
            status: None,
        })
    }
}

/// The status moves the transition table offers from `status`.
pub struct StatusPanel {
    pub id: QuestionId,
    pub status: QuestionStatus,
    /// Each move's target status and its button's label.
    pub moves: Vec<(&'static str, String)>,
    pub csrf: String,
}

fn move_label(to: QuestionStatus) -> String {
    i18n::t(match to {
        QuestionStatus::Draft => "q-move-draft",
        QuestionStatus::Reviewing => "q-move-reviewing",
        QuestionStatus::Published => "q-move-published",
        QuestionStatus::Archived => "q-move-archived",
    })
}

impl StatusPanel {
    fn of(q: &AdminQuestion, csrf: &str) -> Self {
        let moves = QuestionStatus::ALL
            .into_iter()
            .filter(|to| can_move(q.status, *to))
            .map(|to| (to.as_str(), move_label(to)))
            .collect();
        Self {
            id: q.id.clone(),
            status: q.status,
            moves,
            csrf: csrf.to_string(),
        }
    }
}

#[derive(Template)]
#[template(path = "console/question_edit.html")]
struct EditorPage {
    chrome: Chrome,
    /// None while creating.
    question: Option<AdminQuestion>,
    panel: Option<StatusPanel>,
    form: EditorForm,
    categories: Vec<Category>,
    content_types: [ContentType; 4],
    /// The file the form names, as the library has it.
    media: Option<MediaPreview>,
    error: Option<String>,
}

/// A library file shown in the editor and on the media screen.
pub struct MediaPreview {
    pub item: MediaItem,
    /// Its address on the console's own origin.
    pub src: String,
}

impl MediaPreview {
    pub fn of(item: MediaItem) -> Option<Self> {
        let src = media::own_path(&item)?;
        Some(Self { item, src })
    }

    /// `PNG · 12 KB · 640 × 480`.
    pub fn summary(&self) -> String {
        let format = self
            .item
            .mime
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let mut parts = vec![format, i18n::bytes(self.item.bytes)];
        if let (Some(w), Some(h)) = (self.item.width, self.item.height) {
            parts.push(format!("{w} × {h}"));
        }
        parts.join(" · ")
    }
}

/// The library's file `id`, `None` when the form names none or it has left the library.
async fn preview_of(state: &AppState, id: &str) -> Result<Option<MediaPreview>, Error> {
    if id.trim().is_empty() {
        return Ok(None);
    }
    match media::get(&state.ctx, id.trim()).await {
        Ok(item) => Ok(MediaPreview::of(item)),
        Err(Error::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

impl EditorPage {
    /// `source system · created 2026-11-24 13:05 · version 3` (empty while creating).
    fn meta(&self) -> String {
        self.question
            .as_ref()
            .map(|q| {
                i18n::t3(
                    "q-edit-meta",
                    ("source", &q.source.label(i18n::current())),
                    ("created", &i18n::when(&q.created_at)),
                    ("version", &q.version),
                )
            })
            .unwrap_or_default()
    }

    /// The question's flags by name (`too_easy, dead_distractor`), empty when none.
    fn flag_names(&self) -> String {
        self.question
            .as_ref()
            .map(|q| i18n::list(q.stats.flags.iter().map(|f| f.label(i18n::current()))))
            .unwrap_or_default()
    }
}

#[derive(Template)]
#[template(path = "console/_question_status.html")]
struct StatusFragment {
    panel: StatusPanel,
    message: Option<String>,
}

async fn editor(
    state: &AppState,
    me: &ConsoleAdmin,
    question: Option<AdminQuestion>,
    form: EditorForm,
    error: Option<String>,
) -> Result<EditorPage, Error> {
    Ok(EditorPage {
        chrome: me.chrome(Nav::Questions).await,
        panel: question.as_ref().map(|q| StatusPanel::of(q, &me.csrf)),
        question,
        media: preview_of(state, &form.media_id).await?,
        form,
        categories: catalog::all_categories(&state.ctx).await?,
        content_types: CONTENT_TYPES,
        error,
    })
}

async fn new_form(State(state): State<AppState>, me: ConsoleAdmin) -> PageResult {
    let form = EditorForm {
        content_type: "text".into(),
        difficulty: "1".into(),
        ..EditorForm::default()
    };
    Ok(page(&editor(&state, &me, None, form, None).await?))
}

/// The editor's post: its fields, with a file uploaded to the library as its media; a
/// refused file is the form's refusal.
async fn read_editor(
    state: &AppState,
    me: &ConsoleAdmin,
    request: Request,
) -> Result<(EditorForm, Option<Error>), PageError> {
    let MediaForm {
        fields: mut form,
        uploaded,
        refused,
    } = uploads::read::<EditorForm>(state, me, request, MEDIA_FILE_FIELD).await?;
    if let Some(item) = &uploaded {
        form.take_upload(item);
    }
    Ok((form, refused))
}

/// The editor's file field (the last of its form: see [`uploads::MediaForm::refused`]).
pub const MEDIA_FILE_FIELD: &str = "mediaFile";

async fn create(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    request: Request,
) -> PageResult {
    let (form, refused) = read_editor(&state, &me, request).await?;
    let result = match refused {
        Some(e) => Err(e),
        None => async { questions::create(&state.ctx, &me.admin, form.to_input()?).await }.await,
    };
    save_or_rerender(
        htmx,
        FormOf::New,
        result,
        async |created| {
            let to = urls::question(&created.id);
            Ok(redirect_with(&me.session, "ok", i18n::t("q-created"), &to).await)
        },
        async |refused| {
            let page = editor(&state, &me, None, form, Some(refused.message)).await?;
            Ok(html(refused.status, &page))
        },
    )
    .await
}

async fn edit_form(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<QuestionId>,
) -> PageResult {
    let question = questions::get(&state.ctx, &id).await?;
    let form = EditorForm::from_question(&question);
    Ok(page(
        &editor(&state, &me, Some(question), form, None).await?,
    ))
}

async fn save(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    PagePath(id): PagePath<QuestionId>,
    request: Request,
) -> PageResult {
    let (form, refused) = read_editor(&state, &me, request).await?;
    let result = match refused {
        Some(e) => Err(e),
        None => {
            async { questions::update(&state.ctx, &me.admin, &id, form.to_patch()?).await }.await
        }
    };
    save_or_rerender(
        htmx,
        FormOf::Existing,
        result,
        async |_| {
            let to = urls::question(&id);
            Ok(redirect_with(&me.session, "ok", i18n::t("q-saved"), &to).await)
        },
        async |refused| {
            let question = questions::get(&state.ctx, &id).await?;
            let page = editor(&state, &me, Some(question), form, Some(refused.message)).await?;
            Ok(html(refused.status, &page))
        },
    )
    .await
}

#[derive(Deserialize)]
struct StatusForm {
    #[serde(default)]
    status: String,
}

async fn move_status(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    PagePath(id): PagePath<QuestionId>,
    ConsoleForm(form): ConsoleForm<StatusForm>,
) -> PageResult {
    let question = questions::set_status(
        &state.ctx,
        &me.admin,
        &id,
        &StatusRequest {
            status: form.status.into(),
        },
    )
    .await?;
    let message = i18n::t1(
        "q-status-now",
        "status",
        question.status.label(i18n::current()),
    );
    if htmx.0 {
        return Ok(page(&StatusFragment {
            panel: StatusPanel::of(&question, &me.csrf),
            message: Some(message),
        }));
    }
    Ok(redirect_with(&me.session, "ok", message, &urls::question(&id)).await)
}
