//! Every console URL, named once: the routers register these patterns, handlers redirect
//! to them and templates link to them (`{{ urls::question(q.id) }}`), so no other file
//! spells `/console/...`. Static pages are constants; a page of one record is a function
//! of its id, built from the same pattern the router registers ([`pattern`]). Asset URLs
//! carry their content's hash ([`asset`]).

use shared::ids::{AdminId, PlayerId, QuestionId};
use std::fmt::Write as _;

use super::assets;

/// `"/console"` followed by the literal `$path`: the console's prefix, spelled once.
macro_rules! console {
    () => {
        "/console"
    };
    ($path:literal) => {
        concat!("/console", $path)
    };
}

/// The dashboard; also the path every console cookie is scoped to.
pub const HOME: &str = console!();
/// `/console/` redirects to [`HOME`].
pub const HOME_SLASH: &str = console!("/");
/// Anything else under `/console`: the console's own 404 page.
pub const UNKNOWN: &str = console!("/{*rest}");

pub const LOGIN: &str = console!("/login");
pub const LOGOUT: &str = console!("/logout");

pub const QUESTIONS: &str = console!("/questions");
pub const QUESTIONS_BATCH: &str = console!("/questions/batch");
pub const QUESTION_NEW: &str = console!("/questions/new");
/// The list's questions as a CSV or JSON download (`?format=` and the list's filters).
pub const QUESTIONS_EXPORT: &str = console!("/questions/export");

/// Flagged questions, worst first; and its bulk "send to review".
pub const ATTENTION: &str = console!("/attention");
pub const ATTENTION_REVIEW: &str = console!("/attention/review");

pub const IMPORT: &str = console!("/import");
pub const IMPORT_PREVIEW: &str = console!("/import/preview");
pub const IMPORT_TEMPLATE: &str = console!("/import/template.csv");

/// The media library (and its upload form).
pub const MEDIA: &str = console!("/media");

pub const CATEGORIES: &str = console!("/categories");
pub const CARDS: &str = console!("/cards");
pub const SKILL_TREE: &str = console!("/skill-tree");
pub const SKILL_TREE_NODES: &str = console!("/skill-tree/nodes");

pub const PLAYERS: &str = console!("/players");

pub const ADMINS: &str = console!("/admins");
pub const ADMIN_NEW: &str = console!("/admins/new");
/// The signed-in admin's own password.
pub const ADMIN_PASSWORD: &str = console!("/admins/password");

/// The signed-in admin's console language (the header's menu posts here).
pub const LANGUAGE: &str = console!("/language");

/// The signed-in admin's MFA page.
pub const MFA: &str = console!("/mfa");
pub const MFA_SETUP: &str = console!("/mfa/setup");
pub const MFA_ENABLE: &str = console!("/mfa/enable");
pub const MFA_DISABLE: &str = console!("/mfa/disable");

pub const PROVIDERS: &str = console!("/providers");
pub const PROVIDERS_TOGGLE: &str = console!("/providers/toggle");
pub const FEEDBACK: &str = console!("/feedback");
/// The licensed-game profile's statutory holidays.
pub const HOLIDAYS: &str = console!("/holidays");
pub const HOLIDAYS_PUT: &str = console!("/holidays/put");
pub const HOLIDAYS_REMOVE: &str = console!("/holidays/remove");
/// The fair-play review queue.
pub const FAIR_PLAY: &str = console!("/fair-play");
pub const AUDIT: &str = console!("/audit");

/// The embedded static files (no session, no cookie): `/console-assets/{path}`.
pub const ASSETS: &str = "/console-assets";

