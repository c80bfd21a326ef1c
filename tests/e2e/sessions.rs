//! Session commands through real processes: every command is its own
//! `sightline` process talking to the session's daemon (a real background
//! process holding a real Chromium), on fixture pages served on 127.0.0.1.
//! Each test has a session folder of its own (`SIGHTLINE_SESSION_DIR`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline_testkit::offline_switches;

use crate::support::*;

/// A folder of sessions, closed (every session) when dropped.
struct Sessions {
    dir: tempfile::TempDir,
    files: FixtureServer,
}

impl Sessions {
    fn new() -> Sessions {
        Sessions {
            dir: tempfile::tempdir().unwrap(),
            files: FixtureServer::start(),
        }
    }

    fn dir(&self) -> PathBuf {
        self.dir.path().join("sessions")
    }

    fn env(&self) -> [(&'static str, String); 2] {
        [
            ("SIGHTLINE_SESSION_DIR", self.dir().to_string_lossy().into_owned()),
            ("SIGHTLINE_SESSION", "default".into()),
        ]
    }

    /// `sightline <args…>` in this folder of sessions.
    fn run(&self, args: &[&str]) -> CliOutput {
        let env = self.env();
        let envs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        run_cli_env(args, &envs)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        out.assert_success();
        out.stdout
    }

    /// `sightline open <page> [args…]` with the browser kept off the network.
    fn open(&self, page: &str, extra: &[&str]) -> String {
        let url = self.files.url(page);
        let mut args = vec!["open".to_string(), url];
        // Written as users write switches, with their dashes: the value
        // must reach the daemon as a value, not as a flag of its own.
        for s in offline_switches() {
            args.push(format!("--chrome-arg=--{s}"));
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        self.ok(&refs)
    }

    /// `sightline open <page> --extension` on `port`, giving up after
    /// `timeout` seconds.
    fn open_through_extension(&self, page: &str, port: u16, timeout: &str) -> CliOutput {
        let url = self.files.url(page);
        let port = port.to_string();
        self.run(&[
            "open",
            &url,
            "--extension",
            "--extension-port",
            &port,
            "--extension-timeout",
            timeout,
        ])
    }

    fn daemon_pid(&self, session: &str) -> Option<u32> {
        std::fs::read_to_string(self.dir().join(format!("{session}.pid")))
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        let _ = self.run(&["close", "--all"]);
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit_once(')').map(|(_, r)| r.trim_start()).unwrap_or("");
            !(state.starts_with('Z') || state.starts_with('X'))
        })
        .unwrap_or(false)
}

/// Chromium processes whose parent is `pid`.
fn browsers_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let ppid: u32 = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
        let cmd = std::fs::read_to_string(format!("/proc/{child}/cmdline")).unwrap_or_default();
        if ppid == pid && cmd.contains("chromium") {
            out.push(child);
        }
    }
    out
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let end = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < end, "{what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn png_size(path: &Path) -> (u32, u32) {
    let png = std::fs::read(path).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let n = |i: usize| u32::from_be_bytes(png[i..i + 4].try_into().unwrap());
    (n(16), n(20))
}

