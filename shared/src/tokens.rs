//! Player and admin tokens.
//!
//! Both are HS256 JWTs, signed with separate secrets and carrying different `aud`
//! claims, so neither kind can pass for the other even if one secret leaked. Each
//! token also says whether it is an access or a refresh token (`typ`). Expiry is
//! checked against the service clock, not the system clock. Refresh tokens are also
//! stored (hashed) so each works once.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::Duration;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::message::msg;
use crate::{Error, Result};

const ISSUER: &str = "quiz-game";

/// Who a token is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    Player,
    Admin,
}

impl Audience {
    pub fn claim(self) -> &'static str {
        match self {
            Self::Player => "quiz-player",
            Self::Admin => "quiz-admin",
        }
    }
    /// The `audience` column of `refresh_tokens`.
    pub fn column(self) -> &'static str {
        match self {
            Self::Player => "player",
            Self::Admin => "admin",
        }
    }
    pub fn access_ttl(self) -> Duration {
        match self {
            Self::Player => Duration::hours(2),
            Self::Admin => Duration::hours(1),
        }
    }
    pub fn refresh_ttl(self) -> Duration {
        Duration::days(30)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenType {
    Access,
    Refresh,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub aud: String,
    pub iss: String,
    pub iat: i64,
    pub exp: i64,
    pub typ: TokenType,
    /// Unique per token: refresh tokens are stored by the hash of the whole token.
    pub jti: String,
    /// The subject's token version when issued; bumping it ends older tokens.
    #[serde(default)]
    pub ver: i64,
}

/// A freshly issued access + refresh pair.
#[derive(Clone, Debug)]
pub struct IssuedPair {
    pub access_token: String,
    pub refresh_token: String,
    /// SHA-256 of the refresh token, the key it is stored under.
    pub refresh_hash: String,
    pub refresh_expires_at_ms: i64,
}

struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl Keys {
    fn new(secret: &[u8], audience: Audience) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&[audience.claim()]);
        validation.set_issuer(&[ISSUER]);
        // exp is checked against the service clock in `verify`
        validation.validate_exp = false;
        validation.required_spec_claims = ["exp", "aud", "iss", "sub"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
        }
    }
}

/// Signing and verification keys of both audiences.
pub struct TokenKeys {
    player: Keys,
    admin: Keys,
    /// Signs the console sign-in form's CSRF tokens; derived from the admin secret, so
    /// every admin-console process accepts every other's tokens.
    sign_in_form: [u8; 32],
}

type HmacSha256 = hmac::Hmac<Sha256>;

/// How long a sign-in form's CSRF token serves: a sitting at the form, not forever.
pub const SIGN_IN_FORM_TTL_SECS: i64 = 2 * 3600;

fn mac(key: &[u8]) -> HmacSha256 {
    use hmac::Mac as _;
    // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
    HmacSha256::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC accepts any key"))
}

impl TokenKeys {
    pub fn new(player_secret: &str, admin_secret: &str) -> Self {
        use hmac::Mac as _;
        let mut derive = mac(admin_secret.as_bytes());
        derive.update(b"quiz-console/sign-in-form-csrf/v1");
        Self {
            player: Keys::new(player_secret.as_bytes(), Audience::Player),
            admin: Keys::new(admin_secret.as_bytes(), Audience::Admin),
            sign_in_form: derive.finalize().into_bytes().into(),
        }
    }

    /// A CSRF token for the console's sign-in form, where no session exists yet (so an
    /// anonymous visit stores nothing): when it was made (Unix seconds, wall clock), a
    /// random value and their HMAC, `issued.nonce.mac`. The same token goes into a
    /// cookie and the form (signed double-submit cookie).
    pub fn sign_in_form_token(&self, now_secs: i64) -> String {
        use hmac::Mac as _;
        let mut nonce = [0u8; 16];
        rand::rng().fill_bytes(&mut nonce);
        let signed = format!("{now_secs}.{}", hex(&nonce));
        let mut m = mac(&self.sign_in_form);
        m.update(signed.as_bytes());
        format!("{signed}.{}", hex(&m.finalize().into_bytes()))
    }

    /// True when the cookie and the form carry the same token, it was signed here and
    /// made in the last [`SIGN_IN_FORM_TTL_SECS`] (so a harvested pair does not serve
    /// forever): compared in constant time.
    pub fn check_sign_in_form_token(
        &self,
        cookie: Option<&str>,
        field: Option<&str>,
        now_secs: i64,
    ) -> bool {
        use hmac::Mac as _;
        let (Some(cookie), Some(field)) = (cookie, field) else {
            return false;
        };
        if !constant_time_eq(cookie, field) {
            return false;
        }
        let Some((signed, tag)) = field.rsplit_once('.') else {
            return false;
        };
        let Some(issued) = signed
            .split_once('.')
            .and_then(|(issued, _)| issued.parse::<i64>().ok())
        else {
            return false;
        };
        if !(0..=SIGN_IN_FORM_TTL_SECS).contains(&(now_secs - issued)) {
            return false;
        }
        let Some(tag) = unhex(tag) else {
            return false;
        };
        let mut m = mac(&self.sign_in_form);
        m.update(signed.as_bytes());
        m.verify_slice(&tag).is_ok()
    }

