//! Property tests: no panic for any sample (rtt ≥ 1 ns, inflight ≥ 0) or any
//! CoDel call, and limits stay inside their bounds.

use proptest::prelude::*;

use super::*;

fn samples() -> impl Strategy<Value = Vec<Sample>> {
    let rtt = prop_oneof![1i64..=1_000_000_000, 1i64..=i64::MAX, Just(1i64), Just(i64::MAX)];
    let inflight = prop_oneof![0i32..=2000, 0i32..=i32::MAX];
    prop::collection::vec((rtt, inflight, any::<bool>()).prop_map(|(r, i, d)| Sample::new(r, i, d)), 1..200)
}

/// `(min, initial, max)` with `min <= initial <= max`.
fn bounds() -> impl Strategy<Value = (i32, i32, i32)> {
    (0i32..=5000, 0i32..=5000, 0i32..=5000).prop_map(|(a, b, c)| {
        let mut v = [a, b, c];
        v.sort_unstable();
        (v[0], v[1], v[2])
    })
}

proptest! {
    #[test]
    fn aimd_stays_in_bounds((min, init, max) in bounds(), ratio in 0.5f64..1.0, timeout in 1i64..=i64::MAX,
                            ss in samples()) {
        let p = AimdParams { initial_limit: init, min_limit: min, max_limit: max, backoff_ratio: ratio, timeout_ns: timeout };
        let mut l = Aimd::new(&AimdConfig::new(p).unwrap());
        for s in ss {
            let got = l.update(s);
            prop_assert!((min..=max).contains(&got) && got == l.limit());
        }
    }

    #[test]
    fn vegas_stays_in_one_to_max((_, init, max) in bounds(), smoothing in 0.0f64..=1.0, mult in -5i32..=40,
                                 seed in any::<u64>(), ss in samples()) {
        let max = max.max(1);
        let p = VegasParams {
            initial_limit: init.clamp(1, max), max_limit: max, smoothing, probe_multiplier: mult,
            jitter: Draws::seeded(seed), ..VegasParams::default()
        };
        let mut l = Vegas::new(&VegasConfig::new(p).unwrap());
        for s in ss {
            let got = l.update(s);
            prop_assert!((1..=max).contains(&got) && got == l.limit());
        }
    }

    #[test]
    fn gradient2_stays_in_bounds((min, init, max) in bounds(), smoothing in 0.0f64..=1.0, q in 0i32..=50,
                                 window in 1i32..=1000, tol in 1.0f64..5.0, ss in samples()) {
        let p = Gradient2Params {
            initial_limit: init, min_limit: min, max_limit: max, smoothing, queue_size: q,
            long_window: window, rtt_tolerance: tol,
        };
        let mut l = Gradient2::new(&Gradient2Config::new(p).unwrap());
        for s in ss {
            let got = l.update(s);
            prop_assert!((min..=max).contains(&got) && got == l.limit());
        }
    }

    #[test]
    fn gradient_stays_between_floor_and_max((min, init, max) in bounds(), smoothing in 0.0f64..=1.0,
                                            interval in prop_oneof![Just(-1i32), 1i32..=50, Just(i32::MAX)],
                                            ratio in 0.5f64..=1.0, seed in any::<u64>(), ss in samples()) {
        // max >= 32 keeps the default queue size max(4, isqrt1(limit)) at or below max.
        let max = max.max(32);
        let p = GradientParams {
            initial_limit: init, min_limit: min, max_limit: max, smoothing, probe_interval: interval,
            backoff_ratio: ratio, offsets: Draws::seeded(seed), ..GradientParams::default()
        };
        let mut l = Gradient::new(&GradientConfig::new(p).unwrap());
        for s in ss {
            let got = l.update(s);
            // The final floor is the queue size (>= 4), not min; an app-limited
            // first sample may keep a lower initial limit.
            prop_assert!(got >= 4.min(init) && got <= max, "{got}");
            prop_assert_eq!(got, l.limit());
        }
    }

    #[test]
    fn codel_never_panics_and_sheds_only_above_slough(target in 1i64..=1000, interval in 1i64..=1000,
                                                      calls in prop::collection::vec((any::<i64>(), any::<i64>()), 1..200),
                                                      start in any::<i64>()) {
        let mut c = Codel::new(&CodelConfig::new(target, interval).unwrap(), start);
        for (now, delay) in calls {
            let shed = c.overloaded(now, delay);
            prop_assert!(!shed || delay > c.slough_timeout_ms() * 1_000_000);
            prop_assert!(c.load() <= 100);
        }
    }

    #[test]
    fn fixed_never_moves(n in 1i32..=i32::MAX, ss in samples()) {
        let mut l = Fixed::new(&FixedConfig::new(n).unwrap());
        for s in ss {
            prop_assert_eq!(l.update(s), n);
        }
    }
}
