//! Navigation: `goto`, `back`, `forward`, `reload`, each waiting until the
//! new document is parsed (or loaded, by the page's [`WaitUntil`]) and then
//! until the page is ready.
//!
//! Network failures (refused connection, unresolvable host, timeout) are
//! typed errors; an HTTP error status (404, 500…) is not an error: the page
//! did load, and [`NavigationResponse::status`] says how.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::page::{
    GetNavigationHistoryParams, NavigateParams, NavigateToHistoryEntryParams, ReloadParams,
};
use chromiumoxide::error::CdpError;
use serde::Serialize;
use serde_json::json;

use super::address::resolve_target;
use super::handle::Page;
use super::tracker::NetState;
use crate::config::WaitUntil;
use crate::error::{Error, NavigationErrorKind, Result};

/// How a navigation ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NavigationResponse {
    /// The URL of the document that loaded (after redirects).
    pub url: String,
    /// Its HTTP status; `None` for documents without one (`about:blank`,
    /// a page restored from the back/forward cache).
    pub status: Option<u16>,
    /// The HTTP status text (`"Not Found"`), when the server sent one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub status_text: String,
    /// The page was not all there when the navigation returned: the
    /// readiness budget ran out, or requests were still loading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfinished: Option<String>,
}

impl NavigationResponse {
    /// ` (the page was still busy after …)`: the end of a tool's sentence
    /// about the navigation, or nothing.
    pub fn unfinished_said(&self) -> String {
        self.unfinished
            .as_deref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default()
    }

    /// False for HTTP error statuses (400 and up).
    pub fn ok(&self) -> bool {
        self.status.is_none_or(|s| s < 400)
    }
}

impl std::fmt::Display for NavigationResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = crate::text::shown_url(&self.url);
        match self.status {
            Some(s) if self.status_text.is_empty() => write!(f, "{url} (HTTP {s})"),
            Some(s) => write!(f, "{url} (HTTP {s} {})", self.status_text),
            None => f.write_str(&url),
        }
    }
}

/// What `Page.navigate` answered.
struct Sent {
    /// The new document's loader (none for a same-document navigation).
    loader: Option<String>,
    /// Chromium's reason the navigation failed (`net::ERR_NAME_NOT_RESOLVED`).
    error_text: Option<String>,
}

/// How often `goto` sends its navigation when the page it leaves lands one
/// of its own after it.
const SENDS: u32 = 3;

/// How long `goto` looks, after its page is ready, for a navigation the page
/// it left had under way to land (only when that page was navigating).
const LEFTOVER_GRACE: Duration = Duration::from_millis(300);

/// Stops the navigation still pending when dropped before [`Self::disarm`].
struct AbandonOnDrop(Option<Page>);

impl AbandonOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        // Given up because the page asks first (a `beforeunload` dialog:
        // unsaved changes): the navigation waits on the answer, and OK
        // must carry it on. Stopping it would leave nothing to carry on.
        let page = self
            .0
            .take()
            .filter(|p| p.dialog().is_none_or(|d| d.kind != "beforeunload"));
        if let (Some(page), Ok(rt)) = (page, tokio::runtime::Handle::try_current()) {
            // Taken now, before the next command can start a navigation.
            let held = page.abandoning().try_lock_owned().ok();
            rt.spawn(async move {
                let _held = match held {
                    Some(h) => h,
                    None => page.abandoning().lock_owned().await,
                };
                page.abandon_navigation().await;
            });
        }
    }
}

/// Reads the page's URL in the engine world (no round trip through chromiumoxide's frame tracking).
const LOCATION_JS: &str = "location.href";

