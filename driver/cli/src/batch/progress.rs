//! The live progress line of `sightline batch` on stderr (a terminal only):
//! done/total, running, queued, failed, tokens so far and the ETA, with a
//! line above it for each task that did not end ok.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sightline::batch::{BatchEvent, EventFn, TaskStatus};

#[derive(Default)]
struct Counts {
    running: HashSet<String>,
    queued: HashSet<String>,
    failed: usize,
    tokens: u64,
}

/// The progress display; `None` where it would not be seen.
pub struct Progress {
    bar: ProgressBar,
    counts: Mutex<Counts>,
}

impl Progress {
    /// A bar over `total` tasks when `show` (stderr is a terminal and not `--quiet`).
    pub fn new(total: usize, already_done: usize, show: bool) -> Option<Arc<Progress>> {
        if !show {
            return None;
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {pos}/{len} done {wide_bar} {msg} · ETA {eta}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        if already_done > 0 {
            bar.println(format!(
                "{already_done} task(s) already have a result in --out; running the other {total}"
            ));
        }
        let p = Arc::new(Progress {
            bar,
            counts: Mutex::new(Counts::default()),
        });
        p.refresh();
        Some(p)
    }

    /// The library's event callback, feeding this display.
    pub fn events(self: &Arc<Self>) -> EventFn {
        let me = self.clone();
        Arc::new(move |e: &BatchEvent| me.on_event(e))
    }

    /// A note above the bar.
    pub fn note(&self, text: &str) {
        self.bar.println(text);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn on_event(&self, event: &BatchEvent) {
        {
            let mut c = self.counts.lock().unwrap();
            match event {
                BatchEvent::Queued { id, .. } => {
                    c.queued.insert(id.clone());
                }
                BatchEvent::Started { id, .. } => {
                    c.queued.remove(id);
                    c.running.insert(id.clone());
                }
                BatchEvent::Finished { result: r, .. } => {
                    c.queued.remove(&r.id);
                    c.running.remove(&r.id);
                    c.tokens += r.tokens;
                    if r.status != TaskStatus::Ok {
                        c.failed += 1;
                        let why = r.error.as_deref().unwrap_or_default();
                        self.bar.println(format!("✗ {} {}: {why}", r.id, r.status));
                    }
                    self.bar.inc(1);
                }
                BatchEvent::Warning(w) => self.bar.println(format!("warning: {w}")),
                BatchEvent::BrowserStarted { .. } | BatchEvent::BrowserRetired { .. } => {}
            }
        }
        self.refresh();
    }

    fn refresh(&self) {
        let c = self.counts.lock().unwrap();
        self.bar.set_message(format!(
            "· {} running · {} queued · {} failed · {} tokens",
            c.running.len(),
            c.queued.len(),
            c.failed,
            c.tokens
        ));
    }
}

/// Where a run's events go: the progress display when there is one; else
/// only its warnings, a line each on stderr (a worker that stopped, a report
/// not written, a results line skipped: not for the display alone to say).
pub fn events_for(progress: Option<&Arc<Progress>>, unreadable_lines: &[String]) -> EventFn {
    let skipped = |line: &String| format!("warning: skipped an unreadable results line: {line}");
    match progress {
        Some(p) => {
            for line in unreadable_lines {
                p.note(&skipped(line));
            }
            p.events()
        }
        None => {
            for line in unreadable_lines {
                eprintln!("{}", crate::output::terminal_safe(&skipped(line)));
            }
            Arc::new(|e: &BatchEvent| {
                if let BatchEvent::Warning(w) = e {
                    eprintln!("warning: {}", crate::output::terminal_safe(w));
                }
            })
        }
    }
}
