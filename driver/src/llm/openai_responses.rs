//! OpenAI Responses wire format: `POST {base_url}/responses`. The only
//! OpenAI API with computer use: the `computer_use_preview` tool (display
//! size, `environment: "browser"`, `truncation: "auto"`) for the
//! `computer-use-preview` models, the plain `computer` tool for the models
//! after them; `computer_call` items answered by `computer_call_output`
//! items (screenshot, current URL, acknowledged safety checks); and
//! `previous_response_id` chaining, where the server keeps the history.
//! Function tools, structured output (`text.format`) and plain chat work as
//! they do in Chat Completions.

use serde_json::{json, Map, Value};

use super::computer::{ComputerResult, ComputerSpec, COMPUTER_TOOL};
use super::types::*;

pub fn endpoint(base_url: &str) -> String {
    format!("{}/responses", base_url.trim_end_matches('/'))
}

/// Models that only the Responses API serves (Chat Completions refuses them).
pub fn needs_responses_api(model: &str) -> bool {
    model.to_ascii_lowercase().starts_with("computer-use-preview")
}

/// The computer tool for `model`: the preview tool declares the display;
/// the tool of later models is just `{"type": "computer"}`.
fn computer_tool(model: &str, spec: ComputerSpec) -> Value {
    if needs_responses_api(model) {
        json!({"type": "computer_use_preview", "display_width": spec.display_width,
               "display_height": spec.display_height, "environment": "browser"})
    } else {
        json!({"type": "computer"})
    }
}

pub fn request_body(model: &str, req: &ChatRequest, max_tokens: u32, temperature: Option<f32>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    if !req.system.is_empty() {
        // Not carried over by previous_response_id: sent with every request.
        body.insert("instructions".into(), json!(req.system));
    }
    body.insert("input".into(), Value::Array(input(model, &req.messages)));
    if let Some(prev) = &req.previous_response_id {
        body.insert("previous_response_id".into(), json!(prev));
    }
    let limit = req.max_tokens.unwrap_or(max_tokens);
    if super::openai::is_reasoning_model(model) {
        // (As on Chat Completions: the limit counts the reasoning, and only
        // the default temperature is taken.)
        body.insert(
            "max_output_tokens".into(),
            json!(limit.max(super::openai::REASONING_MIN_OUTPUT_TOKENS)),
        );
    } else {
        body.insert("max_output_tokens".into(), json!(limit));
        if let Some(t) = temperature {
            body.insert("temperature".into(), json!(t));
        }
    }
    let mut tools: Vec<Value> = req.computer.iter().map(|c| computer_tool(model, *c)).collect();
    tools.extend(req.tools.iter().map(|t| {
        json!({"type": "function", "name": t.name, "description": t.description,
               "parameters": t.parameters, "strict": false})
    }));
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
        let choice = match &req.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
        };
        body.insert("tool_choice".into(), choice);
    }
    if req.computer.is_some() {
        // Required with computer use: old turns (screenshots) are dropped
        // server-side instead of failing the request when the context fills.
        body.insert("truncation".into(), json!("auto"));
    }
    if let Some(rs) = &req.response_schema {
        let strict = super::schema::fits_strict_mode(&rs.schema);
        body.insert(
            "text".into(),
            json!({"format": {"type": "json_schema", "name": rs.name, "schema": rs.schema, "strict": strict}}),
        );
    }
    Value::Object(body)
}

fn data_url(png_base64: &str) -> String {
    format!("data:image/png;base64,{png_base64}")
}

/// Input items: user content as messages, tool answers as their output
/// items, assistant turns as the output items they came as.
fn input(model: &str, msgs: &[Message]) -> Vec<Value> {
    let mut items = Vec::new();
    for m in msgs {
        match m.role {
            Role::Assistant => assistant_items(m, &mut items),
            Role::User => user_items(model, m, &mut items),
        }
    }
    items
}

