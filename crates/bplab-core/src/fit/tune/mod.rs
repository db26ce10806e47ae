//! Tuning on the user's trace: the fixed limit, CoDel and the four
//! adaptive controllers raced on the fitted service at the measured rates,
//! through a deploy that multiplies the service time by each factor. A grid
//! over each controller's settings; the robust choice keeps the p99 of the
//! answers under the budget in every (rate, factor) cell with the most
//! goodput on average over the cells.
//!
//! Every grid point is independent ([`run_point`]), so a large grid can be
//! split ([`Point::id`] modulo a shard count) and the results merged
//! ([`pick`]).

use serde::{Deserialize, Serialize};

use super::error::FitError;
use crate::control::{Codel, CodelConfig, limiter_config};
use crate::stochastic::{Door, RateSchedule, ServiceTime, Trace, try_simulate};

/// The deploy factors when none are given.
pub const FACTORS: [f64; 4] = [0.5, 1.0, 2.0, 3.0];
/// Each cell's window, ms.
pub const WINDOW_MS: f64 = 20_000.0;
/// The deploy starts this far into the window, ms.
pub const DEPLOY_AT_MS: f64 = 5_000.0;
/// Callers give up after this long (the load tool's default), ms.
pub const CALLER_TIMEOUT_MS: f64 = 2_000.0;
/// Most arrivals simulated by one tune (all points, all cells).
pub const MAX_TUNE_WORK: u64 = 60_000_000;
/// Most rates and factors.
pub const MAX_CELLS_AXIS: usize = 8;

pub use crate::control::Controller;

/// One grid point: a controller and its settings, by `bplab limiter` /
/// `bplab serve` flag names (`initial-limit`, `target-ms`, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Position in the grid (for sharding).
    pub id: usize,
    /// The controller.
    pub controller: Controller,
    /// Settings as flag name and text.
    pub settings: Vec<(String, String)>,
}

impl Point {
    /// The door this point puts in front of the workers.
    pub fn door(&self) -> Result<Door, FitError> {
        let get = |k: &str| self.settings.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        let bad = |e: String| FitError::OutOfRange { param: "settings", value: e, accepted: "the controller's ranges" };
        match self.controller.algorithm() {
            Some(a) => Ok(Door::Limit(limiter_config(a, get).map_err(|e| bad(e.to_string()))?.build())),
            None => {
                let ms = |k: &str| get(k).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
                let cfg = CodelConfig::new(ms("target-ms"), ms("interval-ms")).map_err(|e| bad(e.to_string()))?;
                Ok(Door::Codel(Codel::new(&cfg, 0)))
            }
        }
    }
}

/// What the race runs on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneInput {
    /// The fitted service (its draws are the base work).
    #[serde(with = "service_text")]
    pub service: ServiceTime,
    /// Effective workers.
    pub workers: u32,
    /// Offered rates, rps (the measured ones).
    pub rates_rps: Vec<f64>,
    /// Deploy factors.
    pub factors: Vec<f64>,
    /// The p99 budget, ms.
    pub budget_ms: f64,
    /// Seed of arrivals and service draws.
    pub seed: u64,
}

mod form;
mod grid;

pub use form::{edge_form, library_form};
pub use grid::grid;

