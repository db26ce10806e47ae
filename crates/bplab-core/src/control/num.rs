//! Java-compatible numeric helpers shared by the limiters, and the range
//! checks their configs use (the accepted-range text is built from the same
//! bounds that are enforced).

use super::ControlError;

/// Lowest accepted limit (initial, minimum, maximum, fixed), inclusive.
pub const LIMIT_MIN: i32 = 0;
/// Highest accepted limit, inclusive (Java's `int` range).
pub const LIMIT_MAX: i32 = i32::MAX;
/// Lowest accepted smoothing weight, inclusive.
pub const SMOOTHING_MIN: f64 = 0.0;
/// Highest accepted smoothing weight, inclusive.
pub const SMOOTHING_MAX: f64 = 1.0;
/// Lowest accepted RTT tolerance (Gradient2, Gradient), inclusive.
pub const RTT_TOLERANCE_MIN: f64 = 1.0;

/// Java's `Math.min(double, double)`: NaN if either is NaN; `-0.0 < +0.0`.
#[inline]
pub(crate) fn jmin(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return a;
    }
    if a == 0.0 && b == 0.0 && b.is_sign_negative() {
        return b;
    }
    if a <= b { a } else { b }
}

/// Java's `Math.max(double, double)`: NaN if either is NaN; `+0.0 > -0.0`.
#[inline]
pub(crate) fn jmax(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return a;
    }
    if a == 0.0 && b == 0.0 && a.is_sign_negative() {
        return b;
    }
    if a >= b { a } else { b }
}

/// Java's double→int cast (toward zero, saturating, NaN → 0).
#[inline]
pub(crate) fn trunc(x: f64) -> i32 {
    x as i32
}

/// `lg(n)` ("Log10Root"): decimal digits − 1, at least 1. Java throws for
/// n < 0; validated configs never get there, and here it answers 1.
#[inline]
pub(crate) fn lg(n: i32) -> i32 {
    // checked_ilog10 is None for n <= 0; the result is at most 9.
    n.checked_ilog10().map_or(1, |d| (d as i32).max(1))
}

/// `isqrt1(n)` ("SquareRoot"): `floor(sqrt n)`, at least 1. Java throws for
/// n < 0; validated configs never get there, and here it answers 1.
#[inline]
pub(crate) fn isqrt1(n: i32) -> i32 {
    if n <= 0 { 1 } else { n.isqrt().max(1) }
}

/// A whole number in `[lo, hi]`.
pub(crate) fn whole(param: &'static str, v: i32, lo: i32, hi: i32) -> Result<i32, ControlError> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(ControlError::range(param, v, format!("a whole number from {lo} to {hi}")))
    }
}

/// A number in `[lo, hi]` (NaN rejected).
pub(crate) fn closed(param: &'static str, v: f64, lo: f64, hi: f64) -> Result<f64, ControlError> {
    if v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(ControlError::range(param, format!("{v:?}"), format!("a number from {lo:?} to {hi:?} (both inclusive)")))
    }
}

/// A number in `[lo, hi)` (NaN rejected).
pub(crate) fn half_open(param: &'static str, v: f64, lo: f64, hi: f64) -> Result<f64, ControlError> {
    if v >= lo && v < hi {
        Ok(v)
    } else {
        Err(ControlError::range(
            param,
            format!("{v:?}"),
            format!("a number from {lo:?} (inclusive) to {hi:?} (exclusive)"),
        ))
    }
}

/// A finite number `>= lo`.
pub(crate) fn at_least(param: &'static str, v: f64, lo: f64) -> Result<f64, ControlError> {
    if v >= lo && v.is_finite() {
        Ok(v)
    } else {
        Err(ControlError::range(param, format!("{v:?}"), format!("a finite number from {lo:?} (inclusive) up")))
    }
}

