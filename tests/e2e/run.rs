//! `sightline run URL --steps steps.json`: deterministic runs from the
//! command line, and `sightline bench actions`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;
use serde_json::{json, Value};

fn write_steps(dir: &std::path::Path, steps: &Value) -> String {
    let path = dir.join("steps.json");
    std::fs::write(&path, serde_json::to_string_pretty(steps).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

fn json_out(out: &CliOutput) -> Value {
    serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", out.stdout, out.stderr))
}

/// The order page served, the ref its snapshot gives Quantity, and a
/// directory holding the receipt to upload (where steps.json goes too).
struct Checkout {
    _server: FixtureServer,
    url: String,
    qty: String,
    dir: tempfile::TempDir,
}

fn checkout() -> Checkout {
    let server = FixtureServer::start();
    let url = server.url("actions/order.html");
    // Refs are numbered by the page's snapshot: find the one for Quantity.
    let (_, snap) = snapshot_json(&url, &[]);
    let qty = snap
        .refs
        .iter()
        .find(|(_, r)| r.name == "Quantity")
        .map(|(k, _)| k.clone())
        .expect("a Quantity ref");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixtures_dir().join("actions/upload-a.txt"),
        dir.path().join("receipt.txt"),
    )
    .unwrap();
    Checkout {
        _server: server,
        url,
        qty,
        dir,
    }
}

#[test]
fn a_checkout_by_selectors_and_refs() {
    let Checkout { _server, url, qty, dir } = checkout();
    let steps = write_steps(
        dir.path(),
        &json!([
            {"method": "fill", "selector": "#email", "arguments": ["a@b.c"], "description": "the email field"},
            {"method": "fill", "ref": qty, "arguments": [3]},
            {"method": "check", "selector": "#gift"},
            {"method": "selectOptionFromDropdown", "selector": "xpath=//select[@name='size']", "arguments": ["Large"]},
            {"method": "setInputFiles", "selector": "#receipt", "arguments": ["receipt.txt"]},
            {"method": "click", "selector": "#buy"}
        ]),
    );

    let out = run_cli(&["run", &url, "--steps", &steps, "--json"]);
    out.assert_success();
    let v = json_out(&out);
    let done = v["steps"].as_array().unwrap();
    assert_eq!(done.len(), 6, "{v}");
    assert!(done.iter().all(|s| s["ok"] == true), "{v}");
    assert_eq!(done[0]["method"], "fill");
    assert_eq!(done[0]["selector"], "#email");
    assert_eq!(done[1]["ref"], qty.as_str());
    assert_eq!(done[1]["selector"], "#qty", "the snapshot's selector for the ref: {v}");
    assert!(done.iter().all(|s| s.get("error").is_none()));
    // The page itself says what was submitted.
    let final_url = v["url"].as_str().unwrap();
    assert!(
        final_url.ends_with("/actions/thanks.html?email=a%40b.c&qty=3&gift=yes&size=Large&receipt=receipt.txt"),
        "{final_url}"
    );
    assert_eq!(v["title"], "Thanks");

    // Text output: one line per step, then where the run ended.
    let out = run_cli(&["run", &url, "--steps", &steps]);
    out.assert_success();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 7, "{}", out.stdout);
    assert!(
        lines[0].starts_with("1/6 ok   fill #email → input#email"),
        "{}",
        lines[0]
    );
    assert!(lines[5].contains("navigated to"), "{}", lines[5]);
    assert!(
        lines[6].starts_with("done: 6 step(s); now at ") && lines[6].ends_with("\"Thanks\""),
        "{}",
        lines[6]
    );
}

