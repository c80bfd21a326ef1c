//! Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`):
//! request validation as the API does it (known fields only, one data
//! field per part, function calls answered by as many function responses,
//! Gemini's `Schema` in declarations), computer use (`computerUse` only for
//! computer-use models; each predefined action's response carries the URL
//! and, when the call asked for confirmation, the acknowledgement), the
//! reply shapes and Google's error shape.

use serde_json::{json, Map, Value};

use super::check::*;
use super::http::Response;
use super::ids::{fake_id, seed};
use super::recorded::arr;
use super::{token_counts, Answer, Recorded, RenderCtx};

/// Top-level fields (the API also takes their snake_case spellings).
const KEYS: &[&str] = &[
    "contents",
    "tools",
    "toolConfig",
    "tool_config",
    "systemInstruction",
    "system_instruction",
    "generationConfig",
    "generation_config",
    "safetySettings",
    "safety_settings",
    "cachedContent",
    "cached_content",
    "labels",
];

const GENERATION_KEYS: &[&str] = &[
    "temperature",
    "topP",
    "topK",
    "maxOutputTokens",
    "candidateCount",
    "stopSequences",
    "responseMimeType",
    "responseSchema",
    "responseJsonSchema",
    "thinkingConfig",
    "seed",
    "presencePenalty",
    "frequencyPenalty",
    "responseModalities",
    "mediaResolution",
    "responseLogprobs",
    "logprobs",
];

const PART_DATA: &[&str] = &[
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
];

const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

const TYPES: &[&str] = &[
    "TYPE_UNSPECIFIED",
    "STRING",
    "NUMBER",
    "INTEGER",
    "BOOLEAN",
    "ARRAY",
    "OBJECT",
    "NULL",
];

/// The computer-use model's predefined browser functions.
pub(crate) const COMPUTER_FUNCTIONS: &[&str] = &[
    "open_web_browser",
    "wait_5_seconds",
    "go_back",
    "go_forward",
    "search",
    "navigate",
    "click_at",
    "hover_at",
    "type_text_at",
    "key_combination",
    "scroll_document",
    "scroll_at",
    "drag_and_drop",
];

/// `/v1beta/models/{model}:generateContent` → the model.
pub(crate) fn model_in_path(path: &str) -> Option<&str> {
    let model = path.strip_prefix("/v1beta/models/")?.strip_suffix(":generateContent")?;
    (!model.is_empty() && !model.contains('/')).then_some(model)
}

fn unknown(at: &str, k: &str) -> String {
    if at.is_empty() {
        format!("Invalid JSON payload received. Unknown name \"{k}\": Cannot find field.")
    } else {
        format!("Invalid JSON payload received. Unknown name \"{k}\" at '{at}': Cannot find field.")
    }
}

/// Whether `model` takes the `computerUse` tool.
fn does_computer_use(model: &str) -> bool {
    model.contains("computer-use") || model.starts_with("gemini-3")
}

