//! The value mini-language of questions: numbers, `$name` (a variable
//! defined earlier, or the widget's current parameter), and a few model
//! calls (`limit`, `littles`, `capacity`, `run`) and arithmetic. Values
//! evaluate to numbers; there is no loop, no recursion beyond the JSON's
//! nesting and no access to anything but the model and the widget's state.

use bplab_core::calc::{self, LimitInput, LittlesInput};
use bplab_core::stochastic::ServiceTime;

use super::json::{FieldError, J, arr_at, err, field, only, str_at};

/// Which number of the limit calculator a `limit` call returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LimitField {
    /// Queue behind the workers, rounded half-up (default).
    QueueLimit,
    /// Queue before rounding.
    QueueExact,
    /// Queue rounded down: the worst time in the system stays within the budget.
    QueueLimitSafe,
    /// The number the limit record ships (half-up when that fits the budget, else the safe one).
    RecordLimit,
    /// In-system bound, rounded half-up.
    InSystemLimit,
    /// Drain rate, rps.
    CapacityRps,
}

const LIMIT_FIELDS: [(&str, LimitField); 6] = [
    ("queue_limit", LimitField::QueueLimit),
    ("queue_exact", LimitField::QueueExact),
    ("queue_limit_safe", LimitField::QueueLimitSafe),
    ("record_limit", LimitField::RecordLimit),
    ("in_system_limit", LimitField::InSystemLimit),
    ("capacity_rps", LimitField::CapacityRps),
];

/// Arithmetic operators (n-ary, left to right).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// Sum.
    Add,
    /// First minus the rest.
    Sub,
    /// Product.
    Mul,
    /// First divided by the rest.
    Div,
    /// Smallest.
    Min,
    /// Largest.
    Max,
}

const OPS: [(&str, Op); 6] =
    [("add", Op::Add), ("sub", Op::Sub), ("mul", Op::Mul), ("div", Op::Div), ("min", Op::Min), ("max", Op::Max)];

/// A parameter value given to `run`: a number or a text the parameter accepts (`off`, `fixed:21`).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// Evaluated, then written as the parameter's text.
    Value(Expr),
    /// Passed as is.
    Text(String),
}

/// A value.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal number.
    Num(f64),
    /// `$name`.
    Ref(String),
    /// `{"kind":"limit", workers, budget_ms, service_ms, field?}`.
    Limit { workers: Box<Expr>, budget_ms: Box<Expr>, service_ms: Box<Expr>, field: LimitField },
    /// `{"kind":"littles"}` with two of `arrivals_rps`, `latency_ms`, `in_flight`: the third.
    Littles { arrivals_rps: Option<Box<Expr>>, latency_ms: Option<Box<Expr>>, in_flight: Option<Box<Expr>> },
    /// `{"kind":"capacity", workers, service_ms}`: `workers × 1000 / service_ms`.
    Capacity { workers: Box<Expr>, service_ms: Box<Expr> },
    /// `{"kind":"run", set?, table, column, row?}`: one cell of the widget's experiment's CSV.
    Run { set: Vec<(String, Arg)>, table: String, column: String, row: usize },
    /// `{"kind":"add"|"sub"|"mul"|"div"|"min"|"max", "args":[…]}`.
    Arith { op: Op, args: Vec<Expr> },
    /// `{"kind":"round", "of": value}`: half-up to a whole number.
    Round(Box<Expr>),
}

/// Every `kind`.
pub const KINDS: &str = "limit, littles, capacity, run, add, sub, mul, div, min, max, round";

fn sub(v: &J, path: &str, k: &str) -> Result<Box<Expr>, FieldError> {
    Expr::parse(field(v, path, k)?, &format!("{path}.{k}")).map(Box::new)
}

fn opt(v: &J, path: &str, k: &str) -> Result<Option<Box<Expr>>, FieldError> {
    v.get(k).map(|x| Expr::parse(x, &format!("{path}.{k}")).map(Box::new)).transpose()
}

impl Expr {
    /// Parses a value at `path`.
    pub fn parse(v: &J, path: &str) -> Result<Expr, FieldError> {
        match v {
            J::Num(n) if n.is_finite() => Ok(Expr::Num(*n)),
            J::Str(s) => match s.strip_prefix('$') {
                Some(name) if !name.is_empty() => Ok(Expr::Ref(name.to_owned())),
                _ => Err(err(path, format!("'{s}' is not a value: write a number, \"$name\" or {{\"kind\": …}}"))),
            },
            J::Obj(_) => Self::parse_call(v, path),
            other => Err(err(path, format!("expected a number, \"$name\" or {{\"kind\": …}}, found {}", other.kind()))),
        }
    }

