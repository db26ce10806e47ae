//! Which door the server runs (`--limit N|off|aimd|vegas|gradient2|gradient|codel`)
//! and the controller settings, with the flag names of `bplab limiter` and
//! `bplab codel` (`--initial-limit`, `--min-limit`, ..., `--target-ms`,
//! `--interval-ms`). The controllers are the core's types
//! ([`bplab_core::control`]), built from the core's validated configs; a
//! value the core refuses comes back as the house-style usage error
//! `--flag: 'value' is not accepted; expected <range>`, quoting the text as
//! typed and the core's range.
//!
//! The same parser rebuilds the door on the load side from `/stats` (which
//! reports the door's name and the settings as typed), so the model of
//! `load --compare --timeline` runs the controller the server runs.

use std::collections::BTreeMap;

use bplab_core::control::{Algorithm, CodelConfig, ControlError, LimiterConfig, limiter_config};

use crate::error::LiveError;

use Algorithm::{Aimd as A, Gradient as G, Gradient2 as G2, Vegas as V};

/// CoDel's default target queue delay for the live door, ms: the core's
/// `bplab run adaptive` default (folly's own 5 ms sheds nearly everything
/// behind a 21 ms request).
pub const CODEL_TARGET_MS_DEFAULT: i64 = 50;
/// CoDel's default interval for the live door, ms (folly's and the core's).
pub const CODEL_INTERVAL_MS_DEFAULT: i64 = 100;

/// The door in front of the worker slots.
#[derive(Debug, Clone, PartialEq)]
pub enum DoorSpec {
    /// `--limit N` (`Some`) or `--limit off` (`None`): at most N requests
    /// wait for a slot (not counting those in service).
    Queue(Option<usize>),
    /// An adaptive (or fixed) concurrency limit on requests in the system
    /// (in service + waiting), asked at each arrival and fed a sample at
    /// each completion.
    Limiter(LimiterConfig),
    /// Request-queue CoDel, asked as a worker slot takes a request off the line.
    Codel(CodelConfig),
}

impl DoorSpec {
    /// `off`, `fixed`, `aimd`, `vegas`, `gradient2`, `gradient` or `codel`.
    pub fn name(&self) -> &'static str {
        match self {
            DoorSpec::Queue(None) => "off",
            DoorSpec::Queue(Some(_)) => "fixed",
            DoorSpec::Limiter(c) => c.algorithm().name(),
            DoorSpec::Codel(_) => "codel",
        }
    }

    /// The waiting-line limit of a `--limit N` door.
    pub fn queue_limit(&self) -> Option<usize> {
        match self {
            DoorSpec::Queue(l) => *l,
            _ => None,
        }
    }
}

/// Which doors have a setting.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Owner {
    Limiters(&'static [Algorithm]),
    Codel,
}

/// One controller flag: name (without `--`), help, owners.
pub(crate) struct Setting(&'static str, &'static str, Owner);

/// Every controller flag `serve` accepts, as `bplab limiter` / `bplab codel` name them.
pub(crate) const SETTINGS: &[Setting] = &[
    Setting("initial-limit", "Limit before any sample", Owner::Limiters(&[A, V, G2, G])),
    Setting("min-limit", "Floor of the limit", Owner::Limiters(&[A, G2, G])),
    Setting("max-limit", "Ceiling of the limit", Owner::Limiters(&[A, V, G2, G])),
    Setting("backoff-ratio", "Multiplier on a drop", Owner::Limiters(&[A, G])),
    Setting("timeout-ms", "A round trip strictly above this counts as a drop", Owner::Limiters(&[A])),
    Setting("smoothing", "Weight of the new value, 0 to 1", Owner::Limiters(&[V, G2, G])),
    Setting("alpha", "Constant alpha (default 3 × lg(limit))", Owner::Limiters(&[V])),
    Setting("beta", "Constant beta (default 6 × lg(limit))", Owner::Limiters(&[V])),
    Setting("threshold", "Constant threshold (default lg(limit))", Owner::Limiters(&[V])),
    Setting("probe-multiplier", "Probe after jitter × N × limit samples", Owner::Limiters(&[V])),
    Setting("long-window", "Samples of the long round-trip average", Owner::Limiters(&[G2])),
    Setting("rtt-tolerance", "Latency rise tolerated before shrinking, >= 1.0", Owner::Limiters(&[G2, G])),
    Setting("queue-size", "Constant queue size", Owner::Limiters(&[G2, G])),
    Setting("probe-interval", "Samples between probes; -1 disables", Owner::Limiters(&[G])),
    Setting("seed", "Seed of the controller's draws (default 0)", Owner::Limiters(&[V, G])),
    Setting("target-ms", "Target queue delay, whole ms (default 50; shed above 2 × target)", Owner::Codel),
    Setting("interval-ms", "Interval, whole ms (default 100)", Owner::Codel),
];

