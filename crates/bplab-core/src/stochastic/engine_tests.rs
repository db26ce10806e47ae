//! The one engine's doors, callers and timeline on small hand-checked runs
//! (the lesson's shapes are in `tests.rs`, queueing theory in
//! `tests/queueing.rs`).

use super::*;
use crate::control::{Codel, CodelConfig, FixedConfig, LimiterConfig};

fn outcomes(run: &Run) -> Vec<(f64, Outcome, u32)> {
    run.requests.iter().map(|r| (r.arrival_ms, r.outcome, r.attempt)).collect()
}

fn retrying(max_retries: u32, backoff_ms: f64) -> Client {
    let retry = Retry { max_retries, backoff: Backoff::Fixed { ms: backoff_ms } };
    Client { retry, ..Client::with_timeout(100.0, Abandon::Served) }
}

fn fixed(n: i32) -> Door {
    Door::Limit(LimiterConfig::Fixed(FixedConfig::new(n).unwrap()).build())
}

/// Every try ends in exactly one outcome.
fn balanced(t: &Tally) -> bool {
    t.first_tries + t.retries == t.throttled + t.refused + t.shed + t.ok + t.late + t.dropped
}

#[test]
fn a_refused_caller_retries_after_its_backoff() {
    // One worker, no waiting: the try at 1 is refused and retries at 11, 21
    // (both refused while request 0 runs until 25), then gives up; the try at
    // 30 finds the worker free.
    let mut m = Model::new(&[0.0, 1.0, 30.0], &[25.0, 5.0, 5.0], 1, 1000.0);
    m.door = Door::Line(0);
    m.client = retrying(2, 10.0);
    let run = m.run().unwrap();
    assert_eq!(
        outcomes(&run),
        [
            (0.0, Outcome::Ok, 0),
            (1.0, Outcome::Refused, 0),
            (30.0, Outcome::Ok, 0),
            (11.0, Outcome::Refused, 1),
            (21.0, Outcome::Refused, 2),
        ]
    );
    let t = run.tally;
    assert_eq!((t.first_tries, t.retries, t.refused, t.ok, t.attempts()), (3, 2, 3, 2, 5));
    assert!(balanced(&t));
    // Retries carry their first try's work.
    assert_eq!(run.requests[4].service_ms, 5.0);
}

#[test]
fn an_abandoned_caller_retries_from_its_deadline_while_its_request_is_served_late() {
    // Request 0 holds the worker for 150 ms; request 1 waits. Caller 0 gives
    // up at 100 and retries at 110; caller 1 gives up at 110 (its request
    // stays in line) and retries at 120. Both retries wait behind request 1.
    let mut m = Model::new(&[0.0, 10.0], &[150.0, 20.0], 1, 1000.0);
    m.client = retrying(1, 10.0);
    let run = m.run().unwrap();
    let o = outcomes(&run);
    // 0: answered at 150 > 100: late, and its caller retried at 100 + 10.
    // 1: served 150..170, 160 after its send: late; retried at 120.
    assert_eq!(o[0], (0.0, Outcome::Late, 0));
    assert_eq!(o[1], (10.0, Outcome::Late, 0));
    assert_eq!((o[2].0, o[3].0), (110.0, 120.0));
    assert_eq!(run.requests[2].start_ms, Some(170.0)); // behind request 1
    assert_eq!(run.requests[3].end_ms, Some(170.0 + 150.0 + 20.0));
    assert!(balanced(&run.tally) && run.tally.retries == 2);
}

#[test]
fn an_answer_exactly_at_the_deadline_is_on_time_and_not_retried() {
    let mut m = Model::new(&[0.0], &[100.0], 1, 1000.0);
    m.client = retrying(3, 1.0);
    let run = m.run().unwrap();
    assert_eq!(outcomes(&run), [(0.0, Outcome::Ok, 0)]);
    // One ulp later it is late, and the caller retried at its deadline.
    let longer = [f64::from_bits(100f64.to_bits() + 1)];
    let mut m = Model::new(&[0.0], &longer, 1, 1000.0);
    m.client = retrying(1, 1.0);
    let run = m.run().unwrap();
    assert_eq!(outcomes(&run), [(0.0, Outcome::Late, 0), (101.0, Outcome::Ok, 1)]);
}

