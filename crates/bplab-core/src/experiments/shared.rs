//! Small pieces every experiment module uses: the article constants and
//! explanation builders.

use crate::calc::{Step, fmt_num};
use crate::error::ConfigError;
use crate::models::admission::Limit;
use crate::params::Params;
use crate::params::{ParamKey, ParamSpec};
use crate::stochastic::ServiceTime;

/// The article constants shared by every experiment (S = 10 ms, D = 200 ms,
/// T = 5 s, W = 100 ms, gate rate 100 rps, share 0.25, …).
pub(crate) fn base_defaults() -> Params {
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
        // The course lesson's experiment (seed 003).
        rates_rps: vec![40.0, 48.0, 60.0, 100.0],
        seconds: 20.0,
        seed: 1,
        workers: 1,
        service: "fixed:21".to_owned(),
        door_limit: Some(10),
        client_timeout_ms: 2000,
        replicas: 3,
        at_rate_rps: 60.0,
        // The lesson's last section: a deploy makes the handler twice as slow.
        rate_schedule: vec![(40.0, 0)],
        slowdown_at_ms: 10_000,
        slowdown_factor: 2.0,
        controllers: crate::params::CONTROLLER_NAMES.iter().map(|n| (*n).to_owned()).collect(),
        budget_ms: 230,
        codel_target_ms: 50,
        preset: "deploy-2x".to_owned(),
    }
}

/// One derivation step.
pub(crate) fn step(label: &str, formula: &str, substituted: String, value: String) -> Step {
    Step { label: label.into(), formula: formula.into(), substituted, value, eq: None }
}

/// Owned copies of fixed sentences.
pub(crate) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Index of the largest value (the first of ties); `None` when empty.
pub(crate) fn argmax(values: impl IntoIterator<Item = f64>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in values.into_iter().enumerate() {
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((i, v));
        }
    }
    best.map(|(i, _)| i)
}

/// A rate for prose: `"47.62 rps"`.
pub(crate) fn rps(v: f64) -> String {
    format!("{} rps", fmt_num(v))
}

/// The service-time distribution of `p`, refused with the `service` flag's message.
pub(crate) fn service_time(p: &Params) -> Result<ServiceTime, ConfigError> {
    let s = ParamSpec::of(ParamKey::Service);
    ServiceTime::parse(&p.service).map_err(|_| ConfigError::OutOfRange {
        param: s.name,
        value: p.service.clone(),
        accepted: s.accepted(),
    })
}

/// Arrivals a Poisson run with `mean` expected arrivals will not pass in
/// practice (mean + 8 standard deviations + 16): the work estimate the caps
/// are compared with.
pub(crate) fn poisson_bound(mean: f64) -> u64 {
    (mean + 8.0 * libm::sqrt(mean) + 16.0).min(u64::MAX as f64) as u64
}
