//! Client of the NPPA anti-addiction real-name system (网络游戏防沉迷实名认证系统,
//! interface specification V1.8): the real-name check, the query of a pending check,
//! and the login/logout reports.
//!
//! # What it speaks
//! - Headers `appId`, `bizId`, `timestamps` (Unix milliseconds of the real clock: the
//!   system refuses a request more than 5 s old) and `sign`.
//! - `sign` = lowercase hex SHA-256 of: the secret key as given, then the system and
//!   URL parameters but `sign` sorted by name and written `keyvalue` with nothing
//!   between, then the body exactly as sent.
//! - A POST body is `{"data":"…"}`: standard base64 of a random 12-byte nonce, the
//!   AES-128-GCM ciphertext of the compact JSON, and its 16-byte tag; the key is the
//!   secret key's 32 hex digits decoded. The query call is a GET with `ai` in the URL
//!   and no body.
//! - Answers are plain JSON `{errcode, errmsg, data}`; `errcode` decides, whatever the
//!   HTTP status. A check answers `data.result.{status, pi}`: status 0 verified, 1 in
//!   progress, 2 failed.
//!
//! # Why errors map as they do
//! An ID number the system calls malformed (2001) is the player's input: 400. Its
//! traffic limit (1006, which throttles for a minute) is 503 with a 60 s `Retry-After`;
//! everything else (credentials, signature, IP allow-list, a timeout, no answer) is the
//! operator's or the system's problem: 503 with a short `Retry-After`. Names and ID
//! numbers are never logged; `errcode` and `errmsg` are.

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes128Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::NppaSettings;
use crate::message::msg;
use crate::{Error, Result};

/// The most reports one login/logout call carries.
pub const LOGINOUT_BATCH: usize = 128;

/// What a check or query says of a verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckOutcome {
    /// Verified: the person's `pi` (38 characters, the birth date first).
    Verified { pi: String },
    /// Still in progress: query again later.
    Pending,
    /// The name and ID number do not match a person.
    Failed,
}

/// One login (`bt` 1) or logout (`bt` 0) of a verified player's session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Behaviour {
    /// 1-128 within the call.
    pub no: u32,
    /// The session: its login and logout carry the same.
    pub si: String,
    pub bt: u8,
    /// Unix seconds.
    pub ot: i64,
    /// 0: a verified player (2 would be a guest, which this service never reports).
    pub ct: u8,
    pub pi: String,
}

/// What a login/logout call did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reported {
    All,
    /// These items (`no`) were refused; the rest were taken.
    AllBut(Vec<u32>),
}

pub struct NppaClient {
    settings: NppaSettings,
    key: [u8; 16],
    http: reqwest::Client,
}

#[derive(Deserialize)]
struct Answer {
    errcode: i64,
    #[serde(default)]
    errmsg: String,
    #[serde(default)]
    data: Option<serde_json::Value>,
}

impl NppaClient {
    pub fn new(settings: NppaSettings, http: reqwest::Client) -> anyhow::Result<Self> {
        let key = aes_key(settings.secret_key.expose())
            .ok_or_else(|| anyhow::anyhow!("NPPA_SECRET_KEY: must be 32 hex digits"))?;
        Ok(Self {
            settings,
            key,
            http,
        })
    }

    /// `POST …/idcard/authentication/check`: verifies a name and ID number under the
    /// verification id `ai` (32 characters, never reused).
    pub async fn check(&self, ai: &str, name: &str, id_number: &str) -> Result<CheckOutcome> {
        let plain = serde_json::json!({"ai": ai, "name": name, "idNum": id_number});
        let answer = self
            .post(&self.settings.check_url, &plain.to_string())
            .await?;
        outcome_of(answer)
    }

    /// `GET …/idcard/authentication/query?ai=`: the outcome of a pending check.
    pub async fn query(&self, ai: &str) -> Result<CheckOutcome> {
        let timestamps = timestamps();
        let sign = sign(
            self.settings.secret_key.expose(),
            &self.system_params(&timestamps),
            &[("ai", ai)],
            "",
        );
        let request = self
            .http
            .get(&self.settings.query_url)
            .query(&[("ai", ai)])
            .header("appId", &self.settings.app_id)
            .header("bizId", &self.settings.biz_id)
            .header("timestamps", &timestamps)
            .header("sign", sign);
        let answer = send(request).await?;
        // 2003: NPPA has no check under this id (purged 48 hours on): verify again
        if answer.errcode == 2003 {
            return Ok(CheckOutcome::Failed);
        }
        outcome_of(answer)
    }

