//! The one registry of experiments: names, article defaults, the parameters
//! each uses, its CSV tables and its charts. The CLI, the page and the tests
//! iterate [`EXPERIMENTS`]; nothing else lists them.

mod admission;
mod collapse;
mod explain;
mod priority;
mod report;
mod scenario;
mod shaping;
mod shedding;

pub use admission::AdmissionReport;
pub use collapse::CollapseReport;
pub use priority::PriorityReport;
pub use report::Report;
pub use scenario::{Caps, Scenario};
pub use shaping::{ShapingReport, Timeline};
pub use shedding::SheddingReport;

use crate::params::{ParamKey, Params};
use crate::table::TableSpec;

/// Identifies one experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ExperimentId {
    /// Post 1: collapse and retry storms.
    Collapse,
    /// Post 2: admission limits.
    Admission,
    /// Post 3: token vs leaky bucket.
    Shaping,
    /// Post 4: shedding policies.
    Shedding,
    /// Post 5: priority protection.
    Priority,
}

/// Identifies one chart (the charts crate draws each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ChartId {
    CollapseGoodput,
    CollapseAmplification,
    AdmissionLimitSweep,
    AdmissionPlateau,
    ShapingTimeline,
    ShapingBurstSweep,
    SheddingSweep,
    SheddingHangover,
    PriorityProtection,
    PriorityBurst,
}

/// A chart's id, PNG file name and title.
#[derive(Clone, Copy, Debug)]
pub struct ChartSpec {
    /// Which chart.
    pub id: ChartId,
    /// PNG file name.
    pub file: &'static str,
    /// Title drawn above it.
    pub title: &'static str,
}

/// One experiment of the lab.
#[derive(Debug)]
pub struct Experiment {
    /// Which experiment.
    pub id: ExperimentId,
    /// Command-line and URL name, e.g. `admission`.
    pub name: &'static str,
    /// Human title.
    pub title: &'static str,
    /// The article it reproduces.
    pub post: &'static str,
    /// Folder of its golden CSVs, e.g. `bp-post2`.
    pub dir: &'static str,
    /// One sentence: what it shows.
    pub lesson: &'static str,
    /// CSV tables in output order.
    pub tables: &'static [TableSpec],
    /// Charts in output order.
    pub charts: &'static [ChartSpec],
    /// Parameters it uses (others are an error for it).
    pub params: &'static [ParamKey],
    defaults: fn() -> Params,
}

impl Experiment {
    /// The article defaults.
    pub fn defaults(&self) -> Params {
        (self.defaults)()
    }

    /// Whether this experiment uses `key`.
    pub fn uses(&self, key: ParamKey) -> bool {
        self.params.contains(&key)
    }

    /// The experiment with this id.
    pub fn get(id: ExperimentId) -> &'static Experiment {
        EXPERIMENTS.iter().find(|e| e.id == id).unwrap_or(&EXPERIMENTS[0])
    }

    /// The experiment named `name`.
    pub fn named(name: &str) -> Result<&'static Experiment, crate::ConfigError> {
        EXPERIMENTS.iter().find(|e| e.name == name).ok_or_else(|| crate::ConfigError::Unknown {
            what: "experiment",
            name: name.to_owned(),
            accepted: EXPERIMENTS.iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
        })
    }
}

/// The article constants shared by every experiment (S = 10 ms, D = 200 ms,
/// T = 5 s, W = 100 ms, gate rate 100 rps, share 0.25, …).
pub(crate) fn base_defaults() -> Params {
    use crate::models::admission::Limit;
    Params {
        service_ms: 10,
        deadline_ms: 200,
        duration_ms: 5000,
        offered_rps: vec![50.0, 75.0, 100.0, 125.0, 150.0, 200.0, 300.0],
        valley_rps: 50.0,
        valley_ms: 200,
        spike_rps: 300.0,
        spike_ms: 100,
        queue_capacity: 100_000,
        max_retries: 3,
        retry_backoff_ms: 50,
        limits: [1, 2, 4, 8, 12, 16, 20, 28, 40, 80, 200].into_iter().map(Limit::Finite).chain([Limit::None]).collect(),
        plateau_limit: None,
        gate_rate_rps: 100.0,
        bursts: vec![1, 2, 4, 8, 12, 16, 20, 28, 40, 80],
        window_burst: None,
        window_ms: 100,
        critical_share: 0.25,
    }
}

