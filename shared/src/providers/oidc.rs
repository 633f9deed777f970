//! ID-token sign-in: HUAWEI ID and Sign in with Apple.
//!
//! Both providers hand the app an OpenID Connect ID token, a JWT signed with one of
//! the provider's RSA keys, published as a JWKS document at a well-known URL.
//!
//! - [`JwksVerifier`] verifies such a token: the header `alg` must be one of the
//!   algorithms allowed at construction (so `none` and `HS256` are refused), the
//!   signature must verify with the JWKS key named by the header `kid`, `iss` must be
//!   the configured issuer, `aud` must contain the configured audience, `sub` must be
//!   present and `exp` must lie in the future (against the caller's clock, with
//!   [`LEEWAY_SECS`] of leeway). Keys are fetched once and cached in memory; a `kid`
//!   missing from the cache is looked up by a refetch (key rotation). Refetches start at
//!   most once per `min_refetch_interval`, so tokens carrying random `kid`s cannot make
//!   us hammer the provider; but a token is never refused for that: it waits for the
//!   fetch in flight or the one due next, so a key published a moment after another
//!   unknown `kid` caused a fetch still signs in.
//! - [`HuaweiIdClient`] exchanges a HUAWEI ID authorization code at the token
//!   endpoint and verifies the `id_token` it answers with (RS256 or PS256).
//! - [`AppleIdVerifier`] verifies a Sign in with Apple identity token (RS256).
//!
//! Every failure is one of two kinds ([`IdTokenError`]): the token or code is
//! refused ([`IdTokenError::Invalid`]), or the provider could not be asked or
//! answered nonsense ([`IdTokenError::Unavailable`]).
//!
//! [`testing`] signs ID tokens and serves JWKS documents for tests.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation};
use serde::Deserialize;
use tokio::sync::{Mutex, RwLock, RwLockWriteGuard};

use crate::config::{AppleSettings, HuaweiSettings};

/// Clock skew tolerated on `exp` (and `nbf`), in seconds.
pub const LEEWAY_SECS: i64 = 60;

/// The issuer of Sign in with Apple identity tokens.
pub const APPLE_ISSUER: &str = "https://appleid.apple.com";

/// How long one request to a provider may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// At most this much of a refusal's body is quoted in an error message.
const QUOTED_BODY_CHARS: usize = 200;

/// Who the provider says signed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedIdentity {
    /// The `sub` claim: the provider's stable identifier of the user.
    pub subject: String,
    /// The `email` claim, if present and not marked unverified (`email_verified` false).
    pub email: Option<String>,
}

/// Why a sign-in failed.
#[derive(Debug, thiserror::Error)]
pub enum IdTokenError {
    /// Refused code, bad signature, wrong `iss`/`aud`, expired, unknown `kid`,
    /// disallowed algorithm, malformed token.
    #[error("{0}")]
    Invalid(String),
    /// The provider was unreachable or answered nonsense (5xx, unparsable body).
    #[error("{0}")]
    Unavailable(String),
}

/// The claims read from a verified ID token.
#[derive(Deserialize)]
struct IdClaims {
    sub: String,
    exp: f64,
    #[serde(default)]
    nbf: Option<f64>,
    #[serde(default)]
    email: Option<String>,
    /// A bool, or the string `"true"`/`"false"` (Apple).
    #[serde(default)]
    email_verified: Option<serde_json::Value>,
}

impl IdClaims {
    fn email_unverified(&self) -> bool {
        match &self.email_verified {
            Some(serde_json::Value::Bool(b)) => !b,
            Some(serde_json::Value::String(s)) => s.eq_ignore_ascii_case("false"),
            _ => false,
        }
    }
}

/// The keys of the last JWKS fetch, by `kid`.
#[derive(Default)]
struct KeyCache {
    keys: HashMap<String, Arc<DecodingKey>>,
    /// When `keys` were last fetched successfully.
    fetched_at: Option<Instant>,
    /// When the JWKS was last asked for (the request's start), successfully or not.
    last_attempt: Option<Instant>,
    /// Why the last attempt failed, if it did.
    last_failure: Option<String>,
}

/// How long fetched keys are trusted before they are fetched again.
pub const MAX_KEY_AGE: Duration = Duration::from_secs(3600);

/// Verifies ID tokens against the keys a provider publishes at a JWKS URL.
pub struct JwksVerifier {
    http: reqwest::Client,
    jwks_url: String,
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    min_refetch_interval: Duration,
    /// Cached keys older than this are refreshed before use, so a key the provider
    /// withdrew stops being trusted even if no token names an unknown `kid`.
    max_key_age: Duration,
    cache: RwLock<KeyCache>,
    /// Held while a fetch is due or in flight, so concurrent misses wait for one fetch.
    fetch_lock: Mutex<()>,
}

impl JwksVerifier {
    /// A verifier accepting tokens signed with one of `algorithms` (HMAC algorithms are
    /// dropped: a public JWKS cannot carry a shared secret) by `issuer` for `audience`.
    /// An unknown `kid` refetches the JWKS at most once per `min_refetch_interval`.
    pub fn new(
        http: reqwest::Client,
        jwks_url: String,
        issuer: String,
        audience: String,
        algorithms: Vec<Algorithm>,
        min_refetch_interval: Duration,
    ) -> Self {
        let mut allowed = Vec::with_capacity(algorithms.len());
        for alg in algorithms {
            if alg.family() == AlgorithmFamily::Hmac {
                tracing::warn!(?alg, %jwks_url, "HMAC algorithm not allowed for ID tokens; ignored");
            } else if !allowed.contains(&alg) {
                allowed.push(alg);
            }
        }
        Self {
            http,
            jwks_url,
            issuer,
            audience,
            algorithms: allowed,
            min_refetch_interval,
            max_key_age: MAX_KEY_AGE,
            cache: RwLock::new(KeyCache::default()),
            fetch_lock: Mutex::new(()),
        }
    }

    /// The same verifier trusting fetched keys for `age` (tests).
    #[cfg(test)]
    fn with_max_key_age(mut self, age: Duration) -> Self {
        self.max_key_age = age;
        self
    }

