//! argon2id password hashing, run off the async runtime (it is deliberately slow).

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::Rng;

use crate::{Error, Result};

/// Hashes `password` into a PHC string.
pub async fn hash(password: String) -> Result<String> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| Error::internal(format!("password hashing failed: {e}")))
    })
    .await
    .map_err(|e| Error::internal(format!("password hashing task failed: {e}")))?
}

/// Checks `password` against `phc`. With `phc = None` (unknown user) a dummy hash is
/// checked so the answer takes as long as for a real account.
pub async fn verify(password: String, phc: Option<String>) -> Result<bool> {
    tokio::task::spawn_blocking(move || {
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

/// argon2id hash of a random string nobody knows, with the default parameters.
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
