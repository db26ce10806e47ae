//! Post 4: four shedding policies for one overloaded server.

use serde::{Deserialize, Serialize};

use super::queue_loop::{Outcomes, QueueLoop};
use super::{DoorPolicy, Pick, pct};
use crate::numerics::{LatencyHistogram, percentile_of_values, round_clamp_ms, round_half_up};
use crate::statement::Req;

/// A shedding policy: which request is served next, whether the door is
/// bounded (at B in the system) and whether stale requests expire on dequeue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ShedPolicy {
    /// Oldest first, open door, no expiry.
    Fifo,
    /// Oldest first, bounded door, no expiry.
    TailDrop,
    /// Oldest first, open door, expire on dequeue.
    Expire,
    /// Newest first, open door, no expiry.
    Lifo,
}

impl ShedPolicy {
    /// All policies in CSV order.
    pub const ALL: [ShedPolicy; 4] = [ShedPolicy::Fifo, ShedPolicy::TailDrop, ShedPolicy::Expire, ShedPolicy::Lifo];

    /// CSV label.
    pub fn label(self) -> &'static str {
        match self {
            ShedPolicy::Fifo => "fifo",
            ShedPolicy::TailDrop => "tail-drop",
            ShedPolicy::Expire => "expire",
            ShedPolicy::Lifo => "lifo",
        }
    }
}

/// Settings of one shedding run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ShedSettings {
    /// Fixed service time, ms.
    pub service_ms: u32,
    /// Client deadline, ms.
    pub deadline_ms: u32,
    /// Run window, ms.
    pub duration_ms: u32,
    /// Door bound B, requests in the system.
    pub bound: u32,
}

/// What one policy run produced.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ShedOutcome {
    /// Policy.
    pub policy: ShedPolicy,
    /// Arrivals per second of the window.
    pub offered_rps: f64,
    /// Served within the deadline per second of the window.
    pub goodput_rps: f64,
    /// Shed, % of arrivals.
    pub shed_pct: f64,
    /// Served late, % of arrivals.
    pub served_late_pct: f64,
    /// p99 of served sojourns, ms.
    pub p99_served_ms: u64,
    /// p50 of shed waits, ms.
    pub shed_wait_p50_ms: u64,
    /// Served late, % of served.
    pub wasted_pct: f64,
    /// Arrivals.
    pub arrivals: u64,
    /// Served within the deadline.
    pub goodput: u64,
    /// Served after the deadline.
    pub late: u64,
    /// Shed (door, expiry, or still queued at the end).
    pub shed: u64,
    /// p99 of served sojourns per window of `window_ms` (if requested).
    pub window_p99_ms: Vec<u64>,
    /// Longest time in the system of a served request, rounded half-up as
    /// judged against the deadline, ms (not in the CSV).
    #[serde(default)]
    pub max_sojourn_ms: f64,
}

struct Tally {
    deadline_ms: f64,
    served: LatencyHistogram,
    shed_waits: LatencyHistogram,
    goodput: u64,
    late: u64,
    shed: u64,
    window_ms: f64,
    windows: Vec<Vec<u64>>,
    max_sojourn_ms: f64,
}

impl Outcomes for Tally {
    fn shed(&mut self, _i: usize, wait_ms: f64) {
        self.shed += 1;
        self.shed_waits.record_ms(wait_ms);
    }

    fn served(&mut self, _i: usize, finish_ms: f64, sojourn_ms: f64) {
        self.served.record_ms(sojourn_ms);
        self.max_sojourn_ms = self.max_sojourn_ms.max(round_half_up(sojourn_ms));
        if round_half_up(sojourn_ms) <= self.deadline_ms {
            self.goodput += 1;
        } else {
            self.late += 1;
        }
        if !self.windows.is_empty() {
            let w = (finish_ms / self.window_ms).floor() as usize;
            if let Some(bucket) = self.windows.get_mut(w) {
                bucket.push(round_clamp_ms(sojourn_ms));
            }
        }
    }
}

