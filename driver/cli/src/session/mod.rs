//! Session commands: a persistent browser behind one short process per step
//! (`sightline open URL`, `sightline snapshot`, `sightline click e3`, …),
//! for coding agents that drive a browser from a shell.
//!
//! The commands are the tool registry's (commands.rs): each runs its tool
//! in the session's daemon (daemon.rs), which holds the library's MCP
//! [`Session`](sightline::mcp::Session), so a command prints exactly what
//! an MCP client reads. The daemon starts on the first `open` (client.rs)
//! and listens on a private Unix socket (paths.rs).

mod client;
pub mod commands;
pub mod daemon;
mod options;
mod paths;
mod skill;
mod wire;

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, Args, Command};
use serde_json::{json, Value};
use sightline::Registry;

use client::Failure;
use commands::{clap_command, tool_arguments, tool_commands, ToolCommand};
pub use options::{BrowserOptions, DaemonArgs};
use paths::SessionPaths;
use wire::{Answer, Request};

/// Environment variable naming the session (default `default`).
pub const SESSION_ENV: &str = "SIGHTLINE_SESSION";

/// Commands whose one-shot form (`sightline snapshot URL`) keeps working:
/// without its page argument, it is the session command. `eval` is also
/// `sightline eval SUITE --out FILE` (an eval suite): flags the session's
/// `eval <js>` does not take, or a first argument naming a suite file.
const ONE_SHOT: &[&str] = &["snapshot", "unblock", "act", "observe", "extract", "eval"];

/// `sightline eval suite.jsonl --out FILE …`: the first argument is a suite
/// file (JSON or JSON lines that exists), or the suite's `--out` is given;
/// otherwise the argument is JavaScript for the session's page.
fn names_a_suite(argv: &[OsString]) -> bool {
    let Some(first) = argv.get(2).and_then(|a| a.to_str()) else {
        return false;
    };
    let path = std::path::Path::new(first);
    let suite_file = path.extension().is_some_and(|e| e == "json" || e == "jsonl") && path.is_file();
    suite_file
        || argv[2..]
            .iter()
            .filter_map(|a| a.to_str())
            .any(|a| a == "--out" || a.starts_with("--out="))
}

/// `sightline --session shop open URL` read as `sightline open --session
/// shop URL`: the session's own flags may come before the command, as
/// users write them.
fn flags_after_command(argv: &[OsString]) -> Vec<OsString> {
    let mut lead = Vec::new();
    let mut i = 1;
    while let Some(arg) = argv.get(i).and_then(|a| a.to_str()) {
        let taken = match arg {
            "--json" => 1,
            "--session" if i + 1 < argv.len() => 2,
            _ if arg.starts_with("--session=") => 1,
            _ => break,
        };
        lead.extend_from_slice(&argv[i..i + taken]);
        i += taken;
    }
    if lead.is_empty() || i >= argv.len() {
        return argv.to_vec();
    }
    let mut out = vec![argv[0].clone(), argv[i].clone()];
    out.extend(lead);
    out.extend_from_slice(&argv[i + 1..]);
    out
}

fn session_flags(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("session")
            .long("session")
            .value_name("NAME")
            .env(SESSION_ENV)
            .default_value("default")
            .help("The browser session (each has its own browser, cookies and tabs)."),
    )
    .arg(
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help("Print the response as one JSON object."),
    )
}

fn close_command() -> Command {
    session_flags(
        Command::new("close")
            .about("Close the session: its browser and its daemon (--all: every session).")
            .arg(
                Arg::new("all")
                    .long("all")
                    .action(ArgAction::SetTrue)
                    .help("Close every session."),
            ),
    )
}

fn skill_command() -> Command {
    Command::new("skill").about("Print the SKILL.md that teaches a coding agent the session commands.")
}

fn sessions_command() -> Command {
    session_flags(Command::new("sessions").about("List the open browser sessions."))
}

/// The clap command of a tool command, with the session's flags (and
/// `open`'s browser flags, `snapshot`'s `--file`).
fn full_command(tc: &ToolCommand, registry: &Registry) -> Command {
    let tool = registry.get(tc.tool).expect("commands come from the registry");
    let mut cmd = session_flags(clap_command(tc, tool));
    if tc.tool == "goto" {
        cmd = BrowserOptions::augment_args(cmd).after_help(
            "With --extension or --cdp-url and no URL, the session starts on the tab as it is (the one you \
shared, or a new tab of its own in the browser reached) and prints its snapshot.",
        );
    }
    if tc.tool == "snapshot" {
        cmd = cmd.arg(
            Arg::new("file")
                .long("file")
                .value_name("PATH")
                .help("Write the tree to this file and print its path and a one-line summary."),
        );
    }
    cmd
}

