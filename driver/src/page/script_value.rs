//! A caller's script's value as JSON, and in JavaScript's own words where
//! JSON has none: `undefined`, `NaN`, `-0`, `10n`, a DOM element, a
//! `Symbol`. Returned by value, Chromium turns all of those into `null` or
//! `{}` (or refuses a symbol), and `eval "document.body"` said `{}`.

use chromiumoxide::cdp::js_protocol::runtime::{
    CallFunctionOnParams, ReleaseObjectParams, RemoteObject, RemoteObjectId, RemoteObjectType,
};
use serde_json::Value;

use super::handle::Page;
use crate::error::Result;

/// See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptValue {
    /// The value as JSON data: what JSON can't say, as its JavaScript text
    /// (`"NaN"`, `"10n"`, `"button#buy.primary"`); `undefined` as `null`.
    pub json: Value,
    /// How to show a value whose JSON would mislead (`undefined`, `NaN`, an
    /// element): the text as it stands; `None` when the JSON shows it.
    pub shown: Option<String>,
}

impl ScriptValue {
    /// What a reader sees: [`ScriptValue::shown`], else the JSON, pretty.
    pub fn text(&self) -> String {
        match &self.shown {
            Some(s) => s.clone(),
            None => serde_json::to_string_pretty(&self.json).expect("JSON serialises"),
        }
    }
}

/// `this` (a result held by the page) as `[json, shown]`. Inside
/// containers: elements as `tag#id.class`, Maps as `[key, value]` pairs,
/// Sets as arrays, cycles as "[Circular]". Runs in the page's world, where
/// a page may have replaced the built-ins: any throw falls back to
/// Chromium's own by-value copy.
const AS_JSON: &str = r#"function () {
  'use strict';
  const onPath = new Set();
  const element = (n) => {
    if (n.nodeType !== 1) return n.nodeType === 3 ? '#text ' + JSON.stringify(n.data.slice(0, 80)) : n.nodeName;
    let s = n.localName + (n.id ? '#' + n.id : '');
    for (const c of Array.prototype.slice.call(n.classList, 0, 3)) s += '.' + c;
    return s;
  };
  const special = (v) => {
    switch (typeof v) {
      case 'undefined': return 'undefined';
      case 'number': return Number.isFinite(v) && !Object.is(v, -0) ? null : Object.is(v, -0) ? '-0' : String(v);
      case 'bigint': return v + 'n';
      case 'symbol': return v.toString();
      case 'function': return 'function ' + (v.name || '(anonymous)');
    }
    if (v === null || typeof v !== 'object') return null;
    if (typeof Node === 'function' && v instanceof Node) return element(v);
    if (typeof Window === 'function' && v instanceof Window) return 'Window';
    if (v instanceof Date) return isNaN(v) ? 'Invalid Date' : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Error) return v.name + ': ' + v.message;
    return null;
  };
  const conv = (v, depth) => {
    const s = special(v);
    if (s !== null) return typeof v === 'undefined' ? null : s;
    if (v === null || typeof v !== 'object') return v;
    if (onPath.has(v)) return '[Circular]';
    if (depth > 40) return '[…]';
    onPath.add(v);
    try {
      if (v instanceof Map) return Array.from(v, ([k, x]) => [conv(k, depth + 1), conv(x, depth + 1)]);
      if (Array.isArray(v) || v instanceof Set || ArrayBuffer.isView(v) ||
          (typeof NodeList === 'function' && v instanceof NodeList) ||
          (typeof HTMLCollection === 'function' && v instanceof HTMLCollection)) {
        return Array.from(v, (x) => conv(x, depth + 1));
      }
      if (typeof v.toJSON === 'function') return conv(v.toJSON(), depth + 1);
      const out = {};
      for (const k of Object.keys(v)) out[k] = conv(v[k], depth + 1);
      return out;
    } finally {
      onPath.delete(v);
    }
  };
  return [conv(this, 0), special(this)];
}"#;

impl Page {
    /// The value of a script's result `object` (see [`ScriptValue`]); an
    /// object the page holds for it is released.
    pub(crate) async fn script_value(&self, object: RemoteObject) -> Result<ScriptValue> {
        if let Some(u) = &object.unserializable_value {
            let text = u.inner().clone();
            return Ok(ScriptValue {
                json: Value::String(text.clone()),
                shown: Some(text),
            });
        }
        let Some(id) = object.object_id.clone() else {
            return Ok(match object.r#type {
                RemoteObjectType::Undefined => ScriptValue {
                    json: Value::Null,
                    shown: Some("undefined".into()),
                },
                _ => ScriptValue {
                    json: object.value.unwrap_or(Value::Null),
                    shown: None,
                },
            });
        };
        let converted = self.call_by_value(&id, AS_JSON).await;
        let value = match converted {
            Some(Value::Array(mut pair)) if pair.len() == 2 => {
                let shown = pair.pop().and_then(|s| s.as_str().map(str::to_string));
                ScriptValue {
                    json: pair.pop().unwrap_or(Value::Null),
                    shown,
                }
            }
            // The page broke the built-ins the conversion uses: Chromium's copy.
            _ => ScriptValue {
                json: self
                    .call_by_value(&id, "function () { return this; }")
                    .await
                    .unwrap_or(Value::Null),
                shown: None,
            },
        };
        let _ = self.send(ReleaseObjectParams::new(id)).await;
        Ok(value)
    }

    /// `function` called on `object`, its value copied out; `None` when it
    /// threw or could not be copied.
    async fn call_by_value(&self, object: &RemoteObjectId, function: &str) -> Option<Value> {
        let mut call = CallFunctionOnParams::new(function);
        call.object_id = Some(object.clone());
        call.return_by_value = Some(true);
        call.silent = Some(true);
        let called = self.send(call).await.ok()?;
        if called.result.exception_details.is_some() {
            return None;
        }
        called.result.result.value.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::ScriptValue;
    use serde_json::json;

    #[test]
    fn a_value_json_cannot_say_is_shown_as_javascript_writes_it() {
        let undefined = ScriptValue {
            json: json!(null),
            shown: Some("undefined".into()),
        };
        assert_eq!(undefined.text(), "undefined");
        let object = ScriptValue {
            json: json!({"a": [1, "NaN"]}),
            shown: None,
        };
        assert_eq!(object.text(), "{\n  \"a\": [\n    1,\n    \"NaN\"\n  ]\n}");
    }
}
