//! `act`: one instruction, one action (two for custom dropdowns).
//!
//! 1. wait until the page is ready and snapshot the viewport (the whole page when the model finds
//!    nothing there);
//! 2. one model call returns `{elementId, description, method, arguments,
//!    twoStep}` through the `performAction` tool; a ref that is not in the
//!    snapshot (or is obscured) is fed back once, then act fails cleanly;
//!    the model may call `removeBlocker` instead (at most twice per act);
//! 3. the actions layer executes it with `%name%` variables substituted only
//!    now; a covered target runs removeBlocker once and retries;
//! 4. two-step: after opening a custom dropdown, a second call sees only the
//!    refs that appeared (the whole tree when none did);
//! 5. self-heal: when execution fails, a fresh snapshot and a second
//!    inference with "<method> <description>", then one retry.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;
use sightline_engine::protocol::{SnapshotMode, SnapshotResult};

use super::cache::{ActionCache, CacheKey};
use super::handle::Ai;
use super::prompts;
use super::record::ActRecord;
use super::tree;
use super::variables::Variables;
use crate::error::{Error, Result};
use crate::files::{upload_path, FileAccess};
use crate::llm::{ChatRequest, Llm, Message, Secrets, ToolChoice, Usage};
use crate::page::{resolve_target, Action, Method, Page, RemoveBlockerResult, SnapshotOptions, Target};

/// Options of [`Ai::act`].
#[derive(Debug, Clone)]
pub struct ActOptions {
    /// `%name%` values: substituted when acting, never sent to the model.
    pub variables: Variables,
    /// On a failed execution, re-snapshot, re-infer and retry once.
    pub self_heal: bool,
    /// Cache resolved actions here and replay them without the model.
    pub cache_dir: Option<PathBuf>,
    /// How often the model may call removeBlocker in one act.
    pub max_blocker_calls: u32,
    /// The first snapshot's mode (viewport; the whole page when needed).
    pub mode: SnapshotMode,
    /// The most of the page's tree one request shows (characters / 4); a
    /// larger page is shown part by part until one holds the element.
    pub token_budget: usize,
    /// Relative `setInputFiles` paths are taken against this directory.
    pub base_dir: Option<PathBuf>,
    /// The local files the model's own choices may upload, when they must
    /// be fewer than the page's (a session whose caller may use any file,
    /// whose model reads untrusted pages); `None`: the page's.
    pub files: Option<FileAccess>,
}

impl Default for ActOptions {
    fn default() -> Self {
        ActOptions {
            variables: Variables::default(),
            self_heal: true,
            cache_dir: None,
            max_blocker_calls: 2,
            mode: SnapshotMode::Viewport,
            token_budget: 60_000,
            base_dir: None,
            files: None,
        }
    }
}

/// `{"success","message","action_description","actions","usage"}` (+ what
/// else happened on the way).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ActResult {
    pub success: bool,
    pub message: String,
    pub action_description: String,
    pub actions: Vec<ActRecord>,
    pub usage: Usage,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cache_hit: bool,
    /// removeBlocker runs (asked by the model, or for a covered target).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blockers: Vec<RemoveBlockerResult>,
    /// Expanded to the whole page, self-healed, cache entry stale…
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What the model chose.
#[derive(Debug, Clone)]
struct Choice {
    element_id: String,
    description: String,
    method: Method,
    method_name: String,
    arguments: Vec<String>,
    two_step: bool,
}

enum Decision {
    Act(Choice),
    /// The model found no element that fits.
    NotFound(String),
    /// The model's answer was still unusable after the feedback round.
    Invalid(String),
}

/// Methods that can run without an element.
fn targetless(m: Method) -> bool {
    matches!(
        m,
        Method::Press | Method::ScrollTo | Method::NextChunk | Method::PrevChunk
    )
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect(),
        Some(Value::String(s)) if !s.is_empty() => vec![s.clone()],
        _ => Vec::new(),
    }
}

