//! One MCP session: its tabs (in a browser context of its own over HTTP,
//! unless contexts are shared), what the client has seen of each tab, and
//! one tool call at a time through the registry.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use sightline_engine::protocol::SnapshotMode;
use tokio::sync::Mutex;

use super::errors::explain;
use super::host::BrowserHost;
use super::options::McpOptions;
use super::response::{answer_the_dialog, changes, respond, PageView, Response, TreePart};
use crate::ai::ActOptions;
use crate::browser::{Browser, BrowserContext, StorageState};
use crate::domains::OriginPolicy;
use crate::error::{Error, Result};
use crate::files::FileAccess;
use crate::llm::Secrets;
use crate::page::{DialogPolicy, Page, SnapshotOptions};
use crate::tools::{tabs, Tool, ToolContext, ToolOutput, ToolSettings};

/// The least time a response gets to be built, even when the call used up
/// the tool timeout.
const RESPONSE_FLOOR: Duration = Duration::from_secs(2);

/// A finished call, as the transport sends it.
pub struct Reply {
    pub text: String,
    pub is_error: bool,
    pub image_png: Option<Vec<u8>>,
    /// The same as one object ([`Response`]), for `--json` callers.
    pub json: Value,
}

/// How one try of a call ended.
enum Attempt {
    Done(Reply),
    /// The browser was found gone before the tool ran: start a new one and
    /// run the call there.
    BrowserGone,
    /// The browser died while the tool ran.
    BrowserDiedDuring,
}

/// A folder for one session's files inside the server's output directory,
/// made when something is first written there: `session-<pid>-<n>`, so two
/// servers sharing an output directory never pick the same one, past any
/// left there before.
fn own_output_dir(output: &std::path::Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = output.join(format!("session-{}-{n}", std::process::id()));
        if !dir.exists() {
            return dir;
        }
    }
}

/// Said before the result of a call that ran in a browser started anew.
const RELAUNCHED: &str = "Note: the browser had crashed or been closed, so a new one was started and this call ran \
in a new tab: the session's earlier tabs and their pages are gone.";
/// Added to [`RELAUNCHED`] when the new browser starts from a fresh profile
/// (none kept, no storage state loaded).
const LOGINS_GONE: &str = " So are its cookies and logins: sign in again where needed.";
/// Through the extension, when no tab is shared any more.
const NO_SHARED_TAB: &str = "No tab is shared any more (the shared tab was closed or unshared): share a tab in the \
Sightline panel to go on.";
/// The same for a browser the session connects to: it was not started
/// anew, nor its profile lost; the connection was made again.
const RECONNECTED: &str = "Note: the connection to the browser was lost and has been made again; the session's \
earlier tabs are no longer its own (any still open stay in the browser), and this call ran in a new tab.";
/// In a browser the session connects to, when its tab was closed from
/// outside: the session never goes on in a tab that is not its own.
const TAB_CLOSED_OUTSIDE: &str = "Note: the session's tab was closed outside the session (by the browser's \
user?); this call ran in a new tab of the session's own. The browser's other tabs are not the session's.";
/// The same through the extension: no browser was started, the user
/// shared a tab again.
const RESHARED: &str = "Note: the tab shared before was closed or is no longer shared; this call ran in the tab \
shared now.";

/// What the client has seen of one tab.
#[derive(Default)]
struct Seen {
    /// The document (navigation count) the trees belong to.
    document: u64,
    viewport: Option<String>,
    full: Option<String>,
    console_mark: u64,
}

#[derive(Default)]
struct State {
    generation: Option<u64>,
    browser: Option<Arc<Browser>>,
    context: Option<BrowserContext>,
    page: Option<Page>,
    seen: HashMap<String, Seen>,
    /// The tab the client was last shown (its target id).
    last_shown: Option<String>,
    download_mark: u64,
    /// The browser this session used died (the next one is a replacement).
    browser_lost: bool,
    /// The session's browser was replaced since the client last heard: the
    /// next reply says so.
    relaunched: bool,
    /// In a browser the session connects to: its tab was closed from outside
    /// and the call runs in a new one (the next reply says so).
    tab_closed_outside: bool,
    /// Through the extension: the shared tabs the last call saw.
    tabs_seen: Vec<String>,
    /// The tabs (target ids) the last response listed.
    tabs_known: Option<Vec<String>>,
    /// The session's tabs as this call found them (see [`Session::ensure`]).
    tabs: Vec<Page>,
    /// The last call's input left the page busy (its tab was kept): the
    /// next call first looks whether it still is.
    busy_after_input: bool,
}

/// Where a session is, for a list of sessions.
#[derive(Debug, Clone, Default)]
pub struct PageStatus {
    pub url: String,
    pub title: String,
    /// What holds it: a dialog, a crash, a command under way.
    pub note: Option<String>,
}

