//! The adaptive experiment's parameters and its domain values: the
//! controllers it races, what the deploy does, and the scenario presets.

use serde::Serialize;

use crate::error::ConfigError;
use crate::params::{
    CLIENT_TIMEOUT_MS, HOUR_MS, I32_MAX, LESSON_BUDGET_MS, LESSON_CLIENT_TIMEOUT_MS, LESSON_SEED, LESSON_SERVICE_MS,
    LESSON_WORKERS, Named, ParamKind, ParamSpec, ParamValue, Range, SECONDS, SEED, SERVICE, WINDOW_MS, WORKERS, main,
    span,
};
use crate::stochastic::ServiceTime;

/// The doors the adaptive experiment races (shared with tuning on a
/// user's trace).
pub use crate::control::Controller;

impl Named for Controller {
    const ALL: &'static [Self] = &Controller::ALL;
    fn name(self) -> &'static str {
        Controller::name(self)
    }
}

impl ParamValue for Vec<Controller> {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        let names = spec.list(text, |t| Controller::from_name(t.trim()).ok_or_else(|| spec.refuse(text)))?;
        if names.len() > Controller::ALL.len() { Err(spec.refuse(text)) } else { Ok(names) }
    }
    fn show(&self) -> String {
        self.iter().map(|c| c.name()).collect::<Vec<_>>().join(",")
    }
}

/// What the deploy at `slowdown-at-ms` does to requests starting from then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Deploy {
    /// Every service time is multiplied by `slowdown-factor`.
    Slower,
    /// A stuck downstream: every call takes exactly the client timeout, and
    /// the handler waits on I/O, so up to `STUCK_WORKERS` (1000) calls run
    /// at once (the worker count stops being the bound).
    Stuck,
}

impl Deploy {
    /// Its name (what the flag and the URL carry).
    pub const fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The names, in [`Named::ALL`] order.
    pub const NAMES: [&'static str; 2] = ["slower", "stuck"];
}

impl Named for Deploy {
    const ALL: &'static [Self] = &[Deploy::Slower, Deploy::Stuck];
    fn name(self) -> &'static str {
        Deploy::name(self)
    }
}

impl From<Deploy> for &'static str {
    fn from(d: Deploy) -> Self {
        d.name()
    }
}

impl ParamValue for Deploy {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        Self::parse_named(spec, text)
    }
    fn show(&self) -> String {
        self.name().to_owned()
    }
}

/// A scenario users of these controllers report: a named set of parameter
/// values. Choosing one sets them ([`Preset::apply`]); a value given
/// explicitly overrides the preset's, whatever the order
/// ([`crate::Params::apply`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Preset {
    /// No preset: the parameters as given.
    None,
    /// The lesson's deploy: 40 rps, the handler 2× slower from the deploy,
    /// no retries (the defaults).
    Deploy2x,
    /// 1.1 × capacity offered throughout, no deploy (factor 1).
    SteadyOverload,
    /// From the deploy a downstream is stuck at the client timeout.
    StuckDownstream,
    /// The lesson's deploy, and every refused or abandoned caller retries
    /// 3 times after 100 ms.
    RetryStorm,
}

impl Preset {
    /// Its name (what the flag and the URL carry).
    pub const fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The names, in [`Named::ALL`] order.
    pub const NAMES: [&'static str; 5] = ["none", "deploy-2x", "steady-overload", "stuck-downstream", "retry-storm"];

    /// Sets the parameters this preset names (`None` sets nothing). The
    /// steady overload's rate is 1.1 × the capacity of `p`'s service time
    /// and workers as they are now.
    pub fn apply(self, p: &mut AdaptiveParams) {
        let (rate, factor, deploy, retries) = match self {
            Preset::None => return,
            Preset::Deploy2x => (DEPLOY_RATE_RPS, DEPLOY_FACTOR, Deploy::Slower, 0),
            Preset::SteadyOverload => {
                let cap = crate::calc::capacity_rps(p.service.mean_ms(), p.workers);
                (1.1 * cap, 1.0, Deploy::Slower, 0)
            }
            Preset::StuckDownstream => (DEPLOY_RATE_RPS, DEPLOY_FACTOR, Deploy::Stuck, 0),
            Preset::RetryStorm => (DEPLOY_RATE_RPS, DEPLOY_FACTOR, Deploy::Slower, super::STORM_RETRIES),
        };
        p.rate_schedule = vec![(rate, 0)];
        p.slowdown_factor = factor;
        p.deploy = deploy;
        p.retries = retries;
        p.retry_backoff_ms = super::STORM_BACKOFF_MS as u32;
    }
}

impl Named for Preset {
    const ALL: &'static [Self] =
        &[Preset::None, Preset::Deploy2x, Preset::SteadyOverload, Preset::StuckDownstream, Preset::RetryStorm];
    fn name(self) -> &'static str {
        Preset::name(self)
    }
}

impl From<Preset> for &'static str {
    fn from(p: Preset) -> Self {
        p.name()
    }
}

impl ParamValue for Preset {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        Self::parse_named(spec, text)
    }
    fn show(&self) -> String {
        self.name().to_owned()
    }
}

/// The lesson's offered rate for the race, rps.
const DEPLOY_RATE_RPS: f64 = 40.0;
/// The lesson's deploy: the handler twice as slow.
const DEPLOY_FACTOR: f64 = 2.0;

/// Applies a newly chosen preset (called after every successful set).
fn after_set(p: &mut AdaptiveParams, spec: &ParamSpec) {
    if matches!(spec.kind, ParamKind::Preset(_)) {
        p.preset.apply(p);
    }
}

