//! OpenAI Chat Completions (`POST /v1/chat/completions`): request
//! validation as the API does it (parameters, messages and tool-call
//! pairing, tools, tool_choice, response_format and strict-mode schemas),
//! the reply shapes, and OpenAI's error shape (also the Responses API's).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::check::*;
use super::http::Response;
use super::ids::{fake_id, seed};
use super::recorded::{arr, push_content};
use super::{token_counts, Answer, Recorded, RenderCtx};

const OPENAI_KEYS: &[&str] = &[
    "model",
    "messages",
    "tools",
    "tool_choice",
    "response_format",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "n",
    "stream",
    "stop",
    "seed",
    "user",
    "parallel_tool_calls",
    "presence_penalty",
    "frequency_penalty",
    "logprobs",
    "top_logprobs",
    "metadata",
    "store",
    "reasoning_effort",
    "stream_options",
    "service_tier",
    "prediction",
    "modalities",
    "audio",
    "logit_bias",
];

/// OpenAI's `Invalid 'param': problem` messages.
pub(crate) fn oa(param: &str) -> impl Fn(&str) -> String + '_ {
    move |problem| format!("Invalid '{param}': {problem}")
}

pub(crate) fn validate(body: &Value) -> Check {
    let Some(o) = body.as_object() else {
        return Err(format!(
            "The request body must be a JSON object, got {}",
            type_name(body)
        ));
    };
    check_keys(o, OPENAI_KEYS, |k| {
        format!("Unrecognized request argument supplied: {k}")
    })?;
    match o.get("model") {
        Some(Value::String(m)) if !m.trim().is_empty() => {}
        Some(Value::String(_)) | None | Some(Value::Null) => return Err("you must provide a model parameter".into()),
        Some(v) => {
            return Err(format!(
                "Invalid type for 'model': expected a string, got {}",
                type_name(v)
            ))
        }
    }
    check_stream(o, oa("stream"))?;
    ensure!(
        opt(o, "stream_options").is_none() || opt(o, "stream") == Some(&Value::Bool(true)),
        "The 'stream_options' parameter is only allowed when 'stream' is enabled."
    );
    let msgs = match o.get("messages") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(Value::Array(_)) => {
            return Err("Invalid 'messages': empty array. Expected an array with minimum length 1".into())
        }
        None | Some(Value::Null) => return Err("Missing required parameter: 'messages'.".into()),
        Some(v) => {
            return Err(format!(
                "Invalid type for 'messages': expected an array, got {}",
                type_name(v)
            ))
        }
    };
    openai_messages(msgs)?;
    let tools = openai_tools(o)?;
    openai_tool_choice(o, tools.as_deref())?;
    ensure!(
        opt(o, "parallel_tool_calls").is_none() || tools.is_some(),
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."
    );
    openai_response_format(o, msgs)?;
    check_positive_int(o, "max_tokens", oa("max_tokens"))?;
    check_positive_int(o, "max_completion_tokens", oa("max_completion_tokens"))?;
    check_positive_int(o, "n", oa("n"))?;
    check_number(o, "temperature", 0.0, 2.0, oa("temperature"))?;
    check_number(o, "top_p", 0.0, 1.0, oa("top_p"))?;
    check_number(o, "presence_penalty", -2.0, 2.0, oa("presence_penalty"))?;
    check_number(o, "frequency_penalty", -2.0, 2.0, oa("frequency_penalty"))?;
    check_number(o, "top_logprobs", 0.0, 20.0, oa("top_logprobs"))?;
    check_type(o, "seed", "integer", oa("seed"))?;
    check_type(o, "user", "string", oa("user"))?;
    check_type(o, "logprobs", "boolean", oa("logprobs"))?;
    check_type(o, "store", "boolean", oa("store"))?;
    check_type(o, "metadata", "object", oa("metadata"))?;
    check_type(o, "parallel_tool_calls", "boolean", oa("parallel_tool_calls"))?;
    if let Some(stop) = opt(o, "stop") {
        let ok = stop.is_string()
            || stop
                .as_array()
                .is_some_and(|a| a.len() <= 4 && a.iter().all(Value::is_string));
        ensure!(ok, "Invalid 'stop': expected a string or up to 4 strings");
    }
    if let Some(effort) = opt(o, "reasoning_effort") {
        ensure!(
            matches!(effort.as_str(), Some("none" | "minimal" | "low" | "medium" | "high")),
            "Invalid value for 'reasoning_effort': {effort}"
        );
    }
    Ok(())
}