pub(crate) fn validate(body: &Value, model: &str) -> Check {
    let Some(o) = body.as_object() else {
        return Err("Invalid JSON payload received. Expected an object.".into());
    };
    check_keys(o, KEYS, |k| unknown("", k))?;
    let computer = tools(o)?;
    ensure!(
        !computer || does_computer_use(model),
        "Computer Use is not enabled for models/{model}."
    );
    if let Some(config) = opt(o, "toolConfig").or(opt(o, "tool_config")) {
        let fc = &config["functionCallingConfig"];
        if !fc.is_null() {
            let mode = fc["mode"].as_str().unwrap_or("AUTO");
            ensure!(
                matches!(mode, "AUTO" | "ANY" | "NONE" | "VALIDATED" | "MODE_UNSPECIFIED"),
                "Invalid value at 'tool_config.function_calling_config.mode', \"{mode}\""
            );
            ensure!(
                fc.get("allowedFunctionNames").is_none() || mode == "ANY",
                "* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: allowed_function_names is only allowed when the mode is ANY."
            );
        }
    }
    if let Some(system) = opt(o, "systemInstruction").or(opt(o, "system_instruction")) {
        parts(&system["parts"], "system_instruction", "user")?;
    }
    if let Some(g) = opt(o, "generationConfig").or(opt(o, "generation_config")) {
        let Some(g) = g.as_object() else {
            return Err("Invalid value at 'generation_config': expected an object".into());
        };
        check_keys(g, GENERATION_KEYS, |k| unknown("generation_config", k))?;
        check_number(g, "temperature", 0.0, 2.0, |p| {
            format!("* GenerateContentRequest.generation_config.temperature: {p}")
        })?;
        check_positive_int(g, "maxOutputTokens", |p| {
            format!("* GenerateContentRequest.generation_config.max_output_tokens: {p}")
        })?;
        if let Some(s) = g.get("responseSchema") {
            ensure!(
                g.get("responseMimeType").and_then(Value::as_str) == Some("application/json"),
                "* GenerateContentRequest.generation_config.response_mime_type: must be application/json when response_schema is set"
            );
            schema(s, "generation_config.response_schema")?;
        }
    }
    let contents = match o.get("contents") {
        Some(Value::Array(c)) if !c.is_empty() => c,
        _ => return Err("* GenerateContentRequest.contents: contents is not specified".into()),
    };
    conversation(contents, computer)
}

/// `tools`; true when one of them is `computerUse`.
fn tools(o: &Map<String, Value>) -> Result<bool, String> {
    let Some(tools) = opt(o, "tools") else {
        return Ok(false);
    };
    let mut computer = false;
    let mut names: Vec<String> = Vec::new();
    for (i, t) in arr(tools).iter().enumerate() {
        let at = format!("tools[{i}]");
        let Some(t) = t.as_object() else {
            return Err(format!("Invalid value at '{at}': expected an object"));
        };
        check_keys(
            t,
            &[
                "functionDeclarations",
                "function_declarations",
                "computerUse",
                "computer_use",
                "googleSearch",
                "codeExecution",
                "urlContext",
            ],
            |k| unknown(&at, k),
        )?;
        if let Some(cu) = t.get("computerUse").or(t.get("computer_use")) {
            let Some(cu) = cu.as_object() else {
                return Err(format!("Invalid value at '{at}.computer_use': expected an object"));
            };
            check_keys(cu, &["environment", "excludedPredefinedFunctions"], |k| {
                unknown(&format!("{at}.computer_use"), k)
            })?;
            let env = cu.get("environment").and_then(Value::as_str).unwrap_or_default();
            ensure!(
                env == "ENVIRONMENT_BROWSER",
                "Invalid value at '{at}.computer_use.environment' (type.googleapis.com/google.ai.generativelanguage.v1beta.ComputerUse.Environment), \"{env}\""
            );
            computer = true;
        }
        for (j, d) in arr(t
            .get("functionDeclarations")
            .or(t.get("function_declarations"))
            .unwrap_or(&Value::Null))
        .iter()
        .enumerate()
        {
            let dat = format!("{at}.function_declarations[{j}]");
            let Some(d) = d.as_object() else {
                return Err(format!("Invalid value at '{dat}': expected an object"));
            };
            check_keys(
                d,
                &[
                    "name",
                    "description",
                    "parameters",
                    "parametersJsonSchema",
                    "response",
                    "behavior",
                ],
                |k| unknown(&dat, k),
            )?;
            let name = d.get("name").and_then(Value::as_str).unwrap_or_default();
            let valid = !name.is_empty()
                && name.len() <= 64
                && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-:".contains(c));
            ensure!(
                valid,
                "* GenerateContentRequest.{dat}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:) or dashes (-), with a maximum length of 64."
            );
            ensure!(
                !names.iter().any(|n| n == name),
                "* GenerateContentRequest.tools: duplicate function name {name:?}"
            );
            if let Some(p) = d.get("parameters") {
                schema(p, &format!("{dat}.parameters"))?;
            }
            names.push(name.to_string());
        }
    }
    Ok(computer)
}