/// Checks a `performAction` call against the snapshot it was made on.
fn check_choice(args: &Value, snapshot: &SnapshotResult) -> std::result::Result<Option<Choice>, String> {
    let Some(obj) = args.as_object() else {
        return Err(format!("performAction arguments must be a JSON object, got {args}"));
    };
    let element_id = obj
        .get("elementId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string();
    let description = obj
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string();
    let method_name = obj
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string();
    let arguments = string_list(obj.get("arguments"));
    let two_step = obj.get("twoStep").and_then(Value::as_bool).unwrap_or(false);
    let method = Method::parse(&method_name)
        .filter(|_| {
            prompts::ACT_METHODS
                .iter()
                .any(|m| m.eq_ignore_ascii_case(&method_name))
        })
        .ok_or_else(|| {
            format!(
                "method {method_name:?} is not one of {}",
                prompts::ACT_METHODS.join(", ")
            )
        })?;
    if element_id.is_empty() {
        if targetless(method) {
            return Ok(Some(Choice {
                element_id,
                description,
                method,
                method_name,
                arguments,
                two_step: false,
            }));
        }
        return Ok(None);
    }
    let element_id = element_id.trim_start_matches("ref=").to_string();
    match snapshot.refs.get(&element_id) {
        None => {
            return Err(format!(
                "elementId {element_id:?} is not a ref in the tree; use one of the [ref=…] values shown, or \"\""
            ))
        }
        Some(info) if info.obscured => {
            return Err(format!("{element_id} is behind the open modal and cannot be used"));
        }
        Some(_) => {}
    }
    if method == Method::DragAndDrop {
        let dest = arguments.first().map(String::as_str).unwrap_or_default();
        if snapshot.refs.get(dest).is_none() {
            return Err(format!(
                "dragAndDrop needs the target's ref as its argument; {dest:?} is not a ref in the tree"
            ));
        }
    }
    let action = Action {
        method: method_name.clone(),
        ref_: Some(element_id.clone()),
        arguments: arguments.clone(),
        ..Default::default()
    };
    action.validate().map_err(|e| match e {
        Error::InvalidAction(m) => m,
        other => other.to_string(),
    })?;
    Ok(Some(Choice {
        element_id,
        description,
        method,
        method_name,
        arguments,
        two_step,
    }))
}

/// The state of one act call.
struct ActRun<'a> {
    page: &'a Page,
    llm: &'a Llm,
    opts: &'a ActOptions,
    secrets: Secrets,
    usage: Usage,
    notes: Vec<String>,
    blockers: Vec<RemoveBlockerResult>,
    blocker_calls: u32,
}

impl<'a> ActRun<'a> {
    async fn snapshot(&self, mode: SnapshotMode) -> Result<SnapshotResult> {
        self.page
            .snapshot(&SnapshotOptions {
                mode,
                ..Default::default()
            })
            .await
    }

    /// One decision over `snapshot` (or over `view`, a part of it). Handles
    /// removeBlocker calls (re-snapshotting) and one feedback round.
    async fn infer(
        &mut self,
        instruction: &str,
        snapshot: &mut SnapshotResult,
        mode: SnapshotMode,
        mut view: Option<String>,
        extra: Option<String>,
    ) -> Result<Decision> {
        let note = self.opts.variables.prompt_note();
        let mut extra = extra;
        let mut messages: Vec<Message> = Vec::new();
        let mut fed_back = false;
        loop {
            if messages.is_empty() {
                let tree_text = view.clone().unwrap_or_else(|| snapshot.tree.clone());
                let page = prompts::page_block(snapshot, &tree_text);
                messages.push(Message::user(prompts::act_user(
                    instruction,
                    note.as_deref(),
                    extra.as_deref(),
                    &page,
                )));
            }
            let mut tools = vec![prompts::perform_action_tool()];
            if self.blocker_calls < self.opts.max_blocker_calls && self.page.blocker_config().enabled {
                tools.push(prompts::remove_blocker_tool());
            }
            let req = ChatRequest {
                system: prompts::act_system(),
                messages: messages.clone(),
                tools,
                tool_choice: ToolChoice::Required,
                purpose: "act".into(),
                ..Default::default()
            };
            let response = self.llm.chat(&req, &self.secrets).await?;
            self.usage += response.usage;
            let call = response
                .tool_calls
                .iter()
                .find(|c| c.name == "performAction" || c.name == "removeBlocker");
            let problem = match call {
                Some(c) if c.name == "removeBlocker" && self.blocker_calls < self.opts.max_blocker_calls => {
                    self.blocker_calls += 1;
                    let outcome = match self.page.remove_blocker_per_config().await? {
                        Some(r) => {
                            let text = r.summary();
                            self.blockers.push(r);
                            text
                        }
                        None => "removeBlocker is disabled for this site".to_string(),
                    };
                    self.notes
                        .push(format!("removeBlocker (asked by the model): {outcome}"));
                    // A fresh look at the page, in a fresh conversation: the
                    // old tree would only cost tokens.
                    *snapshot = self.snapshot(mode).await?;
                    view = None;
                    extra = Some(format!("removeBlocker was run: {outcome}"));
                    messages.clear();
                    continue;
                }
                Some(c) if c.name == "performAction" => match check_choice(&c.arguments, snapshot) {
                    Ok(Some(choice)) => return Ok(Decision::Act(choice)),
                    Ok(None) => {
                        let why = c
                            .arguments
                            .get("description")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        return Ok(Decision::NotFound(why.to_string()));
                    }
                    Err(problem) => problem,
                },
                Some(_) => "removeBlocker may not be called again; call performAction".to_string(),
                None => "answer by calling performAction (or removeBlocker)".to_string(),
            };
            let problem = response.explain(problem);
            if fed_back {
                return Ok(Decision::Invalid(problem));
            }
            tracing::info!("act: the model's answer was rejected: {problem}");
            fed_back = true;
            messages.push(response.to_message());
            messages.push(crate::llm::feedback_message(&response, &problem));
        }
    }

