//! How much text a question and its knowledge card may hold: what a phone screen shows
//! and what an import of the CSV template (five distractor columns) can carry back.
//!
//! Lengths are counted in characters (Unicode scalar values), so a Chinese character
//! counts one, like a Latin letter; a text is measured as it is stored (trimmed where
//! the service trims it).

use crate::message::{Message, msg};

/// The stem.
pub const STEM_MAX_CHARS: usize = 1_000;
/// The correct answer and each distractor.
pub const OPTION_MAX_CHARS: usize = 200;
/// Distractors per question: the CSV template's columns.
pub const MAX_DISTRACTORS: usize = 5;
/// A knowledge card's title.
pub const CARD_TITLE_MAX_CHARS: usize = 200;
/// A knowledge card's summary (the short text under an answer).
pub const CARD_SUMMARY_MAX_CHARS: usize = 500;
/// A knowledge card's deep dive.
pub const CARD_DEEP_DIVE_MAX_CHARS: usize = 5_000;
/// A knowledge card's source reference.
pub const CARD_SOURCE_MAX_CHARS: usize = 500;

/// The refusal of `field` (its API name, e.g. `stem.text`) when `text` holds more than
/// `max_chars` characters.
pub fn over_length(field: &str, text: &str, max_chars: usize) -> Option<Message> {
    // `nth` stops at the first character past the limit: a huge text costs no more.
    text.chars()
        .nth(max_chars)
        .map(|_| match (field, max_chars) {
            // a card's title has a message of its own
            ("title", CARD_TITLE_MAX_CHARS) => msg::TITLE_MUST_BE_AT_MOST_200_CHARACTERS,
            _ => msg::field_must_be_at_most_max_characters(field, max_chars),
        })
}

/// The refusal of a question with more than [`MAX_DISTRACTORS`] distractors.
pub fn too_many_distractors(count: usize) -> Option<Message> {
    (count > MAX_DISTRACTORS)
        .then(|| msg::distractors_must_hold_at_most_max_entries(MAX_DISTRACTORS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_itself_passes_one_more_is_refused() {
        assert_eq!(over_length("stem.text", &"a".repeat(1_000), 1_000), None);
        assert_eq!(
            over_length("stem.text", &"a".repeat(1_001), 1_000).map(|m| m.to_string()),
            Some("stem.text must be at most 1000 characters".to_string())
        );
        assert_eq!(over_length("x", "", 0), None);
    }

    #[test]
    fn characters_not_bytes() {
        // 200 Chinese characters are 600 bytes of UTF-8: still 200 characters.
        let chinese = "中".repeat(200);
        assert_eq!(chinese.len(), 600);
        assert_eq!(
            over_length("correctAnswer", &chinese, OPTION_MAX_CHARS),
            None
        );
        assert!(over_length("correctAnswer", &format!("{chinese}文"), OPTION_MAX_CHARS).is_some());
        // an emoji is one scalar value (four bytes)
        assert_eq!(over_length("title", &"😀".repeat(200), 200), None);
        assert!(over_length("title", &"😀".repeat(201), 200).is_some());
    }

    #[test]
    fn at_most_five_distractors() {
        assert_eq!(too_many_distractors(5), None);
        assert_eq!(
            too_many_distractors(6).map(|m| m.to_string()),
            Some("distractors must hold at most 5 entries".to_string())
        );
    }
}
