//! Palette, axis-range helpers and tick formatting shared by every figure.
//! Every helper is total: empty, constant, non-finite or huge inputs give a
//! usable range instead of a panic.

use plotters::style::RGBColor;

/// Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
pub(crate) const BLUE: RGBColor = RGBColor(0, 114, 178);
/// Orange.
pub(crate) const ORANGE: RGBColor = RGBColor(230, 159, 0);
/// Bluish green.
pub(crate) const GREEN: RGBColor = RGBColor(0, 158, 115);
/// Vermillion.
pub(crate) const RED: RGBColor = RGBColor(213, 94, 0);
/// Reddish purple.
pub(crate) const PURPLE: RGBColor = RGBColor(204, 121, 167);
/// Sky blue.
pub(crate) const SKY: RGBColor = RGBColor(86, 180, 233);
/// Reference lines (ideal curves, capacity, y = x).
pub(crate) const GREY: RGBColor = RGBColor(110, 110, 110);
/// Focus highlights chosen by the page.
pub(crate) const FOCUS: RGBColor = RGBColor(20, 20, 20);

/// Largest magnitude an axis shows; beyond it values are clamped so that the
/// pixel mapping stays finite.
const LIMIT: f64 = 1e15;

/// The `[lo, hi]` range of the finite `values` (clamped to ±1e15), padded:
/// 5 % headroom, `lo` pulled to 0 when `floor_zero` and all values are
/// non-negative, and a unit-sized window around a constant. No values → `(0, 1)`.
pub(crate) fn span(values: impl IntoIterator<Item = f64>, floor_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        let v = v.clamp(-LIMIT, LIMIT);
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return (0.0, 1.0);
    }
    if floor_zero && lo >= 0.0 {
        lo = 0.0;
    }
    let width = hi - lo;
    if width <= hi.abs().max(lo.abs()) * 1e-9 || width <= f64::MIN_POSITIVE {
        let pad = (hi.abs() * 0.1).max(1.0);
        let lo = if floor_zero && lo >= 0.0 { 0.0 } else { lo - pad };
        return (lo, hi + pad);
    }
    let pad = width * 0.05;
    let lo = if floor_zero && lo >= 0.0 { lo } else { lo - pad };
    (lo, hi + pad)
}

/// "Nice" tick positions (1, 2 or 5 × 10ⁿ apart) inside `[lo, hi]`, about `target` of them.
pub(crate) fn ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let width = hi - lo;
    if !(width.is_finite() && width > 0.0) {
        return vec![lo];
    }
    let raw = width / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil();
    (0..64).map(|i| (first + f64::from(i)) * step).take_while(|v| *v <= hi + step * 1e-9).collect()
}

/// A compact tick label: integers plainly, small steps with up to two
/// decimals, magnitudes from a million up in scientific notation.
pub(crate) fn fmt_tick(v: f64) -> String {
    if v.abs() >= 1e6 {
        return format!("{v:.1e}");
    }
    if (v - v.round()).abs() < 1e-9 {
        return format!("{}", v.round() as i64);
    }
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_is_total() {
        assert_eq!(span([], true), (0.0, 1.0));
        assert_eq!(span([0.0, 0.0], true), (0.0, 1.0));
        assert_eq!(span([f64::NAN, f64::INFINITY], true), (0.0, 1.0));
        let (lo, hi) = span([5.0], false);
        assert!(lo < 5.0 && hi > 5.0);
        let (lo, hi) = span([1e300, 0.0], true);
        assert!(lo == 0.0 && hi.is_finite() && hi > 1e15);
        let (lo, hi) = span([10.0, 20.0], true);
        assert_eq!((lo, hi), (0.0, 21.0));
    }

    #[test]
    fn ticks_are_nice() {
        assert_eq!(ticks(0.0, 105.0, 6), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(ticks(1.0, 1.0, 6), vec![1.0]);
        assert!(ticks(0.0, 1e15, 6).len() <= 64);
        assert_eq!(fmt_tick(0.5), "0.5");
        assert_eq!(fmt_tick(200.0), "200");
        assert_eq!(fmt_tick(2e6), "2.0e6");
    }
}
