//! The session's daemon: one background process per session holding the
//! browser (the library's [`Session`], the same one MCP serves), answering
//! the session commands on a Unix socket only the user can open. It exits
//! on `close`, after an idle timeout, or on SIGTERM/Ctrl-C, and closes its
//! browser on the way out.

use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sightline::mcp::{McpOptions, Reply, Session};
use sightline::{Error, Registry, Result};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Notify;

use super::options::BrowserOptions;
use super::paths::SessionPaths;
use super::wire::{Answer, Request};
use crate::args::FileAccessArgs;
use crate::signals::shutdown_signal;

/// Requests longer than this are refused (a tool call is a few kilobytes).
const MAX_REQUEST: usize = 16 * 1024 * 1024;

/// What every connection shares.
struct Daemon {
    session: Session,
    /// Calls running now: the idle clock only runs when there are none.
    running: AtomicUsize,
    last_activity: Mutex<Instant>,
    closing: Notify,
    /// Set when the daemon ends: commands still running stop and say so
    /// (a `close` must not leave one driving the browser it closes).
    ended: tokio::sync::watch::Sender<bool>,
    /// Whether the session ever had a tab: one that never had (its browser
    /// could not start) has nothing to keep.
    had_a_page: std::sync::atomic::AtomicBool,
}

impl Daemon {
    fn touch(&self) {
        *self.last_activity.lock().unwrap() = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        if self.running.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        self.last_activity.lock().unwrap().elapsed()
    }
}

fn options(o: &BrowserOptions) -> Result<McpOptions> {
    let mut launch = o.page.launch_options()?;
    launch.user_data_dir = o.user_data_dir.clone();
    if let Some(path) = &o.storage_state {
        sightline::StorageState::load(path)?;
    }
    let cwd = std::env::current_dir().map_err(|e| Error::Io(format!("the current folder: {e}")))?;
    let llm = o.llm.build_if_named()?;
    let files = FileAccessArgs {
        allow_file_access: o.allow_file_access.clone(),
    };
    let model_file_access = llm
        .as_ref()
        .map(|_| files.policy(sightline::LocalInputs::default()))
        .transpose()?;
    Ok(McpOptions {
        launch,
        extension: o
            .extension
            .extension
            .then(|| o.extension.bridge_options("sightline session")),
        cdp_endpoint: o.page.cdp_url.clone(),
        llm,
        registry: Registry::standard(),
        // The user runs these commands on their own machine.
        capabilities: vec!["evaluate".into()],
        storage_state: o.storage_state.clone(),
        // Files the tools write (downloads, storage states) land where the
        // session was opened. Pages may open any local file: every command
        // comes from the caller, a person or a coding agent with a shell
        // of its own, whose harness decides what it may read. (Unlike the
        // runs a model drives: agent, act, batch, eval.) A session's own
        // model (act) reads untrusted pages: the files it chooses to upload
        // keep to the working directory and what --allow-file-access adds.
        output_dir: Some(cwd),
        // Screenshots are saved to files the caller names.
        images_to_files: true,
        file_access: sightline::FileAccess::anywhere(),
        model_file_access,
        secrets: match &o.secrets {
            Some(path) => sightline::mcp::read_secrets(path)?,
            None => Default::default(),
        },
        ..McpOptions::default()
    })
}

/// Runs the daemon of session `name` until it is closed or idle.
pub async fn serve(name: &str, o: BrowserOptions) -> Result<()> {
    let paths = SessionPaths::for_session(name)?;
    let mcp = options(&o)?;
    let registry = mcp.registry.clone();
    // A socket left by a daemon that died: the client found it dead.
    let _ = std::fs::remove_file(&paths.socket);
    let listener = UnixListener::bind(&paths.socket)
        .map_err(|e| Error::Io(format!("cannot listen on {}: {e}", paths.socket.display())))?;
    std::fs::set_permissions(&paths.socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| Error::Io(format!("cannot make {} private: {e}", paths.socket.display())))?;
    let _ = std::fs::write(&paths.pid, std::process::id().to_string());
    let daemon = Arc::new(Daemon {
        session: Session::with_own_browser(mcp),
        running: AtomicUsize::new(0),
        last_activity: Mutex::new(Instant::now()),
        closing: Notify::new(),
        ended: tokio::sync::watch::Sender::new(false),
        had_a_page: std::sync::atomic::AtomicBool::new(false),
    });
    // The browser starts now: the command that started the daemon is on its way.
    {
        let d = daemon.clone();
        tokio::spawn(async move {
            if let Err(e) = d.session.start_browser().await {
                tracing::warn!("the session's browser did not start: {e}");
            }
        });
    }
    let idle = Duration::from_secs(o.idle_timeout.max(1));
    let signal = shutdown_signal();
    tokio::pin!(signal);
    // One clock for the whole loop: a sleep started anew on every pass
    // would never end while connections keep coming.
    let mut idle_check = tokio::time::interval(Duration::from_millis(500));
    loop {
        tokio::select! {
            conn = listener.accept() => {
                if let Ok((stream, _)) = conn {
                    let d = daemon.clone();
                    let registry = registry.clone();
                    tokio::spawn(async move { handle(stream, &d, &registry).await });
                }
            }
            _ = idle_check.tick() => {
                if daemon.idle_for() >= idle {
                    tracing::info!("session {name}: idle for {idle:?}, closing");
                    break;
                }
            }
            _ = daemon.closing.notified() => break,
            _ = &mut signal => break,
        }
    }
    // New commands start a new daemon from here on.
    remove_own_files(&paths);
    drop(listener);
    daemon.ended.send_replace(true);
    daemon.session.close().await;
    Ok(())
}

