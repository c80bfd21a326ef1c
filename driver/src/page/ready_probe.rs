//! One look at the page (`__sightline.readiness`, js-glue/engine-api.js)
//! as [`Probe`], and what of it holds a step in the late window: the last
//! part of the readiness rule (`readiness.rs`, steps 4 and 5), a function
//! of the look alone.

use std::time::{Duration, Instant};

/// How long after the page is otherwise ready a step still waits for the
/// timers it set (due within this window) and for a loading consent manager.
pub const LATE_WINDOW: Duration = Duration::from_millis(1000);
/// After a timer the page set during the step runs, the request it starts
/// gets this long to be reported before the page is judged ready.
pub const TIMER_GRACE: Duration = Duration::from_millis(30);
/// A container that gained children in [`GROWTH_RUNS`] tasks in a row,
/// each within this of the last (a list rendered in chunks), is still
/// growing until this long after its last chunk (js-glue/engine-api.js and
/// the main-world hook keep the same figure).
pub const GROWTH_GAP: Duration = Duration::from_millis(300);
/// Tasks in a row in which a container grew that make it a list being
/// filled in (fewer do when the work that grew it set itself again).
const GROWTH_RUNS: u32 = 3;
/// Longest pause between two looks at the page.
pub(super) const POLL: Duration = Duration::from_millis(50);

/// One look at the page (`__sightline.readiness`, js-glue/engine-api.js).
#[derive(Debug, Default)]
pub(super) struct Probe {
    pub parsing: bool,
    /// A form submission queued a navigation that has not been requested yet.
    pub submitting: bool,
    /// How long ago the content in or near the viewport last changed.
    pub changed_ago: Option<Duration>,
    /// Timers set during the step and due within a second: the nearest.
    pub next_timer: Option<Duration>,
    /// An IAB TCF consent manager's stub is there, its dialog not loaded yet.
    pub consent_loading: bool,
    /// A loading indicator in the viewport (only looked for when asked).
    pub busy: bool,
    /// Animation frames the page asked for during the step, not drawn yet.
    pub frames_due: u32,
    /// How long ago a timer of the step (one that counts) ran.
    pub timer_ran_ago: Option<Duration>,
    /// When the animations the step's input started in view end (with
    /// their end events), if within a second.
    pub animations_end: Option<Duration>,
    /// When a `<meta http-equiv="refresh">` moves the page on, if within a second.
    pub refresh_in: Option<Duration>,
    /// How long ago a container near the viewport last gained elements
    /// (and lost none) during the step, and in how many tasks in a row,
    /// each within [`GROWTH_GAP`] of the last.
    pub grew_ago: Option<Duration>,
    pub growth_runs: u32,
    /// How long ago the content in or near the viewport last changed at
    /// all (regions at a beat included).
    pub stirred_ago: Option<Duration>,
    /// A callback of the step that set itself again from its own run (the
    /// next chunk of work done in pieces), due within [`GROWTH_GAP`].
    pub rearmed_due: Option<Duration>,
    /// Status messages of the step already gone (see [`ReadyReport`]).
    pub said_and_gone: Vec<String>,
}

/// What a look lets the page do first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Echo {
    /// Nothing: the look is taken at once.
    None,
    /// One turn of the event loop: the tasks the page queued before it run.
    Turn,
    /// The next frame, then a turn.
    Frame,
}

