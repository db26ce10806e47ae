//! The third skeptical read (45 settings nobody had written down, 2026-12-04):
//! its findings in the adaptive race (A1–A8), the metastable failure (M1,
//! M2) and collapse (C1), each at the reviewer's exact flags, each a test
//! that failed before its fix.

use bplab_core::adaptive::{Controller, Lane};
use bplab_core::{AdaptiveReport, Caps, ExperimentId, Report, Scenario};

mod common;

fn text(exp: &str, edits: &[(&str, &str)]) -> String {
    common::checked_run(exp, edits).explanations().iter().map(|e| e.to_text()).collect()
}

fn adaptive(edits: &[(&str, &str)]) -> AdaptiveReport {
    let mut p = bplab_core::Params::defaults(ExperimentId::Adaptive);
    p.apply(edits).unwrap();
    let Report::Adaptive(r) = Scenario::new(p, Caps::CLI).unwrap().run() else { unreachable!() };
    r
}

fn lane(r: &AdaptiveReport, c: Controller) -> &Lane {
    r.lanes.iter().find(|l| l.controller == c).unwrap()
}

/// Answers the timeline counts from the window holding `from_ms` on.
fn timeline_ok(r: &AdaptiveReport, l: &Lane, from_ms: u32) -> u64 {
    let first = (from_ms / r.window_ms) as usize;
    l.out.buckets.iter().skip(first).map(|b| b.ok).sum()
}

#[test]
fn a1_ok_per_second_after_the_deploy_counts_only_answers_inside_the_run() {
    // Defaults: after the 2× deploy one worker answers at most 1000 / 42 per second.
    let r = adaptive(&[]);
    for l in &r.lanes {
        assert!(l.ok_per_sec.1 <= 1000.0 / 42.0 + 1e-9, "{}: {} ok/s after", l.controller, l.ok_per_sec.1);
        let after_s = (r.run_ms - f64::from(r.slowdown.0)) / 1000.0;
        assert_eq!(
            (l.ok_per_sec.1 * after_s).round() as u64,
            timeline_ok(&r, l, r.slowdown.0),
            "{}: ok/s after against the timeline",
            l.controller
        );
    }
    // The winner was decided by the drain after the run's end: fixed "66.2 ok/s".
    let edits = [
        ("budget-ms", "3600000"),
        ("controllers", "fixed,gradient2"),
        ("seconds", "8"),
        ("slowdown-at-ms", "3000"),
        ("rate-schedule", "60"),
        ("client-timeout-ms", "50000"),
    ];
    let r = adaptive(&edits);
    for c in [Controller::Fixed, Controller::Gradient2] {
        let l = lane(&r, c);
        assert!(l.ok_per_sec.1 <= 1000.0 / 42.0 + 1e-9, "{c}: {} ok/s after", l.ok_per_sec.1);
    }
    let t = text("adaptive", &edits);
    assert!(!t.contains("66.2 ok/s"), "{t}");
}

#[test]
fn a3_a_stuck_deploy_without_its_preset_is_described_and_bounded_as_stuck() {
    let t = text(
        "adaptive",
        &[
            ("preset", "none"),
            ("deploy", "stuck"),
            ("client-timeout-ms", "300"),
            ("rate-schedule", "30@0,90@8000"),
            ("seconds", "16"),
            ("slowdown-at-ms", "12000"),
            ("workers", "2"),
            ("budget-ms", "3000"),
        ],
    );
    assert!(!t.contains("2× slower") && !t.contains("6006 ms"), "{t}");
    assert!(t.contains("Downstream stuck at the timeout"), "{t}");
    assert!(!t.contains("2 worker(s) behind one FIFO line"), "{t}");
}

#[test]
fn a4_a_stuck_downstream_does_not_claim_one_worker_before_the_deploy() {
    // The model runs 1000 calls at once from time 0: every pre-deploy p99 is the bare 21 ms.
    let r = adaptive(&[("preset", "stuck-downstream")]);
    assert!(
        r.lanes.iter().all(|l| l.p99_ms.0 == Some(21)),
        "{:?}",
        r.lanes.iter().map(|l| l.p99_ms).collect::<Vec<_>>()
    );
    let t = text("adaptive", &[("preset", "stuck-downstream")]);
    assert!(!t.contains("worker(s) before the deploy"), "{t}");
    assert!(t.contains("Up to 1000 calls at once for the whole run"), "{t}");
}

#[test]
fn a5_the_p99_after_the_deploy_and_the_windows_judge_the_same_answers() {
    let edits = [
        ("preset", "stuck-downstream"),
        ("rate-schedule", "46"),
        ("seconds", "14"),
        ("slowdown-at-ms", "12000"),
        ("controllers", "fixed,aimd,gradient"),
    ];
    let r = adaptive(&edits);
    for l in &r.lanes {
        // Every answer after the deploy inside the run is in a window of the timeline.
        let windowed = l.out.buckets.iter().skip(12000 / r.window_ms as usize).filter_map(|b| b.p99_ms).max();
        assert!(l.p99_ms.1 <= windowed.or(l.p99_ms.1), "{}: {:?} against windows {windowed:?}", l.controller, l.p99_ms);
    }
    let t = text("adaptive", &edits);
    assert!(!t.contains("→ 2000 ms"), "{t}");
}

