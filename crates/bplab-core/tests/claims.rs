//! The articles' claims, as tests. Each asserts what a post says its numbers
//! show, from the models rather than from the CSV text.

use bplab_core::adaptive::Controller;
use bplab_core::models::admission::Limit;
use bplab_core::models::priority::ClassPolicy;
use bplab_core::models::shaping::GateKind;
use bplab_core::models::shedding::ShedPolicy;
use bplab_core::{AdmissionParams, Caps, CollapseParams, ExperimentId, Report, Scenario};

fn run(id: ExperimentId) -> Report {
    Scenario::defaults(id).run()
}

#[test]
fn post1_collapse_is_a_cliff_not_a_plateau() {
    let Report::Collapse(r) = run(ExperimentId::Collapse) else { unreachable!() };
    let at = |rows: &[bplab_core::models::collapse::CollapseRow], rate| {
        rows.iter().find(|x| x.offered_rps == rate).cloned().unwrap()
    };
    assert_eq!(at(&r.no_retry, 100).goodput_rps, 100.0);
    assert_eq!(at(&r.no_retry, 110).goodput_rps, 42.0, "10 % past capacity goodput falls to 42");
    assert!(at(&r.no_retry, 200).goodput_rps < 8.0);
}

#[test]
fn post1_retries_raise_effective_load_but_not_goodput() {
    let Report::Collapse(r) = run(ExperimentId::Collapse) else { unreachable!() };
    for (no, yes) in r.no_retry.iter().zip(&r.retry) {
        assert_eq!(no.goodput_rps, yes.goodput_rps, "retries rescue nothing at {} rps", no.offered_rps);
        if no.offered_rps > 100 {
            assert!(yes.effective_rps > no.effective_rps, "retries add load at {} rps", no.offered_rps);
        } else {
            assert_eq!(yes.effective_rps, no.effective_rps, "retries are inert below capacity");
        }
    }
}

#[test]
fn post2_limit_20_beats_16_and_28() {
    let Report::Admission(r) = run(ExperimentId::Admission) else { unreachable!() };
    let g = |l| r.sweep.iter().find(|o| o.limit == Limit::Finite(l)).unwrap().goodput_rps;
    assert_eq!(r.budget, 20);
    assert!(g(20) > g(16) && g(20) > g(28));
    assert!(g(16) - g(20) > -1.0 && g(20) - g(28) > 70.0, "the slope is gentle below, the cliff is steep above");
    let limited = r.limited.last().unwrap();
    let none = r.no_control.last().unwrap();
    assert!(limited.goodput_rps > 5.0 * none.goodput_rps, "admission restores > 5x goodput at 300 rps");
    assert_eq!(limited.p99_ms, 200, "the limit is a promise about time in the system");
}

#[test]
fn post3_token_passes_the_burst_leaky_holds_it() {
    let Report::Shaping(r) = run(ExperimentId::Shaping) else { unreachable!() };
    let row = |g, b| r.sweep.iter().find(|x| x.gate == g && x.burst == b).unwrap();
    let (tok, leak) = (row(GateKind::TokenBucket, 20), row(GateKind::LeakyBucket, 20));
    assert_eq!((tok.downstream_peak_rps, leak.downstream_peak_rps), (290.0, 100.0));
    assert_eq!((tok.gate_delay_p99_ms, tok.server_wait_p99_ms), (0, 190), "token: the wait lands at the server");
    assert_eq!((leak.gate_delay_p99_ms, leak.server_wait_p99_ms), (190, 0), "leaky: the wait lands at the gate");
    assert!((tok.goodput_rps - leak.goodput_rps).abs() < 0.5, "goodput cannot tell them apart");
}

#[test]
fn post4_bounded_policies_cap_served_latency_at_the_deadline() {
    let Report::Shedding(r) = run(ExperimentId::Shedding) else { unreachable!() };
    for outcomes in &r.sweep {
        let worst = outcomes.last().unwrap();
        match worst.policy {
            ShedPolicy::TailDrop | ShedPolicy::Expire => {
                assert!(worst.p99_served_ms <= 200 && worst.served_late_pct == 0.0)
            }
            ShedPolicy::Fifo => assert!(worst.p99_served_ms > 1000 && worst.goodput_rps < 10.0),
            ShedPolicy::Lifo => {
                assert!(worst.goodput_rps >= 99.0 && worst.shed_wait_p50_ms > 2000, "LIFO starves the old")
            }
        }
    }
}