impl Probe {
    pub(super) fn read(v: &serde_json::Value) -> Probe {
        // Milliseconds, -1 (or nothing) for none.
        let ms = |m: Option<f64>| m.filter(|m| *m >= 0.0).map(|m| Duration::from_millis(m as u64));
        let timers = v[3].as_str().unwrap_or("");
        let mut parts = timers.split(',');
        let count: u32 = parts.next().and_then(|c| c.parse().ok()).unwrap_or(0);
        let next = ms(parts.next().and_then(|n| n.parse().ok()));
        let consent = parts.next().unwrap_or("");
        let frames_due = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        let timer_ran_ago = ms(parts.next().and_then(|n| n.parse().ok()));
        let animations_end = ms(parts.next().and_then(|n| n.parse().ok()));
        let refresh_in = ms(parts.next().and_then(|n| n.parse().ok()));
        let rearmed_due = ms(parts.next().and_then(|n| n.parse().ok()));
        Probe {
            parsing: v[0].as_str() == Some("loading"),
            submitting: v[1].as_bool().unwrap_or(false),
            changed_ago: ms(v[2].as_f64()),
            next_timer: next.filter(|_| count > 0),
            consent_loading: consent == "loading",
            busy: v[4].as_bool().unwrap_or(false),
            frames_due,
            timer_ran_ago,
            animations_end,
            refresh_in,
            grew_ago: ms(v[6].as_f64()),
            growth_runs: v[7].as_u64().unwrap_or(0) as u32,
            stirred_ago: ms(v[8].as_f64()),
            rearmed_due,
            said_and_gone: v[5]
                .as_array()
                .map(|a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
        }
    }
}

/// What holds a step in the late window, and when to look again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LateHold {
    /// What the step waits for, as the report says it.
    pub what: &'static str,
    /// When to look again (at most [`POLL`] from now).
    pub wake: Instant,
}

