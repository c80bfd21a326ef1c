//! OpenAI Responses (`POST /v1/responses`): request validation as the API
//! does it (parameters, input items, function and computer tools, the
//! computer tool's model and `truncation` rules, `text.format`), chaining
//! through `previous_response_id` against the responses this server gave
//! (every call of that response must be answered, its pending safety
//! checks acknowledged), and the reply shapes (`computer_call`,
//! `function_call`, `message`). Errors have OpenAI's shape.

use std::collections::{HashMap, HashSet};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::check::*;
use super::ids::{fake_id, seed};
use super::openai_chat::{oa, strict_schema};
use super::recorded::arr;
use super::{token_counts, Answer, Recorded, RenderCtx};

const KEYS: &[&str] = &[
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "previous_response_id",
    "truncation",
    "reasoning",
    "text",
    "max_output_tokens",
    "temperature",
    "top_p",
    "store",
    "metadata",
    "parallel_tool_calls",
    "include",
    "user",
    "stream",
    "service_tier",
    "background",
    "prompt_cache_key",
    "safety_identifier",
    "max_tool_calls",
    "top_logprobs",
];

const ENVIRONMENTS: &[&str] = &["windows", "mac", "linux", "ubuntu", "browser"];

/// A call this server made in a response: what a chained request must answer.
#[derive(Debug, Clone)]
pub(crate) struct IssuedCall {
    call_id: String,
    computer: bool,
    safety_ids: Vec<String>,
}

/// A response this server gave, by id.
#[derive(Debug, Clone, Default)]
pub(crate) struct Issued {
    calls: Vec<IssuedCall>,
}

/// The calls of a response body this server is about to send.
pub(crate) fn issued(body: &Value) -> Option<(String, Issued)> {
    let id = body["id"].as_str()?.to_string();
    let calls = arr(&body["output"])
        .iter()
        .filter_map(|item| {
            let computer = match item["type"].as_str()? {
                "computer_call" => true,
                "function_call" => false,
                _ => return None,
            };
            Some(IssuedCall {
                call_id: item["call_id"].as_str()?.to_string(),
                computer,
                safety_ids: arr(&item["pending_safety_checks"])
                    .iter()
                    .filter_map(|c| c["id"].as_str().map(str::to_string))
                    .collect(),
            })
        })
        .collect();
    Some((id, Issued { calls }))
}

