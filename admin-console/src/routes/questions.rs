//! The question bank: `/v1/admin/questions/*` (questions, the status workflow, batches,
//! imports, the export and the versions of each question's content). Every route needs
//! an admin token.

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use shared::Error;
use shared::domain::question_status::BatchAction;
use shared::envelope::{ApiResult, Envelope, ErrorEnvelope, ok, paged};
use shared::http::{ApiJson, ApiPath, ApiQuery};
use shared::ids::QuestionId;
use shared::message::msg;
use shared::services::questions::{
    self, AdminQuestion, BatchRequest, BatchResult, CreatedQuestion, Export, ExportQuery,
    ImportRequest, ImportResult, ListQuery, QuestionExport, QuestionInput, QuestionPatch,
    QuestionVersion, QuestionVersionSummary, StatusRequest,
};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::extract::AdminUser;

/// The body of a CSV import: UTF-8 text, described as the bytes of a file (a string of
/// format `binary`) so that client generators send it as it is.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary)]
#[allow(dead_code)]
pub struct CsvText(Vec<u8>);

/// The body of a bundle import, and a bundle export: a zip file's bytes.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary, example = "(the bytes of questions.zip)")]
#[allow(dead_code)]
pub struct ZipBytes(Vec<u8>);

/// Largest import body (JSON or CSV).
pub const IMPORT_BODY_LIMIT: usize = 2 * 1024 * 1024;

pub fn router() -> OpenApiRouter<AppState> {
    let imports = OpenApiRouter::new()
        .routes(routes!(import_json))
        .routes(routes!(import_csv))
        .layer(DefaultBodyLimit::max(IMPORT_BODY_LIMIT));
    OpenApiRouter::new()
        .routes(routes!(list_questions, create_question))
        // A fixed segment: the router prefers it to `/questions/{id}`, whatever the order.
        .routes(routes!(export_questions))
        .routes(routes!(get_question, update_question, delete_question))
        .routes(routes!(set_status))
        .routes(routes!(list_versions))
        .routes(routes!(get_version))
        .routes(routes!(revert_question))
        .routes(routes!(batch_publish))
        .routes(routes!(batch_archive))
        .routes(routes!(batch_delete))
        .routes(routes!(batch_review))
        .merge(imports)
        // the bundle's own bound is enforced as the body arrives (`questions::import_zip`)
        .routes(routes!(import_zip))
}

/// List questions
///
/// Questions of the bank, filtered, sorted and paged.
#[utoipa::path(get, path = "/questions", operation_id = "adminListQuestions", tag = "questions", security(("admin_jwt" = [])),
    params(ListQuery),
    responses(
        (status = 200, description = "A page of questions with `pagination`", body = Envelope<Vec<AdminQuestion>>),
        (status = 400, description = "A filter, sort or page value out of range", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn list_questions(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> ApiResult<Vec<AdminQuestion>> {
    let (items, pagination) = questions::list(&state.ctx, &q).await?;
    Ok(paged(items, pagination))
}

/// Export questions
///
/// Every question the filters match (the list's filters and rules; no paging), oldest
/// first, in an import's format: `format=csv` is the 13-column CSV of the CSV import
/// (no card title: the template has no column for it; distractors 1-5; a cell that
/// begins with `=`, `+`, `-`, `@`, a tab or a carriage return, possibly after quotes,
/// gets a leading `'` so no spreadsheet runs it as a formula, and the CSV import takes
/// it away again; with a question that has media, the columns `mediaId` and `mediaAlt`
/// follow), `format=json` the body of the JSON import, `format=zip` that body as
/// `questions.json` with every media file its questions use as `media/{id}.{ext}` (the
/// body of `POST /questions/import-zip`). Each export is recorded
/// in the audit log (`question.export`: the admin, the time, the format and the
/// filters). Streamed in batches: an error after the answer started
/// cuts the body short (the chunked transfer never completes), and is logged.
#[utoipa::path(get, path = "/questions/export", operation_id = "adminExportQuestions", tag = "questions", security(("admin_jwt" = [])),
    params(ExportQuery),
    responses(
        (status = 200, description = "The matching questions as a download (`Content-Disposition: attachment`)",
            content(
                (String = "text/csv", example = json!("categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef\r\nworld-geography,text,1,What is the capital of Canada?,Ottawa,Toronto,Montreal,Vancouver,,,Ottawa was chosen by Queen Victoria in 1857.,,\r\n")),
                (QuestionExport = "application/json"),
                (ZipBytes = "application/zip"),
            ),
            headers(("Content-Disposition" = String, description = "`attachment; filename=\"questions.csv\"`, `questions.json` or `questions.zip`"))),
        (status = 400, description = "No or an unknown format, or a filter value out of range (VALIDATION_ERROR)", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 503, description = "`format=zip` while another zip is being made or read in this process, or the spool or media store is unavailable (`Retry-After`)", body = ErrorEnvelope),
    ))]
pub async fn export_questions(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiQuery(q): ApiQuery<ExportQuery>,
) -> Result<Response, Error> {
    Ok(download(questions::export(&state.ctx, &admin, &q).await?))
}

/// A started export as a download: its format's type and file name, the body streamed.
pub fn download(export: Export) -> Response {
    let format = export.format;
    (
        [
            (header::CONTENT_TYPE, format.content_type().to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}\"", format.file_name()),
            ),
        ],
        Body::from_stream(export.chunks),
    )
        .into_response()
}

