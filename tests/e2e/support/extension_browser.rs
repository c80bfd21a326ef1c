//! A user's browser with the Sightline extension, for the extension tests:
//! Debian's Chromium, headless, started with `--load-extension` on the
//! extension unpacked from its zip, and a DevTools connection of the test's
//! own (plain chromiumoxide, no Sightline injection and no viewport
//! emulation, so the tabs stay as a user's would) to open tabs, open the
//! panel as a page and act in it as the user would.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::handler::HandlerConfig;
use futures::StreamExt;
use serde_json::Value;

use super::packages::unpack_extension;
use super::world::offline_args;

/// How long a condition in a page may take to come true (a busy machine).
const WAIT: Duration = Duration::from_secs(60);

pub struct ExtensionBrowser {
    child: Child,
    _dir: tempfile::TempDir,
    pub browser: chromiumoxide::Browser,
    handler: tokio::task::JoinHandle<()>,
    pub extension_id: String,
    pub service_worker_url: String,
}

impl ExtensionBrowser {
    pub async fn launch() -> ExtensionBrowser {
        let dir = tempfile::tempdir().unwrap();
        let extension = unpack_extension(dir.path());
        let profile = dir.path().join("profile");
        let chrome = std::env::var(sightline::CHROME_ENV).unwrap_or_else(|_| sightline::DEFAULT_CHROME.into());
        let mut cmd = Command::new(chrome);
        cmd.args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--remote-debugging-port=0",
            // The driver's default viewport, so the panel's text can be compared with its.
            "--window-size=1280,720",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--load-extension={}", extension.display()))
        .arg(format!("--disable-extensions-except={}", extension.display()))
        .args(offline_args().iter().map(|a| format!("--{a}")))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        let child = cmd.spawn().expect("start chromium");
        let ws = devtools_url(&profile).await;
        let (browser, mut handler) = chromiumoxide::Browser::connect_with_config(
            ws,
            HandlerConfig {
                viewport: None,
                request_timeout: Duration::from_secs(60),
                ..HandlerConfig::default()
            },
        )
        .await
        .expect("connect to chromium");
        let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
        let mut b = ExtensionBrowser {
            child,
            _dir: dir,
            browser,
            handler,
            extension_id: String::new(),
            service_worker_url: String::new(),
        };
        b.service_worker_url = b.find_service_worker().await;
        b.extension_id = b
            .service_worker_url
            .trim_start_matches("chrome-extension://")
            .split('/')
            .next()
            .unwrap()
            .to_string();
        b
    }

    /// The extension's service worker, as DevTools lists it.
    async fn find_service_worker(&mut self) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let targets = self.browser.fetch_targets().await.expect("Target.getTargets");
            if let Some(t) = targets
                .iter()
                .find(|t| t.r#type == "service_worker" && t.url.starts_with("chrome-extension://"))
            {
                return t.url.clone();
            }
            assert!(Instant::now() < deadline, "no extension service worker in {targets:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A new tab on `url`, loaded.
    pub async fn open(&self, url: &str) -> chromiumoxide::Page {
        let page = self.browser.new_page(url).await.expect("open a tab");
        page.wait_for_navigation().await.expect("the tab loads");
        page
    }

    /// The side panel, opened as a page, showing the tab whose URL is `tab_url`.
    pub async fn panel(&self, tab_url: &str) -> Panel {
        let base = format!("chrome-extension://{}/panel.html", self.extension_id);
        let page = self.open(&base).await;
        let probe = Panel { page, tab_id: 0 };
        let tab_id = probe
            .eval(&format!(
                "(async () => (await chrome.tabs.query({{}})).find((t) => t.url === {}).id)()",
                serde_json::to_string(tab_url).unwrap()
            ))
            .await
            .as_i64()
            .expect("the tab's id");
        probe
            .page
            .goto(format!("{base}?tab={tab_id}"))
            .await
            .expect("open the panel");
        let panel = Panel {
            page: probe.page,
            tab_id,
        };
        panel.wait_for("document.body.dataset.ready === 'true'").await;
        panel
    }
}

impl Drop for ExtensionBrowser {
    fn drop(&mut self) {
        self.handler.abort();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Chromium writes its DevTools port and browser path to
/// `DevToolsActivePort` in the profile. (The WebSocket URL, not the HTTP
/// endpoint: chromiumoxide would ask that with reqwest, which has no TLS
/// provider installed here.)
async fn devtools_url(profile: &Path) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Ok(text) = std::fs::read_to_string(profile.join("DevToolsActivePort")) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return format!("ws://127.0.0.1:{}{}", port.trim(), path.trim());
            }
        }
        assert!(Instant::now() < deadline, "chromium did not open its DevTools port");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Evaluates `expression` (awaiting a promise) in a page's main world.
pub async fn eval(page: &chromiumoxide::Page, expression: &str) -> Value {
    let params = EvaluateParams::builder()
        .expression(expression)
        .await_promise(true)
        .return_by_value(true)
        .build()
        .unwrap();
    let result = page.evaluate_expression(params).await;
    match result {
        Ok(r) => r.value().cloned().unwrap_or(Value::Null),
        Err(e) => panic!("evaluating {expression}: {e}"),
    }
}

/// Waits until `condition` is true in the page.
pub async fn wait_for(page: &chromiumoxide::Page, condition: &str) {
    let deadline = Instant::now() + WAIT;
    while eval(page, &format!("!!({condition})")).await != Value::Bool(true) {
        assert!(Instant::now() < deadline, "{condition} did not come true");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The extension's side panel, open as a page for one tab.
pub struct Panel {
    pub page: chromiumoxide::Page,
    pub tab_id: i64,
}

impl Panel {
    pub async fn eval(&self, expression: &str) -> Value {
        eval(&self.page, expression).await
    }

    pub async fn wait_for(&self, condition: &str) {
        wait_for(&self.page, condition).await
    }

    /// Clicks the panel's element with this id, as the user would.
    pub async fn click(&self, id: &str) {
        self.eval(&format!("document.getElementById({id:?}).click()")).await;
    }

    pub async fn text(&self, id: &str) -> String {
        self.eval(&format!("document.getElementById({id:?}).textContent"))
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The extension's token, once the panel shows it (the panel asks the
    /// service worker for it after it loads: a busy machine takes a while).
    pub async fn token(&self) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        loop {
            let token = self.text("token").await;
            if !token.is_empty() || std::time::Instant::now() >= deadline {
                return token;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// The snapshot lines the panel lists.
    pub async fn lines(&self) -> Vec<String> {
        let v = self
            .eval("[...document.querySelectorAll('#tree li')].map((li) => li.textContent)")
            .await;
        serde_json::from_value(v).unwrap()
    }

    /// Evaluates in the shown tab's isolated world of the extension (where
    /// its content scripts and the engine run).
    pub async fn in_tab_isolated_world(&self, function_body: &str) -> Value {
        self.eval(&format!(
            "(async () => (await chrome.scripting.executeScript({{target: {{tabId: {}}}, func: () => {{ {function_body} }}}}))[0].result)()",
            self.tab_id
        ))
        .await
    }
}
