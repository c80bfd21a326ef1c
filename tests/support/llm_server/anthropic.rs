//! Anthropic Messages (`POST /v1/messages`): request validation as the API
//! does it (parameters, content blocks, role alternation, tool_use ↔
//! tool_result pairing, tools), the beta `computer` tool with its
//! `anthropic-beta` header, the reply shapes and Anthropic's error shape.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::check::*;
use super::http::Response;
use super::ids::{fake_id, seed};
use super::{token_counts, Answer, Recorded, RenderCtx};

const ANTHROPIC_KEYS: &[&str] = &[
    "model",
    "messages",
    "max_tokens",
    "system",
    "tools",
    "tool_choice",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "stream",
    "metadata",
    "thinking",
    "service_tier",
];

/// Anthropic's `param.path: problem` messages.
fn an(param: &str) -> impl Fn(&str) -> String + '_ {
    move |problem| format!("{param}: {problem}")
}

/// `anthropic-beta` flags the API knows (others are refused).
const KNOWN_BETAS: &[&str] = &[
    "computer-use-2024-10-22",
    "computer-use-2025-01-24",
    "computer-use-2025-11-24",
    "token-efficient-tools-2025-02-19",
    "interleaved-thinking-2025-05-14",
    "prompt-caching-2024-07-31",
    "output-128k-2025-02-19",
    "fine-grained-tool-streaming-2025-05-14",
    "context-1m-2025-08-07",
];

/// The computer tool versions, the beta flag each needs, and the model
/// families that cannot take it (Anthropic's table: the 2025-11-24 tool is
/// for Opus 4.5 and later, Sonnet 4.6).
const COMPUTER_TOOLS: &[(&str, &str)] = &[
    ("computer_20241022", "computer-use-2024-10-22"),
    ("computer_20250124", "computer-use-2025-01-24"),
    ("computer_20251124", "computer-use-2025-11-24"),
];
const BEFORE_20251124: &[&str] = &[
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-1",
    "claude-sonnet-4-2",
    "claude-opus-4-2",
    "claude-3-",
];

/// The request's `anthropic-beta` header, checked: known flags only.
pub(crate) fn betas(header: Option<&str>) -> Result<Vec<String>, String> {
    let flags: Vec<String> = header
        .unwrap_or_default()
        .split(',')
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect();
    for f in &flags {
        ensure!(
            KNOWN_BETAS.contains(&f.as_str()),
            "Unexpected value(s) `{f}` for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or try again without the header."
        );
    }
    Ok(flags)
}

pub(crate) fn validate(body: &Value, betas: &[String]) -> Check {
    let Some(o) = body.as_object() else {
        return Err(format!(
            "body: Input should be a valid dictionary, got {}",
            type_name(body)
        ));
    };
    check_keys(o, ANTHROPIC_KEYS, |k| format!("{k}: Extra inputs are not permitted"))?;
    match o.get("model") {
        Some(Value::String(m)) if !m.trim().is_empty() => {}
        None => return Err("model: Field required".into()),
        Some(v) => return Err(format!("model: Input should be a non-empty string, got {v}")),
    }
    match o.get("max_tokens") {
        None => return Err("max_tokens: Field required".into()),
        Some(v) => ensure!(
            v.as_u64().is_some_and(|n| n >= 1),
            "max_tokens: Input should be an integer greater than or equal to 1, got {v}"
        ),
    }
    check_stream(o, an("stream"))?;
    if let Some(system) = opt(o, "system") {
        match system {
            Value::String(_) => {}
            Value::Array(blocks) => {
                for (j, b) in blocks.iter().enumerate() {
                    let at = format!("system.{j}");
                    ensure!(b["type"] == "text", "{at}.type: Input should be 'text'");
                    anthropic_block(b, &at, "system")?;
                }
            }
            v => {
                return Err(format!(
                    "system: Input should be a valid string or list of text blocks, got {}",
                    type_name(v)
                ))
            }
        }
    }
    let tools = anthropic_tools(o, betas)?;
    if let Some(choice) = opt(o, "tool_choice") {
        let Some(c) = choice.as_object() else {
            return Err(format!(
                "tool_choice: Input should be a valid dictionary, got {}",
                type_name(choice)
            ));
        };
        let kind = c.get("type").and_then(Value::as_str).unwrap_or_default();
        check_keys(c, &["type", "name", "disable_parallel_tool_use"], |k| {
            format!("tool_choice.{k}: Extra inputs are not permitted")
        })?;
        match kind {
            "auto" | "none" => {}
            "any" => ensure!(!tools.is_empty(), "tool_choice: tool_choice may only be specified while providing tools"),
            "tool" => {
                let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
                ensure!(!name.is_empty(), "tool_choice.tool.name: Field required");
                ensure!(tools.iter().any(|t| t == name), "tool_choice.name: Tool '{name}' not found in provided tools");
            }
            other => {
                return Err(format!(
                    "tool_choice: Input tag '{other}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'"
                ))
            }
        }
    }
    check_number(o, "temperature", 0.0, 1.0, an("temperature"))?;
    check_number(o, "top_p", 0.0, 1.0, an("top_p"))?;
    check_type(o, "top_k", "integer", an("top_k"))?;
    check_type(o, "metadata", "object", an("metadata"))?;
    check_type(o, "thinking", "object", an("thinking"))?;
    if let Some(stops) = opt(o, "stop_sequences") {
        ensure!(
            stops.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            "stop_sequences: Input should be a valid list of strings"
        );
    }
    if let Some(tier) = opt(o, "service_tier") {
        ensure!(
            matches!(tier.as_str(), Some("auto" | "standard_only")),
            "service_tier: Input should be 'auto' or 'standard_only'"
        );
    }
    let msgs = match o.get("messages") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(Value::Array(_)) => return Err("messages: at least one message is required".into()),
        None => return Err("messages: Field required".into()),
        Some(v) => return Err(format!("messages: Input should be a valid list, got {}", type_name(v))),
    };
    anthropic_messages(msgs)
}

