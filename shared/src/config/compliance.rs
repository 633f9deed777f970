//! Which rules for minors the deployment follows (`COMPLIANCE_PROFILE`) and the NPPA
//! real-name interface of the licensed-game profile (`NPPA_*`).

use super::Secret;
use super::reader::Reader;
use crate::closed_set::closed_set;

closed_set! {
    /// `COMPLIANCE_PROFILE`: `education` (every app: minor mode by declaration) or
    /// `licensed_game` (an online game with a 版号: NPPA real-name verification before
    /// any play, minors only in the notice's hours).
    pub enum ComplianceProfile in "compliance-profile" {
        Education = "education",
        LicensedGame = "licensed_game",
    }
}

/// The NPPA anti-addiction interface (网络游戏防沉迷实名认证系统, interface
/// specification V1.8): the studio's credentials and the three calls' URLs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NppaSettings {
    /// `NPPA_APP_ID`: the enterprise's appId.
    pub app_id: String,
    /// `NPPA_BIZ_ID`: the game's 游戏备案识别码.
    pub biz_id: String,
    /// `NPPA_SECRET_KEY`: 32 hex digits; signs requests, and (hex-decoded) is the
    /// AES-128-GCM key of their bodies.
    pub secret_key: Secret,
    /// `NPPA_CHECK_URL`, `NPPA_QUERY_URL`, `NPPA_LOGINOUT_URL`.
    pub check_url: String,
    pub query_url: String,
    pub loginout_url: String,
}

/// The interface's hosts. Its specification lists the query and the login/logout report
/// under plain `http://`; they are reached over `https://` here like every provider
/// (an answer over plain HTTP could be swapped on the way: a verification status is a
/// player's age), and `http://` is refused when `APP_ENV=production`.
pub const NPPA_CHECK_URL: &str = "https://api.wlc.nppa.gov.cn/idcard/authentication/check";
pub const NPPA_QUERY_URL: &str = "https://api2.wlc.nppa.gov.cn/idcard/authentication/query";
pub const NPPA_LOGINOUT_URL: &str = "https://api2.wlc.nppa.gov.cn/behavior/collection/loginout";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComplianceSettings {
    pub profile: ComplianceProfile,
    /// Unset: real-name verification answers 503 (the licensed-game profile then serves
    /// no play at all).
    pub nppa: Option<NppaSettings>,
}

impl ComplianceSettings {
    pub fn licensed_game(&self) -> bool {
        self.profile == ComplianceProfile::LicensedGame
    }

    pub(super) fn from_reader(r: &mut Reader<'_>, production: bool) -> Self {
        let profile = match r.string("COMPLIANCE_PROFILE") {
            None => ComplianceProfile::Education,
            Some(value) => ComplianceProfile::parse(value.trim()).unwrap_or_else(|| {
                r.errors.push(format!(
                    "COMPLIANCE_PROFILE={value:?}: expected education or licensed_game"
                ));
                ComplianceProfile::Education
            }),
        };
        let mut url = |name: &str, default: &str| super::provider_url(r, name, default, production);
        let check_url = url("NPPA_CHECK_URL", NPPA_CHECK_URL);
        let query_url = url("NPPA_QUERY_URL", NPPA_QUERY_URL);
        let loginout_url = url("NPPA_LOGINOUT_URL", NPPA_LOGINOUT_URL);
        let nppa = match (
            r.string("NPPA_APP_ID"),
            r.string("NPPA_BIZ_ID"),
            r.string("NPPA_SECRET_KEY"),
        ) {
            (Some(app_id), Some(biz_id), Some(secret)) => {
                // used as given in the signature, hex-decoded as the body key
                let secret = secret.trim().to_string();
                if secret.len() == 32 && secret.bytes().all(|b| b.is_ascii_hexdigit()) {
                    Some(NppaSettings {
                        app_id,
                        biz_id,
                        secret_key: Secret::new(secret),
                        check_url,
                        query_url,
                        loginout_url,
                    })
                } else {
                    r.errors
                        .push("NPPA_SECRET_KEY: must be 32 hex digits".to_string());
                    None
                }
            }
            (None, None, None) => None,
            _ => {
                r.errors
                    .push("NPPA_APP_ID, NPPA_BIZ_ID and NPPA_SECRET_KEY go together".to_string());
                None
            }
        };
        Self { profile, nppa }
    }
}
