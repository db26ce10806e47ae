//! Predict, then check: a question on a widget whose right option the model
//! computes from the widget's current parameters. Built in (`web/questions.json`,
//! compiled in), in the page's own questions block, or in the URL (`qj=`);
//! parsed and checked with errors that name the field, evaluated by a small
//! value language, shown as a radio group, reported to a SCORM 1.2 LMS when
//! there is one.

mod expr;
mod json;
mod schema;
pub mod scorm;
mod sources;
mod text;
mod view;

use wasm_bindgen::prelude::*;

pub use expr::{Env, Lookup};
pub use json::{J, quote};
pub use schema::{BUILT_IN, Question, parse_file, parse_one, parse_set};
pub use sources::{BLOCK_ID, QJ_MAX, block_embed, decode, encode, find, lookup, read_block, show_block_error};
pub use view::{Found, QuestionView, mount};

/// JS API: checks one question (JSON text) with the page's messages and
/// returns its `qj=` value (base64url), at most [`QJ_MAX`] characters.
#[wasm_bindgen(js_name = questionParam)]
pub fn question_param(json: &str) -> Result<String, JsError> {
    parse_one(json, "question").map_err(|e| JsError::new(&e))?;
    let v = encode(json);
    if v.len() > QJ_MAX {
        return Err(JsError::new(&format!("question: {} characters as qj=; at most {QJ_MAX}", v.len())));
    }
    Ok(v)
}
