//! The metastable experiment's parameters and its trigger kind.

use serde::Serialize;

use crate::error::ConfigError;
use crate::params::{
    CLIENT_TIMEOUT_MS, HOUR_MS, LESSON_SEED, LESSON_SERVICE_MS, LESSON_WORKERS, Named, ParamKind, ParamSpec,
    ParamValue, QueueLimit, Range, SEED, SERVICE, WINDOW_MS, WORKERS, main, span,
};
use crate::stochastic::ServiceTime;

/// What the trigger does while it lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(into = "&'static str")]
pub enum Trigger {
    /// First tries arrive at `trigger-size` × the load.
    Spike,
    /// Requests starting in the trigger take `trigger-size` × their work.
    Slowdown,
}

impl Trigger {
    /// The names, in [`Named::ALL`] order.
    pub const NAMES: [&'static str; 2] = ["spike", "slowdown"];
}

impl Named for Trigger {
    const ALL: &'static [Self] = &[Trigger::Spike, Trigger::Slowdown];
    fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl From<Trigger> for &'static str {
    fn from(t: Trigger) -> Self {
        t.name()
    }
}

impl ParamValue for Trigger {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        Self::parse_named(spec, text)
    }
    fn show(&self) -> String {
        self.name().to_owned()
    }
}

/// The spec of `trigger-sizes` (named in refusals).
pub const TRIGGER_SIZES: ParamSpec = ParamSpec {
    name: "trigger-sizes",
    label: "Phase diagram sizes",
    unit: "×",
    kind: ParamKind::RealList,
    range: Range::from_to(1.0, 100.0),
    help: "trigger sizes of the phase diagram, comma-separated",
    slider: None,
};

/// The spec of `trigger-lengths-ms` (named in refusals).
pub const TRIGGER_LENGTHS_MS: ParamSpec = ParamSpec {
    name: "trigger-lengths-ms",
    label: "Phase diagram lengths",
    unit: "ms",
    kind: ParamKind::IntList,
    range: Range::from_to(1.0, HOUR_MS),
    help: "trigger lengths of the phase diagram, comma-separated",
    slider: None,
};

/// The spec of `trigger-ms` (named in refusals).
pub const TRIGGER_MS: ParamSpec = ParamSpec {
    name: "trigger-ms",
    label: "Trigger length",
    unit: "ms",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, HOUR_MS),
    help: "how long the trigger lasts",
    slider: span(100.0, 10_000.0, 100.0),
};

/// The spec of `seconds` here: the run goes on this long after the latest
/// trigger end any of its runs uses (named in refusals).
pub const AFTER_SECONDS: ParamSpec = ParamSpec {
    name: "seconds",
    label: "Seconds after the trigger",
    unit: "s",
    kind: ParamKind::Real,
    // From 1 ms: a shorter tail leaves no window after the trigger, and a
    // refusal then names this value, not the window (D11).
    range: Range::from_to(0.001, 86_400.0),
    help: "every run lasts until this long after the longest trigger (trigger-ms and trigger-lengths-ms) ends",
    slider: span(2.0, 60.0, 1.0),
};

