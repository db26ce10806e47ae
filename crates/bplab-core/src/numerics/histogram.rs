//! Latency histogram with HdrHistogram's bucket layout (highest trackable
//! value 60000, 3 significant digits) and **HdrHistogram Java 2.2.2**'s
//! `getValueAtPercentile` rule.
//!
//! Why not the `hdrhistogram` crate directly: its `value_at_quantile` uses a
//! different percentile rule (it does not step one ulp below the requested
//! percentile), so it disagrees with the reference CSVs in some cases. The
//! bucket layout is the same; the crate is this module's test oracle for it.

/// Highest value a latency histogram tracks, in ms; larger values are clamped.
pub const MAX_LATENCY_MS: u64 = 60_000;

/// `2 * 10^3` rounded up to a power of two: sub-buckets per bucket.
const SUB_BUCKET_COUNT_MAGNITUDE: u32 = 11;
const SUB_BUCKET_HALF_COUNT_MAGNITUDE: u32 = SUB_BUCKET_COUNT_MAGNITUDE - 1;
const SUB_BUCKET_HALF_COUNT: usize = 1 << SUB_BUCKET_HALF_COUNT_MAGNITUDE;
const SUB_BUCKET_MASK: u64 = (1 << SUB_BUCKET_COUNT_MAGNITUDE) - 1;
/// Counts needed to cover `0..=MAX_LATENCY_MS` (buckets 0..=5).
const COUNTS_LEN: usize = (bucket_index(MAX_LATENCY_MS) as usize + 2) * SUB_BUCKET_HALF_COUNT;

const fn bucket_index(v: u64) -> u32 {
    // 64 - leading_zeros(v | mask) - SUB_BUCKET_COUNT_MAGNITUDE
    53 - (v | SUB_BUCKET_MASK).leading_zeros()
}

fn counts_index(v: u64) -> usize {
    let bucket = bucket_index(v);
    let sub = (v >> bucket) as usize;
    ((bucket as usize + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + sub - SUB_BUCKET_HALF_COUNT
}

fn value_from_index(i: usize) -> u64 {
    let mut bucket = (i >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) as i64 - 1;
    let mut sub = (i & (SUB_BUCKET_HALF_COUNT - 1)) + SUB_BUCKET_HALF_COUNT;
    if bucket < 0 {
        sub -= SUB_BUCKET_HALF_COUNT;
        bucket = 0;
    }
    (sub as u64) << bucket
}

/// Lowest value that shares `v`'s bucket.
pub fn lowest_equivalent(v: u64) -> u64 {
    let bucket = bucket_index(v);
    (v >> bucket) << bucket
}

/// Highest value that shares `v`'s bucket (60000 → 60031).
pub fn highest_equivalent(v: u64) -> u64 {
    lowest_equivalent(v) + (1u64 << bucket_index(v)) - 1
}

/// Rounds half-up (`floor(x + 0.5)` evaluated exactly) for `x >= 0`, the
/// rule the reference uses; equal to `f64::round` there. Written with
/// `floor` because wasm has a `floor` instruction but no `round`: the
/// models call this once or twice per request.
#[inline]
pub fn round_half_up(x: f64) -> f64 {
    if (0.0..4_503_599_627_370_496.0).contains(&x) {
        let f = x.floor();
        // x - floor(x) is exact below 2^52.
        if x - f >= 0.5 { f + 1.0 } else { f }
    } else {
        x.round()
    }
}

/// Rounds a latency in ms half-up and clamps it to `[0, MAX_LATENCY_MS]`,
/// as every recorded value is before it enters a histogram.
pub fn round_clamp_ms(ms: f64) -> u64 {
    let r = round_half_up(ms);
    if r.is_nan() || r <= 0.0 {
        0
    } else if r >= MAX_LATENCY_MS as f64 {
        MAX_LATENCY_MS
    } else {
        r as u64
    }
}

/// Java's count rule: how many recorded values the percentile must cover.
/// `p' = nextDown(p)` clamped to [0, 100]; `max(1, ceil(p' * total / 100))`.
fn count_at_percentile(p: f64, total: u64) -> u64 {
    let requested = p.next_down().clamp(0.0, 100.0);
    let c = ((requested * total as f64) / 100.0).ceil();
    (c as u64).max(1)
}

fn equivalent_for(p: f64, v: u64) -> u64 {
    if p == 0.0 { lowest_equivalent(v) } else { highest_equivalent(v) }
}

/// Counts per block of the two-level walk.
const BLOCK: usize = 64;

/// A latency histogram in whole milliseconds, 0..=60000, 3 significant digits.
///
/// Besides HdrHistogram's counts it keeps a sum per block of 64 counts, so a
/// percentile walks ~112 block sums and then at most 64 counts instead of up
/// to 7168 counts: the same answer, found faster.
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    counts: Vec<u32>,
    blocks: Vec<u32>,
    total: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self { counts: vec![0; COUNTS_LEN], blocks: vec![0; COUNTS_LEN.div_ceil(BLOCK)], total: 0 }
    }

    /// Records a latency in ms after rounding half-up and clamping to 60000.
    pub fn record_ms(&mut self, ms: f64) {
        self.record(round_clamp_ms(ms));
    }

    /// Records an already whole, non-negative value (clamped to 60000).
    pub fn record(&mut self, v: u64) {
        let i = counts_index(v.min(MAX_LATENCY_MS));
        self.counts[i] += 1;
        self.blocks[i / BLOCK] += 1;
        self.total += 1;
    }

    /// Number of recorded values.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// HdrHistogram Java 2.2.2 `getValueAtPercentile(p)`; 0 when empty.
    pub fn value_at_percentile(&self, p: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let target = count_at_percentile(p, self.total);
        let mut running = 0u64;
        for (b, &sum) in self.blocks.iter().enumerate() {
            if running + u64::from(sum) < target {
                running += u64::from(sum);
                continue;
            }
            let start = b * BLOCK;
            for (i, &c) in self.counts[start..(start + BLOCK).min(COUNTS_LEN)].iter().enumerate() {
                running += u64::from(c);
                if running >= target {
                    return equivalent_for(p, value_from_index(start + i));
                }
            }
        }
        0
    }
}

