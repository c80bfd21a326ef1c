//! The agent's conversation, trimmed as it grows: only the latest full tree
//! (page message or ariaTree result) and the latest screenshots
//! ([`AgentOptions::keep_screenshots`](super::AgentOptions::keep_screenshots))
//! stay; older ones become short placeholders. Without this a 20-step run
//! would resend every tree and image it ever saw.

use crate::llm::{Message, Part};

/// A part that a newer one of its kind makes obsolete.
#[derive(Debug, Clone)]
struct Trimmable {
    message: usize,
    part: usize,
    placeholder: String,
}

#[derive(Debug, Default)]
pub struct Conversation {
    pub messages: Vec<Message>,
    trees: Vec<Trimmable>,
    screenshots: Vec<Trimmable>,
    keep_screenshots: usize,
}

impl Conversation {
    /// A conversation that keeps the latest `keep_screenshots` images.
    pub fn new(keep_screenshots: usize) -> Conversation {
        Conversation {
            keep_screenshots,
            ..Default::default()
        }
    }

    pub fn push(&mut self, m: Message) {
        self.messages.push(m);
    }

    /// Marks part `part` of the last message as a tree (`placeholder` replaces it later).
    pub fn mark_tree(&mut self, part: usize, placeholder: String) {
        let message = self.messages.len() - 1;
        self.trees.push(Trimmable {
            message,
            part,
            placeholder,
        });
        self.trim();
    }

    pub fn mark_screenshot(&mut self, part: usize, placeholder: String) {
        let message = self.messages.len() - 1;
        self.screenshots.push(Trimmable {
            message,
            part,
            placeholder,
        });
        self.trim();
    }

    fn trim(&mut self) {
        let keep_trees = self.trees.len().saturating_sub(1);
        for t in self.trees.drain(..keep_trees) {
            replace(&mut self.messages, &t);
        }
        let keep_shots = self.screenshots.len().saturating_sub(self.keep_screenshots);
        for t in self.screenshots.drain(..keep_shots) {
            replace(&mut self.messages, &t);
        }
    }
}

fn replace(messages: &mut [Message], t: &Trimmable) {
    let Some(part) = messages.get_mut(t.message).and_then(|m| m.parts.get_mut(t.part)) else {
        return;
    };
    match part {
        Part::ToolResult { content, .. } => *content = t.placeholder.clone(),
        // A computer call's answer stays (its id must be answered): only its image goes.
        Part::ComputerResult(r) => {
            r.screenshot_png_base64 = None;
            r.text = Some(match r.text.take() {
                Some(text) => format!("{}\n{text}", t.placeholder),
                None => t.placeholder.clone(),
            });
        }
        other => *other = Part::Text(t.placeholder.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_latest_tree_and_two_screenshots() {
        let mut c = Conversation::new(2);
        for i in 0..4 {
            c.push(Message {
                role: crate::llm::Role::User,
                parts: vec![
                    Part::ToolResult {
                        call_id: format!("c{i}"),
                        content: format!("tree {i}"),
                        is_error: false,
                    },
                    Part::Image {
                        png_base64: format!("img{i}"),
                    },
                ],
            });
            c.mark_tree(0, format!("old tree {i}"));
            c.mark_screenshot(1, format!("old shot {i}"));
        }
        let texts: Vec<String> = c.messages.iter().map(|m| m.text()).collect();
        assert_eq!(
            texts,
            ["old tree 0old shot 0", "old tree 1old shot 1", "old tree 2", "tree 3"]
        );
        assert!(matches!(c.messages[3].parts[1], Part::Image { .. }));
        assert!(matches!(c.messages[2].parts[1], Part::Image { .. }));
    }
}
