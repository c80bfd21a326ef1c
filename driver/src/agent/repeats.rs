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
use std::hash::{Hash, Hasher};

use serde_json::Value;

/// The same turn, on the same page, this many times in a row: the model is told.
const NUDGE_AT: u32 = 3;
/// ... and this many: the run ends. (Two more turns after the note: a model
/// that read it and still repeats itself is not going to stop.)
const STOP_AT: u32 = 5;

/// What to do after a turn.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Repeat {
    /// Nothing: the turn or the page was new.
    Fine,
    /// Tell the model (added to what it reads next).
    Note(String),
    /// End the run as not completed, with this reason.
    Stop(String),
}

/// One run's memory of its last turn.
#[derive(Debug, Default)]
pub(super) struct RepeatGuard {
    last: Option<(u64, u64)>,
    times: u32,
}

impl RepeatGuard {
    /// After a turn: its calls (name and arguments, in order), whether the
    /// turn only let time pass (`wait`: polling a slow page is not a loop),
    /// and a fingerprint of what the model saw of the page afterwards.
    pub fn after_turn(&mut self, calls: &[(&str, &Value)], passes_time: bool, page: u64) -> Repeat {
        if passes_time || calls.is_empty() {
            self.last = None;
            self.times = 0;
            return Repeat::Fine;
        }
        let said = calls_said(calls);
        let turn = fingerprint(&said);
        if self.last == Some((turn, page)) {
            self.times += 1;
        } else {
            self.last = Some((turn, page));
            self.times = 1;
        }
        match self.times {
            n if n >= STOP_AT => Repeat::Stop(format!(
                "stopped: the model asked for the same thing {n} times in a row ({said}) and the page stayed as it \
was each time"
            )),
            NUDGE_AT => Repeat::Note(format!(
                "Note: this is the {NUDGE_AT}rd time in a row you asked for {said}, and the page is the same as after \
the last time. Doing it again will not change anything. Try another way (another element, scroll, removeBlocker, \
another page), or end the task as not achievable and say why."
            )),
            _ => Repeat::Fine,
        }
    }
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
        assert!(why.contains("5 times"), "{why}");
    }

    #[test]
    fn a_page_that_changes_or_another_call_starts_the_count_again() {
        let mut g = RepeatGuard::default();
        let (a, b) = (json!({"target": "e5"}), json!({"target": "e6"}));
        for page in 0..10 {
            // A "next page" button: the same call, a new page each time.
            assert_eq!(g.after_turn(&[("click", &a)], false, page), Repeat::Fine);
        }
        for i in 0..10 {
            let args = if i % 2 == 0 { &a } else { &b };
            assert_eq!(g.after_turn(&[("click", args)], false, 1), Repeat::Fine);
        }
    }

    #[test]
    fn waiting_for_a_slow_page_is_not_a_loop() {
        let mut g = RepeatGuard::default();
        let args = json!({"ms": 2000});
        for _ in 0..10 {
            assert_eq!(g.after_turn(&[("wait", &args)], true, 1), Repeat::Fine);
        }
    }
}
