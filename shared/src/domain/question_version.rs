//! A question's content as a version holds it, and which of its fields an edit changed.
//!
//! A version is a snapshot of the content players see (stem, options, difficulty,
//! category and knowledge card), never of the workflow status: a status move makes no
//! version. An edit that changes nothing ([`changed_fields`] empty) makes none either.

use crate::domain::content_type::ContentType;

/// The API names of the versioned fields, in the order [`changed_fields`] lists them.
pub const FIELDS: [&str; 11] = [
    "stem",
    "contentType",
    "correctAnswer",
    "distractors",
    "categoryId",
    "difficulty",
    "media",
    "knowledgeCard.title",
    "knowledgeCard.summary",
    "knowledgeCard.deepDive",
    "knowledgeCard.sourceRef",
];

/// Everything a version holds of a question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestionContent {
    pub category_id: String,
    pub content_type: ContentType,
    pub stem_text: String,
    pub correct_answer: String,
    pub distractors: Vec<String>,
    pub difficulty: i64,
    /// The picture, sound or clip it shows, with its text for screen readers.
    pub media: Option<MediaContent>,
    pub card: Option<CardContent>,
}

/// A question's media file and its alternative text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediaContent {
    /// The media id (its content's SHA-256).
    pub id: String,
    pub alt: Option<String>,
}

/// A knowledge card's content (its id is no content: a card recreated under another id
/// with the same text is the same content).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardContent {
    pub title: Option<String>,
    pub summary: String,
    pub deep_dive: Option<String>,
    pub source_ref: Option<String>,
}

/// The fields (API names, in [`FIELDS`] order) whose value differs between `before` and
/// `after`; empty when the edit changes nothing.
pub fn changed_fields(before: &QuestionContent, after: &QuestionContent) -> Vec<&'static str> {
    let mut changed: Vec<&'static str> = [
        ("stem", before.stem_text != after.stem_text),
        ("contentType", before.content_type != after.content_type),
        (
            "correctAnswer",
            before.correct_answer != after.correct_answer,
        ),
        ("distractors", before.distractors != after.distractors),
        ("categoryId", before.category_id != after.category_id),
        ("difficulty", before.difficulty != after.difficulty),
        ("media", before.media != after.media),
    ]
    .into_iter()
    .filter_map(|(name, differs)| differs.then_some(name))
    .collect();
    changed.extend(changed_card_fields(
        before.card.as_ref(),
        after.card.as_ref(),
    ));
    changed
}

/// The card fields (`knowledgeCard.*`) whose value differs. A missing card counts as a
/// card whose every field is null, so creating a card lists the fields it sets (always
/// `summary`), and removing one the fields it had.
pub fn changed_card_fields(
    before: Option<&CardContent>,
    after: Option<&CardContent>,
) -> Vec<&'static str> {
    /// A card field's value.
    type Field = fn(&CardContent) -> Option<&str>;
    let fields: [(&str, Field); 4] = [
        ("knowledgeCard.title", |c| c.title.as_deref()),
        ("knowledgeCard.summary", |c| Some(c.summary.as_str())),
        ("knowledgeCard.deepDive", |c| c.deep_dive.as_deref()),
        ("knowledgeCard.sourceRef", |c| c.source_ref.as_deref()),
    ];
    fields
        .into_iter()
        .filter(|(_, get)| before.and_then(*get) != after.and_then(*get))
        .map(|(name, _)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content() -> QuestionContent {
        QuestionContent {
            category_id: "geo".into(),
            content_type: ContentType::Text,
            stem_text: "Capital of Australia?".into(),
            correct_answer: "Canberra".into(),
            distractors: vec!["Sydney".into(), "Melbourne".into()],
            difficulty: 2,
            media: None,
            card: Some(CardContent {
                title: None,
                summary: "A compromise.".into(),
                deep_dive: Some("Sydney and Melbourne".into()),
                source_ref: None,
            }),
        }
    }

    fn card(c: &mut QuestionContent) -> &mut CardContent {
        c.card.as_mut().expect("the test content has a card")
    }

    #[test]
    fn an_edit_that_changes_nothing_changes_no_field() {
        assert!(changed_fields(&content(), &content()).is_empty());
    }

    #[test]
    fn each_field_is_named_by_its_api_name() {
        type Edit = fn(&mut QuestionContent);
        let edits: [(&str, Edit); 11] = [
            ("stem", |c| c.stem_text.push('!')),
            ("contentType", |c| c.content_type = ContentType::Image),
            ("correctAnswer", |c| c.correct_answer = "Perth".into()),
            ("distractors", |c| c.distractors.push("Perth".into())),
            ("categoryId", |c| c.category_id = "history".into()),
            ("difficulty", |c| c.difficulty = 5),
            ("media", |c| {
                c.media = Some(MediaContent {
                    id: "ab".repeat(32),
                    alt: Some("A flag".into()),
                });
            }),
            ("knowledgeCard.title", |c| card(c).title = Some("T".into())),
            ("knowledgeCard.summary", |c| card(c).summary = "New.".into()),
            ("knowledgeCard.deepDive", |c| card(c).deep_dive = None),
            ("knowledgeCard.sourceRef", |c| {
                card(c).source_ref = Some("Atlas".into());
            }),
        ];
        for (name, edit) in edits {
            let mut after = content();
            edit(&mut after);
            assert_eq!(changed_fields(&content(), &after), [name]);
        }
        assert_eq!(edits.map(|(name, _)| name), FIELDS);
    }

    #[test]
    fn the_order_of_distractors_is_content() {
        let mut after = content();
        after.distractors.reverse();
        assert_eq!(changed_fields(&content(), &after), ["distractors"]);
    }

    #[test]
    fn several_changes_are_listed_in_field_order() {
        let mut after = content();
        card(&mut after).summary = "New.".into();
        after.distractors = vec!["Perth".into(), "Hobart".into()];
        after.stem_text = "Which city is the capital of Australia?".into();
        assert_eq!(
            changed_fields(&content(), &after),
            ["stem", "distractors", "knowledgeCard.summary"]
        );
    }

    #[test]
    fn a_missing_card_counts_as_one_with_every_field_null() {
        let mut without = content();
        without.card = None;
        // created: the fields it sets
        assert_eq!(
            changed_fields(&without, &content()),
            ["knowledgeCard.summary", "knowledgeCard.deepDive"]
        );
        // removed: the fields it had
        assert_eq!(
            changed_fields(&content(), &without),
            ["knowledgeCard.summary", "knowledgeCard.deepDive"]
        );
        assert!(changed_fields(&without, &without).is_empty());
    }
}
