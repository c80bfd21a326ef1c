//! A PDF the browser opened. Chromium shows it in its PDF viewer, whose
//! content neither the engine's tree nor a headless screenshot reaches: the
//! page reads as empty. The text of the file itself, page by page, stands in
//! for the tree (it has no refs: there is nothing on it to act on).

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::{FrameId, GetResourceContentParams};

use super::handle::Page;
use crate::text::clip;

/// The largest PDF fetched again (bigger ones get a note instead): the
/// tree is cut far below what a bigger one holds.
const MAX_PDF_BYTES: usize = 15 * 1024 * 1024;
/// The longest a PDF's reading may take (a hostile file holds no snapshot).
const MAX_READING: Duration = Duration::from_secs(10);
/// Pages read from the start of a long PDF.
const MAX_PAGES: usize = 80;
/// The longest line kept of a page's text.
const MAX_LINE_CHARS: usize = 2000;

/// The tree's lines for a PDF's bytes: a `#` note, then each page as a
/// region of text lines. `name` is how the note calls the file.
pub(crate) fn pdf_tree(bytes: &[u8], name: &str) -> String {
    let doc = match lopdf::Document::load_mem(bytes) {
        Ok(d) => d,
        Err(e) => return format!("# {name} is a PDF that could not be read ({e}): take a screenshot to see it.\n"),
    };
    if doc.is_encrypted() {
        return format!("# {name} is an encrypted PDF: its text cannot be read here.\n");
    }
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    let read = &pages[..pages.len().min(MAX_PAGES)];
    let count = |n: usize| {
        if n == 1 {
            "1 page".to_string()
        } else {
            format!("{n} pages")
        }
    };
    let mut out = format!(
        "# {name} is a PDF ({}): its text, read from the file, stands for the page (no refs: the browser's PDF viewer is out of reach).{}\n",
        count(pages.len()),
        if read.len() < pages.len() {
            format!(" Only the first {} are read.", count(read.len()))
        } else {
            String::new()
        }
    );
    let mut any_text = false;
    for &number in read {
        let text = doc.extract_text(&[number]).unwrap_or_default();
        let lines: Vec<String> = text
            .lines()
            .map(|l| clip(&l.split_whitespace().collect::<Vec<_>>().join(" "), MAX_LINE_CHARS))
            .filter(|l| !l.is_empty())
            .collect();
        out.push_str(&format!("- region \"Page {number}\":"));
        if lines.is_empty() {
            out.push_str(" (no text: a scan or drawing only)\n");
            continue;
        }
        out.push('\n');
        any_text = true;
        for line in lines {
            out.push_str("  - text: ");
            out.push_str(&line);
            out.push('\n');
        }
    }
    if !any_text {
        out.push_str("# It holds no text (scanned pages?): take a screenshot to see it.\n");
    }
    out
}

impl Page {
    /// The tree's lines for the document of the main frame when it is a PDF
    /// (`None` for any other document). Read once per document: later
    /// snapshots of it reuse the lines. A PDF that cannot be read gets a
    /// note saying so.
    pub(super) async fn pdf_lines(&self, main: &FrameId, url: &str) -> Option<String> {
        let facts = self
            .evaluate_isolated("[document.contentType, performance.timeOrigin]")
            .await
            .ok()?;
        if facts[0].as_str() != Some("application/pdf") {
            return None;
        }
        let document = format!("{url} {}", facts[1]);
        if let Some((read, lines)) = self.state().pdf_read.as_ref() {
            if *read == document {
                return Some(lines.clone());
            }
        }
        let name = clip(url.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(url), 80);
        let lines = match self.pdf_bytes(main, url).await {
            Ok(bytes) => {
                tracing::debug!("frame {}: a PDF of {} bytes", main.inner(), bytes.len());
                let reading = tokio::task::spawn_blocking({
                    let name = name.clone();
                    move || pdf_tree(&bytes, &name)
                });
                match tokio::time::timeout(MAX_READING, reading).await {
                    Ok(Ok(lines)) => lines,
                    _ => format!("# {name} is a PDF that could not be read in time: take a screenshot to see it.\n"),
                }
            }
            Err(why) => format!("# {name} is a PDF whose file could not be read ({why}).\n"),
        };
        self.state().pdf_read = Some((document, lines.clone()));
        Some(lines)
    }

