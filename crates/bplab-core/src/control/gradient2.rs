//! Gradient2: average-latency gradient, the reference library's recommended
//! algorithm (adaptive.md §4). Ignores drops; O(1) long-RTT tracker.

use super::num::{
    LIMIT_MAX, LIMIT_MIN, RTT_TOLERANCE_MIN, SMOOTHING_MAX, SMOOTHING_MIN, at_least, closed, jmax, jmin, trunc, whole,
};
use super::{ControlError, Limiter, Sample};

/// Lowest accepted long window (samples), inclusive.
pub const LONG_WINDOW_MIN: i32 = 1;
/// Highest accepted long window, inclusive (`window + 1` must not wrap as a Java `int`).
pub const LONG_WINDOW_MAX: i32 = i32::MAX - 1;
/// Samples averaged plainly before the long RTT becomes an EMA.
pub const WARMUP_SAMPLES: i32 = 10;

/// Gradient2 settings as given; [`Default`] is the reference defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gradient2Params {
    /// Limit before any sample (clamped only by the first non-app-limited sample). Default 20.
    pub initial_limit: i32,
    /// Floor. Default 20.
    pub min_limit: i32,
    /// `maxConcurrency`: ceiling. Default 200.
    pub max_limit: i32,
    /// Weight of the new value on every change, in `[0, 1]`. Default 0.2.
    pub smoothing: f64,
    /// Constant queue size added per sample (the reference's function ≡ 4). Default 4.
    pub queue_size: i32,
    /// Samples of the long-RTT EMA (factor `2 / (window + 1)`). Default 600.
    pub long_window: i32,
    /// Latency rise tolerated before shrinking, `>= 1.0`. Default 1.5.
    pub rtt_tolerance: f64,
}

impl Default for Gradient2Params {
    fn default() -> Self {
        Self {
            initial_limit: 20,
            min_limit: 20,
            max_limit: 200,
            smoothing: 0.2,
            queue_size: 4,
            long_window: 600,
            rtt_tolerance: 1.5,
        }
    }
}

/// Validated Gradient2 settings.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Gradient2Config(Gradient2Params);

impl Gradient2Config {
    /// Checks `p`: limits and queue size in `[0, 2³¹−1]`, smoothing in `[0, 1]`,
    /// long window in `[1, 2³¹−2]`, tolerance a finite number `>= 1.0`.
    pub fn new(p: Gradient2Params) -> Result<Self, ControlError> {
        whole("initial-limit", p.initial_limit, LIMIT_MIN, LIMIT_MAX)?;
        whole("min-limit", p.min_limit, LIMIT_MIN, LIMIT_MAX)?;
        whole("max-limit", p.max_limit, LIMIT_MIN, LIMIT_MAX)?;
        closed("smoothing", p.smoothing, SMOOTHING_MIN, SMOOTHING_MAX)?;
        whole("queue-size", p.queue_size, LIMIT_MIN, LIMIT_MAX)?;
        whole("long-window", p.long_window, LONG_WINDOW_MIN, LONG_WINDOW_MAX)?;
        at_least("rtt-tolerance", p.rtt_tolerance, RTT_TOLERANCE_MIN)?;
        Ok(Self(p))
    }

    /// The settings.
    pub fn params(&self) -> &Gradient2Params {
        &self.0
    }
}

/// The Gradient2 limiter.
#[derive(Clone, Debug)]
pub struct Gradient2 {
    p: Gradient2Params,
    /// EMA factor `2 / (long_window + 1)`.
    factor: f64,
    est: f64,
    long_avg: f64,
    long_sum: f64,
    long_count: i32,
}

impl Gradient2 {
    /// A limiter at the initial limit with an empty long-RTT tracker.
    pub fn new(cfg: &Gradient2Config) -> Self {
        let p = cfg.0;
        let factor = 2.0 / f64::from(p.long_window.wrapping_add(1));
        Self { p, factor, est: f64::from(p.initial_limit), long_avg: 0.0, long_sum: 0.0, long_count: 0 }
    }

    /// The estimate behind the limit (the limit is its truncation).
    pub fn estimate(&self) -> f64 {
        self.est
    }

    /// The long-term RTT, ns (plain mean of the first 10 samples, then an EMA, with decay).
    pub fn long_rtt_ns(&self) -> f64 {
        self.long_avg
    }

    /// Samples in the warm-up mean (stops at 10).
    pub fn long_rtt_count(&self) -> i32 {
        self.long_count
    }

    /// The sum behind the warm-up mean, ns (frozen after the warm-up).
    pub fn long_rtt_sum_ns(&self) -> f64 {
        self.long_sum
    }

    /// A limiter of `cfg` in the state `(estimate, long RTT, its warm-up
    /// sum and count)`, as if it had got there by samples.
    pub(crate) fn resume(cfg: &Gradient2Config, s: (f64, f64, f64, i32)) -> Result<Self, ControlError> {
        let (est, long_avg, long_sum, long_count) = s;
        let mut g = Self::new(cfg);
        g.est = closed("state estimate", est, f64::from(LIMIT_MIN), f64::from(LIMIT_MAX))?;
        g.long_avg = at_least("state long-rtt-ns", long_avg, 0.0)?;
        g.long_sum = at_least("state long-rtt-sum-ns", long_sum, 0.0)?;
        g.long_count = whole("state long-rtt-count", long_count, 0, WARMUP_SAMPLES)?;
        Ok(g)
    }
}

