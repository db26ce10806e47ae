//! The adaptive race's view of the engine: one door on one trace, reduced
//! to a timeline of [`Bucket`]s and the answered latencies before and after
//! a deploy. [`simulate`] is [`Model::run`] with the trace's settings;
//! `bplab-live`'s timeline model calls it too.
//!
//! Every door sees the same arrival times and the same base service-time
//! draws (common random numbers); a deploy multiplies the service time of
//! every request that starts at or after `slowdown_at_ms`. Callers give up
//! after the client timeout, but the server still serves what it started or
//! queued ([`Abandon::Served`]: the work is wasted, as in the live server);
//! with `retries`, a refused, shed or abandoned caller tries again
//! `retry_backoff_ms` after the refusal or its deadline.

use serde::Serialize;

use super::client::{Backoff, Client, Retry};
use super::door::Door;
use super::error::StochasticError;
use super::model::{Model, Slowdown};
use super::run::Run;
use super::server::Abandon;

/// What to simulate.
#[derive(Clone, Copy, Debug)]
pub struct Trace<'a> {
    /// Arrival times, ascending, ms.
    pub arrivals: &'a [f64],
    /// Base service time of each arrival (same index), ms.
    pub service_ms: &'a [f64],
    /// Servers.
    pub workers: u32,
    /// The caller gives up after this long, ms.
    pub timeout_ms: f64,
    /// The deploy: service times of requests starting at or after this are multiplied.
    pub slowdown_at_ms: f64,
    /// The multiplier.
    pub slowdown_factor: f64,
    /// After the deploy every service takes exactly the client timeout (a
    /// stuck downstream), instead of the multiplied draw.
    pub stuck_after_slowdown: bool,
    /// Refused or abandoned callers retry this many times (0: none) ...
    pub retries: u32,
    /// ... this long after giving up or being refused, ms.
    pub retry_backoff_ms: f64,
    /// Run window (arrivals are in it; the timeline covers it), ms.
    pub window_ms: f64,
    /// Timeline window width, ms.
    pub bucket_ms: f64,
}

impl<'a> Trace<'a> {
    /// The engine model of this trace behind `door`: timeout with
    /// [`Abandon::Served`], fixed-backoff retries, the deploy as a
    /// [`Slowdown`] from `slowdown_at_ms` on, a timeline of `bucket_ms`, no
    /// areas (a [`Bucket`] reads none).
    pub fn model(&self, door: Door) -> Model<'a> {
        let retry = Retry { max_retries: self.retries, backoff: Backoff::Fixed { ms: self.retry_backoff_ms } };
        Model {
            door,
            client: Client { retry, ..Client::with_timeout(self.timeout_ms, Abandon::Served) },
            slowdown: Some(Slowdown {
                at_ms: self.slowdown_at_ms,
                until_ms: f64::INFINITY,
                factor: self.slowdown_factor,
                stuck_ms: self.stuck_after_slowdown.then_some(self.timeout_ms),
            }),
            timeline_ms: Some(self.bucket_ms),
            areas: false,
            ..Model::new(self.arrivals, self.service_ms, self.workers, self.window_ms)
        }
    }
}

/// One timeline window of one controller.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Bucket {
    /// The limit at the end of the window (CoDel: the line length it allowed, i.e. none: -1).
    pub limit: i32,
    /// Most requests in the system during the window.
    pub in_flight_max: u32,
    /// Answers within the client timeout, by completion time.
    pub ok: u64,
    /// Refused at the door or shed by CoDel, by decision time.
    pub refused: u64,
    /// Served after the caller left, by completion time.
    pub wasted: u64,
    /// p99 of answered latency in the window, ms (None: no answers).
    pub p99_ms: Option<u64>,
}

/// What one controller did on the trace.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct SimOut {
    /// The timeline.
    pub buckets: Vec<Bucket>,
    /// Arrivals including retries.
    pub attempts: u64,
    /// Answered in time.
    pub ok: u64,
    /// Refused or shed.
    pub refused: u64,
    /// Served for nobody.
    pub wasted: u64,
    /// Still in the system when the events ran out (always 0: everything admitted is served).
    pub unresolved: u64,
    /// Answered latencies (ms, rounded) before the deploy, by completion time.
    pub before_ms: Vec<u64>,
    /// After the deploy.
    pub after_ms: Vec<u64>,
    /// How many of those answers (the last ones, in completion order) came
    /// at or after the run window's end: the drain of what was admitted.
    #[serde(default)]
    pub drained: usize,
}

impl SimOut {
    /// The answers that came inside the run window, split at the deploy
    /// as [`SimOut::before_ms`] and [`SimOut::after_ms`] are.
    pub fn within_window(&self) -> (&[u64], &[u64]) {
        let inside = (self.before_ms.len() + self.after_ms.len()).saturating_sub(self.drained);
        let before = &self.before_ms[..self.before_ms.len().min(inside)];
        let after = &self.after_ms[..inside - before.len()];
        (before, after)
    }

    /// Nothing simulated.
    pub fn empty() -> Self {
        SimOut {
            buckets: Vec::new(),
            attempts: 0,
            ok: 0,
            refused: 0,
            wasted: 0,
            unresolved: 0,
            before_ms: Vec::new(),
            after_ms: Vec::new(),
            drained: 0,
        }
    }

    /// The race's view of a run that recorded a timeline (its answers split
    /// at the slowdown's start: the deploy).
    pub fn of(run: Run) -> Self {
        let buckets = run
            .timeline
            .iter()
            .map(|w| Bucket {
                limit: w.limit,
                in_flight_max: w.in_flight_max,
                ok: w.ok,
                refused: w.refused,
                wasted: w.late,
                p99_ms: w.p99_ms,
            })
            .collect();
        let t = &run.tally;
        let resolved = t.throttled + t.refused + t.shed + t.ok + t.late + t.dropped;
        SimOut {
            buckets,
            attempts: t.attempts(),
            ok: t.ok,
            refused: t.refused + t.shed,
            wasted: t.late,
            unresolved: t.attempts().saturating_sub(resolved),
            before_ms: run.answers_before_ms,
            after_ms: run.answers_after_ms,
            drained: run.answers_drained,
        }
    }
}

/// Runs `door` over the trace. Work is bounded by the arrivals (× retries + 1).
/// An invalid trace (see [`try_simulate`]) gives an empty outcome.
pub fn simulate(tr: Trace<'_>, door: Door) -> SimOut {
    try_simulate(tr, door).unwrap_or_else(|_| SimOut::empty())
}

/// [`simulate`], or the error naming the first value [`Model::validate`] refuses.
pub fn try_simulate(tr: Trace<'_>, door: Door) -> Result<SimOut, StochasticError> {
    Ok(SimOut::of(tr.model(door).run()?))
}
