//! Client of the Alibaba Cloud Phone Number Verification Service (product `Dypnsapi`,
//! API version `2017-05-25`): the SMS verification-code pair `SendSmsVerifyCode` and
//! `CheckSmsVerifyCode`.
//!
//! # What it speaks
//! Alibaba Cloud's RPC style: one `GET {endpoint}/?{query}` per call, every parameter in
//! the query string. Besides the action's own parameters each request carries the common
//! ones (`Action`, `Version=2017-05-25`, `Format=JSON`, `AccessKeyId`,
//! `SignatureMethod=HMAC-SHA1`, `SignatureVersion=1.0`, a fresh random `SignatureNonce`
//! and a `Timestamp` in UTC, `YYYY-MM-DDThh:mm:ssZ`, taken from the real system clock
//! because the service rejects requests whose timestamp is too far from its own) and the
//! `Signature` of RPC signature v1:
//!
//! 1. sort every parameter but `Signature` by name;
//! 2. percent-encode names and values per RFC 3986 (only `A-Z a-z 0-9 - _ . ~` stay as
//!    they are, the rest of the UTF-8 bytes become `%XX` with uppercase hex, so a space is
//!    `%20` and `*` is `%2A`) and join them as `k=v&k=v…`;
//! 3. string to sign = `GET&%2F&` + percent-encode(that canonical query);
//! 4. `Signature` = base64(HMAC-SHA1(key = AccessKeySecret + `&`, string to sign)).
//!
//! The code is generated, sent and remembered by the service itself
//! (`TemplateParam={"code":"##code##","min":"5"}`, six digits, valid 300 s, at most one
//! per 60 s per number); this backend never sees it until the player types it back, and
//! `CheckSmsVerifyCode` answers `Model.VerifyResult` = `PASS` or `UNKNOWN`.
//!
//! # Why errors map as they do
//! The service answers JSON with a `Code` (`OK` on success) whatever the HTTP status, so
//! the `Code` decides, not the status:
//! - a number the service refuses (`isv.MOBILE_NUMBER_ILLEGAL`,
//!   `isv.MOBILE_COUNT_OVER_LIMIT`, `InvalidPhoneNumber…`) is the caller's input problem:
//!   [`Error::Validation`] (400), so the app can ask for another number;
//! - its business rate limits (`isv.BUSINESS_LIMIT_CONTROL`, `biz.FREQUENCY…`,
//!   `Throttling…`) mean "not now" for this number or account: [`Error::RateLimited`]
//!   (429) with a 60 s `Retry-After`, the service's own minimum interval between codes;
//! - for `CheckSmsVerifyCode`, a code the service reports as wrong or expired (a verify
//!   error code, or any `VerifyResult` other than `PASS`) is an answer, not a failure:
//!   `Ok(false)`, which the caller turns into its own "invalid code" reply;
//! - everything else (credentials, signature, sign name or template refused, account out
//!   of service, a non-JSON answer, a timeout, no answer at all) is the provider's or the
//!   operator's problem the player can do nothing about: [`Error::SmsProvider`] (503).
//!
//! The messages of the returned errors are generic (they reach the client); the
//! service's `Code` and `RequestId` are logged instead. Neither the AccessKeySecret nor a
//! verification code is ever logged, and phone numbers only masked (`138****1234`) at
//! debug level.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Deserialize;
use sha1::Sha1;

use crate::config::AliyunSettings;
use crate::message::msg;
use crate::{Error, Result};

/// API version of `Dypnsapi` this client speaks.
const API_VERSION: &str = "2017-05-25";
/// How long one request may take before it counts as "no answer".
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// `Retry-After` for the service's business rate limits: its minimum interval between two
/// codes to one number.
const RATE_LIMIT_RETRY_SECS: u64 = 60;
/// The template parameter that lets the service generate the code itself.
const TEMPLATE_PARAM: &str = r###"{"code":"##code##","min":"5"}"###;
/// Seconds a code stays valid.
const VALID_TIME_SECS: &str = "300";
/// Minimum seconds between two codes to one number.
const INTERVAL_SECS: &str = "60";
const COUNTRY_CODE: &str = "86";
const CODE_LENGTH: &str = "6";

