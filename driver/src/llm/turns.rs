//! Conversation turns as the Anthropic and Gemini APIs want them.

use serde_json::Value;

use super::types::{Message, Role};

/// Consecutive messages of one role merged into one turn (the APIs want
/// the roles to alternate), turns with nothing to send dropped, and in
/// each turn the tool results first, in the order of the calls.
pub(super) fn turns(
    msgs: &[Message],
    mut parts_of: impl FnMut(&Message) -> Vec<Value>,
    is_tool_result: impl Fn(&Value) -> bool,
) -> Vec<(Role, Vec<Value>)> {
    let mut out: Vec<(Role, Vec<Value>)> = Vec::new();
    for m in msgs {
        let parts = parts_of(m);
        if parts.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((role, existing)) if *role == m.role => existing.extend(parts),
            _ => out.push((m.role, parts)),
        }
    }
    for (_, parts) in &mut out {
        // Stable: results keep their order, as do the other parts.
        parts.sort_by_key(|p| if is_tool_result(p) { 0 } else { 1 });
    }
    out
}
