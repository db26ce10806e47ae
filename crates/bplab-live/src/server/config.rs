//! Validated server configuration: the plain [`ServeSettings`], checked
//! once by [`ServeConfig::new`] against the flag specs below.

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

use crate::error::LiveError;
use crate::flags::{RealFlag, WholeFlag};
use crate::server::choice::{DOOR_WORDS, DoorSpec};
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

/// `--workers`: slots in service at once, `1..=MAX_WORKERS`.
pub const WORKERS: WholeFlag = WholeFlag {
    name: "workers",
    label: "worker slots: requests in service at once",
    min: 1,
    max: MAX_WORKERS as u64,
    unit: "slots",
    or_word: None,
};
/// `--spin-ms`: CPU busy-spin per request, `0..=MAX_SPIN_MS`.
pub const SPIN_MS: WholeFlag = WholeFlag {
    name: "spin-ms",
    label: "CPU busy-spin per request",
    min: 0,
    max: MAX_SPIN_MS,
    unit: "ms",
    or_word: None,
};
/// `--wait-ms`: sleep per request after the spin, `0..=MAX_WAIT_MS`.
pub const WAIT_MS: WholeFlag = WholeFlag {
    name: "wait-ms",
    label: "sleep per request after the spin, slot still held",
    min: 0,
    max: MAX_WAIT_MS,
    unit: "ms",
    or_word: None,
};
/// `--limit`: requests allowed to wait for a slot, `0..=MAX_LIMIT`, or
/// `off`, or an adaptive door's name (see [`crate::server::parse_door`]).
pub const LIMIT: WholeFlag = WholeFlag {
    name: "limit",
    label: "the door: requests allowed to wait for a slot (503 beyond it), or an adaptive controller \
            (aimd, vegas, gradient2, gradient: a limit on requests in the system; codel: shed at dequeue)",
    min: 0,
    max: MAX_LIMIT as u64,
    unit: "requests",
    or_word: Some(DOOR_WORDS),
};
/// Largest accepted `budget_ms` (10 min).
pub const MAX_BUDGET_MS: u64 = 600_000;
/// `--budget-ms`: a completion slower than this is a dropped sample.
pub const BUDGET_MS: WholeFlag = WholeFlag {
    name: "budget-ms",
    label: "a completion slower than this (arrival at the door to completion) is reported to the controller as \
            dropped (default: none is)",
    min: 1,
    max: MAX_BUDGET_MS,
    unit: "ms",
    or_word: None,
};
/// Largest accepted `slowdown_factor`.
pub const MAX_SLOWDOWN_FACTOR: f64 = 100.0;
/// `--slowdown-factor`: spin and wait multiplier after `--slowdown-at`.
pub const SLOWDOWN_FACTOR: RealFlag = RealFlag {
    name: "slowdown-factor",
    label: "the deploy: spin and wait of requests starting after --slowdown-at are multiplied by this",
    min: 0.0,
    max: MAX_SLOWDOWN_FACTOR,
    min_exclusive: true,
    unit: "",
};
/// Latest accepted `slowdown_at_ms` (1 day).
pub const MAX_SLOWDOWN_AT_MS: u64 = 86_400_000;
/// What `--slowdown-at` accepts.
pub const SLOWDOWN_AT_ACCEPTED: &str =
    "a duration after the server starts like 10s, 2.5s or 7500ms, from 0ms to 86400s";
/// What `--slowdown-for` accepts.
pub const SLOWDOWN_FOR_ACCEPTED: &str =
    "a duration like 3s, 2.5s or 500ms, from 1ms to 86400s, together with --slowdown-at (default: for good)";
