//! The renderer: the only code that turns a statement into words.

use super::{Arith, Measure, Statement, given};
use crate::claim::Cmp;

/// Decimals a comparison shows both sides with: 2, or more until a strict
/// comparison's two numbers read differently.
pub(super) fn comparison_decimals(a: &Measure, b: &Measure, cmp: Cmp) -> usize {
    let mut d = 2;
    while matches!(cmp, Cmp::Lt | Cmp::Gt) && a.value != b.value && a.shown_at(d) == b.shown_at(d) && d < 12 {
        d += 1;
    }
    d
}

pub(super) fn cmp_words(c: Cmp) -> &'static str {
    match c {
        Cmp::Le => "at most",
        Cmp::Lt => "below",
        Cmp::Ge => "at least",
        Cmp::Gt => "above",
        Cmp::Eq => "equal to",
    }
}

/// The direction a counterfactual states, in words.
pub(super) fn direction_words(c: Cmp) -> &'static str {
    match c {
        Cmp::Le => "no higher",
        Cmp::Lt => "lower",
        Cmp::Ge => "no lower",
        Cmp::Gt => "higher",
        Cmp::Eq => "the same",
    }
}

/// Whether a counterfactual is well formed enough to state: two different
/// runs, one quantity, one shared setting.
pub(super) fn counterfactual_shape(now: &Measure, then: &Measure) -> Result<(), String> {
    if now.run.is_empty() || then.run.is_empty() || now.run == then.run {
        return Err(format!("a counterfactual needs two runs, not \"{}\" and \"{}\"", now.run, then.run));
    }
    if now.q != then.q || now.at != then.at {
        return Err("a counterfactual compares one quantity at one setting on both runs".into());
    }
    Ok(())
}

