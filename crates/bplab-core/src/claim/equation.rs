//! Shown arithmetic as data: operands, operators and the result, rendered by
//! one function so that every equation a reader sees recomputes from the
//! numbers it shows. The result is shown with 2 decimals (3 significant
//! digits below 1); each operand with at least as many significant digits,
//! more when fewer would not recompute to within one unit of the result's
//! last digit.

use serde::Serialize;

use crate::numerics::format_fixed;

/// An arithmetic expression over shown numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Expr {
    /// A number and the unit shown after it ("" for none).
    Num(f64, &'static str),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    /// `a − b`.
    Sub(Box<Expr>, Box<Expr>),
    /// `a × b`.
    Mul(Box<Expr>, Box<Expr>),
    /// `a / b`.
    Div(Box<Expr>, Box<Expr>),
    /// `round(a)`: half away from zero on the floating-point value (the models' rule).
    Round(Box<Expr>),
    /// `floor(a)`.
    Floor(Box<Expr>),
    /// `ceil(a)`.
    Ceil(Box<Expr>),
    /// `min(a, b)`.
    Min(Box<Expr>, Box<Expr>),
}

/// A number without a unit.
pub fn n(v: f64) -> Expr {
    Expr::Num(v, "")
}

/// A number with a unit.
pub fn u(v: f64, unit: &'static str) -> Expr {
    Expr::Num(v, unit)
}

macro_rules! bin {
    ($name:ident, $var:ident) => {
        /// The operator applied to two expressions.
        pub fn $name(a: Expr, b: Expr) -> Expr {
            Expr::$var(Box::new(a), Box::new(b))
        }
    };
}
bin!(add, Add);
bin!(sub, Sub);
bin!(mul, Mul);
bin!(div, Div);
bin!(min, Min);

/// `round(a)`.
pub fn round(a: Expr) -> Expr {
    Expr::Round(Box::new(a))
}
/// `floor(a)`.
pub fn floor(a: Expr) -> Expr {
    Expr::Floor(Box::new(a))
}
/// `ceil(a)`.
pub fn ceil(a: Expr) -> Expr {
    Expr::Ceil(Box::new(a))
}

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Add(..) | Expr::Sub(..) => 1,
        Expr::Mul(..) | Expr::Div(..) => 2,
        _ => 3,
    }
}

impl Expr {
    /// The value, with every number as given.
    pub fn eval(&self) -> f64 {
        self.eval_with(&mut |v| v)
    }

    fn eval_with(&self, leaf: &mut impl FnMut(f64) -> f64) -> f64 {
        match self {
            Expr::Num(v, _) => leaf(*v),
            Expr::Add(a, b) => a.eval_with(leaf) + b.eval_with(leaf),
            Expr::Sub(a, b) => a.eval_with(leaf) - b.eval_with(leaf),
            Expr::Mul(a, b) => a.eval_with(leaf) * b.eval_with(leaf),
            Expr::Div(a, b) => a.eval_with(leaf) / b.eval_with(leaf),
            Expr::Round(a) => libm::round(a.eval_with(leaf)),
            Expr::Floor(a) => libm::floor(a.eval_with(leaf)),
            Expr::Ceil(a) => libm::ceil(a.eval_with(leaf)),
            Expr::Min(a, b) => a.eval_with(leaf).min(b.eval_with(leaf)),
        }
    }

    fn render(&self, digits: usize, out: &mut String) {
        let paren = |e: &Expr, need: bool, out: &mut String| {
            if need {
                out.push('(');
            }
            e.render(digits, out);
            if need {
                out.push(')');
            }
        };
        let binop = |a: &Expr, op: &str, b: &Expr, right_strict: bool, out: &mut String| {
            let p = prec(self);
            paren(a, prec(a) < p, out);
            out.push_str(op);
            paren(b, prec(b) < p || (right_strict && prec(b) == p), out);
        };
        match self {
            Expr::Num(v, unit) => {
                out.push_str(&sig(*v, digits));
                if !unit.is_empty() {
                    out.push(' ');
                    out.push_str(unit);
                }
            }
            Expr::Add(a, b) => binop(a, " + ", b, false, out),
            Expr::Sub(a, b) => binop(a, " − ", b, true, out),
            Expr::Mul(a, b) => binop(a, " × ", b, false, out),
            Expr::Div(a, b) => binop(a, " / ", b, true, out),
            Expr::Round(a) | Expr::Floor(a) | Expr::Ceil(a) => {
                out.push_str(match self {
                    Expr::Round(_) => "round(",
                    Expr::Floor(_) => "floor(",
                    _ => "ceil(",
                });
                a.render(digits, out);
                out.push(')');
            }
            Expr::Min(a, b) => {
                out.push_str("min(");
                a.render(digits, out);
                out.push_str(", ");
                b.render(digits, out);
                out.push(')');
            }
        }
    }