/// The session commands `sightline --help` lists (those without a
/// one-shot form of the same name).
pub fn help_commands(registry: &Registry) -> Vec<Command> {
    let mut out: Vec<Command> = tool_commands(registry)
        .iter()
        .filter(|tc| !ONE_SHOT.contains(&tc.command.as_str()))
        .map(|tc| full_command(tc, registry))
        .collect();
    out.push(close_command());
    out.push(sessions_command());
    out.push(skill_command());
    out
}

/// Whether a lone argument names a page rather than an instruction.
fn looks_like_a_page(s: &str) -> bool {
    // (Schemes no page is opened by are still addresses: the one-shot form
    // says why it won't open them, instead of "no session is open".)
    const OTHER_SCHEMES: &[&str] = &["javascript:", "mailto:", "tel:", "view-source:", "blob:", "chrome:"];
    s.contains("://")
        || s.starts_with("about:")
        || s.starts_with("data:")
        || OTHER_SCHEMES
            .iter()
            .any(|p| s.len() > p.len() && s.get(..p.len()).is_some_and(|head| head.eq_ignore_ascii_case(p)))
        || (!s.contains(' ') && (Path::new(s).exists() || s.ends_with(".html") || s.ends_with(".htm")))
}

/// Runs `argv` when it is a session command; `None` leaves it to the
/// one-shot commands.
/// `one_shot_help` renders the help of a one-shot command of that name.
pub fn run_if_session(argv: &[OsString], one_shot_help: fn(&str) -> Option<String>) -> Option<ExitCode> {
    let argv = &flags_after_command(argv);
    let name = argv.get(1)?.to_str()?.to_string();
    if name == "skill" {
        if let Err(e) = skill_command().bin_name("sightline").try_get_matches_from(&argv[1..]) {
            e.exit();
        }
        crate::output::print_out(&skill::skill_text(&Registry::standard()));
        return Some(ExitCode::SUCCESS);
    }
    if name == "close" || name == "sessions" {
        let cmd = if name == "close" {
            close_command()
        } else {
            sessions_command()
        };
        let m = match cmd.bin_name("sightline").try_get_matches_from(&argv[1..]) {
            Ok(m) => m,
            Err(e) => e.exit(),
        };
        return Some(if name == "close" { close(&m) } else { sessions(&m) });
    }
    if name == "eval" && names_a_suite(argv) {
        return None;
    }
    let registry = Registry::standard();
    let commands = tool_commands(&registry);
    let tc = commands.iter().find(|c| c.command == name)?;
    let tool = registry.get(tc.tool).expect("commands come from the registry");
    // `eval`'s one-shot form is the suite's alone: JavaScript that names a
    // URL or a parse error is still the session's `eval`.
    let one_shot = ONE_SHOT.contains(&name.as_str()) && name != "eval";
    // (After `--` every word is a value: `fill e1 -- --json` types it.)
    let wants_json = argv.iter().skip(1).take_while(|a| *a != "--").any(|a| a == "--json");
    let parsed = full_command(tc, &registry)
        .bin_name(format!("sightline {name}"))
        .try_get_matches_from(&argv[1..]);
    let m = match parsed {
        Ok(m) => m,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp && ONE_SHOT.contains(&name.as_str()) => {
            let mut help = e.to_string();
            if let Some(other) = one_shot_help(&name) {
                help.push_str(&format!(
                    "\nIt also has a one-shot form, which starts a browser of its own:\n\n{other}\n"
                ));
            }
            // (`| head` may close the pipe early: not a panic.)
            crate::output::print_out(&help);
            return Some(ExitCode::SUCCESS);
        }
        Err(_) if one_shot => return None,
        // With --json, a wrong command line is answered in JSON too.
        Err(e) if wants_json && e.use_stderr() => {
            let said = e.render().to_string();
            let said = said.trim().trim_start_matches("error: ");
            return Some(usage_error(true, &format!("sightline {name}: {said}")));
        }
        Err(e) => e.exit(),
    };
    // `open --extension` (or `--cdp-url`) with no page: the session starts
    // on the tab as it is, the one the user shared (a half-filled form, a
    // signed-in route stay as they are; a navigation would reload them), or
    // a new tab of its own in the browser reached; the reply is its snapshot.
    if tc.tool == "goto" && attaches_as_it_is(&m) {
        return Some(call(tc, "snapshot", json!({}), None, &m));
    }
    let (args, file) = match tool_arguments(tc, tool, &m) {
        Ok(a) => a,
        Err(_) if one_shot => return None,
        Err(e) => {
            return Some(usage_error(
                wants_json,
                &format!("sightline {name}: {e} (see `sightline {name} --help`)"),
            ))
        }
    };
    // `extract URL` is still the one-shot extract of that page.
    if one_shot
        && args
            .as_object()
            .is_some_and(|a| a.values().any(|v| v.as_str().is_some_and(looks_like_a_page)))
    {
        return None;
    }
    // A tree written to a file is whole: the token budget is for what a
    // model reads in its context.
    let mut args = args;
    if m.try_get_one::<String>("file").ok().flatten().is_some() && args.get("budget").is_none() {
        args["budget"] = json!(u32::MAX);
    }
    Some(call(tc, tc.tool, args, file, &m))
}