pub(crate) fn validate(body: &Value) -> Check {
    let Some(o) = body.as_object() else {
        return Err(format!(
            "The request body must be a JSON object, got {}",
            type_name(body)
        ));
    };
    check_keys(o, KEYS, |k| format!("Unknown parameter: '{k}'."))?;
    let model = match o.get("model") {
        Some(Value::String(m)) if !m.trim().is_empty() => m.as_str(),
        None | Some(Value::Null) | Some(Value::String(_)) => return Err("Missing required parameter: 'model'.".into()),
        Some(v) => {
            return Err(format!(
                "Invalid type for 'model': expected a string, got {}",
                type_name(v)
            ))
        }
    };
    check_stream(o, oa("stream"))?;
    let tools = tools(o, model)?;
    match opt(o, "input") {
        None => return Err("Missing required parameter: 'input'.".into()),
        Some(Value::String(_)) => {}
        Some(Value::Array(items)) => input(items, opt(o, "previous_response_id").is_some())?,
        Some(v) => {
            return Err(format!(
                "Invalid type for 'input': expected a string or an array of input items, got {}",
                type_name(v)
            ))
        }
    }
    if let Some(choice) = opt(o, "tool_choice") {
        match choice {
            Value::String(s) => ensure!(
                matches!(s.as_str(), "none" | "auto" | "required"),
                "Invalid value: '{s}'. Supported values are: 'none', 'auto', and 'required'. ('tool_choice')"
            ),
            Value::Object(c) if c.get("type") == Some(&json!("function")) => {
                let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
                ensure!(
                    tools.iter().any(|t| t == name),
                    "Invalid value for 'tool_choice': function {name:?} is not among the declared tools"
                );
            }
            Value::Object(c) => ensure!(
                matches!(
                    c.get("type").and_then(Value::as_str),
                    Some("computer_use_preview" | "computer")
                ),
                "Invalid value for 'tool_choice.type': {}",
                c.get("type").cloned().unwrap_or(Value::Null)
            ),
            v => return Err(format!("Invalid type for 'tool_choice': got {}", type_name(v))),
        }
    }
    if let Some(t) = opt(o, "truncation") {
        ensure!(
            matches!(t.as_str(), Some("auto" | "disabled")),
            "Invalid value: {t}. Supported values are: 'auto' and 'disabled'. ('truncation')"
        );
    }
    if let Some(v) = opt(o, "max_output_tokens") {
        ensure!(
            v.as_u64().is_some_and(|n| n >= 16),
            "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got {v} instead."
        );
    }
    check_number(o, "temperature", 0.0, 2.0, oa("temperature"))?;
    check_number(o, "top_p", 0.0, 1.0, oa("top_p"))?;
    check_type(o, "previous_response_id", "string", oa("previous_response_id"))?;
    check_type(o, "instructions", "string", oa("instructions"))?;
    check_type(o, "store", "boolean", oa("store"))?;
    check_type(o, "reasoning", "object", oa("reasoning"))?;
    check_type(o, "metadata", "object", oa("metadata"))?;
    check_type(o, "parallel_tool_calls", "boolean", oa("parallel_tool_calls"))?;
    if let Some(text) = opt(o, "text") {
        text_format(text)?;
    }
    Ok(())
}

/// `tools`; returns the function names (and `computer` for a computer tool).
fn tools(o: &Map<String, Value>, model: &str) -> Result<Vec<String>, String> {
    let Some(tools) = opt(o, "tools") else {
        return Ok(Vec::new());
    };
    let Some(tools) = tools.as_array() else {
        return Err(format!(
            "Invalid type for 'tools': expected an array, got {}",
            type_name(tools)
        ));
    };
    let preview_model = model.starts_with("computer-use-preview");
    let mut names: Vec<String> = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let at = format!("tools[{i}]");
        let Some(t) = t.as_object() else {
            return Err(format!("Invalid type for '{at}': expected an object"));
        };
        match t.get("type").and_then(Value::as_str) {
            Some("function") => {
                check_keys(t, &["type", "name", "description", "parameters", "strict"], |k| {
                    format!("Unknown parameter: '{at}.{k}'.")
                })?;
                let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
                ensure!(!name.is_empty(), "Missing required parameter: '{at}.name'.");
                ensure!(
                    valid_name(name),
                    "Invalid '{at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
                );
                ensure!(
                    !names.iter().any(|n| n == name),
                    "Invalid 'tools': duplicate function name {name:?}"
                );
                check_type(t, "description", "string", oa(&format!("{at}.description")))?;
                check_type(t, "strict", "boolean", oa(&format!("{at}.strict")))?;
                if let Some(p) = opt(t, "parameters") {
                    ensure!(
                        p["type"] == "object",
                        "Invalid schema for function '{name}': schema must be a JSON Schema of 'type: \"object\"'."
                    );
                    if opt(t, "strict") == Some(&Value::Bool(true)) {
                        strict_schema(p, &mut Vec::new(), &format!("function '{name}'"))?;
                    }
                }
                names.push(name.to_string());
            }
            Some("computer_use_preview") => {
                check_keys(t, &["type", "display_width", "display_height", "environment"], |k| {
                    format!("Unknown parameter: '{at}.{k}'.")
                })?;
                for key in ["display_width", "display_height"] {
                    let v = t.get(key);
                    ensure!(v.is_some(), "Missing required parameter: '{at}.{key}'.");
                    ensure!(
                        v.and_then(Value::as_u64).is_some_and(|n| n >= 1),
                        "Invalid '{at}.{key}': expected a positive integer, got {}",
                        v.cloned().unwrap_or(Value::Null)
                    );
                }
                let env = t.get("environment").and_then(Value::as_str).unwrap_or_default();
                ensure!(
                    ENVIRONMENTS.contains(&env),
                    "Invalid value: '{env}'. Supported values are: 'windows', 'mac', 'linux', 'ubuntu', and 'browser'. ('{at}.environment')"
                );
                ensure!(
                    preview_model,
                    "The computer_use_preview tool is only available with the computer-use-preview models, not {model}."
                );
                ensure!(
                    opt(o, "truncation").and_then(Value::as_str) == Some("auto"),
                    "Computer use requires 'truncation' to be 'auto'."
                );
                names.push("computer".into());
            }
            Some("computer") => {
                check_keys(t, &["type"], |k| format!("Unknown parameter: '{at}.{k}'."))?;
                ensure!(
                    !preview_model,
                    "The computer tool is not supported with {model}; use the computer_use_preview tool."
                );
                names.push("computer".into());
            }
            Some(other) => {
                return Err(format!(
                    "{at}.type: the tool type {other:?} is not supported by the scripted LLM server"
                ))
            }
            None => return Err(format!("Missing required parameter: '{at}.type'.")),
        }
    }
    Ok(names)
}

