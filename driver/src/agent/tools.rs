//! The agent's tools: their JSON-schema parameter lists (what the model is
//! offered) and the typed, validated arguments the loop runs.

use serde_json::{json, Value};

use crate::llm::{schema, ToolSpec};

/// Tools that change (or may change) the page: the model gets a fresh page
/// message after any of them.
pub const PAGE_CHANGING: &[&str] = &[
    "act",
    "fillForm",
    "goto",
    "navback",
    "scroll",
    "wait",
    "keys",
    "removeBlocker",
];

/// The model's tool call, validated.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallArgs {
    Act {
        action: String,
    },
    AriaTree,
    Extract {
        instruction: String,
        schema: Option<Value>,
    },
    FillForm {
        fields: Vec<FormField>,
    },
    Goto {
        url: String,
    },
    Navback,
    Screenshot,
    Scroll {
        down: bool,
        percentage: f64,
    },
    Wait {
        ms: u64,
    },
    Keys {
        press: bool,
        value: String,
        repeat: u32,
    },
    Think {
        reasoning: String,
    },
    RemoveBlocker {
        aggressive: bool,
    },
    Done {
        reasoning: String,
        task_complete: bool,
        output: Option<Value>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    pub action: String,
    pub value: String,
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// Every tool; `screenshot` only for models that read images.
pub fn tool_specs(multimodal: bool) -> Vec<ToolSpec> {
    let mut tools = vec![
        ToolSpec::new(
            "act",
            "Perform ONE atomic action on the page, described in words: \"click the Add to cart button\", \
\"type %email% into the Email field\", \"choose EU 42 in the size dropdown\".",
            object(json!({"action": {"type": "string", "description": "One action, specific about the element."}}), &["action"]),
        ),
        ToolSpec::new(
            "ariaTree",
            "The whole page as an accessibility tree (not only the viewport). Costly: use when the viewport is not enough.",
            object(json!({}), &[]),
        ),
        ToolSpec::new(
            "extract",
            "Read data from the page as JSON, optionally shaped by a JSON Schema.",
            object(
                json!({
                    "instruction": {"type": "string", "description": "What to extract."},
                    "schema": {"type": "object", "description": "Optional JSON Schema of the result."}
                }),
                &["instruction"],
            ),
        ),
        ToolSpec::new(
            "fillForm",
            "Fill several form fields at once. Each field: the action in words and the value (may be a %name% variable).",
            object(
                json!({"fields": {"type": "array", "minItems": 1, "items": object(
                    json!({
                        "action": {"type": "string", "description": "e.g. \"type into the Email field\""},
                        "value": {"type": "string"}
                    }),
                    &["action", "value"],
                )}}),
                &["fields"],
            ),
        ),
        ToolSpec::new(
            "goto",
            "Open a URL in this tab.",
            object(json!({"url": {"type": "string"}}), &["url"]),
        ),
        ToolSpec::new("navback", "Go back to the previous page.", object(json!({}), &[])),
        ToolSpec::new(
            "scroll",
            "Scroll the page up or down by a percentage of the viewport height.",
            object(
                json!({
                    "direction": {"type": "string", "enum": ["up", "down"]},
                    "percentage": {"type": "number", "minimum": 1, "maximum": 1000, "description": "Default 80."}
                }),
                &["direction"],
            ),
        ),
        ToolSpec::new(
            "wait",
            "Wait for the page (animations, slow loads).",
            object(json!({"ms": {"type": "integer", "minimum": 0, "maximum": 30000}}), &["ms"]),
        ),
        ToolSpec::new(
            "keys",
            "Press keys (\"Enter\", \"Control+A\", \"Escape\") or type text into the focused element.",
            object(
                json!({
                    "method": {"type": "string", "enum": ["press", "type"]},
                    "value": {"type": "string"},
                    "repeat": {"type": "integer", "minimum": 1, "maximum": 50}
                }),
                &["method", "value"],
            ),
        ),
        ToolSpec::new(
            "think",
            "Think through the next steps; nothing happens on the page.",
            object(json!({"reasoning": {"type": "string"}}), &["reasoning"]),
        ),
        ToolSpec::new(
            "removeBlocker",
            "Close the pop-up, promo modal, cookie banner or overlay that blocks the page. Deterministic and \
conservative: it leaves consent, login, age and paywall dialogs alone unless aggressive is true.",
            object(json!({"aggressive": {"type": "boolean", "description": "Default false."}}), &[]),
        ),
        ToolSpec::new(
            "done",
            "Finish the task: whether it is complete, why, and the answer when the task asks for one.",
            object(
                json!({
                    "reasoning": {"type": "string"},
                    "taskComplete": {"type": "boolean"},
                    "output": {"description": "The answer or data the task asked for, if any."}
                }),
                &["reasoning", "taskComplete"],
            ),
        ),
    ];
    if multimodal {
        tools.insert(
            6,
            ToolSpec::new("screenshot", "A screenshot of the viewport.", object(json!({}), &[])),
        );
    }
    tools
}

fn text(args: &Value, key: &str) -> String {
    args.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// Checks a call's arguments against the tool's schema and reads them.
pub fn parse_call(specs: &[ToolSpec], name: &str, args: &Value) -> Result<ToolCallArgs, String> {
    let spec = specs
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("there is no tool {name:?}; use one of {}", names(specs)))?;
    // Models often send `null` or nothing for tools without parameters.
    let args = if args.is_null() { json!({}) } else { args.clone() };
    schema::validate(&spec.parameters, &args).map_err(|e| format!("invalid arguments for {name}: {e}"))?;
    let non_empty = |key: &str| -> Result<String, String> {
        let v = text(&args, key);
        if v.trim().is_empty() {
            Err(format!("{name}: {key} must not be empty"))
        } else {
            Ok(v)
        }
    };
    Ok(match name {
        "act" => ToolCallArgs::Act {
            action: non_empty("action")?,
        },
        "ariaTree" => ToolCallArgs::AriaTree,
        "extract" => {
            let schema = args.get("schema").cloned().filter(|s| !s.is_null());
            if let Some(s) = &schema {
                schema::check_schema(s).map_err(|e| format!("extract: schema: {e}"))?;
            }
            ToolCallArgs::Extract {
                instruction: non_empty("instruction")?,
                schema,
            }
        }
        "fillForm" => {
            let fields = args["fields"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|f| FormField {
                            action: text(f, "action"),
                            value: text(f, "value"),
                        })
                        .collect()
                })
                .unwrap_or_default();
            ToolCallArgs::FillForm { fields }
        }
        "goto" => ToolCallArgs::Goto { url: non_empty("url")? },
        "navback" => ToolCallArgs::Navback,
        "screenshot" => ToolCallArgs::Screenshot,
        "scroll" => ToolCallArgs::Scroll {
            down: text(&args, "direction") == "down",
            percentage: args.get("percentage").and_then(Value::as_f64).unwrap_or(80.0),
        },
        "wait" => ToolCallArgs::Wait {
            ms: args["ms"].as_u64().unwrap_or(0),
        },
        "keys" => ToolCallArgs::Keys {
            press: text(&args, "method") == "press",
            value: non_empty("value")?,
            repeat: args.get("repeat").and_then(Value::as_u64).unwrap_or(1) as u32,
        },
        "think" => ToolCallArgs::Think {
            reasoning: text(&args, "reasoning"),
        },
        "removeBlocker" => ToolCallArgs::RemoveBlocker {
            aggressive: args.get("aggressive").and_then(Value::as_bool).unwrap_or(false),
        },
        "done" => ToolCallArgs::Done {
            reasoning: text(&args, "reasoning"),
            task_complete: args["taskComplete"].as_bool().unwrap_or(false),
            output: args.get("output").cloned().filter(|o| !o.is_null()),
        },
        other => return Err(format!("tool {other:?} is not implemented")),
    })
}

