//! Anthropic Messages wire format: `POST {base_url}/v1/messages`.
//! Structured output is a forced call of a tool whose input schema is the
//! wanted schema (the Messages API's way to get schema-shaped JSON).

use serde_json::{json, Map, Value};

use super::types::*;

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const API_VERSION: &str = "2023-06-01";

pub fn endpoint(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    // Accept both "https://api.anthropic.com" and ".../v1".
    if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

pub fn request_body(model: &str, req: &ChatRequest, max_tokens: u32, temperature: Option<f32>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(req.max_tokens.unwrap_or(max_tokens)));
    if !req.system.is_empty() {
        body.insert("system".into(), json!(req.system));
    }
    if let Some(t) = temperature {
        body.insert("temperature".into(), json!(t.clamp(0.0, 1.0)));
    }
    body.insert("messages".into(), Value::Array(messages(&req.messages)));

    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
        .collect();
    let mut choice = match &req.tool_choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
    };
    if let Some(rs) = &req.response_schema {
        tools.push(
            json!({"name": rs.name, "description": "Give your answer by calling this tool.",
            "input_schema": rs.schema}),
        );
        choice = json!({"type": "tool", "name": rs.name});
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), choice);
    }
    Value::Object(body)
}

fn block(p: &Part) -> Option<Value> {
    Some(match p {
        Part::Text(t) if t.trim().is_empty() => return None,
        Part::Text(t) => json!({"type": "text", "text": t}),
        Part::Image { png_base64 } => {
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_base64}})
        }
        Part::ToolCall(c) => {
            // The API takes an object; a model's junk arguments are wrapped.
            let input = if c.arguments.is_object() {
                c.arguments.clone()
            } else {
                json!({"raw": c.arguments})
            };
            json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input})
        }
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            let content = if content.trim().is_empty() {
                "(empty)"
            } else {
                content.as_str()
            };
            json!({"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error})
        }
    })
}

/// Wire messages: consecutive messages of one role are merged (the API wants
/// turns), tool results first in their user turn, empty turns dropped.
fn messages(msgs: &[Message]) -> Vec<Value> {
    let mut out: Vec<(Role, Vec<Value>)> = Vec::new();
    for m in msgs {
        let blocks: Vec<Value> = m.parts.iter().filter_map(block).collect();
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((role, existing)) if *role == m.role => existing.extend(blocks),
            _ => out.push((m.role, blocks)),
        }
    }
    out.into_iter()
        .map(|(role, mut blocks)| {
            blocks.sort_by_key(|b| if b["type"] == "tool_result" { 0 } else { 1 });
            let role = if role == Role::User { "user" } else { "assistant" };
            json!({"role": role, "content": blocks})
        })
        .collect()
}

pub fn parse_response(body: &Value) -> Result<ChatResponse, String> {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| "the response has no content".to_string())?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for b in content {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(b.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some("tool_use") => tool_calls.push(ToolCall {
                id: b.get("id").and_then(Value::as_str).unwrap_or_default().to_string(),
                name: b.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                arguments: b.get("input").cloned().unwrap_or_else(|| json!({})),
            }),
            _ => {}
        }
    }
    let stop = match body.get("stop_reason").and_then(Value::as_str) {
        Some("end_turn") | Some("stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        _ => StopReason::Other,
    };
    let u = body.get("usage").cloned().unwrap_or(Value::Null);
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let cached = n(&u["cache_read_input_tokens"]);
    let usage = Usage {
        // Anthropic counts cache reads apart from input_tokens; report the
        // whole prompt as input, like OpenAI does.
        input_tokens: n(&u["input_tokens"]) + cached + n(&u["cache_creation_input_tokens"]),
        output_tokens: n(&u["output_tokens"]),
        cached_input_tokens: cached,
        inference_ms: 0,
        calls: 1,
    };
    Ok(ChatResponse {
        text: if text.is_empty() { None } else { Some(text) },
        tool_calls,
        stop,
        usage,
    })
}

pub fn error_message(body: &Value) -> Option<String> {
    body.get("error")
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

pub fn is_unknown_model(status: u16, body: &Value) -> bool {
    let kind = body["error"]["type"].as_str().unwrap_or_default();
    let msg = error_message(body).unwrap_or_default().to_ascii_lowercase();
    (status == 404 && (kind == "not_found_error" || msg.contains("model"))) || msg.starts_with("model:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_output_is_a_forced_tool() {
        let req = ChatRequest {
            system: "s".into(),
            messages: vec![Message::user("x")],
            response_schema: Some(ResponseSchema {
                name: "extraction".into(),
                schema: json!({"type": "object"}),
            }),
            ..Default::default()
        };
        let b = request_body("claude", &req, 1000, Some(1.5));
        assert_eq!(b["tool_choice"], json!({"type": "tool", "name": "extraction"}));
        assert_eq!(b["tools"][0]["input_schema"], json!({"type": "object"}));
        assert_eq!(b["max_tokens"], json!(1000));
        assert_eq!(b["temperature"], json!(1.0));
    }

    #[test]
    fn turns_merge_and_tool_results_come_first() {
        let call = ToolCall {
            id: "t1".into(),
            name: "a".into(),
            arguments: json!({}),
        };
        let msgs = vec![
            Message::user("go"),
            Message::assistant(vec![Part::Text("ok".into()), Part::ToolCall(call)]),
            Message::tool_results(vec![("t1".into(), "fine".into(), false)]),
            Message::user("page now"),
            Message::user(""),
        ];
        let m = messages(&msgs);
        assert_eq!(m.len(), 3);
        assert_eq!(m[2]["content"][0]["type"], "tool_result");
        assert_eq!(m[2]["content"][1]["text"], "page now");
        assert_eq!(m[2]["content"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn parses_usage_with_cache() {
        let body = json!({"content": [{"type": "tool_use", "id": "t", "name": "n", "input": {"a": 1}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 10}});
        let r = parse_response(&body).unwrap();
        assert_eq!(r.usage.input_tokens, 15);
        assert_eq!(r.usage.cached_input_tokens, 10);
        assert_eq!(r.tool_calls[0].arguments, json!({"a": 1}));
    }
}
