//! The model beside the measurement (`load --compare`): one run of the
//! core's one engine ([`bplab_core::stochastic::Model`], the engine `bplab
//! run adaptive` and `bplab run metastable` run) per offered rate gives both
//! the per-rate row's model columns and, with `--timeline`, the model's
//! windows. Every call into the core's model is in this file
//! ([`run_model`]), so the engine can be swapped here alone.
//!
//! What the run is fed, from the load tool and the server's `/stats` read as
//! the rate's window started:
//!
//! * **arrivals**: the load tool's own schedule for the rate (same seed,
//!   [`crate::load::schedule`]);
//! * **service**: fixed for every request at the measured p50 (taken at low
//!   load before the sweep; less the deploy's extra spin and wait if the
//!   deploy was already in force then), shifted by any live `POST /config`
//!   change of spin or wait since the measurement (`/stats` `config_epoch`
//!   tells); a request starting at or after the deploy takes the server's
//!   deploy factor times its spin and wait, plus the same overhead
//!   (`/stats` `slowdown_at_ms` minus the server's uptime as the window
//!   started places it), and before its end when it is bounded (`/stats`
//!   `slowdown_for_ms`);
//! * **workers**: the server's, from `/stats`;
//! * **door**: `--limit N` -> a fixed limit of `N + workers` requests in the
//!   system (the core's doors bound the system, the live `--limit` the
//!   line); `off` -> none; an adaptive door -> the same controller with the
//!   settings given to the server (reported by `/stats`, parsed by the same
//!   code), resumed in the whole state the live one reported as the window
//!   started (`/stats` `door.limiter_state`, its round trips moved onto the
//!   model's scale, see **the start**); CoDel -> the same target and
//!   interval, resumed in its reported state (`door.codel_state`, its clock
//!   moved to the run's);
//! * **dropped samples**: as the server decides them: a completion slower
//!   than the server's `--budget-ms`, none without one;
//! * **ok**: an answer within the load tool's client timeout (by latency
//!   from arrival), p99 over those;
//! * **the callers**: the load tool's client policy (retries, backoff,
//!   budget, throttling, Retry-After honoured or not) as the engine's
//!   [`bplab_core::stochastic::Client`], its streams seeded from the load
//!   tool's seed, and the server's `Retry-After` (`/stats` `retry_after_s`)
//!   on every refusal. With a policy the engine's caller gives up at the
//!   client timeout (and retries from there), so the controller's dropped
//!   samples are the answers past the client timeout; without one, past
//!   the server's `--budget-ms` as the server decides them. This rate's
//!   retries are counted with its first tries (every retry sent from this
//!   rate's window start on); the budget and the throttle start afresh at
//!   each rate, as the load tool's do (through a replayed chain, see **the
//!   start**, they carry on).
//!
//! A window in which `/config` changed (the epoch moved) gets no model row:
//! the model cannot know when in the window it happened.
//!
//! * **the start**: a rate's model run starts from the server's state as
//!   `/stats` reported it when the window started ([`Observed`]): the
//!   controller's whole state and every request the server held (`held`),
//!   each put back with its age at the door, in service or in line order.
//!   One in service ends after the model's per-request overhead (measured
//!   service less spin + wait) plus its own spin + wait from when it took
//!   its slot; one waiting takes the model's service time (the deploy
//!   applies as it starts). The server times a round trip from the door to
//!   the end of the work, the model from the send to the answer, so the
//!   round trips in the controller's state are moved by the same overhead.
//!   Only this rate's requests are counted. Against a server that does not
//!   report its state (older JSON), the run instead starts where the live
//!   server's session did, at the first rate of the same configuration, and
//!   replays every earlier rate's arrivals at their offsets (`/stats`
//!   `uptime_ms` as each window started) before this rate's; that chain's
//!   first rate starts its controller at the limit the live one had then.
//!
//! What remains different: network and HTTP overhead per request, the load
//! tool's scheduling jitter and service-time variance on the machine (from
//! the window's start on), and, without a reported state, what happened
//! before the chain's first rate (the service-time measurement's requests and
//! any rate before a `/config` change).

