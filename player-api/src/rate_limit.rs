//! Per-process request rate limits of the sign-in routes (`governor`): one bucket per
//! route per client address (an IPv4 address or an IPv6 /64, found by
//! [`shared::client_addr`]).

use std::num::NonZeroU32;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use shared::Error;
use shared::client_addr::{ClientAddressRule, LimitKey};
use shared::message::msg;

/// One route's limiter.
pub struct RouteLimiter {
    limiter: DefaultKeyedRateLimiter<LimitKey>,
    client_address: ClientAddressRule,
}

impl RouteLimiter {
    pub fn per_minute(per_minute: u32, client_address: ClientAddressRule) -> Arc<Self> {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Arc::new(Self {
            limiter: RateLimiter::keyed(Quota::per_minute(n)),
            client_address,
        })
    }

    /// Forgets addresses whose buckets are full again (bounded memory).
    pub fn retain_recent(&self) {
        self.limiter.retain_recent();
    }
}

/// The limiters of every limited route.
pub struct Limiters {
    pub guest: Arc<RouteLimiter>,
    pub refresh: Arc<RouteLimiter>,
    pub huawei: Arc<RouteLimiter>,
    pub apple: Arc<RouteLimiter>,
    pub phone: Arc<RouteLimiter>,
    pub send_code: Arc<RouteLimiter>,
    pub link: Arc<RouteLimiter>,
}

impl Limiters {
    pub fn new(settings: &shared::config::Settings) -> Self {
        let auth = settings.limits.auth_per_minute;
        let rule = settings.client_address;
        Self {
            guest: RouteLimiter::per_minute(auth, rule),
            refresh: RouteLimiter::per_minute(auth, rule),
            huawei: RouteLimiter::per_minute(auth, rule),
            apple: RouteLimiter::per_minute(auth, rule),
            phone: RouteLimiter::per_minute(auth, rule),
            send_code: RouteLimiter::per_minute(settings.limits.send_code_per_minute, rule),
            link: RouteLimiter::per_minute(auth, rule),
        }
    }

    pub fn retain_recent(&self) {
        for l in [
            &self.guest,
            &self.refresh,
            &self.huawei,
            &self.apple,
            &self.phone,
            &self.send_code,
            &self.link,
        ] {
            l.retain_recent();
        }
    }
}

/// Middleware: 429 RATE_LIMITED with `Retry-After` once the route's bucket is empty.
pub async fn limit(State(limiter): State<Arc<RouteLimiter>>, req: Request, next: Next) -> Response {
    let key = limiter
        .client_address
        .limit_key_of(req.headers(), req.extensions());
    match limiter.limiter.check_key(&key) {
        Ok(()) => next.run(req).await,
        Err(not_until) => {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            Error::RateLimited {
                message: msg::TOO_MANY_REQUESTS_SLOW_DOWN,
                retry_after_secs: wait.as_secs() + 1,
            }
            .into_response()
        }
    }
}
