//! The one error type of the service and its stable `error.code`s (operations.md §8).
//! Its HTTP answer (status, envelope, `Retry-After`) is given once, by the envelope module.

use serde::Serialize;

use crate::domain::minor::{MinorReason, MinorRefusal};
use crate::message::{Message, msg};

/// One failed item of a bulk import: its position and the messages of its failed checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemFailure {
    /// 0-based position in the JSON array, or data row after the CSV header.
    pub index: usize,
    pub errors: Vec<Message>,
}

impl ItemFailure {
    /// As the envelope's `details` show it, in `lang`.
    pub fn render(&self, lang: crate::i18n::Lang) -> ItemErrors {
        ItemErrors {
            index: self.index,
            errors: self.errors.iter().map(|m| m.render(lang)).collect(),
        }
    }
}

/// One failed item of a bulk import, as the envelope's `details` show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ItemErrors {
    /// 0-based position in the JSON array, or data row after the CSV header.
    pub index: usize,
    pub errors: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Invalid input (400 VALIDATION_ERROR).
    #[error("{0}")]
    Validation(Message),
    /// Some items of a bulk import failed their checks (400 VALIDATION_FAILED).
    #[error("{}", msg::count_item_s_failed_validation(.0.len()))]
    ValidationFailed(Vec<ItemFailure>),
    /// The CSV text could not be parsed (400).
    #[error("{0}")]
    CsvParse(Message),
    /// A question status move outside the transition table (400).
    #[error("{}", msg::cannot_move_a_question_from_from_to_to(from, to))]
    InvalidStatusTransition { from: String, to: String },
    /// A second region change in one Beijing month (400).
    #[error("{0}")]
    RegionChangeLimit(Message),
    /// Shop purchase, item use, subscription verify in this version (400).
    #[error("{0}")]
    NotAvailableInMvp(Message),
    #[error("{0}")]
    InvalidReceipt(Message),
    #[error("{0}")]
    UnsupportedPlatform(Message),
    /// Missing or failed authentication (401).
    #[error("{0}")]
    Unauthorized(Message),
    /// The password was right, and the admin's TOTP or recovery code is needed (401
    /// MFA_REQUIRED).
    #[error("{0}")]
    MfaRequired(Message),
    /// Wrong or expired SMS code (401).
    #[error("{0}")]
    InvalidVerifyCode(Message),
    /// Authenticated but not allowed (403).
    #[error("{0}")]
    Forbidden(Message),
    /// Minor mode (or the licensed-game profile's windows) refused play or an ad (403
    /// MINOR_PROTECTION); `error.details` give the reason and the next allowed time.
    #[error("{}", minor_message(.0.reason))]
    MinorProtection(MinorRefusal),
    /// The licensed-game profile serves no play before real-name verification (403
    /// REAL_NAME_REQUIRED).
    #[error("{0}")]
    RealNameRequired(Message),
    #[error("{0}")]
    NotFound(Message),
    /// The route exists, not with this method (405, `Allow` lists the methods).
    #[error("{}", msg::method_method_is_not_allowed_here(method))]
    MethodNotAllowed { method: String },
    #[error("{0}")]
    Conflict(Message),
    /// The request body is larger than the route accepts (413).
    #[error("{0}")]
    PayloadTooLarge(Message),
    /// A byte range outside the file (416, `Content-Range: bytes */size`).
    #[error("{0}")]
    RangeNotSatisfiable(Message),
    /// Too many requests (429 with `Retry-After`).
    #[error("{message}")]
    RateLimited {
        message: Message,
        retry_after_secs: u64,
    },
    /// A dependency is not configured (503).
    #[error("{0}")]
    ServiceUnavailable(Message),
    /// The database cannot be reached (503 SERVICE_UNAVAILABLE with `Retry-After`, so
    /// clients retry); see [`is_database_unreachable`]. The detail is logged, never sent.
    #[error("database unreachable: {0}")]
    DatabaseUnavailable(String),
    /// Too busy right now: try again after `retry_after_secs` (503 SERVICE_UNAVAILABLE
    /// with `Retry-After`), e.g. every password-hashing place of the process is taken.
    #[error("{message}")]
    Overloaded {
        message: Message,
        retry_after_secs: u64,
    },
    /// The SMS verification service failed (503).
    #[error("{0}")]
    SmsProvider(Message),
    /// Anything unexpected (500); the detail is logged, never sent.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The message of a minor-protection refusal, by its reason.
fn minor_message(reason: MinorReason) -> Message {
    match reason {
        MinorReason::DailyLimit => msg::MINOR_PROTECTION_DAILY_LIMIT,
        MinorReason::Curfew => msg::MINOR_PROTECTION_CURFEW,
        MinorReason::AdsUnavailable => msg::MINOR_PROTECTION_ADS_UNAVAILABLE,
        MinorReason::Window => msg::MINOR_PROTECTION_WINDOW,
    }
}