pub(super) fn cmp_holds(c: Cmp, a: f64, b: f64, tol: f64) -> bool {
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
            let mut t = format!(
                "{} is {}, within {what}: {} {}",
                m.subject(),
                m.shown(),
                bound.substituted(),
                equals(&bound.shown())
            );
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
            let tied = tied(items, m.value);
            if tied.len() > 1 {
                // A tie is named, not decided by the order.
                return Some(format!("{set}, {} share the best {}, {}", and_list(&tied), m.q.name(), m.shown()));
            }
            // Without a tie the order decides nothing: it is not said.
            let _ = (order, ext);
            format!("{set}, {label} has the best {}, {}", m.q.name(), m.shown())
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
        Statement::Counterfactual { change, now, then, cmp, .. } => {
            counterfactual_shape(now, then).ok()?;
            let d = comparison_decimals(then, now, *cmp);
            let moved = if *cmp == Cmp::Eq {
                then.shown_at(d)
            } else {
                format!("{} instead of {}", then.shown_at(d), now.shown_at(d))
            };
            format!("{change}, {} would be {}: {moved}", then.subject(), direction_words(*cmp))
        }
        Statement::Arith { label, formula, eq } => {
            format!("{label}: {formula} = {} {}", eq.substituted(), equals(&eq.shown()))
        }
        Statement::Result { what, eq } => format!("{} {what}", eq.shown()),
        Statement::Relation { a_label, a, cmp, b_label, b } => {
            let side = |l: &str, x: &Arith| {
                let sub = x.substituted();
                let shown = x.shown();
                if sub == shown || sub == shown.trim_start_matches("≈ ") {
                    format!("{l} ({shown})")
                } else {
                    format!("{l} ({sub} {})", equals(&shown))
                }
            };
            format!("{} is {} {}", side(a_label, a), cmp_words(*cmp), side(b_label, b))
        }
        Statement::SafeQueue { workers, budget_ms, service_ms, queue } => format!(
            "{queue} queued requests is the largest queue behind {workers} worker(s) whose worst time in the system with a fixed service time of {} ms, (ceil(queue / workers) + 1) × service, fits the {} ms budget",
            given(*service_ms),
            given(*budget_ms)
        ),
        Statement::WindowP99 { at, width_ms, from_words, level_ms, run_ms, finding, .. } => {
            let (w, level) = (given(*width_ms), given(*level_ms));
            let p99 = super::quantity::P99_ON_TIME_MS.name();
            let short = run_ms - ((run_ms / width_ms).ceil().max(1.0) - 1.0) * width_ms;
            let note = if short > 0.0 && short < *width_ms {
                format!(" (the run's last window is only {} ms long)", crate::calc::fmt_num(short))
            } else {
                String::new()
            };
            let text = match finding {
                super::WindowFinding::NoAnswers => format!(
                    "{at}, no {w} ms window from the one holding {from_words} to the run's end has an answer within the deadline"
                ),
                super::WindowFinding::NoneAbove { judged, windows } if judged < windows => format!(
                    "{at}, no {w} ms window from the one holding {from_words} to the run's end has a {p99} above {level} ms; {judged} of those {windows} windows had an answer within the deadline"
                ),
                super::WindowFinding::NoneAbove { .. } => format!(
                    "{at}, no {w} ms window from the one holding {from_words} to the run's end has a {p99} above {level} ms"
                ),
                super::WindowFinding::LastAboveEnds { after_ms } => format!(
                    "{at}, the last {w} ms window with a {p99} above {level} ms ends {} ms after {from_words}; every later window with answers within the deadline is within {level} ms",
                    given(*after_ms)
                ),
                super::WindowFinding::StillAbove => format!(
                    "{at}, the last {w} ms window with answers within the deadline has a {p99} above {level} ms: the run ends over it"
                ),
            };
            format!("{text}{note}")
        }
        Statement::Recovery { who, rule, verdict, sustained_over, unhealthy_before, .. } => {
            use crate::stochastic::Verdict;
            let horizon = format!(
                "within the {} ms the run lasts after the trigger's end",
                crate::calc::fmt_num((rule.run_ms - rule.end_ms).max(0.0))
            );
            let w = given(rule.window_ms);
            // A last window cut short by the run's end is judged as a rate over its span: said.
            let short =
                rule.run_ms - (rule.run_ms / rule.window_ms).ceil().max(1.0).mul_add(rule.window_ms, -rule.window_ms);
            let horizon = if short < rule.window_ms && short > 0.0 {
                format!("{horizon} (its last window is only {} ms long)", crate::calc::fmt_num(short))
            } else {
                horizon
            };
            let mut t = match verdict {
                Verdict::Recovered { after_ms } if *after_ms == first_window_after(rule) => {
                    format!("{who}: every {w} ms window after the trigger's end is healthy, {horizon}")
                }
                Verdict::Recovered { after_ms } => format!(
                    "{who} recovered {after_ms} ms after the trigger's end (the start of the first {w} ms window from which every window is healthy), {horizon}"
                ),
                Verdict::Stuck => {
                    let mut t = format!(
                        "{who} did not recover {horizon} (goodput under {} rps and failed tries in the last window)",
                        super::Measure::new(super::quantity::GOODPUT_RPS, "", "", rule.healthy_rps)
                            .shown()
                            .trim_end_matches(" rps")
                    );
                    if let Some(cap) = sustained_over {
                        t.push_str(&format!(
                            "; retries were keeping it down when the run ended: its last window's tries, retries included, exceed the capacity of {} rps",
                            super::Measure::new(super::quantity::GOODPUT_RPS, "", "", *cap).shown().trim_end_matches(" rps")
                        ));
                    }
                    t
                }
                Verdict::NoWindow => format!("{who}: no whole window after the trigger's end to judge"),
            };
            if let Some(at) = unhealthy_before {
                t.push_str(&format!(
                    "; it was already not healthy before the trigger, in the {} ms window from {} ms: not the trigger's doing alone",
                    w,
                    crate::calc::fmt_num(*at)
                ));
            }
            t
        }
        Statement::Phase { who, cells, stuck, rows } => {
            let left: Vec<f64> = cells.iter().map(|c| (c.3.run_ms - c.3.end_ms).max(0.0)).collect();
            let (lo, hi) = left.iter().fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
            let ms = crate::calc::fmt_num;
            let horizon = if lo == hi {
                format!("within the {} ms each run lasts after its trigger's end", ms(hi))
            } else {
                format!("within the {}–{} ms each run lasts after its trigger's end", ms(lo), ms(hi))
            };
            let mut t = format!("{who}: {stuck} of {} cells not recovered {horizon}", cells.len());
            let sizes = |x: &[f64]| {
                let v: Vec<String> = x.iter().map(|s| format!("{}×", given(*s))).collect();
                match v.split_last() {
                    Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                    _ => v.join(""),
                }
            };
            let e: Vec<String> = rows
                .iter()
                .map(|(len, stuck)| {
                    let tried = phase_sizes(cells, *len);
                    if *stuck == tried {
                        format!("every size tried at {len} ms")
                    } else if tried.ends_with(stuck) {
                        format!("{} and up at {len} ms", sizes(&stuck[..1]))
                    } else {
                        format!("at {len} ms: {}", sizes(stuck))
                    }
                })
                .collect();
            if !e.is_empty() {
                t.push_str(&format!(" ({})", e.join("; ")));
            }
            t
        }
        Statement::Search { what, tried, answer, stuck_at } => {
            let list = tried.iter().map(|(v, ..)| given(*v)).collect::<Vec<_>>().join(", ");
            match (answer, stuck_at) {
                (Some(a), Some(s)) => format!(
                    "searching upward from {}, the first {what} that does not recover by the end of the run is {}, and the last that does is {} (tried {list})",
                    tried.first().map_or_else(String::new, |(v, ..)| given(*v)),
                    given(*s),
                    given(*a)
                ),
                (Some(a), None) => format!("every {what} tried recovers, up to {} (tried {list})", given(*a)),
                (None, _) => format!(
                    "even the smallest {what} tried, {}, does not recover by the end of the run",
                    tried.first().map_or_else(String::new, |(v, ..)| given(*v))
                ),
            }
        }
        Statement::Assumption(text) => text.trim_end_matches('.').to_owned(),
        Statement::Definition(q) => q.definition(),
    })
}