/// `tools`; returns the declared names.
fn anthropic_tools(o: &Map<String, Value>, betas: &[String]) -> Result<Vec<String>, String> {
    let model = o.get("model").and_then(Value::as_str).unwrap_or_default();
    let Some(tools) = opt(o, "tools") else {
        return Ok(Vec::new());
    };
    let Some(tools) = tools.as_array() else {
        return Err(format!("tools: Input should be a valid list, got {}", type_name(tools)));
    };
    let mut names: Vec<String> = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let at = format!("tools.{i}");
        let Some(t) = t.as_object() else {
            return Err(format!("{at}: Input should be a valid dictionary"));
        };
        if let Some(kind) = opt(t, "type").filter(|k| *k != "custom") {
            let version = kind.as_str().unwrap_or_default();
            let Some((_, beta)) = COMPUTER_TOOLS.iter().find(|(v, _)| *v == version) else {
                return Err(format!(
                    "{at}.type: server tools ({kind}) are not supported by the scripted LLM server"
                ));
            };
            ensure!(
                betas.iter().any(|b| b == beta),
                "{at}: Input tag '{version}' found using 'type' does not match any of the expected tags: 'custom' (the `{version}` tool needs the header `anthropic-beta: {beta}`)"
            );
            computer_tool(t, version, model, &at)?;
            ensure!(
                !names.iter().any(|n| n == "computer"),
                "tools: Tool names must be unique (\"computer\" twice)"
            );
            names.push("computer".into());
            continue;
        }
        check_keys(
            t,
            &["name", "description", "input_schema", "cache_control", "type"],
            |k| format!("{at}.{k}: Extra inputs are not permitted"),
        )?;
        let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
        ensure!(
            valid_name(name),
            "{at}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$', got {name:?}"
        );
        ensure!(
            !names.iter().any(|n| n == name),
            "tools: Tool names must be unique ({name:?} twice)"
        );
        check_type(t, "description", "string", an(&format!("{at}.description")))?;
        let Some(schema) = t.get("input_schema") else {
            return Err(format!("{at}.input_schema: Field required"));
        };
        ensure!(
            schema.is_object() && schema["type"] == "object",
            "{at}.input_schema.type: Input should be 'object', got {}",
            schema["type"]
        );
        names.push(name.to_string());
    }
    Ok(names)
}

