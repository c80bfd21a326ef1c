//! A static file server on 127.0.0.1 for tests and benchmarks.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::fixtures_dir;

/// A static HTTP/1.1 file server on 127.0.0.1 (random free port), running on
/// its own thread so callers may block freely.
///
/// One root is served at `/`; several roots are served at `/0/…`, `/1/…`
/// (so pages keep their relative links). A directory serves its
/// `index.html`. Extra response headers for `x.html` come from an optional
/// sidecar file `x.html.headers` (`Name: value` per line, `#` comments).
/// Pages that behave like real sites:
/// - `?delay=N` on any file answers after N milliseconds (a slow server,
///   a slow ad, a slow API);
/// - `/__hang` and every path under `/__hang/` never answer (long polls);
/// - `/__stream…` answers at once with a chunked body that never ends (a
///   line every 300 ms);
/// - `/__drip?n=N&ms=M` (and any path under `/__drip/`, any method) answers
///   at once, then sends `wordI ` N times M ms apart and ends (a reply
///   streaming in); with `&events=1`, as server-sent events; `&lag=L`
///   waits L ms more before the first;
/// - `/__collect…` answers any method with 204 (beacons, pixels);
/// - `/__redirect/PATH` answers 302 to `/PATH` (a moved page, a login gate);
/// - `/__slow?ms=N` (and any path under `/__slow/`, any method) answers
///   `ok` after N milliseconds; with `&head=1`, its headers come at once
///   and its body (`"ok"`, JSON) after N milliseconds.
pub struct FixtureServer {
    pub port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The folder of [`FixtureServer::pages`], removed with the server.
    _pages: Option<tempfile::TempDir>,
}

impl FixtureServer {
    /// Serves `tests/fixtures/`.
    pub fn start() -> FixtureServer {
        FixtureServer::serve(fixtures_dir())
    }

    /// Serves one directory at `/`.
    pub fn serve(root: PathBuf) -> FixtureServer {
        FixtureServer::try_serve(root).expect("the file server starts")
    }

    /// [`FixtureServer::serve`], for callers that report a failure to start.
    pub fn try_serve(root: PathBuf) -> std::io::Result<FixtureServer> {
        FixtureServer::serve_roots(vec![root], false)
    }

    /// Serves each directory at `/N/`, N its index in `roots`.
    pub fn try_serve_many(roots: Vec<PathBuf>) -> std::io::Result<FixtureServer> {
        FixtureServer::serve_roots(roots, true)
    }

    /// Serves pages written for one test (`&[("login.html", "<!doctype
    /// html>…")]`) from a temporary folder that lives as long as the server.
    pub fn pages(pages: &[(&str, &str)]) -> FixtureServer {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for (name, html) in pages {
            std::fs::write(dir.path().join(name), html).expect("the page is written");
        }
        let mut server = FixtureServer::serve(dir.path().to_path_buf());
        server._pages = Some(dir);
        server
    }

    /// Two servers for the same directory: two origins, for cross-origin iframes.
    pub fn pair() -> (FixtureServer, FixtureServer) {
        (FixtureServer::start(), FixtureServer::start())
    }

    fn serve_roots(roots: Vec<PathBuf>, numbered: bool) -> std::io::Result<FixtureServer> {
        // Bound here, so a failure is the caller's error, not a panic on the thread.
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        std_listener.set_nonblocking(true)?;
        let port = std_listener.local_addr()?.port();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).expect("a bound listener");
                let roots = Arc::new(Roots { dirs: roots, numbered });
                let accept = async {
                    loop {
                        let Ok((sock, _)) = listener.accept().await else {
                            continue;
                        };
                        let roots = roots.clone();
                        tokio::spawn(async move {
                            let _ = handle(sock, &roots).await;
                        });
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stop_rx => {}
                }
            });
        });
        Ok(FixtureServer {
            port,
            stop: Some(stop_tx),
            thread: Some(thread),
            _pages: None,
        })
    }

    /// `http://127.0.0.1:PORT/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{}", self.port, path.trim_start_matches('/'))
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `?name=N` (or `&name=N`) of a request target, as a number.
fn query_number(target: &str, name: &str) -> Option<u64> {
    let (_, query) = target.split_once('?')?;
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .and_then(|(_, v)| v.parse().ok())
}

