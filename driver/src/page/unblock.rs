//! removeBlocker: close the pop-up, overlay or banner in the way — narrowly,
//! deterministically and with an audit trail.
//!
//! The engine scans (`__sightline.blockers`) and ranks close buttons; this
//! module applies the policy and acts with trusted input:
//! 1. click the best close button (consent: the reject or accept button the
//!    policy asks for), verify the blocker is gone;
//! 2. press Escape, verify;
//! 3. only in aggressive mode or for allow-listed selectors: remove the element
//!    and undo scroll locks, verify.
//!
//! An empty overlay (a layer with no text, controls or media that takes the
//! clicks at the viewport centre, such as a stuck loading screen) has no
//! button to press and nothing to read or answer: it is removed straight
//! away, in every mode.
//!
//! Conservative by default: it acts only on candidates with both size/position
//! and modal evidence, and never touches consent, login, age-gate or paywall
//! dialogs unless `aggressive`, an allow-listed selector or a domain override
//! says so. Small tooltips are always ignored.
use std::io::Write;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::page::FrameId;
use serde::{Deserialize, Serialize};
use sightline_engine::protocol::{
    BlockerButton, BlockerCandidate, BlockerKind, BlockerOp, BlockerRequest, BlockerScan,
};

use super::handle::Page;
use super::target::{Failure, Target};
use crate::config::{ConsentPolicy, RemoveBlockerOptions};
use crate::error::{Error, Result};

/// `{"removed", "method", "selector"?, "kind"?, "note"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RemoveBlockerResult {
    pub removed: bool,
    /// "click" | "esc" | "remove" | "none"
    pub method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<BlockerKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl RemoveBlockerResult {
    fn none(note: impl Into<Option<String>>) -> Self {
        RemoveBlockerResult {
            removed: false,
            method: "none".into(),
            selector: None,
            kind: None,
            note: note.into(),
        }
    }
}

/// Page-made text (a button's name, a selector of the page's ids) as a
/// sentence for a model shows it: one line, at most `n` characters.
fn shown(text: &str, n: usize) -> String {
    crate::text::clip(&crate::text::defang(&crate::text::one_line(text)), n)
}

/// How removeBlocker's summary says to try harder (the command line says
/// it in its own words).
pub const AGGRESSIVE_HINT: &str = "call this tool again with aggressive: true";

impl RemoveBlockerResult {
    /// The outcome in a sentence for a model or a person: what was closed
    /// and how, or what was left alone and how to get past it.
    pub fn summary(&self) -> String {
        // (The note quotes the page: button names, selectors of its ids.
        // Kept to one short line that cannot close the page-content fence.)
        let note = self
            .note
            .as_deref()
            .map(|n| format!(": {}", shown(n, 300)))
            .unwrap_or_default();
        if self.removed {
            format!("Closed {} {}{note}.", self.layer(), self.how())
        } else if self.selector.is_some() {
            format!(
                "Left {} in place{note}. To get past it, answer it yourself (click one of its \
buttons), or {AGGRESSIVE_HINT} to close or remove it.",
                self.layer()
            )
        } else {
            format!("Nothing to close{note}.")
        }
    }

    /// The layer as a sentence names it: `the modal (div#promo)`.
    pub fn layer(&self) -> String {
        let what = match self.kind {
            Some(BlockerKind::Consent) => "consent dialog".to_string(),
            Some(BlockerKind::Login) => "login dialog".to_string(),
            Some(BlockerKind::GenericModal) => "modal".to_string(),
            Some(k) => kind_name(k).replace('_', " "),
            None => "blocker".to_string(),
        };
        let at = self
            .selector
            .as_deref()
            .map(|s| format!(" ({})", shown(s, 120)))
            .unwrap_or_default();
        format!("the {what}{at}")
    }

    /// How it was closed: `with Escape`.
    pub fn how(&self) -> &str {
        match self.method.as_str() {
            "click" => "with one of its buttons",
            "esc" => "with Escape",
            "remove" => "by taking it out of the page",
            other => other,
        }
    }
}

/// The evidence of a framed layer whose frame could not be read (another
/// site's frame, in a browser that isolates sites).
const FRAME_UNREAD: &str = "its frame could not be read";

/// How long a closed blocker may take to go away (fade-out animations).
const VERIFY_WINDOW: Duration = Duration::from_millis(1500);
const VERIFY_POLL: Duration = Duration::from_millis(100);

