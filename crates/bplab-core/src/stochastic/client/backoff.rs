//! How long a caller waits before its next try: fixed, capped exponential,
//! and the three jittered kinds of the AWS Architecture Blog's
//! "Exponential Backoff And Jitter" (full, equal, decorrelated). The exact
//! formulas are pinned in `docs/client.md`; the worked vectors below follow
//! them by hand.

use super::super::error::{StochasticError, check};
use super::super::traffic::MAX_MS;

/// The wait before retry number `k` (`k = 1` is the first retry). With
/// `t(k) = min(cap, base × 2^(k−1))` and `U` one uniform draw in `[0, 1)`
/// from the client's backoff stream:
///
/// | kind | delay | draws |
/// |---|---|---|
/// | `Fixed` | `ms` | 0 |
/// | `Exponential` | `t(k)` | 0 |
/// | `FullJitter` | `U × t(k)` | 1 |
/// | `EqualJitter` | `t(k)/2 + U × (t(k)/2)` | 1 |
/// | `Decorrelated` | `min(cap, base + U × (3 × prev − base))`, `prev` = this caller's previous delay (`base` before its first retry) | 1 |
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Backoff {
    /// The same wait every time.
    Fixed {
        /// Wait, ms; `0 <= ms <= 1e9`.
        ms: f64,
    },
    /// Doubling from `base_ms`, capped at `cap_ms`.
    Exponential {
        /// First retry's wait, ms; `0 < base_ms <= 1e9`.
        base_ms: f64,
        /// Largest wait, ms; `base_ms <= cap_ms <= 1e9`.
        cap_ms: f64,
    },
    /// Uniform in `[0, t(k))` (AWS "Full Jitter").
    FullJitter {
        /// As for `Exponential`.
        base_ms: f64,
        /// As for `Exponential`.
        cap_ms: f64,
    },
    /// Half of `t(k)` plus a uniform share of the other half (AWS "Equal Jitter").
    EqualJitter {
        /// As for `Exponential`.
        base_ms: f64,
        /// As for `Exponential`.
        cap_ms: f64,
    },
    /// Uniform between `base` and three times the previous wait, capped
    /// (AWS "Decorrelated Jitter").
    Decorrelated {
        /// As for `Exponential`; also the previous wait before the first retry.
        base_ms: f64,
        /// As for `Exponential`.
        cap_ms: f64,
    },
}

impl Backoff {
    /// Checks the ranges documented on each field.
    pub fn validate(&self) -> Result<(), StochasticError> {
        match *self {
            Self::Fixed { ms } => {
                check("backoff-ms", ms, "finite, >= 0 and <= 1e9 ms", |v| (0.0..=MAX_MS).contains(&v))?;
            }
            Self::Exponential { base_ms, cap_ms }
            | Self::FullJitter { base_ms, cap_ms }
            | Self::EqualJitter { base_ms, cap_ms }
            | Self::Decorrelated { base_ms, cap_ms } => {
                check("backoff-ms", base_ms, "finite, > 0 and <= 1e9 ms", |v| v > 0.0 && v <= MAX_MS)?;
                check("backoff-cap-ms", cap_ms, "finite, >= the backoff base and <= 1e9 ms", |v| {
                    v >= base_ms && v <= MAX_MS
                })?;
            }
        }
        Ok(())
    }

    /// Whether [`Self::delay_ms`] draws from the stream.
    pub fn draws(&self) -> bool {
        matches!(self, Self::FullJitter { .. } | Self::EqualJitter { .. } | Self::Decorrelated { .. })
    }

    /// The wait before retry `k` (`>= 1`) of a caller whose previous wait
    /// was `prev_ms` (used only by `Decorrelated`; `None` before the first
    /// retry), given the uniform `u` in `[0, 1)` (ignored by the kinds that
    /// do not draw; the engine draws it only when [`Self::draws`]).
    pub fn delay_ms(&self, k: u32, prev_ms: Option<f64>, u: f64) -> f64 {
        match *self {
            Self::Fixed { ms } => ms,
            Self::Exponential { base_ms, cap_ms } => ceiling(base_ms, cap_ms, k),
            Self::FullJitter { base_ms, cap_ms } => u * ceiling(base_ms, cap_ms, k),
            Self::EqualJitter { base_ms, cap_ms } => {
                let half = ceiling(base_ms, cap_ms, k) / 2.0;
                half + u * half
            }
            Self::Decorrelated { base_ms, cap_ms } => {
                let prev = prev_ms.unwrap_or(base_ms);
                cap_ms.min(base_ms + u * (3.0 * prev - base_ms))
            }
        }
    }
}