crate::experiment_params! {
    /// A trigger on a server that is stable without it, six client policies
    /// on the same trace, a phase diagram and a sizing search.
    pub struct MetastableParams {
        /// First tries outside the trigger, as a share of capacity (workers
        /// × 1000 / mean service): below 1, so the server is stable without
        /// the trigger.
        load: f64 = 0.75, main(ParamSpec {
            name: "load",
            label: "Offered first tries",
            unit: "× capacity",
            kind: ParamKind::Real,
            range: Range::between(0.0, 1.0),
            help: "open-loop Poisson first tries outside the trigger, as a share of capacity (retries come on top)",
            slider: span(0.05, 0.95, 0.05),
        });
        /// Spike or slowdown.
        trigger: Trigger = Trigger::Spike, ParamSpec {
            name: "trigger",
            label: "Trigger",
            unit: "kind",
            kind: ParamKind::Name(&Trigger::NAMES),
            range: Range::NONE,
            help: "spike: first tries × size during the trigger; slowdown: service times × size",
            slider: None,
        };
        /// When the trigger starts, ms.
        trigger_at_ms: u32 = 10_000, ParamSpec {
            name: "trigger-at-ms",
            label: "Trigger at",
            unit: "ms",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, HOUR_MS),
            help: "when the trigger starts",
            slider: span(0.0, 30_000.0, 500.0),
        };
        /// How long it lasts, ms.
        trigger_ms: u32 = 3000, TRIGGER_MS;
        /// Its size (×).
        trigger_size: f64 = 3.0, main(ParamSpec {
            name: "trigger-size",
            label: "Trigger size",
            unit: "×",
            kind: ParamKind::Real,
            range: Range::from_to(1.0, 100.0),
            help: "spike: rate multiplier; slowdown: service-time multiplier",
            slider: span(1.0, 6.0, 0.25),
        });
        /// How long every run goes on after the longest trigger ends, s.
        seconds: f64 = 16.0, AFTER_SECONDS;
        /// Seed of every draw.
        seed: u32 = LESSON_SEED, SEED;
        /// Servers.
        workers: u32 = LESSON_WORKERS, WORKERS;
        /// Base service-time distribution.
        #[serde(serialize_with = "crate::params::as_text")]
        service: ServiceTime = ServiceTime::Fixed { ms: LESSON_SERVICE_MS }, SERVICE;
        /// Requests allowed to wait beyond the workers.
        #[serde(serialize_with = "crate::params::as_text")]
        door_limit: QueueLimit = QueueLimit::N(40), ParamSpec {
            name: "limit",
            label: "Queue limit",
            unit: "requests",
            kind: ParamKind::IntOrOff,
            range: Range::from_to(0.0, 1_000_000.0),
            help: "requests allowed to wait in the line (beyond the workers); off for no limit",
            slider: span(0.0, 100.0, 1.0),
        };
        /// When a caller gives up, ms.
        client_timeout_ms: u32 = 500, CLIENT_TIMEOUT_MS;
        /// Retries of the retrying policies.
        retries: u32 = 3, ParamSpec {
            name: "retries",
            label: "Retries",
            unit: "retries",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, 10.0),
            help: "a refused or abandoned caller tries again up to this many times (every policy but none)",
            slider: span(0.0, 10.0, 1.0),
        };
        /// Wait before a retry, ms (the backoff policy's base).
        retry_backoff_ms: u32 = 50, ParamSpec {
            name: "retry-backoff-ms",
            label: "Retry backoff",
            unit: "ms",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, HOUR_MS),
            help: "wait before a retry after a refusal or a give-up; the backoff policy's first ceiling",
            slider: span(0.0, 1000.0, 10.0),
        };
        /// Tokens per on-time answer of the budget policy.
        budget_ratio: f64 = 0.1, ParamSpec {
            name: "budget-ratio",
            label: "Retry budget",
            unit: "tokens per answer",
            kind: ParamKind::Real,
            range: Range::from_to(0.0, 1000.0),
            help: "retry tokens each on-time answer earns (0.1: retries add at most about 10 % to the answers)",
            slider: span(0.0, 1.0, 0.05),
        };
        /// K of the throttle policy.
        throttle_k: f64 = 2.0, ParamSpec {
            name: "throttle-k",
            label: "Throttle K",
            unit: "×",
            kind: ParamKind::Real,
            range: Range::from_to(1.0, 1000.0),
            help: "SRE adaptive throttling sends freely while requests <= K × accepts",
            slider: span(1.0, 5.0, 0.1),
        };
        /// The Retry-After the server's refusals carry, ms.
        retry_after_ms: u32 = 1000, ParamSpec {
            name: "retry-after-ms",
            label: "Retry-After",
            unit: "ms",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, HOUR_MS),
            help: "the wait the server's refusals ask for (the retry-after policy honours it)",
            slider: span(0.0, 5000.0, 100.0),
        };
        /// Width of the timeline's windows, ms.
        window_ms: u32 = 1000, WINDOW_MS;
        /// Trigger sizes of the phase diagram.
        trigger_sizes: Vec<f64> = vec![1.5, 2.0, 3.0, 4.0], TRIGGER_SIZES;
        /// Trigger lengths of the phase diagram, ms.
        trigger_lengths_ms: Vec<u32> = vec![1000, 2000, 4000], TRIGGER_LENGTHS_MS;
    }
}
