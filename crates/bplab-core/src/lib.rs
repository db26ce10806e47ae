//! # bplab-core
//!
//! Five deterministic models of one overloaded server (collapse and retry
//! storms, admission limits, token vs leaky bucket, shedding policies,
//! priority protection), Java-compatible numerics that reproduce the
//! reference lab's CSVs byte for byte, and explainable Little's-law and
//! limit calculators.
//!
//! Pure Rust: no I/O, no clock, no global RNG, no plotting. Builds for
//! native targets and `wasm32-unknown-unknown` unchanged.
//!
//! ```
//! use bplab_core::{Caps, ExperimentId, Scenario, Experiment};
//! let mut params = Experiment::get(ExperimentId::Admission).defaults();
//! params.service_ms = 7; // capacity 142.9 rps, B = round(142.857… × 0.2) = 29
//! let report = Scenario::new(ExperimentId::Admission, params, Caps::CLI).unwrap().run();
//! assert_eq!(report.tables()[0].spec.file, "bp-post2-limit-sweep.csv");
//! ```
#![warn(missing_docs)]

pub mod arrivals;
pub mod calc;
pub mod claim;
pub mod control;
mod error;
mod experiments;
pub mod fuzz;
pub mod models;
pub mod numerics;
mod params;
pub mod plot;
pub mod stochastic;
mod table;

pub use error::ConfigError;
pub use experiments::{
    AdaptiveReport, AdmissionReport, Bucket, Caps, Ceiling, ChartSpec, CollapseReport, Door, EXPERIMENTS, Exec,
    Experiment, ExperimentId, ExperimentReport, Histogram, Interval, Job, Lane, LessonReport, PriorityReport,
    RateResult, Readout, Report, RunTally, Scenario, Sequential, ShapingReport, SheddingReport, SimOut, Timeline,
    Trace, par_map, simulate,
};
pub use params::{MAX_LIST_LEN, PARAMS, ParamKey, ParamKind, ParamSpec, Params, SliderSpan, parse_duration_ms};
pub use table::{Row, Table, TableSpec};