/// What of `probe` holds the step at `now`, the late window ending at
/// `late_end`; `consent`: a consent manager is still loading (and not for
/// too long). `None`: the page is ready.
pub(super) fn late_hold(probe: &Probe, now: Instant, late_end: Instant, consent: bool) -> Option<LateHold> {
    // A timer of the step that just ran: what it started (a request,
    // reported by the browser a moment later) gets its moment to show.
    if let Some(ago) = probe.timer_ran_ago.filter(|a| *a < TIMER_GRACE && now < late_end) {
        return Some(LateHold {
            what: "a timer the page set",
            wake: now + (TIMER_GRACE - ago),
        });
    }
    let timer_due = probe.next_timer.map(|d| now + d).filter(|t| *t <= late_end);
    // The step's animations in view: what renders when they end (a
    // dialog's body after its entrance) is part of the reply.
    let animations_due = probe.animations_end.map(|d| now + d).filter(|t| *t <= late_end);
    // A list being filled in chunk by chunk: its next chunk. It grew in
    // three tasks in a row, or grew once and the work that grew it has set
    // itself again (a single append is no list being filled: a step's
    // reply adds elements all the time).
    let filling = probe.growth_runs >= GROWTH_RUNS || probe.rearmed_due.is_some();
    let growth_due = probe
        .grew_ago
        .filter(|a| *a < GROWTH_GAP && filling)
        .map(|a| now + (GROWTH_GAP - a))
        .filter(|t| *t <= late_end);
    let late_due = [
        timer_due.map(|t| (t, "a timer the page set")),
        animations_due.map(|t| (t, "an animation the step started")),
        growth_due.map(|t| (t, "a list the page is still filling in")),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|(t, _)| *t);
    if now < late_end && (late_due.is_some() || consent) {
        // Just after it is due (a timer's work runs in its task).
        let wake = late_due.map_or(now + POLL, |(t, _)| t + Duration::from_millis(5));
        return Some(LateHold {
            what: match late_due {
                Some((_, what)) if !consent => what,
                _ => "the consent manager",
            },
            wake: late_end.min(wake).min(now + POLL),
        });
    }
    // An interstitial's `<meta http-equiv="refresh">` due within a second:
    // the page the user waits for is the next one (its navigation then
    // holds the step as any other does). (Within a second of the late
    // window: a refresh that waits for a load event that does not come
    // holds no step for long.)
    let due = probe
        .refresh_in
        .map(|d| now + d)
        .filter(|due| *due <= late_end + LATE_WINDOW)?;
    Some(LateHold {
        what: "the page's refresh to its next address",
        wake: (due + Duration::from_millis(5)).min(now + POLL),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_probe_reads_the_engine_answer() {
        let p = Probe::read(&json!(["interactive", true, 40, "2,300,loading", true]));
        assert!(!p.parsing && p.submitting && p.busy && p.consent_loading);
        assert_eq!(p.changed_ago, Some(Duration::from_millis(40)));
        assert_eq!(p.next_timer, Some(Duration::from_millis(300)));
        let p = Probe::read(&json!(["complete", false, -1, "0,-1,", false]));
        assert_eq!((p.changed_ago, p.next_timer, p.consent_loading), (None, None, false));
        assert_eq!(p.frames_due, 0);
        let p = Probe::read(&json!(["complete", false, -1, "0,-1,,2", false]));
        assert_eq!((p.frames_due, p.timer_ran_ago), (2, None));
        let p = Probe::read(&json!(["complete", false, -1, "0,-1,,0,12", false]));
        assert_eq!(p.timer_ran_ago, Some(Duration::from_millis(12)));
        assert_eq!((p.animations_end, p.refresh_in), (None, None));
        let p = Probe::read(&json!(["complete", false, -1, "0,-1,,0,-1,380,-1", false]));
        assert_eq!(
            (p.animations_end, p.refresh_in),
            (Some(Duration::from_millis(380)), None)
        );
        let p = Probe::read(&json!(["complete", false, -1, "0,-1,,0,-1,-1,950", false]));
        assert_eq!(
            (p.animations_end, p.refresh_in),
            (None, Some(Duration::from_millis(950)))
        );
        let p = Probe::read(&json!(["complete", false, -1, "0,-1,,0,-1", false]));
        assert_eq!(p.timer_ran_ago, None);
        assert_eq!(p.grew_ago, None);
        let p = Probe::read(&json!([
            "complete",
            false,
            -1,
            "0,-1,,0,-1,-1,-1,90",
            false,
            [],
            120,
            1
        ]));
        assert_eq!(p.grew_ago, Some(Duration::from_millis(120)));
        assert_eq!((p.growth_runs, p.rearmed_due), (1, Some(Duration::from_millis(90))));
        // A page without the main-world hook answers no timers at all.
        let p = Probe::read(&json!(["loading", false, -1, "", false]));
        assert!(p.parsing && p.next_timer.is_none());
    }

    #[test]
    fn the_late_window_holds_for_what_is_due_in_it() {
        let now = Instant::now();
        let late_end = now + LATE_WINDOW;
        let ms = Duration::from_millis;
        let ready = Probe::default();
        assert_eq!(late_hold(&ready, now, late_end, false), None);
        // A timer due in 20 ms: woken just after it.
        let timer = Probe {
            next_timer: Some(ms(20)),
            ..Probe::default()
        };
        let hold = late_hold(&timer, now, late_end, false).unwrap();
        assert_eq!((hold.what, hold.wake), ("a timer the page set", now + ms(25)));
        // One due after the window, or a window over: nothing.
        let far = Probe {
            next_timer: Some(ms(1500)),
            ..Probe::default()
        };
        assert_eq!(late_hold(&far, now, late_end, false), None);
        assert_eq!(late_hold(&timer, late_end, late_end, false), None);
        // A timer that just ran: its grace.
        let ran = Probe {
            timer_ran_ago: Some(ms(10)),
            ..Probe::default()
        };
        assert_eq!(late_hold(&ran, now, late_end, false).unwrap().wake, now + ms(20));
        // A list grown once holds nothing; three runs, or a rearmed callback, do.
        let grew_once = Probe {
            grew_ago: Some(ms(100)),
            growth_runs: 1,
            ..Probe::default()
        };
        assert_eq!(late_hold(&grew_once, now, late_end, false), None);
        let filling = Probe {
            growth_runs: 3,
            ..grew_once
        };
        let hold = late_hold(&filling, now, late_end, false).unwrap();
        assert_eq!(hold.what, "a list the page is still filling in");
        assert_eq!(hold.wake, now + POLL, "looked at again within a poll");
        // The consent manager is named over what else is due.
        let hold = late_hold(&timer, now, late_end, true).unwrap();
        assert_eq!(hold.what, "the consent manager");
        // A refresh due within a second of the window's end, even after it.
        let refresh = Probe {
            refresh_in: Some(ms(300)),
            ..Probe::default()
        };
        let hold = late_hold(&refresh, late_end, late_end, false).unwrap();
        assert_eq!(hold.what, "the page's refresh to its next address");
        let later = Probe {
            refresh_in: Some(ms(1200)),
            ..Probe::default()
        };
        assert_eq!(late_hold(&later, late_end, late_end, false), None);
    }
}
