//! Plain types and rules of the game: no I/O, no HTTP, no SQL.

pub mod ad_recovery;
pub mod admin_role;
pub mod answer;
pub mod board;
pub mod change;
pub mod content_type;
pub mod evaluation;
pub mod fairplay;
pub mod half_life;
pub mod identity;
pub mod irt;
pub mod league;
pub mod media;
pub mod memory;
pub mod phone;
pub mod pick;
pub mod playable;
pub mod question_limits;
pub mod question_source;
pub mod question_stats;
pub mod question_status;
pub mod question_version;
pub mod resources;
pub mod rules;
pub mod skill;
pub mod subscription;
