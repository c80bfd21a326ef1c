//! `keyDown` and `keyUp`: a key pressed in one call and released in a
//! later one (a computer-use model's `key_down` … `key_up`). Between them
//! the page holds it: clicks and keys carry it as a modifier (Shift held,
//! a click extends a selection).
//!
//! Offered to MCP clients (`--caps vision`) and the session commands; an
//! agent has `press` and the modifiers of `clickAt`, and a computer-use
//! model its own computer tool, which calls these.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::point::VISION;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use crate::page::key_by_name;

pub const DOWN: Tool = Tool::new(
    "keyDown",
    "Press a key and keep it down (Shift, Control, Alt, Meta, or any key name) until keyUp: clicks, scrolls and \
pressed keys in between carry it (typed text does not).",
    parameters,
    press,
)
.changing_page()
.with_capability(VISION)
.offered_to(Offered::MCP_ONLY);

pub const UP: Tool = Tool::new("keyUp", "Release a key keyDown pressed.", parameters, release)
    .changing_page()
    .with_capability(VISION)
    .offered_to(Offered::MCP_ONLY);

fn parameters() -> Value {
    object(
        json!({"key": {"type": "string", "description": "A key name: Shift, Control, Alt, Meta, ArrowDown, a."}}),
        &["key"],
    )
}

#[derive(Deserialize)]
struct Args {
    key: String,
}

/// The key's name as the page holds it (`shift` reads as Shift).
fn key(tool: &str, args: Value) -> crate::error::Result<String> {
    let a: Args = parse(tool, args)?;
    key_by_name(&a.key)
        .map(|k| k.key)
        .ok_or_else(|| crate::error::Error::InvalidAction(format!("{tool}: unknown key {:?}", a.key)))
}

fn press<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let key = key("keyDown", args)?;
        ctx.page().key_hold(&key, true).await?;
        Ok(ToolOutput::ok(format!("Holding {key} down until keyUp")))
    })
}

fn release<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let key = key("keyUp", args)?;
        ctx.page().key_hold(&key, false).await?;
        Ok(ToolOutput::ok(format!("Released {key}")))
    })
}
