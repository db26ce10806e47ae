//! Axis ranges, tick positions and the data-to-pixel mapping. Every helper
//! is total: empty, constant, non-finite or huge inputs give a usable range
//! instead of a panic.

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

/// A linear map from `[lo, hi]` onto pixels `[p0, p1]`, saturating far
/// outside so that no pixel coordinate overflows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Map {
    pub lo: f64,
    pub hi: f64,
    pub p0: f64,
    pub p1: f64,
}

impl Map {
    pub fn px(&self, v: f64) -> f64 {
        let width = self.hi - self.lo;
        if !(width.is_finite() && width > 0.0 && v.is_finite()) {
            return (self.p0 + self.p1) / 2.0;
        }
        let off = ((v - self.lo) / width * (self.p1 - self.p0)).clamp(-1e7, 1e7);
        self.p0 + off
    }
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
        assert_eq!(span([10.0, 20.0], true), (0.0, 21.0));
    }

    #[test]
    fn ticks_are_nice() {
        assert_eq!(ticks(0.0, 105.0, 6), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(ticks(1.0, 1.0, 6), vec![1.0]);
        assert!(ticks(0.0, 1e15, 6).len() <= 64);
    }

    #[test]
    fn map_saturates() {
        let m = Map { lo: 0.0, hi: 1.0, p0: 10.0, p1: 110.0 };
        assert_eq!(m.px(0.5), 60.0);
        assert!(m.px(1e300).is_finite() && m.px(f64::NAN) == 60.0);
    }
}
