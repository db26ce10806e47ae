//! The live service: `workers` slots of `spin_ms` CPU plus `wait_ms` sleep,
//! an admission `limit` on the waiting line, `/stats`, and the listener.

mod config;
mod conns;
mod door;
mod handler;
mod listen;

pub use config::{
    ADDR_ACCEPTED, HEADER_TIMEOUT_MS, LIMIT, MAX_CONNECTIONS, MAX_CONNECTIONS_FLAG, MAX_HEADER_TIMEOUT_MS, MAX_LIMIT,
    MAX_SPIN_MS, MAX_WAIT_MS, MAX_WORKERS, SPIN_MS, ServeConfig, ServeSettings, WAIT_MS, WORKERS, parse_addr,
    parse_limit,
};
pub use handler::MAX_BODY_BYTES;
pub use listen::{BoundServer, LINGER, LINGER_BYTES, LISTEN_BACKLOG, MAX_HEAD_BYTES, bind, serve};