/// Gemini's `Schema`: its fields only, its type names (any case).
fn schema(s: &Value, at: &str) -> Check {
    let Some(o) = s.as_object() else {
        return Err(format!("Invalid value at '{at}': expected a Schema object"));
    };
    check_keys(o, SCHEMA_KEYS, |k| unknown(at, k))?;
    if let Some(t) = o.get("type") {
        let name = t.as_str().unwrap_or_default().to_ascii_uppercase();
        ensure!(
            TYPES.contains(&name.as_str()),
            "Invalid value at '{at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), {t}"
        );
    }
    if let Some(e) = o.get("enum") {
        ensure!(
            e.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            "Invalid value at '{at}.enum': enum values must be strings"
        );
    }
    if let Some(props) = o.get("properties") {
        let Some(props) = props.as_object() else {
            return Err(format!("Invalid value at '{at}.properties': expected an object"));
        };
        for (k, v) in props {
            schema(v, &format!("{at}.properties[{k}].value"))?;
        }
    }
    if let Some(items) = o.get("items") {
        schema(items, &format!("{at}.items"))?;
    }
    for (i, alt) in arr(o.get("anyOf").unwrap_or(&Value::Null)).iter().enumerate() {
        schema(alt, &format!("{at}.any_of[{i}]"))?;
    }
    Ok(())
}

/// Parts of one content: known fields, exactly one data field each, calls
/// only from the model, responses only from the user.
fn parts(parts: &Value, at: &str, role: &str) -> Check {
    let Some(parts) = parts.as_array().filter(|p| !p.is_empty()) else {
        return Err(format!(
            "* GenerateContentRequest.{at}.parts: contents.parts must not be empty."
        ));
    };
    for (j, p) in parts.iter().enumerate() {
        let pat = format!("{at}.parts[{j}]");
        let Some(o) = p.as_object() else {
            return Err(format!("Invalid value at '{pat}': expected an object"));
        };
        check_keys(
            o,
            &[PART_DATA, &["thought", "thoughtSignature", "videoMetadata"]].concat(),
            |k| unknown(&pat, k),
        )?;
        let data: Vec<&&str> = PART_DATA.iter().filter(|k| o.contains_key(**k)).collect();
        ensure!(
            data.len() == 1,
            "* GenerateContentRequest.{pat}.data: required oneof field 'data' must have one initialized field"
        );
        if let Some(d) = o.get("inlineData") {
            inline_data(d, &format!("{pat}.inline_data"))?;
        }
        if let Some(c) = o.get("functionCall") {
            ensure!(
                role == "model",
                "* GenerateContentRequest.{pat}: function calls can only come from the model"
            );
            ensure!(
                c["name"].as_str().is_some_and(|n| !n.is_empty()),
                "* GenerateContentRequest.{pat}.function_call.name: Name is required."
            );
        }
        if let Some(r) = o.get("functionResponse") {
            ensure!(
                role == "user",
                "* GenerateContentRequest.{pat}: function responses can only come from the user"
            );
            let Some(r) = r.as_object() else {
                return Err(format!("Invalid value at '{pat}.function_response'"));
            };
            check_keys(
                r,
                &["id", "name", "response", "parts", "willContinue", "scheduling"],
                |k| unknown(&format!("{pat}.function_response"), k),
            )?;
            ensure!(
                r.get("name").and_then(Value::as_str).is_some_and(|n| !n.is_empty()),
                "* GenerateContentRequest.{pat}.function_response.name: Name is required."
            );
            ensure!(
                r.get("response").is_some_and(Value::is_object),
                "Invalid value at '{pat}.function_response.response' (type.googleapis.com/google.protobuf.Struct): expected an object"
            );
            for (k, inner) in arr(r.get("parts").unwrap_or(&Value::Null)).iter().enumerate() {
                let iat = format!("{pat}.function_response.parts[{k}]");
                let Some(d) = inner.get("inlineData") else {
                    return Err(format!(
                        "* GenerateContentRequest.{iat}: function response parts hold inline data"
                    ));
                };
                inline_data(d, &format!("{iat}.inline_data"))?;
            }
        }
    }
    Ok(())
}

