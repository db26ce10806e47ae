//! What the one engine runs: first tries and their work, the workers, the
//! door, the callers, an optional slowdown, and what to record.

use super::client::Client;
use super::door::Door;
use super::engine::{MAX_TIME_MS, simulate_model};
use super::error::{StochasticError, check};
use super::run::Run;
use super::server::{Abandon, MAX_WORKERS, Server};
use super::traffic::MAX_MS;

/// Most timeline windows in one run.
pub const MAX_WINDOWS: f64 = 1e6;

/// A slowdown of the server (a deploy, a stuck downstream): every request
/// that **starts** in `[at_ms, until_ms)` takes `stuck_ms` if set, else its
/// base work × `factor`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slowdown {
    /// Start, ms; `>= 0` (infinity: never).
    pub at_ms: f64,
    /// End, ms; `> at_ms` or infinity (for good).
    pub until_ms: f64,
    /// Multiplier on the base work; finite, `> 0` and `<= 1e6`.
    pub factor: f64,
    /// Every request takes exactly this long instead, ms (a downstream
    /// that hangs until the caller's timeout); `0 <= stuck_ms <= 1e15`.
    pub stuck_ms: Option<f64>,
}

impl Slowdown {
    /// Checks the ranges documented on each field.
    pub fn validate(&self) -> Result<(), StochasticError> {
        check("slowdown-at-ms", self.at_ms, ">= 0 ms", |v| v >= 0.0)?;
        check("slowdown-until-ms", self.until_ms, "after the slowdown's start", |v| {
            v > self.at_ms || v == f64::INFINITY
        })?;
        check("slowdown-factor", self.factor, "finite, > 0 and <= 1e6", |v| v > 0.0 && v <= 1e6)?;
        if let Some(s) = self.stuck_ms {
            check("stuck-ms", s, "finite, >= 0 and <= 1e15 ms", |v| (0.0..=MAX_TIME_MS).contains(&v))?;
        }
        Ok(())
    }

    /// The time in service of a request with base work `base_ms` starting at `start_ms`.
    #[inline]
    pub(crate) fn service_ms(&self, start_ms: f64, base_ms: f64) -> f64 {
        if start_ms >= self.at_ms && start_ms < self.until_ms {
            self.stuck_ms.unwrap_or(base_ms * self.factor)
        } else {
            base_ms
        }
    }
}

/// A request already in the system when the run starts (time 0), whose
/// caller is not modelled (it has left, or is counted elsewhere): the state a
/// run starts from instead of an empty server. It is served like any other
/// and its completion feeds a limiter door its sample (round trip from its
/// arrival, the requests in flight then, dropped iff later than arrival +
/// the client's timeout), but it is never given up on, never retried and
/// never an answer: its [`super::Request`] (after the first tries', before
/// any retry's in [`super::Run::requests`]) ends `Late` or `Shed`, outside
/// the [`super::Tally`] and the timeline's counts (it is in the timeline's
/// in-flight notes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Present {
    /// When it arrived, ms; finite, `-1e15 <= t <= 0`.
    pub arrival_ms: f64,
    /// Waiting: its base work, ms (the slowdown applies as it starts). In
    /// service: its whole time in service, ms (it ends at `start + this`,
    /// at 0 at the earliest; the slowdown is not applied again). Finite,
    /// `0 <= s <= 1e15`.
    pub service_ms: f64,
    /// `Some(start)`: in service since then (`arrival <= start <= 0`);
    /// `None`: waiting in the line, in the order given.
    pub start_ms: Option<f64>,
    /// Requests in the system right after it was admitted.
    pub inflight: i32,
}

/// Whether every time is in `[0, 1e15]` and the arrivals ascend: the
/// checks of [`Model::validate`] with `&` for `&&`, so the pass has no
/// branch and vectorises.
fn times_fine(arrivals_ms: &[f64], service_ms: &[f64]) -> bool {
    let in_range = |v: f64| (0.0..=MAX_TIME_MS).contains(&v);
    let (mut fine, mut prev) = (true, 0.0);
    for (&a, &s) in arrivals_ms.iter().zip(service_ms) {
        fine &= in_range(a) & in_range(s) & (a >= prev);
        prev = a;
    }
    fine
}

/// One run of the engine. Same `Model` (and seed) → same [`Run`], bit for
/// bit, on every target.
#[derive(Clone, Debug)]
pub struct Model<'a> {
    /// Send times of the first tries, ascending, ms; finite, `0 <= t <= 1e15`.
    pub arrivals_ms: &'a [f64],
    /// Base work of each first try (same index), ms; a retry carries its
    /// caller's; finite, `0 <= s <= 1e15`.
    pub service_ms: &'a [f64],
    /// Servers; `1 <= workers <= 100000`.
    pub workers: u32,
    /// The admission decision.
    pub door: Door,
    /// The Retry-After the door's refusals and sheds carry, ms (`None`:
    /// none); finite, `>= 0` and `<= 1e9`.
    pub retry_after_ms: Option<f64>,
    /// The callers.
    pub client: Client,
    /// A slowdown of the server, if any.
    pub slowdown: Option<Slowdown>,
    /// The offered window, ms; finite and `> 0`. Areas and the timeline
    /// cover `[0, window_ms)`; retries are sent only inside it; the run
    /// goes on until every request is resolved.
    pub window_ms: f64,
    /// Width of the per-window timeline, ms (`None`: no timeline); at most
    /// a million windows.
    pub timeline_ms: Option<f64>,
    /// Measure the time integrals: [`Run`]'s `in_system_area`,
    /// `in_line_area`, `busy_area` and the timeline's `in_flight_mean`
    /// (`false`: they stay 0, for runs that read none of them; the rest of
    /// the run is the same bit for bit).
    pub areas: bool,
    /// Seed of the client's random streams (jitter, throttling).
    pub seed: u64,
    /// Requests in the system at time 0 (empty: the server starts empty);
    /// at most `workers` of them in service; only with callers whose
    /// abandoned requests are served ([`super::Abandon::Served`]).
    pub present: &'a [Present],
}

