//! Anthropic Messages wire format: `POST {base_url}/v1/messages`.
//! Structured output is a forced call of a tool whose input schema is the
//! wanted schema (the Messages API's way to get schema-shaped JSON).
//! Computer use is the beta `computer` tool (`computer_20250124`, or
//! `computer_20251124` for the models that take it) with its beta header;
//! each of its calls is answered by a `tool_result` holding the screenshot.

use serde_json::{json, Map, Value};

use super::computer::{ComputerResult, ComputerSpec, COMPUTER_TOOL};
use super::turns::turns;
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

/// Models that take the `computer_20251124` tool (Anthropic's table; the
/// others take `computer_20250124`, Claude 3.5 Sonnet the 2024 version).
const COMPUTER_20251124_MODELS: &[&str] = &[
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-opus-4-7",
    "claude-opus-4-8",
    "claude-sonnet-4-6",
    "claude-fable-5",
];

/// The `computer` tool's type and the `anthropic-beta` header it needs, for `model`.
pub fn computer_tool_version(model: &str) -> (&'static str, &'static str) {
    let m = model.to_ascii_lowercase();
    if COMPUTER_20251124_MODELS.iter().any(|p| m.starts_with(p)) {
        ("computer_20251124", "computer-use-2025-11-24")
    } else if m.starts_with("claude-3-5-sonnet") {
        ("computer_20241022", "computer-use-2024-10-22")
    } else {
        ("computer_20250124", "computer-use-2025-01-24")
    }
}

/// Extra headers of a request: the computer tool's beta flag.
pub fn beta_header(model: &str, req: &ChatRequest) -> Option<&'static str> {
    req.computer.map(|_| computer_tool_version(model).1)
}

fn computer_tool(model: &str, spec: ComputerSpec) -> Value {
    json!({
        "type": computer_tool_version(model).0,
        "name": COMPUTER_TOOL,
        "display_width_px": spec.display_width,
        "display_height_px": spec.display_height,
    })
}

pub fn request_body(model: &str, req: &ChatRequest, max_tokens: u32, temperature: Option<f32>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(req.max_tokens.unwrap_or(max_tokens)));
    // The tools and the system prompt are the same on every turn of a run:
    // one cache breakpoint after them (tools come first in the cache's
    // order) has later turns read them from the prompt cache, at a tenth of
    // the price. Too short a prefix is simply not cached.
    let cached = json!({"type": "ephemeral"});
    if !req.system.is_empty() {
        body.insert(
            "system".into(),
            json!([{"type": "text", "text": req.system, "cache_control": cached}]),
        );
    }
    if let Some(t) = temperature {
        body.insert("temperature".into(), json!(t.clamp(0.0, 1.0)));
    }
    body.insert("messages".into(), Value::Array(messages(&req.messages)));

    let mut tools: Vec<Value> = req.computer.iter().map(|c| computer_tool(model, *c)).collect();
    tools.extend(
        req.tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters})),
    );
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
        if req.system.is_empty() {
            if let Some(Value::Object(last)) = tools.last_mut() {
                last.insert("cache_control".into(), cached);
            }
        }
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
        Part::ComputerResult(r) => computer_result(r),
        // Sent by messages() instead of the parts it stands for.
        Part::Native { .. } => return None,
    })
}

/// A computer call's `tool_result`: the screenshot, then the URL and notes.
fn computer_result(r: &ComputerResult) -> Value {
    let mut content = Vec::new();
    if let Some(png) = &r.screenshot_png_base64 {
        content.push(json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}));
    }
    let mut text = format!("Current URL: {}", r.url);
    if let Some(e) = &r.error {
        text.push_str(&format!("\nError: {e}"));
    }
    if let Some(t) = r.text.as_deref().filter(|t| !t.trim().is_empty()) {
        text.push('\n');
        text.push_str(t);
    }
    content.push(json!({"type": "text", "text": text}));
    json!({"type": "tool_result", "tool_use_id": r.call_id, "content": content, "is_error": r.error.is_some()})
}

/// This API's native blocks of a message, if it carries them.
fn native_blocks(m: &Message) -> Option<Vec<Value>> {
    m.parts.iter().find_map(|p| match p {
        Part::Native {
            api: Api::Messages,
            value: Value::Array(blocks),
        } => Some(blocks.clone()),
        _ => None,
    })
}

