//! Statements, not strings. An explanation is a list of typed statements
//! over one vocabulary of quantities ([`quantity`]); [`render`] is the only
//! code that turns a statement into words, and [`check`] re-evaluates each
//! one against per-request evidence ([`evidence`]) that the model logged as
//! it visited every request, apart from its summary columns.
//!
//! The kinds: a [`Statement::Value`], a [`Statement::Comparison`], a
//! [`Statement::Bound`] with its preconditions (not stated when one fails),
//! a [`Statement::Best`] over a named set, a [`Statement::Verdict`] within a
//! stated horizon, a [`Statement::Cause`] (the effect, its cause, and the
//! effect's absence in the run without the cause, all checked), shown
//! [`Statement::Arith`]metic with operands as given, and the marked
//! [`Statement::Assumption`] and [`Statement::Definition`]. [`Doc`] builds an
//! [`Explanation`] from them: every string in it is a rendering, and every
//! rendering travels in its `claims` as [`crate::claim::Fact::Statement`].
//! The full rules: `docs/explanations.md`.

pub mod arith;
pub mod evidence;
pub mod quantity;

use serde::Serialize;

pub use arith::{Arith, given};
pub use evidence::{Logs, Req, RunLog};
pub use quantity::{Quantity, Unit};

use crate::calc::{Explanation, Step};
use crate::claim::equation::last_unit;
use crate::claim::{Claim, Cmp, Fact};

/// A quantity on one run, with the value the explanation took from the
/// model's summary (the checker recomputes it from the run's records).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measure {
    /// Which quantity.
    pub q: Quantity,
    /// The run's key in the evidence ([`RunLog::key`]).
    pub run: String,
    /// The phrase naming the run ("at limit 40 on the bursty curve").
    pub at: String,
    /// The value stated.
    pub value: f64,
}

impl Measure {
    /// A measure.
    pub fn new(q: Quantity, run: impl Into<String>, at: impl Into<String>, value: f64) -> Measure {
        Measure { q, run: run.into(), at: at.into(), value }
    }

    /// The value as shown, with its unit: 2 decimals, trailing zeros
    /// trimmed, and more where 2 would round a value that is not 0 to 0, or
    /// a share that is not 100 % to 100 (99.997 % is not "100 %").
    pub fn shown(&self) -> String {
        self.shown_at(2)
    }

    /// [`Measure::shown`] with at least `decimals` decimals (trimmed).
    pub fn shown_at(&self, decimals: usize) -> String {
        let v = self.value;
        let text = |d: usize| {
            let s = crate::numerics::format_fixed(v, d);
            if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s }
        };
        let extreme = |s: &str| {
            let x = s.parse::<f64>().unwrap_or(v);
            (x == 0.0 && v != 0.0) || (self.q.unit == Unit::Pct && x == 100.0 && v != 100.0)
        };
        let mut d = if self.q.unit == Unit::Requests { 0 } else { decimals };
        let mut s = text(d);
        while extreme(&s) && d < 12 {
            d += 1;
            s = text(d);
        }
        format!("{s}{}", self.q.unit.suffix())
    }

    fn subject(&self) -> String {
        if self.at.is_empty() { format!("the {}", self.q.name()) } else { format!("the {} {}", self.q.name(), self.at) }
    }
}

/// A condition a statement depends on, checked when it is stated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Cond {
    /// A fact about the parameters the run was given (fixed service time,
    /// a finite limit): `true` when it holds.
    Given(bool),
    /// `lhs cmp rhs`, on the parameters.
    Compare(f64, Cmp, f64),
}

impl Cond {
    fn holds(&self) -> bool {
        match self {
            Cond::Given(b) => *b,
            Cond::Compare(a, c, b) => cmp_holds(*c, *a, *b, 0.0),
        }
    }
}

/// A precondition: its words ("a fixed service time") and the condition.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pre {
    /// The words after "for".
    pub text: String,
    /// What must hold.
    pub cond: Cond,
}

impl Pre {
    /// A precondition.
    pub fn new(text: impl Into<String>, cond: Cond) -> Pre {
        Pre { text: text.into(), cond }
    }
}

