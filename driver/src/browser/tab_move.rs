//! Where a session goes on after a step that opened or closed a tab: one
//! rule, which the agent, a replay and the steps runner all follow, as a
//! user's eyes would.

use super::handle::Browser;
use super::records::BrowserContext;
use crate::error::Error;
use crate::page::Page;

/// A step's move to another tab (see [`Browser::tab_after_step`]).
#[derive(Debug)]
pub enum TabMove {
    /// The step's page opened a tab (a `target=_blank` link, a pop-up),
    /// taken over: the session goes on there.
    NewTab { page: Page, url: String },
    /// It opened a tab on a site the origin policy refuses, which was
    /// closed: why.
    Refused(String),
    /// The step's tab closed (a sign-in or payment pop-up's
    /// `window.close()`, a pop-up the origin guard closed): the session
    /// goes back to the nearest tab up its chain of openers still open.
    BackToOpener { page: Page, url: String },
}

impl TabMove {
    /// What to tell a model of it.
    pub fn said(&self) -> String {
        match self {
            TabMove::NewTab { url, .. } => format!("It opened a new tab, which you are in now: {url}"),
            TabMove::Refused(why) => why.clone(),
            TabMove::BackToOpener { url, .. } => {
                format!("The tab you were in was closed; you are back in the tab that opened it: {url}")
            }
        }
    }

    /// The tab the session goes on in (none: it stays where it was).
    pub fn page(&self) -> Option<&Page> {
        match self {
            TabMove::NewTab { page, .. } | TabMove::BackToOpener { page, .. } => Some(page),
            TabMove::Refused(_) => None,
        }
    }
}

impl Browser {
    /// The tab a session goes on in when its current one (`gone`) is no
    /// more: the nearest opener of it still open among `tabs`, else the
    /// newest of `tabs` that is the session's own ([`Browser::opened_here`]:
    /// in a browser of the user's, never one of theirs, where a fill would
    /// overwrite their work), or of any of them with `any_tab` (the tabs the
    /// user shared through the extension). None: it needs a new tab.
    pub fn successor_tab(
        &self,
        gone: Option<&str>,
        tabs: &[Page],
        context: Option<&BrowserContext>,
        any_tab: bool,
    ) -> Option<Page> {
        gone.and_then(|g| self.nearest_open_opener(g))
            .filter(|p| tabs.contains(p))
            .or_else(|| {
                tabs.iter()
                    .rev()
                    .filter(|p| Some(p.target_id()) != gone && !p.is_closed())
                    .find(|p| any_tab || self.opened_here(p.target_id(), context))
                    .cloned()
            })
    }

    /// Where a session on `page` goes on after a step: back to its opener
    /// when `page`'s tab closed, into a tab `page` opened and no one has
    /// taken yet, or nowhere (None). A tab that could not be taken over
    /// (closed before it could be) is no move.
    pub async fn tab_after_step(&self, page: &Page) -> Option<TabMove> {
        if page.is_closed() || self.tab_is_gone(page.target_id()) {
            let opener = self.nearest_open_opener(page.target_id())?;
            let url = opener.url().await.unwrap_or_default();
            return Some(TabMove::BackToOpener { page: opener, url });
        }
        match self.take_popup(page).await {
            Ok(Some(tab)) => {
                let url = tab.url().await.unwrap_or_default();
                Some(TabMove::NewTab { page: tab, url })
            }
            Ok(None) => None,
            Err(Error::InvalidAction(why)) => Some(TabMove::Refused(why)),
            Err(e) => {
                tracing::debug!("a new tab: {e}");
                None
            }
        }
    }
}
