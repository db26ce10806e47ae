//! AIMD: loss-based additive increase / multiplicative decrease
//! (adaptive.md §2). Integer limit, no RTT history.

use super::num::{LIMIT_MAX, LIMIT_MIN, half_open, trunc, whole};
use super::{ControlError, Limiter, Sample};

/// Lowest accepted backoff ratio, inclusive.
pub const AIMD_BACKOFF_MIN: f64 = 0.5;
/// Backoff ratio bound, exclusive.
pub const AIMD_BACKOFF_MAX: f64 = 1.0;

/// AIMD settings as given; [`Default`] is the reference defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimdParams {
    /// Limit before any sample (not clamped). Default 20.
    pub initial_limit: i32,
    /// Floor, applied on every sample. Default 20.
    pub min_limit: i32,
    /// Ceiling, applied on every sample (wins over `min_limit`). Default 200.
    pub max_limit: i32,
    /// Multiplier on a drop or timeout, in `[0.5, 1.0)`. Default 0.9.
    pub backoff_ratio: f64,
    /// An rtt strictly above this counts as a drop, ns, `> 0`. Default 5 s.
    pub timeout_ns: i64,
}

impl Default for AimdParams {
    fn default() -> Self {
        Self { initial_limit: 20, min_limit: 20, max_limit: 200, backoff_ratio: 0.9, timeout_ns: 5_000_000_000 }
    }
}

/// Validated AIMD settings.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct AimdConfig(AimdParams);

impl AimdConfig {
    /// Checks `p`: limits in `[0, 2³¹−1]`, backoff ratio in `[0.5, 1.0)`, timeout above 0.
    pub fn new(p: AimdParams) -> Result<Self, ControlError> {
        whole("initial-limit", p.initial_limit, LIMIT_MIN, LIMIT_MAX)?;
        whole("min-limit", p.min_limit, LIMIT_MIN, LIMIT_MAX)?;
        whole("max-limit", p.max_limit, LIMIT_MIN, LIMIT_MAX)?;
        half_open("backoff-ratio", p.backoff_ratio, AIMD_BACKOFF_MIN, AIMD_BACKOFF_MAX)?;
        if p.timeout_ns <= 0 {
            let ms = super::fmt_ns_as_ms(p.timeout_ns);
            return Err(ControlError::range("timeout-ms", ms, "a number of ms above 0"));
        }
        Ok(Self(p))
    }

    /// The settings.
    pub fn params(&self) -> &AimdParams {
        &self.0
    }
}

/// The AIMD limiter.
#[derive(Clone, Debug)]
pub struct Aimd {
    p: AimdParams,
    limit: i32,
}

impl Aimd {
    /// A limiter at the initial limit.
    pub fn new(cfg: &AimdConfig) -> Self {
        Self { p: cfg.0, limit: cfg.0.initial_limit }
    }

    /// A limiter of `cfg` holding `limit` (its whole state), as if it had got
    /// there by samples.
    pub(crate) fn resume(cfg: &AimdConfig, limit: i32) -> Result<Self, ControlError> {
        Ok(Self { p: cfg.0, limit: whole("state limit", limit, LIMIT_MIN, LIMIT_MAX)? })
    }
}

impl Limiter for Aimd {
    fn limit(&self) -> i32 {
        self.limit
    }

    fn update(&mut self, s: Sample) -> i32 {
        let l = self.limit;
        let next = if s.dropped || s.rtt_ns > self.p.timeout_ns {
            trunc(f64::from(l) * self.p.backoff_ratio)
        } else if s.inflight.wrapping_mul(2) >= l {
            l.wrapping_add(1)
        } else {
            l
        };
        self.limit = self.p.max_limit.min(self.p.min_limit.max(next));
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::vectors::{ms, run};

    fn aimd(p: AimdParams) -> Aimd {
        Aimd::new(&AimdConfig::new(p).unwrap())
    }

    #[test]
    fn aimd_1_defaults() {
        let rows = [(10.0, 10, 0), (10.0, 10, 0), (10.0, 11, 0), (10.0, 5, 1), (10.0, 5, 0)];
        assert_eq!(run(&mut aimd(AimdParams::default()), 20, &rows), [21, 21, 22, 20, 20]);
    }

    #[test]
    fn aimd_2_timeout_is_strict() {
        let mut a = aimd(AimdParams::default());
        let s = |rtt_ns, inflight, dropped| Sample::new(rtt_ns, inflight, dropped);
        let got = [
            a.update(s(5_000_000_000, 50, false)),
            a.update(s(5_000_000_001, 50, false)),
            a.update(s(ms(1.0), 0, true)),
            a.update(s(ms(1.0), 10, false)),
        ];
        assert_eq!(got, [21, 20, 20, 21]);
    }

    #[test]
    fn aimd_3_clamp_halving_timeout() {
        let p = AimdParams {
            initial_limit: 100,
            min_limit: 1,
            max_limit: 102,
            backoff_ratio: 0.5,
            timeout_ns: 100_000_000,
        };
        let rows = [(1.0, 60, 0), (1.0, 60, 0), (1.0, 60, 0), (1.0, 60, 1), (1.0, 60, 1), (100.5, 0, 0)];
        assert_eq!(run(&mut aimd(p), 100, &rows), [101, 102, 102, 51, 25, 12]);
    }

    #[test]
    fn out_of_range_initial_limit_is_clamped_by_the_first_sample_and_max_wins() {
        let mut a = aimd(AimdParams { initial_limit: 500, ..AimdParams::default() });
        assert_eq!(a.limit(), 500);
        assert_eq!(a.update(Sample::new(1, 0, false)), 200);
        let mut b = aimd(AimdParams { min_limit: 50, max_limit: 30, ..AimdParams::default() });
        assert_eq!(b.update(Sample::new(1, 0, true)), 30);
    }

    #[test]
    fn rejects_what_the_builder_rejects() {
        let bad = AimdConfig::new(AimdParams { backoff_ratio: 1.5, ..AimdParams::default() }).unwrap_err();
        assert_eq!(
            bad.to_string(),
            "backoff-ratio: '1.5' is not accepted; expected a number from 0.5 (inclusive) to 1.0 (exclusive)"
        );
        assert!(AimdConfig::new(AimdParams { backoff_ratio: 1.0, ..AimdParams::default() }).is_err());
        assert!(AimdConfig::new(AimdParams { backoff_ratio: 0.5, ..AimdParams::default() }).is_ok());
        let t = AimdConfig::new(AimdParams { timeout_ns: 0, ..AimdParams::default() }).unwrap_err();
        assert_eq!(t.to_string(), "timeout-ms: '0' is not accepted; expected a number of ms above 0");
        assert!(AimdConfig::new(AimdParams { min_limit: -1, ..AimdParams::default() }).is_err());
    }
}