/// Text-only content (system, developer, tool messages): a string or text parts.
fn openai_text_content(content: Option<&Value>, at: &str, extra_part: Option<&str>) -> Check {
    match content {
        Some(Value::String(_)) => Ok(()),
        Some(Value::Array(parts)) => {
            ensure!(
                !parts.is_empty(),
                "Invalid '{at}.content': empty array. Expected an array with minimum length 1"
            );
            for (j, p) in parts.iter().enumerate() {
                let t = p["type"].as_str().unwrap_or_default();
                if t == "text" || Some(t) == extra_part {
                    let field = if t == "text" { "text" } else { t };
                    ensure!(
                        p[field].is_string(),
                        "Missing required parameter: '{at}.content[{j}].{field}'."
                    );
                } else {
                    return Err(format!(
                        "Invalid value: '{t}'. Supported values are: 'text'{}. ('{at}.content[{j}].type')",
                        extra_part.map(|e| format!(" and '{e}'")).unwrap_or_default()
                    ));
                }
            }
            Ok(())
        }
        None | Some(Value::Null) => Err(format!("Missing required parameter: '{at}.content'.")),
        Some(v) => Err(format!(
            "Invalid type for '{at}.content': expected a string or an array of content parts, got {}",
            type_name(v)
        )),
    }
}

pub(crate) fn openai_user_content(content: Option<&Value>, at: &str) -> Check {
    let Some(Value::Array(parts)) = content else {
        return openai_text_content(content, at, None);
    };
    ensure!(
        !parts.is_empty(),
        "Invalid '{at}.content': empty array. Expected an array with minimum length 1"
    );
    for (j, p) in parts.iter().enumerate() {
        let pat = format!("{at}.content[{j}]");
        match p["type"].as_str() {
            Some("text") => ensure!(p["text"].is_string(), "Missing required parameter: '{pat}.text'."),
            Some("image_url") => {
                let url = p["image_url"]["url"].as_str();
                ensure!(url.is_some(), "Missing required parameter: '{pat}.image_url.url'.");
                ensure!(
                    valid_image_url(url.unwrap_or_default()),
                    "Invalid '{pat}.image_url.url': expected an http(s) URL or a base64 data URL of an image"
                );
                if let Some(d) = p["image_url"].get("detail").filter(|d| !d.is_null()) {
                    ensure!(
                        matches!(d.as_str(), Some("auto" | "low" | "high")),
                        "Invalid value for '{pat}.image_url.detail': {d}"
                    );
                }
            }
            Some(t) => {
                return Err(format!(
                    "Invalid value: '{t}'. Supported values are: 'text' and 'image_url'. ('{pat}.type')"
                ))
            }
            None => return Err(format!("Missing required parameter: '{pat}.type'.")),
        }
    }
    Ok(())
}

/// Message shapes, roles, and tool call ↔ tool message pairing.
fn openai_messages(msgs: &[Value]) -> Check {
    // Unanswered tool call ids of the latest assistant message; tool messages
    // may only come directly after it, one per id.
    let mut pending: Vec<String> = Vec::new();
    let mut in_tool_run = false;
    for (i, m) in msgs.iter().enumerate() {
        let at = format!("messages[{i}]");
        let Some(o) = m.as_object() else {
            return Err(format!(
                "Invalid type for '{at}': expected an object, got {}",
                type_name(m)
            ));
        };
        let Some(role) = o.get("role").and_then(Value::as_str) else {
            return Err(format!("Missing required parameter: '{at}.role'."));
        };
        let allowed: &[&str] = match role {
            "system" | "developer" | "user" => &["role", "content", "name"],
            "assistant" => &["role", "content", "name", "tool_calls", "refusal", "audio", "function_call"],
            "tool" => &["role", "content", "tool_call_id"],
            other => {
                return Err(format!(
                    "Invalid value: '{other}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'. ('{at}.role')"
                ))
            }
        };
        check_keys(o, allowed, |k| {
            format!("Additional properties are not allowed ('{k}' was unexpected) - '{at}'")
        })?;
        if role != "tool" {
            ensure!(
                pending.is_empty(),
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {} (before '{at}')",
                pending.join(", ")
            );
            in_tool_run = false;
        }
        check_type(o, "name", "string", oa(&format!("{at}.name")))?;
        match role {
            "system" | "developer" => openai_text_content(o.get("content"), &at, None)?,
            "user" => openai_user_content(o.get("content"), &at)?,
            "assistant" => {
                let content = opt(o, "content");
                if content.is_some() {
                    openai_text_content(content, &at, Some("refusal"))?;
                }
                let ids = openai_tool_calls(o, &at)?;
                ensure!(
                    content.is_some() || !ids.is_empty(),
                    "Invalid value for '{at}.content': expected a string, got null. (An assistant message needs content unless it has tool_calls.)"
                );
                in_tool_run = !ids.is_empty();
                pending = ids;
            }
            "tool" => {
                let Some(id) = o.get("tool_call_id").and_then(Value::as_str) else {
                    return Err(format!("Missing required parameter: '{at}.tool_call_id'."));
                };
                ensure!(
                    in_tool_run,
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. ('{at}')"
                );
                let Some(p) = pending.iter().position(|x| x == id) else {
                    return Err(format!(
                        "Invalid parameter: '{at}.tool_call_id' {id:?} does not answer an unanswered tool call of the preceding assistant message"
                    ));
                };
                pending.remove(p);
                openai_text_content(o.get("content"), &at, None)?;
            }
            _ => unreachable!(),
        }
    }
    ensure!(
        pending.is_empty(),
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
        pending.join(", ")
    );
    Ok(())
}

