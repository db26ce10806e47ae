//! One client policy on one trace: `workers` servers behind one FIFO line
//! of at most `line_limit` waiting requests, callers that give up after the
//! client timeout while the server still serves what it queued (wasted
//! work), and the client's retry rules (`docs/metastable.md`; the same rules
//! as the engine's client module in `docs/client.md`: capped exponential
//! backoff with full jitter, a token budget, SRE adaptive throttling,
//! Retry-After as a floor on the delay).
//!
//! Events run in (time, sequence) order from one heap; at equal times a
//! heap event (completion, give-up, retry send) runs before a first try.
//! Randomness: two ChaCha8 streams of the seed, apart from the arrival and
//! service streams ([`JITTER_STREAM`] one draw per jittered retry,
//! [`THROTTLE_STREAM`] one draw per try while throttling), so a policy never
//! moves an arrival or a service time (common random numbers).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::Serialize;

/// ChaCha8 stream of the backoff jitter draws.
pub const JITTER_STREAM: u64 = 12;
/// ChaCha8 stream of the throttle's draws.
pub const THROTTLE_STREAM: u64 = 13;

/// The wait before retry `k` (1 = the first retry).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Backoff {
    /// The same wait each time, ms.
    Fixed(f64),
    /// `U × min(cap, base × 2^(k−1))`, `U` uniform in `[0, 1)` (AWS "Full Jitter").
    FullJitter {
        /// First retry's ceiling, ms.
        base_ms: f64,
        /// Largest ceiling, ms.
        cap_ms: f64,
    },
}

/// A retry budget: `tokens = min(max, tokens + floor_rps × Δt / 1000)` as
/// the clock runs, `+ ratio` per on-time answer, `−1` per retry; a retry
/// without a whole token is not sent. Starts full.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Budget {
    /// Tokens per on-time answer.
    pub ratio: f64,
    /// Tokens per second from the clock.
    pub floor_rps: f64,
    /// Most tokens held (and the start).
    pub max_tokens: f64,
}

/// SRE adaptive throttling: reject a try locally with probability
/// `max(0, (requests − K × accepts) / (requests + 1))` over the last `window_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Throttle {
    /// K.
    pub k: f64,
    /// Counting window, ms.
    pub window_ms: f64,
}

/// What the callers do.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Client {
    /// Retries after a refusal or a give-up (a local rejection is final).
    pub retries: u32,
    /// The wait before each.
    pub backoff: Backoff,
    /// A retry budget, if any.
    pub budget: Option<Budget>,
    /// Adaptive throttling, if any.
    pub throttle: Option<Throttle>,
    /// Wait at least the refusal's Retry-After.
    pub honour_retry_after: bool,
}

/// The server and the traffic, shared by every policy.
#[derive(Clone, Copy, Debug)]
pub struct World<'a> {
    /// First tries' send times, ascending, ms.
    pub arrivals: &'a [f64],
    /// Base work of each first try, ms (a retry carries its caller's).
    pub work_ms: &'a [f64],
    /// Servers.
    pub workers: u32,
    /// Most requests waiting beyond the workers (`None`: unbounded).
    pub line_limit: Option<u32>,
    /// The caller gives up this long after sending, ms (an answer exactly then is on time).
    pub timeout_ms: f64,
    /// Requests starting in `[from, until)` take `factor` × their work.
    pub slowdown: Option<(f64, f64, f64)>,
    /// The Retry-After a refusal carries, ms.
    pub retry_after_ms: f64,
    /// Retries are sent only before this, ms; the timeline covers `[0, run_ms)`.
    pub run_ms: f64,
    /// Timeline window, ms.
    pub window_ms: f64,
    /// Seed of the client's streams.
    pub seed: u64,
}

/// One timeline window: counts by the time of the event named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Tick {
    /// First tries made (sent or rejected locally), by send time.
    pub first_tries: u64,
    /// Retries made (sent or rejected locally), by send time.
    pub retries: u64,
    /// Tries rejected locally by throttling, by send time.
    pub throttled: u64,
    /// Refused at the door (line full), by arrival time.
    pub refused: u64,
    /// Answers within the timeout (goodput), by completion time.
    pub ok: u64,
    /// Served after the caller left (wasted work), by completion time.
    pub late: u64,
    /// Most requests in the system (waiting + in service) after any event.
    pub in_flight_max: u64,
}

