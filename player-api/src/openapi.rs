//! The OpenAPI 3.1 document of the player API.

use std::sync::Arc;

use axum::routing::get;
use axum::{Json, Router};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Quiz Game — Player API",
        description = "Mobile player endpoints. Every response is the envelope `{success, data, error, pagination?, meta?}`.",
        version = "1.0.0"
    ),
    modifiers(&BearerAuth),
    // sets named only by query parameters (their refs need the components)
    components(schemas(
        shared::services::leaderboard::BoardScope,
        shared::services::leaderboard::BoardWeek
    )),
    tags(
        (name = "health", description = "Liveness and readiness"),
        (name = "auth", description = "Sign-in and tokens"),
        (name = "users", description = "The player's own account"),
        (name = "tracks", description = "Topic tracks and their chapter nodes"),
        (name = "challenges", description = "Challenges, judged answers, knowledge cards"),
        (name = "progress", description = "Resources, preferences, check-in"),
        (name = "leaderboards", description = "Weekly leaderboards"),
        (name = "shop", description = "Shop, inventory, subscription"),
        (name = "rewards", description = "Rewarded-ad recovery"),
        (name = "feedback", description = "Player feedback"),
        (name = "app", description = "App-level data"),
        (name = "media", description = "Questions' images, audio and video files"),
    )
)]
pub struct ApiDoc;

/// The `player_jwt` bearer scheme referenced by authenticated routes.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "player_jwt",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

/// `GET /v1/openapi.json`.
pub fn serve(api: utoipa::openapi::OpenApi) -> Router<AppState> {
    let mut doc = serde_json::to_value(&api).unwrap_or_default();
    shared::envelope::finish_document(&mut doc);
    let api = Arc::new(doc);
    Router::new().route(
        "/v1/openapi.json",
        get(move || {
            let api = Arc::clone(&api);
            async move { Json(api) }
        }),
    )
}
