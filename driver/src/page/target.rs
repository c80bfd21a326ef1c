//! Finding what an action acts on, and checking that it can be acted on.
//!
//! A [`Target`] is a ref from a snapshot (`e12`, or `f1e3` inside the frame
//! the snapshot numbered `f1`) or a selector (engine selector, CSS, `css=…`,
//! `xpath=…`), optionally inside a frame. It is located in one frame: the
//! engine of that frame's isolated world answers `actionTarget` about it.
//!
//! Actionability runs in one round trip per attempt: ask the engine, scroll
//! the element into view when it is not fully in view or not hit at its
//! action point, wait until the next frame has rendered, ask again; the two
//! boxes must be equal (stable). Transient failures (not there yet, hidden, moving,
//! covered) are retried until the page's action timeout, like Playwright's
//! auto-wait. For elements in child frames the action point is translated to
//! top-level viewport coordinates through each iframe's content box, and the
//! parent frame must hit the iframe at that point.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::dom::{DescribeNodeParams, Node};
use chromiumoxide::cdp::browser_protocol::page::{FrameId, FrameTree};
use chromiumoxide::cdp::js_protocol::runtime::{
    CallArgument, CallFunctionOnParams, EvaluateParams, ReleaseObjectParams, RemoteObjectId,
};
use serde::Deserialize;
use serde_json::{json, Value};
use sightline_engine::protocol::TargetInfo;

use super::engine::threw;
use super::handle::Page;
use super::rebound::names_its_own_identity;
use crate::error::{ActionErrorKind, Error, Result};

/// What an element action acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A ref from a snapshot: `e12`, or `f1e3` for an element in frame `f1`.
    Ref(String),
    /// A selector: the engine's (`button#buy`, `x-card >>> button`), CSS
    /// (optionally `css=…`) or `xpath=…`; `frame` picks a child frame, by
    /// its snapshot prefix (`f1`) or a selector of its `<iframe>` element in
    /// the main frame.
    Selector { selector: String, frame: Option<String> },
}

impl Target {
    /// A ref when `s` looks like one (`e12`, `f1e3`), else a selector.
    pub fn parse(s: &str) -> Target {
        let t = s.trim();
        if is_ref(t) {
            Target::Ref(t.to_string())
        } else {
            Target::Selector {
                selector: t.to_string(),
                frame: None,
            }
        }
    }

    /// A selector inside a frame (`f1`, or a selector of its `<iframe>`).
    pub fn in_frame(selector: &str, frame: &str) -> Target {
        Target::Selector {
            selector: selector.to_string(),
            frame: Some(frame.to_string()),
        }
    }

    /// How errors and reports name it.
    pub fn label(&self) -> String {
        match self {
            Target::Ref(r) => r.clone(),
            Target::Selector { selector, frame: None } => selector.clone(),
            Target::Selector {
                selector,
                frame: Some(f),
            } => format!("{selector} (in frame {f})"),
        }
    }
}

impl From<&str> for Target {
    fn from(s: &str) -> Target {
        Target::parse(s)
    }
}

impl From<String> for Target {
    fn from(s: String) -> Target {
        Target::parse(&s)
    }
}

impl From<&String> for Target {
    fn from(s: &String) -> Target {
        Target::parse(s)
    }
}

impl From<&Target> for Target {
    fn from(t: &Target) -> Target {
        t.clone()
    }
}

/// The selector as the engine reads it. One that starts as only an XPath
/// can (`//button`, `(//a)[2]`, `..`) is taken as one, as Playwright does:
/// models write them bare, and as CSS they would be refused.
fn engine_selector(selector: &str) -> String {
    let s = selector.trim_start();
    if ["//", "(//", ".."].iter().any(|p| s.starts_with(p)) {
        format!("xpath={s}")
    } else {
        selector.to_string()
    }
}

/// `e12` or `f3e12`.
pub fn is_ref(s: &str) -> bool {
    split_ref(s).is_some()
}

/// `f3e12` → (Some("f3"), "e12"); `e12` → (None, "e12").
pub(super) fn split_ref(s: &str) -> Option<(Option<&str>, &str)> {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if let Some(n) = s.strip_prefix('e') {
        return digits(n).then_some((None, s));
    }
    let rest = s.strip_prefix('f')?;
    let e = rest.find('e')?;
    (digits(&rest[..e]) && digits(&rest[e + 1..])).then(|| (Some(&s[..e + 1]), &s[e + 1..]))
}

/// A target pinned to a frame.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    pub frame: FrameId,
    /// Frames from the main frame's child down to `frame` (empty for the main frame).
    pub chain: Vec<FrameId>,
    /// What the frame's engine resolves: a frame-local ref (`e3`) or the selector.
    pub engine_target: String,
    /// For refs: the document that handed them out (`performance.timeOrigin`).
    pub document: Option<f64>,
    pub is_ref: bool,
}