pub struct Session {
    host: Arc<BrowserHost>,
    options: Arc<McpOptions>,
    settings: ToolSettings,
    secrets: Secrets,
    /// Tabs in a browser context of this session's own.
    isolated: bool,
    /// Local files its pages may read: the server's (shared), or a copy
    /// with the client's roots for a session with a context of its own.
    files: FileAccess,
    /// What `files` was before any roots: a client's new roots replace its old ones.
    files_before_roots: FileAccess,
    /// Its `files` are its client's alone (a context of its own, or the one
    /// client over stdio): new roots replace the old; shared, they gather.
    own_files: bool,
    /// Where its tools write (screenshots, storage states, downloads): a
    /// folder of its own in the output directory when its context is its
    /// own, so no other session reads its cookies there.
    output: PathBuf,
    /// The client's roots are to be asked (before the next call).
    roots_unknown: AtomicBool,
    state: Mutex<State>,
}

impl Session {
    pub(super) fn new(host: Arc<BrowserHost>, options: Arc<McpOptions>, isolated: bool) -> Session {
        // The user's own browser has no contexts of ours: its shared tabs are the session's.
        let isolated = isolated && !host.is_extension();
        let output = if isolated {
            own_output_dir(options.output())
        } else {
            options.output().to_path_buf()
        };
        let settings = ToolSettings {
            variables: options.secrets.clone(),
            act: ActOptions {
                variables: options.secrets.clone(),
                files: options.model_file_access.clone(),
                ..ActOptions::default()
            },
            snapshot_budget: options.snapshot_budget,
            images_to_files: options.images_to_files,
            output_dir: Some(output.clone()),
            // The response's page section states the title and URL.
            tree_header: false,
            ..ToolSettings::default()
        };
        let files = if isolated {
            options.file_access.detached_confined(&output)
        } else {
            options.file_access.clone()
        };
        Session {
            files_before_roots: files.detached(),
            own_files: isolated,
            output,
            secrets: options.secrets.secrets(),
            host,
            options,
            settings,
            isolated,
            files,
            roots_unknown: AtomicBool::new(true),
            state: Mutex::new(State::default()),
        }
    }

    /// A session with a browser of its own, launched (or attached) on the
    /// first call or by [`Session::start_browser`]: what the session
    /// commands' daemon holds. Its tabs live in the browser's default
    /// context, so a persistent profile's logins are there.
    pub fn with_own_browser(options: McpOptions) -> Session {
        let options = Arc::new(options);
        let host = Arc::new(BrowserHost::new(options.clone()));
        Session::new(host, options, false)
    }

    /// This session is the server's only client (stdio): the files its
    /// pages may read are its own, though its context is the default one.
    pub(super) fn only_client(mut self) -> Session {
        self.own_files = true;
        self
    }

    /// Starts the browser now rather than on the first call.
    pub async fn start_browser(&self) -> Result<()> {
        self.host.get().await.map(|_| ())
    }

    /// The tools this session calls.
    pub fn registry(&self) -> &crate::tools::Registry {
        &self.options.registry
    }

    /// Whether the browser is the user's own or one running on its own
    /// (the extension's, `--cdp-endpoint`): the session's end leaves it running.
    pub fn browser_stays(&self) -> bool {
        self.host.is_extension() || self.host.is_connected()
    }

    /// Whether the session has a tab (none yet: its browser never started).
    pub async fn has_page(&self) -> bool {
        self.state.lock().await.page.is_some()
    }

    /// What the session shows of its current tab, with no tool run: its
    /// URL and title, or `None` before the first call.
    pub async fn current_page(&self) -> Option<PageStatus> {
        // Answered at once, whatever the page does: a call under way holds
        // the state (said so), and the browser's list says where a tab is
        // (no script of the page's runs for it; a dialog or a loop would hold it).
        let Ok(st) = self.state.try_lock() else {
            return Some(PageStatus {
                note: Some("running a command".into()),
                ..PageStatus::default()
            });
        };
        let page = st.page.clone()?;
        drop(st);
        let (url, title) = page.listed().await;
        let note = if page.is_crashed() {
            Some("its page crashed".to_string())
        } else {
            page.dialog()
                .map(|d| format!("{} is open ({})", d.a_kind(), d.message_said()))
        };
        Some(PageStatus { url, title, note })
    }

    /// Ends the session and closes its browser (politely: a persistent
    /// profile is written out).
    pub async fn close(&self) {
        self.end().await;
        self.host.shutdown().await;
    }