    /// The PDF's bytes: the frame's own resource (what the browser loaded,
    /// no second request: a signed or one-time link stays good), else
    /// fetched again by the page's own document (its cookies and cache).
    async fn pdf_bytes(&self, main: &FrameId, url: &str) -> std::result::Result<Vec<u8>, String> {
        if let Ok(r) = self.send(GetResourceContentParams::new(main.clone(), url)).await {
            let bytes = if r.result.base64_encoded {
                crate::base64::decode(&r.result.content)
            } else {
                Some(r.result.content.clone().into_bytes())
            };
            if let Some(b) = bytes.filter(|b| b.starts_with(b"%PDF")) {
                return Ok(b);
            }
        }
        let fetch = format!(
            "fetch(location.href, {{ cache: 'force-cache' }}).then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error('HTTP ' + r.status)))).then((b) => {{
  if (b.byteLength > {MAX_PDF_BYTES}) return {{ big: b.byteLength }};
  const u = new Uint8Array(b);
  let s = '';
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
  return {{ data: btoa(s) }};
}})"
        );
        let answer = self.evaluate_isolated(&fetch).await.map_err(|e| e.to_string())?;
        if let Some(size) = answer.get("big").and_then(|b| b.as_u64()) {
            return Err(format!("it is {size} bytes, over the {MAX_PDF_BYTES} read"));
        }
        let data = answer.get("data").and_then(|d| d.as_str()).ok_or("no answer")?;
        crate::base64::decode(data).ok_or_else(|| "not base64".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PDF of `pages`, each drawing its lines of text (no compression).
    pub(crate) fn pdf_of(pages: &[&[&str]]) -> Vec<u8> {
        let mut objects: Vec<String> = vec![
            "<</Type/Catalog/Pages 2 0 R>>".into(),
            String::new(), // the page tree, once the pages are numbered
            "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>".into(),
        ];
        let mut kids = Vec::new();
        for lines in pages {
            let mut content = String::from("BT /F1 12 Tf 40 760 Td 14 TL\n");
            for l in *lines {
                content.push_str(&format!("({l}) Tj T*\n"));
            }
            content.push_str("ET");
            objects.push(format!("<</Length {}>>\nstream\n{content}\nendstream", content.len()));
            let content_id = objects.len();
            objects.push(format!(
                "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents {content_id} 0 R/Resources<</Font<</F1 3 0 R>>>>>>"
            ));
            kids.push(format!("{} 0 R", objects.len()));
        }
        objects[1] = format!("<</Type/Pages/Kids[{}]/Count {}>>", kids.join(" "), kids.len());
        let mut out = String::from("%PDF-1.4\n");
        let mut offsets = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.push_str(&format!("{} 0 obj\n{o}\nendobj\n", i + 1));
        }
        let xref = out.len();
        out.push_str(&format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1));
        for o in offsets {
            out.push_str(&format!("{o:010} 00000 n \n"));
        }
        out.push_str(&format!(
            "trailer\n<</Size {}/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        ));
        out.into_bytes()
    }

    #[test]
    fn a_pdf_reads_as_its_pages_text() {
        let pdf = pdf_of(&[&["Invoice 2041", "Total due: 118.50 EUR"], &["Terms: 30 days"]]);
        let tree = pdf_tree(&pdf, "invoice.pdf");
        assert!(tree.starts_with("# invoice.pdf is a PDF (2 pages)"), "{tree}");
        assert!(tree.contains("- region \"Page 1\":\n"), "{tree}");
        assert!(tree.contains("  - text: Invoice 2041\n"), "{tree}");
        assert!(tree.contains("Total due: 118.50 EUR"), "{tree}");
        assert!(
            tree.contains("- region \"Page 2\":\n  - text: Terms: 30 days\n"),
            "{tree}"
        );
    }

    #[test]
    fn a_broken_or_empty_pdf_says_so() {
        let tree = pdf_tree(b"%PDF-1.4 not really", "x.pdf");
        assert!(tree.starts_with("# x.pdf is a PDF that could not be read"), "{tree}");
        let blank = pdf_tree(&pdf_of(&[&[]]), "scan.pdf");
        assert!(blank.contains("- region \"Page 1\": (no text"), "{blank}");
        assert!(blank.contains("holds no text"), "{blank}");
    }
}
