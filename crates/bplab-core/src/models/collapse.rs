//! Post 1: an unbounded FIFO queue, a client deadline and optional retries.
//!
//! Events `(time, seq)` are processed in time order, ties by `seq`: first
//! attempts take seq `0..n` in time order and each scheduled retry the next.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use serde::Serialize;

use super::FifoServer;
use crate::arrivals::flat_multiplied;
use crate::numerics::LatencyHistogram;

/// Settings shared by every row of the collapse sweep.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CollapseSettings {
    /// Fixed service time, ms (>= 1).
    pub service_ms: u32,
    /// Client deadline, ms (>= service).
    pub deadline_ms: u32,
    /// Run window, ms (>= 1).
    pub duration_ms: u32,
    /// Occupancy at which an attempt is rejected (>= 1).
    pub queue_capacity: u32,
    /// Retries per request after the first attempt.
    pub max_retries: u32,
    /// Wait before a retry, ms.
    pub retry_backoff_ms: u32,
}

/// One collapse row: a mode at an offered rate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollapseRow {
    /// Whether timed-out attempts were retried.
    pub retry: bool,
    /// Offered rate of first attempts, rps.
    pub offered_rps: u32,
    /// Attempts processed (first + retries) per second of the window.
    pub effective_rps: f64,
    /// `min(offered, capacity)`.
    pub ideal_goodput_rps: f64,
    /// Attempts finished within the deadline per second of the window.
    pub goodput_rps: f64,
    /// Share of processed attempts that delivered nothing, %.
    pub wasted_pct: f64,
    /// Sojourn p50, ms.
    pub p50_ms: u64,
    /// Sojourn p99, ms.
    pub p99_ms: u64,
    /// Mean occupancy seen by arriving attempts.
    pub avg_queue_depth: f64,
    /// First attempts generated.
    pub arrivals: u64,
    /// Attempts processed (first + retries).
    pub processed: u64,
    /// Attempts served within the deadline.
    pub goodput: u64,
    /// Attempts served after the deadline.
    pub wasted: u64,
    /// Attempts rejected at a full queue.
    pub rejected: u64,
}

#[derive(Clone, Copy, Debug)]
struct Event {
    time_ms: f64,
    seq: u64,
    attempt: u32,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest event.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time_ms.total_cmp(&self.time_ms).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// Runs one row: flat multiplied arrivals at `offered_rps`, retries on or off.
pub fn run(s: &CollapseSettings, offered_rps: u32, retry: bool) -> CollapseRow {
    let service = f64::from(s.service_ms);
    let deadline = f64::from(s.deadline_ms);
    let window = f64::from(s.duration_ms);
    let first = flat_multiplied(offered_rps, s.duration_ms);
    let arrivals = first.len() as u64;
    // First attempts are already in (time, seq) order; only retries need the
    // heap. Merging the two by (time, seq) pops events in the same order as
    // one heap holding everything would.
    let mut retries: BinaryHeap<Event> = BinaryHeap::new();
    let mut next_first = 0usize;
    let mut next_seq = arrivals;
    let mut schedule = |retries: &mut BinaryHeap<Event>, at_ms: f64, attempt: u32| {
        if retry && attempt < s.max_retries && at_ms < window {
            retries.push(Event { time_ms: at_ms, seq: next_seq, attempt: attempt + 1 });
            next_seq += 1;
        }
    };

    let mut hist = LatencyHistogram::new();
    let mut server = FifoServer::new(s.service_ms, s.deadline_ms);
    let (mut processed, mut occ_sum) = (0u64, 0i64);
    let (mut goodput, mut wasted, mut rejected) = (0u64, 0u64, 0u64);
    loop {
        let head = first.get(next_first).map(|&t| Event { time_ms: t, seq: next_first as u64, attempt: 0 });
        // `Event`'s order is reversed: the greater event is the earlier one.
        let ev = match (head, retries.peek()) {
            (Some(h), Some(r)) if *r > h => retries.pop(),
            (Some(h), _) => {
                next_first += 1;
                Some(h)
            }
            (None, _) => retries.pop(),
        };
        let Some(ev) = ev else { break };
        processed += 1;
        let occ = server.occupancy_ahead(ev.time_ms);
        occ_sum += occ;
        if occ >= i64::from(s.queue_capacity) {
            rejected += 1;
            schedule(&mut retries, ev.time_ms + f64::from(s.retry_backoff_ms), ev.attempt);
            continue;
        }
        let done = server.serve(ev.time_ms, ev.time_ms);
        hist.record_ms(done.sojourn_ms);
        if done.on_time {
            goodput += 1;
        } else {
            wasted += 1;
            schedule(&mut retries, ev.time_ms + deadline + f64::from(s.retry_backoff_ms), ev.attempt);
        }
    }

    let secs = window / 1000.0;
    let capacity = 1000.0 / service;
    CollapseRow {
        retry,
        offered_rps,
        effective_rps: processed as f64 / secs,
        ideal_goodput_rps: f64::from(offered_rps).min(capacity),
        goodput_rps: goodput as f64 / secs,
        wasted_pct: super::pct(wasted + rejected, processed),
        p50_ms: hist.value_at_percentile(50.0),
        p99_ms: hist.value_at_percentile(99.0),
        avg_queue_depth: if processed == 0 { 0.0 } else { occ_sum as f64 / processed as f64 },
        arrivals,
        processed,
        goodput,
        wasted,
        rejected,
    }
}