/// The `computer` tool: its name, the display size, and a version the model takes.
fn computer_tool(t: &Map<String, Value>, version: &str, model: &str, at: &str) -> Check {
    let mut allowed = vec![
        "type",
        "name",
        "display_width_px",
        "display_height_px",
        "display_number",
        "cache_control",
    ];
    if version == "computer_20251124" {
        allowed.push("enable_zoom");
        ensure!(
            !BEFORE_20251124.iter().any(|m| model.starts_with(m)),
            "{at}: the model {model} does not support the tool type '{version}'; use computer_20250124"
        );
    }
    check_keys(t, &allowed, |k| format!("{at}.{k}: Extra inputs are not permitted"))?;
    ensure!(
        t.get("name").and_then(Value::as_str) == Some("computer"),
        "{at}.name: Input should be 'computer'"
    );
    for key in ["display_width_px", "display_height_px"] {
        match t.get(key) {
            None => return Err(format!("{at}.{key}: Field required")),
            Some(v) => ensure!(
                v.as_u64().is_some_and(|n| n >= 1),
                "{at}.{key}: Input should be an integer greater than or equal to 1, got {v}"
            ),
        }
    }
    check_type(t, "display_number", "integer", an(&format!("{at}.display_number")))?;
    check_type(t, "enable_zoom", "boolean", an(&format!("{at}.enable_zoom")))?;
    Ok(())
}

/// One content block of a `role` message (or "system", or "tool_result"
/// for blocks nested in a tool result).
fn anthropic_block(b: &Value, at: &str, role: &str) -> Check {
    let Some(o) = b.as_object() else {
        return Err(format!(
            "{at}: Input should be a valid dictionary, got {}",
            type_name(b)
        ));
    };
    let kind = o.get("type").and_then(Value::as_str).unwrap_or_default();
    let allowed: &[&str] = match kind {
        "text" => &["type", "text", "cache_control", "citations"],
        "image" => &["type", "source", "cache_control"],
        "tool_use" => &["type", "id", "name", "input", "cache_control"],
        "tool_result" => &["type", "tool_use_id", "content", "is_error", "cache_control"],
        "" => return Err(format!("{at}.type: Field required")),
        other => {
            return Err(format!(
                "{at}.type: Input tag '{other}' found using 'type' does not match any of the expected tags: 'text', 'image', 'tool_use', 'tool_result'"
            ))
        }
    };
    check_keys(o, allowed, |k| format!("{at}.{k}: Extra inputs are not permitted"))?;
    match kind {
        "text" => {
            let text = o.get("text").and_then(Value::as_str);
            ensure!(text.is_some(), "{at}.text: Field required");
            ensure!(
                !text.unwrap_or_default().trim().is_empty(),
                "{at}: text content blocks must contain non-whitespace text"
            );
        }
        "image" => {
            let src = &o["source"];
            match src["type"].as_str() {
                Some("base64") => {
                    let mt = src["media_type"].as_str().unwrap_or_default();
                    ensure!(
                        matches!(mt, "image/jpeg" | "image/png" | "image/gif" | "image/webp"),
                        "{at}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp', got {}",
                        src["media_type"]
                    );
                    ensure!(
                        src["data"].as_str().is_some_and(|d| !d.is_empty()),
                        "{at}.source.data: Field required"
                    );
                }
                Some("url") => ensure!(src["url"].is_string(), "{at}.source.url: Field required"),
                _ => {
                    return Err(format!(
                        "{at}.source.type: Input should be 'base64' or 'url', got {}",
                        src["type"]
                    ))
                }
            }
        }
        "tool_use" => {
            ensure!(
                role == "assistant",
                "{at}: tool_use blocks are only allowed in assistant messages"
            );
            let id = o.get("id").and_then(Value::as_str).unwrap_or_default();
            ensure!(
                !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                "{at}.id: String should match pattern '^[a-zA-Z0-9_-]+$', got {id:?}"
            );
            let name = o.get("name").and_then(Value::as_str).unwrap_or_default();
            ensure!(!name.is_empty(), "{at}.name: Field required");
            ensure!(
                o.get("input").is_some_and(Value::is_object),
                "{at}.input: Input should be a valid dictionary"
            );
        }
        "tool_result" => {
            ensure!(
                role == "user",
                "{at}: tool_result blocks are only allowed in user messages"
            );
            ensure!(
                o.get("tool_use_id")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty()),
                "{at}.tool_use_id: Field required"
            );
            check_type(o, "is_error", "boolean", an(&format!("{at}.is_error")))?;
            match opt(o, "content") {
                None | Some(Value::String(_)) => {}
                Some(Value::Array(inner)) => {
                    for (k, ib) in inner.iter().enumerate() {
                        let iat = format!("{at}.content.{k}");
                        ensure!(
                            matches!(ib["type"].as_str(), Some("text" | "image")),
                            "{iat}.type: tool_result content may only hold text and image blocks"
                        );
                        anthropic_block(ib, &iat, "tool_result")?;
                    }
                }
                Some(v) => {
                    return Err(format!(
                        "{at}.content: Input should be a valid string or list, got {}",
                        type_name(v)
                    ))
                }
            }
        }
        _ => unreachable!(),
    }
    Ok(())
}

