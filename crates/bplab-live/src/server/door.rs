//! The door: `workers` slots, a waiting line in front of them, the
//! controller that decides who may enter it ([`super::ctl`]), the settings
//! `POST /config` changes live, and the counters `/stats` reports.
//!
//! An arrival is first put to the controller (a `--limit N` door refuses when
//! no slot is free and N are already waiting; an adaptive limiter refuses
//! when the requests in the system have reached its current limit). If
//! admitted it takes a free slot at once if there is one, else waits in line.
//! The line is FIFO (tokio's semaphore is fair). Whenever a slot takes a
//! request (at once or from the line), a CoDel door may shed it instead.
//!
//! The deploy (`--slowdown-at`, `--slowdown-factor`) multiplies the spin and
//! wait of every request that takes its slot at or after that moment (time
//! since the server started), and before `--slowdown-for` after it if given. Fewer `workers` from `POST /config` take
//! effect as slots are released: a released slot is retired instead of
//! handed on until the count is down.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::server::ServeConfig;
use crate::server::change::ConfigChange;
use crate::server::ctl::CtlState;
use crate::stats::{Held, StatsSnapshot};

/// The counters that change together. They live under one mutex so that
/// every snapshot satisfies `arrived = done + refused + in_service + queued`
/// exactly (requests cancelled at shutdown excepted, see
/// [`crate::load::RateRow::lost`]): each transition (arrive and take a slot,
/// arrive and wait, arrive and be refused, leave the line for a slot or be
/// shed, finish) moves one request between these counters in one locked step.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    arrived: u64,
    done: u64,
    refused: u64,
    in_service: u64,
    queued: u64,
    queued_peak: u64,
}

/// Everything that changes, under one lock.
#[derive(Debug)]
struct State {
    c: Counts,
    ctl: CtlState,
    /// Slots wanted now (`POST /config`).
    workers: usize,
    /// Slots still to retire as they are released (after `workers` went down
    /// while they were busy).
    debt: usize,
    spin_ms: u64,
    wait_ms: u64,
    /// `POST /config` changes applied.
    epoch: u64,
    /// Every request in service or waiting, by the order it reached the
    /// door (the line is FIFO, so the waiting ones leave in key order).
    held: BTreeMap<u64, HeldAt>,
    /// The next key of `held`.
    next_key: u64,
}

/// What `/stats` `held` reports of one request, as instants.
#[derive(Debug, Clone, Copy)]
struct HeldAt {
    arrival: Instant,
    /// When it took its slot, and its spin + wait then.
    start: Option<(Instant, Duration)>,
    inflight: i32,
}

/// Why a request was turned away (answered 503 + `Retry-After`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// At the door: the limit (fixed or adaptive) was reached.
    Limit,
    /// CoDel shed it as a slot took it off the line.
    Shed,
}

/// Shared server state: slots, the waiting line's counters, the controller.
#[derive(Debug)]
pub(crate) struct Door {
    cfg: ServeConfig,
    slots: Arc<Semaphore>,
    state: Mutex<State>,
    /// Connections closed to make room for new ones (not part of the
    /// identity above).
    shed: AtomicU64,
    /// Requests answered 503 on connections over the cap.
    over_cap: AtomicU64,
    started: Instant,
}

/// A held worker slot: counted in `in_service` until dropped, then counted
/// out (into `done`, with a sample to the controller, if [`Slot::finish`]
/// was called) before the permit is released.
#[derive(Debug)]
pub(crate) struct Slot {
    door: Arc<Door>,
    /// Its key in the held requests.
    key: u64,
    finished: bool,
    arrival: Instant,
    inflight: i32,
    spin: Duration,
    wait: Duration,
    permit: Option<OwnedSemaphorePermit>,
}

impl Slot {
    /// CPU spin for this request (the deploy's factor applied).
    pub(crate) fn spin(&self) -> Duration {
        self.spin
    }

    /// Sleep for this request (the deploy's factor applied).
    pub(crate) fn wait(&self) -> Duration {
        self.wait
    }

    /// The work is done: count it, feed the controller and release the slot
    /// in one step.
    pub(crate) fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut g = self.door.lock();
        g.c.in_service -= 1;
        g.held.remove(&self.key);
        if self.finished {
            g.c.done += 1;
            g.ctl.complete(ns(self.arrival.elapsed()), self.inflight, self.door.cfg.budget_ms());
        }
        if let Some(p) = self.permit.take() {
            self.door.release(&mut g, p);
        }
    }
}

/// A request counted in `queued`; counted out on drop, so a cancelled
/// waiter is never left counted.
struct Waiting<'a> {
    door: &'a Door,
    key: u64,
    counted: bool,
}

impl Waiting<'_> {
    /// Leave the line (the caller holds the lock and counts where it goes;
    /// its held entry stays for the slot or is removed on a refusal).
    fn leave(mut self, g: &mut State) {
        g.c.queued -= 1;
        self.counted = false;
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.counted {
            let mut g = self.door.lock();
            g.c.queued -= 1;
            g.held.remove(&self.key);
        }
    }
}

