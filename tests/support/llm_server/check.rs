//! Validation helpers the wire formats share: JSON types as the APIs name
//! them, optional parameters, numbers in range, allowed keys, image URLs,
//! and base64 checks.

use serde_json::{Map, Value};

pub(crate) type Check = Result<(), String>;

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !($cond) {
            return Err(format!($($fmt)+));
        }
    };
}
pub(crate) use ensure;

pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Optional parameters: null counts as absent (both APIs accept that).
pub(crate) fn opt<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get(key).filter(|v| !v.is_null())
}

/// `^[a-zA-Z0-9_-]{1,64}$`, the rule for tool and schema names.
pub(crate) fn valid_name(s: &str) -> bool {
    (1..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

pub(crate) fn check_positive_int(o: &Map<String, Value>, key: &str, err: impl Fn(&str) -> String) -> Check {
    if let Some(v) = opt(o, key) {
        ensure!(
            v.as_u64().is_some_and(|n| n >= 1),
            "{}",
            err(&format!("expected an integer >= 1, got {v}"))
        );
    }
    Ok(())
}

pub(crate) fn check_number(o: &Map<String, Value>, key: &str, lo: f64, hi: f64, err: impl Fn(&str) -> String) -> Check {
    if let Some(v) = opt(o, key) {
        let n = v.as_f64();
        ensure!(
            n.is_some_and(|n| (lo..=hi).contains(&n)),
            "{}",
            err(&format!("expected a number from {lo} to {hi}, got {v}"))
        );
    }
    Ok(())
}

pub(crate) fn check_type(o: &Map<String, Value>, key: &str, want: &str, err: impl Fn(&str) -> String) -> Check {
    if let Some(v) = opt(o, key) {
        let t = type_name(v);
        let ok = t == want || (want == "number" && t == "integer");
        ensure!(ok, "{}", err(&format!("expected {want}, got {t}")));
    }
    Ok(())
}

pub(crate) fn check_stream(o: &Map<String, Value>, err: impl Fn(&str) -> String) -> Check {
    match opt(o, "stream") {
        None | Some(Value::Bool(false)) => Ok(()),
        Some(Value::Bool(true)) => Err(err(
            "streaming is not supported by the scripted LLM server (the client must not send stream: true)",
        )),
        Some(v) => Err(err(&format!("expected a boolean, got {}", type_name(v)))),
    }
}

pub(crate) fn check_keys(o: &Map<String, Value>, allowed: &[&str], err: impl Fn(&str) -> String) -> Check {
    for k in o.keys() {
        ensure!(allowed.contains(&k.as_str()), "{}", err(k));
    }
    Ok(())
}

/// `data:image/...;base64,<data>` or an http(s) URL.
pub(crate) fn valid_image_url(url: &str) -> bool {
    if url.starts_with("https://") || url.starts_with("http://") {
        return url.len() > 8;
    }
    let Some(rest) = url.strip_prefix("data:image/") else {
        return false;
    };
    let Some((_, data)) = rest.split_once(";base64,") else {
        return false;
    };
    !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
}

/// Standard base64 (padding optional), as image data must be.
pub(crate) fn valid_base64(data: &str) -> bool {
    !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
}