    fn parse_call(v: &J, path: &str) -> Result<Expr, FieldError> {
        let kind = str_at(field(v, path, "kind")?, &format!("{path}.kind"))?;
        match kind {
            "limit" => {
                only(v, path, &["kind", "workers", "budget_ms", "service_ms", "field"])?;
                let f = match v.get("field") {
                    None => LimitField::QueueLimit,
                    Some(x) => {
                        let name = str_at(x, &format!("{path}.field"))?;
                        LIMIT_FIELDS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f).ok_or_else(|| {
                            let all: Vec<&str> = LIMIT_FIELDS.iter().map(|(n, _)| *n).collect();
                            err(
                                &format!("{path}.field"),
                                format!("unknown '{name}'; expected one of: {}", all.join(", ")),
                            )
                        })?
                    }
                };
                Ok(Expr::Limit {
                    workers: sub(v, path, "workers")?,
                    budget_ms: sub(v, path, "budget_ms")?,
                    service_ms: sub(v, path, "service_ms")?,
                    field: f,
                })
            }
            "littles" => {
                only(v, path, &["kind", "arrivals_rps", "latency_ms", "in_flight"])?;
                let e = Expr::Littles {
                    arrivals_rps: opt(v, path, "arrivals_rps")?,
                    latency_ms: opt(v, path, "latency_ms")?,
                    in_flight: opt(v, path, "in_flight")?,
                };
                let given = ["arrivals_rps", "latency_ms", "in_flight"].iter().filter(|k| v.get(k).is_some()).count();
                if given == 2 {
                    Ok(e)
                } else {
                    Err(err(path, "littles takes exactly two of arrivals_rps, latency_ms, in_flight"))
                }
            }
            "capacity" => {
                only(v, path, &["kind", "workers", "service_ms"])?;
                Ok(Expr::Capacity { workers: sub(v, path, "workers")?, service_ms: sub(v, path, "service_ms")? })
            }
            "run" => {
                only(v, path, &["kind", "set", "table", "column", "row"])?;
                let mut set = Vec::new();
                if let Some(s) = v.get("set") {
                    let sp = format!("{path}.set");
                    for (k, x) in super::json::obj_at(s, &sp)? {
                        let arg = match x {
                            J::Str(t) if !t.starts_with('$') => Arg::Text(t.clone()),
                            other => Arg::Value(Expr::parse(other, &format!("{sp}.{k}"))?),
                        };
                        set.push((k.clone(), arg));
                    }
                }
                let row = match v.get("row") {
                    None => 0,
                    Some(J::Num(n)) if n.fract() == 0.0 && (0.0..1e6).contains(n) => *n as usize,
                    Some(_) => return Err(err(&format!("{path}.row"), "expected a whole number from 0")),
                };
                Ok(Expr::Run {
                    set,
                    table: str_at(field(v, path, "table")?, &format!("{path}.table"))?.to_owned(),
                    column: str_at(field(v, path, "column")?, &format!("{path}.column"))?.to_owned(),
                    row,
                })
            }
            "round" => {
                only(v, path, &["kind", "of"])?;
                Ok(Expr::Round(sub(v, path, "of")?))
            }
            k => {
                let Some((_, op)) = OPS.iter().find(|(n, _)| *n == k) else {
                    return Err(err(&format!("{path}.kind"), format!("unknown kind '{k}'; expected one of: {KINDS}")));
                };
                only(v, path, &["kind", "args"])?;
                let ap = format!("{path}.args");
                let items = arr_at(field(v, path, "args")?, &ap)?;
                if items.is_empty() {
                    return Err(err(&ap, "needs at least one value"));
                }
                let args = items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| Expr::parse(x, &format!("{ap}[{i}]")))
                    .collect::<Result<_, _>>()?;
                Ok(Expr::Arith { op: *op, args })
            }
        }
    }

    /// Every `$name` this value reads, in order.
    pub fn refs<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Num(_) => {}
            Expr::Ref(n) => out.push(n),
            Expr::Limit { workers, budget_ms, service_ms, .. } => {
                for e in [workers, budget_ms, service_ms] {
                    e.refs(out);
                }
            }
            Expr::Littles { arrivals_rps, latency_ms, in_flight } => {
                for e in [arrivals_rps, latency_ms, in_flight].into_iter().flatten() {
                    e.refs(out);
                }
            }
            Expr::Capacity { workers, service_ms } => {
                workers.refs(out);
                service_ms.refs(out);
            }
            Expr::Run { set, .. } => {
                for (_, a) in set {
                    if let Arg::Value(e) = a {
                        e.refs(out);
                    }
                }
            }
            Expr::Arith { args, .. } => args.iter().for_each(|e| e.refs(out)),
            Expr::Round(e) => e.refs(out),
        }
    }
}

/// What a value may read: variables, the widget's parameters, its experiment.
pub trait Env {
    /// A variable defined earlier, or the widget's parameter `name` as text.
    fn lookup(&self, name: &str) -> Option<Lookup>;
    /// Runs the widget's experiment with its current parameters and `set` applied;
    /// returns the CSV text of `table`.
    fn run_csv(&self, set: &[(String, String)], table: &str) -> Result<String, String>;
}

