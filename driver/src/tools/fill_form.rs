//! `fillForm`: several fields at once. A field with a `target` (a ref or
//! selector) is filled directly, by its type; a field described in words
//! (`action`) is found by the model: one observe call finds every such
//! field in order, and fields it missed go through act one by one.

use serde::Deserialize;
use serde_json::{json, Value};
use sightline_engine::protocol::SnapshotMode;

use super::act::act_options;
use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, object, parse, RecordedCall, Tool, ToolFuture, ToolOutput};
use crate::ai::{ActRecord, Ai, ObserveOptions};
use crate::error::{Error, Result};
use crate::page::{Action, Target};

pub const TOOL: Tool = Tool::new(
    "fillForm",
    "Fill several form fields at once. Each field: its value (may be a %name% variable) and either the \
field's ref or selector (target, with its type) or the action in words (\"type into the Email field\").",
    parameters,
    handle,
)
.changing_page();

fn parameters() -> Value {
    let field = object(
        json!({
            "action": {"type": "string", "description": "The field in words, e.g. \"type into the Email field\" (needs a model)."},
            "target": {"type": "string", "description": "The field: a ref from the snapshot or a selector."},
            "name": {"type": "string", "description": "The field's name, for the record."},
            "type": {"type": "string", "enum": ["textbox", "checkbox", "radio", "combobox", "slider"], "description": "With target: how to fill it (default textbox)."},
            "value": {"type": "string", "description": "The value; for checkboxes \"true\" or \"false\"."}
        }),
        &["value"],
    );
    object(
        json!({"fields": {"type": "array", "minItems": 1, "items": field}}),
        &["fields"],
    )
}

#[derive(Debug, Clone, Deserialize)]
struct Field {
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    value: String,
}

#[derive(Deserialize)]
struct Args {
    fields: Vec<Field>,
}

/// What filling the fields so far gave.
#[derive(Default)]
struct Progress {
    lines: Vec<String>,
    filled: usize,
    all_ok: bool,
    out: ToolOutput,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("fillForm", args)?;
        for (i, f) in a.fields.iter().enumerate() {
            let has = |o: &Option<String>| o.as_deref().is_some_and(|s| !s.trim().is_empty());
            if !has(&f.target) && !has(&f.action) {
                return Err(Error::InvalidAction(format!(
                    "fillForm: field {} needs a target (ref or selector) or an action in words",
                    i + 1
                )));
            }
        }
        let mut p = Progress {
            all_ok: true,
            ..Default::default()
        };
        let described: Vec<(usize, &Field)> = a
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.target.as_deref().is_none_or(|t| t.trim().is_empty()))
            .collect();
        let mut observed: Vec<Option<Action>> = vec![None; a.fields.len()];
        if !described.is_empty() {
            let llm = ctx.llm("fillForm (fields described in words)")?;
            let found = observe_fields(ctx, llm, &described, &mut p).await?;
            for ((i, _), action) in described.iter().zip(found) {
                observed[*i] = action;
            }
        }
        for (i, field) in a.fields.iter().enumerate() {
            match &field.target {
                Some(t) if !t.trim().is_empty() => fill_direct(ctx, i, field, t, &mut p).await?,
                _ => fill_described(ctx, i, field, observed[i].take(), &mut p).await?,
            }
        }
        let mut out = p.out;
        out.text = format!(
            "Filled {} of {} field(s):\n{}",
            p.filled,
            a.fields.len(),
            p.lines.join("\n")
        );
        out.ok = p.all_ok;
        Ok(out)
    })
}

/// One observe call for every field described in words, in order.
async fn observe_fields(
    ctx: &ToolContext<'_>,
    llm: &crate::llm::Llm,
    fields: &[(usize, &Field)],
    p: &mut Progress,
) -> Result<Vec<Option<Action>>> {
    let mut instruction = String::from(
        "Find the form fields for these entries, one element per entry, in this order, each with the method \
that enters the value (fill for text fields, selectOptionFromDropdown for selects, check for checkboxes) and \
the value as its argument:\n",
    );
    for (n, (_, f)) in fields.iter().enumerate() {
        instruction.push_str(&format!(
            "{}. {} → {}\n",
            n + 1,
            f.action.as_deref().unwrap_or(""),
            f.value
        ));
    }
    let observed = Ai::new(llm)
        .observe(
            &ctx.page(),
            &instruction,
            &ObserveOptions {
                mode: SnapshotMode::Full,
                secrets: ctx.settings.variables.secrets(),
                ..ObserveOptions::default()
            },
        )
        .await?;
    p.out.usage += observed.usage;
    Ok((0..fields.len())
        .map(|n| observed.actions.get(n).filter(|a| a.selector.is_some()).cloned())
        .collect())
}

