//! A Chromium started by hand with a DevTools port, as a remote fleet or a
//! hosted browser service runs one (for `Browser::connect`, `--cdp-url` and
//! `batch --cdp-endpoint`). Offline: nothing but 127.0.0.1 is reachable.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline::LaunchOptions;

pub struct RemoteChrome {
    pub child: Child,
    pub port: u16,
    _profile: tempfile::TempDir,
}

impl RemoteChrome {
    /// A browser whose cross-site frames share their page's process (as
    /// Sightline's own launches run them).
    pub fn start() -> RemoteChrome {
        RemoteChrome::start_with(false)
    }

    /// A browser as users run it: sites isolated, each cross-site frame in
    /// a process of its own. One more site, `ads.test`, is on 127.0.0.1.
    pub fn start_isolating_sites() -> RemoteChrome {
        RemoteChrome::start_with(true)
    }

    fn start_with(isolating: bool) -> RemoteChrome {
        let profile = tempfile::tempdir().unwrap();
        let exe = LaunchOptions::default().resolved_executable();
        let mut cmd = Command::new(exe);
        cmd.args([
            "--headless=new",
            "--remote-debugging-port=0",
            "--no-first-run",
            "--disable-gpu",
            "--disable-background-networking",
        ]);
        if !isolating {
            cmd.args([
                "--disable-site-isolation-trials",
                "--disable-features=IsolateOrigins,site-per-process",
            ]);
        }
        let offline = sightline_testkit::offline_switches();
        cmd.args(offline.iter().map(|s| match s.split_once('=') {
            Some(("host-resolver-rules", rules)) if isolating => {
                format!("--host-resolver-rules=MAP ads.test 127.0.0.1, {rules}")
            }
            Some(("proxy-bypass-list", list)) if isolating => format!("--proxy-bypass-list={list};ads.test"),
            _ => format!("--{s}"),
        }))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        // (Its Downloads folder is in its own home, not the user's running the tests.)
        .env("HOME", profile.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        if std::fs::metadata("/proc/self")
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
            .unwrap_or(false)
        {
            cmd.arg("--no-sandbox");
        }
        let child = cmd.spawn().expect("start chromium");
        let file = profile.path().join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(60);
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                if let Some(p) = text.lines().next().and_then(|l| l.trim().parse().ok()) {
                    break p;
                }
            }
            assert!(Instant::now() < deadline, "chromium did not open its DevTools port");
            std::thread::sleep(Duration::from_millis(50));
        };
        RemoteChrome {
            child,
            port,
            _profile: profile,
        }
    }

    /// Opens a tab of the browser's own, as its user would (`/json/new`).
    pub fn open_tab(&self, url: &str) {
        self.devtools("PUT", &format!("/json/new?{url}"));
    }

    /// Closes its tabs showing `url`, as its user would (`/json/close`).
    pub fn close_tabs_at(&self, url: &str) {
        for (id, _) in self.tabs().iter().filter(|(_, u)| u == url) {
            self.devtools("GET", &format!("/json/close/{id}"));
        }
    }

    /// The URLs of its open tabs (`/json/list`).
    pub fn tab_urls(&self) -> Vec<String> {
        self.tabs().into_iter().map(|(_, url)| url).collect()
    }

    /// The title of its open tab showing `url`.
    pub fn title_at(&self, url: &str) -> Option<String> {
        let body = self.devtools("GET", "/json/list");
        let list: Vec<Value> = serde_json::from_str(&body).unwrap();
        list.iter()
            .find(|t| t["type"] == "page" && t["url"] == url)
            .map(|t| t["title"].as_str().unwrap_or_default().to_string())
    }

    /// Closes the tab showing `url` (the first), as its user would.
    pub fn close_tab_at(&self, url: &str) {
        if let Some((id, _)) = self.tabs().into_iter().find(|(_, u)| u == url) {
            self.devtools("GET", &format!("/json/close/{id}"));
        }
    }

    /// Its open tabs: (id, URL).
    fn tabs(&self) -> Vec<(String, String)> {
        let body = self.devtools("GET", "/json/list");
        let list: Vec<Value> = serde_json::from_str(&body).unwrap();
        list.iter()
            .filter(|t| t["type"] == "page")
            .map(|t| {
                let text = |k: &str| t[k].as_str().unwrap_or_default().to_string();
                (text("id"), text("url"))
            })
            .collect()
    }

    /// The body of DevTools' answer to an HTTP request.
    fn devtools(&self, method: &str, path: &str) -> String {
        // DevTools answers HTTP/1.1 only, and keeps the connection open:
        // read the head, then Content-Length bytes.
        let mut sock = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            sock,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            self.port
        )
        .unwrap();
        let mut raw = Vec::new();
        let mut chunk = [0u8; 8192];
        let body = loop {
            let n = sock.read(&mut chunk).unwrap();
            assert!(n > 0, "DevTools closed the connection");
            raw.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&raw).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().to_string())
                    })
                    .and_then(|v| v.parse().ok())
                    .expect("a Content-Length");
                if body.len() >= length {
                    break body.to_string();
                }
            }
        };
        body
    }
}

impl Drop for RemoteChrome {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
