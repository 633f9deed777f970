//! Message catalogues: Fluent files under `locales/{language}/` at the workspace root,
//! embedded in the binaries, in zh-CN (the default) and en. Adding a language is one
//! folder of the same files.
//!
//! An error names its message by id (the error vocabulary), and the HTTP layer renders it
//! in the client's language: the ids are written from `locales/en/errors.ftl`, so a
//! client never meets a message that has no text in its language.

use std::collections::HashMap;
use std::sync::LazyLock;

use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{LanguageIdentifier, Loader, static_loader};

static_loader! {
    static LOCALES = {
        locales: "../locales",
        fallback_language: "zh-CN",
        // no Unicode isolation marks around arguments: messages are plain text in JSON
        // and HTML, where the marks would show up in copied text
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

/// A language the service speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Simplified Chinese: the default.
    #[default]
    ZhCn,
    En,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::ZhCn, Lang::En];

    /// Its BCP 47 tag (`<html lang>`, the catalogue's folder).
    pub const fn tag(self) -> &'static str {
        match self {
            Lang::ZhCn => "zh-CN",
            Lang::En => "en",
        }
    }

    /// Its own name, as a language menu shows it.
    pub const fn name(self) -> &'static str {
        match self {
            Lang::ZhCn => "简体中文",
            Lang::En => "English",
        }
    }

    /// A stored or submitted tag (`zh-CN`, `en`); None for any other.
    pub fn parse(tag: &str) -> Option<Lang> {
        Lang::ALL
            .into_iter()
            .find(|l| l.tag().eq_ignore_ascii_case(tag.trim()))
    }

    /// The language an `Accept-Language` header prefers among ours (its weights
    /// honoured; `zh`, `zh-Hans`, `zh-TW` … count as Chinese), zh-CN when it names
    /// neither or is absent.
    pub fn from_accept_language(header: Option<&str>) -> Lang {
        let Some(header) = header else {
            return Lang::default();
        };
        // a header an attacker sends: at most this many entries are looked at
        let mut weighted: Vec<(u16, &str)> = header
            .split(',')
            .take(32)
            .filter_map(|entry| {
                let mut parts = entry.split(';');
                let tag = parts.next()?.trim();
                let weight = parts
                    .find_map(|p| p.trim().strip_prefix("q="))
                    .map_or(Some(1000), quality)?;
                (weight > 0 && !tag.is_empty()).then_some((weight, tag))
            })
            .collect();
        // the highest weight first; equal weights in the header's order
        weighted.sort_by_key(|(weight, _)| std::cmp::Reverse(*weight));
        for (_, tag) in weighted {
            let primary = tag.split(['-', '_']).next().unwrap_or_default();
            if primary.eq_ignore_ascii_case("zh") {
                return Lang::ZhCn;
            }
            if primary.eq_ignore_ascii_case("en") {
                return Lang::En;
            }
        }
        Lang::default()
    }

    fn id(self) -> &'static LanguageIdentifier {
        static IDS: LazyLock<[LanguageIdentifier; 2]> =
            LazyLock::new(|| Lang::ALL.map(|l| l.tag().parse().unwrap_or_default()));
        &IDS[self as usize]
    }

    /// The text of message `id`; the id itself when no catalogue has it (a test checks
    /// that every id used has a text in every language).
    pub fn t(self, id: &str) -> String {
        LOCALES
            .try_lookup(self.id(), id)
            .unwrap_or_else(|| id.to_string())
    }

    /// Message `id` with one argument.
    pub fn t1(self, id: &str, name: &str, value: impl std::fmt::Display) -> String {
        self.t_args(id, &[(name, value.to_string())])
    }

    /// Message `id` with two arguments.
    pub fn t2(
        self,
        id: &str,
        a: &str,
        a_value: impl std::fmt::Display,
        b: &str,
        b_value: impl std::fmt::Display,
    ) -> String {
        self.t_args(id, &[(a, a_value.to_string()), (b, b_value.to_string())])
    }

    /// The name of a stored value of a closed set (`kind` `status`, value `draft`: the
    /// message `status-draft`; a dot, which Fluent ids lack, is a `-`); the value as it
    /// is stored when no catalogue names it.
    pub fn term(self, kind: &str, value: &str) -> String {
        let id = format!("{kind}-{}", value.replace('.', "-"));
        LOCALES
            .try_lookup(self.id(), &id)
            .unwrap_or_else(|| value.to_string())
    }

    /// What separates the texts of several messages shown in one line.
    pub const fn list_separator(self) -> &'static str {
        match self {
            Lang::ZhCn => "；",
            Lang::En => "; ",
        }
    }

    /// The text of message `id` with its arguments.
    pub fn t_args(self, id: &str, args: &[(&str, String)]) -> String {
        let args: HashMap<std::borrow::Cow<'static, str>, FluentValue<'_>> = args
            .iter()
            .map(|(name, value)| {
                (
                    std::borrow::Cow::Owned((*name).to_string()),
                    FluentValue::from(value.clone()),
                )
            })
            .collect();
        LOCALES
            .try_lookup_with_args(self.id(), id, &args)
            .unwrap_or_else(|| id.to_string())
    }
}

