//! The action object of the public API: what `sightline run` reads from a
//! steps file and what `observe` will return, in Stagehand's shape:
//! `{method, selector?, ref?, arguments?, description?}`.
//!
//! ```
//! let a: sightline::Action =
//!     serde_json::from_str(r##"{"method":"fill","selector":"#email","arguments":["a@b.c"]}"##).unwrap();
//! assert_eq!(a.method, "fill");
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};

use super::actions::ActionResult;
use super::handle::Page;
use super::target::Target;
use super::unblock::RemoveBlockerResult;
use super::viewport::ScrollAmount;
use crate::error::{Error, Result};
use crate::files::upload_path;

/// One action on a page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Action {
    /// The method: an element action (`click`, `fill`, `dragAndDrop`…) or a
    /// page action (`goto`, `back`, `forward`, `reload`, `scroll`, `wait`,
    /// `press` without a target); see [`Method`].
    pub method: String,
    /// Engine selector, CSS (optionally `css=`) or `xpath=…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// A ref from a snapshot (`e12`, `f1e3`); wins over `selector`.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub ref_: Option<String>,
    /// The child frame a `selector` is in: its snapshot prefix (`f1`) or a
    /// selector of its `<iframe>` element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// Method arguments (numbers and booleans are accepted and read as text).
    #[serde(default, deserialize_with = "lenient_strings", skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<String>,
    /// What the action is for, in words (from `observe`; informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

fn lenient_strings<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    use serde::de::Error as _;
    let v = Option::<serde_json::Value>::deserialize(d)?;
    let one = |v: &serde_json::Value| -> std::result::Result<String, D::Error> {
        match v {
            serde_json::Value::String(s) => Ok(s.clone()),
            serde_json::Value::Number(n) => Ok(n.to_string()),
            serde_json::Value::Bool(b) => Ok(b.to_string()),
            other => Err(D::Error::custom(format!("arguments must be strings, not {other}"))),
        }
    };
    match v {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::Array(a)) => a.iter().map(one).collect(),
        Some(other) => Ok(vec![one(&other)?]),
    }
}

/// The methods an [`Action`] can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Click,
    DoubleClick,
    Hover,
    Fill,
    Type,
    Press,
    SelectOptionFromDropdown,
    Check,
    Uncheck,
    DragAndDrop,
    ScrollIntoView,
    ScrollTo,
    NextChunk,
    PrevChunk,
    SetInputFiles,
    Goto,
    Back,
    Forward,
    Reload,
    Scroll,
    Wait,
}

impl Method {
    /// Stagehand's names, plus a few common spellings.
    pub fn parse(name: &str) -> Option<Method> {
        let n: String = name
            .chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .collect::<String>()
            .to_ascii_lowercase();
        Some(match n.as_str() {
            "click" => Method::Click,
            "doubleclick" | "dblclick" => Method::DoubleClick,
            "hover" => Method::Hover,
            "fill" => Method::Fill,
            "type" => Method::Type,
            "press" | "presskey" => Method::Press,
            "selectoptionfromdropdown" | "selectoption" | "select" => Method::SelectOptionFromDropdown,
            "check" => Method::Check,
            "uncheck" => Method::Uncheck,
            "draganddrop" | "drag" => Method::DragAndDrop,
            "scrollintoview" => Method::ScrollIntoView,
            "scrollto" => Method::ScrollTo,
            "nextchunk" => Method::NextChunk,
            "prevchunk" | "previouschunk" => Method::PrevChunk,
            "setinputfiles" | "upload" => Method::SetInputFiles,
            "goto" | "navigate" => Method::Goto,
            "back" | "goback" => Method::Back,
            "forward" | "goforward" => Method::Forward,
            "reload" => Method::Reload,
            "scroll" => Method::Scroll,
            "wait" => Method::Wait,
            _ => return None,
        })
    }

