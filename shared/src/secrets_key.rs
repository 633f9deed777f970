//! Secrets the service must read back, sealed at rest: AES-256-GCM under `SECRETS_KEY`
//! (the admins' TOTP secrets). A database dump alone then reveals none of them.
//!
//! A sealed value is text, `v1.` and the unpadded base64url of a random 96-bit nonce
//! followed by the ciphertext and its tag. The caller names what the value belongs to
//! (`context`, bound as associated data), so a sealed value copied into another row does
//! not open there. Random nonces are safe for far more values than this seals (NIST SP
//! 800-38D allows 2^32 per key).

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use rand::RngCore;

/// The prefix of a sealed value (its format's version). Stored values without it are
/// from before sealing: base32 TOTP secrets never contain a `.`.
const SEALED_PREFIX: &str = "v1.";
const NONCE_BYTES: usize = 12;
/// `SECRETS_KEY` decodes to this many bytes (AES-256).
pub const KEY_BYTES: usize = 32;

/// The key that seals and opens stored secrets. No `Debug` of its bytes.
#[derive(Clone)]
pub struct SecretsKey {
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for SecretsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretsKey(***)")
    }
}

/// What opening a stored value found.
#[derive(Debug, PartialEq, Eq)]
pub enum Opened {
    /// A value sealed with this key.
    Sealed(String),
    /// A value stored before sealing, as it was written.
    Plain(String),
}

impl Opened {
    pub fn into_inner(self) -> String {
        match self {
            Self::Sealed(v) | Self::Plain(v) => v,
        }
    }
}

/// A stored value that does not open with this key: sealed with another key, or damaged.
#[derive(Debug, thiserror::Error)]
#[error("a sealed value does not open with SECRETS_KEY (another key sealed it, or it is damaged)")]
pub struct WrongKey;

impl SecretsKey {
    /// The key of a `SECRETS_KEY` value: standard base64 of 32 bytes.
    pub fn from_base64(text: &str) -> Result<Self, String> {
        let bytes = STANDARD.decode(text.trim()).map_err(|_| {
            "SECRETS_KEY must be base64 (e.g. `openssl rand -base64 32`)".to_string()
        })?;
        if bytes.len() != KEY_BYTES {
            return Err(format!(
                "SECRETS_KEY must be base64 of {KEY_BYTES} bytes, not {} (e.g. `openssl rand -base64 32`)",
                bytes.len()
            ));
        }
        Ok(Self {
            cipher: Aes256Gcm::new_from_slice(&bytes)
                .map_err(|_| "SECRETS_KEY has the wrong length".to_string())?,
        })
    }

    /// A fresh random key as `SECRETS_KEY` writes it (development: stored in the database).
    pub fn generate_base64() -> String {
        let mut bytes = [0u8; KEY_BYTES];
        rand::rng().fill_bytes(&mut bytes);
        STANDARD.encode(bytes)
    }

    /// Seals `plain` for the row `context` names.
    pub fn seal(&self, plain: &str, context: &str) -> crate::Result<String> {
        let mut nonce = [0u8; NONCE_BYTES];
        rand::rng().fill_bytes(&mut nonce);
        let sealed = self
            .cipher
            .encrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: plain.as_bytes(),
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| crate::Error::internal("sealing a secret failed"))?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(format!("{SEALED_PREFIX}{}", URL_SAFE_NO_PAD.encode(out)))
    }

    /// Opens a stored value of the row `context` names: a sealed one (which must open
    /// with this key and this context), or a plain one from before sealing.
    pub fn open(&self, stored: &str, context: &str) -> Result<Opened, WrongKey> {
        let Some(encoded) = stored.strip_prefix(SEALED_PREFIX) else {
            return Ok(Opened::Plain(stored.to_string()));
        };
        let bytes = URL_SAFE_NO_PAD.decode(encoded).map_err(|_| WrongKey)?;
        let (nonce, sealed) = bytes.split_first_chunk::<NONCE_BYTES>().ok_or(WrongKey)?;
        let plain = self
            .cipher
            .decrypt(
                &Nonce::from(*nonce),
                Payload {
                    msg: sealed,
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| WrongKey)?;
        String::from_utf8(plain)
            .map(Opened::Sealed)
            .map_err(|_| WrongKey)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SecretsKey {
        SecretsKey::from_base64(&SecretsKey::generate_base64()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn sealed_values_open_only_with_their_key_and_context() {
        let key = key();
        let sealed = key
            .seal("JBSWY3DPEHPK3PXP", "admin_mfa:a1")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(sealed.starts_with("v1.") && !sealed.contains("JBSWY3DPEHPK3PXP"));
        assert_eq!(
            key.open(&sealed, "admin_mfa:a1").ok(),
            Some(Opened::Sealed("JBSWY3DPEHPK3PXP".into()))
        );
        // Each seal draws a new nonce.
        assert_ne!(
            sealed,
            key.seal("JBSWY3DPEHPK3PXP", "admin_mfa:a1")
                .unwrap_or_else(|e| panic!("{e}"))
        );
        assert!(key.open(&sealed, "admin_mfa:a2").is_err());
        assert!(self::key().open(&sealed, "admin_mfa:a1").is_err());
        let mut tampered = sealed.clone();
        tampered.pop();
        tampered.push(if sealed.ends_with('A') { 'B' } else { 'A' });
        assert!(key.open(&tampered, "admin_mfa:a1").is_err());
        assert!(key.open("v1.", "admin_mfa:a1").is_err());
    }

    #[test]
    fn values_from_before_sealing_open_as_they_are() {
        assert_eq!(
            key().open("JBSWY3DPEHPK3PXP", "admin_mfa:a1").ok(),
            Some(Opened::Plain("JBSWY3DPEHPK3PXP".into()))
        );
    }

    #[test]
    fn keys_are_base64_of_32_bytes() {
        assert!(SecretsKey::from_base64(&STANDARD.encode([7u8; 32])).is_ok());
        let short = SecretsKey::from_base64(&STANDARD.encode([7u8; 16])).err();
        assert!(short.is_some_and(|e| e.contains("32 bytes, not 16")));
        assert!(SecretsKey::from_base64("not base64!").is_err());
        assert_eq!(format!("{:?}", key()), "SecretsKey(***)");
    }
}
