//! Configuration, read once from the environment at start and validated.
//!
//! Every variable is listed in the README's configuration table. A bad value stops the
//! process with a message that names the variable.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::client_addr::ClientAddressRule;
use crate::domain::fairplay::FairPlayRules;
use crate::domain::league::LeagueRules;
use crate::domain::question_stats::QualityRules;
use crate::domain::rules::GameRules;

mod backup;
mod compliance;
mod connections;
mod database;
mod jobs;
mod learning;
mod media;
mod reader;
mod rules;

pub use backup::BackupSettings;
pub use compliance::{ComplianceProfile, ComplianceSettings, NppaSettings};
pub use connections::ConnectionLimits;
pub use database::DatabasePool;
pub use jobs::JobSettings;
pub use learning::LearningSettings;
pub use media::{
    MAX_CONFIGURABLE_BYTES, MAX_IMAGE_SIDE, MediaSettings, MediaStoreSettings, S3Settings,
};
pub(crate) use reader::Reader;
pub use reader::{ConfigError, Lookup};
pub use rules::Limits;

/// A secret value: never printed by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppEnv {
    Development,
    Production,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Pretty,
    Json,
}

/// Where the data lives.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// An SQLite file (created with its folder on first start).
    Sqlite(PathBuf),
    /// A `postgres://` URL.
    Postgres(String),
}

impl fmt::Debug for DatabaseUrl {
    // The PostgreSQL URL may carry a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(path) => write!(f, "Sqlite({})", path.display()),
            Self::Postgres(_) => f.write_str("Postgres(***)"),
        }
    }
}

impl DatabaseUrl {
    /// Parses a `DATABASE_URL` value: `postgres://…`, `postgresql://…` or `sqlite:path`.
    pub fn parse(url: &str) -> Option<Self> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(Self::Postgres(url.to_string()))
        } else if url.starts_with("sqlite:") {
            let path = url
                .trim_start_matches("sqlite://")
                .trim_start_matches("sqlite:");
            Some(Self::Sqlite(PathBuf::from(path)))
        } else {
            None
        }
    }
}