impl Page {
    /// Loads a URL or a local file and waits until the page is ready (see
    /// [`Page::wait_ready`]; with [`WaitUntil::Load`] or
    /// [`WaitUntil::NetworkIdle`], for the load event first).
    ///
    /// An HTTP error status is reported in the response, not as an error.
    pub async fn goto(&self, target: &str) -> Result<NavigationResponse> {
        let url = resolve_target(target)?;
        if let Some(why) = self.origins().refusal(&url) {
            return Err(Error::Navigation {
                url,
                kind: NavigationErrorKind::Blocked(why),
            });
        }
        let deadline = Instant::now() + self.navigation_timeout();
        // The page being left may have a navigation of its own under way (a
        // meta refresh, a timer) that lands just after ours and takes its place.
        let leaving = self.tracker().with(|s| s.committed_url()).filter(|u| *u != url);
        let mut sends = 0;
        loop {
            sends += 1;
            let (commits_before, requests_before) = self.tracker().with(|s| (s.commits, s.page_requests));
            let loader = self.send_goto(&url, deadline).await?;
            self.tracker().sync().await;
            self.wait_for_document(deadline).await.map_err(|e| match e {
                Error::Timeout { .. } => Error::Navigation {
                    url: url.clone(),
                    kind: NavigationErrorKind::Timeout,
                },
                other => other,
            })?;
            // Only a navigation asked for before ours committed can be the
            // page left landing its own after ours (one asked for later is
            // ours redirecting, back to where it came from as it may be).
            let asked_before_ours = |s: &NetState| {
                let asked = loader
                    .as_deref()
                    .and_then(|l| s.requests_at_commit(l))
                    .unwrap_or(s.page_requests);
                asked > requests_before
            };
            let replaced = || {
                self.tracker().with(|s| {
                    asked_before_ours(s)
                        && s.commits > commits_before
                        && s.last_loader != loader
                        && leaving.is_some()
                        && s.committed_url() == leaving
                })
            };
            let response = self.response_for(loader.as_deref(), &url).await;
            // Ours is sent again (seen before the wait, at no wait's cost).
            if sends < SENDS && replaced() {
                continue;
            }
            let ready = self.wait_ready().await;
            // The page left's may commit a moment after ours was ready.
            if leaving.is_some() && self.tracker().with(asked_before_ours) {
                let until = Instant::now() + LEFTOVER_GRACE;
                while !replaced() && Instant::now() < until {
                    self.tracker().changed_or(until).await;
                }
            }
            if replaced() {
                if sends < SENDS {
                    continue;
                }
                // Said, not "opened" while the tab shows the page it left.
                return Err(Error::Navigation {
                    url: url.clone(),
                    kind: NavigationErrorKind::Other(format!(
                        "the page being left landed a navigation of its own after this one, {SENDS} times (does it \
keep reloading itself?)"
                    )),
                });
            }
            let mut response = response;
            response.unfinished = ready?.unfinished();
            self.unblock_after_navigation().await;
            return Ok(response);
        }
    }

