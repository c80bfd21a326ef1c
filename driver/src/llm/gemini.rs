//! Google Gemini `generateContent` wire format:
//! `POST {base_url}/v1beta/models/{model}:generateContent`, key in
//! `x-goog-api-key`. Turns are `contents` of `user` and `model` parts;
//! function calls come back as `functionCall` parts and are answered by
//! `functionResponse` parts in the next user turn, in order. Computer use is
//! the `computerUse` tool (`ENVIRONMENT_BROWSER`): its calls are Gemini's
//! own functions (`click_at`, `type_text_at`…) with coordinates on a 0–999
//! grid, each answered with the page's URL and a screenshot inside the
//! `functionResponse`. Schemas go through [`super::gemini_schema`].

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::computer::ComputerResult;
use super::gemini_schema::to_gemini;
use super::turns::turns;
use super::types::*;

pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// Ids of calls that came without one (older models): never sent back.
const LOCAL_ID_PREFIX: &str = "gemini-call-";

pub fn endpoint(base_url: &str, model: &str) -> String {
    let base = base_url.trim_end_matches('/');
    // Accept both "https://generativelanguage.googleapis.com" and ".../v1beta".
    if base.ends_with("/v1beta") || base.ends_with("/v1") {
        format!("{base}/models/{model}:generateContent")
    } else {
        format!("{base}/v1beta/models/{model}:generateContent")
    }
}

pub fn request_body(req: &ChatRequest, max_tokens: u32, temperature: Option<f32>) -> Value {
    let mut body = Map::new();
    if !req.system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": req.system}]}));
    }
    body.insert("contents".into(), Value::Array(contents(&req.messages)));
    let mut tools = Vec::new();
    if req.computer.is_some() {
        tools.push(json!({"computerUse": {"environment": "ENVIRONMENT_BROWSER"}}));
    }
    if !req.tools.is_empty() {
        let declarations: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "parameters": to_gemini(&t.parameters)}))
            .collect();
        tools.push(json!({"functionDeclarations": declarations}));
        let config = match &req.tool_choice {
            ToolChoice::Auto => json!({"mode": "AUTO"}),
            ToolChoice::Required => json!({"mode": "ANY"}),
            ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        };
        body.insert("toolConfig".into(), json!({"functionCallingConfig": config}));
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    let mut generation = Map::new();
    generation.insert("maxOutputTokens".into(), json!(req.max_tokens.unwrap_or(max_tokens)));
    if let Some(t) = temperature {
        generation.insert("temperature".into(), json!(t));
    }
    if let Some(rs) = &req.response_schema {
        generation.insert("responseMimeType".into(), json!("application/json"));
        generation.insert("responseSchema".into(), to_gemini(&rs.schema));
    }
    body.insert("generationConfig".into(), Value::Object(generation));
    Value::Object(body)
}

/// The contents: consecutive messages of one role merged into one turn,
/// function responses named after the calls they answer.
fn contents(msgs: &[Message]) -> Vec<Value> {
    let names: HashMap<&str, &str> = msgs
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some((c.id.as_str(), c.name.as_str())),
            _ => None,
        })
        .collect();
    let parts_of = |m: &Message| match (m.role, native_content(m)) {
        (Role::Assistant, Some(content)) => content,
        _ => m.parts.iter().filter_map(|p| part(p, &names)).collect(),
    };
    turns(msgs, parts_of, |p| p.get("functionResponse").is_some())
        .into_iter()
        .map(|(role, parts)| {
            let role = if role == Role::User { "user" } else { "model" };
            json!({"role": role, "parts": parts})
        })
        .collect()
}

/// The model's parts as it sent them (thought signatures included).
fn native_content(m: &Message) -> Option<Vec<Value>> {
    m.parts.iter().find_map(|p| match p {
        Part::Native {
            api: Api::GenerateContent,
            value,
        } => value.get("parts").and_then(Value::as_array).cloned(),
        _ => None,
    })
}

fn inline_png(png_base64: &str) -> Value {
    json!({"inlineData": {"mimeType": "image/png", "data": png_base64}})
}

