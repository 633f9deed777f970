//! A browser-like client of the HTML console: a cookie jar, no automatic redirects,
//! and the CSRF token read from the last page so forms can be posted as a browser would.

use reqwest::header::{HeaderMap, LOCATION};

use crate::TestApp;

/// One HTML response.
#[derive(Debug)]
pub struct Page {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

impl Page {
    pub fn contains(&self, needle: &str) -> bool {
        self.body.contains(needle)
    }

    /// Panics with the page text when `needle` is missing.
    pub fn assert_contains(&self, needle: &str) -> &Self {
        assert!(
            self.contains(needle),
            "expected {needle:?} in the page (status {}):\n{}",
            self.status,
            self.body
        );
        self
    }

    pub fn assert_status(&self, status: u16) -> &Self {
        assert_eq!(
            self.status, status,
            "unexpected status; page:\n{}",
            self.body
        );
        self
    }

    /// The `Location` of a redirect.
    pub fn location(&self) -> Option<&str> {
        self.headers.get(LOCATION).and_then(|v| v.to_str().ok())
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The first hidden `_csrf` value in the page.
    pub fn csrf(&self) -> Option<String> {
        let marker = "name=\"_csrf\" value=\"";
        let start = self.body.find(marker)? + marker.len();
        let end = self.body[start..].find('"')?;
        Some(self.body[start..start + end].to_string())
    }
}

pub struct Console {
    pub base: String,
    pub client: reqwest::Client,
    /// The session's CSRF token as the last page showed it.
    pub csrf: String,
}

impl Console {
    /// A fresh browser reading English (no cookies yet): the tests read the console's
    /// English texts; [`Console::new_in`] asks for another language.
    pub fn new(base: &str) -> Self {
        Self::new_in(base, "en")
    }

    /// A fresh browser whose `Accept-Language` is `accept`.
    pub fn new_in(base: &str, accept: &str) -> Self {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Ok(value) = reqwest::header::HeaderValue::from_str(accept) {
            headers.insert(reqwest::header::ACCEPT_LANGUAGE, value);
        }
        let client = reqwest::Client::builder()
            .default_headers(headers)
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Self {
            base: base.to_string(),
            client,
            csrf: String::new(),
        }
    }

    async fn read(&mut self, resp: reqwest::Response) -> Page {
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.text().await.unwrap();
        let page = Page {
            status,
            headers,
            body,
        };
        if let Some(token) = page.csrf() {
            self.csrf = token;
        }
        page
    }

    pub async fn get(&mut self, path: &str) -> Page {
        let resp = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        self.read(resp).await
    }

    /// Posts a form with the session's CSRF token added.
    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let mut all: Vec<(&str, &str)> = fields.to_vec();
        let csrf = self.csrf.clone();
        all.push(("_csrf", &csrf));
        self.post_raw(path, &all).await
    }

    /// Posts exactly `fields` (no CSRF token unless given).
    pub async fn post_raw(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let resp = self
            .client
            .post(format!("{}{path}", self.base))
            .form(fields)
            .send()
            .await
            .unwrap();
        self.read(resp).await
    }

    /// Posts as htmx does: `HX-Request` and the token in `X-CSRF-Token`.
    pub async fn htmx_post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let resp = self
            .client
            .post(format!("{}{path}", self.base))
            .header("HX-Request", "true")
            .header("X-CSRF-Token", self.csrf.clone())
            .form(fields)
            .send()
            .await
            .unwrap();
        self.read(resp).await
    }

    pub async fn htmx_get(&mut self, path: &str) -> Page {
        let resp = self
            .client
            .get(format!("{}{path}", self.base))
            .header("HX-Request", "true")
            .send()
            .await
            .unwrap();
        self.read(resp).await
    }

    /// Uploads `bytes` as the `file` field of a multipart form (with the CSRF token).
    pub async fn upload(&mut self, path: &str, file_name: &str, bytes: Vec<u8>) -> Page {
        let form = reqwest::multipart::Form::new()
            .text("_csrf", self.csrf.clone())
            .part(
                "file",
                reqwest::multipart::Part::bytes(bytes)
                    .file_name(file_name.to_string())
                    .mime_str("text/csv")
                    .unwrap(),
            );
        let resp = self
            .client
            .post(format!("{}{path}", self.base))
            .multipart(form)
            .send()
            .await
            .unwrap();
        self.read(resp).await
    }

    /// Posts a multipart form as a browser does: the CSRF token first, then `fields`,
    /// then the file field `file` (name, file name, bytes) when given.
    pub async fn post_multipart(
        &mut self,
        path: &str,
        fields: &[(&str, &str)],
        file: Option<(&str, &str, Vec<u8>)>,
    ) -> Page {
        let mut form = reqwest::multipart::Form::new().text("_csrf", self.csrf.clone());
        for (name, value) in fields {
            form = form.text(name.to_string(), value.to_string());
        }
        if let Some((name, file_name, bytes)) = file {
            form = form.part(
                name.to_string(),
                reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_string()),
            );
        }
        let resp = self
            .client
            .post(format!("{}{path}", self.base))
            .multipart(form)
            .send()
            .await
            .unwrap();
        self.read(resp).await
    }

    /// Follows a 303 from a form post.
    pub async fn follow(&mut self, page: &Page) -> Page {
        assert_eq!(
            page.status, 303,
            "expected a redirect; page:\n{}",
            page.body
        );
        let to = page.location().unwrap().to_string();
        self.get(&to).await
    }

    /// Signs in through the form; panics unless it lands on the dashboard.
    pub async fn sign_in(&mut self, username: &str, password: &str) {
        self.get("/console/login").await.assert_status(200);
        let page = self
            .post(
                "/console/login",
                &[("username", username), ("password", password)],
            )
            .await;
        assert_eq!(page.status, 303, "sign-in refused:\n{}", page.body);
        assert_eq!(page.location(), Some("/console"));
        self.get("/console").await.assert_status(200);
    }
}

impl TestApp {
    /// A browser that has not signed in.
    pub fn console(&self) -> Console {
        Console::new(&self.admin_url)
    }

    /// A browser signed in as the bootstrap super_admin.
    pub async fn console_signed_in(&self) -> Console {
        let mut console = self.console();
        console
            .sign_in(&self.admin_username, &self.admin_password)
            .await;
        console
    }

    /// A browser signed in as a new admin of role `admin` (created through the API).
    pub async fn console_as_plain_admin(&self) -> Console {
        let (token, _, _) = self.admin_login().await;
        let username = format!("editor{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        let created = self
            .admin_post(
                "/v1/admin/admins",
                serde_json::json!({ "username": username, "password": "Editor-pass-1", "role": "admin" }),
                Some(&token),
            )
            .await;
        assert_eq!(created.status, 200, "{:?}", created.body);
        let mut console = self.console();
        console.sign_in(&username, "Editor-pass-1").await;
        console
    }
}
