//! Claims, not prose. Every sentence an explanation states about a run (a
//! bound, a comparison, a best or worst, a winner, "nothing is dropped",
//! "after the deploy") is built from a [`Claim`]: its text, its kind, which
//! variant was chosen (the claim, or the fallback that says what is true
//! instead) and the [`Fact`] that makes it true. The explain code decides
//! the sentence from the report's fields; [`Evidence`] re-reads the run from
//! its CSV tables, by a separate path, and [`check`] re-evaluates every shown
//! claim against it. Assumptions and definitions are marked [`Fact::Assumed`].

pub mod equation;
pub mod exact;

use serde::Serialize;

pub use equation::{Equation, Expr};

use crate::experiments::Report;

/// How a claim's number compares with the evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Cmp {
    /// At most.
    Le,
    /// Below.
    Lt,
    /// At least.
    Ge,
    /// Above.
    Gt,
    /// Equal (within the fact's tolerance).
    Eq,
}

impl Cmp {
    fn holds(self, a: f64, b: f64, tol: f64) -> bool {
        match self {
            Cmp::Le => a <= b + tol,
            Cmp::Lt => a < b + tol,
            Cmp::Ge => a + tol >= b,
            Cmp::Gt => a + tol > b,
            Cmp::Eq => (a - b).abs() <= tol,
        }
    }
}

/// How a column is reduced before the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Agg {
    /// The largest value.
    Max,
    /// The smallest value.
    Min,
    /// The sum.
    Sum,
    /// How many rows match.
    Count,
}

/// What makes a claim true, in terms the checker can re-evaluate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Fact {
    /// An assumption or a definition, marked as such: not a fact about the run.
    Assumed,
    /// Shown arithmetic: recomputes from its shown operands.
    Equation(Equation),
    /// The limit calculator ships `shipped` with worst time `worst_ms`: the
    /// largest queue whose exact bound `(ceil(q / w) + 1) × S` fits the budget.
    Limit {
        /// Workers.
        workers: u32,
        /// Budget, ms.
        budget_ms: f64,
        /// Service time, ms.
        service_ms: f64,
        /// The stated limit.
        shipped: u64,
        /// The stated worst time in the system, ms.
        worst_ms: f64,
    },
    /// A reduction of one table column (rows filtered by `filter`, each
    /// `(column, value)` pair equal as text) compared with `value`.
    Column {
        /// CSV file name.
        table: &'static str,
        /// Row filter.
        filter: Vec<(&'static str, String)>,
        /// Column.
        column: &'static str,
        /// Reduction.
        agg: Agg,
        /// Comparison.
        cmp: Cmp,
        /// The stated value.
        value: f64,
        /// Tolerance (the stated value's rounding).
        tol: f64,
    },
    /// The rows (by `key`) reaching the best `column` value among rows
    /// matching `filter` are exactly `names` (several names: a tie).
    Best {
        /// CSV file name.
        table: &'static str,
        /// Row filter.
        filter: Vec<(&'static str, String)>,
        /// The column naming a row.
        key: &'static str,
        /// The compared column.
        column: &'static str,
        /// Higher is better.
        higher: bool,
        /// Only rows whose `(column)` value is at most this take part.
        within: Option<(&'static str, f64)>,
        /// 0: the names are exactly the rows at the best value. Above 0 (a
        /// table rounded coarser than the model): every name is within
        /// `tol` of the best and one of them is at it.
        tol: f64,
        /// The stated winners.
        names: Vec<String>,
    },
    /// A typed statement ([`crate::statement`]), checked against the runs'
    /// request logs.
    Statement(Box<crate::statement::Statement>),
    /// Arithmetic on the parameters, exact: `lhs cmp rhs` as stated.
    Compare {
        /// Left side.
        lhs: f64,
        /// Comparison.
        cmp: Cmp,
        /// Right side.
        rhs: f64,
    },
}

/// One stated fact: its kind, the variant chosen, the text shown and what makes it true.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Claim {
    /// The kind ("bound", "best", "winner", "deploy", …).
    pub kind: &'static str,
    /// Which sentence was chosen: "claim", or the name of a fallback.
    pub variant: &'static str,
    /// The text as shown (a substring of the explanation).
    pub text: String,
    /// What makes it true.
    pub fact: Fact,
}

impl Claim {
    /// A claim.
    pub fn new(kind: &'static str, variant: &'static str, text: impl Into<String>, fact: Fact) -> Claim {
        Claim { kind, variant, text: text.into(), fact }
    }
}

/// One CSV table as text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CsvTable {
    /// Column names.
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl CsvTable {
    fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    fn matching<'a>(&'a self, filter: &'a [(&'static str, String)]) -> Result<Vec<&'a Vec<String>>, String> {
        let idx: Vec<(usize, &String)> = filter
            .iter()
            .map(|(c, v)| self.col(c).map(|i| (i, v)).ok_or_else(|| format!("no column {c}")))
            .collect::<Result<_, _>>()?;
        let same = |cell: &String, want: &String| {
            cell == want || matches!((num(cell), num(want)), (Some(a), Some(b)) if (a - b).abs() < 0.051)
        };
        Ok(self.rows.iter().filter(|r| idx.iter().all(|(i, v)| r.get(*i).is_some_and(|c| same(c, v)))).collect())
    }
}