/// `ns` as an exact decimal count of milliseconds ("5000.000001", "-0.5").
pub fn fmt_ns_as_ms(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let abs = ns.unsigned_abs();
    let (whole, frac) = (abs / 1_000_000, abs % 1_000_000);
    if frac == 0 {
        format!("{sign}{whole}")
    } else {
        let digits = format!("{frac:06}");
        format!("{sign}{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// Parses a non-negative decimal count of milliseconds (`"10"`, `"5000.000001"`)
/// into nanoseconds **exactly**, from the digits (no floating point). `None`
/// for anything else: a sign, an exponent, more than 6 significant decimals
/// (finer than 1 ns), a missing digit around the `.`, or a value above `i64::MAX` ns.
pub fn parse_ms_ns(text: &str) -> Option<i64> {
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (text, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) {
        return None;
    }
    let mut ns: i64 = 0;
    for b in int.bytes() {
        ns = ns.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    ns = ns.checked_mul(1_000_000)?;
    if let Some(frac) = frac {
        if !all_digits(frac) || frac.bytes().skip(6).any(|b| b != b'0') {
            return None;
        }
        let mut scale = 100_000;
        for b in frac.bytes().take(6) {
            ns = ns.checked_add(i64::from(b - b'0') * scale)?;
            scale /= 10;
        }
    }
    Some(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lg_is_digits_minus_one_at_least_one() {
        for (n, want) in [(0, 1), (1, 1), (99, 1), (100, 2), (999, 2), (1000, 3), (9999, 3), (10_000, 4)] {
            assert_eq!(lg(n), want, "lg({n})");
        }
        assert_eq!(lg(i32::MAX), 9);
        assert_eq!(lg(-5), 1);
    }

    #[test]
    fn isqrt1_is_floor_sqrt_at_least_one() {
        for (n, want) in [(0, 1), (1, 1), (3, 1), (4, 2), (24, 4), (25, 5), (63, 7), (64, 8), (999, 31), (1000, 31)] {
            assert_eq!(isqrt1(n), want, "isqrt1({n})");
        }
        assert_eq!(isqrt1(i32::MAX), 46_340);
        assert_eq!(isqrt1(-1), 1);
    }

    #[test]
    fn java_min_max_propagate_nan_and_order_zeros() {
        assert!(jmin(1.0, f64::NAN).is_nan() && jmin(f64::NAN, 1.0).is_nan());
        assert!(jmax(1.0, f64::NAN).is_nan() && jmax(f64::NAN, 1.0).is_nan());
        assert!(jmin(0.0, -0.0).is_sign_negative() && jmin(-0.0, 0.0).is_sign_negative());
        assert!(jmax(0.0, -0.0).is_sign_positive() && jmax(-0.0, 0.0).is_sign_positive());
        assert_eq!((jmin(2.0, 3.0), jmax(2.0, 3.0)), (2.0, 3.0));
        assert_eq!((trunc(19.8), trunc(-19.8), trunc(f64::NAN), trunc(1e20)), (19, -19, 0, i32::MAX));
    }

    #[test]
    fn ms_parse_exactly_to_ns() {
        assert_eq!(parse_ms_ns("5000.000001"), Some(5_000_000_001));
        assert_eq!(parse_ms_ns("10.5"), Some(10_500_000));
        assert_eq!(parse_ms_ns("0.1000000"), Some(100_000));
        assert_eq!(parse_ms_ns("007"), Some(7_000_000));
        assert_eq!(parse_ms_ns("9223372036854.775807"), Some(i64::MAX));
        for bad in ["", ".5", "5.", "-1", "+1", "1e3", "0.0000001", "9223372036854.775808", "1.2.3", "abc", " 1"] {
            assert_eq!(parse_ms_ns(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn ns_print_as_exact_ms() {
        assert_eq!(fmt_ns_as_ms(5_000_000_001), "5000.000001");
        assert_eq!(fmt_ns_as_ms(100_500_000), "100.5");
        assert_eq!(fmt_ns_as_ms(0), "0");
        assert_eq!(fmt_ns_as_ms(-1), "-0.000001");
        assert_eq!(fmt_ns_as_ms(i64::MIN), "-9223372036854.775808");
    }
}
