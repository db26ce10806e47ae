//! Validated server configuration.

use std::net::SocketAddr;

use crate::error::{LiveError, check_range};
use crate::stats::StatsConfig;

/// Largest accepted `workers`.
pub const MAX_WORKERS: usize = 1024;
/// Largest accepted `spin_ms` (10 s).
pub const MAX_SPIN_MS: u64 = 10_000;
/// Largest accepted `wait_ms` (60 s).
pub const MAX_WAIT_MS: u64 = 60_000;
/// Largest accepted numeric `limit`.
pub const MAX_LIMIT: usize = 100_000;
/// Largest accepted `max_connections`.
pub const MAX_CONNECTIONS: usize = 16_384;
/// Largest accepted `header_read_timeout_ms` (10 min).
pub const MAX_HEADER_TIMEOUT_MS: u64 = 600_000;

/// The live service's configuration, validated once by [`ServeConfig::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeConfig {
    workers: usize,
    spin_ms: u64,
    wait_ms: u64,
    limit: Option<usize>,
    addr: SocketAddr,
    max_connections: usize,
    header_read_timeout_ms: u64,
}

impl ServeConfig {
    /// Validate and build a configuration.
    ///
    /// * `workers`: slots in service at once, `1..=1024`.
    /// * `spin_ms`: CPU busy-spin per request, `0..=10000` ms.
    /// * `wait_ms`: sleep per request after the spin, `0..=60000` ms.
    /// * `limit`: requests that may wait for a slot (not counting those in
    ///   service), `Some(0..=100000)`; `None` = unbounded ("off").
    /// * `addr`: where to listen; port 0 picks a free port.
    /// * `max_connections`: open connections at once, `1..=16384`; further
    ///   connections wait in the kernel's accept backlog.
    /// * `header_read_timeout_ms`: how long a client may take to send the
    ///   request head, `1..=600000` ms (slowloris guard).
    pub fn new(
        workers: usize,
        spin_ms: u64,
        wait_ms: u64,
        limit: Option<usize>,
        addr: SocketAddr,
        max_connections: usize,
        header_read_timeout_ms: u64,
    ) -> Result<Self, LiveError> {
        check_range("workers", workers, 1, MAX_WORKERS, "1..=1024")?;
        check_range("spin_ms", spin_ms, 0, MAX_SPIN_MS, "0..=10000")?;
        check_range("wait_ms", wait_ms, 0, MAX_WAIT_MS, "0..=60000")?;
        if let Some(l) = limit {
            check_range("limit", l, 0, MAX_LIMIT, "0..=100000 or off")?;
        }
        check_range("max_connections", max_connections, 1, MAX_CONNECTIONS, "1..=16384")?;
        check_range("header_read_timeout_ms", header_read_timeout_ms, 1, MAX_HEADER_TIMEOUT_MS, "1..=600000")?;
        Ok(ServeConfig { workers, spin_ms, wait_ms, limit, addr, max_connections, header_read_timeout_ms })
    }

    /// Worker slots.
    pub fn workers(&self) -> usize {
        self.workers
    }
    /// CPU busy-spin per request, ms.
    pub fn spin_ms(&self) -> u64 {
        self.spin_ms
    }
    /// Sleep per request, ms.
    pub fn wait_ms(&self) -> u64 {
        self.wait_ms
    }
    /// Waiting requests allowed; `None` = off.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }
    /// Requested listen address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
    /// Open-connection cap.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }
    /// Header read timeout, ms.
    pub fn header_read_timeout_ms(&self) -> u64 {
        self.header_read_timeout_ms
    }

    /// The part of the configuration `/stats` reports.
    pub fn stats_config(&self) -> StatsConfig {
        StatsConfig {
            workers: self.workers,
            spin_ms: self.spin_ms,
            wait_ms: self.wait_ms,
            limit: self.limit,
            max_connections: self.max_connections,
            header_read_timeout_ms: self.header_read_timeout_ms,
        }
    }
}

/// Parse a `--limit` value: a count `0..=100000` or `off`
/// (case-insensitive). `"-3"` and `"abc"` are usage errors naming the value.
pub fn parse_limit(text: &str) -> Result<Option<usize>, LiveError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("off") || t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match t.parse::<i128>() {
        Ok(n) if (0..=MAX_LIMIT as i128).contains(&n) => Ok(Some(n as usize)),
        Ok(_) => Err(LiveError::range("limit", t, "0..=100000 or off")),
        Err(_) => Err(LiveError::Unparsable {
            name: "limit",
            value: text.to_string(),
            expected: "a whole number 0..=100000 or off",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 0))
    }

    #[test]
    fn valid_config_builds() {
        let c = ServeConfig::new(1, 2, 18, Some(10), addr(), 100, 5000).expect("valid");
        assert_eq!(c.stats_config().config_line(), "workers 1 spin 2ms wait 18ms limit 10");
    }

    #[test]
    fn zero_workers_rejected() {
        let e = ServeConfig::new(0, 2, 18, None, addr(), 100, 5000).unwrap_err();
        assert!(e.is_usage());
        assert!(e.to_string().contains("workers = 0"));
    }

    #[test]
    fn limit_parsing() {
        assert_eq!(parse_limit("off").ok(), Some(None));
        assert_eq!(parse_limit("OFF").ok(), Some(None));
        assert_eq!(parse_limit("10").ok(), Some(Some(10)));
        assert_eq!(parse_limit("0").ok(), Some(Some(0)));
        for bad in ["-3", "abc", "", "1e3", "100001"] {
            let e = parse_limit(bad).unwrap_err();
            assert!(e.is_usage(), "{bad}");
            assert!(e.to_string().contains(bad), "{bad}: {e}");
        }
    }
}