/// What one policy did, over the whole run (completions after the run's
/// end included: every admitted request is served).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// First tries.
    pub first_tries: u64,
    /// Retries made.
    pub retries: u64,
    /// Rejected locally.
    pub throttled: u64,
    /// Refused at the door.
    pub refused: u64,
    /// On time.
    pub ok: u64,
    /// Served for nobody.
    pub late: u64,
    /// Retries the budget did not allow.
    pub denied: u64,
}

impl Totals {
    /// Every try made.
    pub fn tries(&self) -> u64 {
        self.first_tries + self.retries
    }
}

#[derive(Clone, Copy, Debug)]
struct Try {
    sent: f64,
    work: f64,
    attempt: u32,
    prev_ms: f64,
    ends: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Complete,
    GiveUp,
    Send,
}

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

fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

fn stream(seed: u64, n: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(n);
    r
}

struct State<'a> {
    w: World<'a>,
    c: Client,
    tries: Vec<Try>,
    heap: BinaryHeap<Reverse<(T, u64, Ev, usize)>>,
    line: VecDeque<usize>,
    seq: u64,
    busy: u32,
    in_system: u64,
    ticks: Vec<Tick>,
    tot: Totals,
    jitter: ChaCha8Rng,
    throttle_rng: ChaCha8Rng,
    tokens: f64,
    tokens_at: f64,
    requests: VecDeque<f64>,
    accepts: VecDeque<f64>,
}

const NOT_STARTED: f64 = f64::INFINITY;