/// Wire messages: consecutive messages of one role are merged (the API wants
/// turns), tool results first in their user turn, empty turns dropped.
fn messages(msgs: &[Message]) -> Vec<Value> {
    let blocks_of = |m: &Message| native_blocks(m).unwrap_or_else(|| m.parts.iter().filter_map(block).collect());
    turns(msgs, blocks_of, |b| b["type"] == "tool_result")
        .into_iter()
        .map(|(role, blocks)| {
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
    // Thinking (and other) blocks must go back unchanged: keep the turn as sent.
    let mut keep_native = false;
    for b in content {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(b.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some("tool_use") => tool_calls.push(ToolCall {
                id: b.get("id").and_then(Value::as_str).unwrap_or_default().to_string(),
                name: b.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                arguments: b.get("input").cloned().unwrap_or_else(|| json!({})),
            }),
            _ => keep_native = true,
        }
    }
    let stop = match body.get("stop_reason").and_then(Value::as_str) {
        Some("end_turn") | Some("stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some("refusal") => StopReason::Refused,
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
        id: body.get("id").and_then(Value::as_str).map(str::to_string),
        native: keep_native.then(|| (Api::Messages, Value::Array(content.clone()))),
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
    fn the_tools_and_the_system_prompt_are_cached_across_turns() {
        let tool = || ToolSpec::new("click", "Click.", json!({"type": "object"}));
        let req = ChatRequest {
            system: "You are a browser agent.".into(),
            messages: vec![Message::user("x")],
            tools: vec![tool(), tool()],
            ..Default::default()
        };
        let b = request_body("claude", &req, 1000, None);
        assert_eq!(
            b["system"],
            json!([{"type": "text", "text": "You are a browser agent.", "cache_control": {"type": "ephemeral"}}])
        );
        assert!(
            b["tools"][1].get("cache_control").is_none(),
            "one breakpoint, after the system prompt"
        );
        // Without a system prompt, the breakpoint is on the last tool.
        let b = request_body(
            "claude",
            &ChatRequest {
                system: String::new(),
                ..req
            },
            1000,
            None,
        );
        assert_eq!(b["tools"][1]["cache_control"], json!({"type": "ephemeral"}));
        assert!(b.get("system").is_none());
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
    fn computer_tool_beta_and_results() {
        let req = ChatRequest {
            messages: vec![Message {
                role: Role::User,
                parts: vec![Part::ComputerResult(ComputerResult {
                    call_id: "toolu_1".into(),
                    name: COMPUTER_TOOL.into(),
                    screenshot_png_base64: Some("iVBOR".into()),
                    url: "http://a.test/".into(),
                    text: Some("# Page position: at the top, 1 viewport below.".into()),
                    ..Default::default()
                })],
            }],
            tools: vec![ToolSpec::new("removeBlocker", "d", json!({"type": "object"}))],
            computer: Some(ComputerSpec {
                display_width: 1280,
                display_height: 800,
            }),
            ..Default::default()
        };
        let b = request_body("claude-sonnet-4-5-20250929", &req, 1000, None);
        assert_eq!(
            b["tools"][0],
            json!({"type": "computer_20250124", "name": "computer", "display_width_px": 1280, "display_height_px": 800})
        );
        assert_eq!(b["tools"][1]["name"], "removeBlocker");
        assert_eq!(
            beta_header("claude-sonnet-4-5-20250929", &req),
            Some("computer-use-2025-01-24")
        );
        assert_eq!(beta_header("claude-opus-4-6", &req), Some("computer-use-2025-11-24"));
        assert_eq!(computer_tool_version("claude-sonnet-4-6").0, "computer_20251124");
        let result = &b["messages"][0]["content"][0];
        assert_eq!(result["type"], "tool_result");
        assert_eq!(result["content"][0]["source"]["media_type"], "image/png");
        assert!(result["content"][1]["text"]
            .as_str()
            .unwrap()
            .starts_with("Current URL: http://a.test/\n# Page position"));
        assert_eq!(result["is_error"], false);
        assert_eq!(beta_header("claude-sonnet-4-5", &ChatRequest::default()), None);
    }

    #[test]
    fn thinking_blocks_go_back_unchanged() {
        let body = json!({"id": "msg_1", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "tool_use", "id": "t", "name": "computer", "input": {"action": "screenshot"}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 2}});
        let r = parse_response(&body).unwrap();
        assert_eq!(r.id.as_deref(), Some("msg_1"));
        let m = messages(&[Message::user("go"), r.to_message()]);
        assert_eq!(m[1]["content"], body["content"]);
        // A plain answer is rebuilt from its parts as before.
        let refused = json!({"content": [], "stop_reason": "refusal", "usage": {}});
        assert_eq!(parse_response(&refused).unwrap().stop, StopReason::Refused);
        let plain = json!({"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": {}});
        assert!(parse_response(&plain).unwrap().native.is_none());
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
