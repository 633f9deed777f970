//! The audit log: every admin write records who did what to which target, with the state
//! before and after, in the write's own transaction (no write without its entry). Admin
//! sign-ins are there too: each success (in its own transaction) and each failure the
//! throttle let through to be judged, with the client's address.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::clock::from_ms;
use crate::context::AppContext;
use crate::db::{self, Tx, audit::NewAuditEntry};
use crate::envelope::Pagination;
use crate::ids::AdminId;
use crate::message::msg;
use crate::services::admin_identity::{AdminPrincipal, AdminRole};
use crate::{Error, Result};

/// What one admin write did.
pub struct Write<'a> {
    /// e.g. `question.publish`, `player.ban`.
    pub action: &'a str,
    /// e.g. `question`, `player`.
    pub target_type: &'a str,
    pub target_id: Option<&'a str>,
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
}

/// The actor of what the service does by itself, in the audit log.
pub fn system() -> AdminPrincipal {
    AdminPrincipal {
        id: AdminId::from_trusted("system"),
        username: "system".into(),
        role: AdminRole::Admin,
        mfa_enabled: false,
        language: None,
    }
}

/// The actor of a failed sign-in: whoever it was is not known (the account it named,
/// if any, is the entry's target).
pub fn anonymous() -> AdminPrincipal {
    AdminPrincipal {
        id: AdminId::from_trusted("anonymous"),
        username: "anonymous".into(),
        role: AdminRole::Admin,
        mfa_enabled: false,
        language: None,
    }
}

/// Records one admin write inside its transaction.
pub async fn record(
    tx: &mut Tx,
    ctx: &AppContext,
    actor: &AdminPrincipal,
    w: Write<'_>,
) -> Result<()> {
    let id = Uuid::new_v4().to_string();
    let before = w.before.map(|v| v.to_string());
    let after = w.after.map(|v| v.to_string());
    db::audit::insert(
        tx,
        &NewAuditEntry {
            id: &id,
            actor_id: actor.id.as_str(),
            actor_username: &actor.username,
            action: w.action,
            target_type: w.target_type,
            target_id: w.target_id,
            before: before.as_deref(),
            after: after.as_deref(),
            now_ms: ctx.clock.now_ms(),
        },
    )
    .await?;
    Ok(())
}

/// `page` (≥ 1) and `limit` (1-50, default 20) of every admin list.
#[derive(Clone, Copy, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// ≥ 1, default 1.
    pub page: Option<i64>,
    /// 1-50, default 20.
    pub limit: Option<i64>,
}

impl PageQuery {
    /// (page, limit, offset), or 400 when out of range (never silently clamped).
    pub fn resolve(&self) -> Result<(i64, i64, i64)> {
        let page = self.page.unwrap_or(1);
        let limit = self.limit.unwrap_or(20);
        if page < 1 {
            return Err(Error::validation(msg::PAGE_MUST_BE_AT_LEAST_1));
        }
        if !(1..=50).contains(&limit) {
            return Err(Error::validation(msg::LIMIT_MUST_BE_1_50));
        }
        Ok((page, limit, crate::envelope::page_offset(page, limit)?))
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: String,
    pub actor_id: String,
    pub actor_username: String,
    pub action: String,
    pub target_type: String,
    pub target_id: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub before: Option<serde_json::Value>,
    #[schema(value_type = Option<Object>)]
    pub after: Option<serde_json::Value>,
    pub created_at: DateTime<Utc>,
}

/// `GET /v1/admin/audit-log`.
pub async fn list(ctx: &AppContext, q: &PageQuery) -> Result<(Vec<AuditEntry>, Pagination)> {
    let (page, limit, offset) = q.resolve()?;
    let (rows, total) = crate::lagging_read!(ctx, |db| db::audit::page(db, limit, offset).await)?;
    let parse = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
    let entries = rows
        .into_iter()
        .map(|r| AuditEntry {
            id: r.id,
            actor_id: r.actor_id,
            actor_username: r.actor_username,
            action: r.action,
            target_type: r.target_type,
            target_id: r.target_id,
            before: parse(r.before_state),
            after: parse(r.after_state),
            created_at: from_ms(r.created_at),
        })
        .collect();
    Ok((entries, Pagination { total, page, limit }))
}

/// Records one admin write inside its transaction and commits it: the last step of
/// almost every admin write, so the entry and the write land together or not at all.
pub async fn record_and_commit(
    mut tx: Tx,
    ctx: &AppContext,
    actor: &AdminPrincipal,
    w: Write<'_>,
) -> Result<()> {
    record(&mut tx, ctx, actor, w).await?;
    tx.commit().await?;
    Ok(())
}