    fn keys(&self, audience: Audience) -> &Keys {
        match audience {
            Audience::Player => &self.player,
            Audience::Admin => &self.admin,
        }
    }

    fn sign(
        &self,
        audience: Audience,
        typ: TokenType,
        subject: &str,
        version: i64,
        now_ms: i64,
        ttl: Duration,
    ) -> Result<String> {
        let iat = now_ms / 1000;
        let claims = Claims {
            sub: subject.to_string(),
            aud: audience.claim().to_string(),
            iss: ISSUER.to_string(),
            iat,
            exp: iat + ttl.num_seconds(),
            typ,
            jti: random_token(16),
            ver: version,
        };
        jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.keys(audience).encoding,
        )
        .map_err(|e| Error::internal(format!("token signing failed: {e}")))
    }

    /// Issues an access token and a refresh token for `subject`.
    pub fn issue_pair(
        &self,
        audience: Audience,
        subject: &str,
        version: i64,
        now_ms: i64,
    ) -> Result<IssuedPair> {
        let access_token = self.sign(
            audience,
            TokenType::Access,
            subject,
            version,
            now_ms,
            audience.access_ttl(),
        )?;
        let refresh_token = self.sign(
            audience,
            TokenType::Refresh,
            subject,
            version,
            now_ms,
            audience.refresh_ttl(),
        )?;
        Ok(IssuedPair {
            refresh_hash: hash_token(&refresh_token),
            refresh_expires_at_ms: now_ms + audience.refresh_ttl().num_milliseconds(),
            access_token,
            refresh_token,
        })
    }

    /// Verifies signature, algorithm, issuer, audience, type and expiry (service clock).
    pub fn verify(
        &self,
        audience: Audience,
        expected: TokenType,
        token: &str,
        now_ms: i64,
    ) -> Result<Claims> {
        let keys = self.keys(audience);
        let data = jsonwebtoken::decode::<Claims>(token, &keys.decoding, &keys.validation)
            .map_err(|_| Error::unauthorized(msg::INVALID_TOKEN))?;
        let claims = data.claims;
        if claims.typ != expected {
            return Err(Error::unauthorized(msg::WRONG_TOKEN_TYPE));
        }
        if claims.exp * 1000 <= now_ms {
            return Err(Error::unauthorized(msg::TOKEN_EXPIRED));
        }
        Ok(claims)
    }
}

/// SHA-256 of a token, hex: how refresh tokens are stored.
pub fn hash_token(token: &str) -> String {
    sha256_hex(token.as_bytes())
}