/// The router's side of the pages of one record: axum path patterns whose `{id}` the
/// functions below fill in.
pub mod pattern {
    pub const QUESTION: &str = console!("/questions/{id}");
    pub const QUESTION_STATUS: &str = console!("/questions/{id}/status");
    pub const QUESTION_STATS: &str = console!("/questions/{id}/stats");
    pub const QUESTION_REVERT: &str = console!("/questions/{id}/versions/{version}/revert");
    pub const MEDIA_DELETE: &str = console!("/media/{id}/delete");
    pub const CATEGORY: &str = console!("/categories/{id}");
    pub const CATEGORY_ARCHIVE: &str = console!("/categories/{id}/archive");
    pub const CARD: &str = console!("/cards/{id}");
    pub const SKILL_NODE: &str = console!("/skill-tree/nodes/{id}");
    pub const SKILL_NODE_MOVE: &str = console!("/skill-tree/nodes/{id}/move");
    pub const SKILL_NODE_DELETE: &str = console!("/skill-tree/nodes/{id}/delete");
    pub const PLAYER: &str = console!("/players/{id}");
    pub const PLAYER_BAN: &str = console!("/players/{id}/ban");
    pub const PLAYER_UNBAN: &str = console!("/players/{id}/unban");
    pub const PLAYER_GUARDIAN_PIN_RESET: &str = console!("/players/{id}/guardian-pin/reset");
    pub const PLAYER_FAIR_PLAY: &str = console!("/players/{id}/fair-play");
    pub const ADMIN: &str = console!("/admins/{id}");
    pub const ADMIN_DELETE: &str = console!("/admins/{id}/delete");
    pub const ADMIN_RESET_PASSWORD: &str = console!("/admins/{id}/reset-password");
    pub const ADMIN_RESET_MFA: &str = console!("/admins/{id}/reset-mfa");
    /// Every embedded file, by its plain or its content-hashed name.
    pub const ASSET: &str = "/console-assets/{*path}";
}

/// Every pattern the console's router registers, in the order of the menu; a test checks
/// that each answers, and that the routers register no other.
pub const ROUTES: &[&str] = &[
    HOME,
    HOME_SLASH,
    UNKNOWN,
    LOGIN,
    LOGOUT,
    QUESTIONS,
    QUESTIONS_BATCH,
    QUESTION_NEW,
    QUESTIONS_EXPORT,
    pattern::QUESTION,
    pattern::QUESTION_STATUS,
    pattern::QUESTION_STATS,
    pattern::QUESTION_REVERT,
    ATTENTION,
    ATTENTION_REVIEW,
    IMPORT,
    IMPORT_PREVIEW,
    IMPORT_TEMPLATE,
    MEDIA,
    pattern::MEDIA_DELETE,
    SKILL_TREE,
    SKILL_TREE_NODES,
    pattern::SKILL_NODE,
    pattern::SKILL_NODE_MOVE,
    pattern::SKILL_NODE_DELETE,
    CATEGORIES,
    pattern::CATEGORY,
    pattern::CATEGORY_ARCHIVE,
    CARDS,
    pattern::CARD,
    PLAYERS,
    pattern::PLAYER,
    pattern::PLAYER_BAN,
    pattern::PLAYER_UNBAN,
    pattern::PLAYER_GUARDIAN_PIN_RESET,
    FAIR_PLAY,
    pattern::PLAYER_FAIR_PLAY,
    FEEDBACK,
    PROVIDERS,
    PROVIDERS_TOGGLE,
    HOLIDAYS,
    HOLIDAYS_PUT,
    HOLIDAYS_REMOVE,
    ADMINS,
    ADMIN_NEW,
    ADMIN_PASSWORD,
    pattern::ADMIN,
    pattern::ADMIN_DELETE,
    pattern::ADMIN_RESET_PASSWORD,
    pattern::ADMIN_RESET_MFA,
    LANGUAGE,
    MFA,
    MFA_SETUP,
    MFA_ENABLE,
    MFA_DISABLE,
    AUDIT,
    pattern::ASSET,
];

/// `pattern` with its `{id}` replaced by `id`, percent-encoded as one path segment.
fn with_id(pattern: &str, id: &str) -> String {
    let mut segment = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            segment.push(char::from(b));
        } else {
            let _ = write!(segment, "%{b:02X}");
        }
    }
    pattern.replacen("{id}", &segment, 1)
}

// A question's pages take its id as a `QuestionId`, or as a batch's refusal or the
// audit log spell it.

pub fn question(id: &(impl AsRef<str> + ?Sized)) -> String {
    with_id(pattern::QUESTION, id.as_ref())
}

pub fn question_status(id: &QuestionId) -> String {
    with_id(pattern::QUESTION_STATUS, id.as_str())
}

pub fn question_stats(id: &QuestionId) -> String {
    with_id(pattern::QUESTION_STATS, id.as_str())
}

pub fn question_revert(id: &QuestionId, version: &i64) -> String {
    with_id(pattern::QUESTION_REVERT, id.as_str()).replacen("{version}", &version.to_string(), 1)
}

