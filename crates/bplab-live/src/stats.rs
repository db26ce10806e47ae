//! The `/stats` wire format, shared by the server (writes it) and the load
//! generator and `measure` (read it).
//!
//! Counters are cumulative since the server started; `in_service` and
//! `queued` are instantaneous; `queued_peak` is a high-water mark that
//! `POST /stats/reset-peak` restarts. The load generator takes two snapshots around
//! each rate and works with their differences, see
//! [`crate::load::RateRow`].

use serde::{Deserialize, Serialize};

/// The server's configuration as reported by `/stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsConfig {
    /// Worker slots (requests in service at once), `>= 1`.
    pub workers: usize,
    /// CPU busy-spin per request, milliseconds.
    pub spin_ms: u64,
    /// Sleep per request after the spin, milliseconds (slot still held).
    pub wait_ms: u64,
    /// Requests allowed to wait for a slot; `None` = unbounded ("off").
    pub limit: Option<usize>,
    /// Open connections the server accepts at once.
    pub max_connections: usize,
    /// Header read timeout, milliseconds.
    pub header_read_timeout_ms: u64,
}

impl StatsConfig {
    /// The acceptance line printed by `load --check`, in the lesson's form:
    /// `workers 1 spin 2ms wait 18ms limit 10` (or `limit off`).
    pub fn config_line(&self) -> String {
        let limit = match self.limit {
            Some(l) => l.to_string(),
            None => "off".to_string(),
        };
        format!("workers {} spin {}ms wait {}ms limit {}", self.workers, self.spin_ms, self.wait_ms, limit)
    }
}

/// One `/stats` answer.
///
/// Read in one consistent instant: `arrived = done + refused + in_service +
/// queued` holds in every answer (requests cancelled by a shutdown aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsSnapshot {
    /// The configuration the server runs with.
    pub config: StatsConfig,
    /// Work requests that reached the door since start (admitted or refused;
    /// `/stats` itself is not counted).
    pub arrived: u64,
    /// Requests whose work finished since start, whether or not the client
    /// was still there to receive the answer.
    pub done: u64,
    /// Requests refused with 503 since start.
    pub refused: u64,
    /// Requests holding a worker slot right now.
    pub in_service: u64,
    /// Requests waiting at the door for a slot right now.
    pub queued: u64,
    /// The longest the waiting line has been since start or since the last
    /// `POST /stats/reset-peak` (which the load generator sends as each
    /// window starts).
    pub queued_peak: u64,
    /// Connections the server closed since start to make room for new ones
    /// when `max_connections` were open: each was the oldest one still
    /// waiting for a request head (idle or slowloris). Not a request count:
    /// it is outside the identity below. Absent in older servers' JSON (0).
    #[serde(default)]
    pub connections_shed: u64,
    /// Milliseconds since the server started.
    pub uptime_ms: u64,
}

impl StatsSnapshot {
    /// Requests the server holds right now (in service plus queued).
    pub fn present(&self) -> u64 {
        self.in_service + self.queued
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(limit: Option<usize>) -> StatsConfig {
        StatsConfig { workers: 1, spin_ms: 2, wait_ms: 18, limit, max_connections: 100, header_read_timeout_ms: 5000 }
    }

    #[test]
    fn config_line_matches_lesson() {
        assert_eq!(cfg(Some(10)).config_line(), "workers 1 spin 2ms wait 18ms limit 10");
        assert_eq!(cfg(None).config_line(), "workers 1 spin 2ms wait 18ms limit off");
    }

    #[test]
    fn json_round_trip() {
        let s = StatsSnapshot {
            config: cfg(None),
            arrived: 5,
            done: 3,
            refused: 1,
            in_service: 1,
            queued: 0,
            queued_peak: 2,
            connections_shed: 4,
            uptime_ms: 9,
        };
        let text = serde_json::to_string(&s).expect("serialize");
        assert!(text.contains("\"limit\":null"));
        let back: StatsSnapshot = serde_json::from_str(&text).expect("parse");
        assert_eq!(back, s);
        let old = text.replace(",\"connections_shed\":4", "");
        assert_ne!(old, text);
        let back: StatsSnapshot = serde_json::from_str(&old).expect("parse without connections_shed");
        assert_eq!(back.connections_shed, 0);
    }
}
