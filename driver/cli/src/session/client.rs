//! The session command's side: one short process per command that talks to
//! the session's daemon over its Unix socket (plain blocking I/O, no async
//! runtime: a command costs a connect, a line each way, and printing), and
//! starts the daemon the first time `open` needs it.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::paths::SessionPaths;
use super::wire::{Answer, Request};

/// Why a request got no answer.
#[derive(Debug)]
pub enum Failure {
    /// No daemon listens for this session (none started, or it exited).
    NoSession,
    /// The daemon took the request but went away before answering.
    Lost(String),
}

/// Sends `request` to the session's daemon and waits for its answer. A
/// socket nobody listens on any more (a crashed daemon) is removed.
pub fn send(paths: &SessionPaths, request: &Request) -> Result<Answer, Failure> {
    let answer = exchange(paths, request);
    if let Err(Failure::Lost(_)) = &answer {
        // A daemon that died while its last threads still held the socket
        // took the connection and dropped it: if nothing listens now, its
        // socket is stale.
        is_running(paths);
    }
    answer
}

fn exchange(paths: &SessionPaths, request: &Request) -> Result<Answer, Failure> {
    let mut stream = match UnixStream::connect(&paths.socket) {
        Ok(s) => s,
        Err(e) => {
            if e.kind() == std::io::ErrorKind::ConnectionRefused {
                paths.remove_stale();
            }
            return Err(Failure::NoSession);
        }
    };
    let mut line = serde_json::to_string(request).expect("a request serialises");
    line.push('\n');
    stream
        .write_all(line.as_bytes())
        .map_err(|e| Failure::Lost(e.to_string()))?;
    let mut reader = BufReader::new(stream);
    let mut answer = String::new();
    match reader.read_line(&mut answer) {
        Ok(0) => Err(Failure::Lost("the session's daemon closed the connection".into())),
        Ok(_) => {
            serde_json::from_str(answer.trim_end()).map_err(|e| Failure::Lost(format!("an unreadable answer: {e}")))
        }
        Err(e) => Err(Failure::Lost(e.to_string())),
    }
}

/// Whether the session's daemon answers.
pub fn is_running(paths: &SessionPaths) -> bool {
    match UnixStream::connect(&paths.socket) {
        Ok(_) => true,
        Err(e) => {
            if e.kind() == std::io::ErrorKind::ConnectionRefused {
                paths.remove_stale();
            }
            false
        }
    }
}

/// Starts the session's daemon unless one runs; true when this call started
/// it. One starter at a time, under the session's lock: of several `open`s
/// at once on a new session, one starts the daemon and the others wait and
/// use it (each starting its own left all but one browser unreachable).
pub fn ensure_daemon(paths: &SessionPaths, daemon_args: &[String]) -> Result<bool, String> {
    if is_running(paths) {
        return Ok(false);
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&paths.lock)
        .map_err(|e| format!("cannot open {}: {e}", paths.lock.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", paths.lock.display()))?;
    // Another starter may have finished while this one waited.
    if is_running(paths) {
        return Ok(false);
    }
    start_daemon(paths, daemon_args)?;
    Ok(true)
}

/// Starts the session's daemon (this binary, detached in a process group
/// of its own so the terminal's Ctrl-C and hang-up do not reach it) with
/// `daemon_args`, and waits until it listens. Its early errors (a browser
/// that cannot start, a bad flag) come back from its log.
fn start_daemon(paths: &SessionPaths, daemon_args: &[String]) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the sightline binary: {e}"))?;
    let log = std::fs::File::create(&paths.log).map_err(|e| format!("cannot write {}: {e}", paths.log.display()))?;
    let mut child = Command::new(exe)
        .arg("__session-daemon")
        .arg("--session")
        .arg(&paths.name)
        .args(daemon_args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the session's daemon: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if UnixStream::connect(&paths.socket).is_ok() {
            // The daemon lives on; nobody waits for it (no zombie: it outlives us).
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            let said = std::fs::read_to_string(&paths.log).unwrap_or_default();
            let said = said.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            return Err(format!(
                "the session's daemon exited ({status}){}",
                if said.is_empty() {
                    String::new()
                } else {
                    format!(": {said}")
                }
            ));
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            return Err("the session's daemon did not start listening within 30 s".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
