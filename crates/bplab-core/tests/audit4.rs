//! A fourth skeptical read, of the adaptive race and the metastable failure
//! once their explanations were statements: each finding at the reader's
//! exact flags, a regression test that failed before its fix. Every
//! statement of each run is also re-checked on its requests (`common`).

use bplab_core::Report;

mod common;

fn text(exp: &str, edits: &[(&str, &str)]) -> String {
    common::checked_run(exp, edits).explanations().iter().map(|e| e.to_text()).collect()
}

#[test]
fn f1_f2_a_flag_beside_a_preset_is_what_the_text_describes() {
    // The factor given beside the steady-overload preset deploys 3× at 10 s.
    let t = text("adaptive", &[("preset", "steady-overload"), ("slowdown-factor", "3")]);
    assert!(!t.contains("no deploy") && t.contains("Deploy 3× slower at 10000 ms"), "{t}");
    // The rate given beside it is what is offered.
    let t = text("adaptive", &[("preset", "steady-overload"), ("rate-schedule", "10@0")]);
    assert!(!t.contains("52.38 rps offered") && t.contains("offered at 10 rps"), "{t}");
}

#[test]
fn f3_a_stuck_downstream_holds_the_run_s_own_calls_at_once() {
    let t = text("adaptive", &[("preset", "stuck-downstream"), ("workers", "1024")]);
    assert!(!t.contains("1000 concurrent calls") && !t.contains("Up to 1000 calls"), "{t}");
    assert!(t.contains("Up to 1024 calls at once") && t.contains("11215 − 1024 = 10191"), "{t}");
}

#[test]
fn f4_the_fixed_door_s_clamp_is_given_its_reason() {
    let t = text("adaptive", &[("budget-ms", "1"), ("workers", "4")]);
    assert!(!t.contains("(at least 1)"), "{t}");
    assert!(t.contains("the lesson's formula gives no queue: the fixed door admits the 4 worker(s) alone"), "{t}");
}

#[test]
fn m1_counts_over_the_run_leave_out_the_drain_after_it() {
    let r = common::checked_run("adaptive", &[("slowdown-factor", "100"), ("client-timeout-ms", "500")]);
    let Report::Adaptive(a) = &r else { unreachable!() };
    let codel = a.lanes.iter().find(|l| l.controller.name() == "codel").unwrap();
    let in_run: u64 = codel.out.buckets.iter().map(|b| b.wasted).sum();
    assert!(codel.out.wasted > in_run, "the drain is what this finding is about");
    let t: String = r.explanations().iter().map(|e| e.to_text()).collect();
    assert!(!t.contains(&format!("is {}.", codel.out.wasted)), "{t}");
    assert!(t.contains(&format!("for codel within the run (served for nobody) is {in_run}.")), "{t}");
    // Metastable: the goodput within the run, not the drained total.
    let t = text("metastable", &[]);
    assert!(!t.contains("32.27 rps") && t.contains("within the run"), "{t}");
}

#[test]
fn m2_windows_without_an_answer_in_time_are_not_called_within_the_budget() {
    let t = text("adaptive", &[("slowdown-factor", "100"), ("client-timeout-ms", "500")]);
    assert!(!t.contains("has a p99 latency above 230 ms"), "{t}");
    assert!(t.contains("For fixed, no 500 ms window from the one holding the deploy to the run's end has an answer within the deadline."), "{t}");
}

#[test]
fn m3_the_p99_names_what_it_leaves_out() {
    let t = text("adaptive", &[("budget-ms", "100000")]);
    assert!(t.contains("The budget (100000 ms) is at least the deadline (the client timeout)"), "{t}");
    assert!(t.contains("The p99 latency leaves out the answers that came after their caller gave up"), "{t}");
}

#[test]
fn m4_the_judged_phase_s_length_is_shown() {
    let t = text("adaptive", &[("slowdown-at-ms", "29980")]);
    assert!(t.contains("time after the deploy: run − change point = 30000 ms − 29980 ms = 20 ms"), "{t}");
}

