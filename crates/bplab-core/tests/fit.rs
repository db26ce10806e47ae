//! The fit on real load-test files (tests/fixtures/fit, made by
//! generate.sh against `bplab serve --workers 4 --spin-ms 1 --wait-ms 79`,
//! with `--limit 8` or without a limit): every reader's sweep recovers the
//! server's settings, and the model stands beside the measurement.

use bplab_core::fit::{self, Fit, Level};

/// The server's settings the fixtures were made with.
const WORKERS: u32 = 4;
const SERVICE_MS: f64 = 80.0;
const CAPACITY_RPS: f64 = 50.0;
const LIMIT: u32 = 8;

fn fixture(name: &str) -> String {
    let path = format!("{}/../../tests/fixtures/fit/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn levels(names: &[&str]) -> Vec<Level> {
    names.iter().flat_map(|n| fit::read(n, &fixture(n)).unwrap_or_else(|e| panic!("{e}"))).collect()
}

fn fitted(names: &[&str]) -> Fit {
    let f = fit::fit(levels(names), 1).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "{names:?}: workers {} ({:.2}) service {} mean {:.1} capacity {:?} limit {:?} overhead {:.1}",
        f.workers, f.workers_estimate, f.service, f.mean_service_ms, f.capacity_rps, f.queue_limit, f.overhead_ms
    );
    for r in &f.rows {
        eprintln!(
            "  {} #{} sat {} {:?} ok {:.1}/{:.1} ({:+.0}%) p50 {:?}/{:?} p99 {:?}/{:?} ({:?})",
            r.file,
            r.index,
            r.saturated,
            r.arrivals,
            r.measured.ok_per_sec,
            r.model.ok_per_sec,
            r.ok_error * 100.0,
            r.measured.p50_ms,
            r.model.p50_ms,
            r.measured.p99_ms,
            r.model.p99_ms,
            r.p99_error.map(|e| (e * 100.0).round())
        );
    }
    eprintln!("  reasons {:?}", f.reasons);
    f
}

fn within(x: f64, truth: f64, tol: f64) -> bool {
    (x / truth - 1.0).abs() <= tol
}

/// The done-when of issue 36 for one sweep; `limit_slack` is how far the
/// queue limit may be off (0 but for aggregates, whose limit is calibrated).
fn recovers_within(f: &Fit, limit: Option<u32>, limit_slack: u32) {
    assert_eq!(f.workers, WORKERS, "workers");
    assert!(within(f.mean_service_ms, SERVICE_MS, 0.10), "mean service {}", f.mean_service_ms);
    let c = f.capacity_rps.expect("capacity measured");
    assert!(within(c, CAPACITY_RPS, 0.10), "capacity {c}");
    match (f.queue_limit, limit) {
        (Some(got), Some(want)) => assert!(got.abs_diff(want) <= limit_slack, "queue limit {got}, want {want}"),
        (got, want) => assert_eq!(got, want, "queue limit"),
    }
    // On these files the model is within 10 % on ok/s and 20 % on p99 at every load.
    for r in &f.rows {
        assert!(r.within, "{} #{}: ok/s {:+.3}, p99 {:?}", r.file, r.index, r.ok_error, r.p99_error);
    }
}

fn recovers(f: &Fit, limit: Option<u32>) {
    recovers_within(f, limit, 0);
}

#[test]
fn hey_sweep() {
    recovers(&fitted(&["hey-c1.csv", "hey-c8q5.csv", "hey-c24q5.csv"]), Some(LIMIT));
}

#[test]
fn ab_sweep() {
    recovers(&fitted(&["ab-c1.tsv", "ab-c12.tsv"]), None);
}

#[test]
fn ab_percentiles_with_a_sweep() {
    recovers(&fitted(&["ab-c1-pct.csv", "ab-c12.tsv"]), None);
}

#[test]
fn locust_stats() {
    // Locust keeps no per-request times: the limit is the engine's best match to the median, to within one.
    let f = fitted(&["locust-u2_stats.csv", "locust-u24_stats.csv"]);
    recovers_within(&f, Some(LIMIT), 1);
    assert_eq!(f.limit_method, Some(fit::LimitMethod::Calibrated));
}