/// One typed statement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Statement {
    /// "The {quantity} {at} is {value}."
    Value(Measure),
    /// Two measures and how the first compares with the second.
    Comparison {
        /// Left.
        a: Measure,
        /// How `a` compares with `b`.
        cmp: Cmp,
        /// Right.
        b: Measure,
    },
    /// A measure against a fixed level ("critical success … (98.4 %) is
    /// below the SLO target (99 %)").
    Versus {
        /// The measure.
        m: Measure,
        /// How it compares with the level.
        cmp: Cmp,
        /// What the level is ("the SLO target").
        what: String,
        /// The level, in the measure's unit.
        level: f64,
    },
    /// A measure (a maximum) within a bound computed by shown arithmetic,
    /// valid under its preconditions: not stated when one fails.
    Bound {
        /// The measured maximum.
        m: Measure,
        /// What the bound is ("limit × service time").
        what: String,
        /// The bound's arithmetic.
        bound: Arith,
        /// What the bound needs.
        pre: Vec<Pre>,
    },
    /// Of a named set, the item that reaches the best value of a quantity
    /// (the first, in the set's stated order, when several tie).
    Best {
        /// The set, as named ("of the limits tried on the bursty curve").
        set: String,
        /// The order ties are broken in ("smallest limit").
        order: String,
        /// Each item's label and measure, in that order.
        items: Vec<(String, Measure)>,
        /// Higher is better.
        higher: bool,
        /// Index of the stated winner.
        winner: usize,
    },
    /// A statement that holds within a stated horizon.
    Verdict {
        /// What holds.
        claim: Box<Statement>,
        /// The horizon ("the 5 s window").
        horizon: String,
    },
    /// An effect, its cause, and (when the lab can run it) the effect's
    /// absence in the run without the cause.
    Cause {
        /// What happened.
        effect: Box<Statement>,
        /// Why.
        cause: Box<Statement>,
        /// The same run without the cause, where the effect is absent.
        without: Option<Box<Statement>>,
    },
    /// Two results of shown arithmetic on the parameters and how they compare
    /// ("the worst time at B (20 × 10 ms = 200 ms) is at most the deadline (200 ms)").
    Relation {
        /// What the left side is.
        a_label: String,
        /// Left.
        a: Arith,
        /// How `a` compares with `b`.
        cmp: Cmp,
        /// What the right side is.
        b_label: String,
        /// Right.
        b: Arith,
    },
    /// The largest queue behind `workers` whose worst time in the system
    /// with a fixed service time, `(ceil(q / workers) + 1) × service`, fits
    /// the budget; re-found by stepping, not by the calculator's formula.
    SafeQueue {
        /// Workers.
        workers: u32,
        /// Budget, ms.
        budget_ms: f64,
        /// Service time, ms.
        service_ms: f64,
        /// The stated queue.
        queue: u64,
    },
    /// A calculator's result: the value of shown arithmetic and what it is
    /// ("≈ 11 requests in flight").
    Result {
        /// What the number is, after it.
        what: String,
        /// The arithmetic that gives it.
        eq: Arith,
    },
    /// Shown arithmetic.
    Arith {
        /// What it computes.
        label: String,
        /// The formula in symbols.
        formula: String,
        /// The numbers.
        eq: Arith,
    },
    /// An assumption of the model or a limit of the explanation, marked as such.
    Assumption(String),
    /// A quantity's definition.
    Definition(Quantity),
}

impl Statement {
    /// The kind's name, as the fuzz harness counts it.
    pub fn kind(&self) -> &'static str {
        match self {
            Statement::Value(_) => "value",
            Statement::Comparison { .. } => "comparison",
            Statement::Versus { .. } => "versus",
            Statement::Bound { .. } => "bound",
            Statement::Best { .. } => "best",
            Statement::Verdict { .. } => "verdict",
            Statement::Cause { .. } => "cause",
            Statement::Arith { .. } => "arithmetic",
            Statement::Relation { .. } => "relation",
            Statement::Result { .. } => "result",
            Statement::SafeQueue { .. } => "safe-queue",
            Statement::Assumption(_) => "assumption",
            Statement::Definition(_) => "definition",
        }
    }
}

/// Decimals a comparison shows both sides with: 2, or more until a strict
/// comparison's two numbers read differently.
fn comparison_decimals(a: &Measure, b: &Measure, cmp: Cmp) -> usize {
    let mut d = 2;
    while matches!(cmp, Cmp::Lt | Cmp::Gt) && a.value != b.value && a.shown_at(d) == b.shown_at(d) && d < 12 {
        d += 1;
    }
    d
}

fn cmp_words(c: Cmp) -> &'static str {
    match c {
        Cmp::Le => "at most",
        Cmp::Lt => "below",
        Cmp::Ge => "at least",
        Cmp::Gt => "above",
        Cmp::Eq => "equal to",
    }
}

