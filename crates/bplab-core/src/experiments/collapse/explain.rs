//! Where the collapse experiment's numbers come from: statements over its
//! runs (each offered rate, without and with retries), checked against the
//! runs' request logs (`hooks.rs`).

use super::CollapseReport;
use super::hooks::{LIMITED, key, limited};
use crate::calc::{Explanation, capacity_rps, fmt_num};
use crate::claim::Cmp;
use crate::claim::equation::{Expr, add, div, min, mul, n, round, sub, u};
use crate::experiments::{Readout, argmax, rps};
use crate::models::collapse::{self, CollapseRow};
use crate::statement::quantity::{AMPLIFICATION, GOODPUT_RPS, LATE, LATE_OF_ANSWERED_PCT, REFUSED};
use crate::statement::{Arith, Doc, Measure, Quantity, Statement};

/// Index of the row at the highest offered rate (the list need not be sorted).
fn highest(rows: &[CollapseRow]) -> Option<usize> {
    argmax(rows.iter().map(|r| f64::from(r.offered_rps)))
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

fn on(q: Quantity, retry: bool, i: usize, row: &CollapseRow, value: f64) -> Measure {
    let mode = if retry { "with retries" } else { "without retries" };
    Measure::new(q, key(retry, i), format!("{mode} at {} rps offered", row.offered_rps), value)
}

/// `change` on the run `now` gives `then`, both named by the setting they
/// share (`at`); `ord` is how `then` compares with `now`.
fn counterfactual(
    change: &str,
    q: Quantity,
    at: &str,
    now: (String, f64),
    then: (String, f64),
    ord: std::cmp::Ordering,
) -> Statement {
    Statement::Counterfactual {
        change: change.into(),
        now: Measure::new(q, now.0, at, now.1),
        then: Measure::new(q, then.0, at, then.1),
        cmp: match ord {
            std::cmp::Ordering::Less => Cmp::Lt,
            std::cmp::Ordering::Equal => Cmp::Eq,
            std::cmp::Ordering::Greater => Cmp::Gt,
        },
        same_arrivals: true,
    }
}

fn explanation(r: &CollapseReport) -> Explanation {
    let s = &r.settings;
    let (sv, dl, w) = (f64::from(s.service_ms), f64::from(s.deadline_ms), f64::from(s.duration_ms) / 1000.0);
    let mu = capacity_rps(sv, 1);
    let capacity = || div(n(1000.0), n(sv));
    let mut d = Doc::new("Why goodput collapses");
    d.steps.push(Statement::Arith {
        label: "capacity".into(),
        formula: "1000 / service".into(),
        eq: Arith::new(capacity(), "rps"),
    });
    let top = highest(&r.no_retry);
    match top.map(|i| (i, &r.no_retry[i])) {
        Some((i, x)) if f64::from(x.offered_rps) > mu => {
            let lambda = f64::from(x.offered_rps);
            // t* on the parameters as given: (D − S) / 1000 × (1000 / S) / (λ − 1000 / S).
            let t_star = || div(mul(div(sub(n(dl), n(sv)), n(1000.0)), capacity()), sub(n(lambda), capacity()));
            // A queue too short to hold anyone past the deadline: no arrival
            // is ever late, so no t* or backlog growth is shown (C1).
            let q = f64::from(s.queue_capacity);
            let fits = (q + 1.0) * sv <= dl;
            if fits {
                d.steps.push(Statement::Relation {
                    a_label: "an upper bound on the time in the system behind a full queue, (queue capacity + 1) × service time".into(),
                    a: Arith::new(mul(add(n(q), n(1.0)), u(sv, "ms")), "ms"),
                    cmp: Cmp::Le,
                    b_label: "the deadline".into(),
                    b: Arith::new(u(dl, "ms"), "ms"),
                });
            } else {
                d.steps.push(Statement::Arith {
                    label: "backlog growth".into(),
                    formula: "offered − capacity".into(),
                    eq: Arith::new(sub(n(lambda), capacity()), "requests per second"),
                });
                d.steps.push(Statement::Arith {
                    label: "time after which every arrival would be late (while the queue has room)".into(),
                    formula: "t* = (deadline − service) / 1000 × capacity / (offered − capacity)".into(),
                    eq: Arith::new(t_star(), "s"),
                });
            }
            let window = || u(w, "s");
            let late_after = late_after_s(s.service_ms, s.deadline_ms, lambda, mu).unwrap_or(0.0);
            if x.wasted > 0 {
                d.steps.push(Statement::Arith {
                    label: "goodput this implies (before retries)".into(),
                    formula: "offered × min(t*, window) / window".into(),
                    eq: Arith::new(div(mul(n(lambda), min(t_star(), window())), window()), "rps"),
                });
                d.answer.push(Statement::Value(on(GOODPUT_RPS, false, i, x, x.goodput_rps)));
                d.answer.push(Statement::Value(on(LATE_OF_ANSWERED_PCT, false, i, x, late_share(x))));
            } else {
                d.title = "Past capacity, but no collapse in this window".into();
                d.answer.push(Statement::Value(on(GOODPUT_RPS, false, i, x, x.goodput_rps)));
                d.answer.push(Statement::Value(on(LATE, false, i, x, 0.0)));
                if late_after >= w && !fits {
                    d.answer.push(Statement::Relation {
                        a_label: "t*".into(),
                        a: Arith::new(t_star(), "s"),
                        cmp: Cmp::Ge,
                        b_label: "the window".into(),
                        b: Arith::new(window(), "s"),
                    });
                }
            }
        }
        Some(_) => {
            let offered = |r: &CollapseRow| f64::from(r.offered_rps);
            let most = r.no_retry.iter().map(offered).fold(0.0, f64::max);
            d.answer.push(Statement::Relation {
                a_label: "the highest offered load".into(),
                a: Arith::new(Expr::Num(most, "rps"), "rps"),
                cmp: Cmp::Le,
                b_label: "capacity".into(),
                b: Arith::new(capacity(), "rps"),
            });
        }
        None => {}
    }
    if let Some(i) = highest(&r.retry).filter(|&i| r.retry[i].arrivals > 0) {
        let x = &r.retry[i];
        let amp = x.processed as f64 / x.arrivals as f64;
        if s.max_retries > 0 {
            d.steps.push(Statement::Bound {
                m: on(AMPLIFICATION, true, i, x, amp),
                what: "one first try plus the retries allowed".into(),
                bound: Arith::new(add(n(1.0), n(f64::from(s.max_retries))), "×"),
                pre: Vec::new(),
            });
        }
        if x.rejected > 0 {
            d.steps.push(Statement::Value(on(REFUSED, true, i, x, x.rejected as f64)));
        }
        // The same offered rate without retries: a run the sweep already made.
        let plain = r.no_retry.iter().position(|o| o.offered_rps == x.offered_rps);
        if let Some(j) = plain.filter(|_| s.max_retries > 0) {
            let o = &r.no_retry[j];
            let change = "without retries (max retries 0)";
            let goodput = (o.goodput as f64).total_cmp(&(x.goodput as f64));
            let late = late_share(o).total_cmp(&late_share(x));
            let ratio = |r: &CollapseRow| r.processed as f64 / r.arrivals.max(1) as f64;
            let more = (u128::from(o.processed) * u128::from(x.arrivals))
                .cmp(&(u128::from(x.processed) * u128::from(o.arrivals)));
            for (q, now, then, ord) in [
                (AMPLIFICATION, amp, ratio(o), more),
                (GOODPUT_RPS, x.goodput_rps, o.goodput_rps, goodput),
                (LATE_OF_ANSWERED_PCT, late_share(x), late_share(o), late),
            ] {
                let at = format!("at {} rps offered", x.offered_rps);
                d.would_change.push(counterfactual(change, q, &at, (key(true, i), now), (key(false, j), then), ord));
            }
        }
    }
    // The run the answer shows (without retries), with an admission limit of
    // B in the system instead of the long queue: the same arrivals, one change.
    if let (Some((ls, rate)), Some(j)) = (limited(r), top) {
        let x = &r.no_retry[j];
        let o = collapse::run(&ls, rate, false);
        let b_eq = Arith::with_result(round(mul(capacity(), div(n(dl), n(1000.0)))), f64::from(ls.queue_capacity), "");
        if b_eq.check().is_ok() {
            d.steps.push(Statement::Arith {
                label: "admission limit B".into(),
                formula: "round(capacity × deadline / 1000)".into(),
                eq: b_eq,
            });
        }
        let change = format!(
            "with an admission limit of B = {} requests in the system instead of a queue of {}",
            ls.queue_capacity, s.queue_capacity
        );
        let at = format!("without retries at {} rps offered", x.offered_rps);
        let goodput = (o.goodput as f64).total_cmp(&(x.goodput as f64));
        let late = late_share(&o).total_cmp(&late_share(x));
        for (q, now, then, ord) in [
            (GOODPUT_RPS, x.goodput_rps, o.goodput_rps, goodput),
            (LATE_OF_ANSWERED_PCT, late_share(x), late_share(&o), late),
        ] {
            d.would_change.push(counterfactual(&change, q, &at, (key(false, j), now), (LIMITED.into(), then), ord));
        }
    }
    let a = |t: String| Statement::Assumption(t);
    d.assumes = vec![
        Statement::Definition(GOODPUT_RPS),
        Statement::Definition(LATE_OF_ANSWERED_PCT),
        a(format!("One server with a fixed service time; FIFO; a queue bounded at {} requests", s.queue_capacity)),
        a("A client waits for the deadline, then gives up, but the server still serves its request".into()),
        if s.max_retries == 0 {
            a("No retries in this run (max retries 0): the retry mode repeats the no-retry one".into())
        } else {
            a(format!(
                "Retries wait a fixed {} ms after the deadline (or the rejection), with no jitter and no retry budget, up to {} per request",
                s.retry_backoff_ms, s.max_retries
            ))
        },
        a("Every attempt is processed, including those finishing after the window; rates divide by the window".into()),
    ];
    d.ignores = vec![
        a("GC pauses, lock contention, slow dependencies: none are needed for the collapse".into()),
        a("Cancellation: a real server might drop work whose client is gone".into()),
    ];
    d.explanation()
}

pub(in crate::experiments) fn readouts(r: &CollapseReport) -> Vec<Readout> {
    let mu = capacity_rps(f64::from(r.settings.service_ms), 1);
    let plain = highest(&r.no_retry).map(|i| &r.no_retry[i]);
    let retry = highest(&r.retry).map(|i| &r.retry[i]);
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
