//! Where the JWT secrets come from: the environment, or (outside production) a value
//! generated once and stored in the database so every process and restart agrees.

use crate::clock::Clock;
use crate::config::Settings;
use crate::db::{self, Db};
use crate::tokens::random_token;

/// The player and admin signing secrets.
pub async fn jwt_secrets(
    settings: &Settings,
    db: &Db,
    clock: &Clock,
) -> anyhow::Result<(String, String)> {
    let player = resolve(
        db,
        clock,
        settings.jwt_secret.as_ref().map(|s| s.expose()),
        "jwt_secret",
    )
    .await?;
    let admin = resolve(
        db,
        clock,
        settings.admin_jwt_secret.as_ref().map(|s| s.expose()),
        "admin_jwt_secret",
    )
    .await?;
    Ok((player, admin))
}

async fn resolve(
    db: &Db,
    clock: &Clock,
    configured: Option<&str>,
    name: &str,
) -> anyhow::Result<String> {
    if let Some(value) = configured {
        return Ok(value.to_string());
    }
    let fresh = !db::secrets::exists(db, name).await?;
    let value = db::secrets::get_or_insert(db, name, &random_token(48), clock.now_ms()).await?;
    if fresh {
        tracing::info!(
            secret = name,
            "generated a signing secret and stored it in the database"
        );
    }
    Ok(value)
}
