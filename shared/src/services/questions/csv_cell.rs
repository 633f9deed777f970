//! Spreadsheet formula cells (OWASP "CSV injection"): a cell that begins with `=`, `+`,
//! `-`, `@`, a tab or a carriage return is a formula to Excel, LibreOffice and Sheets,
//! so the export writes it with a leading `'` (which they show as text, not as a
//! character), and the import takes that `'` away again.
//!
//! A text that itself begins with quotes before such a character (`'=A1`) gets one more
//! on export (`''=A1`), and the import takes exactly one `'` from any cell of that shape:
//! so every text comes back as it was, and a hand-made `'=A1` typed to stop a formula
//! imports as `=A1`.

/// The characters that make a cell a formula.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// True for a cell whose text after any leading `'` begins a formula.
fn quoted_formula_shape(cell: &str) -> bool {
    cell.trim_start_matches('\'')
        .starts_with(FORMULA_STARTS.as_slice())
}

/// The cell as the export writes it: with a leading `'` when a spreadsheet would read it
/// as a formula (or when it already looks like an escaped one).
pub(super) fn escape(text: String) -> String {
    if quoted_formula_shape(&text) {
        format!("'{text}")
    } else {
        text
    }
}

/// The text of a cell the import reads: one leading `'` taken away when the rest begins
/// a formula, possibly after more quotes (what [`escape`] added).
pub(super) fn unescape(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if quoted_formula_shape(rest) => rest,
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn formula_starts_are_quoted() {
        for (text, written) in [
            ("=SUM(A1:A2)", "'=SUM(A1:A2)"),
            ("+1", "'+1"),
            ("-5", "'-5"),
            ("@cmd", "'@cmd"),
            ("\tindented", "'\tindented"),
            ("\rreturn", "'\rreturn"),
            ("'=already quoted", "''=already quoted"),
            ("''-x", "'''-x"),
        ] {
            assert_eq!(escape(text.into()), written, "{text:?}");
            assert_eq!(unescape(written), text, "{written:?}");
        }
    }

    #[test]
    fn other_text_is_left_alone() {
        for text in [
            "",
            "plain",
            "a=b",
            "5-3",
            " =not first",
            "'quoted text",
            "''",
            "'",
            "中文",
        ] {
            assert_eq!(escape(text.into()), text, "{text:?}");
            assert_eq!(unescape(text), text, "{text:?}");
        }
    }

    #[test]
    fn a_hand_made_quote_before_a_formula_is_taken_away() {
        assert_eq!(unescape("'=1+1"), "=1+1");
        assert_eq!(unescape("'-5"), "-5");
        assert_eq!(unescape("'text"), "'text");
    }

    proptest! {
        /// Any text comes back from its cell, and no cell begins a formula.
        #[test]
        fn round_trip(text in "['=+@\\t\\r -]{0,3}[a-z0-9 '=+@-]{0,8}") {
            let cell = escape(text.clone());
            prop_assert_eq!(unescape(&cell), text.as_str());
            prop_assert!(!cell.starts_with(FORMULA_STARTS.as_slice()));
        }

        #[test]
        fn round_trip_any_string(text in any::<String>()) {
            let cell = escape(text.clone());
            prop_assert_eq!(unescape(&cell), text.as_str());
        }
    }
}
