//! The admission limit from workers, latency budget and service time, in
//! both conventions: the in-system bound (capacity × budget, Post 2) and the
//! queue behind the workers (`workers × (budget − service) / service`, the
//! course lesson). They differ by the requests in service. The number
//! shipped is the deadline-safe one: the largest queue whose exact worst
//! time `(ceil(q / w) + 1) × S` fits the budget.

use serde::{Deserialize, Serialize};

use super::{Explanation, Record, budget_value, deadline_safe_bound, fmt_num};
use crate::claim::equation::{add, ceil, div, mul, n, round, show, sub, u};
use crate::claim::exact::Ratio;
use crate::claim::{Claim, Cmp, Fact};
use crate::error::ConfigError;
use crate::statement::{Arith, Doc, Statement};

/// Inputs of the limit calculator.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitInput {
    /// Requests served at once, 1..=100000.
    pub workers: u32,
    /// Latency budget for time in the system, ms, above `service_ms`, up to 1e7.
    pub budget_ms: f64,
    /// Measured service time of one request, ms, in [0.001, 1e6].
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
    /// The queue limit, rounded half-up on exact arithmetic (the course lesson's convention).
    pub queue_limit: u64,
    /// The largest queue whose worst time in the system,
    /// `(ceil(queue / workers) + 1) × service`, stays within the budget.
    pub queue_limit_safe: u64,
    /// The number the record ships: the deadline-safe one (equal to the
    /// half-up figure when that fits).
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

/// Worst time in the system of the last of `q` queued requests behind
/// `workers` busy workers with a fixed service time: it starts after
/// `ceil(q / workers)` service times, `(ceil(q / workers) + 1) × service`.
pub fn worst_time_ms(q: u64, workers: u32, service_ms: f64) -> f64 {
    (q.div_ceil(u64::from(workers.max(1))) + 1) as f64 * service_ms
}

