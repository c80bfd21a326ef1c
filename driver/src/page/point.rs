//! The element under a point, named so that a later run finds it again:
//! for a model that clicked at (x, y), the recorded step carries a
//! selector, not pixels alone.
//!
//! Chromium's own hit test (`DOM.getNodeForLocation`) finds the node,
//! through iframes and shadow roots. The snapshot's refs of that node's
//! frame then name it: the nearest ancestor with a ref gives the engine's
//! robust selector (`selector.rs`), as act records it. Without one (plain
//! text, a canvas), a CSS path from the nearest id is the fallback.

use chromiumoxide::cdp::browser_protocol::dom::{GetNodeForLocationParams, ResolveNodeParams};
use chromiumoxide::cdp::js_protocol::runtime::CallArgument;
use serde::Deserialize;
use serde_json::{json, Value};
use sightline_engine::protocol::{Rect, SnapshotMode};

use super::handle::Page;
use super::snapshot::SnapshotOptions;
use super::target::{Failure, Target};
use crate::error::{Error, Result};

/// The element under a point.
#[derive(Debug, Clone, PartialEq)]
pub struct PointTarget {
    /// A selector that finds it again (in `frame` when set).
    pub selector: String,
    /// The ref prefix of its frame (`f1`) when it lives in a child frame.
    pub frame: Option<String>,
    /// `button "Subscribe"` (role and name from the snapshot), or its tag and text.
    pub description: String,
    /// Its ref in the snapshot taken for the lookup (`e12`, `f1e3`).
    pub ref_: Option<String>,
    /// Its box in its frame's viewport coordinates.
    pub rect: Rect,
}

/// On the hit node (`this`), in its frame's engine world: the nearest
/// element with one of `refs`, else a CSS path; its box and a label.
const NAME_NODE_JS: &str = r#"function (refs) {
  const S = globalThis.__sightline;
  let hit = this.nodeType === 1 ? this : this.parentElement;
  if (!hit) return null;
  const byEl = new Map();
  for (const r of refs) { const el = S.resolve(r); if (el) byEl.set(el, r); }
  const up = (e) => e.assignedSlot || e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  for (let e = hit; e; e = up(e)) {
    const r = byEl.get(e);
    if (r) { const b = e.getBoundingClientRect(); return { ref: r, rect: [b.x, b.y, b.width, b.height] }; }
  }
  const esc = (s) => CSS.escape(s);
  const path = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const root = e.getRootNode();
      if (e.id && root.querySelectorAll('#' + esc(e.id)).length === 1) { parts.unshift(e.localName + '#' + esc(e.id)); break; }
      const p = e.parentElement;
      if (!p) { parts.unshift(e.localName); break; }
      const same = [...p.children].filter((c) => c.localName === e.localName);
      parts.unshift(same.length > 1 ? e.localName + ':nth-of-type(' + (same.indexOf(e) + 1) + ')' : e.localName);
    }
    const css = parts.join(' > ');
    const root = el.getRootNode();
    return root instanceof ShadowRoot ? path(root.host) + ' >>> ' + css : css;
  };
  const b = hit.getBoundingClientRect();
  // (The document itself: its text is the whole page's, no name for a spot.
  // A body with text of its own may have been hit on that text: named as before.)
  const ownText = [...hit.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (this.nodeType === 1 && (hit === document.documentElement || hit === document.body) && !ownText) {
    return { css: path(hit), label: 'the page background', rect: [b.x, b.y, b.width, b.height] };
  }
  const text = (hit.innerText || hit.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40);
  return { css: path(hit), label: text ? hit.localName + ' "' + text + '"' : hit.localName, rect: [b.x, b.y, b.width, b.height] };
}"#;

#[derive(Debug, Deserialize)]
struct Named {
    #[serde(default, rename = "ref")]
    ref_: Option<String>,
    #[serde(default)]
    css: Option<String>,
    #[serde(default)]
    label: Option<String>,
    rect: [f64; 4],
}

