//! `audit_log`: every admin write, with actor, target and the state before and after.

use super::paging::{self, Counted};
use super::{Db, Tx, in_tx};

pub struct NewAuditEntry<'a> {
    pub id: &'a str,
    pub actor_id: &'a str,
    pub actor_username: &'a str,
    pub action: &'a str,
    pub target_type: &'a str,
    pub target_id: Option<&'a str>,
    pub before: Option<&'a str>,
    pub after: Option<&'a str>,
    pub now_ms: i64,
}

pub async fn insert(tx: &mut Tx, e: &NewAuditEntry<'_>) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO audit_log (id, actor_id, actor_username, action, target_type, target_id,
                                    before_state, after_state, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(e.id)
        .bind(e.actor_id)
        .bind(e.actor_username)
        .bind(e.action)
        .bind(e.target_type)
        .bind(e.target_id)
        .bind(e.before)
        .bind(e.after)
        .bind(e.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AuditRow {
    pub id: String,
    pub actor_id: String,
    pub actor_username: String,
    pub action: String,
    pub target_type: String,
    pub target_id: Option<String>,
    pub before_state: Option<String>,
    pub after_state: Option<String>,
    pub created_at: i64,
}

/// Newest first ([`paging`]).
pub async fn page(db: &Db, limit: i64, offset: i64) -> sqlx::Result<(Vec<AuditRow>, i64)> {
    paging::newest_first(
        db,
        Counted::AuditLog,
        "SELECT id, actor_id, actor_username, action, target_type, target_id, before_state,
                after_state, created_at
         FROM audit_log",
        limit,
        offset,
    )
    .await
}

/// A change to an admin's own account, as its next sign-in lists it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SecurityChange {
    pub action: String,
    pub actor_username: String,
    pub created_at: i64,
}

/// The changes to admin `admin_id`'s password and MFA recorded after `since_ms`, the
/// latest first, at most `limit` (index `audit_log_target`).
pub async fn security_changes(
    tx: &mut Tx,
    admin_id: &str,
    since_ms: i64,
    limit: i64,
) -> sqlx::Result<Vec<SecurityChange>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, SecurityChange>(
            "SELECT action, actor_username, created_at FROM audit_log
             WHERE target_type = 'admin' AND target_id = $1 AND created_at > $2
               AND action IN ('admin.change_password', 'admin.reset_password',
                              'admin.mfa_setup', 'admin.mfa_enable', 'admin.mfa_disable',
                              'admin.mfa_reset', 'admin.mfa_lock')
             ORDER BY created_at DESC LIMIT $3",
        )
        .bind(admin_id)
        .bind(since_ms)
        .bind(limit)
        .fetch_all(ex)
        .await?
    }))
}
