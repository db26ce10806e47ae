//! The open-loop load generator: target, schedule, client, sweep, table.

pub(crate) mod client;
mod config;
pub mod schedule;
mod sweep;
mod table;
mod target;

pub use config::{
    LoadConfig, MAX_CLIENT_TIMEOUT_MS, MAX_PLAN_REQUESTS, MAX_PLAN_SECONDS, MAX_RATE_RPS, MAX_RATES, parse_rates,
};
pub use schedule::schedule;
pub use sweep::sweep;
pub use table::{RateRow, format_row, header, to_csv};
pub use target::{Target, is_loopback};