/// Everything but the RFC 3986 unreserved characters `A-Z a-z 0-9 - _ . ~`.
const RFC3986: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A client of `SendSmsVerifyCode` / `CheckSmsVerifyCode`.
#[derive(Clone, Debug)]
pub struct AliyunSmsClient {
    http: reqwest::Client,
    settings: AliyunSettings,
    timeout: Duration,
}

impl AliyunSmsClient {
    pub fn new(settings: AliyunSettings, http: reqwest::Client) -> Self {
        Self {
            http,
            settings,
            timeout: REQUEST_TIMEOUT,
        }
    }

    /// Asks the service to send a code. Ok(()) when Code == "OK".
    /// A number the service refuses (isv.MOBILE_NUMBER_ILLEGAL, isv.MOBILE_COUNT_OVER_LIMIT-style
    /// number problems, InvalidPhoneNumber…) -> Error::Validation;
    /// its business rate limits (isv.BUSINESS_LIMIT_CONTROL, biz.FREQUENCY, Throttling*) ->
    /// Error::RateLimited { retry_after_secs: 60 };
    /// anything else, a non-JSON answer, a timeout or no answer -> Error::SmsProvider.
    pub async fn send_code(&self, phone: &str) -> Result<()> {
        let extra = [
            ("PhoneNumber", phone),
            ("SignName", self.settings.sign_name.as_str()),
            ("TemplateCode", self.settings.template_code.as_str()),
            ("TemplateParam", TEMPLATE_PARAM),
            ("ValidTime", VALID_TIME_SECS),
            ("Interval", INTERVAL_SECS),
            ("CountryCode", COUNTRY_CODE),
            ("CodeLength", CODE_LENGTH),
        ];
        let masked = mask_phone(phone);
        tracing::debug!(phone = %masked, "aliyun: SendSmsVerifyCode");
        let reply = self.call("SendSmsVerifyCode", &extra).await?;
        match classify(&reply.code, Action::Send) {
            CodeClass::Ok if reply.http_ok => {
                tracing::debug!(phone = %masked, request_id = %reply.request_id, "aliyun: code sent");
                Ok(())
            }
            CodeClass::InvalidNumber => {
                reply.log_refusal("SendSmsVerifyCode", &masked);
                Err(Error::validation(
                    msg::THE_SMS_SERVICE_REFUSED_THIS_PHONE_NUMBER,
                ))
            }
            CodeClass::RateLimited => {
                reply.log_refusal("SendSmsVerifyCode", &masked);
                Err(rate_limited())
            }
            CodeClass::Ok | CodeClass::WrongCode | CodeClass::Failure => {
                Err(reply.failure("SendSmsVerifyCode"))
            }
        }
    }

    /// Ok(true) when Code == "OK" and Model.VerifyResult == "PASS"; Ok(false) for any other
    /// verify result or a code the service reports as wrong/expired (isv.* verify errors);
    /// transport failures / unexpected answers -> Error::SmsProvider.
    ///
    /// The service's number refusals and rate limits map as for [`Self::send_code`]
    /// (Validation, RateLimited): they are truthful answers, not provider failures.
    pub async fn check_code(&self, phone: &str, code: &str) -> Result<bool> {
        let extra = [
            ("PhoneNumber", phone),
            ("VerifyCode", code),
            ("CountryCode", COUNTRY_CODE),
        ];
        let masked = mask_phone(phone);
        tracing::debug!(phone = %masked, "aliyun: CheckSmsVerifyCode");
        let reply = self.call("CheckSmsVerifyCode", &extra).await?;
        match classify(&reply.code, Action::Check) {
            CodeClass::Ok if reply.http_ok => match reply.verify_result.as_deref() {
                Some(result) => {
                    let pass = result == "PASS";
                    tracing::debug!(
                        phone = %masked,
                        pass,
                        request_id = %reply.request_id,
                        "aliyun: code checked"
                    );
                    Ok(pass)
                }
                None => {
                    tracing::warn!(
                        request_id = %reply.request_id,
                        "aliyun: CheckSmsVerifyCode answered OK without Model.VerifyResult"
                    );
                    Err(provider_error())
                }
            },
            CodeClass::WrongCode => {
                tracing::debug!(
                    phone = %masked,
                    code = %reply.code,
                    request_id = %reply.request_id,
                    "aliyun: code reported wrong or expired"
                );
                Ok(false)
            }
            CodeClass::InvalidNumber => {
                reply.log_refusal("CheckSmsVerifyCode", &masked);
                Err(Error::validation(
                    msg::THE_SMS_SERVICE_REFUSED_THIS_PHONE_NUMBER,
                ))
            }
            CodeClass::RateLimited => {
                reply.log_refusal("CheckSmsVerifyCode", &masked);
                Err(rate_limited())
            }
            CodeClass::Ok | CodeClass::Failure => Err(reply.failure("CheckSmsVerifyCode")),
        }
    }