#[test]
fn locust_history() {
    recovers_within(&fitted(&["locust-u2_stats_history.csv", "locust-u24_stats_history.csv"]), Some(LIMIT), 1);
}

#[test]
fn bplab_load_csv() {
    recovers(&fitted(&["bplab-load.csv"]), Some(LIMIT));
}

#[test]
fn bplab_load_timeline() {
    recovers(&fitted(&["bplab-load-timeline.txt"]), Some(LIMIT));
}

#[test]
fn plain_sweep() {
    recovers(&fitted(&["plain-c1.txt", "plain-c8.txt"]), None);
}

#[test]
fn too_few_low_load_requests_say_how_many_are_needed() {
    let hey = fixture("hey-c1.csv");
    let short: String = hey.lines().take(11).map(|l| format!("{l}\n")).collect();
    let levels = fit::read("short.csv", &short).unwrap();
    let e = fit::fit(levels, 1).unwrap_err().to_string();
    assert!(e.starts_with("short.csv: 10 answered requests sent while no other was in flight"), "{e}");
    assert!(e.contains("the fit needs at least 30"), "{e}");
}

#[test]
fn the_record_carries_the_fitted_numbers_and_the_files() {
    use bplab_core::calc::{EdgeTarget, LimitInput, limit};
    let f = fitted(&["hey-c1.csv", "hey-c8q5.csv", "hey-c24q5.csv"]);
    let fit::record::FitLimit::Record(r) = fit::record::record(&f, 400.0).unwrap() else {
        panic!("no limit at 400 ms")
    };
    // The calculator's own number at the fitted workers and service.
    let direct =
        limit(LimitInput { workers: 4, budget_ms: r.input.budget_ms, service_ms: r.input.service_ms }).unwrap();
    assert!((400.0 - r.input.budget_ms - f.overhead_ms).abs() <= 0.01, "the server's share of the budget");
    assert_eq!(r.result.record_limit, direct.record_limit);
    assert!((r.input.service_ms - f.mean_service_ms).abs() <= 0.05);
    let m = &r.result.record.measurement;
    assert!(
        m.contains("hey-c1.csv (hey -o csv: 1 load(s), the low-load requests), hey-c8q5.csv")
            && m.contains("4 effective worker(s)"),
        "{m}"
    );
    for t in EdgeTarget::ALL {
        let text = r.export(t);
        assert!(text.contains("Measurement. Fitted by bplab fit"), "{t:?}:\n{text}");
    }
    assert!(
        matches!(fit::record::record(&f, 50.0), Ok(fit::record::FitLimit::NoLimit(_))),
        "a budget under the service time gets no limit"
    );
    assert!(fit::record::record(&f, f64::NAN).is_err());
}

#[test]
fn tune_picks_and_rerunning_the_choice_reproduces_its_figures() {
    use fit::tune::{self, TuneInput};
    let f = fitted(&["bplab-load.csv"]);
    let input = TuneInput {
        service: f.service,
        workers: f.workers,
        rates_rps: f.rows.iter().map(|r| r.sent_rps).collect(),
        factors: vec![0.5, 1.0, 2.0],
        budget_ms: 400.0,
        seed: 1,
    };
    let (scored, pick) = tune::tune(&input).unwrap();
    assert_eq!(scored.len(), tune::grid(&input).len());
    assert_eq!(pick.per_controller.len(), 6, "every controller has a best");
    assert!(pick.feasible, "some setting keeps p99 within 400 ms at 0.5×, 1× and 2×");
    let again = tune::run_point(&input, &pick.best.point).unwrap();
    assert_eq!(again, pick.best.cells);
    for s in &pick.per_controller {
        if s.meets == s.cells.len() {
            assert!(pick.best.goodput_rps >= s.goodput_rps, "{:?} beats the choice", s.point);
        }
    }
    // Shards merge to the same pick.
    let mut merged = tune::run_shard(&input, 0, 2).unwrap();
    merged.extend(tune::run_shard(&input, 1, 2).unwrap());
    assert_eq!(tune::pick(&merged).unwrap().best, pick.best);
}

