//! A snapshot tree as reading matter: plain text or markdown, with no refs,
//! states or controls — the page's words, headings, links, lists, tables
//! and image descriptions. No model is involved.

use sightline_engine::interactive::FORM_FIELD_ROLES;

use crate::ai::tree;

/// One line of the tree, parsed.
#[derive(Debug, Default)]
struct Node {
    role: String,
    name: Option<String>,
    level: Option<usize>,
    inline: Option<String>,
    url: Option<String>,
    children: Vec<Node>,
}

/// Roles whose content is not reading matter: the form fields
/// (`sightline_engine::interactive::FORM_FIELD_ROLES`), and these controls
/// and chrome.
const SKIPPED: &[&str] = &[
    "button",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "scrollbar",
    "separator",
];

/// `- role "name" [level=2] [ref=e3]: inline` → a node (without children).
fn parse_line(body: &str) -> Node {
    let mut node = Node::default();
    let (head, inline) = split_inline(body);
    node.inline = inline.map(|s| unquote(s.trim()).to_string()).filter(|s| !s.is_empty());
    let head = head.trim();
    let (role, rest) = head.split_once(' ').unwrap_or((head, ""));
    node.role = role.to_string();
    let rest = rest.trim_start();
    if let Some(r) = rest.strip_prefix('"') {
        let mut end = 0;
        let bytes = r.as_bytes();
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        node.name = Some(r[..end.min(r.len())].replace("\\\"", "\"").replace("\\\\", "\\"));
    }
    node.url = tree::url_token(head).map(|(_, url)| url.to_string());
    if let Some(i) = rest.find("[level=") {
        node.level = rest[i + 7..].split(']').next().and_then(|n| n.parse().ok());
    }
    node
}

/// The head and the inline text of a line body, split at the `: ` that
/// follows the last attribute (names and URLs may hold `:`).
fn split_inline(body: &str) -> (&str, Option<&str>) {
    let at = tree::head_len(body);
    let rest = body.get(at + 1..).unwrap_or("");
    (&body[..at], (!rest.trim().is_empty()).then_some(rest))
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(s)
}

/// The tree's lines as nodes (header comments skipped).
fn parse(tree: &str) -> Vec<Node> {
    let mut roots: Vec<Node> = Vec::new();
    // Open nodes by depth: (indent, path into the forest).
    let mut stack: Vec<(usize, Node)> = Vec::new();
    let close = |stack: &mut Vec<(usize, Node)>, roots: &mut Vec<Node>, down_to: usize| {
        while stack.last().is_some_and(|(d, _)| *d >= down_to) {
            let (_, n) = stack.pop().unwrap();
            match stack.last_mut() {
                Some((_, parent)) => parent.children.push(n),
                None => roots.push(n),
            }
        }
    };
    for line in tree.lines() {
        let indent = line.len() - line.trim_start().len();
        let Some(body) = line.trim_start().strip_prefix("- ") else {
            continue;
        };
        close(&mut stack, &mut roots, indent);
        stack.push((indent, parse_line(body)));
    }
    close(&mut stack, &mut roots, 0);
    roots
}

fn text_of(n: &Node) -> String {
    // A link says its name (`aria-label="Close dialog"`), not its glyph
    // (`×`), as it did when its URL line kept its text off its own line.
    let own = if n.role == "link" {
        n.name.clone().or_else(|| n.inline.clone())
    } else {
        n.inline.clone().or_else(|| n.name.clone())
    };
    let own = own.unwrap_or_default();
    let kids: Vec<String> = n.children.iter().map(text_of).filter(|t| !t.is_empty()).collect();
    match (own.is_empty(), kids.is_empty()) {
        (false, true) => own,
        (true, false) => kids.join(" "),
        (false, false) if n.role == "link" || n.role == "heading" => own,
        (false, false) => {
            // A cell's or a row's name is its content's text (cut at the
            // tree's name length): said once, whole, from the content.
            let kids = kids.join(" ");
            let squeezed = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            let stem = squeezed(own.trim_end_matches('…'));
            if squeezed(&kids).contains(&stem) {
                kids
            } else {
                format!("{own} {kids}")
            }
        }
        (true, true) => String::new(),
    }
}