impl State<'_> {
    fn tick(&mut self, t: f64) -> Option<&mut Tick> {
        let i = (t / self.w.window_ms).floor();
        if i >= 0.0 { self.ticks.get_mut(i as usize) } else { None }
    }

    fn note(&mut self, t: f64) {
        let n = self.in_system;
        if let Some(k) = self.tick(t) {
            k.in_flight_max = k.in_flight_max.max(n);
        }
    }

    fn push(&mut self, t: f64, ev: Ev, i: usize) {
        self.seq += 1;
        self.heap.push(Reverse((T(t), self.seq, ev, i)));
    }

    fn refill(&mut self, now: f64, b: Budget) {
        self.tokens = b.max_tokens.min(self.tokens + (b.floor_rps * (now - self.tokens_at)) / 1000.0);
        self.tokens_at = now;
    }

    fn forget(&mut self, now: f64, th: Throttle) {
        let cut = now - th.window_ms;
        while self.requests.front().is_some_and(|&t| t <= cut) {
            self.requests.pop_front();
        }
        while self.accepts.front().is_some_and(|&t| t <= cut) {
            self.accepts.pop_front();
        }
    }

    /// A try leaves its caller at `t`.
    fn send(&mut self, t: f64, i: usize) {
        let first = self.tries.get(i).is_some_and(|q| q.attempt == 0);
        if let Some(k) = self.tick(t) {
            if first { k.first_tries += 1 } else { k.retries += 1 }
        }
        if first { self.tot.first_tries += 1 } else { self.tot.retries += 1 }
        if let Some(th) = self.c.throttle {
            self.forget(t, th);
            let (r, a) = (self.requests.len() as f64, self.accepts.len() as f64);
            let p = ((r - th.k * a) / (r + 1.0)).max(0.0);
            let u = unit(&mut self.throttle_rng);
            self.requests.push_back(t);
            if u < p {
                self.tot.throttled += 1;
                if let Some(k) = self.tick(t) {
                    k.throttled += 1;
                }
                return;
            }
        }
        self.arrive(t, i);
    }

    fn arrive(&mut self, t: f64, i: usize) {
        let waiting = self.line.len() as u64;
        let free = self.busy < self.w.workers;
        if !free && self.w.line_limit.is_some_and(|n| waiting >= u64::from(n)) {
            self.tot.refused += 1;
            if let Some(k) = self.tick(t) {
                k.refused += 1;
            }
            self.note(t);
            self.fail(t, i, Some(self.w.retry_after_ms));
            return;
        }
        self.in_system += 1;
        self.line.push_back(i);
        // Giving up matters only to a caller that may retry.
        if self.c.retries > 0 {
            let deadline = t + self.w.timeout_ms;
            self.push(deadline, Ev::GiveUp, i);
        }
        self.start(t);
        self.note(t);
    }

    fn start(&mut self, now: f64) {
        while self.busy < self.w.workers {
            let Some(i) = self.line.pop_front() else { return };
            let Some(q) = self.tries.get_mut(i) else { continue };
            let factor = match self.w.slowdown {
                Some((from, until, f)) if now >= from && now < until => f,
                _ => 1.0,
            };
            q.ends = now + q.work * factor;
            let ends = q.ends;
            self.busy += 1;
            self.push(ends, Ev::Complete, i);
        }
    }

    fn complete(&mut self, t: f64, i: usize) {
        self.busy = self.busy.saturating_sub(1);
        self.in_system = self.in_system.saturating_sub(1);
        let sent = self.tries.get(i).map_or(t, |q| q.sent);
        if t - sent <= self.w.timeout_ms {
            self.tot.ok += 1;
            if let Some(k) = self.tick(t) {
                k.ok += 1;
            }
            if let Some(b) = self.c.budget {
                self.refill(t, b);
                self.tokens = b.max_tokens.min(self.tokens + b.ratio);
            }
            if let Some(th) = self.c.throttle {
                self.forget(t, th);
                self.accepts.push_back(t);
            }
        } else {
            self.tot.late += 1;
            if let Some(k) = self.tick(t) {
                k.late += 1;
            }
        }
        self.start(t);
        self.note(t);
    }

    /// The caller stops waiting at `t` unless its answer comes by then.
    fn give_up(&mut self, t: f64, i: usize) {
        if self.tries.get(i).is_some_and(|q| q.ends <= t) {
            return;
        }
        self.fail(t, i, None);
    }

    /// Try `i` failed at `t` (a refusal carries `retry_after`): schedule the
    /// next one. Checks, in order: the count, the backoff draw, Retry-After,
    /// the run window, the budget.
    fn fail(&mut self, t: f64, i: usize, retry_after: Option<f64>) {
        let Some(q) = self.tries.get(i).copied() else { return };
        let k = q.attempt + 1;
        if k > self.c.retries {
            return;
        }
        let backoff = match self.c.backoff {
            Backoff::Fixed(ms) => ms,
            Backoff::FullJitter { base_ms, cap_ms } => {
                let ceiling = cap_ms.min(base_ms * f64::from(1u32 << (k - 1).min(30)));
                unit(&mut self.jitter) * ceiling
            }
        };
        let delay = match retry_after {
            Some(ra) if self.c.honour_retry_after => backoff.max(ra),
            _ => backoff,
        };
        let at = t + delay;
        if at >= self.w.run_ms {
            return;
        }
        if let Some(b) = self.c.budget {
            self.refill(t, b);
            if self.tokens < 1.0 {
                self.tot.denied += 1;
                return;
            }
            self.tokens -= 1.0;
        }
        self.tries.push(Try { sent: at, work: q.work, attempt: k, prev_ms: backoff, ends: NOT_STARTED });
        let j = self.tries.len() - 1;
        self.push(at, Ev::Send, j);
    }
}

