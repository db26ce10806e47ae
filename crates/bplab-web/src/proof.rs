//! "The page proves its numbers": the command line that reproduces a
//! widget's figure (`bplab run <experiment> --flag value …`) and the SHA-256
//! of each CSV it would download, which `bplab run` prints (first 12 hex
//! digits in its summary) and writes in full to `manifest.json`.

use sha2::{Digest, Sha256};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use crate::dom::{add, el, text_el};

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// `v` exactly, in the shortest text that reads back as the same number:
/// what links and commands carry. Plain decimals while they stay short
/// (`12.345`, `0.004`), scientific only when that is shorter than a long
/// plain form (`1e-300`, not 300 digits).
pub fn number(v: f64) -> String {
    let plain = format!("{v}");
    let sci = format!("{v:e}");
    if plain.len() > 12 && sci.len() < plain.len() { sci } else { plain }
}

/// `s` as one POSIX shell word (quoted only when it needs to be).
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || ",.:@_+-/=".contains(c));
    if plain { s.to_owned() } else { format!("'{}'", s.replace('\'', "'\\''")) }
}

/// `bplab <words…> --name value …`.
pub fn command(words: &[&str], flags: &[(String, String)]) -> String {
    let mut out = String::from("bplab");
    for w in words {
        out.push(' ');
        out.push_str(&shell_word(w));
    }
    for (k, v) in flags {
        out.push_str(&format!(" --{k} {}", shell_word(v)));
    }
    out
}

/// The block under a widget: command line(s), and the CSV hashes on request.
pub struct Proof {
    cmds: Element,
    /// The `<details>` holding the hashes (`None` for a widget without CSVs).
    pub details: Option<Element>,
    hashes: Option<Element>,
}

impl Proof {
    /// Builds the block under `parent`; `csv` says whether the widget has CSVs to hash.
    pub fn build(doc: &Document, parent: &Element, name: &str, csv: bool) -> Result<Proof, JsValue> {
        let wrap = add(parent, el(doc, "div", &[("class", "proof"), ("id", &format!("{name}-proof"))])?)?;
        let head = if csv { "Reproduce this figure:" } else { "The same numbers on the command line:" };
        add(&wrap, text_el(doc, "p", &[("class", "proof-head")], head)?)?;
        let cmds = add(&wrap, el(doc, "div", &[("class", "proof-cmds")])?)?;
        if !csv {
            return Ok(Proof { cmds, details: None, hashes: None });
        }
        let d = add(&wrap, el(doc, "details", &[("class", "proof-hashes"), ("id", &format!("{name}-hashes"))])?)?;
        add(&d, text_el(doc, "summary", &[], "SHA-256 of the CSVs")?)?;
        add(
            &d,
            text_el(
                doc,
                "p",
                &[("class", "hint")],
                "bplab run prints the first 12 hex digits in its summary; manifest.json has the full hash.",
            )?,
        )?;
        let hashes = add(&d, el(doc, "ul", &[])?)?;
        Ok(Proof { cmds, details: Some(d), hashes: Some(hashes) })
    }

    /// Shows the command lines (only the ones that changed are rewritten).
    pub fn show_commands(&self, doc: &Document, lines: &[String]) {
        let now: Vec<String> = {
            let list = self.cmds.child_nodes();
            (0..list.length()).filter_map(|i| list.item(i)?.text_content()).collect()
        };
        if now == lines {
            return;
        }
        self.cmds.set_text_content(None);
        for l in lines {
            if let Ok(c) = text_el(doc, "code", &[("class", "cmd")], l) {
                let _ = self.cmds.append_child(&c);
            }
        }
    }

    /// Whether the hashes are on show (they are computed only then).
    pub fn hashes_open(&self) -> bool {
        self.details.as_ref().is_some_and(|d| d.has_attribute("open"))
    }

    /// Shows the SHA-256 of each `(file, csv)`.
    pub fn show_hashes(&self, doc: &Document, files: &[(String, String)]) {
        let Some(ul) = &self.hashes else { return };
        ul.set_text_content(None);
        for (file, csv) in files {
            let Ok(li) = el(doc, "li", &[]) else { continue };
            if let Ok(s) = text_el(doc, "span", &[], &format!("{file}: ")) {
                let _ = li.append_child(&s);
            }
            if let Ok(h) = text_el(doc, "code", &[("class", "hash"), ("data-file", file)], &sha256_hex(csv.as_bytes()))
            {
                let _ = li.append_child(&h);
            }
            let _ = ul.append_child(&li);
        }
    }
}
