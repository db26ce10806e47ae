//! The statement checker's mutation test: each class of defect the second
//! audit found, put back as a statement, is rejected by the checker against
//! the run's per-request evidence (or not rendered at all).

use bplab_core::claim::Cmp;
use bplab_core::claim::equation::{mul, n, u};
use bplab_core::statement::quantity::{GOODPUT_RPS, LATE_OF_ADMITTED_PCT, MAX_TIME_IN_SYSTEM_MS, REFUSED_PCT};
use bplab_core::statement::{Arith, Cond, Logs, Measure, Pre, Statement, check, render};
use bplab_core::{AdmissionParams, Caps, Report, Scenario};

/// The admission run at `--plateau-limit 40` (the sweep's default limits:
/// 1, 2, 4, 8, 12, 16, 20, 28, 40, 80, 200, none) and its request logs.
fn admission() -> (bplab_core::AdmissionReport, Logs) {
    let p = AdmissionParams { plateau_limit: Some(40), ..AdmissionParams::default() };
    let r = Scenario::new(p, Caps::CLI).unwrap().run();
    let logs = r.request_logs();
    let Report::Admission(a) = r else { unreachable!() };
    (a, logs)
}

fn at(i: usize, q: bplab_core::statement::Quantity, v: f64) -> Measure {
    Measure::new(q, format!("sweep/{i}"), format!("at sweep row {i}"), v)
}

#[test]
fn a_wrong_denominator_is_caught() {
    let (a, logs) = admission();
    let o = &a.sweep[8];
    assert_eq!(o.limit.label(), "40");
    // T6: the share of arrivals (69.86 %) stated as a share of admitted requests.
    let wrong = Statement::Value(at(8, LATE_OF_ADMITTED_PCT, o.served_late_pct));
    assert!(check(&wrong, &logs).is_err());
    let right = Statement::Value(at(8, LATE_OF_ADMITTED_PCT, 100.0 * o.late as f64 / (o.goodput + o.late) as f64));
    check(&right, &logs).unwrap();
}

#[test]
fn a_bound_without_its_precondition_is_neither_said_nor_passed() {
    let (a, logs) = admission();
    let bound = |pre: bool| Statement::Bound {
        m: Measure::new(MAX_TIME_IN_SYSTEM_MS, "limited/0", "at the first flat load", a.limited[0].max_sojourn_ms),
        what: "the limit times the service time".into(),
        bound: Arith::new(mul(n(40.0), u(10.0, "ms")), "ms"),
        pre: vec![Pre::new("a fixed service time", Cond::Given(pre))],
    };
    check(&bound(true), &logs).unwrap();
    assert!(render(&bound(false)).is_none() && check(&bound(false), &logs).is_err());
    // A bound the run passes: 10 × 10 ms for limit 40.
    let tight = Statement::Bound {
        m: Measure::new(MAX_TIME_IN_SYSTEM_MS, "sweep/8", "at limit 40", a.sweep[8].max_sojourn_ms),
        what: "too small".into(),
        bound: Arith::new(mul(n(10.0), u(10.0, "ms")), "ms"),
        pre: Vec::new(),
    };
    assert!(check(&tight, &logs).is_err());
}

#[test]
fn an_unchecked_cause_is_caught() {
    let (a, logs) = admission();
    let effect = Statement::Value(at(8, GOODPUT_RPS, a.sweep[8].goodput_rps));
    // T14/T15: a cause the run does not show (nothing refused at limit 40?).
    let false_cause = Statement::Value(at(8, REFUSED_PCT, 0.0));
    assert!(a.sweep[8].reject_pct > 0.0);
    let c = Statement::Cause { effect: Box::new(effect.clone()), cause: Box::new(false_cause), without: None };
    assert!(check(&c, &logs).is_err());
    let true_cause = Statement::Value(at(8, REFUSED_PCT, a.sweep[8].reject_pct));
    let c = Statement::Cause { effect: Box::new(effect), cause: Box::new(true_cause), without: None };
    check(&c, &logs).unwrap();
}

#[test]
fn a_best_over_the_wrong_set_or_a_false_comparison_is_caught() {
    let (a, logs) = admission();
    let items: Vec<(String, Measure)> =
        (0..a.sweep.len()).map(|i| (a.sweep[i].limit.label(), at(i, GOODPUT_RPS, a.sweep[i].goodput_rps))).collect();
    let best = |winner| Statement::Best {
        set: "of the limits".into(),
        order: "listed".into(),
        items: items.clone(),
        higher: true,
        winner,
    };
    // Limit 20 (index 6) reaches the highest goodput first; limit 40 does not.
    check(&best(6), &logs).unwrap();
    assert!(check(&best(8), &logs).is_err());
    let cmp = |c| Statement::Comparison {
        a: at(8, GOODPUT_RPS, a.sweep[8].goodput_rps),
        cmp: c,
        b: at(6, GOODPUT_RPS, a.sweep[6].goodput_rps),
    };
    check(&cmp(Cmp::Lt), &logs).unwrap();
    assert!(check(&cmp(Cmp::Gt), &logs).is_err());
}