#[test]
fn a_coding_agent_drives_a_shop_one_command_at_a_time() {
    let s = Sessions::new();
    // Nothing is open yet: the error says what to do, with status 1.
    let out = s.run(&["snapshot"]);
    assert_eq!(out.code(), Some(1));
    assert!(out.stderr.contains("sightline open"), "{}", out.stderr);

    let page = s.open("sessions/order.html", &[]);
    assert!(page.contains("textbox \"Full name\""), "{page}");
    let name = ref_with(&page, "textbox \"Full name\"");
    let size = ref_with(&page, "combobox \"Size\"");
    let gift = ref_with(&page, "checkbox \"Gift wrap\"");
    let place = ref_with(&page, "button \"Place order\"");

    // The whole tree whenever asked, and to a file for big pages.
    let snap = s.ok(&["snapshot"]);
    assert!(snap.contains(&format!("[ref={place}]")), "{snap}");
    // One element's subtree.
    let part = s.ok(&["snapshot", &place]);
    assert!(part.contains("Place order") && !part.contains("Full name"), "{part}");
    let tree_file = s.dir.path().join("tree.txt");
    let summary = s.ok(&["snapshot", "--file", tree_file.to_str().unwrap()]);
    assert!(summary.contains("Saved to") && summary.contains("refs"), "{summary}");
    assert!(std::fs::read_to_string(&tree_file).unwrap().contains("Place order"));

    // Form commands print what changed.
    let filled = s.ok(&["fill", &name, "Ada Lovelace"]);
    assert!(filled.contains("+ ") && filled.contains("Ada Lovelace"), "{filled}");
    // A ref's element is named as the snapshot showed it, not by its tag
    // or, for a select, by its options' text.
    assert!(filled.contains("Filled textbox \"Full name\""), "{filled}");
    let selected = s.ok(&["select", &size, "Medium"]);
    assert!(
        selected.contains("Selected in combobox \"Size\" → Medium"),
        "{selected}"
    );
    s.ok(&["check", &gift]);
    let unchecked = s.ok(&["uncheck", &gift]);
    assert!(unchecked.contains("### Result"), "{unchecked}");
    s.ok(&["check", &gift]);
    let placed = s.ok(&["click", &place]);
    assert!(
        placed.contains("Order placed for Ada Lovelace (Medium, gift wrapped)."),
        "the order is placed with the typed name: {placed}"
    );

    // Another page, back (its refs work again), forward, reload.
    let about = s.open("sessions/about.html", &[]);
    assert!(about.contains("About us"), "{about}");
    let back = s.ok(&["back"]);
    assert!(back.contains("Order placed for Ada Lovelace"), "{back}");
    let track = ref_with(&back, "button \"Track the parcel\"");
    let clicked = s.ok(&["click", &track]);
    assert!(clicked.contains("### Result"), "{clicked}");
    assert!(s.ok(&["forward"]).contains("About us"));
    assert!(s.ok(&["reload"]).contains("About us"));

    // Keys, typing, hovering, scrolling, waiting, JavaScript.
    let order = s.open("sessions/order.html", &[]);
    let field = ref_with(&order, "textbox \"Full name\"");
    // Changes asked for with nothing to compare with: said, and the whole tree.
    let first = s.ok(&["snapshot", "--diff"]);
    assert!(
        first.contains("No earlier whole-page snapshot of this page to compare with") && first.contains("[ref="),
        "{first}"
    );
    s.ok(&["type", &field, "Grace"]);
    s.ok(&["press", "End"]);
    s.ok(&["type", " Hopper"]);
    let value = s.ok(&["eval", "document.querySelector('input[name=name]').value"]);
    assert!(value.contains("Grace Hopper"), "typed into the focused field: {value}");
    // What a coding agent types: an arrow to call, or an IIFE already called.
    let arrow = s.ok(&["eval", "() => document.title.length > 0"]);
    assert!(arrow.contains("true"), "{arrow}");
    let iife = s.ok(&[
        "eval",
        "(() => { const f = document.forms.length; return `forms: ${f}`; })()",
    ]);
    assert!(iife.contains("forms: 1"), "{iife}");
    // Values JSON has no words for are said as JavaScript says them (they
    // were all `null`, and an element `{}`).
    for (code, said) in [
        ("undefined", "\nundefined\n"),
        ("0 / 0", "\nNaN\n"),
        ("-0", "\n-0\n"),
        ("2n ** 70n", "\n1180591620717411303424n\n"),
        ("document.querySelector('button')", "\nbutton\n"),
        ("Symbol('k')", "\nSymbol(k)\n"),
    ] {
        let out = s.ok(&["eval", code]);
        assert!(out.contains(said), "{code}: {out}");
    }
    let nested = s.ok(&[
        "eval",
        "(() => { const o = {n: [undefined, NaN], m: new Map([['a', 1]]), f: document.forms[0]}; o.o = o; return o; })()",
    ]);
    for part in ["\"NaN\"", "\"f\": \"form\"", "\"o\": \"[Circular]\"", "\"a\",\n"] {
        assert!(nested.contains(part), "{part}: {nested}");
    }
    // A loose selector acts on its first match, and says so.
    let loose = s.ok(&["hover", "input"]);
    assert!(
        loose.contains("Hovering over input (the first of 2 matches)"),
        "{loose}"
    );
    let exact = s.ok(&["hover", "input[name=gift]"]);
    assert!(!exact.contains("matches)"), "{exact}");
    // An XPath's count is of elements: the text it also matched is nothing to act on.
    let xpath = s.ok(&["hover", "xpath=//input | //input/following-sibling::text()"]);
    assert!(xpath.contains("(the first of 2 matches)"), "{xpath}");
    // A getter that throws is said in its place; a graph that reaches one
    // object by many paths (a React fiber tree) is read once, not 2^60 times.
    let getter = s.ok(&["eval", "({a: 1, get b() { throw new Error('no') }})"]);
    assert!(getter.contains("\"b\": \"[threw: no]\""), "{getter}");
    let shared = s.ok(&[
        "eval",
        "(() => { let n = {}; for (let i = 0; i < 60; i++) n = {l: n, r: n}; return n; })()",
    ]);
    assert!(
        shared.contains("[Shared]") && shared.len() < 20_000,
        "{} chars",
        shared.len()
    );
    let on_element = s.ok(&["eval", "(el) => el.parentElement", "--target", &field]);
    assert!(on_element.contains("\nlabel\n"), "{on_element}");
    s.ok(&["hover", &ref_with(&order, "button \"Place order\"")]);
    s.ok(&["dblclick", &field]);
    s.ok(&["scroll", "down"]);
    let into_view = s.ok(&["scroll", &field]);
    assert!(
        into_view.contains("Scrolled textbox \"Full name\" into view"),
        "{into_view}"
    );
    // At the top already, scrolling up moves nothing, and says so.
    s.ok(&["scroll", "top"]);
    let still = s.ok(&["scroll", "up"]);
    assert!(
        still.contains("Nothing scrolled (page did not move: it is at y=0 of"),
        "{still}"
    );
    s.ok(&["wait", "100"]);
    assert!(s.ok(&["wait", "Quick order"]).contains("### Result"));

    // A pop-up in the way: unblock closes it (a consent bar only when asked
    // to be aggressive; conservative unblock leaves consent alone).
    s.open("modals/cookie-bar.html", &[]);
    let unblocked = s.ok(&["unblock", "--aggressive"]);
    assert!(unblocked.contains("Closed the consent dialog"), "{unblocked}");
    assert!(!unblocked.contains("[covered]"), "{unblocked}");

    // Tabs.
    let listed = s.ok(&["tabs"]);
    assert!(listed.contains("### Result"), "{listed}");
    let blank = s.ok(&["tabs", "new"]);
    assert!(
        blank.contains("The tab is blank (about:blank): open a page in it with `sightline open`"),
        "{blank}"
    );
    let two = s.ok(&["tabs", "list"]);
    assert!(two.contains("- 1:"), "{two}");
    assert!(!two.contains("### Open tabs"), "the list once: {two}");
    let listed: Value = serde_json::from_str(&s.ok(&["tabs", "--json"])).unwrap();
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(2), "{listed}");
    assert_eq!(listed["data"][1]["current"], true, "{listed}");
    s.ok(&["tabs", "select", "0"]);
    s.ok(&["tabs", "close", "1"]);

    // A screenshot at the viewport's size.
    let shot = s.dir.path().join("shot.png");
    let said = s.ok(&["screenshot", shot.to_str().unwrap()]);
    assert!(said.contains("shot.png"), "{said}");
    assert_eq!(png_size(&shot), (1280, 720));
    // Annotated: each ref's box drawn and labelled, for a vision model.
    let annotated = s.dir.path().join("refs.png");
    s.ok(&["screenshot", annotated.to_str().unwrap(), "--annotate"]);
    assert_eq!(png_size(&annotated), (1280, 720));
    assert_ne!(
        std::fs::read(&annotated).unwrap(),
        std::fs::read(&shot).unwrap(),
        "boxes drawn"
    );

    // JSON: the same response as one object.
    let json: Value = serde_json::from_str(&s.ok(&["snapshot", "--json"])).unwrap();
    assert_eq!(json["ok"], true, "{json}");
    assert!(
        json["page"]["url"].as_str().unwrap().contains("cookie-bar.html"),
        "{json}"
    );
    assert!(json["result"].as_str().unwrap().contains("[ref="), "the tree: {json}");
    // A command line that can't run is answered in JSON too, when asked.
    let wrong = s.run(&["fill", "e1", "--json"]);
    assert_eq!(wrong.code(), Some(2), "{}", wrong.stdout);
    let wrong: Value = serde_json::from_str(&wrong.stdout).unwrap();
    assert!(wrong["error"].as_str().unwrap().contains("missing VALUE"), "{wrong}");
    // After `--`, `--json` is a value to type, not a wish for JSON.
    let typed = s.run(&["fill", "e1", "--bogus", "--", "--json"]);
    assert_eq!(typed.code(), Some(2), "{}", typed.stderr);
    assert!(
        typed.stdout.is_empty() && typed.stderr.contains("--bogus"),
        "a plain usage error: {} / {}",
        typed.stdout,
        typed.stderr
    );

    // Errors say what to do next, with status 1; bad usage is status 2.
    let stale = s.run(&["click", "e999"]);
    assert_eq!(stale.code(), Some(1), "{}", stale.stdout);
    assert!(
        stale.stdout.contains("### Error") && stale.stdout.contains("sightline snapshot"),
        "{}",
        stale.stdout
    );
    let usage = s.run(&["fill", "e1"]);
    assert_eq!(usage.code(), Some(2), "{}", usage.stderr);

    let sessions = s.ok(&["sessions"]);
    assert!(
        sessions.contains("default") && sessions.contains("cookie-bar.html"),
        "{sessions}"
    );
    let pid = s.daemon_pid("default").expect("a pid file");
    s.ok(&["close"]);
    wait_until("the daemon exits on close", Duration::from_secs(20), || !alive(pid));
    assert!(!s.dir().join("default.log").exists(), "a clean close leaves no log");
    let after = s.run(&["snapshot"]);
    assert_eq!(after.code(), Some(1));
    assert!(s.ok(&["sessions"]).contains("No browser session"));
}

