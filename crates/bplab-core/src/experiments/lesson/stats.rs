//! Mean and 95 % interval over independent replicas (Student's t).

use serde::Serialize;

/// A mean with its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Interval {
    /// Sample mean.
    pub mean: f64,
    /// Lower end of the 95 % interval (= mean with one sample).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Samples.
    pub n: usize,
}

/// Two-sided 97.5 % quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

impl Interval {
    /// The mean and 95 % interval of `xs` (all zero when empty).
    pub fn of(xs: &[f64]) -> Self {
        let n = xs.len();
        if n == 0 {
            return Interval { mean: 0.0, lo: 0.0, hi: 0.0, n };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Interval { mean, lo: mean, hi: mean, n };
        }
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        let t = T975.get(n - 2).copied().unwrap_or(1.96);
        let half = t * libm::sqrt(var / n as f64);
        Interval { mean, lo: mean - half, hi: mean + half, n }
    }
}

impl Interval {
    /// The interval intersected with the quantity's possible range
    /// `[lo, hi]`: the true value lies in that range, so the intersection
    /// keeps the coverage, and a p99 is never shown below the fastest
    /// possible service (or a rate below 0).
    pub fn within(self, lo: f64, hi: f64) -> Self {
        if self.n == 0 {
            return self;
        }
        Interval { lo: self.lo.clamp(lo, hi), hi: self.hi.clamp(lo, hi), ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        let i = Interval::of(&[1.0, 2.0, 3.0]);
        assert_eq!(i.mean, 2.0);
        // sd = 1, se = 1/√3, t(2) = 4.303.
        assert!((i.hi - (2.0 + 4.303 / 3f64.sqrt())).abs() < 1e-12);
        assert_eq!(Interval::of(&[5.0]).lo, 5.0);
        assert_eq!(Interval::of(&[]).n, 0);
        // The audit's p99 interval reaching -146 ms: cut at the service minimum.
        let i = Interval::of(&[5.0, 100.0, 300.0]).within(20.0, 2000.0);
        assert!(i.lo >= 20.0 && i.hi <= 2000.0 && i.lo <= i.mean, "{i:?}");
    }
}