#[test]
fn m5_no_stuck_scene_without_a_deploy_and_no_queue_behind_the_calls_at_once() {
    let t = text("adaptive", &[("preset", "stuck-downstream"), ("slowdown-at-ms", "999999")]);
    assert!(!t.contains("Downstream stuck at the timeout"), "{t}");
    let t = text("adaptive", &[("preset", "stuck-downstream")]);
    assert!(!t.contains("the fixed door's queue: fixed limit − workers") && !t.contains("9 queued requests"), "{t}");
    assert!(t.contains("no request waits in a line behind the fixed door's 11"), "{t}");
}

#[test]
fn m6_every_phase_line_names_its_cells_horizon() {
    let t = text("metastable", &[("seconds", "1")]);
    assert!(!t.contains("did not recover by the end of the run in"), "{t}");
    assert!(
        t.contains("None: 4 of 12 cells not recovered within the 1000–4000 ms each run lasts after its trigger's end"),
        "{t}"
    );
}

#[test]
fn m7_codel_s_shed_requests_are_not_called_refused_arrivals() {
    let t = text("adaptive", &[]);
    assert!(!t.contains("refused arrivals for codel"), "{t}");
    assert!(t.contains("The number of arrivals refused or shed for codel within the run is"), "{t}");
}

#[test]
fn i1_no_order_clause_without_a_tie() {
    let t = text("adaptive", &[("preset", "steady-overload")]);
    assert!(!t.contains("the first in the race's order"), "{t}");
}

#[test]
fn i2_i3_the_search_says_where_it_stopped_and_an_edge_at_the_smallest_size_says_so() {
    let t = text("metastable", &[]);
    assert!(!t.contains("the largest naive retry count that recovers is"), "{t}");
    assert!(
        t.contains(
            "the first naive retry count that does not recover by the end of the run is 1, and the last that does is 0"
        ),
        "{t}"
    );
    let t = text("metastable", &[("load", "0.98")]);
    assert!(!t.contains("(from 1.5× at"), "{t}");
}

#[test]
fn fuzz_case_155577_a_length_given_twice_has_one_boundary() {
    let t = text(
        "metastable",
        &[
            ("trigger-at-ms", "371702"),
            ("trigger-ms", "1"),
            ("seconds", "2.54121888971518e4"),
            ("service", "exp:60000"),
            ("retries", "0"),
            ("retry-backoff-ms", "1384271"),
            ("budget-ratio", "1e-10"),
            ("retry-after-ms", "2814012"),
            ("window-ms", "3600000"),
            ("trigger-lengths-ms", "2,1,19887,19887"),
        ],
    );
    assert_eq!(t.matches("every size tried at 19887 ms").count(), 6, "{t}");
}

// A fifth read, of the build with the fourth's fixes (1231be4).

#[test]
fn r5_f1_a_short_last_window_is_said_and_no_loop_is_read_off_it() {
    let t = text("metastable", &[("seconds", "0.001")]);
    assert!(t.contains("(its last window is only 1 ms long)"), "{t}");
    assert!(!t.contains("retries were keeping it down"), "{t}");
}

#[test]
fn r5_f2_a_stuck_downstream_does_not_claim_no_variance() {
    let t = text(
        "adaptive",
        &[("preset", "stuck-downstream"), ("workers", "8"), ("budget-ms", "3000"), ("rate-schedule", "700")],
    );
    assert!(!t.contains("latency has no variance"), "{t}");
    assert!(t.contains("beyond them calls wait in line"), "{t}");
}

#[test]
fn r5_f3_m5_every_stuck_cell_is_named_and_each_counted_once() {
    let t = text("metastable", &[("budget-ratio", "1000"), ("throttle-k", "1")]);
    assert!(t.contains("at 4000 ms: 1.5×, 3× and 4×"), "{t}");
    let t = text("metastable", &[("trigger-sizes", "2,2,3"), ("trigger-lengths-ms", "1000,1000")]);
    assert!(!t.contains("of 6 cells") && t.contains("Naive: 1 of 2 cells not recovered"), "{t}");
}

#[test]
fn r5_m1_windows_without_answers_are_counted_where_none_is_above() {
    let t = text("adaptive", &[("budget-ms", "3000")]);
    assert!(t.contains("For fixed, no 500 ms window from the one holding the deploy to the run's end has a p99 latency above 3000 ms; 0 of those 40 windows had an answer within the deadline") || t.contains("windows had an answer within the deadline"), "{t}");
}

