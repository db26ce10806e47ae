//! When the service time moves (the course lesson's last section): a fixed limit,
//! request-queue CoDel and four adaptive limiters raced on one trace. Every
//! controller sees the same arrivals and the same base service times; a
//! deploy multiplies the service time from `slowdown-at-ms` on.

pub(super) mod explain;
pub mod hooks;
mod params;
pub(super) mod plots;

use serde::Serialize;

pub use params::{AdaptiveParams, Controller, Deploy, Preset};

use super::{
    ChartSpec, Estimate, Exec, Experiment, ExperimentId, RunTally, par_map,
    poisson_bound,
};
use crate::control::{
    AimdConfig, AimdParams, Codel, CodelConfig, Draws, FixedConfig, Gradient2Config, Gradient2Params, GradientConfig,
    GradientParams, LimiterConfig, VegasConfig, VegasParams,
};
use crate::error::ConfigError;
use crate::numerics::percentile_of_values;
use crate::stochastic::{Bucket, Door, RateSchedule, SimOut, Step, Trace, simulate};
use crate::table::{Row, Table, TableSpec};

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Adaptive,
    name: "adaptive",
    title: "When the service time moves",
    post: "Course lesson, last section: fixed limit vs CoDel vs adaptive limits",
    dir: "adaptive",
    lesson: "A limit derived from one service time is wrong by the ratio after a deploy; CoDel and adaptive limits try to re-derive it, each in its own way, and the race shows whether they do.",
    tables: &TABLES,
    charts: &CHARTS,
    params: AdaptiveParams::SPECS,
    main_param: "slowdown-factor",
    window_param: "seconds",
};

static TABLES: [TableSpec; 2] = [
    TableSpec {
        file: "adaptive-timeline.csv",
        golden_sha256: None,
        header: "controller,window_start_ms,limit,in_flight_max,ok_per_sec,refused_per_sec,p99_ms,wasted",
        title: "Per window and controller: limit, in flight, answers, refusals, p99 of answers, work thrown away",
    },
    TableSpec {
        file: "adaptive-summary.csv",
        golden_sha256: None,
        header: "controller,ok_per_sec_before,ok_per_sec_after,p99_before_ms,p99_after_ms,refused,wasted,recovery_ms",
        title: "Per controller: before and after the deploy, and the time to get p99 back under the budget",
    },
];

static CHARTS: [ChartSpec; 3] = [
    ChartSpec { file: "adaptive-limit.png", title: "Limit over time per controller" },
    ChartSpec {
        file: "adaptive-p99.png",
        title: "p99 of answers over time, against the budget",
    },
    ChartSpec { file: "adaptive-ok.png", title: "Delivered answers over time" },
];

/// CoDel's interval (folly's default), ms.
pub const CODEL_INTERVAL_MS: u32 = crate::control::CODEL_INTERVAL_MS as u32;
/// Retries per caller in the retry-storm preset.
pub const STORM_RETRIES: u32 = 3;
/// Concurrency of the stuck-downstream preset: the handler waits on I/O, so
/// the worker count no longer bounds what is in flight.
pub const STUCK_WORKERS: u32 = 1000;
/// Backoff of the retry-storm preset, ms.
pub const STORM_BACKOFF_MS: f64 = 100.0;

/// One controller's race.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Lane {
    /// Which controller.
    pub controller: Controller,
    /// What happened.
    pub out: SimOut,
    /// ok/s before and after the deploy.
    pub ok_per_sec: (f64, f64),
    /// p99 of answers before and after, ms.
    pub p99_ms: (Option<u64>, Option<u64>),
    /// ms after the deploy until every later window's p99 is within the
    /// budget (`Some(0)`: never passed it; `None`: not within the run).
    pub recovery_ms: Option<u64>,
}