    /// Whether the client's roots are still to be asked.
    pub fn roots_unknown(&self) -> bool {
        self.roots_unknown.load(Ordering::Relaxed)
    }

    /// The client's roots: its pages may read files there too. They
    /// replace the roots it gave before (over stdio, or with a context of
    /// its own); a context shared over HTTP gathers the roots of every client.
    pub fn set_roots(&self, dirs: Vec<PathBuf>) {
        if self.own_files {
            self.files.reset_to(&self.files_before_roots, dirs);
        } else {
            self.files.add_workspace(dirs);
        }
        self.roots_unknown.store(false, Ordering::Relaxed);
    }

    /// The client said its roots changed: ask again before the next call.
    pub fn forget_roots(&self) {
        self.roots_unknown.store(true, Ordering::Relaxed);
    }

    /// Closes the session's own browser context (its tabs and cookies) and
    /// lets go of the browser.
    pub async fn end(&self) {
        let mut st = self.state.lock().await;
        if let (Some(b), Some(c)) = (st.browser.clone(), st.context.take()) {
            let _ = b.close_context(&c).await;
        }
        *st = State::default();
    }

    /// The browser, a context and a tab: reused, or set up again after the
    /// browser was replaced (a crash, a kill).
    async fn ensure(&self, st: &mut State) -> Result<(Arc<Browser>, Page)> {
        let (generation, browser) = self.host.get().await?;
        if st.generation != Some(generation) {
            // A browser other than the one this session had (not its first).
            let replaced = st.browser_lost || st.generation.is_some();
            *st = State {
                relaunched: replaced,
                ..State::default()
            };
            let context = if self.isolated {
                let c = browser.new_context().await?;
                browser
                    .set_context_origins(
                        &c,
                        OriginPolicy {
                            files: self.files.clone(),
                            ..browser.options().origins.clone()
                        },
                    )
                    .await;
                browser.save_downloads_to(&self.output, Some(&c)).await?;
                Some(c)
            } else {
                None
            };
            if let Some(path) = &self.options.storage_state {
                browser
                    .load_storage_state(context.as_ref(), &StorageState::load(path)?)
                    .await?;
            }
            // The user's own browser: the tab they shared. Any other browser:
            // a tab of the session's own (a browser we launch starts with none).
            let page = if self.host.is_extension() {
                newest_shared_tab(&browser)
                    .await?
                    .ok_or_else(|| Error::Extension("no tab is shared in the extension's panel".into()))?
            } else {
                browser.new_page_in(context.as_ref()).await?
            };
            st.generation = Some(generation);
            st.browser = Some(browser.clone());
            st.context = context;
            st.page = Some(page);
            st.download_mark = browser.downloads(0).last().map_or(0, |d| d.seq);
        }
        let tabs = browser.pages_in(st.context.as_ref()).await?;
        // Every tab of the session holds its dialogs for the client to answer.
        for t in &tabs {
            t.set_dialog_policy(DialogPolicy::Hold);
        }
        st.tabs = tabs.clone();
        // The user's own browser: a tab shared since the last call is the
        // one they mean now. A pop-up a shared tab opened is shared with it
        // by the extension, not by the user: listed, as in a browser
        // Sightline launched, but the current tab stays (a call by selector
        // would land on the pop-up when the last reply said otherwise).
        if self.host.is_extension() {
            let known = std::mem::replace(
                &mut st.tabs_seen,
                tabs.iter().map(|t| t.target_id().to_string()).collect(),
            );
            if !known.is_empty() {
                let shared_by_the_user = |t: &&Page| {
                    !known.iter().any(|k| k == t.target_id()) && browser.openers_of(t.target_id()).is_empty()
                };
                if let Some(shared) = tabs.iter().rev().find(shared_by_the_user) {
                    st.page = Some(shared.clone());
                }
            }
        }
        // The current tab may have closed itself (window.close(), as sign-in
        // pop-ups do) or been closed from outside: the session goes back to
        // the tab that opened it, as the agent does (browser/tab_move.rs),
        // else to the newest of its own.
        let page = match st.page.clone().filter(|p| tabs.contains(p) && !p.is_closed()) {
            Some(p) => p,
            None => {
                let gone = st.page.as_ref().map(|p| p.target_id().to_string());
                let any_tab = self.host.is_extension();
                match browser.successor_tab(gone.as_deref(), &tabs, st.context.as_ref(), any_tab) {
                    Some(p) => p,
                    // (The user's own browser: only they can share another.)
                    None if self.host.is_extension() => return Err(Error::Extension(
                        "the shared tab was closed or is no longer shared: share a tab in the Sightline panel to go on"
                            .into(),
                    )),
                    None => {
                        st.tab_closed_outside = self.host.is_connected() && st.page.is_some();
                        browser.new_page_in(st.context.as_ref()).await?
                    }
                }
            }
        };
        page.set_dialog_policy(DialogPolicy::Hold);
        // (In the user's own browser, its later pop-ups are the session's.)
        browser.drive(&page);
        st.page = Some(page.clone());
        Ok((browser, page))
    }