/// `min(cap, base × 2^(k−1))`, exact (a power-of-two scaling; huge `k`
/// overflows to infinity, which the cap takes).
fn ceiling(base_ms: f64, cap_ms: f64, k: u32) -> f64 {
    let e = i32::try_from(k.saturating_sub(1)).unwrap_or(i32::MAX).min(4096);
    cap_ms.min(libm::ldexp(base_ms, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Retries 1..=n with the given uniforms, each wait fed back as `prev`.
    fn delays(b: Backoff, u: &[f64]) -> Vec<f64> {
        let mut prev = None;
        (1..)
            .zip(u)
            .map(|(k, &u)| {
                let d = b.delay_ms(k, prev, u);
                prev = Some(d);
                d
            })
            .collect()
    }

    const U: [f64; 6] = [0.5, 0.25, 0.75, 0.1, 0.0, 0.999];

    #[test]
    fn fixed_and_exponential_ignore_the_draw() {
        assert_eq!(delays(Backoff::Fixed { ms: 100.0 }, &U[..3]), [100.0, 100.0, 100.0]);
        // 10, 20, 40, 80, then the cap of 100.
        let e = Backoff::Exponential { base_ms: 10.0, cap_ms: 100.0 };
        assert_eq!(delays(e, &U), [10.0, 20.0, 40.0, 80.0, 100.0, 100.0]);
        assert_eq!(e.delay_ms(u32::MAX, None, 0.5), 100.0);
        assert!(!e.draws() && !Backoff::Fixed { ms: 1.0 }.draws());
    }

    #[test]
    fn full_jitter_vector() {
        // U × min(100, 10 × 2^(k−1)): 0.5×10, 0.25×20, 0.75×40, 0.1×80, 0×100, 0.999×100.
        let b = Backoff::FullJitter { base_ms: 10.0, cap_ms: 100.0 };
        assert_eq!(delays(b, &U), [5.0, 5.0, 30.0, 8.0, 0.0, 99.9]);
        assert!(b.draws());
    }

    #[test]
    fn equal_jitter_vector() {
        // t/2 + U × t/2 with t = 10, 20, 30 (cap), 30, 30, 30.
        let b = Backoff::EqualJitter { base_ms: 10.0, cap_ms: 30.0 };
        assert_eq!(delays(b, &U), [7.5, 12.5, 26.25, 16.5, 15.0, 29.985]);
    }

    #[test]
    fn decorrelated_jitter_vector() {
        // min(60, 10 + U × (3 × prev − 10)), prev = 10 before the first retry:
        // 10 + 0.5×20 = 20; 10 + 0.25×50 = 22.5; 10 + 0.75×57.5 = 53.125;
        // 10 + 0.1×149.375 = 24.9375; 10 + 0 = 10; 10 + 0.999×20 = 29.98.
        let b = Backoff::Decorrelated { base_ms: 10.0, cap_ms: 60.0 };
        assert_eq!(delays(b, &U), [20.0, 22.5, 53.125, 24.9375, 10.0, 29.98]);
        // The cap: 10 + 0.999 × (3 × 60 − 10) = 179.83 → 60.
        assert_eq!(b.delay_ms(7, Some(60.0), 0.999), 60.0);
    }

    #[test]
    fn bad_backoffs_are_refused() {
        assert!(Backoff::Fixed { ms: -1.0 }.validate().is_err());
        assert!(Backoff::Exponential { base_ms: 0.0, cap_ms: 1.0 }.validate().is_err());
        let e = Backoff::Decorrelated { base_ms: 10.0, cap_ms: 5.0 }.validate().unwrap_err();
        assert!(e.to_string().contains("backoff-cap-ms"), "{e}");
        assert!(Backoff::EqualJitter { base_ms: 1.0, cap_ms: f64::NAN }.validate().is_err());
        assert!(Backoff::FullJitter { base_ms: 1.0, cap_ms: 1.0 }.validate().is_ok());
    }
}
