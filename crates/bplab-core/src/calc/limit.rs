//! The admission limit from workers, latency budget and service time, in
//! both conventions: the in-system bound (capacity × budget, Post 2) and the
//! queue behind the workers (`workers × (budget − service) / service`,
//! seed 003). They differ by the requests in service.

use serde::{Deserialize, Serialize};

use super::{Explanation, Record, Step, fmt_num};
use crate::error::ConfigError;

/// Inputs of the limit calculator.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitInput {
    /// Requests served at once, 1..=100000.
    pub workers: u32,
    /// Latency budget for time in the system, ms, above `service_ms`, up to 1e7.
    pub budget_ms: f64,
    /// Measured service time of one request, ms, in (0, 1e6].
    pub service_ms: f64,
}

/// Both limits and the derivation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LimitResult {
    /// Drain rate: `workers × 1000 / service`, rps.
    pub capacity_rps: f64,
    /// Requests allowed in the system before rounding: `capacity × budget`.
    pub in_system_exact: f64,
    /// The in-system bound, rounded half-up (Post 2's convention).
    pub in_system_limit: u64,
    /// Queue behind the workers before rounding.
    pub queue_exact: f64,
    /// The queue limit, rounded half-up (seed 003's convention).
    pub queue_limit: u64,
    /// How.
    pub explanation: Explanation,
    /// A shippable record of the queue limit.
    pub record: Record,
}

fn out_of_range(param: &'static str, v: f64, accepted: &str) -> ConfigError {
    ConfigError::OutOfRange { param, value: fmt_num(v), accepted: accepted.to_owned() }
}

fn queue_exact(workers: f64, budget: f64, service: f64) -> f64 {
    workers * (budget - service) / service
}

/// Computes both limit conventions with their explanation.
pub fn limit(i: LimitInput) -> Result<LimitResult, ConfigError> {
    if !(1..=100_000).contains(&i.workers) {
        return Err(out_of_range("workers", f64::from(i.workers), "a whole number from 1 to 100000"));
    }
    if !(i.service_ms.is_finite() && i.service_ms > 0.0 && i.service_ms <= 1e6) {
        return Err(out_of_range("service-ms", i.service_ms, "a number above 0 to 1000000 (ms)"));
    }
    if !(i.budget_ms.is_finite() && i.budget_ms > 0.0 && i.budget_ms <= 1e7) {
        return Err(out_of_range("budget-ms", i.budget_ms, "a number above 0 to 10000000 (ms)"));
    }
    if i.budget_ms <= i.service_ms {
        return Err(ConfigError::BudgetNotAboveService { budget_ms: i.budget_ms, service_ms: i.service_ms });
    }
    let (w, b, s) = (f64::from(i.workers), i.budget_ms, i.service_ms);
    let capacity = w * 1000.0 / s;
    let in_system = capacity * (b / 1000.0);
    let queue = queue_exact(w, b, s);
    let (in_system_limit, queue_limit) = (in_system.round() as u64, queue.round() as u64);
    let (ws, bs, ss) = (fmt_num(w), fmt_num(b), fmt_num(s));
    let steps = vec![
        Step {
            label: "drain rate (capacity)".into(),
            formula: "workers × 1000 / service".into(),
            substituted: format!("{ws} × 1000 / {ss}"),
            value: format!("{} /s", fmt_num(capacity)),
        },
        Step {
            label: "in flight allowed (Little's law, in-system bound)".into(),
            formula: "capacity × budget".into(),
            substituted: format!("{} /s × {} s", fmt_num(capacity), fmt_num(b / 1000.0)),
            value: format!("{} → {in_system_limit}", fmt_num(in_system)),
        },
        Step {
            label: "queue limit behind the workers".into(),
            formula: "workers × (budget − service) / service".into(),
            substituted: format!("{ws} × ({bs} − {ss}) / {ss}"),
            value: format!("{} → {queue_limit}", fmt_num(queue)),
        },
    ];
    let alt = |factor: f64| {
        let s2 = s * factor;
        (b > s2).then(|| format!("{} ms gives {}", fmt_num(s2), queue_exact(w, b, s2).round()))
    };
    let moves: Vec<String> = [alt(0.5), alt(2.0)].into_iter().flatten().collect();
    let moves = if moves.is_empty() { String::new() } else { format!(" ({})", moves.join(", ")) };
    let reverse = format!(
        "A measured service time materially different from {ss} ms, because the limit moves inversely with it{moves}. \
         A change in the worker count, which scales it linearly. A caller whose budget is not {bs} ms. \
         A traffic mix in which the expensive requests are the ones worth keeping: this limit refuses by arrival order alone."
    );
    let explanation = Explanation {
        title: "Admission limit".into(),
        answer: format!(
            "queue limit {queue_limit} (in-system bound {in_system_limit} = {queue_limit} queued + {ws} in service)"
        ),
        steps,
        assumes: vec![
            format!(
                "The service drains at the measured {} per second and its service time stays near {ss} ms.",
                fmt_num(capacity)
            ),
            "The budget is the whole time in the system, queueing included.".into(),
            "Every admitted request holds one slot, in service or waiting, and the queue is served in order.".into(),
            "Rounding is half-up; round down when evidence is incomplete (too loose costs more than too tight).".into(),
        ],
        ignores: vec![
            "Service-time variance: the tail of the service time eats into the budget.".into(),
            "Network time and client-side queueing outside the server.".into(),
            "Retries, which raise the offered load.".into(),
            "Downstream limits that may bind before this one.".into(),
        ],
        would_change: vec![
            format!("Service time: {ss} ms is in the denominator{moves}."),
            format!("Workers: the limit scales linearly with the {ws} worker(s)."),
            format!("Budget: every extra {ss} ms of budget admits {ws} more queued request(s)."),
        ],
    };
    let record = Record {
        setting: format!(
            "Admission limit of {queue_limit} queued requests with {ws} worker(s), refusing at once with a 503 and a Retry-After hint."
        ),
        criterion: format!(
            "The 99th percentile of answers received stays under {bs} ms at any offered rate; delivered answers never fall below the drain rate of {} per second.",
            fmt_num(capacity)
        ),
        measurement: format!(
            "Service time {ss} ms per request with {ws} worker(s), measured at low load on the machine this runs on."
        ),
        number: format!(
            "{queue_limit}, from workers × (budget − service) / service = {ws} × ({bs} − {ss}) / {ss} = {}, rounded half-up.",
            fmt_num(queue)
        ),
        reverse,
    };
    Ok(LimitResult {
        capacity_rps: capacity,
        in_system_exact: in_system,
        in_system_limit,
        queue_exact: queue,
        queue_limit,
        explanation,
        record,
    })
}

