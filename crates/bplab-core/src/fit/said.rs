//! The fit's statements: the framework's [`Statement`]s over the fit's
//! request logs ([`super::evidence`]), and the few kinds the fit needs that
//! the framework has no quantity for (a model-beside-measurement error, the
//! mean of a sample, a count of loads within tolerance, the tune's choice),
//! each with its renderer and its checker in this file.

use serde::Serialize;

use super::estimate::rel;
use super::evidence::{self, FitLogs, LOW_LOAD};
use super::tune::{Pick, Scored};
use crate::calc::fmt_num;
use crate::claim::Cmp;
use crate::statement::quantity::{Count, Rule, Time};
use crate::statement::{self, Measure, Quantity, Statement, Unit};

/// Answered requests per second of the window (the tools' "ok/s").
pub const OK_RPS: Quantity = Quantity { short: None, rule: Rule::PerSecond(Count::Answered), unit: Unit::Rps };
/// Median time in the system of answered requests.
pub const P50_MS: Quantity =
    Quantity { short: None, rule: Rule::Percentile(Time::InSystem, Count::Answered, 50), unit: Unit::Ms };
/// p99 time in the system of answered requests.
pub const P99_MS: Quantity = crate::statement::quantity::P99_ANSWERED_MS;

/// One side of a model-beside-measurement statement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Side {
    /// A quantity on a per-request log.
    Log(Measure),
    /// What a table-only load's file states (`ok/s`, p50 or p99 by the quantity).
    Table {
        /// The quantity (one of [`OK_RPS`], [`P50_MS`], [`P99_MS`] and the refused count).
        q: Quantity,
        /// File.
        file: String,
        /// Index in it.
        index: usize,
        /// The value stated.
        value: f64,
    },
}

impl Side {
    fn measure(&self) -> Measure {
        match self {
            Side::Log(m) => m.clone(),
            Side::Table { q, value, .. } => Measure::new(*q, "", "", *value),
        }
    }

    /// The value stated.
    pub fn value(&self) -> f64 {
        self.measure().value
    }

    /// The value stated, shown.
    pub fn shown(&self) -> String {
        self.measure().shown()
    }

    fn stated(&self) -> f64 {
        let s = self.shown();
        s.split(' ').next().and_then(|x| x.parse().ok()).unwrap_or(f64::NAN)
    }

    /// Re-evaluates the side; the value from the evidence.
    fn check(&self, ev: &FitLogs) -> Result<f64, String> {
        match self {
            Side::Log(m) => {
                statement::check(&Statement::Value(m.clone()), &ev.logs)?;
                let log = ev.logs.get(&m.run).ok_or_else(|| format!("no log {}", m.run))?;
                Ok(log.eval(&m.q))
            }
            Side::Table { q, file, index, value } => {
                let t = ev.table(file, *index).ok_or_else(|| format!("no table for {file} load {index}"))?;
                let exact = if *q == crate::statement::quantity::REFUSED {
                    t.refused as f64
                } else if *q == OK_RPS {
                    if t.duration_ms > 0.0 { t.ok as f64 * 1000.0 / t.duration_ms } else { 0.0 }
                } else if *q == P50_MS {
                    t.p50_ms.ok_or("the file states no median")?
                } else {
                    t.p99_ms.ok_or("the file states no p99")?
                };
                let shown = self.shown();
                let n = self.stated();
                let half = crate::claim::equation::last_unit(shown.split(' ').next().unwrap_or("")) / 2.0;
                if (n - exact).abs() > half + 1e-9 * exact.abs().max(1.0) {
                    return Err(format!("{file} load {index} states {exact}, shown {shown} ({value})"));
                }
                Ok(exact)
            }
        }
    }
}

/// `(model − measured) / measured` in %, to 1 decimal, on the numbers as shown.
fn error_pct(model: f64, measured: f64) -> f64 {
    let e = if measured > 0.0 {
        (model - measured) / measured
    } else if model > 0.0 {
        1.0
    } else {
        0.0
    };
    libm::round(e * 1000.0) / 10.0
}

