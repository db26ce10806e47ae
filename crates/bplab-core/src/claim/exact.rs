//! Exact arithmetic on the calculators' inputs, as typed. A number reaches
//! the core as the `f64` its text parses to; its shortest round-trip digits
//! are that text (0.1 is 1 × 10^-1, not the binary fraction nearest it).
//! Two such numbers scaled to a common power of ten are integers, so ratios
//! like `w × (B − S) / S` round (half-up, down, up) without the
//! floating-point drift that turns 6.5 into 6.4999….

/// `x = m × 10^e` from its shortest round-trip digits (`x` finite, not negative).
fn decimal(x: f64) -> Option<(i128, i32)> {
    if !x.is_finite() || x < 0.0 {
        return None;
    }
    if x == 0.0 {
        return Some((0, 0));
    }
    let sci = format!("{x:e}");
    let (mant, exp) = sci.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let m: i128 = format!("{int}{frac}").parse().ok()?;
    Some((m, exp - frac.len() as i32))
}

fn pow10(k: i32) -> Option<i128> {
    10i128.checked_pow(u32::try_from(k).ok()?)
}

/// The numbers as integers over one common power of ten.
fn aligned<const N: usize>(xs: [f64; N]) -> Option<[i128; N]> {
    let mut d = [(0i128, 0i32); N];
    for (slot, x) in d.iter_mut().zip(xs) {
        *slot = decimal(x)?;
    }
    let e = d.iter().filter(|(m, _)| *m != 0).map(|(_, e)| *e).min().unwrap_or(0);
    let mut out = [0i128; N];
    for (o, (m, ex)) in out.iter_mut().zip(d) {
        *o = if m == 0 { 0 } else { m.checked_mul(pow10(ex - e)?)? };
        if *o > 1i128 << 100 {
            return None;
        }
    }
    Some(out)
}

/// An exact non-negative rational `num / den`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    /// Numerator.
    pub num: i128,
    /// Denominator, above 0.
    pub den: i128,
}

impl Ratio {
    /// `k × (a − c) / c`-style quantities: `k × (a − sub) / b`, exactly.
    /// `None` when `a < sub`, `b == 0` or the numbers do not fit.
    pub fn scaled_diff(k: u64, a: f64, sub: f64, b: f64) -> Option<Ratio> {
        let [a, s, b] = aligned([a, sub, b])?;
        if a < s || b == 0 {
            return None;
        }
        Some(Ratio { num: (a - s).checked_mul(i128::from(k))?, den: b })
    }

    /// `k × a / b`, exactly.
    pub fn scaled(k: u64, a: f64, b: f64) -> Option<Ratio> {
        Ratio::scaled_diff(k, a, 0.0, b)
    }

    /// Rounded down.
    pub fn floor(self) -> u64 {
        u64::try_from(self.num / self.den).unwrap_or(u64::MAX)
    }

    /// Rounded up.
    pub fn ceil(self) -> u64 {
        u64::try_from((self.num + self.den - 1) / self.den).unwrap_or(u64::MAX)
    }

    /// Rounded half-up: `floor(x + 1/2)`, the lesson's rounding (9.95 → 10, 6.5 → 7).
    pub fn half_up(self) -> u64 {
        match (self.num.checked_mul(2), self.den.checked_mul(2)) {
            (Some(n2), Some(d2)) => u64::try_from((n2 + self.den) / d2).unwrap_or(u64::MAX),
            _ => u64::MAX,
        }
    }

    /// Whether the value is exactly a half-integer (6.5), where rounding rules differ.
    pub fn is_half(self) -> bool {
        self.num.checked_mul(2).is_some_and(|n2| n2 % self.den == 0 && (n2 / self.den) % 2 == 1)
    }
}

/// Whether `k × s <= b` exactly (`k` whole, `s`, `b` finite, not negative).
pub fn times_at_most(k: u64, s: f64, b: f64) -> bool {
    match aligned([s, b]) {
        Some([s2, b2]) => s2.checked_mul(i128::from(k)).is_some_and(|ks| ks <= b2),
        None => (k as f64) * s <= b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_exactly() {
        // 1 × (45 − 6) / 6 = 6.5 exactly; the float path gives 6.4999….
        let q = Ratio::scaled_diff(1, 45.0, 6.0, 6.0).unwrap();
        assert!(q.is_half());
        assert_eq!(q.half_up(), 7);
        // In system 45 / 6 = 7.5 → 8 = 7 queued + 1 in service.
        assert_eq!(Ratio::scaled(1, 45.0, 6.0).unwrap().half_up(), 8);
        // 9 / 6 = 1.5 → 2 (the float model rounds 1000/6 × 0.009 = 1.4999… to 1).
        assert_eq!(Ratio::scaled(1, 9.0, 6.0).unwrap().half_up(), 2);
        assert_eq!(Ratio::scaled_diff(1, 230.0, 21.0, 21.0).unwrap().half_up(), 10);
        assert_eq!(Ratio::scaled_diff(1, 230.0, 21.0, 21.0).unwrap().floor(), 9);
        assert_eq!(Ratio::scaled(1, 100.0, 12.0).unwrap().floor(), 8);
        assert_eq!(Ratio::scaled(1, 0.3, 0.1).unwrap().floor(), 3, "0.3 and 0.1 as typed");
        assert!(times_at_most(3, 0.1, 0.3));
        assert!(times_at_most(8, 12.0, 96.0) && !times_at_most(9, 12.0, 107.0));
        assert_eq!(Ratio::scaled(4, 1e7, 0.001).unwrap().floor(), 40_000_000_000);
    }
}
