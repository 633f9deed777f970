//! The OpenAPI 3.1 document of the admin API.

use std::sync::Arc;

use axum::routing::get;
use axum::{Json, Router};
use utoipa::openapi::RefOr;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Quiz Game — Admin API",
        description = "Administration endpoints for scripts and the console. Every response is the envelope `{success, data, error, pagination?, meta?}`.",
        version = "1.0.0"
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "health", description = "Liveness and readiness"),
        (name = "auth", description = "Admin sign-in and tokens"),
        (name = "mfa", description = "The signed-in admin's TOTP second factor"),
        (name = "admins", description = "Admin accounts"),
        (name = "questions", description = "The question bank and its review workflow"),
        (name = "categories", description = "Categories (tracks)"),
        (name = "knowledge-cards", description = "Knowledge cards"),
        (name = "skill-tree", description = "Chapter nodes of the tracks"),
        (name = "players", description = "Player moderation"),
        (name = "stats", description = "Statistics"),
        (name = "feedback", description = "Player feedback"),
        (name = "auth-providers", description = "Sign-in provider toggles"),
        (name = "audit", description = "The audit log of admin writes"),
        (name = "media", description = "The media library: questions' images, audio and video"),
        (name = "compliance", description = "The licensed-game profile's statutory holiday calendar"),
    )
)]
pub struct ApiDoc;

/// The `admin_jwt` bearer scheme referenced by authenticated routes.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "admin_jwt",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

/// The routes `ADMIN_REQUIRE_MFA` leaves open to a super_admin without MFA.
const MFA_SETUP_PATHS: [&str; 3] = [
    "/v1/admin/mfa",
    "/v1/admin/mfa/setup",
    "/v1/admin/mfa/enable",
];

/// With `ADMIN_REQUIRE_MFA`, every signed-in route but the MFA set-up answers 403 to a
/// super_admin without MFA: documented once here, on every signed-in operation that
/// does not list a 403 of its own (run on the finished document, routes included).
fn document_mfa_gate(openapi: &mut utoipa::openapi::OpenApi) {
    for (path, item) in openapi.paths.paths.iter_mut() {
        if MFA_SETUP_PATHS.contains(&path.as_str()) {
            continue;
        }
        for op in [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.patch,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
        {
            let signed_in = op.security.as_ref().is_some_and(|s| !s.is_empty());
            let responses = &mut op.responses.responses;
            if !signed_in || responses.contains_key("403") {
                continue;
            }
            // The 401 answer is the same envelope: reuse its content.
            let Some(RefOr::T(unauthorized)) = responses.get("401").cloned() else {
                continue;
            };
            let mut forbidden = unauthorized;
            forbidden.description =
                "ADMIN_REQUIRE_MFA is on and this super_admin has no MFA yet (FORBIDDEN)"
                    .to_string();
            responses.insert("403".to_string(), RefOr::T(forbidden));
        }
    }
}

/// `GET /v1/admin/openapi.json`.
pub fn serve(mut api: utoipa::openapi::OpenApi) -> Router<AppState> {
    document_mfa_gate(&mut api);
    let mut doc = serde_json::to_value(&api).unwrap_or_default();
    shared::envelope::finish_document(&mut doc);
    let api = Arc::new(doc);
    Router::new().route(
        "/v1/admin/openapi.json",
        get(move || {
            let api = Arc::clone(&api);
            async move { Json(api) }
        }),
    )
}
