//! One controller on one trace: `workers` servers behind one FIFO line, a
//! door that is either a concurrency limiter (asked at each arrival, fed each
//! completion's sample) or request-queue CoDel (asked as a worker takes a
//! request off the line, as fbthrift does). Every controller sees the same
//! arrival times and the same base service-time draws (common random
//! numbers); a deploy multiplies the service time of every request that
//! starts at or after `slowdown_at_ms`.
//!
//! Event order: at equal times a completion is handled before an arrival
//! (a freed worker is free for the arrival), ties between completions by
//! start sequence; retries re-enter as arrivals in (time, sequence) order.
//! Callers give up after the client timeout, but the server still serves
//! what it started or queued (the work is wasted, as in the live server).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use serde::Serialize;

use crate::control::{AnyLimiter, Codel, Limiter, Sample};
use crate::numerics::percentile_of_values;

/// The door in front of the line.
#[derive(Clone, Debug)]
pub enum Door {
    /// A concurrency limit on requests in the system (waiting + in service).
    Limit(AnyLimiter),
    /// CoDel on queue delay, checked when a worker dequeues.
    Codel(Codel),
}

/// What to simulate.
#[derive(Clone, Copy, Debug)]
pub struct Trace<'a> {
    /// Arrival times, ascending, ms.
    pub arrivals: &'a [f64],
    /// Base service time of each arrival (same index), ms.
    pub service_ms: &'a [f64],
    /// Servers.
    pub workers: u32,
    /// The caller gives up after this long, ms.
    pub timeout_ms: f64,
    /// The deploy: service times of requests starting at or after this are multiplied.
    pub slowdown_at_ms: f64,
    /// The multiplier.
    pub slowdown_factor: f64,
    /// After the deploy every service takes exactly the client timeout (a
    /// stuck downstream), instead of the multiplied draw.
    pub stuck_after_slowdown: bool,
    /// Refused or abandoned callers retry this many times (0: none) ...
    pub retries: u32,
    /// ... this long after giving up or being refused, ms.
    pub retry_backoff_ms: f64,
    /// Run window (arrivals are in it; the timeline covers it), ms.
    pub window_ms: f64,
    /// Timeline window width, ms.
    pub bucket_ms: f64,
}

/// One timeline window of one controller.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Bucket {
    /// The limit at the end of the window (CoDel: the line length it allowed, i.e. none: -1).
    pub limit: i32,
    /// Most requests in the system during the window.
    pub in_flight_max: u32,
    /// Answers within the client timeout, by completion time.
    pub ok: u64,
    /// Refused at the door or shed by CoDel, by decision time.
    pub refused: u64,
    /// Served after the caller left, by completion time.
    pub wasted: u64,
    /// p99 of answered latency in the window, ms (None: no answers).
    pub p99_ms: Option<u64>,
}

/// What one controller did on the trace.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct SimOut {
    /// The timeline.
    pub buckets: Vec<Bucket>,
    /// Arrivals including retries.
    pub attempts: u64,
    /// Answered in time.
    pub ok: u64,
    /// Refused or shed.
    pub refused: u64,
    /// Served for nobody.
    pub wasted: u64,
    /// Still in the system when the events ran out (always 0: everything admitted is served).
    pub unresolved: u64,
    /// Answered latencies (ms, rounded) before the deploy, by completion time.
    pub before_ms: Vec<u64>,
    /// After the deploy.
    pub after_ms: Vec<u64>,
}

#[derive(Clone, Copy, Debug)]
struct Req {
    arrival: f64,
    base: f64,
    attempt: u32,
    inflight_at_arrival: i32,
}

/// `f64` with a total order for the heaps (times are finite).
#[derive(Clone, Copy, Debug, PartialEq)]
struct T(f64);
impl Eq for T {}
impl PartialOrd for T {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for T {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

struct State<'a> {
    tr: Trace<'a>,
    door: Door,
    reqs: Vec<Req>,
    line: VecDeque<usize>,
    done_at: BinaryHeap<Reverse<(T, u64, usize)>>,
    retry_at: BinaryHeap<Reverse<(T, u64, usize)>>,
    seq: u64,
    busy: u32,
    in_system: u32,
    buckets: Vec<Bucket>,
    lat: Vec<Vec<u64>>,
    out: SimOut,
}

fn ns(ms: f64) -> i64 {
    (ms * 1e6).clamp(1.0, 9.0e18) as i64
}

impl State<'_> {
    fn bucket(&mut self, t: f64) -> Option<usize> {
        let i = (t / self.tr.bucket_ms).floor();
        (i >= 0.0 && (i as usize) < self.buckets.len()).then_some(i as usize)
    }

    fn note_limit(&mut self, t: f64) {
        let limit = match &self.door {
            Door::Limit(l) => l.limit(),
            Door::Codel(_) => -1,
        };
        let in_system = self.in_system;
        if let Some(b) = self.bucket(t).and_then(|i| self.buckets.get_mut(i)) {
            b.limit = limit;
            b.in_flight_max = b.in_flight_max.max(in_system);
        }
    }

    fn refuse(&mut self, t: f64, r: usize) {
        self.out.refused += 1;
        if let Some(b) = self.bucket(t).and_then(|i| self.buckets.get_mut(i)) {
            b.refused += 1;
        }
        self.maybe_retry(t, r);
    }

    fn maybe_retry(&mut self, t: f64, r: usize) {
        let Some(&q) = self.reqs.get(r) else { return };
        let again = t + self.tr.retry_backoff_ms;
        if q.attempt < self.tr.retries && again < self.tr.window_ms {
            self.reqs.push(Req { arrival: again, attempt: q.attempt + 1, inflight_at_arrival: 0, ..q });
            self.seq += 1;
            self.retry_at.push(Reverse((T(again), self.seq, self.reqs.len() - 1)));
        }
    }

