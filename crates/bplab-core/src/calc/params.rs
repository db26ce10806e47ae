//! The calculators' parameter table: one entry per input of the
//! Little's-law and limit calculators. The CLI flags, the page's controls
//! and the calculators' validation all read it, so no range is written twice.

use crate::error::ConfigError;
use crate::params::SliderSpan;

use crate::claim::equation::show;

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

/// One calculator input.
#[derive(Clone, Copy, Debug)]
pub struct CalcParam {
    /// CLI flag (without `--`) and URL key.
    pub name: &'static str,
    /// Visible label.
    pub label: &'static str,
    /// Unit shown beside the value (empty: none).
    pub unit: &'static str,
    /// Lowest accepted value, inclusive: below it the calculators would print
    /// numbers with no meaning (a 1e-300 ms service time is not a service).
    pub min: f64,
    /// Highest accepted value, inclusive.
    pub max: f64,
    /// Only whole numbers.
    pub whole: bool,
    /// The page's slider span.
    pub slider: SliderSpan,
    /// One line on what it is.
    pub help: &'static str,
    /// The course lesson's value.
    pub default: f64,
}

/// λ, W, L, then workers, budget, service: the widget's order.
pub const CALC_PARAMS: [CalcParam; 6] = [
    CalcParam {
        name: "arrivals-rps",
        label: "Arrivals",
        unit: "per second",
        min: 0.001,
        max: 1e9,
        whole: false,
        slider: SliderSpan { min: 1.0, max: 1000.0, step: 1.0 },
        help: "λ, requests arriving per second",
        default: 48.0,
    },
    CalcParam {
        name: "latency-ms",
        label: "Latency",
        unit: "ms",
        min: 0.001,
        max: 1e9,
        whole: false,
        slider: SliderSpan { min: 1.0, max: 2000.0, step: 1.0 },
        help: "W, whole time in the system, queueing included",
        default: 230.0,
    },
    CalcParam {
        name: "in-flight",
        label: "In flight",
        unit: "requests",
        min: 0.001,
        max: 1e12,
        whole: false,
        slider: SliderSpan { min: 1.0, max: 1000.0, step: 1.0 },
        help: "L, requests in the system at once",
        default: 11.04,
    },
    CalcParam {
        name: "workers",
        label: "Workers",
        unit: "",
        min: 1.0,
        max: 100_000.0,
        whole: true,
        slider: SliderSpan { min: 1.0, max: 64.0, step: 1.0 },
        help: "requests served at once",
        default: 1.0,
    },
    CalcParam {
        name: "budget-ms",
        label: "Latency budget",
        unit: "ms",
        min: 0.001,
        max: 1e7,
        whole: false,
        slider: SliderSpan { min: 1.0, max: 1000.0, step: 1.0 },
        help: "time a caller allows in the system, queueing included",
        default: 230.0,
    },
    CalcParam {
        name: "service-ms",
        label: "Service time",
        unit: "ms",
        min: 0.001,
        max: 1e6,
        whole: false,
        slider: SliderSpan { min: 1.0, max: 200.0, step: 0.5 },
        help: "measured time to serve one request",
        default: 21.0,
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
        let unit = if self.unit.is_empty() { String::new() } else { format!(" ({})", self.unit) };
        let kind = if self.whole { "a whole number" } else { "a number" };
        format!("{kind} from {} to {}{unit}", show(self.min), show(self.max))
    }

    fn refuse(&self, value: String) -> ConfigError {
        ConfigError::OutOfRange { param: self.name, value, accepted: self.accepted() }
    }

    /// Checks a number against the range.
    pub fn check(&self, v: f64) -> Result<f64, ConfigError> {
        let whole_ok = !self.whole || v.fract() == 0.0;
        if v.is_finite() && v >= self.min && v <= self.max && whole_ok { Ok(v) } else { Err(self.refuse(shown(v))) }
    }

    /// Parses typed text and checks it; the message echoes the text.
    pub fn parse(&self, text: &str) -> Result<f64, ConfigError> {
        text.trim().parse::<f64>().ok().and_then(|v| self.check(v).ok()).ok_or_else(|| self.refuse(quote(text)))
    }
}
