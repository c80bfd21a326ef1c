//! One request as the server saw it, and what tests read from it in any of
//! the four wire formats: the prompt text, the newest user turn, the tools,
//! structured-output settings, the declared computer display and the
//! screenshots (decoded).

use std::time::Instant;

use serde_json::Value;

use super::png::Png;
use super::{gemini, Wire};

/// One request as the server saw it (accepted or rejected).
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Position in [`LlmServer::requests`](super::LlmServer::requests), from 0.
    pub index: usize,
    /// Which API the path belongs to (None: unknown path or broken HTTP).
    pub wire: Option<Wire>,
    /// The request target as sent (path and query).
    pub path: String,
    /// Header names lowercased, values trimmed, in order.
    pub headers: Vec<(String, String)>,
    /// The parsed body (Null when it is not JSON).
    pub body: Value,
    /// The body as text.
    pub raw: String,
    /// Why the server refused the request, if it did.
    pub rejected: Option<String>,
    /// When its head arrived (benchmarks time steps by it).
    pub at: Instant,
}

impl Recorded {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }

    /// The model: the body's `model`, or Gemini's path segment.
    pub fn model(&self) -> Option<&str> {
        match self.wire {
            Some(Wire::Gemini) => gemini::model_in_path(self.path.split('?').next().unwrap_or_default()),
            _ => self.body.get("model").and_then(Value::as_str),
        }
    }

    /// Everything the model was shown, one piece per line: system prompt,
    /// message text and content parts, tool results, tool call arguments,
    /// tool descriptions and schemas, the response schema. Images are left
    /// out. For asserting what did (or did not) reach the model.
    pub fn prompt_text(&self) -> String {
        let b = &self.body;
        let mut out = Vec::new();
        match self.wire {
            Some(Wire::Anthropic) => {
                push_content(&mut out, &b["system"]);
                for m in arr(&b["messages"]) {
                    push_content(&mut out, &m["content"]);
                }
                for t in arr(&b["tools"]) {
                    push_any(&mut out, &t["description"]);
                    push_any(&mut out, &t["input_schema"]);
                }
            }
            Some(Wire::OpenAiResponses) => {
                push_any(&mut out, &b["instructions"]);
                push_items(&mut out, &b["input"]);
                for t in arr(&b["tools"]) {
                    push_any(&mut out, &t["description"]);
                    push_any(&mut out, &t["parameters"]);
                }
                push_any(&mut out, &b["text"]["format"]["schema"]);
            }
            Some(Wire::Gemini) => {
                push_gemini_parts(&mut out, &b["systemInstruction"]["parts"]);
                for c in arr(&b["contents"]) {
                    push_gemini_parts(&mut out, &c["parts"]);
                }
                for t in arr(&b["tools"]) {
                    for d in arr(&t["functionDeclarations"]) {
                        push_any(&mut out, &d["description"]);
                        push_any(&mut out, &d["parameters"]);
                    }
                }
                push_any(&mut out, &b["generationConfig"]["responseSchema"]);
            }
            _ => {
                for m in arr(&b["messages"]) {
                    push_content(&mut out, &m["content"]);
                    for c in arr(&m["tool_calls"]) {
                        push_any(&mut out, &c["function"]["arguments"]);
                    }
                }
                for t in arr(&b["tools"]) {
                    push_any(&mut out, &t["function"]["description"]);
                    push_any(&mut out, &t["function"]["parameters"]);
                }
                let js = &b["response_format"]["json_schema"];
                push_any(&mut out, &js["description"]);
                push_any(&mut out, &js["schema"]);
            }
        }
        out.join("\n")
    }

    /// The newest input the model sees: the last user turn. For Anthropic
    /// and Gemini that is the last `user` message (text, tool results); for
    /// OpenAI Chat every `user` and `tool` message after the last assistant
    /// message; for OpenAI Responses the input items after the last output
    /// item (with chaining, the whole input is the new turn).
    pub fn last_user_text(&self) -> String {
        let mut out = Vec::new();
        match self.wire {
            Some(Wire::OpenAiResponses) => {
                let items = arr(&self.body["input"]);
                let start = items
                    .iter()
                    .rposition(|i| {
                        i["role"] == "assistant"
                            || matches!(
                                i["type"].as_str(),
                                Some("function_call" | "computer_call" | "reasoning")
                            )
                    })
                    .map_or(0, |i| i + 1);
                if let Value::String(s) = &self.body["input"] {
                    out.push(s.clone());
                }
                for item in &items[start..] {
                    push_item(&mut out, item);
                }
            }
            Some(Wire::Gemini) => {
                if let Some(c) = arr(&self.body["contents"]).iter().rev().find(|c| c["role"] != "model") {
                    push_gemini_parts(&mut out, &c["parts"]);
                }
            }
            wire => {
                let msgs = arr(&self.body["messages"]);
                if wire != Some(Wire::Anthropic) {
                    let start = msgs.iter().rposition(|m| m["role"] == "assistant").map_or(0, |i| i + 1);
                    for m in &msgs[start..] {
                        if m["role"] == "user" || m["role"] == "tool" {
                            push_content(&mut out, &m["content"]);
                        }
                    }
                }
                if out.is_empty() {
                    if let Some(m) = msgs.iter().rev().find(|m| m["role"] == "user") {
                        push_content(&mut out, &m["content"]);
                    }
                }
            }
        }
        out.join("\n")
    }

    /// Names of the declared tools, in order (a computer tool is `computer`).
    pub fn tool_names(&self) -> Vec<String> {
        let b = &self.body;
        match self.wire {
            Some(Wire::Gemini) => arr(&b["tools"])
                .iter()
                .flat_map(|t| arr(&t["functionDeclarations"]))
                .filter_map(|d| d["name"].as_str().map(str::to_string))
                .collect(),
            Some(Wire::OpenAiResponses) => arr(&b["tools"])
                .iter()
                .filter_map(|t| match t["type"].as_str() {
                    Some("function") => t["name"].as_str().map(str::to_string),
                    Some("computer" | "computer_use_preview") => Some("computer".to_string()),
                    _ => None,
                })
                .collect(),
            _ => arr(&b["tools"])
                .iter()
                .filter_map(|t| t.get("function").map_or(t.get("name"), |f| f.get("name")))
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        }
    }

    /// The tool the request forces: OpenAI Chat `{"type":"function","function":{name}}`,
    /// Responses `{"type":"function","name"}`, Anthropic `{"type":"tool","name"}`,
    /// Gemini `ANY` with one allowed function.
    pub fn forced_tool(&self) -> Option<String> {
        if self.wire == Some(Wire::Gemini) {
            let config = &self.body["toolConfig"]["functionCallingConfig"];
            let allowed = arr(&config["allowedFunctionNames"]);
            return (config["mode"] == "ANY" && allowed.len() == 1)
                .then(|| allowed[0].as_str().map(str::to_string))
                .flatten();
        }
        let c = &self.body["tool_choice"];
        let name = match c["type"].as_str() {
            Some("function") => c["function"]["name"].as_str().or(c["name"].as_str()),
            Some("tool") => c["name"].as_str(),
            _ => None,
        };
        name.map(str::to_string)
    }

    /// Whether the request asks for JSON output (OpenAI `response_format`,
    /// Responses `text.format`, Gemini `responseMimeType`).
    pub fn has_response_format(&self) -> bool {
        match self.wire {
            Some(Wire::OpenAiResponses) => {
                matches!(
                    self.body["text"]["format"]["type"].as_str(),
                    Some("json_schema" | "json_object")
                )
            }
            Some(Wire::Gemini) => self.body["generationConfig"]["responseMimeType"] == "application/json",
            Some(Wire::Anthropic) => false,
            _ => !self.body["response_format"].is_null(),
        }
    }

    /// The schema structured output must match: OpenAI Chat's
    /// `response_format.json_schema.schema`, Responses' `text.format.schema`,
    /// the schema of the tool an Anthropic request forces, Gemini's
    /// `generationConfig.responseSchema` (in Gemini's form: upper-case types).
    pub fn response_schema(&self) -> Option<&Value> {
        let b = &self.body;
        let schema = match self.wire {
            Some(Wire::OpenAi) => &b["response_format"]["json_schema"]["schema"],
            Some(Wire::OpenAiResponses) => &b["text"]["format"]["schema"],
            Some(Wire::Gemini) => &b["generationConfig"]["responseSchema"],
            Some(Wire::Anthropic) => {
                let forced = self.forced_tool()?;
                let tool = arr(&b["tools"]).iter().find(|t| t["name"] == forced.as_str())?;
                &tool["input_schema"]
            }
            None => return None,
        };
        (!schema.is_null()).then_some(schema)
    }

    /// The display the request's computer tool declares: Anthropic's
    /// `display_width_px`/`display_height_px`, OpenAI's preview tool's
    /// `display_width`/`display_height` (Gemini and OpenAI's GA tool declare none).
    pub fn declared_display(&self) -> Option<(u32, u32)> {
        arr(&self.body["tools"]).iter().find_map(|t| {
            let (w, h) = match self.wire {
                Some(Wire::Anthropic) => (&t["display_width_px"], &t["display_height_px"]),
                _ => (&t["display_width"], &t["display_height"]),
            };
            Some((u32::try_from(w.as_u64()?).ok()?, u32::try_from(h.as_u64()?).ok()?))
        })
    }

    /// Every image in the request (base64 PNG or JPEG data), in order:
    /// message images, tool results' images, computer call outputs,
    /// Gemini's inline data (inside function responses too).
    pub fn images(&self) -> Vec<String> {
        let mut out = Vec::new();
        collect_images(&self.body, &mut out);
        out
    }

    /// The request's images, decoded (panics naming the request when one is not a PNG).
    pub fn screenshots(&self) -> Vec<Png> {
        self.images()
            .iter()
            .enumerate()
            .map(|(i, data)| {
                Png::from_base64(data).unwrap_or_else(|e| panic!("request #{} image {i} is not a PNG: {e}", self.index))
            })
            .collect()
    }
}