fn assistant_items(m: &Message, items: &mut Vec<Value>) {
    if let Some(native) = m.parts.iter().find_map(|p| match p {
        Part::Native {
            api: Api::Responses,
            value: Value::Array(output),
        } => Some(output),
        _ => None,
    }) {
        // Reasoning items must stay paired with the calls that follow them.
        items.extend(native.iter().cloned());
        return;
    }
    let text: Vec<&str> = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) if !t.trim().is_empty() => Some(t.as_str()),
            _ => None,
        })
        .collect();
    if !text.is_empty() {
        items.push(json!({"role": "assistant", "content": [{"type": "output_text", "text": text.join("\n")}]}));
    }
    for p in &m.parts {
        if let Part::ToolCall(c) = p {
            if c.name == COMPUTER_TOOL {
                let mut call = json!({"type": "computer_call", "id": format!("cu_{}", c.id), "call_id": c.id,
                    "status": "completed", "pending_safety_checks": c.arguments.get("pending_safety_checks").cloned().unwrap_or(json!([]))});
                for key in ["action", "actions"] {
                    if let Some(v) = c.arguments.get(key) {
                        call[key] = v.clone();
                    }
                }
                items.push(call);
            } else {
                items.push(json!({"type": "function_call", "call_id": c.id, "name": c.name,
                                  "arguments": c.arguments_text()}));
            }
        }
    }
}

fn user_items(model: &str, m: &Message, items: &mut Vec<Value>) {
    let mut content = Vec::new();
    let mut notes = Vec::new();
    for p in &m.parts {
        match p {
            Part::Text(t) if !t.trim().is_empty() => content.push(json!({"type": "input_text", "text": t})),
            Part::Text(_) => {}
            Part::Image { png_base64 } => {
                content.push(json!({"type": "input_image", "image_url": data_url(png_base64), "detail": "high"}))
            }
            Part::ToolResult {
                call_id,
                content: c,
                is_error,
            } => {
                let output = if *is_error { format!("Error: {c}") } else { c.clone() };
                items.push(json!({"type": "function_call_output", "call_id": call_id, "output": output}));
            }
            Part::ComputerResult(r) => {
                items.push(computer_output(model, r));
                // The output item has room for a screenshot and a URL only:
                // errors and page notes follow as user text.
                if let Some(e) = &r.error {
                    notes.push(format!("The last action failed: {e}"));
                }
                notes.extend(r.text.iter().filter(|t| !t.trim().is_empty()).cloned());
            }
            Part::ToolCall(_) | Part::Native { .. } => {}
        }
    }
    content.extend(notes.into_iter().map(|t| json!({"type": "input_text", "text": t})));
    if !content.is_empty() {
        items.push(json!({"role": "user", "content": content}));
    }
}

/// `computer_call_output`: the screenshot and the page's URL (where
/// OpenAI's reference app puts it), and the safety checks acknowledged.
fn computer_output(model: &str, r: &ComputerResult) -> Value {
    let mut output = json!({"type": "computer_screenshot"});
    if let Some(png) = &r.screenshot_png_base64 {
        output["image_url"] = json!(data_url(png));
    }
    if needs_responses_api(model) {
        output["current_url"] = json!(r.url);
    } else {
        output["detail"] = json!("original");
    }
    let mut item = json!({"type": "computer_call_output", "call_id": r.call_id, "output": output});
    if !r.acknowledged.is_empty() {
        item["acknowledged_safety_checks"] = r
            .acknowledged
            .iter()
            .map(|c| json!({"id": c.id, "code": c.code, "message": c.message}))
            .collect();
    }
    item
}

