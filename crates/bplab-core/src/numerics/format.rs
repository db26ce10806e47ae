//! Java's `String.format(Locale.ROOT, "%.Nf", x)`.
//!
//! Java takes the *shortest* decimal digit string that round-trips to `x`
//! and rounds that string half-up to `N` places. Rust's `{:.N}` rounds the
//! exact binary value half-to-even, which differs on ties such as 0.25 or
//! 2.675. Rust's `{:e}` prints the same shortest round-trip digits Java
//! starts from, so we take those digits and round the decimal string.

use std::fmt::Write;

/// Formats `x` like Java's `%.{places}f` with `Locale.ROOT`.
///
/// Non-finite values print as Java does (`NaN`, `Infinity`, `-Infinity`).
pub fn format_fixed(x: f64, places: usize) -> String {
    let mut out = String::with_capacity(16);
    write_fixed(&mut out, x, places);
    out
}

/// Whole numbers below this (2^53) take [`write_fixed`]'s direct path:
/// every one is exact in an f64 and its shortest round-trip digits are its
/// decimal digits.
const WHOLE_BELOW: f64 = 9_007_199_254_740_992.0;

/// Appends the decimal digits of `n` (at most 20 deep).
fn push_digits(out: &mut String, n: u64) {
    if n >= 10 {
        push_digits(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// Appends `x` formatted like Java's `%.{places}f` to `out`.
pub fn write_fixed(out: &mut String, x: f64, places: usize) {
    if x.is_nan() {
        out.push_str("NaN");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    // A whole number below 2^53 (counts, and counts × a whole rate: most
    // table cells): its shortest digits are its integer digits, so the
    // general path below would print them, a `-` for a negative value or
    // -0, and `places` zeros. Printed directly (no `{:e}`, no allocation).
    let magnitude = x.abs();
    if magnitude < WHOLE_BELOW && magnitude as u64 as f64 == magnitude {
        if x.is_sign_negative() {
            out.push('-');
        }
        push_digits(out, magnitude as u64);
        if places > 0 {
            out.push('.');
            for _ in 0..places {
                out.push('0');
            }
        }
        return;
    }
    write_shortest_rounded(out, x, places);
}

/// [`write_fixed`] of a finite `x` from its shortest round-trip digits.
fn write_shortest_rounded(out: &mut String, x: f64, places: usize) {
    // Shortest round-trip digits, e.g. "2.675e0" or "-1.25e-3".
    let mut sci = String::with_capacity(32);
    let _ = write!(sci, "{:e}", x);
    let (negative, body) = match sci.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, sci.as_str()),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    // digits d1 d2 ... with the decimal point after d1, scaled by 10^exp.
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
    // Position of the decimal point within `digits` (may be <= 0 or > len).
    let point = 1 + exp;
    let mut kept: Vec<u8> = Vec::with_capacity(digits.len().max(1) + places + 2);
    // Build the integer part and fraction part as one digit vector aligned so
    // that the decimal point is after `int_len` digits.
    let int_len = point.max(1) as usize;
    // Leading zeros when point <= 0 (e.g. 0.00123).
    let lead_zeros = if point <= 0 { (1 - point) as usize } else { 0 };
    kept.extend(std::iter::repeat_n(0u8, lead_zeros));
    kept.extend_from_slice(&digits);
    // Now the decimal point is after `int_len` digits of `kept`.
    let total = int_len + places;
    // Half-up on the first dropped digit of the shortest representation.
    let round_up = kept.get(total).copied().unwrap_or(0) >= 5;
    kept.resize(total, 0);
    if round_up {
        let mut i = total;
        loop {
            if i == 0 {
                kept.insert(0, 1);
                break;
            }
            i -= 1;
            if kept[i] == 9 {
                kept[i] = 0;
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let int_digits = kept.len() - places;
    // Java keeps the sign of negative values that round to zero ("-0.0").
    if negative {
        out.push('-');
    }
    for &d in &kept[..int_digits] {
        out.push((b'0' + d) as char);
    }
    if places > 0 {
        out.push('.');
        for &d in &kept[int_digits..] {
            out.push((b'0' + d) as char);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::format_fixed;

    #[test]
    fn java_half_up_vectors_from_the_spec() {
        let cases: &[(f64, usize, &str)] = &[
            (0.15, 1, "0.2"),
            (0.25, 1, "0.3"),
            (0.125, 1, "0.1"),
            (1.05, 1, "1.1"),
            (0.045, 1, "0.0"),
            (2.675, 2, "2.68"),
            (0.125, 2, "0.13"),
            (0.045, 2, "0.05"),
            (123456789.25, 1, "123456789.3"),
        ];
        for &(x, n, want) in cases {
            assert_eq!(format_fixed(x, n), want, "%.{n}f of {x}");
        }
    }

    #[test]
    fn ordinary_values() {
        assert_eq!(format_fixed(0.0, 1), "0.0");
        assert_eq!(format_fixed(25.41, 2), "25.41");
        assert_eq!(format_fixed(1092.6, 1), "1092.6");
        assert_eq!(format_fixed(9.95, 1), "10.0");
        assert_eq!(format_fixed(99.96, 1), "100.0");
        assert_eq!(format_fixed(0.96, 0), "1");
        assert_eq!(format_fixed(1e21, 1), "1000000000000000000000.0");
        assert_eq!(format_fixed(1.5e-7, 2), "0.00");
        assert_eq!(format_fixed(0.0005, 3), "0.001");
        assert_eq!(format_fixed(0.0004, 3), "0.000");
        assert_eq!(format_fixed(7.0, 0), "7");
        assert_eq!(format_fixed(-2.5, 1), "-2.5");
        assert_eq!(format_fixed(f64::NAN, 1), "NaN");
    }

    #[test]
    fn whole_numbers_print_as_the_shortest_digits_rounded_do() {
        let mut xs = vec![0.0, -0.0, 1.0, -1.0, 9.0, 10.0, 99.0, 100.0, 1e15, 1e16, 123456789.0, -42.0];
        xs.extend([
            super::WHOLE_BELOW - 1.0,
            -(super::WHOLE_BELOW - 1.0),
            super::WHOLE_BELOW - 2.0,
            2f64.powi(52) + 1.0,
        ]);
        xs.extend((0..2000).map(|i| f64::from(i) * 7.0));
        xs.extend((0..64).map(|k| 2f64.powi(k) - 1.0));
        for x in xs {
            for places in [0, 1, 2, 3] {
                let mut fast = String::new();
                super::write_fixed(&mut fast, x, places);
                let mut general = String::new();
                super::write_shortest_rounded(&mut general, x, places);
                assert_eq!(fast, general, "%.{places}f of {x}");
            }
        }
        // Past 2^53 and fractions take the general path.
        assert_eq!(format_fixed(super::WHOLE_BELOW, 1), "9007199254740992.0");
        assert_eq!(format_fixed(-0.0, 1), "-0.0");
        assert_eq!(format_fixed(12.0, 0), "12");
    }

    #[test]
    fn differs_from_rust_half_even() {
        // Rust's formatter rounds the binary value; Java rounds the shortest digits.
        assert_eq!(format!("{:.1}", 0.25), "0.2");
        assert_eq!(format_fixed(0.25, 1), "0.3");
    }
}
