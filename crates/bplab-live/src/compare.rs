//! The model beside the measurement (`load --compare`).
//!
//! The prediction comes from the core's admission model
//! ([`bplab_core::models::admission`]): one FIFO server with a fixed service
//! time, an arrival rejected when the occupancy ahead of it is at least the
//! limit, and each served request's sojourn judged against a deadline.
//! The live service is mapped onto it as follows — each line is an
//! approximation worth reading before trusting a column:
//!
//! * **service_ms = measured service time / workers**, rounded to a whole
//!   millisecond (at least 1). The core models a single server; `workers`
//!   parallel slots of time `S` drain at the same rate as one server of
//!   time `S / workers`, but a single request's sojourn is `S`, not
//!   `S / workers`, so with several workers predicted latencies are low by
//!   up to `S - S / workers`. Exact for one worker.
//! * **limit = live limit + workers**: the live limit counts only requests
//!   waiting for a slot, the core's counts everything in the system. `off`
//!   maps to the core's "no limit".
//! * **deadline = client timeout**: the core counts a request served after
//!   the deadline as late, not as goodput, like the client's give-up. As
//!   in the live server, every admitted request is still served, late ones
//!   included (the wasted work).
//! * **arrivals = the core's flat curve at the offered rate** (evenly
//!   spaced), window = `seconds`. The live generator sends Poisson
//!   arrivals, so below capacity the live tail includes random queueing
//!   the flat model does not have; above capacity both saturate the queue.
//! * **p99**: the model's p99 is over all served requests (late ones
//!   included); the measured p99 is over `ok` answers only. With a limit
//!   they coincide (nothing is late); without one the model's p99 shows how
//!   late the late answers were.

use bplab_core::arrivals::Curve;
use bplab_core::models::admission::{AdmissionSettings, Limit, run};
use serde::Serialize;

use crate::error::LiveError;
use crate::load::LoadConfig;
use crate::measure::Measurement;

/// The model's view of one offered rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prediction {
    /// On-time completions per second of the window.
    pub ok_per_sec: f64,
    /// 99th percentile sojourn of served requests, ms (`None` if nothing
    /// was served).
    pub p99_ms: Option<f64>,
}

/// Predict one rate with the core's admission model.
///
/// * `rate_rps`: offered rate, `> 0` and finite.
/// * `service_ms`: the *single-server* service time (already divided by
///   workers), whole ms `>= 1`.
/// * `workers`, `limit`: the live settings (`limit` waiting, `None` = off);
///   the model's in-system limit is `limit + workers`.
/// * `deadline_ms`: client timeout, ms.
/// * `seconds`: window, `> 0`.
pub fn predict(
    rate_rps: f64,
    service_ms: u32,
    workers: usize,
    limit: Option<usize>,
    deadline_ms: u32,
    seconds: f64,
) -> Result<Prediction, LiveError> {
    let bad = |reason: String| LiveError::Model { reason };
    if !(rate_rps.is_finite() && rate_rps > 0.0) {
        return Err(bad(format!("rate {rate_rps} must be > 0")));
    }
    if service_ms == 0 {
        return Err(bad("service_ms must be >= 1".to_string()));
    }
    let window_ms = seconds * 1000.0;
    if !(window_ms.is_finite() && window_ms >= 1.0 && window_ms <= f64::from(u32::MAX)) {
        return Err(bad(format!("window {seconds} s is out of range")));
    }
    let window_ms = window_ms.round() as u32;
    let model_limit = match limit {
        None => Limit::None,
        Some(l) => {
            let in_system = l.saturating_add(workers.max(1));
            Limit::Finite(
                u32::try_from(in_system)
                    .map_err(|_| bad(format!("limit {l} + workers {workers} exceeds the model's range")))?,
            )
        }
    };
    let settings = AdmissionSettings { service_ms, deadline_ms, duration_ms: window_ms };
    let arrivals = Curve::flat(rate_rps, window_ms).arrivals(window_ms);
    let out = run(&settings, &arrivals, model_limit);
    let served = out.goodput + out.late;
    Ok(Prediction { ok_per_sec: out.goodput_rps, p99_ms: (served > 0).then_some(out.p99_ms as f64) })
}

/// The model parameters derived from a measurement and a load plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelInputs {
    /// Single-server service time given to the model, whole ms.
    pub service_ms: u32,
    /// Live worker slots.
    pub workers: usize,
    /// Live waiting limit (`None` = off).
    pub limit: Option<usize>,
    /// Client timeout, ms.
    pub deadline_ms: u32,
    /// Window, seconds.
    pub seconds: f64,
}

impl ModelInputs {
    /// Derive the inputs: `service_ms = round(p50 / workers)` (at least 1),
    /// workers and limit from the server's `/stats` (required).
    pub fn from_measurement(m: &Measurement, cfg: &LoadConfig) -> Result<Self, LiveError> {
        let server = m.server.ok_or_else(|| LiveError::Model {
            reason: "--compare needs the target's /stats (workers and limit)".to_string(),
        })?;
        let workers = server.workers.max(1);
        let per_server = (m.p50_ms / workers as f64).round().max(1.0);
        Ok(ModelInputs {
            service_ms: per_server.min(f64::from(u32::MAX)) as u32,
            workers,
            limit: server.limit,
            deadline_ms: u32::try_from(cfg.client_timeout_ms()).unwrap_or(u32::MAX),
            seconds: cfg.seconds(),
        })
    }

    /// Predict one offered rate.
    pub fn predict(&self, rate_rps: f64) -> Result<Prediction, LiveError> {
        predict(rate_rps, self.service_ms, self.workers, self.limit, self.deadline_ms, self.seconds)
    }

    /// One line naming the model and the approximations in force.
    pub fn describe(&self) -> String {
        let limit = match self.limit {
            Some(l) => format!("{} (= limit {l} + workers {})", l + self.workers, self.workers),
            None => "none".to_string(),
        };
        format!(
            "model: core admission model, one FIFO server, service {} ms (measured / workers), \
             in-system limit {limit}, deadline {} ms, flat arrivals over {} s",
            self.service_ms, self.deadline_ms, self.seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lesson_setting_with_limit() {
        // 1 worker, 21 ms, limit 10: capacity ~47.6/s, p99 pinned near 11 x 21.
        let p = predict(100.0, 21, 1, Some(10), 2000, 20.0).expect("ok");
        assert!((p.ok_per_sec - 1000.0 / 21.0).abs() < 2.0, "{p:?}");
        let p99 = p.p99_ms.expect("served");
        assert!((200.0..=240.0).contains(&p99), "{p:?}");
    }

    #[test]
    fn limit_off_collapses_goodput() {
        let p = predict(100.0, 21, 1, None, 2000, 20.0).expect("ok");
        assert!(p.ok_per_sec < 10.0, "{p:?}");
    }

    #[test]
    fn rejects_bad_inputs() {
        assert!(predict(0.0, 21, 1, None, 2000, 20.0).is_err());
        assert!(predict(10.0, 0, 1, None, 2000, 20.0).is_err());
        assert!(predict(10.0, 21, 1, None, 2000, 0.0).is_err());
    }
}
