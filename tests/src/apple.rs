//! Sign in with Apple for tests: a local fake of Apple's key endpoint (`/auth/keys`)
//! serving one RSA key, and identity tokens signed with it.

use jsonwebtoken::Algorithm;
use rsa::pkcs1::EncodeRsaPrivateKey;
use serde_json::json;
use shared::providers::oidc::testing::{TestKey, jwks};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The client id (the audience of the tokens) the service is configured with.
pub const CLIENT: &str = "com.example.quiz";
/// Apple's issuer.
pub const ISSUER: &str = "https://appleid.apple.com";

/// A fresh 2048-bit RSA signing key named `kid`.
pub fn rsa_key(kid: &str) -> TestKey {
    let private = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048).unwrap();
    let der = private.to_pkcs1_der().unwrap();
    TestKey::from_pkcs1_der(kid, der.as_bytes()).unwrap()
}

/// Apple's key endpoint, served locally with one key.
pub struct AppleFake {
    server: MockServer,
    pub key: TestKey,
}

impl AppleFake {
    pub async fn start(kid: &str) -> Self {
        let server = MockServer::start().await;
        let key = rsa_key(kid);
        Mock::given(method("GET"))
            .and(path("/auth/keys"))
            .respond_with(ResponseTemplate::new(200).set_body_json(jwks(&[&key])))
            .mount(&server)
            .await;
        Self { server, key }
    }

    /// The service's configuration for this fake.
    pub fn vars(&self) -> [(&'static str, String); 3] {
        [
            ("APPLE_CLIENT_ID", CLIENT.into()),
            ("APPLE_JWKS_URL", format!("{}/auth/keys", self.server.uri())),
            ("APPLE_ISSUER", ISSUER.into()),
        ]
    }

    /// A valid identity token for `sub`, ten minutes to live.
    pub fn token(&self, sub: &str) -> String {
        let now = chrono::Utc::now().timestamp();
        self.key.sign(
            Algorithm::RS256,
            &json!({ "iss": ISSUER, "aud": CLIENT, "sub": sub, "iat": now, "exp": now + 600 }),
        )
    }
}
