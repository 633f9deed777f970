//! The sign-in provider catalogue as players see it, and the availability check every
//! sign-in route makes (stored flag, then server configuration).

use serde::Serialize;
use utoipa::ToSchema;

use crate::context::AppContext;
use crate::db;
use crate::domain::identity::{Platform, ProviderKind};
use crate::message::msg;
use crate::{Error, Result};

/// Provider ids whose sign-in this server performs.
pub const PHONE_SMS: &str = "phone_sms";
pub const HUAWEI: &str = "huawei";
pub const APPLE: &str = "apple";

/// The `platform` of `GET /v1/auth/providers`.
fn parse_platform(raw: &str) -> Result<Platform> {
    Platform::parse(raw)
        .ok_or_else(|| Error::validation(msg::PLATFORM_MUST_BE_IOS_ANDROID_OR_HARMONY))
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderEntry {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ProviderKind,
    /// Present for third-party providers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon_key: Option<String>,
    pub enabled: bool,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ProviderList {
    pub providers: Vec<ProviderEntry>,
}

/// Whether this server is configured to perform a provider's sign-in; providers that
/// sign in through their own SDK flows (wechat, qq) need nothing here.
pub fn is_configured(ctx: &AppContext, id: &str) -> bool {
    match id {
        PHONE_SMS => ctx.providers.sms.is_configured(),
        HUAWEI => ctx.providers.huawei.is_some(),
        APPLE => ctx.providers.apple.is_some(),
        _ => true,
    }
}

/// `GET /v1/auth/providers?platform=`: read from the database on every call so an
/// admin's toggle shows at once in every process.
pub async fn list_for_platform(ctx: &AppContext, platform: &str) -> Result<ProviderList> {
    let platform = parse_platform(platform)?;
    let rows = db::providers::list(&ctx.db).await?;
    let providers = rows
        .into_iter()
        .filter(|r| {
            r.platforms
                .split(',')
                .any(|p| p.trim() == platform.as_str())
        })
        .map(|r| ProviderEntry {
            enabled: r.enabled && is_configured(ctx, &r.id),
            icon_key: if r.kind == ProviderKind::ThirdParty {
                r.icon_key
            } else {
                None
            },
            id: r.id,
            name: r.name,
            kind: r.kind,
        })
        .collect();
    Ok(ProviderList { providers })
}

/// Refuses a sign-in through a provider an admin disabled (403) or this server is not
/// configured for (503).
pub async fn ensure_available(ctx: &AppContext, id: &str) -> Result<()> {
    if !db::providers::is_enabled(&ctx.db, id).await? {
        return Err(Error::forbidden(msg::sign_in_with_provider_is_disabled(id)));
    }
    if !is_configured(ctx, id) {
        return Err(Error::ServiceUnavailable(
            msg::sign_in_with_provider_is_not_configured_on_this_server(id),
        ));
    }
    Ok(())
}