/// `Retry-After` of a request refused because the database cannot be reached: long
/// enough for a restart or a failover to get under way, short enough that a client
/// retrying in a loop finds the service back soon after it is.
pub const DB_RETRY_AFTER_SECS: u64 = 2;

/// True when `e` says the database cannot be reached rather than that the statement
/// failed: a connection refused, reset or cut (I/O errors), none free or made within
/// the pool's acquire timeout, a closed pool, the server shutting down or starting up
/// (SQLSTATE 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now),
/// a connection exception (class 08, but for 08P01 protocol_violation: a statement the
/// server refused, such as arguments that do not fit it, is a fault of this service's,
/// not an outage) or too many connections (53300). These are PostgreSQL's codes;
/// SQLite's result codes are plain numbers that never match them.
pub fn is_database_unreachable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => true,
        sqlx::Error::Database(d) => d.code().is_some_and(|code| {
            (code.starts_with("08") && code != "08P01")
                || matches!(&*code, "57P01" | "57P02" | "57P03" | "53300")
        }),
        _ => false,
    }
}

/// `Retry-After` seconds of a wait in milliseconds: rounded up, at least 1.
pub fn retry_after_secs(wait_ms: i64) -> u64 {
    u64::try_from((wait_ms + 999) / 1000).unwrap_or(1).max(1)
}

impl Error {
    pub fn validation(message: Message) -> Self {
        Self::Validation(message)
    }
    pub fn unauthorized(message: Message) -> Self {
        Self::Unauthorized(message)
    }
    pub fn forbidden(message: Message) -> Self {
        Self::Forbidden(message)
    }
    pub fn not_found(message: Message) -> Self {
        Self::NotFound(message)
    }
    pub fn conflict(message: Message) -> Self {
        Self::Conflict(message)
    }
    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self::Internal(anyhow::anyhow!("{message}"))
    }

    /// The `error.code` of the envelope.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Validation(_) => "VALIDATION_ERROR",
            Self::ValidationFailed(_) => "VALIDATION_FAILED",
            Self::CsvParse(_) => "CSV_PARSE_ERROR",
            Self::InvalidStatusTransition { .. } => "INVALID_STATUS_TRANSITION",
            Self::RegionChangeLimit(_) => "REGION_CHANGE_LIMIT_REACHED",
            Self::NotAvailableInMvp(_) => "NOT_AVAILABLE_IN_MVP",
            Self::InvalidReceipt(_) => "INVALID_RECEIPT",
            Self::UnsupportedPlatform(_) => "UNSUPPORTED_PLATFORM",
            Self::Unauthorized(_) => "UNAUTHORIZED",
            Self::MfaRequired(_) => "MFA_REQUIRED",
            Self::InvalidVerifyCode(_) => "INVALID_VERIFY_CODE",
            Self::Forbidden(_) => "FORBIDDEN",
            Self::MinorProtection(_) => "MINOR_PROTECTION",
            Self::RealNameRequired(_) => "REAL_NAME_REQUIRED",
            Self::NotFound(_) => "NOT_FOUND",
            Self::MethodNotAllowed { .. } => "METHOD_NOT_ALLOWED",
            Self::Conflict(_) => "CONFLICT",
            Self::PayloadTooLarge(_) => "PAYLOAD_TOO_LARGE",
            Self::RangeNotSatisfiable(_) => "RANGE_NOT_SATISFIABLE",
            Self::RateLimited { .. } => "RATE_LIMITED",
            Self::ServiceUnavailable(_)
            | Self::DatabaseUnavailable(_)
            | Self::Overloaded { .. } => "SERVICE_UNAVAILABLE",
            Self::SmsProvider(_) => "SMS_PROVIDER_ERROR",
            Self::Internal(_) => "INTERNAL_ERROR",
        }
    }

    /// What the client is told: never the detail of an internal error or an outage.
    pub fn public_message(&self) -> Message {
        match self {
            Self::Internal(_) => msg::INTERNAL_SERVER_ERROR,
            Self::DatabaseUnavailable(_) => {
                msg::THE_SERVICE_IS_TEMPORARILY_UNAVAILABLE_RETRY_SHORTLY
            }
            Self::ValidationFailed(items) => msg::count_item_s_failed_validation(items.len()),
            Self::InvalidStatusTransition { from, to } => {
                msg::cannot_move_a_question_from_from_to_to(from, to)
            }
            Self::MethodNotAllowed { method } => msg::method_method_is_not_allowed_here(method),
            Self::MinorProtection(refusal) => minor_message(refusal.reason),
            Self::RateLimited { message, .. } | Self::Overloaded { message, .. } => message.clone(),
            Self::Validation(message)
            | Self::CsvParse(message)
            | Self::RegionChangeLimit(message)
            | Self::NotAvailableInMvp(message)
            | Self::InvalidReceipt(message)
            | Self::UnsupportedPlatform(message)
            | Self::Unauthorized(message)
            | Self::MfaRequired(message)
            | Self::InvalidVerifyCode(message)
            | Self::Forbidden(message)
            | Self::RealNameRequired(message)
            | Self::NotFound(message)
            | Self::Conflict(message)
            | Self::PayloadTooLarge(message)
            | Self::RangeNotSatisfiable(message)
            | Self::ServiceUnavailable(message)
            | Self::SmsProvider(message) => message.clone(),
        }
    }

    /// The `Retry-After` seconds of the answer, for the refusals that carry one.
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Self::RateLimited {
                retry_after_secs, ..
            }
            | Self::Overloaded {
                retry_after_secs, ..
            } => Some((*retry_after_secs).max(1)),
            Self::DatabaseUnavailable(_) => Some(DB_RETRY_AFTER_SECS),
            _ => None,
        }
    }
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        // PostgreSQL refuses text holding U+0000 (SQLSTATE 22021, "invalid byte sequence
        // for encoding UTF8: 0x00"); such text only ever comes from a client, so it is
        // bad input, not a server fault.
        if let sqlx::Error::Database(d) = &e
            && d.code().as_deref() == Some("22021")
        {
            return Self::validation(msg::TEXT_MUST_NOT_CONTAIN_THE_CHARACTER_U_0000);
        }
        // An outage is the one place this is decided: every database call of every
        // route reaches the client through here.
        if is_database_unreachable(&e) {
            return Self::DatabaseUnavailable(e.to_string());
        }
        Self::Internal(anyhow::Error::new(e).context("database"))
    }
}

