//! The security headers of every console answer (pages, htmx fragments, error pages,
//! redirects, assets): a Content-Security-Policy that runs scripts and styles from the
//! console's own origin only, `nosniff`, and a referrer kept to the same origin.
//!
//! Pages therefore carry no inline script, event-handler attribute, `javascript:` URL,
//! `<style>` element or `style=` attribute: behaviour lives in `static/js/console.js`,
//! looks in `static/css/console.css` (charts colour their shapes by class), and htmx is
//! told not to add its indicator `<style>` (`includeIndicatorStyles` in the layout's
//! htmx-config). A test below scans the templates and the console's sources for each.

use axum::Router;
use axum::http::{HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// Only this origin: scripts, styles, images, fetches (htmx) and form targets; no
/// plugin, no `<base>` that would move relative URLs, and no framing (clickjacking).
/// Styles from files only (no 'unsafe-inline'): an injected `style=` could otherwise
/// restyle a page to mislead (hide a warning, overlay a button).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

/// Links from the console to other sites do not carry its URLs (record ids, search
/// terms); links within it do (nothing is hidden from the console itself).
pub const REFERRER_POLICY: &str = "same-origin";

/// `router` with the three headers on every answer, replacing any a handler set.
pub fn secured<S>(router: Router<S>) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    router
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static(REFERRER_POLICY),
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under `dir` (recursively) whose name ends in one of `extensions`.
    fn files(dir: &str, extensions: &[&str]) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(files(&path.to_string_lossy(), extensions));
            } else if path
                .extension()
                .is_some_and(|e| extensions.iter().any(|x| e == *x))
            {
                out.push(path);
            }
        }
        out
    }

    /// What the policy refuses, as it would be spelled in a template or in Rust code
    /// that writes HTML; `None` when `text` has none of it.
    fn inline_code(text: &str) -> Option<String> {
        let lower = text.to_ascii_lowercase();
        for (i, _) in lower.match_indices("<script") {
            let tag_end = lower[i..].find('>').map_or(lower.len(), |e| i + e);
            if !lower[i..tag_end].contains(" src=") {
                return Some("an inline <script>".into());
            }
        }
        for needle in ["<style", "style=", "javascript:"] {
            if lower.contains(needle) {
                return Some(needle.into());
            }
        }
        // event-handler attributes: ` onclick=`, ` onchange="…"`, …
        let bytes = lower.as_bytes();
        for (i, _) in lower.match_indices(" on") {
            let name: String = lower[i + 3..]
                .chars()
                .take_while(char::is_ascii_lowercase)
                .collect();
            let after = i + 3 + name.len();
            if !name.is_empty() && bytes.get(after) == Some(&b'=') {
                return Some(format!("the handler attribute on{name}="));
            }
        }
        None
    }

    #[test]
    fn the_scan_finds_each_kind_of_inline_code() {
        for bad in [
            "<script>alert(1)</script>",
            "<SCRIPT type=module>x()</SCRIPT>",
            "<style>p{}</style>",
            "<p style=\"color:red\">",
            "<a href=\"javascript:history.back()\">",
            "<select onchange=\"this.form.submit()\">",
            "<rect onclick=go()>",
        ] {
            assert!(inline_code(bad).is_some(), "{bad}");
        }
        for good in [
            "<script src=\"/x.js\" defer></script>",
            "<select data-submit-on-change>",
            "<p class=\"on\">on=off is text</p>",
            "<a href=\"/elsewhere\">",
        ] {
            assert_eq!(inline_code(good), None, "{good}");
        }
    }

    /// The policy refuses inline code, so none may be written: the templates, and the
    /// console modules that write HTML themselves (charts, the QR code, diffs).
    #[test]
    fn no_page_carries_inline_script_or_style() {
        let root = env!("CARGO_MANIFEST_DIR");
        let templates = files(&format!("{root}/../templates"), &["html"]);
        assert!(templates.len() > 10, "the templates were not found");
        let sources = files(&format!("{root}/src/console"), &["rs"]);
        assert!(sources.len() > 10, "the console's sources were not found");
        for path in templates.iter().chain(&sources) {
            if path.ends_with("headers.rs") {
                continue; // this file spells the patterns it looks for
            }
            let text = std::fs::read_to_string(path).unwrap_or_default();
            // unit tests spell hostile markup to show it is escaped
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            if let Some(found) = inline_code(text) {
                panic!(
                    "{}: {found}, which the console's Content-Security-Policy refuses; \
                     move it to static/js or static/css",
                    path.display()
                );
            }
        }
    }

    #[test]
    fn the_policy_runs_nothing_inline_and_refuses_framing() {
        let directives: Vec<&str> = CONTENT_SECURITY_POLICY.split("; ").collect();
        for wanted in [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(directives.contains(&wanted), "{wanted} missing");
        }
        assert!(!CONTENT_SECURITY_POLICY.contains("unsafe"));
    }
}