pub fn media_delete(id: &str) -> String {
    with_id(pattern::MEDIA_DELETE, id)
}

pub fn category(id: &str) -> String {
    with_id(pattern::CATEGORY, id)
}

pub fn category_archive(id: &str) -> String {
    with_id(pattern::CATEGORY_ARCHIVE, id)
}

pub fn card(id: &str) -> String {
    with_id(pattern::CARD, id)
}

pub fn skill_node(id: &str) -> String {
    with_id(pattern::SKILL_NODE, id)
}

pub fn skill_node_move(id: &str) -> String {
    with_id(pattern::SKILL_NODE_MOVE, id)
}

pub fn skill_node_delete(id: &str) -> String {
    with_id(pattern::SKILL_NODE_DELETE, id)
}

pub fn player(id: &PlayerId) -> String {
    with_id(pattern::PLAYER, id.as_str())
}

pub fn player_ban(id: &PlayerId) -> String {
    with_id(pattern::PLAYER_BAN, id.as_str())
}

pub fn player_unban(id: &PlayerId) -> String {
    with_id(pattern::PLAYER_UNBAN, id.as_str())
}

pub fn player_guardian_pin_reset(id: &PlayerId) -> String {
    with_id(pattern::PLAYER_GUARDIAN_PIN_RESET, id.as_str())
}

pub fn player_fair_play(id: &PlayerId) -> String {
    with_id(pattern::PLAYER_FAIR_PLAY, id.as_str())
}

/// An admin's page: of an account (`AdminId`), or of an audit entry's actor (as logged).
pub fn admin(id: &(impl AsRef<str> + ?Sized)) -> String {
    with_id(pattern::ADMIN, id.as_ref())
}

pub fn admin_delete(id: &AdminId) -> String {
    with_id(pattern::ADMIN_DELETE, id.as_str())
}

pub fn admin_reset_password(id: &AdminId) -> String {
    with_id(pattern::ADMIN_RESET_PASSWORD, id.as_str())
}

pub fn admin_reset_mfa(id: &AdminId) -> String {
    with_id(pattern::ADMIN_RESET_MFA, id.as_str())
}

/// `path?query` from pairs, leaving out empty values.
pub fn with_query(path: &str, pairs: &[(&str, &str)]) -> String {
    let kept: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (*k, v.trim()))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    let encoded = serde_html_form::to_string(&kept).unwrap_or_default();
    if encoded.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{encoded}")
    }
}

/// The skill tree of one category.
pub fn skill_tree_of(category_id: &str) -> String {
    with_query(SKILL_TREE, &[("categoryId", category_id)])
}

/// The question list filtered to one category.
pub fn questions_in_category(category_id: &str) -> String {
    with_query(QUESTIONS, &[("categoryId", category_id)])
}

/// The question list filtered to one status.
pub fn questions_with_status(status: &str) -> String {
    with_query(QUESTIONS, &[("status", status)])
}

/// The drafts, newest first (where an import lands).
pub fn newest_drafts() -> String {
    with_query(
        QUESTIONS,
        &[
            ("status", "draft"),
            ("sortBy", "createdAt"),
            ("sortOrder", "desc"),
        ],
    )
}

/// The query of [`signed_out`].
pub const SIGNED_OUT_QUERY: &str = "signed-out";

/// The sign-in page saying "Signed out." (the message rides in the query: a flash would
/// store a new session for it).
pub fn signed_out() -> String {
    format!("{LOGIN}?{SIGNED_OUT_QUERY}")
}

/// The URL of the embedded file `path` (as under `static/`) with its content hash in
/// the name, e.g. `/console-assets/css/console.1a2b3c4d.css`: served with a year of
/// immutable caching, so a deploy that changes the file changes the URL.
pub fn asset(path: &str) -> String {
    format!("{ASSETS}/{}", assets::hashed_path_of(path))
}

/// A link to an address stored in the data (a player's avatar, a card's source), or
/// `None` when it is no absolute `http`/`https` URL: an address of another scheme (`javascript`, `data`)
/// in an `href` would run in the console's origin when an admin clicks it, so anything
/// else is shown as text. The link is the parsed URL written out again (WHATWG: the
/// scheme a browser would see, control characters and spaces encoded).
pub fn external(stored: &str) -> Option<String> {
    let parsed = url::Url::parse(stored.trim()).ok()?;
    (matches!(parsed.scheme(), "http" | "https") && parsed.has_host()).then(|| parsed.into())
}