#[test]
fn give_up_completion_arrival_retry_at_one_instant() {
    // One worker, one place in line, callers leave the line at 10 ms and
    // retry once after 10 ms. At t = 0: request 0 takes the worker (until
    // 10), request 1 waits, request 2 is refused and will retry at 10.
    // At t = 10, in this order: request 0's give-up is void (its answer is
    // exactly on time); request 1's caller leaves the line (and will retry
    // at 20); request 0 completes and the worker finds the line empty; the
    // first try 3 takes the worker; then the retry of 2 waits in the place 1
    // left.
    let mut m = Model::new(&[0.0, 0.0, 0.0, 10.0], &[10.0, 1.0, 1.0, 5.0], 1, 100.0);
    m.door = Door::Line(1);
    m.client = Client {
        retry: Retry { max_retries: 1, backoff: Backoff::Fixed { ms: 10.0 } },
        ..Client::with_timeout(10.0, Abandon::Dropped)
    };
    let run = m.run().unwrap();
    assert_eq!(
        outcomes(&run),
        [
            (0.0, Outcome::Ok, 0),
            (0.0, Outcome::Dropped, 0),
            (0.0, Outcome::Refused, 0),
            (10.0, Outcome::Ok, 0),
            (10.0, Outcome::Ok, 1),
            (20.0, Outcome::Ok, 1),
        ]
    );
    let starts: Vec<Option<f64>> = run.requests.iter().map(|r| r.start_ms).collect();
    assert_eq!(starts, [Some(0.0), None, None, Some(10.0), Some(15.0), Some(20.0)]);
    assert!(balanced(&run.tally) && run.tally.dropped == 1 && run.peak_line == 1);
}

#[test]
fn retry_after_delays_the_retry_only_when_honoured() {
    let run = |honour: bool| {
        let mut m = Model::new(&[0.0, 0.0], &[50.0, 1.0], 1, 1000.0);
        m.door = Door::Line(0);
        m.retry_after_ms = Some(200.0);
        m.client = Client { honour_retry_after: honour, ..retrying(1, 10.0) };
        m.run().unwrap()
    };
    assert_eq!(run(false).requests[2].arrival_ms, 10.0);
    assert_eq!(run(true).requests[2].arrival_ms, 200.0);
}

#[test]
fn a_budget_bounds_the_retries() {
    // 20 callers refused at once: the budget's 3 tokens allow 3 retries.
    let arrivals = [0.0; 21];
    let service = [50.0; 21];
    let mut m = Model::new(&arrivals, &service, 1, 10_000.0);
    m.door = Door::Line(0);
    m.client =
        Client { budget: Some(RetryBudget { ratio: 0.0, floor_rps: 0.0, max_tokens: 3.0 }), ..retrying(5, 10.0) };
    let t = m.run().unwrap().tally;
    assert_eq!((t.retries, t.budget_denied), (3, 17 + 3));
    assert!(balanced(&t));
}

#[test]
fn throttling_rejects_locally_and_never_retries() {
    // One worker busy for the whole run, no waiting: every try after the
    // first is refused, and with K = 1 the throttle starts rejecting locally.
    let arrivals: Vec<f64> = (0..200).map(f64::from).collect();
    let service: Vec<f64> = (0..200).map(|i| if i == 0 { 1e6 } else { 1.0 }).collect();
    let mut m = Model::new(&arrivals, &service, 1, 1000.0);
    m.door = Door::Line(0);
    m.client = Client { throttle: Some(Throttle { k: 1.0, window_ms: 1e9 }), ..retrying(1, 0.5) };
    m.seed = 3;
    let run = m.run().unwrap();
    let t = run.tally;
    assert!(t.throttled > 100 && t.refused > 0, "{t:?}");
    assert!(balanced(&t));
    // Only refusals (and the one give-up) retry: a local rejection is final.
    assert!(t.retries <= t.refused + 1, "{t:?}");
    // Same seed, same tries; throttling does not move the arrivals.
    assert_eq!(csv(&run), csv(&m.run().unwrap()));
}