/// Daemons of `session` running anywhere (their command line names it).
fn daemons_of(session: &str) -> Vec<u32> {
    let needle = format!("__session-daemon\0--session\0{session}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| alive(*pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(&needle))
        })
        .collect()
}

/// Agents run tool calls in parallel: four `open`s at once on a new
/// session start one daemon and one browser, and all four use it.
#[test]
fn opens_at_once_share_one_daemon() {
    let s = Sessions::new();
    let session = format!("race{}", std::process::id());
    let mut args = vec![
        "open".to_string(),
        s.files.url("short.html"),
        "--session".into(),
        session.clone(),
    ];
    args.extend(offline_switches().iter().map(|w| format!("--chrome-arg=--{w}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let outs: Vec<CliOutput> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..4).map(|_| scope.spawn(|| s.run(&args))).collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for out in &outs {
        out.assert_success();
        assert!(out.stdout.contains("Opened"), "{}", out.stdout);
    }
    let daemons = daemons_of(&session);
    assert_eq!(daemons.len(), 1, "one daemon for the session: {daemons:?}");
    assert_eq!(browsers_of(daemons[0]).len(), 1);
    let listed = s.ok(&["sessions"]);
    assert!(listed.contains("short.html"), "{listed}");
    s.ok(&["close", "--session", &session]);
    wait_until("the daemon ends", Duration::from_secs(20), || {
        daemons_of(&session).is_empty()
    });
}

/// `close` while a command runs ends that command too: it says the session
/// was closed, and no daemon is left driving the browser it closed.
#[test]
fn close_ends_a_command_that_is_running() {
    let s = Sessions::new();
    s.open("short.html", &[]);
    let pid = s.daemon_pid("default").unwrap();
    let waited = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| s.run(&["wait", "20000"]));
        // (Time for the wait to reach the daemon, on a busy machine too.)
        std::thread::sleep(Duration::from_millis(2500));
        s.ok(&["close"]);
        let started = Instant::now();
        let out = waiting.join().unwrap();
        (out, started.elapsed())
    });
    let (out, took) = waited;
    assert_eq!(out.code(), Some(1), "{}", out.stdout);
    assert!(
        out.stdout.contains("the session was closed while this command ran"),
        "{}",
        out.stdout
    );
    assert!(took < Duration::from_secs(10), "the wait went on for {took:?}");
    wait_until("the daemon ends", Duration::from_secs(10), || !alive(pid));
}

/// A command whose client went away (Ctrl-C, a killed agent) stops: the
/// next command neither waits for it nor finds the tab stuck in a
/// navigation to a server that never answers.
#[test]
fn a_command_whose_client_went_away_stops() {
    let s = Sessions::new();
    s.open("short.html", &[]);
    let mut opening = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["open", &s.files.url("__hang")])
        .envs(s.env())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    opening.kill().unwrap();
    let _ = opening.wait();
    let started = Instant::now();
    let tree = s.ok(&["snapshot"]);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert!(tree.contains("Only button"), "{tree}");
}

/// A page that sends the user straight back where they came from (a login
/// or cart page) is opened once: its redirect is not taken for the page
/// left landing a navigation of its own, which goto would answer by
/// opening the page again.
#[test]
fn a_page_that_redirects_back_is_opened_once() {
    let s = Sessions::new();
    s.open("short.html", &[]);
    // A page the server moved: where it was asked for is said.
    let moved = s.ok(&["open", &s.files.url("__redirect/sessions/about.html")]);
    assert!(
        moved.contains("about.html (HTTP 200")
            && moved.contains(", redirected from http://")
            && moved.contains("/__redirect/sessions/about.html"),
        "{moved}"
    );
    // A URL the browser writes otherwise (`%61` is `a`) is no redirect.
    let direct = s.ok(&["open", &s.files.url("sessions/%61bout.html")]);
    assert!(
        direct.contains("About us") && !direct.contains("redirected"),
        "{direct}"
    );
    let opened = s.ok(&["open", &s.files.url("redirect-back.html")]);
    assert!(opened.contains("Only button"), "back on the short page: {opened}");
    // The result says where the page went, not only the page section.
    let went_on = format!("; the page then went on to {}", s.files.url("short.html"));
    assert!(opened.contains(&went_on), "{opened}");
    let loads = s.ok(&["eval", "sessionStorage.loads"]);
    assert!(loads.contains("\"1\""), "{loads}");
}

#[test]
fn sessions_are_isolated_and_private() {
    let s = Sessions::new();
    s.open("sessions/order.html", &[]);
    s.open("sessions/about.html", &["--session", "other"]);
    // Cookies and tabs of one session are not the other's.
    s.ok(&["eval", "document.cookie = 'who=first'"]);
    let mine = s.ok(&["eval", "document.cookie"]);
    assert!(mine.contains("who=first"), "{mine}");
    let theirs = s.ok(&["eval", "document.cookie", "--session", "other"]);
    assert!(!theirs.contains("who=first"), "{theirs}");
    assert!(s.ok(&["snapshot", "--session", "other"]).contains("About us"));
    assert!(s.ok(&["snapshot"]).contains("Quick order"));

    // Only the user can open the sockets.
    let dir = s.dir();
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    for name in ["default", "other"] {
        let sock = dir.join(format!("{name}.sock"));
        assert_eq!(
            std::fs::metadata(&sock).unwrap().permissions().mode() & 0o777,
            0o600,
            "{name}"
        );
    }
    let listed = s.ok(&["sessions"]);
    assert!(listed.contains("default") && listed.contains("other"), "{listed}");
    let closed = s.ok(&["close", "--all"]);
    assert!(
        closed.contains("\"default\"") && closed.contains("\"other\""),
        "{closed}"
    );
}

#[test]
fn idle_sessions_close_and_dead_ones_are_cleaned_up() {
    let s = Sessions::new();
    // An idle timeout: the daemon and its browser go away by themselves.
    s.open("sessions/order.html", &["--idle-timeout", "2"]);
    let pid = s.daemon_pid("default").unwrap();
    let browsers = browsers_of(pid);
    assert!(!browsers.is_empty(), "the daemon holds a browser");
    // (Asking how long it has been idle does not keep it alive.)
    wait_until("the idle daemon exits", Duration::from_secs(30), || {
        let _ = s.run(&["sessions"]);
        !alive(pid)
    });
    wait_until("its browser exits", Duration::from_secs(20), || {
        browsers.iter().all(|b| !alive(*b))
    });
    assert!(!s.dir().join("default.sock").exists(), "the socket is removed");

    // A daemon killed outright leaves its socket: the next command cleans up.
    s.open("sessions/order.html", &[]);
    let pid = s.daemon_pid("default").unwrap();
    unsafe_kill(pid, 9);
    wait_until("the killed daemon is gone", Duration::from_secs(10), || !alive(pid));
    assert!(s.dir().join("default.sock").exists(), "a stale socket");
    let out = s.run(&["snapshot"]);
    assert_eq!(out.code(), Some(1));
    assert!(out.stderr.contains("sightline open"), "{}", out.stderr);
    assert!(!s.dir().join("default.sock").exists(), "the stale socket was removed");
    // And `open` starts afresh.
    assert!(s.open("sessions/order.html", &[]).contains("Quick order"));

    // A browser that died is started again on the next command.
    let pid = s.daemon_pid("default").unwrap();
    let browsers = browsers_of(pid);
    for b in &browsers {
        unsafe_kill(*b, 9);
    }
    wait_until("the browser is gone", Duration::from_secs(10), || {
        browsers.iter().all(|b| !alive(*b))
    });
    std::thread::sleep(Duration::from_millis(500));
    let again = s.run(&["snapshot", "--json"]);
    assert!(again.status.success(), "{}\n{}", again.stdout, again.stderr);
    let again: Value = serde_json::from_str(&again.stdout).unwrap();
    assert!(
        again["note"]
            .as_str()
            .is_some_and(|n| n.contains("a new one was started")),
        "--json says the browser was started anew: {again}"
    );
    assert!(s.open("sessions/about.html", &[]).contains("About us"));
}

