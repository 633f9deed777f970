//! Per-process request rate limits (`governor`): the sign-in routes', one bucket per
//! route per client address (an IPv4 address or an IPv6 /64, found by
//! [`shared::client_addr`]); and every write a signed-in player can make, one bucket
//! per access token ([`PLAYER_WRITES`] lists each with the limits it has besides).

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

/// Every request of the player API that writes, with what limits it: a guest can make
/// each of them, so each is bounded. A test compares this list with the API document
/// (every operation with a method other than GET, and the GETs named here), so a new
/// write without an entry here fails it. `token` is [`player_writes`]'s bucket of
/// `RATE_LIMIT_PLAYER_WRITES_PER_MINUTE` per access token; `address` the sign-in
/// buckets per client address.
pub const PLAYER_WRITES: &[(&str, &str, &str)] = &[
    (
        "POST",
        "/v1/auth/guest",
        "address: RATE_LIMIT_AUTH_PER_MINUTE",
    ),
    (
        "POST",
        "/v1/auth/refresh",
        "address: RATE_LIMIT_AUTH_PER_MINUTE",
    ),
    (
        "POST",
        "/v1/auth/android_vendor",
        "address: RATE_LIMIT_AUTH_PER_MINUTE",
    ),
    (
        "POST",
        "/v1/auth/huawei",
        "address: RATE_LIMIT_AUTH_PER_MINUTE",
    ),
    (
        "POST",
        "/v1/auth/ios_vendor",
        "address: RATE_LIMIT_AUTH_PER_MINUTE",
    ),
    (
        "POST",
        "/v1/auth/apple",
        "address: RATE_LIMIT_AUTH_PER_MINUTE",
    ),
    (
        "POST",
        "/v1/auth/phone/send-code",
        "address: RATE_LIMIT_SEND_CODE_PER_MINUTE; SMS_MAX_SENDS_PER_PHONE_PER_DAY, SMS_MAX_SENDS_PER_IP_PER_DAY",
    ),
    (
        "POST",
        "/v1/auth/phone",
        "address: RATE_LIMIT_AUTH_PER_MINUTE; SMS_MAX_VERIFY_FAILURES",
    ),
    (
        "POST",
        "/v1/auth/link",
        "address: RATE_LIMIT_AUTH_PER_MINUTE; token; 3 merges an account in 30 days",
    ),
    ("POST", "/v1/auth/logout", "token"),
    (
        "GET",
        "/v1/challenges/next",
        "token; a challenge served again writes nothing within 10 s",
    ),
    (
        "POST",
        "/v1/challenges/answer",
        "token; once per question (replays write nothing)",
    ),
    (
        "POST",
        "/v1/challenges/knowledge-cards/{cardId}/view",
        "token; once per card",
    ),
    (
        "POST",
        "/v1/feedback",
        "token; FEEDBACK_PER_HOUR, FEEDBACK_PER_ADDRESS_PER_HOUR (a refusal writes nothing)",
    ),
    ("PATCH", "/v1/progress/preferences", "token"),
    ("POST", "/v1/progress/check-in", "token; once a Beijing day"),
    (
        "POST",
        "/v1/rewards/ad-recovery/session",
        "token; RULE_AD_HEARTS_PER_DAY, RULE_AD_ATTEMPTS_PER_DAY",
    ),
    (
        "POST",
        "/v1/rewards/ad-recovery/complete",
        "token; once per session",
    ),
    (
        "POST",
        "/v1/shop/purchase",
        "token (answers NOT_AVAILABLE_IN_MVP)",
    ),
    (
        "POST",
        "/v1/inventory/items/use",
        "token; RULE_STREAK_PROTECTION_COOLDOWN_DAYS",
    ),
    (
        "POST",
        "/v1/subscription/verify",
        "token (answers NOT_AVAILABLE_IN_MVP)",
    ),
    (
        "PATCH",
        "/v1/users/me/region",
        "token; once a Beijing month",
    ),
    (
        "PUT",
        "/v1/users/me/minor-mode",
        "token; 20 PIN checks an hour, 5 wrong PINs a day",
    ),
    ("POST", "/v1/users/me/real-name", "token; NPPA checks a day"),
    ("GET", "/v1/users/me/export", "token; one copy a day"),
    ("DELETE", "/v1/users/me", "token; once"),
];

/// The GET routes that write (their paths as the router matches them).
const WRITING_GETS: [&str; 2] = ["/v1/challenges/next", "/v1/users/me/export"];

/// Whether a request writes: any method but GET, HEAD and OPTIONS, and the GETs of
/// [`WRITING_GETS`].
fn writes(req: &Request) -> bool {
    use axum::http::Method;
    if !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return true;
    }
    let path = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or(req.uri().path(), |p| p.as_str());
    WRITING_GETS
        .iter()
        .any(|w| path.ends_with(w.trim_start_matches("/v1")))
}

/// The write bucket of each access token.
pub struct PlayerWriteLimiter {
    limiter: DefaultKeyedRateLimiter<u64>,
}

impl PlayerWriteLimiter {
    fn per_minute(per_minute: u32) -> Arc<Self> {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Arc::new(Self {
            limiter: RateLimiter::keyed(Quota::per_minute(n)),
        })
    }
}

/// Middleware: a request that writes with a bearer token takes a place in that token's
/// bucket (keyed by a hash of the token, never the token itself): 429 RATE_LIMITED with
/// `Retry-After` once it is empty. Without a token it passes (its route answers 401,
/// or limits it by address).
pub async fn player_writes(
    State(limiter): State<Arc<PlayerWriteLimiter>>,
    req: Request,
    next: Next,
) -> Response {
    if !writes(&req) {
        return next.run(req).await;
    }
    let Some(token) = req
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .map(|v| v.as_bytes())
    else {
        return next.run(req).await;
    };
    let key = {
        use std::hash::{BuildHasher as _, Hasher as _};
        let mut hasher = TOKEN_KEYS.build_hasher();
        hasher.write(token);
        hasher.finish()
    };
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

/// The keys of the token buckets: a hash with a per-process random seed, so a client
/// cannot aim two tokens at one bucket.
static TOKEN_KEYS: std::sync::LazyLock<std::collections::hash_map::RandomState> =
    std::sync::LazyLock::new(std::collections::hash_map::RandomState::new);

/// The limiters of every limited route.
pub struct Limiters {
    pub player_writes: Arc<PlayerWriteLimiter>,
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
            player_writes: PlayerWriteLimiter::per_minute(settings.limits.player_writes_per_minute),
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
        self.player_writes.limiter.retain_recent();
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
