//! The model beside the measurement (`load --compare`).
//!
//! The prediction comes from the core's stochastic engine
//! ([`bplab_core::stochastic`]) fed exactly what the load tool sends: the
//! same seeded Poisson arrival times (the load tool draws its schedule from
//! the same generator, so request k arrives at the same offset in both), the
//! same window and client timeout, and the server as `/stats` describes it:
//!
//! * **service time = the measured p50** (spin + wait + overhead per
//!   request), held fixed: the live server's spin and wait barely vary, so a
//!   fixed service time is the honest model; the measurement's spread is
//!   not modelled.
//! * **workers** parallel servers fed by one FIFO line, exactly as the live
//!   door's slots.
//! * **limit** = the live limit on *waiting* requests (`off` = none): an
//!   arrival finding the line full is refused at once, as the door does.
//! * **client timeout**: a caller gives up after it; the server still
//!   serves what it queued (done but not ok), as the live server does.
//! * **p99** is over `ok` answers, as measured.
//!
//! What remains different: network and HTTP overhead per request, the load
//! tool's scheduling jitter, and service-time variance on the machine.

use bplab_core::stochastic::{Server, ServiceTime, Setup};
use serde::Serialize;

use crate::error::LiveError;
use crate::load::LoadConfig;
use crate::measure::Measurement;

/// The model's view of one offered rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prediction {
    /// Answers within the client timeout per second of the window.
    pub ok_per_sec: f64,
    /// 99th percentile latency of ok answers, ms (`None` if none).
    pub p99_ms: Option<f64>,
}

/// Predict one rate with the core's stochastic engine.
///
/// * `rate_rps`: offered rate, `> 0` and finite.
/// * `service_ms`: the measured service time of one request, ms, `> 0`.
/// * `workers`, `limit`: the live settings (`limit` waiting, `None` = off).
/// * `deadline_ms`: client timeout, ms.
/// * `seconds`: window, `> 0`; `seed`: the load tool's seed.
pub fn predict(
    rate_rps: f64,
    service_ms: f64,
    workers: usize,
    limit: Option<usize>,
    deadline_ms: u32,
    seconds: f64,
    seed: u64,
) -> Result<Prediction, LiveError> {
    let bad = |reason: String| LiveError::Model { reason };
    if !(rate_rps.is_finite() && rate_rps > 0.0) {
        return Err(bad(format!("rate {rate_rps} must be above 0")));
    }
    let workers = u32::try_from(workers.max(1)).map_err(|_| bad(format!("{workers} workers is out of range")))?;
    let line_limit = match limit {
        None => None,
        Some(l) => Some(u32::try_from(l).map_err(|_| bad(format!("limit {l} is out of range")))?),
    };
    let server = Server { workers, line_limit, timeout_ms: Some(f64::from(deadline_ms)), ..Server::unbounded(workers) };
    let setup = Setup::poisson(rate_rps, ServiceTime::Fixed { ms: service_ms }, server, seconds * 1000.0, seed);
    let run = setup.run(crate::load::MAX_PLAN_REQUESTS as u64 * 2).map_err(|e| bad(e.to_string()))?;
    let s = run.summary(rate_rps);
    Ok(Prediction { ok_per_sec: s.ok_per_sec, p99_ms: s.p99_ms })
}

/// The model parameters derived from a measurement and a load plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelInputs {
    /// Service time of one request given to the model, ms (the measured p50).
    pub service_ms: f64,
    /// Live worker slots.
    pub workers: usize,
    /// Live waiting limit (`None` = off).
    pub limit: Option<usize>,
    /// Client timeout, ms.
    pub deadline_ms: u32,
    /// Window, seconds.
    pub seconds: f64,
    /// The load tool's seed.
    pub seed: u64,
}

impl ModelInputs {
    /// Derive the inputs: the measured p50 service time, workers and limit
    /// from the server's `/stats` (required), the plan's seed, window and
    /// client timeout.
    pub fn from_measurement(m: &Measurement, cfg: &LoadConfig) -> Result<Self, LiveError> {
        let server = m.server.as_ref().ok_or_else(|| LiveError::Model {
            reason: "--compare needs the target's /stats (workers and limit)".to_string(),
        })?;
        Ok(ModelInputs {
            service_ms: m.p50_ms.max(0.001),
            workers: server.workers.max(1),
            limit: server.limit,
            deadline_ms: u32::try_from(cfg.client_timeout_ms()).unwrap_or(u32::MAX),
            seconds: cfg.seconds(),
            seed: cfg.seed(),
        })
    }

    /// Predict one offered rate.
    pub fn predict(&self, rate_rps: f64) -> Result<Prediction, LiveError> {
        predict(rate_rps, self.service_ms, self.workers, self.limit, self.deadline_ms, self.seconds, self.seed)
    }

    /// One line naming the model and its inputs.
    pub fn describe(&self) -> String {
        let limit = self.limit.map_or_else(|| "off".to_string(), |l| l.to_string());
        format!(
            "model: core stochastic engine, the same Poisson arrivals (seed {}), fixed service {:.1} ms (measured p50), \
             {} worker(s), queue limit {limit}, client timeout {} ms, {} s",
            self.seed, self.service_ms, self.workers, self.deadline_ms, self.seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lesson_setting_with_limit() {
        // 1 worker, 21 ms, limit 10: capacity ~47.6/s, p99 pinned near 11 x 21.
        let p = predict(100.0, 21.0, 1, Some(10), 2000, 20.0, 1).expect("ok");
        assert!((p.ok_per_sec - 1000.0 / 21.0).abs() < 2.0, "{p:?}");
        let p99 = p.p99_ms.expect("served");
        assert!((200.0..=240.0).contains(&p99), "{p:?}");
    }

    #[test]
    fn random_arrivals_queue_below_capacity() {
        // At 40 rps (84 % busy) the deterministic model said p99 = 21 ms; queueing says far more.
        let p = predict(40.0, 21.0, 1, Some(10), 2000, 20.0, 1).expect("ok");
        assert!(p.p99_ms.expect("served") > 150.0, "{p:?}");
    }

    #[test]
    fn limit_off_collapses_goodput() {
        let p = predict(100.0, 21.0, 1, None, 2000, 20.0, 1).expect("ok");
        assert!(p.ok_per_sec < 12.0, "{p:?}");
    }

    #[test]
    fn rejects_bad_inputs() {
        assert!(predict(0.0, 21.0, 1, None, 2000, 20.0, 1).is_err());
        assert!(predict(10.0, 0.0, 1, None, 2000, 20.0, 1).is_err());
        assert!(predict(10.0, 21.0, 1, None, 2000, 0.0, 1).is_err());
    }
}
