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
//! effect's absence in the run without the cause, all checked), a
//! [`Statement::Counterfactual`] (a quantity on the run shown and on a run
//! that differs from it by one named change, both checked), shown
//! [`Statement::Arith`]metic with operands as given, and the marked
//! [`Statement::Assumption`] and [`Statement::Definition`]. [`Doc`] builds an
//! [`crate::calc::Explanation`] from them: every string in it is a rendering, and every
//! rendering travels in its `claims` as [`crate::claim::Fact::Statement`].
//! The full rules: `docs/explanations.md`.

pub mod arith;
mod check;
mod doc;
pub mod evidence;
pub mod quantity;
mod render;

use serde::Serialize;

pub use arith::{Arith, given};
pub use check::check;
pub use doc::{Doc, sentences};
pub use evidence::{Logs, Req, RunLog, whole_ms};
pub use quantity::{Quantity, Unit};
pub use render::{clause, render};

use crate::claim::Cmp;
use render::cmp_holds;

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

/// The direction a counterfactual states: how `then` compares with `now`.
pub fn direction(then: f64, now: f64) -> Cmp {
    match then.total_cmp(&now) {
        std::cmp::Ordering::Less => Cmp::Lt,
        std::cmp::Ordering::Equal => Cmp::Eq,
        std::cmp::Ordering::Greater => Cmp::Gt,
    }
}

/// "`a` is above `b`" or "`a` is at most `b`": the relation that holds,
/// found by the checker's own exact comparison of the two arithmetics.
pub fn above_or_at_most(a_label: impl Into<String>, a: Arith, b_label: impl Into<String>, b: Arith) -> Statement {
    let above = arith::compare(&a.expr, &b.expr) == std::cmp::Ordering::Greater;
    Statement::Relation {
        a_label: a_label.into(),
        a,
        cmp: if above { Cmp::Gt } else { Cmp::Le },
        b_label: b_label.into(),
        b,
    }
}

/// What a [`Statement::WindowP99`] found.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum WindowFinding {
    /// No window has an answer within the deadline: none is judged.
    NoAnswers,
    /// No judged window is above the level.
    NoneAbove {
        /// Windows with an answer within the deadline (judged).
        judged: usize,
        /// Windows from the first one counted to the run's end.
        windows: usize,
    },
    /// Some are; the last of them ends `after_ms` after the start time, and
    /// a later window is judged (and so within the level).
    LastAboveEnds {
        /// ms from the start time to that window's end.
        after_ms: f64,
    },
    /// The last judged window is above the level.
    StillAbove,
}

