//! Admin sign-in throttling (operations.md §9): at most [`USERNAME_LIMIT`] failed
//! sign-ins per username per minute and [`ADDRESS_LIMIT`] per client address per ten
//! minutes, across every process (the counters live in the database). A signed-in
//! admin's re-checks count the same: a wrong current password at a password change, a
//! wrong code when turning MFA off.
//!
//! An attempt first reserves a place in both counters (one conditional upsert each, in
//! one transaction), so of many concurrent guesses only as many as the limits allow are
//! judged, and a refused one never reaches argon2. A failure keeps its place; a success
//! gives the address's place back and clears the username's failures (as Nakama's
//! console does: whoever knows the password starts afresh); an attempt that was never
//! judged (the hashing places were full, a database error, a missing second factor after
//! a right password) gives both back. Windows are fixed, aligned to their length on the
//! service clock (so a test moving the clock lifts them, like every time rule).

use crate::client_addr::LimitKey;
use crate::context::AppContext;
use crate::db::{self, sign_in_failures::Counter};
use crate::message::msg;
use crate::{Error, Result};

/// Failed sign-ins per username in [`USERNAME_WINDOW_MS`].
pub const USERNAME_LIMIT: i64 = 5;
pub const USERNAME_WINDOW_MS: i64 = 60_000;
/// Failed sign-ins per client address (IPv4, or IPv6 /64) in [`ADDRESS_WINDOW_MS`].
pub const ADDRESS_LIMIT: i64 = 10;
pub const ADDRESS_WINDOW_MS: i64 = 600_000;

/// The counter key of a submitted username, normalised as usernames are (trimmed). Only
/// a hash is stored: people type passwords into username fields.
pub fn username_key(username: &str) -> String {
    format!(
        "user:{}",
        crate::tokens::sha256_hex(username.trim().as_bytes())
    )
}

fn address_key(client: LimitKey) -> String {
    format!("addr:{client}")
}

/// One counter's key and window at `now_ms`.
struct Place {
    key: String,
    window_start_ms: i64,
    window_end_ms: i64,
}

impl Place {
    fn at(key: String, window_ms: i64, now_ms: i64) -> Self {
        let window_start_ms = now_ms - now_ms.rem_euclid(window_ms);
        Self {
            key,
            window_start_ms,
            window_end_ms: window_start_ms + window_ms,
        }
    }

    fn retry_after_secs(&self, now_ms: i64) -> u64 {
        crate::error::retry_after_secs(self.window_end_ms - now_ms)
    }
}

pub use crate::attempt_limiter::AttemptLimiter;

/// The places an attempt holds while it is judged; settle it with one of its methods.
#[must_use = "a reservation must be settled: failed, succeeded, confirmed or unjudged"]
pub struct Reservation {
    username: Place,
    address: Place,
}

/// Reserves a place for an attempt on `username` from `client`; 429 RATE_LIMITED with
/// `Retry-After` when either counter is full.
pub async fn reserve(ctx: &AppContext, username: &str, client: LimitKey) -> Result<Reservation> {
    ctx.sign_in_attempts.check(client)?;
    let now = ctx.clock.now_ms();
    // Sweeping ended windows here keeps the table bounded without a timer task (the
    // limiter above bounds how often one address gets here); its own transaction, so it
    // never holds locks the reservation waits on.
    if let Err(e) = db::sign_in_failures::delete_expired(&ctx.db, now).await {
        tracing::warn!(error = %e, "could not sweep ended sign-in throttle windows");
    }
    let username = Place::at(username_key(username), USERNAME_WINDOW_MS, now);
    let address = Place::at(address_key(client), ADDRESS_WINDOW_MS, now);
    let mut tx = ctx.db.begin().await?;
    // Always the username first, then the address: one lock order for every attempt.
    for (place, limit) in [(&username, USERNAME_LIMIT), (&address, ADDRESS_LIMIT)] {
        let taken = db::sign_in_failures::reserve(
            &mut tx,
            &Counter {
                key: &place.key,
                window_start_ms: place.window_start_ms,
                expires_at_ms: place.window_end_ms,
                limit,
            },
        )
        .await?;
        if !taken {
            // Dropping the transaction rolls back the other counter's place.
            return Err(Error::RateLimited {
                message: msg::TOO_MANY_FAILED_SIGN_INS_TRY_AGAIN_LATER,
                retry_after_secs: place.retry_after_secs(now),
            });
        }
    }
    tx.commit().await?;
    Ok(Reservation { username, address })
}