/// Largest accepted `retry_after_s` (1 day).
pub const MAX_RETRY_AFTER_S: u64 = 86_400;
/// `--retry-after-s`: the `Retry-After` of the door's 503s, seconds.
pub const RETRY_AFTER_S: WholeFlag = WholeFlag {
    name: "retry-after-s",
    label: "the Retry-After header of the door's 503s (limit refusals and CoDel sheds)",
    min: 0,
    max: MAX_RETRY_AFTER_S,
    unit: "s",
    or_word: None,
};
/// `--max-connections`: open connections at once, `1..=MAX_CONNECTIONS`.
pub const MAX_CONNECTIONS_FLAG: WholeFlag = WholeFlag {
    name: "max-connections",
    label: "connections served at once; when full, a new one takes the slot of one holding no request (answered \
            503), or is answered 503 + Retry-After itself",
    min: 1,
    max: MAX_CONNECTIONS as u64,
    unit: "connections",
    or_word: None,
};
/// `--header-timeout-ms`: time to send the request head,
/// `1..=MAX_HEADER_TIMEOUT_MS`.
pub const HEADER_TIMEOUT_MS: WholeFlag = WholeFlag {
    name: "header-timeout-ms",
    label: "time a client gets to send the request head",
    min: 1,
    max: MAX_HEADER_TIMEOUT_MS,
    unit: "ms",
    or_word: None,
};
/// What `--addr` accepts.
pub const ADDR_ACCEPTED: &str = "IP:PORT, e.g. 127.0.0.1:8080 or [::1]:0 (port 0 picks a free port)";

/// The service's settings as plain named fields; [`ServeConfig::new`]
/// checks them. Ranges are the flag specs' ([`WORKERS`], [`SPIN_MS`], ...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServeSettings {
    /// Slots in service at once, `1..=MAX_WORKERS`.
    pub workers: usize,
    /// CPU busy-spin per request, ms, `0..=MAX_SPIN_MS`.
    pub spin_ms: u64,
    /// Sleep per request after the spin, ms, `0..=MAX_WAIT_MS`.
    pub wait_ms: u64,
    /// Requests that may wait for a slot (not counting those in service),
    /// `Some(0..=MAX_LIMIT)`; `None` = unbounded ("off").
    pub limit: Option<usize>,
    /// Where to listen; port 0 picks a free port.
    pub addr: SocketAddr,
    /// Connections served at once, `1..=MAX_CONNECTIONS`; see
    /// [`crate::server::fd_bound`] and the listener's docs for what happens
    /// beyond it.
    pub max_connections: usize,
    /// How long a client may take to send the request head, ms,
    /// `1..=MAX_HEADER_TIMEOUT_MS` (slowloris guard).
    pub header_read_timeout_ms: u64,
    /// A completion slower than this, ms, is a dropped sample for the
    /// controller (`1..=MAX_BUDGET_MS`); `None` = never.
    pub budget_ms: Option<u64>,
    /// The deploy: ms after the server starts (`0..=MAX_SLOWDOWN_AT_MS`)
    /// from which requests starting service take `slowdown_factor` times
    /// their spin and wait; `None` = no deploy.
    pub slowdown_at_ms: Option<u64>,
    /// The deploy's multiplier, in [`SLOWDOWN_FACTOR`]'s range.
    pub slowdown_factor: f64,
    /// How long the deploy lasts, ms (`1..=MAX_SLOWDOWN_AT_MS`): requests
    /// starting service in `[at, at + for)` are slowed, later ones are not
    /// (a bounded trigger); `None` = for good. Only with `slowdown_at_ms`.
    pub slowdown_for_ms: Option<u64>,
    /// `Retry-After` of the door's 503s, seconds, in [`RETRY_AFTER_S`]'s range.
    pub retry_after_s: u64,
}

impl ServeSettings {
    /// The lesson's service (and the CLI defaults): 1 worker, 2 ms spin,
    /// 18 ms wait, no limit, 127.0.0.1:8081, 1024 connections, 5 s header
    /// timeout, no budget, no deploy (a factor of 2 once one is asked for,
    /// for good unless bounded), `Retry-After: 1`.
    pub const DEFAULT: ServeSettings = ServeSettings {
        workers: bplab_core::params::LESSON_WORKERS as usize,
        spin_ms: 2,
        wait_ms: 18,
        limit: None,
        addr: SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 8081)),
        max_connections: 1024,
        header_read_timeout_ms: 5000,
        budget_ms: None,
        slowdown_at_ms: None,
        slowdown_factor: 2.0,
        slowdown_for_ms: None,
        retry_after_s: 1,
    };
}

