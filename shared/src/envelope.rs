//! The success side of the response envelope:
//! `{success: true, data, error: null, pagination?, meta?}`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ItemErrors;
use crate::message::msg;

/// `pagination` of a paged list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Pagination {
    pub total: i64,
    pub page: i64,
    pub limit: i64,
}

/// The deepest row any list may start at. Every table a list reads stays far below a
/// billion rows; a page past it cannot exist, and is refused before `(page − 1) × limit`
/// could overflow or reach the database.
pub const MAX_OFFSET: i64 = 1_000_000_000;

/// The first row of page `page` (≥ 1) of `limit` rows, or 400 VALIDATION_ERROR for a page
/// beyond [`MAX_OFFSET`].
pub fn page_offset(page: i64, limit: i64) -> crate::Result<i64> {
    (page - 1)
        .checked_mul(limit)
        .filter(|offset| (0..=MAX_OFFSET).contains(offset))
        .ok_or_else(|| {
            crate::Error::validation(msg::page_must_be_at_most_max(MAX_OFFSET / limit.max(1) + 1))
        })
}

/// A successful answer: the payload and, for lists and leaderboards, `pagination` and
/// `meta`.
pub struct ApiResponse<T> {
    status: StatusCode,
    data: T,
    pagination: Option<Pagination>,
    meta: Option<serde_json::Value>,
}

/// What handlers return.
pub type ApiResult<T> = Result<ApiResponse<T>, crate::Error>;

/// `200` with `data`.
pub fn ok<T>(data: T) -> ApiResponse<T> {
    ApiResponse {
        status: StatusCode::OK,
        data,
        pagination: None,
        meta: None,
    }
}

/// `200` with a page of `data` and its `pagination`.
pub fn paged<T>(data: Vec<T>, pagination: Pagination) -> ApiResponse<Vec<T>> {
    ApiResponse {
        status: StatusCode::OK,
        data,
        pagination: Some(pagination),
        meta: None,
    }
}

impl<T> ApiResponse<T> {
    pub fn with_meta(mut self, meta: impl Serialize) -> Self {
        self.meta = serde_json::to_value(meta).ok();
        self
    }
    pub fn with_pagination(mut self, pagination: Pagination) -> Self {
        self.pagination = Some(pagination);
        self
    }
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }
}

#[derive(Serialize)]
struct SuccessEnvelope<'a, T> {
    success: bool,
    data: &'a T,
    error: (),
    #[serde(skip_serializing_if = "Option::is_none")]
    pagination: Option<Pagination>,
    #[serde(skip_serializing_if = "Option::is_none")]
    meta: Option<&'a serde_json::Value>,
}

impl<T: Serialize> IntoResponse for ApiResponse<T> {
    fn into_response(self) -> Response {
        json_response(
            self.status,
            &SuccessEnvelope {
                success: true,
                data: &self.data,
                error: (),
                pagination: self.pagination,
                meta: self.meta.as_ref(),
            },
        )
    }
}

/// Serialises `body` as the JSON response; a serialisation failure is itself a 500
/// envelope rather than a panic.
pub(crate) fn json_response(status: StatusCode, body: &impl Serialize) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            bytes,
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "response serialisation failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
                r#"{"success":false,"data":null,"error":{"code":"INTERNAL_ERROR","message":"internal server error"}}"#,
            )
                .into_response()
        }
    }
}

/// The envelope as documented in the OpenAPI documents (responses are built by
/// [`ApiResponse`] and [`crate::Error`]; this type only describes them).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Envelope<T> {
    /// true on success, false on error.
    pub success: bool,
    /// The payload; null on error.
    pub data: Option<T>,
    /// null on success.
    pub error: Option<ErrorBody>,
    /// Only on paged lists.
    pub pagination: Option<Pagination>,
    /// Only on leaderboard responses.
    pub meta: Option<serde_json::Value>,
}

/// The envelope of an error answer.
#[derive(Serialize, ToSchema)]
pub struct ErrorEnvelope {
    /// Always false.
    pub success: bool,
    /// Always null.
    pub data: Option<serde_json::Value>,
    pub error: ErrorBody,
}

