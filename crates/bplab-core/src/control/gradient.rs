//! Gradient: minimum-latency gradient, the older algorithm (adaptive.md §5).
//! Periodic probes reset the limit to the queue size and forget the min RTT.

use super::draws::DrawStream;
use super::num::{
    LIMIT_MAX, LIMIT_MIN, RTT_TOLERANCE_MIN, SMOOTHING_MAX, SMOOTHING_MIN, at_least, closed, isqrt1, jmax, jmin, trunc,
    whole,
};
use super::state::checked_draws;
use super::{ControlError, Draws, Limiter, Sample};

/// Lowest accepted backoff ratio, inclusive.
pub const GRADIENT_BACKOFF_MIN: f64 = 0.5;
/// Highest accepted backoff ratio, inclusive.
pub const GRADIENT_BACKOFF_MAX: f64 = 1.0;
/// The probe interval that disables probing.
pub const PROBE_DISABLED: i32 = -1;
/// Smallest enabled probe interval, samples.
pub const PROBE_INTERVAL_MIN: i32 = 1;

/// Gradient settings as given; [`Default`] is the reference defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientParams {
    /// Limit before any sample. Default 50.
    pub initial_limit: i32,
    /// Floor of smoothed decreases and of the probe reset. Default 1.
    pub min_limit: i32,
    /// `maxConcurrency`: ceiling (the queue size wins over it). Default 1000.
    pub max_limit: i32,
    /// Weight of the new value on decreases only, in `[0, 1]`. Default 0.2.
    pub smoothing: f64,
    /// Constant queue size; `None` = `max(4, isqrt1(limit))`. Also the final floor.
    pub queue_size: Option<i32>,
    /// Latency rise tolerated over the min RTT before shrinking, `>= 1.0`. Default 2.0.
    pub rtt_tolerance: f64,
    /// Samples between probes (plus a random offset below it); `-1` disables. Default 1000.
    pub probe_interval: i32,
    /// Multiplier on a drop, in `[0.5, 1.0]`. Default 0.9.
    pub backoff_ratio: f64,
    /// Countdown offsets, each in `[0, probe_interval)`: one at construction, one per probe.
    pub offsets: Draws<i32>,
}

impl Default for GradientParams {
    fn default() -> Self {
        Self {
            initial_limit: 50,
            min_limit: 1,
            max_limit: 1000,
            smoothing: 0.2,
            queue_size: None,
            rtt_tolerance: 2.0,
            probe_interval: 1000,
            backoff_ratio: 0.9,
            offsets: Draws::default(),
        }
    }
}

/// Validated Gradient settings.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GradientConfig(GradientParams);

impl GradientConfig {
    /// Checks `p`: limits and queue size in `[0, 2³¹−1]`, smoothing in `[0, 1]`,
    /// tolerance a finite number `>= 1.0`, backoff in `[0.5, 1.0]`, probe interval
    /// `-1` or `>= 1`, given offsets in `[0, probe_interval)`.
    pub fn new(p: GradientParams) -> Result<Self, ControlError> {
        whole("initial-limit", p.initial_limit, LIMIT_MIN, LIMIT_MAX)?;
        whole("min-limit", p.min_limit, LIMIT_MIN, LIMIT_MAX)?;
        whole("max-limit", p.max_limit, LIMIT_MIN, LIMIT_MAX)?;
        closed("smoothing", p.smoothing, SMOOTHING_MIN, SMOOTHING_MAX)?;
        if let Some(q) = p.queue_size {
            whole("queue-size", q, LIMIT_MIN, LIMIT_MAX)?;
        }
        at_least("rtt-tolerance", p.rtt_tolerance, RTT_TOLERANCE_MIN)?;
        closed("backoff-ratio", p.backoff_ratio, GRADIENT_BACKOFF_MIN, GRADIENT_BACKOFF_MAX)?;
        if p.probe_interval != PROBE_DISABLED {
            if p.probe_interval < PROBE_INTERVAL_MIN {
                return Err(ControlError::range(
                    "probe-interval",
                    p.probe_interval,
                    format!(
                        "a whole number from {PROBE_INTERVAL_MIN} to {}, or {PROBE_DISABLED} to disable probing",
                        i32::MAX
                    ),
                ));
            }
            for &o in p.offsets.given() {
                whole("probe-offset", o, 0, p.probe_interval - 1)?;
            }
        }
        Ok(Self(p))
    }