/// The adaptive experiment's result.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct AdaptiveReport {
    /// The scenario preset last chosen (its values are the fields below).
    pub preset: Preset,
    /// What the deploy does.
    pub deploy: Deploy,
    /// Offered rate (the first step's), rps.
    pub rate_rps: f64,
    /// Workers.
    pub workers: u32,
    /// Mean service time before the deploy, ms.
    pub service_mean_ms: f64,
    /// Service in words.
    pub service_words: String,
    /// Budget, ms.
    pub budget_ms: u32,
    /// Client timeout, ms.
    pub timeout_ms: u32,
    /// Deploy time, ms, and factor.
    pub slowdown: (u32, f64),
    /// The fixed limit: the lesson's formula from the service time measured before the deploy.
    pub fixed_limit: i32,
    /// CoDel target, ms.
    pub codel_target_ms: u32,
    /// Timeline window, ms.
    pub window_ms: u32,
    /// Run window, ms.
    pub run_ms: f64,
    /// Retries per refused or abandoned caller.
    pub retries: u32,
    /// Wait before a retry, ms.
    pub retry_backoff_ms: u32,
    /// One lane per controller, in the order asked.
    pub lanes: Vec<Lane>,
    /// The parameters it ran with: the statement checker re-makes each
    /// lane from them with every request kept (not serialized).
    #[serde(skip)]
    pub params: Option<AdaptiveParams>,
}

/// The offered traffic: the rate schedule's steps, the last one holding.
fn traffic(p: &AdaptiveParams) -> RateSchedule {
    let steps: Vec<Step> = p
        .rate_schedule
        .iter()
        .enumerate()
        .map(|(i, &(rate_rps, at))| {
            let end = p.rate_schedule.get(i + 1).map_or(crate::stochastic::MAX_MS, |n| f64::from(n.1));
            Step { rate_rps, duration_ms: (end - f64::from(at)).clamp(1.0, crate::stochastic::MAX_MS) }
        })
        .collect();
    RateSchedule::steps(steps)
}

/// The lesson's formula on the pre-deploy service time, as an in-system limit.
fn fixed_limit(p: &AdaptiveParams) -> i32 {
    let s = p.service.mean_ms();
    let w = f64::from(p.workers);
    let queue = libm::round((w * (f64::from(p.budget_ms) - s) / s).max(0.0));
    (queue + w).clamp(1.0, f64::from(i32::MAX)) as i32
}

pub(super) fn check(p: &AdaptiveParams) -> Result<(Estimate, u64), ConfigError> {
    let run_ms = p.seconds * 1000.0;
    if !(1.0..=crate::stochastic::MAX_MS).contains(&run_ms) {
        let s = params::RUN_SECONDS;
        return Err(ConfigError::OutOfRange {
            param: s.name,
            value: p.seconds.to_string(),
            accepted: format!("{} (at least 0.001 s)", s.accepted()),
        });
    }
    // Expected arrivals plus a Poisson tail no run will pass.
    let per_run = poisson_bound(traffic(p).estimate_work(run_ms).map_or(f64::INFINITY, |m| m as f64));
    let retries = 1 + u64::from(p.retries);
    // Every door builds from in-range parameters; build each once here, so
    // the run never meets a refusal.
    for &c in &p.controllers {
        door(c, p, fixed_limit(p)).map_err(|e| ConfigError::OutOfRange {
            param: "controllers",
            value: c.name().to_owned(),
            accepted: e.to_string(),
        })?;
    }
    let mut e = Estimate::default();
    e.add(per_run.saturating_mul(retries), p.controllers.len() as u64);
    Ok((e, (run_ms / f64::from(p.window_ms)).ceil() as u64 * p.controllers.len() as u64))
}

/// The door of controller `c`. The configs are the reference library's
/// defaults (which validate), a fixed limit of at least 1 and a CoDel
/// target in the spec's range, so `Err` is impossible in practice; it is
/// still reported, not replaced by another controller.
fn door(c: Controller, p: &AdaptiveParams, fixed: i32) -> Result<Door, crate::control::ControlError> {
    let seed = u64::from(p.seed);
    let cfg = match c {
        Controller::Codel => {
            let c = CodelConfig::new(i64::from(p.codel_target_ms), i64::from(CODEL_INTERVAL_MS))?;
            return Ok(Door::Codel(Codel::new(&c, 0)));
        }
        Controller::Fixed => LimiterConfig::Fixed(FixedConfig::new(fixed)?),
        Controller::Aimd => LimiterConfig::Aimd(AimdConfig::new(AimdParams::default())?),
        Controller::Vegas => LimiterConfig::Vegas(VegasConfig::new(VegasParams {
            jitter: Draws::seeded(seed),
            ..VegasParams::default()
        })?),
        Controller::Gradient2 => LimiterConfig::Gradient2(Gradient2Config::new(Gradient2Params::default())?),
        Controller::Gradient => LimiterConfig::Gradient(GradientConfig::new(GradientParams {
            offsets: Draws::seeded(seed),
            ..GradientParams::default()
        })?),
    };
    Ok(Door::Limit(cfg.build()))
}

