//! OpenAI-compatible Chat Completions wire format (OpenAI, Azure-style
//! gateways, OpenRouter, vLLM, llama.cpp server, Ollama):
//! `POST {base_url}/chat/completions`.

use serde_json::{json, Map, Value};

use super::types::*;

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

pub fn endpoint(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

/// The request body.
pub fn request_body(model: &str, req: &ChatRequest, max_tokens: u32, temperature: Option<f32>) -> Value {
    let mut messages = Vec::new();
    if !req.system.is_empty() {
        messages.push(json!({"role": "system", "content": req.system}));
    }
    for m in &req.messages {
        push_message(&mut messages, m);
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    let limit = req.max_tokens.unwrap_or(max_tokens);
    if is_reasoning_model(model) {
        // OpenAI's reasoning models refuse `max_tokens` (400, "use
        // max_completion_tokens") and any temperature but the default; their
        // limit counts the reasoning too.
        body.insert(
            "max_completion_tokens".into(),
            json!(limit.max(REASONING_MIN_OUTPUT_TOKENS)),
        );
    } else {
        body.insert("max_tokens".into(), json!(limit));
        if let Some(t) = temperature {
            body.insert("temperature".into(), json!(t));
        }
    }
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters}})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        let choice = match &req.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
        };
        body.insert("tool_choice".into(), choice);
    }
    if let Some(rs) = &req.response_schema {
        // strict only where the schema fits OpenAI's strict subset; arbitrary
        // user schemas (optional properties, open objects) would be refused.
        let strict = super::schema::fits_strict_mode(&rs.schema);
        body.insert(
            "response_format".into(),
            json!({"type": "json_schema", "json_schema": {"name": rs.name, "schema": rs.schema, "strict": strict}}),
        );
    }
    Value::Object(body)
}

/// The least output limit a reasoning model gets: the limit counts its
/// reasoning as well as the answer, and OpenAI advises leaving some 25,000
/// tokens for both (4,096 cut answers off mid-reasoning).
pub(super) const REASONING_MIN_OUTPUT_TOKENS: u32 = 25_000;

/// OpenAI's reasoning models by name: the o-series and gpt-5 (not
/// gpt-5-chat). Names with a vendor prefix (`openai/gpt-5` on a router)
/// are the router's to translate.
pub(super) fn is_reasoning_model(model: &str) -> bool {
    let o_series = model.len() > 1 && model.starts_with('o') && model.as_bytes()[1].is_ascii_digit();
    let gpt5 = model.starts_with("gpt-5") && !model.starts_with("gpt-5-chat");
    !model.contains('/') && (o_series || gpt5)
}

/// One neutral message becomes one or more wire messages: tool results are
/// separate `tool` messages, and must directly follow the assistant message
/// that called the tools.
fn push_message(out: &mut Vec<Value>, m: &Message) {
    match m.role {
        Role::Assistant => {
            let text: String = m
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n");
            let calls: Vec<Value> = m
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall(c) => Some(json!({"id": c.id, "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments_text()}})),
                    _ => None,
                })
                .collect();
            if text.is_empty() && calls.is_empty() {
                // (An empty answer: OpenAI refuses an assistant message with
                // neither content nor tool calls, as the other formats leave
                // such a turn out.)
                return;
            }
            let mut msg = Map::new();
            msg.insert("role".into(), json!("assistant"));
            msg.insert(
                "content".into(),
                if text.is_empty() { Value::Null } else { json!(text) },
            );
            if !calls.is_empty() {
                msg.insert("tool_calls".into(), Value::Array(calls));
            }
            out.push(Value::Object(msg));
        }
        Role::User => {
            let mut content: Vec<Value> = Vec::new();
            for p in &m.parts {
                match p {
                    Part::ToolResult { call_id, content: c, is_error } => {
                        let text = if *is_error { format!("Error: {c}") } else { c.clone() };
                        out.push(json!({"role": "tool", "tool_call_id": call_id, "content": text}));
                    }
                    Part::Text(t) => content.push(json!({"type": "text", "text": t})),
                    Part::Image { png_base64 } => content.push(
                        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png_base64}")}}),
                    ),
                    // Chat Completions has no computer use; native turns belong to other APIs.
                    Part::ToolCall(_) | Part::ComputerResult(_) | Part::Native { .. } => {}
                }
            }
            if content.is_empty() {
                return;
            }
            // Plain text stays a plain string: fewer bytes, and some
            // OpenAI-compatible servers only take strings.
            let only_text = content.iter().all(|c| c["type"] == "text");
            if only_text {
                let text: Vec<&str> = content.iter().filter_map(|c| c["text"].as_str()).collect();
                out.push(json!({"role": "user", "content": text.join("\n")}));
            } else {
                out.push(json!({"role": "user", "content": content}));
            }
        }
    }
}

