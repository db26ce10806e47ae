//! Post 3: a token bucket (policing) and a leaky bucket (shaping) in front
//! of the same FIFO server. Both gates release at a sustained `rate_rps`;
//! they differ in *when* an admitted request reaches the server.

use serde::{Deserialize, Serialize};

use super::{FifoServer, pct};
use crate::numerics::LatencyHistogram;

/// Which gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GateKind {
    /// Banks up to `burst` tokens; releases at arrival time.
    TokenBucket,
    /// Queues up to `burst` pending requests; releases one per interval.
    LeakyBucket,
}

impl GateKind {
    /// Both kinds, in CSV order.
    pub const ALL: [GateKind; 2] = [GateKind::TokenBucket, GateKind::LeakyBucket];

    /// CSV label.
    pub fn label(self) -> &'static str {
        match self {
            GateKind::TokenBucket => "token-bucket",
            GateKind::LeakyBucket => "leaky-bucket",
        }
    }
}

/// A fresh gate; `offer` returns the release time or `None` when rejected.
#[derive(Clone, Debug)]
pub enum Gate {
    /// Token bucket state.
    Token {
        /// Capacity in tokens.
        burst: f64,
        /// Tokens now.
        tokens: f64,
        /// Last refill time, ms.
        last_ms: f64,
        /// `rate / 1000`, computed once.
        per_ms: f64,
    },
    /// Leaky bucket state.
    Leaky {
        /// Pending requests allowed.
        queue: i64,
        /// `1000 / rate`, ms.
        interval_ms: f64,
        /// Next free release slot, ms.
        next_ms: f64,
    },
}

impl Gate {
    /// A fresh gate of `kind` with `rate_rps` and `burst`.
    pub fn new(kind: GateKind, rate_rps: f64, burst: u32) -> Self {
        match kind {
            GateKind::TokenBucket => Gate::Token {
                burst: f64::from(burst),
                tokens: f64::from(burst),
                last_ms: 0.0,
                per_ms: rate_rps / 1000.0,
            },
            GateKind::LeakyBucket => {
                Gate::Leaky { queue: i64::from(burst), interval_ms: 1000.0 / rate_rps, next_ms: 0.0 }
            }
        }
    }

    /// Offers an arrival at `t`; returns its release time, or `None`.
    #[inline]
    pub fn offer(&mut self, t: f64) -> Option<f64> {
        match self {
            Gate::Token { burst, tokens, last_ms, per_ms } => {
                // Exactly this order: (t - last) * per_ms.
                *tokens = burst.min(*tokens + (t - *last_ms) * *per_ms);
                *last_ms = t;
                if *tokens < 1.0 {
                    return None;
                }
                *tokens -= 1.0;
                Some(t)
            }
            Gate::Leaky { queue, interval_ms, next_ms } => {
                let pending = if *next_ms <= t { 0 } else { ((*next_ms - t) / *interval_ms).ceil() as i64 };
                if pending >= *queue {
                    return None;
                }
                let release = t.max(*next_ms);
                *next_ms = release + *interval_ms;
                Some(release)
            }
        }
    }
}

/// Settings of the gate + server pass.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ShapingSettings {
    /// Fixed service time, ms.
    pub service_ms: u32,
    /// Client deadline, ms.
    pub deadline_ms: u32,
    /// Window the rates are normalised by, ms.
    pub duration_ms: u32,
    /// Sustained release rate of both gates, rps.
    pub gate_rate_rps: f64,
}

/// One row of the burst sweep.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ShapingRow {
    /// Gate kind.
    pub gate: GateKind,
    /// Bucket size (tokens) or queue depth.
    pub burst: u32,
    /// Arrivals per second of the window.
    pub offered_rps: f64,
    /// On-time completions per second of the window.
    pub goodput_rps: f64,
    /// Rejected by the gate, % of arrivals.
    pub reject_pct: f64,
    /// Served after the deadline, % of arrivals.
    pub served_late_pct: f64,
    /// p99 of release − arrival, ms (where the leaky bucket makes callers wait).
    pub gate_delay_p99_ms: u64,
    /// p99 of service start − release, ms (where the token bucket makes them wait).
    pub server_wait_p99_ms: u64,
    /// Largest release count in any fixed 100 ms window × 10, rps.
    pub downstream_peak_rps: f64,
    /// Arrivals.
    pub arrivals: u64,
    /// Served within the deadline.
    pub goodput: u64,
    /// Served after the deadline.
    pub late: u64,
    /// Rejected at the gate.
    pub rejected: u64,
    /// Longest delay at the gate of a served request, ms (not in the CSV).
    #[serde(default)]
    pub max_gate_delay_ms: f64,
    /// Longest wait at the server of a served request, ms (not in the CSV).
    #[serde(default)]
    pub max_server_wait_ms: f64,
}

