//! Where the token-vs-leaky numbers come from: statements over the gates'
//! runs, each gate's worst wait bounded from its own parameters, checked
//! against the runs' request logs (`hooks.rs`).

use super::ShapingReport;
use super::hooks::{burst_key, sweep_key};
use crate::calc::{Explanation, capacity_rps};
use crate::claim::Cmp;
use crate::claim::equation::{add, div, mul, n, sub, u};
use crate::experiments::{Readout, rps};
use crate::models::shaping::{GateKind, ShapingRow};
use crate::statement::quantity::{GOODPUT_RPS, MAX_GATE_DELAY_MS, MAX_SERVER_WAIT_MS, PEAK_RPS};
use crate::statement::{Arith, Cond, Doc, Measure, Pre, Quantity, Statement};

fn row(r: &ShapingReport, g: GateKind) -> Option<(usize, &ShapingRow)> {
    r.at_burst.iter().enumerate().find(|(_, x)| x.gate == g)
}

fn gate_name(g: GateKind) -> &'static str {
    match g {
        GateKind::TokenBucket => "token bucket",
        GateKind::LeakyBucket => "leaky bucket",
    }
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &ShapingReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

fn at_burst(q: Quantity, i: usize, x: &ShapingRow, value: f64) -> Measure {
    Measure::new(q, burst_key(i), format!("with the {} at burst {}", gate_name(x.gate), x.burst), value)
}

