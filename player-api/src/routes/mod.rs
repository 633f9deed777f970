//! Every player route, merged in one place. Paths inside `v1()` are relative to `/v1`.

pub mod app;
pub mod auth;
pub mod health;

use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::AppState;
use crate::openapi::ApiDoc;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(health::router())
        .nest("/v1", v1())
}

fn v1() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        // sign-in and tokens
        .merge(auth::router())
        // app-level data
        .merge(app::router())
}