/// B = `round((1000 / S) × (D / 1000))` in exactly that order, at least 1.
pub fn budget_value(service_ms: u32, deadline_ms: u32) -> u32 {
    let b = (1000.0 / f64::from(service_ms.max(1)) * (f64::from(deadline_ms) / 1000.0)).round();
    if b >= 1.0 { b.min(f64::from(i32::MAX)) as u32 } else { 1 }
}

/// The models' in-system budget B = `round(capacity × (D / 1000))` with its
/// derivation (Post 2: 100 × 0.2 = 20).
pub fn budget(service_ms: u32, deadline_ms: u32) -> (u32, Explanation) {
    let capacity = 1000.0 / f64::from(service_ms.max(1));
    let b = budget_value(service_ms, deadline_ms);
    let e = Explanation {
        title: "In-system bound B".into(),
        answer: format!("B = {b} requests"),
        steps: vec![
            Step {
                label: "capacity".into(),
                formula: "1000 / service".into(),
                substituted: format!("1000 / {service_ms}"),
                value: format!("{} rps", fmt_num(capacity)),
            },
            Step {
                label: "B (Little's law: capacity × deadline)".into(),
                formula: "round(capacity × deadline / 1000)".into(),
                substituted: format!("round({} × {})", fmt_num(capacity), fmt_num(f64::from(deadline_ms) / 1000.0)),
                value: b.to_string(),
            },
        ],
        assumes: vec![
            "One server with a fixed service time.".into(),
            "B counts everyone in the system, including the request in service.".into(),
        ],
        ignores: vec!["Service-time variance, network time, retries.".into()],
        would_change: vec![format!(
            "A slower service lowers capacity and B; a longer deadline raises B. With B = {b}, the last admitted request waits at most {b} × {service_ms} ms."
        )],
    };
    (b, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(workers: u32, budget_ms: f64, service_ms: f64) -> u64 {
        limit(LimitInput { workers, budget_ms, service_ms }).unwrap().queue_limit
    }

    #[test]
    fn lesson_numbers() {
        assert_eq!(q(1, 230.0, 21.0), 10);
        assert_eq!(q(4, 230.0, 12.0), 73);
        assert_eq!(q(1, 230.0, 10.0), 22);
        assert_eq!(q(1, 230.0, 40.0), 5);
        let r = limit(LimitInput { workers: 1, budget_ms: 230.0, service_ms: 21.0 }).unwrap();
        assert_eq!(fmt_num(r.queue_exact), "9.95");
        assert_eq!(r.in_system_limit, 11);
        assert!(r.record.reverse.contains("10.5 ms gives 21"), "{}", r.record.reverse);
    }

    #[test]
    fn post2_budget() {
        assert_eq!(budget(10, 200).0, 20);
        assert_eq!(budget(7, 200).0, 29);
        assert_eq!(budget(6, 9).0, 1); // (1000/6) × 0.009 = 1.4999…, not 1.5
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(matches!(
            limit(LimitInput { workers: 1, budget_ms: 20.0, service_ms: 21.0 }),
            Err(ConfigError::BudgetNotAboveService { .. })
        ));
        assert!(limit(LimitInput { workers: 0, budget_ms: 230.0, service_ms: 21.0 }).is_err());
        assert!(limit(LimitInput { workers: 1, budget_ms: f64::INFINITY, service_ms: 21.0 }).is_err());
    }
}
