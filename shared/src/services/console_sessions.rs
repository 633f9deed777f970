//! The HTML console's cookie sessions, shared by every admin-console process (the
//! console's session store calls these; it never reaches the data layer itself).
//! Expiry instants are wall-clock milliseconds, chosen by the caller.

use crate::Result;
use crate::context::AppContext;
use crate::db;

/// Stores a new session; false when the id is already taken (the caller draws another).
/// Ended sessions are swept first, which keeps the table bounded without a timer task.
pub async fn create(
    ctx: &AppContext,
    id: &str,
    data: &str,
    expires_at_ms: i64,
    now_ms: i64,
) -> Result<bool> {
    db::console_sessions::delete_expired(&ctx.db, now_ms).await?;
    Ok(db::console_sessions::create(&ctx.db, id, data, expires_at_ms).await?)
}

/// Updates an existing session; false when it is gone (never brought back: a session
/// deleted while a request was in flight stays deleted).
pub async fn save(ctx: &AppContext, id: &str, data: &str, expires_at_ms: i64) -> Result<bool> {
    Ok(db::console_sessions::save(&ctx.db, id, data, expires_at_ms).await?)
}

/// A live session's data and expiry.
pub async fn load(ctx: &AppContext, id: &str, now_ms: i64) -> Result<Option<(String, i64)>> {
    Ok(db::console_sessions::load(&ctx.db, id, now_ms).await?)
}

pub async fn delete(ctx: &AppContext, id: &str) -> Result<()> {
    Ok(db::console_sessions::delete(&ctx.db, id).await?)
}