fn kind_name(k: BlockerKind) -> &'static str {
    match k {
        BlockerKind::Consent => "consent",
        BlockerKind::Login => "login",
        BlockerKind::AgeGate => "age_gate",
        BlockerKind::Paywall => "paywall",
        BlockerKind::NewsletterPromo => "newsletter_promo",
        BlockerKind::GenericModal => "generic_modal",
        BlockerKind::Banner => "banner",
        BlockerKind::Tooltip => "tooltip",
        BlockerKind::EmptyOverlay => "empty_overlay",
    }
}

/// Kinds told by a layer's shape alone, not by its words.
fn structural(kind: BlockerKind) -> bool {
    matches!(
        kind,
        BlockerKind::GenericModal | BlockerKind::Banner | BlockerKind::Tooltip | BlockerKind::EmptyOverlay
    )
}

/// Kinds left alone unless aggressive / allow-listed.
fn protected(kind: BlockerKind) -> bool {
    matches!(
        kind,
        BlockerKind::Consent | BlockerKind::Login | BlockerKind::AgeGate | BlockerKind::Paywall
    )
}

impl Page {
    async fn blocker_call(&self, op: BlockerOp, target: Option<&str>) -> Result<serde_json::Value> {
        let main = self.main_frame_id().await?;
        self.blocker_call_in(&main, op, target).await
    }

    async fn blocker_call_in(&self, frame: &FrameId, op: BlockerOp, target: Option<&str>) -> Result<serde_json::Value> {
        let ctx = self.ensure_engine(frame).await?;
        let request = serde_json::to_string(&BlockerRequest {
            op,
            target: target.map(str::to_string),
        })
        .unwrap();
        // The request JSON, as a JS string literal.
        let expr = format!(
            "globalThis.__sightline.blockers({})",
            serde_json::to_string(&request).unwrap()
        );
        let v = self.evaluate_in(frame, ctx, &expr, false).await?;
        let text = v.as_str().unwrap_or_default();
        serde_json::from_str(text).map_err(|e| Error::Engine {
            frame: frame.inner().clone(),
            message: format!("bad blockers reply: {e}"),
        })
    }

    /// Blocker candidates on the page, most obstructive first (no action).
    /// A layer that shows only an iframe has its kind and buttons read from
    /// the frame's document (see [`Page::read_framed`]).
    pub async fn scan_blockers(&self) -> Result<BlockerScan> {
        let v = self.blocker_call(BlockerOp::Scan, None).await?;
        let mut scan = Self::scan_reply(v)?;
        for cand in scan.candidates.iter_mut() {
            self.read_framed(cand).await;
        }
        Ok(scan)
    }

    fn scan_reply(v: serde_json::Value) -> Result<BlockerScan> {
        if v.get("candidates").is_none() {
            let msg = v
                .get("error")
                .and_then(|e| e.as_str())
                .unwrap_or("scan failed")
                .to_string();
            return Err(Error::Engine {
                frame: "main".into(),
                message: msg,
            });
        }
        serde_json::from_value(v).map_err(|e| Error::Engine {
            frame: "main".into(),
            message: format!("bad scan: {e}"),
        })
    }

