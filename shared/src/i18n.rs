//! Message catalogues: Fluent files under `locales/{language}/` at the workspace root,
//! embedded in the binaries, in zh-CN (the default) and en. Adding a language is one
//! folder of the same files.
//!
//! Error messages are written in English where the error is made (the log's language);
//! `locales/en/errors.ftl` names each such text, with `{ $name }` for its variable
//! parts, and the other languages give the same ids. [`error_message`] finds the id of an
//! English message by those patterns and renders it in the asked language, or, for a text
//! no catalogue has, the code's own message (`code-{CODE}`): a client never shows a
//! message in a language it did not ask for.

use std::collections::HashMap;
use std::sync::LazyLock;

use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{LanguageIdentifier, Loader, static_loader};
use regex::Regex;

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

/// The English error catalogue, read for its patterns.
const ERRORS_EN: &str = include_str!("../../locales/en/errors.ftl");

/// One message of the English error catalogue as a pattern over the code's texts.
struct ErrorPattern {
    id: String,
    pattern: Regex,
    args: Vec<String>,
    /// The length of its fixed text: of two patterns that match, the longer one is the
    /// more specific (`{ $name } is already the first …` over `… the { $place } …`).
    fixed_len: usize,
}

/// The English error messages: the fixed ones by their text, those with variable
/// parts as patterns.
struct ErrorCatalogue {
    fixed: HashMap<String, String>,
    patterns: Vec<ErrorPattern>,
}

static ERRORS: LazyLock<ErrorCatalogue> = LazyLock::new(|| parse_errors(ERRORS_EN));

/// `id = text` lines of `err-` messages; `{ $name }` is a variable part, `{ "…" }` a
/// literal one.
fn parse_errors(ftl: &str) -> ErrorCatalogue {
    let mut catalogue = ErrorCatalogue {
        fixed: HashMap::new(),
        patterns: Vec::new(),
    };
    // a constant pattern (the tests compile it)
    let Ok(placeable) = Regex::new(r#"\{ *(?:\$(\w+)|"([^"]*)") *\}"#) else {
        return catalogue;
    };
    for line in ftl.lines() {
        let Some((id, text)) = line.split_once(" = ") else {
            continue;
        };
        if !id.starts_with("err-") {
            continue;
        }
        let mut regex = String::from("^");
        let mut literal = String::new();
        let mut args = Vec::new();
        let mut last = 0;
        for c in placeable.captures_iter(text) {
            let Some(whole) = c.get(0) else { continue };
            literal.push_str(&text[last..whole.start()]);
            regex.push_str(&regex::escape(&text[last..whole.start()]));
            if let Some(name) = c.get(1) {
                regex.push_str(&format!("(?P<{}>.+?)", name.as_str()));
                args.push(name.as_str().to_string());
            } else if let Some(text) = c.get(2) {
                literal.push_str(text.as_str());
                regex.push_str(&regex::escape(text.as_str()));
            }
            last = whole.end();
        }
        literal.push_str(&text[last..]);
        regex.push_str(&regex::escape(&text[last..]));
        regex.push('$');
        if args.is_empty() {
            catalogue.fixed.insert(literal, id.to_string());
        } else if let Ok(pattern) = Regex::new(&regex) {
            catalogue.patterns.push(ErrorPattern {
                id: id.to_string(),
                pattern,
                args,
                fixed_len: literal.len(),
            });
        }
    }
    catalogue
}

