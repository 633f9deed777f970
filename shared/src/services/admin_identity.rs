//! Who an admin is, as sign-in, MFA, the audit log and the admin screens see it (the
//! types of their own module, so those services depend on it rather than on each other).

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::clock::from_ms;
use crate::db::admins::AdminRow;
use crate::ids::AdminId;

pub use crate::domain::admin_role::AdminRole;

/// The signed-in admin behind a request.
#[derive(Clone, Debug)]
pub struct AdminPrincipal {
    pub id: AdminId,
    pub username: String,
    pub role: AdminRole,
    /// TOTP is on for this admin.
    pub mfa_enabled: bool,
    /// The console language the admin chose; None follows the browser.
    pub language: Option<crate::i18n::Lang>,
}

/// Admin account as the API shows it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminAccount {
    pub id: AdminId,
    pub username: String,
    pub role: AdminRole,
    /// 0 or 1.
    pub is_active: i64,
    pub last_login_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// TOTP is on (sign-in needs a code).
    pub mfa_enabled: bool,
}

impl AdminAccount {
    pub fn from_row(row: &AdminRow) -> Self {
        Self {
            id: row.id.clone(),
            username: row.username.clone(),
            role: row.role,
            is_active: i64::from(row.is_active),
            last_login_at: row.last_login_at.map(from_ms),
            created_at: from_ms(row.created_at),
            updated_at: from_ms(row.updated_at),
            mfa_enabled: row.mfa_enabled,
        }
    }
}
