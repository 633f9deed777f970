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
/// route of such a method without an entry here fails it (a GET that starts to write
/// must be added by hand, to `WRITING_GETS` too). `token` is [`player_writes`]'s
/// bucket of `RATE_LIMIT_PLAYER_WRITES_PER_MINUTE` per player; `address` the sign-in
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
    (
        "GET",
        "/v1/users/me/real-name",
        "token; a pending check asks NPPA again at most every 10 s",
    ),
    ("GET", "/v1/users/me/export", "token; one copy a day"),
    ("DELETE", "/v1/users/me", "token; once"),
];

/// The GET routes that write (their paths as the router matches them): a new
/// challenge, a challenge served again, a copy of one's data, a pending real-name check
/// asked again.
const WRITING_GETS: [&str; 3] = [
    "/v1/challenges/next",
    "/v1/users/me/export",
    "/v1/users/me/real-name",
];

/// Whether a request writes: any method but GET, HEAD and OPTIONS, and the GETs of
/// [`WRITING_GETS`] (by HEAD too: axum answers a HEAD with the GET's handler).
fn writes(req: &Request) -> bool {
    use axum::http::Method;
    if !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return true;
    }
    let path = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or(req.uri().path(), |p| p.as_str());
    *req.method() != Method::OPTIONS
        && WRITING_GETS
            .iter()
            .any(|w| path.ends_with(w.trim_start_matches("/v1")))
}

/// The write bucket of each player.
pub struct PlayerWriteLimiter {
    limiter: DefaultKeyedRateLimiter<shared::ids::PlayerId>,
}

impl PlayerWriteLimiter {
    fn per_minute(per_minute: u32) -> Arc<Self> {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Arc::new(Self {
            limiter: RateLimiter::keyed(Quota::per_minute(n)),
        })
    }
}

/// Middleware: a request that writes with a valid access token takes a place in its
/// player's bucket (every token of the player shares it, however the header is
/// written): 429 RATE_LIMITED with `Retry-After` once it is empty. A request without a
/// valid token passes, to be refused by its route (401) or limited by address: so only
/// players who signed in hold a bucket, and a flood of made-up tokens grows nothing.
pub async fn player_writes(
    State(state): State<crate::AppState>,
    req: Request,
    next: Next,
) -> Response {
    if !writes(&req) {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let player = shared::http::bearer_token(&parts)
        .ok()
        .and_then(|token| shared::services::player_auth::verify_access(&state.ctx, token).ok())
        .map(|subject| subject.player_id);
    let req = Request::from_parts(parts, body);
    let Some(player) = player else {
        return next.run(req).await;
    };
    match state.limiters.player_writes.limiter.check_key(&player) {
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
