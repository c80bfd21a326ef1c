//! The origin policy, enforced on every document request of a tab (its
//! navigations, its downloads and its frames'): a refused one fails
//! before any byte of it is sent, and is kept in the browser's log of
//! refusals. The tab's own request fails as aborted, so the tab stays on
//! its page as it was (a download's or a link's refusal loses no form
//! filled in); a frame's fails as blocked and shows the browser's error.
//! Requests of other kinds are not paused, so pages with no policy pay
//! nothing and pages with one pay a round trip per document.

use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams, EventRequestPaused, FailRequestParams, RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use futures::StreamExt;
use tokio::task::JoinHandle;

use crate::domains::{OriginPolicy, RefusalLog};
use crate::error::{Error, Result};

/// The task that answers paused document requests; stops when dropped.
pub(crate) struct OriginFilter(JoinHandle<()>);

impl Drop for OriginFilter {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl OriginFilter {
    /// Starts filtering `page`'s document requests, unless the policy is open.
    pub(crate) async fn start(
        page: &chromiumoxide::Page,
        policy: &OriginPolicy,
        refusals: RefusalLog,
    ) -> Result<Option<OriginFilter>> {
        if policy.is_open() {
            return Ok(None);
        }
        let mut paused = page
            .event_listener::<EventRequestPaused>()
            .await
            .map_err(|e| Error::cdp("Fetch.requestPaused", e))?;
        // Only local files limited: only `file:` documents pay the round trip.
        let urls = if policy.limits_only_files() { "file:*" } else { "*" };
        let pattern = RequestPattern {
            url_pattern: Some(urls.into()),
            resource_type: Some(ResourceType::Document),
            request_stage: Some(RequestStage::Request),
        };
        page.execute(EnableParams {
            patterns: Some(vec![pattern]),
            handle_auth_requests: None,
        })
        .await
        .map_err(|e| Error::cdp("Fetch.enable", e))?;
        let (page, policy) = (page.clone(), policy.clone());
        let task = tokio::spawn(async move {
            while let Some(ev) = paused.next().await {
                let id = ev.request_id.clone();
                let url = &ev.request.url;
                let Some(why) = policy.refusal(url) else {
                    let _ = page.execute(ContinueRequestParams::new(id)).await;
                    continue;
                };
                let main = page.mainframe().await.ok().flatten();
                let own = main.as_ref().is_none_or(|main| *main == ev.frame_id);
                // (A frame's document, when only the tab's own are held.)
                if !own && policy.top_level_only && policy.files.allows_url(url) {
                    let _ = page.execute(ContinueRequestParams::new(id)).await;
                    continue;
                }
                tracing::info!("refused a request to {url} (origin policy)");
                refusals.keep(url, page.target_id().inner(), why, false, !own);
                let reason = if own {
                    ErrorReason::Aborted
                } else {
                    ErrorReason::BlockedByClient
                };
                let _ = page.execute(FailRequestParams::new(id, reason)).await;
            }
        });
        Ok(Some(OriginFilter(task)))
    }
}
