//! The lesson experiment's parameters.

use crate::params::{
    CLIENT_TIMEOUT_MS, LESSON_CLIENT_TIMEOUT_MS, LESSON_RATES_RPS, LESSON_SECONDS, LESSON_SEED, LESSON_SERVICE_MS,
    LESSON_WORKERS, ParamKind, ParamSpec, QueueLimit, Range, SECONDS, SEED, SERVICE, WORKERS, main, span,
};
use crate::stochastic::ServiceTime;

/// The lesson's queue limit (seed 003's `--limit 10`).
pub const LESSON_QUEUE_LIMIT: u32 = 10;

crate::experiment_params! {
    /// The course lesson's experiment (seed 003): Poisson rates into
    /// `workers` servers behind one FIFO line.
    pub struct LessonParams {
        /// Open-loop Poisson arrival rates of the sweep, rps.
        rates_rps: Vec<f64> = LESSON_RATES_RPS.to_vec(), ParamSpec {
            name: "rate",
            label: "Offered rates",
            unit: "rps",
            kind: ParamKind::RealList,
            range: Range::above_to(0.0, 100_000.0),
            help: "open-loop Poisson arrival rates of the sweep, comma-separated",
            slider: None,
        };
        /// How long each rate is offered, s.
        seconds: f64 = LESSON_SECONDS, SECONDS;
        /// Seed of the first replica's draws.
        seed: u32 = LESSON_SEED, SEED;
        /// Servers.
        workers: u32 = LESSON_WORKERS, main(WORKERS);
        /// Service-time distribution.
        #[serde(serialize_with = "crate::params::as_text")]
        service: ServiceTime = ServiceTime::Fixed { ms: LESSON_SERVICE_MS }, SERVICE;
        /// Requests allowed to wait beyond the workers.
        #[serde(serialize_with = "crate::params::as_text")]
        door_limit: QueueLimit = QueueLimit::N(LESSON_QUEUE_LIMIT), main(ParamSpec {
            name: "limit",
            label: "Queue limit",
            unit: "requests",
            kind: ParamKind::IntOrOff,
            range: Range::from_to(0.0, 1_000_000.0),
            help: "requests allowed to wait in the line (beyond the workers); off for no limit",
            slider: span(0.0, 100.0, 1.0),
        });
        /// When a caller gives up, ms.
        client_timeout_ms: u32 = LESSON_CLIENT_TIMEOUT_MS, CLIENT_TIMEOUT_MS;
        /// Independent seeds per rate.
        replicas: u32 = 3, ParamSpec {
            name: "replicas",
            label: "Replicas",
            unit: "runs",
            kind: ParamKind::Int,
            range: Range::from_to(1.0, 100.0),
            help: "independent seeds per rate (seed, seed + 1, …) for a 95 % interval",
            slider: span(1.0, 10.0, 1.0),
        };
        /// The rate whose latency histogram is shown, rps.
        at_rate_rps: f64 = 60.0, ParamSpec {
            name: "at-rate",
            label: "Histogram rate",
            unit: "rps",
            kind: ParamKind::Real,
            range: Range::above_to(0.0, 100_000.0),
            help: "the rate whose latency histogram is shown",
            slider: span(5.0, 200.0, 1.0),
        };
    }
}