    /// The shown numbers, in order.
    pub fn leaves(&self) -> Vec<f64> {
        let mut v = Vec::new();
        self.eval_with(&mut |x| {
            v.push(x);
            x
        });
        v
    }
}

/// Decimals that show `x` to `n` significant digits.
fn decimals_for(x: f64, n: usize) -> usize {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let e: i64 = format!("{:e}", x.abs()).split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    (n as i64 - 1 - e).clamp(0, 30) as usize
}

fn trim(s: String) -> String {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s }
}

/// `x` to `n` significant digits (Java half-up on the shortest digits);
/// trailing zeros trimmed only when what remains is `x` exactly (0.2, not
/// 0.08500 for 0.0850004); whole numbers below 10^15 in full.
pub fn sig(x: f64, n: usize) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format_fixed(x, 0);
    }
    let full = format_fixed(x, decimals_for(x, n));
    let trimmed = trim(full.clone());
    if trimmed.parse::<f64>().ok() == Some(x) { trimmed } else { full }
}

/// Decimals of a shown result: 2, or 3 significant digits below 1.
fn result_decimals(x: f64) -> usize {
    if x.abs() >= 1.0 || x == 0.0 { 2 } else { decimals_for(x, 3).max(2) }
}

/// A result as shown: 2 decimals, 3 significant digits below 1, trimmed.
pub fn show(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format_fixed(x, 0);
    }
    trim(format_fixed(x, result_decimals(x)))
}

/// Significant digits of a shown number ("0.095" → 2, "11.19" → 4, "300" → 3).
pub fn sig_digits(shown: &str) -> usize {
    let d: String = shown.chars().filter(char::is_ascii_digit).collect();
    let d = d.trim_start_matches('0');
    d.len().max(1)
}

/// One unit in the last digit of a shown number ("11.2" → 0.1, "300" → 1).
pub fn last_unit(shown: &str) -> f64 {
    match shown.split_once('.') {
        Some((_, f)) => libm::pow(10.0, -(f.len() as f64)),
        None => 1.0,
    }
}

/// An equation: its expression and the result it shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Equation {
    /// Operands and operators.
    pub expr: Expr,
    /// The result (the value the text states, computed by the caller's rule).
    pub result: f64,
    /// The result's unit ("" for none).
    pub unit: &'static str,
}

impl Equation {
    /// An equation whose result is its expression's value.
    pub fn new(expr: Expr, unit: &'static str) -> Equation {
        let result = expr.eval();
        Equation { expr, result, unit }
    }

    /// An equation with a result computed by another rule (exact arithmetic).
    pub fn with_result(expr: Expr, result: f64, unit: &'static str) -> Equation {
        Equation { expr, result, unit }
    }

    /// The shown result, without its unit.
    pub fn shown_result(&self) -> String {
        show(self.result)
    }

    /// The substituted side and the shown result (with unit): the operands
    /// get at least the result's significant digits, and more until the
    /// shown operands recompute to the shown result within one unit of its
    /// last digit.
    pub fn render(&self) -> (String, String) {
        let shown = self.shown_result();
        let want = sig_digits(&shown).max(2);
        let mut text = String::new();
        for digits in want..=17 {
            text.clear();
            self.expr.render(digits, &mut text);
            if recomputes(&self.expr, digits, &shown) {
                break;
            }
        }
        let value = if self.unit.is_empty() { shown } else { format!("{shown} {}", self.unit) };
        (text, value)
    }
}