/// Parses a 200 response body.
pub fn parse_response(body: &Value) -> Result<ChatResponse, String> {
    let choice = body
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| "the response has no choices".to_string())?;
    let message = choice
        .get("message")
        .ok_or_else(|| "the response choice has no message".to_string())?;
    let text = match message.get("content") {
        Some(Value::String(s)) => Some(s.clone()),
        // Some servers send content parts even in responses.
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
        ),
        _ => None,
    };
    // A refusal comes in its own field, with no content.
    let refusal = message
        .get("refusal")
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty());
    let text = text.filter(|t| !t.is_empty()).or(refusal.map(str::to_string));
    let mut tool_calls = Vec::new();
    if let Some(Value::Array(calls)) = message.get("tool_calls") {
        for c in calls {
            let f = c
                .get("function")
                .ok_or_else(|| "a tool call has no function".to_string())?;
            let name = f.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
            let arguments = match f.get("arguments") {
                Some(Value::String(s)) => parse_arguments(s),
                Some(v @ Value::Object(_)) => v.clone(),
                _ => json!({}),
            };
            let id = c.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
            tool_calls.push(ToolCall { id, name, arguments });
        }
    }
    let stop = match choice.get("finish_reason").and_then(Value::as_str) {
        _ if refusal.is_some() && tool_calls.is_empty() => StopReason::Refused,
        Some("content_filter") => StopReason::Refused,
        Some("stop") => StopReason::EndTurn,
        Some("tool_calls") | Some("function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        _ if !tool_calls.is_empty() => StopReason::ToolUse,
        _ => StopReason::Other,
    };
    let u = body.get("usage").cloned().unwrap_or(Value::Null);
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let usage = Usage {
        input_tokens: n(&u["prompt_tokens"]),
        output_tokens: n(&u["completion_tokens"]),
        cached_input_tokens: n(&u["prompt_tokens_details"]["cached_tokens"]),
        inference_ms: 0,
        calls: 1,
    };
    Ok(ChatResponse {
        text,
        tool_calls,
        stop,
        usage,
        id: body.get("id").and_then(Value::as_str).map(str::to_string),
        native: None,
    })
}

/// Tool arguments arrive as JSON text; junk is kept as a string so the
/// caller's validation can explain it to the model.
fn parse_arguments(s: &str) -> Value {
    if s.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_string()))
}

/// The error message in an error body (`{"error":{"message",…}}`).
pub fn error_message(body: &Value) -> Option<String> {
    let e = body.get("error")?;
    match e {
        Value::String(s) => Some(s.clone()),
        _ => e.get("message").and_then(Value::as_str).map(str::to_string),
    }
}