    /// The settings.
    pub fn params(&self) -> &GradientParams {
        &self.0
    }
}

/// The Gradient limiter.
#[derive(Clone, Debug)]
pub struct Gradient {
    min: f64,
    max: f64,
    smoothing: f64,
    queue_size: Option<i32>,
    tolerance: f64,
    probe_interval: i32,
    backoff: f64,
    est: f64,
    min_rtt: f64,
    countdown: i32,
    draws: DrawStream<i32>,
}

impl Gradient {
    /// A limiter at the initial limit; draws the first countdown offset if probing.
    pub fn new(cfg: &GradientConfig) -> Self {
        let p = &cfg.0;
        let mut draws = DrawStream::new(&p.offsets);
        let probing = p.probe_interval != PROBE_DISABLED;
        let countdown =
            if probing { p.probe_interval.wrapping_add(draws.offset(p.probe_interval)) } else { PROBE_DISABLED };
        Self {
            min: f64::from(p.min_limit),
            max: f64::from(p.max_limit),
            smoothing: p.smoothing,
            queue_size: p.queue_size,
            tolerance: p.rtt_tolerance,
            probe_interval: p.probe_interval,
            backoff: p.backoff_ratio,
            est: f64::from(p.initial_limit),
            min_rtt: 0.0,
            countdown,
            draws,
        }
    }

    /// The estimate behind the limit (the limit is its truncation).
    pub fn estimate(&self) -> f64 {
        self.est
    }

    /// The minimum RTT since the last probe, ns (0 = empty).
    pub fn min_rtt_ns(&self) -> f64 {
        self.min_rtt
    }

    /// Samples left before the next probe fires (it fires on the sample that
    /// finds this at 0 or below); `-1` when probing is disabled.
    pub fn probe_countdown(&self) -> i32 {
        self.countdown
    }

    /// Countdown offset draws made so far (the one at construction included).
    pub fn draws_made(&self) -> u64 {
        self.draws.drawn()
    }

    /// A limiter of `cfg` in the state `(estimate, min RTT, countdown, draws
    /// made)`, as if it had got there by samples; its next offset is the
    /// draw after those.
    pub(crate) fn resume(cfg: &GradientConfig, s: (f64, f64, i32, u64)) -> Result<Self, ControlError> {
        let (est, min_rtt, countdown, drawn) = s;
        let mut g = Self::new(cfg);
        g.est = closed("state estimate", est, f64::from(LIMIT_MIN), f64::from(LIMIT_MAX))?;
        g.min_rtt = at_least("state min-rtt-ns", min_rtt, 0.0)?;
        g.countdown = whole("state countdown", countdown, PROBE_DISABLED, LIMIT_MAX)?;
        g.draws = DrawStream::after(&cfg.0.offsets, checked_draws(drawn)?);
        Ok(g)
    }
}

impl Limiter for Gradient {
    fn limit(&self) -> i32 {
        trunc(self.est)
    }