    /// Whether the method acts on an element (and so needs a ref or selector).
    pub fn needs_target(self) -> bool {
        !matches!(
            self,
            Method::Press
                | Method::ScrollTo
                | Method::NextChunk
                | Method::PrevChunk
                | Method::Goto
                | Method::Back
                | Method::Forward
                | Method::Reload
                | Method::Scroll
                | Method::Wait
        )
    }
}

const METHODS: &str = "click, doubleClick, hover, fill, type, press, selectOptionFromDropdown, check, uncheck, \
    dragAndDrop, scrollIntoView, scrollTo, nextChunk, prevChunk, setInputFiles, goto, back, forward, reload, scroll, wait";

impl Action {
    /// An element action on a ref or selector.
    pub fn new(method: &str, target: &str, arguments: &[&str]) -> Action {
        let t = Target::parse(target);
        let (ref_, selector) = match t {
            Target::Ref(r) => (Some(r), None),
            Target::Selector { selector, .. } => (None, Some(selector)),
        };
        Action {
            method: method.to_string(),
            selector,
            ref_,
            arguments: arguments.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    /// The parsed method.
    pub fn method(&self) -> Result<Method> {
        Method::parse(&self.method)
            .ok_or_else(|| Error::InvalidAction(format!("unknown method {:?} (known: {METHODS})", self.method)))
    }

    /// The element it acts on, if it names one.
    pub fn target(&self) -> Option<Target> {
        if let Some(r) = self.ref_.as_deref().filter(|r| !r.trim().is_empty()) {
            return Some(Target::parse(r));
        }
        let selector = self.selector.as_deref().filter(|s| !s.trim().is_empty())?;
        Some(match &self.frame {
            Some(f) if !f.trim().is_empty() => Target::in_frame(selector, f.trim()),
            _ => Target::parse(selector),
        })
    }

    /// `fill #email` / `click e12` / `goto`: how reports name the action.
    pub fn label(&self) -> String {
        match self.target() {
            Some(t) => format!("{} {}", self.method, t.label()),
            None => self.method.clone(),
        }
    }

    fn arg(&self, i: usize, what: &str) -> Result<&str> {
        self.arguments
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| Error::InvalidAction(format!("{} needs {what} in arguments", self.method)))
    }

    /// Checks the method, target and arguments without touching a page.
    pub fn validate(&self) -> Result<Method> {
        let m = self.method()?;
        if m.needs_target() && self.target().is_none() {
            return Err(Error::InvalidAction(format!(
                "{} needs a \"ref\" or a \"selector\"",
                self.method
            )));
        }
        match m {
            Method::Fill | Method::Type => {
                self.arg(0, "the text")?;
            }
            Method::Press => {
                self.arg(0, "a key such as \"Enter\" or \"Control+A\"")?;
                for k in &self.arguments {
                    super::input::parse_combo(k)?;
                }
            }
            Method::SelectOptionFromDropdown => {
                self.arg(0, "the option to choose")?;
            }
            Method::DragAndDrop => {
                self.arg(0, "the destination (a ref or selector)")?;
            }
            Method::SetInputFiles => {
                self.arg(0, "a file path")?;
            }
            Method::Goto => {
                self.arg(0, "the URL")?;
            }
            Method::Wait => {
                parse_ms(self.arg(0, "milliseconds")?)?;
            }
            Method::ScrollTo => {
                parse_percent(self.arguments.first().map(String::as_str).unwrap_or("0"))?;
            }
            Method::Scroll => {
                ScrollAmount::parse(&self.arguments.join(" ")).or_else(|e| {
                    if self.arguments.is_empty() {
                        Ok(ScrollAmount::ViewportPercent(100.0))
                    } else {
                        Err(e)
                    }
                })?;
            }
            _ => {}
        }
        Ok(m)
    }
}

fn parse_ms(s: &str) -> Result<Duration> {
    let t = s.trim().trim_end_matches("ms").trim();
    match t.parse::<f64>() {
        Ok(v) if (0.0..=600_000.0).contains(&v) => Ok(Duration::from_secs_f64(v / 1000.0)),
        _ => Err(Error::InvalidAction(format!(
            "wait: {s:?} is not a number of milliseconds (0 to 600000)"
        ))),
    }
}

/// `"50%"`, `"50"`, `"0.5"` is 0.5 %, not half: percentages are 0–100.
fn parse_percent(s: &str) -> Result<f64> {
    let t = s.trim().trim_end_matches('%').trim();
    t.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| Error::InvalidAction(format!("scrollTo: {s:?} is not a percentage (e.g. \"50%\")")))
}