#[cfg(test)]
mod tests {
    use axum::http::header;
    use axum::response::IntoResponse;

    use super::*;

    #[test]
    fn statuses_follow_the_operating_contract() {
        let cases: Vec<(Error, u16, &str)> = vec![
            (Error::validation(msg::NOT_FOUND), 400, "VALIDATION_ERROR"),
            (Error::ValidationFailed(vec![]), 400, "VALIDATION_FAILED"),
            (Error::CsvParse(msg::NOT_FOUND), 400, "CSV_PARSE_ERROR"),
            (
                Error::InvalidStatusTransition {
                    from: "draft".into(),
                    to: "published".into(),
                },
                400,
                "INVALID_STATUS_TRANSITION",
            ),
            (
                Error::RegionChangeLimit(msg::NOT_FOUND),
                400,
                "REGION_CHANGE_LIMIT_REACHED",
            ),
            (
                Error::NotAvailableInMvp(msg::NOT_FOUND),
                400,
                "NOT_AVAILABLE_IN_MVP",
            ),
            (
                Error::InvalidReceipt(msg::NOT_FOUND),
                400,
                "INVALID_RECEIPT",
            ),
            (
                Error::UnsupportedPlatform(msg::NOT_FOUND),
                400,
                "UNSUPPORTED_PLATFORM",
            ),
            (Error::unauthorized(msg::NOT_FOUND), 401, "UNAUTHORIZED"),
            (
                Error::InvalidVerifyCode(msg::NOT_FOUND),
                401,
                "INVALID_VERIFY_CODE",
            ),
            (Error::forbidden(msg::NOT_FOUND), 403, "FORBIDDEN"),
            (
                Error::MinorProtection(MinorRefusal {
                    reason: MinorReason::Curfew,
                    next_allowed_at: None,
                }),
                403,
                "MINOR_PROTECTION",
            ),
            (
                Error::RealNameRequired(msg::NOT_FOUND),
                403,
                "REAL_NAME_REQUIRED",
            ),
            (Error::not_found(msg::NOT_FOUND), 404, "NOT_FOUND"),
            (Error::conflict(msg::NOT_FOUND), 409, "CONFLICT"),
            (
                Error::RateLimited {
                    message: msg::NOT_FOUND,
                    retry_after_secs: 3,
                },
                429,
                "RATE_LIMITED",
            ),
            (Error::internal("boom"), 500, "INTERNAL_ERROR"),
            (
                Error::ServiceUnavailable(msg::NOT_FOUND),
                503,
                "SERVICE_UNAVAILABLE",
            ),
            (
                Error::SmsProvider(msg::NOT_FOUND),
                503,
                "SMS_PROVIDER_ERROR",
            ),
            (Error::MfaRequired(msg::NOT_FOUND), 401, "MFA_REQUIRED"),
            (
                Error::DatabaseUnavailable("x".into()),
                503,
                "SERVICE_UNAVAILABLE",
            ),
            (
                Error::Overloaded {
                    message: msg::NOT_FOUND,
                    retry_after_secs: 2,
                },
                503,
                "SERVICE_UNAVAILABLE",
            ),
        ];
        for (error, status, code) in cases {
            assert_eq!(error.status().as_u16(), status, "{code}");
            assert_eq!(error.code(), code);
        }
    }