/// Input items and, without chaining, call ↔ output pairing inside them.
fn input(items: &[Value], chained: bool) -> Check {
    let mut calls: HashSet<String> = HashSet::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("input[{i}]");
        let Some(o) = item.as_object() else {
            return Err(format!("Invalid type for '{at}': expected an object"));
        };
        let kind = o.get("type").and_then(Value::as_str).unwrap_or("message");
        let call_id = || o.get("call_id").and_then(Value::as_str).unwrap_or_default().to_string();
        match kind {
            "message" => message(o, &at)?,
            "function_call" => {
                check_keys(o, &["type", "id", "call_id", "name", "arguments", "status"], |k| {
                    format!("Unknown parameter: '{at}.{k}'.")
                })?;
                ensure!(o.get("arguments").is_some_and(Value::is_string), "Invalid '{at}.arguments': expected a string");
                ensure!(!call_id().is_empty(), "Missing required parameter: '{at}.call_id'.");
                calls.insert(call_id());
            }
            "computer_call" => {
                ensure!(!call_id().is_empty(), "Missing required parameter: '{at}.call_id'.");
                ensure!(
                    o.get("id").and_then(Value::as_str).is_some(),
                    "Missing required parameter: '{at}.id'."
                );
                calls.insert(call_id());
            }
            "reasoning" => ensure!(o.get("id").is_some(), "Missing required parameter: '{at}.id'."),
            "function_call_output" => {
                check_keys(o, &["type", "id", "call_id", "output", "status"], |k| {
                    format!("Unknown parameter: '{at}.{k}'.")
                })?;
                ensure!(!call_id().is_empty(), "Missing required parameter: '{at}.call_id'.");
                ensure!(
                    o.get("output").is_some_and(|v| v.is_string() || v.is_array()),
                    "Invalid '{at}.output': expected a string or an array of content"
                );
                ensure!(
                    chained || calls.contains(&call_id()),
                    "No tool call found for function call output with call_id {}.",
                    call_id()
                );
            }
            "computer_call_output" => {
                computer_output(o, &at)?;
                ensure!(
                    chained || calls.contains(&call_id()),
                    "No tool call found for computer call output with call_id {}.",
                    call_id()
                );
            }
            other => {
                return Err(format!(
                    "Invalid value: '{other}'. Supported values are: 'message', 'function_call', 'function_call_output', 'computer_call', 'computer_call_output' and 'reasoning'. ('{at}.type')"
                ))
            }
        }
    }
    Ok(())
}

