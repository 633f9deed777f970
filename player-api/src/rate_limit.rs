//! Per-process request rate limits of the sign-in routes (`governor`): one bucket per
//! route per client address. The client address is the socket peer, or the first
//! `X-Forwarded-For` entry when `TRUST_FORWARDED_FOR=true`.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use shared::Error;

/// One route's limiter.
pub struct RouteLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    trust_forwarded_for: bool,
}

impl RouteLimiter {
    pub fn per_minute(per_minute: u32, trust_forwarded_for: bool) -> Arc<Self> {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Arc::new(Self {
            limiter: RateLimiter::keyed(Quota::per_minute(n)),
            trust_forwarded_for,
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
        let trust = settings.trust_forwarded_for;
        Self {
            guest: RouteLimiter::per_minute(auth, trust),
            refresh: RouteLimiter::per_minute(auth, trust),
            huawei: RouteLimiter::per_minute(auth, trust),
            apple: RouteLimiter::per_minute(auth, trust),
            phone: RouteLimiter::per_minute(auth, trust),
            send_code: RouteLimiter::per_minute(settings.limits.send_code_per_minute, trust),
            link: RouteLimiter::per_minute(auth, trust),
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

/// The address a request is counted against.
pub fn client_ip(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    trust_forwarded_for: bool,
) -> Option<IpAddr> {
    if trust_forwarded_for
        && let Some(first) = headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.trim().parse::<IpAddr>().ok())
    {
        return Some(first);
    }
    peer.map(|p| p.ip())
}

/// Middleware: 429 RATE_LIMITED with `Retry-After` once the route's bucket is empty.
pub async fn limit(State(limiter): State<Arc<RouteLimiter>>, req: Request, next: Next) -> Response {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let ip = client_ip(req.headers(), peer, limiter.trust_forwarded_for)
        .unwrap_or(IpAddr::from([0, 0, 0, 0]));
    match limiter.limiter.check_key(&ip) {
        Ok(()) => next.run(req).await,
        Err(not_until) => {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            Error::RateLimited {
                message: "too many requests; slow down".into(),
                retry_after_secs: wait.as_secs() + 1,
            }
            .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_is_used_only_when_trusted() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "203.0.113.7, 10.0.0.1"
                .parse()
                .unwrap_or_else(|_| unreachable!()),
        );
        let peer = Some(SocketAddr::from(([127, 0, 0, 1], 4000)));
        assert_eq!(
            client_ip(&headers, peer, true),
            Some(IpAddr::from([203, 0, 113, 7]))
        );
        assert_eq!(
            client_ip(&headers, peer, false),
            Some(IpAddr::from([127, 0, 0, 1]))
        );
        headers.insert(
            "x-forwarded-for",
            "garbage".parse().unwrap_or_else(|_| unreachable!()),
        );
        assert_eq!(
            client_ip(&headers, peer, true),
            Some(IpAddr::from([127, 0, 0, 1]))
        );
    }
}