impl WindowFinding {
    /// The finding on windows `(index, p99)` judged from `from_ms` on, of
    /// `windows` windows counted.
    pub fn of(p99s: &[(usize, u64)], windows: usize, width_ms: f64, from_ms: f64, level_ms: f64) -> WindowFinding {
        let above = |p: u64| p as f64 > level_ms;
        match p99s.iter().rposition(|&(_, p)| above(p)) {
            None if p99s.is_empty() => WindowFinding::NoAnswers,
            None => WindowFinding::NoneAbove { judged: p99s.len(), windows },
            Some(k) if k + 1 == p99s.len() => WindowFinding::StillAbove,
            Some(k) => WindowFinding::LastAboveEnds { after_ms: (p99s[k].0 + 1) as f64 * width_ms - from_ms },
        }
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
    /// What one change to the run shown would do: a quantity on the run
    /// shown (`now`) and on a run the lab made that differs from it only by
    /// `change` (`then`), and which way it moves. Rendered "Without retries
    /// (max retries 0), the goodput at 300 rps offered would be higher: 10
    /// rps instead of 0.4 rps."; checked on both runs' records, so both runs
    /// must be in the logs. Not stated when it names one run twice, or two
    /// quantities or settings.
    Counterfactual {
        /// The change, as the sentence opens with it ("without retries (max
        /// retries 0)", "with limit 20 instead of limit 200").
        change: String,
        /// The quantity on the run shown; its `at` names the setting both
        /// runs share ("at 300 rps offered").
        now: Measure,
        /// The same quantity, at the same `at`, on the changed run.
        then: Measure,
        /// How `then` compares with `now` (higher, lower, the same).
        cmp: Cmp,
        /// Both runs saw the same first tries (the same arrival times): the
        /// checker verifies it. `false` where the change is the arrivals.
        same_arrivals: bool,
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
    /// A verdict on the run's timeline: its windows of `width_ms` of run
    /// time, from the one holding `from_ms` to the run's end, each judged by
    /// the p99 of its answers within the deadline (each time rounded to
    /// whole ms; a window without such an answer is not judged) against
    /// `level_ms`. Checked by re-forming the windows from the run's records.
    WindowP99 {
        /// The run's key (the whole run's log).
        run: String,
        /// Whose run, as the sentence opens ("for fixed").
        at: String,
        /// Window width, ms.
        width_ms: f64,
        /// The time the windows are counted from, ms.
        from_ms: f64,
        /// What happens then ("the deploy").
        from_words: String,
        /// The level a window's p99 is judged against, ms.
        level_ms: f64,
        /// The run's length, ms (its last window may be cut short).
        run_ms: f64,
        /// What the windows show.
        finding: WindowFinding,
    },
    /// The recovery rule's verdict on one run (`docs/metastable.md`): its
    /// windows re-formed from the run's records and judged healthy or not
    /// by `rule`; within the time the run lasts after the trigger's end.
    Recovery {
        /// The run's key.
        run: String,
        /// Whose run, as the sentence opens ("naive").
        who: String,
        /// The windows, the trigger's end and what healthy means.
        rule: crate::stochastic::Rule,
        /// The verdict stated.
        verdict: crate::stochastic::Verdict,
        /// Where stated (a run that did not recover): the capacity, rps,
        /// its last window's tries (retries among them) exceed.
        sustained_over: Option<f64>,
        /// Where stated: the start, ms, of the first whole window before
        /// the trigger's start that was not healthy (the policy was failing
        /// before the trigger).
        unhealthy_before: Option<f64>,
        /// The trigger's start, ms.
        trigger_at_ms: f64,
    },
    /// Of a grid of runs (one policy at every trigger size × length), how
    /// many did not recover, and per length the sizes that did not.
    Phase {
        /// Whose runs ("naive").
        who: String,
        /// Each cell (one per size and length): its run's key, size (×),
        /// length (ms) and rule.
        cells: Vec<(String, f64, u32, crate::stochastic::Rule)>,
        /// Cells that did not recover.
        stuck: usize,
        /// Per length with a cell that did not recover, in the order given:
        /// the length and its sizes that did not, ascending.
        rows: Vec<(u32, Vec<f64>)>,
    },
    /// A search upward over one setting, a run per value, stopping at the
    /// first value that does not recover: the largest value before it.
    Search {
        /// The setting, as named ("naive retry count").
        what: String,
        /// Each value tried, in order, with its run's key and rule.
        tried: Vec<(f64, String, crate::stochastic::Rule)>,
        /// The largest value with every value up to it recovered.
        answer: Option<f64>,
        /// The value the search stopped at, if one did not recover.
        stuck_at: Option<f64>,
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
            Statement::Counterfactual { .. } => "counterfactual",
            Statement::Arith { .. } => "arithmetic",
            Statement::Relation { .. } => "relation",
            Statement::Result { .. } => "result",
            Statement::SafeQueue { .. } => "safe-queue",
            Statement::WindowP99 { .. } => "window-verdict",
            Statement::Recovery { .. } => "verdict",
            Statement::Phase { .. } => "phase",
            Statement::Search { .. } => "search",
            Statement::Assumption(_) => "assumption",
            Statement::Definition(_) => "definition",
        }
    }
}
