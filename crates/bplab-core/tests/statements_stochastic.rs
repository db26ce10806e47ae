//! Issue 35, part 2: the lesson, adaptive and metastable explanations as
//! statements. Each finding of `shared/audit/explanations-2.md` about them
//! at its exact flags (each failed on the code before the conversion), and
//! every statement re-checked against the runs' per-request records.

use bplab_core::claim::check_report;
use bplab_core::{Caps, EXPERIMENTS, Experiment, Report, Scenario};

fn report(exp: &str, edits: &[(&str, &str)]) -> Report {
    let e = EXPERIMENTS.iter().find(|e| e.name == exp).expect("experiment");
    let mut p = Experiment::get(e.id).defaults();
    p.apply(edits).unwrap_or_else(|err| panic!("{edits:?}: {err}"));
    let r = Scenario::new(p, Caps::CLI).expect("scenario").run();
    check_report(exp, &r).unwrap_or_else(|why| panic!("false statement at {edits:?}: {why}"));
    r
}

fn text(exp: &str, edits: &[(&str, &str)]) -> String {
    report(exp, edits).explanations().iter().map(|e| e.to_text()).collect()
}

#[test]
fn t7_the_reference_model_is_the_server_it_runs() {
    // 8 workers at exp:21: the model runs round(21 / 8) = 3 ms, not 2.63.
    let t = text(
        "lesson",
        &[("workers", "8"), ("service", "exp:21"), ("rate", "300,360,380,400"), ("at-rate", "380"), ("limit", "40")],
    );
    assert!(!t.contains("2.63 ms") && t.contains("round(21 / 8) = 3 ms") && t.contains("one server at 3 ms"), "{t}");
    let t = text(
        "lesson",
        &[("workers", "2"), ("service", "fixed:21"), ("rate", "93"), ("at-rate", "93"), ("limit", "10")],
    );
    assert!(!t.contains("10.5 ms") && t.contains("round(21 / 2) = 11 ms") && t.contains("one server at 11 ms"), "{t}");
}

#[test]
fn t8_random_arrivals_queue_only_where_the_run_shows_it() {
    // A queue limit of 0 and 16 workers: nothing queues, no such cause.
    let t = text(
        "lesson",
        &[("limit", "0"), ("workers", "16"), ("service", "fixed:5"), ("rate", "1000,3000,3500"), ("at-rate", "1000")],
    );
    assert!(!t.contains("queue below capacity") && !t.contains("because"), "{t}");
    // Equal p99s at 0.5 rps: nothing to explain.
    let t = text("lesson", &[("rate", "0.5,1"), ("seconds", "2"), ("at-rate", "0.5"), ("replicas", "1")]);
    assert!(!t.contains("queue below capacity") && !t.contains("because"), "{t}");
    // Where the same server queues only under Poisson arrivals, the cause is stated, checked.
    let t = text("lesson", &[("at-rate", "40"), ("rate", "40")]);
    assert!(t.contains("because the p99 queue wait of answered requests at 40 rps with Poisson arrivals"), "{t}");
    assert!(t.contains("the longest queue wait of answered requests at 40 rps with evenly spaced arrivals"), "{t}");
}

#[test]
fn t20_no_limit_does_not_claim_the_line_grows() {
    let t = text(
        "lesson",
        &[
            ("rate", "47.1"),
            ("limit", "off"),
            ("seconds", "200"),
            ("client-timeout-ms", "100000"),
            ("at-rate", "47.1"),
            ("replicas", "1"),
        ],
    );
    assert!(!t.contains("grows until callers give up"), "{t}");
    assert!(t.contains("requests answered after the deadline at 47.1 rps with Poisson arrivals is 0"), "{t}");
}

#[test]
fn t31_rate_and_capacity_are_compared_exactly() {
    let t = text(
        "lesson",
        &[("workers", "8"), ("service", "exp:21"), ("rate", "300,360,380,400"), ("at-rate", "380"), ("limit", "40")],
    );
    assert!(!t.contains("= 1 (below 1"), "{t}");
    assert!(t.contains("The chosen rate (380 rps) is below the capacity (8 × 1000 / 21"), "{t}");
}

#[test]
fn t1_the_fixed_service_bound_only_for_fixed_service() {
    // Fixed service and a limit of 10: the bound, checked against the longest time of any request.
    let t = text("lesson", &[("at-rate", "40"), ("rate", "40")]);
    assert!(
        t.contains("(ceil(10 / 1) + 1) × 21 ms = 231 ms (for a fixed service time of 21 ms and a queue limit of 10)"),
        "{t}"
    );
    // Exponential service: no fixed-service bound at all.
    let t = text("lesson", &[("service", "exp:21"), ("at-rate", "40"), ("rate", "40")]);
    assert!(!t.contains("× 21 ms ="), "{t}");
}

