//! Shown arithmetic whose operands are shown exactly as given (47.62 stays
//! 47.62): only the result is rounded, and then it is marked "≈".

use serde::Serialize;

use crate::claim::equation::{Expr, show};

/// A number exactly as it was given: its shortest round-trip digits
/// (exponent form far from 1).
pub fn given(x: f64) -> String {
    if x != 0.0 && x.is_finite() && (x.abs() < 1e-6 || x.abs() >= 1e15) { format!("{x:e}") } else { format!("{x}") }
}

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Add(..) | Expr::Sub(..) => 1,
        Expr::Mul(..) | Expr::Div(..) => 2,
        _ => 3,
    }
}

fn render(e: &Expr, out: &mut String) {
    let wrap = |x: &Expr, need: bool, out: &mut String| {
        if need {
            out.push('(');
        }
        render(x, out);
        if need {
            out.push(')');
        }
    };
    let bin = |a: &Expr, op: &str, b: &Expr, strict: bool, out: &mut String| {
        wrap(a, prec(a) < prec(e), out);
        out.push_str(op);
        wrap(b, prec(b) < prec(e) || (strict && prec(b) == prec(e)), out);
    };
    match e {
        Expr::Num(v, unit) => {
            out.push_str(&given(*v));
            if !unit.is_empty() {
                out.push(' ');
                out.push_str(unit);
            }
        }
        Expr::Add(a, b) => bin(a, " + ", b, false, out),
        Expr::Sub(a, b) => bin(a, " − ", b, true, out),
        Expr::Mul(a, b) => bin(a, " × ", b, false, out),
        Expr::Div(a, b) => bin(a, " / ", b, true, out),
        Expr::Round(a) | Expr::Floor(a) | Expr::Ceil(a) => {
            out.push_str(match e {
                Expr::Round(_) => "round(",
                Expr::Floor(_) => "floor(",
                _ => "ceil(",
            });
            render(a, out);
            out.push(')');
        }
        Expr::Min(a, b) => {
            out.push_str("min(");
            render(a, out);
            out.push_str(", ");
            render(b, out);
            out.push(')');
        }
    }
}

/// An exact rational `n / d` (`d > 0`), for re-checking shown arithmetic
/// on the operands as typed (6.5 stays 6.5, so it rounds half-up to 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Q(i128, i128);

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

impl Q {
    fn of(x: f64) -> Option<Q> {
        if !x.is_finite() {
            return None;
        }
        let t = format!("{x:e}");
        let (m, e) = t.split_once('e')?;
        let e: i32 = e.parse().ok()?;
        let neg = m.starts_with('-');
        let m = m.trim_start_matches('-');
        let (int, frac) = m.split_once('.').unwrap_or((m, ""));
        let mut num: i128 = format!("{int}{frac}").parse().ok()?;
        if neg {
            num = -num;
        }
        let e = e - frac.len() as i32;
        let p = 10i128.checked_pow(e.unsigned_abs())?;
        if e >= 0 { Q(num.checked_mul(p)?, 1).norm() } else { Q(num, p).norm() }
    }

    fn norm(self) -> Option<Q> {
        if self.1 == 0 {
            return None;
        }
        let g = gcd(self.0, self.1);
        let s = if self.1 < 0 { -1 } else { 1 };
        Some(Q(s * self.0 / g, s * self.1 / g))
    }

    fn add(self, o: Q) -> Option<Q> {
        Q(self.0.checked_mul(o.1)?.checked_add(o.0.checked_mul(self.1)?)?, self.1.checked_mul(o.1)?).norm()
    }

    fn mul(self, o: Q) -> Option<Q> {
        Q(self.0.checked_mul(o.0)?, self.1.checked_mul(o.1)?).norm()
    }

    fn floor(self) -> Q {
        Q(self.0.div_euclid(self.1), 1)
    }

    fn value(self) -> f64 {
        self.0 as f64 / self.1 as f64
    }
}

fn exact(e: &Expr) -> Option<Q> {
    Some(match e {
        Expr::Num(v, _) => Q::of(*v)?,
        Expr::Add(a, b) => exact(a)?.add(exact(b)?)?,
        Expr::Sub(a, b) => exact(a)?.add(exact(b)?.mul(Q(-1, 1))?)?,
        Expr::Mul(a, b) => exact(a)?.mul(exact(b)?)?,
        Expr::Div(a, b) => {
            let d = exact(b)?;
            exact(a)?.mul(Q(d.1, d.0).norm()?)?
        }
        Expr::Round(a) => {
            let x = exact(a)?;
            // Half away from zero, as `f64::round`.
            let half = if x.0 >= 0 { Q(1, 2) } else { Q(-1, 2) };
            let y = x.add(half)?;
            if x.0 >= 0 { y.floor() } else { Q(-(Q(-y.0, y.1).floor().0), 1) }
        }
        Expr::Floor(a) => exact(a)?.floor(),
        Expr::Ceil(a) => {
            let x = exact(a)?;
            Q(-Q(-x.0, x.1).floor().0, 1)
        }
        Expr::Min(a, b) => {
            let (x, y) = (exact(a)?, exact(b)?);
            if x.0.checked_mul(y.1)? <= y.0.checked_mul(x.1)? { x } else { y }
        }
    })
}