fn cmp_holds(c: Cmp, a: f64, b: f64, tol: f64) -> bool {
    match c {
        Cmp::Le => a <= b + tol,
        Cmp::Lt => a < b - tol,
        Cmp::Ge => a + tol >= b,
        Cmp::Gt => a > b + tol,
        Cmp::Eq => (a - b).abs() <= tol,
    }
}

/// The statement as a clause (no capital, no full stop); `None` when it is
/// not to be stated (a bound whose precondition fails).
pub fn clause(s: &Statement) -> Option<String> {
    Some(match s {
        Statement::Value(m) => format!("{} is {}", m.subject(), m.shown()),
        Statement::Comparison { a, cmp, b } => {
            let right = if a.q == b.q { format!("that {}", b.at) } else { b.subject() };
            let d = comparison_decimals(a, b, *cmp);
            format!("{} ({}) is {} {right} ({})", a.subject(), a.shown_at(d), cmp_words(*cmp), b.shown_at(d))
        }
        Statement::Versus { m, cmp, what, level } => {
            let lv = Measure { value: *level, ..m.clone() };
            let d = comparison_decimals(m, &lv, *cmp);
            format!("{} ({}) is {} {what} ({})", m.subject(), m.shown_at(d), cmp_words(*cmp), lv.shown_at(d))
        }
        Statement::Bound { m, what, bound, pre } => {
            if !pre.iter().all(|p| p.cond.holds()) {
                return None;
            }
            let mut t =
                format!("{} is {}, within {what}: {} = {}", m.subject(), m.shown(), bound.substituted(), bound.shown());
            if !pre.is_empty() {
                t.push_str(" (for ");
                t.push_str(&pre.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join(" and "));
                t.push(')');
            }
            t
        }
        Statement::Best { set, order, items, higher, winner } => {
            let (label, m) = items.get(*winner)?;
            let ext = if *higher { "highest" } else { "lowest" };
            let tie = if items.len() > 1 {
                format!(", the {order} that reaches the {ext} {}", m.q.name())
            } else {
                String::new()
            };
            format!("{set}, {label} has the best {}, {}{tie}", m.q.name(), m.shown())
        }
        Statement::Verdict { claim, horizon } => format!("within {horizon}, {}", clause(claim)?),
        Statement::Cause { effect, cause, without } => {
            let mut t = format!("{}, because {}", clause(effect)?, clause(cause)?);
            if let Some(w) = without {
                t.push_str("; without that, ");
                t.push_str(&clause(w)?);
            }
            t
        }
        Statement::Arith { label, formula, eq } => {
            format!("{label}: {formula} = {} = {}", eq.substituted(), eq.shown())
        }
        Statement::Result { what, eq } => format!("{} {what}", eq.shown()),
        Statement::Relation { a_label, a, cmp, b_label, b } => {
            let side = |l: &str, x: &Arith| {
                let sub = x.substituted();
                let shown = x.shown();
                if sub == shown || sub == shown.trim_start_matches("≈ ") {
                    format!("{l} ({shown})")
                } else {
                    format!("{l} ({sub} = {shown})")
                }
            };
            format!("{} is {} {}", side(a_label, a), cmp_words(*cmp), side(b_label, b))
        }
        Statement::SafeQueue { workers, budget_ms, service_ms, queue } => format!(
            "{queue} queued requests is the largest queue behind {workers} worker(s) whose worst time in the system with a fixed service time of {} ms, (ceil(queue / workers) + 1) × service, fits the {} ms budget",
            given(*service_ms),
            given(*budget_ms)
        ),
        Statement::Assumption(text) => text.trim_end_matches('.').to_owned(),
        Statement::Definition(q) => q.definition(),
    })
}

/// The statement as a sentence: capitalised, with a full stop.
pub fn render(s: &Statement) -> Option<String> {
    let c = clause(s)?;
    let mut chars = c.chars();
    let first = chars.next()?;
    Some(format!("{}{}.", first.to_uppercase(), chars.as_str()))
}

fn check_value(m: &Measure, logs: &Logs) -> Result<f64, String> {
    check_value_at(m, logs, 2)
}

