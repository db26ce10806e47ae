//! Where the priority numbers come from.

use super::PriorityReport;
use crate::calc::{Explanation, Step, capacity_rps, fmt_num};
use crate::claim::Equation;
use crate::claim::equation::{div, n};
use crate::claim::{Agg, Claim, Cmp, Fact};
use crate::experiments::{Readout, rps, argmax, step, strings};
use crate::models::priority::{ClassPolicy, PriorityOutcome, SLO_TARGET_PCT};
use crate::numerics::format_fixed;

fn pct(v: f64) -> String {
    format!("{}%", fmt_num(v))
}

/// One policy's protection rows, sorted by offered load.
fn sorted(r: &PriorityReport, p: ClassPolicy) -> Vec<&PriorityOutcome> {
    let mut rows: Vec<_> = r.protection.iter().filter(|o| o.policy == p).collect();
    rows.sort_by(|a, b| a.offered_rps().total_cmp(&b.offered_rps()));
    rows
}

/// One policy's row at the highest offered load.
fn highest(r: &PriorityReport, p: ClassPolicy) -> Option<&PriorityOutcome> {
    let rows: Vec<_> = r.protection.iter().filter(|o| o.policy == p).collect();
    argmax(rows.iter().map(|o| o.offered_rps())).and_then(|i| rows.get(i).copied())
}

/// The most critical success capacity allows: the server finishes at most
/// `capacity × window` requests, %, capped at 100.
pub(crate) fn success_bound_pct(r: &PriorityReport, o: &PriorityOutcome) -> f64 {
    let cap = capacity_rps(f64::from(r.settings.service_ms), 1);
    let most = cap * f64::from(r.settings.duration_ms) / 1000.0;
    if o.critical.arrivals == 0 { 100.0 } else { (100.0 * most / o.critical.arrivals as f64).min(100.0) }
}