fn signed(x: f64) -> String {
    if x > 0.0 { format!("+{}", fmt_num(x)) } else { fmt_num(x) }
}

/// A statement about the user's data, the fitted model or the tune.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Said {
    /// One of the framework's statements, over the fit's request logs.
    S(Statement),
    /// The model beside the measurement on one quantity at one load, the
    /// error `(model − measured) / measured` of the numbers as shown, and
    /// whether it is within the tolerance.
    Beside {
        /// The load ("at hey-c8q5.csv").
        at: String,
        /// The engine's side.
        model: Measure,
        /// The measured side.
        measured: Side,
        /// The error as stated, % (1 decimal).
        error_pct: f64,
        /// The tolerance, % (the error's absolute value at most this is "within").
        tolerance_pct: f64,
    },
    /// The mean time in the system of a log's answered requests.
    Mean {
        /// The log.
        run: String,
        /// What the requests are ("the low-load requests").
        what: String,
        /// The value stated, ms.
        value: f64,
    },
    /// How many of the loads have their model within both tolerances, from
    /// the logs (per-request, or the file's table).
    Within {
        /// `(file, index)` of every load.
        loads: Vec<(String, usize)>,
        /// Loads within, as stated.
        within: usize,
        /// Tolerance on answers/s, %.
        ok_pct: f64,
        /// Tolerance on p99, %.
        p99_pct: f64,
        /// The words before the count ("the model is within … at").
        lead: String,
    },
    /// The tune's choice, re-scored from the cells of every controller's best.
    Choice {
        /// The pick.
        pick: Box<Pick>,
        /// The p99 budget, ms.
        budget_ms: f64,
        /// Also state the runner-up.
        runner_up: bool,
    },
    /// The most of one quantity over a named set of loads, each from its
    /// per-request log or its file's table ("the capacity is the most …").
    Most {
        /// What the most is ("the capacity").
        what: String,
        /// The set, as named ("the 2 saturated loads (…)").
        set: String,
        /// Each load's label and side, in the set's order.
        items: Vec<(String, Side)>,
        /// Index of the stated winner (the first at the most).
        winner: usize,
    },
    /// The queue limit counted at the refusals: the most common count of
    /// answered requests in flight at a refusal (the largest over the
    /// files), less the workers.
    InFlight {
        /// The measured logs of the loads with refusals.
        runs: Vec<String>,
        /// The count stated.
        full: u64,
        /// Workers.
        workers: u32,
        /// The limit stated.
        limit: u32,
    },
    /// The service distribution chosen by the criterion, re-applied to the
    /// low-load requests' records less the time outside the server.
    Distribution {
        /// Candidates in the criterion's order.
        #[serde(skip)]
        candidates: Vec<crate::stochastic::ServiceTime>,
        /// Index of the stated choice.
        chosen: usize,
        /// The time outside the server the sample is shifted by, ms.
        overhead_ms: f64,
        /// The chosen one's largest relative error, as a fraction.
        max_error: f64,
        /// Where.
        worst_p: f64,
    },
    /// A marked assumption of the model or limit of the fit (no run's numbers).
    Assume(String),
}

fn sentence(clause: &str) -> String {
    let mut c = clause.chars();
    match c.next() {
        Some(f) => format!("{}{}.", f.to_uppercase(), c.as_str().trim_end_matches('.')),
        None => String::new(),
    }
}

fn settings(s: &[(String, String)]) -> String {
    s.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}

fn scored(s: &Scored, budget_ms: f64) -> (usize, f64) {
    let meets = s.cells.iter().filter(|c| c.p99_ms.is_none_or(|p| p as f64 <= budget_ms)).count();
    let n = s.cells.len();
    let goodput = if n == 0 { 0.0 } else { s.cells.iter().map(|c| c.ok_per_sec).sum::<f64>() / n as f64 };
    (meets, goodput)
}

