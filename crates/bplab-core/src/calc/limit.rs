//! The admission limit from workers, latency budget and service time, in
//! both conventions: the in-system bound (capacity × budget, Post 2) and the
//! queue behind the workers (`workers × (budget − service) / service`,
//! seed 003). They differ by the requests in service.

use serde::{Deserialize, Serialize};

use super::{Explanation, Record, Step, budget_value, deadline_safe_bound, fmt_num, worst_sojourn_ms};
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
    /// The queue limit rounded down: the worst time in the system,
    /// `(queue / workers + 1) × service`, stays within the budget.
    pub queue_limit_safe: u64,
    /// The number the record ships: half-up when its worst time in the
    /// system fits the budget, else the deadline-safe one.
    pub record_limit: u64,
    /// How.
    pub explanation: Explanation,
    /// A shippable record of the queue limit.
    pub record: Record,
}

fn queue_exact(workers: f64, budget: f64, service: f64) -> f64 {
    workers * (budget - service) / service
}

/// The nearest multiple of half a power of ten (10.5 → 10, 42 → 40, 6 → 6):
/// the round number a reader recognises near `x`.
fn recognisable(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    let mut p = 1.0f64;
    while p * 10.0 <= x {
        p *= 10.0;
    }
    while p > x {
        p /= 10.0;
    }
    let step = p / 2.0;
    (x / step).round() * step
}

