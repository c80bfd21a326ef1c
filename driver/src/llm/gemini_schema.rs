//! JSON Schema → Gemini's `Schema` (an OpenAPI 3.0 subset), for function
//! declarations and structured output. Gemini refuses fields it does not
//! know (`additionalProperties`, `$defs`, `const`…), so the schema is
//! rewritten: local `$ref`s inlined, `const` as a one-value `enum`, a type
//! list with `null` as `nullable`, types upper-cased, the rest dropped.

use serde_json::{json, Map, Value};

/// Keywords of Gemini's `Schema` kept as they are.
const KEPT: &[&str] = &[
    "format",
    "title",
    "description",
    "nullable",
    "maxItems",
    "minItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "default",
    "minimum",
    "maximum",
    "propertyOrdering",
];

/// `$ref`s nest at most this deep (a recursive schema is cut off there).
const MAX_DEPTH: usize = 12;

pub fn to_gemini(schema: &Value) -> Value {
    convert(schema, schema, 0)
}

fn convert(s: &Value, root: &Value, depth: usize) -> Value {
    let Some(o) = s.as_object() else {
        // `true` (anything) has no Gemini form; a string is the loosest.
        return json!({"type": "STRING"});
    };
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        return match resolve(root, r) {
            Some(target) if depth < MAX_DEPTH => convert(target, root, depth + 1),
            _ => json!({"type": "OBJECT"}),
        };
    }
    let mut out = Map::new();
    match o.get("type") {
        Some(Value::String(t)) => {
            out.insert("type".into(), json!(t.to_ascii_uppercase()));
        }
        Some(Value::Array(types)) => {
            let named: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            if let Some(t) = named.iter().find(|t| **t != "null") {
                out.insert("type".into(), json!(t.to_ascii_uppercase()));
            }
            if named.contains(&"null") {
                out.insert("nullable".into(), json!(true));
            }
        }
        _ => {}
    }
    for k in KEPT {
        if let Some(v) = o.get(*k) {
            out.insert((*k).into(), v.clone());
        }
    }
    // Gemini's enums are strings.
    let enum_values = o
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .or_else(|| o.get("const").map(|c| vec![c.clone()]));
    if let Some(values) = enum_values {
        let strings: Vec<Value> = values
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| match v {
                Value::String(s) => json!(s),
                other => json!(other.to_string()),
            })
            .collect();
        out.insert("enum".into(), Value::Array(strings));
        out.entry("type").or_insert(json!("STRING"));
        if values.iter().any(Value::is_null) {
            out.insert("nullable".into(), json!(true));
        }
    }
    if let Some(props) = o.get("properties").and_then(Value::as_object) {
        let converted: Map<String, Value> = props
            .iter()
            .map(|(k, v)| (k.clone(), convert(v, root, depth)))
            .collect();
        out.insert("properties".into(), Value::Object(converted));
        out.entry("type").or_insert(json!("OBJECT"));
        if let Some(req) = o.get("required").and_then(Value::as_array) {
            let known: Vec<Value> = req
                .iter()
                .filter(|r| r.as_str().is_some_and(|r| props.contains_key(r)))
                .cloned()
                .collect();
            if !known.is_empty() {
                out.insert("required".into(), Value::Array(known));
            }
        }
    }
    if let Some(items) = o.get("items") {
        let items = match items {
            Value::Array(a) => a.first().cloned().unwrap_or(json!({})),
            other => other.clone(),
        };
        out.insert("items".into(), convert(&items, root, depth));
        out.entry("type").or_insert(json!("ARRAY"));
    }
    let alternatives = o.get("anyOf").or_else(|| o.get("oneOf")).and_then(Value::as_array);
    if let Some(alts) = alternatives {
        let non_null: Vec<&Value> = alts.iter().filter(|a| a.get("type") != Some(&json!("null"))).collect();
        let nullable = non_null.len() < alts.len();
        if non_null.len() == 1 {
            // `T | null`, the common case: T, nullable.
            if let Value::Object(inner) = convert(non_null[0], root, depth) {
                for (k, v) in inner {
                    out.entry(k).or_insert(v);
                }
            }
        } else {
            let converted: Vec<Value> = non_null.iter().map(|a| convert(a, root, depth)).collect();
            out.insert("anyOf".into(), Value::Array(converted));
        }
        if nullable {
            out.insert("nullable".into(), json!(true));
        }
    }
    if out.get("type").is_none() && out.get("anyOf").is_none() {
        out.insert("type".into(), json!("STRING"));
    }
    Value::Object(out)
}

/// `#/$defs/name` (or `#/definitions/name`) in the root schema.
fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let path = r.strip_prefix("#/")?;
    path.split('/').try_fold(root, |v, key| v.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_what_gemini_refuses() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "additionalProperties": false, "required": ["items", "note", "ghost"],
            "properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "kind": {"const": "shoe"},
                "count": {"type": ["integer", "null"], "minimum": 0}
            },
            "$defs": {"item": {"type": "object", "properties": {"name": {"type": "string", "description": "d"}}}}
        });
        let g = to_gemini(&s);
        assert_eq!(
            g,
            json!({
                "type": "OBJECT", "required": ["items", "note"],
                "properties": {
                    "items": {"type": "ARRAY", "items": {"type": "OBJECT",
                        "properties": {"name": {"type": "STRING", "description": "d"}}}},
                    "note": {"type": "STRING", "nullable": true},
                    "kind": {"type": "STRING", "enum": ["shoe"]},
                    "count": {"type": "INTEGER", "nullable": true, "minimum": 0}
                }
            })
        );
    }

    #[test]
    fn recursive_refs_stop() {
        let s = json!({"$ref": "#/$defs/node", "$defs": {"node": {"type": "object",
            "properties": {"child": {"$ref": "#/$defs/node"}}}}});
        let g = to_gemini(&s);
        assert_eq!(g["type"], "OBJECT");
        assert!(g.to_string().len() < 4000);
    }
}