    /// Infers on the viewport, then on the whole page when nothing fits.
    async fn decide(&mut self, instruction: &str, mode: SnapshotMode) -> Result<(Decision, SnapshotResult)> {
        if mode == SnapshotMode::Full {
            return self.decide_on_the_whole_page(instruction).await;
        }
        let mut snapshot = self.snapshot(mode).await?;
        let decision = self.infer(instruction, &mut snapshot, mode, None, None).await?;
        if matches!(decision, Decision::NotFound(_)) {
            self.notes
                .push("nothing fit in the viewport; looked at the whole page".into());
            return self.decide_on_the_whole_page(instruction).await;
        }
        Ok((decision, snapshot))
    }

    /// Infers on the whole page; a page over the token budget is shown part
    /// by part until one holds the element (a 3,000-row page was 165 k
    /// tokens in one request, past what many models take).
    async fn decide_on_the_whole_page(&mut self, instruction: &str) -> Result<(Decision, SnapshotResult)> {
        let mut full = self.snapshot(SnapshotMode::Full).await?;
        let parts = tree::parts(&full.tree, self.opts.token_budget.max(500));
        if parts.len() < 2 {
            let decision = self
                .infer(instruction, &mut full, SnapshotMode::Full, None, None)
                .await?;
            return Ok((decision, full));
        }
        self.notes
            .push(format!("the page is large: read in up to {} parts", parts.len()));
        let mut decision = Decision::NotFound(String::new());
        for part in parts {
            decision = self
                .infer(instruction, &mut full, SnapshotMode::Full, Some(part), None)
                .await?;
            if !matches!(decision, Decision::NotFound(_)) {
                break;
            }
        }
        Ok((decision, full))
    }

    /// The action the model chose, its variables substituted (a misspelt
    /// one refused, and one bound to other sites).
    async fn action_of(&self, choice: &Choice) -> Result<Action> {
        let mut arguments = Vec::with_capacity(choice.arguments.len());
        let target = Some(&choice.element_id)
            .filter(|r| !r.is_empty())
            .map(|r| Target::parse(r));
        for a in &choice.arguments {
            arguments.push(self.opts.variables.substitute_on(a, self.page, target.as_ref()).await?);
        }
        Ok(Action {
            method: choice.method_name.clone(),
            ref_: Some(choice.element_id.clone()).filter(|r| !r.is_empty()),
            arguments,
            description: Some(choice.description.clone()),
            ..Default::default()
        })
    }