    /// Runs one tool call and composes its response. When the browser turns
    /// out to be dead (crashed, killed) before the tool runs, a new one is
    /// started and the call runs there, once; so does a navigation or a
    /// call that only reads during which it died (their outcome does not
    /// depend on the lost page). Any other call during which the browser
    /// died fails: what it acted on is gone. A reply from a new browser
    /// says so.
    pub async fn call(&self, tool: &Tool, args: Value) -> Reply {
        let mut st = self.state.lock().await;
        let mut reply = match self.call_once(&mut st, tool, args.clone()).await {
            Attempt::Done(reply) => reply,
            // (A call that only reads, such as a snapshot, runs again in the
            // new browser, as it would had the death been seen before it.)
            Attempt::BrowserDiedDuring if tool.name != "goto" && tool.changes_page => {
                st.generation = None;
                st.browser_lost = true;
                let text = if self.host.is_extension() {
                    format!(
                        "The shared tab was closed or is no longer shared while {} ran: share a tab in the \
Sightline panel to go on.",
                        tool.mcp_name()
                    )
                } else {
                    format!(
                        "The browser crashed or was closed while {} ran. The next call starts a new one (its tabs \
are gone: open your page again).",
                        tool.mcp_name()
                    )
                };
                return self.reply(text, true, None);
            }
            Attempt::BrowserGone | Attempt::BrowserDiedDuring => {
                st.generation = None;
                st.browser_lost = true;
                match self.call_once(&mut st, tool, args).await {
                    Attempt::Done(reply) => reply,
                    Attempt::BrowserGone | Attempt::BrowserDiedDuring => {
                        st.generation = None;
                        let text = if self.host.is_extension() {
                            NO_SHARED_TAB.to_string()
                        } else {
                            explain(tool, &Error::BrowserClosed, None)
                        };
                        return self.reply(text, true, None);
                    }
                }
            }
        };
        let relaunched = std::mem::take(&mut st.relaunched);
        let tab_closed_outside = std::mem::take(&mut st.tab_closed_outside);
        if relaunched || tab_closed_outside {
            let fresh = self.options.launch.user_data_dir.is_none() && self.options.storage_state.is_none();
            let note = match (self.host.is_extension(), self.host.is_connected(), fresh) {
                _ if !relaunched => TAB_CLOSED_OUTSIDE.to_string(),
                (true, _, _) => RESHARED.to_string(),
                (false, true, _) => RECONNECTED.to_string(),
                (false, false, true) => format!("{RELAUNCHED}{LOGINS_GONE}"),
                (false, false, false) => RELAUNCHED.to_string(),
            };
            reply.text = format!("{note}\n{}", reply.text);
            if let Some(obj) = reply.json.as_object_mut() {
                obj.insert("note".into(), Value::String(note));
            }
        }
        reply
    }

