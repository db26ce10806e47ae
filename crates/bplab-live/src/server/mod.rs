//! The live service: `workers` slots of `spin_ms` CPU plus `wait_ms` sleep,
//! a door (an admission `limit` on the waiting line, or one of the core's
//! adaptive controllers), `/stats`, `POST /config`, and the listener.

mod change;
mod choice;
mod config;
mod conns;
mod ctl;
mod door;
mod fdlimit;
mod handler;
mod listen;
mod spare;

pub use change::CONFIG_FIELDS;
pub(crate) use choice::setting_help;
pub use choice::{CODEL_INTERVAL_MS_DEFAULT, CODEL_TARGET_MS_DEFAULT, DOOR_WORDS, DoorSpec, parse_door};
pub use config::{
    ADDR_ACCEPTED, BUDGET_MS, HEADER_TIMEOUT_MS, LIMIT, MAX_BUDGET_MS, MAX_CONNECTIONS, MAX_CONNECTIONS_FLAG,
    MAX_HEADER_TIMEOUT_MS, MAX_LIMIT, MAX_RETRY_AFTER_S, MAX_SLOWDOWN_AT_MS, MAX_SLOWDOWN_FACTOR, MAX_SPIN_MS,
    MAX_WAIT_MS, MAX_WORKERS, RETRY_AFTER_S, SLOWDOWN_AT_ACCEPTED, SLOWDOWN_FACTOR, SLOWDOWN_FOR_ACCEPTED, SPIN_MS,
    ServeConfig, ServeSettings, WAIT_MS, WORKERS, parse_addr, parse_limit, parse_slowdown_at, parse_slowdown_for,
    start_warnings,
};
pub use fdlimit::{FdFit, fit, fit_to_open_files, largest_cap, open_file_limits};
pub use handler::{MAX_BODY_BYTES, MAX_URI_BYTES};
pub use listen::{
    BoundServer, LINGER, LINGER_BYTES, LISTEN_BACKLOG, MAX_HEAD_BYTES, MAX_HEADER_FIELDS, StatsHandle, bind, fd_bound,
    open_file_limit, serve,
};