    /// Runs the choice; a covered target gets one removeBlocker run, and
    /// one retry when that cleared something.
    async fn execute(&mut self, choice: &Choice, snapshot: &SnapshotResult) -> Result<ActRecord> {
        let info = snapshot.refs.get(&choice.element_id).cloned().unwrap_or_default();
        let action = self.action_of(choice).await?;
        let base = self.opts.base_dir.as_deref();
        within_files(&action, self.opts)?;
        let (done, blocker) = self.page.perform_past_blockers(&action, base).await;
        if let Some(r) = blocker {
            self.notes
                .push(format!("the target was covered; removeBlocker: {}", r.summary()));
            self.blockers.push(r);
        }
        let done = done?;
        // Replayable without refs: a dragAndDrop target becomes its selector.
        let mut arguments = choice.arguments.clone();
        if choice.method == Method::DragAndDrop {
            if let Some(dest) = arguments.first().and_then(|d| snapshot.refs.get(d)) {
                arguments[0] = dest.selector.clone();
            }
        }
        Ok(ActRecord {
            description: choice.description.clone(),
            method: choice.method_name.clone(),
            arguments,
            element: super::record::element_label(&info.role, &info.name),
            // (Kept in saved runs and the cache on disk: no secret in it.)
            context: done.context.as_deref().map(|c| self.opts.variables.secrets().redact(c)),
            selector: info.selector,
            frame: info.frame,
            rect: done.rect,
        })
    }

    fn finish(self, success: bool, message: String, description: String, actions: Vec<ActRecord>) -> ActResult {
        ActResult {
            success,
            message,
            action_description: description,
            actions,
            usage: self.usage,
            cache_hit: false,
            blockers: self.blockers,
            notes: self.notes,
        }
    }
}

fn is_action_failure(e: &Error) -> bool {
    matches!(
        e,
        Error::Action { .. } | Error::InvalidAction(_) | Error::NoSuchFile { .. }
    )
}

