//! The OpenAPI documents as a contract a client generator accepts, and the browsable
//! reference each binary serves at `/docs`.

use std::collections::{BTreeSet, HashSet};

use reqwest::Method;
use serde_json::Value;
use tests::{Service, TestApp, both_engines};

both_engines!(
    operations_are_named_summarised_and_answer_errors_in_the_envelope,
    docs_pages_load_only_same_origin_assets,
);

const DOCUMENTS: [(Service, &str); 2] = [
    (Service::Player, "/v1/openapi.json"),
    (Service::Admin, "/v1/admin/openapi.json"),
];

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The `{name}`s of a path template.
fn template_names(path: &str) -> BTreeSet<String> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
        .collect()
}

/// A parameter, following a `$ref` into `components/parameters`.
fn resolve<'a>(doc: &'a Value, param: &'a Value) -> &'a Value {
    match param["$ref"].as_str() {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("dangling {r}")),
        None => param,
    }
}

/// True when a media type of a request body carries an example (on the media type, or on
/// its schema or the component the schema names).
fn has_example(doc: &Value, media: &Value) -> bool {
    if media.get("example").is_some() || media.get("examples").is_some() {
        return true;
    }
    let schema = &media["schema"];
    let schema = resolve(doc, schema);
    schema.get("example").is_some() || schema.get("examples").is_some()
}

/// Every operation: a unique operationId and a summary; path parameters exactly the
/// template's names (a query struct documented `in: path` fails here); the error answers
/// a route can give, each in the error envelope; an example of every request body.
async fn operations_are_named_summarised_and_answer_errors_in_the_envelope(app: TestApp) {
    for (service, url) in DOCUMENTS {
        let r = app.call(service, Method::GET, url, None, None).await;
        assert_eq!(r.status, 200);
        let doc = &r.body;
        let mut ids = HashSet::new();
        let mut failures = Vec::new();
        let paths = doc["paths"].as_object().expect("paths");
        assert!(paths.len() > 10, "{url}: {} paths", paths.len());
        for (path, item) in paths {
            let shared_params = item["parameters"].as_array().cloned().unwrap_or_default();
            for method in METHODS {
                let Some(op) = item.get(method) else { continue };
                let at = format!("{url}: {} {path}", method.to_uppercase());
                match op["operationId"].as_str() {
                    Some(id) if !id.trim().is_empty() => {
                        if !ids.insert(id.to_string()) {
                            failures.push(format!("{at}: operationId {id} repeats"));
                        }
                    }
                    _ => failures.push(format!("{at}: no operationId")),
                }
                if op["summary"].as_str().is_none_or(|s| s.trim().is_empty()) {
                    failures.push(format!("{at}: no summary"));
                }

                let params: Vec<&Value> = shared_params
                    .iter()
                    .chain(op["parameters"].as_array().into_iter().flatten())
                    .map(|p| resolve(doc, p))
                    .collect();
                let in_path: BTreeSet<String> = params
                    .iter()
                    .filter(|p| p["in"] == "path")
                    .filter_map(|p| p["name"].as_str().map(str::to_string))
                    .collect();
                let template = template_names(path);
                if in_path != template {
                    failures.push(format!(
                        "{at}: path parameters {in_path:?}, the template names {template:?}"
                    ));
                }
                let mut seen = HashSet::new();
                for p in &params {
                    let key = (p["in"].as_str(), p["name"].as_str());
                    if !seen.insert(key) {
                        failures.push(format!("{at}: parameter {key:?} twice"));
                    }
                }

                let responses = op["responses"].as_object().expect("responses");
                let has = |code: &str| responses.contains_key(code);
                for (code, answer) in responses {
                    // a 304 (a cached file still good) has no body at all
                    if code.starts_with('2') || code == "304" {
                        continue;
                    }
                    let answer = resolve(doc, answer);
                    let schema = &answer["content"]["application/json"]["schema"]["$ref"];
                    if schema != "#/components/schemas/ErrorEnvelope" {
                        failures.push(format!("{at}: {code} is not the error envelope"));
                    }
                }
                let signed_in = op["security"].as_array().is_some_and(|s| !s.is_empty());
                if signed_in && !has("401") {
                    failures.push(format!("{at}: signed in, no 401"));
                }
                if params.iter().any(|p| p["in"] == "query") && !has("400") {
                    failures.push(format!("{at}: a query, no 400"));
                }
                if path != "/health" && !has("503") {
                    failures.push(format!("{at}: no 503 (the database outage)"));
                }
                if let Some(body) = op.get("requestBody") {
                    for code in ["400", "413"] {
                        if !has(code) {
                            failures.push(format!("{at}: a request body, no {code}"));
                        }
                    }
                    let content = body["content"].as_object().expect("content");
                    for (media_type, media) in content {
                        if !has_example(doc, media) {
                            failures.push(format!("{at}: no example of its {media_type} body"));
                        }
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// `/docs` is HTML whose scripts and styles all come from this origin, under a CSP that
/// allows nothing else; the asset route serves the vendored Swagger UI.
async fn docs_pages_load_only_same_origin_assets(app: TestApp) {
    for (service, document) in DOCUMENTS {
        let r = app
            .client
            .get(app.url(service, "/docs"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let header = |name: &str| {
            r.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        assert!(header("content-type").starts_with("text/html"));
        let csp = header("content-security-policy");
        for directive in [
            "default-src 'none'",
            "script-src 'self'",
            "connect-src 'self'",
        ] {
            assert!(csp.contains(directive), "{csp}");
        }
        assert!(!csp.contains("http") && !csp.contains('*'), "{csp}");
        let html = r.text().await.unwrap();
        assert!(html.contains(&format!("data-url=\"{document}\"")), "{html}");
        let mut scripts = Vec::new();
        for attribute in ["src=\"", "href=\""] {
            for rest in html.split(attribute).skip(1) {
                let target = rest.split('"').next().unwrap();
                assert!(
                    target.starts_with('/') && !target.starts_with("//"),
                    "{target} is not on this origin"
                );
                if target.ends_with(".js") {
                    scripts.push(target.to_string());
                }
            }
        }
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "{html}"
        );
        assert_eq!(scripts.len(), 2, "{scripts:?}");
        for script in &scripts {
            let asset = app
                .client
                .get(app.url(service, script))
                .send()
                .await
                .unwrap();
            assert_eq!(asset.status(), 200, "{script}");
            let content_type = asset.headers()["content-type"]
                .to_str()
                .unwrap()
                .to_string();
            assert!(
                content_type.starts_with("text/javascript"),
                "{content_type}"
            );
            let body = asset.text().await.unwrap();
            assert!(body.contains("SwaggerUIBundle"), "{script}");
        }
        let missing = app
            .call(service, Method::GET, "/docs/assets/nope.js", None, None)
            .await;
        missing.assert_error(404, "NOT_FOUND");
    }
}