/// The other controllers' bests (not `except`) whose runs within the budget
/// and goodput, as shown, are `of`'s: ", tied on both with …"; when every
/// tie is exact, the one named before is the first in the grid's order.
/// Empty when none ties.
fn ties(pick: &Pick, of: &Scored, except: &[usize], budget_ms: f64) -> String {
    let (m, g) = scored(of, budget_ms);
    let same: Vec<(&Scored, bool)> = pick
        .per_controller
        .iter()
        .filter(|s| !except.contains(&s.point.id) && s.point.controller != of.point.controller)
        .filter_map(|s| {
            let (sm, sg) = scored(s, budget_ms);
            (sm == m && s.cells.len() == of.cells.len() && fmt_num(sg) == fmt_num(g)).then_some((s, sg == g))
        })
        .collect();
    if same.is_empty() {
        return String::new();
    }
    let names: Vec<String> =
        same.iter().map(|(s, _)| format!("{} ({})", s.point.controller.name(), settings(&s.point.settings))).collect();
    let why = if same.iter().all(|x| x.1) { " (the first in the grid's order is named)" } else { " as shown" };
    format!(", tied on both with {}{why}", names.join(" and "))
}

impl Said {
    /// The kind's name.
    pub fn kind(&self) -> &'static str {
        match self {
            Said::S(s) => s.kind(),
            Said::Beside { .. } => "beside",
            Said::Mean { .. } => "mean",
            Said::Within { .. } => "within",
            Said::Choice { .. } => "choice",
            Said::Most { .. } => "most",
            Said::InFlight { .. } => "in-flight",
            Said::Distribution { .. } => "distribution",
            Said::Assume(_) => "assumption",
        }
    }

    /// The sentence (`None`: not to be stated).
    pub fn render(&self) -> Option<String> {
        match self {
            Said::S(s) => statement::render(s),
            Said::Beside { at, model, measured, error_pct, tolerance_pct } => {
                let mut t = format!(
                    "{at}, the model's {} is {} against {} measured: an error of {} %",
                    model.q.name(),
                    model.shown(),
                    measured.shown(),
                    signed(*error_pct)
                );
                if tolerance_pct.is_finite() {
                    let w = if error_pct.abs() <= *tolerance_pct { "within" } else { "outside" };
                    t.push_str(&format!(", {w} the ±{} % tolerance", fmt_num(*tolerance_pct)));
                }
                Some(sentence(&t))
            }
            Said::Mean { what, value, .. } => {
                Some(sentence(&format!("the mean time in the system of {what} is {} ms", fmt_num(*value))))
            }
            Said::Within { loads, within, ok_pct, p99_pct, lead } => Some(sentence(&format!(
                "{lead}: the model is within ±{} % on answered requests per second and ±{} % on the p99 at {within} of {} load(s)",
                fmt_num(*ok_pct),
                fmt_num(*p99_pct),
                loads.len()
            ))),
            Said::Choice { pick, budget_ms, runner_up } => {
                let b = &pick.best;
                let (meets, goodput) = scored(b, *budget_ms);
                let cells = b.cells.len();
                let set = format!("of the {} settings tried", pick.points);
                let mut t = if meets == cells {
                    format!(
                        "Robust choice, {set}: {} ({}), the most goodput, {} answers/s on average over its {cells} runs, among the settings whose p99 stays within {} ms in every run",
                        b.point.controller.name(),
                        settings(&b.point.settings),
                        fmt_num(goodput),
                        fmt_num(*budget_ms)
                    )
                } else if meets == 0 {
                    format!(
                        "No setting {set} keeps the p99 within {} ms in any run; the most goodput is {} ({}), {} answers/s on average over its {cells} runs",
                        fmt_num(*budget_ms),
                        b.point.controller.name(),
                        settings(&b.point.settings),
                        fmt_num(goodput)
                    )
                } else {
                    format!(
                        "No setting {set} keeps the p99 within {} ms in every run; {} ({}) does in the most, {meets} of {cells}, with {} answers/s on average",
                        fmt_num(*budget_ms),
                        b.point.controller.name(),
                        settings(&b.point.settings),
                        fmt_num(goodput)
                    )
                };
                t.push_str(&ties(pick, b, &[b.point.id], *budget_ms));
                if *runner_up {
                    let r = pick.runner_up.as_ref()?;
                    let (rm, rg) = scored(r, *budget_ms);
                    t = format!(
                        "Runner-up, the best of the other controllers: {} ({}), within the budget in {rm} of {} runs, {} answers/s on average",
                        r.point.controller.name(),
                        settings(&r.point.settings),
                        r.cells.len(),
                        fmt_num(rg)
                    );
                    t.push_str(&ties(pick, r, &[b.point.id, r.point.id], *budget_ms));
                }
                Some(sentence(&t))
            }
            Said::Most { what, set, items, winner } => {
                let (label, side) = items.get(*winner)?;
                let name = side.measure().q.name();
                let over = format!("over {set}, the highest {name} is {}, at {label}", side.shown());
                Some(sentence(&if what.is_empty() { over } else { format!("{what}: {over}") }))
            }
            Said::InFlight { full, workers, limit, .. } => Some(sentence(&format!(
                "the model's line holds at most {limit} waiting request(s): at a refusal, {full} answered requests were most often in flight, less the {workers} worker(s)"
            ))),
            Said::Distribution { candidates, chosen, max_error, worst_p, .. } => {
                let names: Vec<String> = candidates.iter().map(ToString::to_string).collect();
                let c = candidates.get(*chosen)?;
                let tol = fmt_num(super::service::TOLERANCE * 100.0);
                let err = format!("{} % at p{}", fmt_num(max_error * 100.0), fmt_num(worst_p * 100.0));
                Some(sentence(&if *max_error <= super::service::TOLERANCE {
                    format!(
                        "the service time's distribution is {c}: of {} in that order, the first whose quantiles p10 to p99 all lie within {tol} % of the low-load requests' less the time outside the server (its largest error {err})",
                        names.join(", ")
                    )
                } else {
                    format!(
                        "the service time's distribution is {c}, approximate: none of {} has every quantile p10 to p99 within {tol} % of the low-load requests' less the time outside the server, and this one has the smallest largest error, {err}",
                        names.join(", ")
                    )
                }))
            }
            Said::Assume(t) => Some(sentence(t)),
        }
    }

    /// Re-evaluates the statement against the evidence; `Err` says why it is false.
    pub fn check(&self, ev: &FitLogs) -> Result<(), String> {
        match self {
            Said::S(s) => statement::check(s, &ev.logs),
            Said::Beside { model, measured, error_pct, tolerance_pct, .. } => {
                let m = Side::Log(model.clone());
                let (xm, xx) = (m.check(ev)?, measured.check(ev)?);
                let again = error_pct_of(&m, measured);
                if again != *error_pct {
                    return Err(format!(
                        "the error of {} against {} is {again} %, not {error_pct} %",
                        m.shown(),
                        measured.shown()
                    ));
                }
                // The sign also holds on the evidence itself, beyond its slack.
                let slack = 1.0 + 0.002 * xx.abs();
                if (xm - xx).abs() > slack && (xm > xx) != (*error_pct > 0.0) {
                    return Err(format!(
                        "the model's {xm} against the measured {xx} has the other sign than {error_pct} %"
                    ));
                }
                let _ = tolerance_pct;
                Ok(())
            }
            Said::Mean { run, value, .. } => {
                let log = ev.logs.get(run).ok_or_else(|| format!("no log {run}"))?;
                let exact = evidence::mean_answered_ms(log).ok_or("no answered requests")?;
                let shown = fmt_num(*value);
                let half = crate::claim::equation::last_unit(&shown) / 2.0;
                let n: f64 = shown.parse().map_err(|_| format!("{shown}: not a number"))?;
                if (n - exact).abs() > half + 1e-9 * exact.max(1.0) {
                    return Err(format!("the mean is {exact} by the requests, shown {shown}"));
                }
                Ok(())
            }
            Said::Within { loads, within, ok_pct, p99_pct, lead } => {
                let (mut n, mut open) = (0, 0);
                for (file, index) in loads {
                    let model = ev.logs.get(&evidence::model_key(file, *index)).ok_or("no model log")?;
                    let measured = ev.logs.get(&evidence::measured_key(file, *index));
                    let table = ev.table(file, *index);
                    let side = |q: Quantity| -> Option<f64> {
                        match (measured, table) {
                            (Some(l), _) => {
                                (q != P99_MS || l.reqs.iter().any(|r| r.in_system_ms.is_some())).then(|| l.eval(&q))
                            }
                            (None, Some(t)) if q == OK_RPS => Some(t.ok as f64 * 1000.0 / t.duration_ms),
                            (None, Some(t)) => t.p99_ms,
                            _ => None,
                        }
                    };
                    let ok = side(OK_RPS).ok_or("no measured answers/s")?;
                    // Whether the load is within: `Some` when the records
                    // settle it, `None` when the percentile's slack could
                    // put it on either side.
                    let ok_fine = 100.0 * rel(model.eval(&OK_RPS), ok).abs() <= *ok_pct;
                    let any = model.reqs.iter().any(|r| r.in_system_ms.is_some());
                    let p99_fine = match (side(P99_MS), any) {
                        (Some(x), true) if x > 0.0 => {
                            let y = model.eval(&P99_MS);
                            let e = 100.0 * rel(y, x).abs();
                            let margin = 100.0 * (1.0 + 0.002 * y) / x;
                            if e + margin <= *p99_pct {
                                Some(true)
                            } else if e - margin > *p99_pct {
                                Some(false)
                            } else {
                                None
                            }
                        }
                        _ => Some(true),
                    };
                    match (ok_fine, p99_fine) {
                        (true, Some(true)) => n += 1,
                        (true, None) => open += 1,
                        _ => {}
                    }
                }
                if lead.starts_with("The fit is poor") && *within == loads.len() {
                    return Err("a poor fit stated with every load within".into());
                }
                if *within < n || *within > n + open {
                    return Err(format!(
                        "{n} of {} loads are within by the records ({open} more on the edge), stated {within}",
                        loads.len()
                    ));
                }
                Ok(())
            }
            Said::Choice { pick, budget_ms, runner_up } => {
                let key = |s: &Scored| {
                    let (m, g) = scored(s, *budget_ms);
                    (m, g, std::cmp::Reverse(s.point.id))
                };
                let top = |it: &mut dyn Iterator<Item = &Scored>| {
                    it.max_by(|a, b| key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal))
                        .map(|s| s.point.id)
                };
                let best = top(&mut pick.per_controller.iter());
                if best != Some(pick.best.point.id) {
                    return Err(format!("the best of the controllers' best is {best:?}, not {}", pick.best.point.id));
                }
                let (m, g) = scored(&pick.best, *budget_ms);
                if (m, g) != (pick.best.meets, pick.best.goodput_rps) {
                    return Err("the choice's score does not recompute from its runs".into());
                }
                if *runner_up {
                    let r = pick.runner_up.as_ref().ok_or("no runner-up")?;
                    let other = top(&mut pick
                        .per_controller
                        .iter()
                        .filter(|s| s.point.controller != pick.best.point.controller));
                    if other != Some(r.point.id) {
                        return Err(format!("the best of the other controllers is {other:?}, not {}", r.point.id));
                    }
                }
                Ok(())
            }
            Said::Most { items, winner, .. } => {
                let vals = items.iter().map(|(_, s)| s.check(ev)).collect::<Result<Vec<f64>, _>>()?;
                let most = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let first = vals.iter().position(|v| *v == most);
                if first != Some(*winner) {
                    return Err(format!("the first load at the most, {most}, is {first:?}, not {winner}"));
                }
                Ok(())
            }
            Said::InFlight { runs, full, workers, limit } => {
                let mut most = None;
                for key in runs {
                    let log = ev.logs.get(key).ok_or_else(|| format!("no log {key}"))?;
                    most = most.max(mode_in_flight_at_refusals(log));
                }
                if most != Some(*full) {
                    return Err(format!("the most common count in flight at a refusal is {most:?}, not {full}"));
                }
                if u64::from(*limit) + u64::from(*workers) != *full {
                    return Err(format!("{full} less {workers} worker(s) is not {limit}"));
                }
                Ok(())
            }
            Said::Distribution { candidates, chosen, overhead_ms, max_error, worst_p } => {
                let log = ev.logs.get(LOW_LOAD).ok_or("no low-load requests")?;
                let mut t: Vec<f64> =
                    log.reqs.iter().filter_map(|r| r.in_system_ms).map(|v| (v - overhead_ms).max(v * 0.01)).collect();
                t.sort_by(f64::total_cmp);
                let errs: Vec<(f64, f64)> = candidates
                    .iter()
                    .map(|c| {
                        let mut worst = (0.0, 0.5);
                        for p in super::service::CHECKED {
                            let Some(v) = super::level::quantile(&t, p).filter(|v| *v > 0.0) else { continue };
                            let e = (c.quantile_ms(p) - v).abs() / v;
                            if e > worst.0 {
                                worst = (e, p);
                            }
                        }
                        worst
                    })
                    .collect();
                let tol = super::service::TOLERANCE;
                let want = errs
                    .iter()
                    .position(|e| e.0 <= tol)
                    .unwrap_or_else(|| (0..errs.len()).min_by(|&a, &b| errs[a].0.total_cmp(&errs[b].0)).unwrap_or(0));
                if want != *chosen {
                    return Err(format!("the criterion picks candidate {want}, not {chosen}"));
                }
                let (e, p) = errs[want];
                let shown = fmt_num(max_error * 100.0);
                let half = crate::claim::equation::last_unit(&shown) / 2.0;
                if (shown.parse::<f64>().unwrap_or(f64::NAN) - e * 100.0).abs() > half + 1e-9 || p != *worst_p {
                    return Err(format!(
                        "the largest error is {} % at p{}, stated {shown} % at p{}",
                        e * 100.0,
                        p * 100.0,
                        worst_p * 100.0
                    ));
                }
                if (e <= tol) != (*max_error <= tol) {
                    return Err("within the tolerance on one side only".into());
                }
                Ok(())
            }
            // Marked as an assumption of the model or a limit of the fit: not a fact about a run.
            Said::Assume(_) => Ok(()),
        }
    }
}