impl Reservation {
    /// A failed attempt keeps both places until their windows end.
    pub fn failed(self) {}

    /// A successful sign-in: the username starts afresh, the address gets its place back.
    pub async fn succeeded(self, ctx: &AppContext) {
        if let Err(e) = db::sign_in_failures::clear(&ctx.db, &self.username.key).await {
            tracing::warn!(error = %e, "could not clear a username's sign-in failures");
        }
        self.give_back(ctx, &[&self.address]).await;
    }

    /// A right password or code outside a sign-in (a signed-in admin changing their
    /// password or turning MFA off): both places go back, and the username's earlier
    /// failures stay (this proves the secret to a session, it signs nobody in).
    pub async fn confirmed(self, ctx: &AppContext) {
        self.give_back(ctx, &[&self.username, &self.address]).await;
    }

    /// An attempt that was not judged gives both places back.
    pub async fn unjudged(self, ctx: &AppContext) {
        self.give_back(ctx, &[&self.username, &self.address]).await;
    }

    async fn give_back(&self, ctx: &AppContext, places: &[&Place]) {
        for place in places {
            if let Err(e) =
                db::sign_in_failures::release(&ctx.db, &place.key, place.window_start_ms).await
            {
                tracing::warn!(error = %e, "could not give a sign-in throttle place back");
            }
        }
    }
}

/// Proves that the signed-in admin knows the account's password before a change that
/// a stolen session must not make (a new password, MFA set up, on or off): judged
/// under the sign-in throttle of the admin's username and address, so a wrong one
/// counts as a failed sign-in and a throttled attempt never reaches argon2. 401
/// `UNAUTHORIZED` when wrong, 429 when throttled.
pub async fn confirm_current_password(
    ctx: &AppContext,
    actor: &crate::services::admin_identity::AdminPrincipal,
    current_password: &str,
    client: LimitKey,
) -> Result<()> {
    let row = db::admins::get(&ctx.db, &actor.id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ADMIN_NOT_FOUND))?;
    let reservation = reserve(ctx, &row.username, client).await?;
    let matches = match crate::password::verify(
        current_password.to_string(),
        Some(row.password_hash.clone()),
    )
    .await
    {
        Ok(matches) => matches,
        Err(e) => {
            reservation.unjudged(ctx).await;
            return Err(e);
        }
    };
    if !matches {
        reservation.failed();
        return Err(Error::unauthorized(msg::CURRENT_PASSWORD_IS_WRONG));
    }
    reservation.confirmed(ctx).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_count_trimmed_and_hashed() {
        assert_eq!(username_key(" admin "), username_key("admin"));
        assert_ne!(username_key("Admin"), username_key("admin"));
        let key = username_key("hunter2-typed-in-the-wrong-field");
        assert!(key.starts_with("user:") && !key.contains("hunter2"));
        assert_eq!(key.len(), 5 + 64);
    }

    #[test]
    fn windows_align_to_their_length_and_retry_after_rounds_up() {
        let place = Place::at("k".into(), 60_000, 125_500);
        assert_eq!(
            (place.window_start_ms, place.window_end_ms),
            (120_000, 180_000)
        );
        assert_eq!(place.retry_after_secs(125_500), 55);
        assert_eq!(place.retry_after_secs(179_999), 1);
        assert_eq!(place.retry_after_secs(180_000), 1);
    }
}
