//! The ids of the service's records as types: parsed once where a request enters (its
//! extractor or its request type), then passed as they are through the use cases and the
//! data layer, which never check an id's shape again and cannot take one kind of id for
//! another.
//!
//! Every id is text of 1 to 128 bytes, surrounding spaces trimmed: the service
//! makes UUIDs, but content imported from elsewhere keeps the ids it came with.

use crate::message::msg;
use crate::{Error, Result};

/// The longest id the service accepts, in bytes of UTF-8 (what its refusal calls
/// characters, as ids are ASCII in practice).
pub const MAX_ID_LEN: usize = 128;

/// Defines an id type:
///
/// ```ignore
/// id_type! {
///     /// A player.
///     pub struct PlayerId;
/// }
/// ```
macro_rules! id_type {
    ($(#[doc = $doc:literal])+ pub struct $name:ident;) => {
        $(#[doc = $doc])+
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Checks a submitted id: 1 to 128 characters once trimmed; `field` names it
            /// in the refusal.
            pub fn parse(raw: &str, field: &str) -> Result<Self> {
                trimmed(raw)
                    .map(|id| Self(id.to_owned()))
                    .ok_or_else(|| Error::validation(msg::field_must_be_1_128_characters(field)))
            }

            /// A new id (a random UUID).
            pub fn generate() -> Self {
                Self(uuid::Uuid::new_v4().to_string())
            }

            /// A UUID a request sent (its canonical spelling).
            pub fn from_uuid(id: uuid::Uuid) -> Self {
                Self(id.to_string())
            }

            /// An id the service made or stored itself, taken as it is.
            pub fn from_trusted(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        #[cfg(test)]
        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        /// As a path segment or a JSON string: checked like [`Self::parse`].
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> std::result::Result<Self, D::Error> {
                let raw = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                trimmed(&raw).map(|id| Self(id.to_owned())).ok_or_else(|| {
                    serde::de::Error::custom(format_args!(
                        "an id must be 1-{MAX_ID_LEN} characters"
                    ))
                })
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .min_length(Some(1))
                    .max_length(Some(MAX_ID_LEN))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}

        $crate::closed_set::text_column!($name);

        impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for $name
        where
            String: sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as sqlx::Database>::ArgumentBuffer,
            ) -> std::result::Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <String as sqlx::Encode<'q, DB>>::encode_by_ref(&self.0, buf)
            }
        }

        impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for $name
        where
            String: sqlx::Decode<'r, DB>,
        {
            fn decode(
                value: <DB as sqlx::Database>::ValueRef<'r>,
            ) -> std::result::Result<Self, sqlx::error::BoxDynError> {
                <String as sqlx::Decode<'r, DB>>::decode(value).map(Self)
            }
        }
    };
}

/// `raw` trimmed, if it is a well-formed id.
fn trimmed(raw: &str) -> Option<&str> {
    let id = raw.trim();
    (!id.is_empty() && id.len() <= MAX_ID_LEN).then_some(id)
}

id_type! {
    /// A player (an account of the game).
    pub struct PlayerId;
}

id_type! {
    /// A staff account of the console and the admin API.
    pub struct AdminId;
}

id_type! {
    /// A question of the bank.
    pub struct QuestionId;
}

id_type! {
    /// A served challenge (its session).
    pub struct ChallengeId;
}

id_type! {
    /// A knowledge card.
    pub struct CardId;
}

id_type! {
    /// An answer option of a question.
    pub struct OptionId;
}

id_type! {
    /// A client's key for one submission, so a retry is recognised as a replay.
    pub struct SubmitRequestId;
}

impl CardId {
    /// The card shown for a question without a card of its own.
    pub fn fallback_of(question: &QuestionId) -> Self {
        Self(format!("{FALLBACK_CARD}{question}"))
    }

    /// The question a fallback card stands for, if this is one.
    pub fn fallback_for(&self) -> Option<QuestionId> {
        self.0
            .strip_prefix(FALLBACK_CARD)
            .filter(|question| !question.is_empty())
            .map(|question| QuestionId(question.to_owned()))
    }
}

/// How the id of a question's fallback card begins (the question's id follows).
const FALLBACK_CARD: &str = "fallback-";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_trimmed_and_bounded() {
        assert_eq!(PlayerId::parse("  p1 ", "playerId").unwrap().as_str(), "p1");
        assert_eq!(
            QuestionId::parse(&"q".repeat(128), "questionId")
                .unwrap()
                .as_str()
                .len(),
            128
        );
        for bad in ["", "   ", &"q".repeat(129)] {
            let refused = QuestionId::parse(bad, "questionId").unwrap_err();
            assert_eq!(
                refused.public_message().render(crate::i18n::Lang::En),
                "questionId must be 1-128 characters"
            );
        }
    }

    #[test]
    fn an_id_reads_and_writes_as_a_plain_string() {
        let id: ChallengeId = serde_json::from_str("\" c-1 \"").unwrap();
        assert_eq!(id, "c-1");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"c-1\"");
        assert!(serde_json::from_str::<ChallengeId>("\"\"").is_err());
        assert!(serde_json::from_str::<ChallengeId>("7").is_err());
    }

    #[test]
    fn a_fallback_card_names_its_question() {
        let card = CardId::fallback_of(&QuestionId::from("q-7"));
        assert_eq!(card, "fallback-q-7");
        assert_eq!(card.fallback_for(), Some(QuestionId::from("q-7")));
        assert_eq!(CardId::from("c-7").fallback_for(), None);
    }

    #[test]
    fn generated_ids_differ() {
        assert_ne!(CardId::generate(), CardId::generate());
    }
}