/// Parses a 200 response body.
pub fn parse_response(body: &Value) -> Result<ChatResponse, String> {
    let output = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| "the response has no output".to_string())?;
    let mut text = Vec::new();
    let mut refused = false;
    let mut tool_calls = Vec::new();
    for item in output {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item.get("content").and_then(Value::as_array).into_iter().flatten() {
                    if let Some(t) = part.get("text").and_then(Value::as_str) {
                        text.push(t.to_string());
                    } else if let Some(r) = part.get("refusal").and_then(Value::as_str) {
                        refused = true;
                        text.push(r.to_string());
                    }
                }
            }
            Some("function_call") => tool_calls.push(ToolCall {
                id: str_of(item, "call_id"),
                name: str_of(item, "name"),
                arguments: match item.get("arguments") {
                    Some(Value::String(s)) if s.trim().is_empty() => json!({}),
                    Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| json!(s)),
                    Some(v @ Value::Object(_)) => v.clone(),
                    _ => json!({}),
                },
            }),
            Some("computer_call") => {
                let mut arguments = json!({"pending_safety_checks":
                    item.get("pending_safety_checks").cloned().unwrap_or(json!([]))});
                for key in ["action", "actions"] {
                    if let Some(v) = item.get(key).filter(|v| !v.is_null()) {
                        arguments[key] = v.clone();
                    }
                }
                tool_calls.push(ToolCall {
                    id: str_of(item, "call_id"),
                    name: COMPUTER_TOOL.into(),
                    arguments,
                });
            }
            _ => {}
        }
    }
    let incomplete = body.get("status").and_then(Value::as_str) == Some("incomplete");
    let stop = if !tool_calls.is_empty() {
        StopReason::ToolUse
    } else if refused || (incomplete && body["incomplete_details"]["reason"] == "content_filter") {
        StopReason::Refused
    } else if incomplete && body["incomplete_details"]["reason"] == "max_output_tokens" {
        StopReason::MaxTokens
    } else if incomplete {
        StopReason::Other
    } else {
        StopReason::EndTurn
    };
    let u = body.get("usage").cloned().unwrap_or(Value::Null);
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let usage = Usage {
        input_tokens: n(&u["input_tokens"]),
        output_tokens: n(&u["output_tokens"]),
        cached_input_tokens: n(&u["input_tokens_details"]["cached_tokens"]),
        inference_ms: 0,
        calls: 1,
    };
    Ok(ChatResponse {
        text: (!text.is_empty()).then(|| text.join("")),
        tool_calls,
        stop,
        usage,
        id: body.get("id").and_then(Value::as_str).map(str::to_string),
        native: Some((Api::Responses, Value::Array(output.clone()))),
    })
}

