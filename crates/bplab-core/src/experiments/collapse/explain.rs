//! Where the collapse experiment's numbers come from, computed from the
//! report at whatever parameters produced it.

use super::CollapseReport;
use crate::calc::{Explanation, Step, capacity_rps, fmt_num};
use crate::claim::equation::{div, mul, n, show, sub, u};
use crate::claim::{Agg, Claim, Cmp, Equation, Fact};
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

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &CollapseReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

fn explanation(r: &CollapseReport) -> Explanation {
    let s = &r.settings;
    let mu = capacity_rps(f64::from(s.service_ms), 1);
    let window_s = f64::from(s.duration_ms) / 1000.0;
    let mut steps = vec![Step::eq(
        "capacity",
        "1000 / service",
        Equation::new(div(n(1000.0), n(f64::from(s.service_ms))), "rps"),
        "",
    )];
    let top = highest(&r.no_retry);
    let mut claims = Vec::new();
    let mut would_change = vec![
        "Admission control or a bounded wait (Posts 2 and 4) turns the cliff into a plateau.".to_owned(),
        format!("A slower service lowers capacity ({} now) and moves the cliff left.", rps(mu)),
    ];
    let mut collapsed = false;
    let answer = match top {
        Some(x) if f64::from(x.offered_rps) > mu => {
            let lambda = f64::from(x.offered_rps);
            let t_star = late_after_s(s.service_ms, s.deadline_ms, lambda, mu).unwrap_or(0.0);
            let slack_s = f64::from(s.deadline_ms.saturating_sub(s.service_ms)) / 1000.0;
            steps.push(Step::eq(
                "backlog growth",
                "offered − capacity",
                Equation::new(sub(n(lambda), n(mu)), "requests per second"),
                "",
            ));
            let late = late_share(x);
            let t_eq = Equation::new(mul(u(slack_s, "s"), div(n(mu), n(lambda - mu))), "s");
            let t_shown = t_eq.shown_result();
            steps.push(Step::eq(
                "time after which every arrival would be late (while the queue has room)",
                "t* = (deadline − service) / 1000 × capacity / (offered − capacity)",
                t_eq,
                &format!("of a {} s window", show(window_s)),
            ));
            let no_retry = vec![("mode", "no-retry".to_owned()), ("offered_rps", x.offered_rps.to_string())];
            if late == 0.0 {
                // Nothing was late: t* does not apply (after the window, or a bounded queue).
                let why = if t_star >= window_s {
                    format!("t* = {t_shown} s falls after the {} s window", show(window_s))
                } else {
                    format!(
                        "the queue of {} keeps every wait under the deadline (rejections instead)",
                        s.queue_capacity
                    )
                };
                claims.push(Claim::new(
                    "trend",
                    if t_star >= window_s { "t-star-after-window" } else { "bounded-queue" },
                    format!("no answer served in this window was late: {why}"),
                    // The CSV's wasted % counts rejections too; a served answer's p99 is the check.
                    Fact::Column {
                        table: "bp-post1-collapse-sweep.csv",
                        filter: no_retry.clone(),
                        column: "p99_ms",
                        agg: Agg::Max,
                        cmp: Cmp::Le,
                        value: f64::from(s.deadline_ms),
                        tol: 0.0,
                    },
                ));
                format!(
                    "without retries, at {} offered (capacity {}), goodput is {}; {}",
                    rps(lambda),
                    rps(mu),
                    rps(x.goodput_rps),
                    claims.last().map_or(String::new(), |c| c.text.clone())
                )
            } else {
                collapsed = true;
                let g_eq = Equation::new(div(mul(n(lambda), u(t_star.min(window_s), "s")), u(window_s, "s")), "rps");
                let model = format!("(the model: {})", rps(x.goodput_rps));
                steps.push(Step::eq(
                    "goodput this implies (before retries)",
                    "offered × min(t*, window) / window",
                    g_eq,
                    &model,
                ));
                if t_star < window_s {
                    would_change.push(format!(
                        "The window: after t* = {t_shown} s every arrival is late, so goodput falls as the window grows; a window k times longer gives about 1/k of this figure."
                    ));
                }
                let late_text = format!("{} % of the work served was late, delivered to nobody", fmt_num(late));
                claims.push(Claim::new(
                    "percentage",
                    "claim",
                    late_text.clone(),
                    Fact::Column {
                        table: "bp-post1-collapse-sweep.csv",
                        filter: no_retry.clone(),
                        column: "wasted_pct",
                        agg: Agg::Max,
                        // With rejections in the CSV's share, it is at least the late share.
                        cmp: if x.rejected == 0 { Cmp::Eq } else { Cmp::Ge },
                        value: late,
                        tol: 0.06,
                    },
                ));
                claims.push(Claim::new(
                    "value",
                    "claim",
                    format!("goodput is {}", rps(x.goodput_rps)),
                    Fact::Column {
                        table: "bp-post1-collapse-sweep.csv",
                        filter: no_retry.clone(),
                        column: "goodput_rps",
                        agg: Agg::Max,
                        cmp: Cmp::Eq,
                        value: x.goodput_rps,
                        tol: 0.051,
                    },
                ));
                format!(
                    "without retries, at {} offered (capacity {}), goodput is {}; {late_text}",
                    rps(lambda),
                    rps(mu),
                    rps(x.goodput_rps)
                )
            }
        }
        _ => format!("every offered rate is at or below capacity {}: no backlog builds", rps(mu)),
    };
    if let Some(w) = highest(&r.retry).filter(|w| w.offered_rps > 0) {
        steps.push(Step::eq(
            "retry amplification at the highest offered load (with retries)",
            "effective / offered",
            Equation::new(div(n(w.effective_rps), n(f64::from(w.offered_rps))), "×"),
            &format!("(at most {}× with {} retries)", 1 + s.max_retries, s.max_retries),
        ));
        steps.push(step(
            "what the CSV's wasted % counts (with retries)",
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
    let retries = if s.max_retries == 0 {
        "No retries in this run (max retries 0): the retry mode repeats the no-retry one.".to_owned()
    } else {
        format!(
            "Retries wait a fixed {} ms after the deadline (or the rejection), with no jitter and no retry budget, up to {} per request.",
            s.retry_backoff_ms, s.max_retries
        )
    };
    Explanation {
        title: if collapsed || top.is_none_or(|x| f64::from(x.offered_rps) <= mu) {
            "Why goodput collapses".into()
        } else {
            "Past capacity, but no collapse in this window".into()
        },
        answer,
        steps,
        assumes: vec![
            queue,
            "A client waits for the deadline, then gives up, but the server still serves its request.".into(),
            retries,
            "Every attempt is processed, including those finishing after the window; rates divide by the window."
                .into(),
        ],
        ignores: strings(&[
            "GC pauses, lock contention, slow dependencies: none are needed for the collapse.",
            "Cancellation: a real server might drop work whose client is gone.",
        ]),
        would_change,
        claims,
    }
}

pub(in crate::experiments) fn readouts(r: &CollapseReport) -> Vec<Readout> {
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
