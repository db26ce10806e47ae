//! Your own service: read the load test you already ran (`hey`, ApacheBench,
//! Locust, `bplab load`, or a plain per-request list), fit the stochastic
//! engine's server to it, show the model beside the measurement, derive
//! the limit with its record, and tune a controller on it.
//!
//! * [`read`] turns one file's text into [`Level`]s (one per offered load).
//! * [`fit`] estimates the capacity, the service-time distribution (by the
//!   criterion in [`service`]), the effective worker count and the queue
//!   limit, then runs the engine at each measured load ([`Fit::rows`]).
//! * [`explain`] is the one place the fit's sentences are made: typed
//!   statements ([`said`]) checked against [`evidence`] (the files' requests
//!   and the engine's runs, every request logged); one that fails is not said.
//! * [`record`] derives the limit for a budget with the calculator.
//! * [`tune`] races the controllers on the fitted service through a deploy.
//!
//! Pure: no I/O, no clock; work is capped ([`MAX_REQUESTS`]); errors are
//! typed ([`FitError`]) and name the file and line.

mod error;

mod estimate;
pub mod evidence;
pub mod explain;
mod level;
mod limit;
mod model;
mod read;
pub mod record;
mod report;
pub mod said;
pub mod tune;

pub mod service;

pub use error::FitError;
pub use estimate::{FEW_FOR_P99, MAX_REQUESTS, MIN_LOW_LOAD, OK_TOLERANCE, P99_TOLERANCE, SATURATED_P50, fit};
pub use level::{Level, Req, TimelineWindow, Tool, quantile};
pub use limit::LimitMethod;
pub use model::Arrivals;
pub use read::{FORMATS, MAX_ROWS, read};
pub use report::{Fit, LowLoad, Point, Reason, Row};
