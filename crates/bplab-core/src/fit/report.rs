//! What a fit reports: the fitted server, the model beside the
//! measurement at each load, and the typed reasons a fit is poor.

use serde::Serialize;

use super::level::{Level, Tool};
use super::limit::LimitMethod;
use super::model::Arrivals;
use super::service::Choice;
use crate::stochastic::ServiceTime;

/// Measured or modelled figures of one load.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// Answers per second.
    pub ok_per_sec: f64,
    /// Median latency of the answers, ms.
    pub p50_ms: Option<f64>,
    /// 99th percentile, ms.
    pub p99_ms: Option<f64>,
}

/// Model beside measurement at one load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The file.
    pub file: String,
    /// The level's index in its file.
    pub index: usize,
    /// The tool.
    pub tool: Tool,
    /// Requests sent per second (measured).
    pub sent_rps: f64,
    /// Offered rate when the tool states one.
    pub offered_rps: Option<f64>,
    /// Whether it counts as saturated.
    pub saturated: bool,
    /// Measured.
    pub measured: Point,
    /// The engine's.
    pub model: Point,
    /// How the model's arrivals were made.
    pub arrivals: Arrivals,
    /// `(model − measured) / measured` of answers/s.
    pub ok_error: f64,
    /// Same for the median (`None` when either is missing).
    pub p50_error: Option<f64>,
    /// Same for the p99.
    pub p99_error: Option<f64>,
    /// Within [`OK_TOLERANCE`] and [`P99_TOLERANCE`].
    pub within: bool,
}

/// Why the fit is poor (or only approximate) somewhere: typed, so the one
/// place that words them ([`super::explain`]) can.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Reason {
    /// No load was saturated: the capacity and workers are not measured.
    NotSaturated,
    /// Every load the low-load sample came from is saturated: the fitted
    /// service time, workers and distribution include queueing.
    LowLoadSaturated {
        /// File of the (first) load.
        file: String,
        /// Index in the file.
        index: usize,
    },
    /// Latency grew with the rate before saturation: the model (one queue
    /// in front of identical workers) answers faster than measured.
    LatencyGrowsBeforeSaturation {
        /// File and level.
        file: String,
        /// Index in the file.
        index: usize,
        /// Measured median, ms.
        measured_p50_ms: f64,
        /// Model median, ms.
        model_p50_ms: f64,
    },
    /// No candidate distribution meets the tolerance at every checked quantile.
    ApproximateDistribution {
        /// The chosen one's largest relative error.
        max_error: f64,
        /// Where.
        at_p: f64,
    },
    /// A file records no status, so refusals cannot be told from answers.
    NoStatus {
        /// The file.
        file: String,
    },
    /// Answers per second off by more than the tolerance.
    OkRate {
        /// File.
        file: String,
        /// Index in the file.
        index: usize,
        /// Relative error.
        error: f64,
    },
    /// p99 off by more than the tolerance.
    P99 {
        /// File.
        file: String,
        /// Index in the file.
        index: usize,
        /// Relative error.
        error: f64,
        /// Answers the measured p99 is over.
        answers: u64,
    },
    /// capacity × low-load latency is far from a whole number of workers.
    WorkersNotWhole {
        /// The estimate before rounding.
        estimate: f64,
    },
    /// `bplab load` noted that its client fell behind its schedule at a load
    /// the low-load sample came from: the sample's latencies include the
    /// client's own delay, so the fitted service time, workers and
    /// distribution may be the client's, not the server's.
    LowLoadClientBehind {
        /// File.
        file: String,
        /// Index in the file.
        index: usize,
        /// The send lag p99 the note gave, ms.
        send_lag_p99_ms: f64,
    },
    /// The file has no send times and its callers waited for answers: the
    /// model sends Poisson at the measured rate instead.
    ClosedLoopAsPoisson {
        /// File.
        file: String,
    },
}

/// What the low-load sample was.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LowLoad {
    /// Files it came from.
    pub files: Vec<String>,
    /// Requests in it (0: a percentile table).
    pub requests: usize,
    /// Mean latency, ms.
    pub mean_ms: f64,
    /// Median latency, ms.
    pub p50_ms: f64,
}

/// The fitted server and the model beside the measurement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// Effective workers: `round(capacity × low-load mean latency / 1000)`, at least 1.
    pub workers: u32,
    /// Mean time a request holds a worker, ms: `workers × 1000 / capacity`
    /// (the low-load mean when no load was saturated).
    pub mean_service_ms: f64,
    /// Sustained answers per second at saturation (the most over the
    /// saturated loads); `None` when none was saturated.
    pub capacity_rps: Option<f64>,
    /// Requests allowed to wait, when refusals were seen.
    pub queue_limit: Option<u32>,
    /// How it was found.
    pub limit_method: Option<LimitMethod>,
    /// The chosen distribution, in the `--service` grammar.
    #[serde(serialize_with = "as_text")]
    pub service: ServiceTime,
    /// Latency outside the server, ms: low-load mean less the service mean.
    pub overhead_ms: f64,
    /// Workers before rounding.
    pub workers_estimate: f64,
    /// The low-load sample.
    pub low_load: LowLoad,
    /// How the distribution was chosen.
    pub choice: Choice,
    /// Model beside measurement, one per load with counts.
    pub rows: Vec<Row>,
    /// Where the fit is poor, and why.
    pub reasons: Vec<Reason>,
    /// The engine's seed.
    pub seed: u64,
    /// The loads read (without their per-request lists).
    #[serde(skip)]
    pub levels: Vec<Level>,
}

fn as_text<S: serde::Serializer>(s: &ServiceTime, ser: S) -> Result<S::Ok, S::Error> {
    ser.collect_str(s)
}

impl Fit {
    /// Whether every load's model is within the tolerances and nothing else
    /// makes the fit poor (an approximate distribution alone does not).
    pub fn good(&self) -> bool {
        self.rows.iter().all(|r| r.within)
            && !self.reasons.iter().any(|r| {
                matches!(
                    r,
                    Reason::NotSaturated
                        | Reason::WorkersNotWhole { .. }
                        | Reason::LowLoadSaturated { .. }
                        | Reason::LowLoadClientBehind { .. }
                )
            })
    }
}
