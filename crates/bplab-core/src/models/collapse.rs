//! Post 1: an unbounded FIFO queue, a client deadline and optional retries.
//!
//! Events `(time, seq)` are processed in time order, ties by `seq`: first
//! attempts take seq `0..n` in time order and each scheduled retry the next.

use std::cmp::Ordering;
use std::collections::VecDeque;

use serde::Serialize;

use super::FifoServer;
use crate::arrivals::flat_multiplied;
use crate::numerics::LatencyHistogram;

/// Settings shared by every row of the collapse sweep.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
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

#[derive(Clone, Copy, Debug, PartialEq)]
struct Event {
    time_ms: f64,
    seq: u64,
    attempt: u32,
}

impl Event {
    /// Processing order: time, then seq.
    fn before(&self, o: &Event) -> bool {
        self.time_ms.total_cmp(&o.time_ms).then(self.seq.cmp(&o.seq)) == Ordering::Less
    }
}

/// Runs one row: flat multiplied arrivals at `offered_rps`, retries on or off.
///
/// Events are taken in (time, seq) order from three streams that are each
/// already in that order: the first attempts, the retries after a rejection
/// (scheduled `backoff` after the rejected attempt) and the retries after a
/// timeout (`deadline + backoff` after it). Events are processed in
/// nondecreasing time and each stream adds a constant offset and the next
/// seq, so a three-way merge yields exactly the order of one priority queue
/// holding every event, in linear time.
pub fn run(s: &CollapseSettings, offered_rps: u32, retry: bool) -> CollapseRow {
    run_logged(s, offered_rps, retry, &mut |_| {})
}

/// [`run`], handing every attempt's record to `log` as the model processes
/// it (the statement checker's evidence; the row is the same).
pub fn run_logged(
    s: &CollapseSettings,
    offered_rps: u32,
    retry: bool,
    log: &mut impl FnMut(crate::statement::Req),
) -> CollapseRow {
    use crate::statement::Req;
    let service = f64::from(s.service_ms);
    let deadline = f64::from(s.deadline_ms);
    let window = f64::from(s.duration_ms);
    let first = flat_multiplied(offered_rps, s.duration_ms);
    let arrivals = first.len() as u64;
    let mut streams: [VecDeque<Event>; 2] = [VecDeque::new(), VecDeque::new()];
    let mut next_first = 0usize;
    let mut next_seq = arrivals;
    let mut schedule = |stream: &mut VecDeque<Event>, at_ms: f64, attempt: u32| {
        if retry && attempt < s.max_retries && at_ms < window {
            stream.push_back(Event { time_ms: at_ms, seq: next_seq, attempt: attempt + 1 });
            next_seq += 1;
        }
    };

    let mut hist = LatencyHistogram::new();
    let mut server = FifoServer::new(s.service_ms, s.deadline_ms);
    let (mut processed, mut occ_sum) = (0u64, 0i64);
    let (mut goodput, mut wasted, mut rejected) = (0u64, 0u64, 0u64);
    loop {
        let head = first.get(next_first).map(|&t| Event { time_ms: t, seq: next_first as u64, attempt: 0 });
        // Index 0, 1: retry streams; 2: first attempts.
        let mut pick: Option<(usize, Event)> = head.map(|h| (2, h));
        for (i, stream) in streams.iter().enumerate() {
            if let Some(&e) = stream.front()
                && pick.is_none_or(|(_, p)| e.before(&p))
            {
                pick = Some((i, e));
            }
        }
        let Some((from, ev)) = pick else { break };
        match streams.get_mut(from) {
            Some(stream) => {
                stream.pop_front();
            }
            None => next_first += 1,
        }
        processed += 1;
        let occ = server.occupancy_ahead(ev.time_ms);
        occ_sum += occ;
        if occ >= i64::from(s.queue_capacity) {
            rejected += 1;
            log(Req::refused(ev.time_ms, deadline, ev.attempt));
            schedule(&mut streams[0], ev.time_ms + f64::from(s.retry_backoff_ms), ev.attempt);
            continue;
        }
        let done = server.serve(ev.time_ms, ev.time_ms);
        log(Req {
            attempt: ev.attempt,
            ..Req::answered(ev.time_ms, done.start_ms, done.start_ms + service, done.sojourn_ms, deadline)
        });
        hist.record_ms(done.sojourn_ms);
        if done.on_time {
            goodput += 1;
        } else {
            wasted += 1;
            schedule(&mut streams[1], ev.time_ms + deadline + f64::from(s.retry_backoff_ms), ev.attempt);
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

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use super::*;

    /// The rule as the spec states it: one min-heap of (time, seq) events.
    fn reference(s: &CollapseSettings, offered_rps: u32, retry: bool) -> (u64, u64, u64, u64, u64, i64) {
        #[derive(PartialEq)]
        struct Key(f64, u64);
        impl Eq for Key {}
        impl PartialOrd for Key {
            fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for Key {
            fn cmp(&self, o: &Self) -> Ordering {
                self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
            }
        }
        let (service, deadline, window) = (f64::from(s.service_ms), f64::from(s.deadline_ms), f64::from(s.duration_ms));
        let first = flat_multiplied(offered_rps, s.duration_ms);
        let mut heap: BinaryHeap<Reverse<(Key, u32)>> =
            first.iter().enumerate().map(|(i, &t)| Reverse((Key(t, i as u64), 0))).collect();
        let mut seq = first.len() as u64;
        let (mut busy, mut processed, mut occ_sum, mut good, mut wasted, mut rejected) = (0.0f64, 0, 0i64, 0, 0, 0);
        let mut hist = LatencyHistogram::new();
        while let Some(Reverse((Key(t, _), attempt))) = heap.pop() {
            processed += 1;
            let occ = super::super::occupancy_ahead(busy, t, service);
            occ_sum += occ;
            let again = if occ >= i64::from(s.queue_capacity) {
                rejected += 1;
                t + f64::from(s.retry_backoff_ms)
            } else {
                busy = busy.max(t) + service;
                let sojourn = service.max((busy - t).round());
                hist.record_ms(sojourn);
                if sojourn <= deadline {
                    good += 1;
                    continue;
                }
                wasted += 1;
                t + deadline + f64::from(s.retry_backoff_ms)
            };
            if retry && attempt < s.max_retries && again < window {
                heap.push(Reverse((Key(again, seq), attempt + 1)));
                seq += 1;
            }
        }
        (processed, good, wasted, rejected, hist.value_at_percentile(99.0), occ_sum)
    }

    #[test]
    fn three_way_merge_equals_one_priority_queue() {
        let mut checked = 0;
        for (service, deadline, cap, retries, backoff) in
            [(10, 200, 100_000, 3, 50), (7, 30, 5, 4, 0), (3, 3, 2, 2, 1), (20, 45, 1, 5, 7), (1, 900, 50, 10, 400)]
        {
            for rate in [37, 110, 260, 999] {
                let s = CollapseSettings {
                    service_ms: service,
                    deadline_ms: deadline,
                    duration_ms: 3000,
                    queue_capacity: cap,
                    max_retries: retries,
                    retry_backoff_ms: backoff,
                };
                let r = run(&s, rate, true);
                let got = (
                    r.processed,
                    r.goodput,
                    r.wasted,
                    r.rejected,
                    r.p99_ms,
                    (r.avg_queue_depth * r.processed as f64).round() as i64,
                );
                assert_eq!(got, reference(&s, rate, true), "{s:?} at {rate} rps");
                checked += 1;
            }
        }
        assert_eq!(checked, 20);
    }
}