    async fn call_once(&self, st: &mut State, tool: &Tool, args: Value) -> Attempt {
        let (browser, page) = match self.ensure(st).await {
            Ok(v) => v,
            Err(Error::BrowserClosed) => return Attempt::BrowserGone,
            Err(e) => return Attempt::Done(self.reply(explain(tool, &e, None), true, None)),
        };
        // A crashed tab answers nothing: only what gives it a new document
        // (or needs none of it) runs; the rest says how to recover at once.
        if page.is_crashed() && !tool.runs_on_a_crashed_tab {
            let text = explain(tool, &Error::PageCrashed, None);
            return Attempt::Done(self.respond(st, &browser, &page, text, true, None).await);
        }
        // A page still busy with the last call's input is hung: its tab goes
        // (the call is not run; the reply says so).
        if std::mem::take(&mut st.busy_after_input) && page.is_hung().await {
            let e = Error::PageNotResponding {
                after: self.options.tool_timeout,
            };
            return Attempt::Done(self.replace_hung_tab(st, &browser, page, tool, &e).await);
        }
        // Another tab's dialog pauses this page (a pop-up and its opener
        // share a process): said at once, and only what needs nothing of
        // the page runs (its reply then without the page).
        // (No look at the page unless another tab holds a dialog.)
        let paused = match paused_by_a_dialog(&st.tabs, &page) {
            Some(said) if page.dialog().is_none() && !page.responds_within(PAUSE_LOOK).await => Some(said),
            _ => None,
        };
        if let Some(paused) = &paused {
            if !tool.runs_beside_a_dialog {
                return Attempt::Done(self.reply(format!("{} could not run: {paused}", tool.mcp_name()), true, None));
            }
        }
        if let Some(d) = page.dialog().filter(|_| !tool.runs_beside_a_dialog) {
            let text = format!(
                "{} ({}): the page waits for it. {}. A page that keeps opening dialogs is left by closing its \
tab ({} with action close) or every tab ({}).",
                d.open_said(),
                d.message_said(),
                answer_the_dialog(),
                crate::tools::tabs::TOOL.mcp_name(),
                crate::tools::close::TOOL.mcp_name(),
            );
            return Attempt::Done(self.reply(text, true, None));
        }
        let mark = page.navigation_mark();
        let ctx = ToolContext::new(page.clone(), &self.settings)
            .with_browser(&browser)
            .in_context(st.context.as_ref())
            .with_llm(self.options.llm.as_ref());
        // The call and the response it builds end within the tool timeout.
        let deadline = Instant::now() + self.options.tool_timeout;
        let run = tokio::time::timeout(
            self.options.tool_timeout,
            self.options.registry.call(&ctx, tool.name, args),
        );
        // A dialog the call opens stops the page: the call ends there and says so.
        let outcome = if tool.runs_beside_a_dialog {
            Some(run.await)
        } else {
            page.unless_a_dialog_opens(run).await
        };
        let page = ctx.page();
        st.page = Some(page.clone());
        let (text, is_error, out) = match outcome {
            None => {
                let d = page.dialog().map(|d| d.said()).unwrap_or_default();
                (
                    format!("The action opened a dialog ({d}). {}.", answer_the_dialog()),
                    false,
                    None,
                )
            }
            Some(Err(_)) => {
                if page.is_hung().await {
                    let e = Error::PageNotResponding {
                        after: self.options.tool_timeout,
                    };
                    return Attempt::Done(self.replace_hung_tab(st, &browser, page, tool, &e).await);
                }
                // A model tool spends most of its time waiting for the model.
                let model = if tool.needs_llm {
                    " It asks the model, which may not have answered yet: the server's --tool-timeout is the \
limit (and --llm-timeout each model call's)."
                } else {
                    ""
                };
                (
                    format!(
                        "{} timed out after {}.{model} Take a browser_snapshot to see where the page is.",
                        tool.mcp_name(),
                        crate::time::spoken(self.options.tool_timeout)
                    ),
                    true,
                    None,
                )
            }
            Some(Ok(Err(e @ Error::PageNotResponding { .. }))) => {
                return Attempt::Done(self.replace_hung_tab(st, &browser, page, tool, &e).await);
            }
            // The input was taken, and the page is busy with it: the tab is
            // kept (a next call that finds it still hung ends it), and
            // nothing of it can be described now.
            Some(Ok(Err(e @ Error::BusyAfterInput { .. }))) => {
                st.busy_after_input = true;
                // (No error: a client that retries errors would send it again.)
                return Attempt::Done(self.reply(explain(tool, &e, None), false, None));
            }
            // The tab was closed (window.close(), as sign-in and payment
            // pop-ups do, or by hand; through the extension, unshared): the
            // browser and the other tabs live on. (Through the extension
            // with no tab shared any more, that is said below.)
            Some(Ok(Err(Error::TabClosed))) if self.host.alive(&browser).await => {
                return self.tab_closed(st, tool, None).await;
            }
            Some(Ok(Err(Error::BrowserClosed)))
                if self.host.alive(&browser).await && !self.is_open(st, &browser, &page).await =>
            {
                return self.tab_closed(st, tool, None).await;
            }
            Some(Ok(Ok(out))) if tab_gone(&browser, &page) && self.host.alive(&browser).await => {
                return self.tab_closed(st, tool, Some(&out.text)).await;
            }
            Some(Ok(Err(e))) => {
                if !browser.is_connected() || matches!(e, Error::BrowserClosed | Error::TabClosed) {
                    return Attempt::BrowserDiedDuring;
                }
                // (The browser may tell of the navigation after the error that it
                // caused.) A navigation's own failure is no page that moved under
                // the call: loading was the call.
                let moved = !matches!(e, Error::Navigation { .. })
                    && (page.navigation_mark() != mark || matches!(e, Error::NavigatedWhileRunning { .. }));
                let url = if moved { page.url().await.ok() } else { None };
                (explain(tool, &e, url.as_deref()), true, None)
            }
            // A result from a browser that died meanwhile (a wait that ran out
            // its time) describes a page that is gone.
            Some(Ok(Ok(_))) if !self.host.alive(&browser).await => return Attempt::BrowserDiedDuring,
            Some(Ok(Ok(out))) => (out.text.clone(), !out.ok, Some(out)),
        };
        if let Some(paused) = paused {
            return Attempt::Done(self.reply(format!("{text}\n{paused}"), is_error, None));
        }
        // A page that stops answering while the response is built (its
        // tree, URL, title) must not hold the call beyond its time either.
        let left = deadline.saturating_duration_since(Instant::now()).max(RESPONSE_FLOOR);
        let image = out.as_ref().and_then(|o| o.image_png.clone());
        match tokio::time::timeout(left, self.respond(st, &browser, &page, text.clone(), is_error, out)).await {
            Ok(reply) => Attempt::Done(reply),
            Err(_) if page.is_hung().await => {
                let e = Error::PageNotResponding {
                    after: self.options.tool_timeout,
                };
                Attempt::Done(self.replace_hung_tab(st, &browser, page, tool, &e).await)
            }
            Err(_) => Attempt::Done(self.reply(
                format!("{text}\n(The page took too long to describe: take a browser_snapshot to see it.)"),
                is_error,
                image,
            )),
        }
    }

