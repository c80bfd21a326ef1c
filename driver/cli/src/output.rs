//! Writing results to stdout (the only place the command line prints them).

use std::io::Write;

/// Writes to stdout, ignoring a reader that went away (`| head`). Page text
/// is printed here: its control characters are replaced (see
/// [`terminal_safe`]).
pub fn print_out(text: &str) {
    write_out(&terminal_safe(text));
}

/// Writes to stdout as it is: JSON, whose strings a program reads (its
/// escapes already keep C0 controls off the terminal).
fn write_out(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => {}
        // `sightline … | head`: the reader has gone, which is fine.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => eprintln!("error: cannot write the output: {e}"),
    }
}

/// Prints `value` as one JSON line.
pub fn print_json(value: &impl serde::Serialize) {
    write_out(&format!(
        "{}\n",
        serde_json::to_string(value).expect("results serialise")
    ));
}

/// `text` with the characters that steer a terminal or the reading order
/// replaced by U+FFFD: C0 controls but line feed and tab (ESC sequences
/// colour, retitle or move the cursor of the user's terminal; a carriage
/// return overwrites a line), DEL, C1 controls, and the bidirectional
/// overrides and isolates (they reorder what is shown). A page's text must
/// not do either.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}')
    };
    if !text.chars().any(unsafe_char) {
        return text.into();
    }
    text.chars()
        .map(|c| if unsafe_char(c) { '\u{fffd}' } else { c })
        .collect::<String>()
        .into()
}

#[cfg(test)]
mod tests {
    use super::terminal_safe;

    #[test]
    fn page_text_cannot_steer_the_terminal() {
        assert_eq!(terminal_safe("a\tb\nc"), "a\tb\nc");
        assert_eq!(
            terminal_safe("\u{1b}[31mred\u{1b}[0m\rx\u{202e}y\u{9b}"),
            "\u{fffd}[31mred\u{fffd}[0m\u{fffd}x\u{fffd}y\u{fffd}"
        );
    }
}