/// An `Accept-Language` weight (`0.8`) in thousandths; None when malformed (the entry
/// is then ignored, as RFC 9110 allows).
fn quality(q: &str) -> Option<u16> {
    let q = q.trim();
    if q.len() > 5 {
        return None;
    }
    let value: f32 = q.parse().ok()?;
    (0.0..=1.0)
        .contains(&value)
        .then(|| (value * 1000.0).round() as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_ours_by_weight() {
        for (header, lang) in [
            (None, Lang::ZhCn),
            (Some(""), Lang::ZhCn),
            (Some("en"), Lang::En),
            (Some("en-US,en;q=0.9"), Lang::En),
            (Some("zh-CN,zh;q=0.9,en;q=0.8"), Lang::ZhCn),
            (Some("zh-TW"), Lang::ZhCn),
            (Some("fr-FR,en;q=0.5,zh;q=0.4"), Lang::En),
            (Some("en;q=0.2,zh;q=0.9"), Lang::ZhCn),
            (Some("de,fr"), Lang::ZhCn),
            (Some("*"), Lang::ZhCn),
            (Some(";;;,,=q"), Lang::ZhCn),
        ] {
            assert_eq!(Lang::from_accept_language(header), lang, "{header:?}");
        }
        assert_eq!(Lang::parse("EN"), Some(Lang::En));
        assert_eq!(Lang::parse("zh-cn"), Some(Lang::ZhCn));
        assert_eq!(Lang::parse("fr"), None);
    }

    /// The ids of a catalogue file.
    fn ids(ftl: &str) -> std::collections::BTreeSet<String> {
        ftl.lines()
            .filter_map(|l| l.split_once(" = ").map(|(id, _)| id.trim().to_string()))
            .filter(|id| !id.starts_with('#') && !id.is_empty())
            .collect()
    }

    #[test]
    fn every_language_has_every_message() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../locales");
        let mut files: Vec<String> = Vec::new();
        for lang in Lang::ALL {
            for entry in std::fs::read_dir(format!("{dir}/{}", lang.tag())).unwrap() {
                let name = entry.unwrap().file_name().to_string_lossy().to_string();
                if !files.contains(&name) {
                    files.push(name);
                }
            }
        }
        assert!(files.contains(&"errors.ftl".to_string()));
        let variable = regex::Regex::new(r"\{ *\$(\w+) *\}").unwrap();
        for file in &files {
            let [zh, en] = Lang::ALL.map(|lang| {
                ids(
                    &std::fs::read_to_string(format!("{dir}/{}/{file}", lang.tag()))
                        .unwrap_or_else(|e| panic!("{}/{file}: {e}", lang.tag())),
                )
            });
            let only_zh: Vec<_> = zh.difference(&en).collect();
            let only_en: Vec<_> = en.difference(&zh).collect();
            assert!(
                only_zh.is_empty() && only_en.is_empty(),
                "{file}: only in zh-CN {only_zh:?}, only in en {only_en:?}"
            );
            // and each renders to a text of its own in each language, given its variables
            for lang in Lang::ALL {
                let ftl = std::fs::read_to_string(format!("{dir}/{}/{file}", lang.tag())).unwrap();
                for (id, text) in ftl.lines().filter_map(|l| l.split_once(" = ")) {
                    if id.starts_with('#') {
                        continue;
                    }
                    let args: Vec<(&str, String)> = variable
                        .captures_iter(text)
                        .filter_map(|c| c.get(1))
                        .map(|name| (name.as_str(), "1".to_string()))
                        .collect();
                    let rendered = lang.t_args(id, &args);
                    assert_ne!(rendered, id, "{} {file}: {id} does not render", lang.tag());
                }
            }
        }
    }

    #[test]
    fn every_error_code_has_a_message_in_every_language() {
        for code in [
            "VALIDATION_ERROR",
            "VALIDATION_FAILED",
            "CSV_PARSE_ERROR",
            "INVALID_STATUS_TRANSITION",
            "REGION_CHANGE_LIMIT_REACHED",
            "NOT_AVAILABLE_IN_MVP",
            "INVALID_RECEIPT",
            "UNSUPPORTED_PLATFORM",
            "UNAUTHORIZED",
            "MFA_REQUIRED",
            "INVALID_VERIFY_CODE",
            "FORBIDDEN",
            "MINOR_PROTECTION",
            "REAL_NAME_REQUIRED",
            "NOT_FOUND",
            "METHOD_NOT_ALLOWED",
            "CONFLICT",
            "PAYLOAD_TOO_LARGE",
            "RATE_LIMITED",
            "SERVICE_UNAVAILABLE",
            "SMS_PROVIDER_ERROR",
            "INTERNAL_ERROR",
        ] {
            for lang in Lang::ALL {
                let id = format!("code-{code}");
                assert_ne!(lang.t(&id), id, "{}: {code}", lang.tag());
            }
        }
    }
}