fn part(p: &Part, names: &HashMap<&str, &str>) -> Option<Value> {
    Some(match p {
        Part::Text(t) if t.trim().is_empty() => return None,
        Part::Text(t) => json!({"text": t}),
        Part::Image { png_base64 } => inline_png(png_base64),
        Part::ToolCall(c) => {
            let mut call = json!({"name": c.name, "args": if c.arguments.is_object() { c.arguments.clone() } else { json!({"raw": c.arguments}) }});
            if !c.id.starts_with(LOCAL_ID_PREFIX) {
                call["id"] = json!(c.id);
            }
            json!({"functionCall": call})
        }
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            let name = names.get(call_id.as_str()).copied().unwrap_or(call_id.as_str());
            let response = if *is_error {
                json!({"error": content})
            } else {
                json!({"result": content})
            };
            function_response(call_id, name, response, None)
        }
        Part::ComputerResult(r) => computer_response(r),
        Part::Native { .. } => return None,
    })
}

fn function_response(call_id: &str, name: &str, response: Value, parts: Option<Vec<Value>>) -> Value {
    let mut fr = json!({"name": name, "response": response});
    if !call_id.starts_with(LOCAL_ID_PREFIX) {
        fr["id"] = json!(call_id);
    }
    if let Some(parts) = parts {
        fr["parts"] = Value::Array(parts);
    }
    json!({"functionResponse": fr})
}

/// A computer action's answer: the URL (required), the acknowledgement of
/// its safety decision, the screenshot inside the response, and the page
/// notes, which the model reads like the rest of the response.
fn computer_response(r: &ComputerResult) -> Value {
    let mut response = json!({"url": r.url});
    if !r.acknowledged.is_empty() {
        response["safety_acknowledgement"] = json!("true");
    }
    if let Some(e) = &r.error {
        response["error"] = json!(e);
    }
    if let Some(t) = r.text.as_deref().filter(|t| !t.trim().is_empty()) {
        response["page"] = json!(t);
    }
    let parts = r.screenshot_png_base64.as_deref().map(|png| vec![inline_png(png)]);
    function_response(&r.call_id, &r.name, response, parts)
}

/// Parses a 200 response body.
pub fn parse_response(body: &Value) -> Result<ChatResponse, String> {
    let Some(candidate) = body.get("candidates").and_then(|c| c.get(0)) else {
        let why = body["promptFeedback"]["blockReason"]
            .as_str()
            .map(|r| format!(" (the prompt was blocked: {r})"))
            .unwrap_or_default();
        return Err(format!("the response has no candidates{why}"));
    };
    let content = candidate
        .get("content")
        .cloned()
        .unwrap_or(json!({"role": "model", "parts": []}));
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (i, p) in content
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(call) = p.get("functionCall") {
            let name = call.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| format!("{LOCAL_ID_PREFIX}{i}-{name}"));
            tool_calls.push(ToolCall {
                id,
                name,
                arguments: call.get("args").cloned().unwrap_or_else(|| json!({})),
            });
        } else if p.get("thought") != Some(&Value::Bool(true)) {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                text.push_str(t);
            }
        }
    }
    let stop = match candidate.get("finishReason").and_then(Value::as_str) {
        _ if !tool_calls.is_empty() => StopReason::ToolUse,
        None | Some("STOP") => StopReason::EndTurn,
        Some("MAX_TOKENS") => StopReason::MaxTokens,
        Some("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY") => {
            StopReason::Refused
        }
        Some(_) => StopReason::Other,
    };
    let u = body.get("usageMetadata").cloned().unwrap_or(Value::Null);
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let usage = Usage {
        input_tokens: n(&u["promptTokenCount"]),
        output_tokens: n(&u["candidatesTokenCount"]) + n(&u["thoughtsTokenCount"]),
        cached_input_tokens: n(&u["cachedContentTokenCount"]),
        inference_ms: 0,
        calls: 1,
    };
    Ok(ChatResponse {
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        stop,
        usage,
        id: body.get("responseId").and_then(Value::as_str).map(str::to_string),
        native: Some((Api::GenerateContent, content)),
    })
}