/// SHA-256 of `bytes`, in hex: how high-entropy secrets (tokens, recovery codes) and
/// values that must not be stored as typed (submitted usernames) are kept.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` random bytes, URL-safe base64.
pub fn random_token(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    URL_SAFE_NO_PAD.encode(buf)
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// Constant-time equality of two secrets (length differences still return early, which
/// reveals only the length).
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;

    fn keys() -> TokenKeys {
        TokenKeys::new(
            "player-secret-player-secret-player-secret",
            "admin-secret-admin-secret-admin-secret-xx",
        )
    }

    fn pair(k: &TokenKeys, audience: Audience) -> IssuedPair {
        k.issue_pair(audience, "subject-1", 3, NOW)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn sign_in_form_tokens_need_the_same_signed_value_in_cookie_and_form() {
        const AT: i64 = 1_795_000_000;
        let k = keys();
        let token = k.sign_in_form_token(AT);
        assert!(k.check_sign_in_form_token(Some(&token), Some(&token), AT));
        // Another process with the same admin secret accepts it.
        assert!(keys().check_sign_in_form_token(Some(&token), Some(&token), AT + 60));
        let other = k.sign_in_form_token(AT);
        assert_ne!(token, other);
        assert!(!k.check_sign_in_form_token(Some(&token), Some(&other), AT));
        assert!(!k.check_sign_in_form_token(None, Some(&token), AT));
        assert!(!k.check_sign_in_form_token(Some(&token), None, AT));
        // It serves a sitting at the form, not forever (nor from the future).
        assert!(k.check_sign_in_form_token(Some(&token), Some(&token), AT + SIGN_IN_FORM_TTL_SECS));
        assert!(!k.check_sign_in_form_token(
            Some(&token),
            Some(&token),
            AT + SIGN_IN_FORM_TTL_SECS + 1
        ));
        assert!(!k.check_sign_in_form_token(Some(&token), Some(&token), AT - 1));
        // A value the client made up, even the same in both places, is not signed; nor
        // is a signed one whose time was changed.
        let forged = format!("{AT}.{}.{}", "00".repeat(16), "11".repeat(32));
        assert!(!k.check_sign_in_form_token(Some(&forged), Some(&forged), AT));
        let moved = token.replacen(&AT.to_string(), &(AT + 100).to_string(), 1);
        assert!(!k.check_sign_in_form_token(Some(&moved), Some(&moved), AT + 100));
        for junk in ["", "x", "abc.zz", "abc.", "1.2.3"] {
            assert!(!k.check_sign_in_form_token(Some(junk), Some(junk), AT));
        }
        // Another admin secret: refused.
        let elsewhere = TokenKeys::new(
            "player-secret-player-secret-player-secret",
            "another-admin-secret-another-admin-secret",
        );
        assert!(!elsewhere.check_sign_in_form_token(Some(&token), Some(&token), AT));
    }

    #[test]
    fn a_token_verifies_for_its_own_audience_and_type() {
        let k = keys();
        let p = pair(&k, Audience::Player);
        let claims = k
            .verify(Audience::Player, TokenType::Access, &p.access_token, NOW)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(claims.sub, "subject-1");
        assert_eq!(claims.ver, 3);
        assert!(
            k.verify(Audience::Player, TokenType::Refresh, &p.refresh_token, NOW)
                .is_ok()
        );
    }

    #[test]
    fn player_and_admin_tokens_never_pass_for_each_other() {
        let k = keys();
        let player = pair(&k, Audience::Player);
        let admin = pair(&k, Audience::Admin);
        assert!(
            k.verify(
                Audience::Admin,
                TokenType::Access,
                &player.access_token,
                NOW
            )
            .is_err()
        );
        assert!(
            k.verify(
                Audience::Player,
                TokenType::Access,
                &admin.access_token,
                NOW
            )
            .is_err()
        );
        // Even signed with the same secret, the audience claim refuses it.
        let same = TokenKeys::new(
            "one-secret-for-both-one-secret-for-both",
            "one-secret-for-both-one-secret-for-both",
        );
        let p = pair(&same, Audience::Player);
        assert!(
            same.verify(Audience::Admin, TokenType::Access, &p.access_token, NOW)
                .is_err()
        );
    }

    #[test]
    fn refresh_is_not_access_and_the_reverse() {
        let k = keys();
        let p = pair(&k, Audience::Player);
        assert!(
            k.verify(Audience::Player, TokenType::Access, &p.refresh_token, NOW)
                .is_err()
        );
        assert!(
            k.verify(Audience::Player, TokenType::Refresh, &p.access_token, NOW)
                .is_err()
        );
    }

    #[test]
    fn expiry_follows_the_service_clock() {
        let k = keys();
        let p = pair(&k, Audience::Player);
        let two_hours = 2 * 3600 * 1000;
        assert!(
            k.verify(
                Audience::Player,
                TokenType::Access,
                &p.access_token,
                NOW + two_hours - 1000
            )
            .is_ok()
        );
        assert!(
            k.verify(
                Audience::Player,
                TokenType::Access,
                &p.access_token,
                NOW + two_hours
            )
            .is_err()
        );
        let admin = pair(&k, Audience::Admin);
        assert!(
            k.verify(
                Audience::Admin,
                TokenType::Access,
                &admin.access_token,
                NOW + 3600 * 1000
            )
            .is_err()
        );
    }

    #[test]
    fn tampered_and_unsigned_tokens_are_refused() {
        let k = keys();
        let p = pair(&k, Audience::Player);
        let mut parts: Vec<&str> = p.access_token.split('.').collect();
        // alg: none with the same claims
        let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        parts[0] = &none_header;
        let unsigned = format!("{}.{}.", parts[0], parts[1]);
        assert!(
            k.verify(Audience::Player, TokenType::Access, &unsigned, NOW)
                .is_err()
        );
        let other = TokenKeys::new(
            "another-secret-another-secret-another-se",
            "another-admin-secret-another-admin-secre",
        );
        let forged = pair(&other, Audience::Player);
        assert!(
            k.verify(
                Audience::Player,
                TokenType::Access,
                &forged.access_token,
                NOW
            )
            .is_err()
        );
    }

    #[test]
    fn constant_time_eq_compares_content() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "abcd"));
    }
}
