//! Use cases: validate the input, run the database calls (in one transaction where
//! anything is written), return the answer's data. Both binaries call these; no rule
//! is implemented twice.

pub mod account;
pub mod admin_accounts;
pub mod admin_auth;
pub mod admin_identity;
pub mod admin_mfa;
pub mod admin_throttle;
pub mod ads;
pub mod audit;
pub mod backup;
pub mod board_visibility;
pub mod bootstrap;
pub mod catalog;
pub mod console_sessions;
pub mod data_export;
pub mod demo;
pub mod demo_history;
pub mod fairplay;
pub mod feedback;
pub mod gameplay;
pub mod holidays;
pub mod job_clock;
pub mod jobs;
pub mod leaderboard;
pub mod league;
pub mod learning;
pub mod media;
pub mod minors;
pub mod moderation;
pub mod nppa_reports;
pub mod phone_auth;
pub mod player_auth;
pub mod progress;
pub mod providers;
pub mod question_stats;
pub mod questions;
pub mod real_name;
pub mod refresh_sessions;
pub mod regions;
pub mod review;
pub mod secrets;
pub mod settlement;
pub mod shop;
pub mod startup;
pub mod vendor_auth;