/// An assistant message's `tool_calls`; returns their ids.
fn openai_tool_calls(o: &Map<String, Value>, at: &str) -> Result<Vec<String>, String> {
    let Some(calls) = opt(o, "tool_calls") else {
        return Ok(Vec::new());
    };
    let Some(calls) = calls.as_array() else {
        return Err(format!(
            "Invalid type for '{at}.tool_calls': expected an array, got {}",
            type_name(calls)
        ));
    };
    ensure!(
        !calls.is_empty(),
        "Invalid '{at}.tool_calls': empty array. Expected an array with minimum length 1"
    );
    let mut ids = Vec::new();
    for (j, c) in calls.iter().enumerate() {
        let ct = format!("{at}.tool_calls[{j}]");
        let id = c["id"].as_str().unwrap_or_default();
        ensure!(!id.is_empty(), "Missing required parameter: '{ct}.id'.");
        ensure!(
            !ids.iter().any(|x| x == id),
            "Invalid '{ct}.id': duplicate tool call id {id:?}"
        );
        ensure!(
            c["type"] == "function",
            "Invalid value: {}. Supported values are: 'function'. ('{ct}.type')",
            c["type"]
        );
        ensure!(
            c["function"]["name"].as_str().is_some_and(|n| !n.is_empty()),
            "Missing required parameter: '{ct}.function.name'."
        );
        let args = &c["function"]["arguments"];
        ensure!(
            args.is_string(),
            "Invalid type for '{ct}.function.arguments': expected a string, but got {} instead.",
            type_name(args)
        );
        ids.push(id.to_string());
    }
    Ok(ids)
}

/// `tools`; returns the declared names (None when there are no tools).
fn openai_tools(o: &Map<String, Value>) -> Result<Option<Vec<String>>, String> {
    let Some(tools) = opt(o, "tools") else {
        return Ok(None);
    };
    let Some(tools) = tools.as_array() else {
        return Err(format!(
            "Invalid type for 'tools': expected an array, got {}",
            type_name(tools)
        ));
    };
    ensure!(
        !tools.is_empty(),
        "Invalid 'tools': empty array. Expected an array with minimum length 1"
    );
    let mut names: Vec<String> = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let at = format!("tools[{i}]");
        ensure!(
            t["type"] == "function",
            "Invalid value: {}. Supported values are: 'function'. ('{at}.type')",
            t["type"]
        );
        let Some(f) = t["function"].as_object() else {
            return Err(format!("Missing required parameter: '{at}.function'."));
        };
        check_keys(f, &["name", "description", "parameters", "strict"], |k| {
            format!("Unrecognized request argument supplied: {at}.function.{k}")
        })?;
        let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
        ensure!(
            valid_name(name),
            "Invalid '{at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$', got {name:?}."
        );
        ensure!(
            !names.iter().any(|n| n == name),
            "Invalid 'tools': duplicate function name {name:?}"
        );
        check_type(f, "description", "string", oa(&format!("{at}.function.description")))?;
        check_type(f, "strict", "boolean", oa(&format!("{at}.function.strict")))?;
        if let Some(p) = opt(f, "parameters") {
            ensure!(
                p.get("type").and_then(Value::as_str) == Some("object"),
                "Invalid schema for function '{name}': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{}\"'.",
                p.get("type").map_or("None".to_string(), |t| t.as_str().map_or(t.to_string(), str::to_string))
            );
            if opt(f, "strict") == Some(&Value::Bool(true)) {
                strict_schema(p, &mut Vec::new(), &format!("function '{name}'"))?;
            }
        }
        names.push(name.to_string());
    }
    Ok(Some(names))
}