fn p99(v: &[u64]) -> Option<u64> {
    let mut v = v.to_vec();
    (!v.is_empty()).then(|| percentile_of_values(&mut v, 99.0))
}

/// The full run is cheap: no preview.
pub(super) fn preview(_: &AdaptiveParams, _: &dyn Exec) -> Option<AdaptiveReport> {
    None
}

/// The trace's inputs: the first tries' arrival times and their base
/// service times (the same for every lane).
fn inputs(p: &AdaptiveParams) -> (Vec<f64>, Vec<f64>) {
    let run_ms = p.seconds * 1000.0;
    let sched = traffic(p);
    let cap = sched.estimate_work(run_ms).unwrap_or(0).saturating_mul(2).saturating_add(64);
    let arrivals = sched.generate(run_ms, u64::from(p.seed), cap).unwrap_or_default();
    let base: Vec<f64> = p.service.draws(u64::from(p.seed)).take(arrivals.len()).collect();
    (arrivals, base)
}

/// The race's trace over `inputs`.
fn trace<'a>(p: &AdaptiveParams, arrivals: &'a [f64], base: &'a [f64]) -> Trace<'a> {
    let stuck = p.deploy == Deploy::Stuck;
    Trace {
        arrivals,
        service_ms: base,
        // A stuck downstream holds connections, not CPU: workers stop being the bound.
        workers: if stuck { p.workers.max(STUCK_WORKERS) } else { p.workers },
        timeout_ms: f64::from(p.client_timeout_ms),
        slowdown_at_ms: f64::from(p.slowdown_at_ms),
        slowdown_factor: p.slowdown_factor,
        stuck_after_slowdown: stuck,
        retries: p.retries,
        retry_backoff_ms: f64::from(p.retry_backoff_ms),
        window_ms: p.seconds * 1000.0,
        bucket_ms: f64::from(p.window_ms),
    }
}

/// Every lane re-run with every request kept: the whole run, and its
/// phases before and after the change point (answers by completion time,
/// refusals by arrival; the drain after the run's end in neither).
pub(super) fn request_logs(p: &AdaptiveParams) -> crate::statement::Logs {
    use super::lesson::explain::runs::records;
    use crate::statement::RunLog;
    let (arrivals, base) = inputs(p);
    let tr = trace(p, &arrivals, &base);
    let run_ms = tr.window_ms;
    let at = f64::from(p.slowdown_at_ms).min(run_ms);
    let timeout = Some(tr.timeout_ms);
    let mut runs = Vec::new();
    for &c in &p.controllers {
        let Some(run) = door(c, p, fixed_limit(p)).ok().and_then(|d| tr.model(d).run().ok()) else { continue };
        let whole = RunLog { reqs: records(&run, timeout, |_| true), ..RunLog::new(explain::key(c, ""), run_ms) };
        runs.push(whole.within(explain::key(c, explain::BEFORE), 0.0, at));
        runs.push(whole.within(explain::key(c, explain::AFTER), at, run_ms));
        runs.push(whole.within(explain::key(c, explain::RUN), 0.0, run_ms));
        runs.push(whole);
    }
    crate::statement::Logs { runs }
}