/// Removes the socket and pid file, unless another daemon owns them by now.
fn remove_own_files(paths: &SessionPaths) {
    let ours = std::fs::read_to_string(&paths.pid)
        .map(|p| p.trim() == std::process::id().to_string())
        .unwrap_or(true);
    if ours {
        paths.remove_stale();
        // A clean end leaves nothing behind (a crash keeps its log to read).
        let _ = std::fs::remove_file(&paths.log);
        // (The lock file stays: a starter waiting on it would otherwise
        // hold a lock no later starter sees.)
    }
}

async fn handle(stream: UnixStream, d: &Daemon, registry: &Registry) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = String::new();
    let answer = match (&mut reader).take(MAX_REQUEST as u64).read_line(&mut line).await {
        Ok(0) | Err(_) => return,
        Ok(_) => match serde_json::from_str::<Request>(line.trim_end()) {
            Err(e) => error(format!(
                "an unreadable request ({e}): is this sightline the daemon's version?"
            )),
            // Only commands keep a session alive: `sightline sessions`
            // asking how long it has been idle must not reset the clock.
            Ok(request @ Request::Status) => answer(d, registry, request).await,
            Ok(request) => {
                d.running.fetch_add(1, Ordering::SeqCst);
                let mut ended = d.ended.subscribe();
                // A client that went away (Ctrl-C) wants the command no more:
                // it stops, and the next command does not wait for it.
                let client_gone = async {
                    let mut byte = [0u8; 1];
                    while let Ok(1..) = reader.read(&mut byte).await {}
                };
                let answer = tokio::select! {
                    a = answer(d, registry, request) => Some(a),
                    _ = ended.wait_for(|e| *e) => Some(error(
                        "the session was closed while this command ran (its browser is gone)".into()
                    )),
                    _ = client_gone => None,
                };
                d.running.fetch_sub(1, Ordering::SeqCst);
                d.touch();
                let Some(answer) = answer else {
                    tracing::info!("a command's client went away: the command stopped");
                    return;
                };
                answer
            }
        },
    };
    // A session whose browser could not start at all (the extension's port
    // taken, no Chromium) has nothing to keep: it ends once it has said
    // why, rather than linger as "no page yet".
    let mut out = serde_json::to_string(&answer).expect("an answer serialises");
    out.push('\n');
    let _ = write.write_all(out.as_bytes()).await;
    let _ = write.shutdown().await;
    // (A session that had one and lost it, an unshared tab through the
    // extension, keeps its options for the next command.)
    if d.session.has_page().await {
        d.had_a_page.store(true, Ordering::SeqCst);
    }
    if answer.is_error && !d.had_a_page.load(Ordering::SeqCst) {
        tracing::info!("the session's browser did not start: closing");
        d.closing.notify_one();
    }
}

fn error(text: String) -> Answer {
    Answer {
        json: json!({"ok": false, "result": text}),
        text: format!("### Error\n{text}\n"),
        is_error: true,
        image_png: None,
    }
}