/// `pieces` chunks `ms` apart (the first `lag` ms later), then the end: a
/// reply streaming in (a chat answer), as server-sent events when `events`.
async fn drip(sock: &mut TcpStream, pieces: u64, ms: u64, lag: u64, events: bool) -> std::io::Result<()> {
    let kind = if events {
        "text/event-stream"
    } else {
        "text/plain; charset=utf-8"
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nTransfer-Encoding: chunked\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
    );
    sock.write_all(head.as_bytes()).await?;
    sock.flush().await?;
    tokio::time::sleep(Duration::from_millis(lag)).await;
    for n in 0..pieces {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        let piece = if events {
            format!("data: word{n}\n\n")
        } else {
            format!("word{n} ")
        };
        sock.write_all(format!("{:x}\r\n{piece}\r\n", piece.len()).as_bytes())
            .await?;
        sock.flush().await?;
    }
    sock.write_all(b"0\r\n\r\n").await?;
    sock.shutdown().await
}

/// A chunked response whose body never ends: a line every 300 ms, until
/// the client goes away.
async fn stream_forever(sock: &mut TcpStream) -> std::io::Result<()> {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
    sock.write_all(head.as_bytes()).await?;
    for n in 0u64.. {
        let line = format!("update {n}\n");
        sock.write_all(format!("{:x}\r\n{line}\r\n", line.len()).as_bytes())
            .await?;
        sock.flush().await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    Ok(())
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "wasm" => "application/wasm",
        "pdf" => "application/pdf",
        "txt" => "text/plain; charset=utf-8",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

/// Extra headers from `<file>.headers`.
fn sidecar_headers(file: &Path) -> Vec<(String, String)> {
    let mut name = file.as_os_str().to_owned();
    name.push(".headers");
    let Ok(text) = std::fs::read_to_string(PathBuf::from(name)) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// What a server serves.
struct Roots {
    dirs: Vec<PathBuf>,
    /// `/N/…` picks the N-th directory (else the only one is at `/`).
    numbered: bool,
}

impl Roots {
    /// The directory and the relative path a request path maps to.
    fn resolve<'a>(&'a self, path: &'a str) -> Option<(&'a Path, &'a str)> {
        let path = path.trim_start_matches('/');
        if !self.numbered {
            return Some((self.dirs.first()?, path));
        }
        let (n, rest) = path.split_once('/').unwrap_or((path, ""));
        Some((self.dirs.get(n.parse::<usize>().ok()?)?, rest))
    }
}

async fn handle(mut sock: TcpStream, roots: &Roots) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = sock.read(&mut chunk).await?;
        if n == 0 || buf.len() > 64 * 1024 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    // A request body (a form's POST) is read before answering: a server
    // that closes with it unread resets the connection, and the page's
    // fetch fails instead of getting its answer.
    let header_end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(buf.len(), |p| p + 4);
    let body_length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(1 << 20);
    let mut unread = body_length.saturating_sub(buf.len() - header_end);
    while unread > 0 {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        unread = unread.saturating_sub(n);
    }
    let mut parts = head.lines().next().unwrap_or("").split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let path = percent_decode(target.split(['?', '#']).next().unwrap_or("/"));

    if path == "/__hang" || path.starts_with("/__hang/") {
        // Never answers: for navigation timeouts, interrupt tests, long polls.
        tokio::time::sleep(Duration::from_secs(3600)).await;
        return Ok(());
    }
    if path.starts_with("/__stream") {
        return stream_forever(&mut sock).await;
    }
    if path == "/__drip" || path.starts_with("/__drip/") {
        let pieces = query_number(&target, "n").unwrap_or(10);
        let ms = query_number(&target, "ms").unwrap_or(100);
        let lag = query_number(&target, "lag").unwrap_or(0);
        return drip(&mut sock, pieces, ms, lag, query_number(&target, "events") == Some(1)).await;
    }
    if path.starts_with("/__collect") {
        let out = "HTTP/1.1 204 No Content\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
        sock.write_all(out.as_bytes()).await?;
        return sock.shutdown().await;
    }
    if let Some(to) = target.strip_prefix("/__redirect/") {
        let out = format!(
            "HTTP/1.1 302 Found\r\nLocation: /{to}\r\nContent-Length: 0\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        );
        sock.write_all(out.as_bytes()).await?;
        return sock.shutdown().await;
    }
    if let Some(ms) = query_number(&target, "delay") {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if path == "/__slow" || path.starts_with("/__slow/") {
        // Answers "ok" after ?ms=N milliseconds: for readiness tests.
        let ms = query_number(&target, "ms").unwrap_or(1000);
        if query_number(&target, "head") == Some(1) {
            // Headers at once, the body after the wait (a server that
            // flushes its headers first).
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
            sock.write_all(head.as_bytes()).await?;
            sock.flush().await?;
            tokio::time::sleep(Duration::from_millis(ms)).await;
            sock.write_all(b"4\r\n\"ok\"\r\n0\r\n\r\n").await?;
            return sock.shutdown().await;
        }
        tokio::time::sleep(Duration::from_millis(ms)).await;
        let out = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nCache-Control: no-store\r\nConnection: close\r\n\r\nok";
        sock.write_all(out.as_bytes()).await?;
        return sock.shutdown().await;
    }
    let Some((root, rel)) = roots.resolve(&path) else {
        let out = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found";
        sock.write_all(out.as_bytes()).await?;
        return sock.shutdown().await;
    };
    let rel = Path::new(rel);
    let safe = rel.components().all(|c| matches!(c, Component::Normal(_)));
    let mut file = root.join(rel);
    if safe && file.is_dir() {
        file = file.join("index.html");
    }
    let (status, body, mut headers) = if method != "GET" && method != "HEAD" {
        ("405 Method Not Allowed", b"method not allowed".to_vec(), vec![])
    } else if !safe || !file.is_file() || file.extension().is_some_and(|e| e == "headers") {
        (
            "404 Not Found",
            b"not found".to_vec(),
            vec![("Content-Type".to_string(), "text/plain".to_string())],
        )
    } else {
        let body = tokio::fs::read(&file).await?;
        // (A sidecar's Content-Type replaces the one named by the extension:
        // a page in another charset says so.)
        let sidecar = sidecar_headers(&file);
        let mut h = Vec::new();
        if !sidecar.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
            h.push(("Content-Type".to_string(), content_type(&file).to_string()));
        }
        h.extend(sidecar);
        ("200 OK", body, h)
    };
    headers.push(("Content-Length".into(), body.len().to_string()));
    headers.push(("Cache-Control".into(), "no-store".into()));
    headers.push(("Connection".into(), "close".into()));
    let mut out = format!("HTTP/1.1 {status}\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    sock.write_all(out.as_bytes()).await?;
    if method != "HEAD" {
        sock.write_all(&body).await?;
    }
    sock.shutdown().await
}

/// A site that records the first line of every request it gets and
/// answers none: to show that a request was never sent (a site outside a
/// task's allowed domains).
pub struct RecordingSite {
    pub port: u16,
    seen: Arc<std::sync::Mutex<Vec<String>>>,
}

impl RecordingSite {
    pub fn start() -> RecordingSite {
        use std::io::Read;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("a local address").port();
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        // (A connection each its own reader: an idle preconnect must not
        // hold up the requests behind it.)
        std::thread::spawn(move || {
            for mut conn in listener.incoming().flatten() {
                let log = log.clone();
                std::thread::spawn(move || {
                    let _ = conn.set_read_timeout(Some(Duration::from_secs(2)));
                    let mut buf = [0u8; 1024];
                    let n = conn.read(&mut buf).unwrap_or(0);
                    let text = String::from_utf8_lossy(&buf[..n]).to_string();
                    if let Some(line) = text.lines().next().filter(|l| !l.is_empty()) {
                        log.lock().unwrap().push(line.to_string());
                    }
                });
            }
        });
        RecordingSite { port, seen }
    }

    /// `http://127.0.0.1:PORT/path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{}", self.port, path.trim_start_matches('/'))
    }

    /// The first lines of the requests it got (`GET /frame HTTP/1.1`).
    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}
