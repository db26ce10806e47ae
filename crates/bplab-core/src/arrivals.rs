//! Demand curves and arrival generators. Times are f64 ms from 0.

use serde::{Deserialize, Serialize};

/// One piece of a demand curve: a constant rate for a whole number of ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// Arrivals per second during the segment; > 0 and finite.
    pub rate_rps: f64,
    /// Segment length in ms; >= 1.
    pub duration_ms: u32,
}

/// Segments tiled in order from time 0 (0, 1, …, 0, 1, …) up to the window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// The repeating pattern; never empty once validated.
    pub segments: Vec<Segment>,
}

impl Curve {
    /// A flat curve: one segment lasting the whole window.
    pub fn flat(rate_rps: f64, window_ms: u32) -> Self {
        Self { segments: vec![Segment { rate_rps, duration_ms: window_ms.max(1) }] }
    }

    /// `[(valley_rps, valley_ms), (spike_rps, spike_ms)]`.
    pub fn bursty(valley_rps: f64, valley_ms: u32, spike_rps: f64, spike_ms: u32) -> Self {
        Self {
            segments: vec![
                Segment { rate_rps: valley_rps, duration_ms: valley_ms },
                Segment { rate_rps: spike_rps, duration_ms: spike_ms },
            ],
        }
    }

    /// Calls `f(start_ms, end_ms, segment)` for each tiled segment in the window.
    pub(crate) fn for_each_tile(&self, window_ms: u32, mut f: impl FnMut(u32, u32, &Segment)) {
        if self.segments.iter().all(|s| s.duration_ms == 0) {
            return;
        }
        let mut start = 0u32;
        while start < window_ms {
            for seg in &self.segments {
                if start >= window_ms {
                    break;
                }
                let end = start.saturating_add(seg.duration_ms).min(window_ms);
                f(start, end, seg);
                start = end;
            }
        }
    }

    /// Upper estimate of the arrivals in `window_ms` (rate × length + 1 per
    /// segment tile), computed without generating them.
    pub fn estimate_arrivals(&self, window_ms: u32) -> u64 {
        let cycle_ms: u64 = self.segments.iter().map(|s| u64::from(s.duration_ms)).sum();
        if cycle_ms == 0 {
            return 0;
        }
        let per_cycle: f64 = self.segments.iter().map(|s| s.rate_rps * f64::from(s.duration_ms) / 1000.0 + 1.0).sum();
        let cycles = u64::from(window_ms).div_ceil(cycle_ms);
        (per_cycle * cycles as f64).ceil().min(u64::MAX as f64) as u64
    }

    /// The arrival times: per segment, `t = start; while t < end { emit t; t += gap }`
    /// with `gap = 1000 / rate` (repeated addition, as the reference does).
    pub fn arrivals(&self, window_ms: u32) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.estimate_arrivals(window_ms).min(1 << 24) as usize);
        self.for_each_tile(window_ms, |start, end, seg| {
            if seg.rate_rps > 0.0 {
                let gap = 1000.0 / seg.rate_rps;
                let end = f64::from(end);
                let mut t = f64::from(start);
                while t < end {
                    out.push(t);
                    t += gap;
                }
            }
        });
        out
    }
}

/// The collapse model's generator for a whole-number rate: `t_k = k × (1000 / r)`
/// for k = 0, 1, … while `t_k < window` (multiplication, not addition).
pub fn flat_multiplied(rate_rps: u32, window_ms: u32) -> Vec<f64> {
    if rate_rps == 0 {
        return Vec::new();
    }
    let gap = 1000.0 / f64::from(rate_rps);
    let window = f64::from(window_ms);
    let mut out = Vec::new();
    let mut k = 0u64;
    loop {
        let t = k as f64 * gap;
        if t >= window {
            break;
        }
        out.push(t);
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_addition_drifts_differently_from_multiplication() {
        assert_eq!(Curve::flat(300.0, 5000).arrivals(5000).len(), 1501);
        assert_eq!(flat_multiplied(300, 5000).len(), 1500);
    }

    #[test]
    fn bursty_tiles_in_order() {
        let a = Curve::bursty(50.0, 200, 300.0, 100).arrivals(5000);
        assert_eq!(a.len(), 657); // 131.4 rps over 5 s, as Post 2 reports
        assert_eq!(a[0], 0.0);
        assert_eq!(a[1], 20.0);
        assert!(a.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn estimate_is_an_upper_bound() {
        for c in [Curve::bursty(50.0, 200, 300.0, 100), Curve::flat(123.4, 7000), Curve::bursty(0.5, 1, 999.0, 3)] {
            for w in [1, 999, 5000, 7777] {
                assert!(c.estimate_arrivals(w) >= c.arrivals(w).len() as u64);
            }
        }
    }
}
