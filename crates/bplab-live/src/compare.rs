//! The model's inputs taken from a measurement (`load --compare`): the
//! service time measured at low load before the sweep, and the load plan.
//! The model itself, one run per rate giving the row and the timeline, is
//! [`crate::timeline_model`]; see there for everything it is fed.

use crate::error::LiveError;
use crate::load::LoadConfig;
use crate::measure::Measurement;
use crate::stats::StatsConfig;
use crate::timeline_model::{Chain, ModelRun, RateInputs, run_model};

pub use crate::timeline_model::Prediction;

/// The model parameters derived from a measurement and a load plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelInputs {
    /// Service time of one request before any deploy, ms: the measured p50,
    /// less the deploy's extra spin and wait if it was in force while
    /// measuring.
    pub service_ms: f64,
    /// The server's spin + wait when it was measured, ms.
    pub measured_work_ms: u64,
    /// The server's `config_epoch` when it was measured.
    pub measured_epoch: u64,
    /// Client timeout, ms.
    pub deadline_ms: u64,
    /// Window, seconds.
    pub seconds: f64,
    /// The load tool's seed.
    pub seed: u64,
    /// The load tool's client policy.
    pub policy: crate::load::ClientPolicy,
}

impl ModelInputs {
    /// Derive the inputs: the measured p50 service time and the server's
    /// `/stats` (required), the plan's seed, window and client timeout.
    pub fn from_measurement(m: &Measurement, cfg: &LoadConfig) -> Result<Self, LiveError> {
        let server = m.server.as_ref().ok_or_else(|| LiveError::Model {
            reason: "--compare needs the target's /stats (workers and door)".to_string(),
        })?;
        // Measured during the deploy: less its extra spin and wait.
        let work = (server.spin_ms + server.wait_ms) as f64;
        let extra = if m.slowed { (server.slowdown_factor - 1.0) * work } else { 0.0 };
        Ok(ModelInputs {
            service_ms: (m.p50_ms - extra).max(0.001),
            measured_work_ms: server.spin_ms + server.wait_ms,
            measured_epoch: server.config_epoch,
            deadline_ms: cfg.client_timeout_ms(),
            seconds: cfg.seconds(),
            seed: cfg.seed(),
            policy: *cfg.policy(),
        })
    }

    /// The service time (before any deploy) for a server now configured as
    /// `server`: the measured one, moved by the change of spin + wait since.
    pub fn service_for(&self, server: &StatsConfig) -> f64 {
        if server.config_epoch == self.measured_epoch {
            return self.service_ms;
        }
        let now = (server.spin_ms + server.wait_ms) as f64;
        (self.service_ms - self.measured_work_ms as f64 + now).max(0.001)
    }

    /// Run the model for one rate's window: `arrivals` as sent, after the
    /// `chain`'s earlier rates of the session, the server as `/stats`
    /// described it when the window started, the deploy `deploy_ms` into
    /// the window, timeline windows of `bucket_ms`.
    pub fn run(
        &self,
        server: &StatsConfig,
        chain: Chain<'_>,
        arrivals: &[f64],
        deploy_ms: Option<i64>,
        bucket_ms: u64,
    ) -> Result<ModelRun, LiveError> {
        let inputs = RateInputs {
            arrivals,
            service_ms: self.service_for(server),
            client_timeout_ms: self.deadline_ms,
            seconds: self.seconds,
            deploy_ms,
            bucket_ms,
            chain,
            policy: self.policy,
            seed: self.seed,
        };
        run_model(server, inputs)
    }

    /// One line naming the model and its inputs.
    pub fn describe(&self, server: &StatsConfig) -> String {
        let drops = match server.budget_ms {
            _ if self.policy.is_active() => format!("past the {} ms client timeout", self.deadline_ms),
            Some(b) => format!("past {b} ms"),
            None => "none (no --budget-ms)".to_string(),
        };
        let callers = if self.policy.is_active() {
            format!(
                ", the same {} (the core's client; Retry-After {} s)",
                self.policy.describe().trim_start_matches("client: "),
                server.retry_after_s
            )
        } else {
            String::new()
        };
        format!(
            "model: core engine (bplab run adaptive's and metastable's), the same Poisson arrivals (seed {}), fixed \
             service {:.1} ms (measured p50, before any deploy), the server's workers, door ({}), deploy and \
             /config, each rate from the state /stats reported as its window started (controller and held \
             requests; else a replay of the session), dropped samples {drops}, client timeout {} ms, {} s{callers}",
            self.seed,
            self.service_ms,
            server.door_name(),
            self.deadline_ms,
            self.seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn server(epoch: u64, wait_ms: u64) -> StatsConfig {
        StatsConfig {
            workers: 1,
            spin_ms: 2,
            wait_ms,
            limit: Some(10),
            max_connections: 100,
            header_read_timeout_ms: 5000,
            door: "fixed".into(),
            controller: BTreeMap::new(),
            budget_ms: None,
            slowdown_at_ms: None,
            slowdown_factor: 1.0,
            slowdown_for_ms: None,
            retry_after_s: 1,
            config_epoch: epoch,
        }
    }

    #[test]
    fn a_config_change_moves_the_service_time() {
        let m = ModelInputs {
            service_ms: 21.0,
            measured_work_ms: 20,
            measured_epoch: 0,
            deadline_ms: 2000,
            seconds: 20.0,
            seed: 1,
            policy: crate::load::ClientPolicy::NONE,
        };
        assert_eq!(m.service_for(&server(0, 18)), 21.0);
        assert_eq!(m.service_for(&server(1, 38)), 41.0);
        let arrivals = crate::load::schedule(100.0, 20.0, 1, 100_000);
        let slow = m.run(&server(1, 38), Chain::default(), &arrivals, None, 1000).expect("model");
        assert!((slow.prediction.ok_per_sec - 1000.0 / 41.0).abs() < 1.0, "{slow:?}");
        assert!(m.describe(&server(0, 18)).contains("door (fixed)"));
    }
}