use bplab_core::control::{Codel, LimiterState};
use bplab_core::stochastic::{Outcome, Present, Slowdown};
use bplab_core::{Door as SimDoor, Trace};
use serde::Serialize;

use crate::error::LiveError;
use crate::load::ClientPolicy;
use crate::load::ModelWindow;
use crate::server::DoorSpec;
use crate::stats::StatsConfig;

/// The model's view of one offered rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prediction {
    /// Answers within the client timeout per second of the window.
    pub ok_per_sec: f64,
    /// 99th percentile latency of ok answers, ms (`None` if none).
    pub p99_ms: Option<f64>,
}

/// One model run: the row and the windows.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRun {
    /// The per-rate row's model columns.
    pub prediction: Prediction,
    /// The model's timeline windows, counted as the live ones are: answers
    /// within the client timeout by completion time, refusals by decision.
    pub windows: Vec<ModelWindow>,
}

/// What one rate's model run needs besides the server's configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateInputs<'a> {
    /// Send offsets, ms from the window start.
    pub arrivals: &'a [f64],
    /// Service time of one request before any deploy, ms, for the
    /// configuration in force.
    pub service_ms: f64,
    /// The load tool's client timeout, ms.
    pub client_timeout_ms: u64,
    /// The sending window, seconds.
    pub seconds: f64,
    /// Where the deploy falls, ms from the window start (negative: before
    /// it; `None`: no deploy).
    pub deploy_ms: Option<i64>,
    /// Timeline window width, ms.
    pub bucket_ms: u64,
    /// The session this rate continues.
    pub chain: Chain<'a>,
    /// The callers' policy (the load tool's flags).
    pub policy: ClientPolicy,
    /// The load tool's seed (the client's jitter and throttle streams).
    pub seed: u64,
}

/// Where a rate's model run starts: from the server's state observed as the
/// window started ([`Observed`]), or by replaying the earlier rates of the
/// same configuration (a server whose `/stats` does not report its state).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Chain<'a> {
    /// The live controller's limit as the chain's first window started
    /// (`/stats` `door.limit`); an adaptive limiter starts there (without
    /// `observed`).
    pub start_limit: Option<i64>,
    /// The earlier rates, in order.
    pub earlier: &'a [Earlier<'a>],
    /// Where this rate's window starts, ms after the chain's first window
    /// started (0 without earlier rates), or after `observed` was read.
    pub offset_ms: f64,
    /// The server's state at the chain's start (at 0 ms): the run starts
    /// there, its controller and its held requests.
    pub observed: Option<&'a Observed>,
}

/// The server's state in one `/stats` answer, as the model starts from it:
/// its controller's whole state and every request it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// An adaptive limiter's state (`/stats` `door.limiter_state`).
    pub limiter: Option<bplab_core::control::LimiterState>,
    /// CoDel's state on the server's clock (`/stats` `door.codel_state`).
    pub codel: Option<bplab_core::control::CodelState>,
    /// The requests in service, then those waiting in line order.
    pub held: Vec<crate::stats::Held>,
    /// The server's uptime then, ms.
    pub uptime_ms: u64,
}

impl Observed {
    /// The state in `s`, if the server reports all of it for its door (its
    /// held requests, and the limiter's or CoDel's state where it has one).
    pub fn of(s: &crate::stats::StatsSnapshot) -> Option<Observed> {
        let held = s.held.clone()?;
        let o =
            Observed { limiter: s.door.limiter_state.clone(), codel: s.door.codel_state, held, uptime_ms: s.uptime_ms };
        let complete = match s.config.door_spec(None) {
            Ok(DoorSpec::Limiter(_)) => o.limiter.is_some(),
            Ok(DoorSpec::Codel(_)) => o.codel.is_some(),
            Ok(DoorSpec::Queue(_)) => true,
            Err(_) => false,
        };
        complete.then_some(o)
    }