/// The kind of door `--limit` names, parsed once from its text: a
/// waiting-line limit (a number, `off`, `none`), one of the core's adaptive
/// limiters, or CoDel. Everything after parsing matches on it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Line,
    Limiter(Algorithm),
    Codel,
}

impl Kind {
    /// The kind of `--limit` text (a line limit unless it names an adaptive door).
    fn parse(limit: &str) -> Kind {
        let word = limit.trim().to_ascii_lowercase();
        if word == "codel" {
            return Kind::Codel;
        }
        Algorithm::from_name(&word).filter(|a| *a != Algorithm::Fixed).map_or(Kind::Line, Kind::Limiter)
    }
}

impl Owner {
    fn owns(self, door: Kind) -> bool {
        match (self, door) {
            (Owner::Limiters(algos), Kind::Limiter(a)) => algos.contains(&a),
            (Owner::Codel, Kind::Codel) => true,
            _ => false,
        }
    }

    fn names(self) -> String {
        match self {
            Owner::Limiters(algos) => algos.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "),
            Owner::Codel => "codel".to_string(),
        }
    }
}

/// `--help` text of controller flag `name`.
pub(crate) fn setting_help(name: &str) -> String {
    SETTINGS
        .iter()
        .find(|s| s.0 == name)
        .map_or_else(String::new, |Setting(_, help, owner)| format!("{help} [--limit {}]", owner.names()))
}

/// The adaptive doors' names, for `--limit`'s accepted text.
pub const DOOR_WORDS: &str = "off, aimd, vegas, gradient2, gradient or codel";

fn bad(flag: &'static str, text: &str, accepted: impl Into<String>) -> LiveError {
    LiveError::OutOfRange { flag, value: text.to_string(), accepted: accepted.into() }
}

fn static_name(flag: &str) -> &'static str {
    SETTINGS.iter().find(|s| s.0 == flag).map_or("limit", |s| s.0)
}

/// The given settings, read as `bplab limiter` reads them.
struct Given<'a>(&'a BTreeMap<String, String>);

impl Given<'_> {
    fn text(&self, flag: &str) -> Option<&String> {
        self.0.get(flag)
    }

    fn whole_ms(&self, flag: &str, default: i64) -> Result<i64, LiveError> {
        let Some(t) = self.text(flag) else { return Ok(default) };
        t.trim().parse().map_err(|_| bad(static_name(flag), t, "a whole number of ms"))
    }

    /// A core range error as a flag error, quoting the text as typed.
    fn reject(&self, e: ControlError) -> LiveError {
        match e {
            // The core's settings reader already quotes limiter values as typed.
            ControlError::OutOfRange { param, value, accepted } => {
                let value = self.text(param).cloned().unwrap_or(value);
                bad(param, &value, accepted)
            }
            other => bad("limit", &other.to_string(), "settings the controller accepts"),
        }
    }
}

