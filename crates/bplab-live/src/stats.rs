//! The `/stats` wire format, shared by the server (writes it) and the load
//! generator and `measure` (read it).
//!
//! Counters are cumulative since the server started; `in_service` and
//! `queued` are instantaneous; `queued_peak` is a high-water mark that
//! `POST /stats/reset-peak` restarts. The load generator takes two snapshots around
//! each rate and works with their differences, see
//! [`crate::load::RateRow`].

use std::collections::BTreeMap;

use bplab_core::control::{CodelState, LimiterState};
use serde::{Deserialize, Serialize};

use crate::error::LiveError;
use crate::server::{DoorSpec, parse_door};

/// The server's configuration as reported by `/stats`: the values in force
/// now (`POST /config` changes `workers`, `spin_ms` and `wait_ms` live).
///
/// The fields after `header_read_timeout_ms` are absent in older servers'
/// JSON and then take their defaults (door from `limit`, no controller
/// settings, no budget, no deploy).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatsConfig {
    /// Worker slots (requests in service at once), `>= 1`.
    pub workers: usize,
    /// CPU busy-spin per request, milliseconds (before any deploy slowdown).
    pub spin_ms: u64,
    /// Sleep per request after the spin, milliseconds (slot still held;
    /// before any deploy slowdown).
    pub wait_ms: u64,
    /// `--limit N`: requests allowed to wait for a slot; `None` = unbounded
    /// ("off") or an adaptive door (see `door`).
    pub limit: Option<usize>,
    /// Open connections the server accepts at once.
    pub max_connections: usize,
    /// Header read timeout, milliseconds.
    pub header_read_timeout_ms: u64,
    /// The door: `off`, `fixed` (`--limit N`), `aimd`, `vegas`,
    /// `gradient2`, `gradient` or `codel`. Empty in older servers' JSON
    /// (see [`StatsConfig::door_name`]).
    #[serde(default)]
    pub door: String,
    /// The controller settings given on the command line, by flag name
    /// without `--` (e.g. `min-limit` -> `5`), as typed; unset ones take the
    /// core's defaults (CoDel: target 50 ms, interval 100 ms).
    #[serde(default)]
    pub controller: BTreeMap<String, String>,
    /// `--budget-ms`: a completion slower than this (arrival at the door to
    /// completion) is reported to the controller as dropped; `None` = never.
    #[serde(default)]
    pub budget_ms: Option<u64>,
    /// `--slowdown-at`: ms after the server started from which a request
    /// that starts service takes `slowdown_factor` times its spin and wait.
    #[serde(default)]
    pub slowdown_at_ms: Option<u64>,
    /// `--slowdown-factor` (1 when there is no deploy).
    #[serde(default = "one")]
    pub slowdown_factor: f64,
    /// `--slowdown-for`: the deploy lasts this long, ms (requests starting
    /// service in `[slowdown_at_ms, slowdown_at_ms + slowdown_for_ms)` are
    /// slowed); `None` = for good (and in older servers' JSON).
    #[serde(default)]
    pub slowdown_for_ms: Option<u64>,
    /// `--retry-after-s`: the `Retry-After` of the door's 503s, seconds (1 in
    /// older servers' JSON).
    #[serde(default = "one_s")]
    pub retry_after_s: u64,
    /// How many `POST /config` changes were applied since start: a reader
    /// that sees the same epoch twice knows `workers`, `spin_ms` and
    /// `wait_ms` did not change in between (0 in older servers' JSON).
    #[serde(default)]
    pub config_epoch: u64,
}

fn one() -> f64 {
    1.0
}

fn one_s() -> u64 {
    1
}

impl StatsConfig {
    /// The acceptance line printed by `load --check`, in the lesson's form:
    /// `workers 1 spin 2ms wait 18ms limit 10` (or `limit off`, or the
    /// controller's name and the settings given, e.g. `limit gradient2
    /// (min-limit 5)`), then ` budget 250ms`, ` slowdown 2x at 10000ms` (and
    /// ` for 3000ms`) and ` retry-after 2s` (when not 1) when set.
    pub fn config_line(&self) -> String {
        let limit = match (self.door_name(), self.limit) {
            ("fixed", Some(l)) => l.to_string(),
            (name, _) if self.controller.is_empty() => name.to_string(),
            (name, _) => {
                let given: Vec<String> = self.controller.iter().map(|(k, v)| format!("{k} {v}")).collect();
                format!("{name} ({})", given.join(", "))
            }
        };
        let mut line =
            format!("workers {} spin {}ms wait {}ms limit {}", self.workers, self.spin_ms, self.wait_ms, limit);
        if let Some(b) = self.budget_ms {
            line.push_str(&format!(" budget {b}ms"));
        }
        if let Some(at) = self.slowdown_at_ms {
            line.push_str(&format!(" slowdown {}x at {at}ms", self.slowdown_factor));
        }
        if let Some(d) = self.slowdown_for_ms {
            line.push_str(&format!(" for {d}ms"));
        }
        if self.retry_after_s != 1 {
            line.push_str(&format!(" retry-after {}s", self.retry_after_s));
        }
        line
    }