/// The distinct sizes of the cells at length `len`, ascending.
pub(super) fn phase_sizes(cells: &[(String, f64, u32, crate::stochastic::Rule)], len: u32) -> Vec<f64> {
    let mut v: Vec<f64> = cells.iter().filter(|c| c.2 == len).map(|c| c.1).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// ms from the trigger's end to the start of the first window judged (the
/// recovery time of a run that was never unhealthy).
pub(super) fn first_window_after(rule: &crate::stochastic::Rule) -> u64 {
    libm::round((rule.first_after() as f64 * rule.window_ms - rule.end_ms).max(0.0)) as u64
}

/// The labels of the items whose value is `v`, in order.
pub(super) fn tied(items: &[(String, Measure)], v: f64) -> Vec<&str> {
    items.iter().filter(|(_, m)| m.value == v).map(|(l, _)| l.as_str()).collect()
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[&str]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

/// The statement as a sentence: capitalised, with a full stop.
pub fn render(s: &Statement) -> Option<String> {
    let c = clause(s)?;
    let mut chars = c.chars();
    let first = chars.next()?;
    Some(format!("{}{}.", first.to_uppercase(), chars.as_str()))
}

/// "= 11", or "≈ 11" when the shown result was rounded (it already carries
/// its "≈ "): a rounded result is never written "= ≈ 11".
fn equals(shown: &str) -> String {
    if shown.starts_with("≈ ") { shown.to_owned() } else { format!("= {shown}") }
}