fn render(n: &Node, markdown: bool, out: &mut Vec<String>, list_depth: usize) {
    let role = n.role.as_str();
    if FORM_FIELD_ROLES.contains(&role) || SKIPPED.contains(&role) {
        return;
    }
    let indent = "  ".repeat(list_depth.saturating_sub(1));
    match role {
        "heading" => {
            let text = inline_md(n, markdown);
            if !text.is_empty() {
                out.push(if markdown {
                    format!("{} {text}", "#".repeat(n.level.unwrap_or(2).clamp(1, 6)))
                } else {
                    text
                });
            }
        }
        "link" if n.children.iter().all(|c| c.children.is_empty()) => {
            let text = inline_md(n, markdown);
            if !text.is_empty() {
                out.push(text);
            }
        }
        "img" | "image" => {
            if let Some(alt) = n.name.as_deref().filter(|a| !a.is_empty()) {
                out.push(if markdown {
                    format!("![{alt}]")
                } else {
                    format!("[image: {alt}]")
                });
            }
        }
        "listitem" => {
            let mut inner = Vec::new();
            if let Some(t) = n.inline.as_deref().or(n.name.as_deref()) {
                inner.push(t.to_string());
            }
            for c in &n.children {
                render(c, markdown, &mut inner, list_depth + 1);
            }
            if let Some((first, rest)) = inner.split_first() {
                let bullet = if markdown { "- " } else { "• " };
                out.push(format!("{indent}{bullet}{first}"));
                out.extend(rest.iter().map(|r| format!("{indent}  {r}")));
            }
        }
        "row" => {
            let cells: Vec<String> = n.children.iter().map(text_of).collect();
            if cells.iter().any(|c| !c.is_empty()) {
                out.push(if markdown {
                    format!("| {} |", cells.join(" | "))
                } else {
                    cells.join("\t")
                });
            }
        }
        _ => {
            if let Some(t) = n.inline.as_deref().filter(|t| !t.is_empty()) {
                out.push(t.to_string());
            }
            for c in &n.children {
                render(c, markdown, out, list_depth);
            }
        }
    }
}

/// A heading's or link's text, as a markdown link when it has a URL.
fn inline_md(n: &Node, markdown: bool) -> String {
    let link = n
        .children
        .iter()
        .find(|c| c.role == "link" && c.url.is_some())
        .or((n.role == "link").then_some(n));
    let text = text_of(n);
    match link.and_then(|l| l.url.as_deref()) {
        Some(url) if markdown && !text.is_empty() => format!("[{text}]({url})"),
        _ => text,
    }
}

/// The tree as plain text (`markdown: false`) or markdown.
pub fn from_tree(tree: &str, markdown: bool) -> String {
    let mut out = Vec::new();
    for n in parse(tree) {
        render(&n, markdown, &mut out, 0);
    }
    let mut text = String::new();
    for line in out {
        let blank = markdown && (line.starts_with('#') || text.ends_with('\n') && !line.starts_with(['-', '|', ' ']));
        if blank && !text.is_empty() && !text.ends_with("\n\n") {
            text.push('\n');
        }
        text.push_str(&line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::from_tree;

    const TREE: &str = "# Page position: the whole page is in view.
- banner:
  - link \"Home\" [ref=e1] [url=/]
  - button \"Search\" [ref=e2]
- main:
  - heading \"Trail: shoes\" [level=1]
  - paragraph: Light and \"fast\".
  - heading [level=3]:
    - link \"Summit Hiker\" [ref=e3] [url=/p?id=3]
  - list:
    - listitem: One
    - listitem:
      - link \"Two\" [ref=e4] [url=/two]: Two
  - table:
    - row:
      - cell \"A\"
      - cell \"B\"
  - img \"A red shoe\"
";

    #[test]
    fn markdown_keeps_structure_and_drops_controls() {
        let md = from_tree(TREE, true);
        assert!(md.contains("[Home](/)"), "{md}");
        assert!(!md.contains("Search"), "controls are not reading matter: {md}");
        assert!(md.contains("# Trail: shoes"), "{md}");
        assert!(md.contains("Light and \"fast\"."), "{md}");
        assert!(md.contains("### [Summit Hiker](/p?id=3)"), "{md}");
        assert!(md.contains("- One\n- [Two](/two)"), "{md}");
        assert!(md.contains("| A | B |"), "{md}");
        assert!(md.contains("![A red shoe]"), "{md}");
        assert!(!md.contains("ref="));
    }

    #[test]
    fn a_cell_named_by_its_content_is_said_once() {
        let tree = "- table:\n  - row:\n    - cell \"Remake of The Time Travelers[4]\":\n      - text: Remake of\n      - emphasis:\n        - link \"The Time Travelers\" [ref=e1] [url=/wiki/t]\n      - superscript: \"[4]\"\n    - cell \"1967\"\n";
        let md = from_tree(tree, true);
        assert_eq!(md.matches("The Time Travelers").count(), 1, "{md}");
        assert!(md.contains("| 1967 |"), "{md}");
    }

    #[test]
    fn a_link_says_its_name_not_its_glyph() {
        let md = from_tree("- link \"Close dialog\" [ref=e1] [url=/x]: ×\n", true);
        assert!(md.contains("[Close dialog](/x)"), "{md}");
    }

    #[test]
    fn plain_text_has_no_markup() {
        let t = from_tree(TREE, false);
        assert!(t.contains("Trail: shoes\n") && !t.contains('#'), "{t}");
        assert!(t.contains("Summit Hiker") && !t.contains("]("), "{t}");
        assert!(t.contains("• One"), "{t}");
    }
}
