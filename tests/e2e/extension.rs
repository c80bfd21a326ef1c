//! The MV3 extension (js-glue/extension/, packed by
//! scripts/build-extension.sh) in headless Chromium with `--load-extension`:
//! its service worker and content scripts load; the side panel, opened as a
//! page, shows a tab's snapshot (the driver's text), outlines and scrolls
//! to elements, copies, and closes a pop-up with Remove blocker; strict-CSP
//! pages get the engine's JS build; and the bridge lets the library (and
//! `sightline agent --extension`) drive a shared tab end to end, while
//! connections the extension did not approve are refused.

use std::time::Duration;

use serde_json::{json, Value};
use sightline::bridge::BridgeOptions;
use sightline::{ActOptions, Ai, Browser, ExtensionBridge, LaunchOptions, Llm, LlmOptions, SnapshotOptions};
use sightline_testkit::{LlmServer, Recorded, Reply};

use crate::support::extension_browser::{eval, wait_for, ExtensionBrowser, Panel};
use crate::support::{ref_of, run_cli_env, snapshot_json, with_timeout, FixtureServer};

/// The panel shows the driver's tree: its header lines as the position,
/// modal and notes, the rest as the list.
async fn assert_panel_shows(panel: &Panel, driver_tree: &str) {
    let body: Vec<&str> = driver_tree.lines().filter(|l| !l.starts_with("# ")).collect();
    assert_eq!(panel.lines().await, body, "the panel's lines are the driver's tree");
    let position = panel.text("position").await;
    assert!(position.starts_with("Page position:"), "{position}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extension_loads_and_its_panel_shows_the_tabs_snapshot() {
    with_timeout("the panel test", async {
        let (server, cross) = FixtureServer::pair();
        let chrome = ExtensionBrowser::launch().await;
        assert!(
            chrome.service_worker_url.ends_with("/sw.js"),
            "{}",
            chrome.service_worker_url
        );

        // Frames and a closed shadow root, as the driver sees them.
        let port = cross.port.to_string();
        let url = server.url(&format!("frames.html?xport={port}"));
        let tab = chrome.open(&url).await;
        // The content scripts: the hook in the page's world, the engine in the extension's.
        assert_eq!(eval(&tab, "window.__sightlineHook === true").await, json!(true));
        let panel = chrome.panel(&url).await;
        assert_eq!(
            panel
                .in_tab_isolated_world("return globalThis.__sightline.build;")
                .await,
            json!("wasm")
        );
        // After the load event, as the panel's tab: the driver's own rule
        // may answer while a frame loads and mark it `[loading]`.
        let (driver, _) = snapshot_json(&url, &["--wait-until", "load"]);
        assert_panel_shows(&panel, driver["tree"].as_str().unwrap()).await;

        let shadow = server.url("shadow.html");
        chrome.open(&shadow).await;
        let panel = chrome.panel(&shadow).await;
        let (driver, _) = snapshot_json(&shadow, &[]);
        assert_panel_shows(&panel, driver["tree"].as_str().unwrap()).await;
        assert!(panel.lines().await.iter().any(|l| l.contains("Closed shadow button")));

        // A modal open: the panel's modal note.
        let shop = server.url("shop/index.html");
        let tab = chrome.open(&shop).await;
        wait_for(&tab, "document.querySelector('#promo [role=dialog]')").await;
        let panel = chrome.panel(&shop).await;
        assert_eq!(
            panel.text("modal-note").await,
            "A modal is open. Only modal elements have refs."
        );
        assert_eq!(
            panel.eval("document.getElementById('modal-note').hidden").await,
            json!(false)
        );

        // A long page: the viewport toggle, the modal note, hover and click.
        let list = server.url("shop/list.html");
        let tab = chrome.open(&list).await;
        let panel = chrome.panel(&list).await;
        panel
            .eval("document.querySelector('input[name=mode][value=viewport]').click()")
            .await;
        panel.wait_for("document.body.dataset.snapshots === '2'").await;
        // The same viewport as the tab's (a headless window's is a little shorter than its size).
        let size = eval(&tab, "innerWidth + 'x' + innerHeight").await;
        let (driver, _) = snapshot_json(&list, &["--mode", "viewport", "--viewport", size.as_str().unwrap()]);
        assert_panel_shows(&panel, driver["tree"].as_str().unwrap()).await;
        panel
            .eval("document.querySelector('input[name=mode][value=full]').click()")
            .await;
        panel.wait_for("document.body.dataset.snapshots === '3'").await;
        // A product far down the page (in the flow, unlike the fixed cookie bar).
        let lines = panel.lines().await;
        let last = lines
            .iter()
            .find(|l| l.contains("Alpine Trail Runner"))
            .and_then(|l| ref_of(l))
            .expect("the Alpine Trail Runner's line");
        // Hovering a line outlines its element in the tab; clicking scrolls it into view.
        let li = format!("document.querySelector('#tree li[data-ref=\"{last}\"]')");
        panel
            .eval(&format!(
                "{li}.dispatchEvent(new MouseEvent('mouseover', {{bubbles: true}}))"
            ))
            .await;
        wait_for(
            &tab,
            "document.querySelector('div[aria-hidden][style*=\"2147483647\"]')",
        )
        .await;
        panel.eval(&format!("{li}.click()")).await;
        wait_for(&tab, "window.scrollY > 0").await;
        panel
            .eval(&format!(
                "{li}.dispatchEvent(new MouseEvent('mouseout', {{bubbles: true}}))"
            ))
            .await;
        wait_for(
            &tab,
            "!document.querySelector('div[aria-hidden][style*=\"2147483647\"]')",
        )
        .await;
        panel.click("copy").await;
        panel
            .wait_for("document.getElementById('status').textContent === 'Snapshot copied.'")
            .await;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panels_remove_blocker_closes_a_popup() {
    with_timeout("the Remove-blocker test", async {
        let server = FixtureServer::start();
        let chrome = ExtensionBrowser::launch().await;
        let url = server.url("blockers/promo-icon.html");
        let tab = chrome.open(&url).await;
        let panel = chrome.panel(&url).await;
        assert!(panel.lines().await.iter().any(|l| l.contains("15% off")));
        panel.click("remove-blocker").await;
        panel.wait_for("document.body.dataset.blockerDone === 'true'").await;
        assert_eq!(
            eval(&tab, "document.getElementById('blocker') === null").await,
            json!(true)
        );
        let result = panel.text("blocker-result").await;
        assert!(
            result.starts_with("Removed newsletter_promo #blocker (click)"),
            "{result}"
        );
        let audit: Value = serde_json::from_str(&panel.text("audit-line").await).expect("the audit line is JSON");
        assert_eq!(audit["method"], "click");
        assert_eq!(audit["result"], "removed");
        assert_eq!(audit["url"], url);
        panel.wait_for("document.body.dataset.snapshots === '2'").await;
        assert!(!panel.lines().await.iter().any(|l| l.contains("15% off")));
    })
    .await
}

/// A pop-up served in a cross-origin iframe over the page: its words and its
/// Close button are in the frame's document, where the panel clicks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panels_remove_blocker_closes_a_popup_in_an_iframe() {
    with_timeout("the framed Remove-blocker test", async {
        let (server, cross) = FixtureServer::pair();
        let chrome = ExtensionBrowser::launch().await;
        let url = server.url(&format!(
            "blockers/framed-dialog.html?xport={}&frame=framed-promo-message.html",
            cross.port
        ));
        let tab = chrome.open(&url).await;
        let panel = chrome.panel(&url).await;
        panel.click("remove-blocker").await;
        panel.wait_for("document.body.dataset.blockerDone === 'true'").await;
        let result = panel.text("blocker-result").await;
        assert!(
            result.starts_with("Removed newsletter_promo #blocker (click)"),
            "{result}"
        );
        assert_eq!(eval(&tab, "window.consent").await, json!("close"), "{result}");
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_csp_pages_get_the_engines_js_build_in_the_extension() {
    with_timeout("the strict-CSP test", async {
        let server = FixtureServer::start();
        let chrome = ExtensionBrowser::launch().await;
        let url = server.url("csp.html");
        chrome.open(&url).await;
        let panel = chrome.panel(&url).await;
        let (driver, _) = snapshot_json(&url, &[]);
        assert_panel_shows(&panel, driver["tree"].as_str().unwrap()).await;
        assert_eq!(
            panel
                .in_tab_isolated_world("return globalThis.__sightline.build;")
                .await,
            json!("js")
        );
    })
    .await
}

/// Shares the panel's tab with a bridge on `port`.
async fn share(panel: &Panel, port: u16) {
    panel
        .eval(&format!("document.getElementById('bridge-port').value = '{port}'"))
        .await;
    panel.click("share").await;
}

fn llm_for(server: &LlmServer) -> Llm {
    Llm::new(LlmOptions {
        model: Some("openai/gpt-4.1-mini".into()),
        base_url: Some(server.openai_base_url()),
        api_key: Some("test-key".into()),
        retry_base_delay: Duration::from_millis(50),
        ..LlmOptions::default()
    })
    .expect("llm")
}

/// act's model call: click the element whose line has `needle`.
fn pick(needle: &'static str) -> Reply {
    Reply::dynamic(move |rec: &Recorded| {
        let text = rec.prompt_text();
        let id = text
            .lines()
            .rev()
            .filter(|l| l.contains(needle))
            .find_map(ref_of)
            .unwrap_or_else(|| panic!("no ref for {needle:?} in:\n{text}"));
        Reply::tool(
            "performAction",
            json!({"elementId": id, "description": needle, "method": "click", "arguments": [], "twoStep": false}),
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_drives_a_shared_tab_and_refuses_unapproved_connections() {
    with_timeout("the bridge test", async {
        let files = FixtureServer::start();
        let chrome = ExtensionBrowser::launch().await;
        let url = files.url("actions/frame-host.html");
        let tab = chrome.open(&url).await;
        let panel = chrome.panel(&url).await;

        // No token: the user must approve in the panel.
        let bridge = ExtensionBridge::listen(BridgeOptions {
            port: 0,
            // (A name the program chose: any local program can dial the port.)
            client_name: format!("the bridge test {}\n(safe: press Allow)", "x".repeat(80)),
            ..BridgeOptions::default()
        })
        .await
        .expect("listen");
        share(&panel, bridge.port()).await;
        panel.wait_for("!document.getElementById('approval').hidden").await;
        let asked = panel.text("approval-text").await;
        assert!(asked.contains("calls itself “the bridge test xxx"), "{asked}");
        assert!(asked.contains("cannot check") && asked.contains("x…”"), "{asked}");
        assert!(
            !asked.contains("press Allow)"),
            "the name is cut to one short line: {asked}"
        );
        panel.click("approve").await;
        let approval = bridge.wait_for_extension().await.expect("approved");
        assert_eq!(approval.tabs.len(), 1);
        assert_eq!(approval.tabs[0].url, url);

        // The driver, unchanged, through the bridge: snapshot, click, act.
        let (browser, pages) = bridge.connect(LaunchOptions::default()).await.expect("connect");
        assert_eq!(pages.len(), 1, "only the shared tab");
        let page = &pages[0];
        let snap = page.snapshot(&SnapshotOptions::default()).await.expect("snapshot");
        let (driver, _) = snapshot_json(&url, &[]);
        assert_eq!(
            snap.tree,
            driver["tree"].as_str().unwrap(),
            "the bridge's snapshot is the driver's"
        );
        let pay = snap
            .tree
            .lines()
            .find(|l| l.contains("Pay 12"))
            .and_then(ref_of)
            .expect("the Pay button");
        page.click(&pay).await.expect("click through the bridge");
        let inner = "document.querySelector('#pay').contentDocument";
        wait_for(
            &tab,
            &format!("{inner} && {inner}.getElementById('paid').textContent === '1'"),
        )
        .await;
        // act (a viewport snapshot, the scripted model, trusted input): pay again.
        let llm_server = LlmServer::with_script(vec![pick("button \"Pay 12")]);
        let done = Ai::new(&llm_for(&llm_server))
            .act(page, "click Pay", &ActOptions::default())
            .await
            .expect("act through the bridge");
        assert!(done.success, "{done:?}");
        wait_for(&tab, &format!("{inner}.getElementById('paid').textContent === '2'")).await;
        assert_eq!(eval(&tab, "window.topClicks").await, json!(0));
        // Navigations are followed as in a launched browser: to another
        // page with its status, back, forward and reload, each returning
        // when the page is ready (the tracker once took the bridge's
        // `tab-<id>` for the main frame, and waited out 30 s each).
        let started = std::time::Instant::now();
        let next = page.goto(&files.url("actions/history-a.html")).await.expect("goto");
        assert_eq!(next.status, Some(200), "{next:?}");
        let back = page.back().await.expect("back").expect("a page back");
        assert_eq!(back.url, url);
        page.forward().await.expect("forward").expect("a page forward");
        let reloaded = page.reload().await.expect("reload");
        assert!(reloaded.url.ends_with("history-a.html"), "{reloaded:?}");
        assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
        let missing = page
            .goto(&files.url("actions/no-such-page.html"))
            .await
            .expect("goto a 404");
        assert_eq!(missing.status, Some(404), "{missing:?}");
        // A tab the shared one opens (a link to a new tab) is shared with
        // it, as the agent's own browser would show it: it was invisible.
        page.goto(&files.url("actions/popup.html")).await.expect("the opener");
        page.click("#help").await.expect("open the help tab");
        let popup = browser
            .wait_for_popup(page, Duration::from_secs(10))
            .await
            .expect("the new tab, shared with its opener");
        assert!(popup.url().await.unwrap().contains("popup-target.html?via=link"));
        assert_eq!(bridge.shared_tabs().len(), 2, "{:?}", bridge.shared_tabs());
        popup.close().await.expect("close the help tab");
        page.goto(&url).await.expect("back to the form");
        // A second tab shared with another port while this agent holds the
        // first is refused: moving both to the other agent would hand it a
        // tab the user gave this one.
        let second_url = files.url("actions/history-b.html");
        let _second_tab = chrome.open(&second_url).await;
        let second_panel = chrome.panel(&second_url).await;
        share(&second_panel, bridge.port() + 1).await;
        second_panel
            .wait_for("document.getElementById('bridge-status').textContent.includes('unshare them first')")
            .await;
        assert_eq!(bridge.shared_tabs().len(), 1, "{:?}", bridge.shared_tabs());
        assert_eq!(panel.eval("document.body.dataset.bridge").await, json!("connected"));
        // The user unshares and shares again: the bridge holds the token it
        // was handed, and the user is not asked again (they were).
        let before = bridge.approval();
        panel.click("unshare").await;
        panel.wait_for("document.body.dataset.bridge !== 'connected'").await;
        share(&panel, bridge.port()).await;
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while bridge.approval() == before && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(
            bridge.approval() > before,
            "not approved again by token: {}",
            panel.text("approval-text").await
        );
        assert_eq!(
            panel.eval("document.getElementById('approval').hidden").await,
            json!(true)
        );
        // Opening tabs is not the bridge's to do.
        assert!(browser.new_page().await.is_err());
        browser.close().await.expect("disconnect");
        drop(bridge);
        panel.wait_for("document.body.dataset.bridge !== 'connected'").await;

        // With the token the extension handed over: no asking.
        let again = ExtensionBridge::listen(BridgeOptions {
            port: 0,
            token: Some(approval.token.clone()),
            ..BridgeOptions::default()
        })
        .await
        .unwrap();
        // A local process posing as the extension (any program can send an
        // extension's Origin) gets no token, and its word is not taken.
        posing_as_the_extension(again.port(), &approval.token).await;
        share(&panel, again.port()).await;
        let second = again.wait_for_extension().await.expect("approved by token");
        assert_eq!(second.token, approval.token);
        assert_eq!(
            panel.eval("document.getElementById('approval').hidden").await,
            json!(true)
        );
        drop(again);
        panel.wait_for("document.body.dataset.bridge !== 'connected'").await;

        // A wrong token is refused at once.
        let wrong = ExtensionBridge::listen(BridgeOptions {
            port: 0,
            token: Some("not-the-token".into()),
            ..BridgeOptions::default()
        })
        .await
        .unwrap();
        share(&panel, wrong.port()).await;
        let err = wrong.wait_for_extension().await.expect_err("a wrong token is refused");
        assert!(err.to_string().contains("wrong token"), "{err}");
        // The panel says so, and does not knock again.
        panel.wait_for("document.body.dataset.bridge === 'refused'").await;
        assert!(panel.text("bridge-status").await.contains("wrong token"));
        drop(wrong);

        // No token and the user says no: refused; and nothing drives the tab.
        let unapproved = ExtensionBridge::listen(BridgeOptions {
            port: 0,
            ..BridgeOptions::default()
        })
        .await
        .unwrap();
        share(&panel, unapproved.port()).await;
        panel.wait_for("!document.getElementById('approval').hidden").await;
        let refused = Browser::connect(&unapproved.cdp_url(), LaunchOptions::default()).await;
        assert!(refused.is_err(), "no DevTools connection before approval");
        panel.click("deny").await;
        let err = unapproved.wait_for_extension().await.expect_err("refused");
        assert!(err.to_string().contains("refused"), "{err}");
        // Deny sticks: the extension does not come back to ask again (it
        // retried every second and asked anew).
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(
            panel.eval("document.getElementById('approval').hidden").await,
            json!(true)
        );
        assert_eq!(panel.eval("document.body.dataset.bridge").await, json!("refused"));
    })
    .await
}

/// Connects to the bridge on `port` as the extension's path with an
/// extension's Origin, as any local program can: the hello holds a nonce,
/// not the token, and a "ready" without the token's proof changes nothing.
async fn posing_as_the_extension(port: u16, token: &str) {
    use async_tungstenite::tungstenite::client::IntoClientRequest;
    use async_tungstenite::tungstenite::Message;
    use futures::StreamExt;
    let mut request = format!("ws://127.0.0.1:{port}/extension")
        .into_client_request()
        .unwrap();
    request.headers_mut().insert(
        "origin",
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop".parse().unwrap(),
    );
    let (mut ws, _) = async_tungstenite::tokio::connect_async(request).await.expect("connect");
    let hello = match ws.next().await {
        Some(Ok(Message::Text(t))) => t.to_string(),
        other => panic!("no hello: {other:?}"),
    };
    assert!(!hello.contains(token), "the token crossed the socket: {hello}");
    let hello: serde_json::Value = serde_json::from_str(&hello).unwrap();
    assert_eq!(
        (hello["token"].clone(), hello["nonce"].as_str().map(str::len)),
        (json!(true), Some(32))
    );
    let ready = json!({"type": "ready", "token": "mine now", "tabs": []}).to_string();
    ws.send(Message::text(ready)).await.unwrap();
    ws.close(None).await.ok();
}

/// The frame-host page, in a browser with the extension, opened and shared
/// from the panel toward a free port, for a `sightline … --extension`
/// command to listen on; the extension keeps looking for that port while
/// the tab is shared. (Fields drop in order: the tab before its browser.)
struct SharedForCli {
    tab: chromiumoxide::Page,
    url: String,
    token: String,
    port: u16,
    _panel: Panel,
    _chrome: ExtensionBrowser,
    _files: FixtureServer,
}

async fn share_frame_host_for_cli() -> SharedForCli {
    let files = FixtureServer::start();
    let chrome = ExtensionBrowser::launch().await;
    let url = files.url("actions/frame-host.html");
    let tab = chrome.open(&url).await;
    let panel = chrome.panel(&url).await;
    let token = panel.token().await;
    assert!(token.len() >= 20, "the panel shows the extension's token: {token:?}");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    share(&panel, port).await;
    SharedForCli {
        tab,
        url,
        token,
        port,
        _panel: panel,
        _chrome: chrome,
        _files: files,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sightline_agent_extension_drives_the_shared_tab() {
    with_timeout("the agent --extension test", async {
        let shared = share_frame_host_for_cli().await;
        let (tab, url, token) = (&shared.tab, shared.url.clone(), shared.token.clone());
        let llm = LlmServer::with_script(vec![
            Reply::tool("act", json!({"action": "click the top-level button"})),
            pick("button \"Top-level button\""),
            Reply::tool("done", json!({"reasoning": "Clicked it.", "taskComplete": true})),
        ]);
        let port = shared.port.to_string();
        let base = llm.openai_base_url();
        let out = tokio::task::spawn_blocking(move || {
            run_cli_env(
                &[
                    "agent",
                    "click the top-level button",
                    "--extension",
                    "--extension-port",
                    &port,
                    "--extension-token",
                    &token,
                    "--json",
                    "--model",
                    "openai/gpt-4.1-mini",
                    "--base-url",
                    &base,
                ],
                &[("OPENAI_API_KEY", "test-key")],
            )
        })
        .await
        .unwrap();
        out.assert_success();
        let v: Value = serde_json::from_str(&out.stdout).expect("the agent's JSON result");
        assert_eq!(v["success"], json!(true), "{v}");
        assert_eq!(eval(tab, "window.topClicks").await, json!(1), "{v}");
        assert_eq!(
            eval(tab, "location.href").await,
            json!(url),
            "the agent drove the shared tab"
        );
    })
    .await
}

/// `sightline open --extension` with no URL: the session starts on the
/// shared tab as it is (a navigation would reload it and lose what the
/// user had typed), and the session's commands then drive it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sightline_open_extension_without_a_url_takes_the_shared_tab_as_it_is() {
    with_timeout("the open --extension test", async {
        let shared = share_frame_host_for_cli().await;
        let tab = &shared.tab;
        eval(tab, "window.__unsaved = 'half-filled'; 1").await;
        let sessions = tempfile::tempdir().unwrap();
        let dir = sessions.path().to_string_lossy().into_owned();
        let (port, token) = (shared.port.to_string(), shared.token.clone());
        let (opened, clicked, closed) = tokio::task::spawn_blocking(move || {
            let env = [("SIGHTLINE_SESSION_DIR", dir.as_str())];
            let opened = run_cli_env(
                &[
                    "open",
                    "--extension",
                    "--extension-port",
                    &port,
                    "--extension-token",
                    &token,
                ],
                &env,
            );
            opened.assert_success();
            let button = crate::support::mcp_client::ref_in(&opened.stdout, "Top-level button");
            let clicked = run_cli_env(&["click", &button], &env);
            let closed = run_cli_env(&["close"], &env);
            (opened, clicked, closed)
        })
        .await
        .unwrap();
        assert!(
            opened.stdout.contains(&format!("- URL: {}", shared.url)),
            "the shared tab's snapshot: {}",
            opened.stdout
        );
        assert_eq!(
            eval(tab, "window.__unsaved").await,
            json!("half-filled"),
            "the shared tab was not reloaded"
        );
        clicked.assert_success();
        assert_eq!(eval(tab, "window.topClicks").await, json!(1), "{}", clicked.stdout);
        closed.assert_success();
        assert_eq!(
            eval(tab, "location.href").await,
            json!(shared.url),
            "the tab stays open"
        );
    })
    .await
}

/// `sightline mcp --extension`: an MCP client drives the tab the user shared.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sightline_mcp_extension_drives_the_shared_tab() {
    with_timeout("the mcp --extension test", async {
        let shared = share_frame_host_for_cli().await;
        let (tab, token) = (&shared.tab, shared.token.clone());
        let port = shared.port.to_string();
        let button_ref = |snapshot: &str| crate::support::mcp_client::ref_in(snapshot, "Top-level button");
        let (client, snapshot, clicked) = tokio::task::spawn_blocking(move || {
            let mut client = crate::support::mcp_client::stdio(&[
                "--extension",
                "--extension-port",
                &port,
                "--extension-token",
                &token,
            ]);
            let snapshot = client.ok("browser_snapshot", json!({}));
            let button = crate::support::mcp_client::ref_in(&snapshot, "Top-level button");
            let clicked = client.ok("browser_click", json!({"target": button}));
            (client, snapshot, clicked)
        })
        .await
        .unwrap();
        assert!(snapshot.contains("frame-host.html"), "the shared tab: {snapshot}");
        assert!(clicked.contains("Clicked"), "{clicked}");
        assert_eq!(
            eval(tab, "window.topClicks").await,
            json!(1),
            "the click landed in the user's tab"
        );
        // The page opens a pop-up, which the extension shares with it: it is
        // listed, but the current tab stays the one the replies named (the
        // session moved to the pop-up a call later, and a click by selector
        // landed there).
        let popup_url = shared._files.url("short.html?popup");
        eval(tab, &format!("window.__popup = window.open({popup_url:?}); 1")).await;
        let (client, listed, after) = tokio::task::spawn_blocking(move || {
            let mut client = client;
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            let mut listed = String::new();
            while !listed.contains("short.html?popup") && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(100));
                listed = client.call("browser_tabs", json!({})).text;
            }
            let after = client.call("browser_snapshot", json!({})).text;
            (client, listed, after)
        })
        .await
        .unwrap();
        assert!(listed.contains("short.html?popup"), "the pop-up is listed: {listed}");
        assert!(
            after.contains(&format!("- URL: {}", shared.url)),
            "the current tab stayed the shared one: {after}"
        );
        // The pop-up the session's tab opened is the session's to close (it
        // was said to be the user's, open before Sightline connected).
        let popup_index = listed
            .lines()
            .find(|l| l.contains("short.html?popup"))
            .and_then(|l| l.trim_start_matches(['-', ' ']).split(':').next())
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no index for the pop-up in: {listed}"));
        let (client, closed) = tokio::task::spawn_blocking(move || {
            let mut client = client;
            let closed = client
                .call("browser_tabs", json!({"action": "close", "index": popup_index}))
                .text;
            (client, closed)
        })
        .await
        .unwrap();
        assert!(
            !closed.contains("your browser's own") && !closed.contains("short.html?popup"),
            "{closed}"
        );
        // The shared tab's click handler runs for 12 s: the click was done
        // and is said so (never "failed": it would be sent again); the
        // user's tab is left as it is, and the next call, once the script
        // is done, runs in it.
        eval(
            tab,
            "document.querySelector('#top').addEventListener('click', () => { const t = Date.now(); \
             while (Date.now() - t < 12000); }, {once: true})",
        )
        .await;
        let (client, hung, again) = tokio::task::spawn_blocking(move || {
            let mut client = client;
            let started = std::time::Instant::now();
            let hung = client
                .call("browser_click", json!({"target": button_ref(&snapshot)}))
                .text;
            std::thread::sleep(Duration::from_secs(12).saturating_sub(started.elapsed()));
            let again = client.call("browser_snapshot", json!({})).text;
            (client, hung, again)
        })
        .await
        .unwrap();
        // (The click was done: the page took it, and is busy with it.)
        assert!(hung.contains("browser_click: the page took its input"), "{hung}");
        assert!(!hung.contains("createTarget"), "{hung}");
        assert!(
            again.contains("frame-host.html") && again.contains("Top-level button"),
            "{again}"
        );
        assert_eq!(eval(tab, "window.topClicks").await, json!(2));
        // The user shares another tab: the next call is about that one.
        let other_url = shared._files.url("short.html");
        let other = shared._chrome.open(&other_url).await;
        let other_panel = shared._chrome.panel(&other_url).await;
        share(&other_panel, shared.port).await;
        let (client, now) = tokio::task::spawn_blocking(move || {
            let mut client = client;
            // (The extension tells the bridge of the share a moment later.)
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while !client.call("browser_tabs", json!({})).text.contains("short.html")
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            let now = client.call("browser_snapshot", json!({})).text;
            (client, now)
        })
        .await
        .unwrap();
        assert!(
            now.contains(&format!("- URL: {other_url}")),
            "the tab shared last: {now}"
        );
        // The user closes it while a call runs: the session goes on in the
        // tab still shared, and says so (it told the user to share a tab).
        let waiting = tokio::task::spawn_blocking(move || {
            let mut client = client;
            let answer = client.call("browser_wait_for", json!({"time": 2}));
            (client, answer)
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        other.close().await.unwrap();
        let (client, waited) = waiting.await.unwrap();
        assert!(
            waited.text.contains("The tab was closed while browser_wait_for ran")
                && waited.text.contains("frame-host.html"),
            "{}",
            waited.text
        );
        // The last one closes: no browser crashed, none is started.
        tab.clone().close().await.unwrap();
        let after = tokio::task::spawn_blocking(move || {
            let mut client = client;
            client.call("browser_snapshot", json!({})).text
        })
        .await
        .unwrap();
        assert!(
            !after.contains("crashed") && !after.contains("new one") && after.contains("shared"),
            "{after}"
        );
    })
    .await
}

/// The user's browser dies while a call runs, then starts again with the
/// same extension token and the tab is shared anew: the call that ran says
/// the tab went away (it said it had waited, on a page that was gone), and
/// the first call after the share runs in the new tab (it said "No tab is
/// shared any more": the old DevTools connection did not know it was dead).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sightline_mcp_extension_follows_the_users_browser_through_a_restart() {
    with_timeout("the mcp --extension restart test", async {
        let shared = share_frame_host_for_cli().await;
        let (token, port) = (shared.token.clone(), shared.port);
        let files = FixtureServer::start();
        let (flag, t) = (port.to_string(), token.clone());
        let mut client = tokio::task::spawn_blocking(move || {
            let mut client =
                crate::support::mcp_client::stdio(&["--extension", "--extension-port", &flag, "--extension-token", &t]);
            assert!(client.ok("browser_snapshot", json!({})).contains("frame-host.html"));
            client
        })
        .await
        .unwrap();
        // The browser goes away during a wait.
        let waiting = tokio::task::spawn_blocking(move || {
            let answer = client.call("browser_wait_for", json!({"time": 3}));
            (client, answer)
        });
        tokio::time::sleep(Duration::from_millis(1000)).await;
        drop(shared);
        let (mut client, waited) = waiting.await.unwrap();
        assert!(waited.is_error && !waited.text.contains("Waited"), "{}", waited.text);

        // It starts again (the extension keeps its token in the profile; a
        // new profile is given the same one), and the user shares a tab.
        let chrome = ExtensionBrowser::launch().await;
        let url = files.url("short.html");
        let _tab = chrome.open(&url).await;
        let panel = chrome.panel(&url).await;
        panel
            .eval(&format!("chrome.storage.local.set({{bridgeToken: '{token}'}})"))
            .await;
        share(&panel, port).await;
        panel.wait_for("document.body.dataset.bridge === 'connected'").await;
        let first = tokio::task::spawn_blocking(move || client.call("browser_snapshot", json!({})))
            .await
            .unwrap();
        assert!(
            !first.is_error && first.text.contains(&format!("- URL: {url}")),
            "{}",
            first.text
        );
    })
    .await
}