/// The same checkout as registry tool calls: the steps an agent or an MCP
/// client would make, by ref and by selector.
#[test]
fn a_checkout_by_registry_tool_steps() {
    let Checkout { _server, url, qty, dir } = checkout();
    let steps = write_steps(
        dir.path(),
        &json!([
            {"tool": "fill", "target": "#email", "value": "a@b.c", "element": "the email field"},
            {"tool": "type", "target": qty, "text": "3"},
            {"tool": "check", "target": "#gift"},
            // A bare XPath, as models write them.
            {"tool": "select", "args": {"target": "//select[@name='size']", "values": ["Large"]}},
            {"tool": "upload", "target": "#receipt", "paths": ["receipt.txt"]},
            {"tool": "snapshot", "mode": "viewport"},
            {"tool": "click", "target": "#buy"}
        ]),
    );
    let out = run_cli(&["run", &url, "--steps", &steps, "--json"]);
    out.assert_success();
    let v = json_out(&out);
    let done = v["steps"].as_array().unwrap();
    assert_eq!(done.len(), 7, "{v}");
    assert!(done.iter().all(|s| s["ok"] == true), "{v}");
    assert_eq!(done[1]["method"], "type");
    assert_eq!(done[1]["ref"], qty.as_str());
    assert!(
        done[5]["value"].as_str().unwrap().contains("<untrusted_page_content>"),
        "{v}"
    );
    let final_url = v["url"].as_str().unwrap();
    assert!(
        final_url.ends_with("/actions/thanks.html?email=a%40b.c&qty=3&gift=yes&size=Large&receipt=receipt.txt"),
        "{final_url}"
    );

    // Bad tool steps are refused, by step number, before a browser starts.
    let bad = write_steps(
        dir.path(),
        &json!([{"tool": "click", "target": "#buy"}, {"tool": "click"}]),
    );
    let line = run_cli(&["run", &url, "--steps", &bad]).assert_one_line_error();
    assert!(line.contains("step 2: invalid arguments for click"), "{line}");
}

#[test]
fn the_first_failure_stops_the_run() {
    let server = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let steps = write_steps(
        dir.path(),
        &json!([
            {"method": "fill", "selector": "#email", "arguments": ["a@b.c"]},
            {"method": "click", "selector": "#missing"},
            {"method": "click", "selector": "#buy"}
        ]),
    );
    let started = Instant::now();
    let out = run_cli(&[
        "run",
        &server.url("actions/order.html"),
        "--steps",
        &steps,
        "--json",
        "--action-timeout",
        "300",
    ]);
    assert_eq!(out.code(), Some(1), "stderr:\n{}", out.stderr);
    let err: Vec<&str> = out.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        err,
        ["error: step 2 of 3 (click #missing) failed: click #missing: no element matches (waited 0.3s)"]
    );
    let v = json_out(&out);
    let done = v["steps"].as_array().unwrap();
    assert_eq!(done.len(), 2, "stopped at the failure: {v}");
    assert_eq!(done[0]["ok"], true);
    assert_eq!(done[1]["ok"], false);
    assert_eq!(done[1]["selector"], "#missing");
    assert!(done[1]["error"].as_str().unwrap().contains("no element matches"), "{v}");
    assert!(v["url"].as_str().unwrap().ends_with("/actions/order.html"), "{v}");
    assert!(started.elapsed() < Duration::from_secs(60));

    // A stale ref fails with a message that says so (text mode).
    let steps = write_steps(dir.path(), &json!([{"method": "click", "ref": "e999"}]));
    let out = run_cli(&["run", &server.url("actions/order.html"), "--steps", &steps]);
    assert_eq!(out.code(), Some(1));
    assert!(out.stdout.starts_with("1/1 FAIL click e999"), "{}", out.stdout);
    assert!(
        out.stderr.contains("no snapshot of this page handed out this ref"),
        "{}",
        out.stderr
    );
}

#[test]
fn bad_steps_are_rejected_before_starting_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let steps = write_steps(
        dir.path(),
        &json!([{"method": "click", "selector": "#a"}, {"method": "fly", "selector": "#b"}]),
    );
    let started = Instant::now();
    let out = run_cli(&["run", "../../tests/fixtures/short.html", "--steps", &steps]);
    let line = out.assert_one_line_error();
    assert!(line.starts_with("error: invalid action: "), "{line}");
    assert!(line.contains("step 2: unknown method \"fly\""), "{line}");
    assert!(started.elapsed() < Duration::from_secs(5), "a browser was started");

    let steps = write_steps(dir.path(), &json!([{"method": "fill", "selector": "#a"}]));
    let line = run_cli(&["run", "../../tests/fixtures/short.html", "--steps", &steps]).assert_one_line_error();
    assert!(line.contains("step 1: fill needs the text in arguments"), "{line}");
    let line = run_cli(&[
        "run",
        "../../tests/fixtures/short.html",
        "--steps",
        "/nonexistent/steps.json",
    ])
    .assert_one_line_error();
    assert_eq!(line, "error: no such file: /nonexistent/steps.json");
    // A file that is there but no text is said to be so.
    let binary = dir.path().join("binary.json");
    std::fs::write(&binary, [0x89u8, 0x50, 0xff, 0x00, 0xfe]).unwrap();
    let line = run_cli(&[
        "run",
        "../../tests/fixtures/short.html",
        "--steps",
        binary.to_str().unwrap(),
    ])
    .assert_one_line_error();
    assert!(
        line.ends_with("binary.json: not a steps file: it is not UTF-8 text"),
        "{line}"
    );
}