impl Default for ServeSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The live service's configuration, validated once by [`ServeConfig::new`]
/// (the door: `limit`, or an adaptive one set by [`ServeConfig::with_door`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ServeConfig {
    s: ServeSettings,
    door: DoorSpec,
    given: BTreeMap<String, String>,
}

impl ServeConfig {
    /// Check every field of `settings` against its flag spec (see the
    /// [`ServeSettings`] field docs); the first bad one is a usage error
    /// naming the flag, the value and the accepted range.
    pub fn new(settings: ServeSettings) -> Result<Self, LiveError> {
        WORKERS.check_usize(settings.workers)?;
        SPIN_MS.check(settings.spin_ms)?;
        WAIT_MS.check(settings.wait_ms)?;
        if let Some(l) = settings.limit {
            LIMIT.check_usize(l)?;
        }
        MAX_CONNECTIONS_FLAG.check_usize(settings.max_connections)?;
        HEADER_TIMEOUT_MS.check(settings.header_read_timeout_ms)?;
        if let Some(b) = settings.budget_ms {
            BUDGET_MS.check(b)?;
        }
        if let Some(at) = settings.slowdown_at_ms
            && at > MAX_SLOWDOWN_AT_MS
        {
            return Err(slowdown_at_error(&format!("{at}ms")));
        }
        SLOWDOWN_FACTOR.check(settings.slowdown_factor)?;
        if let Some(d) = settings.slowdown_for_ms
            && (d == 0 || d > MAX_SLOWDOWN_AT_MS || settings.slowdown_at_ms.is_none())
        {
            return Err(slowdown_for_error(&format!("{d}ms")));
        }
        RETRY_AFTER_S.check(settings.retry_after_s)?;
        Ok(ServeConfig { s: settings, door: DoorSpec::Queue(settings.limit), given: BTreeMap::new() })
    }

    /// The same configuration with `door` (from [`crate::server::parse_door`])
    /// instead of `limit`; `given` are the controller settings as typed
    /// (flag name without `--` -> text), reported by `/stats`.
    pub fn with_door(mut self, door: DoorSpec, given: BTreeMap<String, String>) -> Self {
        self.s.limit = door.queue_limit();
        self.door = door;
        self.given = given;
        self
    }

    /// The door.
    pub fn door(&self) -> &DoorSpec {
        &self.door
    }
    /// Dropped-sample budget, ms.
    pub fn budget_ms(&self) -> Option<u64> {
        self.s.budget_ms
    }
    /// The deploy: (ms after start, factor).
    pub fn slowdown(&self) -> Option<(u64, f64)> {
        self.s.slowdown_at_ms.map(|at| (at, self.s.slowdown_factor))
    }
    /// The deploy's length, ms (`None`: for good).
    pub fn slowdown_for_ms(&self) -> Option<u64> {
        self.s.slowdown_for_ms
    }
    /// The deploy's multiplier for a request starting service `since_start`
    /// after the server started: the factor in `[at, at + for)`, else 1.
    pub fn slowdown_factor_at(&self, since_start: std::time::Duration) -> f64 {
        let ms = since_start.as_millis();
        match (self.s.slowdown_at_ms, self.s.slowdown_for_ms) {
            (Some(at), None) if ms >= u128::from(at) => self.s.slowdown_factor,
            (Some(at), Some(d)) if ms >= u128::from(at) && ms < u128::from(at) + u128::from(d) => {
                self.s.slowdown_factor
            }
            _ => 1.0,
        }
    }
    /// `Retry-After` of the door's 503s, seconds.
    pub fn retry_after_s(&self) -> u64 {
        self.s.retry_after_s
    }

