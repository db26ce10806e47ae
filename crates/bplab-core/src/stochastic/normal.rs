//! The standard normal quantile (inverse CDF), with `libm` only.
//!
//! Start from Abramowitz & Stegun 26.2.23 (absolute error < 4.5e-4) on the
//! lower tail `q = min(p, 1 - p)`, then take two Halley steps on
//! `Φ(x) - q` with `Φ(x) = erfc(-x / √2) / 2` from `libm::erfc`. Halley's
//! method converges cubically (error 4.5e-4, then ~1e-10, then below one
//! ulp), so two steps reach the limit of `erfc`'s accuracy; the step count is fixed, so the result is the same on every
//! target. Working on the lower tail keeps `Φ(x) - q` free of cancellation.

/// `√(2π)`.
const SQRT_2PI: f64 = 2.506_628_274_631_000_5;

/// The `p`-quantile of the standard normal distribution.
///
/// `p` in `(0, 1)`; `p <= 0` gives `-∞`, `p >= 1` gives `+∞`, NaN gives NaN.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() {
        return f64::NAN;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    // 1 - p is exact for p >= 0.5 (Sterbenz), so q carries no rounding.
    let (q, sign) = if p < 0.5 { (p, -1.0) } else { (1.0 - p, 1.0) };
    let t = libm::sqrt(-2.0 * libm::log(q));
    let num = 2.515_517 + t * (0.802_853 + t * 0.010_328);
    let den = 1.0 + t * (1.432_788 + t * (0.189_269 + t * 0.001_308));
    let mut x = -(t - num / den);
    for _ in 0..2 {
        let e = 0.5 * libm::erfc(-x / core::f64::consts::SQRT_2) - q;
        let u = e * SQRT_2PI * libm::exp(0.5 * x * x);
        x -= u / (1.0 + 0.5 * x * u);
    }
    if sign < 0.0 { x } else { -x }
}

/// The standard normal CDF `Φ(x) = erfc(-x / √2) / 2`.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / core::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_quantiles() {
        // Reference values of the normal quantile to 16 digits.
        let cases = [
            (0.5, 0.0),
            (0.975, 1.959_963_984_540_054),
            (0.99, 2.326_347_874_040_841),
            (0.999, 3.090_232_306_167_813_5),
            (0.841_344_746_068_542_9, 1.0),
            (1e-10, -6.361_340_902_404_056),
        ];
        for (p, want) in cases {
            let got = normal_quantile(p);
            assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "p={p}: {got} vs {want}");
        }
    }

    #[test]
    fn symmetric_monotone_and_total() {
        let mut prev = f64::NEG_INFINITY;
        for k in 1..1000 {
            let p = k as f64 / 1000.0;
            let x = normal_quantile(p);
            assert!(x > prev);
            prev = x;
            assert!((x + normal_quantile(1.0 - p)).abs() < 1e-12);
            assert!((normal_cdf(x) - p).abs() < 1e-14);
        }
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert!(normal_quantile(f64::NAN).is_nan());
        assert!(normal_quantile(f64::MIN_POSITIVE).is_finite());
        assert!(normal_quantile(0.5 / (1u64 << 53) as f64).is_finite());
    }
}
