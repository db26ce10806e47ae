//! Vegas: delay-based, TCP-Vegas-like queue estimate (adaptive.md §3).
//! No minimum limit (the floor is 1); probes re-seed the no-load RTT.

use super::draws::DrawStream;
use super::num::{LIMIT_MAX, LIMIT_MIN, SMOOTHING_MAX, SMOOTHING_MIN, closed, half_open, jmax, jmin, lg, trunc, whole};
use super::state::checked_draws;
use super::{ControlError, Draws, Limiter, Sample};

/// Lowest accepted given jitter, inclusive (the draws are uniform in `[0.5, 1)`).
pub const JITTER_MIN: f64 = 0.5;
/// Given jitter bound, exclusive.
pub const JITTER_MAX: f64 = 1.0;

/// Vegas settings as given; [`Default`] is the reference defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct VegasParams {
    /// Limit before any sample. Default 20.
    pub initial_limit: i32,
    /// `maxConcurrency`: ceiling, applied to the candidate before smoothing. Default 1000.
    pub max_limit: i32,
    /// Weight of the new candidate, in `[0, 1]`. Default 1.0.
    pub smoothing: f64,
    /// A probe fires once `jitter × probe_multiplier × est` samples have passed. Default 30.
    pub probe_multiplier: i32,
    /// Constant `alpha` (queue below it grows by one step); `None` = `3 × lg(limit)`.
    pub alpha: Option<i32>,
    /// Constant `beta` (queue above it shrinks, growth step when queue ≤ threshold);
    /// `None` = `6 × lg(limit)`.
    pub beta: Option<i32>,
    /// Constant threshold (queue at or below it grows by beta); `None` = `lg(limit)`.
    pub threshold: Option<i32>,
    /// Probe jitter draws, each in `[0.5, 1)`: one at construction, one per probe.
    pub jitter: Draws<f64>,
}

impl Default for VegasParams {
    fn default() -> Self {
        Self {
            initial_limit: 20,
            max_limit: 1000,
            smoothing: 1.0,
            probe_multiplier: 30,
            alpha: None,
            beta: None,
            threshold: None,
            jitter: Draws::default(),
        }
    }
}

/// Validated Vegas settings.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct VegasConfig(VegasParams);

impl VegasConfig {
    /// Checks `p`: limits in `[0, 2³¹−1]`, smoothing in `[0, 1]`, given jitters in `[0.5, 1)`.
    /// (The reference validates nothing; these bounds keep the estimate at or above 0.)
    pub fn new(p: VegasParams) -> Result<Self, ControlError> {
        whole("initial-limit", p.initial_limit, LIMIT_MIN, LIMIT_MAX)?;
        whole("max-limit", p.max_limit, LIMIT_MIN, LIMIT_MAX)?;
        closed("smoothing", p.smoothing, SMOOTHING_MIN, SMOOTHING_MAX)?;
        for &j in p.jitter.given() {
            half_open("jitter", j, JITTER_MIN, JITTER_MAX)?;
        }
        Ok(Self(p))
    }

    /// The settings.
    pub fn params(&self) -> &VegasParams {
        &self.0
    }
}

/// The Vegas limiter.
#[derive(Clone, Debug)]
pub struct Vegas {
    max: f64,
    smoothing: f64,
    multiplier: f64,
    alpha: Option<i32>,
    beta: Option<i32>,
    threshold: Option<i32>,
    est: f64,
    rtt_noload_ns: i64,
    probe_count: i32,
    jitter: f64,
    draws: DrawStream<f64>,
}

impl Vegas {
    /// A limiter at the initial limit; makes the first jitter draw.
    pub fn new(cfg: &VegasConfig) -> Self {
        let p = &cfg.0;
        let mut draws = DrawStream::new(&p.jitter);
        let jitter = draws.jitter();
        Self {
            max: f64::from(p.max_limit),
            smoothing: p.smoothing,
            multiplier: f64::from(p.probe_multiplier),
            alpha: p.alpha,
            beta: p.beta,
            threshold: p.threshold,
            est: f64::from(p.initial_limit),
            rtt_noload_ns: 0,
            probe_count: 0,
            jitter,
            draws,
        }
    }