/// The deadline-safe queue limit: the largest `q` whose exact worst time
/// `(ceil(q / w) + 1) × S` is within the budget, `w × (floor(B / S) − 1)`,
/// with `floor` on exact arithmetic.
pub fn deadline_safe_queue(workers: u32, budget_ms: f64, service_ms: f64) -> u64 {
    let k =
        Ratio::scaled(1, budget_ms, service_ms).map_or_else(|| (budget_ms / service_ms).floor() as u64, Ratio::floor);
    k.saturating_sub(1).saturating_mul(u64::from(workers))
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
    let workers = u64::from(i.workers);
    let capacity = super::capacity_rps(s, i.workers);
    let in_system = capacity * (b / 1000.0);
    let queue = queue_exact(w, b, s);
    // Rounding decisions on exact rationals: w × B / S and w × (B − S) / S
    // (6.5 is 6.5, not the 6.4999… floating point makes of it), so the parts
    // add up: in-system = queued + workers.
    let exact_q = Ratio::scaled_diff(workers, b, s, s);
    let queue_limit = exact_q.map_or(queue.round() as u64, Ratio::half_up);
    let in_system_limit = queue_limit + workers;
    let safe = deadline_safe_queue(i.workers, b, s);
    let shipped = safe;
    let ws = fmt_num(w);
    let (bs, ss) = (show(b), show(s));
    let budget_eq = Arith::new(u(b, "ms"), "ms");
    let worst_eq = |q: u64| {
        let e = mul(add(ceil(div(n(q as f64), n(w))), n(1.0)), u(s, "ms"));
        Arith::with_result(e, worst_time_ms(q, i.workers, s), "ms")
    };
    let vs_budget = |label: String, q: u64| {
        let a = worst_eq(q);
        let over = crate::statement::arith::compare(&a.expr, &budget_eq.expr).is_gt();
        let cmp = if over { Cmp::Gt } else { Cmp::Le };
        Statement::Relation { a_label: label, a, cmp, b_label: "the budget".into(), b: budget_eq.clone() }
    };
    let mut d = Doc::new("Admission limit");
    d.steps = vec![
        Statement::Arith {
            label: "drain rate (capacity)".into(),
            formula: "workers × 1000 / service".into(),
            eq: Arith::new(div(mul(n(w), n(1000.0)), u(s, "ms")), "/s"),
        },
        Statement::Arith {
            label: "in flight allowed (Little's law, in-system bound)".into(),
            formula: "workers × 1000 / service × budget / 1000".into(),
            eq: Arith::new(mul(div(mul(n(w), n(1000.0)), u(s, "ms")), div(u(b, "ms"), n(1000.0))), ""),
        },
        Statement::Arith {
            label: "queue limit behind the workers (the course lesson's formula), rounded half-up".into(),
            formula: "round(workers × (budget − service) / service)".into(),
            eq: Arith::with_result(round(div(mul(n(w), sub(n(b), n(s))), n(s))), queue_limit as f64, ""),
        },
        Statement::Arith {
            label: "in-system bound".into(),
            formula: "queue limit + workers".into(),
            eq: Arith::new(add(n(queue_limit as f64), n(w)), ""),
        },
    ];
    d.answer.push(Statement::SafeQueue { workers: i.workers, budget_ms: b, service_ms: s, queue: shipped });
    d.answer.push(vs_budget(format!("the worst time in the system with {shipped} queued"), shipped));
    if queue_limit != shipped {
        d.answer.push(vs_budget(
            format!("the worst time in the system with the lesson's half-up {queue_limit} queued"),
            queue_limit,
        ));
    }
    // What would reverse it, by the rule of the number shipped: the service
    // time halved and roughly doubled, as numbers a reader recognises.
    let mut claims = Vec::new();
    let alt = |target: f64, claims: &mut Vec<Claim>, d: &mut Doc| {
        let s2 = recognisable(target);
        let ok = b > s2 && s2 >= CALC_PARAMS[SERVICE].spec.range.min && show(s2) != ss;
        ok.then(|| {
            let q2 = deadline_safe_queue(i.workers, b, s2);
            let text = format!("{} ms gives {q2}", show(s2));
            let worst_ms = worst_time_ms(q2, i.workers, s2);
            claims.push(Claim::new(
                "reversal",
                "claim",
                text.clone(),
                Fact::Limit { workers: i.workers, budget_ms: b, service_ms: s2, shipped: q2, worst_ms },
            ));
            d.would_change.push(Statement::SafeQueue { workers: i.workers, budget_ms: b, service_ms: s2, queue: q2 });
            text
        })
    };
    let moves: Vec<String> =
        [alt(s / 2.0, &mut claims, &mut d), alt(s * 2.0, &mut claims, &mut d)].into_iter().flatten().collect();
    let moves = if moves.is_empty() { String::new() } else { format!(" ({})", moves.join(", ")) };
    let worst = |q: u64| worst_time_ms(q, i.workers, s);
    let bound_kind = if i.workers > 1 {
        format!(
            "fixed-service bound: the last of {shipped} queued starts after ceil({shipped} / {ws}) = {} service times",
            shipped.div_ceil(workers)
        )
    } else {
        "fixed-service bound".to_owned()
    };
    let reverse = format!(
        "A measured service time materially different from {ss} ms, because the limit moves inversely with it{moves}. \
         A change in the worker count, which scales it linearly. A caller whose budget is not {bs} ms. \
         A traffic mix in which the expensive requests are the ones worth keeping: this limit refuses by arrival order alone."
    );
    let shipped_text = format!("{shipped} queued requests");
    let a = |t: &str| Statement::Assumption(t.into());
    d.assumes = vec![
        a("λ here is the drain rate, not the offered load, and the service time stays near the one given"),
        a("The budget is the whole time in the system, queueing included"),
        a(
            "Admitted requests are served in order, each by one worker; the worst time is a fixed-service bound: a varying service time can pass it",
        ),
        a(
            "The lesson's answer is rounded half-up, as the lesson rounds 9.95 to 10; the deadline-safe figure is the largest queue whose worst time in the system, (ceil(queue / workers) + 1) × service, stays within the budget",
        ),
    ];
    d.ignores = vec![
        a("Service-time variance: the tail of the service time eats into the budget"),
        a("Network time and client-side queueing outside the server"),
        a("Retries, which raise the offered load"),
        a("Downstream limits that may bind before this one"),
        a(
            "That Little's law is about averages: it does not bound the p99, so keep headroom for the tail and re-derive the number per environment",
        ),
    ];
    let mut explanation = d.explanation();
    // The record's reversal figures, checked like the statements.
    explanation.claims.append(&mut claims);
    let record = Record {
        setting: format!(
            "Admission limit of {shipped_text} with {ws} worker(s), refusing at once with a 503 and a Retry-After hint."
        ),
        criterion: format!(
            "An admitted request spends at most {bs} ms in the system (a target set under the p99 criterion, to leave room for the tail); under overload, delivered answers hold near the drain rate of {} per second.",
            show(capacity)
        ),
        measurement: format!(
            "Service time {ss} ms per request with {ws} worker(s), as given to this calculator; not measured by it."
        ),
        number: if queue_limit == shipped {
            format!(
                "{shipped}, from workers × (budget − service) / service = {ws} × ({bs} − {ss}) / {ss} = {}, rounded half-up; worst time in the system (ceil({shipped} / {ws}) + 1) × {ss} = {} ms ({bound_kind}).",
                show(queue),
                show(worst(shipped))
            )
        } else {
            format!(
                "{shipped}, the largest queue whose worst time in the system fits the budget: (ceil({shipped} / {ws}) + 1) × {ss} = {} ms ({bound_kind}). The course lesson's formula gives {ws} × ({bs} − {ss}) / {ss} = {}, rounded half-up {queue_limit}, which would allow (ceil({queue_limit} / {ws}) + 1) × {ss} = {} ms, past the budget.",
                show(worst(shipped)),
                show(queue),
                show(worst(queue_limit))
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

impl LimitResult {
    /// The headline lines `bplab limit` prints (and the page's readouts):
    /// label and value.
    pub fn lines(&self) -> Vec<(String, String)> {
        vec![
            ("queue limit (the course lesson's formula, rounded half-up)".into(), self.queue_limit.to_string()),
            (
                "deadline-safe queue limit (worst time within the budget; the record's number)".into(),
                self.record_limit.to_string(),
            ),
            ("in-system bound (capacity × budget, Post 2)".into(), self.in_system_limit.to_string()),
        ]
    }
}

/// The models' in-system budget B = `round(capacity × (D / 1000))` with its
/// derivation (Post 2: 100 × 0.2 = 20), as statements.
pub fn budget(service_ms: u32, deadline_ms: u32) -> (u32, Explanation) {
    use crate::statement::{Arith, Doc, Statement};
    let sv = f64::from(service_ms.max(1));
    let dl = f64::from(deadline_ms);
    let b = budget_value(service_ms, deadline_ms);
    let safe = deadline_safe_bound(service_ms, deadline_ms);
    let worst = |k: u32| Arith::new(mul(n(f64::from(k)), u(sv, "ms")), "ms");
    let deadline = Arith::new(u(dl, "ms"), "ms");
    let relation = |label: String, k: u32| {
        let a = worst(k);
        let cmp = if crate::statement::arith::compare(&a.expr, &deadline.expr).is_gt() { Cmp::Gt } else { Cmp::Le };
        Statement::Relation { a_label: label, a, cmp, b_label: "the deadline".into(), b: deadline.clone() }
    };
    let mut d = Doc::new("In-system bound B");
    d.steps.push(Statement::Arith {
        label: "capacity".into(),
        formula: "1000 / service".into(),
        eq: Arith::new(div(n(1000.0), n(sv)), "rps"),
    });
    // Shown only where exact arithmetic on the operands agrees with the
    // models' floating point (at S = 6, D = 9 exactly 1.5 rounds to 2, the
    // models' 1.4999… to 1).
    let b_eq = Arith::with_result(round(mul(div(n(1000.0), n(sv)), div(n(dl), n(1000.0)))), f64::from(b), "");
    if b_eq.check().is_ok() {
        d.steps.push(Statement::Arith {
            label: "B (Little's law: capacity × deadline)".into(),
            formula: "round(1000 / service × deadline / 1000)".into(),
            eq: b_eq,
        });
    }
    d.steps.extend([Statement::Arith {
        label: "deadline-safe bound".into(),
        formula: "floor(deadline / service)".into(),
        eq: Arith::with_result(crate::claim::equation::floor(div(n(dl), n(sv))), f64::from(safe), ""),
    }]);
    d.answer.push(relation(format!("the worst time in the system at B = {b}"), b));
    if safe != b {
        d.answer.push(relation(format!("the worst time in the system at the deadline-safe {safe}"), safe));
    }
    d.assumes = vec![
        Statement::Assumption("One server with a fixed service time".into()),
        Statement::Assumption("B counts everyone in the system, including the request in service".into()),
        Statement::Assumption("B is computed in floating point in that order, as the models compute it".into()),
    ];
    d.ignores = vec![Statement::Assumption("Service-time variance, network time, retries".into())];
    (b, d.explanation())
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
        assert!(r.record.reverse.contains("10 ms gives 22, 40 ms gives 4"), "{}", r.record.reverse);
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