fn names(specs: &[ToolSpec]) -> String {
    specs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screenshot_only_for_multimodal_models() {
        assert!(!tool_specs(false).iter().any(|t| t.name == "screenshot"));
        assert!(tool_specs(true).iter().any(|t| t.name == "screenshot"));
        for t in tool_specs(true) {
            schema::check_schema(&t.parameters).unwrap();
            assert_eq!(t.parameters["type"], "object", "{}", t.name);
        }
    }

    #[test]
    fn arguments_are_validated() {
        let specs = tool_specs(false);
        assert_eq!(
            parse_call(&specs, "act", &json!({"action": "click Buy"})).unwrap(),
            ToolCallArgs::Act {
                action: "click Buy".into()
            }
        );
        assert!(parse_call(&specs, "act", &json!({})).unwrap_err().contains("action"));
        assert!(parse_call(&specs, "act", &json!({"action": "  "}))
            .unwrap_err()
            .contains("empty"));
        assert!(parse_call(&specs, "scroll", &json!({"direction": "sideways"})).is_err());
        assert_eq!(
            parse_call(&specs, "scroll", &json!({"direction": "down"})).unwrap(),
            ToolCallArgs::Scroll {
                down: true,
                percentage: 80.0
            }
        );
        assert_eq!(
            parse_call(&specs, "navback", &Value::Null).unwrap(),
            ToolCallArgs::Navback
        );
        assert!(parse_call(&specs, "screenshot", &json!({}))
            .unwrap_err()
            .contains("no tool"));
        assert!(parse_call(&specs, "wait", &json!({"ms": 99999})).is_err());
        assert!(parse_call(&specs, "extract", &json!({"instruction": "x", "schema": {"type": 5}})).is_err());
        let done = parse_call(
            &specs,
            "done",
            &json!({"reasoning": "r", "taskComplete": true, "output": {"n": 1}}),
        )
        .unwrap();
        assert_eq!(
            done,
            ToolCallArgs::Done {
                reasoning: "r".into(),
                task_complete: true,
                output: Some(json!({"n": 1}))
            }
        );
        let form = parse_call(
            &specs,
            "fillForm",
            &json!({"fields": [{"action": "Email", "value": "%email%"}]}),
        )
        .unwrap();
        assert_eq!(
            form,
            ToolCallArgs::FillForm {
                fields: vec![FormField {
                    action: "Email".into(),
                    value: "%email%".into()
                }]
            }
        );
        assert!(parse_call(&specs, "fillForm", &json!({"fields": []})).is_err());
    }
}