    /// The estimate behind the limit (the limit is its truncation).
    pub fn estimate(&self) -> f64 {
        self.est
    }

    /// The no-load RTT, ns (0 = not yet seen).
    pub fn rtt_noload_ns(&self) -> i64 {
        self.rtt_noload_ns
    }

    /// Samples since the last probe.
    pub fn probe_count(&self) -> i32 {
        self.probe_count
    }

    /// The current probe jitter.
    pub fn probe_jitter(&self) -> f64 {
        self.jitter
    }

    /// Jitter draws made so far (the one at construction included).
    pub fn draws_made(&self) -> u64 {
        self.draws.drawn()
    }

    /// A limiter of `cfg` in the state `(estimate, no-load RTT, probe count,
    /// jitter, draws made)`, as if it had got there by samples; its next
    /// jitter is the draw after those.
    pub(crate) fn resume(cfg: &VegasConfig, s: (f64, i64, i32, f64, u64)) -> Result<Self, ControlError> {
        let (est, rtt_noload_ns, probe_count, jitter, drawn) = s;
        let mut v = Self::new(cfg);
        v.est = closed("state estimate", est, f64::from(LIMIT_MIN), f64::from(LIMIT_MAX))?;
        if rtt_noload_ns < 0 {
            return Err(ControlError::range("state rtt-noload-ns", rtt_noload_ns, "a whole number of ns from 0 up"));
        }
        v.rtt_noload_ns = rtt_noload_ns;
        v.probe_count = whole("state probe-count", probe_count, 0, LIMIT_MAX)?;
        v.jitter = half_open("state jitter", jitter, JITTER_MIN, JITTER_MAX)?;
        v.draws = DrawStream::after(&cfg.0.jitter, checked_draws(drawn)?);
        Ok(v)
    }
}

impl Limiter for Vegas {
    fn limit(&self) -> i32 {
        trunc(self.est)
    }

