//! The origin policy, enforced on every document request of a tab (its
//! navigations and its frames'): a refused one fails as blocked by the
//! client, before any byte of it loads. Requests of other kinds are not
//! paused, so pages with no policy pay nothing and pages with one pay a
//! round trip per document.

use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams, EventRequestPaused, FailRequestParams, RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use futures::StreamExt;
use tokio::task::JoinHandle;

use crate::domains::OriginPolicy;
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
    pub(crate) async fn start(page: &chromiumoxide::Page, policy: &OriginPolicy) -> Result<Option<OriginFilter>> {
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
                // (A frame's document, when only the tab's own are held.)
                let frames_free = policy.top_level_only
                    && policy.files.allows_url(&ev.request.url)
                    && page
                        .mainframe()
                        .await
                        .ok()
                        .flatten()
                        .is_some_and(|main| main != ev.frame_id);
                if frames_free || policy.allows(&ev.request.url) {
                    let _ = page.execute(ContinueRequestParams::new(id)).await;
                } else {
                    tracing::info!("blocked a navigation to {} (origin policy)", ev.request.url);
                    let _ = page
                        .execute(FailRequestParams::new(id, ErrorReason::BlockedByClient))
                        .await;
                }
            }
        });
        Ok(Some(OriginFilter(task)))
    }
}
