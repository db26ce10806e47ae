//! The discrete-event loop: arrivals in time order, `workers` servers, one
//! FIFO line, optional line limit and client timeout.
//!
//! # Event order
//!
//! Events are processed in `(time, kind, seq)` order, a total order:
//!
//! 1. **give-up** (only with [`Abandon::Dropped`]): the line's head leaves
//!    when its deadline `arrival + timeout` is `<= now`, so a worker that
//!    frees up at that same instant finds it gone;
//! 2. **completion**: a worker finishes and at once takes the line's head
//!    (simultaneous completions in request order, `seq` = request index);
//! 3. **arrival**: in schedule order; takes a free worker, else joins the
//!    line, else is refused.
//!
//! So at one instant a completion frees its worker before an arrival looks
//! for one (an arrival exactly at a completion is never queued or refused
//! because of it), and a caller whose deadline is exactly now is gone
//! before that worker looks at the line. A completion exactly at the
//! deadline is `ok`. Times are compared as plain f64.
//!
//! Cost: one heap push/pop per served request on a heap of at most
//! `workers` entries, so `O(n log workers)`; the line is a ring buffer.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::error::{StochasticError, check};
use super::run::{Outcome, Request, Run};
use super::server::{Abandon, Server};

/// Largest arrival or service time accepted by [`serve`], ms.
pub const MAX_TIME_MS: f64 = 1e15;

/// Heap key of a finite, non-negative time: its bits order like the value
/// (`+ 0.0` turns `-0.0` into `0.0`).
#[inline]
fn key(t: f64) -> u64 {
    (t + 0.0).to_bits()
}

/// Runs `arrivals_ms` (ascending) with one service time each through
/// `server`. Areas are measured over `[0, window_ms)`; the run goes on until
/// every request is resolved. Errors (before any work) on an invalid server,
/// unsorted or out-of-range times, or lists of different lengths.
pub fn serve(server: &Server, arrivals_ms: &[f64], service_ms: &[f64], window_ms: f64) -> Result<Run, StochasticError> {
    server.validate()?;
    check("window-ms", window_ms, "finite and > 0", |w| w > 0.0 && w.is_finite())?;
    if arrivals_ms.len() != service_ms.len() {
        return Err(StochasticError::LengthMismatch { arrivals: arrivals_ms.len(), services: service_ms.len() });
    }
    let mut prev = 0.0;
    for (i, (&a, &s)) in arrivals_ms.iter().zip(service_ms).enumerate() {
        check("arrival-ms", a, "finite, >= 0 and <= 1e15 ms", |a| (0.0..=MAX_TIME_MS).contains(&a))?;
        check("service-ms", s, "finite, >= 0 and <= 1e15 ms", |s| (0.0..=MAX_TIME_MS).contains(&s))?;
        if a < prev {
            return Err(StochasticError::Unsorted { index: i });
        }
        prev = a;
    }
    Ok(Loop::new(server, arrivals_ms, service_ms, window_ms).run())
}

/// The loop's state.
struct Loop<'a> {
    server: &'a Server,
    window_ms: f64,
    requests: Vec<Request>,
    /// Completion events: (time key, request index), smallest first.
    busy: BinaryHeap<Reverse<(u64, usize)>>,
    line: VecDeque<usize>,
    free: u32,
    in_system: u64,
    peak_line: u64,
    last_ms: f64,
    in_system_area: f64,
    in_line_area: f64,
    busy_area: f64,
}

impl<'a> Loop<'a> {
    fn new(server: &'a Server, arrivals_ms: &[f64], service_ms: &[f64], window_ms: f64) -> Self {
        let requests = arrivals_ms
            .iter()
            .zip(service_ms)
            .map(|(&a, &s)| Request {
                arrival_ms: a,
                service_ms: s,
                start_ms: None,
                end_ms: None,
                outcome: Outcome::Refused,
            })
            .collect();
        Self {
            server,
            window_ms,
            requests,
            busy: BinaryHeap::with_capacity(server.workers as usize),
            line: VecDeque::new(),
            free: server.workers,
            in_system: 0,
            peak_line: 0,
            last_ms: 0.0,
            in_system_area: 0.0,
            in_line_area: 0.0,
            busy_area: 0.0,
        }
    }

    fn deadline(&self, i: usize) -> f64 {
        match (self.server.timeout_ms, self.requests.get(i)) {
            (Some(t), Some(r)) => r.arrival_ms + t,
            _ => f64::INFINITY,
        }
    }

    /// Accumulates the areas from the last event to `now` (clipped to the window).
    fn advance(&mut self, now: f64) {
        if self.last_ms < self.window_ms {
            let dt = now.min(self.window_ms) - self.last_ms;
            self.in_system_area += self.in_system as f64 * dt;
            self.in_line_area += self.line.len() as f64 * dt;
            self.busy_area += f64::from(self.server.workers - self.free) * dt;
        }
        self.last_ms = now;
    }

    fn start(&mut self, i: usize, now: f64) {
        if let Some(r) = self.requests.get_mut(i) {
            let end = now + r.service_ms;
            r.start_ms = Some(now);
            r.end_ms = Some(end);
            self.busy.push(Reverse((key(end), i)));
        }
    }

    fn run(mut self) -> Run {
        let drops = self.server.abandon == Abandon::Dropped;
        let mut next = 0usize;
        loop {
            let t_done = self.busy.peek().map_or(f64::INFINITY, |Reverse((k, _))| f64::from_bits(*k));
            let t_quit = match self.line.front() {
                Some(&i) if drops => self.deadline(i),
                _ => f64::INFINITY,
            };
            let t_arrive = self.requests.get(next).map_or(f64::INFINITY, |r| r.arrival_ms);
            if t_quit <= t_done && t_quit <= t_arrive && t_quit.is_finite() {
                self.advance(t_quit);
                if let Some(i) = self.line.pop_front()
                    && let Some(r) = self.requests.get_mut(i)
                {
                    r.outcome = Outcome::Dropped;
                    self.in_system -= 1;
                }
            } else if t_done <= t_arrive && t_done.is_finite() {
                self.advance(t_done);
                if let Some(Reverse((_, i))) = self.busy.pop() {
                    let deadline = self.deadline(i);
                    if let Some(r) = self.requests.get_mut(i) {
                        let on_time = r.end_ms.is_some_and(|e| e <= deadline);
                        r.outcome = if on_time { Outcome::Ok } else { Outcome::Late };
                    }
                    self.in_system -= 1;
                    match self.line.pop_front() {
                        Some(j) => self.start(j, t_done),
                        None => self.free += 1,
                    }
                }
            } else if t_arrive.is_finite() {
                self.advance(t_arrive);
                let i = next;
                next += 1;
                if self.free > 0 {
                    self.free -= 1;
                    self.in_system += 1;
                    self.start(i, t_arrive);
                } else if self.server.line_limit.is_none_or(|l| (self.line.len() as u64) < u64::from(l)) {
                    self.line.push_back(i);
                    self.in_system += 1;
                    self.peak_line = self.peak_line.max(self.line.len() as u64);
                }
                // else: refused, the outcome it was created with.
            } else {
                break;
            }
        }
        if self.last_ms < self.window_ms {
            self.advance(self.window_ms);
        }
        Run {
            requests: self.requests,
            server: *self.server,
            window_ms: self.window_ms,
            peak_line: self.peak_line,
            in_system_area: self.in_system_area,
            in_line_area: self.in_line_area,
            busy_area: self.busy_area,
        }
    }
}