#[test]
fn codel_sheds_at_dequeue_and_the_shed_caller_retries() {
    // Target 5, interval 100: a standing queue of 1 ms requests behind a long one.
    let arrivals: Vec<f64> = (0..40).map(|i| f64::from(i) * 10.0).collect();
    let service: Vec<f64> = (0..40).map(|i| if i == 0 { 300.0 } else { 11.0 }).collect();
    let mut m = Model::new(&arrivals, &service, 1, 1000.0);
    m.door = Door::Codel(Codel::new(&CodelConfig::new(5, 100).unwrap(), 0));
    m.client = retrying(1, 1.0);
    let run = m.run().unwrap();
    let t = run.tally;
    assert!(t.shed > 0 && balanced(&t), "{t:?}");
    let shed = run.requests.iter().find(|r| r.outcome == Outcome::Shed).unwrap();
    assert!(shed.start_ms.is_some() && shed.end_ms.is_none());
    assert!(run.requests.iter().any(|r| r.attempt == 1));
}

#[test]
fn a_limiter_door_refuses_at_its_limit_and_learns_from_completions() {
    let mut m = Model::new(&[0.0, 0.0, 0.0], &[10.0; 3], 4, 100.0);
    m.door = fixed(2);
    let run = m.run().unwrap();
    let o: Vec<Outcome> = run.requests.iter().map(|r| r.outcome).collect();
    assert_eq!(o, [Outcome::Ok, Outcome::Ok, Outcome::Refused]);
}

#[test]
fn the_timeline_counts_tries_refusals_goodput_and_in_flight() {
    // Windows of 10 ms over 30 ms; line limit 0.
    let mut m = Model::new(&[0.0, 1.0, 12.0, 25.0], &[15.0, 1.0, 1.0, 1.0], 1, 30.0);
    m.door = Door::Line(0);
    m.client = retrying(1, 4.0);
    m.timeline_ms = Some(10.0);
    let run = m.run().unwrap();
    let w = &run.timeline;
    assert_eq!(w.len(), 3);
    let col = |f: fn(&Window) -> u64| w.iter().map(f).collect::<Vec<_>>();
    assert_eq!(col(|w| w.first_tries), [2, 1, 1]);
    assert_eq!(col(|w| w.retries), [1, 1, 0]); // 1 → 5 (refused) ; 12 → 16 (ok)
    assert_eq!(col(|w| w.refused), [2, 1, 0]);
    assert_eq!(col(|w| w.ok), [0, 2, 1]);
    // In the system: 1 during [0, 15), 1 during [16, 17), 1 during [25, 26).
    let mean: Vec<f64> = w.iter().map(|w| w.in_flight_mean).collect();
    assert_eq!(mean, [1.0, 0.6, 0.1]);
    assert_eq!((run.answers_before_ms, run.answers_after_ms), (vec![15, 1, 1], vec![]));
    assert_eq!(w[1].limit, 1);
}

#[test]
fn a_slowdown_applies_to_starts_inside_it() {
    let mut m = Model::new(&[0.0, 10.0, 20.0], &[1.0; 3], 1, 100.0);
    m.slowdown = Some(Slowdown { at_ms: 10.0, until_ms: 20.0, factor: 3.0, stuck_ms: None });
    let ends: Vec<Option<f64>> = m.run().unwrap().requests.iter().map(|r| r.end_ms).collect();
    assert_eq!(ends, [Some(1.0), Some(13.0), Some(21.0)]);
    m.slowdown = Some(Slowdown { at_ms: 0.0, until_ms: f64::INFINITY, factor: 1.0, stuck_ms: Some(7.0) });
    assert_eq!(m.run().unwrap().requests[2].end_ms, Some(27.0));
}

