//! Page's methods over what its event listeners (events.rs) saw: console
//! messages, network requests, and JavaScript dialogs to answer. Kept apart
//! from events.rs because the tab handle holds an `Events`: this way
//! neither file imports the other.

use chromiumoxide::cdp::browser_protocol::page::HandleJavaScriptDialogParams;

use super::events::{ConsoleMessage, DialogInfo, DialogPolicy, NetworkRecord};
use super::handle::Page;
use crate::error::{Error, Result};

impl Page {
    /// Console messages and uncaught errors with a sequence number above `after`
    /// (0: every one kept).
    pub fn console_messages(&self, after: u64) -> Vec<ConsoleMessage> {
        let log = self.events().log.lock().unwrap();
        log.console.iter().filter(|m| m.seq > after).cloned().collect()
    }

    /// Network requests with a sequence number above `after`, in the order they started.
    pub fn network_requests(&self, after: u64) -> Vec<NetworkRecord> {
        let log = self.events().log.lock().unwrap();
        log.network.iter().filter(|r| r.seq > after).cloned().collect()
    }

    /// The current document's requests: its own, and those made since it
    /// began (not an earlier page's, nor theirs left unanswered when it left).
    pub fn document_network_requests(&self) -> Vec<NetworkRecord> {
        let log = self.events().log.lock().unwrap();
        let own = |r: &NetworkRecord| log.document_loader.as_deref() == Some(r.id());
        log.network
            .iter()
            .filter(|r| r.seq > log.document_start || own(r))
            .cloned()
            .collect()
    }

    /// Where the current document was first asked for, when the server
    /// redirected that request (as the browser requested it, its hops
    /// logged apart): `None` without a redirect.
    pub fn document_redirected_from(&self) -> Option<String> {
        let log = self.events().log.lock().unwrap();
        let loader = log.document_loader.as_deref()?;
        let mut hops = log.network.iter().filter(|r| r.id() == loader);
        let first = hops.next()?;
        hops.next().map(|_| first.url.clone())
    }

    /// The sequence number after which the console messages are the current
    /// document's (see [`Page::console_messages`]): a page's messages are
    /// not the next page's.
    pub fn document_event_mark(&self) -> u64 {
        self.events().log.lock().unwrap().document_start
    }

    /// The newest sequence number handed out (to ask later for what is new).
    pub fn event_mark(&self) -> u64 {
        self.events().log.lock().unwrap().next_seq
    }

    /// What happens to JavaScript dialogs from now on; returns the policy
    /// it replaces (to set it back).
    pub fn set_dialog_policy(&self, policy: DialogPolicy) -> DialogPolicy {
        std::mem::replace(&mut self.events().log.lock().unwrap().policy, policy)
    }

    /// What becomes of this tab's dialogs.
    pub fn dialog_policy(&self) -> DialogPolicy {
        self.events().log.lock().unwrap().policy
    }

    /// The dialog that is open (and held), if one is.
    pub fn dialog(&self) -> Option<DialogInfo> {
        self.events().dialog.borrow().clone()
    }

    /// Runs `work` unless a held dialog opens first (`None` then): the
    /// dialog stops the page, so the work would only wait for its answer.
    pub async fn unless_a_dialog_opens<T>(&self, work: impl std::future::Future<Output = T>) -> Option<T> {
        let mut rx = self.events().dialog.subscribe();
        tokio::select! {
            r = work => Some(r),
            _ = rx.wait_for(Option::is_some) => None,
        }
    }

    /// Answers the open dialog: accept (OK, with `prompt_text` for a
    /// prompt, else its default text, as OK would) or dismiss. Returns the
    /// dialog answered and, for an accepted prompt, the text it got.
    pub async fn handle_dialog(&self, accept: bool, prompt_text: Option<&str>) -> Result<(DialogInfo, Option<String>)> {
        let info = self
            .dialog()
            .ok_or_else(|| Error::InvalidAction("no dialog is open".into()))?;
        let answer = (accept && info.kind == "prompt").then(|| {
            prompt_text
                .map(str::to_string)
                .or(info.default_prompt.clone())
                .unwrap_or_default()
        });
        let mut params = HandleJavaScriptDialogParams::new(accept);
        params.prompt_text = answer.clone();
        // Cleared before the answer goes: the script goes on at once, and a
        // dialog it opens next is recorded after this, not wiped by it.
        let dialog = &self.events().dialog;
        dialog.send_replace(None);
        // (Not put back when the answer fails: the usual failure is that
        // no dialog is showing any more, and a record of one would hold
        // every later call.)
        self.send(params).await?;
        Ok((info, answer))
    }
}

/// The tabs whose JavaScript dialogs a run holds open for its own answers
/// (the agent's and the steps runner's `handleDialog`), with the policy
/// each had: every tab the run comes to is held, and each is given back as
/// it was.
#[derive(Default)]
pub struct DialogHolds(Vec<(Page, DialogPolicy)>);

impl DialogHolds {
    /// Holds `page`'s dialogs from now on (once per tab).
    pub fn hold(&mut self, page: &Page) {
        if self.0.iter().any(|(p, _)| p.target_id() == page.target_id()) {
            return;
        }
        self.0.push((page.clone(), page.set_dialog_policy(DialogPolicy::Hold)));
    }

    /// Gives each tab its policy back, then dismisses a dialog still open
    /// on it (the policy first: a dialog the page opens in answer to the
    /// dismissal then goes by that policy, and is not left held).
    pub async fn release(self) {
        for (page, policy) in self.0.into_iter().rev() {
            page.set_dialog_policy(policy);
            // (A page that answers each dismissal with another dialog is not followed for ever.)
            for _ in 0..3 {
                if page.dialog().is_none() || page.handle_dialog(false, None).await.is_err() {
                    break;
                }
            }
        }
    }
}