    /// The settings it was built from.
    pub fn settings(&self) -> &ServeSettings {
        &self.s
    }
    /// Worker slots.
    pub fn workers(&self) -> usize {
        self.s.workers
    }
    /// CPU busy-spin per request, ms.
    pub fn spin_ms(&self) -> u64 {
        self.s.spin_ms
    }
    /// Sleep per request, ms.
    pub fn wait_ms(&self) -> u64 {
        self.s.wait_ms
    }
    /// Waiting requests allowed; `None` = off.
    pub fn limit(&self) -> Option<usize> {
        self.s.limit
    }
    /// Requested listen address.
    pub fn addr(&self) -> SocketAddr {
        self.s.addr
    }
    /// Open-connection cap.
    pub fn max_connections(&self) -> usize {
        self.s.max_connections
    }
    /// Header read timeout, ms.
    pub fn header_read_timeout_ms(&self) -> u64 {
        self.s.header_read_timeout_ms
    }

    /// The same configuration with the connection cap `max_connections`
    /// (lowered to fit the open-file limit, see
    /// [`crate::server::fit_to_open_files`]); at least 1.
    pub fn with_max_connections(mut self, max_connections: usize) -> Self {
        self.s.max_connections = max_connections.clamp(1, self.s.max_connections.max(1));
        self
    }

    /// The part of the configuration `/stats` reports.
    pub fn stats_config(&self) -> StatsConfig {
        StatsConfig {
            workers: self.s.workers,
            spin_ms: self.s.spin_ms,
            wait_ms: self.s.wait_ms,
            limit: self.s.limit,
            max_connections: self.s.max_connections,
            header_read_timeout_ms: self.s.header_read_timeout_ms,
            door: self.door.name().to_string(),
            controller: self.given.clone(),
            budget_ms: self.s.budget_ms,
            slowdown_at_ms: self.s.slowdown_at_ms,
            slowdown_factor: if self.s.slowdown_at_ms.is_some() { self.s.slowdown_factor } else { 1.0 },
            slowdown_for_ms: self.s.slowdown_for_ms,
            retry_after_s: self.s.retry_after_s,
            config_epoch: 0,
        }
    }
}

/// The start-up warnings for `cfg`: a non-loopback `--addr` (what it
/// exposes), and an open-file limit below what `--max-connections` may use
/// (`nofile`: the soft limit, if known).
pub fn start_warnings(cfg: &ServeConfig, nofile: Option<u64>) -> Vec<String> {
    let mut out = Vec::new();
    let addr = cfg.addr();
    if !crate::load::is_loopback(addr.ip()) {
        out.push(format!(
            "warning: listening on {addr}, not loopback: every host that can reach it may read GET /stats (the \
             configuration and counters), restart the peak with POST /stats/reset-peak and spend the worker slots \
             on any other path; POST /config is refused unless the peer is loopback, which a reverse proxy on this \
             host would defeat"
        ));
    }
    let need = crate::server::fd_bound(cfg.max_connections());
    if let Some(limit) = nofile.filter(|&l| l < need) {
        out.push(format!(
            "warning: the open-file limit is {limit}, but --max-connections {} may use up to {need} descriptors \
             (served + over-cap/closing connections + 65); accepts beyond the limit fail and are retried \
             (raise it with ulimit -n)",
            cfg.max_connections()
        ));
    }
    out
}

fn slowdown_at_error(text: &str) -> LiveError {
    LiveError::OutOfRange { flag: "slowdown-at", value: text.to_string(), accepted: SLOWDOWN_AT_ACCEPTED.to_string() }
}

fn slowdown_for_error(text: &str) -> LiveError {
    LiveError::OutOfRange { flag: "slowdown-for", value: text.to_string(), accepted: SLOWDOWN_FOR_ACCEPTED.to_string() }
}

