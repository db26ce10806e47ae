//! Every parameter the models take: its name (the CLI flag and URL key),
//! label, unit and accepted range, plus the [`Params`] value set. The CLI,
//! the page and the tests all iterate [`PARAMS`]; nobody repeats it.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::models::admission::Limit;

/// Identifies one parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum ParamKey {
    ServiceMs,
    DeadlineMs,
    DurationMs,
    Offered,
    ValleyRps,
    ValleyMs,
    SpikeRps,
    SpikeMs,
    QueueCapacity,
    MaxRetries,
    RetryBackoffMs,
    Limits,
    PlateauLimit,
    GateRateRps,
    Bursts,
    WindowBurst,
    WindowMs,
    CriticalShare,
    Rates,
    Seconds,
    Seed,
    Workers,
    Service,
    DoorLimit,
    ClientTimeoutMs,
    Replicas,
    AtRate,
    RateSchedule,
    SlowdownAtMs,
    SlowdownFactor,
    Controllers,
    BudgetMs,
    CodelTargetMs,
    Preset,
    // metastable (its folder owns the meaning; see docs/metastable.md)
    LoadRps,
    Trigger,
    TriggerAtMs,
    TriggerMs,
    TriggerSize,
    TriggerSizes,
    TriggerLengthsMs,
    BudgetRatio,
    ThrottleK,
    RetryAfterMs,
}

/// The shape of a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A whole number.
    Int,
    /// A real number.
    Real,
    /// A whole number, or `B` / empty for capacity × deadline.
    IntOrBudget,
    /// Comma-separated real numbers.
    RealList,
    /// Comma-separated whole numbers.
    IntList,
    /// Comma-separated whole numbers or `none`.
    LimitList,
    /// A whole number, or `off` for none.
    IntOrOff,
    /// A service-time distribution (`fixed:21`, `exp:21`, …).
    Service,
    /// A rate, or steps `RATE@START_MS,…`.
    Schedule,
    /// A comma-separated list of controller names.
    ControllerList,
    /// One scenario preset name.
    PresetName,
    /// One name out of a fixed list.
    OneOf(&'static [&'static str]),
}

/// Controller names the adaptive experiment races.
pub const CONTROLLER_NAMES: [&str; 6] = ["fixed", "codel", "aimd", "vegas", "gradient2", "gradient"];
/// Scenario presets of the adaptive experiment.
pub const PRESET_NAMES: [&str; 5] = ["none", "deploy-2x", "steady-overload", "stuck-downstream", "retry-storm"];

/// Triggers of the metastable experiment.
pub const TRIGGER_NAMES: [&str; 2] = ["spike", "slowdown"];

/// Name, label, unit and accepted range of one parameter.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// Which parameter.
    pub key: ParamKey,
    /// CLI flag (without `--`) and URL key.
    pub name: &'static str,
    /// Visible label.
    pub label: &'static str,
    /// Unit shown beside the value.
    pub unit: &'static str,
    /// Value shape.
    pub kind: ParamKind,
    /// Lowest accepted value (inclusive unless `min_exclusive`).
    pub min: f64,
    /// Highest accepted value (inclusive unless `max_exclusive`).
    pub max: f64,
    /// `min` itself is refused.
    pub min_exclusive: bool,
    /// `max` itself is refused.
    pub max_exclusive: bool,
    /// One line on what it does.
    pub help: &'static str,
    /// The page's slider span (inside the accepted range), or `None` for
    /// lists, which are typed only.
    pub slider: Option<SliderSpan>,
}

/// A slider's span on the page: a sensible part of the accepted range. The
/// typed input still accepts the whole range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliderSpan {
    /// Left end.
    pub min: f64,
    /// Right end.
    pub max: f64,
    /// Step.
    pub step: f64,
}

/// A slider span (for the registry tables).
pub const fn span(min: f64, max: f64, step: f64) -> Option<SliderSpan> {
    Some(SliderSpan { min, max, step })
}

/// Most entries a list parameter accepts.
pub const MAX_LIST_LEN: usize = 64;
const HOUR_MS: f64 = 3_600_000.0;
const I32_MAX: f64 = 2_147_483_647.0;

/// Builds a spec; reals exclude their minimum (rates must be above 0).
#[allow(clippy::too_many_arguments)]
const fn spec(
    key: ParamKey,
    name: &'static str,
    label: &'static str,
    unit: &'static str,
    kind: ParamKind,
    min: f64,
    max: f64,
    help: &'static str,
    slider: Option<SliderSpan>,
) -> ParamSpec {
    let exclusive = matches!(kind, ParamKind::Real | ParamKind::RealList);
    ParamSpec { key, name, label, unit, kind, min, max, min_exclusive: exclusive, max_exclusive: false, help, slider }
}

