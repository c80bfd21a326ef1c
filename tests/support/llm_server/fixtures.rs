//! Request bodies and helpers the unit tests of every module share.
#![allow(dead_code)]

use serde_json::{json, Value};

use super::check::Check;
use super::{anthropic, openai_chat, Recorded, RenderCtx, Wire};

/// Anthropic validation without beta flags.
pub(crate) fn validate_anthropic(b: &Value) -> Check {
    anthropic::validate(b, &[])
}

pub(crate) fn strict_schema_value() -> Value {
    json!({
        "type": "object", "additionalProperties": false, "required": ["items", "note"],
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        },
        "$defs": {"item": {"type": "object", "additionalProperties": false, "required": ["name"],
                           "properties": {"name": {"type": "string"}}}}
    })
}

/// What the client sends for an act step with history (all features).
pub(crate) fn good_openai() -> Value {
    json!({
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "system", "content": "You act on web pages."},
            {"role": "user", "content": [
                {"type": "text", "text": "Instruction: click Buy"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "performAction", "arguments": "{\"elementId\":\"e1\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "removeBlocker", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "clicked"},
            {"role": "tool", "tool_call_id": "call_2", "content": "Error: nothing to remove"},
            {"role": "user", "content": "What next?"}
        ],
        "max_tokens": 4096,
        "temperature": 0.2,
        "tools": [
            {"type": "function", "function": {"name": "performAction", "description": "Act on an element",
                "parameters": {"type": "object", "properties": {"elementId": {"type": "string"}}, "required": ["elementId"]}}},
            {"type": "function", "function": {"name": "removeBlocker", "description": "Close an overlay",
                "parameters": {"type": "object"}}}
        ],
        "tool_choice": "required"
    })
}

pub(crate) fn good_openai_structured() -> Value {
    json!({
        "model": "gpt-4.1-mini",
        "messages": [{"role": "system", "content": "Extract."}, {"role": "user", "content": "the page"}],
        "max_tokens": 1000,
        "response_format": {"type": "json_schema", "json_schema": {"name": "extraction", "schema": strict_schema_value(), "strict": true}}
    })
}

pub(crate) fn good_anthropic() -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": "You act on web pages.",
        "temperature": 0.5,
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "Instruction: click Buy"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Clicking."},
                {"type": "tool_use", "id": "toolu_1", "name": "performAction", "input": {"elementId": "e1"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "clicked", "is_error": false},
                {"type": "text", "text": "What next?"}]}
        ],
        "tools": [
            {"name": "performAction", "description": "Act", "input_schema": {"type": "object", "properties": {"elementId": {"type": "string"}}}},
            {"name": "extraction", "description": "Give your answer by calling this tool.", "input_schema": {"type": "object"}}
        ],
        "tool_choice": {"type": "tool", "name": "extraction"}
    })
}

pub(crate) fn rejects(validate: fn(&Value) -> Check, base: Value, mutate: impl FnOnce(&mut Value), needle: &str) {
    let mut b = base;
    mutate(&mut b);
    match validate(&b) {
        Ok(()) => panic!("accepted, expected a rejection mentioning {needle:?}:\n{b:#}"),
        Err(e) => assert!(e.contains(needle), "rejection {e:?} does not mention {needle:?}"),
    }
}

pub(crate) fn oa_rejects(mutate: impl FnOnce(&mut Value), needle: &str) {
    rejects(openai_chat::validate, good_openai(), mutate, needle)
}

pub(crate) fn oa_structured_rejects(mutate: impl FnOnce(&mut Value), needle: &str) {
    rejects(openai_chat::validate, good_openai_structured(), mutate, needle)
}

pub(crate) fn an_rejects(mutate: impl FnOnce(&mut Value), needle: &str) {
    rejects(validate_anthropic, good_anthropic(), mutate, needle)
}

pub(crate) fn messages(b: &mut Value) -> &mut Vec<Value> {
    b["messages"].as_array_mut().unwrap()
}

pub(crate) fn rec(wire: Wire, body: Value, headers: &[(&str, &str)]) -> Recorded {
    Recorded {
        index: 0,
        wire: Some(wire),
        path: match wire {
            Wire::OpenAi => "/v1/chat/completions".into(),
            Wire::Anthropic => "/v1/messages".into(),
            Wire::OpenAiResponses => "/v1/responses".into(),
            Wire::Gemini => "/v1beta/models/gemini-2.5-computer-use-preview-10-2025:generateContent".into(),
        },
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
            .collect(),
        raw: body.to_string(),
        body,
        rejected: None,
        at: std::time::Instant::now(),
    }
}

pub(crate) const OA_HEADERS: &[(&str, &str)] = &[
    ("Authorization", "Bearer test-key"),
    ("Content-Type", "application/json"),
];
pub(crate) const AN_HEADERS: &[(&str, &str)] = &[
    ("x-api-key", "test-key"),
    ("anthropic-version", "2023-06-01"),
    ("content-type", "application/json"),
];

pub(crate) fn ctx() -> RenderCtx {
    RenderCtx {
        index: 3,
        port: 4000,
        cached_tokens: 0,
    }
}

/// A data URL of a 1×1 PNG.
pub(crate) const PNG_URL: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";

/// A computer-use step of the Responses API with chaining (what Sightline sends).
pub(crate) fn good_responses() -> Value {
    json!({
        "model": "computer-use-preview",
        "instructions": "You use a browser.",
        "previous_response_id": "resp_1",
        "input": [
            {"type": "computer_call_output", "call_id": "call_1",
             "output": {"type": "computer_screenshot", "image_url": PNG_URL, "current_url": "http://127.0.0.1/"},
             "acknowledged_safety_checks": [{"id": "cu_sc_1", "code": "malicious_instructions", "message": "m"}]},
            {"type": "function_call_output", "call_id": "call_2", "output": "{\"removed\":true}"},
            {"role": "user", "content": [{"type": "input_text", "text": "# Page position: top"}]}
        ],
        "tools": [
            {"type": "computer_use_preview", "display_width": 1280, "display_height": 720, "environment": "browser"},
            {"type": "function", "name": "removeBlocker", "description": "Close pop-ups",
             "parameters": {"type": "object", "properties": {}}, "strict": false}
        ],
        "tool_choice": "auto",
        "truncation": "auto",
        "max_output_tokens": 4096
    })
}

/// A Gemini computer-use conversation with a function call answered.
pub(crate) fn good_gemini() -> Value {
    json!({
        "systemInstruction": {"parts": [{"text": "You use a browser."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Subscribe"}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "click_at", "args": {"x": 500, "y": 300,
                    "safety_decision": {"decision": "require_confirmation", "explanation": "e"}}}},
                {"functionCall": {"name": "removeBlocker", "args": {}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "click_at", "response": {"url": "http://127.0.0.1/", "safety_acknowledgement": "true"},
                    "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]}},
                {"functionResponse": {"name": "removeBlocker", "response": {"result": "{}"}}},
                {"text": "# Page position: top"}]}
        ],
        "tools": [
            {"computerUse": {"environment": "ENVIRONMENT_BROWSER"}},
            {"functionDeclarations": [{"name": "removeBlocker", "description": "Close pop-ups",
                "parameters": {"type": "OBJECT", "properties": {"aggressive": {"type": "BOOLEAN"}}}}]}
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        "generationConfig": {"maxOutputTokens": 4096}
    })
}

pub(crate) const RESPONSES_HEADERS: &[(&str, &str)] = OA_HEADERS;
pub(crate) const GEMINI_HEADERS: &[(&str, &str)] =
    &[("x-goog-api-key", "test-key"), ("content-type", "application/json")];
