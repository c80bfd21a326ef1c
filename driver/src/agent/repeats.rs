//! Turns that go round in circles: a model that asks for the same calls
//! again and again while the page stays exactly as it was (a button that
//! does nothing, a scroll at the bottom, a field that rejects its input)
//! spends every step left on them. After a few such turns the model is told
//! so; a few more and the run ends as not completed, saying why, instead
//! of running on to `max_steps`.
//!
//! Pure bookkeeping: the loops say what a turn asked for and what the model
//! saw of the page afterwards (its page message, or its screenshot and
//! note), and this says what to do.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashSet, VecDeque};
use std::hash::{Hash, Hasher};

use serde_json::Value;

/// The same turn with the same outcome this many times among the last
/// [`WINDOW`] turns: the model is told.
const NOTE_AT: usize = 3;
/// ... and this many: the run ends. (Two more after the note: a model that
/// read it and still repeats itself is not going to stop.)
const STOP_AT: usize = 5;
/// How far back a repeat counts: far enough for a cycle of up to four
/// turns (open a menu, pick an item that does nothing, close it…) to come
/// round [`STOP_AT`] times, near enough that one retry much later is not one.
const WINDOW: usize = 20;

/// What to do after a turn.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Repeat {
    /// Nothing: the turn or its outcome was new.
    Fine,
    /// Tell the model (added to what it reads next).
    Note(String),
    /// End the run as not completed, with this reason.
    Stop(String),
}

/// One run's memory of its last turns: what each asked for, and what the
/// model saw afterwards.
#[derive(Debug, Default)]
pub(super) struct RepeatGuard {
    recent: VecDeque<(u64, u64)>,
    /// Turns the model was told of already (told once each).
    noted: HashSet<(u64, u64)>,
}

impl RepeatGuard {
    /// After a turn: its calls (name and arguments, in order), whether the
    /// turn only let time pass (`wait`: polling a slow page is not a loop,
    /// and it does not count), and a fingerprint of what the model saw of
    /// the page afterwards. Seeing the same page after the same calls again
    /// means the turns since did nothing.
    pub fn after_turn(&mut self, calls: &[(&str, &Value)], passes_time: bool, page: u64) -> Repeat {
        if passes_time || calls.is_empty() {
            return Repeat::Fine;
        }
        let said = calls_said(calls);
        let turn = (fingerprint(&said), page);
        if self.recent.len() == WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back(turn);
        let times = self.recent.iter().filter(|t| **t == turn).count();
        let span = self.recent.len() - self.recent.iter().position(|t| *t == turn).unwrap_or(0);
        match times {
            n if n >= STOP_AT => Repeat::Stop(format!(
                "stopped: the model asked for the same thing {n} times in its last {span} turns ({said}) and the page \
came out the same each time"
            )),
            n if n >= NOTE_AT && self.noted.insert(turn) => {
                let when = if span == NOTE_AT {
                    "in a row".to_string()
                } else {
                    format!("in your last {span} turns")
                };
                Repeat::Note(format!(
                    "Note: this is the {} time {when} you asked for {said}, and the page came out the same each \
time. Doing it again will not change anything. Try another way (another element, scroll, removeBlocker, another \
page), or end the task as not achievable and say why.",
                    ordinal(n)
                ))
            }
            _ => Repeat::Fine,
        }
    }
}

/// Whether a turn only let time pass or moved the keyboard focus: neither
/// shows in what the model reads back (a slow page is polled with waits,
/// Tab walks the focus order), so such a turn is no repeat.
pub(super) fn unseen_progress(calls: &[(&str, &Value)]) -> bool {
    calls.iter().all(|(name, args)| {
        *name == crate::tools::wait::TOOL.name
            || (*name == crate::tools::press::TOOL.name && args["key"].as_str().is_some_and(moves_focus))
    })
}

/// Keys that move the focus (or the caret) and nothing else.
fn moves_focus(key: &str) -> bool {
    matches!(
        key,
        "Tab" | "Shift+Tab" | "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight"
    )
}

/// `3rd`, `4th`.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A stable hash of what the model saw (a page message, a screenshot).
pub(super) fn fingerprint(seen: &str) -> u64 {
    let mut h = DefaultHasher::new();
    seen.hash(&mut h);
    h.finish()
}