/// A name's value.
pub enum Lookup {
    /// A number (variables).
    Num(f64),
    /// A parameter's text.
    Text(String),
}

/// A parameter's text as a number: a number, or a service-time distribution's mean (ms).
pub fn number_of(name: &str, text: &str) -> Result<f64, String> {
    if let Ok(v) = text.trim().parse::<f64>() {
        return Ok(v);
    }
    ServiceTime::parse(text.trim())
        .map(|s| s.mean_ms())
        .map_err(|_| format!("${name} is '{text}', not a number (a service-time distribution reads as its mean)"))
}

fn whole(v: f64, what: &str) -> Result<u32, String> {
    if v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v) {
        Ok(v as u32)
    } else {
        Err(format!("{what} must be a whole number, got {}", calc::fmt_num(v)))
    }
}

/// Half-up rounding to a whole number.
fn round_half_up(v: f64) -> f64 {
    (v + 0.5).floor()
}

/// A number as a parameter's text (`7`, `0.25`).
pub fn param_text(v: f64) -> String {
    format!("{v}")
}

impl Expr {
    /// Evaluates to a number; the error says which call failed and why (the core's message).
    pub fn eval(&self, env: &dyn Env) -> Result<f64, String> {
        let v = match self {
            Expr::Num(n) => *n,
            Expr::Ref(name) => match env.lookup(name) {
                Some(Lookup::Num(n)) => n,
                Some(Lookup::Text(t)) => number_of(name, &t)?,
                None => return Err(format!("${name}: no such variable or parameter")),
            },
            Expr::Limit { workers, budget_ms, service_ms, field } => {
                let input = LimitInput {
                    workers: whole(workers.eval(env)?, "limit: workers")?,
                    budget_ms: budget_ms.eval(env)?,
                    service_ms: service_ms.eval(env)?,
                };
                let r = calc::limit(input).map_err(|e| format!("limit: {e}"))?;
                match field {
                    LimitField::QueueLimit => r.queue_limit as f64,
                    LimitField::QueueExact => r.queue_exact,
                    LimitField::QueueLimitSafe => r.queue_limit_safe as f64,
                    LimitField::RecordLimit => r.record_limit as f64,
                    LimitField::InSystemLimit => r.in_system_limit as f64,
                    LimitField::CapacityRps => r.capacity_rps,
                }
            }
            Expr::Littles { arrivals_rps, latency_ms, in_flight } => {
                let ev = |e: &Option<Box<Expr>>| e.as_ref().map(|x| x.eval(env)).transpose();
                let input = LittlesInput {
                    arrivals_rps: ev(arrivals_rps)?,
                    latency_ms: ev(latency_ms)?,
                    in_flight: ev(in_flight)?,
                };
                let r = calc::littles(input).map_err(|e| format!("littles: {e}"))?;
                match (arrivals_rps, latency_ms) {
                    (None, _) => r.arrivals_rps,
                    (_, None) => r.latency_ms,
                    _ => r.in_flight,
                }
            }
            Expr::Capacity { workers, service_ms } => {
                let s = service_ms.eval(env)?;
                if s.is_nan() || s <= 0.0 {
                    return Err(format!("capacity: service_ms must be above 0, got {}", calc::fmt_num(s)));
                }
                calc::capacity_rps(s, whole(workers.eval(env)?, "capacity: workers")?)
            }
            Expr::Run { set, table, column, row } => {
                let set = set
                    .iter()
                    .map(|(k, a)| match a {
                        Arg::Text(t) => Ok((k.clone(), t.clone())),
                        Arg::Value(e) => e.eval(env).map(|v| (k.clone(), param_text(v))),
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                let csv = env.run_csv(&set, table)?;
                cell(&csv, table, column, *row)?
            }
            Expr::Arith { op, args } => {
                let vals = args.iter().map(|e| e.eval(env)).collect::<Result<Vec<_>, _>>()?;
                let (first, rest) = vals.split_first().ok_or("arithmetic needs a value")?;
                rest.iter().fold(*first, |a, &b| match op {
                    Op::Add => a + b,
                    Op::Sub => a - b,
                    Op::Mul => a * b,
                    Op::Div => a / b,
                    Op::Min => a.min(b),
                    Op::Max => a.max(b),
                })
            }
            Expr::Round(e) => round_half_up(e.eval(env)?),
        };
        if v.is_finite() { Ok(v) } else { Err("a value is not a finite number (division by zero?)".to_owned()) }
    }
}

/// The number in `column` of data row `row` of a CSV.
fn cell(csv: &str, table: &str, column: &str, row: usize) -> Result<f64, String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == column)
        .ok_or_else(|| format!("run: {table} has no column '{column}'; its columns are: {}", header.join(", ")))?;
    let line = lines.nth(row).ok_or_else(|| format!("run: {table} has no row {row}"))?;
    let text = line.split(',').nth(col).unwrap_or_default();
    text.parse::<f64>().map_err(|_| format!("run: {table} row {row} column {column} is '{text}', not a number"))
}
