//! Tests of the server as a whole: accepted and refused bodies of the Chat
//! and Messages formats, the gate, rendering, the recorded helpers, HTTP.

use serde_json::{json, Value};

use super::fixtures::*;
use super::gate::gate;
use super::http::encode;
use super::{openai_chat, render, LlmServer, Recorded, Reply, Wire, UNKNOWN_MODEL};

#[test]
fn accepts_good_bodies() {
    openai_chat::validate(&good_openai()).unwrap();
    openai_chat::validate(&good_openai_structured()).unwrap();
    validate_anthropic(&good_anthropic()).unwrap();
    // Minimal bodies.
    openai_chat::validate(&json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]})).unwrap();
    validate_anthropic(&json!({"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}))
        .unwrap();
    // Non-strict schemas may be open; tool_choice naming a declared function.
    let mut b = good_openai();
    b["tool_choice"] = json!({"type": "function", "function": {"name": "removeBlocker"}});
    b["response_format"] =
        json!({"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}, "strict": false}});
    openai_chat::validate(&b).unwrap();
    // System as blocks, a final assistant prefill, tool_result with block content.
    let mut a = good_anthropic();
    a["system"] = json!([{"type": "text", "text": "sys"}]);
    messages(&mut a)[2]["content"][0]["content"] = json!([{"type": "text", "text": "ok"}]);
    messages(&mut a).push(json!({"role": "assistant", "content": "{"}));
    validate_anthropic(&a).unwrap();
}

#[test]
fn openai_rejects_malformed_bodies() {
    oa_rejects(|b| *b = json!([1]), "JSON object");
    oa_rejects(|b| b["foo"] = json!(1), "Unrecognized request argument supplied: foo");
    oa_rejects(|b| b["model"] = json!(""), "model");
    oa_rejects(
        |b| {
            b.as_object_mut().unwrap().remove("model");
        },
        "model",
    );
    oa_rejects(|b| b["messages"] = json!([]), "'messages'");
    oa_rejects(|b| b["stream"] = json!(true), "stream");
    oa_rejects(|b| messages(b)[0]["role"] = json!("robot"), "'robot'");
    oa_rejects(|b| messages(b)[0]["extra"] = json!(1), "'extra' was unexpected");
    oa_rejects(|b| messages(b)[5]["content"] = json!(5), "messages[5].content");
    oa_rejects(|b| messages(b)[5]["content"] = json!(null), "messages[5].content");
    oa_rejects(
        |b| messages(b)[0]["content"] = json!([{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]),
        "'image_url'",
    );
    oa_rejects(
        |b| messages(b)[1]["content"][1] = json!({"type": "video", "url": "x"}),
        "'video'",
    );
    oa_rejects(
        |b| messages(b)[1]["content"][1] = json!({"type": "image_url", "image_url": {}}),
        "image_url.url",
    );
    oa_rejects(
        |b| messages(b)[1]["content"][1]["image_url"]["url"] = json!("file:///etc/passwd"),
        "image_url.url",
    );
    oa_rejects(|b| messages(b)[1]["content"] = json!([]), "empty array");
    oa_rejects(
        |b| {
            messages(b)[2].as_object_mut().unwrap().remove("tool_calls");
        },
        "messages[2].content",
    );
    oa_rejects(
        |b| messages(b)[2]["tool_calls"][0]["function"]["arguments"] = json!({"elementId": "e1"}),
        "expected a string",
    );
    oa_rejects(|b| messages(b)[2]["tool_calls"][0]["type"] = json!("fn"), "'function'");
    oa_rejects(
        |b| messages(b)[2]["tool_calls"][1]["id"] = json!("call_1"),
        "duplicate tool call id",
    );
    oa_rejects(|b| messages(b)[2]["tool_calls"] = json!([]), "tool_calls");
    oa_rejects(|b| messages(b)[3]["tool_call_id"] = json!("call_9"), "call_9");
    oa_rejects(
        |b| {
            messages(b)[3].as_object_mut().unwrap().remove("tool_call_id");
        },
        "tool_call_id",
    );
    // A tool message after a user message, and an unanswered call.
    oa_rejects(
        |b| messages(b).push(json!({"role": "tool", "tool_call_id": "call_1", "content": "x"})),
        "preceeding message with 'tool_calls'",
    );
    oa_rejects(
        |b| {
            messages(b).remove(4);
        },
        "call_2",
    );
    oa_rejects(
        |b| {
            messages(b).truncate(3);
        },
        "call_1, call_2",
    );
    // Tools.
    oa_rejects(
        |b| {
            b["tools"] = json!([]);
            b.as_object_mut().unwrap().remove("tool_choice");
        },
        "'tools'",
    );
    oa_rejects(
        |b| b["tools"][0]["function"]["name"] = json!("perform action"),
        "pattern",
    );
    oa_rejects(|b| b["tools"][0]["function"]["name"] = json!("x".repeat(65)), "pattern");
    oa_rejects(
        |b| b["tools"][1]["function"]["name"] = json!("performAction"),
        "duplicate",
    );
    oa_rejects(
        |b| b["tools"][0]["function"]["parameters"] = json!({"type": "array"}),
        "type: \"object\"",
    );
    oa_rejects(|b| b["tools"][0]["function"]["description"] = json!(5), "description");
    oa_rejects(|b| b["tools"][0]["type"] = json!("retrieval"), "'function'");
    oa_rejects(
        |b| b["tools"][0]["function"]["strict"] = json!(true),
        "additionalProperties",
    );
    oa_rejects(|b| b["tool_choice"] = json!("sometimes"), "'sometimes'");
    oa_rejects(
        |b| b["tool_choice"] = json!({"type": "function", "function": {"name": "nope"}}),
        "\"nope\"",
    );
    oa_rejects(
        |b| {
            b.as_object_mut().unwrap().remove("tools");
        },
        "only allowed when 'tools' are specified",
    );
    // Numbers.
    oa_rejects(|b| b["max_tokens"] = json!(0), "'max_tokens'");
    oa_rejects(|b| b["max_tokens"] = json!(1.5), "'max_tokens'");
    oa_rejects(|b| b["max_completion_tokens"] = json!(-1), "'max_completion_tokens'");
    oa_rejects(|b| b["temperature"] = json!(2.5), "'temperature'");
    oa_rejects(|b| b["temperature"] = json!("hot"), "'temperature'");
    // Response formats.
    oa_structured_rejects(
        |b| b["response_format"] = json!({"type": "xml"}),
        "response_format.type",
    );
    oa_structured_rejects(|b| b["response_format"] = json!({"type": "json_object"}), "word 'json'");
    oa_structured_rejects(
        |b| b["response_format"]["json_schema"]["name"] = json!("my schema"),
        "json_schema.name",
    );
    oa_structured_rejects(
        |b| {
            b["response_format"]["json_schema"]
                .as_object_mut()
                .unwrap()
                .remove("schema");
        },
        "json_schema.schema",
    );
    oa_structured_rejects(
        |b| b["response_format"]["json_schema"]["schema"] = json!({"type": "array", "items": {}}),
        "type: \"object\"",
    );
}

#[test]
fn openai_strict_mode_rules_are_recursive() {
    let with_schema = |schema: Value| {
        let mut b = good_openai_structured();
        b["response_format"]["json_schema"]["schema"] = schema;
        openai_chat::validate(&b)
    };
    let s = |f: &dyn Fn(&mut Value)| {
        let mut v = strict_schema_value();
        f(&mut v);
        with_schema(v).unwrap_err()
    };
    let e = s(&|v| {
        v.as_object_mut().unwrap().remove("additionalProperties");
    });
    assert!(e.contains("context=()") && e.contains("additionalProperties"), "{e}");
    let e = s(&|v| v["required"] = json!(["items"]));
    assert!(e.contains("Missing 'note'"), "{e}");
    let e = s(&|v| v["$defs"]["item"]["additionalProperties"] = json!(true));
    assert!(e.contains("'$defs', 'item'"), "{e}");
    let e = s(&|v| {
        v["properties"]["items"]["items"] =
            json!({"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}})
    });
    assert!(
        e.contains("'properties', 'items', 'items'") && e.contains("Missing 'a'"),
        "{e}"
    );
    let e = s(&|v| v["properties"]["note"]["anyOf"][0] = json!({"type": "object", "properties": {}, "required": []}));
    assert!(e.contains("'anyOf', '0'"), "{e}");
    let e = s(&|v| v["properties"]["note"] = json!({"oneOf": [{"type": "string"}]}));
    assert!(e.contains("'oneOf' is not permitted"), "{e}");
    // The same schema without strict is fine.
    let mut b = good_openai_structured();
    b["response_format"]["json_schema"]["schema"] = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    b["response_format"]["json_schema"]["strict"] = json!(false);
    openai_chat::validate(&b).unwrap();
}

#[test]
fn anthropic_rejects_malformed_bodies() {
    an_rejects(|b| *b = json!("text"), "dictionary");
    an_rejects(
        |b| {
            b.as_object_mut().unwrap().remove("max_tokens");
        },
        "max_tokens: Field required",
    );
    an_rejects(|b| b["max_tokens"] = json!(0), "max_tokens");
    an_rejects(
        |b| {
            b.as_object_mut().unwrap().remove("model");
        },
        "model: Field required",
    );
    an_rejects(
        |b| b["response_format"] = json!({}),
        "response_format: Extra inputs are not permitted",
    );
    an_rejects(|b| b["stream"] = json!(true), "stream");
    an_rejects(|b| b["temperature"] = json!(1.5), "temperature");
    an_rejects(|b| b["messages"] = json!([]), "at least one message");
    an_rejects(
        |b| {
            messages(b).remove(0);
        },
        "first message must use the \"user\" role",
    );
    an_rejects(
        |b| messages(b).insert(1, json!({"role": "user", "content": "more"})),
        "roles must alternate",
    );
    an_rejects(
        |b| messages(b).insert(0, json!({"role": "system", "content": "sys"})),
        "Unexpected role \"system\"",
    );
    an_rejects(|b| messages(b)[0]["content"][0]["text"] = json!("  "), "non-whitespace");
    an_rejects(|b| messages(b)[0]["content"] = json!(""), "non-empty content");
    an_rejects(|b| messages(b)[0]["content"] = json!([]), "non-empty content");
    an_rejects(
        |b| messages(b)[0]["content"][1]["source"]["type"] = json!("file"),
        "source.type",
    );
    an_rejects(
        |b| messages(b)[0]["content"][1]["source"]["media_type"] = json!("image/bmp"),
        "media_type",
    );
    an_rejects(|b| messages(b)[0]["content"][1] = json!({"type": "video"}), "'video'");
    an_rejects(
        |b| messages(b)[0]["content"][0]["extra"] = json!(1),
        "extra: Extra inputs",
    );
    an_rejects(
        |b| messages(b)[0]["content"][0] = json!({"type": "tool_use", "id": "t", "name": "n", "input": {}}),
        "only allowed in assistant",
    );
    an_rejects(
        |b| messages(b)[1]["content"][0] = json!({"type": "tool_result", "tool_use_id": "t"}),
        "only allowed in user",
    );
    an_rejects(
        |b| messages(b)[1]["content"][1]["input"] = json!("e1"),
        "input: Input should be a valid dictionary",
    );
    an_rejects(|b| messages(b)[1]["content"][1]["id"] = json!("bad id"), "pattern");
    an_rejects(
        |b| {
            messages(b)[2]["content"].as_array_mut().unwrap().remove(0);
        },
        "without `tool_result`",
    );
    an_rejects(
        |b| {
            messages(b).truncate(2);
        },
        "without `tool_result`",
    );
    an_rejects(
        |b| messages(b)[2]["content"].as_array_mut().unwrap().reverse(),
        "must come first",
    );
    an_rejects(
        |b| messages(b)[2]["content"][0]["tool_use_id"] = json!("toolu_9"),
        "unexpected `tool_use_id`",
    );
    an_rejects(|b| messages(b)[2]["content"][0]["is_error"] = json!("no"), "is_error");
    an_rejects(
        |b| {
            messages(b)[2]["content"][0]["content"] = json!([{"type": "tool_use", "id": "x", "name": "n", "input": {}}])
        },
        "text and image",
    );
    an_rejects(|b| b["system"] = json!(5), "system");
    an_rejects(
        |b| b["system"] = json!([{"type": "image", "source": {}}]),
        "system.0.type",
    );
    an_rejects(
        |b| {
            b["tools"][0].as_object_mut().unwrap().remove("input_schema");
        },
        "input_schema: Field required",
    );
    an_rejects(
        |b| b["tools"][0]["input_schema"] = json!({"type": "array"}),
        "input_schema.type",
    );
    an_rejects(|b| b["tools"][0]["name"] = json!("perform.action"), "pattern");
    an_rejects(|b| b["tools"][1]["name"] = json!("performAction"), "unique");
    an_rejects(|b| b["tools"][0]["type"] = json!("web_search_20250305"), "server tools");
    an_rejects(|b| b["tool_choice"] = json!({"type": "required"}), "'required'");
    an_rejects(
        |b| b["tool_choice"] = json!({"type": "tool", "name": "nope"}),
        "Tool 'nope' not found",
    );
    an_rejects(
        |b| {
            b.as_object_mut().unwrap().remove("tools");
            b["tool_choice"] = json!({"type": "any"});
        },
        "while providing tools",
    );
}

#[test]
fn gate_checks_endpoint_auth_headers_and_models() {
    assert!(gate("POST", &rec(Wire::OpenAi, good_openai(), OA_HEADERS), None).is_none());
    assert!(gate("POST", &rec(Wire::Anthropic, good_anthropic(), AN_HEADERS), None).is_none());

    let mut r = rec(Wire::OpenAi, good_openai(), OA_HEADERS);
    r.wire = None;
    r.path = "/v1/completions".into();
    let v = gate("POST", &r, None).unwrap();
    assert_eq!(v.response.status, 404);
    assert!(v.rejected.unwrap().contains("/v1/completions"));

    let v = gate("POST", &rec(Wire::OpenAi, good_openai(), &OA_HEADERS[1..]), None).unwrap();
    assert_eq!((v.response.status, v.rejected.is_some()), (401, true));
    let v = gate(
        "POST",
        &rec(
            Wire::OpenAi,
            good_openai(),
            &[
                ("authorization", "Bearer bad-key"),
                ("content-type", "application/json"),
            ],
        ),
        None,
    )
    .unwrap();
    assert_eq!((v.response.status, v.rejected.is_none()), (401, true));
    assert_eq!(v.response.body_json()["error"]["code"], "invalid_api_key");
    assert!(v.response.body_json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("API key"));

    let v = gate("POST", &rec(Wire::Anthropic, good_anthropic(), &AN_HEADERS[1..]), None).unwrap();
    assert_eq!((v.response.status, v.rejected.is_some()), (401, true));
    let v = gate(
        "POST",
        &rec(
            Wire::Anthropic,
            good_anthropic(),
            &[("x-api-key", "k"), ("content-type", "application/json")],
        ),
        None,
    )
    .unwrap();
    assert_eq!(v.response.status, 400);
    assert!(v.rejected.unwrap().contains("anthropic-version"));
    let v = gate(
        "POST",
        &rec(
            Wire::Anthropic,
            good_anthropic(),
            &[("x-api-key", "bad-key"), ("anthropic-version", "2023-06-01")],
        ),
        None,
    )
    .unwrap();
    assert_eq!((v.response.status, v.rejected.is_none()), (401, true));
    assert_eq!(v.response.body_json()["error"]["type"], "authentication_error");

    let v = gate(
        "POST",
        &rec(Wire::OpenAi, Value::Null, OA_HEADERS),
        Some("expected value"),
    )
    .unwrap();
    assert_eq!(v.response.status, 400);
    assert!(v.rejected.unwrap().contains("could not parse the JSON body"));
    let v = gate("POST", &rec(Wire::OpenAi, good_openai(), &OA_HEADERS[..1]), None).unwrap();
    assert!(v.rejected.unwrap().contains("Content-Type"));

    let mut b = good_openai();
    b["model"] = json!(UNKNOWN_MODEL);
    let v = gate("POST", &rec(Wire::OpenAi, b, OA_HEADERS), None).unwrap();
    assert_eq!((v.response.status, v.rejected.is_none()), (404, true));
    assert_eq!(
        v.response.body_json(),
        json!({"error": {"message": "The model `no-such-model` does not exist or you do not have access to it.",
                         "type": "invalid_request_error", "param": null, "code": "model_not_found"}})
    );
    let mut b = good_anthropic();
    b["model"] = json!(UNKNOWN_MODEL);
    let v = gate("POST", &rec(Wire::Anthropic, b, AN_HEADERS), None).unwrap();
    assert_eq!(v.response.status, 404);
    assert_eq!(
        v.response.body_json()["error"],
        json!({"type": "not_found_error", "message": "model: no-such-model"})
    );
    assert_eq!(v.response.body_json()["type"], "error");

    // A malformed body is a 400 in the provider's shape with the reason.
    let mut b = good_anthropic();
    b["max_tokens"] = json!(0);
    let v = gate("POST", &rec(Wire::Anthropic, b, AN_HEADERS), None).unwrap();
    assert_eq!(v.response.status, 400);
    assert_eq!(v.response.body_json()["error"]["type"], "invalid_request_error");
    assert!(v.rejected.unwrap().contains("max_tokens"));
}

#[test]
fn renders_tool_calls_text_and_json_in_both_formats() {
    let oa = rec(Wire::OpenAi, good_openai(), OA_HEADERS);
    let r = render(
        &Reply::tool("performAction", json!({"elementId": "e1"})),
        Wire::OpenAi,
        &oa,
        &ctx(),
    );
    assert_eq!(r.status, 200);
    let b = r.body_json();
    assert_eq!(b["object"], "chat.completion");
    assert_eq!(b["model"], "gpt-4.1-mini");
    assert!(b["created"].as_u64().unwrap() > 1_600_000_000);
    assert!(b["id"].as_str().unwrap().starts_with("chatcmpl-"));
    let choice = &b["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], Value::Null);
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(call["type"], "function");
    assert_eq!(call["function"]["name"], "performAction");
    assert_eq!(call["function"]["arguments"], json!("{\"elementId\":\"e1\"}"));
    assert!(call["id"].as_str().unwrap().starts_with("call_"));
    let u = &b["usage"];
    assert_eq!(u["prompt_tokens"].as_u64().unwrap(), oa.raw.len() as u64 / 4);
    assert_eq!(
        u["total_tokens"].as_u64().unwrap(),
        u["prompt_tokens"].as_u64().unwrap() + u["completion_tokens"].as_u64().unwrap()
    );
    assert_eq!(u["prompt_tokens_details"]["cached_tokens"], 0);

    let an = rec(Wire::Anthropic, good_anthropic(), AN_HEADERS);
    let r = render(
        &Reply::tools(vec![("a", json!({"x": 1})), ("b", json!({}))]),
        Wire::Anthropic,
        &an,
        &ctx(),
    );
    let b = r.body_json();
    assert_eq!(
        (b["type"].as_str(), b["role"].as_str()),
        (Some("message"), Some("assistant"))
    );
    assert_eq!(b["stop_reason"], "tool_use");
    assert_eq!(b["content"][1]["type"], "tool_use");
    assert_eq!(b["content"][1]["name"], "b");
    assert_eq!(b["content"][0]["input"], json!({"x": 1}));
    assert_ne!(b["content"][0]["id"], b["content"][1]["id"]);
    assert!(b["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert!(b.get("created").is_none());

    // Text.
    let b = render(&Reply::text("hello"), Wire::OpenAi, &oa, &ctx()).body_json();
    assert_eq!(
        (
            b["choices"][0]["message"]["content"].as_str(),
            b["choices"][0]["finish_reason"].as_str()
        ),
        (Some("hello"), Some("stop"))
    );
    let b = render(&Reply::text("hello"), Wire::Anthropic, &an, &ctx()).body_json();
    assert_eq!(b["content"], json!([{"type": "text", "text": "hello"}]));
    assert_eq!(b["stop_reason"], "end_turn");

    // Json: response_format → content; forced tool → a call of it; else text.
    let v = json!({"n": 7});
    let st = rec(Wire::OpenAi, good_openai_structured(), OA_HEADERS);
    let b = render(&Reply::json(v.clone()), Wire::OpenAi, &st, &ctx()).body_json();
    assert_eq!(b["choices"][0]["message"]["content"], json!("{\"n\":7}"));
    let b = render(&Reply::json(v.clone()), Wire::Anthropic, &an, &ctx()).body_json();
    assert_eq!(b["content"][0]["name"], "extraction");
    assert_eq!(b["content"][0]["input"], v);
    let mut forced = good_openai();
    forced["tool_choice"] = json!({"type": "function", "function": {"name": "removeBlocker"}});
    let b = render(
        &Reply::json(v.clone()),
        Wire::OpenAi,
        &rec(Wire::OpenAi, forced, OA_HEADERS),
        &ctx(),
    )
    .body_json();
    assert_eq!(
        b["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "removeBlocker"
    );
    let b = render(&Reply::json(v.clone()), Wire::OpenAi, &oa, &ctx()).body_json();
    assert_eq!(b["choices"][0]["message"]["content"], json!("{\"n\":7}"));

    // Dynamic and Delay resolve to their replies.
    let d = Reply::dynamic(|r: &Recorded| Reply::text(r.last_user_text()));
    let b = render(&Reply::delay(1, d), Wire::Anthropic, &an, &ctx()).body_json();
    assert_eq!(b["content"][0]["text"], "clicked\nWhat next?");
}

#[test]
fn renders_statuses_raw_bodies_and_cache_usage() {
    let oa = rec(Wire::OpenAi, good_openai(), OA_HEADERS);
    let an = rec(Wire::Anthropic, good_anthropic(), AN_HEADERS);
    let r = render(
        &Reply::status_with(429, &[("Retry-After", "1")], None),
        Wire::OpenAi,
        &oa,
        &ctx(),
    );
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(r.body_json()["error"]["code"], "rate_limit_exceeded");
    let r = render(&Reply::status(529), Wire::Anthropic, &an, &ctx());
    assert_eq!(r.body_json()["error"]["type"], "overloaded_error");
    assert_eq!(r.body_json()["type"], "error");
    let r = render(&Reply::status(500), Wire::OpenAi, &oa, &ctx());
    assert_eq!(r.body_json()["error"]["type"], "server_error");
    let r = render(
        &Reply::status_with(503, &[], Some("upstream down")),
        Wire::OpenAi,
        &oa,
        &ctx(),
    );
    assert_eq!((r.status, r.body.as_str()), (503, "upstream down"));
    let r = render(&Reply::raw("{\"choices\": [ oops"), Wire::OpenAi, &oa, &ctx());
    assert_eq!((r.status, r.body.as_str()), (200, "{\"choices\": [ oops"));

    let mut c = ctx();
    c.cached_tokens = 10;
    let b = render(&Reply::text("x"), Wire::OpenAi, &oa, &c).body_json();
    assert_eq!(b["usage"]["prompt_tokens_details"]["cached_tokens"], 10);
    let b = render(&Reply::text("x"), Wire::Anthropic, &an, &c).body_json();
    let prompt = an.raw.len() as u64 / 4;
    assert_eq!(b["usage"]["cache_read_input_tokens"], 10);
    assert_eq!(b["usage"]["input_tokens"].as_u64().unwrap(), prompt - 10);

    // Encoding: status line, content-length, scripted headers.
    let bytes = encode(
        &render(
            &Reply::status_with(429, &[("Retry-After", "1")], None),
            Wire::OpenAi,
            &oa,
            &ctx(),
        ),
        false,
    );
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.starts_with("HTTP/1.1 429 Too Many Requests\r\n"), "{text}");
    assert!(
        text.contains("Retry-After: 1\r\n") && text.contains("content-length: "),
        "{text}"
    );
}

#[test]
fn recorded_helpers_read_both_formats() {
    let oa = rec(Wire::OpenAi, good_openai(), OA_HEADERS);
    assert_eq!(oa.header("AUTHORIZATION"), Some("Bearer test-key"));
    assert_eq!(oa.model(), Some("gpt-4.1-mini"));
    assert_eq!(oa.tool_names(), ["performAction", "removeBlocker"]);
    assert_eq!(oa.forced_tool(), None);
    assert!(!oa.has_response_format());
    assert_eq!(oa.last_user_text(), "clicked\nError: nothing to remove\nWhat next?");
    let p = oa.prompt_text();
    for needle in [
        "You act on web pages.",
        "Instruction: click Buy",
        "{\"elementId\":\"e1\"}",
        "Act on an element",
        "\"required\":[\"elementId\"]",
    ] {
        assert!(p.contains(needle), "{needle:?} missing from {p}");
    }
    assert!(!p.contains("iVBORw0KGgo"), "images are not prompt text");

    let st = rec(Wire::OpenAi, good_openai_structured(), OA_HEADERS);
    assert!(st.has_response_format());
    assert!(st.prompt_text().contains("\"$defs\""));
    assert_eq!(st.last_user_text(), "the page");

    let an = rec(Wire::Anthropic, good_anthropic(), AN_HEADERS);
    assert_eq!(an.forced_tool().as_deref(), Some("extraction"));
    assert_eq!(an.tool_names(), ["performAction", "extraction"]);
    assert_eq!(an.last_user_text(), "clicked\nWhat next?");
    let p = an.prompt_text();
    for needle in [
        "You act on web pages.",
        "Clicking.",
        "{\"elementId\":\"e1\"}",
        "Give your answer",
        "clicked",
    ] {
        assert!(p.contains(needle), "{needle:?} missing from {p}");
    }
}

/// Sends raw bytes, reads one response (head + Content-Length body).
fn exchange(stream: &mut std::net::TcpStream, request: &[u8]) -> (u16, String, Value) {
    use std::io::{Read, Write};
    stream.write_all(request).unwrap();
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "connection closed early");
        buf.push(byte[0]);
    }
    let head = String::from_utf8(buf).unwrap();
    let status: u16 = head[9..12].parse().unwrap();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).unwrap();
    (status, head, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

#[test]
fn http_keep_alive_chunked_bodies_and_expect_continue() {
    let server = LlmServer::with_script(vec![Reply::text("one"), Reply::text("two"), Reply::text("three")]);
    let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).to_string();
    let plain = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (status, head, b) = exchange(&mut s, plain.as_bytes());
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("connection: keep-alive"));
    assert_eq!(b["choices"][0]["message"]["content"], "one");
    // Same connection, chunked body split at an awkward place.
    let (a, z) = body.split_at(7);
    let chunked = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x};ext=1\r\n{z}\r\n0\r\n\r\n",
        a.len(),
        z.len()
    );
    let (status, _, b) = exchange(&mut s, chunked.as_bytes());
    assert_eq!(status, 200);
    assert_eq!(b["choices"][0]["message"]["content"], "two");
    // Expect: 100-continue, then Connection: close.
    use std::io::{Read, Write};
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    let mut cont = [0u8; 25];
    s.read_exact(&mut cont).unwrap();
    assert_eq!(&cont, b"HTTP/1.1 100 Continue\r\n\r\n");
    let (status, head, b) = exchange(&mut s, body.as_bytes());
    assert_eq!(status, 200);
    assert!(head.contains("connection: close"));
    assert_eq!(b["choices"][0]["message"]["content"], "three");
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "the server closed the connection");
    assert_eq!(server.request_count(), 3);
    assert_eq!(
        server.requests()[1].body,
        server.requests()[0].body,
        "the chunked body reassembles"
    );
    server.assert_no_malformed();
}
