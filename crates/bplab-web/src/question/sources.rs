//! Where a question comes from, without a rebuild:
//!
//! - `qj=<base64url JSON of one question>` in the URL (`<widget>.qj=` on the
//!   whole page), at most [`QJ_MAX`] characters;
//! - `q=<id>`: a question of the page's block, else a built-in one;
//! - nothing in the URL: the first question of the page's block for the widget.
//!
//! The page's block is `<script type="application/json" id="bplab-questions">`
//! in `index.html` / `bplab.html`, which an author edits in a text editor; it is
//! read once at start. The built-in questions (`web/questions.json`) are
//! compiled in. All three are checked by the same parser with the same messages.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use super::schema::{BUILT_IN, Question, QuestionSet, parse_file, parse_one, parse_set};
use super::view::Found;
use crate::dom::{add, text_el};
use crate::url_state::{self, Query};

/// The id of the page's questions block.
pub const BLOCK_ID: &str = "bplab-questions";

/// The longest `qj=` value accepted, in characters (about 4.5 KB of JSON).
pub const QJ_MAX: usize = 6000;

thread_local! {
    static BLOCK: RefCell<Result<QuestionSet, String>> = RefCell::new(Ok(QuestionSet::default()));
}

/// Reads and checks the page's block (call once, before mounting).
pub fn read_block(doc: &Document) {
    let text = doc.get_element_by_id(BLOCK_ID).and_then(|e| e.text_content()).unwrap_or_default();
    let set = if text.trim().is_empty() { Ok(QuestionSet::default()) } else { parse_set(&text, BLOCK_ID) };
    BLOCK.with(|b| *b.borrow_mut() = set);
}

/// The widget the block asks to show alone, if any.
pub fn block_embed() -> Option<String> {
    BLOCK.with(|b| b.borrow().as_ref().ok().and_then(|s| s.embed.clone()))
}

/// Shows why the page's block was refused, at the top of `root`.
pub fn show_block_error(doc: &Document, root: &Element) -> Result<(), JsValue> {
    let Some(e) = BLOCK.with(|b| b.borrow().as_ref().err().cloned()) else { return Ok(()) };
    let msg = format!("The questions in this page (the {BLOCK_ID} block) cannot be used. {e}");
    add(root, text_el(doc, "p", &[("class", "msg"), ("role", "alert"), ("id", "bplab-questions-msg")], &msg)?)?;
    Ok(())
}

fn block_questions() -> Vec<Question> {
    BLOCK.with(|b| b.borrow().as_ref().map(|s| s.questions.clone()).unwrap_or_default())
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Text as base64url without padding (RFC 4648 §5), of its UTF-8 bytes.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len().div_ceil(3) * 4);
    for chunk in text.as_bytes().chunks(3) {
        let b = [chunk.first(), chunk.get(1), chunk.get(2)].map(|x| u32::from(x.copied().unwrap_or(0)));
        let n = (b[0] << 16) | (b[1] << 8) | b[2];
        for i in 0..=chunk.len() {
            let six = (n >> (18 - 6 * i)) & 63;
            out.push(char::from(B64.get(six as usize).copied().unwrap_or(b'A')));
        }
    }
    out
}

/// The text a `qj=` value carries, or why it cannot be read.
pub fn decode(value: &str) -> Result<String, String> {
    if value.len() > QJ_MAX {
        return Err(format!("qj: {} characters is too long; at most {QJ_MAX}", value.len()));
    }
    let mut bytes = Vec::with_capacity(value.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in value.trim_end_matches('=').bytes().enumerate() {
        let Some(six) = B64.iter().position(|&x| x == c) else {
            return Err(format!("qj: character {} ('{}') is not base64url (A-Z, a-z, 0-9, - and _)", i + 1, c as char));
        };
        acc = (acc << 6) | six as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    String::from_utf8(bytes).map_err(|_| "qj: the decoded bytes are not UTF-8 text".to_owned())
}

/// Refuses a question whose `params` the widget does not have.
fn fits(x: Question, name: &str, params: &[&str]) -> Result<Question, String> {
    if x.widget != name {
        return Err(format!("{}.widget: this question is for the {} widget, not {name}", x.path, x.widget));
    }
    if let Some((k, _)) = x.params.iter().find(|(k, _)| !params.contains(&k.as_str())) {
        return Err(format!(
            "{}.params: the {name} widget has no parameter '{k}'; its parameters: {}",
            x.path,
            params.join(", ")
        ));
    }
    Ok(x)
}

/// The question for widget `name` (parameters `params`) from the query, the
/// page's block, or the built-in file; the pair that reproduces it is kept in the URL.
pub fn find(name: &str, params: &[&str], q: &Query) -> Found {
    let (found, keep) = lookup(name, params, q);
    if let (Some(Ok(_)), Some((key, value))) = (&found, keep) {
        url_state::keep(name, key, value);
    }
    found
}

/// [`find`] without keeping anything: the question, and the URL pair that
/// reproduces it (none for the block's first question, which comes unasked).
pub fn lookup<'q>(name: &str, params: &[&str], q: &'q Query) -> (Found, Option<(&'static str, &'q str)>) {
    if let Some(raw) = q.get(name, "qj") {
        let found = decode(raw).and_then(|t| parse_one(&t, "qj")).and_then(|x| fits(x, name, params));
        return (Some(found), Some(("qj", raw)));
    }
    let block = block_questions();
    let Some(id) = q.get(name, "q") else {
        return (block.into_iter().find(|x| x.widget == name).map(|x| fits(x, name, params)), None);
    };
    let all = parse_file(BUILT_IN).map(|b| block.into_iter().chain(b).collect::<Vec<_>>());
    let found = all.and_then(|all| {
        let mut known: Vec<String> = all.iter().filter(|x| x.widget == name).map(|x| x.id.clone()).collect();
        known.dedup();
        let x = all.into_iter().find(|x| x.id == id && x.widget == name).ok_or_else(|| {
            format!("q: no question '{id}' for the {name} widget; questions for it: {}", known.join(", "))
        })?;
        fits(x, name, params)
    });
    (Some(found), Some(("q", id)))
}