#[test]
fn t11_the_full_line_time_only_for_fixed_service() {
    let t = text("metastable", &[("service", "exp:21"), ("limit", "20")]);
    assert!(!t.contains("a full line still answers in time") && !t.contains("= 441 ms"), "{t}");
    let t = text("metastable", &[("service", "fixed:21"), ("limit", "20")]);
    assert!(t.contains("(ceil(20 / 1) + 1) × 21 ms = 441 ms"), "{t}");
}

#[test]
fn t19_stays_stuck_only_where_retries_sustain_it() {
    let t = text("metastable", &[("limit", "off")]);
    assert!(!t.contains("none stays stuck") && !t.contains("none: stays stuck"), "{t}");
    assert!(!t.contains("budget stays stuck") && !t.contains("ratio tried stays stuck"), "{t}");
    assert!(t.contains("cells not recovered within the"), "{t}");
    // Every verdict names its horizon.
    assert!(t.contains("ms the run lasts after the trigger's end"), "{t}");
}

#[test]
fn t28_no_recovery_time_where_nothing_failed() {
    let t = text(
        "metastable",
        &[
            ("load", "0.99"),
            ("workers", "8"),
            ("service", "exp:21"),
            ("limit", "5"),
            ("trigger-size", "1.2"),
            ("trigger-ms", "500"),
        ],
    );
    assert!(!t.contains("recovered 500 ms after the trigger's end"), "{t}");
    assert!(t.contains("every 1000 ms window after the trigger's end is healthy"), "{t}");
}

const STUCK: [(&str, &str); 3] = [("preset", "stuck-downstream"), ("workers", "2"), ("client-timeout-ms", "1000")];

#[test]
fn t2_no_failure_mode_the_run_does_not_show() {
    for edits in [&STUCK[..], &[]] {
        let t = text("adaptive", edits);
        assert!(!t.contains("nothing in its signal pushes the limit down"), "{t}");
        // What the run shows of gradient is stated from its records instead.
        assert!(
            t.contains("gradient: how it fared") && t.contains("The goodput for gradient after the deploy is"),
            "{t}"
        );
    }
}

#[test]
fn t18_codel_silence_is_not_given_a_cause_the_run_lacks() {
    let t = text("adaptive", &STUCK);
    assert!(!t.contains("hides a standing queue"), "{t}");
    assert!(t.contains("The number of arrivals refused or shed for codel within the run is 0."), "{t}");
}

#[test]
fn t26_the_calculator_bound_is_for_a_fixed_service_time() {
    let t = text(
        "adaptive",
        &[
            ("workers", "16"),
            ("service", "lognormal:p50=20,p99=60"),
            ("rate-schedule", "600"),
            ("budget-ms", "25"),
            ("slowdown-factor", "1.5"),
        ],
    );
    assert!(!t.contains("whose worst time fits the budget)"), "{t}");
    assert!(
        t.contains("That figure holds for a fixed service time at the mean; this run's service time varies."),
        "{t}"
    );
}

#[test]
fn t27_retries_are_not_the_same_arrivals() {
    let t = text("adaptive", &[("preset", "retry-storm")]);
    assert!(!t.contains("sees the same Poisson arrivals"), "{t}");
    assert!(t.contains("same Poisson first tries (retries depend on each controller's refusals and give-ups)"), "{t}");
}

#[test]
fn earlier_22_a_faster_deploy_is_not_called_slower() {
    let t = text(
        "adaptive",
        &[
            ("slowdown-factor", "0.5"),
            ("service", "exp:21"),
            ("rate-schedule", "45"),
            ("controllers", "fixed,codel,vegas"),
        ],
    );
    assert!(!t.contains("0.5× slower") && t.contains("0.5× the service time (faster)"), "{t}");
}

// ---------------------------------------------------------------------------
// Coverage: every rendered sentence of the three explanations is the text of
// a checked statement or claim, or a marked assumption or definition.

use bplab_core::calc::Explanation;
use bplab_core::claim::Fact;
use bplab_core::fuzz::{FUZZ_CAPS, FuzzGen};
use bplab_core::statement::sentences;

/// The experiments this file covers.
const COVERED: [&str; 3] = ["lesson", "adaptive", "metastable"];

/// Words that may join claims inside one sentence (no verb, no number, no cause).
const JOINERS: [&str; 6] = ["and", "then", "after", "the", "of", "a"];