    fn update(&mut self, s: Sample) -> i32 {
        let est = self.est;
        let q = f64::from(self.queue_size.unwrap_or_else(|| isqrt1(trunc(est)).max(4)));
        if self.probe_interval != PROBE_DISABLED {
            let old = self.countdown;
            self.countdown = old.wrapping_sub(1);
            if old <= 0 {
                self.countdown = self.probe_interval.wrapping_add(self.draws.offset(self.probe_interval));
                self.est = jmax(self.min, q);
                self.min_rtt = 0.0;
                return trunc(self.est);
            }
        }
        let rtt = s.rtt_ns as f64;
        if self.min_rtt == 0.0 || rtt < self.min_rtt {
            self.min_rtt = rtt;
        }
        let m = self.min_rtt as i64;
        let n = if s.dropped {
            est * self.backoff
        } else if f64::from(s.inflight) < est / 2.0 {
            return trunc(est); // application-limited
        } else {
            est * jmax(0.5, jmin(1.0, (self.tolerance * m as f64) / rtt)) + q
        };
        let n = if n < est { jmax(self.min, est * (1.0 - self.smoothing) + self.smoothing * n) } else { n };
        self.est = jmax(q, jmin(self.max, n));
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
    /// min RTT and countdown after each.
    fn check(p: GradientParams, init_countdown: i32, rows: &[Row]) {
        let mut g = Gradient::new(&GradientConfig::new(p.clone()).unwrap());
        assert_eq!((g.limit(), g.probe_countdown()), (p.initial_limit, init_countdown));
        for (i, &((rtt, inflight, dropped), want)) in rows.iter().enumerate() {
            let got = g.update(Sample::new(ms(rtt), inflight, dropped == 1));
            assert_eq!((got, g.estimate(), g.min_rtt_ns(), g.probe_countdown()), want, "row {}", i + 1);
        }
    }

    #[test]
    fn gradient_1_defaults() {
        let p = GradientParams { offsets: Draws::list(vec![360], 0), ..GradientParams::default() };
        check(
            p,
            1360,
            &[
                ((10.0, 50, 0), (57, 57.0, 1.0E7, 1359)),
                ((10.0, 30, 0), (64, 64.0, 1.0E7, 1358)),
                ((10.0, 20, 0), (64, 64.0, 1.0E7, 1357)),
                ((40.0, 64, 0), (59, 59.2, 1.0E7, 1356)),
                ((10.0, 10, 1), (58, 58.016000000000005, 1.0E7, 1355)),
                ((5.0, 60, 0), (65, 65.016, 5000000.0, 1354)),
            ],
        );
    }

    #[test]
    fn gradient_2_probe() {
        let p = GradientParams { probe_interval: 3, offsets: Draws::list(vec![0, 1], 0), ..GradientParams::default() };
        check(
            p,
            3,
            &[
                ((10.0, 50, 0), (57, 57.0, 1.0E7, 2)),
                ((10.0, 50, 0), (64, 64.0, 1.0E7, 1)),
                ((10.0, 50, 0), (72, 72.0, 1.0E7, 0)),
                ((10.0, 50, 0), (8, 8.0, 0.0, 4)),
                ((20.0, 5, 0), (12, 12.0, 2.0E7, 3)),
                ((20.0, 60, 0), (16, 16.0, 2.0E7, 2)),
                ((10.0, 60, 0), (20, 20.0, 1.0E7, 1)),
                ((10.0, 60, 0), (24, 24.0, 1.0E7, 0)),
            ],
        );
    }

    #[test]
    fn gradient_3_floor_is_the_queue_size() {
        let p = GradientParams {
            initial_limit: 10,
            min_limit: 1,
            queue_size: Some(6),
            smoothing: 1.0,
            backoff_ratio: 0.5,
            probe_interval: -1,
            ..GradientParams::default()
        };
        check(
            p,
            -1,
            &[
                ((10.0, 10, 0), (16, 16.0, 1.0E7, -1)),
                ((10.0, 10, 1), (8, 8.0, 1.0E7, -1)),
                ((10.0, 10, 1), (6, 6.0, 1.0E7, -1)),
                ((10.0, 10, 1), (6, 6.0, 1.0E7, -1)),
                ((40.0, 12, 0), (9, 9.0, 1.0E7, -1)),
                ((40.0, 12, 0), (10, 10.5, 1.0E7, -1)),
            ],
        );
    }

    #[test]
    fn rejects_what_the_builder_rejects() {
        let with = |p: GradientParams| GradientConfig::new(p).map(|_| ()).map_err(|e| e.to_string());
        let d = GradientParams::default;
        assert!(with(GradientParams { backoff_ratio: 1.0, ..d() }).is_ok());
        assert!(with(GradientParams { backoff_ratio: 1.01, ..d() }).is_err());
        assert!(with(GradientParams { probe_interval: -1, ..d() }).is_ok());
        assert_eq!(
            with(GradientParams { probe_interval: 0, ..d() }).unwrap_err(),
            "probe-interval: '0' is not accepted; expected a whole number from 1 to 2147483647, or -1 to disable probing"
        );
        assert!(with(GradientParams { probe_interval: -2, ..d() }).is_err());
        assert_eq!(
            with(GradientParams { probe_interval: 3, offsets: Draws::list(vec![3], 0), ..d() }).unwrap_err(),
            "probe-offset: '3' is not accepted; expected a whole number from 0 to 2"
        );
        assert!(with(GradientParams { rtt_tolerance: 0.5, ..d() }).is_err());
    }
}