#[test]
fn a_session_types_secrets_it_never_shows() {
    let s = Sessions::new();
    let file = s.dir.path().join("secrets.env");
    std::fs::write(&file, "SHOP_NAME=Hidden Hopper\n").unwrap();
    let page = s.open("sessions/order.html", &["--secrets", file.to_str().unwrap()]);
    let filled = s.ok(&["fill", &ref_with(&page, "textbox \"Full name\""), "%SHOP_NAME%"]);
    assert!(!filled.contains("Hidden Hopper"), "{filled}");
    let length = s.ok(&["eval", "document.querySelector('input[name=name]').value.length"]);
    assert!(length.contains("13"), "the value was typed: {length}");
    let shown = s.ok(&["eval", "document.querySelector('input[name=name]').value"]);
    assert!(!shown.contains("Hidden Hopper"), "redacted: {shown}");
    // A misspelt placeholder is refused, not typed into the field as it stands.
    let typo = s.run(&["fill", &ref_with(&page, "textbox \"Full name\""), "%SHOP_NAM%"]);
    assert_eq!(typo.code(), Some(1), "{}", typo.stdout);
    assert!(typo.stdout.contains("did you mean %SHOP_NAME%?"), "{}", typo.stdout);
    // So is one that no secret fills (a forgotten line in the file).
    let unknown = s.run(&["fill", &ref_with(&page, "textbox \"Full name\""), "%NOPE%"]);
    assert_eq!(unknown.code(), Some(1), "{}", unknown.stdout);
    assert!(unknown.stdout.contains("%NOPE% is no variable"), "{}", unknown.stdout);
    let kept = s.ok(&["eval", "document.querySelector('input[name=name]').value.length"]);
    assert!(kept.contains("13"), "the field kept its value: {kept}");
    let missing = s.run(&[
        "open",
        &s.files.url("sessions/order.html"),
        "--session",
        "other",
        "--secrets",
        "/nonexistent.env",
    ]);
    assert_eq!(missing.code(), Some(1), "{}", missing.stdout);
    assert!(
        format!("{}{}", missing.stdout, missing.stderr).contains("nonexistent.env"),
        "{}\n{}",
        missing.stdout,
        missing.stderr
    );
}