    /// The door's name; for an older server's JSON (no `door`), `fixed`
    /// with a limit and `off` without.
    pub fn door_name(&self) -> &str {
        match (self.door.as_str(), self.limit) {
            ("", Some(_)) => "fixed",
            ("", None) => "off",
            (name, _) => name,
        }
    }

    /// The door as the server parsed it from its flags: its line (`fixed`,
    /// `off`: at most `limit` waiting) or its controller with its settings,
    /// `initial-limit` replaced by `start_limit` when given. `fixed` names
    /// the line, never the fixed limiter (`parse_door` reads it as a line
    /// limit too).
    pub fn door_spec(&self, start_limit: Option<i64>) -> Result<DoorSpec, LiveError> {
        match self.door_name() {
            "fixed" | "off" => Ok(DoorSpec::Queue(self.limit)),
            name => match start_limit {
                Some(l) => {
                    let mut given = self.controller.clone();
                    given.insert("initial-limit".to_string(), l.to_string());
                    parse_door(name, &given)
                }
                None => parse_door(name, &self.controller),
            },
        }
    }
}

/// The door's state in one `/stats` answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DoorStats {
    /// Requests allowed in the system (in service + waiting) right now:
    /// `workers + limit` for `--limit N`, the controller's current limit for
    /// `aimd`, `vegas`, `gradient2` and `gradient`; `None` for `off` and
    /// `codel` (no bound on the line).
    pub limit: Option<i64>,
    /// Completions reported to the controller as samples since start.
    pub samples: u64,
    /// Of those, how many were past `--budget-ms` (sent as dropped).
    pub dropped: u64,
    /// Requests CoDel shed as a worker took them off the line (included in
    /// `refused`).
    pub shed: u64,
    /// CoDel's state, for the `codel` door.
    pub codel: Option<CodelStats>,
    /// The deploy slowdown is in force (requests starting now are slower).
    pub slowed: bool,
    /// An adaptive limiter's whole state (`aimd`, `vegas`, `gradient2`,
    /// `gradient`), for `load --compare` to start its model there. Absent in
    /// older servers' JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limiter_state: Option<LimiterState>,
    /// CoDel's whole state (interval end in ns since the server started).
    /// Absent in older servers' JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codel_state: Option<CodelState>,
}

/// One request the server holds (in service or waiting at the door), as
/// `/stats` `held` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// µs since it reached the door.
    pub age_us: u64,
    /// µs since it took its worker slot; `None` while it waits.
    pub in_service_us: Option<u64>,
    /// Its spin + wait, µs, the deploy's factor applied (0 while it waits:
    /// the factor is set as it takes its slot).
    pub work_us: u64,
    /// Requests in the system right after it was admitted (its sample's
    /// in-flight count).
    pub inflight: i32,
}

/// Request-queue CoDel's state (folly semantics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CodelStats {
    /// Effective target queue delay, ms (shed above twice this while overloaded).
    pub target_ms: i64,
    /// Interval, ms.
    pub interval_ms: i64,
    /// The overload flag decided at the last interval boundary.
    pub overloaded: bool,
    /// Minimum queue delay seen since the last boundary, whole ms.
    pub min_delay_ms: i64,
    /// folly's `getLoad()`, percent (0 to 100).
    pub load_pct: i32,
}

