//! A tab whose renderer dies (killed, out of memory) while the browser
//! lives: every call answers at once that the page crashed and how to
//! recover, instead of waiting out the tool timeout for a renderer that
//! will never answer; a reload or a navigation brings the page back.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::mcp_client::stdio;
use crate::support::*;

/// Chromium renderer processes descending from `ancestor`.
fn renderers_under(ancestor: u32) -> Vec<u32> {
    let mut parent = HashMap::new();
    let mut renderers = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, r)| r.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0);
        parent.insert(pid, ppid);
        let cmd = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if cmd.contains("chromium") && cmd.contains("--type=renderer") {
            renderers.push(pid);
        }
    }
    renderers
        .into_iter()
        .filter(|r| {
            let mut at = *r;
            while let Some(&up) = parent.get(&at).filter(|&&up| up > 1) {
                if up == ancestor {
                    return true;
                }
                at = up;
            }
            false
        })
        .collect()
}

#[test]
fn a_crashed_tab_answers_at_once_and_a_reload_brings_it_back() {
    let files = FixtureServer::start();
    let mut c = stdio(&["--tool-timeout", "20"]);
    c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let renderers = renderers_under(c.pid());
    assert!(!renderers.is_empty(), "the page has a renderer");
    for r in &renderers {
        let _ = std::process::Command::new("kill").args(["-9", &r.to_string()]).status();
    }
    std::thread::sleep(Duration::from_millis(500));

    for (tool, args) in [
        ("browser_snapshot", json!({})),
        ("browser_click", json!({"target": "e1"})),
        ("browser_take_screenshot", json!({})),
    ] {
        let t = Instant::now();
        let r = c.call(tool, args);
        assert!(t.elapsed() < Duration::from_secs(8), "{tool} took {:?}", t.elapsed());
        assert!(r.is_error, "{tool}: {}", r.text);
        assert!(
            r.text.contains("crashed") && r.text.contains("browser_reload"),
            "{tool}: {}",
            r.text
        );
        assert!(
            r.text.contains("short.html"),
            "the page section still says where: {}",
            r.text
        );
    }
    let t = Instant::now();
    let tabs = c.call("browser_tabs", json!({}));
    assert!(t.elapsed() < Duration::from_secs(8), "tabs took {:?}", t.elapsed());
    assert!(tabs.text.contains("short.html"), "{}", tabs.text);

    let reloaded = c.ok("browser_reload", json!({}));
    assert!(reloaded.contains("Only button"), "{reloaded}");
    assert!(c.ok("browser_snapshot", json!({})).contains("Only button"));
}
