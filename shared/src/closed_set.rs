//! Closed sets of words (a question's status, an admin's role, a fair-play state, …) as
//! enums: `closed_set!` gives one its stored and sent spelling, serde (the API's
//! JSON), a `TEXT` codec for both database engines, an OpenAPI schema that lists its
//! values (so generated clients get an enum), and its name in a page's language.

/// Defines a closed set:
///
/// ```ignore
/// closed_set! {
///     /// A question's status.
///     pub enum QuestionStatus in "status" {
///         Draft = "draft",
///         Published = "published",
///     }
/// }
/// ```
///
/// `"status"` names the set's labels in the catalogues: `QuestionStatus::Draft.label(lang)`
/// is the message `status-draft` (a value no catalogue names shows as it is stored).
macro_rules! closed_set {
    (
        $(#[doc = $doc:literal])+
        $vis:vis enum $name:ident in $terms:literal {
            $( $(#[$variant_meta:meta])* $variant:ident = $value:literal ),+ $(,)?
        }
    ) => {
        $(#[doc = $doc])+
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        $vis enum $name {
            $( $(#[$variant_meta])* #[serde(rename = $value)] $variant ),+
        }

        impl $name {
            /// Every member, in the order of the definition.
            pub const ALL: [Self; [$($value),+].len()] = [$(Self::$variant),+];

            /// As it is stored and sent.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $value),+
                }
            }

            /// From its stored or sent spelling.
            pub fn parse(value: &str) -> Option<Self> {
                match value {
                    $($value => Some(Self::$variant),)+
                    _ => None,
                }
            }

            /// Its name in `lang`.
            pub fn label(self, lang: $crate::i18n::Lang) -> String {
                lang.term($terms, self.as_str())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::closed_set::ClosedSet for $name {
            fn parse(value: &str) -> Option<Self> {
                Self::parse(value)
            }

            fn as_str(self) -> &'static str {
                Self::as_str(self)
            }
        }

        // By hand rather than derived: the derive does not read a `rename` that a macro
        // wrote, and would list the variants' Rust names.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some([$($value),+]))
                    .description(Some(
                        [$($doc.trim()),+].join(" "),
                    ))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        $crate::closed_set::text_column!($name);

        impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for $name
        where
            &'q str: sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                let value: &'q str = self.as_str();
                <&'q str as sqlx::Encode<'q, DB>>::encode(value, buf)
            }
        }

        impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for $name
        where
            &'r str: sqlx::Decode<'r, DB>,
        {
            fn decode(
                value: <DB as sqlx::Database>::ValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                let stored = <&'r str as sqlx::Decode<'r, DB>>::decode(value)?;
                Self::parse(stored).ok_or_else(|| {
                    format!(concat!("not a ", stringify!($name), ": {:?}"), stored).into()
                })
            }
        }
    };
}

pub(crate) use closed_set;

/// The `sqlx::Type` of a type stored as `TEXT` on both engines (a closed set, an id).
macro_rules! text_column {
    ($name:ident) => {
        impl<DB: sqlx::Database> sqlx::Type<DB> for $name
        where
            str: sqlx::Type<DB>,
        {
            fn type_info() -> DB::TypeInfo {
                <str as sqlx::Type<DB>>::type_info()
            }
            fn compatible(ty: &DB::TypeInfo) -> bool {
                <str as sqlx::Type<DB>>::compatible(ty)
            }
        }
    };
}

pub(crate) use text_column;

/// What every closed set can do, for code generic over them ([`Submitted`]).
pub trait ClosedSet: Copy {
    /// From its stored or sent spelling.
    fn parse(value: &str) -> Option<Self>;

    /// As it is stored and sent.
    fn as_str(self) -> &'static str;
}

/// A request field naming a member of a closed set, as the client sent it: the member
/// when it is one, else the text as sent. The use case refuses another text with its
/// own message (`decision must be clear, hold or ban`), not the JSON reader's. A field
/// of this type names its set for the API documents (`#[schema(value_type = T)]`), so
/// generated clients send an enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Submitted<T> {
    Member(T),
    Other(String),
}

impl<T: ClosedSet> Submitted<T> {
    /// The member sent, if the text names one.
    pub fn member(&self) -> Option<T> {
        match self {
            Self::Member(member) => Some(*member),
            Self::Other(_) => None,
        }
    }

    /// The text as the client sent it.
    pub fn as_sent(&self) -> &str {
        match self {
            Self::Member(member) => member.as_str(),
            Self::Other(text) => text,
        }
    }
}

impl<T: ClosedSet> From<String> for Submitted<T> {
    fn from(text: String) -> Self {
        T::parse(&text).map_or(Self::Other(text), Self::Member)
    }
}

impl<T: ClosedSet> From<&str> for Submitted<T> {
    fn from(text: &str) -> Self {
        T::parse(text).map_or_else(|| Self::Other(text.to_owned()), Self::Member)
    }
}

impl<T: ClosedSet> serde::Serialize for Submitted<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_sent())
    }
}

impl<'de, T: ClosedSet> serde::Deserialize<'de> for Submitted<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use crate::i18n::Lang;

    closed_set! {
        /// A test set.
        pub enum Colour in "test-colour" {
            /// The first.
            Red = "red",
            DeepBlue = "deep_blue",
        }
    }

    #[test]
    fn a_closed_set_round_trips_its_spellings() {
        assert_eq!(Colour::ALL, [Colour::Red, Colour::DeepBlue]);
        for c in Colour::ALL {
            assert_eq!(Colour::parse(c.as_str()), Some(c));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{c}\""));
            assert_eq!(serde_json::from_str::<Colour>(&json).unwrap(), c);
        }
        assert_eq!(Colour::parse("green"), None);
        assert!(serde_json::from_str::<Colour>("\"green\"").is_err());
        assert!(Colour::DeepBlue == "deep_blue");
        // no catalogue names these: the stored spelling
        assert_eq!(Colour::Red.label(Lang::ZhCn), "red");
    }

    #[test]
    fn a_submitted_text_is_a_member_or_kept_as_sent() {
        use super::Submitted;
        let red: Submitted<Colour> = serde_json::from_str("\"red\"").unwrap();
        assert_eq!(red.member(), Some(Colour::Red));
        let green: Submitted<Colour> = serde_json::from_str("\"green\"").unwrap();
        assert_eq!(green, Submitted::Other("green".into()));
        assert_eq!(green.member(), None);
        assert!(serde_json::from_str::<Submitted<Colour>>("7").is_err());
    }

    #[test]
    fn its_schema_lists_its_values() {
        use utoipa::PartialSchema;
        let schema = serde_json::to_value(Colour::schema()).unwrap();
        assert_eq!(schema["enum"], serde_json::json!(["red", "deep_blue"]));
        assert_eq!(schema["type"], "string");
        assert_eq!(schema["description"], "A test set.");
    }
}