/// One `/stats` answer.
///
/// Read in one consistent instant: `arrived = done + refused + in_service +
/// queued` holds in every answer (requests cancelled by a shutdown aside).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// when `max_connections` were open: each had no complete request on
    /// its socket (no request bytes, a partial head, or idle between
    /// keep-alive requests) and was answered 503 with `Retry-After`. Not a
    /// request count: it is outside the identity below. Absent in older
    /// servers' JSON (0).
    #[serde(default)]
    pub connections_shed: u64,
    /// Requests answered 503 with `Retry-After` because they came on a
    /// connection accepted over `max_connections` (they never reach the
    /// door, so they are outside the identity below). 0 in older servers' JSON.
    #[serde(default)]
    pub over_cap: u64,
    /// Milliseconds since the server started.
    pub uptime_ms: u64,
    /// The door's state (default in older servers' JSON).
    #[serde(default)]
    pub door: DoorStats,
    /// Every request the server holds: those in service, then those waiting
    /// in line order (the first is the next to take a slot). Absent in older
    /// servers' JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<Vec<Held>>,
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
    use bplab_core::control::Limiter;

    fn cfg(limit: Option<usize>) -> StatsConfig {
        StatsConfig {
            workers: 1,
            spin_ms: 2,
            wait_ms: 18,
            limit,
            max_connections: 100,
            header_read_timeout_ms: 5000,
            door: String::new(),
            controller: BTreeMap::new(),
            budget_ms: None,
            slowdown_at_ms: None,
            slowdown_factor: 1.0,
            slowdown_for_ms: None,
            retry_after_s: 1,
            config_epoch: 0,
        }
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
            over_cap: 0,
            uptime_ms: 9,
            door: DoorStats::default(),
            held: None,
        };
        let text = serde_json::to_string(&s).expect("serialize");
        assert!(text.contains("\"limit\":null"));
        let back: StatsSnapshot = serde_json::from_str(&text).expect("parse");
        assert_eq!(back, s);
        let old = text.replace(",\"connections_shed\":4", "");
        assert_ne!(old, text);
        let back: StatsSnapshot = serde_json::from_str(&old).expect("parse without connections_shed");
        assert_eq!(back.connections_shed, 0);
        let old = r#"{"config":{"workers":1,"spin_ms":2,"wait_ms":18,"limit":10,"max_connections":9,
            "header_read_timeout_ms":5},"arrived":0,"done":0,"refused":0,"in_service":0,"queued":0,
            "queued_peak":0,"uptime_ms":1}"#;
        let back: StatsSnapshot = serde_json::from_str(old).expect("an older server's JSON");
        assert_eq!((back.config.door_name(), back.config.slowdown_factor, back.door.limit), ("fixed", 1.0, None));
        assert_eq!((back.config.slowdown_for_ms, back.config.retry_after_s), (None, 1));
    }

    /// The door a snapshot names, read once for the model and the observed
    /// state: the line (an older server's JSON too) or the controller, with
    /// an initial limit only where the controller takes one.
    #[test]
    fn door_spec_reads_the_line_or_the_controller() {
        assert_eq!(cfg(Some(10)).door_spec(None).unwrap(), DoorSpec::Queue(Some(10)));
        assert_eq!(cfg(None).door_spec(Some(7)).unwrap(), DoorSpec::Queue(None));
        let mut fixed = cfg(Some(3));
        fixed.door = "fixed".into();
        assert_eq!(fixed.door_spec(Some(7)).unwrap(), DoorSpec::Queue(Some(3)));
        let mut aimd = cfg(None);
        aimd.door = "aimd".into();
        let start = |c: &StatsConfig, l| match c.door_spec(l).unwrap() {
            DoorSpec::Limiter(c) => c.build().limit(),
            other => panic!("{other:?}"),
        };
        assert_eq!(start(&aimd, Some(7)), 7);
        assert_ne!(start(&aimd, None), 7);
        let mut codel = cfg(None);
        codel.door = "codel".into();
        assert!(matches!(codel.door_spec(None).unwrap(), DoorSpec::Codel(_)));
        assert!(codel.door_spec(Some(7)).is_err(), "CoDel takes no initial limit");
        let mut odd = cfg(None);
        odd.door = "nonsense".into();
        assert!(odd.door_spec(None).is_err());
    }

    #[test]
    fn config_line_names_the_controller_and_the_deploy() {
        let mut c = cfg(None);
        c.door = "gradient2".into();
        c.controller.insert("min-limit".into(), "5".into());
        c.budget_ms = Some(250);
        c.slowdown_at_ms = Some(10_000);
        c.slowdown_factor = 2.0;
        assert_eq!(
            c.config_line(),
            "workers 1 spin 2ms wait 18ms limit gradient2 (min-limit 5) budget 250ms slowdown 2x at 10000ms"
        );
        c.slowdown_for_ms = Some(3000);
        c.retry_after_s = 2;
        assert!(c.config_line().ends_with(" slowdown 2x at 10000ms for 3000ms retry-after 2s"), "{}", c.config_line());
    }
}