/// What one actionability attempt needs.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Needs {
    pub visible: bool,
    pub stable: bool,
    pub enabled: bool,
    pub editable: bool,
    /// A point in the viewport where the element receives the events.
    pub hit: bool,
    /// Scroll it into view first (when it is not fully in view).
    pub scroll: bool,
    /// Also read its checked state.
    pub state: bool,
    /// Move the mouse to the element while checking that it is stable.
    pub pre_move: bool,
    /// That move is the action itself (hover): it begins the step. Before
    /// a click it only prepares, and the step begins at the press.
    pub moving_acts: bool,
    /// How long a cover over the target may take to go before the action
    /// gives up (`None`: the action timeout).
    pub cover_wait: Option<Duration>,
}

impl Needs {
    /// click, doubleClick, drag source.
    pub const POINTER: Needs = Needs {
        visible: true,
        stable: true,
        enabled: true,
        editable: false,
        hit: true,
        scroll: true,
        state: false,
        pre_move: true,
        moving_acts: false,
        cover_wait: None,
    };
    /// hover: disabled elements can be hovered.
    pub const HOVER: Needs = Needs {
        enabled: false,
        moving_acts: true,
        ..Needs::POINTER
    };
    /// fill, type: like Playwright, no hit test (the field is focused directly).
    pub const EDIT: Needs = Needs {
        visible: true,
        stable: false,
        enabled: true,
        editable: true,
        hit: false,
        scroll: true,
        state: false,
        pre_move: false,
        moving_acts: false,
        cover_wait: None,
    };
    /// selectOptionFromDropdown. The list must take events where it shows:
    /// one the page covers with a widget of its own (Tom Select, Select2)
    /// takes a choice the page never reads from it.
    pub const SELECT: Needs = Needs {
        visible: true,
        stable: false,
        enabled: true,
        editable: false,
        hit: true,
        scroll: true,
        state: false,
        pre_move: false,
        moving_acts: false,
        // A list the page covers with its own widget stays covered: a
        // cover that is on its way out (a closing menu) goes sooner.
        cover_wait: Some(Duration::from_millis(1000)),
    };
    /// Only that it exists (setInputFiles, press, scroll targets).
    pub const ATTACHED: Needs = Needs {
        visible: false,
        stable: false,
        enabled: false,
        editable: false,
        hit: false,
        scroll: false,
        state: false,
        pre_move: false,
        moving_acts: false,
        cover_wait: None,
    };
}

/// An element that passed its checks.
#[derive(Debug, Clone)]
pub(crate) struct Ready {
    pub loc: Located,
    pub info: TargetInfo,
    /// The action point in top-level viewport CSS pixels (when `hit` was needed or a point is known).
    pub point: Option<(f64, f64)>,
    /// The element's box in top-level viewport coordinates.
    pub rect: sightline_engine::protocol::Rect,
    /// Checked state (`true`/`false`/`"mixed"`) and kind, when asked for.
    pub state: Option<CheckState>,
    /// For a ref whose selector is a position among siblings: the text
    /// around the element (see `page/context.rs`), for records to check.
    pub context: Option<String>,
}