    /// The held requests as the engine's [`Present`] ones: arrived `age`
    /// before the run's 0; one in service since `in_service` ago with the
    /// model's per-request overhead (`service_ms` less the server's spin +
    /// wait, `work_ms`) on top of its own spin + wait; one waiting with the
    /// model's service time (the deploy applies as it starts).
    fn present(&self, service_ms: f64, work_ms: f64) -> Vec<Present> {
        let ms = |us: u64| -(us as f64) / 1000.0;
        let overhead = (service_ms - work_ms).max(0.0);
        self.held
            .iter()
            .map(|h| {
                let arrival_ms = ms(h.age_us).max(-1e15);
                match h.in_service_us {
                    Some(s) => Present {
                        arrival_ms,
                        service_ms: overhead + h.work_us as f64 / 1000.0,
                        start_ms: Some(ms(s).clamp(arrival_ms, 0.0)),
                        inflight: h.inflight,
                    },
                    None => Present { arrival_ms, service_ms, start_ms: None, inflight: h.inflight },
                }
            })
            .collect()
    }
}

/// `state` with its round-trip times moved by `overhead_ns`: the server
/// measures a round trip from the door to the end of the work, the model
/// from the send to the answer (its service time includes the HTTP
/// overhead), so a state the server learned is put on the model's scale.
fn on_model_scale(state: &LimiterState, overhead_ns: f64) -> LimiterState {
    let mut s = state.clone();
    match &mut s {
        LimiterState::Vegas { rtt_noload_ns, .. } if *rtt_noload_ns > 0 => {
            *rtt_noload_ns = rtt_noload_ns.saturating_add(overhead_ns as i64);
        }
        LimiterState::Gradient2 { long_rtt_ns, long_rtt_sum_ns, long_rtt_count, .. } if *long_rtt_count > 0 => {
            *long_rtt_ns += overhead_ns;
            *long_rtt_sum_ns += f64::from(*long_rtt_count) * overhead_ns;
        }
        LimiterState::Gradient { min_rtt_ns, .. } if *min_rtt_ns > 0.0 => *min_rtt_ns += overhead_ns,
        _ => {}
    }
    s
}

/// An earlier rate of the session, carried into a later rate's model run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Earlier<'a> {
    /// Its send offsets, ms from its window start.
    pub arrivals: &'a [f64],
    /// Where its window started, ms after the chain's first window started.
    pub offset_ms: f64,
}

/// The door the model runs for a server configured as `server`, an
/// adaptive limiter starting at `start_limit` (if the controller accepts it
/// as its initial limit; otherwise at its own).
pub fn model_door(server: &StatsConfig, start_limit: Option<i64>) -> Result<SimDoor, LiveError> {
    model_door_in(server, start_limit, None, 0.0)
}

/// [`model_door`], or with `observed` the same controller resumed in the
/// observed state (round trips moved by `overhead_ns`, CoDel's clock to the
/// run's, whose 0 is the server's uptime then).
fn model_door_in(
    server: &StatsConfig,
    start_limit: Option<i64>,
    observed: Option<&Observed>,
    overhead_ns: f64,
) -> Result<SimDoor, LiveError> {
    let bad = |reason: String| LiveError::Model { reason };
    let fixed = |limit: usize| {
        let n = i32::try_from(limit.saturating_add(server.workers)).unwrap_or(i32::MAX);
        bplab_core::control::FixedConfig::new(n.max(1))
            .map(|c| SimDoor::Limit(bplab_core::control::LimiterConfig::Fixed(c).build()))
            .map_err(|e| bad(e.to_string()))
    };
    // A resumed controller keeps its observed limit; otherwise it starts at
    // `start_limit` where it takes that as its initial limit, else at its own.
    let given = start_limit.filter(|_| observed.is_none()).and_then(|l| server.door_spec(Some(l)).ok());
    let spec = match given {
        Some(spec) => spec,
        None => server.door_spec(None).map_err(|e| bad(format!("the server's door '{}': {e}", server.door_name())))?,
    };
    match (spec, observed) {
        (DoorSpec::Limiter(c), Some(o)) => {
            let Some(state) = &o.limiter else { return Err(bad("no limiter state in /stats".to_string())) };
            let resumed = c.resume(&on_model_scale(state, overhead_ns));
            resumed.map(SimDoor::Limit).map_err(|e| bad(format!("the server's limiter state: {e}")))
        }
        (DoorSpec::Codel(c), Some(o)) => {
            let Some(state) = o.codel else { return Err(bad("no CoDel state in /stats".to_string())) };
            let uptime_ns = i64::try_from(o.uptime_ms).unwrap_or(i64::MAX / 1_000_000).saturating_mul(1_000_000);
            Ok(SimDoor::Codel(Codel::resume(&c, state.shifted(-uptime_ns))))
        }
        (DoorSpec::Limiter(c), None) => Ok(SimDoor::Limit(c.build())),
        (DoorSpec::Codel(c), None) => Ok(SimDoor::Codel(Codel::new(&c, 0))),
        (DoorSpec::Queue(l), _) => fixed(l.unwrap_or(i32::MAX as usize)),
    }
}

