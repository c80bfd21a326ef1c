//! Sightline's end-to-end tests: one crate, a module per area. Everything
//! runs for real: the `sightline` binary and the library against Debian's
//! Chromium, pages served on 127.0.0.1, the engine injected the real way;
//! only the model is a scripted server (sightline-testkit) speaking the
//! OpenAI (Chat Completions, Responses), Anthropic and Gemini wire formats.

mod support;

mod accname_conformance;
mod actions;
mod agent;
mod architecture;
mod ax_oracle;
mod batch;
mod bench;
mod blockers;
mod cua;
mod errors;
mod eval;
mod extension;
mod fidelity;
mod file_access;
mod lifecycle;
mod llm;
mod mcp;
mod modals;
mod navigation;
mod npm_module;
mod packaging;
mod readiness;
mod refs;
mod repeats;
mod run;
mod sessions;
mod snapshot;
mod viewport;
mod widget_conformance;
