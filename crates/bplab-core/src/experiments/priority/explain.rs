//! Where the priority numbers come from: statements over the protection
//! runs (blind and priority doors at each offered rate), checked against the
//! runs' request logs (`hooks.rs`).

use super::PriorityReport;
use super::hooks::key;
use crate::calc::{Explanation, fmt_num};
use crate::claim::Cmp;
use crate::claim::equation::{div, n, u};
use crate::experiments::{Readout, argmax, rps};
use crate::models::priority::{ClassPolicy, PriorityOutcome, SLO_TARGET_PCT};
use crate::statement::quantity::{BACKGROUND_SUCCESS_PCT, CRITICAL_SUCCESS_PCT, SCORED_CRITICAL};
use crate::statement::{Arith, Doc, Measure, Quantity, Statement};

fn pct(v: f64) -> String {
    format!("{}%", fmt_num(v))
}

/// One policy's protection rows with their index in the table, by offered load.
fn sorted(r: &PriorityReport, p: ClassPolicy) -> Vec<(usize, &PriorityOutcome)> {
    let mut rows: Vec<_> = r.protection.iter().enumerate().filter(|(_, o)| o.policy == p).collect();
    rows.sort_by(|a, b| a.1.offered_rps().total_cmp(&b.1.offered_rps()));
    rows
}

/// One policy's row at the highest offered load.
fn highest(r: &PriorityReport, p: ClassPolicy) -> Option<(usize, &PriorityOutcome)> {
    let rows: Vec<_> = r.protection.iter().enumerate().filter(|(_, o)| o.policy == p).collect();
    argmax(rows.iter().map(|(_, o)| o.offered_rps())).and_then(|i| rows.get(i).copied())
}

/// The highest offered load at which priority meets the critical SLO.
pub(crate) fn highest_held(r: &PriorityReport) -> Option<f64> {
    sorted(r, ClassPolicy::Priority).iter().filter(|(_, o)| o.slo_met()).map(|(_, o)| o.offered_rps()).reduce(f64::max)
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &PriorityReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

/// A class share on the protection table's `j`-th run, named by its door and
/// its setting (the flat curve's rate as given).
fn on(r: &PriorityReport, q: Quantity, j: usize, o: &PriorityOutcome, value: f64) -> Measure {
    let n = r.inputs.offered_rps.len().max(1);
    let rate = r.inputs.offered_rps.get(j % n).copied().unwrap_or(0.0);
    Measure::new(q, key(j), format!("with the {} door at {} offered", o.policy.label(), rps(rate)), value)
}

fn explanation(r: &PriorityReport) -> Explanation {
    let s = &r.settings;
    let mut d = Doc::new("Priority protection");
    d.steps.push(Statement::Arith {
        label: "feasibility ceiling (an upper bound, not a level that is held)".into(),
        formula: "1000 / service / critical share".into(),
        eq: Arith::with_result(
            div(div(n(1000.0), u(f64::from(s.service_ms), "ms")), n(s.critical_share)),
            r.ceiling_rps,
            "rps",
        ),
    });
    // Where the SLO holds and where it first fails, on priority's rows.
    let prio = sorted(r, ClassPolicy::Priority);
    let versus = |j: usize, o: &PriorityOutcome| {
        let v = o.critical_success_pct();
        Statement::Versus {
            m: on(r, CRITICAL_SUCCESS_PCT, j, o, v),
            cmp: if v >= SLO_TARGET_PCT { Cmp::Ge } else { Cmp::Lt },
            what: "the SLO target".into(),
            level: SLO_TARGET_PCT,
        }
    };
    let scored = |o: &PriorityOutcome| o.critical.arrivals > 0;
    match prio.iter().position(|(_, o)| !o.slo_met()) {
        Some(i) => {
            if i > 0 && scored(prio[i - 1].1) {
                d.answer.push(versus(prio[i - 1].0, prio[i - 1].1));
            }
            if scored(prio[i].1) {
                d.answer.push(versus(prio[i].0, prio[i].1));
                let (j, o) = prio[i];
                if o.critical.arrivals < 100 {
                    d.answer.push(Statement::Value(on(r, SCORED_CRITICAL, j, o, o.critical.arrivals as f64)));
                }
            }
            // Not a ceiling where the SLO is met again at a higher load.
            for (j, o) in prio[i + 1..].iter().filter(|(_, o)| o.slo_met() && scored(o)) {
                d.answer.push(versus(*j, o));
            }
        }
        None => {
            if let Some((j, o)) = prio.last().filter(|(_, o)| scored(o)) {
                d.answer.push(versus(*j, o));
            }
        }
    }
    // Nothing scored to judge the SLO by: say how many critical arrivals were scored.
    if d.answer.is_empty()
        && let Some((j, o)) = highest(r, ClassPolicy::Priority)
    {
        d.answer.push(Statement::Value(on(r, SCORED_CRITICAL, j, o, o.critical.arrivals as f64)));
    }
    // Blind against priority at the highest offered load, for each class.
    if let (Some((bj, b)), Some((pj, p))) = (highest(r, ClassPolicy::Blind), highest(r, ClassPolicy::Priority)) {
        for (q, vb, vp, has) in [
            (CRITICAL_SUCCESS_PCT, b.critical_success_pct(), p.critical_success_pct(), scored(b) && scored(p)),
            (
                BACKGROUND_SUCCESS_PCT,
                b.background_success_pct(),
                p.background_success_pct(),
                b.background.arrivals > 0 && p.background.arrivals > 0,
            ),
        ] {
            if has {
                let cmp = if vp > vb {
                    Cmp::Gt
                } else if vp < vb {
                    Cmp::Lt
                } else {
                    Cmp::Eq
                };
                d.would_change.push(Statement::Comparison { a: on(r, q, pj, p, vp), cmp, b: on(r, q, bj, b, vb) });
            }
        }
    }
    let a = |t: String| Statement::Assumption(t);
    d.assumes = vec![
        Statement::Definition(CRITICAL_SUCCESS_PCT),
        a(format!(
            "A fixed-seed classifier marks each arrival critical with probability {}",
            crate::statement::given(s.critical_share)
        )),
        a(format!(
            "The system is bounded at B = {} with dequeue expiry, so every served request meets the deadline",
            s.bound
        )),
        a("Only arrivals with a full deadline inside the window are scored; the model stops at the window's end"
            .into()),
    ];
    d.ignores = vec![
        a("Retries and client behaviour after rejection".into()),
        a("Any cost of eviction".into()),
        a("Rejections in a latency SLO: an SLO on served requests' latency cannot see the requests that were refused; success here counts them".into()),
    ];
    d.explanation()
}

pub(in crate::experiments) fn readouts(r: &PriorityReport) -> Vec<Readout> {
    let both =
        |f: fn(&PriorityOutcome) -> f64| match (highest(r, ClassPolicy::Blind), highest(r, ClassPolicy::Priority)) {
            (Some((_, b)), Some((_, p))) => format!("blind {} vs priority {}", pct(f(b)), pct(f(p))),
            _ => "–".into(),
        };
    vec![
        Readout::new("Ceiling = capacity / critical share", rps(r.ceiling_rps)),
        Readout::new("Critical success at the highest offered load", both(|o| o.critical_success_pct())),
        Readout::new("Background success at the highest offered load", both(|o| o.background_success_pct())),
        Readout::new(
            "Highest offered load with the critical SLO met (priority)",
            highest_held(r).map_or("none".into(), rps),
        ),
    ]
}
