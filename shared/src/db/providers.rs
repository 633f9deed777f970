//! `auth_providers`: the sign-in provider catalogue (seeded; admins toggle `enabled`).

use super::{Db, read};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ProviderRow {
    pub id: String,
    pub name: String,
    #[sqlx(rename = "type")]
    pub kind: crate::domain::identity::ProviderKind,
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

/// Sets the stored flag of a provider; false when there is no such provider.
pub async fn set_enabled(
    tx: &mut super::Tx,
    id: &str,
    enabled: bool,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(super::in_tx!(tx, |ex| {
        sqlx::query("UPDATE auth_providers SET enabled = $2, updated_at = $3 WHERE id = $1")
            .bind(id)
            .bind(enabled)
            .bind(now_ms)
            .execute(ex)
            .await?
            .rows_affected()
            == 1
    }))
}