#[test]
fn r5_m2_an_after_phase_shorter_than_a_service_time_is_said_and_not_ranked() {
    // 30 ms after a 2× deploy of a 21 ms service: no request started after it can finish.
    let t = text("adaptive", &[("seconds", "10.03"), ("slowdown-at-ms", "10000")]);
    assert!(t.contains("is below one service time started after it"), "{t}");
    assert!(!t.contains("share the best goodput") && !t.contains("has the best goodput"), "{t}");
}

#[test]
fn r5_m4_a_service_time_past_the_timeout_is_said() {
    let t = text("metastable", &[("client-timeout-ms", "10")]);
    assert!(
        t.contains("The mean service time, with or without the trigger (21 ms) is above the client timeout (10 ms)"),
        "{t}"
    );
}

#[test]
fn r5_i1_a_race_without_the_fixed_door_says_its_figures_are_for_reference() {
    let t = text("adaptive", &[("controllers", "vegas,aimd")]);
    assert!(t.contains("The fixed door is not raced here"), "{t}");
}

// A sixth read, of 13d2870.

#[test]
fn r6_1_a_policy_failing_before_the_trigger_is_said() {
    let t = text(
        "metastable",
        &[
            ("load", "0.999"),
            ("service", "lognormal:p50=10,p99=400"),
            ("limit", "off"),
            ("trigger-size", "1.1"),
            ("trigger-ms", "100"),
            ("trigger-at-ms", "20000"),
            ("window-ms", "3000"),
            ("seconds", "20"),
        ],
    );
    assert!(t.contains("it was already not healthy before the trigger"), "{t}");
}

#[test]
fn r6_2_retries_that_wait_past_the_run_are_said() {
    let t = text("metastable", &[("retry-backoff-ms", "20000")]);
    assert!(
        t.contains(
            "The wait before a naive retry (20000 ms) is at least the time the run lasts after the trigger's end"
        ),
        "{t}"
    );
    let t =
        text("adaptive", &[("deploy", "stuck"), ("retries", "2"), ("retry-backoff-ms", "60000"), ("seconds", "45")]);
    assert!(t.contains("so no retry falls within the run"), "{t}");
}

#[test]
fn r6_3_the_adaptive_last_window_is_said_and_read_over_its_span() {
    let t = text("adaptive", &[("window-ms", "700")]);
    assert!(t.contains("(the run's last window is only 600 ms long)"), "{t}");
    let r = common::checked_run(
        "adaptive",
        &[("preset", "none"), ("rate-schedule", "300"), ("window-ms", "7000"), ("workers", "16")],
    );
    let csv = r.tables()[0].csv();
    let last: Vec<&str> = csv.lines().filter(|l| l.starts_with("fixed,28000,")).collect();
    let ok: f64 = last[0].split(',').nth(4).unwrap().parse().unwrap();
    assert!(ok > 200.0, "the last window's ok/s over its 2 s span: {}", last[0]);
}

#[test]
fn r6_4_5_6_the_limit_s_service_time_the_slowed_service_past_the_timeout_and_codel_only_when_raced() {
    let t = text("adaptive", &[]);
    assert!(
        !t.contains("measured before the deploy") && t.contains("from the mean service time before the deploy"),
        "{t}"
    );
    let t = text(
        "adaptive",
        &[
            ("client-timeout-ms", "100"),
            ("slowdown-factor", "6"),
            ("workers", "3"),
            ("service", "lognormal:p50=20,p99=80"),
            ("rate-schedule", "90"),
        ],
    );
    assert!(t.contains("The mean service time after the deploy ("), "{t}");
    assert!(t.contains("is above the client timeout (100 ms)"), "{t}");
    let t = text("adaptive", &[("controllers", "fixed,vegas")]);
    assert!(!t.contains("CoDel (target"), "{t}");
}

#[test]
fn r6_8_a_zero_backoff_raised_to_1_ms_is_said() {
    let t = text("metastable", &[("retry-backoff-ms", "0")]);
    assert!(t.contains("the 0 ms backoff raised to 1 ms"), "{t}");
}