fn check_value_at(m: &Measure, logs: &Logs, decimals: usize) -> Result<f64, String> {
    let log = logs.get(&m.run).ok_or_else(|| format!("no request log for run {}", m.run))?;
    let exact = log.eval(&m.q);
    let shown = m.shown_at(decimals);
    let number = shown.strip_suffix(m.q.unit.suffix()).unwrap_or(&shown);
    let n: f64 = number.parse().map_err(|_| format!("{shown}: not a number"))?;
    let (below, above) = log.slack(&m.q, exact);
    let half = last_unit(number) / 2.0 + 1e-9 * exact.abs().max(1.0);
    if n < exact - below - half || n > exact + above + half {
        return Err(format!("the {} {} is {exact} by its requests, shown {shown}", m.q.name(), m.at));
    }
    Ok(exact)
}

/// Re-evaluates a statement against the runs' request logs; `Err` says why it is false.
pub fn check(s: &Statement, logs: &Logs) -> Result<(), String> {
    match s {
        Statement::Value(m) => check_value(m, logs).map(|_| ()),
        Statement::Comparison { a, cmp, b } => {
            let d = comparison_decimals(a, b, *cmp);
            let (x, y) = (check_value_at(a, logs, d)?, check_value_at(b, logs, d)?);
            if !cmp_holds(*cmp, x, y, 0.0) {
                return Err(format!("{x} is not {} {y}", cmp_words(*cmp)));
            }
            if matches!(cmp, Cmp::Lt | Cmp::Gt) && a.shown_at(d) == b.shown_at(d) {
                return Err(format!("{} and {} show no difference", a.shown_at(d), b.shown_at(d)));
            }
            Ok(())
        }
        Statement::Versus { m, cmp, level, .. } => {
            let lv = Measure { value: *level, ..m.clone() };
            let d = comparison_decimals(m, &lv, *cmp);
            let x = check_value_at(m, logs, d)?;
            if !cmp_holds(*cmp, x, *level, 0.0) {
                return Err(format!("{x} is not {} {level}", cmp_words(*cmp)));
            }
            if matches!(cmp, Cmp::Lt | Cmp::Gt) && m.shown_at(d) == lv.shown_at(d) {
                return Err(format!("{} shows no difference from {level}", m.shown_at(d)));
            }
            Ok(())
        }
        Statement::Bound { m, bound, pre, .. } => {
            if let Some(p) = pre.iter().find(|p| !p.cond.holds()) {
                return Err(format!("bound stated though its precondition \"{}\" fails", p.text));
            }
            bound.check()?;
            let x = check_value(m, logs)?;
            let limit = arith::value(&bound.expr);
            if x > limit + 1e-9 * limit.abs().max(1.0) {
                return Err(format!("{x} passes the bound {}", bound.result));
            }
            Ok(())
        }
        Statement::Best { items, higher, winner, .. } => {
            let vals = items.iter().map(|(_, m)| check_value(m, logs)).collect::<Result<Vec<f64>, _>>()?;
            let best = vals.iter().copied().fold(if *higher { f64::NEG_INFINITY } else { f64::INFINITY }, |a, b| {
                if *higher { a.max(b) } else { a.min(b) }
            });
            let first = vals.iter().position(|v| *v == best);
            if first != Some(*winner) {
                return Err(format!("the first item at the best value {best} is {first:?}, not {winner}"));
            }
            Ok(())
        }
        Statement::Verdict { claim, .. } => check(claim, logs),
        Statement::Cause { effect, cause, without } => {
            check(effect, logs)?;
            check(cause, logs)?;
            without.as_deref().map_or(Ok(()), |w| check(w, logs))
        }
        Statement::Arith { eq, .. } | Statement::Result { eq, .. } => eq.check(),
        Statement::Relation { a, cmp, b, .. } => {
            a.check()?;
            b.check()?;
            use std::cmp::Ordering::{Equal, Greater, Less};
            let ord = arith::compare(&a.expr, &b.expr);
            let holds = match cmp {
                Cmp::Le => ord != Greater,
                Cmp::Lt => ord == Less,
                Cmp::Ge => ord != Less,
                Cmp::Gt => ord == Greater,
                Cmp::Eq => ord == Equal,
            };
            if !holds {
                return Err(format!("{} is not {} {}", a.shown(), cmp_words(*cmp), b.shown()));
            }
            Ok(())
        }
        Statement::SafeQueue { workers, budget_ms, service_ms, queue } => {
            match crate::claim::largest_safe_queue(*workers, *budget_ms, *service_ms) {
                Some(q) if q == *queue => Ok(()),
                other => Err(format!("the largest queue within the budget is {other:?}, not {queue}")),
            }
        }
        Statement::Assumption(_) | Statement::Definition(_) => Ok(()),
    }
}

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
