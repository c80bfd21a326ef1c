//! A page polling its own API (a job's status, a notification count):
//! the same request sent again as soon as the last one ended, with no
//! input behind it. Each poll is young for most of its life, so counted as
//! content it would hold every step to its budget (a click on a page whose
//! 900 ms status poll never rests took 10 s). Learned per document: the
//! third such request in a row, and every later one, is background.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How soon after the last one ended a request counts as sent again.
const AGAIN_WITHIN: Duration = Duration::from_millis(300);
/// Requests this soon after input are the input's (a "next page" clicked
/// quickly, again and again), not the page's own polling.
const INPUT_SHADOW: Duration = Duration::from_millis(300);
/// Back-to-back repeats that make a poll.
const REPEATS: u32 = 2;
/// Endpoints followed at once (a page's requests are few; a page making up
/// paths endlessly is followed afresh).
const MAX_KEYS: usize = 64;

/// Query parameters that only defeat caches (`?_=1700000000`, `&r=0.42`):
/// left out of what names an endpoint.
const CACHE_BUSTERS: &[&str] = &[
    "_",
    "r",
    "t",
    "ts",
    "cb",
    "rand",
    "random",
    "nocache",
    "cachebust",
    "timestamp",
];

#[derive(Default)]
struct Endpoint {
    ended: Option<Instant>,
    /// Requests to it not ended yet: the next poll may start before the
    /// last one's end is heard of.
    in_flight: u32,
    repeats: u32,
    polled: bool,
}

#[derive(Default)]
pub(crate) struct Polls {
    endpoints: HashMap<String, Endpoint>,
}

/// What names an endpoint: the URL without its fragment and cache-busting
/// parameters (a page's `?page=2` stays: another endpoint). Only GETs
/// poll: a POST endpoint (GraphQL's) carries every query of the page.
pub(crate) fn endpoint(method: &str, url: &str) -> Option<String> {
    if !method.eq_ignore_ascii_case("GET") {
        return None;
    }
    let url = url.split('#').next().unwrap_or(url);
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| !CACHE_BUSTERS.contains(&p.split('=').next().unwrap_or("").to_ascii_lowercase().as_str()))
        .collect();
    Some(format!("{path}?{}", kept.join("&")))
}

impl Polls {
    /// A request to `endpoint` starts at `now` (the last input at
    /// `last_input`): whether it is the page's polling.
    pub fn started(&mut self, endpoint: &str, now: Instant, last_input: Option<Instant>) -> bool {
        if self.endpoints.len() >= MAX_KEYS && !self.endpoints.contains_key(endpoint) {
            // The learned polls are kept; the rest is followed afresh.
            self.endpoints.retain(|_, e| e.polled);
            if self.endpoints.len() >= MAX_KEYS {
                self.endpoints.clear();
            }
        }
        let e = self.endpoints.entry(endpoint.to_string()).or_default();
        // Only after one has ended: identical requests sent together at
        // load (components that each ask for `/api/me`) are no poll.
        let again = e
            .ended
            .is_some_and(|ended| e.in_flight > 0 || now.saturating_duration_since(ended) <= AGAIN_WITHIN);
        e.in_flight += 1;
        let unprompted = last_input.is_none_or(|input| now.saturating_duration_since(input) >= INPUT_SHADOW);
        match (again, unprompted) {
            (true, true) => e.repeats += 1,
            (false, _) => e.repeats = 0,
            (true, false) => {}
        }
        e.polled |= e.repeats >= REPEATS;
        e.polled
    }

    /// A request to `endpoint` ended at `now`.
    pub fn ended(&mut self, endpoint: &str, now: Instant) {
        if let Some(e) = self.endpoints.get_mut(endpoint) {
            e.ended = Some(now);
            e.in_flight = e.in_flight.saturating_sub(1);
        }
    }

    /// A new document: what the last one polled says nothing of it.
    pub fn forget(&mut self) {
        self.endpoints.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_third_request_sent_again_at_once_is_a_poll() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut polls = Polls::default();
        let status = endpoint("get", "http://a.test/api/status?job=1&r=0.123#x").unwrap();
        assert_eq!(
            Some(status.clone()),
            endpoint("GET", "http://a.test/api/status?r=0.9&job=1")
        );
        assert_ne!(
            endpoint("GET", "http://a.test/api/items?page=1"),
            endpoint("GET", "http://a.test/api/items?page=2")
        );
        assert_eq!(endpoint("POST", "http://a.test/graphql"), None);
        assert!(!polls.started(&status, ms(0), None));
        polls.ended(&status, ms(900));
        assert!(!polls.started(&status, ms(1000), None));
        polls.ended(&status, ms(1900));
        assert!(polls.started(&status, ms(1900), None), "the third back to back");
        polls.ended(&status, ms(2800));
        // Once learned, also right after input.
        assert!(polls.started(&status, ms(5000), Some(ms(4990))));

        // The same request clicked for again and again is the clicks'.
        let next = endpoint("GET", "http://a.test/api/items").unwrap();
        for n in 0..5u64 {
            let at = ms(10_000 + n * 200);
            assert!(
                !polls.started(&next, at, Some(at - Duration::from_millis(20))),
                "click {n}"
            );
            polls.ended(&next, at + Duration::from_millis(150));
        }
        // A pause between requests starts the count afresh.
        let feed = endpoint("GET", "http://a.test/api/feed").unwrap();
        assert!(!polls.started(&feed, ms(0), None));
        polls.ended(&feed, ms(100));
        assert!(!polls.started(&feed, ms(200), None));
        polls.ended(&feed, ms(300));
        assert!(!polls.started(&feed, ms(2000), None), "rested 1.7 s");
        // The next one may start before the last one's end is heard of.
        let jobs = endpoint("GET", "http://a.test/api/jobs").unwrap();
        assert!(!polls.started(&jobs, ms(0), None));
        assert!(!polls.started(&jobs, ms(900), None));
        polls.ended(&jobs, ms(901));
        assert!(!polls.started(&jobs, ms(1800), None));
        polls.ended(&jobs, ms(1801));
        assert!(polls.started(&jobs, ms(2700), None));
        // Three asked for at once at load are no poll.
        let me = endpoint("GET", "http://a.test/api/me").unwrap();
        for _ in 0..3 {
            assert!(!polls.started(&me, ms(0), None));
        }
        polls.forget();
        assert!(!polls.started(&status, ms(6000), None), "a new document");
    }
}
