//! Where the collapse experiment's numbers come from, computed from the
//! report at whatever parameters produced it.

use super::CollapseReport;
use crate::calc::{Explanation, capacity_rps, fmt_num};
use crate::experiments::{Readout, rps, argmax, step, strings};
use crate::models::collapse::CollapseRow;

/// The row at the highest offered rate (the list need not be sorted).
fn highest(rows: &[CollapseRow]) -> Option<&CollapseRow> {
    argmax(rows.iter().map(|r| f64::from(r.offered_rps))).and_then(|i| rows.get(i))
}

/// Seconds after which every new arrival is late at offered `lambda` above
/// capacity `mu`: the backlog grows at λ − μ per second and the wait passes
/// D − S when `t* = (D − S) / 1000 × μ / (λ − μ)`.
pub(crate) fn late_after_s(service_ms: u32, deadline_ms: u32, lambda: f64, mu: f64) -> Option<f64> {
    (lambda > mu).then(|| f64::from(deadline_ms.saturating_sub(service_ms)) / 1000.0 * mu / (lambda - mu))
}

/// Share of the served work (not of all attempts) that was late, %.
fn late_share(r: &CollapseRow) -> f64 {
    let served = r.goodput + r.wasted;
    if served == 0 { 0.0 } else { 100.0 * r.wasted as f64 / served as f64 }
}

pub(super) fn explanation(r: &CollapseReport) -> Explanation {
    let s = &r.settings;
    let mu = capacity_rps(f64::from(s.service_ms), 1);
    let window_s = f64::from(s.duration_ms) / 1000.0;
    let mut steps = vec![step("capacity", "1000 / service", format!("1000 / {}", s.service_ms), rps(mu))];
    let top = highest(&r.no_retry);
    let mut would_change = vec![
        "Admission control or a bounded wait (Posts 2 and 4) turns the cliff into a plateau.".to_owned(),
        format!("A slower service lowers capacity ({} now) and moves the cliff left.", rps(mu)),
    ];
    let answer = match top {
        Some(x) if f64::from(x.offered_rps) > mu => {
            let lambda = f64::from(x.offered_rps);
            let t_star = late_after_s(s.service_ms, s.deadline_ms, lambda, mu).unwrap_or(0.0);
            steps.push(step(
                "backlog growth",
                "offered − capacity",
                format!("{} − {}", x.offered_rps, fmt_num(mu)),
                format!("{} requests per second", fmt_num(lambda - mu)),
            ));
            steps.push(step(
                "time after which every arrival is late",
                "t* = (deadline − service) / 1000 × capacity / (offered − capacity)",
                format!(
                    "{} × {} / {}",
                    fmt_num(f64::from(s.deadline_ms - s.service_ms.min(s.deadline_ms)) / 1000.0),
                    fmt_num(mu),
                    fmt_num(lambda - mu)
                ),
                format!("{} s of a {} s window", fmt_num(t_star), fmt_num(window_s)),
            ));
            steps.push(step(
                "goodput this implies (before retries)",
                "offered × min(t*, window) / window",
                format!("{} × {} / {}", x.offered_rps, fmt_num(t_star.min(window_s)), fmt_num(window_s)),
                format!("about {} (the model: {})", rps(lambda * t_star.min(window_s) / window_s), rps(x.goodput_rps)),
            ));
            would_change.push(format!(
                "The window: after t* = {} s every arrival is late, so goodput falls as the window grows; a window k times longer gives about 1/k of this figure.",
                fmt_num(t_star)
            ));
            format!(
                "at {} offered (capacity {}), goodput is {}; {} % of the work served was late, delivered to nobody",
                rps(lambda),
                rps(mu),
                rps(x.goodput_rps),
                fmt_num(late_share(x))
            )
        }
        _ => format!("every offered rate is at or below capacity {}: no backlog builds", rps(mu)),
    };
    if let Some(w) = highest(&r.retry).filter(|w| w.offered_rps > 0) {
        steps.push(step(
            "retry amplification at the highest offered load",
            "effective / offered",
            format!("{} / {}", fmt_num(w.effective_rps), w.offered_rps),
            format!(
                "{}× (at most {}× with {} retries)",
                fmt_num(w.effective_rps / f64::from(w.offered_rps)),
                1 + s.max_retries,
                s.max_retries
            ),
        ));
        steps.push(step(
            "what the CSV's wasted % counts",
            "(served late + rejected) / processed; rejections cost no service",
            format!("{} late + {} rejected of {} attempts", w.wasted, w.rejected, w.processed),
            format!(
                "{} % wasted; {} % of the work actually served was late",
                fmt_num(w.wasted_pct),
                fmt_num(late_share(w))
            ),
        ));
    }
    would_change.push(format!(
        "Jitter spreads retries in time; it does not reduce them. A retry budget or a lower cap limits how many: {} retries allow up to {}× the attempts.",
        s.max_retries,
        1 + s.max_retries
    ));
    let rejected: u64 = r.no_retry.iter().chain(&r.retry).map(|x| x.rejected).sum();
    let queue = if rejected == 0 {
        format!(
            "One server with a fixed service time; FIFO; a queue of {} that never filled in these runs (effectively unbounded).",
            s.queue_capacity
        )
    } else {
        format!(
            "One server with a fixed service time; FIFO; a queue bounded at {} requests: {} attempts found it full and were rejected.",
            s.queue_capacity, rejected
        )
    };
    Explanation {
        title: "Why goodput collapses".into(),
        answer,
        steps,
        assumes: vec![
            queue,
            "A client waits for the deadline, then gives up, but the server still serves its request.".into(),
            format!(
                "Retries wait a fixed {} ms after the deadline (or the rejection), with no jitter and no retry budget.",
                s.retry_backoff_ms
            ),
            "Every attempt is processed, including those finishing after the window; rates divide by the window."
                .into(),
        ],
        ignores: strings(&[
            "GC pauses, lock contention, slow dependencies: none are needed for the collapse.",
            "Cancellation: a real server might drop work whose client is gone.",
        ]),
        would_change,
    }
}

pub(super) fn readouts(r: &CollapseReport) -> Vec<Readout> {
    let mu = capacity_rps(f64::from(r.settings.service_ms), 1);
    let (plain, retry) = (highest(&r.no_retry), highest(&r.retry));
    vec![
        Readout::new("Capacity (1000 / service)", rps(mu)),
        Readout::new(
            "Goodput at the highest offered load, no retry",
            plain.map_or("–".into(), |o| {
                format!("{} at {} offered", rps(o.goodput_rps), rps(f64::from(o.offered_rps)))
            }),
        ),
        Readout::new(
            "Goodput at the highest offered load, with retries",
            retry.map_or("–".into(), |o| rps(o.goodput_rps)),
        ),
        Readout::new(
            "Effective load with retries",
            retry.map_or("–".into(), |o| {
                let amp = if o.offered_rps > 0 { o.effective_rps / f64::from(o.offered_rps) } else { 0.0 };
                format!("{} (× {})", rps(o.effective_rps), fmt_num(amp))
            }),
        ),
        Readout::new(
            "Served work that was late, with retries",
            retry.map_or("–".into(), |o| format!("{}%", fmt_num(late_share(o)))),
        ),
    ]
}
