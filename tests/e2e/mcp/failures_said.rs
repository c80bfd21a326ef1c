//! Failures said as what they are: a navigation that runs out of time is
//! a load that did not finish, not "the page navigated while it ran"; what
//! the caller's own script throws is its error, not the engine's.

use std::net::TcpListener;

use serde_json::json;

use crate::support::mcp_client::stdio;
use crate::support::*;

#[test]
fn a_load_out_of_time_and_a_script_that_throws_are_said_as_such() {
    // A server that takes connections and never answers.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let conns: Vec<_> = silent.incoming().take(2).flatten().collect();
        std::thread::sleep(std::time::Duration::from_secs(8));
        drop(conns);
    });
    let files = FixtureServer::start();
    let mut c = stdio(&["--navigation-timeout", "1500", "--caps", "evaluate"]);
    c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    // No document at all, then a document whose script never comes.
    let no_answer = c.call(
        "browser_navigate",
        json!({"url": format!("http://127.0.0.1:{port}/never.html")}),
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("stuck.html"),
        format!("<title>Stuck</title><script src=\"http://127.0.0.1:{port}/never.js\"></script><h1>Body</h1>"),
    )
    .unwrap();
    let pages = FixtureServer::try_serve(dir.path().to_path_buf()).unwrap();
    let stuck_script = c.call("browser_navigate", json!({"url": pages.url("stuck.html")}));
    for stuck in [&no_answer, &stuck_script] {
        assert!(stuck.is_error, "{}", stuck.text);
        assert!(
            stuck.text.contains("could not load") && !stuck.text.contains("navigated while"),
            "{}",
            stuck.text
        );
    }
    let thrown = c.call(
        "browser_evaluate",
        json!({"function": "() => { throw new Error('my own failure') }"}),
    );
    assert!(thrown.is_error, "{}", thrown.text);
    assert!(
        thrown.text.contains("the script threw: Error: my own failure") && !thrown.text.contains("engine error"),
        "{}",
        thrown.text
    );
    drop(c);
    held.join().unwrap();
}