/// Every parameter, in display order.
pub const PARAMS: &[ParamSpec] = &[
    spec(
        ParamKey::ServiceMs,
        "service-ms",
        "Service time",
        "ms",
        ParamKind::Int,
        1.0,
        60_000.0,
        "fixed time the server spends on one request; capacity = 1000 / service",
        span(1.0, 50.0, 1.0),
    ),
    spec(
        ParamKey::DeadlineMs,
        "deadline-ms",
        "Client deadline",
        "ms",
        ParamKind::Int,
        1.0,
        HOUR_MS,
        "a request answered later than this is wasted; at least one service time",
        span(10.0, 1000.0, 10.0),
    ),
    spec(
        ParamKey::DurationMs,
        "duration-ms",
        "Run window",
        "ms",
        ParamKind::Int,
        1.0,
        HOUR_MS,
        "arrivals are generated in [0, window); rates are normalised by it",
        span(1000.0, 20000.0, 500.0),
    ),
    spec(
        ParamKey::Offered,
        "offered",
        "Offered rates",
        "rps",
        ParamKind::RealList,
        0.0,
        1_000_000.0,
        "flat offered loads of the sweep, comma-separated",
        None,
    ),
    spec(
        ParamKey::ValleyRps,
        "valley-rps",
        "Valley rate",
        "rps",
        ParamKind::Real,
        0.0,
        1_000_000.0,
        "arrival rate between spikes of the bursty curve",
        span(0.0, 500.0, 5.0),
    ),
    spec(
        ParamKey::ValleyMs,
        "valley-ms",
        "Valley length",
        "ms",
        ParamKind::Int,
        1.0,
        HOUR_MS,
        "length of each valley of the bursty curve",
        span(50.0, 3000.0, 50.0),
    ),
    spec(
        ParamKey::SpikeRps,
        "spike-rps",
        "Spike rate",
        "rps",
        ParamKind::Real,
        0.0,
        1_000_000.0,
        "arrival rate during a spike of the bursty curve",
        span(0.0, 2000.0, 10.0),
    ),
    spec(
        ParamKey::SpikeMs,
        "spike-ms",
        "Spike length",
        "ms",
        ParamKind::Int,
        1.0,
        HOUR_MS,
        "length of each spike of the bursty curve",
        span(10.0, 2000.0, 10.0),
    ),
    spec(
        ParamKey::QueueCapacity,
        "queue-capacity",
        "Queue capacity",
        "requests",
        ParamKind::Int,
        1.0,
        I32_MAX,
        "occupancy at which an attempt is rejected (100000 = effectively unbounded)",
        span(1.0, 100_000.0, 1.0),
    ),
    spec(
        ParamKey::MaxRetries,
        "max-retries",
        "Max retries",
        "retries",
        ParamKind::Int,
        0.0,
        10.0,
        "retries after a timed-out or rejected first attempt",
        span(0.0, 10.0, 1.0),
    ),
    spec(
        ParamKey::RetryBackoffMs,
        "retry-backoff-ms",
        "Retry backoff",
        "ms",
        ParamKind::Int,
        0.0,
        HOUR_MS,
        "fixed wait before a retry, after the deadline passes",
        span(0.0, 1000.0, 10.0),
    ),
    spec(
        ParamKey::Limits,
        "limits",
        "Admission limits",
        "requests",
        ParamKind::LimitList,
        1.0,
        I32_MAX,
        "limits of the sweep, comma-separated; 'none' for no limit",
        None,
    ),
    spec(
        ParamKey::PlateauLimit,
        "plateau-limit",
        "Plateau limit",
        "requests",
        ParamKind::IntOrBudget,
        1.0,
        I32_MAX,
        "limit of the admission-limited plateau; B = capacity × deadline",
        span(1.0, 200.0, 1.0),
    ),
    spec(
        ParamKey::GateRateRps,
        "gate-rate-rps",
        "Gate rate",
        "rps",
        ParamKind::Real,
        0.0,
        1_000_000.0,
        "sustained release rate of both buckets",
        span(10.0, 500.0, 5.0),
    ),
    spec(
        ParamKey::Bursts,
        "bursts",
        "Burst sizes",
        "requests",
        ParamKind::IntList,
        1.0,
        1_000_000.0,
        "token bucket sizes / leaky queue depths of the sweep",
        None,
    ),
    spec(
        ParamKey::WindowBurst,
        "window-burst",
        "Timeline burst",
        "requests",
        ParamKind::IntOrBudget,
        1.0,
        1_000_000.0,
        "burst of the timeline's gates; B = capacity × deadline",
        span(1.0, 200.0, 1.0),
    ),
    spec(
        ParamKey::WindowMs,
        "window-ms",
        "Timeline window",
        "ms",
        ParamKind::Int,
        1.0,
        HOUR_MS,
        "width of the timeline's windows",
        span(10.0, 1000.0, 10.0),
    ),
    ParamSpec {
        key: ParamKey::CriticalShare,
        name: "critical-share",
        label: "Critical share",
        unit: "fraction",
        kind: ParamKind::Real,
        min: 0.0,
        max: 1.0,
        min_exclusive: true,
        max_exclusive: true,
        help: "share of arrivals classified critical",
        slider: span(0.01, 0.99, 0.01),
    },
    spec(
        ParamKey::Rates,
        "rate",
        "Offered rates",
        "rps",
        ParamKind::RealList,
        0.0,
        100_000.0,
        "open-loop Poisson arrival rates of the sweep, comma-separated",
        None,
    ),
    spec(
        ParamKey::Seconds,
        "seconds",
        "Seconds per rate",
        "s",
        ParamKind::Real,
        0.0,
        600.0,
        "how long each rate is offered",
        span(1.0, 60.0, 1.0),
    ),
    spec(
        ParamKey::Seed,
        "seed",
        "Seed",
        "integer",
        ParamKind::Int,
        0.0,
        4_294_967_295.0,
        "seed of the arrival and service-time draws (the same seed as bplab load's)",
        span(0.0, 100.0, 1.0),
    ),
    spec(
        ParamKey::Workers,
        "workers",
        "Workers",
        "servers",
        ParamKind::Int,
        1.0,
        1024.0,
        "requests served at once, fed by one FIFO line",
        span(1.0, 16.0, 1.0),
    ),
    spec(
        ParamKey::Service,
        "service",
        "Service time",
        "ms",
        ParamKind::Service,
        0.0,
        0.0,
        "distribution of one request's service time",
        None,
    ),
    spec(
        ParamKey::DoorLimit,
        "limit",
        "Queue limit",
        "requests",
        ParamKind::IntOrOff,
        0.0,
        1_000_000.0,
        "requests allowed to wait in the line (beyond the workers); off for no limit",
        span(0.0, 100.0, 1.0),
    ),
    spec(
        ParamKey::ClientTimeoutMs,
        "client-timeout-ms",
        "Client timeout",
        "ms",
        ParamKind::Int,
        1.0,
        HOUR_MS,
        "a caller gives up after this long; the server still serves what it has queued",
        span(100.0, 5000.0, 100.0),
    ),
    spec(
        ParamKey::Replicas,
        "replicas",
        "Replicas",
        "runs",
        ParamKind::Int,
        1.0,
        100.0,
        "independent seeds per rate (seed, seed + 1, …) for a 95 % interval",
        span(1.0, 10.0, 1.0),
    ),
    spec(
        ParamKey::AtRate,
        "at-rate",
        "Histogram rate",
        "rps",
        ParamKind::Real,
        0.0,
        100_000.0,
        "the rate whose latency histogram is shown",
        span(5.0, 200.0, 1.0),
    ),
    spec(
        ParamKey::RateSchedule,
        "rate-schedule",
        "Offered rate",
        "rps",
        ParamKind::Schedule,
        0.0,
        100_000.0,
        "open-loop Poisson rate, or a load step: RATE@START_MS,…",
        None,
    ),
    spec(
        ParamKey::SlowdownAtMs,
        "slowdown-at-ms",
        "Deploy at",
        "ms",
        ParamKind::Int,
        0.0,
        HOUR_MS,
        "when the slower handler is deployed (requests starting from then)",
        span(0.0, 60_000.0, 500.0),
    ),
    spec(
        ParamKey::SlowdownFactor,
        "slowdown-factor",
        "Slowdown factor",
        "×",
        ParamKind::Real,
        0.0,
        100.0,
        "how much slower every service time gets at the deploy",
        span(0.25, 5.0, 0.25),
    ),
    spec(
        ParamKey::Controllers,
        "controllers",
        "Controllers",
        "names",
        ParamKind::ControllerList,
        0.0,
        0.0,
        "which doors to race on the same trace",
        None,
    ),
    spec(
        ParamKey::BudgetMs,
        "budget-ms",
        "Latency budget",
        "ms",
        ParamKind::Int,
        1.0,
        HOUR_MS,
        "time a caller allows in the system; the fixed limit is derived from it",
        span(50.0, 2000.0, 10.0),
    ),
    spec(
        ParamKey::CodelTargetMs,
        "codel-target-ms",
        "CoDel target",
        "ms",
        ParamKind::Int,
        1.0,
        2_147_483_647.0,
        "queue delay CoDel aims for (interval 100 ms; sheds above 2 × target when overloaded)",
        span(1.0, 500.0, 1.0),
    ),
    spec(
        ParamKey::Preset,
        "preset",
        "Scenario",
        "preset",
        ParamKind::PresetName,
        0.0,
        0.0,
        "a scenario users of these controllers report",
        None,
    ),
    spec(
        ParamKey::LoadRps,
        "load-rps",
        "Offered first tries",
        "rps",
        ParamKind::Real,
        0.0,
        100_000.0,
        "open-loop Poisson rate of first tries outside the trigger (retries come on top)",
        span(1.0, 200.0, 1.0),
    ),
    spec(
        ParamKey::Trigger,
        "trigger",
        "Trigger",
        "kind",
        ParamKind::OneOf(&TRIGGER_NAMES),
        0.0,
        0.0,
        "spike: first tries × size during the trigger; slowdown: service times × size",
        None,
    ),
    spec(
        ParamKey::TriggerAtMs,
        "trigger-at-ms",
        "Trigger at",
        "ms",
        ParamKind::Int,
        0.0,
        HOUR_MS,
        "when the trigger starts",
        span(0.0, 30_000.0, 500.0),
    ),
    spec(
        ParamKey::TriggerMs,
        "trigger-ms",
        "Trigger length",
        "ms",
        ParamKind::Int,
        1.0,
        HOUR_MS,
        "how long the trigger lasts",
        span(100.0, 10_000.0, 100.0),
    ),
    ParamSpec {
        key: ParamKey::TriggerSize,
        name: "trigger-size",
        label: "Trigger size",
        unit: "×",
        kind: ParamKind::Real,
        min: 1.0,
        max: 100.0,
        min_exclusive: false,
        max_exclusive: false,
        help: "spike: rate multiplier; slowdown: service-time multiplier",
        slider: span(1.0, 6.0, 0.25),
    },
    ParamSpec {
        key: ParamKey::TriggerSizes,
        name: "trigger-sizes",
        label: "Phase diagram sizes",
        unit: "×",
        kind: ParamKind::RealList,
        min: 1.0,
        max: 100.0,
        min_exclusive: false,
        max_exclusive: false,
        help: "trigger sizes of the phase diagram, comma-separated",
        slider: None,
    },
    spec(
        ParamKey::TriggerLengthsMs,
        "trigger-lengths-ms",
        "Phase diagram lengths",
        "ms",
        ParamKind::IntList,
        1.0,
        HOUR_MS,
        "trigger lengths of the phase diagram, comma-separated",
        None,
    ),
    ParamSpec {
        key: ParamKey::BudgetRatio,
        name: "budget-ratio",
        label: "Retry budget",
        unit: "tokens per answer",
        kind: ParamKind::Real,
        min: 0.0,
        max: 1000.0,
        min_exclusive: false,
        max_exclusive: false,
        help: "retry tokens each on-time answer earns (0.1: retries add at most about 10 % to the answers)",
        slider: span(0.0, 1.0, 0.05),
    },
    ParamSpec {
        key: ParamKey::ThrottleK,
        name: "throttle-k",
        label: "Throttle K",
        unit: "×",
        kind: ParamKind::Real,
        min: 1.0,
        max: 1000.0,
        min_exclusive: false,
        max_exclusive: false,
        help: "SRE adaptive throttling sends freely while requests <= K × accepts",
        slider: span(1.0, 5.0, 0.1),
    },
    spec(
        ParamKey::RetryAfterMs,
        "retry-after-ms",
        "Retry-After",
        "ms",
        ParamKind::Int,
        0.0,
        HOUR_MS,
        "the wait the server's refusals ask for",
        span(0.0, 5000.0, 100.0),
    ),
];

