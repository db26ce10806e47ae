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

/// The chosen rate's answered latencies, kept as counts per whole
/// millisecond so the run's length does not matter, from which
/// [`Latencies::buckets`] gives exactly what cutting the list of
/// latencies into `n` buckets gives: `width = max(1, ceil(top / n))`,
/// latency `v` in bucket `min(trunc(v / width), n − 1)`, in f64.
///
/// Why a count per whole ms is enough: `width` is a whole number `w`, so
/// for `v` in `[m, m + 1)` the exact quotient lies in `[q, q + 1)` with
/// `q = m / w` in whole numbers, and so does the rounded one. It is at
/// least `q` (a whole number, so rounding keeps it). It stays below
/// `q + 1 = K`: the largest float below `K·w` is `K·w − u` with `u` its
/// spacing there, and `u / w` is more than half the spacing below `K`
/// (`K·w >= 2^(e_K + e_w)` and `w < 2^(e_w + 1)`, `e` the binary
/// exponents); when `w` is a power of two the division is exact. The
/// property test below checks it on latencies a few ulps below whole
/// numbers.
#[derive(Clone, Debug, Default)]
pub struct Latencies {
    /// Latencies `v` with `floor(v) = m`, at `m` (up to [`MAX_PER_MS`]).
    per_ms: Vec<u64>,
    /// Any other latency (at or past [`MAX_PER_MS`], never one the client
    /// timeout lets through), by bits, divided at the end.
    other: std::collections::BTreeMap<u64, u64>,
    /// The largest latency, 0 before any.
    top_ms: f64,
}

/// Whole-ms counts up to this latency (an answered latency is at most the
/// client timeout, at most an hour).
const MAX_PER_MS: usize = 1 << 23;

impl Latencies {
    /// Records one latency (finite, `>= 0`, ms).
    #[inline]
    pub fn add(&mut self, v: f64) {
        self.top_ms = self.top_ms.max(v);
        let m = libm::floor(v);
        if !(0.0..MAX_PER_MS as f64).contains(&m) {
            *self.other.entry(v.to_bits()).or_insert(0) += 1;
            return;
        }
        let i = m as usize;
        if i >= self.per_ms.len() {
            self.per_ms.resize(i + 1, 0);
        }
        if let Some(c) = self.per_ms.get_mut(i) {
            *c += 1;
        }
    }

    /// The largest latency recorded, ms (0 before any).
    pub fn top_ms(&self) -> f64 {
        self.top_ms
    }

    /// Counts kept: one per whole ms up to the largest latency.
    pub fn cells(&self) -> usize {
        self.per_ms.len() + self.other.len()
    }

    /// The bucket width, ms, and the count per bucket, `n >= 1` buckets.
    pub fn buckets(&self, n: usize) -> (f64, Vec<u64>) {
        let top = self.top_ms;
        let width_ms = if top > 0.0 { libm::ceil(top / n as f64).max(1.0) } else { 1.0 };
        let last = n.saturating_sub(1);
        let mut counts = vec![0u64; n];
        let mut put = |i: usize, c: u64| {
            if let Some(slot) = counts.get_mut(i.min(last)) {
                *slot += c;
            }
        };
        let whole = width_ms as u64; // >= 1, and whole
        for (m, &c) in self.per_ms.iter().enumerate() {
            if c > 0 {
                put(usize::try_from(m as u64 / whole).unwrap_or(usize::MAX), c);
            }
        }
        for (&bits, &c) in &self.other {
            put((f64::from_bits(bits) / width_ms) as usize, c);
        }
        (width_ms, counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The list rule [`Latencies::buckets`] reproduces.
    fn by_list(values: &[f64], n: usize) -> (f64, Vec<u64>) {
        let top = values.iter().copied().fold(0.0f64, f64::max);
        let width_ms = if top > 0.0 { libm::ceil(top / n as f64).max(1.0) } else { 1.0 };
        let mut counts = vec![0u64; n];
        for &v in values {
            counts[((v / width_ms) as usize).min(n - 1)] += 1;
        }
        (width_ms, counts)
    }

    fn by_counts(values: &[f64], n: usize) -> (f64, Vec<u64>) {
        let mut l = Latencies::default();
        values.iter().for_each(|&v| l.add(v));
        l.buckets(n)
    }

    #[test]
    fn latencies_just_below_a_bucket_edge_stay_below_it() {
        // (a + 21) − a for fixed:21 lands a few ulps either side of 21,
        // and 21 is an edge for widths 3 and 7.
        let fixed: Vec<f64> = (0..2000).map(|k| (k as f64 * 0.37 + 21.0) - k as f64 * 0.37).collect();
        assert!(fixed.iter().any(|&v| v < 21.0) && fixed.iter().any(|&v| v > 21.0));
        for top in [40.0, 80.0, 119.0, 121.0, 280.0, 1999.0, 1e7] {
            let mut v = fixed.clone();
            v.push(top);
            assert_eq!(by_counts(&v, 40), by_list(&v, 40), "top {top}");
        }
        // Every edge K·w below 61 buckets of width up to 5000: the float
        // just below it stays in bucket K − 1.
        for w in 1..5000u32 {
            for k in 1..61u32 {
                let below = f64::from(k * w).next_down();
                assert!(((below / f64::from(w)) as u32) < k, "{k} × {w}");
            }
        }
        assert_eq!(by_counts(&[], 40), by_list(&[], 40));
    }

    proptest::proptest! {
        /// Any latencies, near whole numbers or not, any bucket count.
        #[test]
        fn buckets_equal_the_lists(
            values in proptest::collection::vec(
                proptest::prop_oneof![
                    0.0f64..5000.0,
                    (1u32..5000, 0u32..6).prop_map(|(m, k)| {
                        // A few ulps below a whole number (or on it).
                        let mut v = f64::from(m);
                        for _ in 0..k { v = v.next_down(); }
                        v
                    }),
                ],
                0..300,
            ),
            n in 1usize..60,
        ) {
            proptest::prop_assert_eq!(by_counts(&values, n), by_list(&values, n));
        }
    }

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