/// A budget "never": longer than any run.
const NEVER_MS: f64 = 1e12;

/// p99 by nearest rank of `v`.
fn p99(v: &mut [u64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let k = ((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len());
    v.get(k - 1).map(|&ms| ms as f64)
}

/// Run the model for one rate against a server configured as `server`.
pub fn run_model(server: &StatsConfig, r: RateInputs<'_>) -> Result<ModelRun, LiveError> {
    if !(r.service_ms.is_finite() && r.service_ms > 0.0 && r.seconds > 0.0) {
        return Err(LiveError::Model { reason: format!("service {} ms in {} s", r.service_ms, r.seconds) });
    }
    let work_ms = ((server.spin_ms + server.wait_ms) as f64).min(r.service_ms);
    let overhead_ns = (r.service_ms - work_ms) * 1e6;
    let door = model_door_in(server, r.chain.start_limit, r.chain.observed, overhead_ns)?;
    let present = r.chain.observed.map(|o| o.present(r.service_ms, work_ms)).unwrap_or_default();
    // The session: earlier rates at their offsets, then this one (sends in
    // order: a window's sends end before the next window starts).
    let mut arrivals: Vec<f64> = Vec::new();
    let mut last = 0.0_f64;
    let mut push = |offset: f64, sends: &[f64], to: &mut Vec<f64>| {
        for &a in sends {
            last = last.max(offset + a);
            to.push(last);
        }
    };
    for e in r.chain.earlier {
        push(e.offset_ms, e.arrivals, &mut arrivals);
    }
    let first = arrivals.len();
    push(r.chain.offset_ms, r.arrivals, &mut arrivals);
    let service = vec![r.service_ms; arrivals.len()];
    // The deploy scales spin and wait, not the HTTP overhead around them:
    // the factor on the whole service time that gives overhead + f x work.
    let factor = (r.service_ms - work_ms + server.slowdown_factor * work_ms) / r.service_ms;
    let slowdown = r.deploy_ms.and_then(|d| {
        let at = d as f64 + r.chain.offset_ms;
        let until = server.slowdown_for_ms.map_or(f64::INFINITY, |len| at + len as f64);
        // A bounded deploy over before the chain starts is no deploy.
        (until > 0.0).then_some(Slowdown { at_ms: at.max(0.0), until_ms: until, factor, stuck_ms: None })
    });
    let drop_ms = server.budget_ms.map_or(NEVER_MS, |b| b as f64);
    let bucket_ms = r.bucket_ms.max(1) as f64;
    let window_ms = r.seconds * 1000.0;
    let trace = Trace {
        arrivals: &arrivals,
        service_ms: &service,
        workers: u32::try_from(server.workers.max(1)).unwrap_or(u32::MAX),
        timeout_ms: drop_ms,
        slowdown_at_ms: f64::INFINITY,
        slowdown_factor: 1.0,
        stuck_after_slowdown: false,
        retries: 0,
        retry_backoff_ms: 0.0,
        window_ms: r.chain.offset_ms + window_ms,
        bucket_ms,
    };
    // The one engine with the trace's door and timeline; the callers and the
    // deploy as the live run has them.
    let mut model = trace.model(door);
    model.slowdown = slowdown;
    model.retry_after_ms = Some(server.retry_after_s as f64 * 1000.0);
    model.seed = r.seed;
    model.present = &present;
    if r.policy.is_active() {
        model.client = r.policy.client(r.client_timeout_ms as f64);
    }
    let run = model.run().map_err(|e| LiveError::Model { reason: e.to_string() })?;
    // This rate's tries, counted as the load tool counts them: an answer
    // (the server answers after its drop budget too) within the client
    // timeout is ok, by completion time; a refusal by when it was decided.
    let timeout = r.client_timeout_ms;
    let windows_n = (window_ms / bucket_ms).ceil().max(1.0) as usize;
    let slot = |t: f64| ((t - r.chain.offset_ms) / bucket_ms).floor().max(0.0) as usize;
    let mut answers: Vec<Vec<u64>> = vec![Vec::new(); windows_n];
    let mut refused = vec![0_u64; windows_n];
    let mut tries = vec![ModelWindow::default(); windows_n];
    let mut ok: Vec<u64> = Vec::new();
    // This rate's first tries, then every retry sent from its window's start
    // on (the engine appends retries after all first tries).
    let own = run.requests.get(first..first + r.arrivals.len()).unwrap_or_default();
    let retries = run.requests.get(arrivals.len() + present.len()..).unwrap_or_default();
    for q in own.iter().chain(retries.iter().filter(|q| q.arrival_ms >= r.chain.offset_ms)) {
        if let Some(w) = tries.get_mut(slot(q.arrival_ms)) {
            if q.attempt == 0 {
                w.first_tries += 1;
            } else {
                w.retries += 1;
            }
            if q.outcome == Outcome::Throttled {
                w.rejected += 1;
            }
        }
        if let (Outcome::Late, Some(end)) = (q.outcome, q.end_ms)
            && let Some(w) = tries.get_mut(slot(end))
        {
            w.late += 1;
        }
        match (q.outcome, q.end_ms) {
            (Outcome::Ok | Outcome::Late, Some(end)) => {
                let ms = libm::round(end - q.arrival_ms).max(0.0) as u64;
                if ms <= timeout {
                    ok.push(ms);
                    if let Some(w) = answers.get_mut(slot(end)) {
                        w.push(ms);
                    }
                }
            }
            (Outcome::Refused | Outcome::Shed, _) => {
                if let Some(n) = refused.get_mut(slot(q.resolved_ms(None))) {
                    *n += 1;
                }
            }
            _ => {}
        }
    }
    let prediction = Prediction { ok_per_sec: ok.len() as f64 / r.seconds, p99_ms: p99(&mut ok) };
    // The limit at the end of each of this rate's windows: the engine's
    // window (aligned to the chain's start) holding that moment.
    let limit_at = |i: usize| {
        let end = r.chain.offset_ms + (i + 1) as f64 * bucket_ms;
        let j = ((end / bucket_ms).ceil() as usize).saturating_sub(1);
        run.timeline.get(j).or(run.timeline.last()).and_then(|w| (w.limit >= 0).then_some(i64::from(w.limit)))
    };
    let windows = answers
        .iter_mut()
        .zip(&refused)
        .zip(&tries)
        .enumerate()
        .map(|(i, ((lat, &refused), t))| ModelWindow {
            ok: lat.len() as u64,
            refused,
            p99_ms: p99(lat).map(|v| v as u64),
            limit: limit_at(i),
            ..*t
        })
        .collect();
    Ok(ModelRun { prediction, windows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::schedule;
    use std::collections::BTreeMap;

    fn server(door: &str, limit: Option<usize>, budget_ms: Option<u64>) -> StatsConfig {
        StatsConfig {
            workers: 1,
            spin_ms: 2,
            wait_ms: 18,
            limit,
            max_connections: 100,
            header_read_timeout_ms: 5000,
            door: door.to_string(),
            controller: BTreeMap::new(),
            budget_ms,
            slowdown_at_ms: Some(10_000),
            slowdown_factor: 2.0,
            slowdown_for_ms: None,
            retry_after_s: 1,
            config_epoch: 0,
        }
    }

    /// A rate's inputs at the tests' 21 ms service and 2 s client timeout.
    fn inputs<'a>(arrivals: &'a [f64], seconds: f64, deploy_ms: Option<i64>, chain: Chain<'a>) -> RateInputs<'a> {
        RateInputs {
            arrivals,
            service_ms: 21.0,
            client_timeout_ms: 2000,
            seconds,
            deploy_ms,
            bucket_ms: 1000,
            chain,
            policy: ClientPolicy::NONE,
            seed: 1,
        }
    }

    fn run(door: &str, limit: Option<usize>, budget_ms: Option<u64>, rate: f64, deploy: Option<i64>) -> ModelRun {
        let arrivals = schedule(rate, 30.0, 1, 100_000);
        run_model(&server(door, limit, budget_ms), inputs(&arrivals, 30.0, deploy, Chain::default())).expect("model")
    }

    /// Windows after the deploy whose p99 is over 250 ms.
    fn windows_over_budget_after(door: &str, limit: Option<usize>) -> usize {
        let m = run(door, limit, Some(2000), 100.0, Some(10_000));
        assert_eq!(m.windows.len(), 30);
        m.windows[10..].iter().filter(|w| w.p99_ms.is_some_and(|p| p > 250)).count()
    }

    #[test]
    fn the_deploy_breaks_the_fixed_limit_and_codel_holds() {
        // limit 10 waiting + 1 in service = 11 x 42 ms after the 2x deploy.
        assert_eq!(windows_over_budget_after("fixed", Some(10)), 20);
        let codel = windows_over_budget_after("codel", None);
        assert!(codel <= 4, "codel: {codel} of 20 windows over 250 ms");
    }

    #[test]
    fn the_row_counts_the_deploy_and_the_door() {
        // Limit 10 at 100 rps: 47.6/s for 10 s, then 23.8/s for 20 s.
        let m = run("fixed", Some(10), None, 100.0, Some(10_000));
        let want = (10.0 * 1000.0 / 21.0 + 20.0 * 1000.0 / 42.0) / 30.0;
        assert!((m.prediction.ok_per_sec - want).abs() < 1.0, "{m:?} vs {want}");
        let p99 = m.prediction.p99_ms.expect("answers");
        assert!((440.0..=480.0).contains(&p99), "11 x 42 ms: {p99}");
        // Without a deploy the same door delivers its capacity.
        let flat = run("fixed", Some(10), Some(2000), 100.0, None);
        assert!((flat.prediction.ok_per_sec - 1000.0 / 21.0).abs() < 1.0, "{flat:?}");
    }

    #[test]
    fn an_earlier_rate_s_backlog_carries_into_the_next() {
        // 10 s at 100 rps with no limit leaves ~430 requests in the line at
        // 12 s (21 ms each: ~9 s of work), so 10 rps from 12 s waits behind
        // them; a run that starts empty answers all of them at once.
        let heavy = schedule(100.0, 10.0, 1, 100_000);
        let light = schedule(10.0, 10.0, 2, 100_000);
        let inputs = |chain| RateInputs {
            arrivals: &light,
            service_ms: 21.0,
            client_timeout_ms: 2000,
            seconds: 10.0,
            deploy_ms: None,
            bucket_ms: 1000,
            chain,
            policy: ClientPolicy::NONE,
            seed: 1,
        };
        let srv = server("off", None, None);
        let fresh = run_model(&srv, inputs(Chain::default())).expect("model");
        assert!((fresh.prediction.ok_per_sec - light.len() as f64 / 10.0).abs() < 0.01, "{fresh:?}");
        let earlier = [Earlier { arrivals: &heavy, offset_ms: 0.0 }];
        let chained = run_model(&srv, inputs(Chain { earlier: &earlier, offset_ms: 12_000.0, ..Chain::default() }))
            .expect("model");
        assert!(chained.prediction.ok_per_sec < 0.5 * fresh.prediction.ok_per_sec, "{chained:?}");
        // Only this rate's requests are counted, in this rate's windows.
        assert_eq!(chained.windows.len(), 10);
        let counted: u64 = chained.windows.iter().map(|w| w.ok).sum();
        assert!(counted as f64 <= chained.prediction.ok_per_sec * 10.0 + 0.5);
        assert!(chained.windows[..5].iter().all(|w| w.ok == 0), "the line drains first: {:?}", chained.windows);
    }

    /// The metastable presets' world on the live model: one worker at 21 ms
    /// behind a line of 40, 500 ms client timeout, 3x slowdown for 3 s.
    fn metastable(policy: ClientPolicy) -> ModelRun {
        let arrivals = schedule(30.0, 30.0, 1, 100_000);
        let mut srv = server("fixed", Some(40), None);
        (srv.spin_ms, srv.wait_ms, srv.slowdown_factor, srv.slowdown_for_ms) = (2, 18, 3.0, Some(3000));
        let inputs = RateInputs {
            arrivals: &arrivals,
            service_ms: 21.0,
            client_timeout_ms: 500,
            seconds: 30.0,
            deploy_ms: Some(10_000),
            bucket_ms: 1000,
            chain: Chain::default(),
            policy,
            seed: 1,
        };
        run_model(&srv, inputs).expect("model")
    }

    #[test]
    fn the_client_path_sustains_a_collapse_that_a_budget_breaks() {
        use bplab_core::stochastic::{Backoff, Retry, RetryBudget};
        let naive = ClientPolicy {
            retry: Retry { max_retries: 3, backoff: Backoff::Fixed { ms: 50.0 } },
            ..ClientPolicy::NONE
        };
        let n = metastable(naive);
        // The same first tries as the schedule; retries counted apart.
        let first: u64 = n.windows.iter().map(|w| w.first_tries).sum();
        assert_eq!(first, schedule(30.0, 30.0, 1, 100_000).len() as u64);
        assert!(n.windows[13..].iter().all(|w| w.ok == 0 && w.retries > 0), "naive stays down after the slowdown");
        let b = metastable(ClientPolicy {
            budget: Some(RetryBudget { ratio: 0.1, floor_rps: 1.0, max_tokens: 10.0 }),
            ..naive
        });
        assert!(b.windows[20..].iter().all(|w| w.ok >= 20), "{:?}", b.windows);
        let retries = |m: &ModelRun| m.windows.iter().map(|w| w.retries).sum::<u64>();
        assert!(retries(&b) * 10 < retries(&n), "{} vs {}", retries(&b), retries(&n));
        // Before the slowdown both are the same run (common random numbers).
        assert_eq!(n.windows[..10], b.windows[..10]);
    }

    /// A run of 10 s at `rate` from `observed` (or an empty server).
    fn from(srv: &StatsConfig, rate: f64, observed: Option<&Observed>) -> ModelRun {
        let arrivals = schedule(rate, 10.0, 1, 100_000);
        run_model(srv, inputs(&arrivals, 10.0, None, Chain { observed, ..Chain::default() })).expect("model")
    }

    fn held(n: usize, in_service: usize, age_ms: u64) -> Vec<crate::stats::Held> {
        (0..n)
            .map(|k| crate::stats::Held {
                age_us: (age_ms - k as u64) * 1000,
                in_service_us: (k < in_service).then_some(1000),
                work_us: if k < in_service { 20_000 } else { 0 },
                inflight: k as i32 + 1,
            })
            .collect()
    }

    #[test]
    fn an_observed_line_is_served_before_the_rate_s_own_requests() {
        // 100 requests held (1 in service), the oldest 1.5 s old: 100 x 21
        // ms of work before the first own request, so none of the first
        // second's own requests is answered within the 2 s client timeout
        // before 2.1 s; from an empty server they are answered at once.
        let srv = server("off", None, None);
        let o = Observed { limiter: None, codel: None, held: held(100, 1, 1500), uptime_ms: 20_000 };
        let (fresh, seen) = (from(&srv, 10.0, None), from(&srv, 10.0, Some(&o)));
        assert!(fresh.windows[0].ok > 0 && fresh.windows[1].ok > 0, "{:?}", fresh.windows);
        assert_eq!((seen.windows[0].ok, seen.windows[1].ok), (0, 0), "{:?}", seen.windows);
        // Only the rate's own requests are counted.
        assert!(seen.prediction.ok_per_sec <= 10.5, "{:?}", seen.prediction);
    }

    #[test]
    fn an_observed_controller_is_resumed_in_its_state_on_the_model_s_scale() {
        use bplab_core::control::LimiterState;
        let srv = server("aimd", None, None);
        let high =
            Observed { limiter: Some(LimiterState::Aimd { limit: 150 }), codel: None, held: vec![], uptime_ms: 0 };
        let seen = from(&srv, 100.0, Some(&high));
        let fresh = from(&srv, 100.0, None);
        // AIMD only grows here (no drops): from 150 it is far above the 20
        // an empty start has after the first window.
        assert!(seen.windows[0].limit.is_some_and(|l| l >= 150), "{:?}", seen.windows[0]);
        assert!(fresh.windows[0].limit.is_some_and(|l| l < 150), "{:?}", fresh.windows[0]);
        // A state of another algorithm is a note, not a panic.
        let wrong = Observed { limiter: Some(LimiterState::Fixed), ..high.clone() };
        let arrivals = schedule(10.0, 1.0, 1, 100_000);
        let chain = Chain { observed: Some(&wrong), ..Chain::default() };
        let e = run_model(&srv, inputs(&arrivals, 1.0, None, chain)).unwrap_err().to_string();
        assert!(e.contains("the server's limiter state: state:"), "{e}");
        // Round trips the server measured are moved onto the model's scale.
        let g2 =
            LimiterState::Gradient2 { estimate: 30.0, long_rtt_ns: 20e6, long_rtt_sum_ns: 200e6, long_rtt_count: 10 };
        let want =
            LimiterState::Gradient2 { estimate: 30.0, long_rtt_ns: 21.5e6, long_rtt_sum_ns: 215e6, long_rtt_count: 10 };
        assert_eq!(on_model_scale(&g2, 1.5e6), want);
        let fresh_vegas =
            LimiterState::Vegas { estimate: 20.0, rtt_noload_ns: 0, probe_count: 0, jitter: 0.7, draws: 1 };
        assert_eq!(on_model_scale(&fresh_vegas, 1.5e6), fresh_vegas, "an unset no-load RTT stays unset");
    }

    #[test]
    fn only_a_server_that_reports_its_whole_state_is_observed() {
        let mut snap = crate::stats::StatsSnapshot {
            config: server("gradient2", None, None),
            arrived: 0,
            done: 0,
            refused: 0,
            in_service: 0,
            queued: 0,
            queued_peak: 0,
            connections_shed: 0,
            over_cap: 0,
            uptime_ms: 5,
            door: Default::default(),
            held: Some(vec![]),
        };
        assert_eq!(Observed::of(&snap), None, "gradient2 without its limiter state");
        snap.door.limiter_state = Some(bplab_core::control::LimiterState::Aimd { limit: 20 });
        assert!(Observed::of(&snap).is_some());
        snap.held = None;
        assert_eq!(Observed::of(&snap), None, "an older server: no held requests");
        snap.config = server("fixed", Some(10), None);
        snap.held = Some(vec![]);
        assert!(Observed::of(&snap).is_some(), "a fixed limit has no controller state");
    }

    #[test]
    fn limit_off_collapses_and_the_client_timeout_decides_ok() {
        // No limit at 100 rps: the line grows past the 2 s client timeout.
        let m = run("off", None, None, 100.0, None);
        assert!(m.prediction.ok_per_sec < 12.0, "{m:?}");
        assert!(m.prediction.p99_ms.is_some_and(|p| p <= 2000.0), "{m:?}");
    }
}