/// Get a question
///
/// One question with its knowledge card.
#[utoipa::path(get, path = "/questions/{id}", operation_id = "adminGetQuestion", tag = "questions", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Question id")),
    responses(
        (status = 200, description = "The question", body = Envelope<AdminQuestion>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question", body = ErrorEnvelope),
    ))]
pub async fn get_question(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath(id): ApiPath<QuestionId>,
) -> ApiResult<AdminQuestion> {
    Ok(ok(questions::get(&state.ctx, &id).await?))
}

/// Create a draft question
///
/// Creates a draft question (and its card), checked by the import item rules.
#[utoipa::path(post, path = "/questions", operation_id = "adminCreateQuestion", tag = "questions", security(("admin_jwt" = [])),
    request_body(content = QuestionInput, example = json!({"stem": {"text": "What is the capital of Australia?"}, "contentType": "text", "correctAnswer": "Canberra", "distractors": ["Sydney", "Melbourne", "Perth"], "categoryId": "world-geography", "difficulty": 1, "knowledgeCard": {"title": "Canberra: a capital by compromise", "summary": "Canberra was purpose-built to settle the Sydney-Melbourne rivalry.", "deepDive": "When Australia federated in 1901, neither Sydney nor Melbourne would accept the other as capital.", "sourceRef": "National Capital Authority"}})),
    responses(
        (status = 200, description = "The new id and status draft", body = Envelope<CreatedQuestion>),
        (status = 400, description = "A field breaks the item rules", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn create_question(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<QuestionInput>,
) -> ApiResult<CreatedQuestion> {
    Ok(ok(questions::create(&state.ctx, &admin, body).await?))
}

/// Update a question
///
/// Edits a question: every field optional; `status` follows the transition table;
/// `knowledgeCard` updates the card or creates it.
#[utoipa::path(put, path = "/questions/{id}", operation_id = "adminUpdateQuestion", tag = "questions", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Question id")),
    request_body(content = QuestionPatch, example = json!({"difficulty": 2, "status": "reviewing"})),
    responses(
        (status = 200, description = "The updated question", body = Envelope<AdminQuestion>),
        (status = 400, description = "Invalid field or INVALID_STATUS_TRANSITION", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question", body = ErrorEnvelope),
        (status = 409, description = "The status or the content changed meanwhile", body = ErrorEnvelope),
    ))]
pub async fn update_question(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<QuestionId>,
    ApiJson(body): ApiJson<QuestionPatch>,
) -> ApiResult<AdminQuestion> {
    Ok(ok(questions::update(&state.ctx, &admin, &id, body).await?))
}

/// Archive a question
///
/// Archives a question (from draft, reviewing or published).
#[utoipa::path(delete, path = "/questions/{id}", operation_id = "adminArchiveQuestion", tag = "questions", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Question id")),
    responses(
        (status = 200, description = "Archived; data is null", body = Envelope<Object>),
        (status = 400, description = "INVALID_STATUS_TRANSITION (already archived)", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question", body = ErrorEnvelope),
        (status = 409, description = "The status changed meanwhile; read the question again", body = ErrorEnvelope),
    ))]