/// What is left of `sentence` once every claim text is taken out: `None`
/// when only punctuation and joining words remain.
fn residue(sentence: &str, texts: &[&str]) -> Option<String> {
    // A sentence that is part of one claim's text is that claim's.
    let bare = sentence.trim().trim_end_matches('.');
    if !bare.is_empty() && texts.iter().any(|t| t.contains(bare)) {
        return None;
    }
    let mut rest = sentence.to_owned();
    let mut sorted: Vec<&str> = texts.iter().copied().filter(|t| !t.is_empty()).collect();
    sorted.sort_by_key(|t| std::cmp::Reverse(t.len()));
    for t in sorted {
        let t = t.trim().trim_end_matches('.');
        while let Some(i) = rest.find(t) {
            rest.replace_range(i..i + t.len(), " ");
        }
    }
    let words: Vec<String> = rest
        .split(|c: char| !c.is_alphanumeric() && c != '%')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.iter().all(|w| JOINERS.contains(&w.as_str())) && words.len() <= 3 { None } else { Some(rest) }
}

/// Every sentence of `e` (answer, steps, assumes, ignores, would change)
/// and what is not covered; counts the sentences.
fn uncovered(e: &Explanation) -> (usize, Vec<String>) {
    let texts: Vec<&str> = e.claims.iter().map(|c| c.text.as_str()).collect();
    let marked_or_checked =
        e.claims.iter().all(|c| !matches!(c.fact, Fact::Assumed) || c.kind == "assumption" || c.kind == "definition");
    let mut bad = Vec::new();
    if !marked_or_checked {
        bad.push("a claim marked assumed that is not an assumption or a definition".to_owned());
    }
    let mut n = 0;
    let mut parts: Vec<String> = vec![e.answer.clone()];
    for st in &e.steps {
        if st.eq.is_some() {
            n += 1; // checked as an equation by `check_report`
        } else {
            parts.push(st.line());
        }
    }
    parts.extend(e.assumes.iter().cloned());
    parts.extend(e.ignores.iter().cloned());
    parts.extend(e.would_change.iter().cloned());
    for p in parts {
        for s in sentences(&p) {
            n += 1;
            if let Some(r) = residue(&s, &texts) {
                bad.push(format!("{s}  [left: {}]", r.split_whitespace().collect::<Vec<_>>().join(" ")));
            }
        }
    }
    (n, bad)
}

fn coverage_of(name: &str, r: &Report) -> (usize, Vec<String>) {
    let (mut n, mut bad) = (0, Vec::new());
    for e in r.explanations() {
        let (k, b) = uncovered(&e);
        n += k;
        bad.extend(b.into_iter().map(|s| format!("{name}: {s}")));
    }
    (n, bad)
}

#[test]
fn every_sentence_at_the_defaults_is_a_statement() {
    let mut counts = Vec::new();
    for name in COVERED {
        let r = report(name, &[]);
        let (n, bad) = coverage_of(name, &r);
        assert!(bad.is_empty(), "{n} sentences, uncovered:\n{}", bad.join("\n"));
        counts.push(format!("{name}: {n}"));
    }
    eprintln!("sentences at the defaults: {}", counts.join(", "));
}

#[test]
fn every_sentence_at_2000_fuzzed_settings_is_a_statement() {
    let n: usize = std::env::var("BPLAB_COVERAGE_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let mut g = FuzzGen::new(352);
    // `n` parameter sets drawn (about one in five reaches a run: the rest are
    // refused with a message, and render nothing); with
    // `BPLAB_COVERAGE_RAN=1`, `n` sets that reach a run.
    let count_ran = std::env::var("BPLAB_COVERAGE_RAN").is_ok_and(|v| v == "1");
    let (mut done, mut ran) = (0usize, 0usize);
    while (if count_ran { ran } else { done }) < n {
        let case = g.next_case();
        let exp = Experiment::get(case.experiment);
        if !COVERED.contains(&exp.name) {
            continue;
        }
        done += 1;
        let mut p = exp.defaults();
        if p.apply(&case.edits).is_err() {
            continue;
        }
        let Ok(sc) = Scenario::new(p, FUZZ_CAPS) else { continue };
        let r = sc.run();
        ran += 1;
        check_report(exp.name, &r).unwrap_or_else(|why| panic!("{case:?}: {why}"));
        let (_, bad) = coverage_of(exp.name, &r);
        assert!(bad.is_empty(), "{case:?}:\n{}", bad.join("\n"));
    }
    eprintln!("{done} sets drawn, {ran} ran");
    assert!(ran > 0);
}

#[test]
fn t5_the_tagline_does_not_call_a_busy_server_idle() {
    // At the defaults the headline's rate keeps the server 84 % busy, and for
    // more than one worker the reference is not the same server (T7).
    let e = EXPERIMENTS.iter().find(|e| e.name == "lesson").expect("lesson");
    assert!(!e.lesson.contains("idle") && !e.lesson.contains("the same server"), "{}", e.lesson);
    let busy = report("lesson", &[]).explanations().iter().map(|e| e.to_text()).collect::<String>();
    assert!(!busy.contains("idle"), "{busy}");
}
