//! One client policy on one trace: `workers` servers behind one FIFO line
//! of at most `line_limit` waiting requests, callers that give up after the
//! client timeout while the server still serves what it queued (wasted
//! work), and the client's retry rules (`docs/metastable.md`; the same rules
//! as the engine's client module in `docs/client.md`: capped exponential
//! backoff with full jitter, a token budget, SRE adaptive throttling,
//! Retry-After as a floor on the delay).
//!
//! The run is the one engine's ([`crate::stochastic::Model`]): this module
//! only maps the experiment's world and policy onto it; the timeline comes
//! back as the engine's own [`Window`]s. Randomness: the engine's client streams of the seed (jitter,
//! throttling), apart from the arrival and service streams, so a policy
//! never moves an arrival or a service time (common random numbers).

use serde::Serialize;

pub use crate::stochastic::Window;

pub use crate::stochastic::{Backoff, RetryBudget, Throttle};

/// What the callers do (the engine's client rules, `docs/client.md`; the
/// world gives the timeout).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Client {
    /// Retries after a refusal or a give-up (a local rejection is final).
    pub retries: u32,
    /// The wait before each.
    pub backoff: Backoff,
    /// A retry budget, if any.
    pub budget: Option<RetryBudget>,
    /// Adaptive throttling, if any.
    pub throttle: Option<Throttle>,
    /// Wait at least the refusal's Retry-After.
    pub honour_retry_after: bool,
}

/// The server and the traffic, shared by every policy.
#[derive(Clone, Copy, Debug)]
pub struct World<'a> {
    /// First tries' send times, ascending, ms.
    pub arrivals: &'a [f64],
    /// Base work of each first try, ms (a retry carries its caller's).
    pub work_ms: &'a [f64],
    /// Servers.
    pub workers: u32,
    /// Most requests waiting beyond the workers (`None`: unbounded).
    pub line_limit: Option<u32>,
    /// The caller gives up this long after sending, ms (an answer exactly then is on time).
    pub timeout_ms: f64,
    /// Requests starting in `[from, until)` take `factor` × their work.
    pub slowdown: Option<(f64, f64, f64)>,
    /// The Retry-After a refusal carries, ms.
    pub retry_after_ms: f64,
    /// Retries are sent only before this, ms; the timeline covers `[0, run_ms)`.
    pub run_ms: f64,
    /// Timeline window, ms.
    pub window_ms: f64,
    /// Seed of the client's streams.
    pub seed: u64,
}

/// What one policy did, over the whole run (completions after the run's
/// end included: every admitted request is served).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// First tries.
    pub first_tries: u64,
    /// Retries made.
    pub retries: u64,
    /// Rejected locally.
    pub throttled: u64,
    /// Refused at the door.
    pub refused: u64,
    /// On time.
    pub ok: u64,
    /// Served for nobody.
    pub late: u64,
    /// Retries the budget did not allow.
    pub denied: u64,
}

impl Totals {
    /// Every try made.
    pub fn tries(&self) -> u64 {
        self.first_tries + self.retries
    }
}

/// Runs `client` on `world` through the engine ([`crate::stochastic::Model`]):
/// the engine's timeline as it is (each [`Window`] counts by the time of
/// the event named) and the totals. Work is bounded by the first tries × (1 +
/// retries). A world the engine refuses (the experiment's `check` keeps
/// every value in its ranges) gives an empty timeline.
pub fn simulate(w: World<'_>, c: Client) -> (Vec<Window>, Totals) {
    let Some(run) = run(w, c) else { return (Vec::new(), Totals::default()) };
    let t = &run.tally;
    let totals = Totals {
        first_tries: t.first_tries,
        retries: t.retries,
        throttled: t.throttled,
        refused: t.refused + t.shed,
        ok: t.ok,
        late: t.late,
        denied: t.budget_denied,
    };
    (run.timeline, totals)
}