    #[test]
    fn transition_message_names_both_statuses() {
        let e = Error::InvalidStatusTransition {
            from: "archived".into(),
            to: "published".into(),
        };
        assert_eq!(
            e.to_string(),
            "cannot move a question from archived to published"
        );
    }

    /// A database error with an SQLSTATE, as the drivers return them.
    #[derive(Debug)]
    struct Coded(&'static str);

    impl std::fmt::Display for Coded {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "SQLSTATE {}", self.0)
        }
    }

    impl std::error::Error for Coded {}

    impl sqlx::error::DatabaseError for Coded {
        fn message(&self) -> &str {
            "coded"
        }
        fn code(&self) -> Option<std::borrow::Cow<'_, str>> {
            Some(self.0.into())
        }
        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }
        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }

    fn coded(code: &'static str) -> sqlx::Error {
        sqlx::Error::Database(Box::new(Coded(code)))
    }

    #[test]
    fn an_unreachable_database_is_503_with_retry_after() {
        use std::io::{Error as IoError, ErrorKind};
        let unreachable = [
            sqlx::Error::Io(IoError::from(ErrorKind::ConnectionRefused)),
            sqlx::Error::Io(IoError::from(ErrorKind::ConnectionReset)),
            sqlx::Error::Io(IoError::from(ErrorKind::UnexpectedEof)),
            sqlx::Error::Io(IoError::from(ErrorKind::BrokenPipe)),
            sqlx::Error::PoolTimedOut,
            sqlx::Error::PoolClosed,
            coded("57P01"),
            coded("57P02"),
            coded("57P03"),
            coded("08006"),
            coded("08001"),
            coded("53300"),
        ];
        for e in unreachable {
            let shown = e.to_string();
            let error = Error::from(e);
            assert!(
                matches!(error, Error::DatabaseUnavailable(_)),
                "{shown}: {error:?}"
            );
            assert_eq!(error.status().as_u16(), 503);
            assert_eq!(error.code(), "SERVICE_UNAVAILABLE");
            assert_eq!(error.retry_after_secs(), Some(DB_RETRY_AFTER_SECS));
            assert!(!error.public_message().to_string().contains(&shown));
            let response = error.into_response();
            assert_eq!(response.status().as_u16(), 503);
            assert_eq!(
                response.headers()[header::RETRY_AFTER],
                DB_RETRY_AFTER_SECS.to_string().as_str()
            );
        }
        // statements that failed on a reachable database stay what they were
        let other = [
            (coded("23505"), 500),
            (coded("40001"), 500),
            (coded("57014"), 500),
            // bind message supplies 2 parameters, but prepared statement requires 1
            (coded("08P01"), 500),
            (coded("26000"), 500),
            (
                sqlx::Error::InvalidArgument("statement binds 2 arguments".into()),
                500,
            ),
            (coded("2067"), 500), // SQLite's unique violation
            (coded("22021"), 400),
            (sqlx::Error::RowNotFound, 500),
            (sqlx::Error::Protocol("x".into()), 500),
            (sqlx::Error::WorkerCrashed, 500),
        ];
        for (e, status) in other {
            let error = Error::from(e);
            assert_eq!(error.status().as_u16(), status, "{error:?}");
            assert_eq!(error.retry_after_secs(), None);
        }
    }

    #[test]
    fn busy_and_rate_limited_answers_carry_retry_after() {
        for error in [
            Error::Overloaded {
                message: msg::NOT_FOUND,
                retry_after_secs: 2,
            },
            Error::RateLimited {
                message: msg::NOT_FOUND,
                retry_after_secs: 0,
            },
        ] {
            let expected = error.retry_after_secs().unwrap_or_default().to_string();
            let response = error.into_response();
            let header = response
                .headers()
                .get(header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok());
            assert_eq!(header, Some(expected.as_str()));
        }
        assert_eq!(
            Error::ServiceUnavailable(msg::NOT_FOUND).retry_after_secs(),
            None
        );
    }

    #[test]
    fn internal_detail_is_never_public() {
        let e = Error::internal("password=hunter2 leaked");
        assert_eq!(e.public_message().to_string(), "internal server error");
    }
}