pub(crate) fn arr(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// Strings as they are, other JSON as JSON text, null skipped.
pub(crate) fn push_any(out: &mut Vec<String>, v: &Value) {
    match v {
        Value::Null => {}
        Value::String(s) => out.push(s.clone()),
        other => out.push(other.to_string()),
    }
}

/// Message content of the Chat and Messages formats: a string, or
/// blocks/parts whose text, tool_use input and tool_result content count
/// (images do not).
pub(crate) fn push_content(out: &mut Vec<String>, content: &Value) {
    match content {
        Value::String(s) => out.push(s.clone()),
        Value::Array(blocks) => {
            for b in blocks {
                match b["type"].as_str() {
                    Some("text" | "input_text" | "output_text") => push_any(out, &b["text"]),
                    Some("tool_use") => push_any(out, &b["input"]),
                    Some("tool_result") => push_content(out, &b["content"]),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Responses `input`: a string, or items.
fn push_items(out: &mut Vec<String>, input: &Value) {
    match input {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| push_item(out, i)),
        _ => {}
    }
}

fn push_item(out: &mut Vec<String>, item: &Value) {
    match item["type"].as_str() {
        Some("function_call") => push_any(out, &item["arguments"]),
        Some("function_call_output") => push_any(out, &item["output"]),
        Some("computer_call_output" | "computer_call" | "reasoning") => {}
        _ => push_content(out, &item["content"]),
    }
}

/// Gemini parts: text, function call arguments, function responses.
fn push_gemini_parts(out: &mut Vec<String>, parts: &Value) {
    for p in arr(parts) {
        push_any(out, &p["text"]);
        push_any(out, &p["functionCall"]["args"]);
        let response = &p["functionResponse"]["response"];
        if !response.is_null() {
            out.push(response.to_string());
        }
    }
}

/// Image data anywhere in a body: Anthropic `source.data`, OpenAI
/// `image_url` (string or `{url}`) data URLs, Gemini `inlineData.data`.
fn collect_images(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if o.get("type").and_then(Value::as_str) == Some("base64") {
                if let Some(d) = o.get("data").and_then(Value::as_str) {
                    out.push(d.to_string());
                }
            }
            if let Some(d) = o.get("inlineData").and_then(|i| i.get("data")).and_then(Value::as_str) {
                out.push(d.to_string());
            }
            let url = match o.get("image_url") {
                Some(Value::String(u)) => Some(u.as_str()),
                Some(Value::Object(u)) => u.get("url").and_then(Value::as_str),
                _ => None,
            };
            if let Some((_, data)) = url
                .and_then(|u| u.strip_prefix("data:image/"))
                .and_then(|r| r.split_once(";base64,"))
            {
                out.push(data.to_string());
            }
            for (k, child) in o {
                if k != "inlineData" {
                    collect_images(child, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|c| collect_images(c, out)),
        _ => {}
    }
}
