//! A headless Chromium under chromedriver, and the few actions the tests need, each
//! failing with a screenshot and the page source. Every document the browser opens
//! records the Content-Security-Policy violations it reports ([`CSP_WATCH`]), so a test
//! can fail on any.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const WAIT: Duration = Duration::from_secs(15);

/// Where a document's Content-Security-Policy violations are kept: the tab's
/// `sessionStorage`, which outlives the navigations between the console's pages.
const CSP_KEY: &str = "e2e-csp-violations";

/// Installed through the DevTools protocol before any script of each new document
/// runs (so a violation while the page is parsed is caught too), outside the page's
/// policy: records every `securitypolicyviolation` with the page and what was refused.
const CSP_WATCH: &str = r#"
document.addEventListener("securitypolicyviolation", (e) => {
  try {
    const seen = JSON.parse(sessionStorage.getItem("e2e-csp-violations") || "[]");
    seen.push(`${location.pathname}: ${e.effectiveDirective} refused ${e.blockedURI || "inline"}`
      + ` at ${e.sourceFile || "?"}:${e.lineNumber} ${e.sample || ""}`);
    sessionStorage.setItem("e2e-csp-violations", JSON.stringify(seen));
  } catch (_) {}
}, true);
"#;

/// chromedriver's `POST /session/{id}/goog/cdp/execute`: one DevTools protocol command.
#[derive(Debug)]
struct DevTools {
    cmd: &'static str,
    params: serde_json::Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for DevTools {
    fn endpoint(
        &self,
        base_url: &reqwest::Url,
        session_id: Option<&str>,
    ) -> Result<reqwest::Url, <reqwest::Url as std::str::FromStr>::Err> {
        base_url.join(&format!(
            "session/{}/goog/cdp/execute",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &reqwest::Url) -> (axum::http::Method, Option<String>) {
        let body = json!({ "cmd": self.cmd, "params": self.params });
        (axum::http::Method::POST, Some(body.to_string()))
    }
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub struct Browser {
    pub client: Client,
    base: String,
    artifacts: PathBuf,
    scratch: PathBuf,
    step: std::sync::atomic::AtomicUsize,
    _driver: Driver,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session whose language (its
    /// `Accept-Language`) is `lang`; screenshots go to `tests/artifacts/e2e/<run>/`.
    pub async fn start(base: &str, run: &str, lang: &str) -> Self {
        for tool in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                std::path::Path::new(tool).exists(),
                "{tool} is missing: install Debian's chromium and chromium-driver \
                 (apt-get install chromium chromium-driver); .ci/run does"
            );
        }
        let port = free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting chromedriver");
        let driver = Driver(child);
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + WAIT;
        while reqwest::get(format!("{url}/status")).await.is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        let scratch = std::env::temp_dir().join(format!("quiz-e2e-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&scratch).unwrap();
        let profile = scratch.join("profile");
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--window-size=1400,1000",
                    format!("--user-data-dir={}", profile.display()),
                    format!("--lang={lang}"), format!("--accept-lang={lang}"),
                ],
                "prefs": { "intl.accept_languages": lang },
            }),
        );
        // WebDriver over loopback is plain HTTP: no TLS stack needed.
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&url)
            .await
            .expect("starting a Chromium session");
        let artifacts = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("artifacts")
            .join("e2e")
            .join(run);
        let _ = std::fs::remove_dir_all(&artifacts);
        std::fs::create_dir_all(&artifacts).unwrap();
        client
            .issue_cmd(DevTools {
                cmd: "Page.addScriptToEvaluateOnNewDocument",
                params: json!({ "source": CSP_WATCH }),
            })
            .await
            .expect("installing the CSP violation recorder");
        Self {
            client,
            base: base.to_string(),
            artifacts,
            scratch,
            step: std::sync::atomic::AtomicUsize::new(0),
            _driver: driver,
        }
    }

    pub async fn finish(self) {
        let _ = self.client.close().await;
        let _ = std::fs::remove_dir_all(&self.scratch);
    }

    /// Saves a numbered screenshot of the page.
    pub async fn shot(&self, name: &str) {
        let n = self.step.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let png = self.client.screenshot().await.unwrap();
        std::fs::write(self.artifacts.join(format!("{n:02}-{name}.png")), png).unwrap();
    }

    async fn fail(&self, what: &str) -> ! {
        self.shot("failure").await;
        let source = self.client.source().await.unwrap_or_default();
        let url = self.client.current_url().await.map(|u| u.to_string());
        let violations = self.csp_violations().await;
        panic!("{what} (at {url:?}); CSP violations: {violations:?}; page source:\n{source}");
    }

    /// The Content-Security-Policy violations the console's documents reported since
    /// the last [`Self::clear_csp_violations`].
    pub async fn csp_violations(&self) -> Vec<String> {
        let script = format!("return JSON.parse(sessionStorage.getItem('{CSP_KEY}') || '[]');");
        match self.client.execute(&script, vec![]).await {
            Ok(serde_json::Value::Array(items)) => items
                .into_iter()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect(),
            other => vec![format!("cannot read the recorded violations: {other:?}")],
        }
    }

    pub async fn clear_csp_violations(&self) {
        let script = format!("sessionStorage.removeItem('{CSP_KEY}');");
        self.client.execute(&script, vec![]).await.unwrap();
    }

