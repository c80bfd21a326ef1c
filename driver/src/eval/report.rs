//! A verdict in HTML: the evaluation, the judge's reasoning, and how it was
//! asked (model, system prompt, user message, the screenshots it saw), so a
//! reader can check the judge as the judge checked the run. A section for
//! the agent's trace report, and a whole page for tasks that have no report
//! of their own (a batch's steps and extract tasks).

use std::fmt::Write as _;

use super::verdict::{Evaluation, Verdict};
use crate::html::esc;

/// Inline styles only: the section must look the same inside any page.
const BADGE: &str = "display:inline-block;padding:2px 10px;border-radius:10px;font-weight:600;color:#fff";
const PRE: &str = "background:#f0f2f5;padding:8px;border-radius:4px;white-space:pre-wrap;word-break:break-word;\
margin:4px 0 10px;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace";

fn colour(e: Evaluation) -> &'static str {
    match e {
        Evaluation::Yes => "#1f8f4e",
        Evaluation::No => "#c0392b",
        Evaluation::Invalid => "#d68910",
    }
}

/// `<section id="verdict-section">…</section>`.
pub fn section(v: &Verdict) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<section id=\"verdict-section\" style=\"background:#fff;color:#1d2330;border-radius:8px;\
box-shadow:0 1px 3px #0002;margin:0 0 18px;padding:14px\"><h2 style=\"font-size:16px;margin:0 0 8px\">Judged: \
<span id=\"evaluation\" style=\"{BADGE};background:{}\">{}</span></h2><p id=\"judge-reasoning\">{}</p>",
        colour(v.evaluation),
        v.evaluation,
        esc(&v.reasoning)
    );
    if let Some(j) = &v.judged {
        let u = &j.usage;
        let _ = write!(
            html,
            "<p style=\"color:#556;font-size:12px\">Judge: <span id=\"judge-model\">{}</span> · {} input, {} output \
tokens, {} model call(s) · {} ms</p><details open><summary>The judge's prompt</summary>\
<div style=\"font-size:11px;text-transform:uppercase;color:#667\">System</div><pre id=\"judge-system\" style=\"{PRE}\">{}</pre>\
<div style=\"font-size:11px;text-transform:uppercase;color:#667\">Message</div><pre id=\"judge-prompt\" style=\"{PRE}\">{}</pre>",
            esc(&j.model),
            u.input_tokens,
            u.output_tokens,
            u.calls,
            j.duration_ms,
            esc(&j.system),
            esc(&j.prompt)
        );
        html.push_str("<div style=\"display:flex;gap:8px;flex-wrap:wrap\">");
        for (i, png) in j.screenshots.iter().enumerate() {
            let _ = write!(
                html,
                "<img class=\"judged-screenshot\" alt=\"screenshot {} the judge saw\" style=\"max-width:32%;border:1px solid #ccd\" \
src=\"data:image/png;base64,{png}\">",
                i + 1
            );
        }
        html.push_str("</div></details>");
    }
    html.push_str("</section>");
    html
}

/// A whole page: `title`, then the verdict [`section`].
pub fn page(title: &str, v: &Verdict) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title></head>\
<body style=\"font:14px/1.45 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330\">\
<header style=\"background:#1d2330;color:#fff;padding:18px 28px\"><h1 style=\"margin:0;font-size:20px\">{t}</h1></header>\
<main style=\"padding:18px 28px;max-width:1400px\">{}</main></body></html>\n",
        section(v),
        t = esc(title)
    )
}

#[cfg(test)]
mod tests {
    use super::super::verdict::Judged;
    use super::*;

    #[test]
    fn the_section_shows_the_verdict_and_the_prompt_escaped() {
        let mut v = Verdict::invalid("<junk>");
        v.judged = Some(Box::new(Judged {
            model: "openai/m".into(),
            system: "judge well".into(),
            prompt: "Question: <b>done?</b>".into(),
            screenshots: vec!["AAAA".into()],
            ..Judged::default()
        }));
        let html = page("Task <a>", &v);
        assert!(
            html.contains(">INVALID</span>") && html.contains("&lt;junk&gt;"),
            "{html}"
        );
        assert!(html.contains("Question: &lt;b&gt;done?&lt;/b&gt;") && html.contains("judge well"));
        assert!(html.contains("src=\"data:image/png;base64,AAAA\"") && html.contains("<title>Task &lt;a&gt;</title>"));
    }
}