impl Ai<'_> {
    /// Carries out one natural-language instruction on `page` with the model's help.
    /// Failures of the page or the model's choice come back as
    /// `success: false` with a message; a failing model call or browser is
    /// an error.
    pub async fn act(&self, page: &Page, instruction: &str, opts: &ActOptions) -> Result<ActResult> {
        let instruction = instruction.trim();
        if instruction.is_empty() {
            return Err(Error::InvalidAction("act needs an instruction".into()));
        }
        let unknown = opts.variables.unknown_placeholders_in(instruction);
        if !unknown.is_empty() {
            return Err(opts.variables.unknown_placeholders_error(&unknown));
        }
        let mut run = ActRun {
            page,
            llm: self.llm(),
            opts,
            secrets: opts.variables.secrets(),
            usage: Usage::default(),
            notes: Vec::new(),
            blockers: Vec::new(),
            blocker_calls: 0,
        };
        let cache = opts.cache_dir.as_deref().map(ActionCache::new);
        let key = CacheKey::new(
            instruction,
            &page.url().await.unwrap_or_default(),
            opts.variables.names(),
        );
        if let Some(cache) = &cache {
            if let Some(actions) = cache.get(&key) {
                match replay_cached(page, &actions, opts).await? {
                    Ok(()) => {
                        let description = actions
                            .iter()
                            .map(|a| a.description.as_str())
                            .collect::<Vec<_>>()
                            .join("; then ");
                        let mut r = run.finish(
                            true,
                            format!("Replayed from the cache: {description}"),
                            description,
                            actions,
                        );
                        r.cache_hit = true;
                        return Ok(r);
                    }
                    Err(why) => run
                        .notes
                        .push(format!("cache entry not usable ({why}); inferring again")),
                }
            }
        }

        let (decision, snapshot) = run.decide(instruction, opts.mode).await?;
        let (choice, snapshot) = match decision {
            Decision::Act(c) => (c, snapshot),
            Decision::NotFound(why) => {
                let msg = format!("no element on the page fits the instruction{}", suffix(&why));
                return Ok(run.finish(false, msg, String::new(), Vec::new()));
            }
            Decision::Invalid(problem) => {
                return Ok(run.finish(
                    false,
                    format!("the model's answer was unusable: {problem}"),
                    String::new(),
                    Vec::new(),
                ));
            }
        };

        // A file the model may not use is refused outright: a fresh look
        // would not make it usable (self-heal is for elements that moved).
        let checked = match run.action_of(&choice).await {
            Ok(action) => within_files(&action, opts),
            Err(e) => Err(e),
        };
        if let Err(e) = checked {
            let msg = e.to_string();
            return Ok(run.finish(false, msg, choice.description.clone(), Vec::new()));
        }
        let mut actions = Vec::new();
        let (first, snapshot_used) = match run.execute(&choice, &snapshot).await {
            Ok(rec) => (rec, snapshot),
            Err(e) if is_action_failure(&e) && opts.self_heal => {
                run.notes.push(format!(
                    "{} failed ({e}); self-healing with a fresh snapshot",
                    choice.method_name
                ));
                // The instruction whole (its value, its %name%), and what went wrong.
                let heal = format!(
                    "{instruction}\n(A first attempt, {} on {}, failed: {e}. The page as it is now is below.)",
                    choice.method_name, choice.description
                );
                let (decision, snapshot) = run.decide(&heal, opts.mode).await?;
                let healed = match decision {
                    Decision::Act(healed) => healed,
                    missed => {
                        let why = match missed {
                            Decision::Invalid(problem) => {
                                format!("on self-heal the model's answer was unusable: {problem}")
                            }
                            _ => "self-heal found no element".to_string(),
                        };
                        let msg = format!("{} failed: {e}; {why}", choice.method_name);
                        return Ok(run.finish(false, msg, choice.description.clone(), Vec::new()));
                    }
                };
                match run.execute(&healed, &snapshot).await {
                    Ok(rec) => (rec, snapshot),
                    Err(e2) if is_action_failure(&e2) => {
                        let msg = format!("{} failed: {e}; after self-heal: {e2}", choice.method_name);
                        return Ok(run.finish(false, msg, choice.description.clone(), Vec::new()));
                    }
                    Err(e2) => return Err(e2),
                }
            }
            Err(e) if is_action_failure(&e) => {
                let msg = format!("{} failed: {e}", choice.method_name);
                return Ok(run.finish(false, msg, choice.description.clone(), Vec::new()));
            }
            Err(e) => return Err(e),
        };
        let mut description = first.description.clone();
        actions.push(first);

        if choice.two_step {
            // The dropdown is open now: show the model what appeared.
            let mut after = run.snapshot(SnapshotMode::Full).await?;
            let view = tree::new_refs_view(&snapshot_used, &after);
            let view = if view.is_empty() {
                run.notes
                    .push("two-step: nothing new appeared; showing the whole page".into());
                None
            } else {
                Some(view)
            };
            let extra = format!(
                "Step 1 is done: {description}. Now finish the instruction with one more action.{}",
                if view.is_some() {
                    " These elements appeared after step 1:"
                } else {
                    ""
                }
            );
            let decision = run
                .infer(instruction, &mut after, SnapshotMode::Full, view, Some(extra))
                .await?;
            let second = match decision {
                Decision::Act(c) => c,
                Decision::NotFound(why) | Decision::Invalid(why) => {
                    let msg = format!("step 1 ({description}) done, but no option to pick{}", suffix(&why));
                    return Ok(run.finish(false, msg, description, actions));
                }
            };
            match run.execute(&second, &after).await {
                Ok(rec) => {
                    description = format!("{description}; then {}", rec.description);
                    actions.push(rec);
                }
                Err(e) if is_action_failure(&e) => {
                    let msg = format!("step 1 ({description}) done; step 2 failed: {e}");
                    return Ok(run.finish(false, msg, description, actions));
                }
                Err(e) => return Err(e),
            }
        }

        if let Some(cache) = &cache {
            if let Err(e) = cache.put(&key, &actions) {
                tracing::warn!("act cache: cannot write an entry: {e}");
            }
        }
        let message = format!("Action performed: {description}");
        Ok(run.finish(true, message, description, actions))
    }
}

/// Replays cached actions after checking every selector resolves;
/// `Err(why)` when the entry no longer fits the page.
async fn replay_cached(
    page: &Page,
    actions: &[ActRecord],
    opts: &ActOptions,
) -> Result<std::result::Result<(), String>> {
    if let Some(first) = actions.first() {
        if let Err(why) = still_the_element(page, first, &opts.variables).await? {
            return Ok(Err(why));
        }
    }
    for (i, rec) in actions.iter().enumerate() {
        let action = rec.to_action_on(&opts.variables, page).await;
        // Later steps' elements may only appear after the earlier ones (dropdown options).
        if i > 0 {
            if let Some(target) = action.target() {
                if !page.exists(target).await? {
                    page.wait_ready().await?;
                }
            }
        }
        if let Err(e) = within_files(&action, opts) {
            return Ok(Err(e.to_string()));
        }
        match page.perform(&action, opts.base_dir.as_deref()).await {
            Ok(_) => {}
            Err(e) if is_action_failure(&e) => return Ok(Err(format!("{} failed: {e}", rec.method))),
            Err(e) => return Err(e),
        }
    }
    Ok(Ok(()))
}