    /// A layer whose only content is an iframe (a consent manager's dialog
    /// served from its own site): the frame's document is scanned as the one
    /// candidate. Its words decide the kind (the layer only had the iframe's
    /// title), and its close and consent buttons are clicked in that frame.
    /// A frame that cannot be read leaves the layer as the page described it.
    async fn read_framed(&self, cand: &mut BlockerCandidate) {
        let Some(iframe) = cand.frame.clone() else { return };
        cand.evidence.push(format!("its content is the frame {iframe}"));
        let inner = async {
            let main = self.main_frame_id().await?;
            let frame = match self.frame_by_owner_selector(&main, &iframe).await {
                Ok(f) => f,
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Element(kind, _)) => {
                    return Err(Error::Engine {
                        frame: "main".into(),
                        message: format!("{iframe}: {kind}"),
                    })
                }
            };
            let v = self.blocker_call_in(&frame, BlockerOp::ScanDocument, None).await?;
            Ok::<_, Error>(Self::scan_reply(v)?.candidates.into_iter().next())
        }
        .await;
        let inner = match inner {
            Ok(Some(inner)) => inner,
            Ok(None) => return,
            Err(e) => {
                tracing::info!("removeBlocker: the frame {iframe} could not be read: {e}");
                cand.evidence.push(FRAME_UNREAD.into());
                return;
            }
        };
        // Words in the frame name the kind; its shape alone (a banner, a
        // generic dialog) says less than the layer's iframe title may have.
        if !structural(inner.kind) {
            cand.kind = inner.kind;
            cand.evidence.extend(inner.evidence);
        }
        let in_frame = |b: BlockerButton| BlockerButton {
            frame: Some(iframe.clone()),
            ..b
        };
        cand.close = inner.close.into_iter().map(in_frame).collect();
        cand.reject = inner.reject.map(in_frame);
        cand.accept = inner.accept.map(in_frame);
    }

    async fn blocker_op(&self, op: BlockerOp, target: &str) -> Result<String> {
        let v = self.blocker_call(op, Some(target)).await?;
        if v["ok"] != true {
            let msg = v["error"].as_str().unwrap_or("blocker operation failed").to_string();
            return Err(Error::Engine {
                frame: "main".into(),
                message: msg,
            });
        }
        Ok(v["value"].as_str().unwrap_or_default().to_string())
    }

    /// Polls until the blocker is hidden, detached or no longer covering.
    async fn blocker_gone(&self, target: &str) -> Result<Option<String>> {
        let started = Instant::now();
        loop {
            let state = self.blocker_op(BlockerOp::State, target).await?;
            if let Some(why) = state.strip_prefix("gone: ") {
                return Ok(Some(why.to_string()));
            }
            if started.elapsed() >= VERIFY_WINDOW {
                return Ok(None);
            }
            tokio::time::sleep(VERIFY_POLL).await;
        }
    }

    /// An allow-listed selector that is no CSS would never match, and the
    /// blocker it meant would be left (or one meant to be kept, removed
    /// under another rule): said before the page is touched.
    async fn check_allowed_selectors(&self, selectors: &[String]) -> Result<()> {
        if selectors.is_empty() {
            return Ok(());
        }
        let main = self.main_frame_id().await?;
        let ctx = self.ensure_engine(&main).await?;
        let expr = format!(
            "{}.map((s) => {{ try {{ document.createDocumentFragment().querySelector(s); return null; }} catch (e) {{ return String(e && e.message || e); }} }})",
            serde_json::to_string(selectors).unwrap()
        );
        let answers = self.evaluate_in(&main, ctx, &expr, false).await?;
        let invalid = selectors
            .iter()
            .zip(answers.as_array().into_iter().flatten())
            .find_map(|(s, why)| why.as_str().map(|why| (s, why.to_string())));
        match invalid {
            Some((s, why)) => Err(Error::InvalidAction(format!(
                "removeBlocker's allow list (the configuration's allowed_selectors, or --allow) holds {s:?}, \
which is not a valid CSS selector ({why}): mend it there"
            ))),
            None => Ok(()),
        }
    }

    /// Whether an allow-listed CSS selector matches the candidate (itself,
    /// an ancestor, or something inside it).
    async fn allow_listed(&self, cand: &BlockerCandidate, selectors: &[String]) -> Result<bool> {
        if selectors.is_empty() {
            return Ok(false);
        }
        let main = self.main_frame_id().await?;
        let ctx = self.ensure_engine(&main).await?;
        for sel in selectors {
            let expr = format!(
                "(() => {{ const el = globalThis.__sightline.resolve({t}); const s = {s}; try {{ return !!el && (el.matches(s) || !!el.closest(s) || !!el.querySelector(s)); }} catch (e) {{ return false; }} }})()",
                t = serde_json::to_string(&cand.target).unwrap(),
                s = serde_json::to_string(sel).unwrap()
            );
            if self.evaluate_in(&main, ctx, &expr, false).await?.as_bool() == Some(true) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Clicks a button with trusted input; a failed click is not fatal (the
    /// next method is tried). By selector: the scan's refs were not handed
    /// out by a snapshot, and actions only take refs the model has seen.
    async fn click_blocker_button(&self, b: &BlockerButton) -> bool {
        let target = match &b.frame {
            Some(iframe) => Target::in_frame(&b.selector, iframe),
            None => Target::parse(&b.selector),
        };
        match self.click(target).await {
            Ok(_) => true,
            Err(e) => {
                tracing::info!("removeBlocker: clicking {} ({}) failed: {e}", b.selector, b.text);
                false
            }
        }
    }

    /// Closes the most obstructive blocker the policy allows. See the module docs.
    pub async fn remove_blocker(&self, opts: &RemoveBlockerOptions) -> Result<RemoveBlockerResult> {
        self.check_allowed_selectors(&opts.allowed_selectors).await?;
        let scan = self.scan_blockers().await?;
        let url = scan.url.clone();
        let mut skipped: Vec<String> = Vec::new();
        for cand in scan.candidates.iter() {
            if cand.kind == BlockerKind::Tooltip {
                continue;
            }
            let kind = kind_name(cand.kind);
            // A layer no one sees (opacity 0, say) may still be in the scan;
            // "closing" it would change nothing and read as a success.
            // (A candidate that cannot be looked at again is tried as before.)
            let state = self
                .blocker_op(BlockerOp::State, &cand.target)
                .await
                .unwrap_or_default();
            if state == "gone: hidden" {
                skipped.push(format!("{kind} {} is not visible", cand.selector));
                continue;
            }
            // A layer showing only a frame, off the centre, that is no consent,
            // login, age or paywall dialog is most likely an ad slot (whose
            // words may well read as a promo), a chat or a player.
            if cand.frame.is_some() && !protected(cand.kind) && !cand.covers_center {
                skipped.push(format!(
                    "{kind} {} only shows a frame, off the centre, and asks nothing",
                    cand.selector
                ));
                continue;
            }
            let allowed = self.allow_listed(cand, &opts.allowed_selectors).await?;
            // Conservative: without both kinds of evidence, only the
            // caller's allow list makes a candidate removable.
            let evident = cand.size_evidence && cand.modal_evidence;
            if !(allowed || evident) {
                skipped.push(format!("{kind} {} lacks size or modal evidence", cand.selector));
                continue;
            }
            let consent_click = match (cand.kind, opts.consent) {
                (BlockerKind::Consent, ConsentPolicy::Reject) => cand.reject.clone(),
                (BlockerKind::Consent, ConsentPolicy::Accept) => cand.accept.clone(),
                _ => None,
            };
            if protected(cand.kind) && !opts.aggressive && !allowed && consent_click.is_none() {
                let why = if cand.evidence.iter().any(|e| e == FRAME_UNREAD) {
                    format!(
                        "{} dialog in a frame that could not be read left alone (a screenshot shows it: a click at its button answers it; aggressive mode removes it)",
                        kind.replace('_', "-")
                    )
                } else if cand.kind == BlockerKind::Consent && opts.consent != ConsentPolicy::Leave {
                    format!("consent dialog without a {:?} button left alone", opts.consent).to_lowercase()
                } else {
                    format!("{} dialog left alone (conservative mode)", kind.replace('_', "-"))
                };
                let result = RemoveBlockerResult {
                    removed: false,
                    method: "none".into(),
                    selector: Some(cand.selector.clone()),
                    kind: Some(cand.kind),
                    note: Some(why.clone()),
                };
                self.audit(opts, &url, &result, &why);
                return Ok(result);
            }
            let result = self.close_candidate(cand, consent_click, opts, allowed).await?;
            self.audit(opts, &url, &result, result.note.as_deref().unwrap_or(""));
            return Ok(result);
        }
        let note = if skipped.is_empty() {
            "no blocker found".to_string()
        } else {
            format!("nothing to do: {}", skipped.join("; "))
        };
        let result = RemoveBlockerResult::none(note.clone());
        self.audit(opts, &url, &result, &note);
        Ok(result)
    }

    async fn close_candidate(
        &self,
        cand: &BlockerCandidate,
        consent_click: Option<BlockerButton>,
        opts: &RemoveBlockerOptions,
        allowed: bool,
    ) -> Result<RemoveBlockerResult> {
        let done = |method: &str, note: String| RemoveBlockerResult {
            removed: true,
            method: method.into(),
            selector: Some(cand.selector.clone()),
            kind: Some(cand.kind),
            note: Some(note),
        };
        // 1. A button: the consent choice, else the best close buttons.
        let buttons: Vec<BlockerButton> = match consent_click {
            Some(b) => vec![b],
            None => cand.close.iter().take(2).cloned().collect(),
        };
        for b in &buttons {
            if self.click_blocker_button(b).await {
                if let Some(why) = self.blocker_gone(&cand.target).await? {
                    let place = b
                        .frame
                        .as_deref()
                        .map(|f| format!(" in the frame {f}"))
                        .unwrap_or_default();
                    return Ok(done(
                        "click",
                        format!("clicked {} \"{}\" ({}){place}; {why}", b.selector, b.text, b.reason),
                    ));
                }
            }
        }
        // Consent answers never escalate to Escape or removal.
        if cand.kind == BlockerKind::Consent && opts.consent != ConsentPolicy::Leave && !opts.aggressive && !allowed {
            return Ok(RemoveBlockerResult {
                removed: false,
                method: "none".into(),
                selector: Some(cand.selector.clone()),
                kind: Some(cand.kind),
                note: Some("the consent button did not close the dialog".into()),
            });
        }
        // An empty overlay holds nothing: removing it loses nothing.
        // (Only the layer: no modal set the page's scroll locks or aria-hidden.)
        if cand.kind == BlockerKind::EmptyOverlay {
            let undone = self.blocker_op(BlockerOp::RemoveLayer, &cand.target).await?;
            let why = self
                .blocker_gone(&cand.target)
                .await?
                .unwrap_or_else(|| "removed".into());
            return Ok(done("remove", format!("empty layer over the page: {undone}; {why}")));
        }
        // 2. Escape.
        self.press(None, &["Escape".to_string()]).await?;
        if let Some(why) = self.blocker_gone(&cand.target).await? {
            return Ok(done("esc", format!("Escape closed it; {why}")));
        }
        // 3. DOM removal, only where allowed.
        if opts.aggressive || allowed {
            let undone = self.blocker_op(BlockerOp::Remove, &cand.target).await?;
            let why = self
                .blocker_gone(&cand.target)
                .await?
                .unwrap_or_else(|| "removed".into());
            return Ok(done("remove", format!("{}; {why}", undone.replace('\n', ", "))));
        }
        Ok(RemoveBlockerResult {
            removed: false,
            method: "none".into(),
            selector: Some(cand.selector.clone()),
            kind: Some(cand.kind),
            note: Some(format!(
                "{} could not be closed by a button or Escape; DOM removal needs aggressive mode or an allow-listed selector",
                kind_name(cand.kind)
            )),
        })
    }

    /// removeBlocker with this tab's policy for its current URL; `None` when
    /// the configuration disables it there.
    pub async fn remove_blocker_per_config(&self) -> Result<Option<RemoveBlockerResult>> {
        let url = self.url().await.unwrap_or_default();
        match self.blocker_config().options_for(&url) {
            Some(opts) => self.remove_blocker(&opts).await.map(Some),
            None => Ok(None),
        }
    }

    /// Runs removeBlocker after a navigation when the configuration asks for
    /// it (`after_navigation`, per domain). Never fails the navigation: the
    /// outcome is in the audit trail and the log.
    pub(crate) async fn unblock_after_navigation(&self) {
        let url = self.url().await.unwrap_or_default();
        let config = self.blocker_config();
        if !config.after_navigation_on(&url) {
            return;
        }
        if let Some(opts) = config.options_for(&url) {
            match self.remove_blocker(&opts).await {
                Ok(r) => tracing::info!("removeBlocker after navigating to {url}: {r:?}"),
                Err(e) => tracing::warn!("removeBlocker after navigating to {url} failed: {e}"),
            }
        }
    }

    /// One JSON line per attempt, to the audit file and as a tracing event.
    fn audit(&self, opts: &RemoveBlockerOptions, url: &str, result: &RemoveBlockerResult, reason: &str) {
        let line = serde_json::json!({
            "timestamp": crate::time::timestamp_now(),
            "url": url,
            "selector": result.selector,
            "kind": result.kind,
            "method": result.method,
            "result": if result.removed { "removed" } else { "left" },
            "reason": reason,
        })
        .to_string();
        tracing::info!(target: "sightline::remove_blocker", "{line}");
        if let Some(path) = &opts.audit_file {
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| writeln!(f, "{line}"));
            if let Err(e) = written {
                tracing::warn!("removeBlocker: cannot write the audit file {}: {e}", path.display());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_says_what_was_closed_or_how_to_get_past_it() {
        let closed = RemoveBlockerResult {
            removed: true,
            method: "click".into(),
            selector: Some("#promo".into()),
            kind: Some(BlockerKind::NewsletterPromo),
            note: Some("clicked button.close".into()),
        };
        assert_eq!(
            closed.summary(),
            "Closed the newsletter promo (#promo) with one of its buttons: clicked button.close."
        );
        let left = RemoveBlockerResult {
            removed: false,
            method: "none".into(),
            kind: Some(BlockerKind::Consent),
            note: Some("consent dialog left alone (conservative mode)".into()),
            ..closed
        };
        assert!(left.summary().starts_with("Left the consent dialog (#promo) in place"));
        assert!(left.summary().contains("aggressive: true"));
        assert_eq!(
            RemoveBlockerResult::none(Some("no blocker found".into())).summary(),
            "Nothing to close: no blocker found."
        );
    }

    #[test]
    fn result_wire_format() {
        let r = RemoveBlockerResult::none(Some("no blocker found".to_string()));
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"removed":false,"method":"none","note":"no blocker found"}"#
        );
    }
}