    fn arrive(&mut self, t: f64, r: usize) {
        self.out.attempts += 1;
        if let Door::Limit(l) = &self.door
            && i64::from(self.in_system) >= i64::from(l.limit())
        {
            self.refuse(t, r);
            self.note_limit(t);
            return;
        }
        self.in_system += 1;
        if let Some(q) = self.reqs.get_mut(r) {
            q.inflight_at_arrival = self.in_system.min(i32::MAX as u32) as i32;
        }
        self.line.push_back(r);
        self.start(t);
        self.note_limit(t);
    }

    fn start(&mut self, now: f64) {
        while self.busy < self.tr.workers {
            let Some(r) = self.line.pop_front() else { return };
            let Some(q) = self.reqs.get(r).copied() else { continue };
            if let Door::Codel(c) = &mut self.door {
                // fbthrift truncates the queue delay to whole ms.
                let delay_ms = (now - q.arrival).max(0.0).floor();
                if c.overloaded(ns(now), (delay_ms * 1e6) as i64) {
                    self.in_system -= 1;
                    self.refuse(now, r);
                    continue;
                }
            }
            let after = now >= self.tr.slowdown_at_ms;
            let service = match (after, self.tr.stuck_after_slowdown) {
                (true, true) => self.tr.timeout_ms,
                (true, false) => q.base * self.tr.slowdown_factor,
                (false, _) => q.base,
            };
            self.busy += 1;
            self.seq += 1;
            self.done_at.push(Reverse((T(now + service), self.seq, r)));
        }
    }

    fn complete(&mut self, t: f64, r: usize) {
        self.busy -= 1;
        self.in_system -= 1;
        let Some(q) = self.reqs.get(r).copied() else { return };
        let rtt = t - q.arrival;
        let late = rtt > self.tr.timeout_ms;
        if let Door::Limit(l) = &mut self.door {
            l.update(Sample::new(ns(rtt), q.inflight_at_arrival, late));
        }
        let i = self.bucket(t);
        if late {
            self.out.wasted += 1;
            if let Some(b) = i.and_then(|i| self.buckets.get_mut(i)) {
                b.wasted += 1;
            }
            // The caller gave up at arrival + timeout; it may retry from then.
            self.maybe_retry(q.arrival + self.tr.timeout_ms, r);
        } else {
            self.out.ok += 1;
            let ms = libm::round(rtt).max(0.0) as u64;
            if let Some(b) = i.and_then(|i| self.buckets.get_mut(i)) {
                b.ok += 1;
            }
            if let Some(v) = i.and_then(|i| self.lat.get_mut(i)) {
                v.push(ms);
            }
            if t < self.tr.slowdown_at_ms { self.out.before_ms.push(ms) } else { self.out.after_ms.push(ms) }
        }
        self.start(t);
        self.note_limit(t);
    }
}

/// Runs `door` over the trace. Work is bounded by the arrivals (× retries + 1).
pub fn simulate(tr: Trace<'_>, door: Door) -> SimOut {
    let n_buckets = (tr.window_ms / tr.bucket_ms).ceil().clamp(1.0, 1e6) as usize;
    let reqs: Vec<Req> = tr
        .arrivals
        .iter()
        .zip(tr.service_ms)
        .map(|(&a, &s)| Req { arrival: a, base: s, attempt: 0, inflight_at_arrival: 0 })
        .collect();
    let first = reqs.len();
    let mut st = State {
        tr,
        door,
        reqs,
        line: VecDeque::new(),
        done_at: BinaryHeap::new(),
        retry_at: BinaryHeap::new(),
        seq: 0,
        busy: 0,
        in_system: 0,
        buckets: vec![Bucket::default(); n_buckets],
        lat: vec![Vec::new(); n_buckets],
        out: SimOut {
            buckets: Vec::new(),
            attempts: 0,
            ok: 0,
            refused: 0,
            wasted: 0,
            unresolved: 0,
            before_ms: Vec::new(),
            after_ms: Vec::new(),
        },
    };
    let mut next = 0usize;
    loop {
        let a = (next < first).then(|| (st.reqs[next].arrival, next));
        let rt = st.retry_at.peek().map(|Reverse((t, _, r))| (t.0, *r));
        let arrival = match (a, rt) {
            (Some(x), Some(y)) => Some(if y.0 < x.0 { (y, true) } else { (x, false) }),
            (Some(x), None) => Some((x, false)),
            (None, Some(y)) => Some((y, true)),
            (None, None) => None,
        };
        let done = st.done_at.peek().map(|Reverse((t, _, r))| (t.0, *r));
        match (arrival, done) {
            (_, Some((td, r))) if arrival.is_none_or(|((ta, _), _)| td <= ta) => {
                st.done_at.pop();
                st.complete(td, r);
            }
            (Some(((ta, r), from_retry)), _) => {
                if from_retry {
                    st.retry_at.pop();
                } else {
                    next += 1;
                }
                st.arrive(ta, r);
            }
            _ => break,
        }
    }
    st.out.unresolved = u64::from(st.in_system) + st.line.len() as u64;
    // Carry the last known limit into windows without events.
    let mut last = st.buckets.first().map_or(0, |b| b.limit);
    for (b, lat) in st.buckets.iter_mut().zip(st.lat.iter_mut()) {
        if b.limit == 0 && b.ok == 0 && b.refused == 0 && b.wasted == 0 {
            b.limit = last;
        }
        last = b.limit;
        if !lat.is_empty() {
            b.p99_ms = Some(percentile_of_values(lat, 99.0));
        }
    }
    st.out.buckets = st.buckets;
    st.out
}