fn str_of(item: &Value, key: &str) -> String {
    item.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::SafetyCheck;

    fn spec() -> ComputerSpec {
        ComputerSpec {
            display_width: 1280,
            display_height: 720,
        }
    }

    #[test]
    fn computer_tools_by_model() {
        let req = ChatRequest {
            system: "sys".into(),
            messages: vec![Message {
                role: Role::User,
                parts: vec![
                    Part::Text("go".into()),
                    Part::Image {
                        png_base64: "AAAA".into(),
                    },
                ],
            }],
            tools: vec![ToolSpec::new("removeBlocker", "d", json!({"type": "object"}))],
            computer: Some(spec()),
            ..Default::default()
        };
        let b = request_body("computer-use-preview", &req, 1000, None);
        assert_eq!(
            b["tools"][0],
            json!({"type": "computer_use_preview", "display_width": 1280, "display_height": 720, "environment": "browser"})
        );
        assert_eq!(b["tools"][1]["name"], "removeBlocker");
        assert_eq!(b["tools"][1]["parameters"], json!({"type": "object"}));
        assert_eq!(b["truncation"], "auto");
        assert_eq!(b["instructions"], "sys");
        assert_eq!(b["input"][0]["content"][1]["image_url"], "data:image/png;base64,AAAA");
        let ga = request_body("gpt-5.4", &req, 1000, None);
        assert_eq!(ga["tools"][0], json!({"type": "computer"}));
    }

    #[test]
    fn chained_outputs_carry_screenshot_url_and_acknowledgements() {
        let check = SafetyCheck {
            id: "cu_sc_1".into(),
            code: "malicious_instructions".into(),
            message: "careful".into(),
        };
        let req = ChatRequest {
            messages: vec![Message {
                role: Role::User,
                parts: vec![
                    Part::ComputerResult(ComputerResult {
                        call_id: "call_1".into(),
                        name: COMPUTER_TOOL.into(),
                        screenshot_png_base64: Some("AAAA".into()),
                        url: "http://a.test/".into(),
                        text: Some("# Page position: top".into()),
                        error: None,
                        acknowledged: vec![check],
                    }),
                    Part::ToolResult {
                        call_id: "call_2".into(),
                        content: "removed".into(),
                        is_error: false,
                    },
                ],
            }],
            computer: Some(spec()),
            previous_response_id: Some("resp_1".into()),
            ..Default::default()
        };
        let b = request_body("computer-use-preview", &req, 1000, None);
        assert_eq!(b["previous_response_id"], "resp_1");
        let items = b["input"].as_array().unwrap();
        assert_eq!(items[0]["type"], "computer_call_output");
        assert_eq!(items[0]["output"]["current_url"], "http://a.test/");
        assert_eq!(items[0]["acknowledged_safety_checks"][0]["id"], "cu_sc_1");
        assert_eq!(items[1]["type"], "function_call_output");
        assert_eq!(items[2]["content"][0]["text"], "# Page position: top");
    }

    #[test]
    fn parses_computer_calls_function_calls_and_text() {
        let body = json!({"id": "resp_9", "status": "completed", "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
             "action": {"type": "click", "button": "left", "x": 10, "y": 20},
             "pending_safety_checks": [{"id": "cu_sc_1", "code": "sensitive_domain", "message": "m"}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_2", "name": "removeBlocker", "arguments": "{}"}],
            "usage": {"input_tokens": 10, "output_tokens": 4, "input_tokens_details": {"cached_tokens": 3}}});
        let r = parse_response(&body).unwrap();
        assert_eq!(r.id.as_deref(), Some("resp_9"));
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(r.tool_calls[0].name, COMPUTER_TOOL);
        assert_eq!(r.tool_calls[0].arguments["action"]["x"], 10);
        assert_eq!(
            r.tool_calls[0].arguments["pending_safety_checks"][0]["code"],
            "sensitive_domain"
        );
        assert_eq!(r.tool_calls[1].name, "removeBlocker");
        assert_eq!((r.usage.input_tokens, r.usage.cached_input_tokens), (10, 3));
        // Resent in full (no chaining), the output items go back as they came.
        let b = request_body(
            "computer-use-preview",
            &ChatRequest {
                messages: vec![Message::user("go"), r.to_message()],
                ..Default::default()
            },
            100,
            None,
        );
        assert_eq!(b["input"][1]["type"], "reasoning");
        let done = json!({"id": "resp_10", "status": "completed", "output": [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done", "annotations": []}]}],
            "usage": {"input_tokens": 1, "output_tokens": 1}});
        let r = parse_response(&done).unwrap();
        assert_eq!((r.text.as_deref(), r.stop), (Some("Done"), StopReason::EndTurn));
        let refused = json!({"output": [{"type": "message", "role": "assistant", "content": [
            {"type": "refusal", "refusal": "I cannot assist with that."}]}], "status": "completed"});
        let r = parse_response(&refused).unwrap();
        assert_eq!(
            (r.text.as_deref(), r.stop),
            (Some("I cannot assist with that."), StopReason::Refused)
        );
    }

    #[test]
    fn structured_output_is_a_text_format() {
        let req = ChatRequest {
            messages: vec![Message::user("x")],
            response_schema: Some(ResponseSchema {
                name: "verdict".into(),
                schema: json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false}),
            }),
            ..Default::default()
        };
        let b = request_body("gpt-5.4", &req, 100, None);
        assert_eq!(b["text"]["format"]["type"], "json_schema");
        assert_eq!(b["text"]["format"]["strict"], true);
        assert!(b.get("tools").is_none() && b.get("truncation").is_none());
    }
}