    /// Verifies `token` at `now_secs` (Unix seconds) and returns who it names.
    pub async fn verify(
        &self,
        token: &str,
        now_secs: i64,
    ) -> Result<VerifiedIdentity, IdTokenError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| IdTokenError::Invalid(format!("malformed ID token: {e}")))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(IdTokenError::Invalid(format!(
                "ID token algorithm {:?} not allowed",
                header.alg
            )));
        }
        let kid = header
            .kid
            .as_deref()
            .ok_or_else(|| IdTokenError::Invalid("ID token names no key (kid)".into()))?;
        let key = match self.cached_key(kid).await {
            Some(key) => key,
            None => self.refetch_for(kid).await?,
        };
        if key.family() != header.alg.family() {
            return Err(IdTokenError::Invalid(format!(
                "key {kid} cannot verify {:?}",
                header.alg
            )));
        }

        let mut validation = Validation::new(header.alg);
        // exp/nbf are checked below against the caller's clock, not the system clock
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        let claims = jsonwebtoken::decode::<IdClaims>(token, &key, &validation)
            .map_err(|e| IdTokenError::Invalid(describe_refusal(e.kind())))?
            .claims;

        let now = now_secs as f64;
        let leeway = LEEWAY_SECS as f64;
        if claims.exp + leeway <= now {
            return Err(IdTokenError::Invalid("ID token expired".into()));
        }
        if claims.nbf.is_some_and(|nbf| nbf > now + leeway) {
            return Err(IdTokenError::Invalid("ID token not yet valid".into()));
        }
        if claims.sub.is_empty() {
            return Err(IdTokenError::Invalid("ID token has an empty sub".into()));
        }
        let email = if claims.email_unverified() {
            None
        } else {
            claims.email.filter(|e| !e.is_empty())
        };
        Ok(VerifiedIdentity {
            subject: claims.sub,
            email,
        })
    }

    async fn cached_key(&self, kid: &str) -> Option<Arc<DecodingKey>> {
        let stale = {
            let cache = self.cache.read().await;
            let stale = cache
                .fetched_at
                .is_some_and(|at| at.elapsed() >= self.max_key_age);
            if !stale {
                return cache.keys.get(kid).cloned();
            }
            stale
        };
        if stale {
            self.refresh_stale().await;
        }
        self.cache.read().await.keys.get(kid).cloned()
    }

    /// Refreshes keys older than `max_key_age`. When the provider cannot be reached the
    /// old keys stay in use (an outage must not stop sign-in), and the next attempt waits
    /// `min_refetch_interval`.
    async fn refresh_stale(&self) {
        let _fetching = self.fetch_lock.lock().await;
        {
            let cache = self.cache.read().await;
            let still_stale = cache
                .fetched_at
                .is_some_and(|at| at.elapsed() >= self.max_key_age);
            let tried_recently = cache
                .last_attempt
                .is_some_and(|at| at.elapsed() < self.min_refetch_interval);
            if !still_stale || tried_recently {
                return;
            }
        }
        let (_, fetched) = self.fetch_into_cache().await;
        if let Err(e) = fetched {
            tracing::warn!(url = %self.jwks_url, error = %e, "JWKS refresh failed; keeping cached keys");
        }
    }

    /// Fetches the JWKS and notes the attempt (when it started); fetched keys replace
    /// the cached ones. Answers the cache, still locked for writing, and how the fetch
    /// went: a failure is the caller's to log (and to remember, where it answers with it).
    async fn fetch_into_cache(&self) -> (RwLockWriteGuard<'_, KeyCache>, Result<(), IdTokenError>) {
        let started = Instant::now();
        let fetched = self.fetch_keys().await;
        let mut cache = self.cache.write().await;
        cache.last_attempt = Some(started);
        let stored = fetched.map(|keys| {
            cache.keys = keys;
            cache.fetched_at = Some(Instant::now());
            cache.last_failure = None;
        });
        (cache, stored)
    }

    /// The key named `kid` after a fetch that started once this request had arrived:
    /// the one in flight or due next, if another request's miss already asked for one
    /// (waiting for it rather than refusing), else a fetch of its own as soon as
    /// `min_refetch_interval` since the last one allows. A burst of misses, however many
    /// `kid`s it names, costs one fetch per interval.
    async fn refetch_for(&self, kid: &str) -> Result<Arc<DecodingKey>, IdTokenError> {
        let arrived = Instant::now();
        let _fetching = self.fetch_lock.lock().await;
        let due = {
            let cache = self.cache.read().await;
            if let Some(key) = cache.keys.get(kid) {
                return Ok(key.clone());
            }
            // a fetch that started after this request arrived answered it already
            if cache.last_attempt.is_some_and(|started| started >= arrived) {
                return Err(match &cache.last_failure {
                    Some(failure) => IdTokenError::Unavailable(failure.clone()),
                    None => IdTokenError::Invalid(format!("unknown signing key {kid}")),
                });
            }
            // the provider failed within the interval: say so now (503, the client
            // retries) rather than hold every sign-in until it may be asked again
            if let (Some(started), Some(failure)) = (cache.last_attempt, &cache.last_failure)
                && started.elapsed() < self.min_refetch_interval
            {
                return Err(IdTokenError::Unavailable(failure.clone()));
            }
            cache
                .last_attempt
                .map(|started| started + self.min_refetch_interval)
        };
        // Waiting holds the lock: the misses queued behind are answered by this fetch.
        if let Some(due) = due {
            tokio::time::sleep_until(due.into()).await;
        }
        tracing::debug!(%kid, url = %self.jwks_url, "fetching JWKS");
        let (mut cache, fetched) = self.fetch_into_cache().await;
        match fetched {
            Ok(()) => cache
                .keys
                .get(kid)
                .cloned()
                .ok_or_else(|| IdTokenError::Invalid(format!("unknown signing key {kid}"))),
            Err(e) => {
                tracing::warn!(url = %self.jwks_url, error = %e, "JWKS fetch failed");
                cache.last_failure = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// The usable signing keys of the JWKS, by `kid`.
    async fn fetch_keys(&self) -> Result<HashMap<String, Arc<DecodingKey>>, IdTokenError> {
        let unavailable = |what: String| IdTokenError::Unavailable(format!("JWKS {what}"));
        let response = self
            .http
            .get(&self.jwks_url)
            .timeout(REQUEST_TIMEOUT)
            .send()
            .await
            .map_err(|e| unavailable(format!("unreachable: {e}")))?;
        let status = response.status();
        if status != reqwest::StatusCode::OK {
            return Err(unavailable(format!("answered HTTP {status}")));
        }
        let document: serde_json::Value = response
            .json()
            .await
            .map_err(|e| unavailable(format!("unparsable: {e}")))?;
        let entries = document
            .get("keys")
            .and_then(serde_json::Value::as_array)
            .ok_or_else(|| unavailable("has no keys array".into()))?;

        let mut keys = HashMap::new();
        for entry in entries {
            // one odd key (unknown alg, other key type) must not spoil the others
            let Ok(jwk) = serde_json::from_value::<Jwk>(entry.clone()) else {
                tracing::debug!(url = %self.jwks_url, "skipping an unreadable JWK");
                continue;
            };
            let Some(kid) = jwk.common.key_id.clone() else {
                continue;
            };
            if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
                continue;
            }
            let Ok(key) = DecodingKey::from_jwk(&jwk) else {
                tracing::debug!(%kid, url = %self.jwks_url, "skipping an unusable JWK");
                continue;
            };
            if self.algorithms.iter().any(|a| a.family() == key.family()) {
                keys.insert(kid, Arc::new(key));
            }
        }
        if keys.is_empty() {
            return Err(unavailable("has no usable signing key".into()));
        }
        Ok(keys)
    }
}

/// Why `jsonwebtoken` refused a token, in words.
fn describe_refusal(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::InvalidSignature => "ID token signature invalid".into(),
        ErrorKind::InvalidIssuer => "ID token issuer wrong".into(),
        ErrorKind::InvalidAudience => "ID token audience wrong".into(),
        ErrorKind::InvalidAlgorithm => "ID token algorithm not allowed".into(),
        ErrorKind::MissingRequiredClaim(claim) => format!("ID token lacks the {claim} claim"),
        other => format!("ID token refused: {other:?}"),
    }
}

