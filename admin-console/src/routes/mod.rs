//! Every admin route, merged in one place. Paths inside `v1()` are relative to
//! `/v1/admin`.

pub mod accounts;
pub mod auth;
pub mod catalog;
pub mod compliance;
pub mod fair_play;
pub mod health;
pub mod media;
pub mod mfa;
pub mod moderation;
pub mod question_stats;
pub mod questions;

use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::AppState;
use crate::openapi::ApiDoc;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .nest("/v1/admin", v1())
        .merge(media::files_router())
}

fn v1() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        // sign-in and tokens (open)
        .merge(auth::router())
        // the signed-in admin's MFA
        .merge(mfa::router())
        // admin accounts
        .merge(accounts::router())
        // the question bank: questions, workflow, batches, imports
        .merge(questions::router())
        // what the answers say about it: statistics per question and per day
        .merge(question_stats::router())
        // the media library: images, audio and video of questions
        .merge(media::router())
        // categories, knowledge cards, the skill tree
        .merge(catalog::router())
        // players, statistics, feedback, provider toggles, audit log
        .merge(moderation::router())
        // fair play: the review queue, decisions; the weeks' frozen standings
        .merge(fair_play::router())
        // the licensed-game profile's statutory holidays
        .merge(compliance::router())
        // tokens, TOTP secrets, recovery codes: never kept by a cache
        .layer(axum::middleware::map_response(shared::http::no_store))
}
