//! bplab-live: the backpressure lab's live experiment.
//!
//! * [`server`]: a real tokio + hyper service with `workers` slots, each
//!   request holding one for `spin_ms` of CPU and `wait_ms` of sleep, and an
//!   admission `limit` on how many may wait for a slot (503 + `Retry-After`
//!   beyond it), or one of the core's controllers (AIMD, Vegas, Gradient2,
//!   Gradient, CoDel) as the door; a deploy that slows the handler at a
//!   given moment. `GET /stats` reports its counters and the door's state;
//!   `POST /config` (loopback only) changes spin, wait and workers live.
//! * [`load`]: an open-loop Poisson load generator that prints the lesson's
//!   table (`offered sent ok refused gaveup error ok_per_sec p50_ms p99_ms
//!   done lost queued`).
//! * [`mod@measure`]: sequential low-load requests giving the service time.
//! * [`compare`]: the model's inputs from a measurement.
//! * [`timeline_model`]: the core's adaptive model (`bplab_core::simulate`),
//!   one run per rate, beside each measured row and, with `--timeline`,
//!   beside each live window (`load --compare`).
//! * [`flags`]: each flag's accepted range, used by its check and its
//!   message (`--flag: 'value' is not accepted; expected <range>`).
//! * `progress`: the live progress line `bplab load` draws on a terminal.
//! * [`cli`]: `clap` argument structs and the `run_*` entry points the
//!   `bplab` binary wires to `serve`, `load` and `measure`.
//!
//! Network use is loopback-only unless explicitly allowed.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cli;
pub mod compare;
pub mod error;
pub mod flags;
pub mod load;
pub mod measure;
mod progress;
pub mod server;
pub mod stats;
pub mod timeline_model;

pub use cli::{LoadArgs, MeasureArgs, ServeArgs, run_load, run_measure, run_serve};
pub use error::LiveError;
pub use load::{LoadConfig, LoadSettings, RateRow, Target};
pub use measure::{MeasureConfig, Measurement, measure};
pub use server::{BoundServer, MAX_HEAD_BYTES, ServeConfig, ServeSettings, bind, serve};
pub use stats::{StatsConfig, StatsSnapshot};
