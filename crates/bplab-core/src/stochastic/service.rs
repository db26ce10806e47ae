//! Service-time distributions: what one request costs a worker, in ms.
//!
//! Each distribution is sampled by its inverse CDF at one uniform draw from
//! the service stream ([`super::rng::SERVICE_STREAM`]), so the same draw
//! always maps to the same quantile: moving a slider changes every service
//! time smoothly instead of reshuffling them. Transcendentals are `libm`.

use rand_chacha::ChaCha8Rng;

use super::error::{StochasticError, check};
use super::normal::normal_quantile;
use super::rng::{open_unit, service_rng, unit_exp};
use super::traffic::MAX_MS;
use crate::numerics::format_fixed;

/// Largest accepted `p99 / p50` of a lognormal (σ ≤ 2.97).
pub const MAX_LOGNORMAL_SPREAD: f64 = 1000.0;
/// Largest accepted slowdown factor of a mix.
pub const MAX_MIX_FACTOR: f64 = 1e6;

/// How long one request holds a worker. Text form in [`super::GRAMMAR`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServiceTime {
    /// Every request takes exactly `ms` (`fixed:21`).
    Fixed {
        /// Service time, ms; `0 < ms <= 1e9`.
        ms: f64,
    },
    /// Exponential with mean `mean_ms` (`exp:21`), the M in M/M/c.
    Exp {
        /// Mean service time, ms; `0 < mean_ms <= 1e9`.
        mean_ms: f64,
    },
    /// Lognormal given by its median and 99th percentile
    /// (`lognormal:p50=20,p99=60`).
    LogNormal {
        /// Median, ms; `0 < p50_ms`.
        p50_ms: f64,
        /// 99th percentile, ms; `p50_ms <= p99_ms <= min(1e9, 1000 × p50_ms)`.
        p99_ms: f64,
    },
    /// `base_ms`, except `slow_pct` % of requests take `factor` times longer
    /// (`mix:20,5%x10`).
    Mix {
        /// The usual service time, ms; `0 < base_ms <= 1e9`.
        base_ms: f64,
        /// Share of slow requests, percent; `0 <= slow_pct <= 100`.
        slow_pct: f64,
        /// How many times longer a slow request takes; `1 <= factor <= 1e6`.
        factor: f64,
    },
}

const POSITIVE_MS: &str = "finite, > 0 and <= 1e9 ms";

fn positive_ms(param: &'static str, v: f64) -> Result<f64, StochasticError> {
    check(param, v, POSITIVE_MS, |v| v > 0.0 && v <= MAX_MS)
}

impl ServiceTime {
    /// Checks the ranges documented on each variant.
    pub fn validate(&self) -> Result<(), StochasticError> {
        match *self {
            Self::Fixed { ms } => positive_ms("fixed", ms).map(drop),
            Self::Exp { mean_ms } => positive_ms("exp", mean_ms).map(drop),
            Self::LogNormal { p50_ms, p99_ms } => {
                positive_ms("p50", p50_ms)?;
                positive_ms("p99", p99_ms)?;
                check("p99", p99_ms, "at least p50 and at most 1000 × p50", |v| {
                    v >= p50_ms && v <= MAX_LOGNORMAL_SPREAD * p50_ms
                })
                .map(drop)
            }
            Self::Mix { base_ms, slow_pct, factor } => {
                positive_ms("mix", base_ms)?;
                check("slow-pct", slow_pct, "from 0 to 100 percent", |p| (0.0..=100.0).contains(&p))?;
                check("factor", factor, "from 1 to 1e6", |f| (1.0..=MAX_MIX_FACTOR).contains(&f)).map(drop)
            }
        }
    }

    /// σ of the lognormal: `ln(p99 / p50) / z₀.₉₉`.
    fn sigma(p50_ms: f64, p99_ms: f64) -> f64 {
        libm::log(p99_ms / p50_ms) / normal_quantile(0.99)
    }

    /// The mean service time, ms (for a lognormal `p50 × exp(σ² / 2)`).
    pub fn mean_ms(&self) -> f64 {
        match *self {
            Self::Fixed { ms } => ms,
            Self::Exp { mean_ms } => mean_ms,
            Self::LogNormal { p50_ms, p99_ms } => {
                let s = Self::sigma(p50_ms, p99_ms);
                p50_ms * libm::exp(0.5 * s * s)
            }
            Self::Mix { base_ms, slow_pct, factor } => {
                let slow = slow_pct / 100.0;
                base_ms * (1.0 - slow) + base_ms * factor * slow
            }
        }
    }

    /// The `p`-quantile, ms, for `p` strictly inside `(0, 1)` (the inverse
    /// CDF every draw goes through). A mix answers `base × factor` when
    /// `p >= 1 - slow_pct / 100`.
    pub fn quantile_ms(&self, p: f64) -> f64 {
        match *self {
            Self::Fixed { ms } => ms,
            Self::Exp { mean_ms } => unit_exp(p) * mean_ms,
            Self::LogNormal { p50_ms, p99_ms } => p50_ms * libm::exp(Self::sigma(p50_ms, p99_ms) * normal_quantile(p)),
            Self::Mix { base_ms, slow_pct, factor } => {
                if p >= 1.0 - slow_pct / 100.0 {
                    base_ms * factor
                } else {
                    base_ms
                }
            }
        }
    }

    /// Service times for requests 0, 1, 2, … of a run with `seed`, from the
    /// service stream (one uniform per request): `quantile_ms(u)` for each
    /// draw `u`, with the lognormal's σ computed once. Endless; take what
    /// you need.
    pub fn draws(&self, seed: u64) -> ServiceDraws {
        let sigma = match *self {
            Self::LogNormal { p50_ms, p99_ms } => Self::sigma(p50_ms, p99_ms),
            _ => 0.0,
        };
        ServiceDraws { dist: *self, sigma, rng: service_rng(seed) }
    }

