//! Every player route, merged in one place. Paths inside `v1()` are relative to `/v1`.

pub mod app;
pub mod auth;
pub mod challenges;
pub mod feedback;
pub mod health;
pub mod leaderboards;
pub mod media;
pub mod progress;
pub mod rewards;
pub mod shop;
pub mod tracks;
pub mod users;

use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::AppState;
use crate::openapi::ApiDoc;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .nest("/v1", v1(state))
        .merge(media::router())
}

fn v1(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        // sign-in and tokens
        .merge(auth::router(&state.limiters))
        // the account itself
        .merge(users::router())
        // app-level data
        .merge(app::router())
        // the game
        .merge(tracks::router())
        .merge(challenges::router())
        .merge(progress::router())
        // the social and economic layer
        .merge(leaderboards::router())
        .merge(shop::router())
        .merge(rewards::router())
        .merge(feedback::router())
        // every write a signed-in player makes, bounded per access token
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::rate_limit::player_writes,
        ))
}