/// Adds the answer any route that reads or writes the database gives while the database
/// cannot be reached (503 SERVICE_UNAVAILABLE with `Retry-After`) to every operation of
/// `api` that documents no 503 of its own. `/health` never touches the database.
pub fn document_outages(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{
        ContentBuilder, HeaderBuilder, ObjectBuilder, Ref, ResponseBuilder, Type,
    };
    let outage = ResponseBuilder::new()
        .description(
            "The database cannot be reached (SERVICE_UNAVAILABLE); retry after Retry-After seconds",
        )
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                .build(),
        )
        .header(
            "Retry-After",
            HeaderBuilder::new()
                .schema(ObjectBuilder::new().schema_type(Type::Integer))
                .description(Some("Seconds to wait before retrying"))
                .build(),
        )
        .build();
    for (path, item) in &mut api.paths.paths {
        if path == "/health" {
            continue;
        }
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
        ];
        for operation in operations.into_iter().flatten() {
            operation
                .responses
                .responses
                .entry("503".to_string())
                .or_insert_with(|| outage.clone().into());
        }
    }
}

/// The HTTP status of an error (operations.md §8).
impl crate::Error {
    pub fn status(&self) -> StatusCode {
        match self {
            crate::Error::Validation(_)
            | crate::Error::ValidationFailed(_)
            | crate::Error::CsvParse(_)
            | crate::Error::InvalidStatusTransition { .. }
            | crate::Error::RegionChangeLimit(_)
            | crate::Error::NotAvailableInMvp(_)
            | crate::Error::InvalidReceipt(_)
            | crate::Error::UnsupportedPlatform(_) => StatusCode::BAD_REQUEST,
            crate::Error::Unauthorized(_)
            | crate::Error::MfaRequired(_)
            | crate::Error::InvalidVerifyCode(_) => StatusCode::UNAUTHORIZED,
            crate::Error::Forbidden(_)
            | crate::Error::MinorProtection(_)
            | crate::Error::RealNameRequired(_) => StatusCode::FORBIDDEN,
            crate::Error::NotFound(_) => StatusCode::NOT_FOUND,
            crate::Error::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            crate::Error::Conflict(_) => StatusCode::CONFLICT,
            crate::Error::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            crate::Error::RangeNotSatisfiable(_) => StatusCode::RANGE_NOT_SATISFIABLE,
            crate::Error::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            crate::Error::ServiceUnavailable(_)
            | crate::Error::DatabaseUnavailable(_)
            | crate::Error::Overloaded { .. }
            | crate::Error::SmsProvider(_) => StatusCode::SERVICE_UNAVAILABLE,
            crate::Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// An error answer's messages (its own, and its items' when it has some): the HTTP
/// layer (`localize_errors`) renders them in the client's language.
#[derive(Clone, Debug)]
pub struct ErrorText {
    pub message: crate::message::Message,
    pub details: Option<DetailsText>,
}

/// What an error's `details` say before they are put in a language.
#[derive(Clone, Debug)]
pub enum DetailsText {
    /// The failed items of a bulk import (their messages).
    Items(Vec<crate::error::ItemFailure>),
    /// A minor-protection refusal (no text to translate).
    Minor(MinorProtectionDetails),
}

impl DetailsText {
    /// As the envelope shows them, in `lang`.
    pub fn render(&self, lang: crate::i18n::Lang) -> ErrorDetails {
        match self {
            Self::Items(items) => {
                ErrorDetails::Items(items.iter().map(|item| item.render(lang)).collect())
            }
            Self::Minor(details) => ErrorDetails::MinorProtection(details.clone()),
        }
    }
}

/// `error.details`: per-item failures of a bulk import (VALIDATION_FAILED), or why
/// minor protection refused and when play is allowed again (MINOR_PROTECTION).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ErrorDetails {
    Items(Vec<ItemErrors>),
    MinorProtection(MinorProtectionDetails),
}

/// `error.details` of MINOR_PROTECTION.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MinorProtectionDetails {
    /// `daily_limit`, `curfew`, `ads_unavailable` or `window`.
    pub reason: crate::domain::minor::MinorReason,
    /// When the player may play again; null when not while minor mode is on (ads).
    pub next_allowed_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// The error half of the envelope.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// A stable machine-readable code such as `VALIDATION_ERROR`.
    pub code: &'static str,
    /// Human-readable text.
    pub message: String,
    /// Per-item failures of a bulk import (VALIDATION_FAILED), or the reason and next
    /// allowed time of a MINOR_PROTECTION refusal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<ErrorDetails>,
}

impl IntoResponse for crate::Error {
    fn into_response(self) -> Response {
        let status = self.status();
        if let crate::Error::DatabaseUnavailable(detail) = &self {
            // Caused outside this process and answered so clients retry; one line per
            // refused request, the readiness probe reports the outage as a whole.
            tracing::warn!(error = %detail, "request refused: database unreachable");
        } else if status.is_server_error() {
            tracing::error!(code = self.code(), error = ?self, "request failed");
        } else {
            tracing::debug!(code = self.code(), message = %self, "request refused");
        }
        let failures = match &self {
            crate::Error::ValidationFailed(items) => Some(DetailsText::Items(items.clone())),
            crate::Error::MinorProtection(refusal) => {
                Some(DetailsText::Minor(MinorProtectionDetails {
                    reason: refusal.reason,
                    next_allowed_at: refusal.next_allowed_at,
                }))
            }
            _ => None,
        };
        let details = failures.as_ref().map(|d| d.render(crate::i18n::Lang::En));
        let retry_after = self.retry_after_secs();
        let message = self.public_message();
        let body = ErrorEnvelope {
            success: false,
            data: None,
            error: ErrorBody {
                code: self.code(),
                message: message.to_string(),
                details,
            },
        };
        let code = body.error.code;
        let text = ErrorText {
            message,
            details: failures,
        };
        let mut response = json_response(status, &body);
        response
            .extensions_mut()
            .insert(crate::metrics::ErrorCode(code));
        // the messages, for `http::localize_errors` to put in the client's language
        response.extensions_mut().insert(text);
        if let Some(secs) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// The last touches of a served document `doc` (the JSON of the routes' OpenAPI document),
/// so that it describes the answers and bodies as they are to a client generator too:
/// see [`reference_envelope_payloads`] and [`optional_bodies_are_absent_not_null`].
pub fn finish_document(doc: &mut serde_json::Value) {
    reference_envelope_payloads(doc);
    optional_bodies_are_absent_not_null(doc);
}

/// An optional request body (`request_body(content = Option<T>)`) is one a client may
/// leave out, not a JSON `null` (which the extractors refuse): utoipa writes its schema as
/// `T` or null, and `required` false. The schema becomes `T` alone; `required` false still
/// says the body may be absent.
pub fn optional_bodies_are_absent_not_null(doc: &mut serde_json::Value) {
    let Some(paths) = doc
        .get_mut("paths")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for operation in item.values_mut() {
            let optional = operation
                .pointer("/requestBody/required")
                .and_then(serde_json::Value::as_bool)
                != Some(true);
            let Some(content) = operation
                .pointer_mut("/requestBody/content")
                .and_then(serde_json::Value::as_object_mut)
            else {
                continue;
            };
            if !optional {
                continue;
            }
            for media in content.values_mut() {
                if let Some(schema) = media.get_mut("schema") {
                    drop_null(schema);
                }
            }
        }
    }
}

/// `T` of a schema `oneOf: [null, T]` or `type: [X, "null"]`.
fn drop_null(schema: &mut serde_json::Value) {
    let null = serde_json::json!({ "type": "null" });
    if let Some(alternatives) = schema.get("oneOf").and_then(serde_json::Value::as_array) {
        let rest: Vec<&serde_json::Value> = alternatives.iter().filter(|a| **a != null).collect();
        if let [only] = rest[..]
            && rest.len() < alternatives.len()
        {
            *schema = only.clone();
        }
        return;
    }
    if let Some(types) = schema
        .get_mut("type")
        .and_then(serde_json::Value::as_array_mut)
    {
        types.retain(|t| t != "null");
        if let [only] = &types[..] {
            let only = only.clone();
            schema["type"] = only;
        }
    }
}

/// Points the `data` of every `Envelope_*` schema of the document `doc` at the named
/// schema of its payload.
///
/// utoipa writes the generic argument of `Envelope<T>` inline, a copy of `T`'s schema
/// (`data` of `Envelope_Session` is a copy of `Session`, `Envelope_Vec_Track` holds an
/// array of copies of `Track`): a client generator then makes a second, differently named
/// model of every payload. Each inline copy that is equal to a schema of `components`
/// becomes a `$ref` to it, also inside `oneOf` (an `Option`) and `items` (a `Vec`).
pub fn reference_envelope_payloads(doc: &mut serde_json::Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return;
    };
    let named: Vec<(String, serde_json::Value)> = schemas
        .iter()
        .filter(|(name, schema)| {
            !name.starts_with("Envelope_")
                && ["properties", "oneOf", "allOf", "anyOf", "enum"]
                    .iter()
                    .any(|key| schema.get(key).is_some())
        })
        .map(|(name, schema)| (name.clone(), schema.clone()))
        .collect();
    for (name, envelope) in schemas.iter_mut() {
        if !name.starts_with("Envelope_") {
            continue;
        }
        if let Some(data) = envelope.pointer_mut("/properties/data") {
            reference_copies(data, &named);
        }
    }
}

fn reference_copies(schema: &mut serde_json::Value, named: &[(String, serde_json::Value)]) {
    if let Some((name, _)) = named.iter().find(|(_, copy)| copy == schema) {
        *schema = serde_json::json!({ "$ref": format!("#/components/schemas/{name}") });
        return;
    }
    if let Some(items) = schema.get_mut("items") {
        reference_copies(items, named);
    }
    if let Some(alternatives) = schema.get_mut("oneOf").and_then(|v| v.as_array_mut()) {
        for alternative in alternatives {
            reference_copies(alternative, named);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn envelope_payloads_point_at_their_named_schemas() {
        let track = json!({"type": "object", "properties": {"id": {"type": "string"}}});
        let mut doc = json!({"components": {"schemas": {
            "Track": track,
            "Envelope_Track": {"properties": {"data": track}},
            "Envelope_Option_Track": {"properties": {"data": {"oneOf": [{"type": "null"}, track]}}},
            "Envelope_Vec_Track": {"properties": {"data": {"type": "array", "items": track}}},
            "Envelope_Other": {"properties": {"data": {"type": "object"}}},
        }}});
        reference_envelope_payloads(&mut doc);
        let to_track = json!({"$ref": "#/components/schemas/Track"});
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["Envelope_Track"]["properties"]["data"], to_track);
        assert_eq!(
            schemas["Envelope_Option_Track"]["properties"]["data"]["oneOf"][1],
            to_track
        );
        assert_eq!(
            schemas["Envelope_Vec_Track"]["properties"]["data"]["items"],
            to_track
        );
        // no named schema equals a bare object
        assert_eq!(
            schemas["Envelope_Other"]["properties"]["data"],
            json!({"type": "object"})
        );
        assert_eq!(schemas["Track"], track);
    }

    #[test]
    fn optional_bodies_may_be_absent_but_not_null() {
        let body = |schema: serde_json::Value, required: Option<bool>| {
            let mut body = json!({"content": {"application/json": {"schema": schema}}});
            if let Some(required) = required {
                body["required"] = json!(required);
            }
            body
        };
        let card = json!({"$ref": "#/components/schemas/Card"});
        let mut doc = json!({"paths": {"/a": {
            "post": {"requestBody": body(json!({"oneOf": [{"type": "null"}, card]}), None)},
            "put": {"requestBody": body(json!({"type": ["object", "null"]}), Some(false))},
            "patch": {"requestBody": body(json!({"oneOf": [{"type": "null"}, card]}), Some(true))},
        }}});
        optional_bodies_are_absent_not_null(&mut doc);
        let schema = |method: &str| {
            doc["paths"]["/a"][method]["requestBody"]["content"]["application/json"]["schema"]
                .clone()
        };
        assert_eq!(schema("post"), card);
        assert_eq!(schema("put"), json!({"type": "object"}));
        // a required body keeps what it says
        assert_eq!(schema("patch")["oneOf"][1], card);
    }
}
