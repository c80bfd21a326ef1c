//! A scripted judge that answers the evaluator from what it is actually
//! sent. The eval fixtures (`tests/fixtures/eval/`) show how a task ended
//! as a big banner, green for success and red for failure; this judge
//! decodes the last screenshot of the request and counts its pixels. A
//! client that sends no screenshot, or not the final page's, gets the wrong
//! verdict and fails its test.
//!
//! A question that names a colour ("Is there a green banner?") is answered
//! by whether that banner shows; any other question (whether a task was
//! completed) is YES only when the green banner shows.

use serde_json::{json, Value};

use super::{Png, Recorded, Reply};

/// A banner covers at least this share of a screenshot.
const BANNER_SHARE: f64 = 0.05;

/// What a screenshot shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Banner {
    /// A large green area: the fixture's success banner (#1a7f37).
    Green,
    /// A large red area: the fixture's failure banner (#cf222e).
    Red,
    None,
}

impl Banner {
    /// The banner in `png`, by counting clearly green and clearly red pixels.
    pub fn of(png: &Png) -> Banner {
        let (mut green, mut red) = (0usize, 0usize);
        for p in png.rgba.chunks_exact(4) {
            let (r, g, b) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
            if g > 90 && g - r > 60 && g - b > 40 {
                green += 1;
            } else if r > 150 && r - g > 100 && r - b > 100 {
                red += 1;
            }
        }
        let least = (png.rgba.len() / 4) as f64 * BANNER_SHARE;
        match (green as f64 >= least, red as f64 >= least) {
            (true, false) => Banner::Green,
            (false, true) => Banner::Red,
            // Both or neither: nothing a judge could call a clear outcome.
            _ => Banner::None,
        }
    }

    fn described(self) -> &'static str {
        match self {
            Banner::Green => "a green success banner",
            Banner::Red => "a red failure banner",
            Banner::None => "no banner",
        }
    }
}

/// Whether `rec` asks for the evaluator's verdict (a response schema with
/// `evaluation`) or several (`answers`).
pub fn is_judge_request(rec: &Recorded) -> bool {
    rec.response_schema()
        .is_some_and(|s| !s["properties"]["evaluation"].is_null() || !s["properties"]["answers"].is_null())
}

/// The judge's answer to `rec` (see the module docs), shaped as the request
/// asks for structured output.
pub fn verdict(rec: &Recorded) -> Reply {
    let shots = rec.screenshots();
    let banner = shots.last().map(Banner::of);
    let text = rec.last_user_text();
    let batch = rec
        .response_schema()
        .is_some_and(|s| !s["properties"]["answers"].is_null());
    if batch {
        let answers: Vec<Value> = text
            .lines()
            .filter_map(|l| l.strip_prefix("Question ").and_then(|r| r.split_once(": ")))
            .map(|(_, q)| answer(q, banner))
            .collect();
        return Reply::json(json!({"answers": answers}));
    }
    let question = text
        .lines()
        .find_map(|l| l.strip_prefix("Question: "))
        .unwrap_or_default();
    Reply::json(answer(question, banner))
}

/// [`verdict`] as a script entry.
pub fn judge() -> Reply {
    Reply::dynamic(verdict)
}

fn answer(question: &str, banner: Option<Banner>) -> Value {
    let Some(banner) = banner else {
        return json!({"evaluation": "NO", "reasoning": "I was sent no screenshot, so nothing shows it."});
    };
    let q = question.to_ascii_lowercase();
    let yes = if q.contains("green") {
        banner == Banner::Green
    } else if q.contains("red") {
        banner == Banner::Red
    } else {
        banner == Banner::Green
    };
    json!({
        "evaluation": if yes { "YES" } else { "NO" },
        "reasoning": format!("The final screenshot shows {}.", banner.described()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32, banner_rows: u32, colour: [u8; 3]) -> Png {
        let mut rgba = Vec::new();
        for y in 0..h {
            for _ in 0..w {
                let c = if y < banner_rows { colour } else { [250, 250, 250] };
                rgba.extend([c[0], c[1], c[2], 255]);
            }
        }
        Png {
            width: w,
            height: h,
            rgba,
        }
    }

    #[test]
    fn banners_are_told_by_their_pixels() {
        assert_eq!(Banner::of(&png(100, 100, 30, [0x1a, 0x7f, 0x37])), Banner::Green);
        assert_eq!(Banner::of(&png(100, 100, 30, [0xcf, 0x22, 0x2e])), Banner::Red);
        assert_eq!(
            Banner::of(&png(100, 100, 2, [0x1a, 0x7f, 0x37])),
            Banner::None,
            "a sliver is no banner"
        );
        assert_eq!(Banner::of(&png(100, 100, 30, [40, 40, 40])), Banner::None);
        assert_eq!(
            answer("Was this task completed? Task: buy", Some(Banner::Red))["evaluation"],
            "NO"
        );
        assert_eq!(answer("Is the banner red?", Some(Banner::Red))["evaluation"], "YES");
        assert_eq!(
            answer("Was it done?", None)["reasoning"],
            "I was sent no screenshot, so nothing shows it."
        );
    }
}