// A missing or misplaced entry is a compile error, not a silent fallback.
const _: () = {
    assert!(PARAMS.len() == ParamKey::RetryAfterMs as usize + 1);
    let mut i = 0;
    while i < PARAMS.len() {
        assert!(PARAMS[i].key as usize == i);
        i += 1;
    }
};

impl ParamSpec {
    /// The spec of `key`: [`PARAMS`] is in [`ParamKey`] order, which a
    /// compile-time check below enforces, so this lookup cannot miss.
    pub fn of(key: ParamKey) -> &'static ParamSpec {
        &PARAMS[key as usize]
    }

    /// The spec named `name` (CLI flag / URL key).
    pub fn named(name: &str) -> Option<&'static ParamSpec> {
        PARAMS.iter().find(|s| s.name == name)
    }

    /// What is accepted, in words, e.g. "a whole number from 1 to 60000 (ms)".
    pub fn accepted(&self) -> String {
        let lo = if self.min_exclusive { "above" } else { "from" };
        let hi = if self.max_exclusive { "below" } else { "to" };
        let range = format!("{lo} {} {hi} {}", self.min, self.max);
        let unit = self.unit;
        match self.kind {
            ParamKind::Int => format!("a whole number {range} ({unit})"),
            ParamKind::Real => format!("a number {range} ({unit})"),
            ParamKind::IntOrBudget => format!("a whole number {range} ({unit}), or B for capacity × deadline"),
            ParamKind::RealList => format!("1 to {MAX_LIST_LEN} comma-separated numbers, each {range} ({unit})"),
            ParamKind::IntList => format!("1 to {MAX_LIST_LEN} comma-separated whole numbers, each {range} ({unit})"),
            ParamKind::LimitList => {
                format!("1 to {MAX_LIST_LEN} comma-separated whole numbers {range} or 'none' ({unit})")
            }
            ParamKind::IntOrOff => format!("a whole number {range} ({unit}), or off"),
            ParamKind::Service => crate::stochastic::GRAMMAR.to_owned(),
            ParamKind::Schedule => format!(
                "a rate {range} ({unit}), or up to {MAX_LIST_LEN} steps RATE@START_MS, e.g. 40@0,80@15000 (the first starting at 0)"
            ),
            ParamKind::ControllerList => format!("1 to 6 of {}, comma-separated", CONTROLLER_NAMES.join(", ")),
            ParamKind::PresetName => format!("one of {}", PRESET_NAMES.join(", ")),
            ParamKind::OneOf(names) => format!("one of {}", names.join(", ")),
        }
    }

    fn err(&self, value: &str) -> ConfigError {
        ConfigError::OutOfRange { param: self.name, value: value.to_owned(), accepted: self.accepted() }
    }

    fn in_range(&self, v: f64) -> bool {
        let lo = if self.min_exclusive { v > self.min } else { v >= self.min };
        let hi = if self.max_exclusive { v < self.max } else { v <= self.max };
        v.is_finite() && lo && hi
    }

    /// Parses one whole number and checks the range.
    fn int(&self, text: &str, whole: &str) -> Result<u32, ConfigError> {
        let v: i64 = text.trim().parse().map_err(|_| self.err(whole))?;
        if self.in_range(v as f64) { u32::try_from(v).map_err(|_| self.err(whole)) } else { Err(self.err(whole)) }
    }

    /// Parses one real number and checks the range.
    fn real(&self, text: &str, whole: &str) -> Result<f64, ConfigError> {
        let v: f64 = text.trim().parse().map_err(|_| self.err(whole))?;
        if self.in_range(v) { Ok(v) } else { Err(self.err(whole)) }
    }

    fn list<T>(&self, text: &str, mut one: impl FnMut(&str) -> Result<T, ConfigError>) -> Result<Vec<T>, ConfigError> {
        let items: Vec<&str> = text.split(',').collect();
        if text.trim().is_empty() || items.len() > MAX_LIST_LEN {
            return Err(self.err(text));
        }
        items.into_iter().map(&mut one).collect()
    }

    /// Checks an already-typed number against the range (for values that
    /// arrive by serde rather than text).
    pub fn check(&self, v: f64) -> Result<(), ConfigError> {
        if self.in_range(v) { Ok(()) } else { Err(self.err(&v.to_string())) }
    }
}

