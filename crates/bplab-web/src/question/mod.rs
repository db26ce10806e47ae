//! Predict, then check: a question on a widget whose right option the model
//! computes from the widget's current parameters. Authored in
//! `web/questions.json` (compiled in), parsed and checked with errors that
//! name the field, evaluated by a small value language, shown as a radio group.

mod expr;
mod json;
mod schema;
mod view;

pub use expr::{Env, Lookup};
pub use schema::{BUILT_IN, parse_file};
pub use view::{Found, QuestionView, find, mount};