impl Page {
    /// Runs one [`Action`] with no LLM. When its target is covered (a pop-up,
    /// a cookie bar), runs removeBlocker once with this tab's policy and,
    /// when that cleared something, retries once. Relative file paths of
    /// `setInputFiles` are taken against `base_dir` (the steps file's
    /// directory in `sightline run`), else against the current directory.
    pub async fn perform(&self, action: &Action, base_dir: Option<&Path>) -> Result<ActionResult> {
        let (done, blocker) = self.perform_past_blockers(action, base_dir).await;
        let mut result = done?;
        if let Some(r) = blocker.filter(|r| r.removed) {
            result
                .notes
                .push(format!("{} covered it: closed it first {}", r.layer(), r.how()));
        }
        Ok(result)
    }

    /// [`Page::perform`]'s way past a covering layer, with removeBlocker's
    /// outcome when it ran (act reports it in its own words).
    pub(crate) async fn perform_past_blockers(
        &self,
        action: &Action,
        base_dir: Option<&Path>,
    ) -> (Result<ActionResult>, Option<RemoveBlockerResult>) {
        match self.perform_once(action, base_dir).await {
            Err(
                covered @ Error::Action {
                    kind: crate::error::ActionErrorKind::Covered { .. },
                    ..
                },
            ) if self.blocker_config().enabled => {
                tracing::info!("{}: {covered}; running removeBlocker", action.label());
                let blocker = match self.remove_blocker_per_config().await {
                    Ok(b) => b,
                    Err(e) => return (Err(e), None),
                };
                // Nothing was cleared: a second try would only wait out the
                // action's time again in front of the same cover.
                if !blocker.as_ref().is_some_and(|r| r.removed) {
                    return (Err(covered), blocker);
                }
                (self.perform_once(action, base_dir).await, blocker)
            }
            other => (other, None),
        }
    }

    /// Runs one [`Action`] as is (no removeBlocker).
    pub async fn perform_once(&self, action: &Action, base_dir: Option<&Path>) -> Result<ActionResult> {
        let method = action.validate()?;
        let target = action.target();
        let t = || target.clone().expect("validated: the method has a target");
        let args = &action.arguments;
        match method {
            Method::Click => self.click(t()).await,
            Method::DoubleClick => self.double_click(t()).await,
            Method::Hover => self.hover(t()).await,
            Method::Fill => self.fill(t(), &args[0]).await,
            Method::Type => self.type_into(t(), &args.join("")).await,
            Method::Press => self.press(target, args).await,
            Method::SelectOptionFromDropdown => self.select_option(t(), args).await,
            Method::Check => self.check(t()).await,
            Method::Uncheck => self.uncheck(t()).await,
            Method::DragAndDrop => {
                let dest = match &action.frame {
                    Some(f) if !super::target::is_ref(&args[0]) => Target::in_frame(&args[0], f),
                    _ => Target::parse(&args[0]),
                };
                self.drag_and_drop(t(), dest).await
            }
            Method::ScrollIntoView => self.scroll_into_view(t()).await,
            Method::ScrollTo => {
                let p = parse_percent(args.first().map(String::as_str).unwrap_or("0"))?;
                self.scroll_to(target, p).await
            }
            Method::NextChunk => self.next_chunk(target).await,
            Method::PrevChunk => self.prev_chunk(target).await,
            Method::SetInputFiles => {
                let files: Vec<PathBuf> = args.iter().map(|a| upload_path(a, base_dir)).collect();
                self.set_input_files(t(), &files).await
            }
            Method::Goto => {
                let r = self.goto(&args[0]).await?;
                Ok(navigated(r))
            }
            Method::Back => Ok(match self.back().await? {
                Some(r) => navigated(r),
                None => noted("no previous page in this tab's history"),
            }),
            Method::Forward => Ok(match self.forward().await? {
                Some(r) => navigated(r),
                None => noted("no next page in this tab's history"),
            }),
            Method::Reload => Ok(navigated(self.reload().await?)),
            Method::Scroll => {
                let amount = if args.is_empty() {
                    ScrollAmount::ViewportPercent(100.0)
                } else {
                    ScrollAmount::parse(&args.join(" "))?
                };
                self.scroll(amount).await
            }
            Method::Wait => {
                self.wait(parse_ms(&args[0])?).await?;
                Ok(ActionResult::default())
            }
        }
    }
}