#[test]
fn the_awkward_cases_a_coding_agent_meets() {
    let s = Sessions::new();
    let page = s.open("sessions/edge.html", &[]);
    // A model's command in a session opened without one says how to give it one.
    let no_model = s.run(&["act", "click the Ask button"]);
    assert_eq!(no_model.code(), Some(1), "{}", no_model.stdout);
    assert!(
        no_model.stdout.contains("sightline open URL --model"),
        "{}",
        no_model.stdout
    );

    // Typing with nothing focused is no success in a field.
    let typed = s.ok(&["type", "hello"]);
    assert!(typed.contains("with nothing focused"), "{typed}");

    // A textarea shows what it holds, not the text it started with.
    assert!(
        line_with(&page, "textbox \"Message\"").ends_with(": the default text"),
        "{page}"
    );
    let message = ref_with(&page, "textbox \"Message\"");
    let filled = s.ok(&["fill", &message, "Hello there"]);
    assert!(filled.contains("Hello there"), "{filled}");
    let tree = s.ok(&["snapshot"]);
    assert!(
        line_with(&tree, "textbox \"Message\"").ends_with(": Hello there"),
        "{tree}"
    );
    assert!(!tree.contains("the default text"), "{tree}");
    // Its lines stay apart, written `\n` on the tree's one line.
    let lines = s.ok(&["fill", &message, "Line one\nLine two"]);
    assert!(lines.contains(": Line one\\nLine two"), "{lines}");

    // A disabled option (or one in a disabled group) can't be chosen.
    let colour = ref_with(&page, "combobox \"Colour\"");
    for option in ["Green", "Blue"] {
        let refused = s.run(&["select", &colour, option]);
        assert_eq!(refused.code(), Some(1), "{option}: {}", refused.stdout);
        assert!(refused.stdout.contains("is disabled"), "{}", refused.stdout);
    }
    assert!(s.ok(&["select", &colour, "Red"]).contains("→ Red"));
    // The snapshot said so first.
    assert!(
        line_with(&page, "combobox \"Colour\"").ends_with(": Red (options: Red, Green [disabled], Blue [disabled])"),
        "{page}"
    );
    // Two options of one label: the answer says which was taken.
    let edition = ref_with(&page, "combobox \"Edition\"");
    let took = s.ok(&["select", &edition, "b"]);
    assert!(took.contains("→ Same (value \"b\")"), "{took}");

    // A dialog is answered with its own words.
    let asked = s.ok(&["click", &ref_with(&page, "button \"Ask\"")]);
    assert!(asked.contains("dialog"), "{asked}");
    // The advice can be typed as said: `sightline handle-dialog true|false`.
    assert!(
        asked.contains("`sightline handle-dialog true` (OK) or `sightline handle-dialog false` (Cancel)"),
        "{asked}"
    );
    let blocked = s.run(&["snapshot"]);
    assert!(
        blocked.stdout.contains("A confirm dialog is open") && blocked.stdout.contains("sightline handle-dialog"),
        "{}",
        blocked.stdout
    );
    s.ok(&["handle-dialog", "dismiss"]);
    let answer = s.ok(&["eval", "document.getElementById('answer').textContent"]);
    assert!(answer.contains("\"no\""), "dismissed: {answer}");

    // JavaScript that names a URL is still the page's JavaScript.
    let js = s.ok(&["eval", "'http://example.test/' + 'x'"]);
    assert!(js.contains("http://example.test/x"), "{js}");
    let value: Value = serde_json::from_str(&s.ok(&["eval", "({sum: 1 + 2})", "--json"])).unwrap();
    assert_eq!(value["data"]["sum"], 3, "the value itself for JSON callers: {value}");
    // A value of megabytes is cut to a tree's budget, and says so.
    let huge = s.ok(&["eval", "'x'.repeat(2000000)"]);
    assert!(huge.len() < 400_000, "{} chars", huge.len());
    assert!(
        huge.contains("</untrusted_page_content>\n[truncated: the value is 2000002 characters"),
        "{}",
        &huge[huge.len() - 400..]
    );

    // A script that navigates while it awaits: said as such, where the page
    // went, and run once (not again in the new document).
    let went = s.run(&[
        "eval",
        "(async () => { sessionStorage.runs = (+sessionStorage.runs || 0) + 1; location.href = 'about.html'; \
         await new Promise(r => setTimeout(r, 5000)); return 'never'; })()",
    ]);
    assert_eq!(went.code(), Some(1), "{}", went.stdout);
    assert!(
        went.stdout.contains("The page navigated (now at http://")
            && went
                .stdout
                .contains("about.html) while `sightline eval` ran the script")
            && !went.stdout.contains("protocol error"),
        "{}",
        went.stdout
    );
    assert!(s.ok(&["eval", "sessionStorage.runs"]).contains("\"1\""));
    // A script that navigates is a step: it says where the page went, and
    // the next command's tree is the changes against the new document's.
    s.ok(&["open", &s.files.url("sessions/order.html")]);
    let moved = s.ok(&["eval", "location.href = 'about.html'"]);
    assert!(
        moved.contains("</untrusted_page_content>\n(navigated to http://") && moved.contains("About us"),
        "{moved}"
    );
    let next = s.ok(&["scroll", "down"]);
    assert!(
        next.contains("Unchanged since the last snapshot you saw") && !next.contains("- main:"),
        "not the whole tree again: {next}"
    );

    // The page's own errors are said without Sightline's frames, and its
    // timers read as the built-ins they stand for.
    let timers = s.dir.path().join("timers.html");
    std::fs::write(
        &timers,
        "<title>Timers</title><button onclick=\"setTimeout(function submitPayment() { \
         throw new TypeError('payment failed') }, 10)\">Pay</button>",
    )
    .unwrap();
    let page = s.ok(&["open", timers.to_str().unwrap()]);
    let threw = s.ok(&["click", &ref_with(&page, "button \"Pay\"")]);
    assert!(
        threw.contains("payment failed")
            && threw.contains("at submitPayment")
            && !threw.contains("sightline-hook")
            && !threw.contains("<anonymous>"),
        "{threw}"
    );
    let native = s.ok(&[
        "eval",
        "[String(setTimeout), requestAnimationFrame.toString(), Function.prototype.toString.call(setInterval), \
         Function.prototype.toString.toString(), setTimeout.hasOwnProperty('toString'), 'prototype' in setTimeout, \
         Function.prototype.toString.call(function mine() { return 1 })].join(' | ')",
    ]);
    assert_eq!(native.matches("[native code]").count(), 4, "{native}");
    assert!(
        native.contains("function toString() { [native code] } | false | false | function mine() { return 1 }"),
        "{native}"
    );

    // A local file opens as the file, though the tab is on an http page.
    let local = s.dir.path().join("local.html");
    std::fs::write(&local, "<title>Local</title><h1>On disk</h1>").unwrap();
    let opened = s.ok(&["open", local.to_str().unwrap()]);
    assert!(
        opened.contains("On disk") && opened.contains("- URL: file://"),
        "{opened}"
    );

    // A load that fails says so, with no tree of the browser's error page.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let refused = s.run(&["open", &format!("http://127.0.0.1:{closed}/")]);
    assert_eq!(refused.code(), Some(1), "{}", refused.stdout);
    assert!(refused.stdout.contains("connection refused"), "{}", refused.stdout);
    assert!(!refused.stdout.contains("### Snapshot"), "{}", refused.stdout);
    // So does a click whose link leads there: the address and the reason,
    // not only the browser's error page.
    let link = format!(
        "document.body.insertAdjacentHTML('afterbegin', '<a id=dead href=\"http://127.0.0.1:{closed}/x\">Dead</a>')"
    );
    s.ok(&["eval", &link]);
    let clicked = s.ok(&["click", "#dead"]);
    assert!(
        clicked.contains(&format!(
            "it opened http://127.0.0.1:{closed}/x, which could not load (net::ERR_CONNECTION_REFUSED)"
        )),
        "{clicked}"
    );

    // A web address typed without its scheme is that address, not a path
    // on the current site.
    let bare = s.files.url("sessions/about.html").replacen("http://", "", 1);
    s.open("sessions/edge.html", &[]);
    let opened = s.ok(&["open", &bare]);
    assert!(opened.contains("About us"), "{opened}");

    // An error status belongs to its page: said there, and gone after back.
    let missing = s.ok(&["open", &s.files.url("sessions/no-such-page.html")]);
    assert!(missing.contains("- HTTP status: 404"), "{missing}");
    let back = s.ok(&["back"]);
    assert!(back.contains("About us") && !back.contains("HTTP status"), "{back}");
    assert!(!s.ok(&["snapshot"]).contains("HTTP status"));

    // A URL of megabytes is not repeated in every answer about its page;
    // and a page's text cannot steer the terminal (ESC sequences, bidi overrides).
    let data = format!(
        "data:text/html,<meta charset=utf-8><title>Data</title><p>%1B[31mred%1B[0m %E2%80%AEdesrever</p><button>ok</button><!--{}-->",
        "x".repeat(100_000)
    );
    let opened = s.ok(&["open", &data]);
    assert!(opened.len() < 5_000, "{} chars", opened.len());
    assert!(opened.contains("… (100"), "{opened}");
    let tree = s.ok(&["snapshot"]);
    assert!(tree.len() < 5_000 && tree.contains("button \"ok\""), "{tree}");
    assert!(
        !tree.contains('\u{1b}') && !tree.contains('\u{202e}') && tree.contains("\u{fffd}[31mred"),
        "{tree}"
    );

    // A tree written to a file is whole, over a model's budget.
    s.open("sessions/edge.html?items=8000", &[]);
    let file = s.dir.path().join("big.txt");
    let summary = s.ok(&["snapshot", "--file", file.to_str().unwrap()]);
    assert!(summary.contains("Saved to"), "{summary}");
    let tree = std::fs::read_to_string(&file).unwrap();
    assert!(
        tree.contains("Item number 7999 of") && !tree.contains("[truncated"),
        "{}",
        &tree[tree.len() - 300..]
    );
    // Printed, it is cut at what one MCP call may give Claude Code, and
    // says how to get the rest; a larger budget gives it whole.
    let cut = s.ok(&["snapshot"]);
    assert!(
        cut.contains("over the 20000-token budget")
            && cut.contains("a larger `--budget N`, or the whole tree in a file (`sightline snapshot --file PATH`)"),
        "{}",
        &cut[cut.len().saturating_sub(600)..]
    );
    assert!(cut.len() < 90_000, "{}", cut.len());
    let whole = s.ok(&["snapshot", "--budget", "200000"]);
    assert!(whole.contains("Item number 7999 of"), "{}", &whole[whole.len() - 300..]);
    // A page taller than one image holds: its top, and the reply says so.
    let shot = s.dir.path().join("tall.png");
    let said = s.ok(&["screenshot", shot.to_str().unwrap(), "--full-page"]);
    assert!(said.contains("first 16000 px of"), "{said}");
    assert_eq!(png_size(&shot), (1280, 16000));

    // A click on what a consent bar covers fails once, in the action's
    // time (removeBlocker leaves consent alone, so no second wait), and
    // unblock says how to get past the bar.
    let bar = s.open("modals/cookie-bar.html", &[]);
    let started = Instant::now();
    let covered = s.run(&["click", &ref_with(&bar, "button \"Add to basket\"")]);
    assert_eq!(covered.code(), Some(1), "{}", covered.stdout);
    assert!(covered.stdout.contains("is covered by"), "{}", covered.stdout);
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "took {:?}",
        started.elapsed()
    );
    let left = s.ok(&["unblock"]);
    assert!(
        left.contains("Left the consent dialog") && left.contains("`sightline unblock --aggressive`"),
        "{left}"
    );

    // A scroll container shows only what is scrolled into its box, and
    // `scroll REF down` scrolls it.
    let list = s.open("actions/scroll.html", &[]);
    assert!(list.contains("Message 4") && !list.contains("Message 5"), "{list}");
    let scrolled = s.ok(&["scroll", &ref_with(&list, "\"Messages\""), "down"]);
    assert!(scrolled.contains("of its container's height"), "{scrolled}");
    assert!(scrolled.contains("+   - paragraph: Message 5"), "{scrolled}");
    // A blank stretch of the page says so.
    let blank = s.ok(&["scroll", "down"]);
    assert!(blank.contains("Nothing is in view here"), "{blank}");

    // A session command's help shows its flags and its one-shot form.
    let help = s.ok(&["snapshot", "--help"]);
    assert!(
        help.contains("--file") && help.contains("one-shot form") && help.contains("URL"),
        "{help}"
    );

    // (Last: leaving a page that keeps reloading itself is a race with it.)
    // Waiting on a page that keeps replacing its document reads each
    // document it can, and gives up at its time, not at the first reload.
    // (Its answer may be the tree of one document, or that it kept changing.)
    s.run(&["open", &s.files.url("hung/refresh-loop.html")]);
    let waited = s.run(&["wait", "No such words", "--time", "2"]);
    assert_eq!(waited.code(), Some(1), "{}", waited.stdout);
    assert!(
        waited
            .stdout
            .contains("did not appear after waiting 2.0 s (wait longer with `--time SECONDS`"),
        "{}",
        waited.stdout
    );
}