    /// The reply when the session's tab was closed during `tool` (after it
    /// said `said`): the session goes on in the tab left, shown. (A tab
    /// closed with its whole browser is the browser's death.)
    async fn tab_closed(&self, st: &mut State, tool: &Tool, said: Option<&str>) -> Attempt {
        let mut text = said.map(|s| format!("{s}\n")).unwrap_or_default();
        text.push_str(&format!(
            "The tab was closed while {} ran (its page closed itself, or it was closed by hand{}). The session \
goes on in the tab shown below.",
            tool.mcp_name(),
            if self.host.is_extension() { ", or unshared" } else { "" }
        ));
        match self.ensure(st).await {
            Ok((browser, page)) => Attempt::Done(self.respond(st, &browser, &page, text, false, None).await),
            Err(Error::BrowserClosed) => Attempt::BrowserDiedDuring,
            Err(e) => Attempt::Done(self.reply(explain(tool, &e, None), true, None)),
        }
    }

    /// Whether the session's browser still lists `page` among its tabs (a
    /// round trip; [`tab_gone`] is the quick look).
    async fn is_open(&self, st: &State, browser: &Browser, page: &Page) -> bool {
        match browser.pages_in(st.context.as_ref()).await {
            Ok(tabs) => tabs.contains(page),
            // (Unknown: taken as open, so the error stands as it was.)
            Err(_) => true,
        }
    }

    /// A page stopped answering (a script in an endless loop): its tab is
    /// ended (renderer crashed, tab closed) and the session goes on in a
    /// fresh tab, which the reply says.
    async fn replace_hung_tab(&self, st: &mut State, browser: &Browser, page: Page, tool: &Tool, e: &Error) -> Reply {
        // (A tab paused by another's dialog is not hung: that tab is named.)
        let tabs = browser.pages_in(st.context.as_ref()).await.unwrap_or_default();
        if let Some(paused) = paused_by_a_dialog(&tabs, &page) {
            return self.reply(format!("{} could not run: {paused}", tool.mcp_name()), true, None);
        }
        let (url, _) = page.listed().await;
        let whose = if url.is_empty() {
            "The page".to_string()
        } else {
            format!("The page {url}")
        };
        let why = e.to_string();
        let why = why.trim_start_matches("the page is not responding: ");
        // Through the extension the session has only the tabs the user
        // shares, and opens none: the hung one stays the session's.
        if self.host.is_extension() {
            return self.reply(
                format!(
                    "{} failed: {whose} is not responding ({why}). It is a tab of your own browser, left as it \
is: the next call tries it again (wait for it, or reload or close it yourself, or share another tab).",
                    tool.mcp_name()
                ),
                true,
                None,
            );
        }
        st.seen.remove(page.target_id());
        // A tab of the user's own browser is theirs to end.
        let ours = browser.opened_here(page.target_id(), st.context.as_ref());
        if ours {
            browser.forget_tab(page.target_id());
            page.kill().await;
        }
        let fresh = match browser.new_page_in(st.context.as_ref()).await {
            Ok(p) => p,
            Err(err) => return self.reply(explain(tool, &err, None), true, None),
        };
        fresh.set_dialog_policy(DialogPolicy::Hold);
        st.page = Some(fresh);
        self.reply(
            format!(
                "{} failed: {whose} is not responding ({why}). {} the session goes on in a new, blank tab: open a \
page again with browser_navigate.",
                tool.mcp_name(),
                if ours {
                    "Its tab was closed and"
                } else {
                    "It is a tab of your own browser, left as it is;"
                }
            ),
            true,
            None,
        )
    }

