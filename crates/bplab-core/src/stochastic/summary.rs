//! One run reduced to the load tool's row (`bplab load`'s `RateRow`).
//!
//! Every column below is defined exactly as bplab-live's
//! `load::table::RateRow` defines it, with the window's two `/stats` reads
//! placed at time 0 and at the **horizon**, the moment the last caller
//! resolved (answered, refused or gave up), which is when the load tool
//! reads `/stats` again. Differences are named on the field.

use super::run::{Outcome, Request, Run};
use crate::numerics::LatencyHistogram;

/// The lesson's columns for one run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Offered rate, requests per second (the schedule's mean over the window).
    pub offered_rps: f64,
    /// Requests sent: every try in the window (first tries and retries),
    /// except those the client's throttling kept.
    pub sent: u64,
    /// Answers received within the client timeout (`end <= arrival + timeout`).
    pub ok: u64,
    /// Refused at arrival by the door, or shed at dequeue (both a 503).
    pub refused: u64,
    /// Callers that gave up at the timeout (`late` + `dropped`), counted
    /// from the scheduled send time, as the load tool does.
    pub gaveup: u64,
    /// Connect failures, resets, bad statuses: always 0 in the model.
    pub error: u64,
    /// `ok / seconds` of the window (the drain is not counted).
    pub ok_per_sec: f64,
    /// Median latency (end − arrival) of the `ok` answers, ms; `None` when
    /// there are none. Model difference: whole ms from the core's
    /// HdrHistogram (Java 2.2.2 rule, values rounded half-up), where the load
    /// tool keeps µs; the two agree to within 1 ms below 2048 ms.
    pub p50_ms: Option<f64>,
    /// 99th percentile of the same latencies, same rule.
    pub p99_ms: Option<f64>,
    /// Exact mean of the same latencies, ms (not a load-tool column).
    pub mean_ms: Option<f64>,
    /// Work finished by the horizon, whether or not its caller was still
    /// waiting (`ok` + the late ones that ended by then).
    pub done: u64,
    /// `sent − done − refused − (in service + waiting at the horizon)`: work
    /// the server dropped without a trace. 0 with [`super::Abandon::Served`];
    /// the number of dropped requests with [`super::Abandon::Dropped`].
    pub lost: i64,
    /// Peak depth of the line (waiting requests, not those in service).
    pub queued: u64,
    /// Requests still waiting at the horizon (the backlog the next window
    /// would inherit; not printed by the load tool).
    pub queued_end: u64,
    /// `done − ok`: work the server finished for nobody (not a load-tool
    /// column; the lesson reads it off `done` and `ok`).
    pub wasted: u64,
}

impl Summary {
    /// A row for a rate at which nothing was sent.
    pub fn empty(offered_rps: f64) -> Self {
        Summary {
            offered_rps,
            sent: 0,
            ok: 0,
            refused: 0,
            gaveup: 0,
            error: 0,
            ok_per_sec: 0.0,
            p50_ms: None,
            p99_ms: None,
            mean_ms: None,
            done: 0,
            lost: 0,
            queued: 0,
            queued_end: 0,
            wasted: 0,
        }
    }
}

impl Run {
    /// The load tool's row for this run. `offered_rps` is printed as given.
    pub fn summary(&self, offered_rps: f64) -> Summary {
        let horizon = self.horizon_ms();
        let mut fold = Fold::new();
        let mut served = Served::default();
        for r in &self.requests {
            fold.add(r);
            match (r.start_ms, r.end_ms) {
                (Some(_), Some(end)) if end <= horizon => served.done += 1,
                (Some(start), Some(_)) if start <= horizon => served.in_service_end += 1,
                (Some(_), Some(_)) => served.queued_end += 1,
                _ => {}
            }
        }
        fold.finish(offered_rps, self.window_ms, self.peak_line, served)
    }
}

/// The served tries (those with a start and an end) against the horizon.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Served {
    /// Ended by the horizon.
    pub done: u64,
    /// Started by the horizon, ended after it.
    pub in_service_end: u64,
    /// Started after the horizon.
    pub queued_end: u64,
}

/// [`Run::summary`]'s counts, one try at a time: the tries go in in index
/// order (the mean's sum keeps that order, so its bits match), each once
/// it is resolved; the served tries' counts against the horizon come in
/// [`Fold::finish`]. No per-try storage: the latency histogram and a few
/// counts.
#[derive(Clone, Debug)]
pub(crate) struct Fold {
    hist: LatencyHistogram,
    /// Tries per [`Outcome`] (counted by index: no branch on a random outcome).
    by_outcome: [u64; 6],
    tries: u64,
    sum_ms: f64,
}

impl Fold {
    /// Nothing folded yet.
    pub(crate) fn new() -> Self {
        Fold { hist: LatencyHistogram::new(), by_outcome: [0; 6], tries: 0, sum_ms: 0.0 }
    }

    /// Adds resolved try `r`, the next in index order.
    #[inline]
    pub(crate) fn add(&mut self, r: &Request) {
        self.tries += 1;
        self.by_outcome[r.outcome as usize] += 1;
        if r.outcome == Outcome::Ok {
            let latency = r.sojourn_ms().unwrap_or(0.0);
            self.sum_ms += latency;
            self.hist.record_ms(latency);
        }
    }

    /// The row, with the run's window and peak line and the served tries'
    /// counts against its horizon.
    pub(crate) fn finish(self, offered_rps: f64, window_ms: f64, peak_line: u64, served: Served) -> Summary {
        let Served { done, in_service_end, queued_end } = served;
        let n = |o: Outcome| self.by_outcome[o as usize];
        let (ok, throttled) = (n(Outcome::Ok), n(Outcome::Throttled));
        let refused = n(Outcome::Refused) + n(Outcome::Shed);
        let gaveup = n(Outcome::Late) + n(Outcome::Dropped);
        let sent = self.tries - throttled;
        let lost = sent as i64 - done as i64 - refused as i64 - (in_service_end + queued_end) as i64;
        let hist = &self.hist;
        let pct = |p: f64| (ok > 0).then(|| hist.value_at_percentile(p) as f64);
        Summary {
            offered_rps,
            sent,
            ok,
            refused,
            gaveup,
            error: 0,
            ok_per_sec: ok as f64 / (window_ms / 1000.0),
            p50_ms: pct(50.0),
            p99_ms: pct(99.0),
            mean_ms: (ok > 0).then(|| self.sum_ms / ok as f64),
            done,
            lost,
            queued: peak_line,
            queued_end,
            wasted: done.saturating_sub(ok),
        }
    }
}