/// Roles, alternation, blocks, and tool_use ↔ tool_result pairing.
fn anthropic_messages(msgs: &[Value]) -> Check {
    let mut prev_role: Option<&str> = None;
    // tool_use ids of the previous (assistant) message: the next message
    // must answer every one of them, tool_result blocks first.
    let mut open: Vec<String> = Vec::new();
    let mut all_tool_use_ids: HashSet<String> = HashSet::new();
    for (i, m) in msgs.iter().enumerate() {
        let at = format!("messages.{i}");
        let Some(o) = m.as_object() else {
            return Err(format!(
                "{at}: Input should be a valid dictionary, got {}",
                type_name(m)
            ));
        };
        check_keys(o, &["role", "content"], |k| {
            format!("{at}.{k}: Extra inputs are not permitted")
        })?;
        let role = match o.get("role").and_then(Value::as_str) {
            Some(r @ ("user" | "assistant")) => r,
            Some("system") => return Err(format!(
                "{at}.role: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role."
            )),
            Some(other) => return Err(format!("{at}.role: Input should be 'user' or 'assistant', got {other:?}")),
            None => return Err(format!("{at}.role: Field required")),
        };
        ensure!(
            i > 0 || role == "user",
            "messages: first message must use the \"user\" role"
        );
        ensure!(
            prev_role != Some(role),
            "{at}: roles must alternate between \"user\" and \"assistant\", but messages.{} and {at} are both {role:?} (merge them into one turn)",
            i - 1
        );
        let is_final_assistant = role == "assistant" && i + 1 == msgs.len();
        let blocks: Vec<Value> = match o.get("content") {
            Some(Value::String(s)) => {
                ensure!(
                    !s.is_empty() || is_final_assistant,
                    "{at}: all messages must have non-empty content except for the optional final assistant message"
                );
                Vec::new()
            }
            Some(Value::Array(blocks)) => {
                ensure!(
                    !blocks.is_empty() || is_final_assistant,
                    "{at}: all messages must have non-empty content except for the optional final assistant message"
                );
                blocks.clone()
            }
            None => return Err(format!("{at}.content: Field required")),
            Some(v) => {
                return Err(format!(
                    "{at}.content: Input should be a valid string or list, got {}",
                    type_name(v)
                ))
            }
        };
        let mut uses = Vec::new();
        let mut results: Vec<String> = Vec::new();
        let mut seen_other = false;
        for (j, b) in blocks.iter().enumerate() {
            let bat = format!("{at}.content.{j}");
            anthropic_block(b, &bat, role)?;
            match b["type"].as_str() {
                Some("tool_use") => {
                    let id = b["id"].as_str().unwrap_or_default().to_string();
                    ensure!(
                        all_tool_use_ids.insert(id.clone()),
                        "{bat}: `tool_use` ids must be unique ({id:?} repeats)"
                    );
                    uses.push(id);
                }
                Some("tool_result") => {
                    ensure!(
                        !seen_other,
                        "{bat}: tool_result blocks must come first in the user message, before any other content"
                    );
                    let id = b["tool_use_id"].as_str().unwrap_or_default().to_string();
                    ensure!(
                        open.contains(&id) && !results.contains(&id),
                        "{bat}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                    );
                    results.push(id);
                }
                _ => seen_other = true,
            }
        }
        if role == "user" {
            let missing: Vec<&str> = open
                .iter()
                .filter(|id| !results.contains(id))
                .map(String::as_str)
                .collect();
            ensure!(
                missing.is_empty(),
                "{at}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                missing.join(", ")
            );
        }
        open = uses;
        prev_role = Some(role);
    }
    ensure!(
        open.is_empty(),
        "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        msgs.len() - 1,
        open.join(", ")
    );
    Ok(())
}

pub(crate) fn success(answer: Answer, rec: &Recorded, ctx: &RenderCtx) -> Value {
    let (content, stop, chars) = match answer {
        Answer::Text(t) => {
            let n = t.chars().count();
            (json!([{"type": "text", "text": t}]), "end_turn", n)
        }
        Answer::Computer { .. } => unreachable!("computer_call exists only in the Responses API"),
        Answer::Calls(calls) => {
            let mut chars = 0;
            let blocks: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, input))| {
                    chars += name.len() + input.to_string().chars().count();
                    json!({"type": "tool_use", "id": format!("toolu_01{}", fake_id(seed(ctx.port, ctx.index, 1, i), 22)),
                           "name": name, "input": input})
                })
                .collect();
            (Value::Array(blocks), "tool_use", chars)
        }
    };
    let (prompt, cached, completion) = token_counts(rec, ctx, chars);
    json!({
        "id": format!("msg_01{}", fake_id(seed(ctx.port, ctx.index, 0, 0), 22)),
        "type": "message",
        "role": "assistant",
        "model": rec.model().unwrap_or_default(),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {
            // Anthropic counts cache reads apart from input_tokens.
            "input_tokens": prompt - cached,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cached,
            "output_tokens": completion,
            "service_tier": "standard"
        }
    })
}

