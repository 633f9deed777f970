//! The console's language for the request being served, and the texts, times and
//! numbers its pages show in it.
//!
//! The language is the signed-in admin's choice (stored per admin, the header's menu),
//! else the browser's `Accept-Language`, else zh-CN. [`layer`] reads the header for
//! every console request; the signed-in admin's extractor (`ConsoleAdmin`) puts the admin's
//! choice over it. Templates and handlers then ask [`t`] for their texts (the
//! catalogues under `locales/`, through [`shared::i18n`]), [`when`] for times (Beijing
//! time, the service's calendar) and [`num`] for numbers.

use std::cell::Cell;
use std::fmt::Display;

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use chrono::{DateTime, Utc};
use chrono_tz::Asia::Shanghai;
use num_format::{Locale, ToFormattedString};
pub use shared::i18n::Lang;

tokio::task_local! {
    static LANG: Cell<Lang>;
}

/// The language of the request being served (zh-CN outside one).
pub fn current() -> Lang {
    LANG.try_with(Cell::get).unwrap_or_default()
}

/// Puts the admin's own choice over the browser's for the rest of the request.
pub fn choose(lang: Lang) {
    // outside a request (a unit test) there is nothing to change
    let _ = LANG.try_with(|cell| cell.set(lang));
}

/// Serves the request in its browser's language (until an admin's choice replaces it);
/// responses vary by `Accept-Language`.
pub async fn layer(req: Request, next: Next) -> Response {
    let accept = req
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    let lang = Lang::from_accept_language(accept);
    let mut res = LANG.scope(Cell::new(lang), next.run(req)).await;
    res.headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept-language"));
    res
}

/// The text of message `id` in the request's language.
pub fn t(id: &str) -> String {
    current().t(id)
}

/// Message `id`, or `fallback` when no catalogue has it.
pub fn t_or(id: &str, fallback: &str) -> String {
    let text = t(id);
    if text == id {
        fallback.to_string()
    } else {
        text
    }
}

/// The name of a stored value of kind `kind` (`term("status", "draft")` is message
/// `status-draft`; a dot, which Fluent ids lack, is a `-`: `audit-action-player-ban`):
/// statuses, roles, flags, signals and audit actions are stored in English and shown in
/// the page's language; a value no catalogue names shows as it is stored.
pub fn term(kind: &str, value: &str) -> String {
    current().term(kind, value)
}

/// Items joined as the language lists them (`a, b` / `a、b`).
pub fn list(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join(&t("list-sep"))
}

/// Message `id` with one argument.
pub fn t1(id: &str, name: &str, value: impl Display) -> String {
    current().t1(id, name, value)
}

/// Message `id` with two arguments.
pub fn t2(id: &str, a: &str, a_value: impl Display, b: &str, b_value: impl Display) -> String {
    current().t2(id, a, a_value, b, b_value)
}

/// Message `id` with three arguments.
pub fn t3(
    id: &str,
    a: (&str, &dyn Display),
    b: (&str, &dyn Display),
    c: (&str, &dyn Display),
) -> String {
    current().t_args(
        id,
        &[
            (a.0, a.1.to_string()),
            (b.0, b.1.to_string()),
            (c.0, c.1.to_string()),
        ],
    )
}

/// A moment as staff read it: Beijing time to the minute (`2026-11-24 13:05`).
pub fn when(at: &DateTime<Utc>) -> String {
    at.with_timezone(&Shanghai)
        .format("%Y-%m-%d %H:%M")
        .to_string()
}

