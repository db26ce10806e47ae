//! Coverage: every sentence an explanation shows is the rendering of a
//! typed statement (`bplab_core::statement`) that the checker re-evaluated
//! against the run's per-request evidence, or a marked assumption or
//! definition. At the defaults and at 2,000 fuzzed parameter sets, for every
//! converted experiment and both calculators.

use bplab_core::calc::{Explanation, LimitInput, LittlesInput, limit, littles};
use bplab_core::claim::{Evidence, Fact, check, check_report};
use bplab_core::fuzz::{FUZZ_CAPS, FuzzGen};
use bplab_core::statement::sentences;
use bplab_core::{EXPERIMENTS, Experiment, Scenario};

/// Experiments whose explanations are not yet built from statements: the
/// coverage test skips them. Remove a name when its `explain.rs` builds its
/// explanation with `statement::Doc`.
pub const PENDING: &[&str] = &[];

/// Every shown string of `e` split into sentences; each must lie inside the
/// rendering of one of its statements, and every statement must check.
fn covered(what: &str, e: &Explanation, ev: &Evidence) -> Result<usize, String> {
    let rendered: Vec<&str> =
        e.claims.iter().filter(|c| matches!(c.fact, Fact::Statement(_))).map(|c| c.text.as_str()).collect();
    let mut shown: Vec<String> = Vec::new();
    shown.extend(sentences(&e.answer));
    shown.extend(e.steps.iter().map(|s| s.line()));
    for list in [&e.assumes, &e.ignores, &e.would_change] {
        for item in list {
            shown.extend(sentences(item));
        }
    }
    for s in &shown {
        if !rendered.iter().any(|r| r.contains(s.as_str())) {
            return Err(format!("{what}: not a statement: \"{s}\""));
        }
    }
    for c in &e.claims {
        check(c, ev).map_err(|why| format!("{what}: {why}"))?;
    }
    Ok(shown.len())
}

fn converted() -> impl Iterator<Item = &'static Experiment> {
    EXPERIMENTS.iter().filter(|e| !PENDING.contains(&e.name))
}

#[test]
fn every_sentence_at_the_defaults_is_a_checked_statement() {
    for exp in converted() {
        let r = Scenario::defaults(exp.id).run();
        let ev = Evidence::of(&r);
        let mut n = 0;
        for e in r.explanations() {
            n += covered(exp.name, &e, &ev).unwrap_or_else(|why| panic!("{why}"));
        }
        assert!(n > 0, "{}: no sentences", exp.name);
        check_report(exp.name, &r).unwrap();
    }
    for (w, b, s) in [(1, 230.0, 21.0), (4, 230.0, 12.0), (1, 9.0, 6.0), (16, 25.0, 24.0)] {
        let r = limit(LimitInput { workers: w, budget_ms: b, service_ms: s }).unwrap();
        covered("limit", &r.explanation, &Evidence::default()).unwrap_or_else(|why| panic!("{why}"));
    }
    for (lam, w, l) in
        [(Some(47.62), Some(231.0), None), (None, Some(1234.5), Some(12.345)), (Some(48.0), None, Some(11.04))]
    {
        let r = littles(LittlesInput { arrivals_rps: lam, latency_ms: w, in_flight: l }).unwrap();
        covered("littles", &r.explanation, &Evidence::default()).unwrap_or_else(|why| panic!("{why}"));
    }
}

#[test]
fn every_sentence_at_2000_fuzzed_settings_is_a_checked_statement() {
    let mut g = FuzzGen::new(35);
    let (mut ran, mut drawn) = (0, 0);
    while ran < 2000 && drawn < 200_000 {
        drawn += 1;
        let case = g.next_case();
        let exp = Experiment::get(case.experiment);
        if PENDING.contains(&exp.name) {
            continue;
        }
        let mut p = exp.defaults();
        if p.apply(&case.edits).is_err() {
            continue;
        }
        let Ok(sc) = Scenario::new(p, FUZZ_CAPS) else { continue };
        let r = sc.run();
        let ev = Evidence::of(&r);
        for e in r.explanations() {
            covered(exp.name, &e, &ev).unwrap_or_else(|why| panic!("{:?}: {why}", case.edits));
        }
        ran += 1;
    }
    assert_eq!(ran, 2000, "only {ran} runnable cases in {drawn} drawn");
    // The calculators at 2,000 drawn inputs each.
    for i in 0..2000u64 {
        let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let w = 1 + (h % 64) as u32;
        let s = ((h >> 8) % 100_000 + 1) as f64 / 100.0;
        let b = s * (1.0 + ((h >> 30) % 400) as f64 / 7.0) + ((h >> 40) % 3) as f64;
        if let Ok(r) = limit(LimitInput { workers: w, budget_ms: b, service_ms: s }) {
            covered("limit", &r.explanation, &Evidence::default()).unwrap_or_else(|why| panic!("{w} {b} {s}: {why}"));
        }
        let lam = ((h >> 20) % 100_000 + 1) as f64 / 100.0;
        let lat = ((h >> 34) % 100_000 + 1) as f64 / 1000.0;
        let r = littles(LittlesInput { arrivals_rps: Some(lam), latency_ms: Some(lat), in_flight: None }).unwrap();
        covered("littles", &r.explanation, &Evidence::default()).unwrap_or_else(|why| panic!("{lam} {lat}: {why}"));
    }
}
