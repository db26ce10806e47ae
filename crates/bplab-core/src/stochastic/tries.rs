//! Where the engine keeps its tries while it runs.
//!
//! [`Model::run`](super::Model::run) keeps every try ([`Vec<Request>`]):
//! its [`super::Run`] lists them all. [`Setup::summarise`](super::Setup::summarise)
//! wants only the load tool's row, so it keeps a [`Window`]: the tries from
//! the oldest unresolved one to the newest arrival. A try leaves the window
//! as soon as it and every try before it are resolved, into a [`Fold`] (the
//! row's counts, histogram and sum, in index order) and the caller's
//! `on_ok` (each answer's latency). The served tries' counts against the
//! horizon ([`Served`]) are kept as the work starts and ends: both happen
//! in time order, and the horizon (the latest time a caller resolved) only
//! grows, so only the times after the horizon known so far are kept. Its
//! storage is then what is in flight, not what has run: it does not grow
//! with the run's length.
//!
//! [`Source`] draws the first tries as the run reaches them (arrival
//! stream, service stream), where [`Setup::run`](super::Setup::run) draws
//! them all first; both give the same times in the same order.

use std::collections::VecDeque;

use super::run::{Outcome, Request};
use super::service::ServiceDraws;
use super::summary::{Fold, Served};
use super::traffic::ArrivalTimes;
use crate::stochastic::engine::MAX_TIME_MS;

/// The engine's view of its tries, by index (first tries in schedule
/// order, then any present requests, then retries).
pub(crate) trait Tries {
    /// Try `i`, if kept.
    fn get(&self, i: usize) -> Option<&Request>;
    /// Try `i`, if kept.
    fn get_mut(&mut self, i: usize) -> Option<&mut Request>;
    /// Tries so far (the next one's index).
    fn len(&self) -> usize;
    /// Adds the next try.
    fn push(&mut self, r: Request);
    /// A try's work started at `t_ms` (in time order).
    fn started(&mut self, t_ms: f64);
    /// Try `i`'s work finished at `t_ms` (in time order; its outcome is final now).
    fn completed(&mut self, i: usize, t_ms: f64);
    /// An event was handled; the run's horizon is at least `horizon_ms`.
    fn settle(&mut self, horizon_ms: f64);
}

impl Tries for Vec<Request> {
    #[inline(always)]
    fn get(&self, i: usize) -> Option<&Request> {
        <[Request]>::get(self, i)
    }

    #[inline(always)]
    fn get_mut(&mut self, i: usize) -> Option<&mut Request> {
        <[Request]>::get_mut(self, i)
    }

    #[inline(always)]
    fn len(&self) -> usize {
        Vec::len(self)
    }

    #[inline(always)]
    fn push(&mut self, r: Request) {
        Vec::push(self, r);
    }

    #[inline(always)]
    fn started(&mut self, _: f64) {}

    #[inline(always)]
    fn completed(&mut self, _: usize, _: f64) {}

    #[inline(always)]
    fn settle(&mut self, _: f64) {}
}

/// A try in the [`Window`], with whether its work finished.
#[derive(Clone, Copy, Debug)]
struct Slot {
    r: Request,
    completed: bool,
}

impl Slot {
    /// Its outcome cannot change any more: turned away (refused, shed,
    /// dropped, throttled) or its work finished. An admitted try is `Ok`
    /// until then.
    #[inline(always)]
    fn resolved(&self) -> bool {
        self.r.outcome != Outcome::Ok || self.completed
    }
}

/// The tries from the oldest unresolved one on (see the module docs).
/// Only for runs whose tries are all first tries, pushed in index order.
#[derive(Debug)]
pub(crate) struct Window<F> {
    /// Index of `slots[0]`.
    lo: usize,
    slots: VecDeque<Slot>,
    fold: Fold,
    on_ok: F,
    /// Starts and ends after the horizon known so far, in time order.
    starts_after: VecDeque<f64>,
    ends_after: VecDeque<f64>,
    /// Starts and ends by the horizon known so far, and every start.
    starts_by: u64,
    ends_by: u64,
    starts: u64,
    /// The most tries the window held at once.
    peak_slots: usize,
    /// The most start and end times kept after the known horizon.
    peak_after: usize,
}

/// The most a [`Window`] and its [`Fold`] held at once, in tries: what a
/// summarised run keeps instead of one [`Request`] per try.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Retained {
    /// Unresolved tries and the resolved ones after the oldest of them.
    pub slots: usize,
    /// Start and end times after the horizon known when they happened.
    pub after: usize,
}

impl<F: FnMut(f64)> Window<F> {
    /// Empty; `on_ok` gets each on-time answer's latency (end − arrival,
    /// ms), in index order.
    pub(crate) fn new(on_ok: F) -> Self {
        Window {
            lo: 0,
            slots: VecDeque::new(),
            fold: Fold::new(),
            on_ok,
            starts_after: VecDeque::new(),
            ends_after: VecDeque::new(),
            starts_by: 0,
            ends_by: 0,
            starts: 0,
            peak_slots: 0,
            peak_after: 0,
        }
    }