#[test]
fn a_service_that_slows_before_saturation_is_called_poor_with_the_reason() {
    use fit::explain::{Kind, Subject, explain};
    // One caller: 80 ms alone. Then a send every 100 ms answered in 110 ms:
    // no queue can explain that (one 80 ms worker is free at each send).
    let low: String = (0..40).map(|i| format!("{} 80 200\n", i * 100)).collect();
    let busy: String = (0..60).map(|i| format!("{} 110 200\n", i * 100)).collect();
    let mut levels = fit::read("low.txt", &low).unwrap();
    levels.extend(fit::read("busy.txt", &busy).unwrap());
    let f = fit::fit(levels, 1).unwrap();
    assert!(!f.good());
    assert!(
        f.reasons
            .iter()
            .any(|r| matches!(r, fit::Reason::LatencyGrowsBeforeSaturation { file, .. } if file == "busy.txt")),
        "{:?}",
        f.reasons
    );
    assert!(f.reasons.contains(&fit::Reason::NotSaturated));
    let said = explain(Subject::Fit(&f));
    assert!(
        said.iter().any(|s| s.kind == Kind::Verdict
            && s.text.starts_with("The fit is poor:")
            && s.text.ends_with("at 1 of 2 load(s).")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|s| s.kind == Kind::Poor && s.text.contains("the latency grows with the rate before saturation")),
        "{said:?}"
    );
    // The reason as checked statements: the measured median at the busier
    // load against the low-load one and against the model's.
    assert!(
        said.iter().any(|s| s.kind == Kind::Poor && s.text.contains("is above that of the low-load requests")),
        "{said:?}"
    );
}

#[test]
fn a_fit_with_no_unsaturated_load_says_its_service_time_includes_queueing() {
    // F5: the only load is saturated, so its percentiles include queueing.
    use fit::explain::{Kind, Subject, explain};
    let f = fitted(&["locust-u24_stats_history.csv"]);
    assert!(!f.good(), "a fit from a saturated load alone is poor");
    let said = explain(Subject::Fit(&f));
    assert!(
        said.iter().any(|s| s.kind == Kind::Poor
            && s.text.contains("no unsaturated load gave it")
            && s.text.contains("locust-u24_stats_history.csv")
            && s.text.contains("run one caller or a low rate")),
        "{said:#?}"
    );
    // With a low load beside it, it is not said.
    let f = fitted(&["locust-u2_stats_history.csv", "locust-u24_stats_history.csv"]);
    assert!(!explain(Subject::Fit(&f)).iter().any(|s| s.text.contains("no unsaturated load")));
}

#[test]
fn the_models_times_are_the_engines_not_a_histograms() {
    // F2: one caller at a fixed service time never waits, so every model
    // answer takes the service time plus the time outside the server; its
    // p50 and p99 are that sum, not a rounded service time plus it.
    let f = fitted(&["ab-c1.tsv", "ab-c12.tsv"]);
    let bplab_core::stochastic::ServiceTime::Fixed { ms } = f.service else { panic!("{}", f.service) };
    let r = f.rows.iter().find(|r| r.file == "ab-c1.tsv").unwrap();
    let want = ms + f.overhead_ms;
    for got in [r.model.p50_ms, r.model.p99_ms] {
        assert!((got.unwrap() - want).abs() < 1e-6, "model {got:?}, engine {want}");
    }
}

#[test]
fn the_records_measurement_names_every_file_and_what_it_gave() {
    // F6: the distribution came from the ab -e file, the load from the ab -g one.
    use fit::explain::{Subject, explain_one};
    let f = fitted(&["ab-c1-pct.csv", "ab-c12.tsv"]);
    let m = explain_one(Subject::Measurement(&f));
    assert!(m.contains("ab-c1-pct.csv (ab -e: the low-load percentiles)"), "{m}");
    assert!(m.contains("ab-c12.tsv (ab -g: 1 load(s), the capacity)"), "{m}");
    let f = fitted(&["hey-c1.csv", "hey-c8q5.csv", "hey-c24q5.csv"]);
    let m = explain_one(Subject::Measurement(&f));
    assert!(
        m.contains("from hey-c1.csv (hey -o csv: 1 load(s), the low-load requests), hey-c8q5.csv (hey -o csv: 1 load(s)) and hey-c24q5.csv (hey -o csv: 1 load(s), the capacity): "),
        "{m}"
    );
}
