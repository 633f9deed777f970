//! Attempts per client address in this process (a token bucket per address).

use std::num::NonZeroU32;

use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::client_addr::LimitKey;
use crate::message::msg;
use crate::{Error, Result};

/// Sign-in attempts per client address and minute in this process, before any database
/// work: the database counters hold across processes, but each check of them is a
/// write, and a flood of attempts must not become a flood of writes (on SQLite they
/// share the one writer with gameplay). The sign-in routes' limit
/// (`RATE_LIMIT_AUTH_PER_MINUTE`), as on the player API.
pub struct AttemptLimiter(DefaultKeyedRateLimiter<LimitKey>);

impl AttemptLimiter {
    pub fn per_minute(per_minute: u32) -> Self {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Self(RateLimiter::keyed(Quota::per_minute(n)))
    }

    /// 429 RATE_LIMITED with `Retry-After` once `client`'s bucket is empty.
    pub fn check(&self, client: LimitKey) -> Result<()> {
        self.0.check_key(&client).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            Error::RateLimited {
                message: msg::TOO_MANY_SIGN_IN_ATTEMPTS_SLOW_DOWN,
                retry_after_secs: wait.as_secs() + 1,
            }
        })
    }

    /// Forgets addresses whose buckets are full again (bounded memory).
    pub fn retain_recent(&self) {
        self.0.retain_recent();
    }
}