/// The door for `--limit` `limit` with the controller settings `given` (flag
/// name without `--` -> text as typed). A setting the chosen door does not
/// have is a usage error naming the doors that have it.
pub fn parse_door(limit: &str, given: &BTreeMap<String, String>) -> Result<DoorSpec, LiveError> {
    let kind = Kind::parse(limit);
    for flag in given.keys() {
        let Some(Setting(flag, _, owner)) = SETTINGS.iter().find(|s| s.0 == flag) else {
            return Err(bad("limit", flag, "a known controller setting"));
        };
        if !owner.owns(kind) {
            let door = match kind {
                Kind::Line => format!("--limit {}", limit.trim()),
                Kind::Limiter(a) => a.name().to_string(),
                Kind::Codel => "codel".to_string(),
            };
            let accepted = format!("a setting of --limit {} only (not of {door})", owner.names());
            return Err(LiveError::OutOfRange { flag, value: given[*flag].clone(), accepted });
        }
    }
    let f = Given(given);
    let reject = |e| f.reject(e);
    match kind {
        Kind::Line => crate::server::config::parse_limit(limit).map(DoorSpec::Queue),
        Kind::Codel => {
            let target = f.whole_ms("target-ms", CODEL_TARGET_MS_DEFAULT)?;
            let interval = f.whole_ms("interval-ms", CODEL_INTERVAL_MS_DEFAULT)?;
            CodelConfig::new(target, interval).map(DoorSpec::Codel).map_err(reject)
        }
        // The core's one settings reader, as `bplab limiter` uses it.
        Kind::Limiter(algo) => {
            limiter_config(algo, |flag| given.get(flag).map(String::as_str)).map(DoorSpec::Limiter).map_err(reject)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::config::LIMIT;

    fn given(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn doors_by_name() {
        assert_eq!(parse_door("10", &given(&[])).ok(), Some(DoorSpec::Queue(Some(10))));
        assert_eq!(parse_door("off", &given(&[])).ok(), Some(DoorSpec::Queue(None)));
        for name in ["aimd", "vegas", "gradient2", "gradient", "codel"] {
            assert_eq!(parse_door(name, &given(&[])).expect(name).name(), name);
        }
        let c = parse_door("codel", &given(&[("target-ms", "20")])).expect("codel");
        assert_eq!(c, DoorSpec::Codel(CodelConfig::new(20, 100).expect("valid")));
        assert!(matches!(parse_door("gradient2", &given(&[("min-limit", "5")])), Ok(DoorSpec::Limiter(_))));
    }

    #[test]
    fn the_limit_text_is_parsed_once_into_a_kind() {
        assert_eq!(Kind::parse(" CoDel "), Kind::Codel);
        assert_eq!(Kind::parse("Gradient2"), Kind::Limiter(Algorithm::Gradient2));
        for line in ["10", "off", "none", "fixed", "fast"] {
            assert_eq!(Kind::parse(line), Kind::Line, "{line}");
        }
        assert!(Owner::Codel.owns(Kind::Codel) && !Owner::Codel.owns(Kind::Line));
        assert!(Owner::Limiters(&[A]).owns(Kind::Limiter(A)) && !Owner::Limiters(&[A]).owns(Kind::Limiter(V)));
    }

    #[test]
    fn bad_settings_read_like_bplab_limiter() {
        let e = parse_door("aimd", &given(&[("backoff-ratio", "1.5")])).unwrap_err();
        assert!(e.is_usage());
        assert!(e.to_string().starts_with("--backoff-ratio: '1.5' is not accepted; expected a number from 0.5"), "{e}");
        let e = parse_door("gradient2", &given(&[("min-limit", "-1")])).unwrap_err();
        assert!(e.to_string().starts_with("--min-limit: '-1' is not accepted; expected a whole number"), "{e}");
        let e = parse_door("gradient2", &given(&[("min-limit", "abc")])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--min-limit: 'abc' is not accepted; expected a whole number from -2147483648 to 2147483647"
        );
        let e = parse_door("codel", &given(&[("target-ms", "0")])).unwrap_err();
        assert!(
            e.to_string().starts_with("--target-ms: '0' is not accepted; expected a whole number of ms from 1"),
            "{e}"
        );
        let e = parse_door("aimd", &given(&[("target-ms", "5")])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--target-ms: '5' is not accepted; expected a setting of --limit codel only (not of aimd)"
        );
        let e = parse_door("10", &given(&[("min-limit", "5")])).unwrap_err();
        assert!(e.to_string().contains("(not of --limit 10)"), "{e}");
        let e = parse_door("fast", &given(&[])).unwrap_err();
        assert!(e.to_string().starts_with("--limit: 'fast' is not accepted; expected a whole number"), "{e}");
        assert!(e.to_string().ends_with(DOOR_WORDS), "{e}");
        assert!(LIMIT.accepted().ends_with(DOOR_WORDS));
    }
}
