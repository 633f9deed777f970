//! The one library behind both binaries: domain rules, use cases, data access,
//! configuration, tokens and the HTTP glue that turns every outcome into the envelope.
//!
//! # Layout
//! - [`config`]: [`config::Settings`], read once from the environment and validated
//!   (the `RULE_*` game rules included).
//! - [`clock`]: the service clock every time rule reads, and Beijing day/week/month
//!   boundaries.
//! - [`error`]: the one error type and its stable codes; no HTTP.
//! - [`envelope`]: the HTTP answer of every outcome: the success envelope (`data`,
//!   `pagination`, `meta`), an error's status, envelope and `Retry-After` (an
//!   unreachable database: 503), and their schemas in the OpenAPI documents.
//! - [`http`]: extractors that answer in the envelope, fallbacks, the middleware stack,
//!   the health and readiness answers, listeners; `http::connection` serves them
//!   (slow-client limits, graceful shutdown).
//! - [`i18n`]: the message catalogues (zh-CN, en) and the language of a request;
//!   error messages in the client's language.
//! - [`api_docs`]: the browsable API reference at `/docs` (vendored Swagger UI).
//! - [`metrics`]: the Prometheus registry, its middleware and the metrics listener's
//!   router.
//! - [`telemetry`]: `tracing` set-up (pretty or JSON lines).
//! - [`domain`]: the game's rules, pure: judging an answer, the resource change it
//!   records, hearts/attempts/streaks, board keys and other closed sets.
//! - [`tokens`]: player and admin JWTs, refresh-token material.
//! - [`password`]: argon2 hashing off the async runtime.
//! - [`secrets_key`]: secrets the service reads back (TOTP), sealed at rest with
//!   AES-256-GCM under `SECRETS_KEY`.
//! - [`client_addr`], [`attempt_limiter`]: the client address limits count, and
//!   per-address buckets of one process.
//! - [`providers`]: clients of Aliyun SMS verification, HUAWEI ID and Sign in with Apple.
//! - [`rank_index`]: the optional Redis index of weekly leaderboard ranks.
//! - [`region_catalog`]: the region catalogue, cached in-process.
//! - [`db`]: the only place SQL lives; one enum over the SQLite and PostgreSQL pools;
//!   `db::progress::write` the only writer of `player_progress`.
//! - [`services`]: use cases (validate, then database calls in one transaction);
//!   `services::startup` makes the [`context::AppContext`]; `services::jobs` runs the
//!   background jobs (statistics, retention) in one process at a time, by a lease.
//! - [`context`]: [`context::AppContext`], what every handler of either binary reaches.
//! - [`board_cache`], [`answer_cache`]: what a process remembers of leaderboards and
//!   of the challenges it serves.
//!
//! No module imports one that imports it back (CI's module-cycle check).

pub mod answer_cache;
pub mod api_docs;
pub mod attempt_limiter;
pub mod board_cache;
pub mod client_addr;
pub mod clock;
pub mod closed_set;
pub mod config;
pub mod context;
pub mod db;
pub mod domain;
pub mod envelope;
pub mod error;
pub mod http;
pub mod i18n;
pub mod ids;
pub mod media_store;
pub mod message;
pub mod metrics;
pub mod password;
pub mod providers;
pub mod rank_index;
pub mod region_catalog;
pub mod secrets_key;
pub mod services;
pub mod telemetry;
pub mod tokens;

pub use error::{Error, Result};