/// The highest offered load at which priority meets the critical SLO.
pub(crate) fn highest_held(r: &PriorityReport) -> Option<f64> {
    sorted(r, ClassPolicy::Priority).iter().filter(|o| o.slo_met()).map(|o| o.offered_rps()).reduce(f64::max)
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &PriorityReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

fn explanation(r: &PriorityReport) -> Explanation {
    let s = &r.settings;
    let cap = capacity_rps(f64::from(s.service_ms), 1);
    let prio = sorted(r, ClassPolicy::Priority);
    let first_fail = prio.iter().position(|o| !o.slo_met());
    let mut steps = vec![Step::eq(
        "feasibility ceiling",
        "capacity / critical share",
        Equation::with_result(
            div(n(cap), n(s.critical_share)),
            r.ceiling_rps,
            "rps",
        ),
        "offered",
    )];
    if let Some(o) = highest(r, ClassPolicy::Priority).filter(|o| o.critical.arrivals > 0) {
        let bound = success_bound_pct(r, o);
        steps.push(step(
            "most critical success capacity allows at the highest offered load",
            "min(100 %, capacity × window / scored critical arrivals)",
            format!("{} × {} s / {}", fmt_num(cap), fmt_num(f64::from(s.duration_ms) / 1000.0), o.critical.arrivals),
            if bound >= 100.0 && first_fail.is_none() {
                "100 %: capacity is not what limits critical success here".to_owned()
            } else if bound >= 100.0 {
                "100 %: capacity alone would allow it, yet the SLO is missed here (timing and the deadline limit it)".to_owned()
            } else {
                format!("{}: capacity alone rules out the SLO", pct(bound))
            },
        ));
    }
    let spike_critical = r.spike_rps * s.critical_share;
    let mut claims = Vec::new();
    let worst_window = r
        .burst
        .iter()
        .filter(|o| o.policy == ClassPolicy::Priority)
        .flat_map(|o| o.window_success_pct.iter().map(|w| w.0))
        .fold(f64::INFINITY, f64::min);
    let held = worst_window >= SLO_TARGET_PCT;
    let burst_text = if spike_critical >= cap {
        format!("{} ≥ {}: a spike alone exceeds capacity for critical work", rps(spike_critical), rps(cap))
    } else if held || !worst_window.is_finite() {
        format!("{} < {}: eviction protects critical work through the spikes in this run", rps(spike_critical), rps(cap))
    } else {
        format!(
            "{} < {}: capacity would allow it, yet in this run's burst windows critical success falls to {} % (the queue ahead is not only critical work)",
            rps(spike_critical),
            rps(cap),
            format_fixed(worst_window, 1)
        )
    };
    if spike_critical < cap && worst_window.is_finite() {
        claims.push(Claim::new(
            "condition",
            if held { "claim" } else { "spike-not-protected" },
            burst_text.clone(),
            Fact::Column {
                table: "bp-post5-slo-burst.csv",
                filter: Vec::new(),
                column: "priority_critical_pct",
                agg: Agg::Min,
                cmp: if held { Cmp::Ge } else { Cmp::Lt },
                value: SLO_TARGET_PCT,
                tol: 0.0,
            },
        ));
    }
    steps.push(step(
        "burst protection",
        "spike rate × critical share < capacity",
        format!("{} × {}", fmt_num(r.spike_rps), fmt_num(s.critical_share)),
        burst_text,
    ));
    let slo = format_fixed(SLO_TARGET_PCT, 0);
    let answer = match first_fail {
        Some(0) => format!(
            "priority misses the critical SLO ({slo} %) at every offered load here, from {}",
            rps(prio.first().map_or(0.0, |o| o.offered_rps()))
        ),
        Some(i) => {
            let (pass, fail) = (prio[i - 1], prio[i]);
            for (o, met) in [(pass, "yes"), (fail, "no")] {
                claims.push(Claim::new(
                    "trend",
                    "claim",
                    format!("{} rps", format_fixed(o.offered_rps(), 1)),
                    Fact::Column {
                        table: "bp-post5-protection.csv",
                        filter: vec![
                            ("policy", "priority".to_owned()),
                            ("offered_rps", format_fixed(o.offered_rps(), 1)),
                            ("critical_slo_met", met.to_owned()),
                        ],
                        column: "critical_success_pct",
                        agg: Agg::Count,
                        cmp: Cmp::Ge,
                        value: 1.0,
                        tol: 0.0,
                    },
                ));
            }
            let again: Vec<String> =
                prio[i..].iter().filter(|o| o.slo_met()).map(|o| format_fixed(o.offered_rps(), 1)).collect();
            let few = if fail.critical.arrivals < 100 {
                format!(" (only {} critical arrivals scored there)", fail.critical.arrivals)
            } else {
                String::new()
            };
            let tail = if again.is_empty() {
                String::new()
            } else {
                format!("; not a ceiling: the SLO is met again at {} rps", again.join(", "))
            };
            format!(
                "priority holds critical success ≥ {slo} % up to {} rps offered; at {} rps it delivers {} %{few}{tail}",
                format_fixed(pass.offered_rps(), 1),
                format_fixed(fail.offered_rps(), 1),
                format_fixed(fail.critical_success_pct(), 1)
            )
        }
        None => format!("priority holds critical success ≥ {slo} % at every offered load here"),
    };
    Explanation {
        title: "Priority protection".into(),
        answer,
        steps,
        assumes: vec![
            format!(
                "A fixed-seed classifier marks each arrival critical with probability {}.",
                fmt_num(s.critical_share)
            ),
            format!(
                "The system is bounded at B = {} with dequeue expiry, so every served request meets the deadline.",
                s.bound
            ),
            "Only arrivals with a full deadline inside the window are scored; the model stops at the window's end."
                .into(),
        ],
        ignores: strings(&[
            "Retries and client behaviour after rejection.",
            "Any cost of eviction.",
            "Rejections in a latency SLO: an SLO on served requests' latency cannot see the requests that were refused; success here counts them.",
        ]),
        would_change: vec![
            format!(
                "Near the nominal ceiling ({}) timing already matters; above it no eviction creates service slots.",
                rps(r.ceiling_rps)
            ),
            "A critical class exists only if another class is allowed to fail: background pays for protection.".into(),
        ],
        claims,
    }
}

pub(in crate::experiments) fn readouts(r: &PriorityReport) -> Vec<Readout> {
    let both =
        |f: fn(&PriorityOutcome) -> f64| match (highest(r, ClassPolicy::Blind), highest(r, ClassPolicy::Priority)) {
            (Some(b), Some(p)) => format!("blind {} vs priority {}", pct(f(b)), pct(f(p))),
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