/// The run re-read from its CSV output: a path separate from the code that
/// chose the sentences.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evidence {
    /// Each table by file name.
    pub tables: Vec<(&'static str, CsvTable)>,
    /// Every request of the runs the statements name, re-run with the
    /// model's log hook (empty for the calculators and for experiments that
    /// state no run statement).
    pub logs: crate::statement::Logs,
}

impl Evidence {
    /// Parses every table the report writes.
    pub fn of(report: &Report) -> Evidence {
        let tables = report
            .tables()
            .iter()
            .map(|t| {
                let csv = t.csv();
                let mut lines = csv.lines();
                let header = lines.next().unwrap_or("").split(',').map(str::to_owned).collect();
                let rows = lines.map(|l| l.split(',').map(str::to_owned).collect()).collect();
                (t.spec.file, CsvTable { header, rows })
            })
            .collect();
        Evidence { tables, logs: report.request_logs() }
    }

    fn table(&self, name: &str) -> Result<&CsvTable, String> {
        self.tables.iter().find(|(n, _)| *n == name).map(|(_, t)| t).ok_or_else(|| format!("no table {name}"))
    }
}

fn num(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok()
}

/// The largest queue whose worst time in the system with fixed service,
/// `(ceil(q / w) + 1) × S`, fits `budget`: found by stepping, not by the
/// calculator's formula.
pub fn largest_safe_queue(workers: u32, budget_ms: f64, service_ms: f64) -> Option<u64> {
    let fits = |k: u64| exact::times_at_most(k, service_ms, budget_ms);
    let mut k = (budget_ms / service_ms).floor().max(0.0) as u64;
    while k > 0 && !fits(k) {
        k -= 1;
    }
    while fits(k + 1) {
        k += 1;
    }
    (k >= 1).then(|| (k - 1) * u64::from(workers))
}

