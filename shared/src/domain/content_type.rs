//! What a question's stem is: text, or the caption of an image, video or audio item.

use crate::closed_set::closed_set;

closed_set! {
    /// A question's content type.
    pub enum ContentType in "content-type" {
        Text = "text",
        Image = "image",
        Video = "video",
        Audio = "audio",
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