/// Runs `client` on `world`: the timeline and the totals. Work is bounded
/// by the first tries × (1 + retries).
pub fn simulate(w: World<'_>, c: Client) -> (Vec<Tick>, Totals) {
    let n = (w.run_ms / w.window_ms).ceil().clamp(1.0, 1e6) as usize;
    let tries: Vec<Try> = w
        .arrivals
        .iter()
        .zip(w.work_ms)
        .map(|(&a, &s)| Try { sent: a, work: s, attempt: 0, prev_ms: 0.0, ends: NOT_STARTED })
        .collect();
    let first = tries.len();
    let mut st = State {
        w,
        c,
        tries,
        heap: BinaryHeap::new(),
        line: VecDeque::new(),
        seq: 0,
        busy: 0,
        in_system: 0,
        ticks: vec![Tick::default(); n],
        tot: Totals::default(),
        jitter: stream(w.seed, JITTER_STREAM),
        throttle_rng: stream(w.seed, THROTTLE_STREAM),
        tokens: c.budget.map_or(0.0, |b| b.max_tokens),
        tokens_at: 0.0,
        requests: VecDeque::new(),
        accepts: VecDeque::new(),
    };
    let mut next = 0usize;
    loop {
        let a = st.tries.get(next).filter(|_| next < first).map(|q| q.sent);
        let h = st.heap.peek().map(|Reverse((t, ..))| t.0);
        match (a, h) {
            (a, Some(th)) if a.is_none_or(|ta| th <= ta) => {
                let Some(Reverse((T(t), _, ev, i))) = st.heap.pop() else { break };
                match ev {
                    Ev::Complete => st.complete(t, i),
                    Ev::GiveUp => st.give_up(t, i),
                    Ev::Send => st.send(t, i),
                }
            }
            (Some(ta), _) => {
                next += 1;
                st.send(ta, next - 1);
            }
            _ => break,
        }
    }
    // `prev_ms` is kept for a decorrelated backoff; full jitter does not read it.
    debug_assert!(st.tries.iter().all(|q| q.prev_ms >= 0.0));
    (st.ticks, st.tot)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world<'a>(arrivals: &'a [f64], work: &'a [f64]) -> World<'a> {
        World {
            arrivals,
            work_ms: work,
            workers: 1,
            line_limit: Some(1),
            timeout_ms: 100.0,
            slowdown: None,
            retry_after_ms: 1000.0,
            run_ms: 10_000.0,
            window_ms: 1000.0,
            seed: 1,
        }
    }

    const NAIVE: Client =
        Client { retries: 2, backoff: Backoff::Fixed(10.0), budget: None, throttle: None, honour_retry_after: false };

    #[test]
    fn a_refused_caller_retries_after_the_backoff_and_every_try_ends_once() {
        // 0: served 0–50; 1: waits, served 50–100 (latency 99 <= 100: on time);
        // 2 at 2 ms: refused (1 waiting), retries at 12 and 22 (refused), then stops.
        let (ticks, t) = simulate(world(&[0.0, 1.0, 2.0], &[50.0, 50.0, 50.0]), NAIVE);
        assert_eq!((t.first_tries, t.retries, t.refused, t.ok, t.late), (3, 2, 3, 2, 0));
        assert_eq!(t.tries(), t.ok + t.late + t.refused + t.throttled);
        assert_eq!(ticks[0].in_flight_max, 2);
    }

    #[test]
    fn a_late_answer_is_wasted_and_its_caller_retries_from_the_timeout() {
        // 0: served 0–150 (late). The caller gives up at 100, retries at 110,
        // which waits until 150 and is served 150–300: latency 190, late again.
        let c = Client { retries: 1, ..NAIVE };
        let (_, t) = simulate(World { line_limit: None, ..world(&[0.0], &[150.0]) }, c);
        assert_eq!((t.retries, t.ok, t.late), (1, 0, 2));
    }

    #[test]
    fn honoured_retry_after_is_a_floor_and_the_budget_denies() {
        let ra = Client { honour_retry_after: true, ..NAIVE };
        let (ticks, t) = simulate(world(&[0.0, 1.0, 2.0], &[50.0; 3]), ra);
        // The refused caller's retry waits 1000 ms: at 1002 the line is empty.
        assert_eq!((ticks[0].retries, ticks[1].retries, t.retries, t.ok), (0, 1, 1, 3));
        let b = Client { budget: Some(Budget { ratio: 0.0, floor_rps: 0.0, max_tokens: 1.0 }), ..NAIVE };
        let (_, t) = simulate(world(&[0.0, 1.0, 2.0], &[50.0; 3]), b);
        assert_eq!((t.retries, t.denied), (1, 1));
    }

    #[test]
    fn throttling_rejects_locally_once_requests_pass_k_times_accepts() {
        // No accepts at all (every try refused): p = r / (r + 1) grows.
        let th = Client { retries: 0, throttle: Some(Throttle { k: 2.0, window_ms: 1e9 }), ..NAIVE };
        let arr: Vec<f64> = (0..200).map(|i| f64::from(i) * 0.5).collect();
        let (_, t) = simulate(World { line_limit: Some(0), ..world(&arr, &[1000.0; 200]) }, th);
        assert!(t.throttled > 150, "{t:?}");
        assert_eq!(t.tries(), t.ok + t.late + t.refused + t.throttled);
    }

    #[test]
    fn same_seed_same_run() {
        let c = Client { backoff: Backoff::FullJitter { base_ms: 50.0, cap_ms: 400.0 }, retries: 3, ..NAIVE };
        let arr: Vec<f64> = (0..300).map(|i| f64::from(i) * 7.0).collect();
        let a = simulate(world(&arr, &[30.0; 300]), c);
        assert_eq!(a, simulate(world(&arr, &[30.0; 300]), c));
    }
}