pub(super) fn run(p: &AdaptiveParams, exec: &dyn Exec) -> AdaptiveReport {
    let svc = p.service;
    let run_ms = p.seconds * 1000.0;
    let (arrivals, base) = inputs(p);
    let factor = p.slowdown_factor;
    let retries = p.retries;
    let trace = trace(p, &arrivals, &base);
    let fixed = fixed_limit(p);
    let at = f64::from(p.slowdown_at_ms).min(run_ms);
    // `check` built every door, so none is refused here.
    let doors: Vec<(Controller, Door)> =
        p.controllers.iter().filter_map(|&c| door(c, p, fixed).ok().map(|d| (c, d))).collect();
    let lanes = par_map(exec, &doors, |(controller, d)| {
        let controller = *controller;
        let out = simulate(trace, d.clone());
        let secs = |ms: f64| (ms / 1000.0).max(1e-9);
        // Answers inside the run window only, as the timeline counts them:
        // the drain of what was admitted ends after the window (A1).
        let (before, after) = out.within_window();
        let ok_before = before.len() as f64 / secs(at);
        let ok_after = after.len() as f64 / secs(run_ms - at);
        let recovery_ms = explain::recovery(&out.buckets, p.window_ms, p.slowdown_at_ms, p.budget_ms);
        let p99_ms = (p99(before), p99(after));
        Lane {
            controller,
            ok_per_sec: (ok_before, ok_after),
            p99_ms,
            recovery_ms,
            out,
        }
    });
    AdaptiveReport {
        preset: p.preset,
        deploy: p.deploy,
        rate_rps: p.rate_schedule.first().map_or(0.0, |s| s.0),
        workers: p.workers,
        service_mean_ms: svc.mean_ms(),
        service_words: svc.describe(),
        budget_ms: p.budget_ms,
        timeout_ms: p.client_timeout_ms,
        slowdown: (p.slowdown_at_ms, factor),
        fixed_limit: fixed,
        codel_target_ms: p.codel_target_ms,
        window_ms: p.window_ms,
        run_ms,
        retries,
        retry_backoff_ms: p.retry_backoff_ms,
        lanes,
        params: Some(p.clone()),
    }
}

impl AdaptiveReport {
    /// Counts of timeline window `i` to a rate: per second of its span (the
    /// last window may be cut short by the run's end).
    pub fn per_second(&self, i: usize) -> f64 {
        let w = f64::from(self.window_ms.max(1));
        let span = w.min(self.run_ms - i as f64 * w);
        if span > 0.0 { 1000.0 / span } else { 0.0 }
    }
}

fn opt_ms(v: Option<u64>) -> String {
    v.map_or_else(String::new, |x| x.to_string())
}

impl super::Rows for AdaptiveReport {
    fn tallies(&self) -> Vec<RunTally> {
        self.lanes
            .iter()
            .map(|l| RunTally {
                label: l.controller.to_string(),
                arrivals: l.out.attempts,
                goodput: l.out.ok,
                late: l.out.wasted,
                refused: l.out.refused,
                unresolved: l.out.unresolved,
                pcts: Vec::new(),
                quantiles: None,
            })
            .collect()
    }

    fn tables(&self) -> Vec<Table> {
        let mut tl = Table::new(&TABLES[0]);
        for l in &self.lanes {
            for (i, b) in l.out.buckets.iter().enumerate() {
                let per_s = self.per_second(i);
                tl.rows.push(
                    Row::new()
                        .text(l.controller.name())
                        .int(i as u64 * u64::from(self.window_ms))
                        .int(b.limit)
                        .int(b.in_flight_max)
                        .f1(b.ok as f64 * per_s)
                        .f1(b.refused as f64 * per_s)
                        .text(opt_ms(b.p99_ms))
                        .int(b.wasted)
                        .done(),
                );
            }
        }
        let mut sum = Table::new(&TABLES[1]);
        for l in &self.lanes {
            sum.rows.push(
                Row::new()
                    .text(l.controller.name())
                    .f1(l.ok_per_sec.0)
                    .f1(l.ok_per_sec.1)
                    .text(opt_ms(l.p99_ms.0))
                    .text(opt_ms(l.p99_ms.1))
                    .int(l.out.refused)
                    .int(l.out.wasted)
                    .text(opt_ms(l.recovery_ms))
                    .done(),
            );
        }
        vec![tl, sum]
    }
}