    /// Chooses `value` in the select `css` whose change submits its form (no button
    /// pressed: the console's script does it), and waits for the page that follows.
    pub async fn select_and_wait(&self, css: &str, value: &str) {
        self.mark_page().await;
        self.select(css, value).await;
        self.wait_new_page(&format!("choosing {value} in {css}"))
            .await;
    }

    /// The path of the page shown.
    pub async fn path(&self) -> String {
        self.client.current_url().await.unwrap().path().to_string()
    }

    pub fn write_file(&self, name: &str, contents: &str) -> String {
        let path = self.scratch.join(name);
        std::fs::write(&path, contents).unwrap();
        path.display().to_string()
    }

    pub async fn open(&self, path: &str) {
        self.client
            .goto(&format!("{}{path}", self.base))
            .await
            .unwrap();
    }

    pub async fn wait_for(&self, css: &str) -> Element {
        match self
            .client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
        {
            Ok(e) => e,
            Err(e) => self.fail(&format!("no element {css}: {e}")).await,
        }
    }

    /// Waits until the element `css` exists and its text contains `text`.
    pub async fn wait_text(&self, css: &str, text: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(e) = self.client.find(Locator::Css(css)).await
                && let Ok(t) = e.text().await
                && t.contains(text)
            {
                return;
            }
            if Instant::now() > deadline {
                self.fail(&format!("{css} never showed {text:?}")).await;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn missing(&self, css: &str) -> bool {
        self.client.find(Locator::Css(css)).await.is_err()
    }

    /// Runs `action` until it succeeds or [`WAIT`] passes. Each try finds its element
    /// afresh: an element found on a page that is being replaced (a form just submitted,
    /// an htmx swap) is stale by the time it is used, and the next try finds the new one.
    async fn act<F, Fut>(&self, what: &str, action: F)
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<(), CmdError>>,
    {
        let deadline = Instant::now() + WAIT;
        loop {
            let error = match action().await {
                Ok(()) => return,
                Err(e) => e,
            };
            if Instant::now() > deadline {
                self.fail(&format!("{what}: {error}")).await;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Marks the current document, so [`Self::wait_new_page`] can tell it from the next.
    async fn mark_page(&self) {
        if let Err(e) = self
            .client
            .execute("window.__e2eOldPage = true;", vec![])
            .await
        {
            self.fail(&format!("marking the page: {e}")).await;
        }
    }

    /// Waits until the marked document is replaced by a fully loaded new one: the
    /// following steps then never find an element of the page being left.
    async fn wait_new_page(&self, what: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            let loaded = self
                .client
                .execute(
                    "return window.__e2eOldPage !== true && document.readyState === 'complete';",
                    vec![],
                )
                .await;
            if let Ok(serde_json::Value::Bool(true)) = loaded {
                return;
            }
            if Instant::now() > deadline {
                self.fail(&format!("{what}: no new page loaded")).await;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Clicks `css` in place (an htmx action: the page stays).
    pub async fn click(&self, css: &str) {
        self.act(&format!("clicking {css}"), || async {
            self.client.find(Locator::Css(css)).await?.click().await
        })
        .await;
    }

    /// Clicks `css`, a submit button or link that loads a new page, and waits for it.
    pub async fn submit(&self, css: &str) {
        self.mark_page().await;
        self.click(css).await;
        self.wait_new_page(&format!("submitting {css}")).await;
    }

    /// Follows the link with this text and waits for its page.
    pub async fn click_link(&self, text: &str) {
        self.mark_page().await;
        self.act(&format!("following the link {text:?}"), || async {
            self.client
                .find(Locator::LinkText(text))
                .await?
                .click()
                .await
        })
        .await;
        self.wait_new_page(&format!("following the link {text:?}"))
            .await;
    }

    /// Follows the first link whose `href` contains `fragment` and waits for its page.
    pub async fn click_link_containing(&self, fragment: &str) {
        self.submit(&format!("a[href*=\"{fragment}\"]")).await;
    }

    /// Replaces the value of the input or textarea `css`.
    pub async fn type_into(&self, css: &str, text: &str) {
        self.act(&format!("typing into {css}"), || async {
            let e = self.client.find(Locator::Css(css)).await?;
            e.clear().await?;
            e.send_keys(text).await
        })
        .await;
    }

    pub async fn select(&self, css: &str, value: &str) {
        self.act(&format!("selecting {value} in {css}"), || async {
            self.client
                .find(Locator::Css(css))
                .await?
                .select_by_value(value)
                .await
        })
        .await;
    }

    pub async fn upload(&self, css: &str, path: &str) {
        self.act(&format!("choosing {path} in {css}"), || async {
            self.client
                .find(Locator::Css(css))
                .await?
                .send_keys(path)
                .await
        })
        .await;
    }

    /// Ticks the checkbox of the question-table row whose text contains `text`.
    pub async fn check_row(&self, text: &str) {
        let xpath =
            format!("//tr[contains(normalize-space(.), \"{text}\")]//input[@type='checkbox']");
        self.act(&format!("ticking the row {text:?}"), || async {
            self.client
                .find(Locator::XPath(&xpath))
                .await?
                .click()
                .await
        })
        .await;
    }
}
