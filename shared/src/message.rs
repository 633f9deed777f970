//! What a refusal says: a message of the error catalogue (`locales/*/errors.ftl`) by its
//! id, with its arguments. An error carries one from where it is made to the HTTP
//! layer, which renders it once in the client's language; its `Display` is the English
//! text, for logs. The ids are the items of [`msg`], written by `build.rs` from the
//! English catalogue: a refusal cannot name a message that does not exist, nor leave
//! out or misname one of its arguments.

use std::fmt;

use crate::i18n::Lang;

/// The error vocabulary: `msg::CATEGORY_NOT_FOUND`,
/// `msg::a_row_has_found_columns_the_header_expected(found, expected)`, … one item per
/// message of `locales/en/errors.ftl`, documented with its English text.
pub mod msg {
    use super::Message;
    include!(concat!(env!("OUT_DIR"), "/messages.rs"));
}

/// A message of the error catalogue, or several of them (the checks of one request
/// that failed together). Made by the items of [`msg`] only, so every id is one the
/// catalogues have and every argument one its message takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message(Text);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Text {
    One {
        id: &'static str,
        args: Vec<(&'static str, String)>,
    },
    Several(Vec<Message>),
}

impl Message {
    /// A message without arguments.
    pub(crate) const fn fixed(id: &'static str) -> Self {
        Self(Text::One {
            id,
            args: Vec::new(),
        })
    }

    /// A message with its arguments (the generated items of [`msg`] call this).
    pub(crate) fn with(id: &'static str, args: Vec<(&'static str, String)>) -> Self {
        Self(Text::One { id, args })
    }

    /// The messages of several failed checks, shown one after the other; one alone is
    /// itself.
    pub fn several(mut messages: Vec<Message>) -> Self {
        if messages.len() == 1
            && let Some(one) = messages.pop()
        {
            return one;
        }
        Self(Text::Several(messages))
    }

    /// Its catalogue id (the first one's, for several).
    pub fn id(&self) -> Option<&'static str> {
        match &self.0 {
            Text::One { id, .. } => Some(id),
            Text::Several(list) => list.first().and_then(Message::id),
        }
    }

    /// The value of its argument `name`.
    pub fn arg(&self, name: &str) -> Option<&str> {
        match &self.0 {
            Text::One { args, .. } => args
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.as_str()),
            Text::Several(_) => None,
        }
    }

    /// Its text in `lang`.
    pub fn render(&self, lang: Lang) -> String {
        self.render_with(lang, &|_, value| value.to_string())
    }

    /// Its text in `lang`, each argument shown by `show(name, value)` (a page shows a
    /// status argument by its name in the page's language).
    pub fn render_with(&self, lang: Lang, show: &dyn Fn(&str, &str) -> String) -> String {
        match &self.0 {
            Text::One { id, args } => {
                let args: Vec<(&str, String)> = args
                    .iter()
                    .map(|(name, value)| (*name, show(name, value)))
                    .collect();
                lang.t_args(id, &args)
            }
            Text::Several(list) => list
                .iter()
                .map(|m| m.render_with(lang, show))
                .collect::<Vec<_>>()
                .join(lang.list_separator()),
        }
    }
}

/// The English text (logs, and the answer to a client that asked for English).
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Lang::En))
    }
}

/// Serializes a message as its English text (a field of an answer that is not
/// translated, such as a batch's reasons).
pub fn english<S: serde::Serializer>(message: &Message, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_render_in_each_language_with_their_arguments() {
        let m = msg::a_row_has_found_columns_the_header_expected(3, 4);
        assert_eq!(m.to_string(), "a row has 3 columns, the header 4");
        assert_eq!(
            m.id(),
            Some("err-a-row-has-found-columns-the-header-expected")
        );
        assert_eq!(m.arg("found"), Some("3"));
        assert_ne!(m.render(Lang::ZhCn), m.to_string());
        assert!(m.render(Lang::ZhCn).contains('3'));
        assert_eq!(msg::CHALLENGE_NOT_FOUND.render(Lang::ZhCn), "未找到该挑战");
        assert_eq!(
            msg::CONTENT_TYPE_APPLICATION_JSON_WITH_AN_EMPTY_BODY_SEND_OR_NO.to_string(),
            "Content-Type: application/json with an empty body; send {} or no body at all"
        );
    }

    #[test]
    fn error_messages_render_in_each_language() {
        assert_eq!(msg::CHALLENGE_NOT_FOUND.render(Lang::ZhCn), "未找到该挑战");
        assert_eq!(
            msg::page_must_be_at_most_max(500).render(Lang::ZhCn),
            "页码最大为 500"
        );
        assert_eq!(
            msg::CONTENT_TYPE_APPLICATION_JSON_WITH_AN_EMPTY_BODY_SEND_OR_NO.render(Lang::ZhCn),
            "Content-Type 为 application/json 时请求体不能为空：请发送 {} 或不带请求体"
        );
        assert_eq!(
            msg::CHALLENGE_NOT_FOUND.render(Lang::En),
            "challenge not found"
        );
    }

    #[test]
    fn several_messages_are_shown_one_after_the_other() {
        let both = Message::several(vec![msg::BOARD_IS_REQUIRED, msg::CHALLENGE_NOT_FOUND]);
        assert_eq!(both.to_string(), "board is required; challenge not found");
        assert_eq!(both.id(), Some("err-board-is-required"));
        assert_eq!(
            Message::several(vec![msg::BOARD_IS_REQUIRED]),
            msg::BOARD_IS_REQUIRED
        );
    }
}