/// All parameter values of one experiment run. Defaults come from the
/// experiment ([`crate::Experiment::defaults`]); `None` in `plateau_limit`
/// and `window_burst` means B = round(capacity × deadline).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Params {
    pub service_ms: u32,
    pub deadline_ms: u32,
    pub duration_ms: u32,
    pub offered_rps: Vec<f64>,
    pub valley_rps: f64,
    pub valley_ms: u32,
    pub spike_rps: f64,
    pub spike_ms: u32,
    pub queue_capacity: u32,
    pub max_retries: u32,
    pub retry_backoff_ms: u32,
    pub limits: Vec<Limit>,
    pub plateau_limit: Option<u32>,
    pub gate_rate_rps: f64,
    pub bursts: Vec<u32>,
    pub window_burst: Option<u32>,
    pub window_ms: u32,
    pub critical_share: f64,
    pub rates_rps: Vec<f64>,
    pub seconds: f64,
    pub seed: u32,
    pub workers: u32,
    /// A service-time distribution in its canonical text form.
    pub service: String,
    pub door_limit: Option<u32>,
    pub client_timeout_ms: u32,
    pub replicas: u32,
    pub at_rate_rps: f64,
    /// Canonical `RATE@START_MS,…` steps (a single rate has one step at 0).
    pub rate_schedule: Vec<(f64, u32)>,
    pub slowdown_at_ms: u32,
    pub slowdown_factor: f64,
    pub controllers: Vec<String>,
    pub budget_ms: u32,
    pub codel_target_ms: u32,
    pub preset: String,
    pub load_rps: f64,
    pub trigger: String,
    pub trigger_at_ms: u32,
    pub trigger_ms: u32,
    pub trigger_size: f64,
    pub trigger_sizes: Vec<f64>,
    pub trigger_lengths_ms: Vec<u32>,
    pub budget_ratio: f64,
    pub throttle_k: f64,
    pub retry_after_ms: u32,
}

