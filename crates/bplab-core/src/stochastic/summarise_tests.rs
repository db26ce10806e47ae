//! [`Setup::summarise`] against [`Setup::run`] + [`Run::summary`]: the same
//! row to the bit and the same answers in the same order, while it keeps
//! only the requests in flight.

use proptest::prelude::*;

use super::*;

/// The row and the answers' latencies, every request kept.
fn kept(setup: &Setup, cap: u64, offered: f64) -> Result<(Summary, Vec<u64>), StochasticError> {
    let run = setup.run(cap)?;
    let ok = run.requests.iter().filter(|r| r.outcome == Outcome::Ok).map(|r| r.sojourn_ms().unwrap_or(0.0).to_bits());
    Ok((run.summary(offered), ok.collect()))
}

/// The same, summarised as it goes.
fn summarised(setup: &Setup, cap: u64, offered: f64) -> Result<(Summary, Vec<u64>), StochasticError> {
    let mut ok = Vec::new();
    let row = setup.summarise(cap, offered, |v| ok.push(v.to_bits()))?;
    Ok((row, ok))
}

fn service() -> impl Strategy<Value = ServiceTime> {
    prop_oneof![
        (1.0f64..40.0).prop_map(|ms| ServiceTime::Fixed { ms }),
        Just(ServiceTime::Fixed { ms: 21.0 }),
        (1.0f64..40.0).prop_map(|mean_ms| ServiceTime::Exp { mean_ms }),
        (5.0f64..30.0, 1.0f64..6.0).prop_map(|(p50_ms, k)| ServiceTime::LogNormal { p50_ms, p99_ms: p50_ms * k }),
        (5.0f64..30.0, 0.0f64..20.0, 1.0f64..20.0).prop_map(|(base_ms, slow_pct, factor)| ServiceTime::Mix {
            base_ms,
            slow_pct,
            factor
        }),
    ]
}

fn traffic() -> impl Strategy<Value = RateSchedule> {
    prop_oneof![
        (1.0f64..400.0).prop_map(RateSchedule::constant),
        (0.0f64..50.0, 100.0f64..2000.0, 50.0f64..600.0, 50.0f64..1000.0)
            .prop_map(|(v, vm, s, sm)| RateSchedule::bursty(v, vm, s, sm)),
    ]
}

fn server() -> impl Strategy<Value = Server> {
    (
        1u32..5,
        proptest::option::of(0u32..20),
        proptest::option::of(prop_oneof![1.0f64..300.0, Just(21.0), Just(42.0)]),
        prop_oneof![Just(Abandon::Served), Just(Abandon::Dropped)],
    )
        .prop_map(|(workers, line_limit, timeout_ms, abandon)| Server { workers, line_limit, timeout_ms, abandon })
}

proptest! {
    // 96 cases unless PROPTEST_CASES asks for more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(96),
        ..ProptestConfig::default()
    })]

    /// Any traffic, service, line, timeout and abandonment, under and over
    /// capacity: the same row and answers.
    #[test]
    fn a_summarised_run_is_the_kept_runs_summary(
        traffic in traffic(),
        service in service(),
        server in server(),
        window_ms in 1.0f64..20_000.0,
        seed in 0u64..1000,
    ) {
        let setup = Setup { traffic, service, server, window_ms, seed };
        let offered = setup.offered_rps();
        prop_assert_eq!(summarised(&setup, 1_000_000, offered), kept(&setup, 1_000_000, offered));
    }
}

#[test]
fn refusals_are_the_kept_runs() {
    let server = Server { workers: 1, line_limit: None, timeout_ms: Some(2000.0), abandon: Abandon::Served };
    let setup = Setup::poisson(100.0, ServiceTime::Exp { mean_ms: 5.0 }, server, 10_000.0, 3);
    // Refused up front (the estimate), and when the draw overshoots a cap
    // just above the estimate.
    for cap in [10, 1000, 1001, 1010] {
        let got = summarised(&setup, cap, 100.0);
        assert_eq!(got, kept(&setup, cap, 100.0), "cap {cap}");
    }
    assert!(summarised(&setup, 1000, 100.0).is_err());
    let bad = Setup { window_ms: 0.5, ..setup.clone() };
    assert_eq!(summarised(&bad, 1000, 1.0), kept(&bad, 1000, 1.0));
    let no_workers = Setup { server: Server { workers: 0, ..setup.server }, ..setup.clone() };
    assert!(summarised(&no_workers, 2000, 1.0).is_err());
    assert_eq!(summarised(&no_workers, 2000, 1.0), kept(&no_workers, 2000, 1.0));
}

/// M/M/2 at 80 % of capacity, no line limit, callers patient for 2 s: the
/// run the issue measured memory on, over `seconds`.
fn mm2(seconds: f64) -> Setup {
    let server = Server { workers: 2, line_limit: None, timeout_ms: Some(2000.0), abandon: Abandon::Served };
    Setup::poisson(80.0, ServiceTime::Exp { mean_ms: 20.0 }, server, seconds * 1000.0, 1)
}

#[test]
fn what_a_summarised_run_keeps_does_not_grow_with_its_length() {
    // 20 000 and 200 000 callers: a kept run holds one record per caller;
    // a summarised one the requests in flight (and those resolved after
    // the oldest of them), bounded by the line's depth, not the length.
    let mut held = Vec::new();
    for seconds in [250.0, 2500.0] {
        let setup = mm2(seconds);
        let (row, retained) = setup.summarise_retaining(1_000_000, 80.0, |_| {}).unwrap();
        assert_eq!(row, setup.run(1_000_000).unwrap().summary(80.0));
        assert!(row.sent > (seconds * 76.0) as u64, "{row:?}");
        // In flight: at most the line's peak plus the workers; the window
        // also holds answers that finished before an older request.
        let in_flight = row.queued as usize + 2;
        assert!(retained.slots <= 2 * in_flight + 8, "{retained:?} vs {in_flight} in flight, {row:?}");
        assert!(retained.after <= 2 * in_flight, "{retained:?}");
        held.push(retained.slots);
    }
    println!("window peaks at 20 000 and 200 000 callers: {held:?}");
    // Ten times the callers: not ten times the storage (a line's peak
    // grows like the log of the length at most).
    assert!(held[1] < 3 * held[0].max(16), "{held:?}");
}
