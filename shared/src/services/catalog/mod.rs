//! Categories, knowledge cards and the skill tree (admin), one module each: `/v1/admin/categories`,
//! `/v1/admin/knowledge-cards`, `/v1/admin/skill-tree`. Every write records its audit
//! entry in its own transaction.

mod cards;
mod categories;
mod skill_tree;

pub use cards::*;
pub use categories::*;
pub use skill_tree::*;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::clock::from_ms;
use crate::context::AppContext;
use crate::db::catalog::{CardRow, CategoryRow, CategoryWrite, SkillNodeRow};
use crate::db::{self, Tx};
use crate::envelope::Pagination;
use crate::message::{Message, msg};
use crate::services::admin_auth::AdminPrincipal;
use crate::services::audit::{self, PageQuery, Write};
use crate::{Error, Result};

/// Reads a field that may be absent (`None`), null (`Some(None)`) or a value.
fn nullable<'de, D, T>(d: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// 1-64 characters of `a-z`, `0-9`, `-` and `_` (category ids and slugs).
fn check_key(value: &str, field: &str) -> Result<()> {
    let valid = (1..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(Error::validation(
            msg::field_must_be_1_64_characters_of_a_z_0_9_and(field),
        ))
    }
}

/// Trimmed text of 1..=`max` characters.
fn check_text(value: &str, field: &str, max: usize) -> Result<String> {
    let v = value.trim();
    let len = v.chars().count();
    if len == 0 || len > max {
        return Err(Error::validation(msg::field_must_be_1_max_characters(
            field, max,
        )));
    }
    Ok(v.to_string())
}

fn to_json<T: Serialize>(value: &T) -> Option<serde_json::Value> {
    serde_json::to_value(value).ok()
}

fn unique_to_validation(e: sqlx::Error, message: Message) -> Error {
    if db::is_unique_violation(&e) {
        Error::validation(message)
    } else {
        e.into()
    }
}

#[cfg(test)]
mod tests {
    use super::skill_tree::{check_pass_threshold, check_questions_required};
    use super::*;

    #[test]
    fn keys_take_lowercase_digits_dash_underscore() {
        assert!(check_key("world-geo_2", "id").is_ok());
        assert!(check_key("", "id").is_err());
        assert!(check_key("Upper", "id").is_err());
        assert!(check_key("with space", "id").is_err());
        assert!(check_key(&"a".repeat(64), "id").is_ok());
        assert!(check_key(&"a".repeat(65), "id").is_err());
    }

    #[test]
    fn nullable_fields_tell_absent_from_null() {
        let absent: UpdateCategory = serde_json::from_str("{}").unwrap_or_default();
        assert_eq!(absent.parent_id, None);
        let null: UpdateCategory = serde_json::from_str(r#"{"parentId":null}"#).unwrap_or_default();
        assert_eq!(null.parent_id, Some(None));
        let set: UpdateCategory = serde_json::from_str(r#"{"parentId":"x"}"#).unwrap_or_default();
        assert_eq!(set.parent_id, Some(Some("x".to_string())));
    }

    #[test]
    fn pass_threshold_stays_within_questions_required() {
        assert!(check_pass_threshold(3, 5).is_ok());
        assert!(check_pass_threshold(6, 5).is_err());
        assert!(check_pass_threshold(0, 5).is_err());
        assert!(check_questions_required(21).is_err());
        assert!(check_questions_required(0).is_err());
    }
}
