//! The door: the server's admission decision, taken either as a request
//! arrives or as a worker takes it off the line.
//!
//! | door | decides | refuses when |
//! |---|---|---|
//! | [`Door::Open`] | — | never (the line is unbounded) |
//! | [`Door::Line`] | at arrival | every worker is busy and `n` requests wait |
//! | [`Door::Limit`] | at arrival | requests in the system (waiting + in service) `>= limit()`; the limiter is fed each completion's [`Sample`] |
//! | [`Door::Codel`] | at dequeue | folly's `overloaded(now, delay)` says so (`codel.md`), with the queue delay truncated to whole ms as fbthrift does |
//!
//! A refusal (and a shed) carries the server's Retry-After, if it sends one
//! ([`super::Model::retry_after_ms`]).

use crate::control::{AnyLimiter, Codel, Limiter, Sample};

/// The admission decision in front of the line.
#[derive(Clone, Debug)]
pub enum Door {
    /// No door: everyone waits (an unbounded line).
    Open,
    /// A line limit, like bplab-live's `LIMIT`: at most this many requests
    /// **wait** (not counting those in service); `Line(0)` = never wait.
    Line(u32),
    /// A concurrency limit on requests in the system, asked at each arrival
    /// and fed each completion's sample (round trip, in flight at its
    /// arrival, late = dropped), and each caller that left the line unserved
    /// (as dropped).
    Limit(AnyLimiter),
    /// CoDel on queue delay, checked when a worker dequeues.
    Codel(Codel),
}

impl Door {
    /// The door for a line limit (`None` = unbounded).
    pub fn line(limit: Option<u32>) -> Self {
        limit.map_or(Door::Open, Door::Line)
    }

    /// The bound on requests in the system for a timeline: the limiter's
    /// limit, a line limit plus `workers`, or -1 (open, CoDel).
    pub fn limit(&self, workers: u32) -> i32 {
        match self {
            Door::Open | Door::Codel(_) => -1,
            Door::Line(n) => i32::try_from(u64::from(*n) + u64::from(workers)).unwrap_or(i32::MAX),
            Door::Limit(l) => l.limit(),
        }
    }

    /// Whether an arrival is let in, given the requests in the system, the
    /// requests waiting and the free workers.
    #[inline(always)]
    pub(crate) fn admits(&self, in_system: u64, waiting: u64, free: u32) -> bool {
        match self {
            Door::Open | Door::Codel(_) => true,
            Door::Line(n) => free > 0 || waiting < u64::from(*n),
            Door::Limit(l) => limit_admits(l, in_system),
        }
    }

    /// Whether the door decides at dequeue (every admitted request passes
    /// through the line, even to a free worker).
    #[inline]
    pub(crate) fn at_dequeue(&self) -> bool {
        matches!(self, Door::Codel(_))
    }

    /// CoDel's verdict for a request dequeued at `now_ms` that arrived at
    /// `arrival_ms`: `true` = shed. Always `false` for the other doors.
    #[inline(always)]
    pub(crate) fn sheds(&mut self, now_ms: f64, arrival_ms: f64) -> bool {
        match self {
            Door::Codel(c) => codel_sheds(c, now_ms, arrival_ms),
            _ => false,
        }
    }

    /// Feeds a finished (or abandoned) request to a limiter.
    #[inline(always)]
    pub(crate) fn learn(&mut self, rtt_ms: f64, inflight: i32, dropped: bool) {
        if let Door::Limit(l) = self {
            learn(l, rtt_ms, inflight, dropped);
        }
    }
}

/// [`Door::sheds`] for CoDel (out of line: the other doors only test the kind).
#[inline(never)]
fn codel_sheds(c: &mut Codel, now_ms: f64, arrival_ms: f64) -> bool {
    // fbthrift truncates the queue delay to whole ms (a cast: floor
    // for a delay >= 0, without a libm call).
    let delay_ms = (now_ms - arrival_ms).max(0.0) as i64 as f64;
    c.overloaded(ns(now_ms), (delay_ms * 1e6) as i64)
}

/// [`Door::admits`] for a limiter (out of line, as [`codel_sheds`]).
#[inline(never)]
fn limit_admits(l: &AnyLimiter, in_system: u64) -> bool {
    in_system < u64::try_from(l.limit()).unwrap_or(0)
}

/// [`Door::learn`] for a limiter (out of line, as [`codel_sheds`]).
#[inline(never)]
fn learn(l: &mut AnyLimiter, rtt_ms: f64, inflight: i32, dropped: bool) {
    l.update(Sample::new(ns(rtt_ms), inflight, dropped));
}

impl Door {
    /// Whether [`Door::limit`] can change during a run (a limiter's can; the
    /// other doors' is fixed).
    #[inline(always)]
    pub(crate) fn limit_moves(&self) -> bool {
        matches!(self, Door::Limit(_))
    }
}

/// Model ms to the controllers' ns, at least 1 ns.
#[inline]
pub(crate) fn ns(ms: f64) -> i64 {
    (ms * 1e6).clamp(1.0, 9.0e18) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{CodelConfig, FixedConfig, LimiterConfig};

    #[test]
    fn each_door_admits_by_its_rule() {
        assert!(Door::Open.admits(u64::MAX, u64::MAX, 0));
        assert!(Door::line(Some(2)).admits(9, 1, 0) && !Door::Line(2).admits(9, 2, 0) && Door::Line(0).admits(0, 0, 1));
        let fixed = Door::Limit(LimiterConfig::Fixed(FixedConfig::new(3).unwrap()).build());
        assert!(fixed.admits(2, 5, 0) && !fixed.admits(3, 0, 4));
        assert_eq!((fixed.limit(1), Door::Line(10).limit(2), Door::Open.limit(1)), (3, 12, -1));
        let codel = Door::Codel(Codel::new(&CodelConfig::default(), 0));
        assert!(codel.at_dequeue() && codel.admits(u64::MAX, u64::MAX, 0) && codel.limit(1) == -1);
        assert!(matches!(Door::line(None), Door::Open));
    }

    #[test]
    fn codel_sheds_on_truncated_whole_ms_delays() {
        // codel.md vector 2's standing queue, through the door: target 5, interval 100.
        let mut d = Door::Codel(Codel::new(&CodelConfig::new(5, 100).unwrap(), 0));
        let calls = [(0.0, 1.0), (10.0, 1.0), (111.0, 6.0), (130.0, 8.0), (150.0, 12.0), (200.0, 7.0)];
        for (now, delay) in calls {
            assert!(!d.sheds(now, now - delay));
        }
        assert!(!d.sheds(212.0, 212.0 - 9.0)); // boundary: overloaded from here, this call seeds
        assert!(d.sheds(220.0, 220.0 - 11.0));
        assert!(!d.sheds(240.0, 240.0 - 10.9)); // 10.9 ms truncates to 10, not > 10
        assert!(!Door::Open.sheds(1e9, 0.0));
    }
}