/// A field with a ref or selector: filled by its type, no model.
async fn fill_direct(ctx: &ToolContext<'_>, i: usize, field: &Field, target: &str, p: &mut Progress) -> Result<()> {
    let el = ElementArgs {
        element: field.name.clone(),
        target: target.to_string(),
        frame: None,
    };
    let label = field.name.clone().unwrap_or_else(|| target.to_string());
    let value = match ctx.substitute(&field.value, Some(&Target::parse(target))).await {
        Ok(v) => v,
        Err(e) => {
            p.all_ok = false;
            p.lines.push(format!("{}: {label} failed: {e}", i + 1));
            return Ok(());
        }
    };
    let (tool, method, arguments, record_args) = match field.kind.as_deref().unwrap_or("textbox") {
        "checkbox" | "radio" => {
            let on = !matches!(value.trim().to_ascii_lowercase().as_str(), "false" | "0" | "no" | "off");
            let method = if on { "check" } else { "uncheck" };
            ("check", method, Vec::new(), json!({"target": target, "checked": on}))
        }
        "combobox" => (
            "select",
            "selectOptionFromDropdown",
            vec![value],
            json!({"target": target, "values": [field.value]}),
        ),
        _ => (
            "fill",
            "fill",
            vec![value],
            json!({"target": target, "value": field.value}),
        ),
    };
    match element::perform(ctx, &el.action(method, arguments)).await {
        Ok(r) => {
            p.filled += 1;
            p.lines.push(format!("{}: {}", i + 1, element::report(method, &r)));
            p.out.rect = r.rect.or(p.out.rect);
            let done = element::outcome(tool, method, &record_args, r);
            p.out.replay.extend(done.replay);
        }
        Err(e) if matches!(e, Error::Action { .. } | Error::InvalidAction(_)) => {
            p.all_ok = false;
            p.lines.push(format!("{}: {label} failed: {e}", i + 1));
        }
        Err(e) => return Err(e),
    }
    Ok(())
}

/// A field described in words: the observed element when observe found it,
/// else act.
async fn fill_described(
    ctx: &ToolContext<'_>,
    i: usize,
    field: &Field,
    found: Option<Action>,
    p: &mut Progress,
) -> Result<()> {
    let what = field.action.clone().unwrap_or_default();
    let page = ctx.page();
    if let Some(mut action) = found {
        // The field's own value, not the model's copy of it.
        if !action.arguments.is_empty() || matches!(action.method.as_str(), "fill" | "type") {
            action.arguments = vec![field.value.clone()];
        }
        let record = ActRecord {
            description: action.description.clone().unwrap_or_else(|| what.clone()),
            method: action.method.clone(),
            arguments: action.arguments.clone(),
            selector: action.selector.clone().unwrap_or_default(),
            frame: action.frame.clone(),
            element: None,
            context: None,
            rect: None,
        };
        let mut real = action.clone();
        let target = real.target();
        for argument in real.arguments.iter_mut() {
            *argument = ctx.substitute(argument, target.as_ref()).await?;
        }
        return match page.perform(&real, ctx.settings.base_dir.as_deref()).await {
            Ok(done) => {
                p.out.rect = done.rect.or(p.out.rect);
                p.filled += 1;
                p.lines
                    .push(format!("{}: {} {}", i + 1, record.method, record.description));
                p.out.replay.push(RecordedCall {
                    tool: "act".into(),
                    args: json!({"action": what}),
                    actions: vec![record],
                    context: None,
                });
                Ok(())
            }
            Err(e) if matches!(e, Error::Action { .. } | Error::InvalidAction(_)) => {
                p.all_ok = false;
                p.lines.push(format!("{}: {what} failed: {e}", i + 1));
                Ok(())
            }
            Err(e) => Err(e),
        };
    }
    let llm = ctx.llm("fillForm")?;
    let act = format!("{what} with the value {}", field.value);
    let r = Ai::new(llm).act(&page, &act, &act_options(ctx)).await?;
    p.out.usage += r.usage;
    if r.success {
        p.out.rect = r.actions.iter().rev().find_map(|a| a.rect).or(p.out.rect);
        p.filled += 1;
        p.lines.push(format!("{}: {}", i + 1, r.message));
        for rec in r.actions {
            p.out.replay.push(RecordedCall {
                tool: "act".into(),
                args: json!({"action": act}),
                actions: vec![rec],
                context: None,
            });
        }
    } else {
        p.all_ok = false;
        p.lines.push(format!("{}: {what} failed: {}", i + 1, r.message));
    }
    Ok(())
}
