//! What changed between two versions of a question, as HTML for the history screen:
//! unchanged text escaped as it is, removed text in `<del>`, added text in `<ins>` (the
//! console stylesheet strikes through and underlines them: not colour alone).
//!
//! Words are Unicode (UAX #29) word boundaries, through `similar`'s `unicode` feature:
//! English splits into words, spaces and punctuation, and Chinese, written without
//! spaces, into single characters, so an edit inside a Chinese sentence marks only the
//! characters that changed rather than the whole sentence.

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

use super::charts::escape;

/// Past this a diff of a very long text settles for a coarser result (still a correct
/// one: the old and new texts read the same), so no edit can stall a page.
const DIFF_TIMEOUT: Duration = Duration::from_millis(200);

/// One field of a question, old version against new.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDiff {
    pub field: String,
    /// The text with its changes marked, escaped (for a template's `|safe`).
    pub html: String,
    /// False when the two versions have the same text (`html` then has no mark).
    pub changed: bool,
}

/// A run of the diff: text both versions have, or a change from `old` to `new` (either
/// may be empty: a pure insertion or deletion).
enum Piece {
    Same(String),
    Changed { old: String, new: String },
}

/// `new` against `old` as HTML, every text escaped: deletions in `<del>`, insertions in
/// `<ins>`, a replacement as the `<del>` then the `<ins>`.
pub fn word_diff_html(old: &str, new: &str) -> String {
    if old == new {
        return escape(new);
    }
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_unicode_words(old, new);
    let mut pieces: Vec<Piece> = Vec::new();
    for change in diff.iter_all_changes() {
        let text = change.value();
        match (change.tag(), pieces.last_mut()) {
            (ChangeTag::Equal, Some(Piece::Same(same))) => same.push_str(text),
            (ChangeTag::Delete, Some(Piece::Changed { old, .. })) => old.push_str(text),
            (ChangeTag::Insert, Some(Piece::Changed { new, .. })) => new.push_str(text),
            (ChangeTag::Equal, _) => pieces.push(Piece::Same(text.to_string())),
            (ChangeTag::Delete, _) => pieces.push(Piece::Changed {
                old: text.to_string(),
                new: String::new(),
            }),
            (ChangeTag::Insert, _) => pieces.push(Piece::Changed {
                old: String::new(),
                new: text.to_string(),
            }),
        }
    }
    let mut html = String::with_capacity(old.len() + new.len() + 32);
    for piece in join_slivers(pieces) {
        match piece {
            Piece::Same(same) => html.push_str(&escape(&same)),
            Piece::Changed { old, new } => {
                if !old.is_empty() {
                    html.push_str("<del>");
                    html.push_str(&escape(&old));
                    html.push_str("</del>");
                }
                if !new.is_empty() {
                    html.push_str("<ins>");
                    html.push_str(&escape(&new));
                    html.push_str("</ins>");
                }
            }
        }
    }
    html
}

/// A sliver left unchanged between two changes (a space, one letter or digit, one
/// Chinese character) joins them into one, so `<del>the cat</del><ins>a dog</ins>` reads
/// as a phrase instead of alternating word by word. Punctuation stays (it bounds a
/// phrase), and so does a sliver between two pure insertions or two pure deletions.
fn join_slivers(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    let mut rest = pieces.into_iter().peekable();
    while let Some(piece) = rest.next() {
        if let Piece::Same(same) = &piece
            && is_sliver(same)
            && let Some(Piece::Changed { old, new }) = out.last_mut()
            && let Some(Piece::Changed {
                old: next_old,
                new: next_new,
            }) = rest.peek()
            && !(old.is_empty() && next_old.is_empty())
            && !(new.is_empty() && next_new.is_empty())
        {
            old.push_str(same);
            old.push_str(next_old);
            new.push_str(same);
            new.push_str(next_new);
            rest.next();
            continue;
        }
        out.push(piece);
    }
    out
}

/// Whitespace, or one letter or digit (of any script) with whitespace around it.
fn is_sliver(text: &str) -> bool {
    let mut chars = text.trim().chars();
    match (chars.next(), chars.next()) {
        (None, _) => true,
        (Some(c), None) => c.is_alphanumeric(),
        _ => false,
    }
}

/// Two versions of a question, field by field: `(name, text)` pairs such as the stem,
/// the correct answer, the distractors (joined one per line: the page keeps line breaks),
/// the difficulty, the category, the card summary. In the new version's order, then
/// fields only the old version has (their text removed); a field missing from a
/// version counts as empty there.
pub fn diff_fields(old: &[(&str, String)], new: &[(&str, String)]) -> Vec<FieldDiff> {
    let mut names: Vec<&str> = Vec::with_capacity(new.len());
    for (name, _) in new.iter().chain(old) {
        if !names.contains(name) {
            names.push(name);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let (before, after) = (text(old, name), text(new, name));
            FieldDiff {
                field: name.to_string(),
                html: word_diff_html(before, after),
                changed: before != after,
            }
        })
        .collect()
}

