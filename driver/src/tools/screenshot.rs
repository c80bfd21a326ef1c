//! `screenshot`: a PNG of the viewport, the whole page or one element; with
//! `annotate`, the viewport with every ref boxed and labelled (`eN`), so a
//! model that reads images can name what it sees by ref. Attached, and saved
//! by name inside the output directory when asked.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};
use crate::error::Error;
use crate::files::write_output;
use crate::page::{Page, Shot, Target};

pub const TOOL: Tool = Tool::new(
    "screenshot",
    "A screenshot of the viewport (or of the whole page, or of one element). annotate draws each element's \
ref (e12) on its box, so you can name what you see.",
    parameters,
    handle,
)
.returning_image()
.with_mcp_name("browser_take_screenshot");

fn parameters() -> Value {
    object(
        json!({
            "target": {"type": "string", "description": "Only this element: a ref from the snapshot or a selector."},
            "element": {"type": "string", "description": "That element in words."},
            "fullPage": {"type": "boolean", "description": "The whole page, beyond the viewport (default false)."},
            "annotate": {"type": "boolean", "description": "The viewport with every ref's box drawn and labelled (default false; not with target or fullPage)."},
            "filename": {"type": "string", "description": "Also save it as this PNG file, relative to the output directory (nothing is written outside it)."}
        }),
        &[],
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    full_page: bool,
    #[serde(default)]
    annotate: bool,
    filename: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("screenshot", args)?;
        let page = ctx.page();
        let target = a.target.as_deref().filter(|t| !t.trim().is_empty());
        let (png, text) = if a.annotate {
            if target.is_some() || a.full_page {
                return Ok(ToolOutput::failed(
                    "annotate shows the viewport: leave out target and fullPage.",
                ));
            }
            let shot = page.annotated_screenshot().await?;
            let mut text = format!(
                "Screenshot of the viewport with {} refs labelled on their boxes ({}).",
                shot.boxes.len(),
                shot.boxes
                    .iter()
                    .map(|b| b.ref_.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if !shot.crowded.is_empty() {
                text.push_str(&format!(
                    " Too crowded to label apart: the tags of {} sit over other tags (their refs are in the tree).",
                    shot.crowded.join(", ")
                ));
            }
            (cover(&page, ctx, shot.png, Shot::Viewport).await, text)
        } else {
            let (png, what) = match target {
                Some(t) => {
                    let (png, shot) = page.screenshot_element_shot(Target::parse(t)).await?;
                    (cover(&page, ctx, png, shot).await, format!("the element {t}"))
                }
                None if a.full_page => {
                    // (Images for a model's API have its limits; files the caller reads, Chromium's.)
                    let shot = if ctx.settings.images_to_files {
                        page.screenshot_full_page_at_most(None).await?
                    } else {
                        page.screenshot_full_page_for_a_model().await?
                    };
                    let covered = cover(&page, ctx, shot.0, Shot::FullPage).await;
                    match (covered, shot.1) {
                        (png, None) => (png, "the whole page".to_string()),
                        (png, Some((shown, height))) => (
                            png,
                            format!(
                                "the page's first {shown:.0} px of {height:.0} (the most one image holds; scroll and \
take the viewport for the rest)"
                            ),
                        ),
                    }
                }
                None => {
                    let png = page.screenshot().await?;
                    (cover(&page, ctx, png, Shot::Viewport).await, "the viewport".to_string())
                }
            };
            (png, format!("Screenshot of {what}."))
        };
        let saved = match (a.filename.as_deref(), &ctx.settings.output_dir) {
            (None, _) => String::new(),
            (Some(name), Some(dir)) => format!(" Saved to {}.", write_output(dir, name, &png)?.display()),
            (Some(_), None) => {
                return Err(Error::InvalidAction(
                    "screenshot: this caller has no output directory to save files in".into(),
                ))
            }
        };
        let mut out = ToolOutput::ok(format!("{text}{saved}"));
        out.image_png = Some(png);
        Ok(out)
    })
}

/// `png` with the run's `%name%` values painted over, as its texts have
/// them replaced: a model reads this image.
async fn cover(page: &Page, ctx: &ToolContext<'_>, png: Vec<u8>, shot: Shot) -> Vec<u8> {
    page.cover_secrets(png, &ctx.settings.variables.values(), shot).await
}
