//! Tab lists of a browser Sightline connected to (the user's own): the
//! session's tabs as pages, and the user's other tabs as the browser lists
//! them, without attaching to them (see `tab_screen.rs`). A session takes
//! one of those in when it chooses it (`tabs select`).

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::target::{GetBrowserContextsParams, GetTargetInfoParams};

use super::handle::Browser;
use super::records::BrowserContext;
use crate::error::{Error, Result};
use crate::page::Page;

/// How long a chosen tab of the user's has to answer before the session
/// gives it back (an open `alert()` holds every command to the tab).
const CHOSEN_TAB_LIMIT: Duration = Duration::from_secs(10);

/// One tab of a list: a page the session may act in, or one of the user's
/// tabs it has not taken in.
#[derive(Clone)]
pub enum ListedTab {
    Page(Page),
    Other { id: String, url: String, title: String },
}

impl ListedTab {
    pub fn target_id(&self) -> &str {
        match self {
            ListedTab::Page(p) => p.target_id(),
            ListedTab::Other { id, .. } => id,
        }
    }

    pub fn page(&self) -> Option<&Page> {
        match self {
            ListedTab::Page(p) => Some(p),
            ListedTab::Other { .. } => None,
        }
    }

    /// Its URL and title, as the browser lists them.
    pub async fn listed(&self) -> (String, String) {
        match self {
            ListedTab::Page(p) => p.listed().await,
            ListedTab::Other { url, title, .. } => (url.clone(), title.clone()),
        }
    }
}

impl Browser {
    /// The tabs to show for `context`: its pages ([`Browser::pages_in`]),
    /// and in a browser Sightline connected to, the user's other tabs of
    /// the default context too, in the order the browser opened them as
    /// far as it is known.
    pub async fn tab_list(&self, context: Option<&BrowserContext>) -> Result<Vec<ListedTab>> {
        let pages = self.pages_in(context).await?;
        let (Some(screen), None) = (self.screen.as_ref(), context) else {
            return Ok(pages.into_iter().map(ListedTab::Page).collect());
        };
        let listed = self.listed_tabs().await?;
        // (Other contexts are other sessions', or another program's.)
        let contexts: Vec<String> = self
            .cdp_browser()?
            .execute(GetBrowserContextsParams::default())
            .await
            .map(|r| r.result.browser_context_ids.iter().map(|c| c.inner().clone()).collect())
            .unwrap_or_default();
        let others: Vec<ListedTab> = listed
            .iter()
            .filter(|i| {
                let id = i.target_id.inner();
                !screen.admits(id)
                    && !pages.iter().any(|p| p.target_id() == id)
                    && !i
                        .browser_context_id
                        .as_ref()
                        .is_some_and(|c| contexts.contains(c.inner()))
            })
            .map(|i| ListedTab::Other {
                id: i.target_id.inner().clone(),
                url: i.url.clone(),
                title: i.title.clone(),
            })
            .collect();
        let mut tabs: Vec<ListedTab> = pages.into_iter().map(ListedTab::Page).collect();
        tabs.extend(others);
        // The order the browser announced them in; tabs opened since
        // Sightline connected, the order the screen heard of them in (the
        // browser's list promises none), so that a number stays a tab's.
        let order = self.announced_order();
        let place = |t: &ListedTab| match order.iter().position(|id| id == t.target_id()) {
            Some(at) => (0, at),
            None => (1, screen.first_heard(t.target_id()).unwrap_or(usize::MAX)),
        };
        tabs.sort_by_key(place);
        Ok(tabs)
    }

    /// The page for a tab of [`Browser::tab_list`]: one of the user's is
    /// taken in first. A tab that does not answer within a few seconds (a
    /// dialog open in it, a hung script) is given back, and said so.
    pub async fn choose_tab(&self, tab: &ListedTab) -> Result<Page> {
        let (id, screen) = match (tab, self.screen.as_ref()) {
            (ListedTab::Page(p), _) => return Ok(p.clone()),
            (ListedTab::Other { id, .. }, Some(screen)) => (id, screen),
            (ListedTab::Other { id, .. }, None) => {
                return Err(Error::InvalidAction(format!(
                    "the tab {id} is not one this session can use"
                )))
            }
        };
        let cdp = self.cdp_browser()?;
        let info = cdp
            .execute(GetTargetInfoParams::builder().target_id(id.clone()).build())
            .await
            .map_err(|_| Error::InvalidAction("that tab was closed".into()))?;
        let info = serde_json::to_value(&info.result.target_info)
            .map_err(|e| Error::Io(format!("the tab's description: {e}")))?;
        screen.choose(&info);
        let deadline = Instant::now() + CHOSEN_TAB_LIMIT;
        // Shown too, as a user's selected tab is (a tab that opens a dialog
        // as it is brought up is given back like one that never answered).
        let taken = async {
            let page = self.adopt(id, deadline).await?;
            page.bring_to_front().await?;
            Ok::<Page, Error>(page)
        };
        match tokio::time::timeout(CHOSEN_TAB_LIMIT, taken).await {
            Ok(Ok(page)) => Ok(page),
            Ok(Err(e)) if !matches!(e, Error::Timeout { .. }) => {
                screen.release(id);
                Err(e)
            }
            _ => {
                screen.release(id);
                Err(Error::InvalidAction(format!(
                    "the tab did not answer within {}s (a dialog may be open in it, or its page is busy): answer \
or reload it in the browser, then select it again",
                    CHOSEN_TAB_LIMIT.as_secs()
                )))
            }
        }
    }
}