/// Whether an error body says the model does not exist.
pub fn is_unknown_model(status: u16, body: &Value) -> bool {
    let code = body["error"]["code"].as_str().unwrap_or_default();
    let msg = error_message(body).unwrap_or_default().to_ascii_lowercase();
    code == "model_not_found"
        || (status == 404 && msg.contains("model"))
        || (status == 400 && msg.contains("model") && (msg.contains("does not exist") || msg.contains("not found")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_models_get_max_completion_tokens_and_no_temperature() {
        let req = ChatRequest::default();
        for model in ["gpt-5", "gpt-5-mini", "o3", "o4-mini", "o1"] {
            let b = request_body(model, &req, 100, Some(0.2));
            assert_eq!(
                b["max_completion_tokens"],
                json!(REASONING_MIN_OUTPUT_TOKENS),
                "{model}"
            );
            assert!(
                b.get("max_tokens").is_none() && b.get("temperature").is_none(),
                "{model}: {b}"
            );
        }
        for model in [
            "gpt-4.1-mini",
            "gpt-5-chat-latest",
            "openai/gpt-5",
            "omni-local",
            "llama3",
        ] {
            let b = request_body(model, &req, 100, Some(0.2));
            assert_eq!(
                (b["max_tokens"].clone(), b["temperature"].clone()),
                (json!(100), json!(0.2_f32)),
                "{model}"
            );
        }
    }

    #[test]
    fn a_refusal_is_read_and_an_empty_turn_is_not_sent_back() {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": null,
            "refusal": "I can't help with that."}, "finish_reason": "stop"}]});
        let r = parse_response(&body).unwrap();
        assert_eq!(
            (r.text.as_deref(), r.stop),
            (Some("I can't help with that."), StopReason::Refused)
        );
        assert_eq!(r.stopped_short().unwrap(), "the model refused: I can't help with that.");
        // Its words go back as the assistant's turn; an empty answer is left out
        // (OpenAI refuses an assistant message with neither content nor tool calls).
        let empty = ChatResponse {
            text: None,
            tool_calls: vec![],
            stop: StopReason::EndTurn,
            usage: Usage::default(),
            id: None,
            native: None,
        };
        let req = ChatRequest {
            messages: vec![
                Message::user("hi"),
                r.to_message(),
                empty.to_message(),
                Message::user("again"),
            ],
            ..Default::default()
        };
        let b = request_body("m", &req, 100, None);
        let messages = b["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "{b}");
        assert_eq!(
            messages[1],
            json!({"role": "assistant", "content": "I can't help with that."})
        );
        let cut = json!({"choices": [{"message": {"content": "{\"a\": "}, "finish_reason": "length"}]});
        let r = parse_response(&cut).unwrap();
        assert!(r
            .explain("not JSON".into())
            .starts_with("the answer was cut off at the model's output limit"));
    }

    #[test]
    fn junk_arguments_go_back_as_the_models_own_text() {
        let junk = ToolCall {
            id: "c".into(),
            name: "act".into(),
            arguments: parse_arguments("{\"elementId\": \"e2\", \"descr"),
        };
        let req = ChatRequest {
            messages: vec![Message::user("hi"), Message::assistant(vec![Part::ToolCall(junk)])],
            ..Default::default()
        };
        let b = request_body("m", &req, 100, None);
        assert_eq!(
            b["messages"][1]["tool_calls"][0]["function"]["arguments"],
            json!("{\"elementId\": \"e2\", \"descr")
        );
    }

    #[test]
    fn tool_results_follow_their_calls_as_tool_messages() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "act".into(),
            arguments: json!({"a": 1}),
        };
        let req = ChatRequest {
            system: "sys".into(),
            messages: vec![
                Message::user("hi"),
                Message::assistant(vec![Part::ToolCall(call)]),
                Message::tool_results(vec![("call_1".into(), "done".into(), false)]),
                Message::user("next"),
            ],
            tools: vec![ToolSpec::new("act", "d", json!({"type": "object"}))],
            tool_choice: ToolChoice::Required,
            ..Default::default()
        };
        let b = request_body("m", &req, 100, None);
        let roles: Vec<&str> = b["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool", "user"]);
        assert_eq!(
            b["messages"][2]["tool_calls"][0]["function"]["arguments"],
            json!("{\"a\":1}")
        );
        assert_eq!(b["messages"][2]["content"], Value::Null);
        assert_eq!(b["tool_choice"], json!("required"));
    }

    #[test]
    fn parses_tool_calls_and_usage() {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{\"k\":2}"}}]},
            "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 4}}});
        let r = parse_response(&body).unwrap();
        assert_eq!(r.tool_calls[0].arguments, json!({"k": 2}));
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(
            (r.usage.input_tokens, r.usage.output_tokens, r.usage.cached_input_tokens),
            (10, 3, 4)
        );
    }

    #[test]
    fn unknown_model_detection() {
        let b = json!({"error": {"message": "The model `x` does not exist", "code": "model_not_found"}});
        assert!(is_unknown_model(404, &b));
        assert!(!is_unknown_model(400, &json!({"error": {"message": "bad tools"}})));
    }
}