#[test]
fn steps_follow_a_new_tab() {
    let server = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let steps = write_steps(
        dir.path(),
        &json!([
            {"method": "click", "selector": "#help"},
            {"method": "click", "selector": "#thanks"},
            {"method": "press", "arguments": ["Tab", "Shift+Tab"]},
            {"method": "scroll", "arguments": ["down", "50%"]},
            {"method": "wait", "arguments": [50]}
        ]),
    );
    let out = run_cli(&["run", &server.url("actions/popup.html"), "--steps", &steps, "--json"]);
    out.assert_success();
    let v = json_out(&out);
    let notes = v["steps"][0]["notes"].to_string();
    assert!(notes.contains("continuing in the new tab"), "{v}");
    assert!(v["url"].as_str().unwrap().contains("popup-target.html?via=link"), "{v}");
    assert_eq!(v["title"], "Help");
}

/// A step that opens a dialog says what became of it: dismissed when no
/// step answers dialogs; held open for the handleDialog step that follows
/// when one does (a transcript of MCP calls replays as it ran).
#[test]
fn steps_say_what_became_of_a_dialog() {
    let server = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let page = server.url("sessions/edge.html");
    let answer = json!({"tool": "evaluate", "function": "() => document.getElementById('answer').textContent"});
    let steps = write_steps(dir.path(), &json!([{"tool": "click", "target": "#ask"}, answer]));
    let v = json_out(&run_cli(&["run", &page, "--steps", &steps, "--json"]));
    let notes = v["steps"][0]["notes"].to_string();
    assert!(notes.contains(r#"confirm \"Sure?\" dialog was dismissed"#), "{v}");
    assert!(v["steps"][1]["value"].to_string().contains("no"), "{v}");

    let steps = write_steps(
        dir.path(),
        &json!([{"tool": "click", "target": "#ask"}, {"tool": "handleDialog", "accept": true}, answer]),
    );
    let out = run_cli(&["run", &page, "--steps", &steps, "--json"]);
    out.assert_success();
    let v = json_out(&out);
    assert!(
        v["steps"][0]["notes"]
            .to_string()
            .contains("held open for the next handleDialog step"),
        "{v}"
    );
    assert!(v["steps"][2]["value"].to_string().contains("yes"), "{v}");
}

/// A step that hangs the page fails once its page stops answering, and the
/// run ends then: the report's URL and title come from the browser's list,
/// not from the page (which would have held the run for a minute more).
#[test]
fn a_run_ends_soon_after_a_step_hangs_the_page() {
    let server = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let steps = write_steps(
        dir.path(),
        &json!([{"tool": "click", "target": "#spin"}, {"tool": "snapshot"}]),
    );
    let started = Instant::now();
    let out = run_cli(&["run", &server.url("hung/loop-button.html"), "--steps", &steps, "--json"]);
    let took = started.elapsed();
    assert_eq!(out.code(), Some(1), "{}", out.stdout);
    assert!(took < Duration::from_secs(30), "the run took {took:?}");
    let v = json_out(&out);
    assert!(
        v["steps"][0]["error"]
            .as_str()
            .unwrap()
            .contains("the page took the input"),
        "{v}"
    );
    assert!(v["url"].as_str().unwrap().ends_with("hung/loop-button.html"), "{v}");
}

/// Live processes whose parent is `ppid` and whose command line mentions `needle`.
fn children_mentioning(ppid: u32, needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let mut f = rest.split_whitespace();
        let state = f.next().unwrap_or("");
        let parent: u32 = f.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if parent == ppid && state != "Z" && String::from_utf8_lossy(&cmd).contains(needle) {
            out.push(pid);
        }
    }
    out
}

#[test]
fn ctrl_c_during_a_run_closes_the_browser() {
    let server = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let steps = write_steps(dir.path(), &json!([{"method": "wait", "arguments": [60000]}]));
    let child = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["run", &server.url("short.html"), "--steps", &steps])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let cli = child.id();
    let deadline = Instant::now() + Duration::from_secs(90);
    let chrome = loop {
        if let Some(p) = children_mentioning(cli, "sightline-profile-").first() {
            break *p;
        }
        assert!(Instant::now() < deadline, "no chromium started");
        std::thread::sleep(Duration::from_millis(50));
    };
    // Let the run reach its wait step.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(Command::new("kill")
        .args(["-INT", &cli.to_string()])
        .status()
        .unwrap()
        .success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), "error: interrupted");
    let gone = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&format!("/proc/{chrome}/stat")).exists()
        && !std::fs::read_to_string(format!("/proc/{chrome}/stat"))
            .unwrap_or_default()
            .contains(") Z")
    {
        assert!(Instant::now() < gone, "chromium {chrome} survived Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn bench_actions_reports_click_and_fill() {
    let out = run_cli(&["bench", "actions", "--runs", "3", "--json"]);
    out.assert_success();
    let v: Value = serde_json::from_str(out.stdout.trim()).expect("one JSON object");
    assert_eq!(v["runs"], 3);
    for k in ["click", "fill"] {
        let m = v[k]["median_ms"].as_f64().unwrap();
        assert!(m > 0.0 && m < 1000.0, "{k}: {v}");
        assert_eq!(v[k]["target_ms"], 30.0);
    }
    // 5 warm-up + 3 timed, each counted by the page itself.
    assert_eq!(v["page_clicks"], 8);
    assert!(v["page_inputs"].as_u64().unwrap() >= 8);
    let out = run_cli(&["bench", "actions", "--runs", "2"]);
    out.assert_success();
    assert!(
        out.stdout.contains("click") && out.stdout.contains("≤ 30 ms"),
        "{}",
        out.stdout
    );
}

/// A fill says what the field kept when that differs from the text (a
/// number field drops what is not a number), and fails when the field
/// refused it all, rather than reporting "Filled".
#[test]
fn a_fill_says_what_the_field_kept() {
    let server = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let steps = write_steps(
        dir.path(),
        &json!([
            {"tool": "fill", "target": "#qty", "value": "1,5"},
            {"tool": "fill", "target": "#qty", "value": "many"}
        ]),
    );
    let out = run_cli(&["run", &server.url("actions/order.html"), "--steps", &steps, "--json"]);
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    let v = json_out(&out);
    let kept = v["steps"][0]["value"].as_str().unwrap_or_default();
    assert!(kept.contains("the field holds other text than was given"), "{v}");
    assert!(
        !kept.contains("15"),
        "neither the text nor what was kept is repeated: {v}"
    );
    let refused = v["steps"][1]["error"].as_str().unwrap_or_default();
    assert!(
        refused.contains("the number field refused the text (its number was put back): it takes only a number"),
        "{v}"
    );
}

/// A click whose handler runs longer than the action timeout (an export, a
/// big sort) but ends was taken: the step goes on, once (it failed with
/// "timed out … try again", and a second click would order twice).
#[test]
fn a_slow_click_handler_is_a_click_taken_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("export.html"),
        "<!doctype html><title>Export</title><button id=export onclick=\"window.clicks = (window.clicks || 0) + 1; \
         const t = performance.now(); while (performance.now() - t < 1200); \
         document.getElementById('out').textContent = 'Exported ' + window.clicks\">Export</button><p id=out></p>",
    )
    .unwrap();
    let files = FixtureServer::serve(dir.path().to_path_buf());
    let steps = write_steps(
        dir.path(),
        &json!([
            {"tool": "click", "target": "#export"},
            {"tool": "evaluate", "function": "() => document.getElementById('out').textContent"}
        ]),
    );
    let out = run_cli(&[
        "run",
        &files.url("export.html"),
        "--steps",
        &steps,
        "--json",
        "--action-timeout",
        "500",
    ]);
    out.assert_success();
    let v = json_out(&out);
    assert_eq!(v["steps"][1]["value"], json!("Exported 1"), "{v}");
}
