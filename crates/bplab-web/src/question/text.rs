//! Author text: a string with `{name}` placeholders, or a list of pieces of
//! which some are conditional, so a premise can follow the parameters:
//!
//! ```json
//! ["You set a limit of {limit}",
//!  {"if": ["$p99", "<=", "$budget"], "then": " that keeps the p99 at {p99} ms,", "else": " (the p99 is {p99} ms),"},
//!  " then …"]
//! ```
//!
//! The condition is evaluated on the run's computed values each time the
//! widget changes; only the branch whose condition holds is shown, so the
//! text is true at every setting by construction. The result goes into the
//! page as text (`textContent`), never as HTML.

use bplab_core::calc::fmt_num;

use super::expr::{Env, Expr, Lookup};
use super::json::{FieldError, J, arr_at, err, field, only, str_at, text_at};

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

const CMPS: [(&str, Cmp); 6] =
    [("<", Cmp::Lt), ("<=", Cmp::Le), (">", Cmp::Gt), (">=", Cmp::Ge), ("==", Cmp::Eq), ("!=", Cmp::Ne)];

/// `[value, op, value]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cond {
    left: Expr,
    cmp: Cmp,
    right: Expr,
}

impl Cond {
    /// Parses `[value, "<"|"<="|">"|">="|"=="|"!=", value]` at `path`.
    pub fn parse(v: &J, path: &str) -> Result<Cond, FieldError> {
        let [l, o, r] = arr_at(v, path)? else {
            return Err(err(path, "expected [value, \"<\"|\"<=\"|\">\"|\">=\"|\"==\"|\"!=\", value]"));
        };
        let op = str_at(o, &format!("{path}[1]"))?;
        let cmp = CMPS.iter().find(|(n, _)| *n == op).map(|(_, c)| *c).ok_or_else(|| {
            err(&format!("{path}[1]"), format!("unknown comparison '{op}'; expected <, <=, >, >=, == or !="))
        })?;
        Ok(Cond { left: Expr::parse(l, &format!("{path}[0]"))?, cmp, right: Expr::parse(r, &format!("{path}[2]"))? })
    }

    /// Whether it holds for the current values.
    pub fn holds(&self, env: &dyn Env) -> Result<bool, String> {
        let (a, b) = (self.left.eval(env)?, self.right.eval(env)?);
        Ok(match self.cmp {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        })
    }

    /// Every `$name` it reads.
    pub fn refs<'a>(&'a self, out: &mut Vec<&'a str>) {
        self.left.refs(out);
        self.right.refs(out);
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Plain(String),
    If { cond: Cond, then: String, otherwise: String },
}

/// Text shown to the learner.
#[derive(Clone, Debug, PartialEq)]
pub struct Text(Vec<Piece>);

impl Text {
    /// Parses a string, or a list of strings and `{"if": cond, "then": text, "else"?: text}`.
    pub fn parse(v: &J, path: &str) -> Result<Text, FieldError> {
        let J::Arr(items) = v else { return Ok(Text(vec![Piece::Plain(text_at(v, path)?.to_owned())])) };
        if items.is_empty() {
            return Err(err(path, "must not be empty"));
        }
        let mut pieces = Vec::new();
        for (i, x) in items.iter().enumerate() {
            let p = format!("{path}[{i}]");
            pieces.push(match x {
                J::Str(s) => Piece::Plain(s.clone()),
                J::Obj(_) => {
                    only(x, &p, &["if", "then", "else"])?;
                    let otherwise = x.get("else").map(|e| str_at(e, &format!("{p}.else"))).transpose()?;
                    Piece::If {
                        cond: Cond::parse(field(x, &p, "if")?, &format!("{p}.if"))?,
                        then: str_at(field(x, &p, "then")?, &format!("{p}.then"))?.to_owned(),
                        otherwise: otherwise.unwrap_or_default().to_owned(),
                    }
                }
                other => {
                    return Err(err(
                        &p,
                        format!("expected a string or {{\"if\": [...], \"then\": …}}, found {}", other.kind()),
                    ));
                }
            });
        }
        Ok(Text(pieces))
    }

    /// The text for the current values: conditions evaluated, placeholders filled
    /// (`{value}`: `own`, the option's value).
    pub fn render(&self, env: &dyn Env, own: Option<f64>, path: &str) -> Result<String, FieldError> {
        let mut out = String::new();
        for (i, piece) in self.0.iter().enumerate() {
            let p = if self.0.len() == 1 { path.to_owned() } else { format!("{path}[{i}]") };
            let template = match piece {
                Piece::Plain(s) => s,
                Piece::If { cond, then, otherwise } => {
                    if cond.holds(env).map_err(|m| err(&format!("{p}.if"), m))? {
                        then
                    } else {
                        otherwise
                    }
                }
            };
            out.push_str(&fill(template, env, own, &p)?);
        }
        if out.trim().is_empty() { Err(err(path, "is empty for these values")) } else { Ok(out) }
    }
}

/// Fills `{name}` placeholders (`{{` and `}}` are literal braces).
fn fill(template: &str, env: &dyn Env, own: Option<f64>, path: &str) -> Result<String, FieldError> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        if let Some(t) = tail.strip_prefix("{{") {
            out.push('{');
            rest = t;
        } else if let Some(t) = tail.strip_prefix("}}") {
            out.push('}');
            rest = t;
        } else if let Some(t) = tail.strip_prefix('{') {
            let end = t.find('}').ok_or_else(|| err(path, "a '{' without its '}'"))?;
            let (name, after) = t.split_at(end);
            let value = match (name, own) {
                ("value", Some(v)) => fmt_num(v),
                _ => match env.lookup(name) {
                    Some(Lookup::Num(v)) => fmt_num(v),
                    Some(Lookup::Text(s)) => s,
                    None => return Err(err(path, format!("unknown placeholder {{{name}}}"))),
                },
            };
            out.push_str(&value);
            rest = after.get(1..).unwrap_or_default();
        } else {
            return Err(err(path, "a '}' without its '{' (write '}}' for a brace)"));
        }
    }
    out.push_str(rest);
    Ok(out)
}
