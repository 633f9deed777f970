//! End-to-end tests through HTTP, each on SQLite and on PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod accounts;
mod admin_accounts;
mod admin_catalog;
mod admin_questions;
mod admin_sign_in;
mod api_docs;
mod cancellation;
mod console;
mod console_catalog;
mod console_people;
mod console_sign_in;
mod envelope;
mod extractors;
mod gameplay;
mod hostile;
mod keyword_search;
mod metrics;
mod outage;
mod phone;
mod races;
mod security;
mod social;
mod startup;
mod tokens;
mod vendors;
