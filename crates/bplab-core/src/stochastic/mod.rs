//! The stochastic engine: seeded Poisson traffic, service-time
//! distributions, many workers behind one FIFO line, a door, and callers.
//!
//! * [`RateSchedule`] draws open-loop Poisson arrivals (constant rate, steps
//!   or the bursty curve) from ChaCha8 stream 0 of the run seed: the same
//!   times `bplab load` sends at.
//! * [`ServiceTime`] is `fixed:21`, `exp:21`, `lognormal:p50=20,p99=60` or
//!   `mix:20,5%x10`, drawn from stream 1 of the same seed.
//! * [`Model::run`] is the one engine: any arrival and service lists through
//!   `workers` servers, a [`Door`] (line limit, any limiter, CoDel at
//!   dequeue) and a [`Client`] (timeout, abandonment, retries with
//!   [`Backoff`], a [`RetryBudget`], [`Throttle`], Retry-After), with an
//!   optional [`Slowdown`] and per-window [`Window`] timeline. Its events
//!   leave one [`EventQueue`] in `(time, kind, seq)` order (`docs/engine.md`).
//! * [`serve`] runs arrival and service lists through a [`Server`] (the
//!   lesson's shape); [`Setup::run`] draws all three from one seed;
//!   [`simulate`] runs one door on the adaptive race's [`Trace`].
//! * [`Run::summary`] gives the load tool's columns; [`csv`] and
//!   [`summary_csv`] render runs as fixed text.
//! * [`Setup::summarise`] gives the same row to the bit without keeping a
//!   record per request: it draws the arrivals as the run reaches them and
//!   folds each request into the row once it and every earlier one are
//!   resolved, so its memory follows the requests in flight, not the run's
//!   length (the lesson's runs go this way).
//!
//! ```
//! use bplab_core::stochastic::{Abandon, Server, ServiceTime, Setup};
//! let server = Server { workers: 1, line_limit: Some(10), timeout_ms: Some(2000.0), abandon: Abandon::Served };
//! let setup = Setup::poisson(100.0, "fixed:21".parse().unwrap(), server, 20_000.0, 1);
//! let s = setup.run(1_000_000).unwrap().summary(100.0);
//! assert_eq!(s.sent, s.ok + s.refused + s.gaveup + s.error);
//! assert!(s.queued <= 10 && s.p99_ms.unwrap() <= 11.0 * 21.0 + 1.0);
//! ```
//!
//! Everything is plain f64 arithmetic plus `libm`, so one seed gives the
//! same bits natively and in wasm.

mod client;
mod csv;
mod door;
mod engine;
mod error;
mod model;
mod normal;
mod parse;
mod queue;
mod recovery;
mod rng;
mod run;
mod server;
mod service;
mod setup;
mod summary;
mod timeline;
mod trace;
mod traffic;
mod tries;

#[cfg(test)]
mod engine_tests;
#[cfg(test)]
mod summarise_tests;
#[cfg(test)]
mod tests;

pub use client::{
    BACKOFF_CAP_MS, BUDGET_FLOOR_RPS, BUDGET_MAX_TOKENS, Backoff, Client, ClientState, Counts, MAX_BUDGET, MAX_RETRIES,
    NoRetry, Retry, RetryBudget, THROTTLE_WINDOW_MS, Throttle, Tokens,
};
pub use csv::{REQUESTS_HEADER, SUMMARY_HEADER, csv, summary_csv};
pub use door::Door;
pub use engine::{MAX_TIME_MS, serve};
pub use error::StochasticError;
pub use model::{MAX_WINDOWS, Model, Present, Slowdown};
pub use normal::{normal_cdf, normal_quantile};
pub use parse::{GRAMMAR, ParseServiceError};
pub use queue::{Event, EventQueue, Key, Kind};
pub use recovery::{HEALTHY_SHARE, Rule, Verdict};
pub use rng::{CLIENT_STREAM, SERVICE_STREAM, THROTTLE_STREAM};
pub use run::{Outcome, Request, Run, Tally};
pub use server::{Abandon, MAX_WORKERS, Server};
pub use service::{MAX_LOGNORMAL_SPREAD, MAX_MIX_FACTOR, ServiceDraws, ServiceTime};
pub use setup::Setup;
pub use summary::Summary;
pub use timeline::Window;
pub use trace::{Bucket, SimOut, Trace, simulate, try_simulate};
pub use traffic::{ArrivalTimes, MAX_MS, RateSchedule, Step};