async fn answer(d: &Daemon, registry: &Registry, request: Request) -> Answer {
    match request {
        Request::Close => {
            d.closing.notify_one();
            let said = if d.session.browser_stays() {
                "Closed the session and its tabs; the browser and its other tabs stay open."
            } else {
                "Closed the session and its browser."
            };
            Answer {
                text: format!("### Result\n{said}\n"),
                json: json!({"ok": true, "result": said, "browser_stays": d.session.browser_stays()}),
                ..Answer::default()
            }
        }
        Request::Status => {
            let status = d.session.current_page().await.unwrap_or_default();
            let (url, title) = (&status.url, &status.title);
            let idle = d.idle_for().as_secs();
            Answer {
                text: format!("{}\t{title}\tidle {idle} s", sightline::shown_url(url)),
                json: json!({"url": url, "title": title, "idle_secs": idle, "pid": std::process::id(), "note": status.note}),
                ..Answer::default()
            }
        }
        Request::Call { tool, args } => {
            let Some(t) = registry.get(&tool).filter(|t| t.offered.mcp) else {
                return error(format!("there is no command for the tool {tool:?}"));
            };
            let reply: Reply = d.session.call(t, args).await;
            Answer {
                text: for_command_line(&reply.text, registry),
                json: for_command_line_json(reply.json, registry),
                is_error: reply.is_error,
                image_png: reply.image_png.map(|png| sightline::base64::encode(&png)),
            }
        }
    }
}

/// The response's advice names MCP tools (`browser_snapshot`); at the
/// command line they are commands (`sightline snapshot`). Page content
/// (inside the untrusted-content fence) is left as the page wrote it.
fn for_command_line(text: &str, registry: &Registry) -> String {
    use sightline::tools::untrusted::{CLOSE_TAG, OPEN_TAG};
    let mut names: Vec<(String, String)> = registry
        .tools()
        .iter()
        .filter(|t| t.offered.mcp)
        .map(|t| (t.mcp_name(), format!("`sightline {}`", t.command_name())))
        .collect();
    // Longer names first: browser_navigate_back before browser_navigate.
    names.sort_by_key(|(mcp, _)| std::cmp::Reverse(mcp.len()));
    let advice = |part: &str| {
        let mut out = part
            .replace(sightline::AGGRESSIVE_HINT, "run `sightline unblock --aggressive`")
            .replace(
                sightline::tools::wait::WAIT_LONGER,
                "wait longer with `--time SECONDS`, up to 30",
            )
            .replace(
                sightline::tools::untrusted::TREE_CUT_ADVICE,
                "For what follows: `sightline scroll` and `sightline snapshot --mode viewport`, one part \
(`sightline snapshot <ref>`), a larger `--budget N`, or the whole tree in a file (`sightline snapshot --file PATH`)",
            )
            .replace(
                &sightline::mcp::answer_the_dialog(),
                "Answer it with `sightline handle-dialog true` (OK) or `sightline handle-dialog false` (Cancel), and \
`--prompt-text TEXT` for a prompt's answer",
            )
            .replace(
                sightline::tools::CONFIGURE_A_MODEL,
                "a session takes its model when it opens (`sightline close`, then `sightline open URL --model \
PROVIDER/MODEL`, or set $SIGHTLINE_MODEL first)",
            );
        for (mcp, cli) in &names {
            out = out.replace(mcp.as_str(), cli);
        }
        out
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(OPEN_TAG) {
        out.push_str(&advice(&rest[..open]));
        let fenced = &rest[open..];
        let end = fenced.find(CLOSE_TAG).map_or(fenced.len(), |i| i + CLOSE_TAG.len());
        out.push_str(&fenced[..end]);
        rest = &fenced[end..];
    }
    out.push_str(&advice(rest));
    out
}

/// The same for the JSON answer: its advice (`result`, `note`), not the
/// page's data, URL or tree.
fn for_command_line_json(mut v: Value, registry: &Registry) -> Value {
    if let Some(obj) = v.as_object_mut() {
        for key in ["result", "note"] {
            if let Some(Value::String(s)) = obj.get_mut(key) {
                *s = for_command_line(s, registry);
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn advice_names_commands() {
        let r = sightline::Registry::standard();
        let t = super::for_command_line(
            "Take a browser_snapshot; browser_navigate_back goes back, browser_remove_blocker clears it.",
            &r,
        );
        assert_eq!(
            t,
            "Take a `sightline snapshot`; `sightline back` goes back, `sightline unblock` clears it."
        );
        // The page's own words stay as they are.
        let page = "Use browser_click.\n<untrusted_page_content>\n- paragraph: call browser_click\n</untrusted_page_content>\nbrowser_tabs";
        assert_eq!(
            super::for_command_line(page, &r),
            "Use `sightline click`.\n<untrusted_page_content>\n- paragraph: call browser_click\n</untrusted_page_content>\n`sightline tabs`"
        );
        let json = super::for_command_line_json(
            serde_json::json!({"result": "Take a browser_snapshot", "data": "browser_click"}),
            &r,
        );
        assert_eq!(json["result"], "Take a `sightline snapshot`");
        assert_eq!(json["data"], "browser_click", "data is the page's");
    }
}
