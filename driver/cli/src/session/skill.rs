//! `sightline skill`: the SKILL.md a coding agent (Claude Code, Codex…)
//! loads to use the session commands, with the command list generated from
//! the registry so it never drifts from what the commands take.

use sightline::Registry;

use super::commands::{positional_names, tool_commands};

const SKILL: &str = include_str!("SKILL.md");

/// The whole SKILL.md.
pub fn skill_text(registry: &Registry) -> String {
    let mut out = SKILL.trim_end().to_string();
    out.push_str("\n\n## All commands\n\n");
    for tc in tool_commands(registry) {
        let tool = registry.get(tc.tool).expect("commands come from the registry");
        let mut usage = format!("sightline {}", tc.command);
        for p in positional_names(tool) {
            usage.push_str(&format!(" <{p}>"));
        }
        if tool.returns_image {
            usage.push_str(" [FILE]");
        }
        let about = first_sentence(tool.description);
        let preset = if tc.preset.as_object().is_some_and(|m| !m.is_empty()) {
            format!(" (as `{}` with {})", tool.command_name(), tc.preset)
        } else {
            String::new()
        };
        out.push_str(&format!("- `{usage}`: {about}{preset}\n"));
    }
    out.push_str("- `sightline close [--all]`: close the session (its browser and daemon), or every session.\n");
    out.push_str("- `sightline sessions`: list the open sessions.\n");
    out.push_str(
        "\nEvery command takes `--session NAME` and `--json`; `sightline <command> --help` lists its flags.\n",
    );
    out
}

fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(i) => &text[..=i],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_skill_has_frontmatter_an_example_and_every_command() {
        let r = sightline::Registry::standard();
        let s = super::skill_text(&r);
        assert!(s.starts_with("---\nname: sightline\ndescription: "), "{s}");
        for needle in [
            "sightline open",
            "sightline click e6",
            "[ref=e6]",
            "A modal is open",
            "sightline unblock",
            "## All commands",
            "`sightline dblclick <target>`",
            "`sightline screenshot [FILE]`",
        ] {
            assert!(s.contains(needle), "{needle} in the skill");
        }
    }
}
