//! Writing results to stdout (the only place the command line prints them).

use std::io::Write;

/// Writes to stdout, ignoring a reader that went away (`| head`). Page text
/// is printed here: its control characters are replaced (see
/// [`terminal_safe`]).
pub fn print_out(text: &str) {
    write_out(&terminal_safe(text));
}

/// Writes to stdout as it is.
fn write_out(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => {}
        // `sightline … | head`: the reader has gone, which is fine.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => eprintln!("error: cannot write the output: {e}"),
    }
}

/// Prints `value` as one JSON line (see [`json_text`]).
pub fn print_json(value: &impl serde::Serialize) {
    write_out(&format!("{}\n", json_text(value)));
}

/// `value` as JSON text whose strings keep every character a page had, for
/// the program that reads them, while the terminal it may be shown on sees
/// none of the characters that steer it: those are written as `\uXXXX`
/// escapes (serde_json escapes only C0 controls; a C1 control or a bidi
/// override would go out raw). A parser reads the same value back.
pub fn json_text(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string(value).expect("results serialise");
    if !text.chars().any(steers_terminal) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if steers_terminal(c) {
            // (Outside strings JSON has only ASCII punctuation, and every
            // such character is in the BMP: one escape each.)
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A character that steers a terminal or the reading order: C0 controls
/// but line feed and tab (ESC sequences colour, retitle or move the cursor
/// of the user's terminal; a carriage return overwrites a line), DEL, C1
/// controls, and the bidirectional overrides and isolates (they reorder
/// what is shown). A page's text must not do either.
fn steers_terminal(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}')
}

/// `text` with the characters that steer a terminal or the reading order
/// ([`steers_terminal`]) replaced by U+FFFD.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(steers_terminal) {
        return text.into();
    }
    text.chars()
        .map(|c| if steers_terminal(c) { '\u{fffd}' } else { c })
        .collect::<String>()
        .into()
}

#[cfg(test)]
mod tests {
    use super::{json_text, steers_terminal, terminal_safe};

    #[test]
    fn page_text_cannot_steer_the_terminal() {
        assert_eq!(terminal_safe("a\tb\nc"), "a\tb\nc");
        assert_eq!(
            terminal_safe("\u{1b}[31mred\u{1b}[0m\rx\u{202e}y\u{9b}"),
            "\u{fffd}[31mred\u{fffd}[0m\u{fffd}x\u{fffd}y\u{fffd}"
        );
    }

    /// JSON keeps a page's characters (a windows-1252 page's U+009D came
    /// out as U+FFFD) and still shows the terminal none that steer it.
    #[test]
    fn json_keeps_every_character_as_an_escape() {
        let value = serde_json::json!({
            "t\u{9d}": "a\u{9d}b\u{202e}c\u{7f}d\u{1b}e\nf\u{9b}g\"h\\é",
            "n": [1, "\u{2066}"],
        });
        let text = json_text(&value);
        assert!(!text.chars().any(steers_terminal), "{text}");
        assert!(text.contains("a\\u009db\\u202ec\\u007fd\\u001be"), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
        assert_eq!(json_text(&"plain é"), "\"plain é\"");
    }
}