/// The largest number of releases in any fixed 100 ms window, including
/// windows at or past the run window's end. A gate's releases never go back
/// in time, so each window's releases are contiguous and one counter
/// suffices: no array is sized from a release time (a tiny gate rate puts
/// releases far past the window).
#[derive(Clone, Copy, Debug, Default)]
struct PeakCounter {
    window: f64,
    count: u64,
    peak: u64,
}

impl PeakCounter {
    fn add(&mut self, release_ms: f64) {
        let w = (release_ms / 100.0).floor();
        if self.count == 0 || w != self.window {
            self.window = w;
            self.count = 0;
        }
        self.count += 1;
        self.peak = self.peak.max(self.count);
    }

    fn max(&self) -> u64 {
        self.peak
    }
}

/// Runs a fresh gate then the FIFO server over `arrivals`.
pub fn run(s: &ShapingSettings, arrivals: &[f64], gate: GateKind, burst: u32) -> ShapingRow {
    run_logged(s, arrivals, gate, burst, &mut |_| {})
}

/// [`run`], handing every request's record to `log` as the model visits it
/// (the statement checker's evidence; the row is the same).
pub fn run_logged(
    s: &ShapingSettings,
    arrivals: &[f64],
    gate: GateKind,
    burst: u32,
    log: &mut impl FnMut(crate::statement::Req),
) -> ShapingRow {
    use crate::statement::Req;
    let deadline = f64::from(s.deadline_ms);
    let (mut max_gate, mut max_wait) = (0.0f64, 0.0f64);
    let mut server = FifoServer::new(s.service_ms, s.deadline_ms);
    let mut g = Gate::new(gate, s.gate_rate_rps, burst);
    let (mut gate_delay, mut server_wait) = (LatencyHistogram::new(), LatencyHistogram::new());
    let mut peak = PeakCounter::default();
    let (mut goodput, mut late, mut rejected) = (0u64, 0u64, 0u64);
    for &t in arrivals {
        let Some(release) = g.offer(t) else {
            rejected += 1;
            log(Req::refused(t, deadline, 0));
            continue;
        };
        peak.add(release);
        let done = server.serve(release, t);
        max_gate = max_gate.max(release - t);
        max_wait = max_wait.max(done.start_ms - release);
        log(Req {
            release_ms: Some(release),
            ..Req::answered(t, done.start_ms, done.start_ms + f64::from(s.service_ms), done.sojourn_ms, deadline)
        });
        gate_delay.record_ms(release - t);
        server_wait.record_ms(done.start_ms - release);
        if done.on_time {
            goodput += 1;
        } else {
            late += 1;
        }
    }
    let n = arrivals.len() as u64;
    let secs = f64::from(s.duration_ms) / 1000.0;
    ShapingRow {
        gate,
        burst,
        offered_rps: n as f64 / secs,
        goodput_rps: goodput as f64 / secs,
        reject_pct: pct(rejected, n),
        served_late_pct: pct(late, n),
        gate_delay_p99_ms: gate_delay.value_at_percentile(99.0),
        server_wait_p99_ms: server_wait.value_at_percentile(99.0),
        downstream_peak_rps: peak.max() as f64 * 10.0,
        arrivals: n,
        goodput,
        late,
        rejected,
        max_gate_delay_ms: max_gate,
        max_server_wait_ms: max_wait,
    }
}

/// Per-window rates for a timeline: adds `1000 / W` to window `floor(t / W)`
/// for each time whose window index is below `windows`.
pub fn window_rates(times: impl IntoIterator<Item = f64>, window_ms: u32, windows: usize) -> Vec<f64> {
    let w = f64::from(window_ms);
    let step = 1000.0 / w;
    let mut out = vec![0.0f64; windows];
    for t in times {
        let i = (t / w).floor();
        if i >= 0.0 && (i as usize) < windows {
            out[i as usize] += step;
        }
    }
    out
}

/// Release times of a fresh gate over `arrivals` (no server involved).
pub fn releases(arrivals: &[f64], gate: GateKind, rate_rps: f64, burst: u32) -> Vec<f64> {
    let mut g = Gate::new(gate, rate_rps, burst);
    arrivals.iter().filter_map(|&t| g.offer(t)).collect()
}
