//! Local files and `sightline mcp`: tools write only inside the output
//! directory (an absolute path, `..` or a symlink out is refused and the
//! file outside untouched), and pages read local files (`file:` documents,
//! frames included, and uploads) only from the server's working directory,
//! the client's roots (its latest) and the output directory (over HTTP, its
//! session's own folder there), unless `--allow-file-access` widens that.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::mcp_client::{roots_env, stdio, stdio_env, McpClient, McpHttpServer};
use crate::support::*;

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[test]
fn tools_write_only_inside_the_output_directory() {
    let files = FixtureServer::start();
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let outside = root.path().join("outside.json");
    std::fs::write(&outside, "keep").unwrap();
    std::os::unix::fs::symlink(&outside, out.join("link.json")).unwrap();
    std::os::unix::fs::symlink(root.path(), out.join("up")).unwrap();
    let mut c = stdio(&["--output-dir", out.to_str().unwrap()]);
    c.ok(
        "browser_navigate",
        json!({"url": files.url("mcp/cookies.html?set=eve")}),
    );

    for name in [
        outside.to_str().unwrap(),
        "../outside.json",
        "sub/../../outside.json",
        "link.json",
        "up/outside.json",
    ] {
        let r = c.call("browser_storage_state", json!({"filename": name}));
        assert!(r.is_error, "{name} was written:\n{}", r.text);
        assert!(
            r.text.contains("only inside the output directory"),
            "{name}: {}",
            r.text
        );
        let r = c.call("browser_take_screenshot", json!({"filename": name}));
        assert!(r.is_error, "{name} was written:\n{}", r.text);
    }
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "keep",
        "the file outside is untouched"
    );
    assert!(!root.path().join("outside.png").exists());

    let saved = c.ok("browser_storage_state", json!({"filename": "state.json"}));
    assert!(saved.contains("1 cookie(s)"), "{saved}");
    let state = std::fs::read_to_string(out.join("state.json")).unwrap();
    assert!(state.contains("\"eve\""), "{state}");
    let shot = c.ok("browser_take_screenshot", json!({"filename": "shots/page.png"}));
    assert!(shot.contains("Saved to"), "{shot}");
    let png = std::fs::read(out.join("shots/page.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
}

/// The layout of the file-access test: a working directory, a root of the
/// client's, the output directory and a directory elsewhere, each with a page.
struct Layout {
    _root: tempfile::TempDir,
    work: PathBuf,
    roots: PathBuf,
    out: PathBuf,
    elsewhere: PathBuf,
}

fn layout() -> Layout {
    let root = tempfile::tempdir().unwrap();
    let dir = |name: &str| {
        let d = root.path().join(name);
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("page.html"), format!("<h1>Page in {name}</h1>")).unwrap();
        std::fs::write(d.join("note.txt"), format!("a note in {name}")).unwrap();
        d
    };
    let (work, roots, out, elsewhere) = (dir("work"), dir("roots"), dir("out"), dir("elsewhere"));
    std::fs::write(elsewhere.join("page.html"), "<h1>SECRET-ELSEWHERE</h1>").unwrap();
    std::os::unix::fs::symlink(elsewhere.join("page.html"), work.join("link.html")).unwrap();
    // A page the client may read, framing one it may not.
    std::fs::write(
        roots.join("frames.html"),
        format!(
            "<h1>Framing</h1><iframe src=\"{}\"></iframe>",
            file_url(&elsewhere.join("page.html"))
        ),
    )
    .unwrap();
    Layout {
        _root: root,
        work,
        roots,
        out,
        elsewhere,
    }
}

fn navigate(c: &mut McpClient, path: &Path) -> (bool, String) {
    let r = c.call("browser_navigate", json!({"url": file_url(path)}));
    (r.is_error, r.text)
}