#[test]
fn a6_the_retry_storm_sentence_states_the_run_s_backoff_and_no_storm_without_retries() {
    let t = text(
        "adaptive",
        &[
            ("preset", "retry-storm"),
            ("retries", "10"),
            ("retry-backoff-ms", "0"),
            ("rate-schedule", "30"),
            ("seconds", "20"),
            ("slowdown-at-ms", "15000"),
            ("slowdown-factor", "4"),
        ],
    );
    assert!(t.contains("retries up to 10 times, 0 ms after its refusal or its give-up"), "{t}");
    let t = text(
        "adaptive",
        &[("preset", "retry-storm"), ("retries", "0"), ("controllers", "fixed,codel"), ("slowdown-factor", "1.5")],
    );
    assert!(!t.contains("retries up to 0 times") && !t.contains("amplification)"), "{t}");
}

#[test]
fn a7_a_phase_of_no_time_gets_no_figures_and_no_window() {
    let t = text("adaptive", &[("slowdown-at-ms", "40000"), ("seconds", "20"), ("rate-schedule", "45")]);
    assert!(!t.contains("→ 0.0") && !t.contains("window of the change point"), "{t}");
    let t = text(
        "adaptive",
        &[
            ("slowdown-at-ms", "0"),
            ("slowdown-factor", "3"),
            ("seconds", "10"),
            ("rate-schedule", "20"),
            ("workers", "4"),
            ("service", "lognormal:p50=20,p99=60"),
            ("budget-ms", "150"),
        ],
    );
    assert!(!t.contains("ok/s 0.0 →") && !t.contains("Before the deploy, the limit calculator"), "{t}");
}

#[test]
fn a8_the_worst_time_is_named_where_it_is_compared() {
    let t = text(
        "adaptive",
        &[
            ("budget-ms", "10"),
            ("controllers", "fixed,codel"),
            ("seconds", "8"),
            ("slowdown-at-ms", "3000"),
            ("slowdown-factor", "0.25"),
        ],
    );
    assert!(!t.contains("That worst time"), "{t}");
    assert!(t.contains("The worst time in the system behind the fixed limit after the deploy ("), "{t}");
}

#[test]
fn m1_a_short_last_window_counts_no_answer_after_the_run() {
    // The run ends at 25500 ms: with 1000 ms windows the last is 25000–25500, and
    // answers completed after 25500 made `none` "recover" there.
    let base = [
        ("trigger-at-ms", "20000"),
        ("trigger-ms", "4000"),
        ("seconds", "1.5"),
        ("trigger-lengths-ms", "1000,2000"),
        ("trigger-sizes", "3"),
    ];
    let mut verdicts = Vec::new();
    for w in ["1000", "500"] {
        let mut e = base.to_vec();
        e.push(("window-ms", w));
        let t = text("metastable", &e);
        assert!(!t.contains("None recovered") && !t.contains("None: every"), "window {w}: {t}");
        verdicts.push(t.contains("None did not recover"));
    }
    assert_eq!(verdicts, [true, true]);
}

#[test]
fn m2_a_line_of_any_length_is_never_called_full() {
    let t = text(
        "metastable",
        &[
            ("trigger", "slowdown"),
            ("trigger-at-ms", "0"),
            ("trigger-ms", "1500"),
            ("trigger-size", "6"),
            ("workers", "8"),
            ("service", "exp:21"),
            ("load", "0.95"),
            ("limit", "off"),
            ("client-timeout-ms", "300"),
            ("budget-ratio", "0"),
            ("throttle-k", "1"),
            ("trigger-sizes", "3,6"),
            ("trigger-lengths-ms", "1500"),
            ("seconds", "10"),
        ],
    );
    // The line has no limit: no sentence speaks of a full line.
    assert!(!t.contains("line full") && !t.contains("full line"), "{t}");
    assert!(t.contains("The tries per second when every try fails (naive)"), "{t}");
}

#[test]
fn c1_no_time_to_lateness_where_the_queue_cannot_hold_a_late_arrival() {
    // A queue of 3 behind a 4 ms server: at most (3 + 1) × 4 = 16 ms < 30 ms, never late.
    let t = text(
        "collapse",
        &[
            ("service-ms", "4"),
            ("deadline-ms", "30"),
            ("offered", "100,240,260,400"),
            ("max-retries", "5"),
            ("queue-capacity", "3"),
            ("duration-ms", "3000"),
        ],
    );
    assert!(!t.contains("t* =") && !t.contains("backlog growth"), "{t}");
    assert!(t.contains("An upper bound on the time in the system behind a full queue"), "{t}");
    // Where the queue can hold a late arrival, t* stays.
    let t = text("collapse", &[]);
    assert!(t.contains("t* ="), "{t}");
}

#[test]
fn a2_a_backlog_drained_over_the_budget_does_not_win_the_race() {
    // gradient2 passed the budget in the deploy's first window (draining what it
    // queued before) and "coped best" on that drain; fixed never passed it.
    let edits = [("slowdown-factor", "0.5"), ("service", "exp:21"), ("rate-schedule", "60")];
    let r = adaptive(&edits);
    assert_eq!(lane(&r, Controller::Fixed).recovery_ms, Some(0));
    assert!(lane(&r, Controller::Gradient2).recovery_ms.is_some_and(|ms| ms > 0));
    let t = text("adaptive", &edits);
    assert!(!t.contains("gradient2 has the best") && !t.contains("gradient2 share"), "{t}");
    assert!(
        t.contains(
            "Of the controllers raced whose p99 latency after the deploy was within 230 ms in every window as well"
        ),
        "{t}"
    );
}