#[test]
fn a_verdict_is_no_truer_than_what_it_says_within_its_horizon() {
    let (a, logs) = admission();
    let v = |value| Statement::Verdict {
        claim: Box::new(Statement::Value(at(8, GOODPUT_RPS, value))),
        horizon: "the 5 s window".into(),
    };
    check(&v(a.sweep[8].goodput_rps), &logs).unwrap();
    assert!(check(&v(a.sweep[8].goodput_rps + 1.0), &logs).is_err());
    assert!(render(&v(1.0)).unwrap().starts_with("Within the 5 s window, "));
}

#[test]
fn arithmetic_that_does_not_recompute_is_caught() {
    // T24: the shown result must follow from the operands as given.
    let lying = Statement::Arith {
        label: "L".into(),
        formula: "λ × W".into(),
        eq: Arith::with_result(mul(u(47.62, "/s"), u(0.231, "s")), 11.5, ""),
    };
    assert!(check(&lying, &Logs::default()).is_err());
}

#[test]
fn a_counterfactual_with_a_wrong_value_direction_or_run_is_caught() {
    let (a, logs) = admission();
    assert_eq!((a.sweep[6].limit.label(), a.sweep[8].limit.label()), ("20".to_owned(), "40".to_owned()));
    let cf = |then_run: &str, then: f64, cmp, same_arrivals| Statement::Counterfactual {
        change: "with limit 20 instead of limit 40".into(),
        now: Measure::new(GOODPUT_RPS, "sweep/8", "on the bursty curve", a.sweep[8].goodput_rps),
        then: Measure::new(GOODPUT_RPS, then_run, "on the bursty curve", then),
        cmp,
        same_arrivals,
    };
    let right = cf("sweep/6", a.sweep[6].goodput_rps, Cmp::Gt, true);
    check(&right, &logs).unwrap();
    assert!(
        render(&right)
            .unwrap()
            .starts_with("With limit 20 instead of limit 40, the goodput on the bursty curve would be higher: ")
    );
    // The changed run's value wrong.
    assert!(check(&cf("sweep/6", a.sweep[6].goodput_rps + 1.0, Cmp::Gt, true), &logs).is_err());
    // The direction wrong, both ways, and "the same" where it moved.
    for wrong in [Cmp::Lt, Cmp::Le, Cmp::Eq] {
        assert!(check(&cf("sweep/6", a.sweep[6].goodput_rps, wrong, true), &logs).is_err(), "{wrong:?}");
    }
    // A changed run the logs do not hold, and one run named twice.
    assert!(check(&cf("sweep/99", a.sweep[6].goodput_rps, Cmp::Gt, true), &logs).is_err());
    let twice = cf("sweep/8", a.sweep[8].goodput_rps, Cmp::Eq, true);
    assert!(render(&twice).is_none() && check(&twice, &logs).is_err());
    // A run on other arrivals (the first flat load) is not the same run with one change.
    let other = cf("limited/0", a.limited[0].goodput_rps, Cmp::Gt, true);
    assert!(check(&other, &logs).unwrap_err().contains("same first tries"));
    // Two settings or two quantities are not one counterfactual.
    let Statement::Counterfactual { change, now, then, cmp, same_arrivals } = right else { unreachable!() };
    let moved = Statement::Counterfactual {
        change: change.clone(),
        now: now.clone(),
        then: Measure { at: "at limit 20".into(), ..then.clone() },
        cmp,
        same_arrivals,
    };
    assert!(render(&moved).is_none() && check(&moved, &logs).is_err());
    let swapped = Statement::Counterfactual {
        change,
        now,
        then: Measure { q: REFUSED_PCT, value: a.sweep[6].reject_pct, ..then },
        cmp,
        same_arrivals,
    };
    assert!(check(&swapped, &logs).is_err());
}

/// Every statement the report's explanations render, with its evidence.
fn statements(exp: &str) -> (Vec<Statement>, Logs) {
    let e = bplab_core::EXPERIMENTS.iter().find(|e| e.name == exp).unwrap();
    let r = Scenario::defaults(e.id).run();
    let logs = r.request_logs();
    let all = r
        .explanations()
        .into_iter()
        .flat_map(|x| x.claims)
        .filter_map(|c| match c.fact {
            bplab_core::claim::Fact::Statement(s) => Some(*s),
            _ => None,
        })
        .collect();
    (all, logs)
}

