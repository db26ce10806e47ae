//! # bplab-core
//!
//! The lab's pure core: every experiment of the registry ([`EXPERIMENTS`]:
//! the articles' deterministic models, which reproduce the reference lab's
//! CSVs byte for byte with Java-compatible numerics, and the seeded
//! stochastic ones), the controllers ([`control`]), and explainable
//! Little's-law and limit calculators ([`calc`]).
//!
//! Each experiment declares its typed parameters in its own folder; the
//! registry wraps them in [`Params`], which the CLI, the page and the tests
//! set by name (`set("service-ms", "7")`) or in code.
//!
//! Pure Rust: no I/O, no clock, no global RNG, no plotting. Builds for
//! native targets and `wasm32-unknown-unknown` unchanged.
//!
//! ```
//! use bplab_core::{AdmissionParams, Caps, Scenario};
//! // capacity 142.9 rps, B = round(142.857… × 0.2) = 29
//! let params = AdmissionParams { service_ms: 7, ..AdmissionParams::default() };
//! let report = Scenario::new(params, Caps::CLI).unwrap().run();
//! assert_eq!(report.tables()[0].spec.file, "bp-post2-limit-sweep.csv");
//! ```
#![warn(missing_docs)]

pub mod arrivals;
pub mod calc;
pub mod claim;
pub mod control;
mod error;
mod experiments;
pub mod fit;
pub mod fuzz;
pub mod models;
pub mod numerics;
pub mod params;
pub mod plot;
pub mod statement;
pub mod stochastic;
mod table;

pub use error::{ConfigError, quote};
// The registry's types, and each experiment's module by its name
// (`bplab_core::adaptive::Controller`): nothing here names an experiment.
pub use experiments::*;
pub use params::{
    MAX_LIST_LEN, Named, ParamKind, ParamSet, ParamSpec, ParamValue, QueueLimit, Range, SliderSpan, parse_duration_ms,
};
pub use table::{Row, Table, TableSpec};