fn join<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(",")
}

impl Params {
    /// Capacity of the server, rps: `1000 / S`.
    pub fn capacity_rps(&self) -> f64 {
        crate::calc::capacity_rps(f64::from(self.service_ms), 1)
    }

    /// B = `round(capacity × (D / 1000))`, in exactly that order; at least 1.
    pub fn budget(&self) -> u32 {
        crate::calc::budget_value(self.service_ms, self.deadline_ms)
    }

    /// The bursty curve `(valley, spike)`.
    pub fn curve(&self) -> crate::arrivals::Curve {
        crate::arrivals::Curve::bursty(self.valley_rps, self.valley_ms, self.spike_rps, self.spike_ms)
    }

    /// Sets `key` from text (the CLI's and the URL's format), checking its range.
    pub fn set(&mut self, key: ParamKey, text: &str) -> Result<(), ConfigError> {
        let s = ParamSpec::of(key);
        let opt = |t: &str| -> Result<Option<u32>, ConfigError> {
            let t = t.trim();
            if t.is_empty() || t.eq_ignore_ascii_case("b") { Ok(None) } else { s.int(t, t).map(Some) }
        };
        match key {
            ParamKey::ServiceMs => self.service_ms = s.int(text, text)?,
            ParamKey::DeadlineMs => self.deadline_ms = s.int(text, text)?,
            ParamKey::DurationMs => self.duration_ms = s.int(text, text)?,
            ParamKey::Offered => self.offered_rps = s.list(text, |t| s.real(t, t))?,
            ParamKey::ValleyRps => self.valley_rps = s.real(text, text)?,
            ParamKey::ValleyMs => self.valley_ms = s.int(text, text)?,
            ParamKey::SpikeRps => self.spike_rps = s.real(text, text)?,
            ParamKey::SpikeMs => self.spike_ms = s.int(text, text)?,
            ParamKey::QueueCapacity => self.queue_capacity = s.int(text, text)?,
            ParamKey::MaxRetries => self.max_retries = s.int(text, text)?,
            ParamKey::RetryBackoffMs => self.retry_backoff_ms = s.int(text, text)?,
            ParamKey::Limits => {
                self.limits = s.list(text, |t| {
                    if t.trim().eq_ignore_ascii_case("none") { Ok(Limit::None) } else { s.int(t, t).map(Limit::Finite) }
                })?
            }
            ParamKey::PlateauLimit => self.plateau_limit = opt(text)?,
            ParamKey::GateRateRps => self.gate_rate_rps = s.real(text, text)?,
            ParamKey::Bursts => self.bursts = s.list(text, |t| s.int(t, t))?,
            ParamKey::WindowBurst => self.window_burst = opt(text)?,
            ParamKey::WindowMs => self.window_ms = s.int(text, text)?,
            ParamKey::CriticalShare => self.critical_share = s.real(text, text)?,
            ParamKey::Rates => self.rates_rps = s.list(text, |t| s.real(t, t))?,
            ParamKey::Seconds => self.seconds = s.real(text, text)?,
            ParamKey::Seed => self.seed = s.int(text, text)?,
            ParamKey::Workers => self.workers = s.int(text, text)?,
            ParamKey::Service => {
                self.service = crate::stochastic::ServiceTime::parse(text.trim()).map_err(|_| s.err(text))?.to_string()
            }
            ParamKey::DoorLimit => {
                self.door_limit = if text.trim().eq_ignore_ascii_case("off") { None } else { Some(s.int(text, text)?) }
            }
            ParamKey::ClientTimeoutMs => self.client_timeout_ms = s.int(text, text)?,
            ParamKey::Replicas => self.replicas = s.int(text, text)?,
            ParamKey::AtRate => self.at_rate_rps = s.real(text, text)?,
            ParamKey::RateSchedule => self.rate_schedule = parse_schedule(s, text)?,
            ParamKey::SlowdownAtMs => self.slowdown_at_ms = s.int(text, text)?,
            ParamKey::SlowdownFactor => self.slowdown_factor = s.real(text, text)?,
            ParamKey::Controllers => {
                let names = s.list(text, |t| {
                    let t = t.trim();
                    CONTROLLER_NAMES.iter().find(|n| **n == t).map(|n| (*n).to_owned()).ok_or_else(|| s.err(text))
                })?;
                if names.len() > CONTROLLER_NAMES.len() {
                    return Err(s.err(text));
                }
                self.controllers = names;
            }
            ParamKey::BudgetMs => self.budget_ms = s.int(text, text)?,
            ParamKey::CodelTargetMs => self.codel_target_ms = s.int(text, text)?,
            ParamKey::Preset => {
                let t = text.trim();
                self.preset =
                    PRESET_NAMES.iter().find(|n| **n == t).map(|n| (*n).to_owned()).ok_or_else(|| s.err(text))?
            }
            ParamKey::LoadRps => self.load_rps = s.real(text, text)?,
            ParamKey::Trigger => {
                let t = text.trim();
                self.trigger =
                    TRIGGER_NAMES.iter().find(|n| **n == t).map(|n| (*n).to_owned()).ok_or_else(|| s.err(text))?
            }
            ParamKey::TriggerAtMs => self.trigger_at_ms = s.int(text, text)?,
            ParamKey::TriggerMs => self.trigger_ms = s.int(text, text)?,
            ParamKey::TriggerSize => self.trigger_size = s.real(text, text)?,
            ParamKey::TriggerSizes => self.trigger_sizes = s.list(text, |t| s.real(t, t))?,
            ParamKey::TriggerLengthsMs => self.trigger_lengths_ms = s.list(text, |t| s.int(t, t))?,
            ParamKey::BudgetRatio => self.budget_ratio = s.real(text, text)?,
            ParamKey::ThrottleK => self.throttle_k = s.real(text, text)?,
            ParamKey::RetryAfterMs => self.retry_after_ms = s.int(text, text)?,
        }
        Ok(())
    }