/// `text` cut to [`QUOTED_BODY_CHARS`] characters.
fn quote(text: &str) -> String {
    let mut quoted: String = text.chars().take(QUOTED_BODY_CHARS).collect();
    if quoted.len() < text.len() {
        quoted.push('…');
    }
    quoted
}

/// HUAWEI ID sign-in: authorization code in, verified identity out.
pub struct HuaweiIdClient {
    settings: HuaweiSettings,
    http: reqwest::Client,
    verifier: JwksVerifier,
}

impl HuaweiIdClient {
    pub fn new(
        settings: HuaweiSettings,
        http: reqwest::Client,
        min_refetch_interval: Duration,
    ) -> Self {
        let verifier = JwksVerifier::new(
            http.clone(),
            settings.jwks_url.clone(),
            settings.issuer.clone(),
            settings.client_id.clone(),
            vec![Algorithm::RS256, Algorithm::PS256],
            min_refetch_interval,
        );
        Self {
            settings,
            http,
            verifier,
        }
    }

    /// Exchanges `authorization_code` at the token endpoint and verifies the
    /// `id_token` of the answer at `now_secs`.
    pub async fn sign_in(
        &self,
        authorization_code: &str,
        now_secs: i64,
    ) -> Result<VerifiedIdentity, IdTokenError> {
        if authorization_code.is_empty() {
            return Err(IdTokenError::Invalid("empty authorization code".into()));
        }
        let id_token = self.exchange(authorization_code).await?;
        self.verifier.verify(&id_token, now_secs).await
    }

    /// The `id_token` the token endpoint answers `code` with.
    async fn exchange(&self, code: &str) -> Result<String, IdTokenError> {
        let url = &self.settings.token_url;
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("client_id", self.settings.client_id.as_str()),
            ("client_secret", self.settings.client_secret.expose()),
        ];
        let response = self
            .http
            .post(url)
            .timeout(REQUEST_TIMEOUT)
            .form(&form)
            .send()
            .await
            .map_err(|e| {
                tracing::warn!(%url, error = %e, "HUAWEI token endpoint unreachable");
                IdTokenError::Unavailable(format!("HUAWEI token endpoint unreachable: {e}"))
            })?;
        let status = response.status();
        let body = response.text().await.map_err(|e| {
            IdTokenError::Unavailable(format!("HUAWEI token endpoint answer unreadable: {e}"))
        })?;
        if status.is_client_error() {
            return Err(IdTokenError::Invalid(format!(
                "HUAWEI refused the authorization code (HTTP {status}): {}",
                quote(&body)
            )));
        }
        if !status.is_success() {
            tracing::warn!(%url, %status, "HUAWEI token endpoint failed");
            return Err(IdTokenError::Unavailable(format!(
                "HUAWEI token endpoint answered HTTP {status}"
            )));
        }
        // the body carries access and refresh tokens: never quote it from here on
        let answer: serde_json::Value = serde_json::from_str(&body).map_err(|_| {
            IdTokenError::Unavailable("HUAWEI token endpoint answered unparsable JSON".into())
        })?;
        let refusal = ["error", "sub_error"]
            .iter()
            .filter_map(|field| answer.get(*field).filter(|v| !v.is_null()))
            .map(|v| v.to_string())
            .collect::<Vec<_>>();
        if !refusal.is_empty() {
            let description = answer
                .get("error_description")
                .and_then(serde_json::Value::as_str)
                .map(quote)
                .unwrap_or_default();
            return Err(IdTokenError::Invalid(format!(
                "HUAWEI refused the authorization code: {} {description}",
                refusal.join("/")
            )));
        }
        match answer.get("id_token").and_then(serde_json::Value::as_str) {
            Some(id_token) if !id_token.is_empty() => Ok(id_token.to_owned()),
            _ => {
                // The app asked without the `openid` scope: no identity, so no sign-in;
                // retrying will not help, and operators must fix the app's request.
                tracing::warn!(
                    %url,
                    "configuration: HUAWEI answered without an id_token; the app must request the openid scope"
                );
                Err(IdTokenError::Invalid(
                    "HUAWEI answered without an id_token (the openid scope was not granted)".into(),
                ))
            }
        }
    }
}

/// Sign in with Apple: verifies the identity token the app received.
pub struct AppleIdVerifier {
    verifier: JwksVerifier,
}

impl AppleIdVerifier {
    /// An empty `settings.issuer` means [`APPLE_ISSUER`].
    pub fn new(
        settings: AppleSettings,
        http: reqwest::Client,
        min_refetch_interval: Duration,
    ) -> Self {
        let issuer = if settings.issuer.is_empty() {
            APPLE_ISSUER.to_owned()
        } else {
            settings.issuer
        };
        Self {
            verifier: JwksVerifier::new(
                http,
                settings.jwks_url,
                issuer,
                settings.client_id,
                vec![Algorithm::RS256],
                min_refetch_interval,
            ),
        }
    }

    /// Verifies `identity_token` at `now_secs` (Unix seconds).
    pub async fn verify(
        &self,
        identity_token: &str,
        now_secs: i64,
    ) -> Result<VerifiedIdentity, IdTokenError> {
        self.verifier.verify(identity_token, now_secs).await
    }
}