/// `{"error": {"code", "message", "status"}}`.
pub fn error_message(body: &Value) -> Option<String> {
    body.get("error")
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

pub fn is_unknown_model(status: u16, body: &Value) -> bool {
    let msg = error_message(body).unwrap_or_default().to_ascii_lowercase();
    status == 404 && (body["error"]["status"] == "NOT_FOUND" || msg.contains("model"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{ComputerSpec, SafetyCheck};

    #[test]
    fn computer_use_tools_and_function_declarations() {
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
            tools: vec![ToolSpec::new(
                "removeBlocker",
                "d",
                json!({"type": "object", "properties": {"aggressive": {"type": "boolean"}}, "required": [], "additionalProperties": false}),
            )],
            computer: Some(ComputerSpec {
                display_width: 1440,
                display_height: 900,
            }),
            ..Default::default()
        };
        let b = request_body(&req, 1000, None);
        assert_eq!(
            b["tools"][0],
            json!({"computerUse": {"environment": "ENVIRONMENT_BROWSER"}})
        );
        assert_eq!(
            b["tools"][1]["functionDeclarations"][0]["parameters"],
            json!({"type": "OBJECT", "properties": {"aggressive": {"type": "BOOLEAN"}}})
        );
        assert_eq!(b["systemInstruction"]["parts"][0]["text"], "sys");
        assert_eq!(b["contents"][0]["parts"][1]["inlineData"]["mimeType"], "image/png");
        assert_eq!(b["toolConfig"]["functionCallingConfig"]["mode"], "AUTO");
    }

    #[test]
    fn function_responses_answer_calls_by_name_with_screenshot_and_url() {
        let answer = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "Clicking."},
            {"functionCall": {"name": "click_at", "args": {"x": 500, "y": 300,
                "safety_decision": {"decision": "require_confirmation", "explanation": "e"}}}, "thoughtSignature": "sig"},
            {"functionCall": {"name": "removeBlocker", "args": {}}}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "thoughtsTokenCount": 2}});
        let r = parse_response(&answer).unwrap();
        assert_eq!(r.stop, StopReason::ToolUse);
        let blocked = json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "SAFETY"}]});
        assert_eq!(parse_response(&blocked).unwrap().stop, StopReason::Refused);
        assert_eq!(r.usage.output_tokens, 7);
        assert_eq!(r.tool_calls[0].name, "click_at");
        let results = Message {
            role: Role::User,
            parts: vec![
                Part::ComputerResult(ComputerResult {
                    call_id: r.tool_calls[0].id.clone(),
                    name: "click_at".into(),
                    screenshot_png_base64: Some("AAAA".into()),
                    url: "http://a.test/".into(),
                    text: Some("# Page position".into()),
                    acknowledged: vec![SafetyCheck {
                        id: "x".into(),
                        code: "require_confirmation".into(),
                        message: "e".into(),
                    }],
                    error: None,
                }),
                Part::ToolResult {
                    call_id: r.tool_calls[1].id.clone(),
                    content: "{}".into(),
                    is_error: false,
                },
            ],
        };
        let msgs = vec![Message::user("go"), r.to_message(), results];
        let c = contents(&msgs);
        // The model turn goes back as it came (the thought signature with it).
        assert_eq!(c[1]["parts"], answer["candidates"][0]["content"]["parts"]);
        let fr = &c[2]["parts"][0]["functionResponse"];
        assert_eq!(fr["name"], "click_at");
        assert!(fr.get("id").is_none(), "ids the model did not send are not invented");
        assert_eq!(fr["response"]["url"], "http://a.test/");
        assert_eq!(fr["response"]["safety_acknowledgement"], "true");
        assert_eq!(fr["parts"][0]["inlineData"]["data"], "AAAA");
        assert_eq!(c[2]["parts"][1]["functionResponse"]["name"], "removeBlocker");
    }

    #[test]
    fn structured_output_and_endpoints() {
        let req = ChatRequest {
            messages: vec![Message::user("x")],
            response_schema: Some(ResponseSchema {
                name: "v".into(),
                schema: json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
            }),
            ..Default::default()
        };
        let b = request_body(&req, 100, Some(0.2));
        assert_eq!(b["generationConfig"]["responseMimeType"], "application/json");
        assert_eq!(b["generationConfig"]["responseSchema"]["type"], "OBJECT");
        assert_eq!(
            endpoint("http://127.0.0.1:9", "gemini-2.5-flash"),
            "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:generateContent"
        );
        assert_eq!(
            endpoint("https://x.test/v1beta/", "m"),
            "https://x.test/v1beta/models/m:generateContent"
        );
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
        assert!(parse_response(&blocked).unwrap_err().contains("SAFETY"));
    }
}