    /// The value of `key` as text that [`Params::set`] accepts back.
    pub fn get(&self, key: ParamKey) -> String {
        let opt = |v: Option<u32>| v.map_or_else(|| "B".to_owned(), |n| n.to_string());
        match key {
            ParamKey::ServiceMs => self.service_ms.to_string(),
            ParamKey::DeadlineMs => self.deadline_ms.to_string(),
            ParamKey::DurationMs => self.duration_ms.to_string(),
            ParamKey::Offered => join(&self.offered_rps, |v| v.to_string()),
            ParamKey::ValleyRps => self.valley_rps.to_string(),
            ParamKey::ValleyMs => self.valley_ms.to_string(),
            ParamKey::SpikeRps => self.spike_rps.to_string(),
            ParamKey::SpikeMs => self.spike_ms.to_string(),
            ParamKey::QueueCapacity => self.queue_capacity.to_string(),
            ParamKey::MaxRetries => self.max_retries.to_string(),
            ParamKey::RetryBackoffMs => self.retry_backoff_ms.to_string(),
            ParamKey::Limits => join(&self.limits, |l| l.label()),
            ParamKey::PlateauLimit => opt(self.plateau_limit),
            ParamKey::GateRateRps => self.gate_rate_rps.to_string(),
            ParamKey::Bursts => join(&self.bursts, |v| v.to_string()),
            ParamKey::WindowBurst => opt(self.window_burst),
            ParamKey::WindowMs => self.window_ms.to_string(),
            ParamKey::CriticalShare => self.critical_share.to_string(),
            ParamKey::Rates => join(&self.rates_rps, |v| v.to_string()),
            ParamKey::Seconds => self.seconds.to_string(),
            ParamKey::Seed => self.seed.to_string(),
            ParamKey::Workers => self.workers.to_string(),
            ParamKey::Service => self.service.clone(),
            ParamKey::DoorLimit => self.door_limit.map_or_else(|| "off".to_owned(), |n| n.to_string()),
            ParamKey::ClientTimeoutMs => self.client_timeout_ms.to_string(),
            ParamKey::Replicas => self.replicas.to_string(),
            ParamKey::AtRate => self.at_rate_rps.to_string(),
            ParamKey::RateSchedule => match self.rate_schedule.as_slice() {
                [(r, 0)] => r.to_string(),
                steps => join(steps, |(r, at)| format!("{r}@{at}")),
            },
            ParamKey::SlowdownAtMs => self.slowdown_at_ms.to_string(),
            ParamKey::SlowdownFactor => self.slowdown_factor.to_string(),
            ParamKey::Controllers => self.controllers.join(","),
            ParamKey::BudgetMs => self.budget_ms.to_string(),
            ParamKey::CodelTargetMs => self.codel_target_ms.to_string(),
            ParamKey::Preset => self.preset.clone(),
            ParamKey::LoadRps => self.load_rps.to_string(),
            ParamKey::Trigger => self.trigger.clone(),
            ParamKey::TriggerAtMs => self.trigger_at_ms.to_string(),
            ParamKey::TriggerMs => self.trigger_ms.to_string(),
            ParamKey::TriggerSize => self.trigger_size.to_string(),
            ParamKey::TriggerSizes => join(&self.trigger_sizes, |v| v.to_string()),
            ParamKey::TriggerLengthsMs => join(&self.trigger_lengths_ms, |v| v.to_string()),
            ParamKey::BudgetRatio => self.budget_ratio.to_string(),
            ParamKey::ThrottleK => self.throttle_k.to_string(),
            ParamKey::RetryAfterMs => self.retry_after_ms.to_string(),
        }
    }

