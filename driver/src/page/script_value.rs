//! A caller's script's value as JSON, and in JavaScript's own words where
//! JSON has none: `undefined`, `NaN`, `-0`, `10n`, a DOM element, a
//! `Symbol`. Returned by value, Chromium turns all of those into `null` or
//! `{}` (or refuses a symbol), and `eval "document.body"` said `{}`.

use chromiumoxide::cdp::js_protocol::runtime::{
    CallFunctionOnParams, ReleaseObjectParams, RemoteObject, RemoteObjectId, RemoteObjectType,
};
use serde_json::Value;

use super::handle::Page;
use crate::error::{Error, Result};

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
/// Sets as arrays, cycles as "[Circular]", a getter or `toJSON` that
/// throws as "[threw: …]". Bounded, as a page's graphs are not: an object
/// met again elsewhere is "[Shared]" (a React fiber tree reaches each node
/// by many paths), at most 1,000 items per container, 20,000 values and 20 levels
/// in all. Runs in the page's world, where a page may have replaced the
/// built-ins: a throw here falls back to Chromium's own by-value copy.
const AS_JSON: &str = r#"function () {
  'use strict';
  const seen = new Set(), onPath = new Set();
  let budget = 20000;
  const MAX_ITEMS = 1000;
  const element = (n) => {
    if (n.nodeType !== 1) return n.nodeType === 3 ? '#text ' + JSON.stringify(n.data.slice(0, 80)) : n.nodeName;
    let s = n.localName + (n.id ? '#' + n.id : '');
    for (const c of Array.prototype.slice.call(n.classList, 0, 3)) s += '.' + c;
    return s;
  };
  const threw = (e) => { try { return '[threw: ' + String(e && e.message !== undefined ? e.message : e) + ']'; } catch (_) { return '[threw]'; } };
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
  // (Every value converted counts against the budget; past it, "[…]".)
  const items = (list, total, depth) => {
    const out = [];
    for (const x of list) {
      if (budget <= 0) { out.push('[…]'); break; }
      if (out.length === MAX_ITEMS) { out.push('… ' + (total - MAX_ITEMS) + ' more'); break; }
      out.push(conv(x, depth + 1));
    }
    return out;
  };
  const conv = (v, depth) => {
    if (--budget < 0) return '[…]';
    const s = special(v);
    if (s !== null) return typeof v === 'undefined' ? null : s;
    if (v === null || typeof v !== 'object') return v;
    if (onPath.has(v)) return '[Circular]';
    if (seen.has(v)) return '[Shared]';
    if (depth > 20) return '[…]';
    seen.add(v);
    onPath.add(v);
    try { return container(v, depth); } finally { onPath.delete(v); }
  };
  const container = (v, depth) => {
    if (v instanceof Map) return items(v.entries(), v.size, depth);
    if (v instanceof Set) return items(v.values(), v.size, depth);
    if (Array.isArray(v) || ArrayBuffer.isView(v) ||
        (typeof NodeList === 'function' && v instanceof NodeList) ||
        (typeof HTMLCollection === 'function' && v instanceof HTMLCollection)) {
      return items(v, v.length, depth);
    }
    if (typeof v.toJSON === 'function') {
      try { return conv(v.toJSON(), depth + 1); } catch (e) { return threw(e); }
    }
    // (No prototype: a "__proto__" key is a key like any other.)
    const out = Object.create(null);
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      if (budget <= 0) { out['…'] = '[…]'; break; }
      if (i === MAX_ITEMS) { out['…'] = (keys.length - MAX_ITEMS) + ' more keys'; break; }
      try { out[keys[i]] = conv(v[keys[i]], depth + 1); } catch (e) { out[keys[i]] = threw(e); }
    }
    return out;
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
            Ok(Value::Array(mut pair)) if pair.len() == 2 => {
                let shown = pair.pop().and_then(|s| s.as_str().map(str::to_string));
                Ok(ScriptValue {
                    json: pair.pop().unwrap_or(Value::Null),
                    shown,
                })
            }
            // The page broke the built-ins the conversion uses: Chromium's copy.
            _ => match self.call_by_value(&id, "function () { return this; }").await {
                Ok(json) => Ok(ScriptValue { json, shown: None }),
                Err(why) => Err(Error::ScriptThrew(format!("its value could not be copied out: {why}"))),
            },
        };
        let _ = self.send(ReleaseObjectParams::new(id)).await;
        value
    }

    /// `function` called on `object`, its value copied out; why not, when
    /// it threw or could not be copied.
    async fn call_by_value(&self, object: &RemoteObjectId, function: &str) -> std::result::Result<Value, String> {
        let mut call = CallFunctionOnParams::new(function);
        call.object_id = Some(object.clone());
        call.return_by_value = Some(true);
        call.silent = Some(true);
        let called = self.send(call).await.map_err(|e| e.to_string())?;
        if let Some(ex) = &called.result.exception_details {
            return Err(super::engine::exception_text(ex));
        }
        Ok(called.result.result.value.clone().unwrap_or(Value::Null))
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
