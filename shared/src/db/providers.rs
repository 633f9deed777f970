//! `auth_providers`: the sign-in provider catalogue (seeded; admins toggle `enabled`).

use super::{Db, read};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ProviderRow {
    pub id: String,
    pub name: String,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub icon_key: Option<String>,
    /// Comma-separated platforms.
    pub platforms: String,
    pub enabled: bool,
}

pub async fn list(db: &Db) -> sqlx::Result<Vec<ProviderRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, ProviderRow>(
            "SELECT id, name, type, icon_key, platforms, enabled FROM auth_providers ORDER BY sort_order",
        )
        .fetch_all(ex)
        .await?
    }))
}

/// The stored flag of one provider (false when unknown).
pub async fn is_enabled(db: &Db, id: &str) -> sqlx::Result<bool> {
    let enabled: Option<bool> = read!(db, |ex| {
        sqlx::query_scalar("SELECT enabled FROM auth_providers WHERE id = $1")
            .bind(id)
            .fetch_optional(ex)
            .await?
    });
    Ok(enabled.unwrap_or(false))
}
