//! The event loop shared by shedding (Post 4) and priority protection
//! (Post 5): one server, a queue of waiting requests, a door that may bound
//! the number in the system, a pick rule and optional dequeue expiry.

use std::collections::VecDeque;

/// Which waiting request the server takes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The oldest (FIFO).
    Oldest,
    /// The newest (LIFO).
    Newest,
}

/// What the door does with an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoorPolicy {
    /// Everything is admitted.
    Open,
    /// Shed when `queue + (busy ? 1 : 0) >= bound`.
    Bounded(usize),
    /// As `Bounded`, but a critical arrival that finds the system full evicts
    /// the newest queued background request and joins at the back.
    Priority(usize),
}

/// Receives the outcome of every arrival, by index.
pub(crate) trait Outcomes {
    /// Shed: at the door (`wait_ms` = 0), by expiry, or left queued at the end.
    fn shed(&mut self, i: usize, wait_ms: f64);
    /// Shed at the door, never admitted: a shed with wait 0 unless the
    /// receiver tells the two apart (the statement log does).
    fn refused(&mut self, i: usize) {
        self.shed(i, 0.0);
    }
    /// Served, finishing at `finish_ms` after `sojourn_ms` in the system.
    fn served(&mut self, i: usize, finish_ms: f64, sojourn_ms: f64);
}

/// The loop's inputs.
pub(crate) struct QueueLoop<'a> {
    pub arrivals: &'a [f64],
    pub service_ms: f64,
    pub deadline_ms: f64,
    pub window_ms: f64,
    pub pick: Pick,
    pub expiry: bool,
    pub door: DoorPolicy,
    /// Class of each arrival, for `DoorPolicy::Priority`.
    pub critical: &'a [bool],
    /// After the loop, let remaining arrivals meet the door and shed the
    /// queue with wait `window − arrival` (Post 4); Post 5 skips this.
    pub drain_after: bool,
}

impl QueueLoop<'_> {
    fn admit(&self, q: &mut VecDeque<usize>, i: usize, busy: bool, out: &mut impl Outcomes) {
        let in_system = q.len() + usize::from(busy);
        let bound = match self.door {
            DoorPolicy::Open => usize::MAX,
            DoorPolicy::Bounded(b) | DoorPolicy::Priority(b) => b,
        };
        if in_system < bound {
            q.push_back(i);
            return;
        }
        if let DoorPolicy::Priority(_) = self.door
            && self.critical.get(i).copied().unwrap_or(false)
            && let Some(pos) = q.iter().rposition(|&j| !self.critical.get(j).copied().unwrap_or(false))
        {
            if let Some(evicted) = q.remove(pos) {
                out.shed(evicted, 0.0);
            }
            q.push_back(i);
            return;
        }
        out.refused(i);
    }

    /// Runs the loop, reporting every arrival's outcome to `out`. Arrivals
    /// neither served nor shed (Post 5 without the drain) are unresolved.
    pub fn run(&self, out: &mut impl Outcomes) {
        let arr = self.arrivals;
        let n = arr.len();
        let mut q: VecDeque<usize> = VecDeque::new();
        let (mut free, mut next) = (0.0f64, 0usize);
        while (next < n || !q.is_empty()) && free < self.window_ms {
            if q.is_empty() {
                let a = arr[next];
                self.admit(&mut q, next, free > a, out);
                free = free.max(a);
                next += 1;
                continue;
            }
            while next < n && arr[next] <= free {
                self.admit(&mut q, next, arr[next] < free, out);
                next += 1;
            }
            let taken = match self.pick {
                Pick::Oldest => q.pop_front(),
                Pick::Newest => q.pop_back(),
            };
            let Some(i) = taken else { continue };
            let wait = free - arr[i];
            if self.expiry && wait + self.service_ms > self.deadline_ms {
                out.shed(i, wait);
                continue;
            }
            let finish = free + self.service_ms;
            free = finish;
            out.served(i, finish, finish - arr[i]);
        }
        if self.drain_after {
            while next < n {
                self.admit(&mut q, next, arr[next] < free, out);
                next += 1;
            }
            for i in q.drain(..) {
                out.shed(i, self.window_ms - arr[i]);
            }
        }
    }
}
