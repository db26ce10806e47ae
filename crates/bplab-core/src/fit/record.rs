//! The number, with its record: the limit calculator at the fitted workers
//! and mean service time, with the record's measurement filled from the
//! user's files, and the existing edge exports carrying it.
//!
//! The budget is from the caller's send to its answer; the fitted time
//! outside the server (network, the client's own delays) takes its share,
//! so the calculator is given the rest, and the record's worst time adds it
//! back. When the fitted service time's p99 with that time is already past
//! the budget, no limit meets it and none is shipped.

use super::evidence::FitLogs;
use super::explain::{Subject, as_shown, explain_one};
use super::report::Fit;
use super::said::Said;
use crate::calc::{BUDGET, CALC_PARAMS, EdgeTarget, LimitInput, LimitResult, export, fmt_num, limit, show};
use crate::claim::Cmp;
use crate::claim::equation::{add, ceil, div, mul, n, sub, u};
use crate::error::ConfigError;
use crate::statement::{Arith, Statement};

/// The limit derived from a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitRecord {
    /// What the calculator was given: the fitted workers, the fitted mean
    /// service time to 0.1 ms, and the server's share of the budget (the
    /// budget less the fitted time outside the server, to 0.01 ms down).
    pub input: LimitInput,
    /// The budget asked for, from the caller's send to its answer, ms.
    pub budget_ms: f64,
    /// Its result, with the record's measurement field describing the fit
    /// and its criterion, number and reversals counting the time outside
    /// the server.
    pub result: LimitResult,
}

/// What a budget gives on a fit.
#[derive(Clone, Debug, PartialEq)]
pub enum FitLimit {
    /// A limit, with its record.
    Record(Box<FitRecord>),
    /// No limit meets the budget: why, in checked sentences.
    NoLimit(String),
}

/// The service time the record uses: the fitted mean to 0.1 ms.
fn service_ms(fit: &Fit) -> f64 {
    (fit.mean_service_ms * 10.0).round().max(1.0) / 10.0
}

/// The statement's sentence when it checks (arithmetic on the numbers as
/// shown); `None` when it does not, and then it is not said.
fn said(s: Statement) -> Option<String> {
    let s = Said::S(s);
    s.check(&FitLogs::default()).ok()?;
    s.render()
}

/// `a_label (x + overhead) cmp the budget`.
fn with_overhead(a_label: &str, a: crate::claim::equation::Expr, cmp: Cmp, budget_ms: f64) -> Statement {
    Statement::Relation {
        a_label: a_label.into(),
        a: Arith::new(a, "ms"),
        cmp,
        b_label: "the budget".into(),
        b: Arith::new(u(budget_ms, "ms"), "ms"),
    }
}

/// The calculator's limit for `budget_ms` (from send to answer) at the
/// fitted server, or why no limit meets it; an error names the value (a
/// budget out of range).
pub fn record(fit: &Fit, budget_ms: f64) -> Result<FitLimit, ConfigError> {
    let budget_ms = CALC_PARAMS[BUDGET].check(budget_ms)?;
    let (o, s, w) = (as_shown(fit.overhead_ms), service_ms(fit), fit.workers);
    let p99 = as_shown(fit.service.quantile_ms(0.99));
    let outside = "plus the time outside the server";
    let past = [
        with_overhead(&format!("the fitted service time's p99 {outside}"), add(n(p99), n(o)), Cmp::Gt, budget_ms),
        with_overhead(
            &format!("the record's service time (the fitted mean to 0.1 ms) {outside}"),
            add(n(s), n(o)),
            Cmp::Ge,
            budget_ms,
        ),
    ];
    if let Some(why) = past.into_iter().find_map(said) {
        let so = said(Statement::Assumption(format!(
            "so no queue limit meets the {} ms budget in the fitted model, not even a queue of 0: raise the budget or make the service faster",
            fmt_num(budget_ms)
        )))
        .unwrap_or_default();
        return Ok(FitLimit::NoLimit(format!("{why} {so}")));
    }
    // The server's share, to 0.01 ms down (at most the exact difference).
    let server_ms = ((budget_ms - o) * 100.0 + 1e-6).floor() / 100.0;
    let input = LimitInput { workers: w, budget_ms: server_ms, service_ms: s };
    let mut result = limit(input)?;
    let q = result.record_limit as f64;
    let r = &mut result.record;
    r.measurement = explain_one(Subject::Measurement(fit));
    let mut criterion = vec![
        said(Statement::Assumption(format!(
            "an admitted request spends at most {} ms from the caller's send to its answer (a target set under the p99 criterion, to leave room for the tail)",
            fmt_num(budget_ms)
        ))),
        said(Statement::Arith {
            label: "the server's share of the budget".into(),
            formula: "budget − time outside the server".into(),
            eq: Arith::with_result(sub(n(budget_ms), n(o)), server_ms, "ms"),
        }),
    ];
    // The drain rate under overload only when a saturated load measured the
    // capacity: without one the workers are a lower bound and the rate unknown.
    if fit.capacity_rps.is_some() {
        criterion.push(said(Statement::Arith {
            label: "under overload, delivered answers hold near the drain rate".into(),
            formula: "workers × 1000 / service".into(),
            eq: Arith::new(div(mul(n(f64::from(w)), n(1000.0)), n(s)), "/s"),
        }));
    }
    r.criterion = criterion.into_iter().flatten().collect::<Vec<_>>().join(" ");
    let worst = add(mul(add(ceil(div(n(q), n(f64::from(w)))), n(1.0)), n(s)), n(o));
    if let Some(t) = said(with_overhead("the worst time from send to answer", worst, Cmp::Le, budget_ms)) {
        r.number = format!("{} {t}", r.number);
    }
    r.reverse = r.reverse.replacen(
        &format!("A caller whose budget is not {} ms.", show(server_ms)),
        &format!(
            "A caller whose budget is not {} ms. A time outside the server other than {} ms, which takes its share of the budget.",
            show(budget_ms),
            fmt_num(o)
        ),
        1,
    );
    Ok(FitLimit::Record(Box::new(FitRecord { input, budget_ms, result })))
}

impl FitRecord {
    /// The edge configuration for `target`, its comments carrying this record.
    pub fn export(&self, target: EdgeTarget) -> String {
        export(target, &self.input, &self.result)
    }
}
