//! Open-loop Poisson arrival schedules, computed ahead of time.
//!
//! A thin wrapper over the core's generator,
//! [`bplab_core::stochastic::RateSchedule::constant`], so `bplab load` and
//! the model (`bplab_core::stochastic::Setup`) send at the same times for
//! the same seed. Gaps are exponential: `gap_ms = -ln(1 - u) / rate_rps *
//! 1000` with `u` uniform in `[0, 1)` from the top 53 bits of
//! `ChaCha8Rng::seed_from_u64(seed).next_u64()` (`ln` is `libm::log`, so the
//! page computes the same bits). Every rate of a sweep uses the same seed,
//! so the same underlying unit-exponential draws are scaled by each rate
//! ("common random numbers"): doubling the rate compresses the same arrival
//! pattern into half the time. The same `(rate, seconds, seed)` always
//! yields the same schedule.

use bplab_core::stochastic::RateSchedule;

/// Send offsets in milliseconds from the window start, ascending, every one
/// `< seconds * 1000`. Generation stops early (returning `cap + 1` offsets)
/// once more than `cap` are produced, so an oversized plan is detected
/// without allocating it. `rate_rps` and `seconds` must be finite and > 0
/// (validated by [`crate::load::LoadConfig::new`]); otherwise the schedule
/// is empty.
pub fn schedule(rate_rps: f64, seconds: f64, seed: u64, cap: usize) -> Vec<f64> {
    if !(rate_rps.is_finite() && rate_rps > 0.0 && seconds.is_finite() && seconds > 0.0) {
        return Vec::new();
    }
    RateSchedule::constant(rate_rps).arrivals(seconds * 1000.0, seed).take(cap.saturating_add(1)).collect()
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

    #[test]
    fn same_times_as_the_model() {
        use bplab_core::stochastic::{Server, ServiceTime, Setup};
        let setup = Setup::poisson(48.0, ServiceTime::Fixed { ms: 21.0 }, Server::unbounded(1), 5000.0, 9);
        let run = setup.run(100_000).expect("valid setup");
        let model: Vec<f64> = run.requests.iter().map(|r| r.arrival_ms).collect();
        assert_eq!(schedule(48.0, 5.0, 9, 100_000), model);
    }
}