#[test]
fn local_files_are_limited_to_the_working_directory_the_roots_and_the_output_directory() {
    let files = FixtureServer::start();
    let l = layout();
    let server = McpHttpServer::start_in(&l.work, &["--output-dir", l.out.to_str().unwrap()]);
    let roots = roots_env(&[&l.roots]);
    let mut with_roots = McpClient::http_env(&server.url, None, &[("MCP_CLIENT_ROOTS", &roots)]);
    let mut without = McpClient::http(&server.url, None);

    for path in [
        l.work.join("page.html"),
        l.roots.join("page.html"),
        l.out.join("page.html"),
    ] {
        let (err, text) = navigate(&mut with_roots, &path);
        assert!(!err && text.contains("Page in"), "{}: {text}", path.display());
    }
    for path in [
        PathBuf::from("/etc/passwd"),
        l.elsewhere.join("page.html"),
        l.work.join("link.html"),
        l.work.parent().unwrap().to_path_buf(),
    ] {
        let (err, text) = navigate(&mut with_roots, &path);
        assert!(err, "{} was read:\n{text}", path.display());
        assert!(text.contains("outside the directories pages may read"), "{text}");
        assert!(!text.contains("root:") && !text.contains("SECRET"), "{text}");
    }
    // A frame is a document too.
    let (err, text) = navigate(&mut with_roots, &l.roots.join("frames.html"));
    assert!(!err && text.contains("Framing"), "{text}");
    let read = with_roots.ok("browser_page_text", json!({}));
    assert!(!read.contains("SECRET"), "the frame was read:\n{read}");
    // Another client's roots are not this one's.
    let (err, text) = navigate(&mut without, &l.roots.join("page.html"));
    assert!(err, "{text}");
    let (err, text) = navigate(&mut without, &l.work.join("page.html"));
    assert!(!err, "{text}");
    // Nor are its files: the cookies one session saved are not another's to read.
    with_roots.ok(
        "browser_navigate",
        json!({"url": files.url("mcp/cookies.html?set=alice")}),
    );
    let state = saved_path(&with_roots.ok("browser_storage_state", json!({"filename": "state.json"})));
    assert!(
        state.starts_with(&l.out) && state.parent() != Some(&l.out),
        "{}",
        state.display()
    );
    let (err, text) = navigate(&mut with_roots, &state);
    assert!(!err && text.contains("alice"), "its own file: {text}");
    let (err, text) = navigate(&mut without, &state);
    assert!(
        err && !text.contains("alice"),
        "another session's file was read: {text}"
    );
    let theirs = without.ok("browser_storage_state", json!({"filename": "state.json"}));
    assert!(!theirs.contains(state.to_str().unwrap()), "{theirs}");
    assert!(
        std::fs::read_to_string(&state).unwrap().contains("alice"),
        "not overwritten"
    );

    // Uploads: the same directories.
    with_roots.ok("browser_navigate", json!({"url": files.url("actions/form.html")}));
    let r = with_roots.call(
        "browser_file_upload",
        json!({"target": "#avatar", "paths": [l.elsewhere.join("note.txt").to_str().unwrap()]}),
    );
    assert!(r.is_error && r.text.contains("--allow-file-access"), "{}", r.text);
    with_roots.ok(
        "browser_file_upload",
        json!({"target": "#avatar", "paths": [l.roots.join("note.txt").to_str().unwrap()]}),
    );

    // The command line's own file stays readable: the user named it.
    let out = run_cli(&["snapshot", l.elsewhere.join("page.html").to_str().unwrap()]);
    out.assert_success();
    assert!(out.stdout.contains("SECRET-ELSEWHERE"), "{}", out.stdout);
}

/// The path a `browser_storage_state` reply says it saved to.
fn saved_path(reply: &str) -> PathBuf {
    PathBuf::from(
        reply
            .split(" to ")
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .unwrap_or_else(|| panic!("where it was saved: {reply}"))
            .trim(),
    )
}

/// Sessions over HTTP keep to their own folder of the output directory
/// even when a wider grant holds it (the working directory), and the
/// working directory stays theirs when it is the output directory.
#[test]
fn http_sessions_read_only_their_own_files_wherever_the_output_directory_is() {
    let files = FixtureServer::start();
    let l = layout();
    for output in [l.work.join("out"), l.work.clone()] {
        let server = McpHttpServer::start_in(&l.work, &["--output-dir", output.to_str().unwrap()]);
        let mut alice = McpClient::http(&server.url, None);
        let mut bob = McpClient::http(&server.url, None);
        alice.ok(
            "browser_navigate",
            json!({"url": files.url("mcp/cookies.html?set=alice")}),
        );
        let state = saved_path(&alice.ok("browser_storage_state", json!({"filename": "state.json"})));
        let (err, text) = navigate(&mut alice, &state);
        assert!(
            !err && text.contains("alice"),
            "{}: its own file: {text}",
            output.display()
        );
        let (err, text) = navigate(&mut bob, &state);
        assert!(
            err && !text.contains("alice"),
            "{}: read another's: {text}",
            output.display()
        );
        let (err, text) = navigate(&mut bob, &l.work.join("page.html"));
        assert!(!err, "{}: the working directory: {text}", output.display());
    }
}

#[test]
fn a_clients_new_roots_replace_its_old_ones() {
    let l = layout();
    let roots = roots_env(&[&l.roots]);
    let mut c = stdio_env(&[], &[("MCP_CLIENT_ROOTS", &roots)]);
    let (err, text) = navigate(&mut c, &l.roots.join("page.html"));
    assert!(!err, "{text}");
    c.set_roots(&[&l.elsewhere]);
    let (err, text) = navigate(&mut c, &l.elsewhere.join("page.html"));
    assert!(!err && text.contains("SECRET-ELSEWHERE"), "the new root: {text}");
    let (err, text) = navigate(&mut c, &l.roots.join("page.html"));
    assert!(err, "the root it took back: {text}");
    assert!(
        !text.contains(&format!("{} but", l.roots.display())),
        "no longer listed: {text}"
    );
}

#[test]
fn allow_file_access_widens_the_limit() {
    let files = FixtureServer::start();
    let l = layout();
    let mut c = stdio(&["--allow-file-access", l.elsewhere.to_str().unwrap()]);
    let (err, text) = navigate(&mut c, &l.elsewhere.join("page.html"));
    assert!(!err && text.contains("SECRET-ELSEWHERE"), "{text}");
    let (err, _) = navigate(&mut c, Path::new("/etc/passwd"));
    assert!(err, "only what was allowed");
    c.ok("browser_navigate", json!({"url": files.url("actions/form.html")}));
    c.ok(
        "browser_file_upload",
        json!({"target": "#avatar", "paths": [l.elsewhere.join("note.txt").to_str().unwrap()]}),
    );

    let mut c = stdio(&["--allow-file-access", "all"]);
    let (err, _) = navigate(&mut c, Path::new("/etc/passwd"));
    assert!(!err, "all: any file");
    let read = c.ok("browser_page_text", json!({}));
    assert!(read.contains("root:"), "{read}");
}
