//! The live service: `workers` slots of `spin_ms` CPU plus `wait_ms` sleep,
//! an admission `limit` on the waiting line, `/stats`, and the listener.

mod config;
mod door;
mod handler;
mod listen;

pub use config::{
    MAX_CONNECTIONS, MAX_HEADER_TIMEOUT_MS, MAX_LIMIT, MAX_SPIN_MS, MAX_WAIT_MS, MAX_WORKERS, ServeConfig, parse_limit,
};
pub use handler::MAX_BODY_BYTES;
pub use listen::{BoundServer, bind, serve};
