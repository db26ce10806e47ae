//! Typed errors. Each message names the parameter, the value and what is
//! accepted, so an edge (CLI, page) can show it verbatim.

use std::fmt;

/// A parameter value that cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigError {
    /// A value outside its accepted range, or not parseable.
    /// Fix: pick a value in `accepted`.
    OutOfRange {
        /// Parameter name as the CLI flag spells it (without `--`).
        param: &'static str,
        /// The offending value as given.
        value: String,
        /// Human-readable accepted range, e.g. "a whole number from 1 to 60000".
        accepted: String,
    },
    /// The deadline is shorter than one service time: no request could ever
    /// meet it. Fix: raise `deadline-ms` to at least `service-ms`.
    DeadlineBelowService {
        /// Deadline, ms.
        deadline_ms: u32,
        /// Service time, ms.
        service_ms: u32,
    },
    /// The priority model scores arrivals up to `duration - deadline`; with
    /// `duration <= deadline` nothing can be scored. Fix: lengthen the window.
    WindowNotAfterDeadline {
        /// Run window, ms.
        duration_ms: u32,
        /// Deadline, ms.
        deadline_ms: u32,
    },
    /// The run would simulate more arrivals than the cap allows.
    /// Fix: shorten the run window (`window`) or lower the rates.
    TooManyArrivals {
        /// What was estimated (one run or the whole experiment).
        scope: &'static str,
        /// Estimated arrivals.
        estimated: u64,
        /// The cap.
        cap: u64,
        /// The experiment's run-window parameter (`duration-ms`, `seconds`).
        window: &'static str,
    },
    /// The timeline would have more windows than the cap allows.
    /// Fix: widen `window-ms` or shorten the run window (`window`).
    TooManyWindows {
        /// `floor(duration / window)`.
        windows: u64,
        /// The cap.
        cap: u64,
        /// The experiment's run-window parameter (`duration-ms`, `seconds`).
        window: &'static str,
    },
    /// Little's law needs exactly two of its three quantities.
    /// Fix: give two of arrivals-rps, latency-ms, in-flight.
    NeedTwoOf {
        /// How many were given.
        given: usize,
    },
    /// The latency budget leaves no room for queueing: the limit would be
    /// zero or negative. Fix: a budget above the service time.
    BudgetNotAboveService {
        /// Budget, ms.
        budget_ms: f64,
        /// Service time, ms.
        service_ms: f64,
    },
    /// The experiment does not use this parameter. Fix: drop it.
    NotUsed {
        /// Parameter name.
        param: &'static str,
        /// Experiment name.
        experiment: &'static str,
    },
    /// No experiment or parameter has this name.
    Unknown {
        /// What kind of name it was ("experiment", "parameter").
        what: &'static str,
        /// The name given.
        name: String,
        /// Accepted names.
        accepted: String,
    },
}

impl ConfigError {
    /// The parameter the message starts with, as the CLI flag spells it
    /// (without `--`); `None` when it starts with something else (a run-size
    /// refusal, an unknown name, Little's law's "two of three").
    pub fn param(&self) -> Option<&'static str> {
        match self {
            Self::OutOfRange { param, .. } | Self::NotUsed { param, .. } => Some(param),
            Self::DeadlineBelowService { .. } => Some("deadline-ms"),
            Self::WindowNotAfterDeadline { .. } => Some("duration-ms"),
            Self::TooManyWindows { .. } => Some("window-ms"),
            Self::BudgetNotAboveService { .. } => Some("budget-ms"),
            Self::TooManyArrivals { .. } | Self::NeedTwoOf { .. } | Self::Unknown { .. } => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfRange { param, value, accepted } => {
                write!(f, "{param}: {} is not accepted; expected {accepted}", quote(value))
            }
            Self::DeadlineBelowService { deadline_ms, service_ms } => write!(
                f,
                "deadline-ms: {deadline_ms} is shorter than service-ms {service_ms}; expected a deadline from {service_ms} (one service time) up"
            ),
            Self::WindowNotAfterDeadline { duration_ms, deadline_ms } => write!(
                f,
                "duration-ms: {duration_ms} must be longer than deadline-ms {deadline_ms} for the priority model (it scores arrivals up to duration - deadline); expected more than {deadline_ms}"
            ),
            Self::TooManyArrivals { scope, estimated, cap, window } => write!(
                f,
                "{scope} would simulate about {estimated} arrivals; the cap is {cap}: shorten {window} or lower the rates"
            ),
            Self::TooManyWindows { windows, cap, window } => write!(
                f,
                "window-ms: the timeline would have {windows} windows; the cap is {cap}: widen window-ms or shorten {window}"
            ),
            Self::NeedTwoOf { given } => write!(
                f,
                "Little's law needs exactly two of arrivals-rps, latency-ms, in-flight (it solves the third); {given} given"
            ),
            Self::BudgetNotAboveService { budget_ms, service_ms } => {
                let (b, s) = (crate::calc::fmt_num(*budget_ms), crate::calc::fmt_num(*service_ms));
                write!(f, "budget-ms: {b} leaves no room to queue behind a {s} ms service; expected a budget above {s}")
            }
            Self::NotUsed { param, experiment } => {
                write!(f, "{param}: not used by the {experiment} experiment; drop it")
            }
            Self::Unknown { what, name, accepted } => {
                write!(f, "unknown {what} {}; expected one of: {accepted}", quote(name))
            }
        }
    }
}

impl std::error::Error for ConfigError {}

/// A value as a message quotes it: in quotes, at most 60 characters of it
/// (a 5,000-character paste must not become a 5,000-character message).
pub fn quote(s: &str) -> String {
    const MAX: usize = 60;
    let n = s.chars().count();
    // Short, or already cut to 60 characters and an ellipsis where it was read.
    if n <= MAX || (n == MAX + 1 && s.ends_with('…')) {
        return format!("'{s}'");
    }
    let head: String = s.chars().take(MAX - 1).collect();
    format!("'{head}…' ({n} characters)")
}