/// Parse a `--slowdown-at` value: `10s`, `2.5s`, `7500ms` or `7500` (ms),
/// whole ms from 0 to [`MAX_SLOWDOWN_AT_MS`].
pub fn parse_slowdown_at(text: &str) -> Result<u64, LiveError> {
    duration_ms(text).ok_or_else(|| slowdown_at_error(text))
}

/// Parse a `--slowdown-for` value: as `--slowdown-at`, but at least 1 ms.
pub fn parse_slowdown_for(text: &str) -> Result<u64, LiveError> {
    duration_ms(text).filter(|&ms| ms > 0).ok_or_else(|| slowdown_for_error(text))
}

/// `10s`, `2.5s`, `7500ms` or `7500` (ms) as whole ms from 0 to
/// [`MAX_SLOWDOWN_AT_MS`].
fn duration_ms(text: &str) -> Option<u64> {
    let t = text.trim();
    let ms = if let Some(v) = t.strip_suffix("ms") {
        v.trim().parse::<f64>().ok()
    } else if let Some(v) = t.strip_suffix('s') {
        v.trim().parse::<f64>().ok().map(|s| s * 1000.0)
    } else {
        t.parse::<f64>().ok()
    };
    match ms {
        Some(ms) if ms.is_finite() && ms.fract() == 0.0 && (0.0..=MAX_SLOWDOWN_AT_MS as f64).contains(&ms) => {
            Some(ms as u64)
        }
        _ => None,
    }
}

/// Parse a `--limit` value: a count in [`LIMIT`]'s range or `off` (also
/// `none`, case-insensitive). `"-3"` and `"abc"` are usage errors naming the
/// value.
pub fn parse_limit(text: &str) -> Result<Option<usize>, LiveError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("off") || t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    LIMIT.parse_usize(text).map(Some)
}

