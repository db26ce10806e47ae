//! The model's timeline beside the live one (`load --compare --timeline`):
//! the core's [`bplab_core::simulate`], the same model `bplab run adaptive`
//! runs, fed what the load tool sent and what `/stats` says the server runs:
//!
//! * **arrivals**: the load tool's own schedule for the rate (same seed,
//!   [`crate::load::schedule`]);
//! * **service**: fixed at the measured p50 for every request
//!   (`vec![p50; n]`), multiplied by the server's deploy factor for requests
//!   starting at or after the deploy, placed where it falls in this window
//!   (`/stats` `slowdown_at_ms` minus the server's uptime as the window
//!   started);
//! * **workers**: the server's, from `/stats`;
//! * **door**: `--limit N` -> a fixed limit of `N + workers` requests in the
//!   system (the core's doors bound the system, the live `--limit` the
//!   line); `off` -> none; an adaptive door -> the same controller with the
//!   settings given to the server (reported by `/stats`, parsed by the same
//!   code); CoDel -> the same target and interval;
//! * **client timeout**: the load tool's. The model marks a sample dropped
//!   when its round trip passes the client timeout; the live server, when it
//!   passes `--budget-ms` (never without one).

use bplab_core::control::Codel;
use bplab_core::{Door as SimDoor, Trace, simulate};

use crate::error::LiveError;
use crate::load::{ModelWindow, Timeline};
use crate::server::{DoorSpec, parse_door};
use crate::stats::StatsConfig;

/// The door the model runs for a server configured as `server`.
pub fn model_door(server: &StatsConfig) -> Result<SimDoor, LiveError> {
    let bad = |reason: String| LiveError::Model { reason };
    let fixed = |limit: usize| {
        let n = i32::try_from(limit.saturating_add(server.workers)).unwrap_or(i32::MAX);
        bplab_core::control::FixedConfig::new(n.max(1))
            .map(|c| SimDoor::Limit(bplab_core::control::LimiterConfig::Fixed(c).build()))
            .map_err(|e| bad(e.to_string()))
    };
    match server.door_name() {
        "fixed" => fixed(server.limit.unwrap_or(0)),
        "off" => fixed(i32::MAX as usize),
        name => match parse_door(name, &server.controller) {
            Ok(DoorSpec::Limiter(c)) => Ok(SimDoor::Limit(c.build())),
            Ok(DoorSpec::Codel(c)) => Ok(SimDoor::Codel(Codel::new(&c, 0))),
            Ok(DoorSpec::Queue(l)) => fixed(l.unwrap_or(i32::MAX as usize)),
            Err(e) => Err(bad(format!("the server's door '{name}': {e}"))),
        },
    }
}

/// The model's windows for one rate's live timeline `t` (which must carry
/// the server's `/stats` configuration): `arrivals` as sent (ms from the
/// window start), every request taking `service_ms` before the deploy.
pub fn model_timeline(
    t: &Timeline,
    arrivals: &[f64],
    service_ms: f64,
    client_timeout_ms: u64,
    seconds: f64,
) -> Result<Vec<ModelWindow>, LiveError> {
    let server = t.server.as_ref().ok_or_else(|| LiveError::Model {
        reason: "--compare --timeline needs the target's /stats (workers, door, deploy)".to_string(),
    })?;
    let door = model_door(server)?;
    let service = vec![service_ms; arrivals.len()];
    let (at_ms, factor) = match t.deploy_ms() {
        Some(d) => (d.max(0) as f64, server.slowdown_factor),
        None => (f64::INFINITY, 1.0),
    };
    let trace = Trace {
        arrivals,
        service_ms: &service,
        workers: u32::try_from(server.workers.max(1)).unwrap_or(u32::MAX),
        timeout_ms: client_timeout_ms as f64,
        slowdown_at_ms: at_ms,
        slowdown_factor: factor,
        stuck_after_slowdown: false,
        retries: 0,
        retry_backoff_ms: 0.0,
        window_ms: seconds * 1000.0,
        bucket_ms: t.window_ms.max(1) as f64,
    };
    let out = simulate(trace, door);
    Ok(out
        .buckets
        .iter()
        .map(|b| ModelWindow {
            ok: b.ok,
            refused: b.refused,
            p99_ms: b.p99_ms,
            limit: (b.limit >= 0).then_some(i64::from(b.limit)),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Window, schedule};
    use std::collections::BTreeMap;

    fn server(door: &str, limit: Option<usize>) -> StatsConfig {
        StatsConfig {
            workers: 1,
            spin_ms: 2,
            wait_ms: 18,
            limit,
            max_connections: 100,
            header_read_timeout_ms: 5000,
            door: door.to_string(),
            controller: BTreeMap::new(),
            budget_ms: None,
            slowdown_at_ms: Some(10_000),
            slowdown_factor: 2.0,
            config_epoch: 0,
        }
    }

    fn timeline(s: StatsConfig) -> Timeline {
        Timeline {
            window_ms: 1000,
            start_uptime_ms: Some(0),
            server: Some(s),
            windows: vec![Window::default(); 30],
            ..Timeline::default()
        }
    }

    /// Windows after the deploy whose p99 is over 250 ms.
    fn windows_over_budget_after(door: &str, limit: Option<usize>) -> usize {
        let arrivals = schedule(100.0, 30.0, 1, 100_000);
        let m = model_timeline(&timeline(server(door, limit)), &arrivals, 21.0, 2000, 30.0).expect("model");
        assert_eq!(m.len(), 30);
        m[10..].iter().filter(|w| w.p99_ms.is_some_and(|p| p > 250)).count()
    }

    #[test]
    fn the_deploy_breaks_the_fixed_limit_and_codel_holds() {
        // limit 10 waiting + 1 in service = 11 x 42 ms after the 2x deploy.
        assert_eq!(windows_over_budget_after("fixed", Some(10)), 20);
        assert!(windows_over_budget_after("codel", None) <= 2);
    }
}