    /// The response: the result, the page, and its tree (or its changes).
    async fn respond(
        &self,
        st: &mut State,
        browser: &Browser,
        page: &Page,
        mut text: String,
        is_error: bool,
        out: Option<ToolOutput>,
    ) -> Reply {
        let image = out.as_ref().and_then(|o| o.image_png.clone());
        let shows_tree = out.as_ref().is_some_and(|o| o.tree);
        let target = page.target_id().to_string();
        let document = page.navigation_mark();
        // Another tab was shown since this one: its trees are not the last
        // the client saw, and a diff against them would say refs hold that
        // now name the other tab's elements.
        let switched = st.last_shown.as_ref() != Some(&target);
        st.last_shown = Some(target.clone());
        let seen = st.seen.entry(target).or_default();
        if seen.document != document || switched {
            *seen = Seen {
                document,
                console_mark: seen.console_mark,
                ..Seen::default()
            };
        }
        // Asked for the changes since a full tree the client saw: only what
        // changed, when shorter.
        if let Some(tree) = out.as_ref().and_then(|o| o.page_tree.clone()) {
            let diff = out.as_ref().is_some_and(|o| o.diff);
            if diff && seen.full.is_none() {
                text = format!(
                    "No earlier whole-page snapshot of this page to compare with: here is the whole tree.\n{text}"
                );
            }
            if let Some(old) = seen.full.as_ref().filter(|_| diff) {
                match changes(old, &tree) {
                    None => text = "The page is unchanged since the last snapshot you saw: its refs still hold.".into(),
                    Some(d) if d.len() < text.len() => {
                        text = format!(
                            "Changes since the last snapshot you saw ({}):\n{}\n{d}{}",
                            super::response::changes_key(&d),
                            crate::tools::untrusted::OPEN_TAG,
                            crate::tools::untrusted::CLOSE_TAG
                        );
                    }
                    Some(_) => {}
                }
            }
            seen.full = Some(tree);
        }
        // A dialog holds the page: it answers nothing until the dialog is
        // answered, so what the browser lists of it is all there is to say.
        let held = page.dialog().is_some();
        // (A crashed renderer answers nothing either.)
        let held = held || page.is_crashed();
        let mut viewport = if shows_tree || held {
            None
        } else {
            page.snapshot(&SnapshotOptions {
                mode: SnapshotMode::Viewport,
                ..Default::default()
            })
            .await
            .ok()
        };
        let (url, title) = if held {
            let (listed, title) = page.listed().await;
            // A leave-page dialog: the browser lists where the navigation
            // it holds would go, but the page shown is still the one left.
            let shown = page
                .dialog()
                .filter(|d| d.kind == "beforeunload")
                .and_then(|_| page.tracker().with(|s| s.committed_url()));
            match shown {
                Some(here) if here != listed => (
                    format!("{here} (leaving for {listed} if the dialog is accepted)"),
                    title,
                ),
                _ => (listed, title),
            }
        } else if let Some(v) = &viewport {
            // Read in the same look as the tree.
            (v.url.clone(), v.title.clone())
        } else {
            match (page.url().await, page.title().await) {
                (Ok(url), Ok(title)) => (url, title),
                // The document would not say (replaced meanwhile, gone):
                // what the browser lists still does.
                _ => page.listed().await,
            }
        };
        // The browser's own error page after a failed load: its Reload and
        // Details buttons are no page to act on.
        if url.starts_with("chrome-error://") {
            viewport = None;
        }
        let mut view = PageView {
            url,
            title,
            status: page.document_status(),
            dialog: page.dialog().map(|d| d.said()),
            held: page.held_down(),
            ..Default::default()
        };
        // (New since the last response, and the current document's.)
        let errors = page.console_messages(seen.console_mark.max(page.document_event_mark()));
        seen.console_mark = page.event_mark();
        view.console_errors = super::response::console_error_lines(errors);
        if let Ok(tabs) = browser.tab_list(st.context.as_ref()).await {
            // Tabs this step opened (a link to a new tab, a pop-up) are
            // marked: the list alone is shown whenever there are two.
            let ids: Vec<String> = tabs.iter().map(|t| t.target_id().to_string()).collect();
            // (The first response knows no earlier list: it marks none. A
            // tab the user opened in their own browser is not the step's.)
            let new: Vec<&str> = match &st.tabs_known {
                Some(known) => tabs
                    .iter()
                    .filter(|t| t.page().is_some() && !known.iter().any(|k| k == t.target_id()))
                    .map(|t| t.target_id())
                    .collect(),
                None => Vec::new(),
            };
            if tabs.len() > 1 {
                let list = tabs::list_marking_new(&tabs, page, &new).await;
                // (Not again after a result that is the list: browser_tabs,
                // whose list has no marks of new tabs.)
                let unmarked = list.replace("(current, new) ", "(current) ").replace("(new) ", "");
                if !text.contains(unmarked.trim_end()) {
                    view.tabs = Some(list);
                }
            }
            st.tabs_known = Some(ids);
        }
        // This session's: those saved in its own folder (a browser's
        // downloads are every context's), and in the user's own browser,
        // which saves them itself, those begun in the tabs Sightline acts in
        // there (sessions sharing that profile share them). The
        // mark stops at one of those still under way: it is told when done.
        // (The user's own, under way in their browser, hold up nothing.)
        let finished: Vec<_> = browser
            .downloads(st.download_mark)
            .into_iter()
            .filter(|d| !(d.state == "inProgress" && d.users_own))
            .take_while(|d| d.state == "completed" || d.state == "canceled")
            .collect();
        if !finished.is_empty() {
            let own = self.output.canonicalize().unwrap_or_else(|_| self.output.clone());
            for d in finished {
                if d.state == "completed" && d.path.parent() == Some(own.as_path()) {
                    view.downloads.push(format!(
                        "{} ({} bytes) saved to {}",
                        d.suggested_filename,
                        d.bytes,
                        d.path.display()
                    ));
                } else if d.by_the_browser {
                    view.downloads
                        .push(match (d.state.as_str(), d.path.as_os_str().is_empty()) {
                            ("completed", false) => format!(
                                "{} ({} bytes) saved by your browser to {}",
                                d.suggested_filename,
                                d.bytes,
                                d.path.display()
                            ),
                            ("completed", true) => format!(
                                "{} ({} bytes) saved where your browser saves downloads",
                                d.suggested_filename, d.bytes
                            ),
                            _ => format!("{}: canceled (in your browser)", d.suggested_filename),
                        });
                }
                st.download_mark = d.seq;
            }
        }
        let seen = st.seen.get_mut(page.target_id()).expect("entered above");
        let tree_part = match &viewport {
            Some(v) => TreePart::Tree {
                tree: &v.tree,
                seen: seen.viewport.as_deref(),
                budget_tokens: self.options.response_budget,
            },
            None => TreePart::None,
        };
        let mut parts = respond(&text, is_error, Some(&view), tree_part);
        parts.data = out.as_ref().and_then(|o| o.data.clone());
        if let Some(v) = viewport {
            seen.viewport = Some(v.tree);
        }
        self.reply_with(parts, image)
    }