fn error_pct_of(model: &Side, measured: &Side) -> f64 {
    error_pct(model.stated(), measured.stated())
}

/// A [`Said::Beside`] with its error computed from the numbers as shown.
pub fn beside(at: String, model: Measure, measured: Side, tolerance: f64) -> Said {
    let e = error_pct_of(&Side::Log(model.clone()), &measured);
    Said::Beside { at, model, measured, error_pct: e, tolerance_pct: tolerance * 100.0 }
}

/// The low-load sample's key (re-exported for the explanation).
pub const LOW: &str = LOW_LOAD;

/// A comparison helper: `a cmp b` on two measures.
pub fn compare(a: Measure, cmp: Cmp, b: Measure) -> Said {
    Said::S(Statement::Comparison { a, cmp, b })
}

/// The most common count (the smallest, on a tie) of answered requests in
/// flight at a refused arrival of `log`: started before it and not ended by it.
pub fn mode_in_flight_at_refusals(log: &crate::statement::RunLog) -> Option<u64> {
    let answered: Vec<(f64, f64)> = log.reqs.iter().filter_map(|r| Some((r.start_ms?, r.end_ms?))).collect();
    let mut starts: Vec<f64> = answered.iter().map(|a| a.0).collect();
    let mut ends: Vec<f64> = answered.iter().map(|a| a.1).collect();
    starts.sort_by(f64::total_cmp);
    ends.sort_by(f64::total_cmp);
    let mut counts: Vec<u64> = log
        .reqs
        .iter()
        .filter(|r| !r.admitted)
        .map(|r| {
            let t = r.arrival_ms;
            (starts.partition_point(|&s| s < t).saturating_sub(ends.partition_point(|&e| e <= t))) as u64
        })
        .collect();
    counts.sort_unstable();
    let mut best: Option<(u64, usize)> = None;
    let mut i = 0;
    while i < counts.len() {
        let j = counts[i..].iter().position(|c| *c != counts[i]).map_or(counts.len(), |k| i + k);
        if best.is_none_or(|(_, n)| j - i > n) {
            best = Some((counts[i], j - i));
        }
        i = j;
    }
    best.map(|b| b.0)
}
