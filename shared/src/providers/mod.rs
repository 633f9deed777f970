//! Clients of the outside services sign-in depends on, written against configurable URLs
//! exactly as their public APIs define them.
//!
//! # Layout
//! - [`aliyun`]: Alibaba Cloud Phone Number Verification Service (`SendSmsVerifyCode`,
//!   `CheckSmsVerifyCode`), signed RPC requests.
//! - [`oidc`]: ID-token verification against a JWKS (keys cached, refetched on an
//!   unknown `kid`), the HUAWEI ID code exchange and Sign in with Apple.
//! - [`nppa`]: the NPPA anti-addiction real-name system (check, query, login/logout
//!   reports), signed and encrypted requests.

pub mod aliyun;
pub mod nppa;
pub mod oidc;

use std::time::Duration;

use crate::config::{Settings, SmsProvider};

/// How long any call to an outside service may take.
pub const OUTSIDE_CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Where SMS codes come from.
pub enum SmsBackend {
    /// `SMS_PROVIDER` unset: phone sign-in answers 503.
    Unconfigured,
    /// Development: codes made here, stored hashed, written to the log.
    Console,
    /// Alibaba Cloud makes, sends and checks the codes.
    Aliyun(aliyun::AliyunSmsClient),
}

impl SmsBackend {
    pub fn is_configured(&self) -> bool {
        !matches!(self, Self::Unconfigured)
    }
}

/// The configured provider clients of one process.
pub struct ProviderClients {
    pub sms: SmsBackend,
    pub huawei: Option<oidc::HuaweiIdClient>,
    pub apple: Option<oidc::AppleIdVerifier>,
    /// The licensed-game profile's real-name verification (`NPPA_*`).
    pub nppa: Option<nppa::NppaClient>,
}

impl ProviderClients {
    pub fn from_settings(settings: &Settings) -> anyhow::Result<Self> {
        let refetch = Duration::from_secs(settings.limits.jwks_min_refetch_seconds);
        let http = reqwest::Client::builder()
            .timeout(OUTSIDE_CALL_TIMEOUT)
            .connect_timeout(OUTSIDE_CALL_TIMEOUT)
            // a provider reached over https is never followed to plain http (a swapped
            // answer there could sign anyone in, or make a minor an adult)
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                let from_https = attempt
                    .previous()
                    .last()
                    .is_some_and(|url| url.scheme() == "https");
                if from_https && attempt.url().scheme() != "https" {
                    attempt.error("a provider redirected from https to plain http")
                } else if attempt.previous().len() >= 5 {
                    attempt.stop()
                } else {
                    attempt.follow()
                }
            }))
            .build()?;
        let sms = match &settings.sms {
            SmsProvider::None => SmsBackend::Unconfigured,
            SmsProvider::Console => SmsBackend::Console,
            SmsProvider::Aliyun(a) => {
                SmsBackend::Aliyun(aliyun::AliyunSmsClient::new(a.clone(), http.clone()))
            }
        };
        Ok(Self {
            sms,
            huawei: settings
                .huawei
                .clone()
                .map(|h| oidc::HuaweiIdClient::new(h, http.clone(), refetch)),
            apple: settings
                .apple
                .clone()
                .map(|a| oidc::AppleIdVerifier::new(a, http.clone(), refetch)),
            nppa: settings
                .compliance
                .nppa
                .clone()
                .map(|n| nppa::NppaClient::new(n, http.clone()))
                .transpose()?,
        })
    }
}
