//! [`Doc`]: an explanation as statements, rendered into [`Explanation`].

use super::{Statement, render};
use crate::calc::{Explanation, Step};
use crate::claim::{Claim, Fact};

/// An explanation as statements, section by section.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doc {
    /// What was computed.
    pub title: String,
    /// The headline.
    pub answer: Vec<Statement>,
    /// The derivation ([`Statement::Arith`] steps; any other kind is stated
    /// at the end of the answer).
    pub steps: Vec<Statement>,
    /// What it assumes.
    pub assumes: Vec<Statement>,
    /// What it leaves out.
    pub ignores: Vec<Statement>,
    /// What would change it.
    pub would_change: Vec<Statement>,
}

fn placed(s: Statement, text: String) -> Claim {
    Claim::new(s.kind(), "statement", text, Fact::Statement(Box::new(s)))
}

impl Doc {
    /// A document with a title.
    pub fn new(title: impl Into<String>) -> Doc {
        Doc { title: title.into(), ..Doc::default() }
    }

    /// Renders every statement into an [`Explanation`] (the fields the page
    /// and the CLI read), each rendering kept with its statement in `claims`.
    /// A statement that is not to be stated is left out.
    pub fn explanation(self) -> Explanation {
        let mut claims = Vec::new();
        let list = |items: Vec<Statement>, claims: &mut Vec<Claim>| {
            let mut out = Vec::new();
            for s in items {
                if let Some(t) = render(&s) {
                    out.push(t.clone());
                    claims.push(placed(s, t));
                }
            }
            out
        };
        // A step that is not arithmetic is stated in the answer instead.
        let (arith, other): (Vec<Statement>, Vec<Statement>) =
            self.steps.into_iter().partition(|s| matches!(s, Statement::Arith { .. }));
        let answer = list(self.answer.into_iter().chain(other).collect(), &mut claims).join(" ");
        let mut steps = Vec::new();
        for s in arith {
            if let Statement::Arith { label, formula, eq } = &s {
                let st = Step {
                    label: label.clone(),
                    formula: formula.clone(),
                    substituted: eq.substituted(),
                    value: eq.shown(),
                    eq: None,
                };
                let line = st.line();
                steps.push(st);
                claims.push(placed(s, line));
            }
        }
        let assumes = list(self.assumes, &mut claims);
        let ignores = list(self.ignores, &mut claims);
        let would_change = list(self.would_change, &mut claims);
        Explanation { title: self.title, answer, steps, assumes, ignores, would_change, claims }
    }
}

/// Splits rendered text into sentences (at ". ", "! ", "? " and line ends).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut cur = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            cur.push(c);
            if matches!(c, '.' | '!' | '?') && chars.peek().is_some_and(|n| *n == ' ') {
                // "e.g. " and decimals are not sentence ends: a capital must follow.
                let rest: String = chars.clone().skip(1).take(1).collect();
                if rest.chars().next().is_some_and(|n| n.is_uppercase() || n.is_ascii_digit()) {
                    out.push(std::mem::take(&mut cur).trim().to_owned());
                }
            }
        }
        if !cur.trim().is_empty() {
            out.push(cur.trim().to_owned());
        }
    }
    out
}