fn explanation(r: &ShapingReport) -> Explanation {
    let s = &r.settings;
    let (b, rate) = (f64::from(r.timeline.burst), s.gate_rate_rps);
    let sv = f64::from(s.service_ms);
    let mut d = Doc::new("Token vs leaky bucket");
    if let (Some((ti, t)), Some((li, l))) = (row(r, GateKind::TokenBucket), row(r, GateKind::LeakyBucket)) {
        let cmp = |a: f64, b: f64| {
            if a > b {
                Cmp::Gt
            } else if a < b {
                Cmp::Lt
            } else {
                Cmp::Eq
            }
        };
        d.answer.push(Statement::Comparison {
            a: at_burst(GOODPUT_RPS, ti, t, t.goodput_rps),
            cmp: cmp(t.goodput as f64, l.goodput as f64),
            b: at_burst(GOODPUT_RPS, li, l, l.goodput_rps),
        });
        d.answer.push(Statement::Comparison {
            a: at_burst(PEAK_RPS, ti, t, t.downstream_peak_rps),
            cmp: cmp(t.downstream_peak_rps, l.downstream_peak_rps),
            b: at_burst(PEAK_RPS, li, l, l.downstream_peak_rps),
        });
        // Each gate's worst wait, within the bound its parameters give.
        d.steps.push(Statement::Bound {
            m: at_burst(MAX_GATE_DELAY_MS, li, l, l.max_gate_delay_ms),
            what: "(burst − 1) release intervals".into(),
            bound: Arith::new(div(mul(sub(n(b), n(1.0)), n(1000.0)), u(rate, "rps")), "ms"),
            pre: vec![Pre::new("a finite release interval", Cond::Given((1000.0 / rate).is_finite()))],
        });
        d.steps.push(Statement::Bound {
            m: at_burst(MAX_SERVER_WAIT_MS, ti, t, t.max_server_wait_ms),
            what: "(burst − 1) service times".into(),
            bound: Arith::new(mul(sub(n(b), n(1.0)), u(sv, "ms")), "ms"),
            pre: vec![
                Pre::new("a fixed service time", Cond::Given(true)),
                Pre::new(
                    format!(
                        "a gate rate of {} rps at most capacity, 1000 / {} ms",
                        crate::statement::given(rate),
                        s.service_ms
                    ),
                    Cond::Compare(rate, Cmp::Le, capacity_rps(sv, 1)),
                ),
            ],
        });
        // The leaky bucket in place of the token bucket, at the same burst:
        // where the wait lands. A direction only where the two maxima are
        // both 0 or lie clearly apart (the models' times are floats).
        let at = format!("at burst {}", t.burst);
        for (q, now, then) in [
            (MAX_SERVER_WAIT_MS, t.max_server_wait_ms, l.max_server_wait_ms),
            (MAX_GATE_DELAY_MS, t.max_gate_delay_ms, l.max_gate_delay_ms),
        ] {
            let dir = if now == 0.0 && then == 0.0 {
                Some(Cmp::Eq)
            } else if (now - then).abs() > 0.01 {
                Some(if then > now { Cmp::Gt } else { Cmp::Lt })
            } else {
                None
            };
            if let Some(cmp) = dir.filter(|_| t.burst == l.burst) {
                d.would_change.push(Statement::Counterfactual {
                    change: "with the leaky bucket instead of the token bucket".into(),
                    now: Measure::new(q, burst_key(ti), at.clone(), now),
                    then: Measure::new(q, burst_key(li), at.clone(), then),
                    cmp,
                    same_arrivals: true,
                });
            }
        }
    }
    // The best gate of the sweep, over the set it ranges over.
    if !r.sweep.is_empty() {
        let top = r.sweep.iter().map(|x| x.goodput).max().unwrap_or(0);
        d.answer.push(Statement::Best {
            set: "of the gates and bursts tried in the sweep".into(),
            order: "first row of the sweep's table".into(),
            items: r
                .sweep
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    let at = format!("with the {} at burst {} in the sweep", gate_name(x.gate), x.burst);
                    (
                        format!("the {} at burst {}", gate_name(x.gate), x.burst),
                        Measure::new(GOODPUT_RPS, sweep_key(i), at, x.goodput_rps),
                    )
                })
                .collect(),
            higher: true,
            winner: r.sweep.iter().position(|x| x.goodput == top).unwrap_or(0),
        });
    }
    let c = &r.ceiling;
    d.steps.push(Statement::Arith {
        label: "most goodput any policy can reach on this curve".into(),
        formula: "(Σ min(spike arrivals, (spike + deadline) × capacity) + other arrivals) / window".into(),
        eq: Arith::new(
            div(add(n(c.spike_servable as f64), n(c.other_arrivals as f64)), u(f64::from(s.duration_ms) / 1000.0, "s")),
            "rps",
        ),
    });
    let a = |t: &str| Statement::Assumption(t.into());
    d.assumes = vec![
        Statement::Definition(GOODPUT_RPS),
        Statement::Definition(PEAK_RPS),
        a("Both gates have the same sustained rate; the server behind them is FIFO with a fixed service time"),
        a("A token bucket releases at arrival time; a leaky bucket releases one request per interval"),
        a("Released work that finishes after the window is still served and counted; rates divide by the window"),
    ];
    d.ignores = vec![
        a(
            "Server occupancy: neither gate looks at it. Post 3 blames that for the gates staying below Post 2's goodput",
        ),
        a("Network, scheduling and traffic variance"),
    ];
    d.explanation()
}

pub(in crate::experiments) fn readouts(r: &ShapingReport) -> Vec<Readout> {
    let at = |gate: GateKind| {
        row(r, gate).map_or("–".into(), |(_, o)| {
            format!(
                "gate {} ms, server {} ms; downstream peak {}",
                o.gate_delay_p99_ms,
                o.server_wait_p99_ms,
                rps(o.downstream_peak_rps)
            )
        })
    };
    vec![
        Readout::new("Timeline burst", format!("{} requests", r.timeline.burst)),
        Readout::new("Token bucket: p99 wait at the gate and at the server", at(GateKind::TokenBucket)),
        Readout::new("Leaky bucket: p99 wait at the gate and at the server", at(GateKind::LeakyBucket)),
        Readout::new("Goodput ceiling on this curve (any policy)", format!("about {}", rps(r.ceiling.rps))),
    ]
}
