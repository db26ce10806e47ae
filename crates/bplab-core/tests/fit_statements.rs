//! Coverage for the fit: on every committed fixture, every sentence the fit,
//! the record's measurement and the tune print is the rendering of a typed
//! statement that checks against the evidence (the files' requests, the
//! engine's runs with every request logged, the tune's runs), none is
//! dropped for failing, and a deliberately wrong statement is rejected.

use bplab_core::fit::explain::{Subject, evidence_for, explain_checked, statements};
use bplab_core::fit::said::{Said, Side, beside};
use bplab_core::fit::{self, Fit};
use bplab_core::statement::sentences;

fn fixture(name: &str) -> String {
    let path = format!("{}/../../tests/fixtures/fit/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fitted(names: &[&str]) -> Fit {
    let levels = names.iter().flat_map(|n| fit::read(n, &fixture(n)).unwrap_or_else(|e| panic!("{e}"))).collect();
    fit::fit(levels, 1).unwrap_or_else(|e| panic!("{e}"))
}

/// The sweeps of the committed fixtures, as `fit.rs` reads them.
const SWEEPS: &[&[&str]] = &[
    &["hey-c1.csv", "hey-c8q5.csv", "hey-c24q5.csv"],
    &["ab-c1.tsv", "ab-c12.tsv"],
    &["ab-c1-pct.csv", "ab-c12-pct.csv"],
    &["locust-u2_stats.csv", "locust-u24_stats.csv"],
    &["locust-u2_stats_history.csv", "locust-u24_stats_history.csv"],
    &["bplab-load.csv"],
    &["bplab-load-p99.csv"],
    &["bplab-load-timeline.txt"],
    &["plain-c1.txt", "plain-c8.txt"],
];

fn covered(what: &str, subject: Subject<'_>) -> usize {
    let (kept, rejected) = explain_checked(subject);
    assert!(rejected.is_empty(), "{what}: statements that do not check: {rejected:#?}");
    let rendered: Vec<&str> = kept.iter().map(|s| s.text.as_str()).collect();
    let mut n = 0;
    for s in &kept {
        for part in sentences(&s.text) {
            assert!(rendered.iter().any(|r| r.contains(&part)), "{what}: not a statement: {part}");
            n += 1;
        }
        assert_eq!(s.said.render().as_deref(), Some(s.text.as_str()), "{what}: text is the statement's rendering");
    }
    n
}

#[test]
fn every_fit_sentence_on_every_fixture_is_a_checked_statement() {
    for names in SWEEPS {
        let f = fitted(names);
        let what = names.join(" ");
        let n = covered(&what, Subject::Fit(&f));
        assert!(n >= 4, "{what}: only {n} sentences");
        covered(&what, Subject::Measurement(&f));
        let (kept, _) = explain_checked(Subject::Fit(&f));
        // Model beside measurement at every load that has counts.
        let beside = kept.iter().filter(|s| matches!(s.said, Said::Beside { .. })).count();
        assert!(beside >= f.rows.len(), "{what}: {beside} comparisons for {} loads", f.rows.len());
        eprintln!("{what}: {n} sentences");
        for s in &kept {
            eprintln!("  [{}] {}", s.said.kind(), s.text);
        }
    }
}

#[test]
fn every_tune_sentence_is_a_checked_statement() {
    let f = fitted(&["bplab-load.csv"]);
    let input = fit::tune::TuneInput {
        service: f.service,
        workers: f.workers,
        rates_rps: vec![40.0, 60.0],
        factors: vec![1.0, 2.0],
        budget_ms: 400.0,
        seed: 1,
    };
    let (_, pick) = fit::tune::tune(&input).unwrap();
    let n = covered("tune", Subject::Tune(&input, &pick));
    assert!(n >= 2);
    let (kept, _) = explain_checked(Subject::Tune(&input, &pick));
    assert!(kept.iter().any(|s| s.text.contains(&format!("of the {} settings tried", pick.points))));
}

#[test]
fn a_wrong_statement_is_rejected() {
    let f = fitted(&["hey-c1.csv", "hey-c8q5.csv", "hey-c24q5.csv"]);
    let ev = evidence_for(Subject::Fit(&f));
    let all = statements(Subject::Fit(&f), &ev);
    let (mut flipped, mut inflight, mut distribution) = (0, 0, 0);
    for (_, s) in &all {
        s.check(&ev).unwrap();
        match s.clone() {
            // The error's sign flipped.
            Said::Beside { at, model, measured, error_pct, tolerance_pct } if error_pct != 0.0 => {
                let bad = Said::Beside { at, model, measured, error_pct: -error_pct, tolerance_pct };
                assert!(bad.check(&ev).is_err(), "accepted {}", bad.render().unwrap());
                flipped += 1;
            }
            // The model's and the measured value swapped into the wrong runs.
            Said::Mean { run, what, value } => {
                let bad = Said::Mean { run, what, value: value * 1.1 };
                assert!(bad.check(&ev).is_err(), "accepted {}", bad.render().unwrap());
            }
            // The queue limit one off from what the refusals show.
            Said::InFlight { runs, full, workers, limit } => {
                let bad = Said::InFlight { runs, full: full + 1, workers, limit: limit + 1 };
                assert!(bad.check(&ev).is_err(), "accepted {}", bad.render().unwrap());
                inflight += 1;
            }
            // Another candidate said to be the criterion's choice.
            Said::Distribution { candidates, chosen, overhead_ms, max_error, worst_p } => {
                let bad = Said::Distribution {
                    chosen: (chosen + 1) % candidates.len(),
                    candidates,
                    overhead_ms,
                    max_error,
                    worst_p,
                };
                assert!(bad.check(&ev).is_err(), "accepted {}", bad.render().unwrap());
                distribution += 1;
            }
            Said::Within { loads, within, ok_pct, p99_pct, lead } => {
                let bad = Said::Within {
                    loads: loads.clone(),
                    within: (within + 1) % (loads.len() + 1),
                    ok_pct,
                    p99_pct,
                    lead,
                };
                assert!(bad.check(&ev).is_err(), "accepted {}", bad.render().unwrap());
            }
            _ => {}
        }
    }
    assert!(flipped > 0, "no error to flip");
    assert_eq!(inflight, 1, "the queue limit counted at the refusals is stated");
    assert_eq!(distribution, 1, "the distribution's choice is stated");
}

#[test]
fn a_wrong_best_load_or_a_wrong_table_number_is_rejected() {
    // bplab load --csv: a sweep file of tables, two of its loads saturated.
    let f = fitted(&["bplab-load.csv"]);
    let ev = evidence_for(Subject::Fit(&f));
    let all = statements(Subject::Fit(&f), &ev);
    let (mut most, mut tables) = (0, 0);
    for (_, s) in &all {
        s.check(&ev).unwrap();
        match s.clone() {
            Said::Most { what, set, items, winner } if items.len() > 1 => {
                let bad = Said::Most { what, set, winner: (winner + 1) % items.len(), items };
                assert!(bad.check(&ev).is_err(), "accepted {}", bad.render().unwrap());
                most += 1;
            }
            Said::Beside { at, model, measured: Side::Table { q, file, index, value }, error_pct, tolerance_pct } => {
                let measured = Side::Table { q, file, index, value: value * 1.05 + 1.0 };
                let bad = beside(at, model, measured, tolerance_pct / 100.0);
                assert!(bad.check(&ev).is_err(), "accepted {}", bad.render().unwrap());
                let _ = error_pct;
                tables += 1;
            }
            _ => {}
        }
    }
    assert!(most > 0 && tables > 0, "most {most}, tables {tables}");
}

#[test]
fn a_poor_fit_says_why_in_checked_statements() {
    // As in fit.rs: 80 ms alone, then a send every 100 ms answered in 110 ms.
    let low: String = (0..40).map(|i| format!("{} 80 200\n", i * 100)).collect();
    let busy: String = (0..60).map(|i| format!("{} 110 200\n", i * 100)).collect();
    let mut levels = fit::read("low.txt", &low).unwrap();
    levels.extend(fit::read("busy.txt", &busy).unwrap());
    let f = fit::fit(levels, 1).unwrap();
    covered("slowing service", Subject::Fit(&f));
    let (kept, _) = explain_checked(Subject::Fit(&f));
    let text: Vec<&str> = kept.iter().map(|s| s.text.as_str()).collect();
    for want in [
        // Not saturated: no refusal anywhere, the highest median below the threshold.
        "Over the 2 load(s), the highest number of refused arrivals is 0, at low.txt.",
        "(110 ms) is below 1.5× the low-load median, the saturation threshold (120 ms).",
        // The latency grows before saturation: measured mid-load against low-load, and against the model.
        "at busy.txt (110 ms) is above that of the low-load requests (80 ms).",
        "at busy.txt (110 ms) is above that in the model at busy.txt (80 ms).",
    ] {
        assert!(text.iter().any(|t| t.contains(want)), "missing {want}: {text:#?}");
    }
    // A wrong claim of this kind is rejected: the measured median said to be below the model's.
    let ev = evidence_for(Subject::Fit(&f));
    let flipped = statements(Subject::Fit(&f), &ev).into_iter().find_map(|(_, s)| match s {
        Said::S(bplab_core::statement::Statement::Comparison { a, b, .. }) if b.run.starts_with("model/") => {
            Some(Said::S(bplab_core::statement::Statement::Comparison { a, cmp: bplab_core::claim::Cmp::Lt, b }))
        }
        _ => None,
    });
    assert!(flipped.expect("a comparison with the model").check(&ev).is_err());
}

#[test]
fn a_p99_missed_over_enough_answers_says_why() {
    // bplab load's table: over a hundred answers at the saturated load, the
    // model's p99 above the measured one beyond the tolerance. Its only
    // reason is the p99, and that reason is said (it was not: the fit was
    // called poor without a why).
    let f = fitted(&["bplab-load-p99.csv"]);
    assert!(
        matches!(f.reasons.as_slice(), [fit::Reason::P99 { answers, .. }] if *answers >= fit::FEW_FOR_P99),
        "{:?}",
        f.reasons
    );
    let (kept, _) = explain_checked(Subject::Fit(&f));
    let why: Vec<&str> =
        kept.iter().filter(|s| s.kind == bplab_core::fit::explain::Kind::Poor).map(|s| s.text.as_str()).collect();
    assert!(
        why.iter()
            .any(|t| t.contains("bplab-load-p99.csv (load 2)")
                && t.contains("tail of the service time fitted at low load")),
        "{why:#?}"
    );
}

#[test]
fn a_derived_figure_in_a_sentence_is_the_one_the_table_prints() {
    // F1: one value per quantity: the derivation's shown result is the
    // fitted value as the table prints it.
    let mut seen = 0;
    for names in SWEEPS {
        let f = fitted(names);
        let (kept, _) = explain_checked(Subject::Fit(&f));
        for (lead, v) in [("Mean service time:", f.mean_service_ms), ("Time outside the server:", f.overhead_ms)] {
            if let Some(s) = kept.iter().find(|s| s.text.starts_with(lead)) {
                let shown = bplab_core::calc::fmt_num(v);
                assert!(s.text.ends_with(&format!(" {shown} ms.")), "{names:?}: {} (the table: {shown})", s.text);
                seen += 1;
            }
        }
    }
    assert!(seen >= 8, "only {seen} derivations");
}

fn tune_text(names: &[&str], budget_ms: f64, factors: Vec<f64>) -> String {
    let f = fitted(names);
    let mut rates: Vec<f64> = f.rows.iter().map(|r| (r.sent_rps * 10.0).round() / 10.0).collect();
    rates.dedup();
    let input =
        fit::tune::TuneInput { service: f.service, workers: f.workers, rates_rps: rates, factors, budget_ms, seed: 1 };
    let (_, pick) = fit::tune::tune(&input).unwrap();
    covered("tune", Subject::Tune(&input, &pick));
    let (kept, _) = explain_checked(Subject::Tune(&input, &pick));
    kept.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_tunes_choice_says_when_none_meets_the_budget_and_names_a_tie() {
    // T1: at a 1 ms budget every setting is within it in 0 runs: no "most".
    let t = tune_text(&["locust-u24_stats_history.csv"], 1.0, vec![0.5, 1.0, 2.0, 3.0]);
    assert!(t.contains("keeps the p99 within 1 ms in any run; the most goodput is gradient2 ("), "{t}");
    assert!(!t.contains("does in the most"), "{t}");
    // The runner-up's figures are gradient's best's too: the tie is named.
    let t = tune_text(&["hey-c1.csv", "hey-c24q5.csv"], 300.0, vec![1.0, 1.5]);
    assert!(t.contains("Runner-up, the best of the other controllers: fixed (initial-limit 7)"), "{t}");
    assert!(t.contains("tied on both with gradient (initial-limit 4,"), "{t}");
}
