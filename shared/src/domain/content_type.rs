//! What a question's stem is: text, or the caption of an image, video or audio item.

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A question's content type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContentType {
    Text,
    Image,
    Video,
    Audio,
}

impl ContentType {
    pub const ALL: [Self; 4] = [Self::Text, Self::Image, Self::Video, Self::Audio];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Image => "image",
            Self::Video => "video",
            Self::Audio => "audio",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for ContentType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// As stored: a value outside the set is a corrupt row.
impl TryFrom<String> for ContentType {
    type Error = String;

    fn try_from(stored: String) -> Result<Self, Self::Error> {
        Self::parse(&stored).ok_or_else(|| format!("unknown content type {stored:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::ContentType;

    #[test]
    fn round_trips_its_spelling() {
        for c in ContentType::ALL {
            assert_eq!(ContentType::parse(c.as_str()), Some(c));
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.as_str())
            );
        }
        assert_eq!(ContentType::parse("pdf"), None);
        assert_eq!(ContentType::parse("Text"), None);
    }
}
