//! The OpenAPI 3.1 document of the admin API.

use std::sync::Arc;

use axum::routing::get;
use axum::{Json, Router};
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

/// `GET /v1/admin/openapi.json`.
pub fn serve(api: utoipa::openapi::OpenApi) -> Router<AppState> {
    let api = Arc::new(api);
    Router::new().route(
        "/v1/admin/openapi.json",
        get(move || {
            let api = Arc::clone(&api);
            async move { Json(api) }
        }),
    )
}
