//! Use cases: validate the input, run the database calls (in one transaction where
//! anything is written), return the answer's data. Both binaries call these; no rule
//! is implemented twice.

pub mod admin_auth;
pub mod demo;
pub mod player_auth;
pub mod regions;
pub mod secrets;