/// A moment to the second, Beijing time (the audit log).
pub fn when_exact(at: &DateTime<Utc>) -> String {
    at.with_timezone(&Shanghai)
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// A whole number a page shows: the integer types, and references to them (templates
/// pass either).
pub trait Whole {
    fn whole(&self) -> i64;
}

impl Whole for i64 {
    fn whole(&self) -> i64 {
        *self
    }
}

impl Whole for i32 {
    fn whole(&self) -> i64 {
        i64::from(*self)
    }
}

impl Whole for u32 {
    fn whole(&self) -> i64 {
        i64::from(*self)
    }
}

impl Whole for usize {
    fn whole(&self) -> i64 {
        i64::try_from(*self).unwrap_or(i64::MAX)
    }
}

impl Whole for u64 {
    fn whole(&self) -> i64 {
        i64::try_from(*self).unwrap_or(i64::MAX)
    }
}

impl<T: Whole + ?Sized> Whole for &T {
    fn whole(&self) -> i64 {
        (**self).whole()
    }
}

/// A whole number grouped as the language writes it (`1,234,567`).
pub fn num(n: impl Whole) -> String {
    let locale = match current() {
        Lang::ZhCn => Locale::zh,
        Lang::En => Locale::en,
    };
    n.whole().to_formatted_string(&locale)
}

/// A file's size: `812 B`, `12 KB`, `1.5 MB` (binary multiples; the same in both
/// languages).
pub fn bytes(n: i64) -> String {
    const KIB: i64 = 1024;
    const MIB: i64 = 1024 * 1024;
    if n < KIB {
        format!("{n} B")
    } else if n < MIB {
        format!("{} KB", (n + KIB / 2) / KIB)
    } else {
        // one decimal without a float: tenths of a MiB, rounded
        let tenths = (n * 10 + MIB / 2) / MIB;
        format!("{}.{} MB", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_bytes_kb_and_mb() {
        assert_eq!(bytes(812), "812 B");
        assert_eq!(bytes(12 * 1024 + 100), "12 KB");
        assert_eq!(bytes(1024 * 1024 * 3 / 2), "1.5 MB");
        assert_eq!(bytes(20_000_000), "19.1 MB");
    }

    #[test]
    fn times_are_beijing_time() {
        let at = DateTime::parse_from_rfc3339("2026-11-24T05:05:59Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        assert_eq!(when(&at), "2026-11-24 13:05");
        assert_eq!(when_exact(&at), "2026-11-24 13:05:59");
        // across midnight: the Beijing date
        let late = DateTime::parse_from_rfc3339("2026-11-24T17:30:00Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        assert_eq!(when(&late), "2026-11-25 01:30");
    }

    #[tokio::test]
    async fn numbers_and_texts_follow_the_request() {
        LANG.scope(Cell::new(Lang::En), async {
            assert_eq!(num(1_234_567), "1,234,567");
            assert_eq!(num(-12), "-12");
            choose(Lang::ZhCn);
            assert_eq!(current(), Lang::ZhCn);
            assert_eq!(num(1_234_567), "1,234,567");
        })
        .await;
        // outside a request: the default
        assert_eq!(current(), Lang::ZhCn);
    }

    /// Every file under `dir` (recursively) whose name ends with `ext`.
    fn files(dir: &std::path::Path, ext: &str, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, ext, out);
            } else if path.to_string_lossy().ends_with(ext) {
                out.push(path);
            }
        }
    }

    /// The message ids the templates and the console's code ask for (`t`, `t1`, … with
    /// a literal id): each has a text in every language (the catalogues' parity is
    /// `shared::i18n`'s test).
    #[test]
    fn every_message_used_is_in_the_catalogues() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut sources = Vec::new();
        files(&root.join("templates"), ".html", &mut sources);
        files(&root.join("admin-console/src"), ".rs", &mut sources);
        assert!(sources.len() > 40, "{sources:?}");
        let mut used = std::collections::BTreeSet::new();
        for path in &sources {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            // `t(`, `t1(` … not preceded by a letter, digit or `_`, then a literal id
            let bytes = text.as_bytes();
            for (at, _) in text.match_indices("(\"") {
                let mut start = at;
                while start > 0 && (bytes[start - 1].is_ascii_digit()) {
                    start -= 1;
                }
                if start == 0 || bytes[start - 1] != b't' {
                    continue;
                }
                if start >= 2
                    && (bytes[start - 2].is_ascii_alphanumeric() || bytes[start - 2] == b'_')
                {
                    continue;
                }
                let rest = &text[at + 2..];
                if let Some(end) = rest.find('"') {
                    used.insert((path.display().to_string(), rest[..end].to_string()));
                }
            }
        }
        assert!(used.len() > 20, "found only {} uses", used.len());
        // the ids of every catalogue file of each language
        let ids: Vec<std::collections::BTreeSet<String>> = Lang::ALL
            .iter()
            .map(|lang| {
                let mut ftl = Vec::new();
                files(&root.join("locales").join(lang.tag()), ".ftl", &mut ftl);
                ftl.iter()
                    .flat_map(|path| {
                        std::fs::read_to_string(path)
                            .unwrap_or_default()
                            .lines()
                            .filter_map(|l| {
                                l.split_once(" = ").map(|(id, _)| id.trim().to_string())
                            })
                            .filter(|id| !id.starts_with('#'))
                            .collect::<Vec<_>>()
                    })
                    .collect()
            })
            .collect();
        let missing: Vec<_> = used
            .iter()
            .filter(|(_, id)| ids.iter().any(|of_lang| !of_lang.contains(id)))
            .collect();
        assert!(missing.is_empty(), "no text in some catalogue: {missing:?}");
    }
}
