//! Resolving refs and engine selectors back to live elements.
use super::state::EngineState;
use crate::selector::SHADOW_SEPARATOR;
use wasm_bindgen::JsCast;
use web_sys::Element;

pub enum ResolveError {
    /// The ref was handed out, but its element has left the document.
    Stale,
    Invalid(String),
}

/// Parses "e12" (optionally frame-prefixed "f1e12") into a ref number.
pub fn parse_ref(target: &str) -> Option<u32> {
    let t = target.trim();
    let t = match t.strip_prefix('f') {
        Some(rest) => {
            let digits = rest.find(|c: char| !c.is_ascii_digit())?;
            if digits == 0 {
                return None;
            }
            &rest[digits..]
        }
        None => t,
    };
    let n = t.strip_prefix('e')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    crate::number::parse_int(n).and_then(|n| u32::try_from(n).ok())
}

pub fn resolve(st: &EngineState, target: &str) -> Result<Option<Element>, ResolveError> {
    if let Some(n) = parse_ref(target) {
        return match st.element_for_ref(n) {
            Some(el) if el.is_connected() => Ok(Some(el)),
            Some(_) => Err(ResolveError::Stale),
            None => Ok(None),
        };
    }
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| ResolveError::Invalid("no document".into()))?;
    if let Some(xpath) = target.trim().strip_prefix("xpath=") {
        let result = doc
            .evaluate(xpath, &doc)
            .map_err(|_| ResolveError::Invalid(format!("invalid xpath: {xpath}")))?;
        // FIRST_ORDERED_NODE_TYPE would need a typed call; iterate instead.
        return Ok(result
            .iterate_next()
            .ok()
            .flatten()
            .and_then(|n| n.dyn_into::<Element>().ok()));
    }
    let target = target.trim().strip_prefix("css=").unwrap_or(target);
    let mut scope: web_sys::Node = doc.into();
    let parts: Vec<&str> = target.split(SHADOW_SEPARATOR).collect();
    let mut found: Option<Element> = None;
    for (i, part) in parts.iter().enumerate() {
        let el = query(&scope, part.trim())?;
        let Some(el) = el else { return Ok(None) };
        if i + 1 < parts.len() {
            match super::reads::shadow_root(&el) {
                Some(root) => scope = root.into(),
                None => return Ok(None),
            }
        }
        found = Some(el);
    }
    Ok(found)
}

fn query(scope: &web_sys::Node, css: &str) -> Result<Option<Element>, ResolveError> {
    let r = if let Some(d) = scope.dyn_ref::<web_sys::Document>() {
        d.query_selector(css)
    } else if let Some(s) = scope.dyn_ref::<web_sys::DocumentFragment>() {
        s.query_selector(css)
    } else {
        return Ok(None);
    };
    r.map_err(|_| ResolveError::Invalid(format!("invalid selector: {css}")))
}

#[cfg(test)]
mod tests {
    use super::parse_ref;
    #[test]
    fn refs() {
        assert_eq!(parse_ref("e12"), Some(12));
        assert_eq!(parse_ref("f3e7"), Some(7));
        assert_eq!(parse_ref("#e12"), None);
        assert_eq!(parse_ref("e"), None);
        assert_eq!(parse_ref("button"), None);
    }
}