#[test]
fn post5_priority_holds_the_slo_to_300_and_fails_at_400() {
    let Report::Priority(r) = run(ExperimentId::Priority) else { unreachable!() };
    assert_eq!(r.ceiling_rps, 400.0);
    let find = |pol, rate: f64| {
        r.protection.iter().filter(|o| o.policy == pol).find(|o| (o.offered_rps() - rate).abs() < 1.0).unwrap()
    };
    assert!(find(ClassPolicy::Priority, 300.0).critical_success_pct() >= 99.0);
    assert!(!find(ClassPolicy::Priority, 400.2).slo_met());
    assert!(find(ClassPolicy::Blind, 300.0).critical_success_pct() < 40.0);
    let blind = find(ClassPolicy::Blind, 200.2);
    assert!(
        (blind.critical_success_pct() - blind.background_success_pct()).abs() < 5.0,
        "blind moves both classes together"
    );
    let over = find(ClassPolicy::Priority, 500.2);
    assert!(
        (over.critical_success_pct() - 100.0 / over.critical_offered_rps() * 100.0).abs() < 1.0,
        "above the ceiling ≈ capacity / critical load"
    );
}

#[test]
fn other_parameters_follow_the_same_rules() {
    // S = 7 gives B = round(142.857… × 0.2) = 29 (float division, not 28).
    let p = AdmissionParams { service_ms: 7, ..AdmissionParams::default() };
    assert_eq!(bplab_core::calc::budget_value(p.service_ms, p.deadline_ms), 29);
    let Report::Admission(r) = Scenario::new(p, Caps::CLI).unwrap().run() else { unreachable!() };
    assert_eq!(r.plateau_limit, 29);
    assert!(r.limited.iter().all(|o| o.p99_ms <= 203), "limit B keeps p99 near the deadline");
}

#[test]
fn explanations_carry_the_numbers() {
    let text = |id| run(id).explanations().iter().map(|e| e.to_text()).collect::<String>();
    let a = text(ExperimentId::Admission);
    assert!(
        a.contains("round(1000 / 10 × 200 / 1000)") && a.contains("limit 20 has the best goodput, 99.8 rps"),
        "{a}"
    );
    assert!(a.contains("is 200 ms, within the limit times the service time: 20 × 10 ms = 200 ms"), "{a}");
    let c = text(ExperimentId::Collapse);
    assert!(c.contains("The goodput without retries at 300 rps offered is 5.8 rps"), "{c}");
    assert!(c.contains("capacity: 1000 / service = 1000 / 10 = 100 rps"), "{c}");
    assert!(
        c.contains("Without retries (max retries 0), the ratio of arrivals to first tries at 300 rps offered would be lower: 1× instead of 3.64×")
            && !c.contains("refused arrivals with retries")
            && !c.contains("limits the amplification"),
        "{c}"
    );
    let s = text(ExperimentId::Shaping);
    // Exactly one value: at burst 20 the token bucket's p99 wait is at the server.
    assert!(s.contains("wait at the server of answered requests with the token bucket at burst 20 is 190 ms"), "{s}");
    assert!(s.contains("delay at the gate of answered requests with the leaky bucket at burst 20 is 190 ms"), "{s}");
    assert!(
        s.contains(
            "with the token bucket at burst 20 (290 rps) is above that with the leaky bucket at burst 20 (100 rps)"
        ),
        "{s}"
    );
    // Post 3's curve caps any policy near 48.8 rps (issue 12, item 5).
    assert!(s.contains("/ 5 s = 48.8 rps") && s.contains("has the best goodput, 48 rps"), "{s}");
    let p = text(ExperimentId::Priority);
    assert!(p.contains("1000 / 10 ms / 0.25 = 400 rps"), "{p}");
    assert!(p.contains("priority door at 300 rps offered (99.72 %) is at least the SLO target (99 %)"), "{p}");
    assert!(p.contains("priority door at 400 rps offered (93.32 %) is below the SLO target (99 %)"), "{p}");
    assert!(!p.contains("100.21"), "{p}");
}

#[test]
fn a_bounded_queue_is_not_called_unbounded() {
    let p = CollapseParams { queue_capacity: 20, ..CollapseParams::default() };
    let r = Scenario::new(p, Caps::CLI).unwrap().run();
    let text = r.explanations().iter().map(|e| e.to_text()).collect::<String>();
    assert!(!text.contains("unbounded") && text.contains("a queue bounded at 20 requests"), "{text}");
}