fn recomputes(e: &Expr, digits: usize, shown: &str) -> bool {
    let v = e.eval_with(&mut |x| sig(x, digits).parse::<f64>().unwrap_or(f64::NAN));
    let target = shown.parse::<f64>().unwrap_or(f64::NAN);
    (v - target).abs() <= last_unit(shown) * (1.0 + 1e-9)
}

/// Recomputes a rendered equation from its displayed operands, as a reader
/// would: `Err` says which one does not add up. Used by the tests.
pub fn check_rendered(eq: &Equation) -> Result<(), String> {
    let (text, value) = eq.render();
    let shown = value.split(' ').next().unwrap_or("").to_owned();
    // Parse the displayed operands back from the text, in order.
    let mut nums: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev = ' ';
    for c in text.chars() {
        if c.is_ascii_digit() || (c == '.' && !cur.is_empty()) || (c == '-' && cur.is_empty() && prev == '(') {
            cur.push(c);
        } else if !cur.is_empty() {
            nums.push(std::mem::take(&mut cur));
        }
        prev = c;
    }
    if !cur.is_empty() {
        nums.push(cur);
    }
    let leaves = eq.expr.leaves();
    if nums.len() != leaves.len() {
        return Err(format!("{text}: {} numbers shown, {} operands", nums.len(), leaves.len()));
    }
    let mut it = nums.iter();
    let v = eq.expr.eval_with(&mut |_| it.next().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN));
    let target: f64 = shown.parse().map_err(|_| format!("{value}: not a number"))?;
    if (v - target).abs() > last_unit(&shown) * (1.0 + 1e-9) {
        return Err(format!("{text} = {value}, but the shown operands give {v}"));
    }
    let want = sig_digits(&shown);
    for (s, leaf) in nums.iter().zip(&leaves) {
        let exact = s.parse::<f64>().ok() == Some(*leaf);
        if !exact && sig_digits(s) < want.min(17) {
            return Err(format!("{text} = {value}: operand {s} has fewer significant digits than the result"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audit_equations_recompute() {
        // collapse: 300 × t* / 5 with t* = 0.095 s, not "0.1".
        let t = 0.19 * 100.0 / 200.0;
        let e = Equation::new(div(mul(n(300.0), u(t, "s")), u(5.0, "s")), "rps");
        let (text, value) = e.render();
        assert_eq!((text.as_str(), value.as_str()), ("300 × 0.095 s / 5 s", "5.7 rps"));
        check_rendered(&e).unwrap();
        // limit --budget-ms 235: 47.62 /s × 0.235 s = 11.19.
        let e = Equation::new(mul(u(1000.0 / 21.0, "/s"), u(0.235, "s")), "");
        let (text, value) = e.render();
        assert_eq!(value, "11.19");
        assert!(text.contains("0.235"), "{text}");
        check_rendered(&e).unwrap();
        // littles 1000 /s × 0.004 s = 4.
        let e = Equation::new(mul(u(1000.0, "/s"), u(0.004, "s")), "");
        assert_eq!(e.render().0, "1000 /s × 0.004 s");
        // admission round(1000 / 3 × 0.015) = 5.
        let e = Equation::new(round(mul(div(n(1000.0), n(3.0)), n(0.015))), "");
        assert_eq!(e.render(), ("round(1000 / 3 × 0.015)".to_owned(), "5".to_owned()));
        check_rendered(&e).unwrap();
        // The models' B at S = 6, D = 9 is 1 in floating point.
        let e = Equation::new(round(mul(div(n(1000.0), n(6.0)), n(0.009))), "");
        assert_eq!(e.shown_result(), "1");
        check_rendered(&e).unwrap();
        // Parentheses where precedence needs them.
        let e = Equation::new(div(mul(n(4.0), sub(n(230.0), n(12.0))), n(12.0)), "");
        assert_eq!(e.render(), ("4 × (230 − 12) / 12".to_owned(), "72.67".to_owned()));
        // Cancellation: more digits until it recomputes.
        let e = Equation::new(sub(n(100.004), n(100.0012)), "");
        check_rendered(&e).unwrap();
        assert_eq!(show(0.00123456), "0.00123");
        assert_eq!(sig(166.666_666_666_666_66, 5), "166.67");
    }
}