impl Limiter for Gradient2 {
    fn limit(&self) -> i32 {
        trunc(self.est)
    }

    fn update(&mut self, s: Sample) -> i32 {
        let est = self.est;
        let q = f64::from(self.p.queue_size);
        let short = s.rtt_ns as f64;
        if self.long_count < WARMUP_SAMPLES {
            self.long_count += 1;
            self.long_sum += short;
            self.long_avg = self.long_sum / f64::from(self.long_count);
        } else {
            self.long_avg = self.long_avg * (1.0 - self.factor) + short * self.factor;
        }
        let long = self.long_avg;
        if long / short > 2.0 {
            self.long_avg *= 0.95;
        }
        if f64::from(s.inflight) < est / 2.0 {
            return trunc(est); // application-limited
        }
        let gradient = jmax(0.5, jmin(1.0, (self.p.rtt_tolerance * long) / short));
        let n = est * gradient + q;
        let n = est * (1.0 - self.p.smoothing) + n * self.p.smoothing;
        self.est = jmax(f64::from(self.p.min_limit), jmin(f64::from(self.p.max_limit), n));
        trunc(self.est)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::vectors::{In, ms};

    /// A sample and the state after it: `(limit, estimate, rtt state, counter)`.
    type Row = (In, (i32, f64, f64, i32));

    /// Feeds `(rtt_ms, inflight, dropped)` rows, checking limit, estimate,
    /// long RTT and warm-up count after each.
    fn check(p: Gradient2Params, rows: &[Row]) {
        let mut g = Gradient2::new(&Gradient2Config::new(p).unwrap());
        assert_eq!(g.limit(), p.initial_limit);
        for (i, &((rtt, inflight, dropped), want)) in rows.iter().enumerate() {
            let got = g.update(Sample::new(ms(rtt), inflight, dropped == 1));
            assert_eq!((got, g.estimate(), g.long_rtt_ns(), g.long_rtt_count()), want, "row {}", i + 1);
        }
    }

    #[test]
    fn gradient2_1_defaults() {
        check(
            Gradient2Params::default(),
            &[
                ((10.0, 20, 0), (20, 20.8, 1.0E7, 1)),
                ((10.0, 20, 0), (21, 21.6, 1.0E7, 2)),
                ((10.0, 20, 1), (22, 22.400000000000002, 1.0E7, 3)),
                ((10.0, 9, 0), (22, 22.400000000000002, 1.0E7, 4)),
                ((10.0, 11, 0), (22, 22.400000000000002, 1.0E7, 5)),
                ((40.0, 20, 0), (21, 21.240000000000002, 1.5E7, 6)),
                ((40.0, 20, 0), (20, 20.75042857142857, 1.857142857142857E7, 7)),
            ],
        );
    }

    #[test]
    fn gradient2_2_no_smoothing_warmup_mean() {
        let p = Gradient2Params {
            initial_limit: 50,
            min_limit: 1,
            smoothing: 1.0,
            queue_size: 2,
            rtt_tolerance: 1.0,
            ..Gradient2Params::default()
        };
        check(
            p,
            &[
                ((10.0, 50, 0), (52, 52.0, 1.0E7, 1)),
                ((20.0, 50, 0), (41, 41.0, 1.5E7, 2)),
                ((40.0, 50, 0), (25, 25.916666666666664, 2.3333333333333332E7, 3)),
                ((5.0, 50, 0), (27, 27.916666666666664, 1.78125E7, 4)),
                ((5.0, 50, 0), (29, 29.916666666666664, 1.52E7, 5)),
            ],
        );
    }

    #[test]
    fn gradient2_3_ema_and_decay() {
        let p = Gradient2Params { long_window: 3, min_limit: 1, smoothing: 1.0, ..Gradient2Params::default() };
        let mut rows: Vec<Row> = (1..=10).map(|c| ((100.0, 1, 0), (20, 20.0, 1.0E8, c))).collect();
        rows.extend([
            ((10.0, 1, 0), (20, 20.0, 5.225E7, 10)),
            ((10.0, 1, 0), (20, 20.0, 2.956875E7, 10)),
            ((10.0, 1, 0), (20, 20.0, 1.9784375E7, 10)),
            ((80.0, 20, 0), (22, 22.7095703125, 4.98921875E7, 10)),
            ((80.0, 20, 0), (26, 26.7095703125, 6.494609375E7, 10)),
            ((200.0, 20, 0), (30, 30.537236200141905, 1.32473046875E8, 10)),
            ((20.0, 20, 0), (34, 34.537236200141905, 7.2424697265625E7, 10)),
        ]);
        check(p, &rows);
    }

    #[test]
    fn rejects_tolerance_below_one_and_bad_window() {
        let e = Gradient2Config::new(Gradient2Params { rtt_tolerance: 0.9, ..Gradient2Params::default() });
        assert_eq!(
            e.unwrap_err().to_string(),
            "rtt-tolerance: '0.9' is not accepted; expected a finite number from 1.0 (inclusive) up"
        );
        assert!(Gradient2Config::new(Gradient2Params { long_window: 0, ..Gradient2Params::default() }).is_err());
        assert!(Gradient2Config::new(Gradient2Params { smoothing: 1.5, ..Gradient2Params::default() }).is_err());
    }
}
