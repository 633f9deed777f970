//! argon2id password hashing, run off the async runtime (it is deliberately slow) and
//! bounded per process.
//!
//! Each hash or check holds 19 MiB for its run (argon2's default `m=19456`), so without a
//! bound ~500 concurrent sign-ins needed ~9.5 GiB. [`HASHING`] lets [`HASH_CONCURRENCY`]
//! run at once; the rest wait up to [`HASH_WAIT`] and are then refused with 503 and
//! `Retry-After` rather than queue without end.

use std::time::Duration;

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::Rng;
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::message::msg;
use crate::{Error, Result};

/// Hashes at once per process: 2 per core of the 2-core machines this runs on, at most
/// 4 × 19 MiB = 76 MiB of argon2 memory, while the CPUs stay busy.
pub const HASH_CONCURRENCY: usize = 4;
/// How long a hash waits for a place before the request is refused (503).
pub const HASH_WAIT: Duration = Duration::from_secs(2);
/// The `Retry-After` of that refusal.
const BUSY_RETRY_AFTER_SECS: u64 = 2;

/// The process's hashing places (every hash and check in this module takes one).
pub static HASHING: HashLimiter = HashLimiter::new(HASH_CONCURRENCY, HASH_WAIT);

/// A bound on concurrent argon2 runs: a semaphore with a waiting limit.
pub struct HashLimiter {
    permits: Semaphore,
    wait: Duration,
}

impl HashLimiter {
    pub const fn new(places: usize, wait: Duration) -> Self {
        Self {
            permits: Semaphore::const_new(places),
            wait,
        }
    }

    /// A place, or 503 SERVICE_UNAVAILABLE (with `Retry-After`) after waiting `wait`.
    pub async fn enter(&self) -> Result<SemaphorePermit<'_>> {
        match tokio::time::timeout(self.wait, self.permits.acquire()).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) => Err(Error::internal("password hashing semaphore closed")),
            Err(_) => Err(Error::Overloaded {
                message: msg::TOO_MANY_SIGN_INS_AT_ONCE_TRY_AGAIN_IN_A_MOMENT,
                retry_after_secs: BUSY_RETRY_AFTER_SECS,
            }),
        }
    }
}

/// Hashes `password` into a PHC string.
pub async fn hash(password: String) -> Result<String> {
    // The place moves into the blocking task: a request dropped by its client still
    // holds it until the hash it started has finished.
    let permit = HASHING.enter().await?;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| Error::internal(format!("password hashing failed: {e}")))
    })
    .await
    .map_err(|e| Error::internal(format!("password hashing task failed: {e}")))?
}

/// Checks `password` against `phc`. With `phc = None` (unknown user) a dummy hash with
/// the same parameters is checked, so the answer takes as long as for a real account.
pub async fn verify(password: String, phc: Option<String>) -> Result<bool> {
    let permit = HASHING.enter().await?;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let known = phc.is_some();
        let phc = phc.unwrap_or_else(|| DUMMY_HASH.to_string());
        let parsed = PasswordHash::new(&phc)
            .map_err(|e| Error::internal(format!("stored password hash unreadable: {e}")))?;
        let matches = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        Ok(known && matches)
    })
    .await
    .map_err(|e| Error::internal(format!("password check task failed: {e}")))?
}

/// argon2id hash of a random string nobody knows, with the default parameters (the
/// parameters every stored hash has; a unit test keeps them equal).
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Y7wHPnb1cUjyHiJNqZ/5hB08ZMmoXpD4f8D+Y0Pd3i8";

/// A password of `len` characters with at least one upper-case letter, lower-case
/// letter, digit and symbol (the reset-password rule).
pub fn generate(len: usize) -> String {
    const UPPER: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ";
    const LOWER: &[u8] = b"abcdefghijkmnopqrstuvwxyz";
    const DIGIT: &[u8] = b"23456789";
    const SYMBOL: &[u8] = b"!@#$%^&*-_=+?";
    let len = len.max(4);
    let mut rng = rand::rng();
    let mut pick = |set: &[u8]| set[rng.random_range(0..set.len())] as char;
    let mut chars: Vec<char> = vec![pick(UPPER), pick(LOWER), pick(DIGIT), pick(SYMBOL)];
    let all: Vec<u8> = [UPPER, LOWER, DIGIT, SYMBOL].concat();
    while chars.len() < len {
        chars.push(pick(&all));
    }
    // Fisher-Yates so the four required classes are not always in front.
    let mut rng = rand::rng();
    for i in (1..chars.len()).rev() {
        let j = rng.random_range(0..=i);
        chars.swap(i, j);
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_passwords_have_every_class() {
        for _ in 0..200 {
            let p = generate(12);
            assert_eq!(p.chars().count(), 12);
            assert!(p.chars().any(|c| c.is_ascii_uppercase()), "{p}");
            assert!(p.chars().any(|c| c.is_ascii_lowercase()), "{p}");
            assert!(p.chars().any(|c| c.is_ascii_digit()), "{p}");
            assert!(p.chars().any(|c| !c.is_ascii_alphanumeric()), "{p}");
        }
    }

    #[tokio::test]
    async fn the_dummy_hash_costs_what_a_real_one_does() {
        let dummy = PasswordHash::new(DUMMY_HASH).unwrap_or_else(|e| panic!("{e}"));
        let real = hash("correct horse".into()).await.unwrap_or_default();
        let real = PasswordHash::new(&real).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(dummy.algorithm, real.algorithm);
        assert_eq!(dummy.version, real.version);
        assert_eq!(dummy.params, real.params);
        assert_eq!(
            dummy.hash.map(|h| h.len()),
            real.hash.map(|h| h.len()),
            "same output length"
        );
    }

    #[tokio::test]
    async fn a_full_limiter_refuses_after_its_wait_with_retry_after() {
        let limiter = HashLimiter::new(1, Duration::from_millis(50));
        let held = limiter.enter().await.unwrap_or_else(|e| panic!("{e}"));
        let started = std::time::Instant::now();
        match limiter.enter().await {
            Err(e @ Error::Overloaded { .. }) => {
                assert_eq!(e.status().as_u16(), 503);
                assert_eq!(e.code(), "SERVICE_UNAVAILABLE");
                assert_eq!(e.retry_after_secs(), Some(BUSY_RETRY_AFTER_SECS));
            }
            other => panic!("expected Overloaded, got {:?}", other.map(|_| ())),
        }
        assert!(started.elapsed() >= Duration::from_millis(50));
        drop(held);
        assert!(
            limiter.enter().await.is_ok(),
            "a freed place is taken at once"
        );
    }

    #[tokio::test]
    async fn hash_and_verify() {
        let phc = hash("correct horse".into()).await.unwrap_or_default();
        assert!(phc.starts_with("$argon2id$"));
        assert!(
            verify("correct horse".into(), Some(phc.clone()))
                .await
                .unwrap_or(false)
        );
        assert!(
            !verify("wrong horse".into(), Some(phc))
                .await
                .unwrap_or(true)
        );
        assert!(!verify("anything".into(), None).await.unwrap_or(true));
    }
}