fn inline_data(d: &Value, at: &str) -> Check {
    let mime = d["mimeType"].as_str().unwrap_or_default();
    ensure!(
        !mime.is_empty(),
        "* GenerateContentRequest.{at}.mime_type: Required field is not set."
    );
    let data = d["data"].as_str().unwrap_or_default();
    ensure!(
        valid_base64(data),
        "Invalid value at '{at}.data' (TYPE_BYTES), Base64 decoding failed"
    );
    Ok(())
}

/// Roles, parts, and function calls answered by the next user turn: as
/// many responses as calls, by name, each computer action's response with
/// the page's URL and, when the call asked for confirmation, its
/// acknowledgement.
fn conversation(contents: &[Value], computer: bool) -> Check {
    let mut open: Vec<(String, bool)> = Vec::new();
    for (i, c) in contents.iter().enumerate() {
        let at = format!("contents[{i}]");
        let Some(o) = c.as_object() else {
            return Err(format!("Invalid value at '{at}': expected a Content object"));
        };
        check_keys(o, &["role", "parts"], |k| unknown(&at, k))?;
        let role = o.get("role").and_then(Value::as_str).unwrap_or("user");
        ensure!(
            matches!(role, "user" | "model"),
            "* GenerateContentRequest.{at}.role: Please use a valid role: user, model."
        );
        parts(&o["parts"], &at, role)?;
        let items = arr(&o["parts"]);
        let responses: Vec<&Value> = items.iter().filter_map(|p| p.get("functionResponse")).collect();
        if !open.is_empty() || !responses.is_empty() {
            ensure!(
                role == "user" && responses.len() == open.len(),
                "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
            );
            for ((name, confirm), r) in open.iter().zip(&responses) {
                ensure!(
                    r["name"].as_str() == Some(name.as_str()),
                    "* GenerateContentRequest.{at}: the function response {} does not answer the function call {name}",
                    r["name"]
                );
                if computer && super::gemini::COMPUTER_FUNCTIONS.contains(&name.as_str()) {
                    ensure!(
                        r["response"]["url"].is_string(),
                        "* GenerateContentRequest.{at}: the response to the computer use function {name} must carry the current URL (response.url)"
                    );
                }
                if *confirm {
                    ensure!(
                        r["response"]["safety_acknowledgement"] == "true",
                        "* GenerateContentRequest.{at}: the function call {name} asked for confirmation (safety_decision require_confirmation); its response must carry safety_acknowledgement \"true\""
                    );
                }
            }
        }
        open = if role == "model" {
            items
                .iter()
                .filter_map(|p| p.get("functionCall"))
                .map(|c| {
                    let confirm = c["args"]["safety_decision"]["decision"] == "require_confirmation";
                    (c["name"].as_str().unwrap_or_default().to_string(), confirm)
                })
                .collect()
        } else {
            Vec::new()
        };
    }
    Ok(())
}