/// The console's stylesheet.
pub const STYLESHEET: &str = "css/console.css";
/// htmx, pinned with its version in the file name.
pub const HTMX: &str = "vendor/htmx-2.0.11.min.js";
/// The console's own script (what inline handlers did before the Content-Security-Policy).
pub const SCRIPT: &str = "js/console.js";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_addresses_become_links() {
        for (stored, link) in [
            (
                "https://example.com/a.png",
                Some("https://example.com/a.png"),
            ),
            ("  http://example.com  ", Some("http://example.com/")),
            ("HTTPS://Example.com/x y", Some("https://example.com/x%20y")),
            ("javascript:alert(1)", None),
            ("JavaScript:alert(1)", None),
            (" javascript:alert(1)", None),
            ("java\tscript:alert(1)", None),
            ("data:text/html,<script>alert(1)</script>", None),
            ("vbscript:msgbox", None),
            ("file:///etc/passwd", None),
            ("//evil.example.com/x", None),
            ("/console/admins", None),
            ("Encyclopaedia Britannica, p. 12", None),
            ("", None),
        ] {
            assert_eq!(external(stored).as_deref(), link, "{stored:?}");
        }
    }

    #[test]
    fn record_urls_fill_their_router_pattern() {
        assert_eq!(
            question("0f8c-aa"),
            "/console/questions/0f8c-aa",
            "an id of safe characters stays as it is"
        );
        assert_eq!(
            question_status(&QuestionId::from_trusted("a/b c")),
            "/console/questions/a%2Fb%20c/status"
        );
        assert_eq!(
            skill_node_delete("n1"),
            "/console/skill-tree/nodes/n1/delete"
        );
        assert_eq!(
            admin_reset_mfa(&AdminId::from_trusted("x")),
            "/console/admins/x/reset-mfa"
        );
        assert_eq!(
            skill_tree_of("world-geography"),
            "/console/skill-tree?categoryId=world-geography"
        );
        assert_eq!(
            newest_drafts(),
            "/console/questions?status=draft&sortBy=createdAt&sortOrder=desc"
        );
        assert_eq!(
            with_query(PLAYERS, &[("search", " "), ("page", "2")]),
            "/console/players?page=2"
        );
        assert_eq!(
            with_query(PLAYERS, &[("search", " ab c "), ("page", "")]),
            "/console/players?search=ab+c"
        );
        assert_eq!(signed_out(), "/console/login?signed-out");
    }

    #[test]
    fn every_route_is_listed_once() {
        let mut seen = std::collections::HashSet::new();
        for route in ROUTES {
            assert!(seen.insert(route), "{route} listed twice");
            assert!(
                route.starts_with(HOME) || route.starts_with(ASSETS),
                "{route} is outside the console"
            );
        }
    }

    /// The other half of the router test in `tests/integration/console.rs` (which
    /// requests every pattern of [`ROUTES`]): no router registers a path spelled
    /// anywhere but here, and no template spells a console URL.
    #[test]
    fn routers_and_templates_take_their_paths_from_here() {
        let root = env!("CARGO_MANIFEST_DIR");
        let sources = std::fs::read_dir(format!("{root}/src/console"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n != "urls.rs"));
        let mut checked = 0;
        for path in sources {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            checked += 1;
            for (i, _) in text.match_indices(".route(") {
                let arg = text[i + ".route(".len()..].trim_start();
                assert!(
                    arg.starts_with("urls::"),
                    "{}: a route not named in urls.rs: {}",
                    path.display(),
                    &arg[..arg.len().min(60)]
                );
            }
            for literal in ["\"/console", "Redirect::to(\""] {
                assert!(
                    !text.contains(literal),
                    "{}: spells a console URL ({literal}…); name it in urls.rs",
                    path.display()
                );
            }
        }
        assert!(checked > 10, "the console's sources were not found");
        let templates = walk(&format!("{root}/../templates"));
        assert!(templates.len() > 10, "the templates were not found");
        for path in templates {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                !text.contains("/console"),
                "{}: spells a console URL; use urls:: in the template",
                path.display()
            );
        }
    }

    fn walk(dir: &str) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path.to_string_lossy()));
            } else if path.extension().is_some_and(|e| e == "html") {
                out.push(path);
            }
        }
        out
    }
}