/// The id and arguments of an English error message, when the catalogue has it.
pub fn error_id(english: &str) -> Option<(String, Vec<(&'static str, String)>)> {
    let catalogue: &'static ErrorCatalogue = &ERRORS;
    if let Some(id) = catalogue.fixed.get(english) {
        return Some((id.clone(), Vec::new()));
    }
    // the most specific pattern first: the one with the longest fixed text
    catalogue
        .patterns
        .iter()
        .filter_map(|p| p.pattern.captures(english).map(|c| (p, c)))
        .max_by_key(|(p, _)| p.fixed_len)
        .map(|(p, c)| {
            let args = p
                .args
                .iter()
                .map(|name| {
                    (
                        name.as_str(),
                        c.name(name)
                            .map_or(String::new(), |m| m.as_str().to_string()),
                    )
                })
                .collect();
            (p.id.clone(), args)
        })
}

/// An error's message (`english`, as the code wrote it) in `lang`: its catalogue text,
/// or, when no catalogue has that text, the message of its `code`.
pub fn error_message(lang: Lang, code: &str, english: &str) -> String {
    if lang == Lang::En {
        return english.to_string();
    }
    match error_id(english) {
        Some((id, args)) => lang.t_args(&id, &args),
        None => lang.t(&format!("code-{code}")),
    }
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

    #[test]
    fn english_messages_find_their_chinese_text() {
        let zh = |code, text| error_message(Lang::ZhCn, code, text);
        assert_eq!(zh("NOT_FOUND", "challenge not found"), "未找到该挑战");
        assert_eq!(
            zh("VALIDATION_ERROR", "page must be at most 500"),
            "页码最大为 500"
        );
        assert_eq!(
            zh("VALIDATION_ERROR", "trackId is required"),
            "trackId 为必填项",
            "the fixed text wins over `{{field}} is required`"
        );
        assert_eq!(
            zh("VALIDATION_ERROR", "nickname is required"),
            "nickname 为必填项"
        );
        assert_eq!(
            zh(
                "VALIDATION_ERROR",
                "Content-Type: application/json with an empty body; send {} or no body at all"
            ),
            "Content-Type 为 application/json 时请求体不能为空：请发送 {} 或不带请求体"
        );
        // a text no catalogue has: the code's message, never English
        assert_eq!(zh("CONFLICT", "something new"), "内容已被修改，请重试。");
        assert_eq!(
            error_message(Lang::En, "CONFLICT", "something new"),
            "something new"
        );
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
        let variable = Regex::new(r"\{ *\$(\w+) *\}").unwrap();
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

    /// Every error message the code writes (an error's literal text, its `format!`
    /// text with anything in its placeholders, an import item's check) is in the
    /// catalogue: a Chinese client never falls back to the code's message for it.
    #[test]
    fn every_error_text_of_the_code_is_in_the_catalogue() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let constructor = Regex::new(
            r#"Error::(?:validation|not_found|conflict|forbidden|unauthorized|Validation|RateLimited|ServiceUnavailable|Conflict|NotFound|Unauthorized|Forbidden|MfaRequired|InvalidVerifyCode|SmsProvider|Overloaded|PayloadTooLarge|RangeNotSatisfiable|RegionChangeLimit|NotAvailableInMvp|InvalidReceipt|UnsupportedPlatform|CsvParse)\s*(?:\{\s*message:\s*|\()\s*(?:format!\(\s*)?((?:"(?:[^"\\]|\\.)*"\s*)+)"#,
        )
        .unwrap();
        let item_check =
            Regex::new(r#"errors\.push\(\s*(?:format!\(\s*)?"((?:[^"\\]|\\.)*)""#).unwrap();
        let literal = Regex::new(r#""((?:[^"\\]|\\.)*)""#).unwrap();
        let placeholder = Regex::new(r"\{[^}]*\}").unwrap();
        let mut missing = Vec::new();
        let mut seen = 0;
        let mut stack = vec![
            format!("{root}/shared/src"),
            format!("{root}/player-api/src"),
            format!("{root}/admin-console/src"),
        ];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    // configuration errors stop the process at start: no client reads them
                    if !path.ends_with("config") {
                        stack.push(path.to_string_lossy().to_string());
                    }
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let source = std::fs::read_to_string(&path).unwrap();
                let source = source.split("#[cfg(test)]").next().unwrap_or_default();
                let texts = constructor
                    .captures_iter(source)
                    .map(|c| {
                        literal
                            .captures_iter(&c[1])
                            .map(|l| l[1].to_string())
                            .collect::<String>()
                    })
                    .chain(item_check.captures_iter(source).map(|c| c[1].to_string()));
                for text in texts {
                    let text = text.replace("\\\n", "").replace("\\\"", "\"");
                    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    // `{}` written as `{{}}` in a format! string
                    let sample = placeholder
                        .replace_all(&text.replace("{{}}", "\u{0}"), "X")
                        .replace('\u{0}', "{}");
                    seen += 1;
                    // a plain literal keeps its braces (`send {} or no body`)
                    if error_id(&sample).is_none() && error_id(&text).is_none() {
                        missing.push(format!("{}: {text}", path.display()));
                    }
                }
            }
        }
        assert!(seen > 150, "found only {seen} error texts");
        assert!(
            missing.is_empty(),
            "not in locales/en/errors.ftl:\n{}",
            missing.join("\n")
        );
    }
}