pub async fn delete_question(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<QuestionId>,
) -> ApiResult<()> {
    questions::delete(&state.ctx, &admin, &id).await?;
    Ok(ok(()))
}

/// Move a question to another status
///
/// Moves a question by the transition table.
#[utoipa::path(patch, path = "/questions/{id}/status", operation_id = "adminSetQuestionStatus", tag = "questions", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Question id")),
    request_body(content = StatusRequest, example = json!({"status": "reviewing"})),
    responses(
        (status = 200, description = "The updated question", body = Envelope<AdminQuestion>),
        (status = 400, description = "Unknown status or INVALID_STATUS_TRANSITION", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question", body = ErrorEnvelope),
        (status = 409, description = "The status changed meanwhile; read the question again", body = ErrorEnvelope),
    ))]
pub async fn set_status(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath(id): ApiPath<QuestionId>,
    ApiJson(body): ApiJson<StatusRequest>,
) -> ApiResult<AdminQuestion> {
    Ok(ok(
        questions::set_status(&state.ctx, &admin, &id, &body).await?
    ))
}

/// List a question's versions
///
/// The versions of a question's content, newest first: version 1 is the content it was
/// created with, and every edit that changed its content (its own fields or its
/// knowledge card, by any route) added one. A status move adds none.
#[utoipa::path(get, path = "/questions/{id}/versions", operation_id = "adminListQuestionVersions", tag = "questions", security(("admin_jwt" = [])),
    params(("id" = String, Path, description = "Question id")),
    responses(
        (status = 200, description = "The versions, newest first", body = Envelope<Vec<QuestionVersionSummary>>),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question", body = ErrorEnvelope),
    ))]
pub async fn list_versions(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath(id): ApiPath<QuestionId>,
) -> ApiResult<Vec<QuestionVersionSummary>> {
    Ok(ok(questions::list_versions(&state.ctx, &id).await?))
}

/// Get one version of a question
///
/// The question's content (with its knowledge card) as that version holds it.
#[utoipa::path(get, path = "/questions/{id}/versions/{version}", operation_id = "adminGetQuestionVersion", tag = "questions", security(("admin_jwt" = [])),
    params(
        ("id" = String, Path, description = "Question id"),
        ("version" = i64, Path, minimum = 1, description = "Version number, 1 or more"),
    ),
    responses(
        (status = 200, description = "The content of that version", body = Envelope<QuestionVersion>),
        (status = 400, description = "The version is not a positive integer", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question or version", body = ErrorEnvelope),
    ))]
pub async fn get_version(
    State(state): State<AppState>,
    AdminUser(_admin): AdminUser,
    ApiPath((id, version)): ApiPath<(QuestionId, i64)>,
) -> ApiResult<QuestionVersion> {
    Ok(ok(questions::get_version(&state.ctx, &id, version).await?))
}

/// Revert a question to a version
///
/// Restores the content of that version (the question's fields and its knowledge card:
/// updated, recreated, or removed when that version had none) as a new version; the
/// status is not changed. When the question holds that content already, nothing is
/// written and the question is answered as it is (no new version).
#[utoipa::path(post, path = "/questions/{id}/versions/{version}/revert", operation_id = "adminRevertQuestion", tag = "questions", security(("admin_jwt" = [])),
    params(
        ("id" = String, Path, description = "Question id"),
        ("version" = i64, Path, minimum = 1, description = "The version to restore, 1 or more"),
    ),
    responses(
        (status = 200, description = "The question after the revert", body = Envelope<AdminQuestion>),
        (status = 400, description = "The version is not a positive integer", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 404, description = "No such question or version", body = ErrorEnvelope),
        (status = 409, description = "The question changed meanwhile; read it again", body = ErrorEnvelope),
    ))]