/// Re-evaluates one claim against the evidence; `Err` says why it is false.
pub fn check(c: &Claim, ev: &Evidence) -> Result<(), String> {
    let fail = |why: String| Err(format!("{} ({}): \"{}\": {why}", c.kind, c.variant, c.text));
    match &c.fact {
        Fact::Assumed => Ok(()),
        Fact::Equation(eq) => equation::check_rendered(eq).or_else(fail),
        Fact::Limit { workers, budget_ms, service_ms, shipped, worst_ms } => {
            let Some(best) = largest_safe_queue(*workers, *budget_ms, *service_ms) else {
                return fail("no queue fits the budget".into());
            };
            let w = u64::from((*workers).max(1));
            let worst = (shipped.div_ceil(w) + 1) as f64 * service_ms;
            if *shipped != best {
                fail(format!("the largest queue within the budget is {best}"))
            } else if (worst - worst_ms).abs() > 1e-9 * worst.max(1.0) {
                fail(format!("the worst time of {shipped} is {worst} ms"))
            } else {
                Ok(())
            }
        }
        Fact::Column { table, filter, column, agg, cmp, value, tol } => {
            let t = match ev.table(table) {
                Ok(t) => t,
                Err(e) => return fail(e),
            };
            let Some(i) = t.col(column) else { return fail(format!("no column {column}")) };
            let rows = match t.matching(filter) {
                Ok(r) => r,
                Err(e) => return fail(e),
            };
            let vals: Vec<f64> = rows.iter().filter_map(|r| r.get(i).and_then(|s| num(s))).collect();
            let got = match agg {
                Agg::Max => vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                Agg::Min => vals.iter().copied().fold(f64::INFINITY, f64::min),
                Agg::Sum => vals.iter().sum(),
                Agg::Count => rows.len() as f64,
            };
            if matches!(agg, Agg::Max | Agg::Min) && vals.is_empty() {
                return fail(format!("no {column} values in {table}"));
            }
            if cmp.holds(got, *value, *tol) { Ok(()) } else { fail(format!("{agg:?} of {table}:{column} is {got}")) }
        }
        Fact::Best { table, filter, key, column, higher, within, tol, names } => {
            let t = match ev.table(table) {
                Ok(t) => t,
                Err(e) => return fail(e),
            };
            let (Some(k), Some(i)) = (t.col(key), t.col(column)) else {
                return fail(format!("no column {key} or {column}"));
            };
            let rows = match t.matching(filter) {
                Ok(r) => r,
                Err(e) => return fail(e),
            };
            let w = within.and_then(|(c, max)| Some((t.col(c)?, max)));
            let rows: Vec<_> = rows
                .into_iter()
                .filter(|r| w.is_none_or(|(j, max)| r.get(j).and_then(|s| num(s)).is_some_and(|v| v <= max)))
                .collect();
            let vals: Vec<(String, f64)> =
                rows.iter().filter_map(|r| Some((r.get(k)?.clone(), num(r.get(i)?)?))).collect();
            let best =
                vals.iter().map(|(_, v)| *v).fold(if *higher { f64::NEG_INFINITY } else { f64::INFINITY }, |a, b| {
                    if *higher { a.max(b) } else { a.min(b) }
                });
            let mut got: Vec<String> = vals.iter().filter(|(_, v)| *v == best).map(|(n, _)| n.clone()).collect();
            let near: Vec<&String> = vals.iter().filter(|(_, v)| (v - best).abs() <= *tol).map(|(n, _)| n).collect();
            let mut want = names.clone();
            got.sort();
            got.dedup();
            want.sort();
            want.dedup();
            let ok = if *tol == 0.0 {
                got == want
            } else {
                want.iter().all(|n| near.contains(&n)) && want.iter().any(|n| got.contains(n))
            };
            if ok { Ok(()) } else { fail(format!("best by {column} in {table}: {}", got.join(", "))) }
        }
        Fact::Statement(st) => crate::statement::check(st, &ev.logs).or_else(fail),
        Fact::Compare { lhs, cmp, rhs } => {
            if cmp.holds(*lhs, *rhs, 0.0) {
                Ok(())
            } else {
                fail(format!("{lhs} {cmp:?} {rhs} is false"))
            }
        }
    }
}

/// Words no explanation may use: internal seed-document names, and
/// "deterministic" for a seeded random model.
pub fn lint(experiment: &str, text: &str) -> Result<(), String> {
    let lower = text.to_lowercase();
    for bad in ["seed 000", "seed 001", "seed 002", "seed 003", "seed 004", "nan"] {
        if lower
            .split(|c: char| !c.is_alphanumeric() && c != ' ')
            .any(|w| w.contains(bad) && (bad != "nan" || w == bad))
        {
            return Err(format!("{experiment}: says \"{bad}\": {text}"));
        }
    }
    // Each experiment's own words to avoid live in its folder (`hooks.rs`).
    match crate::Experiment::named(experiment) {
        Ok(e) => crate::experiments::lint_hook(e.id, &lower).map_err(|why| format!("{experiment}: {why}")),
        Err(_) => Ok(()),
    }
}

/// Checks a report: every claim against the evidence, each claim's text
/// shown in its explanation, and the lint. `Ok` holds the claims checked.
pub fn check_report(experiment: &str, report: &Report) -> Result<Vec<Claim>, String> {
    let ev = Evidence::of(report);
    let mut all = Vec::new();
    for e in report.explanations() {
        let text = e.to_text();
        lint(experiment, &text)?;
        for c in &e.claims {
            if !text.contains(&c.text) {
                return Err(format!("{experiment}: claim not shown: {}", c.text));
            }
            check(c, &ev).map_err(|why| format!("{experiment}: {why}"))?;
            all.push(c.clone());
        }
        for st in &e.steps {
            if let Some(eq) = &st.eq {
                check(&Claim::new("arithmetic", "claim", st.substituted.clone(), Fact::Equation(eq.clone())), &ev)
                    .map_err(|why| format!("{experiment}: {why}"))?;
                all.push(Claim::new("arithmetic", "claim", st.substituted.clone(), Fact::Assumed));
            }
        }
    }
    Ok(all)
}