impl Page {
    /// The element at (x, y) in top-level viewport CSS pixels, named for a
    /// replay (see the module docs); None where nothing is. A point outside
    /// the viewport is an error: no one sees it, and a model that sent one
    /// mixed up its coordinates (the page's for the viewport's, an image's
    /// for CSS pixels). Takes a viewport snapshot for the refs.
    pub async fn element_at(&self, x: f64, y: f64) -> Result<Option<PointTarget>> {
        let snap = self
            .snapshot(&SnapshotOptions {
                mode: SnapshotMode::Viewport,
                ..Default::default()
            })
            .await?;
        // (The snapshot's, taken once the page is ready: a scroll still
        // running before it would leave an old offset.)
        let viewport = &snap.viewport;
        if x < 0.0 || y < 0.0 || x >= viewport.viewport_width || y >= viewport.viewport_height {
            return Err(Error::OutsideViewport {
                x,
                y,
                width: viewport.viewport_width,
                height: viewport.viewport_height,
            });
        }
        // Chromium's hit test takes the point in the document's coordinates.
        let mut p = GetNodeForLocationParams::new(
            (x + viewport.scroll_x).round() as i64,
            (y + viewport.scroll_y).round() as i64,
        );
        p.include_user_agent_shadow_dom = Some(false);
        p.ignore_pointer_events_none = Some(true);
        let Ok(hit) = self.send(p).await else {
            // Nothing there (outside the document), or the page is changing.
            return Ok(None);
        };
        let frame = hit.result.frame_id.clone();
        let main = self.main_frame_id().await?;
        let prefix = (frame != main).then(|| self.frame_prefix(&frame));
        // The refs of that frame, without their frame prefix.
        let refs: Vec<String> = snap
            .refs
            .iter()
            .filter(|(_, info)| info.frame == prefix)
            .map(|(r, _)| match &prefix {
                Some(p) => r.strip_prefix(p.as_str()).unwrap_or(r).to_string(),
                None => r.clone(),
            })
            .collect();
        let ctx = self.ensure_engine(&frame).await?;
        let resolve = ResolveNodeParams {
            backend_node_id: Some(hit.result.backend_node_id),
            execution_context_id: Some(ctx),
            ..Default::default()
        };
        let Ok(node) = self.send(resolve).await else {
            return Ok(None);
        };
        let Some(object) = node.result.object.object_id.clone() else {
            return Ok(None);
        };
        let refs = CallArgument {
            value: Some(json!(refs)),
            ..Default::default()
        };
        let named = self
            .call_and_release(object, NAME_NODE_JS, vec![refs], || "the element under a point".into())
            .await?;
        let Some(value) = named else {
            return Ok(None);
        };
        let Ok(named) = serde_json::from_value::<Named>(value) else {
            return Ok(None);
        };
        let rect = Rect::new(named.rect[0], named.rect[1], named.rect[2], named.rect[3]);
        let full_ref = named
            .ref_
            .as_ref()
            .map(|r| format!("{}{r}", prefix.clone().unwrap_or_default()));
        let from_snapshot = full_ref.as_deref().and_then(|r| snap.refs.get(r));
        Ok(Some(match from_snapshot {
            Some(info) => PointTarget {
                selector: info.selector.clone(),
                frame: prefix,
                description: if info.name.is_empty() {
                    info.role.clone()
                } else {
                    format!("{} \"{}\"", info.role, info.name)
                },
                ref_: full_ref,
                rect,
            },
            None => PointTarget {
                selector: named.css.unwrap_or_default(),
                frame: prefix,
                description: named.label.unwrap_or_default(),
                ref_: None,
                rect,
            },
        }))
    }

    /// The box of a main-frame element (viewport CSS pixels), if it is on
    /// the page; None for an element in a child frame (its box is in that
    /// frame's coordinates) or one not found.
    pub async fn box_of(&self, target: &Target) -> Result<Option<Rect>> {
        let located = match self.locate(target).await {
            Ok(l) if l.chain.is_empty() => l,
            Ok(_) | Err(Failure::Element(..)) => return Ok(None),
            Err(Failure::Fatal(e)) => return Err(e),
        };
        let js = "(el) => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }";
        let Ok(found) = self.on_element(&located, js, Value::Null).await else {
            return Ok(None);
        };
        let n: Vec<f64> = found
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect();
        Ok((n.len() == 4 && n[2] > 0.0 && n[3] > 0.0).then(|| Rect::new(n[0], n[1], n[2], n[3])))
    }
}
