//! The calculators' parameter table: one entry per input of the
//! Little's-law and limit calculators. The CLI flags, the page's controls
//! and the calculators' validation all read it, so no range is written twice.

use crate::error::ConfigError;
use crate::params::{LESSON_BUDGET_MS, LESSON_SERVICE_MS, LESSON_WORKERS, ParamKind, ParamSpec, Range, span};

/// A refused number in a short form (1e-300, not 0.000…0001).
fn shown(v: f64) -> String {
    let s = format!("{v}");
    if s.len() > 12 && v.is_finite() { format!("{v:e}") } else { s }
}

/// At most 60 characters of a typed value, with "…" when cut.
pub fn quote(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() <= 60 { t.to_owned() } else { format!("{}…", t.chars().take(60).collect::<String>()) }
}

/// One calculator input: its spec (the same type as every experiment
/// parameter's) and the lesson's value.
#[derive(Clone, Copy, Debug)]
pub struct CalcParam {
    /// Name, label, unit, accepted range, help and slider span. Reals start
    /// at 0.001: below it the calculators would print numbers with no
    /// meaning (a 1e-300 ms service time is not a service).
    pub spec: ParamSpec,
    /// The course lesson's value.
    pub default: f64,
}

/// λ, W, L, then workers, budget, service: the widget's order.
pub const CALC_PARAMS: [CalcParam; 6] = [
    CalcParam {
        spec: ParamSpec {
            name: "arrivals-rps",
            label: "Arrivals",
            unit: "per second",
            kind: ParamKind::Real,
            range: Range::from_to(0.001, 1e9),
            help: "λ, requests arriving per second",
            slider: span(1.0, 1000.0, 1.0),
        },
        default: 48.0,
    },
    CalcParam {
        spec: ParamSpec {
            name: "latency-ms",
            label: "Latency",
            unit: "ms",
            kind: ParamKind::Real,
            range: Range::from_to(0.001, 1e9),
            help: "W, whole time in the system, queueing included",
            slider: span(1.0, 2000.0, 1.0),
        },
        default: 230.0,
    },
    CalcParam {
        spec: ParamSpec {
            name: "in-flight",
            label: "In flight",
            unit: "requests",
            kind: ParamKind::Real,
            range: Range::from_to(0.001, 1e12),
            help: "L, requests in the system at once",
            slider: span(1.0, 1000.0, 1.0),
        },
        default: 11.04,
    },
    CalcParam {
        spec: ParamSpec {
            name: "workers",
            label: "Workers",
            unit: "",
            kind: ParamKind::Int,
            range: Range::from_to(1.0, 100_000.0),
            help: "requests served at once",
            slider: span(1.0, 64.0, 1.0),
        },
        default: LESSON_WORKERS as f64,
    },
    CalcParam {
        spec: ParamSpec {
            name: "budget-ms",
            label: "Latency budget",
            unit: "ms",
            kind: ParamKind::Real,
            range: Range::from_to(0.001, 1e7),
            help: "time a caller allows in the system, queueing included",
            slider: span(1.0, 1000.0, 1.0),
        },
        default: LESSON_BUDGET_MS as f64,
    },
    CalcParam {
        spec: ParamSpec {
            name: "service-ms",
            label: "Service time",
            unit: "ms",
            kind: ParamKind::Real,
            range: Range::from_to(0.001, 1e6),
            help: "measured time to serve one request",
            slider: span(1.0, 200.0, 0.5),
        },
        default: LESSON_SERVICE_MS,
    },
];

/// Index of λ in [`CALC_PARAMS`].
pub const ARRIVALS: usize = 0;
/// Index of W.
pub const LATENCY: usize = 1;
/// Index of L.
pub const IN_FLIGHT: usize = 2;
/// Index of workers.
pub const WORKERS: usize = 3;
/// Index of the budget.
pub const BUDGET: usize = 4;
/// Index of the service time.
pub const SERVICE: usize = 5;

impl CalcParam {
    /// What is accepted, e.g. "a number from 0.001 to 10000000 (ms)".
    pub fn accepted(&self) -> String {
        self.spec.accepted()
    }

    fn refuse(&self, value: String) -> ConfigError {
        ConfigError::OutOfRange { param: self.spec.name, value, accepted: self.accepted() }
    }

    /// Checks a number against the range.
    pub fn check(&self, v: f64) -> Result<f64, ConfigError> {
        self.spec.check(v).map_err(|_| self.refuse(shown(v)))
    }

    /// Parses typed text and checks it; the message echoes the text.
    pub fn parse(&self, text: &str) -> Result<f64, ConfigError> {
        text.trim().parse::<f64>().ok().and_then(|v| self.check(v).ok()).ok_or_else(|| self.refuse(quote(text)))
    }
}