    /// The fold of every try (all resolved once the events ran out), the
    /// served tries' counts against the run's horizon, and the most the
    /// window held.
    pub(crate) fn finish(mut self, horizon_ms: f64) -> (Fold, Served, Retained) {
        self.settle(horizon_ms);
        // Every try resolves before the events run out; a run cut short
        // (its source failed) is not summarised.
        for s in std::mem::take(&mut self.slots) {
            self.fold.add(&s.r);
        }
        // A served try ends no earlier than it starts: started by the
        // horizon = done + in service then.
        let served = Served {
            done: self.ends_by,
            in_service_end: self.starts_by.saturating_sub(self.ends_by),
            queued_end: self.starts.saturating_sub(self.starts_by),
        };
        (self.fold, served, Retained { slots: self.peak_slots, after: self.peak_after })
    }
}

impl<F: FnMut(f64)> Tries for Window<F> {
    #[inline(always)]
    fn get(&self, i: usize) -> Option<&Request> {
        self.slots.get(i.wrapping_sub(self.lo)).map(|s| &s.r)
    }

    #[inline(always)]
    fn get_mut(&mut self, i: usize) -> Option<&mut Request> {
        self.slots.get_mut(i.wrapping_sub(self.lo)).map(|s| &mut s.r)
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.lo + self.slots.len()
    }

    #[inline(always)]
    fn push(&mut self, r: Request) {
        self.slots.push_back(Slot { r, completed: false });
        self.peak_slots = self.peak_slots.max(self.slots.len());
    }

    #[inline(always)]
    fn started(&mut self, t_ms: f64) {
        self.starts += 1;
        self.starts_after.push_back(t_ms);
    }

    #[inline(always)]
    fn completed(&mut self, i: usize, t_ms: f64) {
        if let Some(s) = self.slots.get_mut(i.wrapping_sub(self.lo)) {
            s.completed = true;
        }
        self.ends_after.push_back(t_ms);
    }

    #[inline(always)]
    fn settle(&mut self, horizon_ms: f64) {
        while let Some(s) = self.slots.front().filter(|s| s.resolved()).copied() {
            self.slots.pop_front();
            self.lo += 1;
            if s.r.outcome == Outcome::Ok {
                (self.on_ok)(s.r.sojourn_ms().unwrap_or(0.0));
            }
            self.fold.add(&s.r);
        }
        self.peak_after = self.peak_after.max(self.starts_after.len() + self.ends_after.len());
        while self.starts_after.front().is_some_and(|&t| t <= horizon_ms) {
            self.starts_after.pop_front();
            self.starts_by += 1;
        }
        while self.ends_after.front().is_some_and(|&t| t <= horizon_ms) {
            self.ends_after.pop_front();
            self.ends_by += 1;
        }
    }
}

/// The first tries of a [`super::Setup`], drawn as the run reaches them:
/// arrival `k` and its service draw `k`, the values
/// [`super::Setup::run`] draws up front. Stops (and says so in
/// [`Source::failed`]) where `Setup::run` would refuse the lists: more
/// than `cap` arrivals, or a time outside `[0, 1e15]` ms.
#[derive(Debug)]
pub(crate) struct Source<'s> {
    arrivals: ArrivalTimes<'s>,
    services: ServiceDraws,
    /// Arrivals drawn so far.
    drawn: usize,
    cap: usize,
    last_ms: f64,
    failed: bool,
}

impl<'s> Source<'s> {
    /// Draws from `arrivals` and `services`, at most `cap` arrivals.
    pub(crate) fn new(arrivals: ArrivalTimes<'s>, services: ServiceDraws, cap: u64) -> Self {
        // Tries are numbered in 32 bits, as `Model::validate` requires.
        let cap = usize::try_from(cap.min(u64::from(u32::MAX))).unwrap_or(u32::MAX as usize);
        Source { arrivals, services, drawn: 0, cap, last_ms: 0.0, failed: false }
    }

    /// The next first try's arrival time and work, ms, and its index.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<(f64, f64, u32)> {
        if self.failed {
            return None;
        }
        let a = self.arrivals.next()?;
        let s = self.services.next().unwrap_or(f64::NAN);
        let in_range = |v: f64| (0.0..=MAX_TIME_MS).contains(&v);
        if self.drawn >= self.cap || !in_range(a) || !in_range(s) || a < self.last_ms {
            self.failed = true;
            return None;
        }
        let i = self.drawn as u32; // below `cap`, which fits in 32 bits
        self.drawn += 1;
        self.last_ms = a;
        Some((a, s, i))
    }

    /// Whether it stopped early: the run is not the one `Setup::run` would
    /// give (that one is an error).
    pub(crate) fn failed(&self) -> bool {
        self.failed
    }
}