/// Computes both limit conventions with their explanation.
pub fn limit(i: LimitInput) -> Result<LimitResult, ConfigError> {
    use super::params::{BUDGET, CALC_PARAMS, SERVICE, WORKERS};
    CALC_PARAMS[WORKERS].check(f64::from(i.workers))?;
    CALC_PARAMS[SERVICE].check(i.service_ms)?;
    CALC_PARAMS[BUDGET].check(i.budget_ms)?;
    if i.budget_ms <= i.service_ms {
        return Err(ConfigError::BudgetNotAboveService { budget_ms: i.budget_ms, service_ms: i.service_ms });
    }
    let (w, b, s) = (f64::from(i.workers), i.budget_ms, i.service_ms);
    let capacity = super::capacity_rps(s, i.workers);
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
    // The lesson's reversal form: the service time halved and roughly
    // doubled, as numbers a reader recognises (21 ms → 10 and 40 ms).
    let alt = |target: f64| {
        let s2 = recognisable(target);
        (b > s2 && s2 > 0.0).then(|| format!("{} ms gives {}", fmt_num(s2), queue_exact(w, b, s2).round()))
    };
    let moves: Vec<String> = [alt(s / 2.0), alt(s * 2.0)].into_iter().flatten().collect();
    let moves = if moves.is_empty() { String::new() } else { format!(" ({})", moves.join(", ")) };
    let safe = queue.floor().max(0.0) as u64;
    let worst = |q: u64| (q as f64 / w + 1.0) * s;
    let reverse = format!(
        "A measured service time materially different from {ss} ms, because the limit moves inversely with it{moves}. \
         A change in the worker count, which scales it linearly. A caller whose budget is not {bs} ms. \
         A traffic mix in which the expensive requests are the ones worth keeping: this limit refuses by arrival order alone."
    );
    let half_up_fits = worst(queue_limit) <= b;
    let shipped = if half_up_fits { queue_limit } else { safe };
    let explanation = Explanation {
        title: "Admission limit".into(),
        answer: format!(
            "queue limit {queue_limit} (in-system bound {in_system_limit} = {queue_limit} queued + {ws} in service); deadline-safe {safe}"
        ),
        steps: {
            let mut steps = steps;
            steps.push(Step {
                label: "worst time in the system at each rounding".into(),
                formula: "(queue / workers + 1) × service".into(),
                substituted: format!("({queue_limit} / {ws} + 1) × {ss}; ({safe} / {ws} + 1) × {ss}"),
                value: format!(
                    "half-up {queue_limit}: {} ms; rounded down {safe}: {} ms (budget {bs} ms)",
                    fmt_num(worst(queue_limit)),
                    fmt_num(worst(safe))
                ),
            });
            steps
        },
        assumes: vec![
            format!(
                "The service drains at {} per second (λ here is the drain rate, not the offered load) and its service time stays near {ss} ms.",
                fmt_num(capacity)
            ),
            "The budget is the whole time in the system, queueing included.".into(),
            "Admitted requests are served in order, each by one worker.".into(),
            "The formula's answer is rounded half-up, as the lesson rounds 9.95 to 10; the deadline-safe figure rounds down so the worst time in the system stays within the budget.".into(),
        ],
        ignores: vec![
            "Service-time variance: the tail of the service time eats into the budget.".into(),
            "Network time and client-side queueing outside the server.".into(),
            "Retries, which raise the offered load.".into(),
            "Downstream limits that may bind before this one.".into(),
            "That Little's law is about averages: it does not bound the p99, so keep headroom for the tail and re-derive the number per environment.".into(),
        ],
        would_change: vec![
            format!("Service time: {ss} ms is in the denominator{moves}."),
            format!("Workers: the limit scales linearly with the {ws} worker(s)."),
            format!("Budget: every extra {ss} ms of budget admits {ws} more queued request(s)."),
        ],
    };
    let record = Record {
        setting: format!(
            "Admission limit of {shipped} queued requests with {ws} worker(s), refusing at once with a 503 and a Retry-After hint."
        ),
        criterion: format!(
            "An admitted request spends at most {bs} ms in the system (a target set under the p99 criterion, to leave room for the tail); under overload, delivered answers hold near the drain rate of {} per second.",
            fmt_num(capacity)
        ),
        measurement: format!(
            "Service time {ss} ms per request with {ws} worker(s), as given to this calculator; not measured by it."
        ),
        number: if half_up_fits {
            format!(
                "{shipped}, from workers × (budget − service) / service = {ws} × ({bs} − {ss}) / {ss} = {}, rounded half-up; worst time in the system ({shipped} / {ws} + 1) × {ss} = {} ms.",
                fmt_num(queue),
                fmt_num(worst(shipped))
            )
        } else {
            format!(
                "{shipped}, from workers × (budget − service) / service = {ws} × ({bs} − {ss}) / {ss} = {}, rounded down: half-up {queue_limit} would allow ({queue_limit} / {ws} + 1) × {ss} = {} ms, past the budget; {shipped} allows {} ms.",
                fmt_num(queue),
                fmt_num(worst(queue_limit)),
                fmt_num(worst(shipped))
            )
        },
        reverse,
    };
    Ok(LimitResult {
        capacity_rps: capacity,
        in_system_exact: in_system,
        in_system_limit,
        queue_exact: queue,
        queue_limit,
        queue_limit_safe: safe,
        record_limit: shipped,
        explanation,
        record,
    })
}

/// The models' in-system budget B = `round(capacity × (D / 1000))` with its
/// derivation (Post 2: 100 × 0.2 = 20).
pub fn budget(service_ms: u32, deadline_ms: u32) -> (u32, Explanation) {
    let capacity = 1000.0 / f64::from(service_ms.max(1));
    let b = budget_value(service_ms, deadline_ms);
    let safe = deadline_safe_bound(service_ms, deadline_ms);
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
            "A slower service lowers capacity and B; a longer deadline raises B. With B = {b}, the last admitted request spends at most {b} × {service_ms} = {} ms in the system, at most {} ms of it waiting; the deadline-safe bound floor({deadline_ms} / {service_ms}) = {safe} keeps that within {deadline_ms} ms.",
            worst_sojourn_ms(b, service_ms),
            worst_sojourn_ms(b.saturating_sub(1), service_ms),
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
        assert!(r.record.reverse.contains("10 ms gives 22, 40 ms gives 5"), "{}", r.record.reverse);
        assert_eq!(r.queue_limit_safe, 9);
        assert!(r.record.number.starts_with("9,"), "{}", r.record.number);
        assert_eq!(recognisable(10.5), 10.0);
        assert_eq!(recognisable(42.0), 40.0);
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
