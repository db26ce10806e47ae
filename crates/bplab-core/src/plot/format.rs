//! Numbers as plots show them (tick labels and marker labels alike).

/// A compact number: integers plainly, others with up to two decimals,
/// magnitudes from a million up in scientific notation (`2.0e6`).
pub fn compact(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "NaN".to_owned()
        } else if v > 0.0 {
            "∞".to_owned()
        } else {
            "−∞".to_owned()
        };
    }
    if v.abs() >= 1e6 {
        return format!("{v:.1e}");
    }
    if (v - v.round()).abs() < 1e-9 {
        return format!("{}", v.round() as i64);
    }
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_owned() } else { s.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn compact_numbers() {
        assert_eq!(compact(0.5), "0.5");
        assert_eq!(compact(200.0), "200");
        assert_eq!(compact(2e6), "2.0e6");
        assert_eq!(compact(47.619), "47.62");
        assert_eq!(compact(-0.001), "0");
        assert_eq!(compact(f64::INFINITY), "∞");
    }
}