#[test]
fn bad_models_are_errors_naming_the_value() {
    let ok = Model::new(&[0.0], &[1.0], 1, 10.0);
    assert!(ok.run().is_ok());
    let msg = |m: Model<'_>| m.run().unwrap_err().to_string();
    assert!(msg(Model { retry_after_ms: Some(-1.0), ..ok.clone() }).contains("retry-after-ms"));
    assert!(msg(Model { timeline_ms: Some(1e-9), ..ok.clone() }).contains("timeline-ms"));
    let slow = Slowdown { at_ms: 5.0, until_ms: 5.0, factor: 2.0, stuck_ms: None };
    assert!(msg(Model { slowdown: Some(slow), ..ok.clone() }).contains("slowdown-until-ms"));
    let jitter = Retry { max_retries: 1, backoff: Backoff::FullJitter { base_ms: 1.0, cap_ms: 0.5 } };
    assert!(msg(Model { client: Client { retry: jitter, ..Client::patient() }, ..ok.clone() }).contains("backoff-cap"));
    assert!(msg(Model { workers: 0, ..ok }).contains("workers"));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn backoff(kind: u8, base: f64) -> Backoff {
        let cap_ms = base * 8.0;
        match kind {
            0 => Backoff::Fixed { ms: base },
            1 => Backoff::Exponential { base_ms: base, cap_ms },
            2 => Backoff::FullJitter { base_ms: base, cap_ms },
            3 => Backoff::EqualJitter { base_ms: base, cap_ms },
            _ => Backoff::Decorrelated { base_ms: base, cap_ms },
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
        /// Any small model runs, accounts for every try, never sends a retry
        /// past the window or beyond the count, and repeats itself bit for bit.
        #[test]
        fn every_try_is_accounted_for(
            gaps in proptest::collection::vec(0u8..20, 1..60),
            work in proptest::collection::vec(0u8..40, 60),
            workers in 1u32..4,
            door in 0u8..4,
            limit in 0u32..5,
            timeout in 1u8..60,
            dropped in any::<bool>(),
            retries in 0u32..4,
            kind in 0u8..5,
            base in 1u8..20,
            budget in any::<bool>(),
            throttle in any::<bool>(),
            honour in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let arrivals: Vec<f64> = gaps.iter().scan(0.0, |t, &g| { *t += f64::from(g); Some(*t) }).collect();
            let service: Vec<f64> = work.iter().take(arrivals.len()).map(|&w| f64::from(w)).collect();
            let mut m = Model::new(&arrivals, &service, workers, 1200.0);
            m.door = match door {
                0 => Door::Open,
                1 => Door::Line(limit),
                2 => fixed(limit.max(1) as i32),
                _ => Door::Codel(Codel::new(&CodelConfig::new(5, 20).unwrap(), 0)),
            };
            m.retry_after_ms = Some(30.0);
            m.client = Client {
                timeout_ms: Some(f64::from(timeout)),
                abandon: if dropped { Abandon::Dropped } else { Abandon::Served },
                retry: Retry { max_retries: retries, backoff: backoff(kind, f64::from(base)) },
                budget: budget.then_some(RetryBudget { ratio: 0.5, floor_rps: 5.0, max_tokens: 2.0 }),
                throttle: throttle.then_some(Throttle { k: 1.5, window_ms: 100.0 }),
                honour_retry_after: honour,
            };
            m.timeline_ms = Some(50.0);
            m.seed = seed;
            let run = m.run().unwrap();
            let t = run.tally;
            prop_assert!(balanced(&t), "{:?}", t);
            prop_assert_eq!(t.first_tries, arrivals.len() as u64);
            prop_assert_eq!(t.attempts(), run.requests.len() as u64);
            prop_assert!(t.retries <= t.first_tries * u64::from(retries));
            prop_assert!(run.requests.iter().all(|r| r.attempt <= retries));
            prop_assert!(run.requests.iter().filter(|r| r.attempt > 0).all(|r| r.arrival_ms < 1200.0));
            let w = &run.timeline;
            prop_assert_eq!(w.iter().map(|w| w.first_tries).sum::<u64>(), t.first_tries);
            prop_assert_eq!(w.iter().map(|w| w.retries).sum::<u64>(), t.retries);
            prop_assert_eq!(w.iter().map(|w| w.throttled).sum::<u64>(), t.throttled);
            prop_assert!(w.iter().map(|w| w.refused).sum::<u64>() <= t.refused + t.shed);
            prop_assert_eq!((run.answers_before_ms.len() + run.answers_after_ms.len()) as u64, t.ok);
            // The drain the timeline counted is the on-time answers ending after the window.
            let drained = run
                .requests
                .iter()
                .filter(|r| r.outcome == Outcome::Ok && r.end_ms.is_some_and(|e| e >= run.window_ms))
                .count();
            prop_assert_eq!(run.answers_drained, drained);
            prop_assert!(run.requests.iter().all(|r| r.start_ms.is_none_or(|s| s >= r.arrival_ms)));
            let timeout = run.server.timeout_ms;
            let horizon = run.requests.iter().map(|r| r.resolved_ms(timeout)).fold(0.0, f64::max);
            prop_assert_eq!(run.horizon_ms(), horizon);
            prop_assert_eq!(csv(&run), csv(&m.run().unwrap()));
        }
    }
}

#[test]
fn a_run_can_start_from_requests_already_in_the_system() {
    // One worker busy until 5 ms with a request that arrived at -30, two
    // waiting (arrived at -20 and -10, 10 ms of work each): the first try at
    // 0 waits behind them and starts at 25.
    let present = [
        Present { arrival_ms: -30.0, service_ms: 12.0, start_ms: Some(-7.0), inflight: 1 },
        Present { arrival_ms: -20.0, service_ms: 10.0, start_ms: None, inflight: 2 },
        Present { arrival_ms: -10.0, service_ms: 10.0, start_ms: None, inflight: 3 },
    ];
    let mut m = Model::new(&[0.0, 40.0], &[5.0, 5.0], 1, 1000.0);
    m.door = fixed(10);
    m.present = &present;
    let run = m.run().unwrap();
    let ends: Vec<Option<f64>> = run.requests.iter().map(|r| r.end_ms).collect();
    assert_eq!(ends, [Some(30.0), Some(45.0), Some(5.0), Some(15.0), Some(25.0)]);
    let o: Vec<Outcome> = run.requests.iter().map(|r| r.outcome).collect();
    assert_eq!(o, [Outcome::Ok, Outcome::Ok, Outcome::Late, Outcome::Late, Outcome::Late]);
    // Only the run's own tries are in the tally.
    let t = run.tally;
    assert_eq!((t.first_tries, t.ok, t.late), (2, 2, 0));
    assert!(balanced(&t));
    // An empty `present` is the same run as before.
    let plain = Model::new(&[0.0, 40.0], &[5.0, 5.0], 1, 1000.0).run().unwrap();
    assert_eq!(plain.requests.len(), 2);
    assert_eq!(plain.requests[0].end_ms, Some(5.0));
    // A limiter counts the present requests in the system (the try at 0
    // finds 30 against Gradient2's 20 and is refused) and learns from their
    // completions (the limit moves; alone, the try is app-limited).
    let g2 = |present: &[Present]| {
        let mut m = Model::new(&[0.0], &[20.0], 1, 10_000.0);
        m.door = Door::Limit(LimiterConfig::Gradient2(Default::default()).build());
        m.present = present;
        m.timeline_ms = Some(1000.0);
        m.run().unwrap()
    };
    let far: Vec<Present> = (0..30)
        .map(|k| Present { arrival_ms: -5000.0 + f64::from(k), service_ms: 20.0, start_ms: None, inflight: 30 })
        .collect();
    let (with, alone) = (g2(&far), g2(&[]));
    assert_eq!((with.requests[0].outcome, alone.requests[0].outcome), (Outcome::Refused, Outcome::Ok));
    assert_eq!(alone.timeline[0].limit, 20);
    assert!(with.timeline[0].limit > 20, "{:?}", with.timeline[0]);
    assert!(with.requests[1..].iter().all(|r| r.outcome == Outcome::Late) && with.requests.len() == 31);
}

#[test]
fn present_requests_are_checked() {
    let bad = |p: Present, abandon: Abandon| {
        let present = [p];
        let mut m = Model::new(&[0.0], &[5.0], 1, 1000.0);
        m.client.abandon = abandon;
        m.client.timeout_ms = Some(100.0);
        m.present = &present;
        m.run().map(|_| ()).unwrap_err().to_string()
    };
    let ok = Present { arrival_ms: -1.0, service_ms: 1.0, start_ms: None, inflight: 1 };
    assert!(bad(Present { arrival_ms: 1.0, ..ok }, Abandon::Served).starts_with("present-arrival-ms = 1"));
    assert!(bad(Present { start_ms: Some(-2.0), ..ok }, Abandon::Served).starts_with("present-start-ms"));
    assert!(bad(Present { service_ms: f64::NAN, ..ok }, Abandon::Served).starts_with("present-service-ms"));
    assert!(bad(ok, Abandon::Dropped).starts_with("present = 1"));
    let two = [Present { start_ms: Some(0.0), ..ok }; 2];
    let mut m = Model::new(&[0.0], &[5.0], 1, 1000.0);
    m.present = &two;
    assert!(m.run().unwrap_err().to_string().starts_with("present-in-service = 2"));
}