use ParamKey::*;

/// All experiments, in article order.
pub static EXPERIMENTS: [Experiment; 5] = [
    Experiment {
        id: ExperimentId::Collapse,
        name: "collapse",
        title: "Collapse and retry storms",
        post: "Post 1: Why Systems Collapse Under Load",
        dir: "bp-post1",
        lesson: "Past capacity an unbounded queue serves requests whose clients already gave up; retries add load, not goodput.",
        tables: &collapse::TABLES,
        charts: &collapse::CHARTS,
        params: &[ServiceMs, DeadlineMs, DurationMs, Offered, QueueCapacity, MaxRetries, RetryBackoffMs],
        defaults: collapse::defaults,
    },
    Experiment {
        id: ExperimentId::Admission,
        name: "admission",
        title: "Admission limit",
        post: "Post 2: Admission Control Design",
        dir: "bp-post2",
        lesson: "A concurrency limit of capacity × deadline turns the collapse cliff into a plateau; past it, goodput falls off a cliff.",
        tables: &admission::TABLES,
        charts: &admission::CHARTS,
        params: &[
            ServiceMs,
            DeadlineMs,
            DurationMs,
            ValleyRps,
            ValleyMs,
            SpikeRps,
            SpikeMs,
            Offered,
            Limits,
            PlateauLimit,
        ],
        defaults: admission::defaults,
    },
    Experiment {
        id: ExperimentId::Shaping,
        name: "shaping",
        title: "Token vs leaky bucket",
        post: "Post 3: Token Bucket vs Leaky Bucket",
        dir: "bp-post3",
        lesson: "Both gates admit the same average; the token bucket passes the burst to the server, the leaky bucket holds it at the gate.",
        tables: &shaping::TABLES,
        charts: &shaping::CHARTS,
        params: &[
            ServiceMs,
            DeadlineMs,
            DurationMs,
            ValleyRps,
            ValleyMs,
            SpikeRps,
            SpikeMs,
            GateRateRps,
            Bursts,
            WindowBurst,
            WindowMs,
        ],
        defaults: shaping::defaults,
    },
    Experiment {
        id: ExperimentId::Shedding,
        name: "shedding",
        title: "Shedding policies",
        post: "Post 4: Load Shedding Strategies",
        dir: "bp-post4",
        lesson: "Which work to abandon: FIFO serves the stale, tail-drop and expiry bound the wait, LIFO serves the fresh and starves the old.",
        tables: &shedding::TABLES,
        charts: &shedding::CHARTS,
        params: &[ServiceMs, DeadlineMs, DurationMs, ValleyRps, ValleyMs, SpikeRps, SpikeMs, Offered, WindowMs],
        defaults: shedding::defaults,
    },
    Experiment {
        id: ExperimentId::Priority,
        name: "priority",
        title: "Priority protection",
        post: "Post 5: Bounded Systems Architecture and SLO-Driven Load Control",
        dir: "bp-post5",
        lesson: "Letting critical arrivals evict background work keeps critical success at the SLO up to capacity / critical share.",
        tables: &priority::TABLES,
        charts: &priority::CHARTS,
        params: &[
            ServiceMs,
            DeadlineMs,
            DurationMs,
            ValleyRps,
            ValleyMs,
            SpikeRps,
            SpikeMs,
            Offered,
            WindowMs,
            CriticalShare,
        ],
        defaults: priority::defaults,
    },
];