/// The calls as the model wrote them, short enough to quote back.
fn calls_said(calls: &[(&str, &Value)]) -> String {
    let mut said = calls
        .iter()
        .map(|(name, args)| match args {
            Value::Object(m) if m.is_empty() => name.to_string(),
            Value::Null => name.to_string(),
            args => format!("{name} {args}"),
        })
        .collect::<Vec<_>>()
        .join("; ");
    if said.chars().count() > 200 {
        said = said.chars().take(200).collect::<String>() + "…";
    }
    said
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_same_turn_on_the_same_page_is_noted_then_stopped() {
        let mut g = RepeatGuard::default();
        let args = json!({"target": "e5"});
        let calls = [("click", &args)];
        assert_eq!(g.after_turn(&calls, false, 7), Repeat::Fine);
        assert_eq!(g.after_turn(&calls, false, 7), Repeat::Fine);
        let Repeat::Note(note) = g.after_turn(&calls, false, 7) else {
            panic!("no note at the third time")
        };
        assert!(note.contains(r#"click {"target":"e5"}"#), "{note}");
        assert_eq!(g.after_turn(&calls, false, 7), Repeat::Fine);
        let Repeat::Stop(why) = g.after_turn(&calls, false, 7) else {
            panic!("no stop at the fifth time")
        };
        assert!(why.contains("5 times in its last 5 turns"), "{why}");
        assert!(note.contains("3rd time in a row"), "{note}");
    }

    #[test]
    fn the_same_call_on_a_new_page_each_time_goes_on() {
        let mut g = RepeatGuard::default();
        let next = json!({"target": "e5"});
        for page in 0..30 {
            // A "next page" button: the same call, a new page each time.
            assert_eq!(g.after_turn(&[("click", &next)], false, page), Repeat::Fine);
        }
    }

    #[test]
    fn a_cycle_that_comes_back_to_the_same_page_is_a_repeat() {
        let mut g = RepeatGuard::default();
        let (open, close) = (json!({"target": "e5"}), json!({"target": "e9"}));
        let mut seen = Vec::new();
        for i in 0..10 {
            // Open a menu (page 1), close it (page 0), again and again.
            let r = if i % 2 == 0 {
                g.after_turn(&[("click", &open)], false, 1)
            } else {
                g.after_turn(&[("click", &close)], false, 0)
            };
            seen.push(r);
        }
        assert!(
            matches!(&seen[4], Repeat::Note(n) if n.contains("in your last 5 turns")),
            "{seen:?}"
        );
        assert!(
            matches!(&seen[8], Repeat::Stop(s) if s.contains("5 times in its last 9 turns")),
            "{seen:?}"
        );
        assert!(seen[..4].iter().all(|r| *r == Repeat::Fine), "{seen:?}");
    }

    #[test]
    fn tab_and_wait_turns_show_no_progress_and_are_no_repeat() {
        let (tab, enter, wait) = (json!({"key": "Tab"}), json!({"key": "Enter"}), json!({"ms": 500}));
        assert!(unseen_progress(&[("press", &tab)]));
        assert!(unseen_progress(&[("wait", &wait), ("press", &tab)]));
        assert!(!unseen_progress(&[("press", &enter)]));
        assert!(!unseen_progress(&[("click", &tab)]));
    }

    #[test]
    fn longer_cycles_are_told_once_then_stopped() {
        for period in 3..=4u64 {
            let mut g = RepeatGuard::default();
            let calls: Vec<Value> = (0..period).map(|i| json!({"target": format!("e{i}")})).collect();
            let mut notes = 0;
            let mut stopped_at = None;
            for i in 0..40u64 {
                let k = (i % period) as usize;
                match g.after_turn(&[("click", &calls[k])], false, k as u64) {
                    Repeat::Note(_) => notes += 1,
                    Repeat::Stop(_) => {
                        stopped_at = Some(i);
                        break;
                    }
                    Repeat::Fine => {}
                }
            }
            assert_eq!(
                notes, period as usize,
                "period {period}: one note per turn of the cycle"
            );
            assert_eq!(stopped_at, Some(4 * period), "period {period}");
        }
    }

    #[test]
    fn one_retry_much_later_is_no_repeat() {
        let mut g = RepeatGuard::default();
        let retry = json!({"target": "e2"});
        for round in 0..4 {
            assert_eq!(g.after_turn(&[("click", &retry)], false, 0), Repeat::Fine);
            for page in 0..WINDOW as u64 {
                let other = json!({"target": format!("e{}", 100 + page)});
                g.after_turn(&[("click", &other)], false, 1000 * round + page + 1);
            }
        }
    }

    #[test]
    fn waiting_for_a_slow_page_is_not_a_loop_and_does_not_hide_one() {
        let mut g = RepeatGuard::default();
        let (wait, click) = (json!({"ms": 2000}), json!({"target": "e5"}));
        for _ in 0..10 {
            assert_eq!(g.after_turn(&[("wait", &wait)], true, 1), Repeat::Fine);
        }
        let mut last = Repeat::Fine;
        for _ in 0..5 {
            g.after_turn(&[("wait", &wait)], true, 1);
            last = g.after_turn(&[("click", &click)], false, 1);
        }
        assert!(matches!(last, Repeat::Stop(_)), "{last:?}");
    }
}