fn ns(d: Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

fn scaled(ms: u64, factor: f64) -> Duration {
    Duration::from_secs_f64((ms as f64 * factor / 1000.0).clamp(0.0, 1e9))
}

impl Door {
    /// A door for this configuration.
    pub(crate) fn new(cfg: ServeConfig) -> Self {
        let state = State {
            c: Counts::default(),
            ctl: CtlState::new(cfg.door()),
            workers: cfg.workers(),
            debt: 0,
            spin_ms: cfg.spin_ms(),
            wait_ms: cfg.wait_ms(),
            epoch: 0,
            held: BTreeMap::new(),
            next_key: 0,
        };
        Door {
            slots: Arc::new(Semaphore::new(cfg.workers())),
            cfg,
            state: Mutex::new(state),
            shed: AtomicU64::new(0),
            over_cap: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// The state; a panic while holding it cannot leave it torn (every
    /// update is a few additions and an O(1) controller step), so a poisoned
    /// lock is used as is.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The configuration the server started with.
    pub(crate) fn config(&self) -> &ServeConfig {
        &self.cfg
    }

    /// Hand a slot back, or retire it while `workers` is being lowered.
    fn release(&self, g: &mut State, p: OwnedSemaphorePermit) {
        if g.debt > 0 {
            g.debt -= 1;
            p.forget();
        }
    }

    /// Count an arrival and return a slot (possibly after waiting in line)
    /// or why it was refused (already counted).
    pub(crate) async fn enter(self: &Arc<Self>) -> Result<Slot, Refusal> {
        let arrival = Instant::now();
        let (waiting, inflight) = {
            let mut g = self.lock();
            g.c.arrived += 1;
            let in_system = g.c.in_service + g.c.queued;
            // tokio's semaphore is fair: try_acquire never jumps the line.
            let free = self.slots.clone().try_acquire_owned().ok();
            if g.ctl.refuses(in_system, g.c.queued, free.is_some()) {
                g.c.refused += 1;
                return Err(Refusal::Limit);
            }
            let inflight = i32::try_from(in_system + 1).unwrap_or(i32::MAX);
            let key = g.next_key;
            g.next_key += 1;
            g.held.insert(key, HeldAt { arrival, start: None, inflight });
            if let Some(p) = free {
                return self.admit(&mut g, p, key, arrival, inflight);
            }
            g.c.queued += 1;
            g.c.queued_peak = g.c.queued_peak.max(g.c.queued);
            (Waiting { door: self, key, counted: true }, inflight)
        };
        // The semaphore is never closed, so acquire only fails if it were.
        let acquired = self.slots.clone().acquire_owned().await;
        let mut g = self.lock();
        let key = waiting.key;
        waiting.leave(&mut g);
        match acquired {
            Ok(p) => self.admit(&mut g, p, key, arrival, inflight),
            Err(_) => {
                g.c.refused += 1;
                g.held.remove(&key);
                Err(Refusal::Limit)
            }
        }
    }

    /// A slot takes the request: CoDel may shed it; otherwise it is in service.
    fn admit(
        self: &Arc<Self>,
        g: &mut State,
        p: OwnedSemaphorePermit,
        key: u64,
        arrival: Instant,
        inflight: i32,
    ) -> Result<Slot, Refusal> {
        let now = Instant::now();
        let since_start = now.duration_since(self.started);
        if g.ctl.sheds(ns(since_start), ns(now.duration_since(arrival))) {
            g.c.refused += 1;
            g.held.remove(&key);
            self.release(g, p);
            return Err(Refusal::Shed);
        }
        g.c.in_service += 1;
        let factor = self.factor_at(since_start);
        let (spin, wait) = (scaled(g.spin_ms, factor), scaled(g.wait_ms, factor));
        if let Some(h) = g.held.get_mut(&key) {
            h.start = Some((now, spin + wait));
        }
        Ok(Slot { door: self.clone(), key, finished: false, arrival, inflight, spin, wait, permit: Some(p) })
    }

    /// The deploy's multiplier for a request starting `since_start` after start.
    fn factor_at(&self, since_start: Duration) -> f64 {
        self.cfg.slowdown_factor_at(since_start)
    }

    /// Apply a `POST /config` change. More workers add slots at once; fewer
    /// retire free slots at once and busy ones as they are released.
    pub(crate) fn change(&self, ch: ConfigChange) {
        let mut g = self.lock();
        g.epoch += 1;
        g.spin_ms = ch.spin_ms.unwrap_or(g.spin_ms);
        g.wait_ms = ch.wait_ms.unwrap_or(g.wait_ms);
        let Some(new) = ch.workers else { return };
        let old = g.workers;
        if new > old {
            let cancel = (new - old).min(g.debt);
            g.debt -= cancel;
            self.slots.add_permits(new - old - cancel);
        } else {
            let retire = old - new;
            let now = self.slots.forget_permits(retire);
            g.debt += retire - now;
        }
        g.workers = new;
    }

    /// Restart the high-water mark of the waiting line from its current
    /// length.
    pub(crate) fn reset_peak(&self) {
        let mut g = self.lock();
        g.c.queued_peak = g.c.queued;
    }

    /// Count a connection closed to make room for a new one.
    pub(crate) fn count_shed(&self) {
        self.shed.fetch_add(1, Ordering::Relaxed);
    }

    /// Count a request answered 503 on a connection over the cap.
    pub(crate) fn count_over_cap(&self) {
        self.over_cap.fetch_add(1, Ordering::Relaxed);
    }

    /// Current counters and settings, all read under one lock (one
    /// consistent instant).
    pub(crate) fn snapshot(&self) -> StatsSnapshot {
        let g = self.lock();
        let c = g.c;
        let mut config = self.cfg.stats_config();
        (config.workers, config.spin_ms, config.wait_ms, config.config_epoch) =
            (g.workers, g.spin_ms, g.wait_ms, g.epoch);
        let mut door = g.ctl.stats(g.workers);
        let now = Instant::now();
        let uptime = now.duration_since(self.started);
        door.slowed = self.factor_at(uptime) != 1.0;
        let us = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        let held_as = |h: &HeldAt| Held {
            age_us: us(now.saturating_duration_since(h.arrival)),
            in_service_us: h.start.map(|(s, _)| us(now.saturating_duration_since(s))),
            work_us: h.start.map_or(0, |(_, w)| us(w)),
            inflight: h.inflight,
        };
        // In service first, then the line in the order it will leave.
        let serving = g.held.values().filter(|h| h.start.is_some());
        let held = serving.chain(g.held.values().filter(|h| h.start.is_none())).map(held_as).collect();
        StatsSnapshot {
            config,
            arrived: c.arrived,
            done: c.done,
            refused: c.refused,
            in_service: c.in_service,
            queued: c.queued,
            queued_peak: c.queued_peak,
            connections_shed: self.shed.load(Ordering::Relaxed),
            over_cap: self.over_cap.load(Ordering::Relaxed),
            uptime_ms: u64::try_from(uptime.as_millis()).unwrap_or(u64::MAX),
            door,
            held: Some(held),
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
            ..ServeSettings::DEFAULT
        };
        let cfg = ServeConfig::new(settings).expect("valid");
        Door::new(cfg)
    }

    #[tokio::test]
    async fn refuses_beyond_limit_and_counts() {
        let d = Arc::new(door(1, Some(1)));
        let held = d.enter().await.expect("first gets a slot");
        let d2 = d.clone();
        let waiter = tokio::spawn(async move { d2.enter().await.is_ok() });
        // Let the waiter join the line.
        while d.snapshot().queued == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(d.enter().await.err(), Some(Refusal::Limit), "third is refused");
        let s = d.snapshot();
        assert_eq!((s.arrived, s.refused, s.in_service, s.queued, s.queued_peak), (3, 1, 1, 1, 1));
        // /stats lists what it holds: the one in service, then the waiter.
        let h = s.held.expect("held requests");
        assert_eq!(h.len(), 2, "{h:?}");
        assert!(h[0].in_service_us.is_some_and(|us| us <= h[0].age_us) && h[0].inflight == 1, "{h:?}");
        assert!(h[1].in_service_us.is_none() && h[1].work_us == 0 && h[1].inflight == 2, "{h:?}");
        assert!(h[1].age_us <= h[0].age_us, "the waiter came later: {h:?}");
        drop(held);
        assert!(waiter.await.expect("join"));
        let s = d.snapshot();
        assert_eq!((s.in_service, s.queued, s.queued_peak), (0, 0, 1));
        assert_eq!(s.held, Some(Vec::new()), "every request left the held list");
        d.reset_peak();
        assert_eq!(d.snapshot().queued_peak, 0);
    }

    #[tokio::test]
    async fn limit_zero_refuses_when_busy() {
        let d = Arc::new(door(1, Some(0)));
        let _held = d.enter().await.expect("slot");
        assert!(d.enter().await.is_err());
    }

    #[tokio::test]
    async fn fewer_workers_retire_slots_as_they_are_released() {
        let d = Arc::new(door(2, None));
        let a = d.enter().await.expect("slot a");
        let b = d.enter().await.expect("slot b");
        d.change(ConfigChange { workers: Some(1), ..ConfigChange::default() });
        drop(a);
        assert_eq!(d.slots.available_permits(), 0, "the released slot was retired");
        drop(b);
        assert_eq!(d.slots.available_permits(), 1);
        d.change(ConfigChange { workers: Some(3), spin_ms: Some(7), wait_ms: None });
        assert_eq!(d.slots.available_permits(), 3);
        let s = d.snapshot();
        assert_eq!((s.config.workers, s.config.spin_ms, s.config.config_epoch), (3, 7, 2));
    }
}
