//! Explanations of each experiment's result, built from the report's own
//! numbers: the formula with the numbers in it, what the model assumes, what
//! it ignores, and what would change the answer.

use super::{AdmissionReport, CollapseReport, PriorityReport, Report, ShapingReport, SheddingReport};
use crate::calc::{Explanation, Step, budget, fmt_num};
use crate::models::shaping::GateKind;
use crate::numerics::format_fixed;

fn step(label: &str, formula: &str, substituted: String, value: String) -> Step {
    Step { label: label.into(), formula: formula.into(), substituted, value }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

impl Report {
    /// Where this report's headline numbers come from.
    pub fn explanations(&self) -> Vec<Explanation> {
        match self {
            Report::Collapse(r) => vec![collapse(r)],
            Report::Admission(r) => vec![budget(r.settings.service_ms, r.settings.deadline_ms).1, admission(r)],
            Report::Shaping(r) => vec![shaping(r)],
            Report::Shedding(r) => vec![shedding(r)],
            Report::Priority(r) => vec![priority(r)],
        }
    }
}

fn collapse(r: &CollapseReport) -> Explanation {
    let s = &r.settings;
    let capacity = 1000.0 / f64::from(s.service_ms);
    let over = r.no_retry.iter().find(|x| f64::from(x.offered_rps) > capacity);
    let worst = r.retry.last();
    let mut steps = vec![step(
        "capacity",
        "1000 / service",
        format!("1000 / {}", s.service_ms),
        format!("{} rps", fmt_num(capacity)),
    )];
    let answer = match over {
        Some(x) => {
            steps.push(step(
                "backlog growth",
                "offered − capacity",
                format!("{} − {}", x.offered_rps, fmt_num(capacity)),
                format!("{} requests per second", fmt_num(f64::from(x.offered_rps) - capacity)),
            ));
            steps.push(step(
                "seconds until the wait passes the deadline",
                "deadline / 1000 × capacity / growth",
                format!(
                    "{} × {} / {}",
                    fmt_num(f64::from(s.deadline_ms) / 1000.0),
                    fmt_num(capacity),
                    fmt_num(f64::from(x.offered_rps) - capacity)
                ),
                format!(
                    "{} s",
                    fmt_num(f64::from(s.deadline_ms) / 1000.0 * capacity / (f64::from(x.offered_rps) - capacity))
                ),
            ));
            format!(
                "at {} rps offered (capacity {}), goodput is {} rps and {} % of processed attempts are wasted",
                x.offered_rps,
                fmt_num(capacity),
                fmt_num(x.goodput_rps),
                fmt_num(x.wasted_pct)
            )
        }
        None => format!(
            "every offered rate is at or below capacity {} rps: nothing waits past the deadline",
            fmt_num(capacity)
        ),
    };
    if let Some(w) = worst.filter(|w| w.offered_rps > 0) {
        steps.push(step(
            "retry amplification",
            "effective / offered",
            format!("{} / {}", fmt_num(w.effective_rps), w.offered_rps),
            format!("{}×", fmt_num(w.effective_rps / f64::from(w.offered_rps))),
        ));
    }
    Explanation {
        title: "Why goodput collapses".into(),
        answer,
        steps,
        assumes: strings(&[
            "One server with a fixed service time; FIFO; a queue far larger than the load (effectively unbounded).",
            "A client waits for the deadline, then gives up, but the server still serves its request.",
            "Retries wait a fixed backoff after the deadline, with no jitter and no retry budget.",
        ]),
        ignores: strings(&[
            "GC pauses, lock contention, slow dependencies: none are needed for the collapse.",
            "Cancellation: a real server might drop work whose client is gone.",
            "End-of-window drain: rates are normalised by the arrival window.",
        ]),
        would_change: vec![
            "Admission control or a bounded wait (Posts 2 and 4) turns the cliff into a plateau.".into(),
            format!("A slower service lowers capacity ({} rps now) and moves the cliff left.", fmt_num(capacity)),
            "Jittered backoff and retry budgets limit the amplification, not the collapse.".into(),
        ],
    }
}

fn admission(r: &AdmissionReport) -> Explanation {
    let s = &r.settings;
    let best = r.sweep.iter().max_by(|a, b| a.goodput_rps.total_cmp(&b.goodput_rps));
    let mut steps = vec![step(
        "worst sojourn an admitted request can see",
        "plateau limit × service",
        format!("{} × {}", r.plateau_limit, s.service_ms),
        format!("{} ms (deadline {} ms)", u64::from(r.plateau_limit) * u64::from(s.service_ms), s.deadline_ms),
    )];
    if let (Some(nc), Some(lim)) = (r.no_control.last(), r.limited.last()) {
        steps.push(step(
            "plateau vs cliff at the highest offered load",
            "limited goodput / uncontrolled goodput",
            format!("{} / {}", fmt_num(lim.goodput_rps), fmt_num(nc.goodput_rps)),
            if nc.goodput_rps > 0.0 {
                format!("{}×", fmt_num(lim.goodput_rps / nc.goodput_rps))
            } else {
                "∞".into()
            },
        ));
    }
    Explanation {
        title: "Admission limit".into(),
        answer: match best {
            Some(b) => format!(
                "best limit on this curve: {} ({} rps goodput); B = {}",
                b.limit.label(),
                fmt_num(b.goodput_rps),
                r.budget
            ),
            None => format!("B = {}", r.budget),
        },
        steps,
        assumes: strings(&[
            "The door counts requests ahead (occupancy), not a token rate.",
            "Rejection is immediate and free; rejected clients do not retry.",
            "The demand curve alternates valleys and spikes, so slack can carry a spike into the next valley.",
        ]),
        ignores: strings(&[
            "Service-time variance and downstream limits.",
            "The cost of a rejection to the caller.",
            "End-of-window drain, which can lift normalised goodput slightly above capacity.",
        ]),
        would_change: vec![
            format!("Above B = {} the worst sojourn passes the deadline: goodput falls off a cliff.", r.budget),
            "Below B the cost is a gentle slope: spike traffic the valley could absorb is turned away.".into(),
            "Flat permanent overload has no valley to exploit, so a tighter limit loses less.".into(),
        ],
    }
}

fn shaping(r: &ShapingReport) -> Explanation {
    let row = |g: GateKind| r.at_burst.iter().find(|x| x.gate == g);
    let (tok, leak) = (row(GateKind::TokenBucket), row(GateKind::LeakyBucket));
    let b = r.timeline.burst;
    let rate = r.settings.gate_rate_rps;
    let mut steps = vec![step(
        "worst wait a full bucket adds",
        "(burst − 1) × 1000 / gate rate",
        format!("({b} − 1) × 1000 / {}", fmt_num(rate)),
        format!("{} ms", fmt_num(f64::from(b.saturating_sub(1)) * 1000.0 / rate)),
    )];
    if let (Some(t), Some(l)) = (tok, leak) {
        steps.push(step(
            "where the wait lands (p99)",
            "token: server wait; leaky: gate delay",
            format!("token {} ms at the server, leaky {} ms at the gate", t.server_wait_p99_ms, l.gate_delay_p99_ms),
            format!("peak {} vs {} rps downstream", fmt_num(t.downstream_peak_rps), fmt_num(l.downstream_peak_rps)),
        ));
    }
    Explanation {
        title: "Token vs leaky bucket".into(),
        answer: match (tok, leak) {
            (Some(t), Some(l)) => format!(
                "at burst {b}: goodput {} vs {} rps, downstream peak {} vs {} rps",
                fmt_num(t.goodput_rps),
                fmt_num(l.goodput_rps),
                fmt_num(t.downstream_peak_rps),
                fmt_num(l.downstream_peak_rps)
            ),
            _ => format!("burst {b}"),
        },
        steps,
        assumes: strings(&[
            "Both gates have the same sustained rate; the server behind them is FIFO with a fixed service time.",
            "A token bucket releases at arrival time; a leaky bucket releases one request per interval.",
            "The downstream peak counts releases in fixed 100 ms windows.",
        ]),
        ignores: strings(&[
            "Server occupancy: neither gate looks at it, which is why both stay below Post 2's goodput.",
            "Network, scheduling and traffic variance.",
        ]),
        would_change: vec![
            format!("A burst above B = {} lets the wait pass the deadline at either gate.", r.budget),
            "A downstream that must never see a burst needs the leaky bucket; one with headroom can take the token bucket.".into(),
        ],
    }
}

fn shedding(r: &SheddingReport) -> Explanation {
    let worst: Vec<String> = r
        .sweep
        .iter()
        .filter_map(|v| v.last())
        .map(|o| format!("{} {} rps (p99 {} ms)", o.policy.label(), fmt_num(o.goodput_rps), o.p99_served_ms))
        .collect();
    let s = &r.settings;
    Explanation {
        title: "Shedding policies".into(),
        answer: format!("goodput at the highest offered load: {}", worst.join(", ")),
        steps: vec![step(
            "door bound (tail-drop)",
            "B = round(capacity × deadline)",
            format!(
                "round({} × {})",
                fmt_num(1000.0 / f64::from(s.service_ms)),
                fmt_num(f64::from(s.deadline_ms) / 1000.0)
            ),
            format!("{} requests, so the wait is at most {} ms", s.bound, u64::from(s.bound) * u64::from(s.service_ms)),
        )],
        assumes: strings(&[
            "fifo serves the oldest; tail-drop bounds the door at B; expire drops a request whose wait plus service passes the deadline; lifo serves the newest.",
            "Shed requests cost nothing; served-late ones cost a full service slot.",
        ]),
        ignores: strings(&["Retries of shed requests.", "Fairness between clients."]),
        would_change: vec![
            "LIFO's goodput is high but its shed requests waited longest: it hides the old, it does not save them."
                .into(),
            "Without a bound or expiry, FIFO's hangover outlasts the burst by seconds.".into(),
        ],
    }
}

fn priority(r: &PriorityReport) -> Explanation {
    use crate::models::priority::ClassPolicy;
    let s = &r.settings;
    let capacity = 1000.0 / f64::from(s.service_ms);
    let prio: Vec<_> = r.protection.iter().filter(|o| o.policy == ClassPolicy::Priority).collect();
    let fail_at = prio.iter().position(|o| !o.slo_met());
    let first_fail = fail_at.map(|i| prio[i]);
    let last_pass = fail_at.and_then(|i| i.checked_sub(1)).map(|i| prio[i]);
    let mut steps = vec![step(
        "feasibility ceiling",
        "capacity / critical share",
        format!("{} / {}", fmt_num(capacity), fmt_num(s.critical_share)),
        format!("{} rps offered", fmt_num(r.ceiling_rps)),
    )];
    if let Some(o) = first_fail.filter(|o| o.critical_offered_rps() > 0.0) {
        steps.push(step(
            "upper bound on critical success there",
            "capacity / critical offered",
            format!("{} / {}", fmt_num(capacity), fmt_num(o.critical_offered_rps())),
            format!("{} %", fmt_num(100.0 * capacity / o.critical_offered_rps())),
        ));
    }
    Explanation {
        title: "Priority protection".into(),
        answer: match first_fail {
            Some(o) => format!(
                "priority holds critical success ≥ 99 % up to {} rps offered; at {} rps it delivers {} %",
                last_pass.map_or_else(|| "no tested".into(), |p| format_fixed(p.offered_rps(), 1)),
                format_fixed(o.offered_rps(), 1),
                format_fixed(o.critical_success_pct(), 1)
            ),
            None => "priority holds critical success ≥ 99 % at every offered load here".into(),
        },
        steps,
        assumes: strings(&[
            "A fixed-seed classifier marks each arrival critical with the given share.",
            "The system is bounded at B with dequeue expiry, so every served request meets the deadline.",
            "Only arrivals with a full deadline inside the window are scored.",
        ]),
        ignores: strings(&["Retries and client behaviour after rejection.", "Any cost of eviction."]),
        would_change: vec![
            "Near the ceiling timing already matters; above it no eviction creates service slots.".into(),
            "A critical class exists only if another class is allowed to fail: background pays for protection.".into(),
        ],
    }
}