    /// `POST …/behavior/collection/loginout`: at most [`LOGINOUT_BATCH`] reports.
    pub async fn loginout(&self, collections: &[Behaviour]) -> Result<Reported> {
        let plain = serde_json::json!({ "collections": collections });
        let answer = self
            .post(&self.settings.loginout_url, &plain.to_string())
            .await?;
        match answer.errcode {
            0 => Ok(Reported::All),
            // some items refused: data.results lists them (unreadable: all are retried)
            3001 => {
                let refused: Vec<u32> = answer
                    .data
                    .as_ref()
                    .and_then(|d| d.get("results"))
                    .and_then(|r| r.as_array())
                    .map(|items| {
                        items
                            .iter()
                            .filter_map(|i| i.get("no").and_then(serde_json::Value::as_u64))
                            .filter_map(|n| u32::try_from(n).ok())
                            .collect()
                    })
                    .unwrap_or_default();
                if refused.is_empty() {
                    return Err(unavailable(3001, "a partial refusal without its items"));
                }
                Ok(Reported::AllBut(refused))
            }
            code => Err(unavailable(code, &answer.errmsg)),
        }
    }

    fn system_params<'a>(&'a self, timestamps: &'a str) -> [(&'a str, &'a str); 3] {
        [
            ("appId", self.settings.app_id.as_str()),
            ("bizId", self.settings.biz_id.as_str()),
            ("timestamps", timestamps),
        ]
    }

    async fn post(&self, url: &str, plain: &str) -> Result<Answer> {
        let body = serde_json::json!({ "data": encrypt(&self.key, plain.as_bytes())? }).to_string();
        let timestamps = timestamps();
        let sign = sign(
            self.settings.secret_key.expose(),
            &self.system_params(&timestamps),
            &[],
            &body,
        );
        let request = self
            .http
            .post(url)
            .header("Content-Type", "application/json; charset=utf-8")
            .header("appId", &self.settings.app_id)
            .header("bizId", &self.settings.biz_id)
            .header("timestamps", &timestamps)
            .header("sign", sign)
            .body(body);
        send(request).await
    }
}

/// Unix milliseconds of the real clock (not the service clock: the system refuses a
/// request whose time is 5 s from its own).
fn timestamps() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis().to_string())
        .unwrap_or_default()
}

async fn send(request: reqwest::RequestBuilder) -> Result<Answer> {
    let response = request.send().await.map_err(|e| {
        tracing::warn!(error = %e, "NPPA: no answer");
        Error::Overloaded {
            message: msg::THE_REAL_NAME_SERVICE_IS_UNAVAILABLE_RETRY_SHORTLY,
            retry_after_secs: 5,
        }
    })?;
    let status = response.status();
    response.json::<Answer>().await.map_err(|e| {
        tracing::warn!(%status, error = %e, "NPPA: an answer that is not its JSON");
        Error::Overloaded {
            message: msg::THE_REAL_NAME_SERVICE_IS_UNAVAILABLE_RETRY_SHORTLY,
            retry_after_secs: 5,
        }
    })
}

fn outcome_of(answer: Answer) -> Result<CheckOutcome> {
    match answer.errcode {
        0 => {}
        2001 => {
            return Err(Error::validation(
                msg::IDNUMBER_IS_NOT_A_VALID_RESIDENT_ID_NUMBER,
            ));
        }
        code => return Err(unavailable(code, &answer.errmsg)),
    }
    let result = answer
        .data
        .as_ref()
        .and_then(|d| d.get("result"))
        .cloned()
        .unwrap_or_default();
    let status = result.get("status").and_then(serde_json::Value::as_i64);
    let pi = result.get("pi").and_then(serde_json::Value::as_str);
    match (status, pi) {
        (Some(0), Some(pi)) if pi.len() == 38 => Ok(CheckOutcome::Verified { pi: pi.into() }),
        (Some(1), _) => Ok(CheckOutcome::Pending),
        (Some(2), _) => Ok(CheckOutcome::Failed),
        _ => Err(unavailable(0, "a result without a status or a pi")),
    }
}

/// 503: the system refused the call for a reason the player can do nothing about.
fn unavailable(code: i64, errmsg: &str) -> Error {
    tracing::warn!(errcode = code, errmsg, "NPPA: call refused");
    Error::Overloaded {
        message: msg::THE_REAL_NAME_SERVICE_IS_UNAVAILABLE_RETRY_SHORTLY,
        // 1006: over the traffic limit, which throttles for a minute
        retry_after_secs: if code == 1006 { 60 } else { 5 },
    }
}