pub(crate) fn error(status: u16, kind: &str, message: &str) -> Response {
    let body = json!({"type": "error", "error": {"type": kind, "message": message},
                      "request_id": format!("req_011C{}", fake_id(u64::from(status) ^ message.len() as u64, 20))});
    Response::json(status, body.to_string())
}

pub(crate) fn error_type(status: u16) -> &'static str {
    match status {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        s if s >= 500 => "api_error",
        _ => "invalid_request_error",
    }
}

/// What Anthropic answers with these statuses.
pub(crate) fn default_error(code: u16) -> Response {
    let message = match code {
        401 => "invalid x-api-key",
        403 => "Your API key does not have permission to use the specified resource.",
        404 => "Not found (scripted).",
        429 => "Number of request tokens has exceeded your per-minute rate limit.",
        500 => "Internal server error",
        529 => "Overloaded",
        c if c >= 500 => "Internal server error",
        _ => "Bad request (scripted).",
    };
    error(code, error_type(code), message)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::*;

    fn with_computer(version: &str, model: &str) -> Value {
        let mut b = good_anthropic();
        b["model"] = json!(model);
        b["tools"].as_array_mut().unwrap().insert(
            0,
            json!({"type": version, "name": "computer", "display_width_px": 1280, "display_height_px": 800}),
        );
        b
    }

    #[test]
    fn the_computer_tool_needs_its_beta_and_a_model_that_takes_it() {
        let beta = |f: &str| vec![f.to_string()];
        let b = with_computer("computer_20250124", "claude-sonnet-4-5-20250929");
        validate(&b, &beta("computer-use-2025-01-24")).unwrap();
        assert!(validate(&b, &[])
            .unwrap_err()
            .contains("anthropic-beta: computer-use-2025-01-24"));
        assert!(validate(&b, &beta("computer-use-2025-11-24")).is_err());
        let new = with_computer("computer_20251124", "claude-sonnet-4-5-20250929");
        assert!(validate(&new, &beta("computer-use-2025-11-24"))
            .unwrap_err()
            .contains("does not support"));
        validate(
            &with_computer("computer_20251124", "claude-opus-4-6"),
            &beta("computer-use-2025-11-24"),
        )
        .unwrap();
        let mut bad = b.clone();
        bad["tools"][0]["name"] = json!("screen");
        assert!(validate(&bad, &beta("computer-use-2025-01-24"))
            .unwrap_err()
            .contains("'computer'"));
        let mut bad = b.clone();
        bad["tools"][0].as_object_mut().unwrap().remove("display_height_px");
        assert!(validate(&bad, &beta("computer-use-2025-01-24"))
            .unwrap_err()
            .contains("display_height_px"));
        let mut bad = b;
        bad["tools"][0]["enable_zoom"] = json!(true);
        assert!(validate(&bad, &beta("computer-use-2025-01-24"))
            .unwrap_err()
            .contains("enable_zoom"));
        assert!(betas(Some("computer-use-2025-01-24, nope"))
            .unwrap_err()
            .contains("nope"));
        assert_eq!(betas(None).unwrap(), Vec::<String>::new());
    }
}
