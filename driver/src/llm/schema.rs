//! JSON Schema helpers: validation of model output, OpenAI's strict-mode
//! subset, and the wrapping of non-object schemas (tool inputs and
//! structured outputs must be objects).

use serde_json::{json, Value};

/// Takes out of the list `value[list]` the items that do not match the
/// schema's item schema for it (`properties.<list>.items`) and returns
/// them, so that one bad item need not cost the whole answer. When none
/// fits, nothing is taken out: a mistake in every item is the answer's,
/// and its error goes back to the model.
pub fn prune_items(schema: &Value, value: &mut Value, list: &str) -> Vec<Value> {
    let item_schema = &schema["properties"][list]["items"];
    let Some(items) = value.get_mut(list).and_then(Value::as_array_mut) else {
        return Vec::new();
    };
    if !item_schema.is_object() {
        return Vec::new();
    }
    let (keep, bad): (Vec<Value>, Vec<Value>) = items
        .iter()
        .cloned()
        .partition(|item| validate(item_schema, item).is_ok());
    if keep.is_empty() {
        return Vec::new();
    }
    *items = keep;
    bad
}

/// Validates `value` against `schema`; the error lists the first few
/// problems with their JSON paths, in words a model can act on.
pub fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    let validator = compile(schema)?;
    let problems: Vec<String> = validator
        .iter_errors(value)
        .take(5)
        .map(|e| {
            let path = e.instance_path().to_string();
            let at = if path.is_empty() { "the root".to_string() } else { path };
            match e.kind() {
                // The validator names only the first few choices; a model
                // fixing its call needs them all.
                jsonschema::error::ValidationErrorKind::Enum { options } => {
                    format!("at {at}: {} is not one of {options}", e.instance())
                }
                _ => format!("at {at}: {e}"),
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// Gives a string the spelling of the one enum choice it matches but for
/// case and surrounding space ("yes" for "YES", "Click " for "click"):
/// servers without strict schemas let a model's casing through, and what it
/// meant is plain. Follows `properties`, `items`, local `$ref`s (`$defs`,
/// `definitions`) and the branches of `anyOf`/`oneOf`/`allOf`; other
/// keywords are left to the validator.
pub fn conform_enum_case(schema: &Value, value: &mut Value) {
    conform_within(schema, schema, value, 0);
}

/// [`conform_enum_case`] of `schema`, a part of `root` (whose `$ref`s it
/// resolves), `depth` references deep (a schema that refers to itself
/// stops somewhere).
fn conform_within(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    if depth > 16 {
        return;
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/"))
    {
        let found = target.split('/').try_fold(root, |node, key| node.get(key));
        if let Some(found) = found {
            conform_within(root, found, value, depth + 1);
        }
        return;
    }
    for branches in ["anyOf", "oneOf", "allOf"] {
        for branch in schema.get(branches).and_then(Value::as_array).into_iter().flatten() {
            conform_within(root, branch, value, depth + 1);
        }
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        let Some(given) = value.as_str() else { return };
        if choices.iter().any(|c| c.as_str() == Some(given)) {
            return;
        }
        let matching: Vec<&str> = choices
            .iter()
            .filter_map(Value::as_str)
            .filter(|c| c.eq_ignore_ascii_case(given.trim()))
            .collect();
        if let [only] = matching[..] {
            *value = Value::String(only.to_string());
        }
        return;
    }
    match value {
        Value::Object(fields) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (key, field) in fields.iter_mut() {
                    if let Some(field_schema) = properties.get(key) {
                        conform_within(root, field_schema, field, depth);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                items
                    .iter_mut()
                    .for_each(|item| conform_within(root, item_schema, item, depth));
            }
        }
        _ => {}
    }
}

/// Checks that `schema` is a usable JSON Schema.
pub fn check_schema(schema: &Value) -> Result<(), String> {
    compile(schema).map(|_| ())
}

fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    if !schema.is_object() && !schema.is_boolean() {
        return Err("a JSON Schema must be an object".into());
    }
    jsonschema::validator_for(schema).map_err(|e| format!("invalid JSON Schema: {e}"))
}

/// Whether the schema is an object at the root.
pub fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        || (schema.get("type").is_none() && schema.get("properties").is_some())
}

/// Non-object schemas are wrapped as `{"value": schema}`; see [`unwrap_value`].
pub fn wrap(schema: &Value) -> (Value, bool) {
    if is_object_schema(schema) {
        return (schema.clone(), false);
    }
    let mut inner = schema.clone();
    // $defs must stay at the root for "#/$defs/…" references to resolve.
    let mut root = json!({"type": "object", "properties": {}, "required": ["value"], "additionalProperties": false});
    for defs in ["$defs", "definitions"] {
        if let Some(d) = inner.as_object_mut().and_then(|o| o.remove(defs)) {
            root[defs] = d;
        }
    }
    root["properties"]["value"] = inner;
    (root, true)
}

pub fn unwrap_value(value: Value, wrapped: bool) -> Value {
    if wrapped {
        value.get("value").cloned().unwrap_or(Value::Null)
    } else {
        value
    }
}

/// OpenAI's strict structured outputs accept only schemas where every object
/// lists all its properties as required and forbids others. Our own schemas
/// are written that way; arbitrary user schemas are sent non-strict.
pub fn fits_strict_mode(schema: &Value) -> bool {
    fn walk(s: &Value, root: bool) -> bool {
        let Some(o) = s.as_object() else {
            return s.is_boolean() && !root;
        };
        if root && o.get("type").and_then(Value::as_str) != Some("object") {
            return false;
        }
        let types: Vec<&str> = match o.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if types.contains(&"object") {
            if o.get("additionalProperties") != Some(&Value::Bool(false)) {
                return false;
            }
            let props = o.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = o
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = props {
                if props.keys().any(|k| !required.contains(&k.as_str())) {
                    return false;
                }
                if !props.values().all(|p| walk(p, false)) {
                    return false;
                }
            }
        }
        for key in ["items"] {
            if let Some(i) = o.get(key) {
                if !walk(i, false) {
                    return false;
                }
            }
        }
        for key in ["anyOf"] {
            if let Some(Value::Array(a)) = o.get(key) {
                if !a.iter().all(|x| walk(x, false)) {
                    return false;
                }
            }
        }
        // Keywords strict mode does not support.
        if o.contains_key("oneOf") || o.contains_key("allOf") || o.contains_key("not") || o.contains_key("if") {
            return false;
        }
        for defs in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = o.get(defs) {
                if !d.values().all(|x| walk(x, false)) {
                    return false;
                }
            }
        }
        true
    }
    walk(schema, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfit_items_are_taken_out_of_a_list() {
        let schema = serde_json::json!({"type": "object", "properties": {"elements": {"type": "array", "items": {
            "type": "object", "properties": {"method": {"type": "string", "enum": ["click", "fill"]}}, "required": ["method"]}}}});
        let mut v = serde_json::json!({"elements": [{"method": "click"}, {"method": "explode"}, {"method": "fill"}]});
        let out = super::prune_items(&schema, &mut v, "elements");
        assert_eq!(out, vec![serde_json::json!({"method": "explode"})]);
        assert_eq!(v["elements"].as_array().unwrap().len(), 2);
        assert!(super::validate(&schema, &v).is_ok());
        // Nothing to prune where there is no such list.
        assert!(super::prune_items(&schema, &mut serde_json::json!({}), "elements").is_empty());
        // None fits: the answer's mistake, left for its error.
        let mut all_bad = serde_json::json!({"elements": [{"method": "explode"}]});
        assert!(super::prune_items(&schema, &mut all_bad, "elements").is_empty());
        assert_eq!(all_bad["elements"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn validation_explains_problems() {
        let s = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        assert!(validate(&s, &json!({"n": 3})).is_ok());
        let e = validate(&s, &json!({"n": "x"})).unwrap_err();
        assert!(e.contains("/n"), "{e}");
        let e = validate(&s, &json!({})).unwrap_err();
        assert!(e.contains("required") || e.contains("\"n\""), "{e}");
        assert!(check_schema(&json!({"type": "nonsense"})).is_err());
        let actions = json!({"type": "object", "properties": {"action": {"enum": ["list", "new", "select", "close"]}}});
        let e = validate(&actions, &json!({"action": "fly"})).unwrap_err();
        assert_eq!(e, r#"at /action: "fly" is not one of ["list","new","select","close"]"#);
    }

    #[test]
    fn enum_answers_take_the_schemas_spelling() {
        let s = json!({"type": "object", "properties": {
            "verdict": {"enum": ["YES", "NO"]},
            "steps": {"type": "array", "items": {"type": "object", "properties": {"method": {"enum": ["click", "fill"]}}}},
            "twin": {"enum": ["Yes", "YES"]}}});
        let mut v = json!({"verdict": "yes", "steps": [{"method": " Click"}, {"method": "explode"}], "twin": "YES", "other": "no"});
        conform_enum_case(&s, &mut v);
        assert_eq!(
            v,
            json!({"verdict": "YES", "steps": [{"method": "click"}, {"method": "explode"}], "twin": "YES", "other": "no"})
        );
        // Two choices that differ only in case leave the answer as given.
        let mut twin = json!({"twin": "yes"});
        conform_enum_case(&s, &mut twin);
        assert_eq!(twin["twin"], "yes");
        assert!(validate(&s, &v).is_err(), "an unknown choice is still refused");
        // Through $defs and a nullable anyOf, as extraction schemas write them.
        let defs = json!({"type": "object", "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}},
            "$defs": {"Item": {"type": "object", "properties": {
                "colour": {"anyOf": [{"enum": ["Red", "Green"]}, {"type": "null"}]}}}}});
        let mut v = json!({"items": [{"colour": "red"}, {"colour": null}]});
        conform_enum_case(&defs, &mut v);
        assert_eq!(v, json!({"items": [{"colour": "Red"}, {"colour": null}]}));
        assert!(validate(&defs, &v).is_ok());
    }

    #[test]
    fn wrapping_keeps_defs_at_the_root() {
        let s = json!({"type": "array", "items": {"$ref": "#/$defs/P"}, "$defs": {"P": {"type": "string"}}});
        let (w, wrapped) = wrap(&s);
        assert!(wrapped);
        assert!(w["$defs"]["P"].is_object());
        assert!(validate(&w, &json!({"value": ["a"]})).is_ok());
        assert!(validate(&w, &json!({"value": [1]})).is_err());
        assert_eq!(unwrap_value(json!({"value": [1]}), true), json!([1]));
        let (o, wrapped) = wrap(&json!({"type": "object"}));
        assert!(!wrapped && o == json!({"type": "object"}));
    }

    #[test]
    fn strict_mode_subset() {
        let strict = json!({"type": "object", "additionalProperties": false, "required": ["a"],
            "properties": {"a": {"type": "array", "items": {"type": "string"}}}});
        assert!(fits_strict_mode(&strict));
        let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert!(!fits_strict_mode(&open));
        let optional =
            json!({"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}});
        assert!(!fits_strict_mode(&optional));
    }
}