    /// A reply of `text` alone, with every secret value redacted.
    fn reply(&self, text: String, is_error: bool, image_png: Option<Vec<u8>>) -> Reply {
        self.reply_with(respond(&text, is_error, None, TreePart::None), image_png)
    }

    /// A reply of `parts`, with every secret value redacted.
    fn reply_with(&self, parts: Response, image_png: Option<Vec<u8>>) -> Reply {
        let mut json = serde_json::to_value(&parts).unwrap_or(Value::Null);
        self.secrets.redact_json(&mut json);
        Reply {
            text: self.secrets.redact(&parts.text()),
            is_error: !parts.ok,
            image_png,
            json,
        }
    }
}

/// The first tab the browser has (through the extension: the first one the
/// user shared).
/// The tab the user shared last (a share means "this one").
async fn newest_shared_tab(browser: &Browser) -> Result<Option<Page>> {
    Ok(browser.pages().await?.pop())
}

/// Whether `page`'s tab is known to be gone, with no round trip: its own
/// close watch or the browser's list of targets says so (either may come
/// first).
fn tab_gone(browser: &Browser, page: &Page) -> bool {
    page.is_closed() || browser.tab_is_gone(page.target_id())
}

/// How long a page has to answer before another tab's open dialog is
/// taken to pause it.
const PAUSE_LOOK: Duration = Duration::from_millis(500);

/// When another of the session's `tabs` holds a dialog: what to tell of it (a
/// dialog pauses every page of its process, and a pop-up shares its
/// opener's), naming the tab to answer or close.
fn paused_by_a_dialog(tabs: &[Page], page: &Page) -> Option<String> {
    let (i, d) = tabs
        .iter()
        .enumerate()
        .find_map(|(i, t)| Some((i, t.dialog()?)).filter(|_| t != page))?;
    let (tabs_tool, dialog_tool) = (
        crate::tools::tabs::TOOL.mcp_name(),
        crate::tools::handle_dialog::TOOL.mcp_name(),
    );
    Some(format!(
        "tab {i} shows {} ({}), which pauses this page too (they share a process). Answer it ({tabs_tool} select \
{i}, then {dialog_tool}) or close that tab ({tabs_tool} close {i}).",
        d.a_kind(),
        d.message_said()
    ))
}
