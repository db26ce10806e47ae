//! Where the token-vs-leaky numbers come from, each gate's worst wait
//! computed from its own parameters.

use super::ShapingReport;
use crate::calc::{Explanation, Step, capacity_rps, fmt_num};
use crate::claim::Equation;
use crate::claim::equation::{div, mul, n, sub};
use crate::experiments::{Readout, rps, step};
use crate::models::shaping::{GateKind, ShapingRow};

fn row(r: &ShapingReport, g: GateKind) -> Option<&ShapingRow> {
    r.at_burst.iter().find(|x| x.gate == g)
}

/// The leaky gate's longest delay for a full queue: `(burst − 1) × 1000 / rate`, ms.
pub(crate) fn leaky_worst_gate_ms(burst: u32, rate_rps: f64) -> f64 {
    f64::from(burst.saturating_sub(1)) * 1000.0 / rate_rps
}

/// The token bucket's wait lands at the server: a full bucket released at
/// once queues `burst − 1` requests ahead of the last, `(burst − 1) × S` ms,
/// when the gate rate is at most capacity (otherwise unbounded in a spike).
pub(crate) fn token_worst_server_ms(burst: u32, service_ms: u32, rate_rps: f64) -> Option<f64> {
    (rate_rps <= capacity_rps(f64::from(service_ms), 1))
        .then(|| f64::from(burst.saturating_sub(1)) * f64::from(service_ms))
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &ShapingReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

fn explanation(r: &ShapingReport) -> Explanation {
    let s = &r.settings;
    let (b, rate) = (r.timeline.burst, s.gate_rate_rps);
    let cap = capacity_rps(f64::from(s.service_ms), 1);
    let c = &r.ceiling;
    let mut steps = vec![Step::eq(
        "leaky bucket: worst delay at the gate",
        "(burst − 1) × 1000 / gate rate",
        Equation::with_result(
            div(mul(sub(n(f64::from(b)), n(1.0)), n(1000.0)), n(rate)),
            leaky_worst_gate_ms(b, rate),
            "ms",
        ),
        "",
    )];
    steps.push(match token_worst_server_ms(b, s.service_ms, rate) {
        Some(ms) => Step::eq(
            "token bucket: worst wait at the server (gate rate ≤ capacity)",
            "(burst − 1) × service",
            Equation::with_result(mul(sub(n(f64::from(b)), n(1.0)), n(f64::from(s.service_ms))), ms, "ms"),
            "",
        ),
        None => step(
            "token bucket: wait at the server (gate rate above capacity)",
            "backlog grows at gate rate − capacity while a spike lasts",
            format!("{} − {}", fmt_num(rate), fmt_num(cap)),
            format!(
                "grows by {} requests per second while a spike lasts (bounded by the spike's length, not by the burst)",
                fmt_num(rate - cap)
            ),
        ),
    });
    if let (Some(t), Some(l)) = (row(r, GateKind::TokenBucket), row(r, GateKind::LeakyBucket)) {
        steps.push(step(
            "where the wait lands in the model (p99)",
            "token: server wait; leaky: gate delay",
            if l.server_wait_p99_ms > 0 || t.gate_delay_p99_ms > 0 {
                format!(
                    "token {} ms at the server ({} ms at the gate), leaky {} ms at the gate ({} ms at the server)",
                    t.server_wait_p99_ms, t.gate_delay_p99_ms, l.gate_delay_p99_ms, l.server_wait_p99_ms
                )
            } else {
                format!("token {} ms at the server, leaky {} ms at the gate", t.server_wait_p99_ms, l.gate_delay_p99_ms)
            },
            format!("downstream peak {} vs {}", rps(t.downstream_peak_rps), rps(l.downstream_peak_rps)),
        ));
    }
    steps.push(step(
        "most goodput any policy can reach on this curve",
        "(Σ min(spike arrivals, (spike + deadline) × capacity) + other arrivals) / window",
        format!(
            "({} of {} spike arrivals in {} spikes + {}) / {} s",
            c.spike_servable,
            c.spike_arrivals,
            c.spikes,
            c.other_arrivals,
            fmt_num(f64::from(s.duration_ms) / 1000.0)
        ),
        format!("about {}", rps(c.rps)),
    ));
    let best = r.sweep.iter().map(|x| x.goodput_rps).fold(0.0f64, f64::max);
    let mut would_change = Vec::new();
    let leaky_max = ((f64::from(s.deadline_ms.saturating_sub(s.service_ms)) * rate / 1000.0).floor() + 1.0).max(1.0);
    if rate <= cap {
        would_change.push(format!(
            "A leaky queue deeper than {} lets gate delay plus service pass the {} ms deadline.",
            fmt_num(leaky_max),
            s.deadline_ms
        ));
        would_change.push(format!(
            "A token bucket larger than {} (deadline / service) lets the time in the system (server wait plus service) pass the deadline.",
            (s.deadline_ms / s.service_ms.max(1)).max(1)
        ));
    } else {
        would_change.push(format!(
            "With the gate rate above capacity ({} > {}) the leaky bucket's releases queue at the server as well, so no gate depth keeps gate delay plus service within the {} ms deadline by itself.",
            rps(rate),
            rps(cap),
            s.deadline_ms
        ));
        would_change.push(format!(
            "A gate rate above capacity ({} > {}) lets the token bucket's server backlog grow through every spike, whatever the burst.",
            rps(rate),
            rps(cap)
        ));
    }
    would_change.push(
        "A downstream that must never see a burst needs the leaky bucket; one with headroom can take the token bucket."
            .into(),
    );
    would_change.push("The leaky bucket moves the caller's wait to the gate rather than shortening it, and it keeps releasing the queued spike after the spike has ended.".into());
    Explanation {
        title: "Token vs leaky bucket".into(),
        answer: match (row(r, GateKind::TokenBucket), row(r, GateKind::LeakyBucket)) {
            (Some(t), Some(l)) => format!(
                "at burst {b}: goodput {} vs {} (ceiling on this curve about {}), downstream peak {} vs {}",
                rps(t.goodput_rps),
                rps(l.goodput_rps),
                rps(c.rps),
                rps(t.downstream_peak_rps),
                rps(l.downstream_peak_rps)
            ),
            _ => format!("burst {b}"),
        },
        steps,
        assumes: vec![
            "Both gates have the same sustained rate; the server behind them is FIFO with a fixed service time.".into(),
            "A token bucket releases at arrival time; a leaky bucket releases one request per interval.".into(),
            "The downstream peak counts releases in fixed 100 ms windows.".into(),
            "Released work that finishes after the window is still served and counted; rates divide by the window."
                .into(),
        ],
        ignores: vec![
            format!(
                "Server occupancy: neither gate looks at it. Post 3 blames that for the gates staying below Post 2's goodput; here the curve itself caps any policy near {} and the best gate reaches {}.",
                rps(c.rps),
                rps(best)
            ),
            "Network, scheduling and traffic variance.".into(),
        ],
        would_change,
        claims: Vec::new(),
    }
}

pub(in crate::experiments) fn readouts(r: &ShapingReport) -> Vec<Readout> {
    let at = |gate: GateKind| {
        row(r, gate).map_or("–".into(), |o| {
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
