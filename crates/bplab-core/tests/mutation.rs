//! The mutation test: each of the audit's 29 defects put back, one at a
//! time, as the claim the old text made, at the audit's flags. The checker
//! ([`bplab_core::claim::check`] against the run's evidence, the equation
//! recompute, the lint) must reject every one.

use bplab_core::claim::equation::{div, mul, n};
use bplab_core::claim::{Agg, Claim, Cmp, Equation, Evidence, Fact, check, lint};
use bplab_core::{Caps, EXPERIMENTS, Experiment, Scenario};

fn ev(exp: &str, edits: &[(&str, &str)]) -> Evidence {
    let e = EXPERIMENTS.iter().find(|e| e.name == exp).unwrap();
    let mut p = Experiment::get(e.id).defaults();
    p.apply(edits).unwrap();
    Evidence::of(&Scenario::new(p, Caps::CLI).unwrap().run())
}

fn col(
    table: &'static str,
    filter: &[(&'static str, &str)],
    column: &'static str,
    agg: Agg,
    cmp: Cmp,
    value: f64,
) -> Fact {
    Fact::Column {
        table,
        filter: filter.iter().map(|(c, v)| (*c, (*v).to_owned())).collect(),
        column,
        agg,
        cmp,
        value,
        tol: 0.0,
    }
}

fn lim(workers: u32, budget_ms: f64, service_ms: f64, shipped: u64, worst_ms: f64) -> Fact {
    Fact::Limit { workers, budget_ms, service_ms, shipped, worst_ms }
}

fn cmp(lhs: f64, c: Cmp, rhs: f64) -> Fact {
    Fact::Compare { lhs, cmp: c, rhs }
}

#[test]
fn every_audit_defect_put_back_is_caught() {
    let none = Evidence::default();
    let adaptive = ev("adaptive", &[]);
    let mutants: Vec<(u32, Fact, Evidence)> = vec![
        (1, lim(1, 230.0, 40.0, 5, 240.0), none.clone()),
        (2, lim(4, 100.0, 12.0, 29, 99.0), none.clone()),
        (3, lim(1, 45.0, 6.0, 7, 48.0), none.clone()),
        (4, Fact::Equation(Equation::with_result(div(mul(n(300.0), n(0.1)), n(5.0)), 5.7, "rps")), none.clone()),
        // The wait behind 10 queued, doubled service: ceil(10/1) × 21 × 2 = 420, not 462.
        (5, cmp(462.0, Cmp::Eq, 10.0 * 21.0 * 2.0), none.clone()),
        (6, cmp(0.0, Cmp::Gt, 0.0), none.clone()), // "Retries wait …" with max retries 0
        (
            7,
            col(
                "bp-post1-collapse-sweep.csv",
                &[("mode", "no-retry"), ("offered_rps", "101")],
                "p99_ms",
                Agg::Max,
                Cmp::Gt,
                200.0,
            ),
            ev("collapse", &[("offered", "101")]),
        ),
        (
            8,
            Fact::Column {
                table: "bp-post1-collapse-sweep.csv",
                filter: vec![("mode", "no-retry".into()), ("offered_rps", "300".into())],
                column: "goodput_rps",
                agg: Agg::Max,
                cmp: Cmp::Eq,
                value: 5.7,
                tol: 0.05,
            },
            ev("collapse", &[("queue-capacity", "10")]),
        ),
        (
            9,
            col("bp-post2-limit-sweep.csv", &[], "goodput_rps", Agg::Max, Cmp::Gt, 131.4),
            ev("admission", &[("service-ms", "3")]),
        ),
        (
            10,
            col("bp-post2-limit-sweep.csv", &[("admission_limit", "40")], "served_late_pct", Agg::Max, Cmp::Le, 0.0),
            ev("admission", &[("plateau-limit", "40")]),
        ),
        (11, cmp(2.0 * 10.0, Cmp::Le, 15.0), none.clone()), // "above B = 2 it passes" implies B fits 15 ms
        (
            12,
            col(
                "bp-post3-burst-sweep.csv",
                &[("limiter", "leaky-bucket"), ("burst_capacity", "2")],
                "served_late_pct",
                Agg::Max,
                Cmp::Le,
                0.0,
            ),
            ev("shaping", &[("gate-rate-rps", "200")]),
        ),
        (14, col("bp-post4-hangover.csv", &[], "lifo_p99_ms", Agg::Max, Cmp::Le, 200.0), ev("shedding", &[])),
        (
            15,
            col("bp-post5-slo-burst.csv", &[], "priority_critical_pct", Agg::Min, Cmp::Ge, 99.0),
            ev("priority", &[("deadline-ms", "15")]),
        ),
        (
            16,
            col(
                "bp-post5-protection.csv",
                &[("policy", "priority"), ("offered_rps", "500.2")],
                "critical_success_pct",
                Agg::Max,
                Cmp::Lt,
                99.0,
            ),
            ev("priority", &[("service-ms", "3"), ("critical-share", "0.01")]),
        ),
        (17, cmp(3.0, Cmp::Ge, 12.0), none.clone()), // evenly spaced on the 12 ms server: p99 at least 12 ms
        (18, cmp(180.0, Cmp::Le, 100.0), none.clone()), // both p99s of answers under a 100 ms timeout
        (19, col("lesson-replicas.csv", &[], "replicas", Agg::Min, Cmp::Ge, 2.0), ev("lesson", &[("replicas", "1")])),
        (20, col("lesson-sweep.csv", &[], "ok_per_sec", Agg::Max, Cmp::Le, 1000.0 / 21.0), ev("lesson", &[])),
        (
            22,
            Fact::Best {
                table: "adaptive-summary.csv",
                filter: vec![],
                key: "controller",
                column: "ok_per_sec_after",
                higher: true,
                within: Some(("p99_after_ms", 230.0)),
                tol: 0.0,
                names: vec!["gradient".into()],
            },
            ev("adaptive", &[("slowdown-factor", "0.5")]),
        ),
        (23, cmp(40.0, Cmp::Eq, 1.1 * 1000.0 / 21.0), none.clone()),
        (
            24,
            col("adaptive-summary.csv", &[], "wasted", Agg::Sum, Cmp::Eq, 0.0),
            // Past 1000 concurrent calls (600 rps × 2 s) CoDel's lane queues and wastes work.
            ev("adaptive", &[("preset", "stuck-downstream"), ("rate-schedule", "600")]),
        ),
        (
            25,
            col("adaptive-timeline.csv", &[("controller", "codel")], "in_flight_max", Agg::Max, Cmp::Le, 20.0),
            ev("adaptive", &[("slowdown-factor", "5")]),
        ),
        (26, cmp(60000.0, Cmp::Lt, 30000.0), none.clone()), // data after a change at 60 s in a 30 s run
        (
            27,
            col("adaptive-timeline.csv", &[("controller", "codel")], "p99_ms", Agg::Min, Cmp::Gt, 230.0),
            adaptive.clone(),
        ),
        (
            28,
            col("adaptive-summary.csv", &[("controller", "aimd")], "p99_after_ms", Agg::Max, Cmp::Le, 462.0),
            adaptive.clone(),
        ),
        (29, lim(4, 230.0, 12.0, 73, 240.0), none.clone()),
    ];
    let mut caught = Vec::new();
    for (id, fact, evidence) in mutants {
        let c = Claim::new("mutant", "claim", format!("audit #{id}"), fact);
        assert!(check(&c, &evidence).is_err(), "audit #{id} put back was not caught");
        caught.push(id);
    }
    // Text defects: the lint.
    assert!(lint("shaping", "Seed 004 blames that for the gates").is_err(), "audit #13");
    assert!(lint("lesson", "Deterministic synthetic model output").is_err(), "audit #21");
    caught.extend([13, 21]);
    caught.sort_unstable();
    assert_eq!(caught, (1..=29).collect::<Vec<_>>());
}

#[test]
fn the_fixed_claims_pass_the_same_checker() {
    // The shipped numbers hold where the mutants fail.
    let none = Evidence::default();
    for f in [
        lim(1, 230.0, 40.0, 4, 200.0),
        lim(4, 100.0, 12.0, 28, 96.0),
        lim(1, 45.0, 6.0, 6, 42.0),
        lim(4, 230.0, 12.0, 72, 228.0),
    ] {
        check(&Claim::new("bound", "claim", "", f), &none).unwrap();
    }
}