    /// One sentence for an explanation panel, e.g. "lognormal with median
    /// 20 ms and p99 60 ms (mean 22.4 ms)".
    pub fn describe(&self) -> String {
        let mean = ms(self.mean_ms());
        match *self {
            Self::Fixed { ms: v } => format!("every request takes exactly {} ms", ms(v)),
            Self::Exp { mean_ms } => format!(
                "exponential with mean {} ms (median {} ms, p99 {} ms)",
                ms(mean_ms),
                ms(self.quantile_ms(0.5)),
                ms(self.quantile_ms(0.99)),
            ),
            Self::LogNormal { p50_ms, p99_ms } => {
                format!("lognormal with median {} ms and p99 {} ms (mean {mean} ms)", ms(p50_ms), ms(p99_ms))
            }
            Self::Mix { base_ms, slow_pct, factor } => format!(
                "{} ms, except {}% of requests take {}× longer ({} ms) (mean {mean} ms)",
                ms(base_ms),
                ms(slow_pct),
                ms(factor),
                ms(base_ms * factor),
            ),
        }
    }
}

/// A number of ms as an explanation writes it: one decimal, Java half-up,
/// without a trailing `.0` (`21`, `22.4`).
fn ms(x: f64) -> String {
    let s = format_fixed(x, 1);
    match s.strip_suffix(".0") {
        Some(whole) => whole.to_string(),
        None => s,
    }
}

/// Endless iterator of service times, ms, from a run's service stream.
#[derive(Clone, Debug)]
pub struct ServiceDraws {
    dist: ServiceTime,
    /// σ of a lognormal (0 otherwise).
    sigma: f64,
    rng: ChaCha8Rng,
}

impl Iterator for ServiceDraws {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        let u = open_unit(&mut self.rng);
        Some(match self.dist {
            ServiceTime::LogNormal { p50_ms, .. } => p50_ms * libm::exp(self.sigma * normal_quantile(u)),
            d => d.quantile_ms(u),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_and_descriptions() {
        let ln = ServiceTime::LogNormal { p50_ms: 20.0, p99_ms: 60.0 };
        assert!((ln.mean_ms() - 22.36).abs() < 0.01, "{}", ln.mean_ms());
        assert_eq!(ln.describe(), "lognormal with median 20 ms and p99 60 ms (mean 22.4 ms)");
        let mix = ServiceTime::Mix { base_ms: 20.0, slow_pct: 5.0, factor: 10.0 };
        assert!((mix.mean_ms() - 29.0).abs() < 1e-12);
        assert_eq!(mix.describe(), "20 ms, except 5% of requests take 10× longer (200 ms) (mean 29 ms)");
        assert_eq!(ServiceTime::Fixed { ms: 21.0 }.describe(), "every request takes exactly 21 ms");
        assert_eq!(
            ServiceTime::Exp { mean_ms: 21.0 }.describe(),
            "exponential with mean 21 ms (median 14.6 ms, p99 96.7 ms)"
        );
    }

    #[test]
    fn quantiles_hit_their_parameters() {
        let ln = ServiceTime::LogNormal { p50_ms: 20.0, p99_ms: 60.0 };
        assert!((ln.quantile_ms(0.5) - 20.0).abs() < 1e-12);
        assert!((ln.quantile_ms(0.99) - 60.0).abs() < 1e-9);
        let mix = ServiceTime::Mix { base_ms: 20.0, slow_pct: 5.0, factor: 10.0 };
        assert_eq!(mix.quantile_ms(0.94), 20.0);
        assert_eq!(mix.quantile_ms(0.96), 200.0);
    }

    #[test]
    fn sample_means_converge() {
        for d in [
            ServiceTime::Exp { mean_ms: 21.0 },
            ServiceTime::LogNormal { p50_ms: 20.0, p99_ms: 60.0 },
            ServiceTime::Mix { base_ms: 20.0, slow_pct: 5.0, factor: 10.0 },
        ] {
            let n = 200_000;
            let mean = d.draws(9).take(n).sum::<f64>() / n as f64;
            // Every sd here is under 2 × mean: 4 standard errors is < 2 %.
            assert!((mean / d.mean_ms() - 1.0).abs() < 0.02, "{d:?}: {mean}");
        }
    }

    #[test]
    fn draws_are_the_quantiles_of_the_service_stream() {
        for d in [ServiceTime::LogNormal { p50_ms: 20.0, p99_ms: 60.0 }, ServiceTime::Exp { mean_ms: 3.0 }] {
            let mut rng = service_rng(4);
            for x in d.draws(4).take(100) {
                assert_eq!(x.to_bits(), d.quantile_ms(open_unit(&mut rng)).to_bits());
            }
        }
    }

    #[test]
    fn validation_rejects_bad_values() {
        let bad = [
            ServiceTime::Fixed { ms: 0.0 },
            ServiceTime::Exp { mean_ms: f64::NAN },
            ServiceTime::LogNormal { p50_ms: 20.0, p99_ms: 10.0 },
            ServiceTime::LogNormal { p50_ms: 1.0, p99_ms: 1001.0 },
            ServiceTime::Mix { base_ms: 20.0, slow_pct: 101.0, factor: 10.0 },
            ServiceTime::Mix { base_ms: 20.0, slow_pct: 5.0, factor: 0.5 },
        ];
        for d in bad {
            assert!(d.validate().is_err(), "{d:?}");
        }
    }
}