/// A stale ref's replacement: the target acted on instead, the document
/// it was found in, and how the action names it.
struct Rebound {
    target: Target,
    document: Option<f64>,
    description: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct CheckState {
    pub checked: Value,
    pub kind: String,
}

#[derive(Debug, Deserialize)]
struct Probe {
    #[serde(default, rename = "newDocument")]
    new_document: bool,
    /// The tab is hidden (a popup or a newer tab covers it).
    #[serde(default)]
    hidden: bool,
    info: Option<TargetInfo>,
    #[serde(default)]
    state: Option<CheckState>,
    /// How many elements a selector target matches (refs: none); the first
    /// is acted on.
    #[serde(default)]
    matches: Option<u32>,
}

/// First look at the target, in its frame. `o`: {target, doc, scroll, wait,
/// state, hiddenCheck, isRef}; with `hiddenCheck`, a hidden tab answers only that.
/// With `wait`, it first waits until the next frame has rendered (the
/// second look of the stability check); otherwise it scrolls the element
/// into view when it is not fully in view or not hit at its action point.
const PROBE_JS: &str = r#"(async (o) => {
  const S = globalThis.__sightline;
  if (o.doc !== null && performance.timeOrigin !== o.doc) return { newDocument: true };
  if (o.hiddenCheck && document.visibilityState === "hidden") return { hidden: true };
  const ask = (scroll) => JSON.parse(S.actionTarget(JSON.stringify({ target: o.target, scroll })));
  if (o.wait) {
    // After the next frame has rendered: a rAF callback alone may run in
    // the very frame whose animation time the first look saw.
    await new Promise((r) => {
      requestAnimationFrame(() => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
      setTimeout(r, 100);
    });
  }
  let info = ask(false);
  // (One whose picture is still loading is brought into view too: a lazy
  // image loads only near it.)
  if (!o.wait && o.scroll && info.found && info.attached && (info.visible || info.image_loading)) {
    // (In quirks mode the body, not the root, has the viewport's size.)
    const de = document.scrollingElement || document.documentElement;
    const vw = de.clientWidth || innerWidth, vh = de.clientHeight || innerHeight;
    const r = info.rect;
    const inside = r.x >= 0 && r.y >= 0 && r.x + r.width <= vw + 0.5 && r.y + r.height <= vh + 0.5;
    if (!inside || !info.point || !info.receives_events) info = ask(true);
  }
  let state = null;
  if (o.state && info.found) {
    const el = S.resolve(o.target);
    const box = (i) => (i instanceof HTMLInputElement && (i.type === "checkbox" || i.type === "radio"))
      ? { checked: i.indeterminate ? "mixed" : i.checked, kind: i.type } : null;
    if (el) {
      state = box(el);
      if (!state && el instanceof HTMLLabelElement && el.control) state = box(el.control);
      if (!state) {
        const ac = el.getAttribute("aria-checked");
        if (ac !== null) state = { checked: ac === "mixed" ? "mixed" : ac === "true", kind: el.getAttribute("role") || "checkbox" };
      }
      if (!state) {
        const ap = el.getAttribute("aria-pressed");
        if (ap !== null) state = { checked: ap === "true", kind: "button" };
      }
      if (!state) {
        const inner = el.querySelectorAll("input[type=checkbox], input[type=radio]");
        if (inner.length === 1) state = box(inner[0]);
      }
    }
  }
  // A selector acts on its first match: how many there are, to say so.
  let matches = null;
  if (!o.isRef) {
    try {
      const t = o.target.trim();
      if (t.startsWith("xpath=")) {
        // (Elements only: a text node matched is nothing to act on.)
        const found = document.evaluate(t.slice(6), document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        matches = 0;
        for (let i = 0; i < found.snapshotLength; i++) if (found.snapshotItem(i).nodeType === 1) matches++;
      } else {
        const parts = t.replace(/^css=/, "").split(" >>> ");
        let scope = document;
        for (const p of parts.slice(0, -1)) scope = scope && (scope.querySelector(p.trim()) || {}).shadowRoot;
        if (scope) matches = scope.querySelectorAll(parts[parts.length - 1].trim()).length;
      }
    } catch (e) {}
  }
  return { info, state, matches };
})"#;

/// In a parent frame, on its `<iframe>` element: scroll it into view when asked,
/// then report its content-box origin and whether the parent hits the iframe at
/// (x, y) (child coordinates, or null to skip the hit test).
const FRAME_OWNER_JS: &str = r##"function (scroll, x, y) {
  if (scroll) {
    const r = this.getBoundingClientRect();
    const de = document.scrollingElement || document.documentElement;
    if (r.top < 0 || r.left < 0 || r.bottom > (de.clientHeight || innerHeight) || r.right > (de.clientWidth || innerWidth))
      this.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  }
  const r = this.getBoundingClientRect();
  const cs = getComputedStyle(this);
  const ox = r.left + this.clientLeft + parseFloat(cs.paddingLeft || "0");
  const oy = r.top + this.clientTop + parseFloat(cs.paddingTop || "0");
  let covered = null, coveredSelector = null;
  // `!= null`: a null argument arrives as undefined through chrome.debugger
  // (the extension bridge drops null-valued call arguments).
  if (x != null) {
    let hit = document.elementFromPoint(ox + x, oy + y);
    for (let i = 0; hit && hit.shadowRoot && i < 32; i++) {
      const inner = hit.shadowRoot.elementFromPoint(ox + x, oy + y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    if (hit !== this) {
      const name = (e) => e ? e.localName + (e.id ? "#" + e.id : (e.classList.length ? "." + [...e.classList].slice(0, 2).join(".") : "")) : "nothing";
      let layer = hit;
      while (layer && layer.parentElement && layer.parentElement !== document.body && !layer.parentElement.contains(this)) layer = layer.parentElement;
      coveredSelector = name(layer);
      const text = layer ? (layer.innerText || layer.textContent || "").trim().replace(/\s+/g, " ").slice(0, 40) : "";
      covered = text ? coveredSelector + ' "' + text + '"' : coveredSelector;
    }
  }
  return { x: ox, y: oy, covered, coveredSelector };
}"##;

#[derive(Debug, Deserialize)]
struct OwnerFacts {
    x: f64,
    y: f64,
    covered: Option<String>,
    #[serde(rename = "coveredSelector")]
    covered_selector: Option<String>,
}

/// Why one attempt failed.
pub(crate) enum Failure {
    /// The element (described when it was found) is not actionable.
    Element(ActionErrorKind, Option<String>),
    /// The machinery failed (CDP, engine, crash): no retry.
    Fatal(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Fatal(e)
    }
}

fn element_failure(kind: ActionErrorKind) -> Failure {
    Failure::Element(kind, None)
}

pub(super) fn path_to(tree: &FrameTree, frame: &FrameId, out: &mut Vec<FrameId>) -> bool {
    if &tree.frame.id == frame {
        return true;
    }
    for c in tree.child_frames.as_deref().unwrap_or_default() {
        out.push(c.frame.id.clone());
        if path_to(c, frame, out) {
            return true;
        }
        out.pop();
    }
    false
}

impl Page {
    /// Pins a target to its frame.
    pub(crate) async fn locate(&self, target: &Target) -> std::result::Result<Located, Failure> {
        let main = self.main_frame_id().await?;
        let (frame, engine_target, is_ref) = match target {
            Target::Ref(r) => match split_ref(r) {
                Some((None, local)) => (main.clone(), local.to_string(), true),
                Some((Some(prefix), local)) => {
                    let frame = self
                        .frame_for_prefix(prefix)
                        .ok_or(element_failure(ActionErrorKind::UnknownFrame))?;
                    (frame, local.to_string(), true)
                }
                None => {
                    return Err(element_failure(ActionErrorKind::Unsupported(format!(
                        "{r:?} is not a ref"
                    ))))
                }
            },
            Target::Selector { selector, frame: None } => (main.clone(), engine_selector(selector), false),
            Target::Selector {
                selector,
                frame: Some(f),
            } => {
                let frame = if is_frame_prefix(f) {
                    self.frame_for_prefix(f)
                        .ok_or(element_failure(ActionErrorKind::UnknownFrame))?
                } else {
                    self.frame_by_owner_selector(&main, f).await?
                };
                (frame, engine_selector(selector), false)
            }
        };
        let mut chain = Vec::new();
        if frame != main {
            let tree = self.frame_tree().await?;
            // (A frame another process runs is not in the tab's tree: its
            // chain goes up through the parents its snapshot noted.)
            let in_tab = path_to(&tree, &frame, &mut chain);
            if in_tab {
                // (A frame that moved into the tab's process keeps its id.)
                for f in &chain {
                    self.forget_hosted(f);
                }
            }
            if !in_tab && !self.hosted_chain(&tree, &frame, &mut chain) {
                return Err(element_failure(if is_ref {
                    ActionErrorKind::StaleRef
                } else {
                    ActionErrorKind::UnknownFrame
                }));
            }
        }
        let document = if is_ref {
            let doc = self.state().frame_refs.get(frame.inner()).map(|r| r.document);
            if doc.is_none() {
                return Err(element_failure(ActionErrorKind::UnknownRef));
            }
            doc
        } else {
            None
        };
        Ok(Located {
            frame,
            chain,
            engine_target,
            document,
            is_ref,
        })
    }

    /// The selector the latest snapshot gave ref `r`'s element, and its
    /// frame prefix (`f1`) for a ref inside a frame: what finds it again in
    /// a later document.
    pub fn ref_selector(&self, r: &str) -> Option<(String, Option<String>)> {
        let (prefix, local) = split_ref(r)?;
        let frame = match prefix {
            Some(p) => self.frame_for_prefix(p)?,
            None => self.state().main_frame.clone()?,
        };
        let state = self.state();
        let facts = state.frame_refs.get(frame.inner())?.refs.get(local)?;
        Some((facts.selector.clone(), prefix.map(str::to_string)))
    }

    /// Whether the target resolves to an element now (no waiting, no checks):
    /// a cached action's selector, a ref that may have gone stale.
    pub async fn exists(&self, target: impl Into<Target>) -> Result<bool> {
        let target = target.into();
        let loc = match self.locate(&target).await {
            Ok(l) => l,
            Err(Failure::Element(..)) => return Ok(false),
            Err(Failure::Fatal(e)) => return Err(e),
        };
        match self.engine_object(&loc.frame, &loc.engine_target).await {
            Ok(Some(object)) => {
                let _ = self.send_for(&loc.frame, ReleaseObjectParams::new(object)).await;
                Ok(true)
            }
            Ok(None) => Ok(false),
            // A selector the engine cannot parse resolves to nothing.
            Err(Error::Engine { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// A selector that finds `target`'s element again, also in a later
    /// document (refs die with theirs): the engine's selector of the element.
    pub async fn selector_of(&self, target: impl Into<Target>) -> Result<String> {
        let target = target.into();
        let ready = self.actionable("describe", &target, Needs::ATTACHED).await?;
        Ok(ready.info.selector)
    }

    /// The child frame whose `<iframe>` (in the main frame) matches `selector`.
    pub(super) async fn frame_by_owner_selector(
        &self,
        main: &FrameId,
        selector: &str,
    ) -> std::result::Result<FrameId, Failure> {
        let object = self
            .engine_object(main, selector)
            .await?
            .ok_or(element_failure(ActionErrorKind::NotFound))?;
        let node = self.describe_and_release(main, object).await?;
        let frame = node
            .frame_id
            .clone()
            .ok_or(element_failure(ActionErrorKind::Unsupported(format!(
                "{selector} is not an <iframe> with a document"
            ))))?;
        // (An iframe whose document is in this process shows it.)
        self.learn_if_hosted(&frame, main, node.content_document.is_some())
            .await;
        Ok(frame)
    }

    /// The DOM node behind a remote object of `frame`'s, which is released
    /// (its world needs it no more).
    pub(crate) async fn describe_and_release(&self, frame: &FrameId, object: RemoteObjectId) -> Result<Node> {
        let described = self
            .send_for(
                frame,
                DescribeNodeParams {
                    object_id: Some(object.clone()),
                    ..Default::default()
                },
            )
            .await;
        let _ = self.send_for(frame, ReleaseObjectParams::new(object)).await;
        Ok(described?.node)
    }

    /// A remote object for the element the engine of `frame` resolves `target` to.
    pub(crate) async fn engine_object(&self, frame: &FrameId, target: &str) -> Result<Option<RemoteObjectId>> {
        let ctx = self.ensure_engine(frame).await?;
        let literal = serde_json::to_string(target).expect("string serialises");
        let mut p = EvaluateParams::new(format!("globalThis.__sightline.resolve({literal})"));
        p.context_id = Some(ctx);
        p.silent = Some(true);
        let resp = self.send_for(frame, p).await?;
        threw(&resp.exception_details, || format!("frame {}", frame.inner()))?;
        Ok(resp.result.object_id.clone())
    }

    /// Runs the actionability checks until they pass or the action timeout
    /// runs out (transient failures only).
    pub(crate) async fn actionable(&self, method: &'static str, target: &Target, needs: Needs) -> Result<Ready> {
        let timeout = self.action_timeout();
        let started = Instant::now();
        let deadline = started + timeout;
        let mut pause = Duration::from_millis(20);
        // Once a stale ref's replacement is found: what is acted on instead.
        let mut rebound: Option<Rebound> = None;
        loop {
            let current = rebound.as_ref().map_or(target, |r| &r.target);
            let attempt = async {
                let mut loc = self.locate(current).await?;
                if let Some(r) = &rebound {
                    // The replacement was found in the ref's document: it is
                    // acted on there only (a page that moved on makes it stale).
                    loc.document = r.document;
                }
                match self.probe(&loc, needs).await {
                    Err(Failure::Element(ActionErrorKind::StaleRef, element)) if rebound.is_none() => {
                        // (A frame gone meanwhile leaves it stale too.)
                        match self.rebound(current, &loc).await {
                            Some(found) => Ok(Err(found)),
                            None => Err(Failure::Element(ActionErrorKind::StaleRef, element)),
                        }
                    }
                    outcome => outcome.map(Ok),
                }
            };
            let (kind, element) = match self.unless_crashed(attempt).await? {
                Ok(Ok(mut ready)) => {
                    if let Some(r) = rebound {
                        ready.info.description = r.description;
                    }
                    if ready.loc.is_ref && !names_its_own_identity(&ready.info.selector) {
                        ready.context = self.context_at(&ready.loc).await;
                    }
                    return Ok(ready);
                }
                Ok(Err(found)) => {
                    tracing::debug!(method, target = %target.label(), "stale ref: acting on {}", found.target.label());
                    rebound = Some(found);
                    continue;
                }
                // A frame that left the page since its chain was read (one
                // another process ran is known from the last snapshot) makes
                // the ref stale, and a selector's frame unknown.
                Err(Failure::Fatal(e)) if e.is_frame_gone() => match current {
                    Target::Ref(_) => (ActionErrorKind::StaleRef, None),
                    Target::Selector { .. } => (ActionErrorKind::UnknownFrame, None),
                },
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Element(kind, element)) => (kind, element),
            };
            let now = Instant::now();
            let covered_for_good = matches!(kind, ActionErrorKind::Covered { .. } | ActionErrorKind::Clipped)
                && needs.cover_wait.is_some_and(|w| now >= started + w);
            if !kind.is_transient() || now >= deadline || covered_for_good {
                let waited_ms = kind
                    .is_transient()
                    .then(|| u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX));
                return Err(Error::Action {
                    method,
                    target: target.label(),
                    element,
                    kind,
                    waited_ms,
                });
            }
            tracing::debug!(method, target = %target.label(), "not actionable yet: {kind}");
            // The last attempt runs at the deadline.
            tokio::time::sleep(pause.min(deadline - now)).await;
            pause = (pause * 2).min(Duration::from_millis(200));
        }
    }

    /// What stale ref `target` (located at `loc`) is acted on instead: its
    /// element's replacement after a re-render (see `page/rebound.rs`).
    async fn rebound(&self, target: &Target, loc: &Located) -> Option<Rebound> {
        let Target::Ref(r) = target else { return None };
        let (prefix, _) = split_ref(r)?;
        let found = self
            .replacement(&loc.frame, &loc.engine_target, loc.document, r)
            .await
            .ok()??;
        Some(Rebound {
            target: Target::Selector {
                selector: found.selector,
                frame: prefix.map(str::to_string),
            },
            document: loc.document,
            description: found.description,
        })
    }

    /// One attempt of the checks.
    async fn probe(&self, loc: &Located, needs: Needs) -> std::result::Result<Ready, Failure> {
        let owners = self.frame_owners(loc).await?;
        let outcome = self.probe_with_owners(loc, needs, &owners).await;
        for (parent, object) in owners {
            let _ = self.send_for(&parent, ReleaseObjectParams::new(object)).await;
        }
        outcome
    }

    /// One look at the target (see [`PROBE_JS`]).
    async fn look(
        &self,
        loc: &Located,
        needs: Needs,
        wait: bool,
        state: bool,
    ) -> std::result::Result<(TargetInfo, Option<CheckState>), Failure> {
        let mut args = json!({
            "target": loc.engine_target,
            "doc": loc.document,
            "scroll": needs.scroll,
            "wait": wait,
            "state": state,
            "hiddenCheck": true,
            "isRef": loc.is_ref,
        });
        let mut probe = self.probe_once(loc, &args).await?;
        if probe.hidden {
            // A hidden tab renders no frames: scrolling, hit tests and
            // input would wait out the action timeout. Show it, look again
            // (once: a browser that cannot show it still gets its look).
            self.bring_to_front().await?;
            args["hiddenCheck"] = json!(false);
            probe = self.probe_once(loc, &args).await?;
        }
        if probe.new_document {
            return Err(element_failure(ActionErrorKind::StaleRef));
        }
        let mut info = probe.info.ok_or_else(|| {
            Failure::Fatal(Error::Engine {
                frame: format!("frame {}", loc.frame.inner()),
                message: "actionTarget gave no answer".into(),
            })
        })?;
        // A ref is named as its snapshot showed it (the engine's quick
        // description reads tags and text: `input`, or a select's options).
        if loc.is_ref {
            let state = self.state();
            let label = state
                .frame_refs
                .get(loc.frame.inner())
                .filter(|r| loc.document.is_none_or(|d| d == r.document))
                .and_then(|r| r.refs.get(&loc.engine_target));
            if let Some(facts) = label {
                info.description = facts.label.clone();
                // The snapshot's selector finds this element alone (the
                // engine's quick one, `button.add`, may find its siblings
                // too): what a replay record and a drag's drop keep.
                info.selector = facts.selector.clone();
            }
        }
        if let Some(n) = probe.matches.filter(|n| *n > 1) {
            // Said, not refused: scripts written for the first match still
            // run, and a reader learns the selector was loose.
            info.description = format!("{} (the first of {n} matches)", info.description);
        }
        Ok((info, probe.state))
    }

    /// One run of PROBE_JS in the target's frame.
    async fn probe_once(&self, loc: &Located, args: &Value) -> std::result::Result<Probe, Failure> {
        let expression = format!("({PROBE_JS})({args})");
        let value = self.engine_eval(&loc.frame, &expression, true).await?;
        Ok(serde_json::from_value(value).map_err(|e| Error::Engine {
            frame: format!("frame {}", loc.frame.inner()),
            message: format!("unreadable actionTarget answer: {e}"),
        })?)
    }

    /// The checks on one look, except stability.
    fn check_look(&self, loc: &Located, needs: Needs, b: &TargetInfo) -> std::result::Result<(), Failure> {
        let element = (!b.description.is_empty()).then(|| b.description.clone());
        if !b.found {
            if b.stale {
                return Err(element_failure(ActionErrorKind::StaleRef));
            }
            if let Some(err) = b.error.as_deref().filter(|e| !e.starts_with("no element matches")) {
                return Err(element_failure(ActionErrorKind::Unsupported(err.to_string())));
            }
            return Err(element_failure(if loc.is_ref {
                ActionErrorKind::UnknownRef
            } else {
                ActionErrorKind::NotFound
            }));
        }
        let fail = |k: ActionErrorKind| Err(Failure::Element(k, element.clone()));
        if !b.attached {
            return fail(ActionErrorKind::NotAttached);
        }
        if needs.visible && !b.visible {
            return fail(if b.image_loading {
                ActionErrorKind::ImageLoading
            } else {
                ActionErrorKind::NotVisible
            });
        }
        if (needs.enabled || needs.editable) && !b.enabled {
            return fail(ActionErrorKind::Disabled);
        }
        if needs.editable && !b.editable {
            return fail(ActionErrorKind::NotEditable);
        }
        if needs.hit {
            if b.point.is_none() {
                return fail(ActionErrorKind::OutsideViewport);
            }
            if b.clipped {
                return fail(ActionErrorKind::Clipped);
            }
            if !b.receives_events {
                return match &b.covered_by {
                    Some(by) => fail(ActionErrorKind::Covered {
                        selector: by.clone(),
                        description: b.covered_by_description.clone().unwrap_or_default(),
                    }),
                    None => fail(ActionErrorKind::OutsideViewport),
                };
            }
        }
        Ok(())
    }

    /// Up through the frames: the offset of the target frame's viewport in the
    /// top-level one; with `hit`, each parent must hit its iframe at the point.
    async fn to_top(
        &self,
        owners: &[(FrameId, RemoteObjectId)],
        info: &TargetInfo,
        hit: bool,
    ) -> std::result::Result<(f64, f64), Failure> {
        let element = (!info.description.is_empty()).then(|| info.description.clone());
        let (mut dx, mut dy) = (0.0, 0.0);
        let mut point = info.point;
        for (parent, owner) in owners.iter().rev() {
            let at = point.filter(|_| hit);
            let facts = self.call_owner(parent, owner, false, at).await?;
            if let Some(cov) = facts.covered {
                return Err(Failure::Element(
                    ActionErrorKind::Covered {
                        selector: facts.covered_selector.unwrap_or_else(|| cov.clone()),
                        description: cov,
                    },
                    element,
                ));
            }
            dx += facts.x;
            dy += facts.y;
            point = point.map(|(x, y)| (x + facts.x, y + facts.y));
        }
        Ok((dx, dy))
    }

    async fn probe_with_owners(
        &self,
        loc: &Located,
        needs: Needs,
        owners: &[(FrameId, RemoteObjectId)],
    ) -> std::result::Result<Ready, Failure> {
        // Bring the iframes into view, outermost first.
        if needs.scroll {
            for (parent, owner) in owners {
                self.call_owner(parent, owner, true, None).await?;
            }
        }
        let (a, first_state) = self.look(loc, needs, false, needs.state && !needs.stable).await?;
        self.check_look(loc, needs, &a)?;
        let (b, state, offset) = if needs.stable && a.visible {
            let (dx, dy) = self.to_top(owners, &a, needs.hit).await?;
            let first_point = a.point.map(|(x, y)| (x + dx, y + dy));
            // While the second look waits for a frame, the mouse moves to
            // the element (a move is answered on the next frame too).
            let second = self.look(loc, needs, true, needs.state);
            let (second, moved) = match first_point.filter(|_| needs.pre_move) {
                Some((x, y)) if !self.mouse_is_at((x, y)) => {
                    let (s, m) =
                        futures::join!(second, self.preparing_input(!needs.moving_acts, self.mouse_move(x, y)));
                    (s, Some(m))
                }
                _ => (second.await, None),
            };
            let moved = match moved {
                Some(Err(e)) => return Err(Failure::Fatal(e)),
                Some(Ok(())) => true,
                None => false,
            };
            let (b, state) = second?;
            self.check_look(loc, needs, &b)?;
            let unstable = |b: &TargetInfo| {
                let element = (!b.description.is_empty()).then(|| b.description.clone());
                Err(Failure::Element(ActionErrorKind::NotStable, element))
            };
            if !same_box(&a.rect, &b.rect) {
                return unstable(&b);
            }
            // The move itself may have moved the element: leaving a hover
            // menu above it closes the menu and shifts the page, and the
            // press would land where the element was. One more look, with
            // the mouse there (no frame to wait for: the hit test lays out).
            if moved {
                let (c, _) = self.look(loc, needs, false, false).await?;
                self.check_look(loc, needs, &c)?;
                if !same_box(&b.rect, &c.rect) {
                    return unstable(&c);
                }
            }
            let offset = if b.point == a.point {
                (dx, dy)
            } else {
                self.to_top(owners, &b, needs.hit).await?
            };
            (b, state, offset)
        } else {
            let offset = self.to_top(owners, &a, needs.hit).await?;
            (a, first_state, offset)
        };
        Ok(Ready {
            loc: loc.clone(),
            point: b.point.map(|(x, y)| (x + offset.0, y + offset.1)),
            rect: b.rect.translate(offset.0, offset.1),
            state,
            info: b,
            context: None,
        })
    }

    /// The `<iframe>` elements of the target's frame chain, outermost first,
    /// each as an object in its parent's engine world, with that parent
    /// (whose process holds the object).
    async fn frame_owners(&self, loc: &Located) -> Result<Vec<(FrameId, RemoteObjectId)>> {
        let mut out = Vec::new();
        let mut parent = self.main_frame_id().await?;
        for child in &loc.chain {
            let ctx = self.ensure_engine(&parent).await?;
            let Some(object) = self.owner_object(&parent, ctx, child).await? else {
                return Err(Error::Engine {
                    frame: format!("frame {}", parent.inner()),
                    message: "the iframe element has no object".into(),
                });
            };
            out.push((parent.clone(), object));
            parent = child.clone();
        }
        Ok(out)
    }

    async fn call_owner(
        &self,
        parent: &FrameId,
        owner: &RemoteObjectId,
        scroll: bool,
        at: Option<(f64, f64)>,
    ) -> Result<OwnerFacts> {
        let mut call = CallFunctionOnParams::new(FRAME_OWNER_JS);
        call.object_id = Some(owner.clone());
        call.return_by_value = Some(true);
        call.silent = Some(true);
        let arg = |v: Value| CallArgument {
            value: Some(v),
            ..Default::default()
        };
        call.arguments = Some(vec![
            arg(json!(scroll)),
            arg(at.map(|p| json!(p.0)).unwrap_or(Value::Null)),
            arg(at.map(|p| json!(p.1)).unwrap_or(Value::Null)),
        ]);
        let resp = self.send_for(parent, call).await?;
        threw(&resp.exception_details, || "a parent frame".into())?;
        let v = resp.result.value.clone().unwrap_or(Value::Null);
        serde_json::from_value(v).map_err(|e| Error::Engine {
            frame: "a parent frame".into(),
            message: format!("unreadable iframe facts: {e}"),
        })
    }

    /// Runs a DOM-level engine operation (`__sightline.domAction`) in the target's frame.
    pub(crate) async fn dom_action(&self, loc: &Located, action: Value) -> Result<Option<String>> {
        let literal = serde_json::to_string(&action.to_string()).expect("string serialises");
        let v = self
            .engine_act(
                &loc.frame,
                &format!("globalThis.__sightline.domAction({literal})"),
                false,
            )
            .await?;
        let r: sightline_engine::protocol::DomActionResult =
            serde_json::from_str(v.as_str().unwrap_or("{}")).map_err(|e| Error::Engine {
                frame: format!("frame {}", loc.frame.inner()),
                message: format!("unreadable domAction answer: {e}"),
            })?;
        if r.ok {
            Ok(r.value)
        } else {
            Err(Error::Engine {
                frame: format!("frame {}", loc.frame.inner()),
                message: r.error.unwrap_or_else(|| "domAction failed".into()),
            })
        }
    }

    /// Runs `function_js` (an expression evaluating to `(el, arg) => …`) on
    /// the target's element in its frame's engine world; returns its value.
    pub(crate) async fn on_element(&self, loc: &Located, function_js: &str, arg: Value) -> Result<Value> {
        let target = serde_json::to_string(&loc.engine_target).expect("string serialises");
        let expression = format!(
            "(() => {{ const el = globalThis.__sightline.resolve({target}); \
             if (!el) throw new Error('the element is gone'); return ({function_js})(el, {arg}); }})()"
        );
        // (Functions on an element may change the page: focus it, scroll it.)
        self.engine_act(&loc.frame, &expression, true).await
    }
}

fn is_frame_prefix(s: &str) -> bool {
    s.strip_prefix('f')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn same_box(a: &sightline_engine::protocol::Rect, b: &sightline_engine::protocol::Rect) -> bool {
    (a.x - b.x).abs() < 0.5
        && (a.y - b.y).abs() < 0.5
        && (a.width - b.width).abs() < 0.5
        && (a.height - b.height).abs() < 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_and_selectors() {
        assert_eq!(Target::parse("e12"), Target::Ref("e12".into()));
        assert_eq!(Target::parse(" f2e7 "), Target::Ref("f2e7".into()));
        assert_eq!(split_ref("f2e7"), Some((Some("f2"), "e7")));
        assert_eq!(split_ref("e7"), Some((None, "e7")));
        for sel in ["#email", "button", "e", "f1", "fe1", "e1x", "xpath=//a", "em"] {
            assert!(matches!(Target::parse(sel), Target::Selector { .. }), "{sel}");
        }
        assert_eq!(Target::in_frame("#go", "f1").label(), "#go (in frame f1)");
        assert_eq!(engine_selector(" //button[1]"), "xpath=//button[1]");
        assert_eq!(engine_selector("(//a)[2]"), "xpath=(//a)[2]");
        for css in ["#email", "xpath=//a", "css=a", "a > b"] {
            assert_eq!(engine_selector(css), css);
        }
        assert!(is_frame_prefix("f12"));
        assert!(!is_frame_prefix("iframe#x"));
    }
}
