//! Per-player limits of a few actions in fixed windows (real-name checks, minor-mode
//! changes), counted in the database so they hold across processes.

use crate::Result;
use crate::context::AppContext;
use crate::db;
use crate::ids::PlayerId;

/// Takes a place in the player's counter `scope` of fixed windows of `window_ms`; `Err`
/// with the wait in milliseconds when the window's `limit` places are taken.
pub async fn take(
    ctx: &AppContext,
    scope: &str,
    player_id: &PlayerId,
    window_ms: i64,
    limit: i64,
) -> Result<std::result::Result<(), i64>> {
    let now_ms = ctx.clock.now_ms();
    let window_start_ms = now_ms - now_ms.rem_euclid(window_ms);
    let key = format!("{scope}:{player_id}");
    let counter = db::request_counters::Counter {
        key: &key,
        window_start_ms,
        expires_at_ms: window_start_ms + window_ms,
        limit,
    };
    let mut tx = ctx.db.begin().await?;
    let taken = db::request_counters::take_place(&mut tx, &counter).await?;
    tx.commit().await?;
    Ok(if taken {
        Ok(())
    } else {
        Err((window_start_ms + window_ms - now_ms).max(1))
    })
}
