//! The open-loop load generator: target, schedule, client, sweep, table.

mod cap;
pub(crate) mod client;
mod config;
pub mod policy;
pub mod schedule;
mod sweep;
mod table;
mod tally;
mod target;
pub mod timeline;

pub use client::{MAX_RETRY_AFTER_S as MAX_RETRY_AFTER_READ_S, retry_after_ms};
pub use config::{
    CLIENT_TIMEOUT_MS, DEFAULT_CLIENT_TIMEOUT_MS, DEFAULT_SECONDS, DEFAULT_SEED, LESSON_RATES_RPS, LoadConfig,
    LoadSettings, MAX_CLIENT_TIMEOUT_MS, MAX_PLAN_REQUESTS, MAX_PLAN_SECONDS, MAX_RATE_RPS, MAX_RATES,
    MAX_TRY_MULTIPLE, MIN_SECONDS, RATE, SECONDS, SEED, parse_rates,
};
pub use policy::ClientPolicy;
pub use schedule::schedule;
pub use sweep::{PHASE_SHIFTS_MS, Stop, TICK, sweep, sweep_with_progress};
pub(crate) use table::num as format_rate;
pub use table::{
    ClientCounts, MAX_SEND_LAG_P99_MS, PhaseRange, RateRow, comparable, format_row, header, header_for, row_notes,
    to_csv,
};
pub use tally::Tick;
pub use target::{Target, is_loopback};
pub use timeline::{ModelWindow, Split, TIMELINE_MS, Timeline, Window, format_timeline};
