//! Which document typed text reaches: the target's frame, or with no
//! target the frame holding focus. A secret bound to a site is typed only
//! into that site's documents, and another site's frame on it (an ad, an
//! embedded form) is another document.

use chromiumoxide::cdp::browser_protocol::page::{FrameId, FrameTree, GetFrameTreeParams};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;

use super::handle::Page;
use super::target::Target;

/// The focused element when it holds a document of its own (an `<iframe>`,
/// an `<object>`, an `<embed>`; through shadow roots), else null.
const FOCUSED_FRAME_OWNER_JS: &str = r#"(() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a && ["IFRAME", "FRAME", "OBJECT", "EMBED", "FENCEDFRAME"].includes(a.tagName) ? a : null;
})()"#;

/// Frames below the main one that focus is followed into.
const MAX_FRAME_DEPTH: usize = 8;

impl Page {
    /// The address of the document text typed at `target` reaches (with
    /// none: the document holding focus). The tab's URL for the main
    /// frame; a child frame's own origin (an `about:blank` frame's is its
    /// parent's). A target that cannot be located yet is the main frame's
    /// when it names no frame (its action fails there, or finds it again
    /// there); one in a frame that cannot be told is no site at all, so
    /// that nothing bound is released to a frame that appears later.
    pub async fn receiving_url(&self, target: Option<&Target>) -> String {
        let Ok(main) = self.main_frame_id().await else {
            return self.listed().await.0;
        };
        let frame = match target {
            Some(t) => match self.locate(t).await {
                Ok(loc) => loc.frame,
                Err(_) if names_a_frame(t) => return "about:blank".into(),
                Err(_) => main.clone(),
            },
            // (Focus in a document that cannot be told, an `<embed>`'s, is
            // no site: nothing bound is typed.)
            None => match self.focused_frame(&main).await {
                Some(frame) => frame,
                None => return "about:blank".into(),
            },
        };
        if frame == main {
            return self.listed().await.0;
        }
        // (A frame gone meanwhile is no site: nothing bound is typed.)
        let tree = match self.host_of(&frame) {
            // Another process's frame: its own tree says where it is.
            Some(_) => self
                .send_for(&frame, GetFrameTreeParams::default())
                .await
                .map(|t| t.frame_tree),
            None => self.frame_tree().await,
        };
        match tree {
            Ok(tree) => origin_of(&tree, &frame).unwrap_or_else(|| "about:blank".into()),
            Err(_) => "about:blank".into(),
        }
    }

    /// The innermost frame holding focus, following focused `<iframe>`s
    /// down from `main`; `None` when focus is in a document no frame of the
    /// tree stands for (an `<object>` or `<embed>` with no frame).
    async fn focused_frame(&self, main: &FrameId) -> Option<FrameId> {
        let mut frame = main.clone();
        for _ in 0..MAX_FRAME_DEPTH {
            let Ok(ctx) = self.world_context(&frame).await else {
                break;
            };
            let mut p = EvaluateParams::new(FOCUSED_FRAME_OWNER_JS);
            p.context_id = Some(ctx);
            p.silent = Some(true);
            let Some(owner) = self.send_for(&frame, p).await.ok().and_then(|r| r.result.object_id) else {
                break;
            };
            let node = self.describe_and_release(&frame, owner).await.ok()?;
            let child = node.frame_id?;
            // (An iframe whose document is in this process shows it.)
            self.learn_if_hosted(&child, &frame, node.content_document.is_some())
                .await;
            frame = child;
        }
        Some(frame)
    }
}

/// Whether `target` is in a child frame (`f1e3`, or a selector with a frame).
fn names_a_frame(target: &Target) -> bool {
    match target {
        Target::Ref(r) => super::target::split_ref(r).is_none_or(|(prefix, _)| prefix.is_some()),
        Target::Selector { frame, .. } => frame.is_some(),
    }
}

/// `frame`'s origin in `tree` (its URL when it has none).
fn origin_of(tree: &FrameTree, frame: &FrameId) -> Option<String> {
    if &tree.frame.id == frame {
        let f = &tree.frame;
        let origin = f.security_origin.trim();
        return Some(if origin.is_empty() || origin == "null" || origin == "://" {
            f.url.clone()
        } else {
            origin.to_string()
        });
    }
    tree.child_frames.iter().flatten().find_map(|c| origin_of(c, frame))
}