/// SIGKILL or SIGTERM to `pid`.
fn unsafe_kill(pid: u32, signal: i32) {
    let _ = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status();
}

#[test]
fn the_one_shot_forms_keep_working() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let envs = [("SIGHTLINE_SESSION_DIR", dir.path().to_str().unwrap())];
    // `snapshot <URL>` loads its page and exits; no session is involved.
    let out = run_cli_env(&["snapshot", &files.url("sessions/order.html")], &envs);
    out.assert_success();
    assert!(out.stdout.contains("button \"Place order\""), "{}", out.stdout);
    let out = run_cli_env(&["unblock", &files.url("modals/cookie-bar.html")], &envs);
    out.assert_success();
    assert!(
        !dir.path().join("default.sock").exists(),
        "a one-shot command starts no session"
    );
    // The skill for coding agents.
    let skill = run_cli(&["skill"]);
    skill.assert_success();
    assert!(skill.stdout.starts_with("---\nname: sightline"), "{}", skill.stdout);
}

#[test]
fn wait_reads_text_as_the_snapshot_shows_it_and_fill_form_takes_pairs() {
    let s = Sessions::new();
    s.open("sessions/reading.html", &[]);
    for text in [
        "Order placed",
        "Line with no-break spaces",
        "Hello there",
        "Open shadow button",
        "Receipt number 42",
        "Saved at last",
        "Text in a box of its parent's",
    ] {
        let waited = s.run(&["wait", text, "--time", "3"]);
        assert!(
            waited.status.success() && waited.stdout.contains("appeared"),
            "{text}: {}{}",
            waited.stdout,
            waited.stderr
        );
    }
    for unseen in ["Never shown text", "Invisible text"] {
        let hidden = s.run(&["wait", unseen, "--time", "1"]);
        assert_eq!(hidden.code(), Some(1), "{unseen}: {}", hidden.stdout);
        assert!(hidden.stdout.contains("did not appear"), "{}", hidden.stdout);
    }
    // Text in a cross-origin frame is on the page too, as the snapshot shows it.
    let other = FixtureServer::start();
    let host = format!("actions/frame-host.html?xport={}", other.port);
    s.open(&host, &[]);
    let waited = s.run(&["wait", "Pay 12 €", "--time", "3"]);
    assert!(waited.stdout.contains("appeared"), "{}", waited.stdout);
    let gone = s.run(&["wait", "--text-gone", "Pay 12 €", "--time", "1"]);
    assert!(gone.stdout.contains("is still there"), "{}", gone.stdout);
    s.open("sessions/reading.html", &[]);

    let page = s.ok(&["snapshot"]);
    let (name, city) = (ref_with(&page, "textbox \"Name\""), ref_with(&page, "textbox \"City\""));
    s.ok(&["fill-form", &format!("{name}=Ada"), &format!("{city}=Paris")]);
    let form = s.ok(&[
        "eval",
        "() => new URLSearchParams(new FormData(document.forms[0])).toString()",
    ]);
    assert!(form.contains("name=Ada&city=Paris"), "{form}");
}

/// A session whose browser cannot start at all (here: the extension's port
/// is taken) says why, names the likely holder, and ends: it lingered as a
/// daemon with "no page yet".
#[test]
fn a_session_whose_browser_cannot_start_ends() {
    let s = Sessions::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let out = s.open_through_extension("sessions/order.html", port, "3");
    assert_eq!(out.code(), Some(1), "{}\n{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains(&format!("cannot listen on 127.0.0.1:{port}"))
            && said.contains("another Sightline agent or session"),
        "{said}"
    );
    wait_until("the daemon ends", Duration::from_secs(10), || {
        s.daemon_pid("default").is_none_or(|pid| !alive(pid))
    });
    let listed = s.ok(&["sessions"]);
    assert!(!listed.contains("default"), "{listed}");
}