#[test]
fn a_window_verdict_that_is_not_what_the_windows_show_is_caught() {
    use bplab_core::statement::WindowFinding;
    let (all, logs) = statements("adaptive");
    let mut seen = 0;
    for s in all.iter().filter(|s| matches!(s, Statement::WindowP99 { .. })) {
        check(s, &logs).unwrap();
        let Statement::WindowP99 { finding, .. } = s else { unreachable!() };
        // Every other finding, and the right one moved by a window, is false.
        let others = [
            WindowFinding::NoneAbove { judged: 40, windows: 40 },
            WindowFinding::NoAnswers,
            WindowFinding::StillAbove,
            WindowFinding::LastAboveEnds { after_ms: 500.0 },
            WindowFinding::LastAboveEnds { after_ms: 16_500.0 },
        ];
        for f in others.into_iter().filter(|f| f != finding) {
            let mut m = s.clone();
            if let Statement::WindowP99 { finding, .. } = &mut m {
                *finding = f;
            }
            assert!(check(&m, &logs).is_err(), "{f:?} passed for {}", render(s).unwrap());
        }
        seen += 1;
    }
    assert!(seen >= 6, "a window verdict per controller");
}

#[test]
fn a_recovery_verdict_or_a_stuck_loop_the_tries_do_not_show_is_caught() {
    use bplab_core::stochastic::Verdict;
    let (all, logs) = statements("metastable");
    let mut kinds = Vec::new();
    for s in &all {
        match s {
            Statement::Recovery { verdict, sustained_over, .. } => {
                check(s, &logs).unwrap();
                for v in [
                    Verdict::Stuck,
                    Verdict::NoWindow,
                    Verdict::Recovered { after_ms: 0 },
                    Verdict::Recovered { after_ms: 7000 },
                ] {
                    if v == *verdict {
                        continue;
                    }
                    let mut m = s.clone();
                    if let Statement::Recovery { verdict, sustained_over, .. } = &mut m {
                        *verdict = v;
                        *sustained_over = None;
                    }
                    assert!(check(&m, &logs).is_err(), "{v:?} passed for {}", render(s).unwrap());
                }
                // "Stays stuck" said of a run whose last window's tries are below the level.
                if let Some(cap) = sustained_over {
                    let mut m = s.clone();
                    if let Statement::Recovery { sustained_over, .. } = &mut m {
                        *sustained_over = Some(cap * 1000.0);
                    }
                    assert!(check(&m, &logs).is_err());
                }
                kinds.push("recovery");
            }
            Statement::Phase { stuck, rows, .. } => {
                check(s, &logs).unwrap();
                let mut m = s.clone();
                if let Statement::Phase { stuck, .. } = &mut m {
                    *stuck += 1;
                }
                assert!(check(&m, &logs).is_err());
                if *stuck > 0 && !rows.is_empty() {
                    let mut m = s.clone();
                    if let Statement::Phase { rows, .. } = &mut m {
                        rows[0].1[0] *= 2.0;
                    }
                    assert!(check(&m, &logs).is_err());
                }
                kinds.push("phase");
            }
            Statement::Search { answer, stuck_at, .. } => {
                check(s, &logs).unwrap();
                let mut m = s.clone();
                if let Statement::Search { answer: a, stuck_at: st, .. } = &mut m {
                    (*a, *st) = (answer.map(|x| x + 1.0).or(Some(0.0)), *stuck_at);
                }
                assert!(check(&m, &logs).is_err());
                kinds.push("search");
            }
            _ => {}
        }
    }
    for k in ["recovery", "phase", "search"] {
        assert!(kinds.contains(&k), "no {k} statement at the defaults");
    }
}

#[test]
fn a_tie_on_the_best_the_requests_do_not_show_is_caught() {
    let (all, logs) = statements("admission");
    let best = all.iter().find(|s| matches!(s, Statement::Best { .. })).expect("a best at the defaults");
    check(best, &logs).unwrap();
    let Statement::Best { items, winner, .. } = best else { unreachable!() };
    assert!(items.len() > 1);
    {
        // Another item stated at the winner's value: a tie its requests do not give.
        let mut m = best.clone();
        if let Statement::Best { items, .. } = &mut m {
            let other = if *winner == 0 { 1 } else { 0 };
            items[other].1.value = items[*winner].1.value;
        }
        assert!(render(&m).unwrap().contains("share the best"));
        assert!(check(&m, &logs).is_err());
    }
}
