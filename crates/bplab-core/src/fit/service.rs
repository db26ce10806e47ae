//! The service-time distribution, chosen from the low-load requests by a
//! stated criterion: of the candidates in order of fewest parameters
//! (fixed, exponential, lognormal, mix), the first whose quantiles at
//! [`CHECKED`] all lie within [`TOLERANCE`] of the sample's; when none does,
//! the one whose largest relative error is smallest (and the fit says the
//! distribution is approximate).

use serde::Serialize;

use super::level::quantile;
use crate::stochastic::ServiceTime;

/// The quantiles the criterion compares.
pub const CHECKED: [f64; 7] = [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99];
/// The relative error every checked quantile must stay within.
pub const TOLERANCE: f64 = 0.10;

/// The low-load latencies the distribution is chosen from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Sample {
    /// Individual times, ms, sorted.
    Times(Vec<f64>),
    /// A percentile table `(p in (0, 1], ms)` and the mean when known.
    Table {
        /// The points, ascending in `p`.
        points: Vec<(f64, f64)>,
        /// The mean, ms, when the file gives it.
        mean_ms: Option<f64>,
    },
}

impl Sample {
    /// The sample's `p`-quantile, ms.
    pub fn quantile(&self, p: f64) -> Option<f64> {
        match self {
            Sample::Times(t) => quantile(t, p),
            Sample::Table { points, .. } => points.iter().find(|(q, _)| *q >= p - 1e-9).map(|x| x.1),
        }
    }

    /// The sample's `p`-quantile where the sample states it: any `p` for
    /// times, only the listed points of a table.
    pub fn stated_quantile(&self, p: f64) -> Option<f64> {
        match self {
            Sample::Times(_) => self.quantile(p),
            Sample::Table { points, .. } => points.iter().find(|(q, _)| (*q - p).abs() < 1e-9).map(|x| x.1),
        }
    }

    /// The sample's mean, ms (a table without a mean: its median).
    pub fn mean(&self) -> Option<f64> {
        match self {
            Sample::Times(t) if !t.is_empty() => Some(t.iter().sum::<f64>() / t.len() as f64),
            Sample::Times(_) => None,
            Sample::Table { mean_ms, .. } => mean_ms.or_else(|| self.quantile(0.5)),
        }
    }

    /// How many times (0 for a table).
    pub fn len(&self) -> usize {
        match self {
            Sample::Times(t) => t.len(),
            Sample::Table { .. } => 0,
        }
    }

    /// Whether it holds no time and no point.
    pub fn is_empty(&self) -> bool {
        match self {
            Sample::Times(t) => t.is_empty(),
            Sample::Table { points, .. } => points.is_empty(),
        }
    }

    /// The same sample with every time less `ms` (at least 1 % of the time).
    pub fn shifted(&self, ms: f64) -> Sample {
        let f = |v: f64| (v - ms).max(v * 0.01);
        match self {
            Sample::Times(t) => Sample::Times(t.iter().map(|&v| f(v)).collect()),
            Sample::Table { points, mean_ms } => {
                Sample::Table { points: points.iter().map(|&(p, v)| (p, f(v))).collect(), mean_ms: mean_ms.map(f) }
            }
        }
    }
}

/// One candidate distribution and how far its quantiles are from the sample's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// The distribution, in the `--service` grammar when printed.
    #[serde(serialize_with = "as_text")]
    pub service: ServiceTime,
    /// The largest `|model − sample| / sample` over the checked quantiles.
    pub max_error: f64,
    /// The quantile where that error is.
    pub worst_p: f64,
}

fn as_text<S: serde::Serializer>(s: &ServiceTime, ser: S) -> Result<S::Ok, S::Error> {
    ser.collect_str(s)
}

/// The candidates and the choice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Choice {
    /// Every candidate that could be built, in the criterion's order.
    pub candidates: Vec<Candidate>,
    /// Index of the chosen one in `candidates`.
    pub chosen: usize,
    /// Whether the chosen one meets the tolerance at every checked quantile.
    pub within_tolerance: bool,
}

impl Choice {
    /// The chosen distribution.
    pub fn service(&self) -> ServiceTime {
        self.candidates[self.chosen].service
    }
}

/// Rounds to 3 significant figures past the decimal point's needs (a
/// service time the grammar prints short).
fn tidy(x: f64) -> f64 {
    let s = crate::numerics::format_fixed(x, if x >= 100.0 { 1 } else { 2 });
    s.parse().unwrap_or(x)
}