/// Whether the first cached action's selector still finds its element:
/// the one the record names (role and name, and for a position among
/// siblings the text around it), in its frame. One snapshot
/// answers both (it also numbers the frames a record's `f1` names).
async fn still_the_element(
    page: &Page,
    first: &ActRecord,
    variables: &Variables,
) -> Result<std::result::Result<(), String>> {
    if first.selector.is_empty() {
        return Ok(Ok(()));
    }
    let snapshot = page
        .snapshot(&SnapshotOptions {
            mode: SnapshotMode::Full,
            ..Default::default()
        })
        .await?;
    let now = snapshot
        .refs
        .iter()
        .find(|(_, info)| info.selector == first.selector && info.frame == first.frame)
        .map(|(_, info)| super::record::element_label(&info.role, &info.name));
    match (now, &first.element) {
        (Some(Some(now)), Some(then)) if now != *then => Ok(Err(format!(
            "{} now finds {now}, not the cached {then}",
            first.selector
        ))),
        // The same name at the same position may be another row's (a list
        // that reordered): the text around it tells.
        (Some(_), _) => match (&first.context, first.to_action(&Variables::default(), "").target()) {
            (Some(then), Some(target)) => match page
                .context_changed(target, then, &|s| variables.secrets().redact(s))
                .await?
            {
                Some(now) => Ok(Err(format!(
                    "{} now finds an element among \"{}\", not the cached one among \"{}\"",
                    first.selector,
                    crate::text::clip(&now, 60),
                    crate::text::clip(then, 60)
                ))),
                None => Ok(Ok(())),
            },
            _ => Ok(Ok(())),
        },
        // Not a ref of the tree (hidden now, or a record of another kind):
        // the selector must at least resolve.
        (None, _) => {
            let Some(target) = first.to_action(&Variables::default(), "").target() else {
                return Ok(Ok(()));
            };
            if page.exists(target).await? {
                Ok(Ok(()))
            } else {
                Ok(Err(format!("{} no longer resolves", first.selector)))
            }
        }
    }
}

