//! The checker: every statement re-evaluated against the runs' request logs.

use super::render::{cmp_holds, cmp_words, comparison_decimals, counterfactual_shape, direction_words};
use super::{Logs, Measure, Statement, arith};
use crate::claim::Cmp;
use crate::claim::equation::last_unit;

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

/// The windows of run `run` re-formed from its records, for `rule` (whose
/// run length must be the log's window).
fn timeline_of(
    logs: &Logs,
    run: &str,
    rule: &crate::stochastic::Rule,
) -> Result<Vec<crate::stochastic::Window>, String> {
    let log = logs.get(run).ok_or_else(|| format!("no request log for run {run}"))?;
    if log.window_ms != rule.run_ms || rule.window_ms.is_nan() || rule.window_ms <= 0.0 {
        return Err(format!("run {run} lasts {} ms, the rule {} ms", log.window_ms, rule.run_ms));
    }
    Ok(log.timeline(rule.window_ms))
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
            // The items named as sharing the best are those at it by their requests.
            let stated = items.get(*winner).map_or(0.0, |(_, m)| m.value);
            let named: Vec<bool> = items.iter().map(|(_, m)| m.value == stated).collect();
            let at_best: Vec<bool> = vals.iter().map(|v| *v == best).collect();
            if named != at_best {
                return Err(format!("the items at the best value {best} are {at_best:?}, not {named:?}"));
            }
            Ok(())
        }
        Statement::Verdict { claim, .. } => check(claim, logs),
        Statement::Cause { effect, cause, without } => {
            check(effect, logs)?;
            check(cause, logs)?;
            without.as_deref().map_or(Ok(()), |w| check(w, logs))
        }
        Statement::Counterfactual { now, then, cmp, same_arrivals, .. } => {
            counterfactual_shape(now, then)?;
            let d = comparison_decimals(then, now, *cmp);
            let (x, y) = (check_value_at(then, logs, d)?, check_value_at(now, logs, d)?);
            if !cmp_holds(*cmp, x, y, 0.0) {
                return Err(format!(
                    "the {} {} is {x} on run {} against {y} on run {}: not {}",
                    now.q.name(),
                    now.at,
                    then.run,
                    now.run,
                    direction_words(*cmp)
                ));
            }
            if matches!(cmp, Cmp::Lt | Cmp::Gt) && then.shown_at(d) == now.shown_at(d) {
                return Err(format!("{} and {} show no difference", then.shown_at(d), now.shown_at(d)));
            }
            if *same_arrivals {
                let first = |run: &str| {
                    logs.whole(run).map(|l| {
                        let mut t: Vec<f64> = l.reqs.iter().filter(|r| r.attempt == 0).map(|r| r.arrival_ms).collect();
                        t.sort_by(f64::total_cmp);
                        t
                    })
                };
                if first(&now.run) != first(&then.run) {
                    return Err(format!("runs {} and {} did not see the same first tries", now.run, then.run));
                }
            }
            Ok(())
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
        Statement::WindowP99 { run, width_ms, from_ms, level_ms, run_ms, finding, .. } => {
            let log = logs.get(run).ok_or_else(|| format!("no request log for run {run}"))?;
            if log.window_ms != *run_ms {
                return Err(format!("run {run} lasts {} ms, not {run_ms}", log.window_ms));
            }
            if !(*width_ms > 0.0 && *from_ms >= 0.0) {
                return Err(format!("windows of {width_ms} ms from {from_ms} ms"));
            }
            let first = libm::floor(from_ms / width_ms) as usize;
            let n = (libm::ceil(log.window_ms / width_ms).max(1.0) as usize).saturating_sub(first);
            let found = super::WindowFinding::of(&log.window_p99s(*width_ms, first), n, *width_ms, *from_ms, *level_ms);
            if found != *finding {
                return Err(format!("the windows of run {run} show {found:?}, not {finding:?}"));
            }
            Ok(())
        }
        Statement::Recovery { run, rule, verdict, sustained_over, unhealthy_before, trigger_at_ms, .. } => {
            let ticks = timeline_of(logs, run, rule)?;
            if let Some(at) = unhealthy_before {
                let i = libm::round(at / rule.window_ms) as usize;
                let whole_before = (f64::from(i as u32) + 1.0) * rule.window_ms <= *trigger_at_ms;
                if !(whole_before && !rule.healthy(&ticks, i) && (0..i).all(|k| rule.healthy(&ticks, k))) {
                    return Err(format!(
                        "run {run}: the window from {at} ms is not the first unhealthy whole window before the trigger"
                    ));
                }
            }
            let found = rule.verdict(&ticks);
            if found != *verdict {
                return Err(format!("run {run}'s windows give {found:?}, not {verdict:?}"));
            }
            if let Some(cap) = sustained_over {
                let i = ticks.len().saturating_sub(1);
                let last = ticks.get(i).ok_or_else(|| format!("run {run} has no window"))?;
                let span = rule.window_ms.min(rule.run_ms - i as f64 * rule.window_ms);
                let rate = (last.first_tries + last.retries) as f64 * 1000.0 / span;
                // Said only of a whole last window.
                if !(last.retries > 0 && span == rule.window_ms && rate > *cap) {
                    return Err(format!(
                        "run {run}'s last window: {rate} tries/s, {} retries, not above {cap}",
                        last.retries
                    ));
                }
            }
            Ok(())
        }
        Statement::Phase { cells, stuck, rows, .. } => {
            let mut verdicts: Vec<(f64, u32, bool)> = Vec::new();
            for (run, size, len, rule) in cells {
                if verdicts.iter().any(|v| v.0 == *size && v.1 == *len) {
                    return Err(format!("the cell {size}× at {len} ms is listed twice"));
                }
                let v = rule.verdict(&timeline_of(logs, run, rule)?);
                verdicts.push((*size, *len, v == crate::stochastic::Verdict::Stuck));
            }
            let n = verdicts.iter().filter(|v| v.2).count();
            if n != *stuck {
                return Err(format!("{n} cells did not recover by their records, not {stuck}"));
            }
            let mut found: Vec<(u32, Vec<f64>)> = Vec::new();
            for (_, len, _) in &verdicts {
                if found.iter().any(|r| r.0 == *len) {
                    continue;
                }
                let mut sizes: Vec<f64> = verdicts.iter().filter(|v| v.1 == *len && v.2).map(|v| v.0).collect();
                sizes.sort_by(f64::total_cmp);
                if !sizes.is_empty() {
                    found.push((*len, sizes));
                }
            }
            if found != *rows {
                return Err(format!("the cells not recovered by their records are {found:?}, not {rows:?}"));
            }
            Ok(())
        }
        Statement::Search { tried, answer, stuck_at, .. } => {
            let (mut best, mut stop) = (None, None);
            for (k, (v, run, rule)) in tried.iter().enumerate() {
                if rule.verdict(&timeline_of(logs, run, rule)?) == crate::stochastic::Verdict::Stuck {
                    stop = Some(*v);
                    if k + 1 != tried.len() {
                        return Err(format!("the search went on past {v}, which did not recover"));
                    }
                    break;
                }
                best = Some(*v);
            }
            if (best, stop) != (*answer, *stuck_at) {
                return Err(format!("the runs give {best:?} and {stop:?}, not {answer:?} and {stuck_at:?}"));
            }
            Ok(())
        }
        Statement::Assumption(_) | Statement::Definition(_) => Ok(()),
    }
}