/// The candidates built from `sample` with the given mean, in order.
fn candidates(sample: &Sample, mean_ms: f64) -> Vec<ServiceTime> {
    let mut out = vec![ServiceTime::Fixed { ms: tidy(mean_ms) }, ServiceTime::Exp { mean_ms: tidy(mean_ms) }];
    if let (Some(p50), Some(p99)) = (sample.quantile(0.5), sample.quantile(0.99)) {
        // Scale the median so the lognormal's mean is the given one.
        let ln = ServiceTime::LogNormal { p50_ms: p50, p99_ms: p99.max(p50) };
        if ln.validate().is_ok() {
            let k = mean_ms / ln.mean_ms();
            out.push(ServiceTime::LogNormal { p50_ms: tidy(p50 * k), p99_ms: tidy(p99.max(p50) * k) });
        }
    }
    if let Sample::Times(t) = sample
        && let Some(base) = quantile(t, 0.5)
    {
        let slow: Vec<f64> = t.iter().copied().filter(|&v| v > 1.5 * base).collect();
        if !slow.is_empty() && slow.len() * 2 < t.len() {
            let pct = slow.len() as f64 * 100.0 / t.len() as f64;
            let factor = slow.iter().sum::<f64>() / slow.len() as f64 / base;
            let mix = ServiceTime::Mix { base_ms: tidy(base), slow_pct: tidy(pct), factor: tidy(factor) };
            if mix.validate().is_ok() {
                out.push(mix);
            }
        }
    }
    out.into_iter().filter(|s| s.validate().is_ok()).collect()
}

/// Scores each candidate and applies the criterion. `None` when the
/// sample is empty or its mean is not a usable service time.
pub fn choose(sample: &Sample, mean_ms: f64) -> Option<Choice> {
    if sample.is_empty() || !(mean_ms > 0.0 && mean_ms <= 1e9) {
        return None;
    }
    let checked: Vec<(f64, f64)> =
        CHECKED.iter().filter_map(|&p| sample.stated_quantile(p).filter(|v| *v > 0.0).map(|v| (p, v))).collect();
    let candidates: Vec<Candidate> = candidates(sample, mean_ms)
        .into_iter()
        .map(|service| {
            let mut c = Candidate { service, max_error: 0.0, worst_p: 0.5 };
            for &(p, v) in &checked {
                // A quantile strictly inside (0, 1): the checked ones are.
                let e = (service.quantile_ms(p) - v).abs() / v;
                if e > c.max_error {
                    c.max_error = e;
                    c.worst_p = p;
                }
            }
            c
        })
        .collect();
    let first_within = candidates.iter().position(|c| c.max_error <= TOLERANCE);
    let chosen = first_within.unwrap_or_else(|| {
        (0..candidates.len()).min_by(|&a, &b| candidates[a].max_error.total_cmp(&candidates[b].max_error)).unwrap_or(0)
    });
    (!candidates.is_empty()).then_some(Choice { candidates, chosen, within_tolerance: first_within.is_some() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(s: ServiceTime, n: usize) -> Sample {
        let mut t: Vec<f64> = s.draws(3).take(n).collect();
        t.sort_by(f64::total_cmp);
        Sample::Times(t)
    }

    #[test]
    fn each_family_is_recognised_from_its_own_draws() {
        let cases = [
            (ServiceTime::Fixed { ms: 80.0 }, "fixed"),
            (ServiceTime::Exp { mean_ms: 20.0 }, "exp"),
            (ServiceTime::LogNormal { p50_ms: 20.0, p99_ms: 80.0 }, "lognormal"),
            (ServiceTime::Mix { base_ms: 20.0, slow_pct: 10.0, factor: 8.0 }, "mix"),
        ];
        for (s, family) in cases {
            let sample = draws(s, 4000);
            let c = choose(&sample, sample.mean().unwrap()).unwrap();
            assert!(c.service().to_string().starts_with(family), "{s} chose {}: {:?}", c.service(), c.candidates);
            assert!(c.within_tolerance, "{s}: {:?}", c.candidates);
        }
    }

    #[test]
    fn a_jittery_fixed_time_is_fixed_and_nothing_is_chosen_from_nothing() {
        let t: Vec<f64> = (0..200).map(|i| 80.0 + f64::from(i % 7)).collect();
        let mut t = t;
        t.sort_by(f64::total_cmp);
        let c = choose(&Sample::Times(t), 83.0).unwrap();
        assert_eq!(c.service(), ServiceTime::Fixed { ms: 83.0 });
        assert!(choose(&Sample::Times(Vec::new()), 1.0).is_none());
        assert!(choose(&Sample::Times(vec![1.0]), f64::NAN).is_none());
    }
}