    /// Sends one navigation of [`Page::goto`] to `url` (the tab readied for
    /// it); returns its loader (none for a same-document one).
    async fn send_goto(&self, url: &str, deadline: Instant) -> Result<Option<String>> {
        // A navigation given up on is stopped before this one starts.
        drop(self.abandoning().lock().await);
        self.forget_contexts();
        // Navigating a crashed tab gives it a new renderer.
        self.clear_crashed();
        self.begin_step();
        let nav_err = |kind| Error::Navigation {
            url: url.to_string(),
            kind,
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let responses = self.tracker().with(|s| s.responses);
        let navigate = tokio::time::timeout(left, self.send_navigate(url));
        // A caller that gives up while the server has not answered (a
        // cancelled call, Ctrl-C) leaves no navigation pending: it would
        // hold the tab's next commands as a hung page does.
        let pending = AbandonOnDrop(Some(self.clone()));
        let navigated = self.unless_crashed(navigate).await;
        pending.disarm();
        let Ok(navigated) = navigated else {
            return Err(nav_err(NavigationErrorKind::Crashed));
        };
        match navigated {
            Err(_) | Ok(Err(Error::Timeout { .. })) => {
                self.abandon_navigation().await;
                // (chromiumoxide's way answers only once the page loaded.)
                let answered = self.tracker().with(|s| s.responses) > responses;
                Err(nav_err(if answered {
                    NavigationErrorKind::Timeout
                } else {
                    NavigationErrorKind::NoResponse
                }))
            }
            Ok(Err(e)) => Err(e),
            Ok(Ok(Sent {
                error_text: Some(text), ..
            })) => Err(nav_err(NavigationErrorKind::from_error_text(&text))),
            Ok(Ok(Sent { loader, .. })) => Ok(loader),
        }
    }

    /// Sends `Page.navigate`: over the side channel (answered when the
    /// document's response arrives), or through chromiumoxide when there is
    /// none (answered once every frame has loaded).
    async fn send_navigate(&self, url: &str) -> Result<Sent> {
        if let Some(side) = self.side_channel().filter(|s| s.is_usable()) {
            match side
                .on_target(self.target_id(), "Page.navigate", json!({ "url": url }))
                .await
            {
                Ok(v) => {
                    return Ok(Sent {
                        loader: v["loaderId"].as_str().map(str::to_string),
                        error_text: v["errorText"].as_str().filter(|t| !t.is_empty()).map(str::to_string),
                    })
                }
                // No second connection here (a DevTools endpoint that takes
                // one client): chromiumoxide's way.
                Err(e @ (Error::Connect { .. } | Error::BrowserClosed)) => {
                    tracing::debug!("navigation side channel: {e}");
                }
                Err(e) => return Err(e),
            }
        }
        match self.cdp().execute(NavigateParams::new(url.to_string())).await {
            Ok(resp) => Ok(Sent {
                loader: resp.result.loader_id.as_ref().map(|l| l.inner().clone()),
                error_text: resp.result.error_text.filter(|t| !t.is_empty()),
            }),
            Err(CdpError::Timeout) => Err(Error::Timeout {
                what: "the navigation".into(),
                after: self.navigation_timeout(),
            }),
            Err(e) => Err(Error::cdp("Page.navigate", e)),
        }
    }

    /// The HTTP status of the main frame's current document, when it came
    /// over HTTP (`None` for files, `about:` pages and history entries
    /// served from memory).
    pub fn document_status(&self) -> Option<u16> {
        // The committed document's response: the newest response may be
        // another's (a 404 that `back` left, a download, a 204).
        self.tracker()
            .with(|s| s.current_document())
            .map(|d| d.status)
            .filter(|s| *s > 0)
    }

    /// Goes back one entry in the tab's history; `None` when there is none.
    pub async fn back(&self) -> Result<Option<NavigationResponse>> {
        self.history_step(-1).await
    }

    /// Goes forward one entry in the tab's history; `None` when there is none.
    pub async fn forward(&self) -> Result<Option<NavigationResponse>> {
        self.history_step(1).await
    }

    /// Reloads the page and waits as [`Page::goto`] does.
    pub async fn reload(&self) -> Result<NavigationResponse> {
        if self.is_crashed() {
            // A dead renderer answers neither `location.href` nor a reload:
            // load what the browser lists anew (goto gives the tab a new renderer).
            let (url, _) = self.listed().await;
            return self.goto(if url.is_empty() { "about:blank" } else { &url }).await;
        }
        let url = self.url().await.unwrap_or_default();
        let before = self.tracker().with(|s| (s.commits, s.failures()));
        self.clear_crashed();
        self.begin_step();
        self.cdp()
            .execute(ReloadParams::default())
            .await
            .map_err(|e| Error::cdp("Page.reload", e))?;
        self.finish_navigation(&url, before, true).await
    }

    async fn history_step(&self, delta: i64) -> Result<Option<NavigationResponse>> {
        let history = self
            .cdp()
            .execute(GetNavigationHistoryParams::default())
            .await
            .map_err(|e| Error::cdp("Page.getNavigationHistory", e))?;
        let index = history.result.current_index + delta;
        let Some(entry) = usize::try_from(index).ok().and_then(|i| history.result.entries.get(i)) else {
            return Ok(None);
        };
        let url = entry.url.clone();
        if self.is_crashed() {
            // The history entry's document gets a new renderer.
            self.forget_contexts();
            self.clear_crashed();
        }
        let before = self.tracker().with(|s| (s.commits, s.failures()));
        let same_before = self.tracker().with(|s| s.same_document);
        self.begin_step();
        self.cdp()
            .execute(NavigateToHistoryEntryParams::new(entry.id))
            .await
            .map_err(|e| Error::cdp("Page.navigateToHistoryEntry", e))?;
        // A history entry of the same document (pushState, #fragment) commits nothing.
        let deadline = Instant::now() + self.navigation_timeout();
        loop {
            self.tracker().sync().await;
            let (commits, same) = self.tracker().with(|s| (s.commits, s.same_document));
            if commits > before.0 {
                break;
            }
            if same > same_before {
                let unfinished = self.wait_ready().await?.unfinished();
                return Ok(Some(NavigationResponse {
                    url: self.url().await.unwrap_or(url),
                    status: None,
                    status_text: String::new(),
                    unfinished,
                }));
            }
            if let Some(text) = self.tracker().with(|s| s.failure_since(before.1)) {
                return Err(Error::Navigation {
                    url,
                    kind: NavigationErrorKind::from_error_text(&text),
                });
            }
            if Instant::now() >= deadline {
                return Err(Error::Navigation {
                    url,
                    kind: NavigationErrorKind::Timeout,
                });
            }
            self.tracker()
                .changed_or(deadline.min(Instant::now() + Duration::from_millis(50)))
                .await;
        }
        self.finish_navigation(&url, before, false).await.map(Some)
    }

    /// After a navigation was requested: waits for its commit (when
    /// `wait_commit`), then for its document, then until the page is ready.
    async fn finish_navigation(
        &self,
        url: &str,
        (commits_before, failures_before): (u64, usize),
        wait_commit: bool,
    ) -> Result<NavigationResponse> {
        let deadline = Instant::now() + self.navigation_timeout();
        let timeout = || Error::Navigation {
            url: url.to_string(),
            kind: NavigationErrorKind::Timeout,
        };
        if wait_commit {
            loop {
                self.tracker().sync().await;
                if let Some(text) = self.tracker().with(|s| s.failure_since(failures_before)) {
                    return Err(Error::Navigation {
                        url: url.to_string(),
                        kind: NavigationErrorKind::from_error_text(&text),
                    });
                }
                if self.tracker().with(|s| s.commits) > commits_before {
                    break;
                }
                if Instant::now() >= deadline {
                    return Err(timeout());
                }
                self.tracker()
                    .changed_or(deadline.min(Instant::now() + Duration::from_millis(50)))
                    .await;
            }
        }
        if let Some(text) = self.tracker().with(|s| s.failure_since(failures_before)) {
            return Err(Error::Navigation {
                url: url.to_string(),
                kind: NavigationErrorKind::from_error_text(&text),
            });
        }
        self.wait_for_document(deadline).await.map_err(|e| match e {
            Error::Timeout { .. } => timeout(),
            other => other,
        })?;
        let loader = self.tracker().with(|s| s.last_loader.clone());
        let mut response = self.response_for(loader.as_deref(), url).await;
        response.unfinished = self.wait_ready().await?.unfinished();
        self.unblock_after_navigation().await;
        Ok(response)
    }

    /// Waits, until the navigation's `deadline`, for what this page's
    /// [`WaitUntil`] needs of a new document before readiness takes over:
    /// parsed (`ready`: `document.readyState` past `loading`), or loaded
    /// (`load`, `networkidle`: `complete`, the load event).
    pub(crate) async fn wait_for_document(&self, deadline: Instant) -> Result<()> {
        let loaded = self.wait_until() != WaitUntil::Ready;
        let what = if loaded { "the load event" } else { "the document" };
        let main = self.main_frame_id().await?;
        loop {
            let asked = Instant::now();
            let state = tokio::time::timeout_at(
                deadline.into(),
                self.unless_crashed(self.engine_eval(&main, "document.readyState", false)),
            )
            .await;
            match state {
                Err(_) => {
                    if self.is_hung().await {
                        return Err(Error::PageNotResponding { after: asked.elapsed() });
                    }
                    break;
                }
                Ok(Err(e)) | Ok(Ok(Err(e @ (Error::PageCrashed | Error::BrowserClosed)))) => return Err(e),
                Ok(Ok(Ok(v))) if v.as_str() == Some("complete") => return Ok(()),
                Ok(Ok(Ok(v))) if !loaded && v.as_str() == Some("interactive") => return Ok(()),
                Ok(Ok(_)) => {}
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            // Asked again on the document's next event (DOMContentLoaded,
            // load), or after 25 ms.
            self.tracker()
                .changed_or(deadline.min(now + Duration::from_millis(25)))
                .await;
        }
        Err(Error::Timeout {
            what: what.into(),
            after: self.navigation_timeout(),
        })
    }

    /// The response of the document `loader` loaded, or what is known without it.
    async fn response_for(&self, loader: Option<&str>, requested: &str) -> NavigationResponse {
        let doc = loader.and_then(|l| self.tracker().with(|s| s.document(l)));
        match doc {
            Some(d) => NavigationResponse {
                url: d.url,
                status: Some(d.status).filter(|s| *s > 0),
                status_text: d.status_text,
                unfinished: None,
            },
            None => NavigationResponse {
                url: self.url().await.unwrap_or_else(|_| requested.to_string()),
                status: None,
                status_text: String::new(),
                unfinished: None,
            },
        }
    }

    /// The main frame's current URL.
    pub async fn url(&self) -> Result<String> {
        let main = self.main_frame_id().await?;
        let v = self.engine_eval(&main, LOCATION_JS, false).await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// The main frame's document title.
    pub async fn title(&self) -> Result<String> {
        let main = self.main_frame_id().await?;
        let v = self.engine_eval(&main, "document.title", false).await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_errors_are_not_ok() {
        let r = NavigationResponse {
            url: "http://x/".into(),
            status: Some(404),
            status_text: "Not Found".into(),
            unfinished: None,
        };
        assert!(!r.ok());
        assert_eq!(r.to_string(), "http://x/ (HTTP 404 Not Found)");
        let r = NavigationResponse {
            url: "about:blank".into(),
            status: None,
            status_text: String::new(),
            unfinished: Some("the page was still busy after 5.0s (waiting on request /api)".into()),
        };
        assert!(r.ok());
        assert_eq!(
            r.to_string(),
            "about:blank",
            "the address alone: the note is the caller's to place"
        );
    }
}