impl<'a> Model<'a> {
    /// `workers` behind an open door, patient callers, no slowdown, no timeline.
    pub fn new(arrivals_ms: &'a [f64], service_ms: &'a [f64], workers: u32, window_ms: f64) -> Self {
        Model {
            arrivals_ms,
            service_ms,
            workers,
            door: Door::Open,
            retry_after_ms: None,
            client: Client::patient(),
            slowdown: None,
            window_ms,
            timeline_ms: None,
            areas: true,
            seed: 0,
            present: &[],
        }
    }

    /// The server as the lesson describes it: workers, the line limit if the
    /// door is a line, the client timeout and abandonment.
    pub fn server(&self) -> Server {
        Server {
            workers: self.workers,
            line_limit: match self.door {
                Door::Line(n) => Some(n),
                _ => None,
            },
            timeout_ms: self.client.timeout_ms,
            abandon: self.client.abandon,
        }
    }

    /// Checks every range documented on the fields, in field order.
    pub fn validate(&self) -> Result<(), StochasticError> {
        check("workers", f64::from(self.workers), "a whole number from 1 to 100000", |w| {
            (1.0..=f64::from(MAX_WORKERS)).contains(&w)
        })?;
        check("window-ms", self.window_ms, "finite and > 0", |w| w > 0.0 && w.is_finite())?;
        if self.arrivals_ms.len() != self.service_ms.len() {
            return Err(StochasticError::LengthMismatch {
                arrivals: self.arrivals_ms.len(),
                services: self.service_ms.len(),
            });
        }
        // The usual case in one branch-free pass; else find the first bad
        // value for its message.
        if !times_fine(self.arrivals_ms, self.service_ms) {
            let mut prev = 0.0;
            for (i, (&a, &s)) in self.arrivals_ms.iter().zip(self.service_ms).enumerate() {
                check("arrival-ms", a, "finite, >= 0 and <= 1e15 ms", |a| (0.0..=MAX_TIME_MS).contains(&a))?;
                check("service-ms", s, "finite, >= 0 and <= 1e15 ms", |s| (0.0..=MAX_TIME_MS).contains(&s))?;
                if a < prev {
                    return Err(StochasticError::Unsorted { index: i });
                }
                prev = a;
            }
        }
        self.validate_present()?;
        // Tries are numbered in 32 bits (and so are the queue's pushes per kind).
        let tries = (self.arrivals_ms.len() as u64)
            .saturating_mul(1 + u64::from(self.client.retry.max_retries))
            .saturating_add(self.present.len() as u64);
        if tries > u64::from(u32::MAX) {
            return Err(StochasticError::TooManyArrivals { estimated: tries, cap: u64::from(u32::MAX) });
        }
        if let Some(r) = self.retry_after_ms {
            check("retry-after-ms", r, "finite, >= 0 and <= 1e9 ms", |v| (0.0..=MAX_MS).contains(&v))?;
        }
        self.client.validate()?;
        if let Some(s) = &self.slowdown {
            s.validate()?;
        }
        if let Some(w) = self.timeline_ms {
            check("timeline-ms", w, "finite, > 0 and at most a million windows in the run", |w| {
                w > 0.0 && w.is_finite() && (self.window_ms / w).ceil() <= MAX_WINDOWS
            })?;
        }
        Ok(())
    }

    /// The checks of [`Model::present`]'s documented ranges.
    fn validate_present(&self) -> Result<(), StochasticError> {
        if self.present.is_empty() {
            return Ok(());
        }
        let n = self.present.len() as f64;
        check("present", n, "empty unless abandoned requests are served (abandon served)", |_| {
            self.client.abandon == Abandon::Served
        })?;
        let busy = self.present.iter().filter(|p| p.start_ms.is_some()).count();
        check("present-in-service", busy as f64, "at most the workers", |b| b <= f64::from(self.workers))?;
        for p in self.present {
            check("present-arrival-ms", p.arrival_ms, "finite, >= -1e15 and <= 0 ms", |a| {
                (-MAX_TIME_MS..=0.0).contains(&a)
            })?;
            check("present-service-ms", p.service_ms, "finite, >= 0 and <= 1e15 ms", |s| {
                (0.0..=MAX_TIME_MS).contains(&s)
            })?;
            if let Some(s) = p.start_ms {
                check("present-start-ms", s, "between its arrival and 0 ms", |s| (p.arrival_ms..=0.0).contains(&s))?;
            }
        }
        Ok(())
    }

    /// Validates, then runs. Work: `O(n log workers)` for `n` tries
    /// (first tries × (1 + `max_retries`) at most).
    pub fn run(&self) -> Result<Run, StochasticError> {
        self.validate()?;
        Ok(simulate_model(self))
    }
}
