//! Open-loop Poisson arrival schedules, computed ahead of time.
//!
//! Gaps are exponential: `gap_ms = -ln(1 - u) / rate_rps * 1000` with `u`
//! uniform in `[0, 1)` from the top 53 bits of
//! `ChaCha8Rng::seed_from_u64(seed).next_u64()`. Every rate of a sweep uses
//! the same seed, so the same underlying unit-exponential draws are scaled
//! by each rate ("common random numbers"): doubling the rate compresses the
//! same arrival pattern into half the time. The same `(rate, seconds, seed)`
//! always yields the same schedule.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// Uniform in `[0, 1)` from the top 53 bits of one `u64`.
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Send offsets in milliseconds from the window start, ascending, every one
/// `< seconds * 1000`. Generation stops early (returning `cap + 1` offsets)
/// once more than `cap` are produced, so an oversized plan is detected
/// without allocating it. `rate_rps` and `seconds` must be finite and > 0
/// (validated by [`crate::load::LoadConfig::new`]); otherwise the schedule
/// is empty.
pub fn schedule(rate_rps: f64, seconds: f64, seed: u64, cap: usize) -> Vec<f64> {
    let mut out = Vec::new();
    if !(rate_rps.is_finite() && rate_rps > 0.0 && seconds.is_finite() && seconds > 0.0) {
        return out;
    }
    let window_ms = seconds * 1000.0;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t_ms = 0.0;
    loop {
        let u = unit(&mut rng);
        t_ms += -(1.0 - u).ln() / rate_rps * 1000.0;
        if t_ms >= window_ms {
            return out;
        }
        out.push(t_ms);
        if out.len() > cap {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_schedule() {
        let a = schedule(48.0, 5.0, 1, 100_000);
        let b = schedule(48.0, 5.0, 1, 100_000);
        assert_eq!(a, b);
        assert_ne!(a, schedule(48.0, 5.0, 2, 100_000));
    }

    #[test]
    fn ascending_inside_window_and_near_expected_count() {
        let s = schedule(100.0, 20.0, 7, 100_000);
        assert!(s.windows(2).all(|w| w[0] <= w[1]));
        assert!(s.iter().all(|&t| (0.0..20_000.0).contains(&t)));
        // 2000 expected, sd ~45.
        assert!((1800..2200).contains(&s.len()), "{}", s.len());
    }

    #[test]
    fn common_random_numbers_scale_with_rate() {
        let slow = schedule(40.0, 10.0, 3, 100_000);
        let fast = schedule(80.0, 5.0, 3, 100_000);
        assert_eq!(slow.len(), fast.len());
        for (a, b) in slow.iter().zip(&fast) {
            assert!((a - 2.0 * b).abs() < 1e-6);
        }
    }

    #[test]
    fn cap_stops_generation() {
        assert_eq!(schedule(1000.0, 10.0, 1, 50).len(), 51);
        assert!(schedule(0.0, 10.0, 1, 50).is_empty());
        assert!(schedule(f64::NAN, 10.0, 1, 50).is_empty());
    }
}
