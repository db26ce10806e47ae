//! Explanations are data: the page and the CLI render them.

use serde::{Deserialize, Serialize};

use crate::claim::{Claim, Equation};
use crate::numerics::format_fixed;

/// One step of a derivation. Read back (the page's worker posts it) without
/// its `eq`, which only the checks use.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What the step computes.
    pub label: String,
    /// The formula in symbols.
    pub formula: String,
    /// The formula with the numbers in it.
    pub substituted: String,
    /// The value it gives, as shown.
    pub value: String,
    /// The arithmetic shown, as data (`substituted = value` recomputes from it).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing, default)]
    pub eq: Option<Equation>,
}

impl Step {
    /// A step whose substituted side and value are rendered from `eq`;
    /// `note` follows the value (e.g. "rounded half-up").
    pub fn eq(label: &str, formula: &str, eq: Equation, note: &str) -> Step {
        let (substituted, value) = eq.render();
        let value = if note.is_empty() { value } else { format!("{value} {note}") };
        Step { label: label.into(), formula: formula.into(), substituted, value, eq: Some(eq) }
    }

    /// The step as one line: `label: formula = substituted = value`, with
    /// "≈" in place of the last "=" when the value is rounded.
    pub fn line(&self) -> String {
        match self.value.strip_prefix("≈ ") {
            Some(v) => format!("{}: {} = {} ≈ {v}", self.label, self.formula, self.substituted),
            None => format!("{}: {} = {} = {}", self.label, self.formula, self.substituted, self.value),
        }
    }
}

/// A result and where it came from. Read back (the page's worker posts it)
/// without its `claims`, which only the checks use.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// What was computed.
    pub title: String,
    /// The headline answer, as shown (with its unit).
    pub answer: String,
    /// The derivation.
    pub steps: Vec<Step>,
    /// What the result assumes.
    pub assumes: Vec<String>,
    /// What the result ignores.
    pub ignores: Vec<String>,
    /// What would change the answer.
    pub would_change: Vec<String>,
    /// The facts the text states, each with what makes it true: read by the
    /// checks (`claim::check_report`), never serialized (the page and the JS
    /// API get the text).
    #[serde(skip)]
    pub claims: Vec<Claim>,
}

impl Explanation {
    /// Plain-text rendering for terminals and copy buttons.
    pub fn to_text(&self) -> String {
        let mut s = format!("{}: {}\n", self.title, self.answer);
        for st in &self.steps {
            s.push_str(&format!("  {}\n", st.line()));
        }
        let mut list = |head: &str, items: &[String]| {
            if !items.is_empty() {
                s.push_str(head);
                s.push('\n');
                for i in items {
                    s.push_str("  - ");
                    s.push_str(i);
                    s.push('\n');
                }
            }
        };
        list("It assumes:", &self.assumes);
        list("It ignores:", &self.ignores);
        list("What would change it:", &self.would_change);
        s
    }
}

/// A shippable record of a chosen number (the course lesson's five fields).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    /// What is configured.
    pub setting: String,
    /// The criterion the number serves.
    pub criterion: String,
    /// What was measured, and how.
    pub measurement: String,
    /// The number and its derivation.
    pub number: String,
    /// What would reverse it.
    pub reverse: String,
}

impl Record {
    /// The record as copyable text.
    pub fn to_text(&self) -> String {
        format!(
            "Setting. {}\nCriterion. {}\nMeasurement. {}\nNumber. {}\nWhat would reverse it. {}\n",
            self.setting, self.criterion, self.measurement, self.number, self.reverse
        )
    }
}

/// A number for prose: Java half-up to 2 places, trailing zeros trimmed
/// (`9.952 → 9.95`, `10.0 → 10`).
pub fn fmt_num(x: f64) -> String {
    let s = format_fixed(x, 2);
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s }
}