/// Parse a `--addr` value (`IP:PORT`).
pub fn parse_addr(text: &str) -> Result<SocketAddr, LiveError> {
    text.trim().parse().map_err(|_| LiveError::OutOfRange {
        flag: "addr",
        value: text.to_string(),
        accepted: ADDR_ACCEPTED.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(workers: usize, limit: Option<usize>) -> ServeSettings {
        ServeSettings { workers, limit, addr: SocketAddr::from(([127, 0, 0, 1], 0)), ..ServeSettings::DEFAULT }
    }

    #[test]
    fn valid_config_builds() {
        let c = ServeConfig::new(settings(1, Some(10))).expect("valid");
        assert_eq!(c.stats_config().config_line(), "workers 1 spin 2ms wait 18ms limit 10");
    }

    #[test]
    fn zero_workers_rejected() {
        let e = ServeConfig::new(settings(0, None)).unwrap_err();
        assert!(e.is_usage());
        assert_eq!(e.to_string(), "--workers: '0' is not accepted; expected a whole number from 1 to 1024 (slots)");
        let e = ServeConfig::new(settings(1, Some(MAX_LIMIT + 1))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--limit: '100001' is not accepted; expected a whole number from 0 to 100000 (requests), or off, aimd, \
             vegas, gradient2, gradient or codel"
        );
        let e = ServeConfig::new(ServeSettings { slowdown_factor: 0.0, ..settings(1, None) }).unwrap_err();
        assert_eq!(e.to_string(), "--slowdown-factor: '0' is not accepted; expected a number above 0 to 100");
    }

    #[test]
    fn warnings_name_what_is_exposed_and_the_fd_bound() {
        let local = ServeConfig::new(settings(1, None)).expect("valid");
        assert!(start_warnings(&local, Some(1_000_000)).is_empty());
        let all = ServeConfig::new(ServeSettings { addr: "0.0.0.0:8081".parse().expect("addr"), ..settings(1, None) })
            .expect("valid");
        let w = start_warnings(&all, None);
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("warning: listening on 0.0.0.0:8081, not loopback"), "{}", w[0]);
        assert!(w[0].contains("GET /stats") && w[0].contains("POST /config"), "{}", w[0]);
        let w = start_warnings(&local, Some(1024));
        assert_eq!(
            w,
            vec![
                "warning: the open-file limit is 1024, but --max-connections 1024 may use up to 2113 descriptors \
             (served + over-cap/closing connections + 65); accepts beyond the limit fail and are retried \
             (raise it with ulimit -n)"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_bounded_slowdown_ends_and_retry_after_is_a_setting() {
        use std::time::Duration;
        let ms = Duration::from_millis;
        let bounded = ServeConfig::new(ServeSettings {
            slowdown_at_ms: Some(1000),
            slowdown_factor: 3.0,
            slowdown_for_ms: Some(500),
            retry_after_s: 0,
            ..settings(1, Some(40))
        })
        .expect("valid");
        let f: Vec<f64> = [999, 1000, 1499, 1500].iter().map(|&t| bounded.slowdown_factor_at(ms(t))).collect();
        assert_eq!(f, [1.0, 3.0, 3.0, 1.0]);
        assert_eq!(bounded.retry_after_s(), 0);
        let c = bounded.stats_config();
        assert_eq!((c.slowdown_for_ms, c.retry_after_s), (Some(500), 0));
        assert!(c.config_line().ends_with("slowdown 3x at 1000ms for 500ms retry-after 0s"), "{}", c.config_line());
        let forever = ServeConfig::new(ServeSettings { slowdown_at_ms: Some(1000), ..settings(1, None) }).expect("ok");
        assert_eq!(forever.slowdown_factor_at(ms(86_400_000)), 2.0);
        let e = ServeConfig::new(ServeSettings { slowdown_for_ms: Some(500), ..settings(1, None) }).unwrap_err();
        assert!(e.to_string().starts_with("--slowdown-for: '500ms' is not accepted; expected a duration"), "{e}");
        let e = ServeConfig::new(ServeSettings { retry_after_s: 86_401, ..settings(1, None) }).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--retry-after-s: '86401' is not accepted; expected a whole number from 0 to 86400 (s)"
        );
        assert_eq!(parse_slowdown_for("3s").ok(), Some(3000));
        for bad in ["0", "0ms", "-1s", "x", "1.5ms", "86401s"] {
            assert!(parse_slowdown_for(bad).unwrap_err().to_string().starts_with(&format!("--slowdown-for: '{bad}'")));
        }
    }

    #[test]
    fn slowdown_at_parsing() {
        assert_eq!(parse_slowdown_at("10s").ok(), Some(10_000));
        assert_eq!(parse_slowdown_at("2.5s").ok(), Some(2500));
        assert_eq!(parse_slowdown_at("7500ms").ok(), Some(7500));
        assert_eq!(parse_slowdown_at("0").ok(), Some(0));
        for bad in ["-1s", "abc", "", "1.5ms", "90000s"] {
            let e = parse_slowdown_at(bad).unwrap_err();
            assert!(e.to_string().starts_with(&format!("--slowdown-at: '{bad}' is not accepted; expected a duration")));
        }
    }

    #[test]
    fn limit_parsing() {
        assert_eq!(parse_limit("off").ok(), Some(None));
        assert_eq!(parse_limit("OFF").ok(), Some(None));
        assert_eq!(parse_limit("10").ok(), Some(Some(10)));
        assert_eq!(parse_limit("0").ok(), Some(Some(0)));
        assert_eq!(parse_limit("none").ok(), Some(None));
        assert!(
            parse_addr("nowhere")
                .unwrap_err()
                .to_string()
                .starts_with("--addr: 'nowhere' is not accepted; expected IP:PORT")
        );
        for bad in ["-3", "abc", "", "1e3", "100001"] {
            let e = parse_limit(bad).unwrap_err();
            assert!(e.is_usage(), "{bad}");
            assert!(e.to_string().starts_with(&format!("--limit: '{bad}' is not accepted; expected ")), "{bad}: {e}");
        }
    }
}
