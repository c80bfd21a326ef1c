//! Computer-use and hybrid agents end to end: real Chromium on a fixture
//! page at fixed positions (`tests/fixtures/cua/newsletter.html`, a promo
//! dialog over a newsletter form), the scripted model speaking each
//! provider's computer-use wire format (it validates every request the way
//! the real API would, chaining and safety acknowledgements included), and
//! every effect checked in the page's own state. Screenshots the "model"
//! received are decoded and measured.
//!
//! One module per provider, then hybrid mode and the MCP screenshot:
//! `cua/anthropic.rs` (a scaled display, removeBlocker, the report, replay
//! without a model), `cua/openai.rs` (chaining, safety checks denied and
//! allowed, a JavaScript dialog answered), `cua/gemini.rs` (normalised coordinates, the CLI),
//! `cua/hybrid.rs` (the annotated screenshot, coordinate tools, MCP).

mod anthropic;
mod gemini;
mod hybrid;
mod openai;

use std::time::Duration;

use serde_json::Value;
use sightline::{Browser, LaunchOptions, Llm, LlmOptions, Page, ViewportSize};
use sightline_testkit::{FixtureServer, Recorded};

/// The fixture's elements, by their centres in CSS pixels.
pub const CLOSE: (f64, f64) = (860.0, 190.0);
pub const EMAIL: (f64, f64) = (300.0, 220.0);
pub const SUBSCRIBE: (f64, f64) = (600.0, 220.0);
pub const ADDRESS: &str = "ada@example.org";

pub struct Ctx {
    pub browser: Browser,
    pub files: FixtureServer,
}

impl Ctx {
    pub async fn new(width: u32, height: u32) -> Ctx {
        Ctx {
            browser: Browser::launch(LaunchOptions {
                viewport: ViewportSize { width, height },
                ..LaunchOptions::default()
            })
            .await
            .expect("launch"),
            files: FixtureServer::start(),
        }
    }

    pub fn url(&self) -> String {
        self.files.url("cua/newsletter.html")
    }
}

/// A client of `model` (`anthropic/…`) at `base`.
pub fn llm(model: &str, base: String) -> Llm {
    Llm::new(LlmOptions {
        model: Some(model.into()),
        base_url: Some(base),
        api_key: Some("test-key".into()),
        retry_base_delay: Duration::from_millis(50),
        ..LlmOptions::default()
    })
    .expect("llm")
}

pub async fn js(page: &Page, expr: &str) -> Value {
    page.evaluate(expr)
        .await
        .unwrap_or_else(|e| panic!("evaluate {expr}: {e}"))
}

/// Every screenshot of every request is `w`×`h`; returns how many there were.
pub fn assert_screenshots(requests: &[Recorded], w: u32, h: u32) -> usize {
    let mut n = 0;
    for r in requests {
        for (i, png) in r.screenshots().iter().enumerate() {
            assert_eq!(
                (png.width, png.height),
                (w, h),
                "request #{} screenshot {i} is {}x{}, not the declared {w}x{h}",
                r.index,
                png.width,
                png.height
            );
            n += 1;
        }
    }
    n
}