    /// Signs and sends one RPC call; any answer with a JSON `Code` comes back, whatever
    /// its HTTP status. No answer, an unreadable one or one without `Code` is
    /// [`Error::SmsProvider`].
    async fn call(&self, action: &str, extra: &[(&str, &str)]) -> Result<Reply> {
        let nonce = uuid::Uuid::new_v4().to_string();
        let timestamp = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let params = request_params(
            action,
            &self.settings.access_key_id,
            &nonce,
            &timestamp,
            extra,
        );
        let query = signed_query(&params, self.settings.access_key_secret.expose());
        let url = format!("{}/?{query}", self.settings.endpoint.trim_end_matches('/'));

        // The URL carries the signature and the verification code: never log it, nor
        // the reqwest error (whose Display includes the URL); only its kind.
        let response = match self.http.get(url).timeout(self.timeout).send().await {
            Ok(response) => response,
            Err(e) => {
                tracing::warn!(
                    action,
                    timeout = e.is_timeout(),
                    connect = e.is_connect(),
                    "aliyun: no answer from the SMS service"
                );
                return Err(provider_error());
            }
        };
        let status = response.status();
        let body = match response.bytes().await {
            Ok(body) => body,
            Err(e) => {
                tracing::warn!(
                    action,
                    status = status.as_u16(),
                    timeout = e.is_timeout(),
                    "aliyun: answer of the SMS service could not be read"
                );
                return Err(provider_error());
            }
        };
        let parsed: RawResponse = match serde_json::from_slice(&body) {
            Ok(parsed) => parsed,
            Err(_) => {
                tracing::warn!(
                    action,
                    status = status.as_u16(),
                    body_len = body.len(),
                    "aliyun: answer of the SMS service is not the expected JSON"
                );
                return Err(provider_error());
            }
        };
        let Some(code) = parsed.code else {
            tracing::warn!(
                action,
                status = status.as_u16(),
                "aliyun: answer of the SMS service carries no Code"
            );
            return Err(provider_error());
        };
        let verify_result = parsed
            .model
            .as_ref()
            .and_then(|m| m.get("VerifyResult"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned);
        Ok(Reply {
            http_ok: status.is_success(),
            status: status.as_u16(),
            code,
            request_id: parsed.request_id.unwrap_or_default(),
            verify_result,
        })
    }
}

/// The fields of an answer this client reads.
#[derive(Deserialize)]
struct RawResponse {
    #[serde(rename = "Code")]
    code: Option<String>,
    #[serde(rename = "RequestId")]
    request_id: Option<String>,
    #[serde(rename = "Model")]
    model: Option<serde_json::Value>,
}

/// A parsed answer carrying a `Code`.
struct Reply {
    http_ok: bool,
    status: u16,
    code: String,
    request_id: String,
    verify_result: Option<String>,
}

impl Reply {
    /// Logs a refusal that is the caller's business (bad number, rate limit).
    fn log_refusal(&self, action: &str, masked_phone: &str) {
        tracing::debug!(
            action,
            phone = %masked_phone,
            status = self.status,
            code = %self.code,
            request_id = %self.request_id,
            "aliyun: request refused"
        );
    }