#[test]
fn collapse_goodput_falls_with_the_window_as_stated() {
    // After t* every arrival is late, so a window four times longer gives about a quarter.
    let goodput = |ms: u32| {
        let p = CollapseParams { duration_ms: ms, offered_rps: vec![300.0], ..CollapseParams::default() };
        let Report::Collapse(r) = Scenario::new(p, Caps::CLI).unwrap().run() else { unreachable!() };
        r.no_retry[0].goodput_rps
    };
    let (short, long) = (goodput(5000), goodput(20_000));
    assert!((long / short - 0.25).abs() < 0.05, "{short} → {long}");
}

#[test]
fn the_cliff_sentence_follows_the_numbers() {
    // Light demand never fills the queue past B: no cliff is claimed.
    let p = AdmissionParams { spike_rps: 60.0, ..AdmissionParams::default() };
    let r = Scenario::new(p, Caps::CLI).unwrap().run();
    let text = r.explanations().iter().map(|e| e.to_text()).collect::<String>();
    // No limit above B is said to serve late.
    for l in [28, 40, 80, 200] {
        assert!(!text.contains(&format!("served late at limit {l} ")), "{text}");
    }
}

fn adaptive(edits: &[(&str, &str)]) -> bplab_core::AdaptiveReport {
    let mut p = bplab_core::Params::defaults(ExperimentId::Adaptive);
    p.apply(edits).unwrap();
    let Report::Adaptive(r) = Scenario::new(p, Caps::CLI).unwrap().run() else { unreachable!() };
    r
}

fn lane(r: &bplab_core::AdaptiveReport, c: Controller) -> &bplab_core::adaptive::Lane {
    r.lanes.iter().find(|l| l.controller == c).unwrap()
}

#[test]
fn a_2x_deploy_breaks_the_fixed_limit_and_codel_holds_the_budget() {
    // The lesson's last section: the fixed limit of 10 (+1 in service) was derived
    // from 21 ms; at 42 ms the wait behind it is 11 × 42 = 462 ms > 230.
    let r = adaptive(&[]);
    assert_eq!(r.fixed_limit, 11);
    let fixed = lane(&r, Controller::Fixed);
    assert!(fixed.p99_ms.0.unwrap() <= 230 && fixed.p99_ms.1.unwrap() > 230, "{:?}", fixed.p99_ms);
    assert_eq!(fixed.recovery_ms, None, "a fixed limit never recovers by itself");
    let codel = lane(&r, Controller::Codel);
    assert!(codel.p99_ms.1.unwrap() <= 230, "CoDel keeps the answered p99 within the budget: {:?}", codel.p99_ms);
    for l in &r.lanes {
        assert_eq!(l.out.ok + l.out.wasted + l.out.refused + l.out.unresolved, l.out.attempts, "{}", l.controller);
    }
}

#[test]
fn gradient2_creeps_up_under_modest_steady_overload() {
    // Users report Gradient2's limit growing without end near a gradient of 0.8.
    let r = adaptive(&[("preset", "steady-overload")]);
    let g = lane(&r, Controller::Gradient2);
    let (first, last) = (g.out.buckets[4].limit, g.out.buckets.last().unwrap().limit);
    assert!(last > 3 * first, "gradient2 limit {first} → {last}");
}

#[test]
fn a_stuck_downstream_lets_a_loss_based_limit_grow() {
    // Every call takes exactly the timeout: no drop, no variance; AIMD only grows.
    let r = adaptive(&[("preset", "stuck-downstream")]);
    let a = lane(&r, Controller::Aimd);
    assert!(a.out.buckets.last().unwrap().limit > 100, "{:?}", a.out.buckets.last());
}

#[test]
fn retries_amplify_the_attempts() {
    let calm = adaptive(&[]);
    let storm = adaptive(&[("preset", "retry-storm")]);
    assert!(lane(&storm, Controller::Fixed).out.attempts > lane(&calm, Controller::Fixed).out.attempts + 500);
}

#[test]
fn random_arrivals_queue_below_capacity() {
    // Issue 8: at 40 rps (84 % busy) the deterministic model says p99 = 21 ms;
    // with Poisson arrivals the same server has a tail of about 200 ms.
    let Report::Lesson(r) = run(ExperimentId::Lesson) else { unreachable!() };
    let at40 = r.rates.iter().find(|x| x.rate_rps == 40.0).unwrap();
    assert_eq!(at40.deterministic.p99_ms, 21);
    assert!(at40.replicas[0].p99_ms.unwrap() > 150.0, "{:?}", at40.replicas[0]);
    // With the limit, delivered answers hold near capacity (47.6) at twice capacity.
    let at100 = r.rates.iter().find(|x| x.rate_rps == 100.0).unwrap();
    assert!((at100.ok_per_sec.mean - 1000.0 / 21.0).abs() < 1.5, "{:?}", at100.ok_per_sec);
}