/// `open` with no page, to a browser the session attaches to.
fn attaches_as_it_is(m: &ArgMatches) -> bool {
    let no_page = m
        .get_many::<String>("positional")
        .is_none_or(|mut values| values.next().is_none());
    let attaching = m.get_flag("extension") || m.get_one::<String>("cdp_url").is_some();
    no_page && attaching
}

fn session_paths(m: &ArgMatches) -> Result<SessionPaths, String> {
    let name = m.get_one::<String>("session").map(String::as_str).unwrap_or("default");
    SessionPaths::for_session(name).map_err(|e| e.to_string())
}

/// A path the user typed, made absolute against the command's folder (the
/// daemon runs in the folder where the session was opened).
fn absolute(value: &str) -> Option<std::path::PathBuf> {
    let p = Path::new(value);
    if value.contains("://") || !p.exists() {
        return None;
    }
    if p.is_absolute() {
        return Some(p.to_path_buf());
    }
    std::env::current_dir().ok().map(|d| d.join(p))
}

/// `dir` joined with `relative`, its `.` and `..` resolved by name (the
/// file may not exist, so the file system cannot resolve them).
fn lexically_joined(dir: &Path, relative: &str) -> std::path::PathBuf {
    let mut out = dir.to_path_buf();
    for part in Path::new(relative).components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The arguments with the files they name made absolute; a page to open
/// that is a file here becomes its file URL (a bare path would otherwise be
/// taken relative to the page the tab is on, as an MCP client means it).
fn with_absolute_paths(mut args: Value) -> Value {
    if let Some(Value::String(s)) = args.get_mut("url") {
        // (A file: `open /` on a site still means the site's root. A path
        // written from here, `./x.html` or `../x.html`, is this folder's
        // even when it is missing: the error then names the file meant.)
        let from_here = s.starts_with("./") || s.starts_with("../");
        let file = if from_here {
            std::env::current_dir().ok().map(|d| lexically_joined(&d, s))
        } else {
            absolute(s).filter(|p| p.is_file())
        };
        if let Some(u) = file.and_then(|p| url::Url::from_file_path(p).ok()) {
            *s = u.to_string();
        }
    }
    let made_absolute = |s: &mut String| {
        if let Some(a) = absolute(s) {
            *s = a.to_string_lossy().into_owned();
        }
    };
    for key in ["paths", "path"] {
        match args.get_mut(key) {
            Some(Value::String(s)) => made_absolute(s),
            Some(Value::Array(items)) => items.iter_mut().for_each(|item| {
                if let Value::String(s) = item {
                    made_absolute(s)
                }
            }),
            _ => {}
        }
    }
    args
}

/// The browser flags given on this command line, as the daemon takes them.
fn browser_flags(m: &ArgMatches) -> Vec<String> {
    let defs = BrowserOptions::augment_args(Command::new("x"));
    let mut out = Vec::new();
    for arg in defs.get_arguments() {
        let id = arg.get_id().as_str();
        let given = matches!(m.value_source(id), Some(clap::parser::ValueSource::CommandLine));
        let Some(long) = arg.get_long().filter(|_| given) else {
            continue;
        };
        if arg.get_action().takes_values() {
            // One `--flag=value` word: a value that starts with a dash
            // (`--chrome-arg=--js-flags=…`) must not read as a flag.
            for raw in m.get_raw(id).into_iter().flatten() {
                out.push(format!("--{long}={}", raw.to_string_lossy()));
            }
        } else if m.get_flag(id) {
            out.push(format!("--{long}"));
        }
    }
    out
}

fn no_session(paths: &SessionPaths) -> String {
    let flag = if paths.name == "default" {
        String::new()
    } else {
        format!(" --session {}", paths.name)
    };
    format!(
        "no browser session \"{}\" is open: start one with `sightline open <URL>{flag}`",
        paths.name
    )
}

/// A command line that can't be run (exit status 2), said as `fail` says
/// an error: in JSON when asked for.
fn usage_error(json: bool, message: &str) -> ExitCode {
    if json {
        crate::output::print_json(&json!({"ok": false, "result": message, "error": message}));
    } else {
        eprintln!("error: {message}");
    }
    ExitCode::from(2)
}

fn fail(m: &ArgMatches, message: &str) -> ExitCode {
    if m.get_flag("json") {
        // The shape of every answer (`ok`, `result`; `error` too, as before).
        crate::output::print_json(&json!({"ok": false, "result": message, "error": message}));
    } else {
        eprintln!("error: {message}");
    }
    ExitCode::FAILURE
}

/// Runs `tool` with `args` in the session, for the command `tc` (`open`
/// starts the daemon first, with its browser flags).
fn call(tc: &ToolCommand, tool: &str, args: Value, file: Option<String>, m: &ArgMatches) -> ExitCode {
    let paths = match session_paths(m) {
        Ok(p) => p,
        Err(e) => return fail(m, &e),
    };
    let opening = tc.tool == "goto";
    let flags = if opening { browser_flags(m) } else { Vec::new() };
    let mut note = None;
    if opening {
        let started = match client::ensure_daemon(&paths, &flags) {
            Ok(started) => started,
            Err(e) => return fail(m, &e),
        };
        if !started && !flags.is_empty() {
            note = Some(format!(
                "(The session's browser was already running, so these flags wait for a new session: {}; \
`sightline close` first.)",
                flags
                    .iter()
                    .filter(|f| f.starts_with("--"))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
    }
    let request = Request::Call {
        tool: tool.to_string(),
        args: with_absolute_paths(args),
    };
    let answer = match client::send(&paths, &request) {
        Ok(a) => a,
        Err(Failure::NoSession) => return fail(m, &no_session(&paths)),
        Err(Failure::Lost(why)) => {
            return fail(
                m,
                &format!(
                    "the session's daemon went away ({why}); its log: {} — `sightline open <URL>` starts a new one",
                    paths.log.display()
                ),
            )
        }
    };
    let tree_file = m.try_get_one::<String>("file").ok().flatten().cloned();
    print_answer(answer, tc, file, tree_file, note, m.get_flag("json"))
}

/// Prints an answer: the response text (or `--json` object), with a
/// screenshot or a `--file` snapshot written where asked.
fn print_answer(
    mut answer: Answer,
    tc: &ToolCommand,
    image_file: Option<String>,
    tree_file: Option<String>,
    note: Option<String>,
    json: bool,
) -> ExitCode {
    if answer.is_error && !tc.preset.is_null() {
        name_the_command_run(&mut answer, &tc.command);
    }
    let mut saved = Vec::new();
    if let Some(png) = answer.image_png.take().and_then(|b| sightline::base64::decode(&b)) {
        let path = image_file.unwrap_or_else(|| default_image_name(&tc.command));
        match std::fs::write(&path, &png) {
            Ok(()) => saved.push(("image", path)),
            Err(e) => {
                eprintln!("error: cannot write {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(path) = tree_file.filter(|_| !answer.is_error) {
        // `snapshot`'s result is the tree, wrapped as untrusted page content.
        let result = answer.json["result"].as_str().unwrap_or("").to_string();
        let tree = unwrapped(&result);
        if let Err(e) = std::fs::write(&path, &tree) {
            eprintln!("error: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
        let summary = tree_summary(&path, &tree);
        answer.text = answer.text.replacen(&result, &summary, 1);
        if let Some(obj) = answer.json.as_object_mut() {
            obj.insert("result".into(), json!(summary));
        }
        saved.push(("snapshot", path));
    }
    if json {
        if let Some(obj) = answer.json.as_object_mut() {
            for (kind, path) in &saved {
                obj.insert(format!("{kind}_file"), json!(path));
            }
            if let Some(n) = &note {
                let said = match obj.get("note").and_then(Value::as_str) {
                    Some(before) => format!("{before} {n}"),
                    None => n.clone(),
                };
                obj.insert("note".into(), json!(said));
            }
        }
        crate::output::print_json(&answer.json);
    } else {
        let mut text = answer.text;
        for (kind, path) in &saved {
            if *kind == "image" {
                text = insert_after_result(&text, &format!("Saved the screenshot to {path}"));
            }
        }
        if let Some(n) = note {
            text = insert_after_result(&text, &n);
        }
        crate::output::print_out(&text);
    }
    if answer.is_error {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// An error opens by naming the tool's command (`` `sightline click` e9: …``);
/// a preset command (`dblclick`) is named as it was run.
fn name_the_command_run(answer: &mut Answer, command: &str) {
    const OPENING: &str = "`sightline ";
    let rename = |said: &str| -> Option<String> {
        let at = said.find(OPENING)?;
        let end = said[at + OPENING.len()..].find('`')? + at + OPENING.len();
        (at <= "### Error\n".len()).then(|| format!("{}{OPENING}{command}{}", &said[..at], &said[end..]))
    };
    if let Some(text) = rename(&answer.text) {
        answer.text = text;
    }
    if let Some(result) = answer.json.get("result").and_then(Value::as_str).and_then(rename) {
        answer.json["result"] = json!(result);
    }
}

fn default_image_name(command: &str) -> String {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    format!("{command}-{stamp}.png")
}

/// `text` with a line added at the end of its result section.
fn insert_after_result(text: &str, line: &str) -> String {
    match text.find("\n\n###") {
        Some(i) => format!("{}\n{line}{}", &text[..i], &text[i..]),
        None => format!("{}\n{line}\n", text.trim_end()),
    }
}

/// A tree without the untrusted-content tags around it.
fn unwrapped(result: &str) -> String {
    use sightline::tools::untrusted::{CLOSE_TAG, OPEN_TAG};
    let mut tree: String = result
        .lines()
        .filter(|l| *l != OPEN_TAG && *l != CLOSE_TAG)
        .collect::<Vec<_>>()
        .join("\n");
    tree.push('\n');
    tree
}

fn tree_summary(path: &str, tree: &str) -> String {
    let lines = tree.lines().count();
    let refs = tree.matches("[ref=").count();
    format!(
        "Saved to {path}: {lines} lines, {refs} refs, {} characters.",
        tree.chars().count()
    )
}

fn close(m: &ArgMatches) -> ExitCode {
    let targets = if m.get_flag("all") {
        match SessionPaths::all() {
            Ok(all) => all,
            Err(e) => return fail(m, &e.to_string()),
        }
    } else {
        match session_paths(m) {
            Ok(p) => vec![p],
            Err(e) => return fail(m, &e),
        }
    };
    let mut closed = Vec::new();
    // Sessions in a browser of the user's (`--cdp-url`, `--extension`): their
    // browser and its other tabs stay, as the daemon says.
    let mut left_running = Vec::new();
    for paths in &targets {
        if let Ok(a) = client::send(paths, &Request::Close) {
            if !a.is_error {
                closed.push(paths.name.clone());
                if a.json["browser_stays"] == true {
                    left_running.push(paths.name.clone());
                }
            }
        }
    }
    let quoted = |names: &[String]| names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
    let text = match (closed.is_empty(), m.get_flag("all")) {
        (true, true) => "No browser session was open.".to_string(),
        (true, false) => format!("No browser session \"{}\" was open.", targets[0].name),
        (false, _) if left_running.is_empty() => format!("Closed {}.", quoted(&closed)),
        (false, _) => format!(
            "Closed {}. The browser {} attached to, and its other tabs, stay open.",
            quoted(&closed),
            if left_running.len() == 1 { "it was" } else { "they were" }
        ),
    };
    if m.get_flag("json") {
        crate::output::print_json(&json!({"ok": true, "closed": closed, "result": text}));
    } else {
        crate::output::print_out(&format!("### Result\n{text}\n"));
    }
    ExitCode::SUCCESS
}

fn sessions(m: &ArgMatches) -> ExitCode {
    let all = match SessionPaths::all() {
        Ok(a) => a,
        Err(e) => return fail(m, &e.to_string()),
    };
    let mut rows = Vec::new();
    for paths in &all {
        if let Ok(a) = client::send(paths, &Request::Status) {
            let mut row = a.json;
            row["name"] = json!(paths.name);
            rows.push(row);
        }
    }
    if m.get_flag("json") {
        crate::output::print_json(&json!({"ok": true, "sessions": rows}));
    } else if rows.is_empty() {
        crate::output::print_out("### Result\nNo browser session is open.\n");
    } else {
        let mut text = String::from("### Result\n");
        for r in &rows {
            let note = r["note"].as_str().map(|n| format!(", {n}")).unwrap_or_default();
            let busy = r["note"] == "running a command";
            text.push_str(&format!(
                "- {}: {} [{}] (idle {} s{note})\n",
                r["name"].as_str().unwrap_or(""),
                r["url"]
                    .as_str()
                    .filter(|u| !u.is_empty())
                    .unwrap_or(if busy { "(busy)" } else { "no page yet" }),
                r["title"].as_str().unwrap_or(""),
                r["idle_secs"]
            ));
        }
        crate::output::print_out(&text);
    }
    ExitCode::SUCCESS
}

/// `__session-daemon`: runs the daemon (its errors go to its log).
pub async fn run_daemon(args: DaemonArgs) -> sightline::Result<()> {
    daemon::serve(&args.session, args.browser).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_command_is_named_as_it_was_run() {
        let mut a = Answer {
            text: "### Error\n`sightline click` #nope: no element matches; `sightline click` it later\n".into(),
            json: json!({"ok": false, "result": "`sightline click` #nope: no element matches"}),
            is_error: true,
            image_png: None,
        };
        name_the_command_run(&mut a, "dblclick");
        assert_eq!(
            a.text,
            "### Error\n`sightline dblclick` #nope: no element matches; `sightline click` it later\n"
        );
        assert_eq!(a.json["result"], "`sightline dblclick` #nope: no element matches");
        // Advice deeper in the text keeps its command.
        let mut advice = Answer {
            text: "### Error\nthe page is gone: `sightline click` again\n".into(),
            ..a.clone()
        };
        name_the_command_run(&mut advice, "dblclick");
        assert!(advice.text.contains("`sightline click` again"), "{}", advice.text);
    }

    #[test]
    fn results_get_lines_and_trees_go_to_files() {
        let text = "### Result\nClicked\n\n### Page\n- URL: x\n\n### Snapshot\n<untrusted_page_content>\n- a\n</untrusted_page_content>\n";
        assert_eq!(
            insert_after_result(text, "Saved the screenshot to a.png"),
            text.replace("Clicked\n", "Clicked\nSaved the screenshot to a.png\n")
        );
        assert_eq!(
            unwrapped("<untrusted_page_content>\n- a\n</untrusted_page_content>"),
            "- a\n"
        );
        assert_eq!(
            tree_summary("t.txt", "- a [ref=e1]\n- b\n"),
            "Saved to t.txt: 2 lines, 1 refs, 17 characters."
        );
        assert!(looks_like_a_page("https://a.test") && looks_like_a_page("page.html"));
        assert!(!looks_like_a_page("the prices of the shoes"));
        assert!(looks_like_a_page("javascript:alert(1)") && looks_like_a_page("mailto:a@b.c"));
        assert!(!looks_like_a_page("e4") && !looks_like_a_page("javascript:") && !looks_like_a_page("jäväscript:x"));
    }

    #[test]
    fn the_sessions_flags_may_come_before_the_command() {
        let argv = |line: &str| line.split(' ').map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            flags_after_command(&argv("sightline --session shop --json open a.html")),
            argv("sightline open --session shop --json a.html")
        );
        assert_eq!(
            flags_after_command(&argv("sightline --session=shop click e3")),
            argv("sightline click --session=shop e3")
        );
        for unchanged in [
            "sightline open a.html --session shop",
            "sightline --json",
            "sightline --session",
        ] {
            assert_eq!(flags_after_command(&argv(unchanged)), argv(unchanged));
        }
    }

    #[test]
    fn a_path_written_from_here_is_this_folders_even_when_missing() {
        let here = std::env::current_dir().unwrap();
        let opened = with_absolute_paths(serde_json::json!({"url": "./no/such/../page.html"}));
        let expected = url::Url::from_file_path(here.join("no/page.html")).unwrap();
        assert_eq!(opened["url"], expected.to_string());
        // A bare name that is no file here stays relative to the page shown.
        let relative = with_absolute_paths(serde_json::json!({"url": "about-us.html"}));
        assert_eq!(relative["url"], "about-us.html");
        assert_eq!(
            lexically_joined(Path::new("/tmp/a"), "../b/./c.html"),
            Path::new("/tmp/b/c.html")
        );
    }
}