/// The race's length: one run through the deploy (a rate schedule's steps share it).
pub const RUN_SECONDS: ParamSpec = ParamSpec {
    label: "Run length",
    help: "how long the race runs, through the deploy; a rate schedule's steps share it (the work caps bound rate × seconds)",
    ..SECONDS
};

crate::experiment_params! {
    /// The race: one trace through a deploy, one lane per controller.
    pub struct AdaptiveParams {
        /// Open-loop Poisson rate as `(rate rps, start ms)` steps, the first at 0.
        rate_schedule: Vec<(f64, u32)> = vec![(DEPLOY_RATE_RPS, 0)], ParamSpec {
            name: "rate-schedule",
            label: "Offered rate",
            unit: "rps",
            kind: ParamKind::Schedule,
            range: Range::above_to(0.0, 100_000.0),
            help: "open-loop Poisson rate, or a load step: RATE@START_MS,…",
            slider: None,
        };
        /// Run window, s.
        seconds: f64 = 30.0, RUN_SECONDS;
        /// Seed of the arrivals, the service times and the controllers' draws.
        seed: u32 = LESSON_SEED, SEED;
        /// Servers.
        workers: u32 = LESSON_WORKERS, WORKERS;
        /// Service-time distribution before the deploy.
        #[serde(serialize_with = "crate::params::as_text")]
        service: ServiceTime = ServiceTime::Fixed { ms: LESSON_SERVICE_MS }, SERVICE;
        /// When a caller gives up, ms.
        client_timeout_ms: u32 = LESSON_CLIENT_TIMEOUT_MS, CLIENT_TIMEOUT_MS;
        /// The latency budget the fixed limit is derived from, ms.
        budget_ms: u32 = LESSON_BUDGET_MS, main(ParamSpec {
            name: "budget-ms",
            label: "Latency budget",
            unit: "ms",
            kind: ParamKind::Int,
            range: Range::from_to(1.0, HOUR_MS),
            help: "time a caller allows in the system; the fixed limit is derived from it",
            slider: span(50.0, 2000.0, 10.0),
        });
        /// When the deploy happens, ms.
        slowdown_at_ms: u32 = 10_000, ParamSpec {
            name: "slowdown-at-ms",
            label: "Deploy at",
            unit: "ms",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, HOUR_MS),
            help: "when the slower handler is deployed (requests starting from then)",
            slider: span(0.0, 60_000.0, 500.0),
        };
        /// Service-time multiplier from the deploy on (deploy `slower`).
        slowdown_factor: f64 = DEPLOY_FACTOR, main(ParamSpec {
            name: "slowdown-factor",
            label: "Slowdown factor",
            unit: "×",
            kind: ParamKind::Real,
            range: Range::from_to(0.05, 100.0), // below 1/20 every service rounds to nothing (D11)
            help: "how much slower every service time gets at the deploy",
            slider: span(0.25, 5.0, 0.25),
        });
        /// Which doors race, in this order.
        controllers: Vec<Controller> = Controller::ALL.to_vec(), ParamSpec {
            name: "controllers",
            label: "Controllers",
            unit: "names",
            kind: ParamKind::NameList(&Controller::NAMES, Controller::NAMES.len()),
            range: Range::NONE,
            help: "which doors to race on the same trace",
            slider: None,
        };
        /// CoDel's target queue delay, ms.
        codel_target_ms: u32 = 50, ParamSpec {
            name: "codel-target-ms",
            label: "CoDel target",
            unit: "ms",
            kind: ParamKind::Int,
            range: Range::from_to(1.0, I32_MAX),
            help: "queue delay CoDel aims for (interval 100 ms; sheds above 2 × target when overloaded)",
            slider: span(1.0, 500.0, 1.0),
        };
        /// Width of the timeline's windows, ms.
        window_ms: u32 = 500, WINDOW_MS;
        /// What the deploy does.
        deploy: Deploy = Deploy::Slower, ParamSpec {
            name: "deploy",
            label: "Deploy",
            unit: "kind",
            kind: ParamKind::Name(&Deploy::NAMES),
            range: Range::NONE,
            help: "slower: service times × slowdown-factor; stuck: every call takes the client timeout, waiting on I/O",
            slider: None,
        };
        /// Retries of a refused or abandoned caller (0: none).
        retries: u32 = 0, ParamSpec {
            name: "retries",
            label: "Retries",
            unit: "retries",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, 10.0),
            help: "a refused or abandoned caller tries again up to this many times",
            slider: span(0.0, 10.0, 1.0),
        };
        /// Wait before a retry, ms.
        retry_backoff_ms: u32 = super::STORM_BACKOFF_MS as u32, ParamSpec {
            name: "retry-backoff-ms",
            label: "Retry backoff",
            unit: "ms",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, HOUR_MS),
            help: "wait before a retry, after giving up or being refused",
            slider: span(0.0, 1000.0, 10.0),
        };
        /// The scenario preset last chosen.
        preset: Preset = Preset::Deploy2x, ParamSpec {
            name: "preset",
            label: "Scenario",
            unit: "preset",
            kind: ParamKind::Preset(&Preset::NAMES),
            range: Range::NONE,
            help: "a scenario users of these controllers report; it sets the rate, factor, deploy and retries, which flags given beside it override",
            slider: None,
        };
    }
    after_set: after_set;
}

// Reports carry these by name; they read back by name (the page's worker posts reports).
macro_rules! by_name {
    ($($t:ty),*) => {$(
        impl TryFrom<String> for $t {
            type Error = String;
            fn try_from(s: String) -> Result<Self, String> {
                <$t as Named>::from_name(&s).ok_or_else(|| format!("unknown name '{s}'"))
            }
        }
    )*};
}
by_name!(Deploy, Preset);
