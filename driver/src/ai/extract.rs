//! `extract`: data from the page, shaped by any JSON Schema.
//!
//! - Non-object schemas are wrapped as `{"value": …}` and unwrapped after.
//! - URL fields (`format: uri`) travel as link refs and are re-injected from
//!   the snapshot's URL map: the model never re-types a URL.
//! - A second, small call reports `{progress, completed}`.
//! - Pages over the token budget are read in chunks (each chunk against a
//!   relaxed schema, results merged) until the model says it is complete.
//! - The result is validated against the schema before it is returned.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};
use sightline_engine::protocol::{RefMap, SnapshotMode, SnapshotResult};

use super::handle::Ai;
use super::prompts;
use super::tree;
use crate::error::{Error, Result};
use crate::llm::schema as jschema;
use crate::llm::{Llm, LlmError, Message, Secrets, Usage};
use crate::page::{Page, SnapshotOptions};

#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Above this many tokens (characters / 4) the page is read in chunks.
    pub token_budget: usize,
    /// The whole page (default) or only the viewport.
    pub mode: SnapshotMode,
    /// Values that must not reach the model (a field may show one the
    /// caller typed with `%name%`).
    pub secrets: Secrets,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            token_budget: 60_000,
            mode: SnapshotMode::Full,
            secrets: Secrets::default(),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ExtractResult {
    /// The data, valid against the schema (or `{"page_text"}` without an instruction).
    pub data: Value,
    /// The model's account of what it extracted.
    pub progress: String,
    pub completed: bool,
    /// Chunks read (1 when the page fit the budget).
    pub chunks_read: usize,
    pub chunks_total: usize,
    pub usage: Usage,
}

/// The schema used when the caller gives none: one text field.
pub fn default_schema() -> Value {
    json!({"type": "object", "additionalProperties": false, "required": ["extraction"],
        "properties": {"extraction": {"type": "string", "description": "The extracted information"}}})
}

const URL_FORMATS: &[&str] = &["uri", "url", "uri-reference", "iri", "iri-reference"];

fn is_url_field(s: &Value) -> bool {
    let is_string = match s.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(a)) => a.iter().any(|t| t == "string"),
        _ => false,
    };
    is_string
        && s.get("format")
            .and_then(Value::as_str)
            .is_some_and(|f| URL_FORMATS.contains(&f))
}

/// Replaces URL fields by "the link's ref" strings; true when it found any.
fn refs_for_urls(schema: &mut Value) -> bool {
    let mut found = false;
    match schema {
        Value::Object(o) => {
            let as_value = Value::Object(o.clone());
            if is_url_field(&as_value) {
                let desc = o
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                o.remove("format");
                let note = "the ref of the link (e.g. e12)";
                o.insert(
                    "description".into(),
                    json!(if desc.is_empty() {
                        note.to_string()
                    } else {
                        format!("{desc} — {note}")
                    }),
                );
                return true;
            }
            for v in o.values_mut() {
                found |= refs_for_urls(v);
            }
        }
        Value::Array(a) => {
            for v in a {
                found |= refs_for_urls(v);
            }
        }
        _ => {}
    }
    found
}

/// Follows a local `$ref` (`#/$defs/X`).
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
    {
        Some(pointer) => root.pointer(pointer).unwrap_or(schema),
        None => schema,
    }
}