fn navigated(r: super::navigation::NavigationResponse) -> ActionResult {
    let mut result = ActionResult {
        value: Some(r.to_string()),
        ..Default::default()
    };
    if !r.ok() {
        result
            .notes
            .push(format!("the server answered HTTP {}", r.status.unwrap_or_default()));
    }
    result.notes.extend(r.unfinished);
    result
}

fn noted(note: &str) -> ActionResult {
    ActionResult {
        notes: vec![note.to_string()],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stagehand_actions() {
        let a: Action = serde_json::from_str(
            r##"{"method":"fill","selector":"#email","arguments":["a@b.c"],"description":"the email field"}"##,
        )
        .unwrap();
        assert_eq!(a.validate().unwrap(), Method::Fill);
        assert_eq!(a.target(), Some(Target::parse("#email")));
        let b: Action = serde_json::from_str(r#"{"method":"click","ref":"e12"}"#).unwrap();
        assert_eq!(b.target(), Some(Target::Ref("e12".into())));
        assert_eq!(b.label(), "click e12");
        let c: Action = serde_json::from_str(r#"{"method":"wait","arguments":[250]}"#).unwrap();
        assert_eq!(c.arguments, ["250"]);
        assert_eq!(c.validate().unwrap(), Method::Wait);
        let round = serde_json::to_string(&b).unwrap();
        assert_eq!(round, r#"{"method":"click","ref":"e12"}"#);
    }

    #[test]
    fn rejects_bad_actions() {
        let bad = |j: &str| {
            serde_json::from_str::<Action>(j)
                .unwrap()
                .validate()
                .unwrap_err()
                .to_string()
        };
        assert!(bad(r#"{"method":"explode"}"#).contains("unknown method \"explode\""));
        assert!(bad(r#"{"method":"click"}"#).contains("needs a \"ref\" or a \"selector\""));
        assert!(bad(r##"{"method":"fill","selector":"#a"}"##).contains("needs the text"));
        assert!(bad(r#"{"method":"press","arguments":["Hyper+Q"]}"#).contains("Hyper"));
        assert!(bad(r#"{"method":"wait","arguments":["soon"]}"#).contains("milliseconds"));
        assert!(bad(r#"{"method":"scroll","arguments":["sideways"]}"#).contains("scroll amount"));
    }

    #[test]
    fn method_spellings() {
        assert_eq!(Method::parse("doubleClick"), Some(Method::DoubleClick));
        assert_eq!(
            Method::parse("selectOptionFromDropdown"),
            Some(Method::SelectOptionFromDropdown)
        );
        assert_eq!(Method::parse("scroll_into_view"), Some(Method::ScrollIntoView));
        assert_eq!(Method::parse("nope"), None);
        assert!(!Method::Press.needs_target());
        assert!(Method::DragAndDrop.needs_target());
    }
}