/// Test support: RSA keys that sign ID tokens the way HUAWEI and Apple do, and the
/// JWKS documents that publish them. Used by this module's tests and by the
/// workspace's end-to-end tests; not meant for production code.
///
/// `rsa` is only a dev-dependency of this crate, so a `TestKey` is built from a
/// PKCS#1 DER private key the test generated itself:
///
/// ```no_run
/// use rsa::pkcs1::EncodeRsaPrivateKey;
/// use shared::providers::oidc::testing::{TestKey, jwks};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let private = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048)?;
/// let key = TestKey::from_pkcs1_der("key-1", private.to_pkcs1_der()?.as_bytes())?;
/// let document = jwks(&[&key]); // serve this at the JWKS URL
/// let token = key.try_sign(
///     jsonwebtoken::Algorithm::RS256,
///     &serde_json::json!({"iss": "https://appleid.apple.com", "aud": "app", "sub": "u1", "exp": 2_000_000_000}),
/// )?;
/// # let _ = (document, token);
/// # Ok(())
/// # }
/// ```
pub mod testing {
    use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
    use jsonwebtoken::{Algorithm, EncodingKey, Header};
    use serde_json::{Value, json};

    /// An RSA key pair for signing test ID tokens, and its JWK.
    pub struct TestKey {
        /// The `kid` the JWK and every signed token's header carry.
        pub kid: String,
        encoding: EncodingKey,
        n: String,
        e: String,
    }

    impl TestKey {
        /// A key from a PKCS#1 DER RSA private key (`RsaPrivateKey::to_pkcs1_der`).
        pub fn from_pkcs1_der(
            kid: &str,
            der: &[u8],
        ) -> Result<TestKey, jsonwebtoken::errors::Error> {
            let encoding = EncodingKey::from_rsa_der(der);
            let jwk = Jwk::from_encoding_key(&encoding, Algorithm::RS256)?;
            let AlgorithmParameters::RSA(params) = jwk.algorithm else {
                return Err(jsonwebtoken::errors::ErrorKind::InvalidKeyFormat.into());
            };
            Ok(TestKey {
                kid: kid.to_owned(),
                encoding,
                n: params.n,
                e: params.e,
            })
        }

        /// The public key as a JWK:
        /// `{"kty":"RSA","kid":..,"use":"sig","alg":"RS256","n":..,"e":..}`.
        pub fn jwk(&self) -> Value {
            json!({
                "kty": "RSA",
                "kid": self.kid,
                "use": "sig",
                "alg": "RS256",
                "n": self.n,
                "e": self.e,
            })
        }

        /// `claims` signed with `alg` (an RSA algorithm), the header carrying `kid`.
        pub fn try_sign(
            &self,
            alg: Algorithm,
            claims: &Value,
        ) -> Result<String, jsonwebtoken::errors::Error> {
            let mut header = Header::new(alg);
            header.kid = Some(self.kid.clone());
            jsonwebtoken::encode(&header, claims, &self.encoding)
        }

        /// As [`TestKey::try_sign`].
        ///
        /// # Panics
        /// If signing fails, e.g. `alg` is not an RSA algorithm. Test helper only.
        #[allow(clippy::expect_used, clippy::unwrap_used)]
        pub fn sign(&self, alg: Algorithm, claims: &Value) -> String {
            match self.try_sign(alg, claims) {
                Ok(token) => token,
                Err(e) => panic!("signing a test ID token with {alg:?} failed: {e}"),
            }
        }
    }

