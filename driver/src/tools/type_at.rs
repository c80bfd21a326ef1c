//! `typeAt`: clicks a field at a point of the viewport and types into it
//! (optionally replacing what is there, optionally pressing Enter).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::point::{self, Aim, VISION};
use super::tool::{boxed, object, parse, with, Tool, ToolFuture};
use crate::error::Error;
use crate::page::PointClick;

pub const TOOL: Tool = Tool::new(
    "typeAt",
    "Click the field at a point of the viewport (the screenshot's pixels) and type text into it. \
clear replaces what the field holds; submit presses Enter afterwards. %name% variables are filled in here, never shown.",
    parameters,
    handle,
)
.changing_page()
.with_capability(VISION)
.with_mcp_name("browser_type_xy");

fn parameters() -> Value {
    object(
        with(
            with(point::point_properties("x", "y"), point::recorded_properties()),
            json!({
                "text": {"type": "string", "description": "The text, or a %name% variable."},
                "clear": {"type": "boolean", "description": "Select and delete the current text first (default false)."},
                "submit": {"type": "boolean", "description": "Press Enter afterwards (default false)."}
            }),
        ),
        &["x", "y", "text"],
    )
}

#[derive(Deserialize)]
struct Args {
    x: f64,
    y: f64,
    text: String,
    #[serde(default)]
    clear: bool,
    #[serde(default)]
    submit: bool,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    frame: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("typeAt", args.clone())?;
        let asked = (a.x, a.y);
        let within = point::within(&args, "within");
        let (aim, at) = point::aim(ctx, asked, a.target.as_deref(), a.frame.as_deref(), within).await?;
        let page = ctx.page();
        let mark = page.navigation_mark();
        match &aim {
            Aim::Point(_) => {
                page.click_point(at.0, at.1, &PointClick::default()).await?;
            }
            Aim::Element(target) => {
                page.click(target.clone()).await?;
            }
        }
        // Keys with no field focused go to the page: the text would be lost
        // while the result said it was typed (a model that aimed a few
        // pixels off, at a cover or a label).
        if page.navigation_mark() != mark {
            return Err(Error::InvalidAction(format!(
                "the click {} changed the page (now {}): typed nothing. Take a new screenshot",
                point::describe(asked, at, &aim),
                crate::text::shown_url(&page.url().await.unwrap_or_default())
            )));
        }
        if let Some(on) = page.focus_takes_no_text().await? {
            return Err(Error::InvalidAction(format!(
                "nothing that takes text has focus after the click {} (the focus is on {}): typed nothing. \
Aim at the field itself (take a new screenshot), or type into it by its ref",
                point::describe(asked, at, &aim),
                super::untrusted::defang(&crate::text::one_line(&on))
            )));
        }
        // (After the click: the text goes to the document it focused.)
        let text = ctx.substitute(&a.text, None).await?;
        if a.clear {
            // Select-all then delete, as a person would (works in inputs,
            // textareas and contenteditables; Control, as on Linux).
            page.press(None, &["Control+A".to_string(), "Delete".to_string()])
                .await?;
        }
        let mut r = page.type_keys(&text).await?;
        if a.submit {
            r = page.press(None, &["Enter".to_string()]).await?;
        }
        let said = format!(
            "Typed {} characters{}{} {}",
            a.text.chars().count(),
            if a.clear { " (replacing the text)" } else { "" },
            if a.submit { " and Enter" } else { "" },
            point::describe(asked, at, &aim)
        );
        Ok(point::outcome("typeAt", said, &args, &aim, at, r))
    })
}
