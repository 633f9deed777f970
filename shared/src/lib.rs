//! The one library behind both binaries: domain rules, use cases, data access,
//! configuration, tokens and the HTTP glue that turns every outcome into the envelope.
//!
//! # Layout
//! - [`config`]: [`config::Settings`], read once from the environment and validated.
//! - [`clock`]: the service clock every time rule reads, and Beijing day/week/month
//!   boundaries.
//! - [`error`]: the one error type and its mapping to the JSON envelope and HTTP status
//!   (an unreachable database: 503 with `Retry-After`).
//! - [`envelope`]: the success side of the envelope (`data`, `pagination`, `meta`), and
//!   its schemas in the OpenAPI documents.
//! - [`http`]: extractors that answer in the envelope, fallbacks, the middleware stack,
//!   the health and readiness answers, listeners, graceful shutdown.
//! - [`metrics`]: the Prometheus registry, its middleware and the metrics listener's
//!   router.
//! - [`telemetry`]: `tracing` set-up (pretty or JSON lines).
//! - [`domain`]: plain types and rules, no I/O.
//! - [`tokens`]: player and admin JWTs, refresh-token material.
//! - [`password`]: argon2 hashing off the async runtime.
//! - [`providers`]: clients of Aliyun SMS verification, HUAWEI ID and Sign in with Apple.
//! - [`rank_index`]: the optional Redis index of weekly leaderboard ranks.
//! - [`db`]: the only place SQL lives; one enum over the SQLite and PostgreSQL pools.
//! - [`services`]: use cases (validate, then database calls in one transaction).
//! - [`context`]: [`context::AppContext`], what every handler of either binary reaches.
//! - [`board_cache`], [`answer_cache`]: what a process remembers of leaderboards and
//!   of the challenges it serves.

pub mod answer_cache;
pub mod attempt_limiter;
pub mod board_cache;
pub mod client_addr;
pub mod clock;
pub mod config;
pub mod context;
pub mod db;
pub mod domain;
pub mod envelope;
pub mod error;
pub mod http;
pub mod metrics;
pub mod password;
pub mod providers;
pub mod rank_index;
pub mod region_catalog;
pub mod services;
pub mod telemetry;
pub mod tokens;

pub use error::{Error, Result};