pub(crate) fn success(answer: Answer, rec: &Recorded, ctx: &RenderCtx) -> Value {
    let (parts, chars) = match answer {
        Answer::Text(t) => {
            let n = t.chars().count();
            (vec![json!({"text": t})], n)
        }
        Answer::Calls(calls) => {
            let chars = calls.iter().map(|(n, a)| n.len() + a.to_string().len()).sum();
            let parts = calls
                .into_iter()
                .map(|(name, args)| json!({"functionCall": {"name": name, "args": args}}))
                .collect();
            (parts, chars)
        }
        Answer::Computer { .. } => unreachable!("computer_call exists only in the Responses API"),
    };
    let (prompt, cached, completion) = token_counts(rec, ctx, chars);
    let mut usage = json!({"promptTokenCount": prompt, "candidatesTokenCount": completion,
                           "totalTokenCount": prompt + completion});
    if cached > 0 {
        usage["cachedContentTokenCount"] = json!(cached);
    }
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage,
        "modelVersion": rec.model().unwrap_or_default(),
        "responseId": fake_id(seed(ctx.port, ctx.index, 6, 0), 22)
    })
}

fn status_name(code: u16) -> &'static str {
    match code {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        500 => "INTERNAL",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        c if c >= 500 => "INTERNAL",
        _ => "FAILED_PRECONDITION",
    }
}

/// `{"error": {"code", "message", "status"}}`.
pub(crate) fn error(status: u16, message: &str) -> Response {
    error_with_status(status, status_name(status), message)
}

pub(crate) fn error_with_status(status: u16, name: &str, message: &str) -> Response {
    let body = json!({"error": {"code": status, "message": message, "status": name}});
    Response::json(status, body.to_string())
}

