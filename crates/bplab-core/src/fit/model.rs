//! The engine at each measured load: the arrivals the level had (replayed
//! send times, a closed loop of the callers it had, or Poisson at its rate),
//! the fitted service, workers and queue limit.

use serde::Serialize;

use super::level::Level;
use crate::stochastic::{Abandon, Client, Door, Model, Outcome, RateSchedule, ServiceTime, Summary};

/// How the model's arrivals were made for one level.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Arrivals {
    /// The file's own send times.
    Replayed,
    /// `callers` callers that each send again as their answer arrives (the
    /// tool's closed loop; `ab` records only whole-second send times).
    ClosedLoop {
        /// Callers, from Little's law on the level (answers/s × latency).
        callers: u32,
    },
    /// Poisson at the level's measured send rate (the file has no send times).
    Poisson {
        /// The rate, rps.
        rate_rps: f64,
    },
}

/// What the model needs to know about the fitted server.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Server {
    pub service: ServiceTime,
    pub workers: u32,
    pub queue_limit: Option<u32>,
    /// Time outside the server added to every latency, ms.
    pub overhead_ms: f64,
    pub seed: u64,
}

/// The arrivals for `level` and how they were made.
pub(crate) fn arrivals(level: &Level, server: &Server) -> (Vec<f64>, Arrivals) {
    if !level.requests.is_empty() && !level.coarse_starts {
        return (level.requests.iter().map(|r| r.start_ms).collect(), Arrivals::Replayed);
    }
    let rate = level.sent_per_sec();
    if level.closed_loop() && level.coarse_starts {
        let latency = level.mean_ms.unwrap_or(0.0);
        let callers = (level.ok_per_sec() * latency / 1000.0).round().clamp(1.0, 10_000.0) as u32;
        return (closed_loop(callers, level.sent as usize, server), Arrivals::ClosedLoop { callers });
    }
    (poisson(level.sent, level.duration_ms, rate, server.seed), Arrivals::Poisson { rate_rps: rate })
}

/// `n` Poisson arrivals conditioned on their count: the first `n + 1` of a
/// Poisson stream at `rate_rps`, scaled so the `(n + 1)`-th falls at the
/// window's end (the first `n` are then uniform order statistics on it), so
/// the model offers exactly the requests the file sent.
fn poisson(n: u64, window_ms: f64, rate_rps: f64, seed: u64) -> Vec<f64> {
    let want = usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1);
    let mut times = RateSchedule::constant(rate_rps)
        .generate(window_ms * 3.0, seed, super::MAX_REQUESTS.saturating_mul(3))
        .unwrap_or_default();
    times.truncate(want);
    if times.len() == want
        && let Some(&end) = times.last()
        && end > 0.0
    {
        let k = window_ms / end;
        times.pop();
        times.iter_mut().for_each(|t| *t *= k);
    }
    times
}

/// Send times of `n` requests from `callers` callers with no pause: each
/// sends at once, then again when its answer arrives (served FIFO by the
/// workers, `overhead_ms` after the work ends). The engine then serves
/// these times with the same draws, so it reproduces the same answers.
fn closed_loop(callers: u32, n: usize, s: &Server) -> Vec<f64> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Times as whole ns in the heaps (f64 is not Ord).
    let ns = |ms: f64| (ms * 1e6).round() as u64;
    let mut sends: BinaryHeap<Reverse<u64>> = (0..callers).map(|_| Reverse(0)).collect();
    let mut free: BinaryHeap<Reverse<u64>> = (0..s.workers).map(|_| Reverse(0)).collect();
    let mut out = Vec::with_capacity(n);
    for work in s.service.draws(s.seed).take(n) {
        let (Some(Reverse(at)), Some(Reverse(idle))) = (sends.pop(), free.pop()) else { break };
        let end = at.max(idle) + ns(work);
        out.push(at as f64 / 1e6);
        free.push(Reverse(end));
        sends.push(Reverse(end + ns(s.overhead_ms)));
    }
    out
}

/// The engine's row for `level` (`None` when the level has no counts).
pub(crate) fn run(level: &Level, server: &Server) -> Option<(Summary, Arrivals)> {
    if !level.has_counts() {
        return None;
    }
    let (times, how) = arrivals(level, server);
    let services: Vec<f64> = server.service.draws(server.seed).take(times.len()).collect();
    let window = level.duration_ms.max(times.last().copied().unwrap_or(0.0) + 1.0);
    let client = match level.tool {
        // The load tool's default client timeout.
        super::Tool::BplabCsv | super::Tool::BplabTimeline => Client::with_timeout(2000.0, Abandon::Served),
        _ => Client::patient(),
    };
    let model =
        Model { door: Door::line(server.queue_limit), client, ..Model::new(&times, &services, server.workers, window) };
    let run = model.run().ok()?;
    let mut s = run.summary(level.offered_rps.unwrap_or(level.sent_per_sec()));
    // The percentiles of the engine's own times (the summary's come from a
    // 3-digit histogram), each with the time outside the server added.
    let mut times: Vec<f64> = run
        .requests
        .iter()
        .filter(|r| r.outcome == Outcome::Ok)
        .map(|r| r.end_ms.unwrap_or(r.arrival_ms) - r.arrival_ms + server.overhead_ms)
        .collect();
    times.sort_by(f64::total_cmp);
    s.p50_ms = super::level::quantile(&times, 0.5);
    s.p99_ms = super::level::quantile(&times, 0.99);
    s.mean_ms = s.mean_ms.map(|v| v + server.overhead_ms);
    Some((s, how))
}
