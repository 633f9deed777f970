//! The HTML console's cookie sessions, shared by every admin-console process (the
//! console's session store calls these; it never reaches the data layer itself).
//! Expiry instants are wall-clock milliseconds, chosen by the caller.
//!
//! A session is stored under the SHA-256 of its id, as refresh tokens are: the id is
//! the cookie's whole secret (128 random bits, so no slow hash is needed), and a dump of
//! the table signs nobody in.

use crate::Result;
use crate::context::AppContext;
use crate::db;
use crate::tokens::hash_token;

/// The key a session with cookie id `id` is stored under.
pub fn stored_id(id: &str) -> String {
    hash_token(id)
}

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
    Ok(db::console_sessions::create(&ctx.db, &stored_id(id), data, expires_at_ms).await?)
}

/// Updates an existing session; false when it is gone (never brought back: a session
/// deleted while a request was in flight stays deleted).
pub async fn save(ctx: &AppContext, id: &str, data: &str, expires_at_ms: i64) -> Result<bool> {
    Ok(db::console_sessions::save(&ctx.db, &stored_id(id), data, expires_at_ms).await?)
}

/// A live session's data and expiry.
pub async fn load(ctx: &AppContext, id: &str, now_ms: i64) -> Result<Option<(String, i64)>> {
    Ok(db::console_sessions::load(&ctx.db, &stored_id(id), now_ms).await?)
}

pub async fn delete(ctx: &AppContext, id: &str) -> Result<()> {
    Ok(db::console_sessions::delete(&ctx.db, &stored_id(id)).await?)
}