fn openai_tool_choice(o: &Map<String, Value>, tools: Option<&[String]>) -> Check {
    let Some(choice) = opt(o, "tool_choice") else {
        return Ok(());
    };
    ensure!(
        tools.is_some(),
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
    );
    match choice {
        Value::String(s) => ensure!(
            matches!(s.as_str(), "none" | "auto" | "required"),
            "Invalid value: '{s}'. Supported values are: 'none', 'auto', and 'required'. ('tool_choice')"
        ),
        Value::Object(c) => {
            ensure!(
                c.get("type") == Some(&json!("function")),
                "Invalid value for 'tool_choice.type': expected 'function'"
            );
            let Some(name) = c.get("function").and_then(|f| f.get("name")).and_then(Value::as_str) else {
                return Err("Missing required parameter: 'tool_choice.function.name'.".into());
            };
            ensure!(
                tools.unwrap_or_default().iter().any(|t| t == name),
                "Invalid value for 'tool_choice': tool choice function {name:?} is not among the declared tools"
            );
        }
        v => {
            return Err(format!(
                "Invalid type for 'tool_choice': expected a string or an object, got {}",
                type_name(v)
            ))
        }
    }
    Ok(())
}

fn openai_response_format(o: &Map<String, Value>, msgs: &[Value]) -> Check {
    let Some(rf) = opt(o, "response_format") else {
        return Ok(());
    };
    match rf["type"].as_str() {
        Some("text") => Ok(()),
        Some("json_object") => {
            let mentions_json = msgs.iter().any(|m| {
                let mut parts = Vec::new();
                push_content(&mut parts, &m["content"]);
                parts.iter().any(|p| p.to_ascii_lowercase().contains("json"))
            });
            ensure!(
                mentions_json,
                "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
            );
            Ok(())
        }
        Some("json_schema") => {
            let Some(js) = rf["json_schema"].as_object() else {
                return Err("Missing required parameter: 'response_format.json_schema'.".into());
            };
            check_keys(js, &["name", "schema", "strict", "description"], |k| {
                format!("Unrecognized request argument supplied: response_format.json_schema.{k}")
            })?;
            let name = js.get("name").and_then(Value::as_str).unwrap_or_default();
            ensure!(
                valid_name(name),
                "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$', got {name:?}."
            );
            check_type(js, "strict", "boolean", oa("response_format.json_schema.strict"))?;
            check_type(js, "description", "string", oa("response_format.json_schema.description"))?;
            let Some(schema) = opt(js, "schema") else {
                return Err("Missing required parameter: 'response_format.json_schema.schema'.".into());
            };
            ensure!(
                schema.is_object(),
                "Invalid type for 'response_format.json_schema.schema': expected an object, got {}",
                type_name(schema)
            );
            if opt(js, "strict") == Some(&Value::Bool(true)) {
                let what = format!("response_format '{name}'");
                ensure!(
                    schema["type"] == "object" && schema.get("anyOf").is_none(),
                    "Invalid schema for {what}: schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{}\"'.",
                    schema["type"].as_str().unwrap_or("None")
                );
                strict_schema(schema, &mut Vec::new(), &what)?;
            }
            Ok(())
        }
        _ => Err(format!(
            "Invalid value: {}. Supported values are: 'text', 'json_object', and 'json_schema'. ('response_format.type')",
            rf["type"]
        )),
    }
}

/// Keywords OpenAI's strict mode refuses.
const STRICT_UNSUPPORTED: &[&str] = &[
    "allOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "unevaluatedProperties",
];