/// Refuses an upload (or a local page) the model chose outside `opts.files`.
fn within_files(action: &Action, opts: &ActOptions) -> Result<()> {
    let Some(files) = &opts.files else { return Ok(()) };
    match action.method() {
        Ok(Method::SetInputFiles) => {
            for path in &action.arguments {
                let p = upload_path(path, opts.base_dir.as_deref());
                // The file the upload would send: symlinks resolved before
                // `..`, as the kernel does (`link/../x` is not `./x`).
                let p = std::fs::canonicalize(&p).unwrap_or(p);
                if !files.allows_path(&p) {
                    return Err(Error::InvalidAction(format!(
                        "setInputFiles: {path} is outside the directories the model's choices may read from ({}); \
allow more with --allow-file-access",
                        files.describe()
                    )));
                }
            }
            Ok(())
        }
        // A plain path opens as a file: judged as the URL `goto` makes of it.
        Ok(Method::Goto) => {
            let url = action
                .arguments
                .first()
                .map(|u| resolve_target(u).unwrap_or_else(|_| u.clone()));
            match url.and_then(|u| files.refusal(&u)) {
                Some(why) => Err(Error::InvalidAction(format!("goto: {why}"))),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

fn suffix(why: &str) -> String {
    if why.trim().is_empty() {
        String::new()
    } else {
        format!(" ({})", why.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_models_file_choices_keep_to_its_files() {
        let work = tempfile::tempdir().unwrap();
        std::fs::write(work.path().join("cv.pdf"), "%PDF").unwrap();
        let action = |method: &str, arg: &str| Action {
            method: method.into(),
            arguments: vec![arg.into()],
            ..Default::default()
        };
        let opts = ActOptions {
            base_dir: Some(work.path().to_path_buf()),
            files: Some(FileAccess::within([work.path().to_path_buf()])),
            ..ActOptions::default()
        };
        assert!(within_files(&action("setInputFiles", "cv.pdf"), &opts).is_ok());
        let e = within_files(&action("setInputFiles", "/etc/passwd"), &opts).unwrap_err();
        assert!(e.to_string().contains("the model's choices may read from"), "{e}");
        assert!(within_files(&action("goto", "file:///etc/passwd"), &opts).is_err());
        assert!(
            within_files(&action("goto", "/etc/passwd"), &opts).is_err(),
            "a plain path is a file"
        );
        // A symlink out, then `..`: judged where the kernel would go.
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir(out.path().join("proj")).unwrap();
        std::fs::write(out.path().join("tax.pdf"), "%PDF").unwrap();
        std::os::unix::fs::symlink(out.path().join("proj"), work.path().join("link")).unwrap();
        assert!(within_files(&action("setInputFiles", "link/../tax.pdf"), &opts).is_err());
        assert!(within_files(&action("goto", "https://example.com/"), &opts).is_ok());
        assert!(
            within_files(&action("click", "/etc/passwd"), &opts).is_ok(),
            "not a file choice"
        );
        let open = ActOptions::default();
        assert!(
            within_files(&action("setInputFiles", "/etc/passwd"), &open).is_ok(),
            "the page's rule then"
        );
    }
    use sightline_engine::protocol::{RefInfo, RefMap};

    fn snap() -> SnapshotResult {
        SnapshotResult {
            tree: "- button \"Buy\" [ref=e1]\n- textbox \"Email\" [ref=e2]".into(),
            refs: RefMap(vec![
                (
                    "e1".into(),
                    RefInfo {
                        role: "button".into(),
                        selector: "#buy".into(),
                        ..Default::default()
                    },
                ),
                (
                    "e2".into(),
                    RefInfo {
                        role: "textbox".into(),
                        selector: "#email".into(),
                        ..Default::default()
                    },
                ),
                (
                    "e3".into(),
                    RefInfo {
                        obscured: true,
                        ..Default::default()
                    },
                ),
            ]),
            ..Default::default()
        }
    }

    fn args(id: &str, method: &str, a: &[&str]) -> Value {
        json!({"elementId": id, "description": "d", "method": method, "arguments": a, "twoStep": false})
    }

    #[test]
    fn choices_are_checked_against_the_snapshot() {
        let s = snap();
        assert!(check_choice(&args("e1", "click", &[]), &s).unwrap().is_some());
        assert!(
            check_choice(&args("", "click", &[]), &s).unwrap().is_none(),
            "nothing fits"
        );
        let e = check_choice(&args("e99", "click", &[]), &s).unwrap_err();
        assert!(e.contains("not a ref"), "{e}");
        assert!(check_choice(&args("e3", "click", &[]), &s)
            .unwrap_err()
            .contains("modal"));
        assert!(check_choice(&args("e2", "fill", &[]), &s).unwrap_err().contains("text"));
        assert!(check_choice(&args("e1", "goto", &["x"]), &s)
            .unwrap_err()
            .contains("not one of"));
        assert!(
            check_choice(&args("", "press", &["Enter"]), &s).unwrap().is_some(),
            "press needs no element"
        );
        assert!(check_choice(&json!("junk"), &s).is_err());
        let c = check_choice(&json!({"elementId": "ref=e2", "method": "fill", "arguments": [42]}), &s)
            .unwrap()
            .unwrap();
        assert_eq!((c.element_id.as_str(), c.arguments[0].as_str()), ("e2", "42"));
    }

    #[test]
    fn records_replay_with_variables() {
        let vars = Variables::new([("pw".to_string(), "s3cret".to_string())].into()).unwrap();
        let r = ActRecord {
            description: "password".into(),
            method: "fill".into(),
            arguments: vec!["%pw%".into()],
            selector: "#pw".into(),
            frame: Some("f1".into()),
            element: None,
            context: None,
            rect: None,
        };
        let a = r.to_action(&vars, "");
        assert_eq!(a.arguments, ["s3cret"]);
        assert_eq!(a.frame.as_deref(), Some("f1"));
        assert!(!serde_json::to_string(&r).unwrap().contains("s3cret"));
    }
}
