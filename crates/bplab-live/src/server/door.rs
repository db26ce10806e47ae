//! The door: `workers` slots, a bounded (or unbounded) waiting line in front
//! of them, and the counters `/stats` reports.
//!
//! An arrival takes a free slot at once if there is one. Otherwise it joins
//! the line if fewer than `limit` requests are already waiting, and is
//! refused if not. The line is FIFO (tokio's semaphore is fair). With
//! `limit = None` the line is unbounded. Requests in service are not counted
//! against `limit`, so at most `workers + limit` requests are inside.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::server::ServeConfig;
use crate::stats::StatsSnapshot;

/// Shared server state: slots, the waiting count and cumulative counters.
#[derive(Debug)]
pub(crate) struct Door {
    cfg: ServeConfig,
    slots: Arc<Semaphore>,
    queued: AtomicU64,
    queued_peak: AtomicU64,
    arrived: AtomicU64,
    done: AtomicU64,
    refused: AtomicU64,
    started: Instant,
}

/// A held worker slot; releases on drop.
#[derive(Debug)]
pub(crate) struct Slot {
    _permit: OwnedSemaphorePermit,
}

/// Decrements the waiting count on drop, so a cancelled waiter is never
/// left counted.
struct Waiting<'a>(&'a AtomicU64);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Door {
    /// A door for this configuration.
    pub(crate) fn new(cfg: ServeConfig) -> Self {
        Door {
            cfg,
            slots: Arc::new(Semaphore::new(cfg.workers())),
            queued: AtomicU64::new(0),
            queued_peak: AtomicU64::new(0),
            arrived: AtomicU64::new(0),
            done: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// The configuration in force.
    pub(crate) fn config(&self) -> &ServeConfig {
        &self.cfg
    }

    /// Count an arrival and either return a slot (possibly after waiting in
    /// line) or `None` for a refusal (already counted).
    pub(crate) async fn enter(&self) -> Option<Slot> {
        self.arrived.fetch_add(1, Ordering::SeqCst);
        if let Ok(p) = self.slots.clone().try_acquire_owned() {
            return Some(Slot { _permit: p });
        }
        let joined = match self.cfg.limit() {
            None => Ok(self.queued.fetch_add(1, Ordering::SeqCst)),
            Some(limit) => {
                self.queued.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |q| (q < limit as u64).then_some(q + 1))
            }
        };
        let Ok(ahead) = joined else {
            self.refused.fetch_add(1, Ordering::SeqCst);
            return None;
        };
        self.queued_peak.fetch_max(ahead + 1, Ordering::SeqCst);
        let _waiting = Waiting(&self.queued);
        // The semaphore is never closed, so acquire only fails if it were.
        match self.slots.clone().acquire_owned().await {
            Ok(p) => Some(Slot { _permit: p }),
            Err(_) => {
                self.refused.fetch_add(1, Ordering::SeqCst);
                None
            }
        }
    }

    /// Restart the high-water mark of the waiting line from its current
    /// length.
    pub(crate) fn reset_peak(&self) {
        self.queued_peak.store(self.queued.load(Ordering::SeqCst), Ordering::SeqCst);
    }

    /// Count a finished piece of work.
    pub(crate) fn finished(&self) {
        self.done.fetch_add(1, Ordering::SeqCst);
    }

    /// Current counters.
    pub(crate) fn snapshot(&self) -> StatsSnapshot {
        let free = self.slots.available_permits();
        let in_service = self.cfg.workers().saturating_sub(free) as u64;
        StatsSnapshot {
            config: self.cfg.stats_config(),
            arrived: self.arrived.load(Ordering::SeqCst),
            done: self.done.load(Ordering::SeqCst),
            refused: self.refused.load(Ordering::SeqCst),
            in_service,
            queued: self.queued.load(Ordering::SeqCst),
            queued_peak: self.queued_peak.load(Ordering::SeqCst),
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
        let d = door(1, Some(0));
        let _held = d.enter().await.expect("slot");
        assert!(d.enter().await.is_none());
    }
}