/// Forwards every outcome to the tally and logs it as a request record.
struct Logged<'a, F> {
    tally: Tally,
    arrivals: &'a [f64],
    service_ms: f64,
    log: &'a mut F,
}

impl<F: FnMut(Req)> Outcomes for Logged<'_, F> {
    fn shed(&mut self, i: usize, wait_ms: f64) {
        self.tally.shed(i, wait_ms);
        let t = self.arrivals.get(i).copied().unwrap_or(0.0);
        (self.log)(Req::dropped(t, self.tally.deadline_ms, 0));
    }

    fn refused(&mut self, i: usize) {
        self.tally.refused(i);
        let t = self.arrivals.get(i).copied().unwrap_or(0.0);
        (self.log)(Req::refused(t, self.tally.deadline_ms, 0));
    }

    fn served(&mut self, i: usize, finish_ms: f64, sojourn_ms: f64) {
        self.tally.served(i, finish_ms, sojourn_ms);
        let t = self.arrivals.get(i).copied().unwrap_or(0.0);
        let start = finish_ms - self.service_ms;
        (self.log)(Req::answered(t, start, finish_ms, round_half_up(sojourn_ms), self.tally.deadline_ms));
    }
}

/// Runs `policy` over `arrivals`; with `windows > 0`, also the p99 of
/// served sojourns per `window_ms` window by finish time.
pub fn run(s: &ShedSettings, arrivals: &[f64], policy: ShedPolicy, window_ms: u32, windows: usize) -> ShedOutcome {
    run_logged(s, arrivals, policy, window_ms, windows, &mut |_| {})
}

/// [`run`], handing every request's record to `log` as the loop resolves it
/// (the statement checker's evidence; the outcome is the same).
pub fn run_logged(
    s: &ShedSettings,
    arrivals: &[f64],
    policy: ShedPolicy,
    window_ms: u32,
    windows: usize,
    log: &mut impl FnMut(Req),
) -> ShedOutcome {
    let (pick, door, expiry) = match policy {
        ShedPolicy::Fifo => (Pick::Oldest, DoorPolicy::Open, false),
        ShedPolicy::TailDrop => (Pick::Oldest, DoorPolicy::Bounded(s.bound as usize), false),
        ShedPolicy::Expire => (Pick::Oldest, DoorPolicy::Open, true),
        ShedPolicy::Lifo => (Pick::Newest, DoorPolicy::Open, false),
    };
    let lp = QueueLoop {
        arrivals,
        service_ms: f64::from(s.service_ms),
        deadline_ms: f64::from(s.deadline_ms),
        window_ms: f64::from(s.duration_ms),
        pick,
        expiry,
        door,
        critical: &[],
        drain_after: true,
    };
    let t = Tally {
        deadline_ms: f64::from(s.deadline_ms),
        served: LatencyHistogram::new(),
        shed_waits: LatencyHistogram::new(),
        goodput: 0,
        late: 0,
        shed: 0,
        window_ms: f64::from(window_ms.max(1)),
        windows: vec![Vec::new(); windows],
        max_sojourn_ms: 0.0,
    };
    let mut logged = Logged { tally: t, arrivals, service_ms: f64::from(s.service_ms), log };
    lp.run(&mut logged);
    let mut t = logged.tally;
    let n = arrivals.len() as u64;
    let secs = f64::from(s.duration_ms) / 1000.0;
    ShedOutcome {
        policy,
        offered_rps: n as f64 / secs,
        goodput_rps: t.goodput as f64 / secs,
        shed_pct: pct(t.shed, n),
        served_late_pct: pct(t.late, n),
        p99_served_ms: t.served.value_at_percentile(99.0),
        shed_wait_p50_ms: t.shed_waits.value_at_percentile(50.0),
        wasted_pct: pct(t.late, t.goodput + t.late),
        arrivals: n,
        goodput: t.goodput,
        late: t.late,
        shed: t.shed,
        window_p99_ms: t.windows.iter_mut().map(|v| percentile_of_values(v, 99.0)).collect(),
        max_sojourn_ms: t.max_sojourn_ms,
    }
}
