//! Session commands, generated from the tool registry: every tool offered
//! to MCP (and `evaluate`, a local user's own call) is a command with no
//! code of its own here. Its name and positional parameters come from the
//! tool's [`CommandShape`](sightline::tools::CommandShape); every other
//! parameter is a `--kebab-case` flag typed by its JSON schema.

use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{json, Map, Value};
use sightline::{Registry, Tool};

/// A command that runs a tool in the session.
#[derive(Debug, Clone)]
pub struct ToolCommand {
    pub command: String,
    pub tool: &'static str,
    /// Arguments the command always passes (`dblclick`: doubleClick).
    pub preset: Value,
}

/// Every tool command of `registry`, in registry order (presets after
/// their tool).
pub fn tool_commands(registry: &Registry) -> Vec<ToolCommand> {
    let mut out = Vec::new();
    for t in offered(registry) {
        out.push(ToolCommand {
            command: t.command_name(),
            tool: t.name,
            preset: json!({}),
        });
        for (name, preset) in t.command.presets {
            out.push(ToolCommand {
                command: name.to_string(),
                tool: t.name,
                preset: serde_json::from_str(preset).unwrap_or_else(|_| json!({})),
            });
        }
    }
    out
}

/// The registry's tools a session runs: those offered to MCP clients,
/// `evaluate` included (the user runs it on their own machine).
fn offered(registry: &Registry) -> impl Iterator<Item = &Tool> {
    registry.tools().iter().filter(|t| t.offered.mcp)
}

/// The names of a tool command's positional arguments (`"a|b"` as one).
pub fn positional_names(tool: &Tool) -> Vec<String> {
    match tool.command.positional {
        Some(names) => names.iter().map(|n| n.to_string()).collect(),
        None => required(tool),
    }
}