    /// Re-checks every value's range (values may arrive by serde, not text),
    /// then the cross-field rule deadline >= service.
    pub fn check_ranges(&self) -> Result<(), ConfigError> {
        // Round-tripping through text applies exactly the parse-time checks;
        // `set` only writes the field it parses, so one probe serves all.
        let mut probe = self.clone();
        for s in PARAMS {
            probe.set(s.key, &self.get(s.key))?;
        }
        if self.deadline_ms < self.service_ms {
            return Err(ConfigError::DeadlineBelowService {
                deadline_ms: self.deadline_ms,
                service_ms: self.service_ms,
            });
        }
        Ok(())
    }
}

/// `RATE` or `RATE@START_MS,…` (starts strictly increasing, the first at 0).
fn parse_schedule(s: &ParamSpec, text: &str) -> Result<Vec<(f64, u32)>, ConfigError> {
    let t = text.trim();
    if !t.contains('@') {
        return Ok(vec![(s.real(t, text)?, 0)]);
    }
    let steps = s.list(t, |item| {
        let (r, at) = item.split_once('@').ok_or_else(|| s.err(text))?;
        let at: u32 = at.trim().parse().map_err(|_| s.err(text))?;
        Ok((s.real(r, text)?, at))
    })?;
    let ordered = steps.first().is_some_and(|f| f.1 == 0) && steps.windows(2).all(|w| w[0].1 < w[1].1);
    if ordered { Ok(steps) } else { Err(s.err(text)) }
}

/// Parses a duration such as `5s`, `2.5s`, `7500ms` or `7500` (ms) into whole
/// ms, within the run-window range.
pub fn parse_duration_ms(text: &str) -> Result<u32, ConfigError> {
    let s = ParamSpec::of(ParamKey::DurationMs);
    let t = text.trim();
    let err = || ConfigError::OutOfRange {
        param: "duration",
        value: text.to_owned(),
        accepted: format!("a duration like 5s or 7500ms, from 1ms to {}s", s.max / 1000.0),
    };
    let ms = if let Some(v) = t.strip_suffix("ms") {
        v.trim().parse::<f64>().map_err(|_| err())?
    } else if let Some(v) = t.strip_suffix('s') {
        v.trim().parse::<f64>().map_err(|_| err())? * 1000.0
    } else {
        t.parse::<f64>().map_err(|_| err())?
    };
    if !ms.is_finite() || ms.fract() != 0.0 || ms < s.min || ms > s.max {
        return Err(err());
    }
    Ok(ms as u32)
}