/// What Gemini answers with these statuses.
pub(crate) fn default_error(code: u16) -> Response {
    let message = match code {
        429 => "Resource has been exhausted (e.g. check quota).",
        500 => "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
        503 => "The model is overloaded. Please try again later.",
        _ => "Request failed (scripted).",
    };
    error(code, message)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::super::{gate::gate, render, Reply, Wire};
    use super::*;

    const MODEL: &str = "gemini-2.5-computer-use-preview-10-2025";

    fn rejects(mutate: impl FnOnce(&mut Value), needle: &str) {
        let mut b = good_gemini();
        mutate(&mut b);
        match validate(&b, MODEL) {
            Ok(()) => panic!("accepted, expected a rejection mentioning {needle:?}:\n{b:#}"),
            Err(e) => assert!(e.contains(needle), "rejection {e:?} does not mention {needle:?}"),
        }
    }

    #[test]
    fn validates_computer_use_conversations() {
        validate(&good_gemini(), MODEL).unwrap();
        validate(&json!({"contents": [{"parts": [{"text": "hi"}]}]}), "gemini-2.5-flash").unwrap();
        assert!(validate(&good_gemini(), "gemini-2.5-flash")
            .unwrap_err()
            .contains("Computer Use is not enabled"));
        rejects(|b| b["foo"] = json!(1), "Unknown name \"foo\"");
        rejects(|b| b["contents"] = json!([]), "contents is not specified");
        rejects(|b| b["contents"][0]["parts"] = json!([]), "must not be empty");
        rejects(
            |b| b["contents"][0]["parts"][0]["extra"] = json!(1),
            "Unknown name \"extra\"",
        );
        rejects(
            |b| b["contents"][0]["parts"][0]["inlineData"] = json!({"mimeType": "image/png", "data": "x"}),
            "one initialized field",
        );
        rejects(
            |b| b["contents"][0]["parts"][1]["inlineData"]["data"] = json!("not base64!"),
            "Base64",
        );
        rejects(|b| b["contents"][0]["role"] = json!("assistant"), "valid role");
        rejects(
            |b| {
                b["contents"][2]["parts"].as_array_mut().unwrap().remove(1);
            },
            "number of function response parts",
        );
        rejects(
            |b| {
                b["contents"][2]["parts"][0]["functionResponse"]["response"] = json!({"safety_acknowledgement": "true"})
            },
            "current URL",
        );
        rejects(
            |b| b["contents"][2]["parts"][0]["functionResponse"]["response"] = json!({"url": "http://127.0.0.1/"}),
            "safety_acknowledgement",
        );
        rejects(
            |b| b["contents"][2]["parts"][1]["functionResponse"]["name"] = json!("other"),
            "does not answer",
        );
        rejects(
            |b| b["tools"][1]["functionDeclarations"][0]["parameters"]["additionalProperties"] = json!(false),
            "Unknown name \"additionalProperties\"",
        );
        rejects(
            |b| b["tools"][1]["functionDeclarations"][0]["parameters"]["type"] = json!("dict"),
            "Type",
        );
        rejects(
            |b| b["tools"][0]["computerUse"]["environment"] = json!("ENVIRONMENT_DESKTOP"),
            "environment",
        );
        rejects(
            |b| b["generationConfig"]["responseSchema"] = json!({"type": "OBJECT"}),
            "application/json",
        );
        rejects(|b| b["generationConfig"]["bogus"] = json!(1), "Unknown name \"bogus\"");
    }

    #[test]
    fn gate_checks_the_key_and_the_model_in_the_path() {
        assert!(gate("POST", &rec(Wire::Gemini, good_gemini(), GEMINI_HEADERS), None).is_none());
        let v = gate("POST", &rec(Wire::Gemini, good_gemini(), &GEMINI_HEADERS[1..]), None).unwrap();
        assert_eq!(v.response.status, 403);
        assert_eq!(v.response.body_json()["error"]["status"], "PERMISSION_DENIED");
        let mut r = rec(
            Wire::Gemini,
            good_gemini(),
            &[("x-goog-api-key", "bad-key"), ("content-type", "application/json")],
        );
        let v = gate("POST", &r, None).unwrap();
        assert_eq!((v.response.status, v.rejected.is_none()), (400, true));
        r.path = "/v1beta/models/no-such-model:generateContent".into();
        r.headers[0].1 = "k".into();
        r.body["tools"] = json!([]);
        let v = gate("POST", &r, None).unwrap();
        assert_eq!(v.response.status, 404);
        assert_eq!(v.response.body_json()["error"]["status"], "NOT_FOUND");
        assert_eq!(
            model_in_path("/v1beta/models/gemini-x:generateContent"),
            Some("gemini-x")
        );
        assert_eq!(model_in_path("/v1/models/gemini-x:generateContent"), None);
    }

    #[test]
    fn renders_function_calls_text_and_json() {
        let r = rec(Wire::Gemini, good_gemini(), GEMINI_HEADERS);
        let b = render(
            &Reply::tool("click_at", json!({"x": 10, "y": 20})),
            Wire::Gemini,
            &r,
            &ctx(),
        )
        .body_json();
        let c = &b["candidates"][0];
        assert_eq!(c["finishReason"], "STOP");
        assert_eq!(c["content"]["role"], "model");
        assert_eq!(
            c["content"]["parts"][0]["functionCall"],
            json!({"name": "click_at", "args": {"x": 10, "y": 20}})
        );
        assert_eq!(b["modelVersion"], MODEL);
        assert!(b["usageMetadata"]["promptTokenCount"].as_u64().unwrap() > 0);
        let b = render(&Reply::text("Done"), Wire::Gemini, &r, &ctx()).body_json();
        assert_eq!(b["candidates"][0]["content"]["parts"][0]["text"], "Done");
        let mut structured = good_gemini();
        structured["generationConfig"] =
            json!({"responseMimeType": "application/json", "responseSchema": {"type": "OBJECT"}});
        let s = rec(Wire::Gemini, structured, GEMINI_HEADERS);
        let b = render(&Reply::json(json!({"ok": true})), Wire::Gemini, &s, &ctx()).body_json();
        assert_eq!(b["candidates"][0]["content"]["parts"][0]["text"], "{\"ok\":true}");
        assert!(s.has_response_format());
        assert!(r.last_user_text().contains("http://127.0.0.1/"));
        assert_eq!(r.tool_names(), ["removeBlocker"]);
        assert_eq!(r.images().len(), 2);
    }
}