/// Walks `value` along the original schema and turns link refs in URL
/// fields back into the links' URLs.
fn inject_urls(value: &mut Value, schema: &Value, root: &Value, refs: &RefMap, depth: usize) {
    if depth > 64 {
        return;
    }
    let schema = resolve(schema, root);
    if is_url_field(schema) {
        if let Value::String(s) = value {
            let id = s.trim().trim_start_matches("ref=").to_string();
            if let Some(url) = refs.get(&id).and_then(|i| i.url.clone()) {
                *s = url;
            }
        }
        return;
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(alts)) = schema.get(key) {
            for alt in alts {
                inject_urls(value, alt, root, refs, depth + 1);
            }
        }
    }
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            for (k, v) in map.iter_mut() {
                if let Some(s) = props.and_then(|p| p.get(k)) {
                    inject_urls(v, s, root, refs, depth + 1);
                } else if let Some(s) = schema.get("additionalProperties").filter(|s| s.is_object()) {
                    inject_urls(v, s, root, refs, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                let s = match schema.get("items") {
                    Some(Value::Array(tuple)) => tuple.get(i),
                    Some(s) => Some(s),
                    None => schema.get("prefixItems").and_then(|p| p.get(i)),
                };
                if let Some(s) = s {
                    inject_urls(v, s, root, refs, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A chunk cannot hold everything: required fields and minimum sizes are
/// checked only on the merged result.
fn relaxed(schema: &Value) -> Value {
    match schema {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, v) in o {
                if matches!(k.as_str(), "required" | "minItems" | "minProperties" | "minLength") {
                    continue;
                }
                let v = match (k.as_str(), v) {
                    // Maps of names to schemas: a property may be called
                    // `required` (a form's field list); only its schema is relaxed.
                    ("properties" | "patternProperties" | "$defs" | "definitions", Value::Object(named)) => {
                        Value::Object(named.iter().map(|(name, s)| (name.clone(), relaxed(s))).collect())
                    }
                    _ => relaxed(v),
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(relaxed).collect()),
        other => other.clone(),
    }
}

/// Merges a chunk's data into what earlier chunks found: lists grow (without
/// duplicates), objects merge field by field, and a value found earlier is
/// kept unless it was empty.
pub fn merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(existing) => merge(existing, v),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for v in b {
                if !a.contains(&v) {
                    a.push(v);
                }
            }
        }
        (slot, v) => {
            let empty = slot.is_null() || slot.as_str().is_some_and(|s| s.trim().is_empty());
            if empty {
                *slot = v;
            }
        }
    }
}

fn strip_refs(tree: &str) -> String {
    // (Only the line's own token: a name's text is the page's.)
    super::tree::without_token(tree, "ref")
}

impl Ai<'_> {
    /// Extracts data from `page` for `instruction` shaped by `schema` (any JSON Schema;
    /// a single text field when `None`). Without an instruction it returns
    /// the page's text, with no model call.
    pub async fn extract(
        &self,
        page: &Page,
        instruction: Option<&str>,
        schema: Option<&Value>,
        opts: &ExtractOptions,
    ) -> Result<ExtractResult> {
        let Some(instruction) = instruction.map(str::trim).filter(|i| !i.is_empty()) else {
            return page_text(page, opts).await;
        };
        let snapshot = page
            .snapshot(&SnapshotOptions {
                mode: opts.mode,
                ..Default::default()
            })
            .await?;
        let original = schema.cloned().unwrap_or_else(default_schema);
        jschema::check_schema(&original).map_err(|e| Error::InvalidAction(format!("extract schema: {e}")))?;
        extract_from(self.llm(), instruction, &original, &snapshot, opts).await
    }

    /// [`Ai::extract`] into a Rust type: the schema comes from
    /// `schemars::JsonSchema`, the result is deserialised.
    pub async fn extract_typed<T: JsonSchema + DeserializeOwned>(
        &self,
        page: &Page,
        instruction: &str,
        opts: &ExtractOptions,
    ) -> Result<(T, ExtractResult)> {
        let schema = serde_json::to_value(schemars::schema_for!(T)).expect("schemars output is JSON");
        let result = self.extract(page, Some(instruction), Some(&schema), opts).await?;
        let typed = serde_json::from_value(result.data.clone()).map_err(|e| {
            Error::Llm(LlmError::Output(format!(
                "extract: the data does not fit the type: {e}"
            )))
        })?;
        Ok((typed, result))
    }
}

/// The page's text (`{"page_text"}`): the snapshot without refs, no model call.
pub async fn page_text(page: &Page, opts: &ExtractOptions) -> Result<ExtractResult> {
    let snapshot = page
        .snapshot(&SnapshotOptions {
            mode: opts.mode,
            ..Default::default()
        })
        .await?;
    Ok(ExtractResult {
        data: json!({"page_text": strip_refs(&snapshot.tree)}),
        progress: "the page's text".into(),
        completed: true,
        chunks_read: 1,
        chunks_total: 1,
        usage: Usage::default(),
    })
}

async fn extract_from(
    llm: &Llm,
    instruction: &str,
    original: &Value,
    snapshot: &SnapshotResult,
    opts: &ExtractOptions,
) -> Result<ExtractResult> {
    let (wrapped, was_wrapped) = jschema::wrap(original);
    let mut sent = wrapped.clone();
    let has_url_fields = refs_for_urls(&mut sent);
    // Links travel as refs when the schema has URL fields; otherwise refs
    // are nothing to an extraction (one per control, ~5% of a news page).
    let tree_text = if has_url_fields {
        tree::without_urls(&snapshot.tree)
    } else {
        strip_refs(&snapshot.tree)
    };
    let page = prompts::page_block(snapshot, &tree_text);
    let parts = if tree::tokens(&page) > opts.token_budget {
        tree::chunks(
            &tree_text,
            opts.token_budget.saturating_sub(tree::tokens(instruction) + 200),
        )
    } else {
        vec![tree_text.clone()]
    };
    let total = parts.len();
    let chunk_schema = if total > 1 { relaxed(&sent) } else { sent.clone() };
    let system = prompts::extract_system(has_url_fields);
    let secrets = &opts.secrets;
    let mut usage = Usage::default();
    let mut data = Value::Null;
    let mut progress = String::new();
    let mut completed = false;
    let mut read = 0;
    for (i, part) in parts.iter().enumerate() {
        let which = (total > 1).then_some((i + 1, total));
        let page = prompts::page_block(snapshot, part);
        let messages = vec![Message::user(prompts::extract_user(instruction, which, &page))];
        let reply = llm
            .structured(&system, messages, "extraction", &chunk_schema, "extract", secrets)
            .await;
        // A later part failing leaves what the earlier ones gave (said as
        // not complete); the first one failing is the extraction failing.
        let reply = match reply {
            Ok(reply) => reply,
            Err(e) if read > 0 => {
                progress = format!("not complete: part {} of {total} could not be read ({e})", i + 1);
                completed = false;
                break;
            }
            Err(e) => return Err(e.into()),
        };
        usage += reply.usage;
        read += 1;
        if data.is_null() {
            data = reply.value;
        } else {
            merge(&mut data, reply.value);
        }
        let shown = jschema::unwrap_value(data.clone(), was_wrapped);
        let meta_messages = vec![Message::user(prompts::metadata_user(instruction, &shown, which))];
        let meta = llm
            .structured(
                prompts::metadata_system(),
                meta_messages,
                "metadata",
                &prompts::metadata_schema(),
                "extract metadata",
                secrets,
            )
            .await;
        // The data is had and paid for: a failed completeness check only
        // leaves completeness unknown (and the next part is read).
        let meta = match meta {
            Ok(meta) => meta,
            Err(e) => {
                progress = format!("not known: the completeness check failed ({e})");
                completed = false;
                continue;
            }
        };
        usage += meta.usage;
        progress = meta.value["progress"].as_str().unwrap_or_default().to_string();
        completed = meta.value["completed"].as_bool().unwrap_or(false);
        if completed {
            break;
        }
    }
    inject_urls(&mut data, &wrapped, &wrapped, &snapshot.refs, 0);
    jschema::validate(&wrapped, &data).map_err(|e| {
        Error::Llm(LlmError::Output(format!(
            "extract: the extracted data does not match the schema: {e}"
        )))
    })?;
    let data = jschema::unwrap_value(data, was_wrapped);
    Ok(ExtractResult {
        data,
        progress,
        completed,
        chunks_read: read,
        chunks_total: total,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sightline_engine::protocol::RefInfo;

    #[test]
    fn url_fields_travel_as_refs_and_come_back_as_urls() {
        let schema = json!({"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}},
            "$defs": {"Item": {"type": "object", "properties": {"name": {"type": "string"},
                "link": {"type": "string", "format": "uri", "description": "product page"}}}}});
        let mut sent = schema.clone();
        assert!(refs_for_urls(&mut sent));
        assert!(sent["$defs"]["Item"]["properties"]["link"].get("format").is_none());
        assert!(sent["$defs"]["Item"]["properties"]["link"]["description"]
            .as_str()
            .unwrap()
            .contains("ref"));
        let refs = RefMap(vec![(
            "e7".into(),
            RefInfo {
                url: Some("http://shop.test/p/7".into()),
                ..Default::default()
            },
        )]);
        let mut data = json!({"items": [{"name": "Boot", "link": "e7"}, {"name": "Sock", "link": "e99"}]});
        inject_urls(&mut data, &schema, &schema, &refs, 0);
        assert_eq!(data["items"][0]["link"], "http://shop.test/p/7");
        assert_eq!(data["items"][1]["link"], "e99", "unknown refs stay as they are");
        let mut plain = json!({"type": "object", "properties": {"n": {"type": "string"}}});
        assert!(!refs_for_urls(&mut plain));
    }

    #[test]
    fn merging_chunks() {
        let mut a = json!({"title": null, "items": [{"n": 1}], "shop": {"name": "A"}});
        merge(
            &mut a,
            json!({"title": "T", "items": [{"n": 1}, {"n": 2}], "shop": {"name": "B", "city": "X"}}),
        );
        assert_eq!(
            a,
            json!({"title": "T", "items": [{"n": 1}, {"n": 2}], "shop": {"name": "A", "city": "X"}})
        );
    }

    #[test]
    fn relaxing_drops_completeness_rules() {
        let s = json!({"type": "object", "required": ["a"], "properties": {"a": {"type": "array", "minItems": 3}}});
        assert_eq!(
            relaxed(&s),
            json!({"type": "object", "properties": {"a": {"type": "array"}}})
        );
        // A property named like a keyword is a name: kept, its own schema relaxed.
        let form = json!({"type": "object", "required": ["required"], "properties": {
            "required": {"type": "boolean"}, "minLength": {"type": "string", "minLength": 2}}});
        assert_eq!(
            relaxed(&form),
            json!({"type": "object", "properties": {"required": {"type": "boolean"}, "minLength": {"type": "string"}}})
        );
    }

    #[test]
    fn page_text_without_refs() {
        assert_eq!(
            strip_refs("- button \"Go\" [ref=e1]\n- link \"A\" [ref=f1e2]:"),
            "- button \"Go\"\n- link \"A\":\n"
        );
        // A name that reads like a ref is the page's text, kept whole.
        assert_eq!(
            strip_refs("- cell \"See [ref=e9]\" [ref=e3] [url=/x]\n"),
            "- cell \"See [ref=e9]\" [url=/x]\n"
        );
    }
}