/// Whether the expression's exact value is `x` exactly (floating point
/// where the numbers do not fit).
pub fn equals(e: &Expr, x: f64) -> bool {
    match (exact(e), Q::of(x)) {
        (Some(a), Some(b)) => a == b,
        _ => e.eval() == x,
    }
}

/// How the exact values of two expressions compare (floating point where
/// the numbers do not fit).
pub fn compare(a: &Expr, b: &Expr) -> std::cmp::Ordering {
    match (exact(a), exact(b)) {
        (Some(x), Some(y)) => match (x.0.checked_mul(y.1), y.0.checked_mul(x.1)) {
            (Some(l), Some(r)) => l.cmp(&r),
            _ => x.value().total_cmp(&y.value()),
        },
        _ => a.eval().total_cmp(&b.eval()),
    }
}

/// The expression's value on its operands as typed: exact rational
/// arithmetic where the numbers fit, else floating point.
pub fn value(e: &Expr) -> f64 {
    exact(e).map_or_else(|| e.eval(), Q::value)
}

/// An arithmetic statement's numbers: the expression over given operands
/// and the result it states.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Arith {
    /// Operands (as given) and operators.
    pub expr: Expr,
    /// The stated result (the caller's rule: the expression's value, or an
    /// exact computation of it).
    pub result: f64,
    /// The result's unit ("" for none).
    pub unit: &'static str,
}

impl Arith {
    /// The expression's own value as the result.
    pub fn new(expr: Expr, unit: &'static str) -> Arith {
        let result = value(&expr);
        Arith { expr, result, unit }
    }

    /// A result computed by another rule (exact rational arithmetic).
    pub fn with_result(expr: Expr, result: f64, unit: &'static str) -> Arith {
        Arith { expr, result, unit }
    }

    /// The result as shown: rounded (2 decimals, 3 significant digits below
    /// 1), with "≈ " before it when rounding changed it, and its unit.
    pub fn shown(&self) -> String {
        let s = show(self.result);
        let exact = s.parse::<f64>().is_ok_and(|x| equals(&self.expr, x));
        let s = if exact { s } else { format!("≈ {s}") };
        if self.unit.is_empty() { s } else { format!("{s} {}", self.unit) }
    }

    /// The operands and operators as shown.
    pub fn substituted(&self) -> String {
        let mut s = String::new();
        render(&self.expr, &mut s);
        s
    }

    /// Re-checks what a reader sees: every operand shown reads back as the
    /// number given, the shown result is within half a unit of its last
    /// digit of what the shown operands give, and "≈" is there exactly when
    /// the result was rounded.
    pub fn check(&self) -> Result<(), String> {
        let text = self.substituted();
        let shown = self.shown();
        let leaves = self.expr.leaves();
        for v in &leaves {
            if given(*v).parse::<f64>().ok() != Some(*v) {
                return Err(format!("{text}: operand {v} is not shown as given"));
            }
        }
        let value = value(&self.expr);
        let number = shown.trim_start_matches("≈ ").split(' ').next().unwrap_or("");
        let Ok(n) = number.parse::<f64>() else { return Err(format!("{shown}: not a number")) };
        let unit = crate::claim::equation::last_unit(number);
        let rel = 1e-9 * value.abs().max(1.0);
        if (n - value).abs() > unit / 2.0 + rel || (self.result - value).abs() > rel + unit / 2.0 {
            return Err(format!("{text} = {shown}, but the operands give {value}"));
        }
        if shown.starts_with('≈') == equals(&self.expr, n) {
            return Err(format!("{text} = {shown}: \"≈\" must mark exactly a rounded result ({value})"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claim::equation::{div, mul, n, u};

    #[test]
    fn operands_stay_as_given() {
        // T24: 47.62 /s × 231 ms stays 47.62 and 231, the result alone rounds.
        let a = Arith::new(div(mul(u(47.62, "/s"), u(231.0, "ms")), n(1000.0)), "");
        assert_eq!(a.substituted(), "47.62 /s × 231 ms / 1000");
        assert_eq!(a.shown(), "≈ 11");
        a.check().unwrap();
        let exact = Arith::new(mul(n(0.5), n(4.0)), "ms");
        assert_eq!(exact.shown(), "2 ms");
        exact.check().unwrap();
        let lying = Arith::with_result(mul(n(0.5), n(4.0)), 2.5, "ms");
        assert!(lying.check().is_err());
        // Exact on the operands as typed: 1 × (45 − 6) / 6 = 6.5 rounds to 7.
        use crate::claim::equation::{round, sub};
        let half = Arith::with_result(round(div(mul(n(1.0), sub(n(45.0), n(6.0))), n(6.0))), 7.0, "");
        half.check().unwrap();
        assert_eq!(value(&div(n(0.3), n(0.1))), 3.0);
    }
}
