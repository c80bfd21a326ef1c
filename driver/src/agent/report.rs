//! `--report report.html`: one self-contained HTML file (inline CSS, PNGs
//! as data URLs, no script) that shows every step of an agent run: the
//! screenshot with the acted-on element boxed and, for actions at
//! coordinates, the point marked; the tool call and its arguments, the
//! model's reasoning, the result or error and the tokens; the safety checks
//! a computer-use run met; the judge's verdict, prompt and screenshots.

use std::fmt::Write as _;

use super::result::{AgentAction, AgentResult};
use crate::html::esc;

const STYLE: &str = "
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header{background:#1d2330;color:#fff;padding:18px 28px}
header h1{margin:0 0 6px;font-size:20px}
header .verdict{display:inline-block;padding:2px 10px;border-radius:10px;font-weight:600;margin-right:8px}
.ok{background:#1f8f4e;color:#fff}.fail{background:#c0392b;color:#fff}.partial{background:#d68910;color:#fff}
header dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:10px 0 0}
header dt{opacity:.7}header dd{margin:0}header pre{color:#1d2330}
main{padding:18px 28px;max-width:1400px}
.step{background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;margin:0 0 18px;display:grid;
  grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:18px;padding:14px}
.step h2{font-size:16px;margin:0 0 8px}
.shot{position:relative;align-self:start;border:1px solid #ccd;line-height:0}
.shot img{width:100%;height:auto}
.box{position:absolute;border:3px solid #e74c3c;box-shadow:0 0 0 2px #fff8;border-radius:3px;box-sizing:border-box}
.point{position:absolute;width:22px;height:22px;margin:-11px 0 0 -11px;border:3px solid #e74c3c;border-radius:50%;
  box-shadow:0 0 0 2px #fff,0 0 6px #000a;box-sizing:border-box}
.point::after{content:\"\";position:absolute;left:50%;top:50%;width:4px;height:4px;margin:-2px 0 0 -2px;background:#e74c3c;border-radius:50%}
.safety{background:#fdf2e9;color:#1d2330;padding:8px 12px;border-radius:6px;margin:10px 0 0}
.noshot{color:#889;font-style:italic;padding:40px;text-align:center;border:1px dashed #ccd}
pre{background:#f0f2f5;padding:8px;border-radius:4px;white-space:pre-wrap;word-break:break-word;margin:4px 0 10px;
  font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
.label{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:#667}
.error pre{background:#fdecea;color:#8e1b10}
.tokens{color:#556;font-size:12px}
";

/// The whole report.
impl AgentResult {
    /// The self-contained HTML trace report.
    pub fn report_html(&self) -> String {
        render(self)
    }
}

pub fn render(result: &AgentResult) -> String {
    let mut html = String::new();
    let (class, verdict) = if result.interrupted {
        ("partial", "interrupted")
    } else if result.success {
        ("ok", "success")
    } else if result.completed {
        ("fail", "not achieved")
    } else {
        ("fail", "not completed")
    };
    let u = &result.usage;
    let _ = write!(
        html,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sightline agent run: {task}</title>\
<style>{STYLE}</style></head><body><header><h1>Agent run: {task}</h1>\
<span class=\"verdict {class}\" id=\"verdict\">{verdict}</span>{message}\
<dl><dt>Mode</dt><dd id=\"mode\">{mode}</dd><dt>Steps</dt><dd id=\"steps\">{steps}</dd><dt>Tool calls</dt><dd>{calls}</dd>\
<dt>Usage</dt><dd id=\"usage\">{input} input tokens ({cached} cached), {output} output tokens, {ms} ms inference, {llm} model calls</dd>",
        task = esc(&result.task),
        mode = result.mode,
        message = esc(&result.message),
        steps = result.steps,
        calls = result.actions.len(),
        input = u.input_tokens,
        cached = u.cached_input_tokens,
        output = u.output_tokens,
        ms = u.inference_ms,
        llm = u.calls,
    );
    if let Some(out) = &result.output {
        let _ = write!(html, "<dt>Output</dt><dd><pre>{}</pre></dd>", esc(&pretty(out)));
    }
    html.push_str("</dl>");
    if !result.safety_checks.is_empty() {
        html.push_str("<div class=\"safety\" id=\"safety-checks\"><strong>Safety checks</strong><ul>");
        for c in &result.safety_checks {
            let _ = write!(
                html,
                "<li>step {}: <code>{}</code> before {}: {} ({})</li>",
                c.step,
                esc(&c.code),
                esc(&c.action),
                esc(&c.message),
                if c.acknowledged {
                    "acknowledged under --safety-checks allow"
                } else {
                    "not acknowledged: the run stopped"
                }
            );
        }
        html.push_str("</ul></div>");
    }
    html.push_str("</header><main>");
    if let Some(v) = &result.verdict {
        html.push_str(&crate::eval::report::section(v));
    }
    // One model turn may make several calls: each is its step's call 1, 2…
    let mut call = 0;
    for (i, a) in result.actions.iter().enumerate() {
        let same_turn = i > 0 && result.actions[i - 1].trace.step == a.trace.step;
        call = if same_turn { call + 1 } else { 1 };
        step(&mut html, i + 1, a, call);
    }
    if result.actions.is_empty() {
        html.push_str("<p>No tool was called.</p>");
    }
    html.push_str("</main></body></html>\n");
    html
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Section `n` of the report: call `call` (from 1) of its model turn.
fn step(html: &mut String, n: usize, a: &AgentAction, call: usize) {
    let _ = write!(
        html,
        "<section class=\"step\" id=\"step-{n}\" data-tool=\"{tool}\"><div>",
        tool = esc(&a.tool)
    );
    match &a.trace.screenshot {
        Some(shot) => {
            let _ = write!(
                html,
                "<div class=\"shot\"><img alt=\"page after step {n}\" src=\"data:image/png;base64,{}\">",
                shot.png_base64
            );
            if let Some(r) = a.trace.rect.filter(|_| shot.width > 0.0 && shot.height > 0.0) {
                let pct = |v: f64, of: f64| (v / of * 100.0).clamp(-5.0, 105.0);
                let _ = write!(
                    html,
                    "<div class=\"box\" style=\"left:{:.2}%;top:{:.2}%;width:{:.2}%;height:{:.2}%\"></div>",
                    pct(r.x, shot.width),
                    pct(r.y, shot.height),
                    pct(r.width, shot.width),
                    pct(r.height, shot.height)
                );
            }
            if let Some((x, y)) = a.trace.point.filter(|_| shot.width > 0.0 && shot.height > 0.0) {
                let pct = |v: f64, of: f64| (v / of * 100.0).clamp(0.0, 100.0);
                let _ = write!(
                    html,
                    "<div class=\"point\" title=\"({x:.0}, {y:.0})\" style=\"left:{:.2}%;top:{:.2}%\"></div>",
                    pct(x, shot.width),
                    pct(y, shot.height)
                );
            }
            html.push_str("</div>");
        }
        None => html.push_str("<div class=\"noshot\">no screenshot</div>"),
    }
    let _ = write!(
        html,
        "</div><div><h2>Step {step} · {tool}</h2><div class=\"label\">Page</div><pre>{url}</pre>\
<div class=\"label\">Call</div><pre>{tool}({args})</pre>",
        step = if call > 1 {
            format!("{}, call {call}", a.trace.step)
        } else {
            a.trace.step.to_string()
        },
        tool = esc(&a.tool),
        url = esc(&a.url),
        args = esc(&pretty(&a.arguments)),
    );
    if let Some(r) = a.trace.reasoning.as_deref().filter(|r| !r.trim().is_empty()) {
        let _ = write!(
            html,
            "<div class=\"label\">Reasoning</div><pre class=\"reasoning\">{}</pre>",
            esc(r)
        );
    }
    let _ = write!(
        html,
        "<div class=\"{cls}\"><div class=\"label\">{label}</div><pre>{result}</pre></div>\
<div class=\"tokens\">{model}{inner} · {ts}</div></div></section>",
        cls = if a.trace.ok { "result" } else { "error" },
        label = if a.trace.ok { "Result" } else { "Error" },
        result = esc(&a.result),
        // The turn's usage once, with its first call: the figures add up.
        model = if call > 1 {
            "Model call: with the step's first call".to_string()
        } else {
            format!(
                "Model call of this step: {} input, {} output tokens, {} ms",
                a.trace.step_usage.input_tokens, a.trace.step_usage.output_tokens, a.trace.step_usage.inference_ms
            )
        },
        inner = if a.trace.tool_usage.calls > 0 {
            format!(
                "; inside the tool: {} call(s), {} input, {} output tokens",
                a.trace.tool_usage.calls, a.trace.tool_usage.input_tokens, a.trace.tool_usage.output_tokens
            )
        } else {
            String::new()
        },
        ts = esc(&a.timestamp),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{ActionTrace, Screenshot};
    use serde_json::json;

    #[test]
    fn every_step_is_rendered_and_escaped() {
        let mut result = AgentResult {
            task: "buy <shoes>".into(),
            success: true,
            completed: true,
            steps: 2,
            ..Default::default()
        };
        for (i, tool) in ["act", "fill", "done"].iter().enumerate() {
            result.actions.push(AgentAction {
                tool: tool.to_string(),
                arguments: json!({"action": "click <b>"}),
                result: "ok & done".into(),
                url: "http://a.test/".into(),
                timestamp: "2026-01-01T00:00:00Z".into(),
                trace: ActionTrace {
                    // The first two calls are one model turn's.
                    step: (i as u32).max(1),
                    step_usage: crate::llm::Usage {
                        input_tokens: 1234,
                        ..Default::default()
                    },
                    ok: true,
                    screenshot: Some(Screenshot {
                        png_base64: "AAAA".into(),
                        width: 1000.0,
                        height: 500.0,
                    }),
                    rect: Some(sightline_engine::protocol::Rect::new(100.0, 50.0, 200.0, 100.0)),
                    ..Default::default()
                },
            });
        }
        result.actions[0].trace.point = Some((250.0, 125.0));
        result.safety_checks.push(crate::agent::SafetyCheckRecord {
            step: 1,
            code: "sensitive_domain".into(),
            action: "click".into(),
            acknowledged: true,
            ..Default::default()
        });
        let html = render(&result);
        assert!(
            html.contains("class=\"point\" title=\"(250, 125)\" style=\"left:25.00%;top:25.00%\""),
            "{html}"
        );
        assert!(html.contains("id=\"safety-checks\"") && html.contains("sensitive_domain"));
        assert!(html.contains("id=\"step-1\"") && html.contains("id=\"step-3\""));
        assert!(html.contains("<h2>Step 1 · act</h2>") && html.contains("<h2>Step 1, call 2 · fill</h2>"));
        assert!(html.contains("<h2>Step 2 · done</h2>"), "{html}");
        assert_eq!(html.matches("1234 input").count(), 2, "a turn's usage once: {html}");
        assert!(html.contains("buy &lt;shoes&gt;"));
        assert!(!html.contains("<b>"));
        assert!(html.contains("left:10.00%;top:10.00%;width:20.00%;height:20.00%"));
    }
}