pub async fn revert_question(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiPath((id, version)): ApiPath<(QuestionId, i64)>,
) -> ApiResult<AdminQuestion> {
    Ok(ok(
        questions::revert(&state.ctx, &admin, &id, version).await?
    ))
}

/// Publish questions in bulk
///
/// Publishes questions in reviewing; others are per-id failures.
#[utoipa::path(post, path = "/questions/batch-publish", operation_id = "adminBatchPublishQuestions", tag = "questions", security(("admin_jwt" = [])),
    request_body(content = BatchRequest, example = json!({"ids": ["7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"]})),
    responses(
        (status = 200, description = "Per-id outcome", body = Envelope<BatchResult>),
        (status = 400, description = "0 or more than 200 ids, or an id that is not a uuid", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn batch_publish(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<BatchRequest>,
) -> ApiResult<BatchResult> {
    Ok(ok(questions::batch(
        &state.ctx,
        &admin,
        BatchAction::Publish,
        &body,
    )
    .await?))
}

/// Archive questions in bulk
///
/// Archives questions in draft or published; others are per-id failures.
#[utoipa::path(post, path = "/questions/batch-archive", operation_id = "adminBatchArchiveQuestions", tag = "questions", security(("admin_jwt" = [])),
    request_body(content = BatchRequest, example = json!({"ids": ["7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"]})),
    responses(
        (status = 200, description = "Per-id outcome", body = Envelope<BatchResult>),
        (status = 400, description = "0 or more than 200 ids, or an id that is not a uuid", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn batch_archive(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<BatchRequest>,
) -> ApiResult<BatchResult> {
    Ok(ok(questions::batch(
        &state.ctx,
        &admin,
        BatchAction::Archive,
        &body,
    )
    .await?))
}

/// Delete (archive) questions in bulk
///
/// Soft-deletes (archives) questions in draft, reviewing or published; archived ones are
/// per-id failures.
#[utoipa::path(post, path = "/questions/batch-delete", operation_id = "adminBatchDeleteQuestions", tag = "questions", security(("admin_jwt" = [])),
    request_body(content = BatchRequest, example = json!({"ids": ["7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"]})),
    responses(
        (status = 200, description = "Per-id outcome", body = Envelope<BatchResult>),
        (status = 400, description = "0 or more than 200 ids, or an id that is not a uuid", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn batch_delete(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<BatchRequest>,
) -> ApiResult<BatchResult> {
    Ok(ok(questions::batch(
        &state.ctx,
        &admin,
        BatchAction::Delete,
        &body,
    )
    .await?))
}

/// Send questions back to review in bulk
///
/// Moves published questions to reviewing (out of the challenges until someone looks:
/// the "Needs attention" action); others are per-id failures.
#[utoipa::path(post, path = "/questions/batch-review", operation_id = "adminBatchReviewQuestions", tag = "questions", security(("admin_jwt" = [])),
    request_body(content = BatchRequest, example = json!({"ids": ["7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"]})),
    responses(
        (status = 200, description = "Per-id outcome", body = Envelope<BatchResult>),
        (status = 400, description = "0 or more than 200 ids, or an id that is not a uuid", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
    ))]
pub async fn batch_review(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<BatchRequest>,
) -> ApiResult<BatchResult> {
    Ok(ok(questions::batch(
        &state.ctx,
        &admin,
        BatchAction::Review,
        &body,
    )
    .await?))
}

/// Import questions (JSON)
///
/// Imports 1-200 questions as drafts, all or nothing.
#[utoipa::path(post, path = "/questions/import", operation_id = "adminImportQuestions", tag = "questions", security(("admin_jwt" = [])),
    request_body(content = ImportRequest, example = json!({"questions": [{"stem": {"text": "What is the capital of Australia?"}, "contentType": "text", "correctAnswer": "Canberra", "distractors": ["Sydney", "Melbourne", "Perth"], "categoryId": "world-geography", "difficulty": 1, "knowledgeCard": {"title": "Canberra: a capital by compromise", "summary": "Canberra was purpose-built to settle the Sydney-Melbourne rivalry.", "deepDive": "When Australia federated in 1901, neither Sydney nor Melbourne would accept the other as capital.", "sourceRef": "National Capital Authority"}}]})),
    responses(
        (status = 200, description = "Every item inserted", body = Envelope<ImportResult>),
        (status = 400, description = "VALIDATION_FAILED with per-item `details`, or VALIDATION_ERROR for 0 or more than 200 items", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 413, description = "Body over 2 MiB", body = ErrorEnvelope),
    ))]
pub async fn import_json(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(body): ApiJson<ImportRequest>,
) -> ApiResult<ImportResult> {
    Ok(ok(questions::import(&state.ctx, &admin, body).await?))
}

/// Import questions (CSV)
///
/// Imports 1-200 CSV rows as drafts, all or nothing. Header: `categoryId, contentType,
/// difficulty, stemText, correctAnswer, distractor1..distractor5, cardSummary,
/// cardDeepDive, cardSourceRef`.
#[utoipa::path(post, path = "/questions/import-csv", operation_id = "adminImportQuestionsCsv", tag = "questions", security(("admin_jwt" = [])),
    request_body(content = CsvText, content_type = "text/csv", description = "CSV text (sent as text/plain or text/csv)", example = json!("categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef\nworld-geography,text,1,What is the capital of Canada?,Ottawa,Toronto,Montreal,Vancouver,,,Ottawa was chosen by Queen Victoria in 1857.,,\n")),
    responses(
        (status = 200, description = "Every row inserted", body = Envelope<ImportResult>),
        (status = 400, description = "CSV_PARSE_ERROR, VALIDATION_FAILED with per-row `details`, or VALIDATION_ERROR (wrong Content-Type, 0 or more than 200 rows)", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 413, description = "Body over 2 MiB", body = ErrorEnvelope),
    ))]
pub async fn import_csv(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<ImportResult> {
    let body = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::PayloadTooLarge(msg::request_body_larger_than_size_mib(
                IMPORT_BODY_LIMIT / (1024 * 1024),
            ))
        } else {
            Error::Validation(msg::the_request_was_refused_detail(e.body_text()))
        }
    })?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    Ok(ok(questions::import_csv(
        &state.ctx,
        &admin,
        content_type,
        &body,
    )
    .await?))
}