    #[cfg(test)]
    impl TestKey {
        /// A fresh 2048-bit key. Only in this crate's tests, where `rsa` is available.
        #[allow(clippy::expect_used, clippy::unwrap_used)]
        pub fn generate(kid: &str) -> TestKey {
            use rsa::pkcs1::EncodeRsaPrivateKey;
            let private = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048)
                .expect("generating an RSA key");
            let der = private.to_pkcs1_der().expect("encoding an RSA key");
            TestKey::from_pkcs1_der(kid, der.as_bytes()).expect("loading an RSA key")
        }
    }

    /// A JWKS document publishing `keys`: `{"keys":[...]}`.
    pub fn jwks(keys: &[&TestKey]) -> Value {
        json!({ "keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>() })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use jsonwebtoken::{EncodingKey, Header};
    use serde_json::{Value, json};
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::testing::{TestKey, jwks};
    use super::*;
    use crate::config::Secret;

    const NOW: i64 = 1_700_000_000;
    const HUAWEI_ISSUER: &str = "https://accounts.huawei.com";
    const HUAWEI_CLIENT_ID: &str = "106123456";
    const HUAWEI_SECRET: &str = "s3cr3t/+=&x";
    const APPLE_CLIENT_ID: &str = "com.example.quiz";

    static KEY_A: LazyLock<TestKey> = LazyLock::new(|| TestKey::generate("key-a"));
    static KEY_B: LazyLock<TestKey> = LazyLock::new(|| TestKey::generate("key-b"));
    /// Another key pretending to be key A.
    static IMPOSTOR_A: LazyLock<TestKey> = LazyLock::new(|| TestKey::generate("key-a"));

    #[derive(Clone, Copy, Debug)]
    enum Provider {
        Huawei,
        Apple,
    }

    enum Client {
        Huawei(HuaweiIdClient),
        Apple(AppleIdVerifier),
    }

    /// One provider's client against a mock server serving `/jwks` and `/token`.
    struct Harness {
        server: MockServer,
        client: Client,
        provider: Provider,
        codes: AtomicUsize,
    }

    impl Harness {
        async fn new(provider: Provider, min_refetch_interval: Duration) -> Self {
            let server = MockServer::start().await;
            Self::with_urls(provider, server, None, min_refetch_interval)
        }

        /// A harness whose `/jwks` serves key A once, with no refetch interval: the
        /// set-up most tests start from.
        async fn serving_key_a(provider: Provider) -> Self {
            let harness = Self::new(provider, Duration::ZERO).await;
            harness.serve_jwks(&[&KEY_A], 1).await;
            harness
        }

        /// Checks `claims` signed with key A (RS256).
        async fn check_signed_by_a(
            &self,
            claims: &Value,
        ) -> Result<VerifiedIdentity, IdTokenError> {
            self.check(&KEY_A.sign(Algorithm::RS256, claims)).await
        }

        fn with_urls(
            provider: Provider,
            server: MockServer,
            jwks_url: Option<String>,
            min_refetch_interval: Duration,
        ) -> Self {
            let jwks_url = jwks_url.unwrap_or_else(|| format!("{}/jwks", server.uri()));
            let http = reqwest::Client::new();
            let client = match provider {
                Provider::Huawei => Client::Huawei(HuaweiIdClient::new(
                    huawei_settings(&server.uri(), jwks_url),
                    http,
                    min_refetch_interval,
                )),
                Provider::Apple => Client::Apple(AppleIdVerifier::new(
                    AppleSettings {
                        client_id: APPLE_CLIENT_ID.into(),
                        jwks_url,
                        issuer: APPLE_ISSUER.into(),
                    },
                    http,
                    min_refetch_interval,
                )),
            };
            Self {
                server,
                client,
                provider,
                codes: AtomicUsize::new(0),
            }
        }

        /// Serves `keys` at `/jwks` for the next `times` requests (after any mounted before).
        async fn serve_jwks(&self, keys: &[&TestKey], times: u64) {
            answering(
                "GET",
                "/jwks",
                ResponseTemplate::new(200).set_body_json(jwks(keys)),
            )
            .up_to_n_times(times)
            .expect(times)
            .mount(&self.server)
            .await;
        }

        fn issuer(&self) -> &'static str {
            match self.provider {
                Provider::Huawei => HUAWEI_ISSUER,
                Provider::Apple => APPLE_ISSUER,
            }
        }

        fn audience(&self) -> &'static str {
            match self.provider {
                Provider::Huawei => HUAWEI_CLIENT_ID,
                Provider::Apple => APPLE_CLIENT_ID,
            }
        }

        /// Valid claims for `sub`.
        fn claims(&self, sub: &str) -> Value {
            json!({
                "iss": self.issuer(),
                "aud": self.audience(),
                "sub": sub,
                "iat": NOW - 10,
                "exp": NOW + 3600,
                "email": format!("{sub}@example.com"),
            })
        }

        /// Has the provider's client check `token`: Apple verifies it directly; for
        /// HUAWEI the token endpoint answers a fresh code with it.
        async fn check(&self, token: &str) -> Result<VerifiedIdentity, IdTokenError> {
            match &self.client {
                Client::Apple(apple) => apple.verify(token, NOW).await,
                Client::Huawei(huawei) => {
                    let n = self.codes.fetch_add(1, Ordering::SeqCst);
                    let answer = ResponseTemplate::new(200).set_body_json(json!({
                        "access_token": "at-1",
                        "refresh_token": "rt-1",
                        "expires_in": 3600,
                        "token_type": "Bearer",
                        "scope": "openid profile",
                        "id_token": token,
                    }));
                    answering("POST", "/token", answer)
                        .up_to_n_times(1)
                        .expect(1)
                        .mount(&self.server)
                        .await;
                    huawei.sign_in(&format!("code-{n}"), NOW).await
                }
            }
        }

        async fn jwks_hits(&self) -> usize {
            self.requests_to("/jwks").await.len()
        }

        async fn requests_to(&self, to: &str) -> Vec<wiremock::Request> {
            self.server
                .received_requests()
                .await
                .unwrap_or_default()
                .into_iter()
                .filter(|r| r.url.path() == to)
                .collect()
        }
    }

    /// A mock answering `method_name` requests to `at` with `answer`, to mount with its
    /// limits.
    fn answering(method_name: &str, at: &str, answer: ResponseTemplate) -> Mock {
        Mock::given(method(method_name))
            .and(path(at))
            .respond_with(answer)
    }

    fn huawei_settings(base: &str, jwks_url: String) -> HuaweiSettings {
        HuaweiSettings {
            client_id: HUAWEI_CLIENT_ID.into(),
            client_secret: Secret::new(HUAWEI_SECRET),
            token_url: format!("{base}/token"),
            jwks_url,
            issuer: HUAWEI_ISSUER.into(),
        }
    }

    /// A URL nothing listens on.
    fn dead_url(suffix: &str) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        format!("http://127.0.0.1:{port}{suffix}")
    }

    fn b64(value: &Value) -> String {
        URL_SAFE_NO_PAD.encode(value.to_string())
    }

    #[track_caller]
    fn assert_invalid(result: Result<VerifiedIdentity, IdTokenError>, reason: &str) {
        match result {
            Err(IdTokenError::Invalid(message)) => assert!(
                message.contains(reason),
                "refused, but for {message:?} rather than {reason:?}"
            ),
            other => panic!("expected Invalid({reason}), got {other:?}"),
        }
    }

    #[track_caller]
    fn assert_unavailable(result: Result<VerifiedIdentity, IdTokenError>) {
        assert!(
            matches!(result, Err(IdTokenError::Unavailable(_))),
            "expected Unavailable, got {result:?}"
        );
    }

    /// `#[tokio::test]`s `name::huawei` and `name::apple` running `name(provider)`.
    macro_rules! for_both_providers {
        ($($name:ident),* $(,)?) => {$(
            mod $name {
                use super::Provider;
                #[tokio::test]
                async fn huawei() {
                    super::$name(Provider::Huawei).await;
                }
                #[tokio::test]
                async fn apple() {
                    super::$name(Provider::Apple).await;
                }
            }
        )*};
    }

    for_both_providers!(
        good_token_accepted,
        bad_signature_refused,
        wrong_audience_refused,
        audience_list_containing_ours_accepted,
        wrong_issuer_refused,
        expired_refused,
        missing_sub_refused,
        alg_none_refused,
        hs256_refused,
        unknown_kid_refetched_once,
        unknown_kid_after_refetch_refused,
        refetches_wait_rather_than_refuse,
        jwks_server_error_unavailable,
        jwks_unreachable_unavailable,
        jwks_garbage_unavailable,
    );

    async fn good_token_accepted(provider: Provider) {
        let h = Harness::serving_key_a(provider).await;
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-1"));
        let identity = h.check(&token).await.unwrap();
        assert_eq!(
            identity,
            VerifiedIdentity {
                subject: "user-1".into(),
                email: Some("user-1@example.com".into()),
            }
        );
        // the key is cached: a second token needs no fetch
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-2"));
        assert_eq!(h.check(&token).await.unwrap().subject, "user-2");
        assert_eq!(h.jwks_hits().await, 1);
    }

    async fn bad_signature_refused(provider: Provider) {
        let h = Harness::serving_key_a(provider).await;
        let token = IMPOSTOR_A.sign(Algorithm::RS256, &h.claims("user-1"));
        assert_invalid(h.check(&token).await, "signature");
    }

    async fn wrong_audience_refused(provider: Provider) {
        let h = Harness::serving_key_a(provider).await;
        let mut claims = h.claims("user-1");
        claims["aud"] = json!("someone-else");
        assert_invalid(h.check_signed_by_a(&claims).await, "audience");
        claims["aud"] = json!(["someone-else", "another"]);
        assert_invalid(h.check_signed_by_a(&claims).await, "audience");
        claims.as_object_mut().unwrap().remove("aud");
        assert_invalid(h.check_signed_by_a(&claims).await, "aud");
    }

    async fn audience_list_containing_ours_accepted(provider: Provider) {
        let h = Harness::serving_key_a(provider).await;
        let mut claims = h.claims("user-1");
        claims["aud"] = json!(["someone-else", h.audience()]);
        assert_eq!(
            h.check_signed_by_a(&claims).await.unwrap().subject,
            "user-1"
        );
    }

    async fn wrong_issuer_refused(provider: Provider) {
        let h = Harness::serving_key_a(provider).await;
        let mut claims = h.claims("user-1");
        claims["iss"] = json!("https://evil.example.com");
        assert_invalid(h.check_signed_by_a(&claims).await, "issuer");
        claims.as_object_mut().unwrap().remove("iss");
        assert_invalid(h.check_signed_by_a(&claims).await, "iss");
    }

    async fn expired_refused(provider: Provider) {
        let h = Harness::serving_key_a(provider).await;
        let mut claims = h.claims("user-1");
        claims["exp"] = json!(NOW - LEEWAY_SECS - 1);
        assert_invalid(h.check_signed_by_a(&claims).await, "expired");
        claims["exp"] = json!(NOW - 3600);
        assert_invalid(h.check_signed_by_a(&claims).await, "expired");
        // within the leeway
        claims["exp"] = json!(NOW - 30);
        assert_eq!(
            h.check_signed_by_a(&claims).await.unwrap().subject,
            "user-1"
        );
        // no exp at all
        claims.as_object_mut().unwrap().remove("exp");
        assert!(matches!(
            h.check_signed_by_a(&claims).await,
            Err(IdTokenError::Invalid(_))
        ));
    }

    async fn missing_sub_refused(provider: Provider) {
        let h = Harness::serving_key_a(provider).await;
        let mut claims = h.claims("user-1");
        claims.as_object_mut().unwrap().remove("sub");
        assert!(matches!(
            h.check_signed_by_a(&claims).await,
            Err(IdTokenError::Invalid(_))
        ));
        claims["sub"] = json!("");
        assert_invalid(h.check_signed_by_a(&claims).await, "sub");
    }

    async fn alg_none_refused(provider: Provider) {
        let h = Harness::new(provider, Duration::ZERO).await;
        let claims = h.claims("user-1");
        for alg in ["none", "None", "NONE"] {
            let header = json!({"alg": alg, "typ": "JWT", "kid": KEY_A.kid});
            let token = format!("{}.{}.", b64(&header), b64(&claims));
            assert!(matches!(
                h.check(&token).await,
                Err(IdTokenError::Invalid(_))
            ));
        }
        // refused before any key is looked up
        assert_eq!(h.jwks_hits().await, 0);
    }

    async fn hs256_refused(provider: Provider) {
        let h = Harness::new(provider, Duration::ZERO).await;
        let claims = h.claims("user-1");
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(KEY_A.kid.clone());
        // the classic confusion attack: the public modulus as the HMAC secret
        let n = KEY_A.jwk()["n"].as_str().unwrap().to_owned();
        for secret in [b"secret".as_slice(), n.as_bytes()] {
            let token =
                jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(secret)).unwrap();
            assert_invalid(h.check(&token).await, "not allowed");
        }
        assert_eq!(h.jwks_hits().await, 0);
    }

    async fn unknown_kid_refetched_once(provider: Provider) {
        let h = Harness::serving_key_a(provider).await;
        h.serve_jwks(&[&KEY_A, &KEY_B], 1).await;
        // caches key A only
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-a"));
        assert_eq!(h.check(&token).await.unwrap().subject, "user-a");
        assert_eq!(h.jwks_hits().await, 1);
        // key B is unknown: one refetch finds it
        let token = KEY_B.sign(Algorithm::RS256, &h.claims("user-b"));
        assert_eq!(h.check(&token).await.unwrap().subject, "user-b");
        assert_eq!(h.jwks_hits().await, 2);
        // both now cached
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-a"));
        h.check(&token).await.unwrap();
        let token = KEY_B.sign(Algorithm::RS256, &h.claims("user-b"));
        h.check(&token).await.unwrap();
        assert_eq!(h.jwks_hits().await, 2);
    }

    async fn unknown_kid_after_refetch_refused(provider: Provider) {
        let h = Harness::new(provider, Duration::ZERO).await;
        h.serve_jwks(&[&KEY_A], 2).await;
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-a"));
        h.check(&token).await.unwrap();
        let token = KEY_B.sign(Algorithm::RS256, &h.claims("user-b"));
        assert_invalid(h.check(&token).await, "unknown signing key key-b");
        assert_eq!(h.jwks_hits().await, 2);
    }

    fn plain_verifier(server: &MockServer, max_age: Duration) -> JwksVerifier {
        JwksVerifier::new(
            reqwest::Client::new(),
            format!("{}/keys", server.uri()),
            "https://issuer.example".into(),
            "aud-1".into(),
            vec![Algorithm::RS256],
            Duration::ZERO,
        )
        .with_max_key_age(max_age)
    }

    fn plain_claims(sub: &str) -> Value {
        json!({"iss": "https://issuer.example", "aud": "aud-1", "sub": sub,
               "exp": chrono::Utc::now().timestamp() + 600})
    }

    /// A verifier whose keys age in 50 ms, after it accepted a token signed with key A:
    /// `/keys` served key A once and answers `afterwards` from then on.
    struct AgedKeyA {
        verifier: JwksVerifier,
        token: String,
        now: i64,
        /// Kept alive: dropping it stops the server.
        _server: MockServer,
    }

    impl AgedKeyA {
        async fn after(afterwards: ResponseTemplate) -> Self {
            let server = MockServer::start().await;
            answering(
                "GET",
                "/keys",
                ResponseTemplate::new(200).set_body_json(jwks(&[&KEY_A])),
            )
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&server)
            .await;
            answering("GET", "/keys", afterwards).mount(&server).await;
            let verifier = plain_verifier(&server, Duration::from_millis(50));
            let now = chrono::Utc::now().timestamp();
            let token = KEY_A.sign(Algorithm::RS256, &plain_claims("a"));
            verifier.verify(&token, now).await.unwrap();
            tokio::time::sleep(Duration::from_millis(80)).await;
            Self {
                verifier,
                token,
                now,
                _server: server,
            }
        }
    }

    #[tokio::test]
    async fn old_keys_are_refreshed_so_withdrawn_keys_stop_working() {
        let only_key_b = ResponseTemplate::new(200).set_body_json(jwks(&[&KEY_B]));
        let aged = AgedKeyA::after(only_key_b).await;
        // the provider withdrew A: after the refresh it is refused
        assert!(matches!(
            aged.verifier.verify(&aged.token, aged.now).await,
            Err(IdTokenError::Invalid(_))
        ));
        let with_b = KEY_B.sign(Algorithm::RS256, &plain_claims("b"));
        aged.verifier.verify(&with_b, aged.now).await.unwrap();
    }

    #[tokio::test]
    async fn old_keys_stay_in_use_while_the_provider_is_down() {
        let aged = AgedKeyA::after(ResponseTemplate::new(503)).await;
        aged.verifier.verify(&aged.token, aged.now).await.unwrap();
    }

    /// Key rotation a moment after a random `kid` caused a fetch: the new key's token
    /// waits for the fetch due next and signs in; a burst of random `kid`s costs one
    /// fetch per interval, and each of them is refused only after that fetch.
    async fn refetches_wait_rather_than_refuse(provider: Provider) {
        let h = Harness::new(provider, Duration::from_millis(400)).await;
        h.serve_jwks(&[&KEY_A], 2).await;
        h.serve_jwks(&[&KEY_A, &KEY_B], 2).await;
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-a"));
        h.check(&token).await.unwrap();
        let random = |i: usize| {
            let mut header = Header::new(Algorithm::RS256);
            header.kid = Some(format!("random-{i}"));
            format!("{}.{}.c2ln", b64(&json!(header)), b64(&h.claims("x")))
        };
        assert_invalid(h.check(&random(0)).await, "unknown signing key");
        assert_eq!(h.jwks_hits().await, 2);
        // B is published now, just after that fetch: B's token waits for the next
        let token = KEY_B.sign(Algorithm::RS256, &h.claims("user-b"));
        assert_eq!(h.check(&token).await.unwrap().subject, "user-b");
        assert_eq!(h.jwks_hits().await, 3);
        // ten random kids at once: one fetch answers them all
        let burst = futures::future::join_all((1..=10).map(|i| {
            let token = random(i);
            let h = &h;
            async move { h.check(&token).await }
        }))
        .await;
        for result in burst {
            assert_invalid(result, "unknown signing key");
        }
        assert_eq!(h.jwks_hits().await, 4);
    }

    async fn jwks_server_error_unavailable(provider: Provider) {
        let h = Harness::new(provider, Duration::ZERO).await;
        answering("GET", "/jwks", ResponseTemplate::new(503))
            .mount(&h.server)
            .await;
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-1"));
        assert_unavailable(h.check(&token).await);
    }

    async fn jwks_unreachable_unavailable(provider: Provider) {
        let server = MockServer::start().await;
        let h = Harness::with_urls(provider, server, Some(dead_url("/jwks")), Duration::ZERO);
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-1"));
        assert_unavailable(h.check(&token).await);
    }

    async fn jwks_garbage_unavailable(provider: Provider) {
        let h = Harness::new(provider, Duration::ZERO).await;
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-1"));
        for body in [
            ResponseTemplate::new(200).set_body_string("<html>maintenance</html>"),
            ResponseTemplate::new(200).set_body_json(json!({"nokeys": []})),
            ResponseTemplate::new(200)
                .set_body_json(json!({"keys": [{"kty": "oct", "kid": "key-a", "k": "c2VjcmV0"}]})),
        ] {
            let _guard = answering("GET", "/jwks", body)
                .mount_as_scoped(&h.server)
                .await;
            assert_unavailable(h.check(&token).await);
        }
    }

    #[tokio::test]
    async fn jwks_failure_then_recovery_within_interval_stays_unavailable() {
        // a failed fetch also starts the interval; meanwhile the answer stays Unavailable
        let h = Harness::new(Provider::Apple, Duration::from_secs(3600)).await;
        answering("GET", "/jwks", ResponseTemplate::new(500))
            .up_to_n_times(1)
            .mount(&h.server)
            .await;
        // would succeed, but must not be asked within the interval
        answering(
            "GET",
            "/jwks",
            ResponseTemplate::new(200).set_body_json(jwks(&[&KEY_A])),
        )
        .expect(0)
        .mount(&h.server)
        .await;
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-1"));
        assert_unavailable(h.check(&token).await);
        assert_unavailable(h.check(&token).await);
        assert_eq!(h.jwks_hits().await, 1);
    }

    #[tokio::test]
    async fn jwks_failure_recovers_after_interval() {
        let h = Harness::new(Provider::Apple, Duration::ZERO).await;
        answering("GET", "/jwks", ResponseTemplate::new(500))
            .up_to_n_times(1)
            .mount(&h.server)
            .await;
        h.serve_jwks(&[&KEY_A], 1).await;
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("user-1"));
        assert_unavailable(h.check(&token).await);
        assert_eq!(h.check(&token).await.unwrap().subject, "user-1");
    }

    #[tokio::test]
    async fn malformed_token_invalid() {
        let h = Harness::new(Provider::Apple, Duration::ZERO).await;
        for token in ["", "abc", "a.b.c", "a.b"] {
            assert_invalid(h.check(token).await, "malformed");
        }
        let mut header = Header::new(Algorithm::RS256);
        header.kid = None;
        let token = format!("{}.{}.c2ln", b64(&json!(header)), b64(&h.claims("x")));
        assert_invalid(h.check(&token).await, "kid");
        assert_eq!(h.jwks_hits().await, 0);
    }

    #[tokio::test]
    async fn unverified_email_dropped() {
        let h = Harness::serving_key_a(Provider::Apple).await;
        let mut claims = h.claims("user-1");
        claims["email_verified"] = json!("false");
        let identity = h.check_signed_by_a(&claims).await.unwrap();
        assert_eq!(identity.email, None);
        claims["email_verified"] = json!("true");
        let identity = h.check_signed_by_a(&claims).await.unwrap();
        assert_eq!(identity.email.as_deref(), Some("user-1@example.com"));
        claims.as_object_mut().unwrap().remove("email");
        let identity = h.check_signed_by_a(&claims).await.unwrap();
        assert_eq!(identity.email, None);
    }

    #[tokio::test]
    async fn huawei_good_code_posts_the_form() {
        let h = Harness::serving_key_a(Provider::Huawei).await;
        let token = KEY_A.sign(Algorithm::RS256, &h.claims("huawei-user"));
        let identity = h.check(&token).await.unwrap();
        assert_eq!(identity.subject, "huawei-user");

        let requests = h.requests_to("/token").await;
        assert_eq!(requests.len(), 1);
        let request = &requests[0];
        assert_eq!(
            request.headers.get("content-type").unwrap(),
            "application/x-www-form-urlencoded"
        );
        let mut fields: Vec<(String, String)> = String::from_utf8(request.body.clone())
            .unwrap()
            .split('&')
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap();
                let decode = |s: &str| {
                    percent_encoding::percent_decode_str(&s.replace('+', " "))
                        .decode_utf8()
                        .unwrap()
                        .into_owned()
                };
                (decode(k), decode(v))
            })
            .collect();
        fields.sort();
        let expected = [
            ("client_id", HUAWEI_CLIENT_ID),
            ("client_secret", HUAWEI_SECRET),
            ("code", "code-0"),
            ("grant_type", "authorization_code"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        assert_eq!(fields, expected);
    }

    #[tokio::test]
    async fn huawei_ps256_accepted() {
        let h = Harness::serving_key_a(Provider::Huawei).await;
        let token = KEY_A.sign(Algorithm::PS256, &h.claims("huawei-user"));
        assert_eq!(h.check(&token).await.unwrap().subject, "huawei-user");
        // RS384 is RSA too, but not allowed
        let token = KEY_A.sign(Algorithm::RS384, &h.claims("huawei-user"));
        assert_invalid(h.check(&token).await, "not allowed");
    }

    #[tokio::test]
    async fn apple_ps256_refused() {
        let h = Harness::new(Provider::Apple, Duration::ZERO).await;
        let token = KEY_A.sign(Algorithm::PS256, &h.claims("apple-user"));
        assert_invalid(h.check(&token).await, "not allowed");
    }

    async fn huawei_token_answer(
        template: ResponseTemplate,
    ) -> Result<VerifiedIdentity, IdTokenError> {
        let server = MockServer::start().await;
        answering("POST", "/token", template)
            .expect(1)
            .mount(&server)
            .await;
        let client = HuaweiIdClient::new(
            huawei_settings(&server.uri(), format!("{}/jwks", server.uri())),
            reqwest::Client::new(),
            Duration::ZERO,
        );
        client.sign_in("the-code", NOW).await
    }

    #[tokio::test]
    async fn huawei_refused_code_invalid() {
        let result = huawei_token_answer(
            ResponseTemplate::new(400).set_body_json(json!({"error": "invalid_grant"})),
        )
        .await;
        assert_invalid(result, "invalid_grant");
        // HUAWEI's own shape: numeric error and sub_error
        let result = huawei_token_answer(ResponseTemplate::new(400).set_body_json(
            json!({"error": 1101, "sub_error": 20156, "error_description": "invalid code"}),
        ))
        .await;
        assert_invalid(result, "refused");
        let result = huawei_token_answer(ResponseTemplate::new(401)).await;
        assert_invalid(result, "refused");
    }

    #[tokio::test]
    async fn huawei_error_in_200_answer_invalid() {
        let result = huawei_token_answer(
            ResponseTemplate::new(200).set_body_json(json!({"error": 1101, "sub_error": 20156})),
        )
        .await;
        assert_invalid(result, "1101/20156");
        let result = huawei_token_answer(
            ResponseTemplate::new(200).set_body_json(json!({"sub_error": 20152})),
        )
        .await;
        assert_invalid(result, "20152");
    }

    #[tokio::test]
    async fn huawei_token_endpoint_failure_unavailable() {
        assert_unavailable(huawei_token_answer(ResponseTemplate::new(500)).await);
        assert_unavailable(huawei_token_answer(ResponseTemplate::new(502)).await);
        assert_unavailable(
            huawei_token_answer(ResponseTemplate::new(200).set_body_string("not json")).await,
        );
    }

    #[tokio::test]
    async fn huawei_answer_without_id_token_is_refused() {
        // no openid scope, no identity: a failed sign-in (401), not an outage (503)
        assert_invalid(
            huawei_token_answer(
                ResponseTemplate::new(200).set_body_json(json!({"access_token": "at"})),
            )
            .await,
            "without an id_token",
        );
    }

    #[tokio::test]
    async fn huawei_token_endpoint_unreachable_unavailable() {
        let mut settings = huawei_settings("http://unused", dead_url("/jwks"));
        settings.token_url = dead_url("/token");
        let client = HuaweiIdClient::new(settings, reqwest::Client::new(), Duration::ZERO);
        assert_unavailable(client.sign_in("the-code", NOW).await);
    }

    #[tokio::test]
    async fn huawei_empty_code_invalid_without_request() {
        let client = HuaweiIdClient::new(
            huawei_settings(&dead_url(""), dead_url("/jwks")),
            reqwest::Client::new(),
            Duration::ZERO,
        );
        assert_invalid(client.sign_in("", NOW).await, "empty");
    }

    #[tokio::test]
    async fn hmac_algorithms_dropped_at_construction() {
        let server = MockServer::start().await;
        let verifier = JwksVerifier::new(
            reqwest::Client::new(),
            format!("{}/jwks", server.uri()),
            APPLE_ISSUER.into(),
            APPLE_CLIENT_ID.into(),
            vec![Algorithm::HS256, Algorithm::RS256],
            Duration::ZERO,
        );
        let token = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &json!({"sub": "x"}),
            &EncodingKey::from_secret(b"s"),
        )
        .unwrap();
        assert_invalid(verifier.verify(&token, NOW).await, "not allowed");
    }

    #[test]
    fn test_key_jwk_and_jwks_shape() {
        let jwk = KEY_A.jwk();
        assert_eq!(jwk["kty"], "RSA");
        assert_eq!(jwk["kid"], "key-a");
        assert_eq!(jwk["use"], "sig");
        assert_eq!(jwk["alg"], "RS256");
        assert_eq!(jwk["e"], "AQAB");
        // 2048-bit modulus: 256 bytes, 342 base64url characters unpadded
        assert_eq!(jwk["n"].as_str().unwrap().len(), 342);
        let set = jwks(&[&KEY_A, &KEY_B]);
        assert_eq!(set["keys"].as_array().unwrap().len(), 2);
        assert_eq!(set["keys"][1]["kid"], "key-b");
        // the header of a signed token names the key
        let token = KEY_B.sign(Algorithm::RS256, &json!({"sub": "x"}));
        assert_eq!(
            jsonwebtoken::decode_header(&token).unwrap().kid.as_deref(),
            Some("key-b")
        );
        assert!(TestKey::from_pkcs1_der("bad", b"not a key").is_err());
        assert!(KEY_A.try_sign(Algorithm::HS256, &json!({})).is_err());
    }
}