mod service_text {
    use crate::stochastic::ServiceTime;
    pub fn serialize<S: serde::Serializer>(s: &ServiceTime, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_str(s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<ServiceTime, D::Error> {
        let t = <String as serde::Deserialize>::deserialize(de)?;
        t.parse().map_err(serde::de::Error::custom)
    }
}

impl TuneInput {
    /// Checks the ranges and the work cap.
    pub fn validate(&self) -> Result<(), FitError> {
        let bad = |param, value: String, accepted| Err(FitError::OutOfRange { param, value, accepted });
        if !(self.budget_ms > 0.0 && self.budget_ms <= 1e7) {
            return bad("budget-ms", self.budget_ms.to_string(), "a number above 0 to 10000000 (ms)");
        }
        if self.factors.is_empty()
            || self.factors.len() > MAX_CELLS_AXIS
            || self.factors.iter().any(|f| !(*f > 0.0 && *f <= 100.0))
        {
            return bad("factors", format!("{:?}", self.factors), "1 to 8 comma-separated numbers above 0 to 100");
        }
        if self.rates_rps.is_empty() || self.rates_rps.iter().any(|r| !(*r > 0.0 && *r <= 1e5)) {
            return bad("rates", format!("{:?}", self.rates_rps), "1 to 8 rates above 0 to 100000 rps");
        }
        let per_point: f64 = self.rates_rps.iter().sum::<f64>() * WINDOW_MS / 1000.0 * self.factors.len() as f64;
        let work = per_point * grid(self).len() as f64;
        if work > MAX_TUNE_WORK as f64 {
            return Err(FitError::TooLarge { requests: work as u64, cap: MAX_TUNE_WORK });
        }
        Ok(())
    }
}

/// One (rate, factor) run of a point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Offered rate, rps.
    pub rate_rps: f64,
    /// Deploy factor.
    pub factor: f64,
    /// Answers in time per second of the window.
    pub ok_per_sec: f64,
    /// p99 of the answers (before and after the deploy), ms; `None`: no answers.
    pub p99_ms: Option<u64>,
    /// Refused or shed.
    pub refused: u64,
}

/// Runs `point` at every rate and factor: same arrivals and base work for
/// every point (common random numbers).
pub fn run_point(input: &TuneInput, point: &Point) -> Result<Vec<Cell>, FitError> {
    let mut cells = Vec::new();
    for (i, &rate) in input.rates_rps.iter().enumerate() {
        let seed = input.seed.wrapping_add(i as u64);
        let arrivals = RateSchedule::constant(rate)
            .generate(WINDOW_MS, seed, MAX_TUNE_WORK)
            .map_err(|_| FitError::TooLarge { requests: MAX_TUNE_WORK, cap: MAX_TUNE_WORK })?;
        let work: Vec<f64> = input.service.draws(seed).take(arrivals.len()).collect();
        for &factor in &input.factors {
            let trace = Trace {
                arrivals: &arrivals,
                service_ms: &work,
                workers: input.workers,
                timeout_ms: CALLER_TIMEOUT_MS,
                slowdown_at_ms: DEPLOY_AT_MS,
                slowdown_factor: factor,
                stuck_after_slowdown: false,
                retries: 0,
                retry_backoff_ms: 0.0,
                window_ms: WINDOW_MS,
                bucket_ms: WINDOW_MS,
            };
            let out = try_simulate(trace, point.door()?).map_err(|e| FitError::OutOfRange {
                param: "tune",
                value: e.to_string(),
                accepted: "a run the engine accepts",
            })?;
            let mut all: Vec<u64> = out.before_ms.iter().chain(&out.after_ms).copied().collect();
            all.sort_unstable();
            let p99 =
                (!all.is_empty()).then(|| all[((0.99 * all.len() as f64).ceil() as usize).clamp(1, all.len()) - 1]);
            cells.push(Cell {
                rate_rps: rate,
                factor,
                ok_per_sec: out.ok as f64 * 1000.0 / WINDOW_MS,
                p99_ms: p99,
                refused: out.refused,
            });
        }
    }
    Ok(cells)
}

/// A point with its cells and score: one JSON line of `--jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// The point.
    pub point: Point,
    /// Its runs.
    pub cells: Vec<Cell>,
    /// Cells whose p99 is within the budget (or that had no answers).
    pub meets: usize,
    /// Mean answers/s over the cells.
    pub goodput_rps: f64,
}

impl Scored {
    /// Scores `cells` of `point` against `budget_ms`.
    pub fn new(point: Point, cells: Vec<Cell>, budget_ms: f64) -> Self {
        let meets = cells.iter().filter(|c| c.p99_ms.is_none_or(|p| p as f64 <= budget_ms)).count();
        let goodput =
            if cells.is_empty() { 0.0 } else { cells.iter().map(|c| c.ok_per_sec).sum::<f64>() / cells.len() as f64 };
        Scored { point, cells, meets, goodput_rps: goodput }
    }

    /// p99 within the budget in every cell.
    pub fn feasible(&self) -> bool {
        self.meets == self.cells.len()
    }
}

/// The choice over scored points.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pick {
    /// The chosen point: the most goodput among the feasible (or, when none
    /// is, the most cells within the budget, then the most goodput).
    pub best: Scored,
    /// The best point of another controller.
    pub runner_up: Option<Scored>,
    /// Each controller's best, in [`Controller::ALL`] order.
    pub per_controller: Vec<Scored>,
    /// Whether the best keeps p99 under the budget everywhere.
    pub feasible: bool,
    /// Points scored.
    pub points: usize,
}

fn better(a: &Scored, b: &Scored) -> bool {
    (a.meets, a.goodput_rps) > (b.meets, b.goodput_rps)
        || ((a.meets, a.goodput_rps) == (b.meets, b.goodput_rps) && a.point.id < b.point.id)
}

fn best_of<'a>(it: impl Iterator<Item = &'a Scored>) -> Option<&'a Scored> {
    it.fold(None::<&Scored>, |acc, s| if acc.is_none_or(|a| better(s, a)) { Some(s) } else { acc })
}

/// Picks over any scored points (one run or merged shards).
pub fn pick(scored: &[Scored]) -> Option<Pick> {
    let best = best_of(scored.iter())?.clone();
    let per_controller: Vec<Scored> = Controller::ALL
        .iter()
        .filter_map(|c| best_of(scored.iter().filter(|s| s.point.controller == *c)).cloned())
        .collect();
    let runner_up = best_of(per_controller.iter().filter(|s| s.point.controller != best.point.controller)).cloned();
    Some(Pick { feasible: best.feasible(), best, runner_up, per_controller, points: scored.len() })
}

/// Runs the points of shard `shard` of `shards` (ids ≡ shard mod shards).
pub fn run_shard(input: &TuneInput, shard: usize, shards: usize) -> Result<Vec<Scored>, FitError> {
    input.validate()?;
    grid(input)
        .into_iter()
        .filter(|p| p.id % shards.max(1) == shard)
        .map(|p| run_point(input, &p).map(|cells| Scored::new(p, cells, input.budget_ms)))
        .collect()
}

/// The whole grid, then the pick.
pub fn tune(input: &TuneInput) -> Result<(Vec<Scored>, Pick), FitError> {
    let scored = run_shard(input, 0, 1)?;
    let picked = pick(&scored).ok_or(FitError::NoData)?;
    Ok((scored, picked))
}