/// OpenAI strict mode: every object schema has `additionalProperties: false`
/// and lists every property in `required`, recursively through properties,
/// items, anyOf and $defs. `path` is the context OpenAI's messages print.
pub(crate) fn strict_schema(s: &Value, path: &mut Vec<String>, what: &str) -> Check {
    let context = |path: &Vec<String>| {
        format!(
            "({})",
            path.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", ")
        )
    };
    let Some(o) = s.as_object() else {
        ensure!(
            s.is_boolean() && !path.is_empty(),
            "Invalid schema for {what}: In context={}, schema must be a JSON object.",
            context(path)
        );
        return Ok(());
    };
    for kw in STRICT_UNSUPPORTED {
        ensure!(
            !o.contains_key(*kw),
            "Invalid schema for {what}: In context={}, '{kw}' is not permitted.",
            context(path)
        );
    }
    let is_object = match o.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => o.contains_key("properties"),
    };
    if is_object {
        ensure!(
            o.get("additionalProperties") == Some(&Value::Bool(false)),
            "Invalid schema for {what}: In context={}, 'additionalProperties' is required to be supplied and to be false.",
            context(path)
        );
        let required: Vec<&str> = arr(o.get("required").unwrap_or(&Value::Null))
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let empty = Map::new();
        let props = o.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        if let Some(missing) = props.keys().find(|k| !required.contains(&k.as_str())) {
            return Err(format!(
                "Invalid schema for {what}: In context={}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{missing}'.",
                context(path)
            ));
        }
        if let Some(extra) = required.iter().find(|r| !props.contains_key(**r)) {
            return Err(format!(
                "Invalid schema for {what}: In context={}, 'required' lists '{extra}', which is not in properties.",
                context(path)
            ));
        }
        for (k, v) in props {
            path.extend(["properties".to_string(), k.clone()]);
            strict_schema(v, path, what)?;
            path.truncate(path.len() - 2);
        }
    }
    match o.get("items") {
        Some(Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                path.extend(["items".to_string(), i.to_string()]);
                strict_schema(v, path, what)?;
                path.truncate(path.len() - 2);
            }
        }
        Some(items) => {
            path.push("items".into());
            strict_schema(items, path, what)?;
            path.pop();
        }
        None => {}
    }
    for (i, v) in arr(o.get("anyOf").unwrap_or(&Value::Null)).iter().enumerate() {
        path.extend(["anyOf".to_string(), i.to_string()]);
        strict_schema(v, path, what)?;
        path.truncate(path.len() - 2);
    }
    for defs in ["$defs", "definitions"] {
        if let Some(d) = o.get(defs).and_then(Value::as_object) {
            for (k, v) in d {
                path.extend([defs.to_string(), k.clone()]);
                strict_schema(v, path, what)?;
                path.truncate(path.len() - 2);
            }
        }
    }
    Ok(())
}

pub(crate) fn success(answer: Answer, rec: &Recorded, ctx: &RenderCtx) -> Value {
    let (message, finish, chars) = match answer {
        Answer::Text(t) => {
            let n = t.chars().count();
            (
                json!({"role": "assistant", "content": t, "refusal": null, "annotations": []}),
                "stop",
                n,
            )
        }
        // The gate renders other wires' computer calls as an error before this.
        Answer::Computer { .. } => unreachable!("computer_call exists only in the Responses API"),
        Answer::Calls(calls) => {
            let mut chars = 0;
            let tool_calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| {
                    let arguments = args.to_string();
                    chars += name.len() + arguments.chars().count();
                    json!({"id": format!("call_{}", fake_id(seed(ctx.port, ctx.index, 1, i), 24)),
                           "type": "function", "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            (
                json!({"role": "assistant", "content": null, "tool_calls": tool_calls, "refusal": null, "annotations": []}),
                "tool_calls",
                chars,
            )
        }
    };
    let (prompt, cached, completion) = token_counts(rec, ctx, chars);
    json!({
        "id": format!("chatcmpl-{}", fake_id(seed(ctx.port, ctx.index, 0, 0), 29)),
        "object": "chat.completion",
        "created": SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "model": rec.model().unwrap_or_default(),
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
        },
        "service_tier": "default",
        "system_fingerprint": "fp_scripted"
    })
}

pub(crate) fn error(status: u16, message: &str, kind: &str, code: Option<&str>) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    Response::json(status, body.to_string())
}

/// What OpenAI answers with these statuses (both of its APIs).
pub(crate) fn default_error(code: u16) -> Response {
    let (message, kind, c) = match code {
        400 => ("Bad request (scripted).", "invalid_request_error", None),
        401 => (
            "Incorrect API key provided.",
            "invalid_request_error",
            Some("invalid_api_key"),
        ),
        403 => (
            "You are not allowed to sample from this model.",
            "invalid_request_error",
            None,
        ),
        404 => (
            "The requested resource was not found (scripted).",
            "invalid_request_error",
            None,
        ),
        429 => (
            "Rate limit reached for requests per min (RPM). Please try again in 1s.",
            "requests",
            Some("rate_limit_exceeded"),
        ),
        500 => (
            "The server had an error while processing your request. Sorry about that!",
            "server_error",
            None,
        ),
        502 => ("Bad gateway.", "server_error", None),
        503 => (
            "The engine is currently overloaded, please try again later.",
            "server_error",
            None,
        ),
        c if c >= 500 => ("Server error (scripted).", "server_error", None),
        _ => ("Request failed (scripted).", "invalid_request_error", None),
    };
    error(code, message, kind, c)
}
