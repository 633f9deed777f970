//! The browsable API reference each binary serves at `/docs`: Swagger UI (vendored in
//! `static/vendor/`, compiled into the binary) over the binary's own OpenAPI document.
//! The page loads nothing from another host, and its Content-Security-Policy says so.

use crate::message::msg;
use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The vendored Swagger UI (`swagger-ui-dist` on npm); its files are under
/// `static/vendor/swagger-ui-<version>/`.
pub const SWAGGER_UI_VERSION: &str = "5.35.0";

macro_rules! vendored {
    ($file:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../static/vendor/swagger-ui-5.35.0/",
            $file
        ))
    };
}

const BUNDLE: &[u8] = vendored!("swagger-ui-bundle.js");
const STYLES: &[u8] = vendored!("swagger-ui.css");
const START: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../static/docs/api-docs.js"
));

/// Where the page's assets are served.
pub const ASSETS_PREFIX: &str = "/docs/assets/";
/// The Swagger UI script, with its version in the name (so it may be cached for long).
pub const BUNDLE_NAME: &str = "swagger-ui-bundle-5.35.0.js";
const STYLES_NAME: &str = "swagger-ui-5.35.0.css";
const START_NAME: &str = "api-docs.js";

/// Only this origin: scripts, styles, the document (fetched by the page) and the calls
/// "Try it out" makes. Images may also be `data:` URIs (Swagger UI's CSS draws its icons
/// with them); no inline script, no frame, no form.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `GET /docs` (the reference of the document at `document_url`, titled `title`) and
/// `GET /docs/assets/{file}`.
pub fn router<S>(title: &'static str, document_url: &'static str) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let page = page_html(title, document_url);
    Router::new()
        .route(
            "/docs",
            get(move || {
                let page = page.clone();
                async move { page_response(page) }
            }),
        )
        .route("/docs/assets/{file}", get(asset))
}

fn page_html(title: &str, document_url: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="{ASSETS_PREFIX}{STYLES_NAME}">
</head>
<body>
<noscript>This reference needs JavaScript; the document itself is at <a href="{document_url}">{document_url}</a>.</noscript>
<div id="swagger-ui" data-url="{document_url}"></div>
<script src="{ASSETS_PREFIX}{BUNDLE_NAME}"></script>
<script src="{ASSETS_PREFIX}{START_NAME}"></script>
</body>
</html>
"#
    )
}

fn page_response(page: String) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        page,
    )
        .into_response()
}

/// The vendored files carry their version in their names and are cached for a day; the
/// start script is not versioned and is revalidated.
async fn asset(Path(file): Path<String>) -> Response {
    let (body, content_type, cache): (&'static [u8], _, _) = match file.as_str() {
        BUNDLE_NAME => (
            BUNDLE,
            "text/javascript; charset=utf-8",
            "public, max-age=86400",
        ),
        STYLES_NAME => (STYLES, "text/css; charset=utf-8", "public, max-age=86400"),
        START_NAME => (START, "text/javascript; charset=utf-8", "no-cache"),
        _ => return crate::Error::not_found(msg::NO_SUCH_ASSET).into_response(),
    };
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_only_same_origin_assets() {
        let page = page_html("T", "/v1/openapi.json");
        assert!(
            !page.contains("http://") && !page.contains("https://"),
            "{page}"
        );
        assert!(page.contains(&format!("{ASSETS_PREFIX}{BUNDLE_NAME}")));
        assert!(BUNDLE_NAME.contains(SWAGGER_UI_VERSION));
        assert!(STYLES_NAME.contains(SWAGGER_UI_VERSION));
    }
}
