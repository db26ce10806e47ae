//! A controller's whole state as plain numbers ([`LimiterState`],
//! [`CodelState`]): read it from a running controller, carry it elsewhere
//! (the live server's `/stats` to the load tool's model), and resume a
//! controller of the same config in it. A resumed controller answers every
//! later sample exactly as the one it was read from (its random draws
//! included: the stream skips the draws already made).

use serde::{Deserialize, Serialize};

use super::{Aimd, Algorithm, AnyLimiter, ControlError, Fixed, Gradient, Gradient2, LimiterConfig, Vegas};

/// Most random draws a resumed stream skips (one per probe: far more than
/// any run makes).
pub const MAX_RESUMED_DRAWS: u64 = 1_000_000;

/// `drawn` if a resumed stream may skip that many draws.
pub(crate) fn checked_draws(drawn: u64) -> Result<u64, ControlError> {
    if drawn <= MAX_RESUMED_DRAWS {
        Ok(drawn)
    } else {
        Err(ControlError::range("state draws", drawn, format!("a whole number from 0 to {MAX_RESUMED_DRAWS}")))
    }
}

/// A limiter's state (adaptive.md's "State" of each algorithm), by algorithm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "algorithm", rename_all = "lowercase")]
pub enum LimiterState {
    /// A constant limit: no state beyond its config.
    Fixed,
    /// AIMD: the limit.
    Aimd {
        /// The limit `L`.
        limit: i32,
    },
    /// Vegas: the estimate, the no-load RTT, the probe count and jitter.
    Vegas {
        /// `est`.
        estimate: f64,
        /// `rttNoLoad`, ns (0 = unset).
        rtt_noload_ns: i64,
        /// `probeCount`.
        probe_count: i32,
        /// The current probe jitter.
        jitter: f64,
        /// Jitter draws made so far.
        draws: u64,
    },
    /// Gradient2: the estimate and the long-RTT tracker.
    Gradient2 {
        /// `est`.
        estimate: f64,
        /// The long RTT (`avg`), ns.
        long_rtt_ns: f64,
        /// The warm-up sum, ns.
        long_rtt_sum_ns: f64,
        /// The warm-up count (stops at 10).
        long_rtt_count: i32,
    },
    /// Gradient: the estimate, the min-RTT tracker and the probe countdown.
    Gradient {
        /// `est`.
        estimate: f64,
        /// `minRtt`, ns (0 = empty).
        min_rtt_ns: f64,
        /// The probe countdown (-1: probing disabled).
        countdown: i32,
        /// Countdown offset draws made so far.
        draws: u64,
    },
}

impl LimiterState {
    /// The algorithm this is the state of.
    pub fn algorithm(&self) -> Algorithm {
        match self {
            LimiterState::Fixed => Algorithm::Fixed,
            LimiterState::Aimd { .. } => Algorithm::Aimd,
            LimiterState::Vegas { .. } => Algorithm::Vegas,
            LimiterState::Gradient2 { .. } => Algorithm::Gradient2,
            LimiterState::Gradient { .. } => Algorithm::Gradient,
        }
    }
}

impl AnyLimiter {
    /// Its whole state.
    pub fn state(&self) -> LimiterState {
        match self {
            AnyLimiter::Fixed(_) => LimiterState::Fixed,
            AnyLimiter::Aimd(l) => LimiterState::Aimd { limit: super::Limiter::limit(l) },
            AnyLimiter::Vegas(v) => LimiterState::Vegas {
                estimate: v.estimate(),
                rtt_noload_ns: v.rtt_noload_ns(),
                probe_count: v.probe_count(),
                jitter: v.probe_jitter(),
                draws: v.draws_made(),
            },
            AnyLimiter::Gradient2(g) => LimiterState::Gradient2 {
                estimate: g.estimate(),
                long_rtt_ns: g.long_rtt_ns(),
                long_rtt_sum_ns: g.long_rtt_sum_ns(),
                long_rtt_count: g.long_rtt_count(),
            },
            AnyLimiter::Gradient(g) => LimiterState::Gradient {
                estimate: g.estimate(),
                min_rtt_ns: g.min_rtt_ns(),
                countdown: g.probe_countdown(),
                draws: g.draws_made(),
            },
        }
    }
}

impl LimiterConfig {
    /// A limiter of this config in `state` (read from one of the same
    /// algorithm). Refused, naming the value: a state of another algorithm,
    /// or a value no sample sequence could reach (a negative or non-finite
    /// estimate or RTT, a warm-up count above 10, more than
    /// [`MAX_RESUMED_DRAWS`] draws).
    pub fn resume(&self, state: &LimiterState) -> Result<AnyLimiter, ControlError> {
        let s = state.clone();
        Ok(match (self, s) {
            (LimiterConfig::Fixed(c), LimiterState::Fixed) => AnyLimiter::Fixed(Fixed::new(c)),
            (LimiterConfig::Aimd(c), LimiterState::Aimd { limit }) => AnyLimiter::Aimd(Aimd::resume(c, limit)?),
            (LimiterConfig::Vegas(c), LimiterState::Vegas { estimate, rtt_noload_ns, probe_count, jitter, draws }) => {
                AnyLimiter::Vegas(Vegas::resume(c, (estimate, rtt_noload_ns, probe_count, jitter, draws))?)
            }
            (
                LimiterConfig::Gradient2(c),
                LimiterState::Gradient2 { estimate, long_rtt_ns, long_rtt_sum_ns, long_rtt_count },
            ) => AnyLimiter::Gradient2(Gradient2::resume(c, (estimate, long_rtt_ns, long_rtt_sum_ns, long_rtt_count))?),
            (LimiterConfig::Gradient(c), LimiterState::Gradient { estimate, min_rtt_ns, countdown, draws }) => {
                AnyLimiter::Gradient(Gradient::resume(c, (estimate, min_rtt_ns, countdown, draws))?)
            }
            (c, s) => {
                return Err(ControlError::range(
                    "state",
                    format!("a {} limiter's", s.algorithm().name()),
                    format!("the state of a {} limiter", c.algorithm().name()),
                ));
            }
        })
    }
}