/// The SMS provider behind phone sign-in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SmsProvider {
    /// `SMS_PROVIDER` unset: phone sign-in answers 503 SERVICE_UNAVAILABLE.
    None,
    /// Development only: codes are made here and written to the log.
    Console,
    /// Alibaba Cloud Phone Number Verification Service.
    Aliyun(AliyunSettings),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AliyunSettings {
    pub access_key_id: String,
    pub access_key_secret: Secret,
    pub sign_name: String,
    pub template_code: String,
    pub endpoint: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HuaweiSettings {
    pub client_id: String,
    pub client_secret: Secret,
    pub token_url: String,
    pub jwks_url: String,
    pub issuer: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppleSettings {
    pub client_id: String,
    pub jwks_url: String,
    pub issuer: String,
}

/// `player-api`'s default `METRICS_ADDR` (the port Prometheus exporters take).
pub const PLAYER_METRICS_ADDR: SocketAddr = SocketAddr::V4(std::net::SocketAddrV4::new(
    std::net::Ipv4Addr::LOCALHOST,
    9464,
));
/// `admin-console`'s default `METRICS_ADDR`.
pub const ADMIN_METRICS_ADDR: SocketAddr = SocketAddr::V4(std::net::SocketAddrV4::new(
    std::net::Ipv4Addr::LOCALHOST,
    9465,
));

/// The whole configuration of either binary.
#[derive(Clone, Debug)]
pub struct Settings {
    /// `APP_ENV`: production refuses dev-only features and requires real secrets.
    pub app_env: AppEnv,
    /// `PLAYER_API_ADDR`.
    pub player_api_addr: SocketAddr,
    /// `ADMIN_CONSOLE_ADDR`.
    pub admin_console_addr: SocketAddr,
    /// `METRICS_ADDR`: where `GET /metrics` listens, never on the public port. Unset:
    /// each binary's own default ([`PLAYER_METRICS_ADDR`], [`ADMIN_METRICS_ADDR`]), so
    /// one of each runs side by side on one host.
    pub metrics_addr: Option<SocketAddr>,
    /// `DATABASE_URL`; default the SQLite file `data/quiz.db`.
    pub database_url: DatabaseUrl,
    /// `DATABASE_MAX_CONNECTIONS` and `DATABASE_DIRECT_URL`.
    pub database_pool: DatabasePool,
    /// `JWT_SECRET`; outside production, generated once and stored in the database.
    pub jwt_secret: Option<Secret>,
    /// `ADMIN_JWT_SECRET`; as above.
    pub admin_jwt_secret: Option<Secret>,
    /// `SECRETS_KEY`: base64 of 32 bytes, the AES-256-GCM key that seals the admins'
    /// TOTP secrets at rest; outside production, generated once and stored in the
    /// database (as the JWT secrets are); production: required.
    pub secrets_key: Option<Secret>,
    /// `ADMIN_BOOTSTRAP_USERNAME`: the first super_admin (default `admin`).
    pub admin_bootstrap_username: String,
    /// `ADMIN_BOOTSTRAP_PASSWORD`: absent, a random one is generated and logged once.
    pub admin_bootstrap_password: Option<Secret>,
    /// `ADMIN_STATIC_TOKEN`: what `POST /v1/admin/auth` compares against.
    pub admin_static_token: Option<Secret>,
    /// `ADMIN_REQUIRE_MFA`: a super_admin without TOTP reaches only the MFA set-up routes.
    pub admin_require_mfa: bool,
    /// `TRUST_FORWARDED_FOR` and `TRUSTED_PROXY_HOPS`: where per-address limits find the
    /// client's address.
    pub client_address: ClientAddressRule,
    /// `CONSOLE_SECURE_COOKIE`: mark the console's session cookie `Secure` (it is then
    /// sent only over HTTPS, as behind a TLS-terminating load balancer).
    pub console_secure_cookie: bool,
    /// `QUIZ_CLOCK_START`: where the service clock starts (refused in production).
    pub clock_start: Option<DateTime<Utc>>,
    /// `DEMO_CONTENT`: load the demo tracks (idempotent).
    pub demo_content: bool,
    /// `DEMO_HISTORY`: the admin console plays 14 days of simulated players once per
    /// database (`services::demo_history`; refused in production).
    pub demo_history: bool,
    /// `LOG_FORMAT`.
    pub log_format: LogFormat,
    /// `REDIS_URL`: optional rank index for large leaderboards.
    pub redis_url: Option<Secret>,
    /// `REDIS_KEY_PREFIX`: prefix of the rank index's keys (several deployments can share
    /// one Redis).
    pub redis_key_prefix: String,
    /// `SMS_PROVIDER` and the `ALIYUN_*` variables.
    pub sms: SmsProvider,
    /// `HUAWEI_*`: absent client id or secret, HUAWEI sign-in answers 503.
    pub huawei: Option<HuaweiSettings>,
    /// `APPLE_*`: absent client id, Apple sign-in answers 503.
    pub apple: Option<AppleSettings>,
    /// The game-rule defaults of operations.md §6, each overridable (`RULE_*`).
    pub rules: GameRules,
    /// Per-process request rate limits and the database-backed SMS abuse limits.
    pub limits: Limits,
    /// How long a connection may take over a request's headers and body, and stay idle
    /// (`HTTP_*_TIMEOUT_SECONDS`).
    pub connections: ConnectionLimits,
    /// The background jobs: statistics, retention.
    pub jobs: JobSettings,
    /// `BACKUP_DIR`, `BACKUP_INTERVAL`, `BACKUP_KEEP`: the SQLite database's copies.
    pub backup: BackupSettings,
    /// `ANSWER_MEMORY`: judge a challenge's answers from what this process remembers
    /// (`answer_cache`); off behind a round-robin balancer.
    pub answer_memory: bool,
    /// The question-quality flags' thresholds (`RULE_*`).
    pub quality: QualityRules,
    /// The fair-play signals' thresholds and the hold score (`FAIRPLAY_*`).
    pub fairplay: FairPlayRules,
    /// League cohorts and moves (`LEAGUE_*`).
    pub league: LeagueRules,
    /// Minor mode's daily limits and activity gap (`MINOR_*`).
    pub minors: crate::domain::minor::MinorRules,
    /// `COMPLIANCE_PROFILE` and the NPPA interface (`NPPA_*`).
    pub compliance: ComplianceSettings,
    /// Skill and difficulty estimates, calibration, the adaptive pick (`ELO_*`, `IRT_*`,
    /// `TARGET_SUCCESS`, `ADAPTIVE_PICK`, `CALIBRATION_REFRESH_SECONDS`).
    pub learning: LearningSettings,
    /// The media store and its limits (`MEDIA_*`).
    pub media: MediaSettings,
}

impl Settings {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(&|name: &str| std::env::var(name).ok())
    }

    /// Reads and validates every variable through `lookup`.
    pub fn from_lookup(lookup: &dyn Lookup) -> Result<Self, ConfigError> {
        let mut r = Reader::new(lookup);

        let app_env = match r.string_or("APP_ENV", "development").as_str() {
            "development" => AppEnv::Development,
            "production" => AppEnv::Production,
            other => {
                r.errors.push(format!(
                    "APP_ENV={other:?}: expected development or production"
                ));
                AppEnv::Development
            }
        };
        let production = app_env == AppEnv::Production;

        let player_api_addr = r.parsed("PLAYER_API_ADDR", SocketAddr::from(([127, 0, 0, 1], 8080)));
        let admin_console_addr = r.parsed(
            "ADMIN_CONSOLE_ADDR",
            SocketAddr::from(([127, 0, 0, 1], 8081)),
        );
        let metrics_addr = r
            .string("METRICS_ADDR")
            .map(|_| r.parsed("METRICS_ADDR", PLAYER_METRICS_ADDR));

        let database_url = match r.string("DATABASE_URL") {
            None => DatabaseUrl::Sqlite(PathBuf::from("data/quiz.db")),
            Some(raw) => DatabaseUrl::parse(&raw).unwrap_or_else(|| {
                r.errors.push(
                    "DATABASE_URL: expected postgres://… or sqlite:path (unset: data/quiz.db)"
                        .into(),
                );
                DatabaseUrl::Sqlite(PathBuf::from("data/quiz.db"))
            }),
        };

        let database_pool = DatabasePool::from_reader(&mut r, &database_url);

        let jwt_secret = r.string("JWT_SECRET").map(Secret::new);
        let admin_jwt_secret = r.string("ADMIN_JWT_SECRET").map(Secret::new);
        for (name, value) in [
            ("JWT_SECRET", &jwt_secret),
            ("ADMIN_JWT_SECRET", &admin_jwt_secret),
        ] {
            match value {
                None if production => r
                    .errors
                    .push(format!("{name} is required when APP_ENV=production")),
                Some(s) if s.expose().len() < 32 => r
                    .errors
                    .push(format!("{name} must be at least 32 characters")),
                _ => {}
            }
        }
        if let (Some(a), Some(b)) = (&jwt_secret, &admin_jwt_secret)
            && a == b
        {
            r.errors
                .push("JWT_SECRET and ADMIN_JWT_SECRET must differ".into());
        }

        let secrets_key = r.string("SECRETS_KEY").map(Secret::new);
        match &secrets_key {
            None if production => r.errors.push(
                "SECRETS_KEY is required when APP_ENV=production: base64 of 32 random bytes \
                 (`openssl rand -base64 32`); it seals the admins' TOTP secrets in the database"
                    .into(),
            ),
            Some(key) => {
                if let Err(e) = crate::secrets_key::SecretsKey::from_base64(key.expose()) {
                    r.errors.push(e);
                }
            }
            None => {}
        }

        let admin_bootstrap_username = r.string_or("ADMIN_BOOTSTRAP_USERNAME", "admin");
        let admin_bootstrap_password = r.string("ADMIN_BOOTSTRAP_PASSWORD").map(Secret::new);
        if let Some(p) = &admin_bootstrap_password {
            let len = p.expose().chars().count();
            if !(8..=128).contains(&len) {
                r.errors
                    .push("ADMIN_BOOTSTRAP_PASSWORD must be 8-128 characters".into());
            }
        }
        let username_len = admin_bootstrap_username.chars().count();
        if !(3..=50).contains(&username_len) {
            r.errors
                .push("ADMIN_BOOTSTRAP_USERNAME must be 3-50 characters".into());
        }
        let admin_static_token = r.string("ADMIN_STATIC_TOKEN").map(Secret::new);
        let admin_require_mfa = r.flag("ADMIN_REQUIRE_MFA", false);
        let client_address = ClientAddressRule {
            trust_forwarded_for: r.flag("TRUST_FORWARDED_FOR", false),
            trusted_proxy_hops: r.parsed("TRUSTED_PROXY_HOPS", 1),
        };
        if !(1..=16).contains(&client_address.trusted_proxy_hops) {
            r.errors.push("TRUSTED_PROXY_HOPS must be 1-16".into());
        }
        let console_secure_cookie = r.flag("CONSOLE_SECURE_COOKIE", production);

        let clock_start = match r.string("QUIZ_CLOCK_START") {
            None => None,
            Some(_) if production => {
                r.errors
                    .push("QUIZ_CLOCK_START is refused when APP_ENV=production".into());
                None
            }
            Some(raw) => match DateTime::parse_from_rfc3339(&raw) {
                Ok(t) => Some(t.with_timezone(&Utc)),
                Err(e) => {
                    r.errors
                        .push(format!("QUIZ_CLOCK_START={raw:?}: not RFC 3339 ({e})"));
                    None
                }
            },
        };

        let demo_content = r.flag("DEMO_CONTENT", false);
        let demo_history = r.flag("DEMO_HISTORY", false);
        if demo_history && production {
            r.errors
                .push("DEMO_HISTORY is refused when APP_ENV=production".into());
        }
        let log_format = match r.string_or("LOG_FORMAT", "pretty").as_str() {
            "pretty" => LogFormat::Pretty,
            "json" => LogFormat::Json,
            other => {
                r.errors
                    .push(format!("LOG_FORMAT={other:?}: expected json or pretty"));
                LogFormat::Pretty
            }
        };
        let redis_url = r.string("REDIS_URL").map(Secret::new);
        let redis_key_prefix = r.string_or("REDIS_KEY_PREFIX", "quiz");

        let sms = match r.string("SMS_PROVIDER").as_deref() {
            None => SmsProvider::None,
            Some("console") if production => {
                r.errors
                    .push("SMS_PROVIDER=console is refused when APP_ENV=production".into());
                SmsProvider::None
            }
            Some("console") => SmsProvider::Console,
            Some("aliyun") => {
                let mut required = |name: &str| {
                    r.string(name).unwrap_or_else(|| {
                        r.errors
                            .push(format!("{name} is required when SMS_PROVIDER=aliyun"));
                        String::new()
                    })
                };
                let access_key_id = required("ALIYUN_ACCESS_KEY_ID");
                let access_key_secret = Secret::new(required("ALIYUN_ACCESS_KEY_SECRET"));
                let sign_name = required("ALIYUN_SMS_SIGN_NAME");
                let template_code = required("ALIYUN_SMS_TEMPLATE_CODE");
                SmsProvider::Aliyun(AliyunSettings {
                    access_key_id,
                    access_key_secret,
                    sign_name,
                    template_code,
                    endpoint: provider_url(
                        &mut r,
                        "ALIYUN_DYPNS_ENDPOINT",
                        "https://dypnsapi.aliyuncs.com",
                        production,
                    ),
                })
            }
            Some(other) => {
                r.errors.push(format!(
                    "SMS_PROVIDER={other:?}: expected aliyun or console (or unset)"
                ));
                SmsProvider::None
            }
        };

        let huawei = match (
            r.string("HUAWEI_CLIENT_ID"),
            r.string("HUAWEI_CLIENT_SECRET"),
        ) {
            (Some(client_id), Some(secret)) => Some(HuaweiSettings {
                client_id,
                client_secret: Secret::new(secret),
                token_url: provider_url(
                    &mut r,
                    "HUAWEI_TOKEN_URL",
                    "https://oauth-login.cloud.huawei.com/oauth2/v3/token",
                    production,
                ),
                jwks_url: provider_url(
                    &mut r,
                    "HUAWEI_JWKS_URL",
                    "https://oauth-login.cloud.huawei.com/oauth2/v3/certs",
                    production,
                ),
                issuer: r.string_or("HUAWEI_ISSUER", "https://accounts.huawei.com"),
            }),
            (None, None) => None,
            _ => {
                r.errors
                    .push("HUAWEI_CLIENT_ID and HUAWEI_CLIENT_SECRET go together".into());
                None
            }
        };
        let apple = r.string("APPLE_CLIENT_ID").map(|client_id| AppleSettings {
            client_id,
            jwks_url: provider_url(
                &mut r,
                "APPLE_JWKS_URL",
                "https://appleid.apple.com/auth/keys",
                production,
            ),
            issuer: r.string_or("APPLE_ISSUER", "https://appleid.apple.com"),
        });

        let rules = rules::game_rules(&mut r);
        let limits = Limits::from_reader(&mut r);
        let connections = ConnectionLimits::from_reader(&mut r);
        let jobs = JobSettings::from_reader(&mut r);
        let backup = BackupSettings::from_reader(&mut r, &database_url);
        let answer_memory = r.flag("ANSWER_MEMORY", true);
        let quality = rules::quality_rules(&mut r);
        let fairplay = rules::fairplay_rules(&mut r);
        let league = rules::league_rules(&mut r);
        let minors = rules::minor_rules(&mut r);
        let compliance = ComplianceSettings::from_reader(&mut r, production);
        let learning = LearningSettings::from_reader(&mut r);
        let media = MediaSettings::from_reader(&mut r, &database_url);

        if r.errors.is_empty() {
            Ok(Self {
                app_env,
                player_api_addr,
                admin_console_addr,
                metrics_addr,
                database_url,
                database_pool,
                jwt_secret,
                admin_jwt_secret,
                secrets_key,
                admin_bootstrap_username,
                admin_bootstrap_password,
                admin_static_token,
                admin_require_mfa,
                client_address,
                console_secure_cookie,
                clock_start,
                demo_content,
                demo_history,
                log_format,
                redis_url,
                redis_key_prefix,
                sms,
                huawei,
                apple,
                rules,
                limits,
                connections,
                jobs,
                backup,
                answer_memory,
                quality,
                fairplay,
                league,
                minors,
                compliance,
                learning,
                media,
            })
        } else {
            Err(ConfigError(r.errors))
        }
    }

    pub fn is_production(&self) -> bool {
        self.app_env == AppEnv::Production
    }
}

/// Reads the provider endpoint `name` (unset: `default`): an absolute `https://` URL,
/// or `http://` as well when `APP_ENV=development` (the local fakes of development and
/// tests). Over plain HTTP a key set or token answer could be swapped on the way, and a
/// forged key set signs anyone in as anyone.
fn provider_url(r: &mut Reader, name: &str, default: &str, production: bool) -> String {
    let value = r.string_or(name, default);
    // The value is not echoed: an endpoint URL may carry credentials.
    match url::Url::parse(&value) {
        Ok(u) if u.has_host() && u.scheme() == "https" => {}
        Ok(u) if u.has_host() && u.scheme() == "http" && !production => {}
        Ok(u) if u.has_host() && u.scheme() == "http" => r.errors.push(format!(
            "{name} must be an https:// URL when APP_ENV=production (http:// is allowed only \
             when APP_ENV=development)"
        )),
        _ => r.errors.push(format!(
            "{name} must be an absolute https:// URL (or http:// when APP_ENV=development)"
        )),
    }
    value
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_lookup(&move |name: &str| map.get(name).cloned())
    }

    fn errors(vars: &[(&str, &str)]) -> String {
        match settings(vars) {
            Ok(_) => panic!("expected a configuration error"),
            Err(e) => e.to_string(),
        }
    }

    const SECRET_A: &str = "a-player-secret-of-at-least-32-characters";
    const SECRET_B: &str = "an-admin-secret-of-at-least-32-characters";
    /// base64 of 32 bytes.
    const SECRETS_KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

    #[test]
    fn defaults_need_nothing() {
        let s = settings(&[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.app_env, AppEnv::Development);
        assert_eq!(s.database_url, DatabaseUrl::Sqlite("data/quiz.db".into()));
        assert_eq!(s.player_api_addr.port(), 8080);
        assert_eq!(s.admin_console_addr.port(), 8081);
        assert_eq!(s.metrics_addr, None);
        assert_eq!(s.sms, SmsProvider::None);
        assert!(!s.demo_content);
        assert!(!s.demo_history);
        assert_eq!(s.rules, GameRules::default());
        assert_eq!(s.limits, Limits::default());
        assert_eq!(s.connections, ConnectionLimits::default());
        assert_eq!(s.connections.header_timeout.as_secs(), 30);
        assert_eq!(s.connections.idle_timeout.as_secs(), 75);
        assert_eq!(s.connections.body_timeout.as_secs(), 60);
        assert_eq!(s.connections.write_timeout.as_secs(), 60);
        assert!(!s.admin_require_mfa);
        let strict = settings(&[("ADMIN_REQUIRE_MFA", "true")]).unwrap_or_else(|e| panic!("{e}"));
        assert!(strict.admin_require_mfa);
    }

    #[test]
    fn production_requires_every_secret() {
        let e = errors(&[("APP_ENV", "production")]);
        assert!(e.contains("JWT_SECRET is required"), "{e}");
        assert!(e.contains("ADMIN_JWT_SECRET is required"), "{e}");
        assert!(e.contains("SECRETS_KEY is required"), "{e}");
        let e = errors(&[
            ("APP_ENV", "production"),
            ("JWT_SECRET", SECRET_A),
            ("ADMIN_JWT_SECRET", SECRET_B),
        ]);
        assert!(
            e.contains("SECRETS_KEY is required when APP_ENV=production"),
            "{e}"
        );
        let ok = settings(&[
            ("APP_ENV", "production"),
            ("JWT_SECRET", SECRET_A),
            ("ADMIN_JWT_SECRET", SECRET_B),
            ("SECRETS_KEY", SECRETS_KEY),
        ]);
        assert!(ok.is_ok());
    }

    #[test]
    fn secrets_key_must_be_base64_of_32_bytes() {
        let e = errors(&[("SECRETS_KEY", "c2hvcnQ=")]);
        assert!(e.contains("SECRETS_KEY must be base64 of 32 bytes"), "{e}");
        let e = errors(&[("SECRETS_KEY", "not base64 at all")]);
        assert!(e.contains("SECRETS_KEY must be base64"), "{e}");
        assert!(
            !e.contains("not base64 at all"),
            "the value is never echoed: {e}"
        );
        let s = settings(&[("SECRETS_KEY", SECRETS_KEY)]).unwrap_or_else(|e| panic!("{e}"));
        assert!(!format!("{s:?}").contains(SECRETS_KEY));
    }

    #[test]
    fn production_refuses_dev_only_features() {
        let e = errors(&[
            ("APP_ENV", "production"),
            ("JWT_SECRET", SECRET_A),
            ("ADMIN_JWT_SECRET", SECRET_B),
            ("SECRETS_KEY", SECRETS_KEY),
            ("SMS_PROVIDER", "console"),
            ("QUIZ_CLOCK_START", "2026-01-01T00:00:00Z"),
            ("DEMO_HISTORY", "true"),
        ]);
        assert!(e.contains("SMS_PROVIDER=console is refused"), "{e}");
        assert!(e.contains("QUIZ_CLOCK_START is refused"), "{e}");
        assert!(e.contains("DEMO_HISTORY is refused"), "{e}");
    }

    #[test]
    fn bad_values_name_their_variable() {
        let e = errors(&[
            ("APP_ENV", "staging"),
            ("PLAYER_API_ADDR", "nowhere"),
            ("METRICS_ADDR", "localhost"),
            ("DEMO_CONTENT", "maybe"),
            ("QUIZ_CLOCK_START", "yesterday"),
            ("SMS_PROVIDER", "aliyun"),
            ("JWT_SECRET", "short"),
            ("HTTP_HEADER_TIMEOUT_SECONDS", "0"),
            ("HTTP_IDLE_TIMEOUT_SECONDS", "soon"),
        ]);
        for needle in [
            "APP_ENV=",
            "PLAYER_API_ADDR=",
            "METRICS_ADDR=",
            "DEMO_CONTENT=",
            "QUIZ_CLOCK_START=",
            "ALIYUN_ACCESS_KEY_ID is required",
            "JWT_SECRET must be at least 32",
            "HTTP_HEADER_TIMEOUT_SECONDS=0: must be 1-3600",
            "HTTP_IDLE_TIMEOUT_SECONDS=",
        ] {
            assert!(e.contains(needle), "missing {needle} in {e}");
        }
    }

    #[test]
    fn provider_urls_need_https_outside_development() {
        fn providers(url: &str) -> Vec<(&'static str, &str)> {
            let mut vars = vec![
                ("HUAWEI_CLIENT_ID", "hw"),
                ("HUAWEI_CLIENT_SECRET", "hw-secret"),
                ("APPLE_CLIENT_ID", "com.example"),
                ("SMS_PROVIDER", "aliyun"),
                ("ALIYUN_ACCESS_KEY_ID", "id"),
                ("ALIYUN_ACCESS_KEY_SECRET", "secret"),
                ("ALIYUN_SMS_SIGN_NAME", "sign"),
                ("ALIYUN_SMS_TEMPLATE_CODE", "tpl"),
            ];
            for name in [
                "HUAWEI_TOKEN_URL",
                "HUAWEI_JWKS_URL",
                "APPLE_JWKS_URL",
                "ALIYUN_DYPNS_ENDPOINT",
                "NPPA_CHECK_URL",
                "NPPA_QUERY_URL",
                "NPPA_LOGINOUT_URL",
            ] {
                vars.push((name, url));
            }
            vars
        }
        fn production(url: &str) -> Vec<(&'static str, &str)> {
            let mut vars = providers(url);
            vars.extend([
                ("APP_ENV", "production"),
                ("JWT_SECRET", SECRET_A),
                ("ADMIN_JWT_SECRET", SECRET_B),
                ("SECRETS_KEY", SECRETS_KEY),
            ]);
            vars
        }
        // development: the local fakes over http
        let dev = settings(&providers("http://127.0.0.1:9000/x")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            dev.apple.map(|a| a.jwks_url).as_deref(),
            Some("http://127.0.0.1:9000/x")
        );
        // production: https only, each variable named, the value not echoed
        let e = errors(&production("http://keys.example.com/certs"));
        for name in [
            "HUAWEI_TOKEN_URL",
            "HUAWEI_JWKS_URL",
            "APPLE_JWKS_URL",
            "ALIYUN_DYPNS_ENDPOINT",
            "NPPA_CHECK_URL",
            "NPPA_QUERY_URL",
            "NPPA_LOGINOUT_URL",
        ] {
            assert!(
                e.contains(&format!(
                    "{name} must be an https:// URL when APP_ENV=production"
                )),
                "{name}: {e}"
            );
        }
        assert!(!e.contains("keys.example.com"), "{e}");
        assert!(settings(&production("https://keys.example.com/certs")).is_ok());
        // the defaults are https
        let defaults = settings(&[
            ("APP_ENV", "production"),
            ("JWT_SECRET", SECRET_A),
            ("ADMIN_JWT_SECRET", SECRET_B),
            ("SECRETS_KEY", SECRETS_KEY),
            ("APPLE_CLIENT_ID", "com.example"),
            ("NPPA_APP_ID", "app"),
            ("NPPA_BIZ_ID", "biz"),
            ("NPPA_SECRET_KEY", "00112233445566778899aabbccddeeff"),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            defaults
                .apple
                .is_some_and(|a| a.jwks_url.starts_with("https://"))
        );
        let nppa = defaults.compliance.nppa.expect("NPPA configured");
        for url in [nppa.check_url, nppa.query_url, nppa.loginout_url] {
            assert!(url.starts_with("https://"), "{url}");
        }
        // neither mode takes another scheme or a relative address
        for bad in [
            "ftp://keys.example.com/certs",
            "file:///etc/keys",
            "keys.example.com/certs",
            "javascript:alert(1)",
        ] {
            let e = errors(&providers(bad));
            assert!(
                e.contains("APPLE_JWKS_URL must be an absolute https:// URL"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn metrics_addr_is_read_when_set() {
        let s = settings(&[("METRICS_ADDR", "0.0.0.0:9100")]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.metrics_addr, Some(SocketAddr::from(([0, 0, 0, 0], 9100))));
    }

    #[test]
    fn database_url_selects_the_engine() {
        let pg =
            settings(&[("DATABASE_URL", "postgres://u:pw@h/db")]).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(pg.database_url, DatabaseUrl::Postgres(_)));
        assert_eq!(format!("{:?}", pg.database_url), "Postgres(***)");
        let lite =
            settings(&[("DATABASE_URL", "sqlite:///tmp/x.db")]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lite.database_url, DatabaseUrl::Sqlite("/tmp/x.db".into()));
    }

    #[test]
    fn backups_are_for_sqlite_at_an_interval_and_a_count() {
        let s = settings(&[
            ("BACKUP_DIR", "/var/backups/quiz"),
            ("BACKUP_INTERVAL", "6h"),
            ("BACKUP_KEEP", "3"),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.backup.dir, Some("/var/backups/quiz".into()));
        assert_eq!(s.backup.interval, std::time::Duration::from_secs(6 * 3600));
        assert_eq!(s.backup.keep, 3);
        assert!(errors(&[("BACKUP_INTERVAL", "10s")]).contains("BACKUP_INTERVAL"));
        assert!(errors(&[("BACKUP_INTERVAL", "daily")]).contains("BACKUP_INTERVAL"));
        assert!(errors(&[("BACKUP_KEEP", "0")]).contains("BACKUP_KEEP=0"));
        assert!(
            errors(&[
                ("DATABASE_URL", "postgres://u@h/quiz"),
                ("BACKUP_DIR", "/var/backups/quiz"),
            ])
            .contains("back PostgreSQL up")
        );
    }

    #[test]
    fn the_pool_is_sized_and_migrations_may_bypass_a_pooler() {
        let pooled = settings(&[
            ("DATABASE_URL", "postgres://u@pgbouncer:6432/quiz"),
            ("DATABASE_DIRECT_URL", "postgres://u@primary:5432/quiz"),
            ("DATABASE_MAX_CONNECTIONS", "4"),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pooled.database_pool.max_connections, 4);
        assert_eq!(
            pooled.database_pool.direct_url,
            Some(DatabaseUrl::Postgres(
                "postgres://u@primary:5432/quiz".into()
            ))
        );
        let defaults = settings(&[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(defaults.database_pool, DatabasePool::default());

        assert!(errors(&[("DATABASE_MAX_CONNECTIONS", "0")]).contains("must be 1-1000"));

        let replicated = settings(&[
            ("DATABASE_URL", "postgres://u@primary/quiz"),
            (
                "DATABASE_REPLICA_URL",
                "postgres://u@replica-1/quiz, postgres://u@replica-2/quiz",
            ),
            ("REPLICA_MAX_LAG_MS", "500"),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(replicated.database_pool.replica_urls.len(), 2);
        assert_eq!(
            replicated.database_pool.replica_max_lag,
            std::time::Duration::from_millis(500)
        );
        assert!(
            errors(&[("DATABASE_REPLICA_URL", "postgres://u@replica/quiz")])
                .contains("DATABASE_REPLICA_URL")
        );
        assert!(errors(&[("REPLICA_MAX_LAG_MS", "10")]).contains("must be 100-60000"));
        // A direct URL means nothing beside SQLite, and must itself be PostgreSQL.
        assert!(
            errors(&[("DATABASE_DIRECT_URL", "postgres://u@primary/quiz")])
                .contains("DATABASE_DIRECT_URL")
        );
        assert!(
            errors(&[
                ("DATABASE_URL", "postgres://u@pgbouncer/quiz"),
                ("DATABASE_DIRECT_URL", "sqlite:x.db"),
            ])
            .contains("DATABASE_DIRECT_URL")
        );
    }

    #[test]
    fn secrets_are_redacted_in_debug() {
        let s = settings(&[
            ("JWT_SECRET", SECRET_A),
            ("ADMIN_STATIC_TOKEN", "static-token"),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let printed = format!("{s:?}");
        assert!(!printed.contains(SECRET_A));
        assert!(!printed.contains("static-token"));
    }
}