/// The text of the field `name`, empty when the version has no such field.
fn text<'a>(fields: &'a [(&str, String)], name: &str) -> &'a str {
    fields
        .iter()
        .find(|(field, _)| *field == name)
        .map_or("", |(_, text)| text.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_have_no_marks() {
        let text = "What is 2 < 3 & \"why\"?";
        let html = word_diff_html(text, text);
        assert_eq!(html, escape(text));
        assert!(!html.contains("<del>") && !html.contains("<ins>"));
        assert_eq!(word_diff_html("", ""), "");
    }

    #[test]
    fn an_english_word_change_marks_only_that_word() {
        assert_eq!(
            word_diff_html(
                "The capital of France is Lyon.",
                "The capital of France is Paris."
            ),
            "The capital of France is <del>Lyon</del><ins>Paris</ins>."
        );
        // A space between two replaced words joins them into one phrase.
        assert_eq!(
            word_diff_html("the cat sat", "a dog sat"),
            "<del>the cat</del><ins>a dog</ins> sat"
        );
        // Punctuation between two changes keeps them apart.
        assert_eq!(
            word_diff_html("Yes, Lyon.", "No, Paris."),
            "<del>Yes</del><ins>No</ins>, <del>Lyon</del><ins>Paris</ins>."
        );
        assert_eq!(
            word_diff_html("one two", "one two three"),
            "one two<ins> three</ins>"
        );
    }

    #[test]
    fn a_change_inside_a_chinese_sentence_marks_only_its_characters() {
        assert_eq!(
            word_diff_html("中国的首都是上海。", "中国的首都是北京。"),
            "中国的首都是<del>上海</del><ins>北京</ins>。"
        );
        assert_eq!(
            word_diff_html("我今天去了北京", "我昨天去了北京"),
            "我<del>今</del><ins>昨</ins>天去了北京"
        );
        // One character left between two changes joins them; two, or a full stop, do not.
        assert_eq!(
            word_diff_html("他喜欢红的苹果。", "她喜欢绿的梨。"),
            "<del>他</del><ins>她</ins>喜欢<del>红的苹果</del><ins>绿的梨</ins>。"
        );
        assert_eq!(
            word_diff_html("答案是 Paris", "答案是 London"),
            "答案是 <del>Paris</del><ins>London</ins>"
        );
    }

    #[test]
    fn an_empty_side_is_all_insertion_or_all_deletion() {
        assert_eq!(word_diff_html("", "New stem"), "<ins>New stem</ins>");
        assert_eq!(word_diff_html("Old stem", ""), "<del>Old stem</del>");
    }

    #[test]
    fn every_text_is_escaped() {
        let html = word_diff_html(
            "Pick <b>one</b> & \"go\"",
            "Pick <script>alert('x')</script> & \"go\"",
        );
        for raw in ["<b>", "<script>", "'x'", "& \""] {
            assert!(!html.contains(raw), "{raw} in {html}");
        }
        assert!(html.starts_with("Pick &lt;"), "{html}");
        assert!(html.contains("<del>"), "{html}");
        assert!(html.contains("<ins>"), "{html}");
        assert!(html.contains("script"), "{html}");
        // Only the diff's own tags are markup.
        let stripped = html
            .replace("<del>", "")
            .replace("</del>", "")
            .replace("<ins>", "")
            .replace("</ins>", "");
        assert!(!stripped.contains('<') && !stripped.contains('>'), "{html}");
    }

    #[test]
    fn fields_are_compared_by_name() {
        let old = [
            ("Stem", "Which river is longest?".to_string()),
            ("Correct answer", "Nile".to_string()),
            ("Distractors", "Amazon\nYangtze".to_string()),
            ("Source", "atlas".to_string()),
        ];
        let new = [
            ("Stem", "Which river is the longest?".to_string()),
            ("Correct answer", "Nile".to_string()),
            ("Distractors", "Amazon\n长江".to_string()),
            ("Card summary", "Rivers & <lakes>".to_string()),
        ];
        let diffs = diff_fields(&old, &new);
        let names: Vec<&str> = diffs.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(
            names,
            [
                "Stem",
                "Correct answer",
                "Distractors",
                "Card summary",
                "Source"
            ]
        );
        let changed: Vec<bool> = diffs.iter().map(|d| d.changed).collect();
        assert_eq!(changed, [true, false, true, true, true]);
        assert_eq!(diffs[0].html, "Which river is <ins>the </ins>longest?");
        assert_eq!(diffs[1].html, "Nile");
        assert_eq!(diffs[2].html, "Amazon\n<del>Yangtze</del><ins>长江</ins>");
        assert_eq!(diffs[3].html, "<ins>Rivers &amp; &lt;lakes&gt;</ins>");
        assert_eq!(diffs[4].html, "<del>atlas</del>");
    }
}
