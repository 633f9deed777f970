//! Where the server's secrets come from (the JWT secrets, `SECRETS_KEY`): the
//! environment, or (outside production) a value generated once and stored in the
//! database so every process and restart agrees.

use anyhow::Context as _;

use crate::clock::Clock;
use crate::config::Settings;
use crate::db::{self, Db};
use crate::secrets_key::SecretsKey;
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

/// The key that seals stored secrets at rest. Outside production without `SECRETS_KEY`
/// it lives beside the data it seals (so a development database's dump holds both);
/// production requires the variable (the configuration refuses to start without it).
pub async fn secrets_key(
    settings: &Settings,
    db: &Db,
    clock: &Clock,
) -> anyhow::Result<SecretsKey> {
    let configured = settings.secrets_key.as_ref().map(|s| s.expose());
    let text = resolve_with(
        db,
        clock,
        configured,
        "secrets_key",
        SecretsKey::generate_base64,
    )
    .await?;
    SecretsKey::from_base64(&text)
        .map_err(anyhow::Error::msg)
        .context("the stored development secrets_key")
}

async fn resolve(
    db: &Db,
    clock: &Clock,
    configured: Option<&str>,
    name: &str,
) -> anyhow::Result<String> {
    resolve_with(db, clock, configured, name, || random_token(48)).await
}

async fn resolve_with(
    db: &Db,
    clock: &Clock,
    configured: Option<&str>,
    name: &str,
    generate: impl FnOnce() -> String,
) -> anyhow::Result<String> {
    if let Some(value) = configured {
        return Ok(value.to_string());
    }
    let fresh = !db::secrets::exists(db, name).await?;
    let value = db::secrets::get_or_insert(db, name, &generate(), clock.now_ms()).await?;
    if fresh {
        tracing::info!(
            secret = name,
            "generated a server secret and stored it in the database"
        );
    }
    Ok(value)
}
