//! The engine's typed errors. Each names the parameter, the value and what
//! is accepted, so an edge (CLI, page) can show the message verbatim.

use std::fmt;

/// A setting the stochastic engine cannot run with.
#[derive(Clone, Debug, PartialEq)]
pub enum StochasticError {
    /// A number outside its accepted range (NaN and infinities included).
    /// Fix: pick a value described by `accepted`.
    OutOfRange {
        /// Which parameter, as the CLI spells it (e.g. `rate-rps`, `workers`).
        param: &'static str,
        /// The offending value.
        value: f64,
        /// The accepted range in words, e.g. "finite and > 0".
        accepted: &'static str,
    },
    /// The run would take more arrivals (or schedule steps) than the cap
    /// allows; detected before anything is allocated, or while drawing if
    /// the random count overshoots. Fix: shorten the window or lower the
    /// rates, or raise the cap at the edge if the machine can afford it.
    TooManyArrivals {
        /// Expected arrivals plus schedule steps in the window, or the
        /// number drawn when generation stopped.
        estimated: u64,
        /// The cap passed in.
        cap: u64,
    },
    /// Explicit arrival times must be non-decreasing. Fix: sort them.
    Unsorted {
        /// Index of the first arrival earlier than the one before it.
        index: usize,
    },
    /// Explicit arrival and service lists must be the same length.
    /// Fix: give one service time per arrival.
    LengthMismatch {
        /// Number of arrival times.
        arrivals: usize,
        /// Number of service times.
        services: usize,
    },
}

impl fmt::Display for StochasticError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfRange { param, value, accepted } => {
                write!(f, "{param} = {value} is not accepted: it must be {accepted}")
            }
            Self::TooManyArrivals { estimated, cap } => write!(
                f,
                "the run needs about {estimated} arrivals, more than the cap of {cap}: \
                 shorten the window or lower the rates"
            ),
            Self::Unsorted { index } => {
                write!(
                    f,
                    "arrival {index} is earlier than arrival {}: arrival times must be sorted",
                    index.saturating_sub(1)
                )
            }
            Self::LengthMismatch { arrivals, services } => {
                write!(f, "{arrivals} arrival times but {services} service times: give one service time per arrival")
            }
        }
    }
}

impl std::error::Error for StochasticError {}

/// `Ok(value)` when `ok(value)` holds, else [`StochasticError::OutOfRange`].
pub(crate) fn check(
    param: &'static str,
    value: f64,
    accepted: &'static str,
    ok: impl FnOnce(f64) -> bool,
) -> Result<f64, StochasticError> {
    if ok(value) { Ok(value) } else { Err(StochasticError::OutOfRange { param, value, accepted }) }
}