    fn update(&mut self, s: Sample) -> i32 {
        let est = self.est;
        if s.rtt_ns <= 0 {
            return trunc(est); // the reference throws; nothing changes
        }
        self.probe_count = self.probe_count.wrapping_add(1);
        if (self.jitter * self.multiplier) * est <= f64::from(self.probe_count) {
            self.jitter = self.draws.jitter();
            self.probe_count = 0;
            self.rtt_noload_ns = s.rtt_ns;
            return trunc(est);
        }
        if self.rtt_noload_ns == 0 || s.rtt_ns < self.rtt_noload_ns {
            self.rtt_noload_ns = s.rtt_ns;
            return trunc(est);
        }
        let queue = trunc(libm::ceil(est * (1.0 - self.rtt_noload_ns as f64 / s.rtt_ns as f64)));
        let n = trunc(est);
        let step = lg(n);
        let cand = if s.dropped {
            est - f64::from(step)
        } else if f64::from(s.inflight.wrapping_mul(2)) < est {
            return n; // application-limited
        } else {
            let beta = self.beta.unwrap_or_else(|| step.wrapping_mul(6));
            if queue <= self.threshold.unwrap_or(step) {
                est + f64::from(beta)
            } else if queue < self.alpha.unwrap_or_else(|| step.wrapping_mul(3)) {
                est + f64::from(step)
            } else if queue > beta {
                est - f64::from(step)
            } else {
                return n;
            }
        };
        let cand = jmax(1.0, jmin(self.max, cand));
        self.est = (1.0 - self.smoothing) * est + self.smoothing * cand;
        trunc(self.est)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::vectors::{ms, run};

    const J: f64 = 0.8654838936883285;

    fn vegas(p: VegasParams) -> Vegas {
        Vegas::new(&VegasConfig::new(p).unwrap())
    }

    #[test]
    fn vegas_1_defaults() {
        let mut v = vegas(VegasParams { jitter: Draws::list(vec![J], 0), ..VegasParams::default() });
        let rows = [
            (10.0, 20, 0),
            (10.0, 10, 0),
            (10.0, 12, 0),
            (20.0, 20, 0),
            (12.0, 20, 0),
            (10.5, 20, 0),
            (10.0, 20, 1),
            (5.0, 20, 1),
        ];
        assert_eq!(run(&mut v, 20, &rows), [20, 26, 26, 25, 25, 26, 25, 25]);
        assert_eq!((v.estimate(), v.rtt_noload_ns(), v.probe_count(), v.probe_jitter()), (25.0, ms(5.0), 8, J));
    }

    #[test]
    fn vegas_2_clamp_before_smoothing() {
        let p = VegasParams { initial_limit: 100, smoothing: 0.5, max_limit: 120, ..VegasParams::default() };
        let mut v = vegas(VegasParams { jitter: Draws::list(vec![J], 0), ..p });
        let rows = [(10.0, 100, 0), (10.0, 100, 0), (10.0, 100, 0), (10.0, 100, 0), (30.0, 100, 0), (30.0, 100, 1)];
        assert_eq!(run(&mut v, 100, &rows), [100, 106, 112, 116, 115, 114]);
        assert_eq!(v.estimate(), 114.0);
    }

    #[test]
    fn vegas_3_probing() {
        let p = VegasParams {
            initial_limit: 4,
            probe_multiplier: 1,
            jitter: Draws::list(vec![0.5, 0.75], 0),
            ..VegasParams::default()
        };
        let mut v = vegas(p);
        assert_eq!(v.probe_jitter(), 0.5);
        // (rtt_ms, inflight, dropped) -> (limit, rtt_noload_ms, probe_count, jitter)
        let rows: [(crate::control::vectors::In, (i32, f64, i32, f64)); 7] = [
            ((10.0, 1, 0), (4, 10.0, 1, 0.5)),
            ((30.0, 1, 0), (4, 30.0, 0, 0.75)),
            ((20.0, 1, 0), (4, 20.0, 1, 0.75)),
            ((40.0, 4, 0), (5, 20.0, 2, 0.75)),
            ((50.0, 4, 1), (4, 20.0, 3, 0.75)),
            ((50.0, 5, 0), (4, 50.0, 0, 0.75)),
            ((50.0, 5, 1), (3, 50.0, 1, 0.75)),
        ];
        for (i, ((rtt, inflight, dropped), (limit, noload, count, jitter))) in rows.into_iter().enumerate() {
            let got = v.update(Sample::new(ms(rtt), inflight, dropped == 1));
            assert_eq!(
                (got, v.rtt_noload_ns(), v.probe_count(), v.probe_jitter()),
                (limit, ms(noload), count, jitter),
                "row {}",
                i + 1
            );
        }
    }

    #[test]
    fn constant_thresholds_replace_the_lg_functions() {
        // queue 10 on the second sample: beta 20 holds (the default would shed one);
        // queue 0 on the third: threshold 0 grows by beta 20.
        let p = VegasParams { alpha: Some(2), beta: Some(20), threshold: Some(0), ..VegasParams::default() };
        let mut v = vegas(p);
        assert_eq!(run(&mut v, 20, &[(10.0, 20, 0), (20.0, 20, 0), (10.0, 20, 0)]), [20, 20, 40]);
    }

    #[test]
    fn non_positive_rtt_changes_nothing() {
        let mut v = vegas(VegasParams::default());
        assert_eq!(v.update(Sample::new(0, 100, true)), 20);
        assert_eq!((v.probe_count(), v.rtt_noload_ns()), (0, 0));
    }

    #[test]
    fn rejects_bad_jitter_and_smoothing() {
        let e = VegasConfig::new(VegasParams { jitter: Draws::list(vec![1.0], 0), ..VegasParams::default() });
        assert_eq!(
            e.unwrap_err().to_string(),
            "jitter: '1.0' is not accepted; expected a number from 0.5 (inclusive) to 1.0 (exclusive)"
        );
        assert!(VegasConfig::new(VegasParams { smoothing: f64::NAN, ..VegasParams::default() }).is_err());
    }
}
