//! The controller behind the door: the core's types, used unchanged.
//!
//! * `--limit N|off` ([`Ctl::Queue`]): at most N requests wait for a slot.
//! * `aimd`, `vegas`, `gradient2`, `gradient` ([`Ctl::Limiter`], the core's
//!   [`AnyLimiter`]): an arrival is refused when the requests in the system
//!   (in service + waiting) have reached the controller's current limit.
//!   Every completion is a [`Sample`]: round trip inside the server (arrival
//!   at the door to the end of the work, ns), requests in the system at its
//!   arrival (itself included, as the core's model counts), and dropped =
//!   slower than `--budget-ms` when one is given. A `--limit N` door is not
//!   fed samples (its limit never moves).
//! * `codel` ([`Ctl::Codel`], the core's [`Codel`]): asked when a worker slot
//!   takes a request off the line, with the time since the server started
//!   and the request's queue delay truncated to whole ms (fbthrift); when it
//!   says overloaded the request is shed (503 + `Retry-After`).

use bplab_core::control::{AnyLimiter, Codel, Limiter, Sample, truncate_to_whole_ms};

use crate::server::choice::DoorSpec;
use crate::stats::{CodelStats, DoorStats};

const NS_PER_MS: i64 = 1_000_000;

/// The door's controller.
#[derive(Debug)]
pub(crate) enum Ctl {
    Queue(Option<usize>),
    Limiter(AnyLimiter),
    Codel(Codel),
}

/// The controller and what it has been told.
#[derive(Debug)]
pub(crate) struct CtlState {
    ctl: Ctl,
    samples: u64,
    dropped: u64,
    shed: u64,
}

impl CtlState {
    /// A fresh controller for `door` (CoDel's first interval ends at 0 ns,
    /// the server's start).
    pub(crate) fn new(door: &DoorSpec) -> Self {
        let ctl = match door {
            DoorSpec::Queue(l) => Ctl::Queue(*l),
            DoorSpec::Limiter(c) => Ctl::Limiter(c.build()),
            DoorSpec::Codel(c) => Ctl::Codel(Codel::new(c, 0)),
        };
        CtlState { ctl, samples: 0, dropped: 0, shed: 0 }
    }

    /// Refuse an arrival that finds `in_system` requests inside (`queued`
    /// of them waiting) and a free slot or not.
    pub(crate) fn refuses(&self, in_system: u64, queued: u64, slot_free: bool) -> bool {
        match &self.ctl {
            Ctl::Queue(Some(limit)) => !slot_free && queued >= *limit as u64,
            Ctl::Limiter(l) => in_system >= u64::try_from(l.limit()).unwrap_or(0),
            Ctl::Queue(None) | Ctl::Codel(_) => false,
        }
    }

    /// A slot takes a request off the line at `now_ns` (since the server
    /// started) after it waited `delay_ns`: true = shed it (CoDel only).
    pub(crate) fn sheds(&mut self, now_ns: i64, delay_ns: i64) -> bool {
        let Ctl::Codel(c) = &mut self.ctl else { return false };
        let shed = c.overloaded(now_ns, truncate_to_whole_ms(delay_ns));
        self.shed += u64::from(shed);
        shed
    }

    /// A request finished its work `rtt_ns` after it reached the door, with
    /// `inflight` requests in the system at its arrival.
    pub(crate) fn complete(&mut self, rtt_ns: i64, inflight: i32, budget_ms: Option<u64>) {
        let Ctl::Limiter(l) = &mut self.ctl else { return };
        let dropped = budget_ms.is_some_and(|b| rtt_ns > i64::try_from(b).unwrap_or(i64::MAX / NS_PER_MS) * NS_PER_MS);
        l.update(Sample::new(rtt_ns.max(1), inflight, dropped));
        self.samples += 1;
        self.dropped += u64::from(dropped);
    }

    /// The door's part of `/stats` (`slowed` is filled by the caller).
    pub(crate) fn stats(&self, workers: usize) -> DoorStats {
        let (limit, limiter_state) = match &self.ctl {
            Ctl::Queue(Some(l)) => (i64::try_from(workers + l).ok(), None),
            Ctl::Limiter(l) => (Some(i64::from(l.limit())), Some(l.state())),
            Ctl::Queue(None) | Ctl::Codel(_) => (None, None),
        };
        let (codel, codel_state) = match &self.ctl {
            Ctl::Codel(c) => (
                Some(CodelStats {
                    target_ms: c.target_ms(),
                    interval_ms: c.interval_ms(),
                    overloaded: c.overload_flag(),
                    min_delay_ms: c.min_delay_ns() / NS_PER_MS,
                    load_pct: c.load(),
                }),
                Some(c.state()),
            ),
            _ => (None, None),
        };
        DoorStats {
            limit,
            samples: self.samples,
            dropped: self.dropped,
            shed: self.shed,
            codel,
            slowed: false,
            limiter_state,
            codel_state,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bplab_core::control::{AimdConfig, CodelConfig, LimiterConfig};

    #[test]
    fn limiter_refuses_at_its_limit_and_learns_from_budget_drops() {
        let mut s = CtlState::new(&DoorSpec::Limiter(LimiterConfig::Aimd(AimdConfig::default())));
        assert!(!s.refuses(19, 18, false));
        assert!(s.refuses(20, 0, true), "in the system, not waiting, counts");
        s.complete(300 * NS_PER_MS, 10, Some(250));
        assert_eq!(s.stats(1).limit, Some(20), "aimd: 20 x 0.9 = 18, floored at its min-limit 20");
        assert_eq!((s.stats(1).samples, s.stats(1).dropped), (1, 1));
    }

    #[test]
    fn codel_sheds_a_standing_queue_at_dequeue() {
        let mut s = CtlState::new(&DoorSpec::Codel(CodelConfig::new(5, 100).expect("valid")));
        let ms = |x: i64| x * NS_PER_MS;
        assert!(!s.sheds(ms(1), ms(30)), "the first call seeds the minimum");
        assert!(!s.sheds(ms(50), ms(20)), "a boundary: overloaded (min 30 > 5) from here, this call seeds");
        assert!(s.sheds(ms(60), ms(11) + 999_999), "over 2 x target (11.999 ms counts as 11) while overloaded");
        assert!(!s.sheds(ms(61), ms(10) + 999_999), "10.999 ms is 10, not over 2 x 5");
        assert_eq!(s.stats(1).shed, 1);
        assert!(s.stats(1).codel.expect("codel").overloaded);
        let q = CtlState::new(&DoorSpec::Queue(Some(10)));
        assert!(!q.refuses(11, 9, false) && q.refuses(11, 10, false) && !q.refuses(0, 10, true));
        assert_eq!(q.stats(2).limit, Some(12));
    }
}
