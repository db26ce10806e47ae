//! The door: `workers` slots, a bounded (or unbounded) waiting line in front
//! of them, and the counters `/stats` reports.
//!
//! An arrival takes a free slot at once if there is one. Otherwise it joins
//! the line if fewer than `limit` requests are already waiting, and is
//! refused if not. The line is FIFO (tokio's semaphore is fair). With
//! `limit = None` the line is unbounded. Requests in service are not counted
//! against `limit`, so at most `workers + limit` requests are inside.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::server::ServeConfig;
use crate::stats::StatsSnapshot;

/// The counters that change together. They live under one mutex so that
/// every snapshot satisfies `arrived = done + refused + in_service + queued`
/// exactly (requests cancelled at shutdown excepted, see
/// [`crate::load::RateRow::lost`]): each transition (arrive and take a slot,
/// arrive and wait, arrive and be refused, leave the line for a slot, finish)
/// moves one request between these counters in one locked step.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    arrived: u64,
    done: u64,
    refused: u64,
    in_service: u64,
    queued: u64,
    queued_peak: u64,
}

/// Shared server state: slots, the waiting line's counters and cumulative
/// counters.
#[derive(Debug)]
pub(crate) struct Door {
    cfg: ServeConfig,
    slots: Arc<Semaphore>,
    counts: Mutex<Counts>,
    /// Connections closed to make room for new ones (not part of the
    /// identity above).
    shed: AtomicU64,
    started: Instant,
}

/// A held worker slot: counted in `in_service` until dropped, then counted
/// out (and into `done` if [`Slot::finish`] was called) before the permit is
/// released.
#[derive(Debug)]
pub(crate) struct Slot {
    door: Arc<Door>,
    finished: bool,
    _permit: OwnedSemaphorePermit,
}

impl Slot {
    /// The work is done: count it and release the slot in one step.
    pub(crate) fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut c = self.door.lock();
        c.in_service -= 1;
        if self.finished {
            c.done += 1;
        }
        // The permit is released after this, with the counters already right.
    }
}

/// A request counted in `queued`; counted out on drop, so a cancelled
/// waiter is never left counted.
struct Waiting<'a> {
    door: &'a Door,
    counted: bool,
}

impl Waiting<'_> {
    /// Leave the line: into service (`admitted`) or refused, in one step.
    fn leave(mut self, admitted: bool) {
        let mut c = self.door.lock();
        c.queued -= 1;
        if admitted {
            c.in_service += 1;
        } else {
            c.refused += 1;
        }
        self.counted = false;
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.counted {
            self.door.lock().queued -= 1;
        }
    }
}

impl Door {
    /// A door for this configuration.
    pub(crate) fn new(cfg: ServeConfig) -> Self {
        Door {
            cfg,
            slots: Arc::new(Semaphore::new(cfg.workers())),
            counts: Mutex::new(Counts::default()),
            shed: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// The counters; a panic while holding them cannot leave them torn (every
    /// update is a few additions), so a poisoned lock is used as is.
    fn lock(&self) -> MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The configuration in force.
    pub(crate) fn config(&self) -> &ServeConfig {
        &self.cfg
    }

    /// Count an arrival and either return a slot (possibly after waiting in
    /// line) or `None` for a refusal (already counted).
    pub(crate) async fn enter(self: &Arc<Self>) -> Option<Slot> {
        let waiting = {
            let mut c = self.lock();
            c.arrived += 1;
            // tokio's semaphore is fair: try_acquire never jumps the line.
            if let Ok(p) = self.slots.clone().try_acquire_owned() {
                c.in_service += 1;
                return Some(Slot { door: self.clone(), finished: false, _permit: p });
            }
            if self.cfg.limit().is_some_and(|limit| c.queued >= limit as u64) {
                c.refused += 1;
                return None;
            }
            c.queued += 1;
            c.queued_peak = c.queued_peak.max(c.queued);
            Waiting { door: self, counted: true }
        };
        // The semaphore is never closed, so acquire only fails if it were.
        match self.slots.clone().acquire_owned().await {
            Ok(p) => {
                waiting.leave(true);
                Some(Slot { door: self.clone(), finished: false, _permit: p })
            }
            Err(_) => {
                waiting.leave(false);
                None
            }
        }
    }

    /// Restart the high-water mark of the waiting line from its current
    /// length.
    pub(crate) fn reset_peak(&self) {
        let mut c = self.lock();
        c.queued_peak = c.queued;
    }

    /// Count a connection closed to make room for a new one.
    pub(crate) fn count_shed(&self) {
        self.shed.fetch_add(1, Ordering::Relaxed);
    }

    /// Current counters, all read under one lock (one consistent instant).
    pub(crate) fn snapshot(&self) -> StatsSnapshot {
        let c = *self.lock();
        StatsSnapshot {
            config: self.cfg.stats_config(),
            arrived: c.arrived,
            done: c.done,
            refused: c.refused,
            in_service: c.in_service,
            queued: c.queued,
            queued_peak: c.queued_peak,
            connections_shed: self.shed.load(Ordering::Relaxed),
            uptime_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::ServeSettings;
    use std::net::SocketAddr;

    fn door(workers: usize, limit: Option<usize>) -> Door {
        let addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let settings = ServeSettings {
            workers,
            spin_ms: 0,
            wait_ms: 0,
            limit,
            addr,
            max_connections: 10,
            header_read_timeout_ms: 1000,
        };
        let cfg = ServeConfig::new(settings).expect("valid");
        Door::new(cfg)
    }

    #[tokio::test]
    async fn refuses_beyond_limit_and_counts() {
        let d = Arc::new(door(1, Some(1)));
        let held = d.enter().await.expect("first gets a slot");
        let d2 = d.clone();
        let waiter = tokio::spawn(async move { d2.enter().await.is_some() });
        // Let the waiter join the line.
        while d.snapshot().queued == 0 {
            tokio::task::yield_now().await;
        }
        assert!(d.enter().await.is_none(), "third is refused");
        let s = d.snapshot();
        assert_eq!((s.arrived, s.refused, s.in_service, s.queued, s.queued_peak), (3, 1, 1, 1, 1));
        drop(held);
        assert!(waiter.await.expect("join"));
        let s = d.snapshot();
        assert_eq!((s.in_service, s.queued, s.queued_peak), (0, 0, 1));
        d.reset_peak();
        assert_eq!(d.snapshot().queued_peak, 0);
    }

    #[tokio::test]
    async fn limit_zero_refuses_when_busy() {
        let d = Arc::new(door(1, Some(0)));
        let _held = d.enter().await.expect("slot");
        assert!(d.enter().await.is_none());
    }
}