/// The AES-128 key of a secret key of 32 hex digits.
pub fn aes_key(secret: &str) -> Option<[u8; 16]> {
    let bytes = secret.as_bytes();
    if bytes.len() != 32 {
        return None;
    }
    let mut key = [0u8; 16];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let hex = std::str::from_utf8(pair).ok()?;
        key[i] = u8::from_str_radix(hex, 16).ok()?;
    }
    Some(key)
}

/// The `sign` header: SHA-256 over the secret, the sorted `keyvalue` parameters and the
/// body, in lowercase hex.
pub fn sign(
    secret: &str,
    system: &[(&str, &str)],
    url_params: &[(&str, &str)],
    body: &str,
) -> String {
    let mut params: Vec<&(&str, &str)> = system.iter().chain(url_params).collect();
    params.sort_by(|a, b| a.0.cmp(b.0));
    let mut hasher = Sha256::new();
    hasher.update(secret.as_bytes());
    for (key, value) in params {
        hasher.update(key.as_bytes());
        hasher.update(value.as_bytes());
    }
    hasher.update(body.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The `data` of a body: base64 of nonce, ciphertext and tag.
pub fn encrypt(key: &[u8; 16], plain: &[u8]) -> Result<String> {
    let nonce: [u8; 12] = rand::random();
    let cipher = Aes128Gcm::new(key.into());
    let sealed = cipher
        .encrypt(&Nonce::from(nonce), plain)
        .map_err(|_| Error::internal("NPPA body encryption failed"))?;
    let mut blob = nonce.to_vec();
    blob.extend_from_slice(&sealed);
    Ok(BASE64.encode(blob))
}

/// The plaintext of a body's `data` (the other side of [`encrypt`]).
pub fn decrypt(key: &[u8; 16], data: &str) -> Option<Vec<u8>> {
    let blob = BASE64.decode(data).ok()?;
    if blob.len() < 12 + 16 {
        return None;
    }
    let (nonce, sealed) = blob.split_at(12);
    let nonce: [u8; 12] = nonce.try_into().ok()?;
    Aes128Gcm::new(key.into())
        .decrypt(&Nonce::from(nonce), sealed)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "2836e95fcd10e04b0069bb1ee659955b";

    #[test]
    fn signs_as_the_specification_s_example() {
        let body = r#"{"data":"CqT/33f3jyoiYqT8MtxEFk3x2rlfhmgzhxpHqWosSj4d3hq2EbrtVyx2aLj565ZQNTcPrcDipnvpq/D/vQDaLKW70O83Q42zvR0//OfnYLcIjTPMnqa+SOhsjQrSdu66ySSORCAo"}"#;
        let signed = sign(
            SECRET,
            &[
                ("appId", "test-appId"),
                ("bizId", "test-bizId"),
                ("timestamps", "1584949895758"),
            ],
            &[("id", "test-id"), ("name", "test-name")],
            body,
        );
        assert_eq!(
            signed,
            "386c03b776a28c06b8032a958fbd89337424ef45c62d0422706cca633d8ad5fd"
        );
    }

    #[test]
    fn opens_the_specification_s_encrypted_example() {
        let key = aes_key(SECRET).unwrap_or_default();
        let data = "CqT/33f3jyoiYqT8MtxEFk3x2rlfhmgzhxpHqWosSj4d3hq2EbrtVyx2aLj565ZQNTcPrcDipnvpq/D/vQDaLKW70O83Q42zvR0//OfnYLcIjTPMnqa+SOhsjQrSdu66ySSORCAo";
        let plain = decrypt(&key, data).unwrap_or_default();
        assert_eq!(
            String::from_utf8(plain).unwrap_or_default(),
            r#"{"ai":"test-accountId","name":"用户姓名","idNum":"371321199012310912"}"#
        );
    }

    #[test]
    fn a_body_opens_with_its_key_only() {
        let key = aes_key(SECRET).unwrap_or_default();
        let data = encrypt(&key, b"{\"ai\":\"x\"}").unwrap_or_default();
        assert_eq!(decrypt(&key, &data), Some(b"{\"ai\":\"x\"}".to_vec()));
        let other = aes_key("00000000000000000000000000000000").unwrap_or_default();
        assert_eq!(decrypt(&other, &data), None);
        assert_eq!(aes_key("not hex at all, but 32 chars!!!!"), None);
    }
}
