//! Writing results to stdout (the only place the command line prints them).

use std::io::Write;

/// Writes to stdout, ignoring a reader that went away (`| head`).
pub fn print_out(text: &str) {
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
    print_out(&format!(
        "{}\n",
        serde_json::to_string(value).expect("results serialise")
    ));
}