/// CoDel's state (codel.md §3): the running minimum, the interval's end,
/// the reset flag and the overload flag. Times are ns on the clock the
/// controller was given (`now_ns`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodelState {
    /// Minimum queue delay since the last boundary, ns.
    pub min_delay_ns: i64,
    /// End of the current interval, ns.
    pub interval_end_ns: i64,
    /// The next call seeds the minimum (and is never shed).
    pub reset_delay: bool,
    /// The overload flag decided at the last boundary.
    pub overloaded: bool,
}

impl CodelState {
    /// The same state on a clock `by_ns` later than the one it was read on
    /// (a time `t` there is `t + by_ns` here), saturating.
    pub fn shifted(self, by_ns: i64) -> Self {
        CodelState { interval_end_ns: self.interval_end_ns.saturating_add(by_ns), ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{
        Algorithm, Codel, CodelConfig, Draws, GradientParams, Limiter, Sample, VegasConfig, VegasParams, limiter_config,
    };

    /// Samples that move every part of each state: rising and falling RTTs,
    /// app-limited ones, drops, probes.
    fn samples() -> Vec<Sample> {
        (0..3000_i64)
            .map(|i| Sample::new(1_000_000 * (10 + (i * 7919) % 90), ((i * 31) % 60) as i32, i % 13 == 0))
            .collect()
    }

    #[test]
    fn a_resumed_limiter_answers_every_later_sample_as_the_original() {
        let vegas = LimiterConfig::Vegas(
            VegasConfig::new(VegasParams { probe_multiplier: 2, ..VegasParams::default() }).unwrap(),
        );
        let gradient = LimiterConfig::Gradient(
            crate::control::GradientConfig::new(GradientParams { probe_interval: 40, ..GradientParams::default() })
                .unwrap(),
        );
        let mut configs = vec![vegas, gradient];
        for name in ["fixed", "aimd", "vegas", "gradient2", "gradient"] {
            configs.push(limiter_config(Algorithm::from_name(name).unwrap(), |_| None).unwrap());
        }
        let s = samples();
        for cfg in configs {
            for cut in [0, 5, 9, 10, 11, 400, 1777] {
                let mut a = cfg.build();
                for &x in &s[..cut] {
                    a.update(x);
                }
                let state = a.state();
                let text = serde_json::to_string(&state).unwrap();
                let back: LimiterState = serde_json::from_str(&text).unwrap();
                assert_eq!(back, state, "{text}");
                let mut b = cfg.resume(&back).unwrap();
                assert_eq!(b.limit(), a.limit());
                for (i, &x) in s[cut..].iter().enumerate() {
                    assert_eq!(a.update(x), b.update(x), "{:?} cut {cut} sample {i}", cfg.algorithm());
                }
                assert_eq!(a.state(), b.state());
            }
        }
    }

    #[test]
    fn a_state_no_samples_could_reach_is_refused_by_name() {
        let g2 = limiter_config(Algorithm::Gradient2, |_| None).unwrap();
        let bad = LimiterState::Gradient2 { estimate: -1.0, long_rtt_ns: 0.0, long_rtt_sum_ns: 0.0, long_rtt_count: 0 };
        assert!(g2.resume(&bad).unwrap_err().to_string().starts_with("state estimate: '-1.0' is not accepted"));
        let bad =
            LimiterState::Gradient2 { estimate: 20.0, long_rtt_ns: 0.0, long_rtt_sum_ns: 0.0, long_rtt_count: 11 };
        assert!(g2.resume(&bad).is_err());
        let aimd = limiter_config(Algorithm::Aimd, |_| None).unwrap();
        assert!(aimd.resume(&LimiterState::Aimd { limit: -1 }).unwrap_err().to_string().starts_with("state limit"));
        let e = g2.resume(&LimiterState::Aimd { limit: 20 }).unwrap_err().to_string();
        assert_eq!(e, "state: 'a aimd limiter's' is not accepted; expected the state of a gradient2 limiter");
        let vegas = LimiterConfig::Vegas(
            VegasConfig::new(VegasParams { jitter: Draws::seeded(3), ..VegasParams::default() }).unwrap(),
        );
        let bad = LimiterState::Vegas {
            estimate: 20.0,
            rtt_noload_ns: 0,
            probe_count: 0,
            jitter: 0.7,
            draws: MAX_RESUMED_DRAWS + 1,
        };
        assert!(vegas.resume(&bad).unwrap_err().to_string().starts_with("state draws"));
    }

    #[test]
    fn a_resumed_codel_sheds_as_the_original_on_a_shifted_clock() {
        let cfg = CodelConfig::new(5, 100).unwrap();
        let mut a = Codel::new(&cfg, 0);
        let calls: Vec<(i64, i64)> = (0..400).map(|i| (i * 3_100_000, ((i * 37) % 25) * 1_000_000)).collect();
        for &(now, d) in &calls[..150] {
            a.overloaded(now, d);
        }
        let shift = -7_000_000_000;
        let mut b = Codel::resume(&cfg, a.state().shifted(shift));
        for &(now, d) in &calls[150..] {
            assert_eq!(a.overloaded(now, d), b.overloaded(now + shift, d));
            assert_eq!(a.load(), b.load());
        }
        assert_eq!(a.state().shifted(shift), b.state());
    }
}