/// The same percentile rule applied to a slice of whole-ms values (each
/// already rounded and clamped): the bucket holding the `count`-th smallest
/// value is the one the Java walk stops at. Reorders `values`; 0 when empty.
/// Cheaper than a histogram for many small groups (per-window percentiles).
pub fn percentile_of_values(values: &mut [u64], p: f64) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let k = count_at_percentile(p, values.len() as u64) as usize;
    let (_, kth, _) = values.select_nth_unstable(k - 1);
    equivalent_for(p, (*kth).min(MAX_LATENCY_MS))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: impl IntoIterator<Item = u64>) -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        values.into_iter().for_each(|v| h.record(v));
        h
    }

    #[test]
    fn reference_vectors() {
        let h = hist(1..=3000);
        assert_eq!(h.value_at_percentile(50.0), 1500);
        assert_eq!(h.value_at_percentile(99.0), 2971);
        assert_eq!(h.value_at_percentile(100.0), 3001);
        let h = hist([10, 4097, 60000]);
        assert_eq!(h.value_at_percentile(0.0), 10);
        assert_eq!(h.value_at_percentile(50.0), 4099);
        assert_eq!(h.value_at_percentile(99.0), 60031);
        let h = hist(std::iter::repeat_n(10, 99).chain([9903]));
        assert_eq!(h.value_at_percentile(99.0), 10);
        assert_eq!(LatencyHistogram::new().value_at_percentile(99.0), 0);
    }

    #[test]
    fn round_half_up_equals_f64_round_for_non_negative_values() {
        let mut x = 0.0f64;
        let specials = [0.5, 1.5, 2.5, 0.49999999999999994, 4503599627370495.5, 4503599627370496.0, 1e300, f64::MAX];
        for v in specials {
            assert_eq!(round_half_up(v), v.round(), "{v}");
        }
        for i in 0..200_000u64 {
            x += 0.0137 * (i % 7) as f64 + 1e-9;
            let y = x * 1.000_000_1;
            assert_eq!(round_half_up(y), y.round(), "{y}");
            let half = (i as f64) + 0.5;
            assert_eq!(round_half_up(half), half.round(), "{half}");
        }
        assert!(round_half_up(f64::NAN).is_nan());
    }

    #[test]
    fn clamp_reads_back_as_top_of_bucket() {
        let mut h = LatencyHistogram::new();
        h.record_ms(123_456.7);
        assert_eq!(h.value_at_percentile(99.0), 60031);
        assert_eq!(round_clamp_ms(-3.0), 0);
        assert_eq!(round_clamp_ms(2.5), 3);
        assert_eq!(round_clamp_ms(f64::NAN), 0);
    }

    #[test]
    fn bucket_edges() {
        // Below 2048 buckets are 1 ms wide; then 2, 4, 8, 16, 32.
        assert_eq!(highest_equivalent(2047), 2047);
        assert_eq!(highest_equivalent(2048), 2049);
        assert_eq!(highest_equivalent(4095), 4095);
        assert_eq!(highest_equivalent(4096), 4099);
        assert_eq!(highest_equivalent(9903), 9903);
        assert_eq!(highest_equivalent(9900), 9903);
        assert_eq!(lowest_equivalent(9903), 9896);
        assert_eq!(highest_equivalent(60000), 60031);
        // One ulp below: 100 values, p99 covers exactly 99 of them.
        let h = hist((1..=100).map(|v| v * 10));
        assert_eq!(h.value_at_percentile(99.0), 990);
        assert_eq!(h.value_at_percentile(50.0), 500);
    }

    #[test]
    fn bucket_layout_matches_the_hdrhistogram_crate() {
        let oracle = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 60_000, 3).unwrap();
        for v in (0..=60_000u64).step_by(7).chain([2047, 2048, 4095, 4096, 32767, 32768, 60000]) {
            assert_eq!(highest_equivalent(v), oracle.highest_equivalent(v), "v={v}");
            assert_eq!(lowest_equivalent(v), oracle.lowest_equivalent(v), "v={v}");
        }
    }
}