/// `open --extension` with no tab shared gives up after the extension
/// timeout once (the daemon's start and the open call each waited it out,
/// twice the time asked), and says how to share.
#[test]
fn open_through_an_absent_extension_waits_its_timeout_once() {
    let s = Sessions::new();
    let started = Instant::now();
    let out = s.open_through_extension("sessions/order.html", sightline_testkit::free_port(), "5");
    let took = started.elapsed();
    assert_eq!(out.code(), Some(1), "{}\n{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("did not connect and accept within 5s (share a tab in its panel"),
        "{said}"
    );
    assert!(took < Duration::from_millis(8500), "{took:?}: the timeout ran twice");
}

/// What a computer-use model holds down across calls (a mouse button, a
/// key) the session's page holds across commands: `mouse-down`, moves,
/// `mouse-up` drag; a click with `key-down Shift` held is a shift-click.
#[test]
fn held_buttons_and_keys_last_from_one_command_to_the_next() {
    let s = Sessions::new();
    s.open("cua/newsletter.html", &[]);
    s.ok(&["unblock"]);
    let pressed = s.ok(&["mouse-down", "510", "350"]);
    assert!(pressed.contains("Pressed the left button at (510, 350)"), "{pressed}");
    // A move with the button held drags: it carries the button, and the
    // slider follows it (a release where the mouse is leaves it there).
    s.ok(&["hover-at", "700", "350"]);
    assert!(s.ok(&["eval", "'buttons=' + window.moveButtons"]).contains("buttons=1"));
    let released = s.ok(&["mouse-up"]);
    assert!(
        released.contains("Released the left button at (700, 350), dragged from (510, 350)"),
        "{released}"
    );
    assert!(s.ok(&["eval", "window.sliderValue"]).contains("50"));
    // Released: a move is a hover again.
    s.ok(&["hover-at", "600", "350"]);
    assert!(s.ok(&["eval", "'buttons=' + window.moveButtons"]).contains("buttons=0"));
    assert!(s.ok(&["eval", "window.sliderValue"]).contains("50"));
    let again = s.run(&["mouse-up"]);
    assert!(
        !again.status.success() && format!("{}{}", again.stdout, again.stderr).contains("no mouse button is down"),
        "{again:?}"
    );

    s.ok(&["key-down", "shift"]);
    s.ok(&["click-at", "250", "395"]);
    s.ok(&["key-up", "Shift"]);
    s.ok(&["click-at", "250", "395"]);
    let shifted = s.ok(&["eval", "JSON.stringify(window.padClicks.map((c) => c[3]))"]);
    assert!(
        shifted.contains("[true,false]"),
        "Shift held for the first click only: {shifted}"
    );
    let unheld = s.run(&["key-up", "Shift"]);
    assert!(
        !unheld.status.success() && format!("{}{}", unheld.stdout, unheld.stderr).contains("Shift is not held"),
        "{unheld:?}"
    );
    // A click of the held button would press it twice: refused, saying
    // how. What is held is said in each response; a bare mouse-up
    // releases the button held, whichever it is.
    let held = s.ok(&["mouse-down", "300", "600", "--button", "right"]);
    assert!(
        held.contains("Held down until released (mouse up, key up): the right button"),
        "{held}"
    );
    s.ok(&["mouse-up"]);
    s.ok(&["mouse-down", "300", "600"]);
    let twice = s.run(&["click-at", "300", "600"]);
    assert!(
        !twice.status.success()
            && format!("{}{}", twice.stdout, twice.stderr).contains("the left button is held down (mouseDown)"),
        "{twice:?}"
    );
    s.ok(&["mouse-up"]);
    // A press of the held key frees it; a key is one key whatever its case.
    s.ok(&["key-down", "Shift"]);
    s.ok(&["press", "Shift"]);
    s.ok(&["key-down", "Shift"]);
    s.ok(&["key-up", "Shift"]);
    s.ok(&["key-down", "a"]);
    s.ok(&["key-up", "A"]);
    // A wheel turn with Control held carries it.
    s.ok(&["key-down", "Control"]);
    s.ok(&["scroll-at", "640", "400", "--delta-y", "10"]);
    s.ok(&["key-up", "Control"]);
    assert!(s.ok(&["eval", "window.wheelKeys"]).contains("Control"));

    // A release whose click opens a dialog: the button is free all the
    // same (the page had the release before the dialog held the answer).
    s.open("cua/dialog.html", &[]);
    s.ok(&["mouse-down", "200", "125"]);
    let asked = s.ok(&["mouse-up"]);
    assert!(asked.contains("Delete all 500 items?"), "{asked}");
    // The list of sessions answers at once, and says what holds this one.
    let t = std::time::Instant::now();
    let listed = s.ok(&["sessions"]);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert!(
        listed.contains("dialog.html") && listed.contains("a confirm is open (\"Delete all 500 items?\")"),
        "{listed}"
    );
    s.ok(&["handle-dialog", "true"]);
    assert!(s
        .ok(&["eval", "document.getElementById('out').textContent"])
        .contains("Deleted"));
    let pressed = s.ok(&["mouse-down", "200", "125"]);
    assert!(pressed.contains("Pressed the left button"), "not still held: {pressed}");
}

/// A page whose CSP refuses inline script and WebAssembly takes every
/// command family, and a sandboxed frame's refused scripts (Sightline's own
/// main-world hook among them) are no console errors of the page.
#[test]
fn a_strict_csp_page_takes_every_command() {
    let s = Sessions::new();
    let opened = s.open("csp.html", &[]);
    assert!(opened.contains("button \"Added by allowed script\""), "{opened}");

    let name = ref_with(&opened, "textbox \"Display name\"");
    let newsletter = ref_with(&opened, "checkbox \"Send me the newsletter\"");
    s.ok(&["fill", &name, "Grace Hopper"]);
    let unchecked = s.ok(&["uncheck", &newsletter]);
    assert!(unchecked.contains("checkbox \"Send me the newsletter\""), "{unchecked}");
    let page = s.ok(&["snapshot"]);
    assert!(
        page.contains("textbox \"Display name\" [ref=") && page.contains("Grace Hopper"),
        "{page}"
    );
    assert!(
        !line_with(&page, "checkbox \"Send me the newsletter\"").contains("[checked]"),
        "{page}"
    );
    let help = s.ok(&["click", &ref_with(&page, "link \"Read the help\"")]);
    assert!(help.contains("help.html"), "{help}");

    // A document sandboxed by its policy, with a sandboxed frame: the
    // scripts Chromium refuses in the frame (Sightline's own main-world hook
    // among them) are no console errors of the page.
    let sandboxed = s.open("csp-sandbox.html", &[]);
    for needle in ["button \"Send the report\"", "button \"Button in a sandboxed frame\""] {
        assert!(sandboxed.contains(needle), "{needle} missing:\n{sandboxed}");
    }
    assert!(!sandboxed.contains("console"), "{sandboxed}");
    let clicked = s.ok(&["click", &ref_with(&sandboxed, "button \"Button in a sandboxed frame\"")]);
    assert!(!clicked.contains("console"), "{clicked}");
}

/// In the user's own browser, a download goes where that browser saves
/// downloads, not into the session's folder (the setting would hold for
/// every tab of the user's while the session is attached), and the reply
/// says where.
#[test]
fn a_download_in_the_users_own_browser_is_saved_where_it_saves_downloads() {
    let s = Sessions::new();
    let remote = RemoteChrome::start();
    let endpoint = format!("http://127.0.0.1:{}", remote.port);
    let page = s.ok(&["open", "--cdp-url", &endpoint, &s.files.url("mcp/download.html")]);
    let mut got = s.ok(&["click", &ref_with(&page, "link \"Download the report\"")]);
    for _ in 0..20 {
        if got.contains("quarterly-report.txt") {
            break;
        }
        got = s.ok(&["wait", "250"]);
    }
    let saved = got
        .split("quarterly-report.txt (29 bytes) saved by your browser to ")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .map(|p| PathBuf::from(p.trim()))
        .unwrap_or_else(|| panic!("where the browser saved it: {got}"));
    assert!(
        saved.is_file() && saved.ends_with("Downloads/quarterly-report.txt"),
        "{}",
        saved.display()
    );
    // (The session's own folder is the folder it was started in.)
    let in_the_sessions_folder = std::env::current_dir().unwrap().join("quarterly-report.txt");
    let there = in_the_sessions_folder.exists();
    let _ = std::fs::remove_file(&in_the_sessions_folder);
    assert!(!there, "{}", in_the_sessions_folder.display());
    s.ok(&["close"]);
}

/// A tab of the user's that does not answer (a script that never yields)
/// holds up no session in their browser: `open --cdp-url` lists it without
/// attaching to it, choosing it is given up after a few seconds and says
/// why, and the tab stays open. (The DevTools client attached to every tab
/// and waited on this one for ever; it closed a tab whose setup timed out.)
#[test]
fn a_users_tab_that_does_not_answer_holds_up_no_session() {
    let s = Sessions::new();
    let remote = RemoteChrome::start();
    let busy = "data:text/html,%3Ctitle%3EBusy%20tab%3C/title%3E%3Cscript%3EsetTimeout(()%3D%3E%7Bfor(;;)%7B%7D%7D,300)%3C/script%3E";
    remote.open_tab(busy);
    let users_tab = || remote.tab_urls().into_iter().any(|u| u.starts_with("data:text/html"));
    wait_until("the user's tab to open", Duration::from_secs(10), users_tab);
    std::thread::sleep(Duration::from_millis(800));
    let endpoint = format!("http://127.0.0.1:{}", remote.port);
    let started = Instant::now();
    let opened = s.ok(&["open", "--cdp-url", &endpoint, &s.files.url("short.html")]);
    assert!(opened.contains("Only button"), "{opened}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "open took {:?}",
        started.elapsed()
    );
    let tabs = s.ok(&["tabs"]);
    let index = tab_index(&tabs, "[Busy tab]").to_string();
    let refused = s.run(&["tabs", "select", &index]);
    assert_eq!(refused.code(), Some(1), "{}", refused.stdout);
    assert!(
        refused.stdout.contains("the tab did not answer within 10s"),
        "{}",
        refused.stdout
    );
    // The session goes on in its own tab; the user's stays, listed as before.
    let snap = s.ok(&["snapshot"]);
    assert!(snap.contains("Only button"), "{snap}");
    assert!(s.ok(&["tabs"]).contains("[Busy tab]"));
    let closed = s.ok(&["close"]);
    assert!(closed.contains("stay open"), "{closed}");
    assert!(users_tab(), "{:?}", remote.tab_urls());
}

/// `open --cdp-url` with no page starts the session in a blank tab of its
/// own and lists the user's tabs, one of which `tabs select` then takes as
/// it is (no page had to be named, and none of theirs was navigated).
#[test]
fn a_session_in_the_users_browser_may_start_with_no_page() {
    let s = Sessions::new();
    let remote = RemoteChrome::start();
    let page = s.files.url("short.html");
    remote.open_tab(&page);
    wait_until("the user's tab to open", Duration::from_secs(10), || {
        remote.tab_urls().contains(&page)
    });
    let endpoint = format!("http://127.0.0.1:{}", remote.port);
    let opened = s.ok(&["open", "--cdp-url", &endpoint]);
    assert!(opened.contains("- URL: about:blank"), "{opened}");
    let index = tab_index(&opened, &page).to_string();
    s.ok(&["tabs", "select", &index]);
    let snap = s.ok(&["snapshot"]);
    assert!(snap.contains("Only button") && snap.contains(&page), "{snap}");
    s.ok(&["close"]);
    assert!(remote.tab_urls().contains(&page), "{:?}", remote.tab_urls());
}

/// A session in the user's own browser (`open --cdp-url`) leaves the user's
/// tabs as they were: not resized to the session's viewport, not made touch
/// screens; a session whose tab the user closed goes on in a new tab of its
/// own, never in theirs; and `close` takes the pop-ups the session's tab
/// opened with it, leaving the user's tabs.
#[test]
fn a_session_in_the_users_own_browser_leaves_their_tabs_alone() {
    let s = Sessions::new();
    let remote = RemoteChrome::start();
    let users_tab = s.files.url("user-tab.html");
    remote.open_tab(&users_tab);
    wait_until("the user's tab to load", Duration::from_secs(10), || {
        remote.title_at(&users_tab).is_some_and(|t| t.contains('x'))
    });
    let before = remote.title_at(&users_tab).unwrap();
    let endpoint = format!("http://127.0.0.1:{}", remote.port);
    let opened = s.ok(&["open", "--cdp-url", &endpoint, &s.files.url("mcp/opener.html")]);
    assert!(opened.contains("Opener page"), "{opened}");
    // The session's own tab has the session's viewport; the user's keeps its own.
    let size = s.ok(&["eval", "innerWidth + 'x' + innerHeight"]);
    assert!(size.contains("1280x720"), "{size}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(remote.title_at(&users_tab).as_deref(), Some(before.as_str()));
    assert!(!before.contains("1280x720") && !before.contains("touch"), "{before}");

    // The user closes the session's tab: the next command runs in a new tab
    // of the session's own and says so; the user's tab is not navigated.
    remote.close_tab_at(&s.files.url("mcp/opener.html"));
    wait_until("the session's tab to close", Duration::from_secs(10), || {
        !remote.tab_urls().contains(&s.files.url("mcp/opener.html"))
    });
    let snap = s.ok(&["snapshot"]);
    assert!(
        snap.contains("the session's tab was closed outside the session"),
        "{snap}"
    );
    assert!(!snap.contains("A tab of the user's"), "{snap}");
    s.ok(&["open", &s.files.url("mcp/opener.html")]);
    assert!(remote.tab_urls().contains(&users_tab), "{:?}", remote.tab_urls());
    // Closing its current tab, the session goes on in a tab of its own.
    s.ok(&["tabs", "close"]);
    let at = s.ok(&["eval", "location.href"]);
    assert!(
        at.contains("- URL: about:blank") && at.contains("- 2: (current)"),
        "{at}"
    );
    s.ok(&["open", &s.files.url("mcp/opener.html")]);

    // A pop-up of the session's tab is the session's: closed with it.
    let page = s.ok(&["snapshot"]);
    let link = page
        .lines()
        .find(|l| l.contains("Sign in with a pop-up"))
        .and_then(|l| l.split("[ref=").nth(1))
        .and_then(|r| r.split(']').next())
        .unwrap_or_else(|| panic!("the pop-up link: {page}"))
        .to_string();
    s.ok(&["click", &link]);
    wait_until("the pop-up to open", Duration::from_secs(10), || {
        remote.tab_urls().iter().any(|u| u.contains("self-closing.html"))
    });
    let closed = s.ok(&["close"]);
    assert!(closed.contains("its other tabs, stay open"), "{closed}");
    wait_until("the session's tabs to close", Duration::from_secs(10), || {
        let urls = remote.tab_urls();
        !urls
            .iter()
            .any(|u| u.contains("opener.html") || u.contains("self-closing.html"))
    });
    assert!(remote.tab_urls().contains(&users_tab), "{:?}", remote.tab_urls());
}