/// The engine's run of `client` on `world`, every try kept (`None`: a
/// world the engine refuses).
pub fn run(w: World<'_>, c: Client) -> Option<crate::stochastic::Run> {
    use crate::stochastic as st;
    let client = st::Client {
        timeout_ms: Some(w.timeout_ms),
        abandon: st::Abandon::Served,
        retry: st::Retry { max_retries: c.retries, backoff: c.backoff },
        budget: c.budget,
        throttle: c.throttle,
        honour_retry_after: c.honour_retry_after,
    };
    let model = st::Model {
        door: st::Door::line(w.line_limit),
        retry_after_ms: Some(w.retry_after_ms),
        client,
        slowdown: w.slowdown.map(|(at_ms, until_ms, factor)| st::Slowdown { at_ms, until_ms, factor, stuck_ms: None }),
        timeline_ms: Some(w.window_ms),
        areas: false, // no verdict, table or chart reads a time integral
        seed: w.seed,
        ..st::Model::new(w.arrivals, w.work_ms, w.workers, w.run_ms)
    };
    model.run().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world<'a>(arrivals: &'a [f64], work: &'a [f64]) -> World<'a> {
        World {
            arrivals,
            work_ms: work,
            workers: 1,
            line_limit: Some(1),
            timeout_ms: 100.0,
            slowdown: None,
            retry_after_ms: 1000.0,
            run_ms: 10_000.0,
            window_ms: 1000.0,
            seed: 1,
        }
    }

    const NAIVE: Client =
        Client { retries: 2, backoff: Backoff::Fixed { ms: 10.0 }, budget: None, throttle: None, honour_retry_after: false };

    #[test]
    fn a_refused_caller_retries_after_the_backoff_and_every_try_ends_once() {
        // 0: served 0–50; 1: waits, served 50–100 (latency 99 <= 100: on time);
        // 2 at 2 ms: refused (1 waiting), retries at 12 and 22 (refused), then stops.
        let (ticks, t) = simulate(world(&[0.0, 1.0, 2.0], &[50.0, 50.0, 50.0]), NAIVE);
        assert_eq!((t.first_tries, t.retries, t.refused, t.ok, t.late), (3, 2, 3, 2, 0));
        assert_eq!(t.tries(), t.ok + t.late + t.refused + t.throttled);
        assert_eq!(ticks[0].in_flight_max, 2);
    }

    #[test]
    fn a_late_answer_is_wasted_and_its_caller_retries_from_the_timeout() {
        // 0: served 0–150 (late). The caller gives up at 100, retries at 110,
        // which waits until 150 and is served 150–300: latency 190, late again.
        let c = Client { retries: 1, ..NAIVE };
        let (_, t) = simulate(World { line_limit: None, ..world(&[0.0], &[150.0]) }, c);
        assert_eq!((t.retries, t.ok, t.late), (1, 0, 2));
    }

    #[test]
    fn honoured_retry_after_is_a_floor_and_the_budget_denies() {
        let ra = Client { honour_retry_after: true, ..NAIVE };
        let (ticks, t) = simulate(world(&[0.0, 1.0, 2.0], &[50.0; 3]), ra);
        // The refused caller's retry waits 1000 ms: at 1002 the line is empty.
        assert_eq!((ticks[0].retries, ticks[1].retries, t.retries, t.ok), (0, 1, 1, 3));
        let b = Client { budget: Some(RetryBudget { ratio: 0.0, floor_rps: 0.0, max_tokens: 1.0 }), ..NAIVE };
        let (_, t) = simulate(world(&[0.0, 1.0, 2.0], &[50.0; 3]), b);
        assert_eq!((t.retries, t.denied), (1, 1));
    }

    #[test]
    fn throttling_rejects_locally_once_requests_pass_k_times_accepts() {
        // No accepts at all (every try refused): p = r / (r + 1) grows.
        let th = Client { retries: 0, throttle: Some(Throttle { k: 2.0, window_ms: 1e9 }), ..NAIVE };
        let arr: Vec<f64> = (0..200).map(|i| f64::from(i) * 0.5).collect();
        let (_, t) = simulate(World { line_limit: Some(0), ..world(&arr, &[1000.0; 200]) }, th);
        assert!(t.throttled > 150, "{t:?}");
        assert_eq!(t.tries(), t.ok + t.late + t.refused + t.throttled);
    }

    #[test]
    fn same_seed_same_run() {
        let c = Client { backoff: Backoff::FullJitter { base_ms: 50.0, cap_ms: 400.0 }, retries: 3, ..NAIVE };
        let arr: Vec<f64> = (0..300).map(|i| f64::from(i) * 7.0).collect();
        let a = simulate(world(&arr, &[30.0; 300]), c);
        assert_eq!(a, simulate(world(&arr, &[30.0; 300]), c));
    }
}