fn required(tool: &Tool) -> Vec<String> {
    (tool.parameters)()["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

fn kebab(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            s.push('-');
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// The clap command for `tc`. Positional values are collected as one list
/// and assigned by [`tool_arguments`]; flags come from the schema.
pub fn clap_command(tc: &ToolCommand, tool: &Tool) -> Command {
    let schema = (tool.parameters)();
    let props = schema["properties"].as_object().cloned().unwrap_or_default();
    let positional = positional_names(tool);
    let preset: Vec<String> = tc
        .preset
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let mut about = tool.description.to_string();
    if !preset.is_empty() {
        about = format!("{about} ({})", tc.preset);
    }
    // (A slot named twice, as scroll's `[DIRECTION|TARGET]…`, is shown once.)
    let mut shown = positional.clone();
    shown.dedup();
    let usage_names: Vec<String> = shown
        .iter()
        .map(|p| {
            p.split('|')
                .map(|n| n.to_ascii_uppercase())
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    let mut cmd = Command::new(tc.command.clone()).about(about);
    if !positional.is_empty() || tool.returns_image {
        let mut names = usage_names.join(" ");
        if tool.returns_image {
            names.push_str(" FILE");
        }
        cmd = cmd.arg(
            Arg::new("positional")
                .value_name(names.trim().to_string())
                .num_args(0..)
                .action(ArgAction::Append)
                .allow_negative_numbers(true)
                .help(positional_help(&shown, &props, tool.returns_image)),
        );
    }
    // A value is taken by the first alternative it fits (`wait 42` is 42 ms):
    // the later ones have flags too, for values an earlier one would take
    // (`wait --text 42`).
    let in_positional: Vec<&str> = positional.iter().filter_map(|p| p.split('|').next()).collect();
    for (name, spec) in &props {
        if in_positional.contains(&name.as_str()) || preset.contains(name) {
            continue;
        }
        cmd = cmd.arg(flag(name, spec));
    }
    cmd
}

/// `2s`, `1.5s` or `500ms` in milliseconds.
fn duration_ms(raw: &str) -> Option<u64> {
    let (number, scale) = match raw.strip_suffix("ms") {
        Some(n) => (n, 1.0),
        None => (raw.strip_suffix('s')?, 1000.0),
    };
    let value: f64 = number.trim().parse().ok()?;
    (value.is_finite() && value >= 0.0).then(|| (value * scale).round() as u64)
}

fn positional_help(positional: &[String], props: &Map<String, Value>, image: bool) -> String {
    let mut parts: Vec<String> = positional
        .iter()
        .map(|p| {
            let described: Vec<String> = p
                .split('|')
                .map(|n| {
                    let spec = props.get(n).cloned().unwrap_or_default();
                    let mut d = spec["description"].as_str().unwrap_or("").to_string();
                    let items = &spec["items"];
                    if items["type"] == "object" {
                        let keys: Vec<&str> = items["properties"]
                            .as_object()
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        let pair = if pairs_target_and_value(items) {
                            "TARGET=VALUE (e7=Ada) or "
                        } else {
                            ""
                        };
                        d.push_str(&format!(" Each one {pair}a JSON object with {}.", keys.join(", ")));
                    }
                    format!("{}: {}", n.to_ascii_uppercase(), d.trim_start())
                })
                .collect();
            described.join(" Or ")
        })
        .collect();
    if image {
        parts.push("FILE: where to save the PNG (default: a new file in the current directory).".into());
    }
    parts.join(" ")
}

/// One optional parameter as a flag.
fn flag(name: &str, spec: &Value) -> Arg {
    let help = spec["description"].as_str().unwrap_or("").to_string();
    let arg = Arg::new(name.to_string()).long(kebab(name)).help(help);
    match spec["type"].as_str() {
        Some("boolean") => arg.action(ArgAction::SetTrue),
        // One value per flag, the flag repeated for more (`--modifiers
        // Control --modifiers Shift`): with several per flag, `click
        // --modifiers Control e1` took the target for a second key.
        Some("array") => arg
            .num_args(1)
            .action(ArgAction::Append)
            .value_name("VALUE")
            .help(format!(
                "{} (Repeat the flag for more: --{flag} A --{flag} B.)",
                spec["description"].as_str().unwrap_or("").trim_end(),
                flag = kebab(name)
            )),
        Some("integer") | Some("number") => arg.value_name("N"),
        Some("object") => arg.value_name("JSON"),
        _ => arg.value_name("VALUE"),
    }
}

/// A value given at the command line as the schema's type wants it.
fn typed(raw: &str, spec: &Value) -> Result<Value, String> {
    match spec["type"].as_str() {
        Some("integer") => raw
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("{raw:?} is not a whole number")),
        Some("number") => raw
            .parse::<f64>()
            .map(Value::from)
            .map_err(|_| format!("{raw:?} is not a number")),
        Some("boolean") => match raw {
            // The dialog's own words too: `handle-dialog accept|dismiss`.
            "true" | "yes" | "on" | "1" | "accept" | "ok" => Ok(Value::Bool(true)),
            "false" | "no" | "off" | "0" | "dismiss" | "cancel" => Ok(Value::Bool(false)),
            _ => Err(format!("{raw:?} is not true (yes, accept) or false (no, dismiss)")),
        },
        Some("object") => serde_json::from_str(raw).map_err(|e| format!("not JSON: {e}")),
        Some("array") => Ok(json!([array_item(raw, &spec["items"])?])),
        _ => Ok(Value::String(raw.to_string())),
    }
}

/// One value of an array parameter: as it stands for a list of strings;
/// for a list of objects, a JSON object or, where the objects have a
/// target and a value (fillForm's fields), `TARGET=VALUE`.
fn array_item(raw: &str, items: &Value) -> Result<Value, String> {
    if items["type"] != "object" {
        return Ok(Value::String(raw.to_string()));
    }
    if raw.trim_start().starts_with('{') {
        return match serde_json::from_str::<Value>(raw) {
            Ok(v @ Value::Object(_)) => Ok(v),
            Ok(_) => Err(format!("{raw:?} is not a JSON object")),
            Err(e) => Err(format!("{raw:?} is not JSON: {e}")),
        };
    }
    match (pairs_target_and_value(items), split_pair(raw)) {
        (true, Some((target, value))) if !target.trim().is_empty() => {
            Ok(json!({"target": target.trim(), "value": value}))
        }
        (true, _) => Err(format!("{raw:?} is neither TARGET=VALUE (e7=Ada) nor a JSON object")),
        (false, _) => Err(format!("{raw:?} is not a JSON object")),
    }
}

/// `TARGET=VALUE` split at its first `=` outside brackets and quotes: a
/// selector such as `input[name=email]` keeps its own.
fn split_pair(raw: &str) -> Option<(&str, &str)> {
    let (mut depth, mut quote) = (0usize, None);
    for (i, c) in raw.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth = depth.saturating_sub(1),
            (None, '=') if depth == 0 => return Some((&raw[..i], &raw[i + 1..])),
            _ => {}
        }
    }
    None
}

/// Whether an array's objects have a target and a value (`TARGET=VALUE`).
fn pairs_target_and_value(items: &Value) -> bool {
    ["target", "value"].iter().all(|k| items["properties"].get(k).is_some())
}

/// Whether `value` fits `spec` well enough to be taken as it (an enum's
/// member, a number for a number).
fn fits(value: &Value, spec: &Value) -> bool {
    if let Some(options) = spec["enum"].as_array() {
        return options.contains(value);
    }
    true
}

/// The tool's arguments from the command line: positional values, then
/// flags, then the command's preset. Extra values beyond the positional
/// parameters (and an image tool's FILE) are returned for the caller.
pub fn tool_arguments(tc: &ToolCommand, tool: &Tool, m: &ArgMatches) -> Result<(Value, Option<String>), String> {
    let schema = (tool.parameters)();
    let props = schema["properties"].as_object().cloned().unwrap_or_default();
    let required = required(tool);
    let positional = positional_names(tool);
    let mut values: Vec<String> = if m.try_contains_id("positional").unwrap_or(false) {
        m.get_many::<String>("positional")
            .map(|v| v.cloned().collect())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut args = Map::new();
    // An image tool's last extra value is the file to save to.
    let variadic = positional
        .last()
        .and_then(|p| props.get(p.as_str()))
        .is_some_and(|s| s["type"] == "array");
    let mut file = None;
    if tool.returns_image && values.len() > positional.len() && !variadic {
        file = values.pop();
    }
    // Fewer values than names: optional parameters are left out first.
    let mut names: Vec<&String> = positional.iter().collect();
    while values.len() < names.len() {
        let Some(i) = names
            .iter()
            .rposition(|n| !n.split('|').any(|one| required.iter().any(|r| r == one)))
        else {
            break;
        };
        names.remove(i);
    }
    if values.len() < names.len() {
        let missing: Vec<String> = names[values.len()..].iter().map(|n| n.to_ascii_uppercase()).collect();
        return Err(format!("missing {}", missing.join(" ")));
    }
    let mut rest = values.into_iter();
    for (i, name) in names.iter().enumerate() {
        let last = i + 1 == names.len();
        let alternatives: Vec<&str> = name.split('|').collect();
        let first = alternatives[0];
        if let Some(spec) = props.get(first).filter(|s| last && s["type"] == "array") {
            let all = rest
                .by_ref()
                .map(|raw| array_item(&raw, &spec["items"]))
                .collect::<Result<Vec<Value>, String>>()
                .map_err(|e| format!("{}: {e}", first.to_ascii_uppercase()))?;
            args.insert(first.to_string(), Value::Array(all));
            break;
        }
        let raw = rest.next().expect("counted above");
        let mut taken = None;
        for alt in &alternatives {
            // `2s`, `1.5s`, `500ms`: a duration, for milliseconds (within
            // the parameter's bounds, as a number would be).
            if let (&"ms", Some(ms)) = (alt, duration_ms(&raw)) {
                if let Some(most) = props.get(*alt).and_then(|s| s["maximum"].as_u64()).filter(|m| ms > *m) {
                    return Err(format!("{raw} is longer than this waits: at most {}s", most / 1000));
                }
                taken = Some((alt.to_string(), json!(ms)));
                break;
            }
            let spec = props.get(*alt).cloned().unwrap_or(json!({}));
            if let Ok(v) = typed(&raw, &spec) {
                if fits(&v, &spec) {
                    taken = Some((alt.to_string(), v));
                    break;
                }
            }
        }
        let (key, value) = match taken {
            Some(t) => t,
            None => {
                let spec = props.get(first).cloned().unwrap_or(json!({}));
                let v = typed(&raw, &spec).map_err(|e| format!("{}: {e}", first.to_ascii_uppercase()))?;
                (first.to_string(), v)
            }
        };
        if args.contains_key(&key) {
            return Err(format!("{} given twice", key.to_ascii_uppercase()));
        }
        args.insert(key, value);
    }
    let leftover: Vec<String> = rest.collect();
    if !leftover.is_empty() {
        return Err(format!("unexpected argument(s): {}", leftover.join(" ")));
    }
    for (name, spec) in &props {
        if !m.try_contains_id(name).unwrap_or(false) {
            continue;
        }
        // (A flag for what a value already gave: `wait "Paid" --text "Sent"`.)
        if args.contains_key(name) {
            if m.value_source(name) == Some(clap::parser::ValueSource::CommandLine) {
                return Err(format!("{} given twice", name.to_ascii_uppercase()));
            }
            continue;
        }
        match spec["type"].as_str() {
            Some("boolean") => {
                if m.get_flag(name) {
                    args.insert(name.clone(), Value::Bool(true));
                }
            }
            Some("array") => {
                if let Some(vs) = m.get_many::<String>(name) {
                    let all = vs
                        .map(|raw| array_item(raw, &spec["items"]))
                        .collect::<Result<Vec<Value>, String>>()
                        .map_err(|e| format!("--{}: {e}", kebab(name)))?;
                    args.insert(name.clone(), Value::Array(all));
                }
            }
            _ => {
                if let Some(raw) = m.get_one::<String>(name) {
                    let v = typed(raw, spec).map_err(|e| format!("--{}: {e}", kebab(name)))?;
                    args.insert(name.clone(), v);
                }
            }
        }
    }
    if let Some(preset) = tc.preset.as_object() {
        for (k, v) in preset {
            args.insert(k.clone(), v.clone());
        }
    }
    Ok((Value::Object(args), file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(registry: &Registry, line: &[&str]) -> Result<(Value, Option<String>), String> {
        let commands = tool_commands(registry);
        let tc = commands.iter().find(|c| c.command == line[0]).expect("a command");
        let tool = registry.get(tc.tool).unwrap();
        let m = clap_command(tc, tool)
            .try_get_matches_from(line)
            .map_err(|e| e.to_string())?;
        tool_arguments(tc, tool, &m)
    }

    #[test]
    fn every_tool_offered_to_mcp_is_a_command() {
        let r = Registry::standard();
        let names: Vec<String> = tool_commands(&r).into_iter().map(|c| c.command).collect();
        for n in [
            "open",
            "snapshot",
            "click",
            "dblclick",
            "hover",
            "fill",
            "type",
            "select",
            "check",
            "uncheck",
            "press",
            "scroll",
            "back",
            "forward",
            "reload",
            "tabs",
            "screenshot",
            "unblock",
            "wait",
            "eval",
        ] {
            assert!(names.iter().any(|c| c == n), "{n} in {names:?}");
        }
        assert!(
            !names.iter().any(|c| c == "done" || c == "think"),
            "agent-only tools are not commands"
        );
        let unique: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }

    #[test]
    fn positional_values_flags_and_presets() {
        let r = Registry::standard();
        assert_eq!(
            run(&r, &["open", "https://a.test/"]).unwrap().0,
            json!({"url": "https://a.test/"})
        );
        assert_eq!(
            run(&r, &["fill", "e3", "Ada Lovelace"]).unwrap().0,
            json!({"target": "e3", "value": "Ada Lovelace"})
        );
        assert_eq!(
            run(&r, &["type", "hello"]).unwrap().0,
            json!({"text": "hello"}),
            "into the focused element"
        );
        assert_eq!(
            run(&r, &["type", "#q", "hello", "--submit"]).unwrap().0,
            json!({"target": "#q", "text": "hello", "submit": true})
        );
        assert_eq!(
            run(&r, &["select", "e7", "Medium", "Large"]).unwrap().0,
            json!({"target": "e7", "values": ["Medium", "Large"]})
        );
        // A list of objects: TARGET=VALUE pairs where the objects have both, or JSON.
        assert_eq!(
            run(
                &r,
                &[
                    "fill-form",
                    "e7=Ada",
                    "#city=Paris=France",
                    "input[name='e=mc2']=x",
                    r#"{"action": "tick Terms", "value": "true"}"#
                ]
            )
            .unwrap()
            .0,
            json!({"fields": [
                {"target": "e7", "value": "Ada"},
                {"target": "#city", "value": "Paris=France"},
                {"target": "input[name='e=mc2']", "value": "x"},
                {"action": "tick Terms", "value": "true"}
            ]})
        );
        let e = run(&r, &["fill-form", "Ada"]).unwrap_err();
        assert!(
            e.contains("FIELDS: \"Ada\" is neither TARGET=VALUE (e7=Ada) nor a JSON object"),
            "{e}"
        );
        assert_eq!(
            run(&r, &["dblclick", "e2"]).unwrap().0,
            json!({"target": "e2", "doubleClick": true})
        );
        // An array flag takes one value: the target after it is the target.
        assert_eq!(
            run(&r, &["click", "--modifiers", "Control", "--modifiers", "Shift", "e1"])
                .unwrap()
                .0,
            json!({"target": "e1", "modifiers": ["Control", "Shift"]})
        );
        assert_eq!(
            run(&r, &["uncheck", "e4"]).unwrap().0,
            json!({"target": "e4", "checked": false})
        );
        assert_eq!(run(&r, &["scroll", "down"]).unwrap().0, json!({"direction": "down"}));
        assert_eq!(
            run(&r, &["scroll", "e9"]).unwrap().0,
            json!({"target": "e9"}),
            "a ref is a target"
        );
        assert_eq!(run(&r, &["scroll"]).unwrap().0, json!({}));
        for line in [["scroll", "e9", "down"], ["scroll", "down", "e9"]] {
            assert_eq!(
                run(&r, &line).unwrap().0,
                json!({"target": "e9", "direction": "down"}),
                "a container scrolled: {line:?}"
            );
        }
        assert!(run(&r, &["scroll", "up", "down"])
            .unwrap_err()
            .contains("DIRECTION given twice"));
        assert_eq!(run(&r, &["wait", "500"]).unwrap().0, json!({"ms": 500}));
        assert_eq!(run(&r, &["wait", "2s"]).unwrap().0, json!({"ms": 2000}));
        assert_eq!(run(&r, &["wait", "250ms"]).unwrap().0, json!({"ms": 250}));
        // A number to wait for is a text given as one.
        assert_eq!(run(&r, &["wait", "--text", "42"]).unwrap().0, json!({"text": "42"}));
        assert!(run(&r, &["wait", "45s"]).unwrap_err().contains("at most 30s"));
        assert!(run(&r, &["wait", "Paid", "--text", "Sent"])
            .unwrap_err()
            .contains("TEXT given twice"));
        assert_eq!(
            run(&r, &["wait", "Order placed"]).unwrap().0,
            json!({"text": "Order placed"})
        );
        assert_eq!(run(&r, &["tabs"]).unwrap().0, json!({}));
        assert_eq!(
            run(&r, &["tabs", "select", "1"]).unwrap().0,
            json!({"action": "select", "index": 1})
        );
        assert_eq!(
            run(&r, &["snapshot", "--mode", "viewport", "--diff"]).unwrap().0,
            json!({"mode": "viewport", "diff": true})
        );
        assert_eq!(run(&r, &["snapshot", "e4"]).unwrap().0, json!({"target": "e4"}));
        assert_eq!(
            run(&r, &["eval", "document.title"]).unwrap().0,
            json!({"function": "document.title"})
        );
        let (args, file) = run(&r, &["screenshot", "shot.png"]).unwrap();
        assert_eq!((args, file.as_deref()), (json!({}), Some("shot.png")));
        assert!(run(&r, &["fill", "e3"]).unwrap_err().contains("VALUE"));
        assert!(run(&r, &["tabs", "select", "two"])
            .unwrap_err()
            .contains("whole number"));
        assert!(run(&r, &["press", "Enter", "Tab"]).unwrap_err().contains("unexpected"));
    }
}