fn message(o: &Map<String, Value>, at: &str) -> Check {
    check_keys(o, &["type", "role", "content", "id", "status"], |k| {
        format!("Unknown parameter: '{at}.{k}'.")
    })?;
    let role = o.get("role").and_then(Value::as_str).unwrap_or_default();
    let parts: &[&str] = match role {
        "user" | "system" | "developer" => &["input_text", "input_image", "input_file"],
        "assistant" => &["output_text", "refusal"],
        "" => return Err(format!("Missing required parameter: '{at}.role'.")),
        other => {
            return Err(format!(
                "Invalid value: '{other}'. Supported values are: 'user', 'assistant', 'system', and 'developer'. ('{at}.role')"
            ))
        }
    };
    match o.get("content") {
        Some(Value::String(_)) => Ok(()),
        Some(Value::Array(content)) => {
            ensure!(!content.is_empty(), "Invalid '{at}.content': empty array.");
            for (j, p) in content.iter().enumerate() {
                let pat = format!("{at}.content[{j}]");
                let t = p["type"].as_str().unwrap_or_default();
                ensure!(
                    parts.contains(&t),
                    "Invalid value: '{t}'. Supported values are: {}. ('{pat}.type')",
                    parts.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", ")
                );
                match t {
                    "input_text" | "output_text" => {
                        ensure!(p["text"].is_string(), "Missing required parameter: '{pat}.text'.")
                    }
                    "input_image" => {
                        let url = p["image_url"].as_str();
                        ensure!(
                            url.is_some_and(valid_image_url) || p["file_id"].is_string(),
                            "Invalid '{pat}.image_url': expected an http(s) URL or a base64 data URL of an image"
                        );
                        if let Some(d) = p.get("detail").filter(|d| !d.is_null()) {
                            ensure!(
                                matches!(d.as_str(), Some("auto" | "low" | "high" | "original")),
                                "Invalid value for '{pat}.detail': {d}"
                            );
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        _ => Err(format!("Missing required parameter: '{at}.content'.")),
    }
}

/// `computer_call_output`: a screenshot output (the SDK's
/// `computer_screenshot`, or `input_image` as OpenAI's own sample sends),
/// optionally the current URL, and acknowledged checks.
fn computer_output(o: &Map<String, Value>, at: &str) -> Check {
    check_keys(
        o,
        &[
            "type",
            "id",
            "call_id",
            "output",
            "acknowledged_safety_checks",
            "status",
        ],
        |k| format!("Unknown parameter: '{at}.{k}'."),
    )?;
    ensure!(
        o.get("call_id").and_then(Value::as_str).is_some_and(|c| !c.is_empty()),
        "Missing required parameter: '{at}.call_id'."
    );
    let Some(out) = o.get("output").and_then(Value::as_object) else {
        return Err(format!("Missing required parameter: '{at}.output'."));
    };
    check_keys(out, &["type", "image_url", "file_id", "current_url", "detail"], |k| {
        format!("Unknown parameter: '{at}.output.{k}'.")
    })?;
    ensure!(
        matches!(
            out.get("type").and_then(Value::as_str),
            Some("computer_screenshot" | "input_image")
        ),
        "Invalid value: {}. Supported values are: 'computer_screenshot'. ('{at}.output.type')",
        out.get("type").cloned().unwrap_or(Value::Null)
    );
    let url = out.get("image_url").and_then(Value::as_str);
    ensure!(
        url.is_some_and(|u| u.starts_with("data:image/") && valid_image_url(u)) || out.get("file_id").is_some(),
        "Invalid '{at}.output.image_url': expected a base64 data URL of the screenshot"
    );
    if let Some(checks) = opt(o, "acknowledged_safety_checks") {
        let Some(checks) = checks.as_array() else {
            return Err(format!(
                "Invalid type for '{at}.acknowledged_safety_checks': expected an array"
            ));
        };
        for (k, c) in checks.iter().enumerate() {
            ensure!(
                c["id"].as_str().is_some_and(|id| !id.is_empty()),
                "Missing required parameter: '{at}.acknowledged_safety_checks[{k}].id'."
            );
        }
    }
    Ok(())
}

fn text_format(text: &Value) -> Check {
    let Some(f) = text.get("format").filter(|f| !f.is_null()) else {
        return Ok(());
    };
    match f["type"].as_str() {
        Some("text" | "json_object") => Ok(()),
        Some("json_schema") => {
            let Some(o) = f.as_object() else { unreachable!() };
            check_keys(o, &["type", "name", "schema", "strict", "description"], |k| {
                format!("Unknown parameter: 'text.format.{k}'.")
            })?;
            let name = o.get("name").and_then(Value::as_str).unwrap_or_default();
            ensure!(
                valid_name(name),
                "Invalid 'text.format.name': string does not match pattern."
            );
            let Some(schema) = o.get("schema").filter(|s| s.is_object()) else {
                return Err("Missing required parameter: 'text.format.schema'.".into());
            };
            if o.get("strict") == Some(&Value::Bool(true)) {
                strict_schema(schema, &mut Vec::new(), &format!("text.format '{name}'"))?;
            }
            Ok(())
        }
        _ => Err(format!(
            "Invalid value: {}. Supported values are: 'text', 'json_object', and 'json_schema'. ('text.format.type')",
            f["type"]
        )),
    }
}

/// `previous_response_id` must name a response this server gave, and the
/// request must answer every call of it (computer calls with their pending
/// safety checks acknowledged, which the API's docs say block progress).
pub(crate) fn check_chain(body: &Value, issued: &HashMap<String, Issued>) -> Check {
    let Some(prev) = body["previous_response_id"].as_str() else {
        return Ok(());
    };
    let Some(previous) = issued.get(prev) else {
        return Err(format!("Previous response with id '{prev}' not found."));
    };
    let items = arr(&body["input"]);
    let output_for = |call_id: &str, kind: &str| {
        items
            .iter()
            .find(|i| i["type"] == kind && i["call_id"].as_str() == Some(call_id))
    };
    for call in &previous.calls {
        let (kind, what) = if call.computer {
            ("computer_call_output", "computer call")
        } else {
            ("function_call_output", "function call")
        };
        let Some(output) = output_for(&call.call_id, kind) else {
            return Err(format!("No tool output found for {what} {}.", call.call_id));
        };
        let acknowledged: Vec<&str> = arr(&output["acknowledged_safety_checks"])
            .iter()
            .filter_map(|c| c["id"].as_str())
            .collect();
        let missing: Vec<&str> = call
            .safety_ids
            .iter()
            .map(String::as_str)
            .filter(|id| !acknowledged.contains(id))
            .collect();
        ensure!(
            missing.is_empty(),
            "Computer call {} has pending safety checks that were not acknowledged: {}.",
            call.call_id,
            missing.join(", ")
        );
    }
    let known: HashSet<&str> = previous.calls.iter().map(|c| c.call_id.as_str()).collect();
    let in_input: HashSet<&str> = items
        .iter()
        .filter(|i| matches!(i["type"].as_str(), Some("function_call" | "computer_call")))
        .filter_map(|i| i["call_id"].as_str())
        .collect();
    for i in items {
        if matches!(
            i["type"].as_str(),
            Some("function_call_output" | "computer_call_output")
        ) {
            let id = i["call_id"].as_str().unwrap_or_default();
            ensure!(
                known.contains(id) || in_input.contains(id),
                "No tool call found for function call output with call_id {id}."
            );
        }
    }
    Ok(())
}

pub(crate) fn success(answer: Answer, rec: &Recorded, ctx: &RenderCtx) -> Value {
    let id = |kind: u64, i: usize, prefix: &str| format!("{prefix}{}", fake_id(seed(ctx.port, ctx.index, kind, i), 24));
    let mut chars = 0;
    let output: Vec<Value> = match answer {
        Answer::Text(t) => {
            chars = t.chars().count();
            vec![
                json!({"type": "message", "id": id(2, 0, "msg_"), "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": t, "annotations": []}]}),
            ]
        }
        Answer::Calls(calls) => calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                let arguments = args.to_string();
                chars += name.len() + arguments.chars().count();
                json!({"type": "function_call", "id": id(3, i, "fc_"), "call_id": id(1, i, "call_"),
                       "name": name, "arguments": arguments, "status": "completed"})
            })
            .collect(),
        Answer::Computer {
            actions,
            batch,
            safety_checks,
        } => {
            chars = actions.iter().map(|a| a.to_string().len()).sum();
            let mut call = json!({"type": "computer_call", "id": id(4, 0, "cu_"), "call_id": id(1, 0, "call_"),
                                  "status": "completed", "pending_safety_checks": safety_checks});
            if batch {
                call["actions"] = Value::Array(actions);
            } else {
                call["action"] = actions.into_iter().next().unwrap_or(json!({"type": "screenshot"}));
            }
            // The computer-use model reasons before it acts.
            vec![json!({"type": "reasoning", "id": id(5, 0, "rs_"), "summary": []}), call]
        }
    };
    let (prompt, cached, completion) = token_counts(rec, ctx, chars);
    json!({
        "id": id(0, 0, "resp_"),
        "object": "response",
        "created_at": SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "status": "completed",
        "error": null,
        "incomplete_details": null,
        "model": rec.model().unwrap_or_default(),
        "output": output,
        "previous_response_id": rec.body.get("previous_response_id").cloned().unwrap_or(Value::Null),
        "truncation": rec.body.get("truncation").cloned().unwrap_or(json!("disabled")),
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::super::{render, Reply, Wire};
    use super::*;

    fn no_chain(mut b: Value) -> Value {
        b.as_object_mut().unwrap().remove("previous_response_id");
        b
    }

    fn rejects(mutate: impl FnOnce(&mut Value), needle: &str) {
        super::super::fixtures::rejects(validate, good_responses(), mutate, needle)
    }

    #[test]
    fn validates_computer_use_bodies() {
        validate(&good_responses()).unwrap();
        validate(&json!({"model": "gpt-5.4", "input": "hi", "tools": [{"type": "computer"}]})).unwrap();
        rejects(|b| b["foo"] = json!(1), "Unknown parameter: 'foo'");
        rejects(|b| b["truncation"] = json!("disabled"), "truncation");
        rejects(
            |b| b["model"] = json!("gpt-4.1"),
            "only available with the computer-use-preview",
        );
        rejects(|b| b["tools"][0]["environment"] = json!("desktop"), "'desktop'");
        rejects(|b| b["tools"][0]["display_width"] = json!(0), "display_width");
        rejects(|b| b["input"][0]["output"]["type"] = json!("image"), "output.type");
        rejects(
            |b| b["input"][0]["output"]["image_url"] = json!("https://x/a.png"),
            "base64 data URL",
        );
        rejects(|b| b["input"][0]["output"]["extra"] = json!(1), "output.extra");
        rejects(|b| b["max_output_tokens"] = json!(8), ">= 16");
        rejects(|b| b["tools"][1]["function"] = json!({}), "tools[1].function");
        rejects(|b| b["input"][2]["content"][0]["type"] = json!("text"), "'text'");
        rejects(
            |b| b["tool_choice"] = json!({"type": "function", "name": "nope"}),
            "nope",
        );
        // Without chaining, an output must answer a call in the input.
        let v = validate(&no_chain(good_responses())).unwrap_err();
        assert!(v.contains("No tool call found"), "{v}");
        let mut gpt = no_chain(good_responses());
        gpt["model"] = json!("gpt-5.4");
        gpt["tools"][0] = json!({"type": "computer"});
        gpt["input"] = json!([{"role": "user", "content": [{"type": "input_text", "text": "go"},
            {"type": "input_image", "image_url": PNG_URL, "detail": "original"}]}]);
        validate(&gpt).unwrap();
        gpt["tools"][0] =
            json!({"type": "computer_use_preview", "display_width": 1, "display_height": 1, "environment": "browser"});
        assert!(validate(&gpt).unwrap_err().contains("only available"));
    }

    #[test]
    fn chaining_needs_every_call_answered_and_checks_acknowledged() {
        let issued_body = json!({"id": "resp_1", "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "action": {"type": "screenshot"},
             "pending_safety_checks": [{"id": "cu_sc_1", "code": "malicious_instructions", "message": "m"}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_2", "name": "removeBlocker", "arguments": "{}"}]});
        let mut map = HashMap::new();
        let (id, issued) = issued(&issued_body).unwrap();
        map.insert(id, issued);
        check_chain(&good_responses(), &map).unwrap();
        let mut b = good_responses();
        b["previous_response_id"] = json!("resp_404");
        assert!(check_chain(&b, &map).unwrap_err().contains("not found"));
        let mut b = good_responses();
        b["input"][0]
            .as_object_mut()
            .unwrap()
            .remove("acknowledged_safety_checks");
        assert!(check_chain(&b, &map).unwrap_err().contains("not acknowledged: cu_sc_1"));
        let mut b = good_responses();
        b["input"].as_array_mut().unwrap().remove(1);
        assert!(check_chain(&b, &map)
            .unwrap_err()
            .contains("No tool output found for function call call_2"));
        let mut b = good_responses();
        b["input"][1]["call_id"] = json!("call_9");
        assert!(check_chain(&b, &map).is_err());
    }

    #[test]
    fn renders_computer_calls_function_calls_and_messages() {
        let r = rec(Wire::OpenAiResponses, good_responses(), RESPONSES_HEADERS);
        let reply = Reply::computer(json!({"type": "click", "button": "left", "x": 5, "y": 6}))
            .with_safety_check("malicious_instructions", "careful");
        let b = render(&reply, Wire::OpenAiResponses, &r, &ctx()).body_json();
        assert!(b["id"].as_str().unwrap().starts_with("resp_"));
        assert_eq!(b["output"][0]["type"], "reasoning");
        let call = &b["output"][1];
        assert_eq!(call["type"], "computer_call");
        assert_eq!(call["action"]["x"], 5);
        assert_eq!(call["pending_safety_checks"][0]["id"], "cu_sc_1");
        assert_eq!(b["previous_response_id"], "resp_1");
        assert!(b["usage"]["input_tokens"].as_u64().unwrap() > 0);
        let (_, issued) = issued(&b).unwrap();
        assert_eq!(issued.calls[0].safety_ids, ["cu_sc_1"]);
        let batch = render(
            &Reply::computer_actions(vec![
                json!({"type": "type", "text": "a"}),
                json!({"type": "keypress", "keys": ["ENTER"]}),
            ]),
            Wire::OpenAiResponses,
            &r,
            &ctx(),
        )
        .body_json();
        assert_eq!(batch["output"][1]["actions"][1]["type"], "keypress");
        let b = render(
            &Reply::tool("removeBlocker", json!({})),
            Wire::OpenAiResponses,
            &r,
            &ctx(),
        )
        .body_json();
        assert_eq!(
            (b["output"][0]["type"].as_str(), b["output"][0]["arguments"].as_str()),
            (Some("function_call"), Some("{}"))
        );
        let b = render(&Reply::text("Done"), Wire::OpenAiResponses, &r, &ctx()).body_json();
        assert_eq!(b["output"][0]["content"][0]["text"], "Done");
        // A computer_call scripted for another wire fails loudly.
        let an = rec(Wire::Anthropic, good_anthropic(), AN_HEADERS);
        assert_eq!(
            render(&Reply::computer(json!({"type": "wait"})), Wire::Anthropic, &an, &ctx()).status,
            500
        );
    }
}