/// Import questions with their media (zip)
///
/// Restores a bundle of `GET /questions/export?format=zip` (from this deployment or
/// another): each media file it holds goes into the library as an upload would (type
/// from the bytes, size limits, JPEG metadata removed), then its 1-2,000 questions are
/// imported as drafts, all or nothing, by the JSON import's rules. A media id the bundle
/// does not hold must already be in the library.
#[utoipa::path(post, path = "/questions/import-zip", operation_id = "adminImportQuestionsZip", tag = "questions", security(("admin_jwt" = [])),
    request_body(
        content = ZipBytes,
        content_type = "application/octet-stream",
        description = "The zip file; its Content-Type is not read (`application/zip` will do as well)"
    ),
    responses(
        (status = 200, description = "Every question inserted", body = Envelope<ImportResult>),
        (status = 400, description = "Not a question bundle, VALIDATION_FAILED with per-item `details`, a media file of an unsupported type, or 0 or more than 2,000 questions", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid admin token", body = ErrorEnvelope),
        (status = 413, description = "The zip over 1 GiB, or a file in it over its limit", body = ErrorEnvelope),
        (status = 503, description = "The media store or the spool cannot be reached, or another zip is being made or read in this process (`Retry-After`)", body = ErrorEnvelope),
    ))]
pub async fn import_zip(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    request: axum::extract::Request,
) -> ApiResult<ImportResult> {
    use futures::TryStreamExt;
    let chunks = request
        .into_body()
        .into_data_stream()
        .map_err(|e| Error::validation(msg::cannot_read_the_body_detail(e)));
    Ok(ok(questions::import_zip(
        &state.ctx,
        &admin,
        Box::pin(chunks),
    )
    .await?))
}