    /// Logs and builds the error of an answer that is the provider's or operator's
    /// problem.
    fn failure(&self, action: &str) -> Error {
        tracing::warn!(
            action,
            status = self.status,
            code = %self.code,
            request_id = %self.request_id,
            "aliyun: SMS service call failed"
        );
        provider_error()
    }
}

fn provider_error() -> Error {
    Error::SmsProvider(msg::THE_SMS_VERIFICATION_SERVICE_IS_UNAVAILABLE_TRY_AGAIN_LATER)
}

fn rate_limited() -> Error {
    Error::RateLimited {
        message: msg::TOO_MANY_VERIFICATION_CODES_REQUESTED_TRY_AGAIN_LATER,
        retry_after_secs: RATE_LIMIT_RETRY_SECS,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Send,
    Check,
}

/// What a `Code` of the service means for the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CodeClass {
    Ok,
    /// The number itself is refused.
    InvalidNumber,
    /// A business rate limit: try again later.
    RateLimited,
    /// `CheckSmsVerifyCode` only: the code is wrong, expired or already used.
    WrongCode,
    /// Anything else: configuration, account, signature, the service itself.
    Failure,
}

fn classify(code: &str, action: Action) -> CodeClass {
    if code == "OK" {
        return CodeClass::Ok;
    }
    let upper = code.to_ascii_uppercase();
    if upper == "ISV.BUSINESS_LIMIT_CONTROL"
        || upper.starts_with("BIZ.FREQUENCY")
        || upper.starts_with("THROTTLING")
    {
        return CodeClass::RateLimited;
    }
    let names_number = [
        "MOBILE_NUMBER",
        "PHONE_NUMBER",
        "PHONENUMBER",
        "MOBILE_COUNT",
    ]
    .iter()
    .any(|needle| upper.contains(needle))
        || upper == "MOBILE.INVALID";
    // `MissingPhoneNumber` is this client's bug, not the player's number.
    if names_number && !upper.starts_with("MISSING") {
        return CodeClass::InvalidNumber;
    }
    if action == Action::Check
        && [
            "VERIFY_CODE",
            "VERIFYCODE",
            "SMS_CODE",
            "SMSCODE",
            "VALIDATEFAIL",
            "VALIDATE_FAIL",
            "CODE_EXPIRED",
            "CODE_ERROR",
        ]
        .iter()
        .any(|needle| upper.contains(needle))
        && !upper.starts_with("MISSING")
    {
        return CodeClass::WrongCode;
    }
    CodeClass::Failure
}

/// `13812341234` -> `138****1234`; anything too short to mask meaningfully -> `****`.
fn mask_phone(phone: &str) -> String {
    let chars: Vec<char> = phone.chars().collect();
    if chars.len() < 8 {
        return "****".to_string();
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}****{tail}")
}

/// RFC 3986 percent-encoding as RPC signature v1 wants it: UTF-8 bytes, everything but
/// `A-Z a-z 0-9 - _ . ~` as `%XX` with uppercase hex (space `%20`, `*` `%2A`).
fn percent_encode(value: &str) -> String {
    utf8_percent_encode(value, RFC3986).to_string()
}

/// The common parameters plus the action's own, unsigned and unsorted.
fn request_params(
    action: &str,
    access_key_id: &str,
    nonce: &str,
    timestamp: &str,
    extra: &[(&str, &str)],
) -> Vec<(String, String)> {
    let common = [
        ("Action", action),
        ("Version", API_VERSION),
        ("Format", "JSON"),
        ("AccessKeyId", access_key_id),
        ("SignatureMethod", "HMAC-SHA1"),
        ("SignatureVersion", "1.0"),
        ("SignatureNonce", nonce),
        ("Timestamp", timestamp),
    ];
    common
        .iter()
        .chain(extra)
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}

/// `k=v&k=v…` of every parameter but `Signature`, sorted by name, names and values
/// percent-encoded.
fn canonicalized_query(params: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> =
        params.iter().filter(|(k, _)| k != "Signature").collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    sorted
        .iter()
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The `Signature` of RPC signature v1 for these parameters (any `Signature` among them
/// is ignored).
fn sign(params: &[(String, String)], secret: &str) -> String {
    let string_to_sign = format!(
        "GET&{}&{}",
        percent_encode("/"),
        percent_encode(&canonicalized_query(params))
    );
    let key = format!("{secret}&");
    // HMAC accepts keys of any length, so this never falls back.
    let mut mac = match <Hmac<Sha1> as Mac>::new_from_slice(key.as_bytes()) {
        Ok(mac) => mac,
        Err(_) => return String::new(),
    };
    mac.update(string_to_sign.as_bytes());
    BASE64.encode(mac.finalize().into_bytes())
}

/// The query string to send: the canonicalized query followed by its `Signature`.
fn signed_query(params: &[(String, String)], secret: &str) -> String {
    let signature = sign(params, secret);
    format!(
        "{}&Signature={}",
        canonicalized_query(params),
        percent_encode(&signature)
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use wiremock::matchers::{method, path, query_param};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;
    use crate::config::Secret;

    const SECRET: &str = "test/Secret+Key=";

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    /// Percent-encoding written out byte by byte from RFC 3986, independent of the
    /// `percent-encoding` crate.
    fn reference_encode(value: &str) -> String {
        let mut out = String::new();
        for byte in value.bytes() {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
                out.push(char::from(byte));
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
        out
    }

    /// The documented algorithm written out independently of the module's functions.
    fn reference_signature(params: &BTreeMap<String, String>, secret: &str) -> String {
        let canonical = params
            .iter()
            .filter(|(k, _)| k.as_str() != "Signature")
            .map(|(k, v)| format!("{}={}", reference_encode(k), reference_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let string_to_sign = format!("GET&%2F&{}", reference_encode(&canonical));
        let mut mac = Hmac::<Sha1>::new_from_slice(format!("{secret}&").as_bytes()).unwrap();
        mac.update(string_to_sign.as_bytes());
        BASE64.encode(mac.finalize().into_bytes())
    }

    /// A fixed SendSmsVerifyCode parameter set (fixed nonce and timestamp) with a sign
    /// name that exercises the encoding (Chinese, space, `*`, `~`).
    fn fixed_params() -> Vec<(String, String)> {
        request_params(
            "SendSmsVerifyCode",
            "LTAI5tTestKeyId",
            "9b2f1c4e-5d6a-4e8b-9c0d-1a2b3c4d5e6f",
            "2024-05-01T08:30:00Z",
            &[
                ("PhoneNumber", "13800138000"),
                ("SignName", "速通 知识*问答~"),
                ("TemplateCode", "SMS_123456789"),
                ("TemplateParam", TEMPLATE_PARAM),
                ("ValidTime", "300"),
                ("Interval", "60"),
                ("CountryCode", "86"),
                ("CodeLength", "6"),
            ],
        )
    }

    #[test]
    fn sign_matches_independent_computation_and_python_vector() {
        let params = fixed_params();
        let expected: BTreeMap<String, String> = params.iter().cloned().collect();
        let signature = sign(&params, SECRET);
        assert_eq!(signature, reference_signature(&expected, SECRET));
        // Derived once with:
        // python3 -c 'import hmac,hashlib,base64,urllib.parse as u; pe=lambda s:u.quote(s,safe="~"); ...'
        // (sorted params, pe on names and values, "GET&%2F&"+pe(query), key secret+"&").
        assert_eq!(signature, "4EMxh6S4dyOJfMNz01u1bMIsMHc=");
    }

    #[test]
    fn canonicalized_query_matches_python_vector() {
        assert_eq!(
            canonicalized_query(&fixed_params()),
            "AccessKeyId=LTAI5tTestKeyId&Action=SendSmsVerifyCode&CodeLength=6&CountryCode=86\
             &Format=JSON&Interval=60&PhoneNumber=13800138000\
             &SignName=%E9%80%9F%E9%80%9A%20%E7%9F%A5%E8%AF%86%2A%E9%97%AE%E7%AD%94~\
             &SignatureMethod=HMAC-SHA1&SignatureNonce=9b2f1c4e-5d6a-4e8b-9c0d-1a2b3c4d5e6f\
             &SignatureVersion=1.0&TemplateCode=SMS_123456789\
             &TemplateParam=%7B%22code%22%3A%22%23%23code%23%23%22%2C%22min%22%3A%225%22%7D\
             &Timestamp=2024-05-01T08%3A30%3A00Z&ValidTime=300&Version=2017-05-25"
        );
    }

    #[test]
    fn sign_matches_alibaba_documented_example() {
        // The worked example of Alibaba Cloud's RPC signature documentation
        // (DescribeRegions, secret "testsecret"); also reproduced with the Python above.
        let params = pairs(&[
            ("AccessKeyId", "testid"),
            ("Action", "DescribeRegions"),
            ("Format", "XML"),
            ("SignatureMethod", "HMAC-SHA1"),
            ("SignatureNonce", "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf"),
            ("SignatureVersion", "1.0"),
            ("Timestamp", "2016-02-23T12:46:24Z"),
            ("Version", "2014-05-26"),
        ]);
        assert_eq!(sign(&params, "testsecret"), "OLeaidS1JvxuMvnyHOwuJ+uX5qY=");
    }

    #[test]
    fn sign_ignores_parameter_order_and_an_existing_signature() {
        let params = fixed_params();
        let mut shuffled: Vec<(String, String)> = params.iter().rev().cloned().collect();
        shuffled.push(("Signature".into(), "stale".into()));
        assert_eq!(sign(&params, SECRET), sign(&shuffled, SECRET));
        assert_ne!(sign(&params, SECRET), sign(&params, "other"));
    }

    #[test]
    fn signed_query_appends_the_encoded_signature() {
        let params = fixed_params();
        let query = signed_query(&params, SECRET);
        assert_eq!(
            query,
            format!(
                "{}&Signature=4EMxh6S4dyOJfMNz01u1bMIsMHc%3D",
                canonicalized_query(&params)
            )
        );
    }

    #[test]
    fn percent_encode_follows_rfc3986() {
        assert_eq!(percent_encode(" "), "%20");
        assert_eq!(percent_encode("*"), "%2A");
        assert_eq!(percent_encode("~"), "~");
        assert_eq!(percent_encode("/"), "%2F");
        assert_eq!(percent_encode("+"), "%2B");
        assert_eq!(percent_encode("="), "%3D");
        assert_eq!(percent_encode("速通"), "%E9%80%9F%E9%80%9A");
        assert_eq!(percent_encode("a b*c~d/e+f=g"), "a%20b%2Ac~d%2Fe%2Bf%3Dg");
        assert_eq!(percent_encode("AZaz09-_.~"), "AZaz09-_.~");
        assert_eq!(percent_encode("&%:"), "%26%25%3A");
        let sample = "速通 *~/+=&%:{}\"#é";
        assert_eq!(percent_encode(sample), reference_encode(sample));
    }

    #[test]
    fn mask_phone_keeps_only_head_and_tail() {
        assert_eq!(mask_phone("13812341234"), "138****1234");
        assert_eq!(mask_phone("123"), "****");
    }

    #[test]
    fn classify_maps_service_codes() {
        use CodeClass::*;
        let cases = [
            ("OK", Action::Send, Ok),
            ("isv.MOBILE_NUMBER_ILLEGAL", Action::Send, InvalidNumber),
            ("isv.MOBILE_COUNT_OVER_LIMIT", Action::Send, InvalidNumber),
            ("InvalidPhoneNumber", Action::Send, InvalidNumber),
            ("isv.BUSINESS_LIMIT_CONTROL", Action::Send, RateLimited),
            ("biz.FREQUENCY", Action::Send, RateLimited),
            ("Throttling.User", Action::Send, RateLimited),
            ("Throttling", Action::Check, RateLimited),
            ("isv.VERIFY_CODE_ERROR", Action::Check, WrongCode),
            ("isv.ValidateFail", Action::Check, WrongCode),
            ("isv.VERIFY_CODE_ERROR", Action::Send, Failure),
            ("MissingPhoneNumber", Action::Send, Failure),
            ("SignatureDoesNotMatch", Action::Send, Failure),
            ("isv.OUT_OF_SERVICE", Action::Send, Failure),
            ("isv.VERIFY_SCHEME_NOT_EXIST", Action::Check, Failure),
        ];
        for (code, action, expected) in cases {
            assert_eq!(classify(code, action), expected, "{code} {action:?}");
        }
    }

    fn client(endpoint: &str) -> AliyunSmsClient {
        AliyunSmsClient::new(
            AliyunSettings {
                access_key_id: "LTAI5tTestKeyId".into(),
                access_key_secret: Secret::new(SECRET),
                sign_name: "速通问答".into(),
                template_code: "SMS_123456789".into(),
                endpoint: endpoint.into(),
            },
            reqwest::Client::new(),
        )
    }

    fn json(status: u16, body: serde_json::Value) -> ResponseTemplate {
        ResponseTemplate::new(status).set_body_json(body)
    }

    fn ok_body(model: serde_json::Value) -> serde_json::Value {
        serde_json::json!({
            "Code": "OK",
            "Message": "OK",
            "RequestId": "A1B2C3D4-0000-1111-2222-333344445555",
            "Success": true,
            "Model": model,
        })
    }

    fn error_body(code: &str) -> serde_json::Value {
        serde_json::json!({
            "Code": code,
            "Message": "refused",
            "RequestId": "A1B2C3D4-0000-1111-2222-333344445555",
            "Success": false,
        })
    }

    async fn server_answering(template: ResponseTemplate) -> MockServer {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/"))
            .respond_with(template)
            .mount(&server)
            .await;
        server
    }

    /// A server that answers one `action` request with HTTP 200 and `body`.
    async fn server_expecting_once(action: &str, body: serde_json::Value) -> MockServer {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/"))
            .and(query_param("Action", action))
            .respond_with(json(200, body))
            .expect(1)
            .mount(&server)
            .await;
        server
    }

    /// The decoded query of the only request the server received.
    async fn received_query(server: &MockServer) -> BTreeMap<String, String> {
        let requests = server.received_requests().await.unwrap();
        assert_eq!(requests.len(), 1);
        requests[0]
            .url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    #[tokio::test]
    async fn send_code_success_sends_a_signed_request() {
        let server = server_expecting_once(
            "SendSmsVerifyCode",
            ok_body(serde_json::json!({"BizId": "112233", "OutId": "", "RequestId": "x"})),
        )
        .await;

        client(&server.uri())
            .send_code("13800138000")
            .await
            .unwrap();

        let q = received_query(&server).await;
        let expected = [
            ("Action", "SendSmsVerifyCode"),
            ("Version", "2017-05-25"),
            ("Format", "JSON"),
            ("AccessKeyId", "LTAI5tTestKeyId"),
            ("SignatureMethod", "HMAC-SHA1"),
            ("SignatureVersion", "1.0"),
            ("PhoneNumber", "13800138000"),
            ("SignName", "速通问答"),
            ("TemplateCode", "SMS_123456789"),
            ("TemplateParam", r###"{"code":"##code##","min":"5"}"###),
            ("ValidTime", "300"),
            ("Interval", "60"),
            ("CountryCode", "86"),
            ("CodeLength", "6"),
        ];
        for (k, v) in expected {
            assert_eq!(q.get(k).map(String::as_str), Some(v), "{k}");
        }
        assert!(uuid::Uuid::parse_str(&q["SignatureNonce"]).is_ok());
        let ts = chrono::NaiveDateTime::parse_from_str(&q["Timestamp"], "%Y-%m-%dT%H:%M:%SZ")
            .unwrap()
            .and_utc();
        assert!((chrono::Utc::now() - ts).num_seconds().abs() < 60);
        assert!(!q.values().any(|v| v.contains(SECRET)));

        let signature = q.get("Signature").cloned().unwrap();
        assert_eq!(signature, reference_signature(&q, SECRET));
    }

    /// The error `send_code` gives when the provider answers with `template`.
    async fn send_code_error(template: ResponseTemplate, phone: &str) -> Error {
        let server = server_answering(template).await;
        client(&server.uri()).send_code(phone).await.unwrap_err()
    }

    /// What `check_code` gives when the provider answers with `template`.
    async fn check_code_answer(template: ResponseTemplate, code: &str) -> Result<bool> {
        let server = server_answering(template).await;
        client(&server.uri()).check_code("13800138000", code).await
    }

    /// Whether an error is of the expected kind.
    type ErrorCheck = fn(&Error) -> bool;

    fn is_validation(err: &Error) -> bool {
        matches!(err, Error::Validation(_))
    }

    fn is_sms_provider(err: &Error) -> bool {
        matches!(err, Error::SmsProvider(_))
    }

    #[tokio::test]
    async fn send_code_refusals_map_to_api_errors() {
        // (case, provider answer, phone, expected error)
        let cases: [(&str, ResponseTemplate, &str, ErrorCheck); 4] = [
            (
                "refused number",
                json(400, error_body("isv.MOBILE_NUMBER_ILLEGAL")),
                "1380013",
                is_validation,
            ),
            (
                "refused number with HTTP 200",
                json(200, error_body("isv.MOBILE_COUNT_OVER_LIMIT")),
                "1380013",
                is_validation,
            ),
            (
                "other service error",
                json(400, error_body("SignatureDoesNotMatch")),
                "13800138000",
                is_sms_provider,
            ),
            (
                "HTTP 500 garbage",
                ResponseTemplate::new(500).set_body_string("<html>oops</html>"),
                "13800138000",
                is_sms_provider,
            ),
        ];
        for (case, template, phone, expected) in cases {
            let err = send_code_error(template, phone).await;
            assert!(expected(&err), "{case}: {err:?}");
        }
    }

    #[tokio::test]
    async fn send_code_business_limit_is_rate_limited() {
        for code in [
            "isv.BUSINESS_LIMIT_CONTROL",
            "biz.FREQUENCY",
            "Throttling.User",
        ] {
            let err = send_code_error(json(400, error_body(code)), "13800138000").await;
            assert!(
                matches!(
                    err,
                    Error::RateLimited {
                        retry_after_secs: 60,
                        ..
                    }
                ),
                "{code}: {err:?}"
            );
        }
    }

    #[tokio::test]
    async fn unreachable_endpoint_is_sms_provider() {
        let sms = client("http://127.0.0.1:9");
        let err = sms.send_code("13800138000").await.unwrap_err();
        assert!(is_sms_provider(&err), "send: {err:?}");
        let err = sms.check_code("13800138000", "123456").await.unwrap_err();
        assert!(is_sms_provider(&err), "check: {err:?}");
    }

    #[tokio::test]
    async fn send_code_timeout_is_sms_provider() {
        let server = server_answering(
            json(200, ok_body(serde_json::json!({}))).set_delay(Duration::from_secs(3)),
        )
        .await;
        let mut client = client(&server.uri());
        client.timeout = Duration::from_millis(200);
        let err = client.send_code("13800138000").await.unwrap_err();
        assert!(is_sms_provider(&err), "{err:?}");
    }

    #[tokio::test]
    async fn check_code_pass_is_true() {
        let server = server_expecting_once(
            "CheckSmsVerifyCode",
            ok_body(serde_json::json!({"OutId": "", "VerifyResult": "PASS"})),
        )
        .await;

        let pass = client(&server.uri())
            .check_code("13800138000", "123456")
            .await
            .unwrap();
        assert!(pass);

        let q = received_query(&server).await;
        assert_eq!(q["Action"], "CheckSmsVerifyCode");
        assert_eq!(q["Version"], "2017-05-25");
        assert_eq!(q["PhoneNumber"], "13800138000");
        assert_eq!(q["VerifyCode"], "123456");
        assert_eq!(q["CountryCode"], "86");
        assert_eq!(q["Signature"], reference_signature(&q, SECRET));
    }

    #[tokio::test]
    async fn check_code_answers_map_to_results() {
        let unknown = json(
            200,
            ok_body(serde_json::json!({"OutId": "", "VerifyResult": "UNKNOWN"})),
        );
        for (case, template) in [
            ("unknown", unknown),
            (
                "verify error",
                json(400, error_body("isv.VERIFY_CODE_ERROR")),
            ),
        ] {
            let pass = check_code_answer(template, "000000").await.unwrap();
            assert!(!pass, "{case}");
        }
        for (case, template) in [
            (
                "garbage",
                ResponseTemplate::new(200).set_body_string("not json at all"),
            ),
            (
                "OK without VerifyResult",
                json(200, ok_body(serde_json::Value::Null)),
            ),
        ] {
            let err = check_code_answer(template, "123456").await.unwrap_err();
            assert!(is_sms_provider(&err), "{case}: {err:?}");
        }
    }
}
